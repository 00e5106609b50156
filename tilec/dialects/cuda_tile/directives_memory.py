"""Custom syntax pieces (`custom<...>` in op formats) of the cuda_tile memory,
view and atomic ops: memory ordering/scope keywords, `%view[%i, %j]` index
types, trailing optional operands, `make_tensor_view`'s mixed shape lists,
view result types, optimization hints and the multimem ops' `inbounds` flags.

Where a piece needs the exact position of a type (for a diagnostic), its
grammar takes the TYPE token itself and converts it here."""
from __future__ import annotations

from ...ir.types import DYNAMIC
from ...syntax.format import DIRECTIVES, BuildError, Directive, directive
from .attributes import MemoryOrderingSemanticsAttr, MemoryScopeAttr
from .attributes_core import OptimizationHintsAttr
from .types import (GatherScatterViewType, PartitionViewType, PointerType, StridedViewType, TensorViewType,
                    TileType)

_TY = "(TYPE | TYPE_ALIAS)"


def _type(tok):
    """A TYPE / TYPE_ALIAS token -> Type, with errors located in the token."""
    from ...syntax.parser import current_context
    return current_context().type(tok)


def _q(t) -> str:
    return f"'{t.text()}'"


def _ref_tok(ref):
    """A Token standing for a ValueRef's position."""
    from ...syntax.token import Token
    return Token("VALUE_REF", ref.ref, line=ref.line, column=ref.col)


def _tokens(children):
    """Flatten nested child lists into the tokens (and other leaves) they hold."""
    out = []
    for c in children:
        if isinstance(c, (list, tuple)):
            out.extend(_tokens(c))
        elif c is not None:
            out.append(c)
    return out


def _fail(message, where):
    raise BuildError(message, where, custom_op=True)


# ---------------------------------------------------------------------------
# memory ordering semantics and scope of the view ops

class _MemoryAttributes(Directive):
    """`weak` or `relaxed device`: the ordering keyword and an optional scope.
    `view_style` picks the wording of load/store_view_tko's parser (which also
    rejects a scope after `weak`); otherwise atomic_red_view_tko's."""

    def __init__(self, view_style):
        self.view_style = view_style

    def grammar(self, args):
        return "BARE_ID [BARE_ID]"

    def parse(self, children, args, state):
        sem_tok, scope_tok = children
        sem, scope = str(sem_tok), None if scope_tok is None else str(scope_tok)
        sem_values, scope_values = MemoryOrderingSemanticsAttr.values, MemoryScopeAttr.values
        if sem not in sem_values:
            if self.view_style:
                _fail(f'invalid memory_ordering_semantics attribute specification. Got "{sem}" but expect '
                      f"one of: {', '.join(sem_values)}", sem_tok)
            _fail(f"invalid memory_ordering_semantics: '{sem}'; expected one of: {', '.join(sem_values)}",
                  sem_tok)
        state.attrs[args[0].name] = MemoryOrderingSemanticsAttr(sem)
        if scope is None:
            return
        if self.view_style and sem == "weak":
            _fail(f'operation specifies weak memory ordering semantics, but then provides "{scope}" scope, '
                  f"expected no memory scope.", scope_tok)
        if scope not in scope_values:
            if self.view_style:
                _fail(f'invalid memory_scope attribute specification. Got "{scope}" but expect one of: '
                      f"{', '.join(scope_values)}", scope_tok)
            _fail(f"invalid memory_scope: '{scope}'; expected one of: {', '.join(scope_values)}", scope_tok)
        state.attrs[args[1].name] = MemoryScopeAttr(scope)

    def print(self, op, args, p):
        sem = op.attributes.get(args[0].name)
        scope = op.attributes.get(args[1].name)
        text = MemoryOrderingSemanticsAttr.name_of(sem) if isinstance(sem, MemoryOrderingSemanticsAttr) \
            else sem.text()
        if scope is not None:
            text += " " + (MemoryScopeAttr.name_of(scope) if isinstance(scope, MemoryScopeAttr) else scope.text())
        return text


@directive("AtomicOrderingAndScope")
class AtomicOrderingAndScope(Directive):
    """`$memory_ordering_semantics $memory_scope` of atomic_cas/rmw_tko, both
    required: one rule for both, so that a bad ordering keyword is what gets
    reported (not the operand that follows it), as soon as it is read."""
    rules = ("mem_atomic_ordering: BARE_ID | STRING",)

    def __init__(self):
        def ordering(children):
            (tok,) = children
            MemoryOrderingSemanticsAttr.custom_syntax().convert(tok)  # raises on a bad keyword
            return tok
        self.callbacks = {"mem_atomic_ordering": ordering}

    def grammar(self, args):
        return "mem_atomic_ordering [BARE_ID | STRING]"

    def parse(self, children, args, state):
        sem_tok, scope_tok = children
        sem_arg, scope_arg = args
        state.attrs[sem_arg.name] = MemoryOrderingSemanticsAttr.custom_syntax().convert(sem_tok)
        if scope_tok is None:
            _fail(f"expected string or keyword containing one of the following enum values for attribute "
                  f"'{scope_arg.name}' [{', '.join(MemoryScopeAttr.values)}]", sem_tok)
        state.attrs[scope_arg.name] = MemoryScopeAttr.custom_syntax().convert(scope_tok)

    def print(self, op, args, p):
        return DIRECTIVES["ViewMemoryAttributes"].print(op, args, p)


DIRECTIVES["ViewMemoryAttributes"] = _MemoryAttributes(view_style=True)
DIRECTIVES["AtomicMemoryAttributes"] = _MemoryAttributes(view_style=False)


# ---------------------------------------------------------------------------
# index types of `%view[%i, %j]`

@directive("ViewIndexTypes")
class ViewIndexTypes(Directive):
    """`, T` (one type for every index) or `, T0, T1, ...` (one per index); the
    printer uses the short form when all index types agree."""

    def grammar(self, args):
        return f'("," {_TY})*'

    def parse(self, children, args, state):
        toks = _tokens(children)
        name = args[0].name
        indices = state.operands.get(name, [])
        types = [_type(t) for t in toks]
        if len(types) == 1:
            types = types * len(indices)
        elif not types and indices:
            _fail("index types must be specified when indices are present", _ref_tok(indices[-1]))
        elif types and len(types) != len(indices):
            _fail(f"expected {len(indices)} index types, got {len(types)}", toks[0])
        state.operand_types[name] = types

    def print(self, op, args, p):
        indices = args[0].field.__get__(op)
        if not indices:
            return None
        types = [v.type for v in indices]
        if all(t == types[0] for t in types):
            types = types[:1]
        p.write("".join(", " + t.text(True) for t in types))
        return None


# ---------------------------------------------------------------------------
# load_ptr_tko's `, %mask, %padding` and their types

@directive("TrailingOperands")
class TrailingOperands(Directive):
    """`, %a, %b`: up to one value per named optional operand, taken in order
    (so a second value is only ever the second operand)."""

    def grammar(self, args):
        return '("," VALUE_REF)*'

    def parse(self, children, args, state):
        from ...syntax.format import value_ref
        toks = _tokens(children)
        if len(toks) > len(args):
            raise BuildError("expected ':'", toks[len(args)])
        for a in args:
            state.operands[a.name] = []
        for a, tok in zip(args, toks):
            state.operands[a.name] = [value_ref(tok)]

    def print(self, op, args, p):
        vals = [a.field.__get__(op) for a in args]
        p.write("".join(", " + p.value_name(v) for v in vals if v is not None))
        return None


def _is_padding(t, source_types) -> bool:
    """A tile of the source's pointee type, other than i1 (a mask is i1; any other
    type keeps the mask's diagnostic, as NVIDIA's parser gives it)."""
    from ...ir.types import IntegerType
    elt = getattr(t, "element_type", None)
    src = getattr(source_types[0], "element_type", None) if source_types else None
    pointee = getattr(src, "pointee", None)
    return elt is not None and elt == pointee and elt != IntegerType(1)


@directive("TrailingOperandTypes")
class TrailingOperandTypes(Directive):
    """`, T1, T2`: the types of the operands TrailingOperands read, in order."""

    def grammar(self, args):
        return f'("," {_TY})*'

    def parse(self, children, args, state):
        toks = _tokens(children)
        if len(toks) > len(args):
            raise BuildError("expected '->'", toks[len(args)])
        if len(args) == 2 and len(toks) == 1 and _is_padding(_type(toks[0]), state.operand_types.get("source")):
            # `, %pad : ..., T` without a mask (as tileirdisasm prints it): a lone value
            # of the loaded element type (not i1) is the padding, not the mask
            state.operands[args[1].name] = state.operands.get(args[0].name, [])
            state.operands[args[0].name] = []
            state.operand_types[args[0].name] = []
            state.operand_types[args[1].name] = [_type(toks[0])]
            return
        for i, a in enumerate(args):
            vals = state.operands.get(a.name, [])
            types = [_type(toks[i])] if i < len(toks) else []
            if len(types) != len(vals):
                where = toks[i] if i < len(toks) else _ref_tok(vals[0])
                _fail(f"{len(vals)} operands present, but expected {len(types)}", where)
            state.operand_types[a.name] = types

    def print(self, op, args, p):
        vals = [a.field.__get__(op) for a in args]
        p.write("".join(", " + v.type.text(True) for v in vals if v is not None))
        return None


# ---------------------------------------------------------------------------
# make_tensor_view's `shape = [..], strides = [..] {attrs} : [T ->] tensor_view<..>`

@directive("TensorViewShape")
class TensorViewShape(Directive):
    """The mixed static/dynamic shape and stride lists, checked against the
    result type; dynamic entries become the op's operands (all of one type,
    named before `->`)."""
    rules = ('!mtv_list: "[" [mtv_item ("," mtv_item)*] "]"',
             "mtv_item: INT | VALUE_REF | BARE_ID | FLOAT")

    def grammar(self, args):
        return f'"shape" "=" mtv_list "," "strides" "=" mtv_list [attr_dict] ":" {_TY} ["," {_TY}] ["->" {_TY}]'

    def parse(self, children, args, state):
        from ...syntax.token import is_token
        from ...syntax.format import value_ref
        shape_list, stride_list, attrs, first_tok, comma_tok, second_tok = children
        base_type = None
        if second_tok is None and comma_tok is not None:
            raise BuildError("expected '->'", comma_tok)
        if second_tok is not None:
            # 13.4: a base pointer with a ptr_attr is spelled first, `: base[, index] -> view`
            first = _type(first_tok)
            # without a classification the base is not spelled: `: %x's type -> view`
            # names an index type, even a wrong one (the verifier reports it)
            if isinstance(first, TileType) and isinstance(first.element_type, PointerType) and \
                    (comma_tok is not None or first.element_type.ptr_attr is not None):
                base_type, first_tok = first, comma_tok
            elif comma_tok is not None:
                _fail(f"expected a tile of pointers, but got {_q(first)}", first_tok)
            if first_tok is None:
                first_tok, second_tok = second_tok, None
        shape_arg, stride_arg, result_arg = args

        def items(lst):
            out = []
            for c in lst[1:-1]:
                if c is None or is_token(c):  # a comma, or the empty list's placeholder
                    continue
                (tok,) = c
                if tok.type == "VALUE_REF":
                    out.append((DYNAMIC, tok))
                elif tok.type == "INT":
                    out.append((int(str(tok), 0), tok))
                else:
                    _fail("expected either integer or SSA value", tok)
            return out

        shape, strides = items(shape_list), items(stride_list)
        dynamic = [t for _, t in shape + strides if t.type == "VALUE_REF"]
        if second_tok is not None and not dynamic:
            raise BuildError("expected end of operation after the tensor_view type", second_tok)
        if dynamic and second_tok is None:
            raise BuildError("expected '->'", first_tok)
        index_type = _type(first_tok) if second_tok is not None else None
        result_tok = second_tok if second_tok is not None else first_tok
        result = _type(result_tok)
        if not isinstance(result, TensorViewType):
            _fail(f"expected 'tensor_view' type, but got {_q(result)}", result_tok)
        for what, given, expected, lst in (("shape", shape, result.shape, shape_list),
                                           ("stride", strides, result.strides, stride_list)):
            if len(given) != len(expected):
                _fail(f"expected {what} declaration to contain {len(expected)} elements due to tensor_view "
                      f"type, but {len(given)} were provided", lst[0])
            for i, ((got, tok), want) in enumerate(zip(given, expected)):
                if got != want:
                    def show(d):
                        return "dynamic" if d is DYNAMIC else str(d)
                    _fail(f"input {what} dimension {i} does not match tensor_view type (expected {show(want)}, "
                          f"got {show(got)})", tok)
        shape_refs = [value_ref(t) for _, t in shape if t.type == "VALUE_REF"]
        stride_refs = [value_ref(t) for _, t in strides if t.type == "VALUE_REF"]
        state.operands[shape_arg.name] = shape_refs
        state.operands[stride_arg.name] = stride_refs
        state.operand_types[shape_arg.name] = [index_type] * len(shape_refs)
        state.operand_types[stride_arg.name] = [index_type] * len(stride_refs)
        state.operand_types["base"] = [base_type or TileType((), PointerType(result.element_type))]
        state.result_types[result_arg.name] = [result]
        if attrs:
            state.attrs.update(attrs)

    def print(self, op, args, p):
        shape_arg, stride_arg, result_arg = args
        result = op.results[0].type

        def mixed(static, dynamic):
            dyn = iter(dynamic)
            return ", ".join(p.value_name(next(dyn)) if d is DYNAMIC else str(d) for d in static)

        dyn_shape, dyn_strides = shape_arg.field.__get__(op), stride_arg.field.__get__(op)
        shape = getattr(result, "shape", ())
        strides = getattr(result, "strides", ())
        p.write(f" shape = [{mixed(shape, dyn_shape)}], strides = [{mixed(strides, dyn_strides)}]")
        p.print_attr_dict(op.attributes)
        p.write(" : ")
        dynamic = list(dyn_shape) + list(dyn_strides)
        base = op.operands[0].type
        if getattr(getattr(base, "element_type", None), "ptr_attr", None) is not None:
            p.write(base.text(True) + (", " if dynamic else " -> "))
        if dynamic:
            p.write(dynamic[0].type.text(True) + " -> ")
        p.write(result.text(True))
        return None


# ---------------------------------------------------------------------------
# `: partition_view<...>` of make_partition_view & co.

class _ViewResultType(Directive):
    """`: <view type>`: the result type, whose tensor_view is the operand's type."""

    def __init__(self, cls, mnemonic):
        self.cls, self.mnemonic = cls, mnemonic

    def grammar(self, args):
        # a trailing `-> T` is accepted by the grammar only to report the
        # wrong first type, as MLIR's parser does before it sees the arrow
        return f'":" {_TY} ["->" {_TY}]'

    def parse(self, children, args, state):
        tok, *rest = _tokens(children)
        t = _type(tok)
        if not isinstance(t, self.cls):
            _fail(f"expected '{self.mnemonic}' type, but got {_q(t)}", tok)
        if rest:
            raise BuildError("expected end of operation", rest[0])
        result_arg, operand_arg = args
        state.result_types[result_arg.name] = [t]
        state.operand_types[operand_arg.name] = [t.tensor_view]

    def print(self, op, args, p):
        return ": " + op.results[0].type.text(True)


DIRECTIVES["PartitionViewResult"] = _ViewResultType(PartitionViewType, "partition_view")
DIRECTIVES["StridedViewResult"] = _ViewResultType(StridedViewType, "strided_view")
DIRECTIVES["GatherScatterViewResult"] = _ViewResultType(GatherScatterViewType, "gather_scatter_view")


# ---------------------------------------------------------------------------
# get_tensor_shape / get_index_space_shape: `%src : T -> tile<iN>`

class _ShapeQueryTypes(Directive):
    """`: <source type> -> <result type>`; the op has one result of that type
    per dimension (of the tensor, or of the view's index space)."""

    def __init__(self, accept, what):
        self.accept, self.what = accept, what

    def grammar(self, args):
        return f'":" {_TY} "->" {_TY}'

    def parse(self, children, args, state):
        src_tok, res_tok = _tokens(children)
        src, res = _type(src_tok), _type(res_tok)
        if not isinstance(src, self.accept):
            _fail(f"expected {self.what}, got {_q(src)}", src_tok)
        src_arg, res_arg = args
        rank = len(src.shape) if isinstance(src, TensorViewType) else len(src.tile_shape)
        state.operand_types[src_arg.name] = [src]
        state.result_types[res_arg.name] = [res] * rank

    def print(self, op, args, p):
        src = args[0].field.__get__(op)
        results = op.results
        res = results[0].type.text(True) if results else "<<no result>>"
        return f": {src.type.text(True)} -> {res}"


DIRECTIVES["TensorShapeTypes"] = _ShapeQueryTypes(TensorViewType, "tensor_view")
DIRECTIVES["IndexSpaceShapeTypes"] = _ShapeQueryTypes((PartitionViewType, StridedViewType, GatherScatterViewType),
                                                      "tile view")


# ---------------------------------------------------------------------------
# optimization hints: `<sm_100 = {latency = 3}, ...>`

@directive("MemoryOptimizationHints")
class MemoryOptimizationHints(Directive):
    """`<sm_100 = {latency = 3}, ...>` after `optimization_hints =` of the
    load/store ops (the attribute printed without its `#cuda_tile.` prefix)."""
    rules = ('mem_hint: (BARE_ID | STRING) "=" attribute',)

    def grammar(self, args):
        return '"<" [mem_hint ("," mem_hint)*] ">"'

    def parse(self, children, args, state):
        from ...syntax.token import is_token
        from ...syntax.reader import unquote
        entries = []
        for c in children:
            if c is None or is_token(c):
                continue
            key_tok, value = c
            key = unquote(str(key_tok)) if key_tok.type == "STRING" else str(key_tok)
            entries.append((key, value, key_tok))
        state.attrs[args[0].name] = OptimizationHintsAttr.from_entries(entries, _fail)

    def print(self, op, args, p):
        attr = op.attributes.get(args[0].name)
        return f"<{attr.body()}>" if isinstance(attr, OptimizationHintsAttr) else attr.text()

    def present(self, op, args):
        return op.attributes.get(args[0].name) is not None


# ---------------------------------------------------------------------------
# the multimem view ops' `inbounds = [true, false]` (13.5)

@directive("ViewInbounds")
class ViewInbounds(Directive):
    """One flag per index (a DenseArrayAttr of i1), written only when one is
    set; left out, it is all false. Placed after the index operands."""

    rules = ('!mm_inbounds: "inbounds" "=" "[" [BARE_ID ("," BARE_ID)*] "]"',)

    def grammar(self, args):
        return "[mm_inbounds]"

    def parse(self, children, args, state):
        from ...syntax.token import is_token
        from ...ir import attributes as A
        from ...ir.types import IntegerType
        name = args[0].name
        words = [t for t in _tokens(children) if is_token(t) and t.type == "BARE_ID"]
        for t in words:
            if str(t) not in ("true", "false"):
                _fail(f"expected 'true' or 'false', got '{t}'", t)
        if any(c is not None for c in children):
            flags = tuple(1 if str(t) == "true" else 0 for t in words)
        else:
            flags = (0,) * len(state.operands.get("index", []))
        state.attrs[name] = A.DenseArrayAttr(IntegerType(1), flags)

    def print(self, op, args, p):
        flags = op.attributes.get(args[0].name)
        values = getattr(flags, "values", ())
        if not any(values):
            return ""
        return "inbounds = [" + ", ".join("true" if v else "false" for v in values) + "]"


@directive("ViewIndexAndTokenTypes")
class ViewIndexAndTokenTypes(Directive):
    """ViewIndexTypes followed by `, token` when the optional token operand is
    present (the multimem ops name it among their operand types)."""

    def grammar(self, args):
        return f'("," {_TY})*'

    def parse(self, children, args, state):
        index_arg, token_arg = args
        toks = _tokens(children)
        if state.operands.get(token_arg.name):
            if not toks:
                _fail("expected the type of the token operand", _ref_tok(state.operands[token_arg.name][0]))
            state.operand_types[token_arg.name] = [_type(toks[-1])]
            toks = toks[:-1]
        else:
            state.operand_types[token_arg.name] = []
        DIRECTIVES["ViewIndexTypes"].parse(toks, [index_arg], state)

    def print(self, op, args, p):
        DIRECTIVES["ViewIndexTypes"].print(op, args[:1], p)
        token = args[1].field.__get__(op)
        if token is not None:
            p.write(", " + token.type.text(True))
        return None
