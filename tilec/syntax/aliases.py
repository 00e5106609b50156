"""Attribute aliases for printing with debug info, as MLIR's AsmPrinter makes them.

With `--mlir-print-debuginfo` every location the printer shows gets an alias
(`#loc`, `#loc1`, ...), and so do dialect attributes that ask for one through a
class attribute `asm_alias` (MLIR's OpAsmDialectInterface::getAlias), e.g. the
cuda_tile debug-info scopes (`#di_file`, `#di_subprogram1`, ...).

How MLIR does it, and so how this does:
  * A dry run of the printer visits, in print order, each op's location (before
    its body) and each block argument location that is printed; visiting a
    value visits the attributes nested in it first-come first-numbered.
  * An alias's depth is 1 plus the deepest alias nested in it (1 with none).
    Aliases are ordered by depth, then name, then first visit, and numbered per
    name in that order: `#loc`, `#loc1`, ...
  * Values reached only from op locations are *deferred*: their definitions go
    after the ops. Anything reached from a block argument location must be
    defined first, so it goes above the ops.
  * Op locations print as `loc(#alias)`. Block argument locations print inline
    (MLIR's printer does not alias them), though nested values use aliases.

Dialect attributes that take part give `sub_attributes()` (nested attributes in
print order) and `render(sub)` (their full spelling with `sub(attr)` used for
each nested attribute)."""
from __future__ import annotations

from ..ir.attributes import LocationAttr
from ..ir.location import CallSiteLoc, FileLineColLoc, FusedLoc, Location, NameLoc, UnknownLoc
from ..ir.printing import quote


class _Info:
    __slots__ = ("value", "name", "depth", "deferrable", "children", "alias")

    def __init__(self, value, name, deferrable):
        self.value, self.name, self.deferrable = value, name, deferrable
        self.depth = 1 if name else 0
        self.children: list = []
        self.alias = None


def _key(value):
    return value.location if isinstance(value, LocationAttr) else value


def _is_builtin_loc(value) -> bool:
    return isinstance(value, Location) and not hasattr(value, "render")


def alias_name(value):
    if isinstance(value, Location):
        return "loc"
    return getattr(type(value), "asm_alias", None)


def nested(value) -> tuple:
    """The attributes printed inside `value`, in print order."""
    if isinstance(value, NameLoc):
        return () if value.child is None or isinstance(value.child, UnknownLoc) else (value.child,)
    if isinstance(value, CallSiteLoc):
        return (value.callee, value.caller)
    if isinstance(value, FusedLoc):
        return tuple(value.locations)
    sub = getattr(value, "sub_attributes", None)
    return tuple(sub()) if sub is not None else ()


class AliasState:
    def __init__(self):
        self.infos: dict = {}  # key -> _Info, in first-visit order
        self.order: list = []

    # -- collecting ---------------------------------------------------------
    def visit(self, value, deferrable: bool) -> int:
        """Record `value` (and what it nests); returns its alias depth."""
        key = _key(value)
        info = self.infos.get(key)
        if info is not None:
            if not deferrable:
                self._pin(info)
            return info.depth
        info = self.infos[key] = _Info(key, alias_name(key), deferrable)
        deepest = 0
        for child in nested(key):
            deepest = max(deepest, self.visit(child, deferrable))
            info.children.append(self.infos[_key(child)])
        if deepest:
            info.depth = deepest + 1
        return info.depth

    def _pin(self, info):
        """Mark an alias (and all it nests) as needed before the ops."""
        stack = [info]
        while stack:
            i = stack.pop()
            if i.deferrable:
                i.deferrable = False
                stack.extend(i.children)

    def finish(self):
        """Number the aliases: by depth, then name, then first visit."""
        named = [i for i in self.infos.values() if i.name]
        named.sort(key=lambda i: (i.depth, i.name))  # stable: ties keep visit order
        counts: dict = {}
        for info in named:
            n = counts.get(info.name, 0)
            counts[info.name] = n + 1
            info.alias = "#" + info.name + (str(n) if n else "")
        self.order = named
        return self

    # -- printing -----------------------------------------------------------
    def alias(self, value):
        info = self.infos.get(_key(value))
        return info.alias if info is not None else None

    def attr(self, value) -> str:
        """An attribute where it is referenced: its alias, else its spelling."""
        a = self.alias(value)
        if a is not None:
            return a
        return self.spell(value)

    def spell(self, value) -> str:
        """An attribute's own spelling, with aliases for what it nests."""
        value = _key(value)
        if _is_builtin_loc(value):
            return f"loc({self.loc_inner(value, top=True)})"
        render = getattr(value, "render", None)
        if render is not None:
            return render(self.attr)
        return value.text()

    def loc_inner(self, loc, top=False) -> str:
        """What goes inside `loc(...)` (MLIR's printLocationInternal)."""
        if not _is_builtin_loc(loc):
            return self.attr(loc)  # a dialect location prints as an attribute
        if not top:
            a = self.alias(loc)
            if a is not None:
                return a
        if isinstance(loc, UnknownLoc):
            return "unknown"
        if isinstance(loc, FileLineColLoc):
            return f"{quote(loc.file)}:{loc.line}:{loc.col}"
        if isinstance(loc, NameLoc):
            child = loc.child
            inner = f"({self.loc_inner(child)})" if child is not None and not isinstance(child, UnknownLoc) else ""
            return quote(loc.name) + inner
        if isinstance(loc, CallSiteLoc):
            return f"callsite({self.loc_inner(loc.callee)} at {self.loc_inner(loc.caller)})"
        if isinstance(loc, FusedLoc):
            meta = f"<{loc.metadata}>" if loc.metadata is not None else ""
            return f"fused{meta}[{', '.join(self.loc_inner(l) for l in loc.locations)}]"
        return loc.body()

    def trailing(self, loc, allow_alias=True) -> str:
        """` loc(...)` after an op (alias allowed) or a block argument (not)."""
        a = self.alias(loc) if allow_alias else None
        return f" loc({a if a is not None else self.loc_inner(loc, top=True)})"

    def definitions(self, deferred: bool) -> list:
        """`#alias = spelling` lines for the aliases that go after the ops
        (`deferred`) or before them."""
        return [f"{i.alias} = {self.spell(i.value)}" for i in self.order if i.deferrable == deferred]

