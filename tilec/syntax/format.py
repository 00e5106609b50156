"""Declarative assembly formats.

An op declares its custom syntax once, as a format string in the notation of
MLIR's declarative assembly format ($lhs `,` $rhs attr-dict `:` type($result)).
This module compiles the string into three things derived from the same
elements: a Lark rule (appended to the grammar), a builder that turns the
rule's children into the op, and a printer.

Custom directives (`custom<Name>(...)`) and attribute kinds plug in through
DIRECTIVES and `attr_syntax()`; dialects register their own.
"""
from __future__ import annotations

import re

from ..ir import attributes as A
from ..ir.opdef import VARIADIC, AttrDef, OperandDef, RegionDef, ResultDef
from ..ir.printing import symbol
from ..ir.types import IntegerType

# ---------------------------------------------------------------------------
# format elements


class Literal:
    def __init__(self, text):
        self.text = text


class Spacer:
    """`` `` `` (no space) or `` ` ` `` (exactly one space): both reset spacing."""

    def __init__(self, space=False):
        self.space = space


class Var:
    def __init__(self, name):
        self.name, self.field = name, None


class TypeOf:
    def __init__(self, name, short):
        self.name, self.short, self.field = name, short, None


class AttrDict:
    def __init__(self, keyword):
        self.keyword = keyword


class Custom:
    def __init__(self, name, args):
        self.name, self.args, self.directive = name, args, None


class Group:
    def __init__(self, elements, anchor):
        self.elements, self.anchor = elements, anchor


class FormatError(Exception):
    pass


_FMT_TOKEN = re.compile(r"\s*(`[^`]*`|\$[A-Za-z_][A-Za-z0-9_]*|attr-dict-with-keyword|attr-dict|"
                        r"custom<[A-Za-z_0-9]+>|type|functional-type|\(|\)\?|\)|\^|,)")


def _tokenize(fmt):
    toks, pos = [], 0
    fmt = fmt.strip()
    while pos < len(fmt):
        m = _FMT_TOKEN.match(fmt, pos)
        if not m:
            raise FormatError(f"bad format near: {fmt[pos:pos + 20]!r}")
        toks.append(m.group(1))
        pos = m.end()
        while pos < len(fmt) and fmt[pos].isspace():
            pos += 1
    return toks


def parse_format(fmt: str):
    toks = _tokenize(fmt)
    pos = 0

    def args():
        nonlocal pos
        assert toks[pos] == "("
        pos += 1
        out = []
        while toks[pos] != ")":
            if toks[pos] == ",":
                pos += 1
                continue
            if toks[pos] == "type":
                pos += 2
                out.append(TypeOf(toks[pos][1:], False))
                pos += 2
            else:
                out.append(Var(toks[pos][1:]))
                pos += 1
        pos += 1
        return out

    def seq(closers):
        nonlocal pos
        out, anchor = [], None
        while pos < len(toks) and toks[pos] not in closers:
            t = toks[pos]
            if t.startswith("`"):
                out.append(Spacer(t == "` `") if t in ("``", "` `") else Literal(t[1:-1]))
                pos += 1
            elif t.startswith("$"):
                out.append(Var(t[1:]))
                pos += 1
            elif t in ("attr-dict", "attr-dict-with-keyword"):
                out.append(AttrDict(t == "attr-dict-with-keyword"))
                pos += 1
            elif t == "type":
                pos += 1
                (inner,) = args()
                out.append(TypeOf(inner.name, False))
            elif t.startswith("custom<"):
                name = t[7:-1]
                pos += 1
                a = args()
                if name == "CudaTileType" and len(a) == 1 and isinstance(a[0], TypeOf):
                    out.append(TypeOf(a[0].name, True))
                else:
                    out.append(Custom(name, a))
            elif t == "(":
                pos += 1
                inner, inner_anchor = seq((")?", ")"))
                if toks[pos] != ")?":
                    raise FormatError("only optional groups `(...)?` are supported")
                pos += 1
                out.append(Group(inner, inner_anchor))
            elif t == "^":
                anchor = out[-1]
                pos += 1
            else:
                raise FormatError(f"unexpected {t!r} in format")
        return out, anchor

    elements, _ = seq(())
    return elements


# ---------------------------------------------------------------------------
# attribute syntax inside custom forms

class AttrSyntax:
    """How an attribute kind is written inside a custom form: a grammar
    expression producing one child, a converter from that child, a printer."""

    def __init__(self, grammar, convert, render):
        self.grammar, self.convert, self.render = grammar, convert, render


def _int_attr(tok):
    return A.IntegerAttr(int(str(tok), 0), IntegerType(64))


_BUILTIN_SYNTAX = {
    A.IntegerAttr: AttrSyntax("INT", _int_attr, lambda a: str(a.value)),
    A.StringAttr: AttrSyntax("STRING", lambda t: A.StringAttr(_unq(t)), lambda a: a.text()),
    A.SymbolRefAttr: AttrSyntax("SYMBOL_REF", lambda t: A.SymbolRefAttr(_sym(t)), lambda a: a.text()),
    A.BoolAttr: AttrSyntax("BARE_ID", lambda t: _bool(t), lambda a: a.text()),
    A.TypeAttr: AttrSyntax("type", lambda t: A.TypeAttr(t), lambda a: a.value.text(True)),
    A.DenseArrayAttr: AttrSyntax("int_array", lambda t: A.DenseArrayAttr(
        IntegerType(32), tuple(int(str(x), 0) for x in (t if isinstance(t, list) else [t]) if x is not None)),
                                 lambda a: "[" + ", ".join(str(v) for v in a.values) + "]"),
}


def _unq(tok):
    from .reader import unquote
    return unquote(str(tok))


def _sym(tok):
    s = str(tok)[1:]
    return _unq(s) if s.startswith('"') else s


def _bool(tok):
    s = str(tok)
    if s not in ("true", "false"):
        raise BuildError(f"expected 'true' or 'false', got '{s}'", tok)
    return A.BoolAttr(s == "true")


def _syntax(field) -> AttrSyntax:
    return field.syntax() if field.syntax is not None else attr_syntax(field.kind)


SYMBOL_NAME = lambda: AttrSyntax("SYMBOL_REF", lambda t: A.StringAttr(_sym(t)), lambda a: symbol(a.value))


def attr_syntax(kind) -> AttrSyntax:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    for k in kinds:
        custom = getattr(k, "custom_syntax", None)
        if custom is not None:
            return custom()
        for base in k.__mro__:
            if base in _BUILTIN_SYNTAX:
                return _BUILTIN_SYNTAX[base]
    return AttrSyntax("attribute", lambda a: a, lambda a: a.text(True))


class BuildError(Exception):
    """A problem found while building an op from parsed pieces; carries a token
    (or a (line, col) pair) for the location."""

    def __init__(self, message, where=None, custom_op=False):
        super().__init__(message)
        self.message, self.where = message, where
        self.custom_op = custom_op  # an op parser's own error: prefixed "custom op '<name>' "


# ---------------------------------------------------------------------------
# custom directives

class Directive:
    """Base for `custom<Name>(...)`. `grammar(args)` returns an expression
    yielding children, `parse(children, args, state)` stores results into the
    state, `print(op, args, printer)` writes the text (with a leading space)."""

    def grammar(self, args) -> str:
        raise NotImplementedError

    def parse(self, children, args, state):
        raise NotImplementedError

    def print(self, op, args, printer) -> str | None:
        raise NotImplementedError

    def present(self, op, args) -> bool:
        return True


DIRECTIVES: dict = {}


def directive(name):
    def deco(cls):
        DIRECTIVES[name] = cls()
        return cls
    return deco


# ---------------------------------------------------------------------------
# the state a custom form fills in while being built

class BuildState:
    __slots__ = ("operands", "operand_types", "result_types", "attrs", "regions", "region_args", "op_cls")

    def __init__(self, op_cls):
        self.op_cls = op_cls
        self.operands = {}       # def name -> list of ValueRef
        self.operand_types = {}  # def name -> list of Type
        self.result_types = {}   # def name -> list of Type
        self.attrs = {}
        self.regions = {}        # def name -> Region
        self.region_args = {}    # def name -> [(ValueRef-like name token, type)]


# ---------------------------------------------------------------------------

def _escape(lit):
    return '"' + lit.replace("\\", "\\\\").replace('"', '\\"') + '"'


def rule_name(op_cls) -> str:
    return rule_name_of(op_cls.name)


def rule_name_of(op_name: str) -> str:
    """The grammar rule of the custom form of the op named `op_name`."""
    return "op_" + re.sub(r"[^A-Za-z0-9_]", "_", op_name).lower()


class CompiledFormat:
    def __init__(self, op_cls):
        self.op_cls = op_cls
        self.elements = parse_format(op_cls.assembly_format)
        self.fields = {d.name: d for d in (*op_cls.operand_defs, *op_cls.result_defs,
                                           *op_cls.attr_defs, *op_cls.region_defs)}
        self.extra_rules: list[str] = []
        self._n = 0
        self.rule = rule_name(op_cls)
        self._bind(self.elements)
        self.consumed_attrs = set()
        self._collect_attrs(self.elements)
        self.attr_dict_keyword = any(isinstance(e, AttrDict) and e.keyword for e in self._flat(self.elements))
        # results whose types the format spells out (so none are left to infer)
        self.typed_results = {a.name for e in self._flat(self.elements)
                              for a in ([e] if isinstance(e, TypeOf) else e.args if isinstance(e, Custom) else [])
                              if isinstance(a, TypeOf) and isinstance(a.field, ResultDef)}

    def _flat(self, elements):
        for e in elements:
            yield e
            if isinstance(e, Group):
                yield from self._flat(e.elements)

    def _bind(self, elements):
        for e in elements:
            if isinstance(e, (Var, TypeOf)):
                if e.name not in self.fields:
                    raise FormatError(f"{self.op_cls.name}: format names unknown field ${e.name}")
                e.field = self.fields[e.name]
            elif isinstance(e, Custom):
                if e.name not in DIRECTIVES:
                    raise FormatError(f"{self.op_cls.name}: unknown directive custom<{e.name}>")
                e.directive = DIRECTIVES[e.name]
                for a in e.args:
                    a.field = self.fields.get(a.name)
            elif isinstance(e, Group):
                self._bind(e.elements)

    def _collect_attrs(self, elements):
        for e in self._flat(elements):
            if isinstance(e, Var) and isinstance(e.field, AttrDef):
                self.consumed_attrs.add(e.name)
            elif isinstance(e, Custom):
                for a in e.args:
                    if isinstance(a.field, AttrDef):
                        self.consumed_attrs.add(a.name)

    # -- grammar ----------------------------------------------------------
    def grammar(self, keywords) -> str:
        body = self._seq_grammar(self.elements, top=True)
        kw = " | ".join(_escape(k) for k in keywords)
        # the keyword gets a token-keeping rule of its own: its position is the
        # op's location when the op has no results to carry one
        rules = [f"{self.rule}: {self.rule}_kw {body}", f"!{self.rule}_kw: {kw}"] + self.extra_rules
        return "\n".join(rules)

    def _sub(self, expr) -> str:
        self._n += 1
        name = f"{self.rule}__{self._n}"
        self.extra_rules.append(f"{name}: {expr}")
        return name

    def _seq_grammar(self, elements, top) -> str:
        parts = []
        for e in elements:
            if isinstance(e, Literal):
                parts.append(_escape(e.text))
            elif isinstance(e, Spacer):
                continue
            elif isinstance(e, Var):
                f = e.field
                if isinstance(f, OperandDef):
                    if f.kind == VARIADIC:
                        parts.append("value_list" if not top else "[value_list]")
                    else:
                        parts.append("VALUE_REF")
                elif isinstance(f, AttrDef):
                    if f.unit:
                        continue
                    parts.append(self._sub(_syntax(f).grammar))
                elif isinstance(f, RegionDef):
                    parts.append("region")
                else:
                    raise FormatError(f"{self.op_cls.name}: ${e.name} cannot appear in a format")
            elif isinstance(e, TypeOf):
                if e.field.kind == VARIADIC:
                    parts.append("type_list" if not top else "[type_list]")
                else:
                    parts.append("type")
            elif isinstance(e, AttrDict):
                parts.append('["attributes" attr_dict]' if e.keyword else "[attr_dict]")
            elif isinstance(e, Custom):
                parts.append(self._sub(e.directive.grammar(e.args)))
            elif isinstance(e, Group):
                parts.append(f"[{self._sub(self._seq_grammar(e.elements, top=False))}]")
        return " ".join(parts)

    # -- building ---------------------------------------------------------
    def build(self, children, state: BuildState):
        try:
            self._consume(self.elements, list(children), state, top=True)
            for d in self.op_cls.operand_defs:  # resolveOperands(operands, types, ...)
                vals, types = state.operands.get(d.name, []), state.operand_types.get(d.name)
                if types is not None and len(types) != len(vals):
                    raise BuildError(f"number of operands and types do not match: got {len(vals)} operands "
                                     f"and {len(types)} types", _first_token([vals]), custom_op=True)
        except BuildError as e:
            if e.where is None:  # no token of its own (a missing keyword): point into the op
                e.where = _first_token(children)
            if e.custom_op:  # as MLIR's OpAsmParser::emitError words it
                e.message, e.custom_op = f"custom op '{self.op_cls.name}' {e.message}", False
            raise
        return state

    def _consume(self, elements, children, state, top):
        it = iter(children)
        for e in elements:
            if isinstance(e, (Literal, Spacer)):
                continue
            if isinstance(e, Var):
                f = e.field
                if isinstance(f, AttrDef) and f.unit:
                    state.attrs[f.name] = A.UnitAttr()
                    continue
                c = next(it)
                if isinstance(f, OperandDef):
                    state.operands[f.name] = [] if c is None else (list(c) if f.kind == VARIADIC else [value_ref(c)])
                elif isinstance(f, AttrDef):
                    state.attrs[f.name] = _syntax(f).convert(_one(c))
                elif isinstance(f, RegionDef):
                    state.regions[f.name] = c
            elif isinstance(e, TypeOf):
                c = next(it)
                types = [] if c is None else (list(c) if e.field.kind == VARIADIC else [c])
                target = state.result_types if isinstance(e.field, ResultDef) else state.operand_types
                target[e.name] = types
            elif isinstance(e, AttrDict):
                c = next(it)
                if c is not None:
                    state.attrs.update(c)
            elif isinstance(e, Custom):
                e.directive.parse(next(it), e.args, state)
            elif isinstance(e, Group):
                c = next(it)
                if c is not None:
                    self._consume(e.elements, c, state, top=False)

    # -- printing ---------------------------------------------------------
    def print(self, op, p):
        p.write(op.name.split(".", 1)[1] if _short_name(op) else op.name)
        self._state = (True, True)  # (should_emit_space, last_was_punctuation)
        self._print_seq(self.elements, op, p)

    def _space(self, p, literal=None):
        emit, last_punct = self._state
        if literal is None:
            if emit:
                p.write(" ")
            self._state = (True, False)
            return
        if literal == "":
            return
        if len(literal) != 1 and literal != "->":
            space = emit
        elif last_punct:
            space = literal[0] not in ">)}],"
        else:
            space = literal[0] not in "<>(){}[],"
        if space and emit:
            p.write(" ")
        self._state = (len(literal) != 1 or literal[0] not in "<({[",
                       literal[0] != "_" and not literal[0].isalpha())

    def _print_seq(self, elements, op, p):
        for e in elements:
            if isinstance(e, Literal):
                self._space(p, e.text)
                p.write(e.text)
            elif isinstance(e, Spacer):
                if e.space:
                    p.write(" ")
                self._state = (False, not e.space)
            elif isinstance(e, Var):
                f = e.field
                if isinstance(f, AttrDef):
                    if f.unit:
                        continue
                    self._space(p)
                    p.write(_syntax(f).render(op.attributes.get(f.name, f.default)))
                elif isinstance(f, OperandDef):
                    vals = _as_list(f.__get__(op))
                    self._space(p)
                    p.write(", ".join(p.value_name(v) for v in vals))
                elif isinstance(f, RegionDef):
                    self._space(p)
                    region = op.regions[f.index]
                    p.print_region(region, entry_args=False, terminators=False,
                                   omit_terminator=lambda t: _implicit(op, t))
            elif isinstance(e, TypeOf):
                vals = _as_list(e.field.__get__(op))
                self._space(p)
                p.write(", ".join(v.type.text(e.short) for v in vals))
            elif isinstance(e, AttrDict):
                elided = self.__dict__.get("_elided")
                if elided is None:
                    elided = self._elided = self.consumed_attrs | set(getattr(self.op_cls, "elided_attrs", ()))
                p.print_attr_dict(op.attributes, elided, e.keyword)
                self._state = (True, False)
            elif isinstance(e, Custom):
                text = e.directive.print(op, e.args, p)
                if text is not None:  # "" still takes the space MLIR puts before a directive
                    self._space(p)
                    p.write(text)
            elif isinstance(e, Group):
                if self._present(e.anchor, op):
                    self._print_seq(e.elements, op, p)

    def _present(self, anchor, op) -> bool:
        if isinstance(anchor, Var):
            f = anchor.field
            if isinstance(f, AttrDef):
                v = op.attributes.get(f.name)
                return v is not None and v != f.default and v != A.BoolAttr(False)
            if isinstance(f, OperandDef):
                return bool(_as_list(f.__get__(op)))
            if isinstance(f, RegionDef):
                r = op.regions[f.index] if f.index < len(op.regions) else None
                return r is not None and not r.empty
        if isinstance(anchor, TypeOf):
            return bool(_as_list(anchor.field.__get__(op)))
        if isinstance(anchor, Custom):
            return anchor.directive.present(op, anchor.args)
        return True


def _implicit(op, term) -> bool:
    """An implicit terminator (SingleBlockImplicitTerminator) with nothing to say is elided."""
    name = getattr(type(op), "implicit_terminator", None)
    return name is not None and term.name == name and not term.operands and not term.attributes


def _first_token(children):
    """The first child (depth first) that knows its line and column."""
    for c in children:
        if isinstance(c, (list, tuple)):
            found = _first_token(c)
            if found is not None:
                return found
        elif hasattr(c, "line") and hasattr(c, "column"):
            return c
        elif hasattr(c, "line") and hasattr(c, "col"):  # a ValueRef
            from .token import Token
            return Token("VALUE_REF", c.ref, line=c.line, column=c.col)
    return None


def value_ref(tok):
    from .parser import ValueRef
    return tok if isinstance(tok, ValueRef) else ValueRef(tok)


def _one(c):
    if isinstance(c, list) and len(c) == 1:
        return c[0]
    return c


def _as_list(v):
    if v is None:
        return []
    return v if isinstance(v, list) else [v]


def _short_name(op) -> bool:
    """Ops of a dialect that allows omitting its prefix print without it when
    nested in that dialect's module."""
    prefix = op.name.split(".", 1)[0]
    if prefix not in SHORT_NAME_DIALECTS or not getattr(type(op), "print_short_name", True):
        return False
    if SHORT_NAME_DIALECTS[prefix] is None:  # short everywhere (builtin)
        return True
    anc = op.parent_op
    while anc is not None:
        if anc.name == SHORT_NAME_DIALECTS[prefix]:
            return True
        anc = anc.parent_op
    return False


SHORT_NAME_DIALECTS: dict = {}  # dialect prefix -> op name whose body allows short names (None: anywhere)


def compiled_format(op_cls) -> CompiledFormat:
    fmt = op_cls.__dict__.get("_compiled_format")
    if fmt is None:
        fmt = CompiledFormat(op_cls)
        op_cls._compiled_format = fmt
    return fmt
