"""The LALR parser for MLIR text: base grammar from grammar/mlir.lark plus
one rule per registered op with an assembly format, built by Lark. Parsing
builds IR directly (an embedded transformer, no parse tree), then a
resolution pass binds SSA names in scope and infers result types the text
leaves implicit.

A text is parsed by tilec's own runtime for Lark's tables (lalr.py, over the
parser snapshot) when there is a snapshot, and by Lark otherwise; if the
runtime cannot parse a text, Lark parses it again and reports the error, so
every diagnostic is Lark's as before. Lark is imported only then (or to build
the snapshot)."""
from __future__ import annotations

import os
import re
import tempfile

from ..ir import attributes as A
from ..ir import registry
from ..ir.core import Block, Operation, Region, Value
from ..ir.diagnostics import DiagnosticEngine
from ..ir.location import FileLineColLoc, Location, UNKNOWN
from ..ir.opdef import SINGLE, SEGMENTS
from ..ir.types import IntegerType
from . import format as F
from . import snapshot
from . import token as T
from .reader import BodyError, char_text, parse_location, parse_type, unquote, TYPE_ALIASES


class _LarkNotLoaded(Exception):
    """Stands for Lark's exception classes until Lark is imported: none of
    them can be raised before (see _load_lark)."""


Lark = LarkToken = None
UnexpectedCharacters = UnexpectedEOF = UnexpectedInput = UnexpectedToken = VisitError = _LarkNotLoaded


def _load_lark():
    """Import Lark (for a parse by Lark, an error report, or a snapshot to build)."""
    global Lark, LarkToken, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError
    if Lark is None:
        from lark import Lark as _Lark, Token as _Token
        from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError
        T.accept(_Token)
        Lark, LarkToken = _Lark, _Token

GRAMMAR_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                           "grammar")


def _nested(depth):
    """Regex for a `<...>` group with balanced nesting up to `depth` levels."""
    atom = r'"(?:[^"\\]|\\.)*"|->|[^<>"]'
    pat = r"<(?:" + atom + r")*>"
    for _ in range(depth):
        pat = r"<(?:" + atom + "|" + pat + r")*>"
    return pat


def _parens(depth):
    atom = r'"(?:[^"\\]|\\.)*"|[^()"]'
    pat = r"\((?:" + atom + r")*\)"
    for _ in range(depth):
        pat = r"\((?:" + atom + "|" + pat + r")*\)"
    return pat


class ParseError(Exception):
    def __init__(self, message, line=None, col=None, notes=()):
        super().__init__(message)
        self.message, self.line, self.col = message, line, col
        self.notes = tuple(notes)  # ((message, line, col), ...) attached as notes


class ValueRef(Value):
    """A placeholder for an SSA use, bound to the real value by name later."""
    __slots__ = ("ref", "line", "col", "expected")

    def __init__(self, tok):
        super().__init__(None)
        self.ref, self.line, self.col = str(tok), tok.line, tok.column
        self.expected = None


def _op_keywords(cls):
    names = []
    for name in (cls.name, *cls.__dict__.get("aliases", ())):
        names.append(name)
        prefix, short = name.split(".", 1)
        if prefix in F.SHORT_NAME_DIALECTS:
            names.append(short)
    return names


_PARSERS: dict = {}   # lean -> (Lark parser, builder), once a text needed Lark
_FAST: dict = {}      # lean -> lalr.FastParser over the snapshot, or None
_BUILDERS: dict = {}  # lean -> the IR builder


def _grammar_text(lean=False):
    """The grammar: the base rules plus one rule per op custom form. A `lean`
    grammar has only the default dialects' ops (those written without a
    prefix), which keeps its tables, and so every start-up, small."""
    base = open(os.path.join(GRAMMAR_DIR, "mlir.lark")).read()
    base = base.replace("@NEST@", _nested(5)).replace("@PARENS@", _parens(5))
    rules, names = [], []
    for name in sorted(registry.OPS):
        cls = registry.OPS[name]
        if not cls.assembly_format:
            continue
        if lean and name.split(".", 1)[0] not in F.SHORT_NAME_DIALECTS:
            continue
        fmt = F.compiled_format(cls)
        rules.append(fmt.grammar(_op_keywords(cls)))
        names.append(fmt.rule)
    rules.append("custom_op: " + " | ".join(names) if names else "custom_op: \"<<none>>\"")
    rules.append('int_array: "[" [INT ("," INT)*] "]"')
    for d in F.DIRECTIVES.values():
        rules.extend(getattr(d, "rules", ()))
    return base + "\n" + "\n".join(rules) + "\n"


class _BareIdEverywhere:
    """Lets every contextual-lexer state also match BARE_ID. Lark then folds
    each keyword that is a bare identifier into BARE_ID's match (checked by a
    table lookup afterwards) instead of keeping it as one more alternative of
    the state's regex; the states that expect an op name otherwise try ~250
    keyword alternatives at every token. A word a state does not expect now
    reaches the parser as BARE_ID and is refused there;
    _as_without_bare_id_everywhere words that error as the lexer did before."""
    always_accept = ("BARE_ID",)
    tag = "|postlex=bare-id-everywhere"  # part of the cache keys: the tables differ

    def process(self, stream):
        return stream


class KeywordTypes:
    """A BARE_ID callback: the keyword terminal a matched word is, by table
    lookup. Replaces Lark's UnlessCallback, which finds it by a full match of
    an alternation of every keyword (~8 us per word here)."""
    __slots__ = ("types",)

    def __init__(self, types: dict):
        self.types = types

    def __call__(self, tok):
        kind = self.types.get(tok)
        if kind is not None:
            tok.type = kind
        return tok


def _index_keywords(lark) -> None:
    """Build every lexer state's scanner now and give each the KeywordTypes of
    its keywords (all plain strings; a callback over anything else is left alone)."""
    from lark.lexer import PatternStr, UnlessCallback
    for state_lexer in snapshot.state_lexers(lark):
        state_lexer.scanner  # noqa: B018 (builds the callbacks)
        for name, cb in list(state_lexer.callback.items()):
            terms = cb.scanner.terminals if type(cb) is UnlessCallback else None
            if terms and all(type(t.pattern) is PatternStr and not t.pattern.flags for t in terms):
                state_lexer.callback[name] = KeywordTypes({t.pattern.value: t.name for t in terms})


def _grammar_sources(lean):
    """What the grammar text is made from, for the snapshot's key in its place
    (making the text takes every op's format, so importing every op module):
    the size and modification time of every file under tilec/ir, tilec/syntax
    and tilec/dialects and of the base grammar; ops, old spellings, directives
    and short-name dialects registered from outside those packages, with
    what they put in the grammar; and the lean/full choice. None when the
    files cannot be listed (then the text itself is the key)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parts = [f"lean={lean}", _BareIdEverywhere.tag]
    try:
        stack = [os.path.join(root, d) for d in ("ir", "syntax", "dialects")] + [GRAMMAR_DIR]
        while stack:
            with os.scandir(stack.pop()) as entries:
                for e in sorted(entries, key=lambda e: e.name):
                    if e.is_dir() and e.name != "__pycache__":
                        stack.append(e.path)
                    elif e.name.endswith((".py", ".lark")):
                        st = e.stat()
                        parts.append(f"{e.path[len(root):]}:{st.st_size}:{st.st_mtime_ns}")
    except OSError:
        return None
    ours = ("tilec.ir.", "tilec.syntax.", "tilec.dialects.")
    for table in (registry.OPS, registry.OP_ALIASES):
        for name in sorted(n for n, m in table.pending.items() if not m.startswith(ours)):
            table.get(name)  # declared from outside: defined now, to be listed below
        for name, cls in sorted(dict.items(table)):
            if not cls.__module__.startswith(ours):
                parts.append(f"{name}={cls.name}:{cls.assembly_format}")
    for name, d in sorted(F.DIRECTIVES.items()):
        if not type(d).__module__.startswith(ours):
            parts.append(f"{name}:{getattr(d, 'rules', ())}")
    parts.append(repr(sorted(F.SHORT_NAME_DIALECTS.items())))
    return "\n".join(parts)


def _builder(lean):
    """The IR builder of the lean or full grammar, which both its parsers call."""
    builder = _BUILDERS.get(lean)
    if builder is None:
        builder = _BUILDERS[lean] = _Builder()
    return builder


def _fast_parser(lean):
    """tilec's own runtime over the snapshot of the lean or full grammar, or
    None when there is no snapshot yet (Lark then parses, and saves one)."""
    if lean not in _FAST:
        registry.load_all()
        sources = _grammar_sources(lean)
        _FAST[lean] = None if sources is None else snapshot.load_fast(snapshot.path_for(sources), _builder(lean),
                                                                      sources)
    return _FAST[lean]


def get_parser(lean=False):
    """(Lark parser, builder), built once per process and cached on disk."""
    parser = _PARSERS.get(lean)
    if parser is None:
        _load_lark()
        registry.load_all()
        builder = _builder(lean)
        sources = _grammar_sources(lean)
        text = _grammar_text(lean) if sources is None else None
        grammar = sources if text is None else text
        snap = snapshot.path_for(grammar)
        lark = snapshot.load(snap, builder, grammar)
        if lark is None:
            text = text or _grammar_text(lean)
            import hashlib
            key = hashlib.sha1((text + _BareIdEverywhere.tag).encode()).hexdigest()[:16]
            cache = os.path.join(tempfile.gettempdir(), f"tilec-lark-{key}.cache")
            lark = Lark(text, parser="lalr", lexer="contextual", start=["start", "attribute_only", "type_only"],
                        maybe_placeholders=True, propagate_positions=False, cache=cache, transformer=builder,
                        postlex=_BareIdEverywhere())
            _index_keywords(lark)
            snapshot.save(lark, snap, grammar, lambda cb: cb.types if isinstance(cb, KeywordTypes) else None)
        parser = _PARSERS[lean] = (lark, builder)
    return parser


def _lean_for(text):
    """Whether the lean grammar does for `text`: it names no op of a non-default dialect."""
    global _OTHER_DIALECTS
    if _OTHER_DIALECTS is None:
        registry.load_all()
        others = sorted({n.split(".", 1)[0] for n in registry.op_names()} - set(F.SHORT_NAME_DIALECTS))
        _OTHER_DIALECTS = re.compile(r"\b(?:%s)\." % "|".join(map(re.escape, others))) if others else False
    return not _OTHER_DIALECTS or _OTHER_DIALECTS.search(text) is None


_OTHER_DIALECTS = None
_CURRENT = None  # (lean, builder) of the parse in progress (attribute bodies re-enter its parsers)


def current_context():
    """The ParseContext of the parse in progress (for readers of nested text)."""
    return (_CURRENT or get_parser())[1].ctx


def _current_lark():
    """The Lark parser of the parse in progress (it has failed: its error is being described)."""
    return get_parser(_CURRENT[0] if _CURRENT else False)[0]


_OP_RULES: list = [0, {}]  # [the number of op names it was made from, {custom-form rule: op name}]


def _op_of_rule(rule):
    names = registry.op_names()
    if len(names) != _OP_RULES[0]:  # names are only ever added
        _OP_RULES[:] = [len(names), {F.rule_name_of(n): n for n in names}]
    return _OP_RULES[1].get(rule)


class _Inline:
    """What a rule Lark made for an EBNF construct (`_`-prefixed) builds: its
    children, which the rule using it takes in its own place."""
    __slots__ = ("data", "children")

    def __init__(self, data, children):
        self.data, self.children = data, children

    def __repr__(self):
        return f"_Inline({self.data!r}, {self.children!r})"


class _Builder:
    """Callbacks run as the LALR parser reduces: they build IR objects (the
    transformer of the Lark parser and of lalr.FastParser)."""

    def __init__(self):
        self.ctx = None
        for d in F.DIRECTIVES.values():  # a directive's own rules may check as soon as they reduce
            for rule, fn in getattr(d, "callbacks", {}).items():
                setattr(self, rule, fn)

    def __getattr__(self, rule):
        """An op's custom-form rule: its callback, made the first time the
        parser reduces by it (so only the ops a text uses are imported)."""
        cls = registry.OPS.get(_op_of_rule(rule) or "") if rule.startswith("op_") else None
        if cls is None or not cls.assembly_format:
            raise AttributeError(rule)
        fn = self._op_callback(cls, F.compiled_format(cls))
        setattr(self, rule, fn)
        return fn

    def __default__(self, data, children, meta):
        if data.startswith("_"):  # Lark's internal EBNF helper rules get inlined
            return _Inline(data, children)
        return children

    # -- ops --------------------------------------------------------------
    def _op_callback(self, cls, fmt):
        def build(children):
            kw = children[0]  # [keyword token] from the `!<rule>_kw` rule
            state = F.BuildState(cls)
            try:
                fmt.build(children[1:], state)
            except F.BuildError as e:
                if e.where is None and kw:  # nothing positioned in the op's text: point at its name
                    e.where = kw[0]
                raise
            op = self.ctx.finish_custom(cls, state)
            if kw:
                op._pos = (kw[0].line, kw[0].column)
            return op
        return build

    def custom_op(self, children):
        return children[0]

    def operation(self, children):
        results, op, loc = children
        ctx = self.ctx
        if isinstance(op, tuple):  # (op, line, col) from generic_op
            op = op[0]
        line_col = getattr(op, "_pos", None)
        if results is not None:
            line_col = (results[0].line, results[0].column)
        if line_col is not None:
            op._pos = line_col  # where the op is written; its loc(...) may point elsewhere
        if loc is not None:
            op.location = ctx.location(loc)
        elif line_col is not None:
            op.location = FileLineColLoc(ctx.filename, *line_col)
        implicit = op.__dict__.pop("_implicit_terminators", None)
        if implicit:  # terminators the custom form left out take the op's location
            for term in implicit:
                term.location = op.location
        if results is not None:
            ctx.bind_results(op, results)
        return op

    def op_results(self, children):
        return children

    def generic_op(self, children):
        name, operands, succs, props, regions, attrs, fn = children
        return self.ctx.finish_generic(name, operands or [], succs or [], props or {}, regions or [],
                                       attrs or {}, fn)

    def properties(self, children):
        return children[0] or {}

    def successor_list(self, children):
        return [str(c) for c in children]

    def region_list(self, children):
        return children

    def region(self, children):
        region = Region()
        entry = []
        for c in children:
            if isinstance(c, Block):
                if entry:
                    b = Block()
                    for op in entry:
                        b.append(op)
                    region.add_block(b)
                    entry = []
                region.add_block(c)
            else:
                entry.append(c)
        if entry:
            b = Block()
            for op in entry:
                b.append(op)
            region.add_block(b)
        return region

    def block(self, children):
        label, args, *ops = children
        b = Block()
        b.label_hint = str(label)
        for name, t, loc in args or []:
            arg = b.add_argument(t, loc)
            arg.name_hint = name
        for op in ops:
            b.append(op)
        return b

    def block_args(self, children):
        return [c for c in children if c is not None]

    def block_arg(self, children):
        tok, t, loc = children
        return (str(tok), t, self.ctx.location(loc) if loc is not None else
                FileLineColLoc(self.ctx.filename, tok.line, tok.column))

    def value_list(self, children):
        return [ValueRef(t) for t in children]

    def type_list(self, children):
        return children

    def type(self, children):
        (t,) = children
        if T.is_token(t):
            return self.ctx.type(t)
        return t

    def function_type(self, children):
        from ..ir.types import FunctionType
        ins, outs = children
        return FunctionType(tuple(ins or ()), tuple(outs))

    def fn_results(self, children):
        (c,) = children
        if T.is_token(c):
            return [self.ctx.type(c)]
        return c or []

    def type_only(self, children):
        return children[0]

    def attribute_only(self, children):
        return children[0]

    # -- attributes -------------------------------------------------------
    def attr_dict(self, children):
        return dict(c for c in children if c is not None)

    def attr_entry(self, children):
        key, value = children
        k = unquote(str(key)) if key.type == "STRING" else str(key)
        return (k, A.UnitAttr() if value is None else value)

    def attr_int(self, children):
        tok, t = children
        s = str(tok)
        is_hex = "0x" in s.lower()
        v = int(s, 16) if is_hex else int(s, 10)  # base 10: `007` is 7, as in MLIR
        if t is not None and hasattr(t, "name") and t.__class__.__name__ == "FloatType":
            if is_hex:  # MLIR: a hex literal of a float type is its bit pattern (0x7FF0000000000000 : f64 = inf)
                from .dense import float_from_bits
                if v < 0:
                    raise ParseError("hexadecimal float literal should not have a leading minus",
                                     tok.line, tok.column)
                try:
                    return A.FloatAttr(float_from_bits(v, t), t)
                except BodyError as e:
                    raise ParseError(e.message, tok.line, tok.column)
            return A.FloatAttr(float(v), t)
        return A.IntegerAttr(v, t or IntegerType(64))

    def attr_float(self, children):
        from ..ir.types import FloatType
        tok, t = children
        return A.FloatAttr(float(str(tok)), t or FloatType("f64"))

    def attr_string(self, children):
        tok, t = children
        return A.StringAttr(unquote(str(tok)))

    def attr_array(self, children):
        return A.ArrayAttr(tuple(c for c in children if c is not None))

    def attr_dict_value(self, children):
        return A.DictionaryAttr(tuple(children[0].items()))

    def attr_type(self, children):
        return A.TypeAttr(children[0])

    def attr_symbol(self, children):
        names = [F._sym(c) for c in children]
        return A.SymbolRefAttr(names[0], tuple(names[1:]))

    def attr_dialect(self, children):
        return self.ctx.dialect_attr(children[0])

    def attr_alias_ref(self, children):
        tok = children[0]
        v = self.ctx.attr_aliases.get(str(tok)[1:])
        if v is None:
            raise ParseError(f"undefined symbol alias id '{str(tok)[1:]}'", tok.line, tok.column)
        return v

    def attr_dense(self, children):
        tok, t = children
        return self.ctx.dense(tok, t)

    def attr_dense_array(self, children):
        return self.ctx.dense_array(children[0])

    def attr_loc(self, children):
        return A.LocationAttr(self.ctx.location(children[0]))

    def attr_keyword(self, children):
        tok = children[0]
        s = str(tok)
        if s in ("true", "false"):
            return A.BoolAttr(s == "true")
        if s == "unit":
            return A.UnitAttr()
        raise ParseError(f"expected attribute value, got '{s}'", tok.line, tok.column)

    def attr_alias(self, children):
        tok, value = children
        self.ctx.attr_aliases[str(tok)[1:]] = value
        if isinstance(value, A.LocationAttr):
            self.ctx.loc_aliases[str(tok)[1:]] = value.location
        elif isinstance(value, Location):  # a dialect location (e.g. #cuda_tile.di_loc<...>)
            self.ctx.loc_aliases[str(tok)[1:]] = value
        return None

    def type_alias(self, children):
        tok, t = children
        self.ctx.type_aliases[str(tok)[1:]] = t
        TYPE_ALIASES[str(tok)[1:]] = t
        return None

    def start(self, children):
        return [c for c in children if c is not None]


class ParseContext:
    """Per-parse state: file name, options, aliases, pending placeholders."""

    def __init__(self, filename, allow_unregistered=False, line_offset=0):
        self.filename = filename
        self.allow_unregistered = allow_unregistered
        self.line_offset = line_offset
        self.attr_aliases: dict = {}
        self.type_aliases: dict = {}
        self.loc_aliases: dict = {}
        self.deferred_locs: list = []
        self.pending: list = []  # (message, line, col) of errors reported at resolution (bind_results)

    # -- leaf conversions ---------------------------------------------------
    def type(self, tok):
        s = str(tok)
        if s.startswith("!") and "." not in s.split("<")[0]:
            t = self.type_aliases.get(s[1:])
            if t is None:
                raise ParseError(f"undefined symbol alias id '{s[1:]}'", tok.line, tok.column)
            return t
        try:
            return parse_type(s)
        except BodyError as e:
            raise ParseError(e.message, tok.line, tok.column + e.offset)

    def location(self, tok):
        text = str(tok)
        try:
            return parse_location(text, self.loc_aliases)
        except BodyError as e:
            if "undefined symbol alias" in e.message:
                # MLIR prints #loc aliases after their uses: resolve at the end
                return _LazyLoc(text, tok)
            raise ParseError(e.message, tok.line, tok.column + e.offset)

    def dialect_attr(self, tok):
        s = str(tok)
        head = s[1:].split("<", 1)[0]
        if head in self.attr_aliases:
            return self.attr_aliases[head]
        # `#dialect<body>` (no mnemonic): the dialect's own attribute parser, key (dialect, "")
        dialect, mnemonic = head.split(".", 1) if "." in head else (head, "")
        cls = registry.ATTRS.get((dialect, mnemonic))
        if cls is None:
            if any(d == dialect for d, _ in registry.ATTRS):
                raise ParseError(f"unknown attribute '{mnemonic}' in dialect '{dialect}'", tok.line, tok.column)
            return A.OpaqueAttr(dialect, s[len(dialect) + 1:])
        body = s[len(head) + 2:-1] if "<" in s else None
        from .reader import Reader
        try:
            if body is None:
                return cls.parse_body(None)
            r = Reader(body, len(head) + 2)
            r.aliases = self.attr_aliases
            v = cls.parse_body(r)
            r.done()
            return v
        except BodyError as e:
            raise ParseError(e.message, *_token_pos(tok, e.offset))

    def dense(self, tok, t):
        from .dense import parse_dense
        try:
            return parse_dense(str(tok)[6:-1], t)
        except BodyError as e:
            raise ParseError(e.message, tok.line, tok.column + 6 + e.offset)

    def dense_array(self, tok):
        s = str(tok)[6:-1]
        elt, _, vals = s.partition(":")
        t = parse_type(elt.strip())
        from ..ir.types import FloatType
        conv = float if isinstance(t, FloatType) else (lambda x: x == "true" if x in ("true", "false") else int(x, 0))
        values = tuple(conv(v.strip()) for v in vals.split(",") if v.strip())
        return A.DenseArrayAttr(t, values)

    # -- ops ----------------------------------------------------------------
    def finish_custom(self, cls, state):
        for trait in cls.traits:  # types the text names once for several values (AllTypesMatch)
            fill = getattr(trait, "fill_parse_types", None)
            if fill is not None:
                fill(cls, state)
        flat, sizes = [], []
        for d in cls.operand_defs:
            vals = state.operands.get(d.name, [])
            types = state.operand_types.get(d.name)
            if types is None and d.constraint.buildable is not None:
                types = [d.constraint.buildable] * len(vals)
            if types is not None:
                if len(types) != len(vals):
                    raise ParseError(f"{len(vals)} operands present, but expected {len(types)}",
                                     *(_pos(vals[0]) if vals else (None, None)))
                for v, t in zip(vals, types):
                    v.expected = t
            flat.extend(vals)
            sizes.append(len(vals))
        attrs = state.attrs
        if cls._segmented:
            attrs[SEGMENTS] = A.DenseArrayAttr(IntegerType(32), tuple(sizes))
        result_types, pending = [], False
        for d in cls.result_defs:
            ts = state.result_types.get(d.name)
            if ts is None and d.kind != SINGLE and d.name in F.compiled_format(cls).typed_results:
                ts = []  # its types sit in an optional group the text left out
            if ts is None:
                pending = True
                break
            result_types.extend(ts)
        regions = []
        for d in cls.region_defs:
            r = state.regions.get(d.name)
            regions.append(r if r is not None else Region())
        if pending:
            n = getattr(cls, "num_inferred_results", None)
            op = cls(flat, [None] * (n if n is not None else len(cls.result_defs)), attrs, regions)
            op._infer = True
        else:
            op = cls(flat, result_types, attrs, regions)
        for name, args in state.region_args.items():
            region = op.regions[cls.__dict__[name].index] if name in cls.__dict__ else op.regions[0]
            if not region.blocks:
                region.add_block(Block())
            entry = region.blocks[0]
            for ref, t, *loc in args:  # (name token, type[, LOC token or None])
                if loc and loc[0] is not None:
                    where = self.location(loc[0])
                else:
                    where = FileLineColLoc(self.filename, ref.line, ref.column) if hasattr(ref, "line") else UNKNOWN
                arg = entry.add_argument(t, where)
                arg.name_hint = str(ref)
        if hasattr(cls, "after_parse"):
            cls.after_parse(op, state)
        return op

    def finish_generic(self, name_tok, operands, succs, props, regions, attrs, fn):
        name = unquote(str(name_tok))
        cls = registry.OPS.get(name) or registry.OP_ALIASES.get(name)
        if len(fn.inputs) != len(operands):
            raise ParseError(f"expected {len(operands)} operand type{'s' if len(operands) != 1 else ''} "
                             f"but had {len(fn.inputs)}", name_tok.line, name_tok.column)
        for v, t in zip(operands, fn.inputs):
            v.expected = t
        all_attrs = dict(props)
        all_attrs.update(attrs)
        if cls is None:
            dialect = name.split(".", 1)[0]
            known = {n.split(".", 1)[0] for n in registry.op_names()}
            if dialect in known and not self.allow_unregistered:
                raise ParseError(f"unregistered operation '{name}' found in dialect ('{dialect}') that does "
                                 f"not allow unknown operations", name_tok.line, name_tok.column)
            if not self.allow_unregistered:
                raise ParseError("operation being parsed with an unregistered dialect. If this is intended, "
                                 "please use -allow-unregistered-dialect with the MLIR tool used",
                                 name_tok.line, name_tok.column)
            op = Operation(operands, list(fn.results), all_attrs, regions, name=name)
        else:
            op = cls(operands, list(fn.results), all_attrs, regions)
        op._succ_names = succs
        op._pos = (name_tok.line, name_tok.column)
        return op

    def bind_results(self, op, toks):
        names, count = [], 0
        for t in toks:
            s = str(t)
            if ":" in s:
                base, n = s.split(":")
                names.append((base, int(n)))
                count += int(n)
            else:
                names.append((s, 1))
                count += 1
        if getattr(op, "_infer", False) and count != len(op.results) and getattr(
                type(op), "num_inferred_results", None) is None:
            pass
        if getattr(op, "_infer", False) and count != len(op.results):
            # variadic inferred results: size them from the binding
            from ..ir.core import OpResult
            op.results = [OpResult(None, op, i) for i in range(count)]
        if count and not op.results:
            # MLIR finds this once the op is parsed, after its operands resolved:
            # reported when this op is resolved, so an operand's error comes first
            op._naming_error = ("cannot name an operation with no results", toks[0].line, toks[0].column)
            self.pending.append(op._naming_error)
            return
        if count != len(op.results):
            raise ParseError(f"operation defines {len(op.results)} results but was provided {count} to bind",
                             toks[0].line, toks[0].column)
        i = 0
        for base, n in names:
            if n == 1 and len(names) > 1 or (n == 1 and count == 1):
                op.results[i].name_hint = base
                i += 1
            else:
                for k in range(n):
                    op.results[i].name_hint = f"{base}#{k}"
                    i += 1


class _LazyLoc:
    def __init__(self, text, tok):
        self.text, self.tok = text, tok

    def resolve(self, ctx):
        try:
            return parse_location(self.text, ctx.loc_aliases)
        except BodyError as e:
            raise ParseError(e.message, self.tok.line, self.tok.column + e.offset)


def _pos(v):
    return (v.line, v.col) if isinstance(v, ValueRef) else (None, None)


def _written_at(op):
    """(file, line, col)-like triple of where `op` is written in the text."""
    pos = getattr(op, "_pos", None)
    return (None, *pos) if pos else op.location.file_line_col()


def _token_pos(tok, offset):
    """(line, col) of character `offset` inside token `tok` (which may span lines)."""
    before = str(tok)[:offset]
    newlines = before.count("\n")
    if not newlines:
        return tok.line, tok.column + offset
    return tok.line + newlines, offset - before.rfind("\n")


# ---------------------------------------------------------------------------
# name resolution

class _Resolver:
    def __init__(self, ctx, engine):
        self.ctx, self.engine = ctx, engine
        self.scope: dict = {}
        self.def_pos: dict = {}  # name -> (line, col) of its definition
        self.unreached: set = set()  # results bound ahead of their op (forward uses)
        self.here: set = set()

    def err(self, message, line, col, notes=()):
        raise ParseError(message, line, col, notes)

    def define(self, name, value, line=None, col=None):
        """Bind `name`; returns what it shadows: an enclosing block's value whose
        op comes later in the text is not yet defined (MLIR parses in order)."""
        prev = self.scope.get(name)
        if prev is not None and (prev not in self.unreached or name in self.here):
            self.err(f"redefinition of SSA value '{name}'", line, col,
                     [("previously defined here", *self.def_pos.get(name, (None, None)))])
        self.here.add(name)
        self.scope[name] = value
        self.def_pos[name] = (line, col)
        return prev

    def region_defs(self, blocks):
        self.here = set()  # names these blocks define: one of them twice is always an error
        added = []
        for b in blocks:
            for a in b.arguments:
                if a.name_hint:
                    flc = a.location.file_line_col()
                    prev = self.define(a.name_hint, a, *(flc[1:] if flc else (None, None)))
                    added.append((a.name_hint, prev))
            for op in b.ops:
                for r in op.results:
                    if r.name_hint:
                        flc = _written_at(op)
                        prev = self.define(r.name_hint, r, *(flc[1:] if flc else (None, None)))
                        added.append((r.name_hint, prev))
                        self.unreached.add(r)
        return added

    def resolve_blocks(self, blocks):
        added = self.region_defs(blocks)
        labels = {b.label_hint: b for b in blocks if b.label_hint}
        for b in blocks:
            for op in b.ops:
                self.resolve_op(op, labels)
                self.unreached.difference_update(op.results)
        for name, prev in reversed(added):
            if prev is None:
                del self.scope[name]
            else:
                self.scope[name] = prev

    def resolve_op(self, op, labels):
        for use in list(op._operands):
            ref = use.value
            if not isinstance(ref, ValueRef):
                continue
            real = self.scope.get(ref.ref)
            if real is None and "#" not in ref.ref:
                real = self.scope.get(ref.ref + "#0")   # `%x` of a `%x:N` group is `%x#0`, as in MLIR
            if real is None and "#" in ref.ref:
                base, _, number = ref.ref.partition("#")
                if number == "0" and base in self.scope:  # `%x#0` is `%x` itself
                    real = self.scope[base]
                elif base in self.scope or any(k.startswith(base + "#") for k in self.scope):
                    self.err("reference to invalid result number", ref.line, ref.col)
            if real is None:
                self.err("use of undeclared SSA value name", ref.line, ref.col)
            if ref.expected is not None and real.type is not None and real.type != ref.expected:
                if real in self.unreached:  # a forward use: MLIR finds out at the definition
                    number = ref.ref if "#" in ref.ref else ref.ref + "#0"
                    self.err(f"definition of SSA value '{number}' has type '{real.type.text()}'",
                             *self.def_pos.get(ref.ref, (None, None)),
                             [(f"previously used here with type '{ref.expected.text()}'", ref.line, ref.col)])
                self.err(f"use of value '{ref.ref}' expects different type than prior uses: "
                         f"'{ref.expected.text()}' vs '{real.type.text()}'", ref.line, ref.col,
                         [("prior use here", *self.def_pos.get(ref.ref, (None, None)))])
            use.set(real)
        naming = op.__dict__.pop("_naming_error", None)
        if naming is not None:
            self.err(*naming)
        succ = getattr(op, "_succ_names", None)
        if succ:
            for s in succ:
                if s not in labels:
                    flc = _written_at(op)
                    self.err("reference to an undefined block", *(flc[1:] if flc else (None, None)))
            op.successors = [labels[s] for s in succ]
        if getattr(op, "_infer", False):
            try:
                types = op.infer_result_types()
            except Exception:  # inference on malformed operands: report, don't crash
                types = None
            if types is None:
                flc = _written_at(op)
                self.err(f"'{op.name}' op failed to infer returned types", *(flc[1:] if flc else (None, None)))
            for r, t in zip(op.results, types):
                r.type = t
            del op._infer
        for region in op.regions:
            self.resolve_blocks(region.blocks)


def _fix_lazy_locs(ops, ctx):
    for top in ops:
        for op in top.walk():
            if isinstance(op.location, _LazyLoc):
                op.location = op.location.resolve(ctx)
            for r in op.regions:
                for b in r.blocks:
                    for a in b.arguments:
                        if isinstance(a.location, _LazyLoc):
                            a.location = a.location.resolve(ctx)


# ---------------------------------------------------------------------------

def parse_text(text: str, engine: DiagnosticEngine, filename: str = "<stdin>",
               allow_unregistered: bool = False, line_offset: int = 0):
    """Parse `text` into a list of top-level ops, or None after reporting a
    diagnostic. `line_offset` shifts reported lines (for --split-input-file)."""
    global _CURRENT
    lean = _lean_for(text)
    padded = "\n" * line_offset + text if line_offset else text
    fast = _fast_parser(lean)
    if fast is not None:
        _CURRENT = (lean, fast.builder)
        ctx = fast.builder.ctx = ParseContext(filename, allow_unregistered, line_offset)
        try:
            return _resolved(fast.parse(padded, "start"), ctx, engine)
        except Exception:  # noqa: BLE001 -- Lark parses the text again and reports what is wrong with it
            pass
    return _parse_text_with_lark(padded, lean, engine, filename, allow_unregistered, line_offset)


def _resolved(ops, ctx, engine):
    _fix_lazy_locs(ops, ctx)  # #loc aliases may be defined after their uses
    block = Block()
    for op in ops:
        block.append(op)
    _Resolver(ctx, engine).resolve_blocks([block])
    # top-level ops stay in one parentless block, so they may use each other
    return ops


def _parse_text_with_lark(text, lean, engine, filename, allow_unregistered, line_offset):
    global _CURRENT
    lark, builder = get_parser(lean)
    _CURRENT = (lean, builder)
    ctx = ParseContext(filename, allow_unregistered, line_offset)
    builder.ctx = ctx
    try:
        try:
            ops = lark.parse(text, start="start")
        except (ParseError, VisitError, F.BuildError, UnexpectedInput) as e:
            first = _pending_before(ctx, e)
            if first is None:
                raise
            _report(engine, filename, first[1], first[2], first[0])
            return None
        _fix_lazy_locs(ops, ctx)  # #loc aliases may be defined after their uses
        block = Block()
        for op in ops:
            block.append(op)
        res = _Resolver(ctx, engine)
        res.resolve_blocks([block])
        # top-level ops stay in one parentless block, so they may use each other
        return ops
    except ParseError as e:
        d = _report(engine, filename, e.line, e.col, e.message)
        for message, line, col in e.notes:
            d.attach_note(message, FileLineColLoc(filename, line, col) if line is not None else None)
    except VisitError as e:
        orig = e.orig_exc
        if isinstance(orig, ParseError):
            d = _report(engine, filename, orig.line, orig.col, orig.message)
            for message, line, col in orig.notes:
                d.attach_note(message, FileLineColLoc(filename, line, col) if line is not None else None)
        elif isinstance(orig, F.BuildError):
            w = orig.where
            for message in [orig.message, *getattr(orig, "extra", ())]:
                _report(engine, filename, getattr(w, "line", None), getattr(w, "column", None), message)
        else:
            raise
    except F.BuildError as e:
        w = e.where
        for message in [e.message, *getattr(e, "extra", ())]:
            _report(engine, filename, getattr(w, "line", None), getattr(w, "column", None), message)
    except UnexpectedInput as e:
        _as_without_bare_id_everywhere(e, text)
        line, col = e.line, e.column
        if isinstance(e, (UnexpectedToken, UnexpectedEOF)) and not _keyword_expected(e):
            line, col = _wrong_token_pos(text, e, line, col)
        message = _describe_unexpected(e)
        op_name = _open_custom_op(e)
        if op_name and not message.startswith("custom op "):
            # MLIR's wording inside an op's custom form: "custom op 'x' expected ..."
            m = re.fullmatch(r"unexpected (.*), (expected .*)", message)
            message = f"custom op '{op_name}' " + (f"{m.group(2)}, got {m.group(1)}" if m else message)
        _report(engine, filename, line, col, message)
    return None


def _as_without_bare_id_everywhere(e, text):
    """Diagnostics as they read before _BareIdEverywhere put BARE_ID in every
    lexer state. Where the parser state takes no BARE_ID: (1) a word refused
    as BARE_ID is one that no state lexer matched then, and Lark reported the
    root lexer's token there (`tile<4xf32>` as one TYPE, not `tile`) with the
    state's terminals, ignored ones included, as expected; (2) a lexer
    failure's expected terminals do not list BARE_ID."""
    if not isinstance(e, UnexpectedToken):
        return
    state = getattr(e, "state", None)
    try:
        accepted = state.parse_conf.states[state.position]
    except (AttributeError, KeyError, IndexError):
        return
    if "BARE_ID" in accepted:
        return
    expected = set(e.expected or ())
    expected.discard("BARE_ID")
    tok = e.token
    if getattr(tok, "type", None) == "BARE_ID" and tok.start_pos is not None:
        lark = _current_lark()
        root = snapshot.contextual_lexer(lark).root_lexer
        try:  # Lark 1.2+ lexes a TextSlice, older Lark the string itself
            from lark.utils import TextSlice
            source = TextSlice(text, 0, len(text))
        except ImportError:
            source = text
        found = root.match(source, tok.start_pos)
        if found is not None:
            value, kind = found
            again = LarkToken(kind, value, tok.start_pos, tok.line, tok.column)
            callback = root.callback.get(kind)
            e.token = callback(again) if callback is not None else again
        expected |= set(lark.lexer_conf.ignore)
    e.expected = expected


def _pending_before(ctx, e):
    """A deferred error (see bind_results) written before where `e` stopped the
    parse: MLIR, reading in order, would have reported it first."""
    orig = getattr(e, "orig_exc", e)
    where = getattr(orig, "where", None)
    line = getattr(orig, "line", getattr(where, "line", None))
    col = getattr(orig, "col", getattr(orig, "column", getattr(where, "column", None)))
    if not ctx.pending or line is None:
        return None
    first = min(ctx.pending, key=lambda p: (p[1], p[2]))
    return first if (first[1], first[2]) < (line, col or 0) else None


def _open_custom_op(e):
    """The op whose custom form the parser was reading when it met `e`, if the
    error lies in that op's own text (not inside one of its regions): MLIR's
    OpAsmParser prefixes such errors with "custom op '<name>'"."""
    ip = getattr(e, "interactive_parser", None)
    stack = getattr(getattr(ip, "parser_state", None), "value_stack", None)
    if not stack:
        return None
    for item in reversed(stack):
        if isinstance(item, list) and item and T.is_token(item[0]):
            item = item[0]  # an op's leading name sits in its head rule's value
        if not T.is_token(item):
            continue
        if item == "{":
            return None
        name = str(item)
        if item.type == "STRING":
            continue
        for candidate in (name, *(f"{d}.{name}" for d in F.SHORT_NAME_DIALECTS)):
            if candidate in registry.OPS:
                return candidate
            if candidate in registry.OP_ALIASES:
                return registry.OP_ALIASES[candidate].name
    return None


def _default_dialect(e):
    """The dialect whose ops may go unprefixed where `e` happened: that of the
    innermost open op that sets one (cuda_tile.module for cuda_tile)."""
    ip = getattr(e, "interactive_parser", None)
    stack = getattr(getattr(ip, "parser_state", None), "value_stack", None) or ()
    containers = {op: dialect for dialect, op in F.SHORT_NAME_DIALECTS.items()}
    for item in reversed(stack):
        if isinstance(item, list) and item and T.is_token(item[0]):
            item = item[0]
        if T.is_token(item):
            name = str(item)
            for candidate in (name, *(f"{d}.{name}" for d in F.SHORT_NAME_DIALECTS)):
                if candidate in containers:
                    return containers[candidate]
    return None


def _keyword_expected(e) -> bool:
    """Only keywords would do: MLIR reports those (parseKeyword) where it stands."""
    expected = getattr(e, "expected", None) or ()
    if not expected:
        return False
    if "TYPE" in expected:  # a type is read by a keyword-first parser, which reports in place
        return True
    lark = _current_lark()
    for name in expected:
        if name == "BARE_ID":
            continue
        try:
            pat = lark.get_terminal(name).pattern
        except (KeyError, AttributeError):
            return False
        if type(pat).__name__ != "PatternStr" or not pat.value[:1].isalpha():
            return False
    return True


def _wrong_token_pos(text, e, line, col):
    """MLIR's emitWrongTokenError: a token that starts its line (after blank and
    comment-only lines) is reported at the end of the previous token, where
    the missing piece belonged."""
    tok = getattr(e, "token", None)
    pos = getattr(tok, "start_pos", None)
    if pos is None or getattr(tok, "type", "") == "$END":
        pos = len(text.rstrip()) + 1 if isinstance(e, UnexpectedEOF) or tok is None else pos
        if pos is None:
            return line, col
        pos = min(pos, len(text))
    original = (line, col)
    start = text[:pos]
    while True:
        start = start.rstrip(" \t")
        if not start:
            return original
        if start[-1] not in "\n\r":
            idx = len(start)
            ln = start.count("\n") + 1
            return ln, idx - (start.rfind("\n") + 1) + 1
        start = start[:-1]
        prev_line = start[start.rfind("\n") + 1:] if "\n" in start else start
        comment = prev_line.find("//")
        if comment != -1:
            start = start[:len(start) - (len(prev_line) - comment)]


def _describe_unexpected(e) -> str:
    if isinstance(e, UnexpectedCharacters):
        return f"unexpected character '{char_text(e.char)}'"
    if isinstance(e, UnexpectedEOF):
        return "unexpected end of file"
    if isinstance(e, UnexpectedToken):
        tok = e.token
        if tok.type == "$END":
            return "unexpected end of file"
        if tok.type == "BARE_ID" and ({"RESULT_ID", "custom_op", "STRING"} & set(e.expected or ())):
            default = _default_dialect(e) if "." not in str(tok) else None
            tried = f" (tried '{default}.{tok}' as well)" if default else ""
            return f"custom op '{tok}' is unknown{tried}"
        expected = sorted(e.expected or ())
        if expected == ["STRING"]:  # an op's string attribute: MLIR reads any attribute there
            return "expected attribute value"
        if "TYPE" in expected:  # cuda_tile's short type spellings start with a keyword
            expected.remove("TYPE")
            expected.insert(0, "TYPE")
        hint = _expected_hint(expected)
        return f"unexpected '{tok}'" + (f", expected {hint}" if hint else "")
    return str(e)


_PRETTY = {"VALUE_REF": "SSA value", "TYPE": "valid keyword", "INT": "integer", "FLOAT": "float",
           "STRING": "string", "BARE_ID": "keyword", "SYMBOL_REF": "symbol", "COLON": "':'",
           "COMMA": "','", "LPAR": "'('", "RPAR": "')'", "LBRACE": "'{'", "RBRACE": "'}'",
           "LSQB": "'['", "RSQB": "']'", "EQUAL": "'='", "MORETHAN": "'>'", "LESSTHAN": "'<'",
           "DENSE_LIT": "'<'",
           "RESULT_ID": "SSA value", "__ANON": None}


def _expected_hint(expected) -> str:
    names = []
    for t in expected:
        p = _PRETTY.get(t)
        if p is None and t.startswith("__ANON"):
            continue
        if p is None:
            continue
        if p not in names:
            names.append(p)
    return " or ".join(names[:4])


def _report(engine, filename, line, col, message):
    if line is None:
        return engine.error(UNKNOWN, message)
    return engine.error(FileLineColLoc(filename, line, col), message)


def parse_attribute_text(text: str, offset: int = 0):
    lean, builder = _CURRENT or (False, None)
    fast = _fast_parser(lean)
    if fast is not None and (builder is None or builder is fast.builder):
        try:
            return fast.parse(text, "attribute_only")
        except Exception:  # noqa: BLE001 -- Lark parses it again and describes what is wrong
            pass
    lark, builder = get_parser(lean)
    try:
        return lark.parse(text, start="attribute_only")
    except UnexpectedInput as e:
        _as_without_bare_id_everywhere(e, text)
        raise BodyError(_describe_unexpected(e), offset + max(e.column - 1, 0))
    except (ParseError, VisitError) as e:
        orig = getattr(e, "orig_exc", e)
        if isinstance(orig, ParseError):  # positions inside `text` (one line) shift by `offset`
            col = orig.col if orig.line in (None, 1) and orig.col else 1
            raise BodyError(orig.message, offset + col - 1)
        raise BodyError(str(orig), offset)
