"""Printing IR as text: each registered op in its custom form (derived from its
assembly format), everything else in MLIR's generic form."""
from __future__ import annotations

from ..ir.attributes import entry_text
from ..ir.core import Block, Operation, Region
from ..ir.location import UNKNOWN
from ..ir.printing import quote
from ..ir.traits import IsolatedFromAbove


class Printer:
    def __init__(self, generic: bool = False, debuginfo: bool = False, indent_width: int = 2):
        self.generic, self.debuginfo = generic, debuginfo
        self.parts: list[str] = []
        self.indent = 0
        self.indent_width = indent_width
        self.names: dict = {}
        self.block_names: dict = {}
        self._next_value = 0
        self._next_arg = 0
        self._next_block = 0
        self._next_conflict = 0
        self._used_names: set = set()  # names taken from asm_result_names()
        self.loc_aliases: list = []
        self.aliases = None   # AliasState: #loc/#di_* aliases when printing debug info
        self._collect = None  # AliasState filled by the dry run that finds them

    # -- output -----------------------------------------------------------
    def write(self, text: str):
        self.parts.append(text)

    def newline(self):
        self.parts.append("\n" + " " * (self.indent * self.indent_width))

    def text(self) -> str:
        return "".join(self.parts)

    # -- names ------------------------------------------------------------
    def _name_scope(self, regions):
        """Number the values defined in `regions` (down to isolated ops)."""
        stack = list(reversed(regions))
        while stack:
            region = stack.pop()
            for block in region.blocks:
                if block is not region.blocks[0] or len(region.blocks) > 1:
                    if block not in self.block_names:
                        self.block_names[block] = f"^bb{self._next_block}"
                        self._next_block += 1
                named = _block_arg_names(region) if block is region.blocks[0] else None
                for i, arg in enumerate(block.arguments):
                    if named and i < len(named) and named[i]:
                        self.names[arg] = "%" + self._unique_name(named[i])
                        continue
                    self.names[arg] = f"%arg{self._next_arg}"
                    self._next_arg += 1
                for op in block.ops:
                    if op.results:
                        self._name_results(op)
                    if op.regions and not _isolated(op):
                        stack.extend(reversed(op.regions))

    def _name_results(self, op):
        """`%N` (`%N#i` for several results), or the names the op suggests
        through `asm_result_names()` (MLIR's getAsmResultNames): one entry per
        result, None for unnamed; a named result starts a new result group.
        Clashing names get MLIR's `_<counter>` suffix."""
        hook = getattr(op, "asm_result_names", None)
        suggested = hook() if hook is not None else _ods_result_names(op)
        if not suggested or not any(suggested):
            suggested = [None] * len(op.results)
        starts = [0] + [i for i in range(1, len(op.results)) if suggested[i]]
        for gi, start in enumerate(starts):
            end = starts[gi + 1] if gi + 1 < len(starts) else len(op.results)
            if suggested[start]:
                base = "%" + self._unique_name(suggested[start])
            else:
                base = f"%{self._next_value}"
                self._next_value += 1
            for r in op.results[start:end]:
                self.names[r] = base if end - start == 1 else f"{base}#{r.index - start}"

    def _unique_name(self, name: str) -> str:
        used = self._used_names
        if name in used:
            while True:
                probe = f"{name}_{self._next_conflict}"
                self._next_conflict += 1
                if probe not in used:
                    name = probe
                    break
        used.add(name)
        return name

    def value_name(self, value) -> str:
        name = self.names.get(value)
        if name is None:
            return "<<UNKNOWN SSA VALUE>>"
        return name

    def result_prefix(self, op: Operation) -> str:
        if not op.results:
            return ""
        groups = []  # [base, count] per result group
        for r in op.results:
            base = self.value_name(r).split("#")[0]
            if groups and groups[-1][0] == base:
                groups[-1][1] += 1
            else:
                groups.append([base, 1])
        return ", ".join(b if n == 1 else f"{b}:{n}" for b, n in groups) + " = "

    # -- entry points -----------------------------------------------------
    def print_top(self, ops):
        ops = list(ops)
        deferred = ()
        if self.debuginfo and self._collect is None:
            self.aliases = collect_aliases(self, ops)
            for line in self.aliases.definitions(deferred=False):
                self.write(line + "\n")
            deferred = self.aliases.definitions(deferred=True)
        # top-level ops share one naming scope (they may use each other's results)
        self._name_scope([_Wrap(ops)])
        self._top_named = True
        for i, op in enumerate(ops):
            if i:
                self.write("\n")
            self.print_operation(op)
        self._top_named = False
        self.write("\n")
        for line in deferred:
            self.write(line + "\n")

    def print_operation(self, op: Operation):
        if self._collect is not None:
            self._collect.visit(op.location or UNKNOWN, True)
        top = op.parent is None or op.parent.parent is None
        scoped = top or _isolated(op)
        if scoped:
            saved = (self.names, self._next_value, self._next_arg, self._next_block, self._next_conflict,
                     self._used_names)
            if not (top and getattr(self, "_top_named", False)):
                self._next_value = self._next_arg = self._next_block = self._next_conflict = 0
                self.names = dict(self.names)
                self._used_names = set()
                if top:
                    self._name_scope([_Wrap(op)])
            else:
                self.names = dict(self.names)
            if not (top and getattr(self, "_top_named", False) and not _isolated(op)):
                self._name_scope(op.regions)  # (a non-isolated top op's regions were named with the top scope)
        self.write(self.result_prefix(op))
        fmt = None if self.generic else _format_of(op)
        if fmt is not None:
            fmt.print(op, self)
        else:
            self.print_generic(op)
        if self.debuginfo:
            self.write(self.loc_suffix(op.location or UNKNOWN))
        if scoped:
            (self.names, self._next_value, self._next_arg, self._next_block, self._next_conflict,
             self._used_names) = saved

    def print_generic(self, op: Operation):
        self.write(quote(op.name))
        self.write("(" + ", ".join(self.value_name(v) for v in op.operands) + ")")
        if op.successors:
            self.write("[" + ", ".join(self.block_names.get(b, "^bb?") for b in op.successors) + "]")
        inherent = getattr(type(op), "attr_names", frozenset()) | _SEGMENT_NAMES
        # MLIR keeps both dictionaries sorted by name
        props = {k: v for k, v in sorted(op.attributes.items()) if k in inherent}
        rest = {k: v for k, v in sorted(op.attributes.items()) if k not in inherent}
        if props:
            self.write(" <{" + ", ".join(entry_text(k, v) for k, v in props.items()) + "}>")
        if op.regions:
            self.write(" (")
            for i, r in enumerate(op.regions):
                if i:
                    self.write(", ")
                self.print_region(r, entry_args=True, terminators=True)
            self.write(")")
        if rest:
            self.write(" {" + ", ".join(entry_text(k, v) for k, v in rest.items()) + "}")
        ins = ", ".join(v.type.text() for v in op.operands)
        outs = [r.type.text() for r in op.results]
        out = outs[0] if len(outs) == 1 and not outs[0].startswith("(") else "(" + ", ".join(outs) + ")"
        self.write(f" : ({ins}) -> {out}")

    def print_region(self, region: Region, entry_args: bool = True, terminators: bool = True,
                     omit_terminator=None):
        self.write("{")
        self.indent += 1
        for bi, block in enumerate(region.blocks):
            show_label = bi > 0 or (entry_args and block.arguments) or len(region.blocks) > 1
            if show_label:
                self.indent -= 1
                self.newline()
                self.print_block_label(block)
                self.indent += 1
            for op in block.ops:
                if not terminators and op is block.last_op and (omit_terminator is None or omit_terminator(op)):
                    continue
                self.newline()
                self.print_operation(op)
        self.indent -= 1
        self.newline()
        self.write("}")

    def print_block_label(self, block: Block):
        name = self.block_names.get(block)
        if name is None:
            name = self.block_names[block] = f"^bb{self._next_block}"
            self._next_block += 1
        self.write(name)
        if block.arguments:
            self.write("(" + ", ".join(f"{self.value_name(a)}: {a.type.text()}{self.arg_loc(a)}"
                                       for a in block.arguments) + ")")
        self.write(":")

    # -- locations (only with debuginfo) ----------------------------------
    def loc_suffix(self, loc, allow_alias: bool = True) -> str:
        """` loc(...)`: an op's location as its alias; a block argument's inline."""
        if self.aliases is not None:
            return self.aliases.trailing(loc, allow_alias)
        return f" loc({loc.body()})"

    def arg_loc(self, arg) -> str:
        """` loc(...)` for a printed block argument, or nothing without debuginfo.
        Custom directives that print block arguments MLIR-style call this."""
        if not self.debuginfo:
            return ""
        loc = arg.location or UNKNOWN
        if self._collect is not None:
            self._collect.visit(loc, False)
        return self.loc_suffix(loc, allow_alias=False)

    def print_attr_dict(self, attributes: dict, elided=(), keyword: bool = False):
        items = [(k, v) for k, v in sorted(attributes.items()) if k not in elided and k not in _SEGMENT_NAMES]
        if not items:
            return
        if keyword:
            self.write(" attributes")
        self.write(" {" + ", ".join(entry_text(k, v, True) for k, v in items) + "}")


_SEGMENT_NAMES = frozenset(("operandSegmentSizes", "resultSegmentSizes"))


class _Wrap:
    """Pretend region holding top-level ops, for naming their results."""

    def __init__(self, ops):
        self.blocks = [_WrapBlock(ops if isinstance(ops, list) else [ops])]


class _WrapBlock:
    def __init__(self, ops):
        self.arguments = []
        self._ops = ops

    @property
    def ops(self):
        yield from self._ops


def _ods_result_names(op):
    """MLIR's ODS names the results of an op with several declared results
    after their declarations (`%tile, %result_token = ...`); one name per
    declared group, on its first value."""
    defs = getattr(type(op), "result_defs", ())
    if len(defs) < 2:
        return None
    names = [None] * len(op.results)
    try:
        groups = op.result_groups()
    except Exception:  # malformed segment sizes: fall back to numbers
        return None
    for d, g in zip(defs, groups):
        first = g[0] if isinstance(g, list) and g else (None if isinstance(g, list) else g)
        if first is not None and first.index < len(names):
            names[first.index] = d.name
    return names


def _block_arg_names(region):
    """Names the region's op suggests for its entry block arguments through
    `asm_block_arg_names(region)` (MLIR's getAsmBlockArgumentNames), or None."""
    op = getattr(region, "parent", None)
    hook = getattr(op, "asm_block_arg_names", None)
    return hook(region) if hook is not None else None


def _isolated(op) -> bool:
    return IsolatedFromAbove in type(op).traits_all


def _format_of(op):
    cls = type(op)
    if not getattr(cls, "assembly_format", None):  # a subclass may drop its parent's custom form
        return None
    fmt = cls.__dict__.get("_compiled_format")
    if fmt is None:
        from .format import compiled_format
        fmt = compiled_format(type(op))
    return fmt


def collect_aliases(printer: Printer, ops):
    """A dry run of `printer`'s settings over `ops`, visiting what it would print."""
    from .aliases import AliasState
    dry = Printer(generic=printer.generic, debuginfo=True, indent_width=printer.indent_width)
    dry._collect = AliasState()
    dry.print_top(ops)
    return dry._collect.finish()


def print_ops(ops, generic=False, debuginfo=False) -> str:
    p = Printer(generic=generic, debuginfo=debuginfo)
    p.print_top(list(ops))
    return p.text()
