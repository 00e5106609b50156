"""cuda_tile's custom syntax pieces (`custom<...>` in op formats)."""
from __future__ import annotations

from ...ir import attributes as A
from ...ir.types import FunctionType
from ...syntax.dense import parse_elements
from ...syntax.format import BuildError, Directive, directive
from ...syntax.reader import BodyError, parse_type


_ELEMENT_KINDS = ("i1 or i8 or i16 or i32 or i64 or f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 or "
                  "f8E8M0FNU or f4E2M1FN")


def dense_literal(tok, result_type, name_tok=None, op_name="cuda_tile.constant", result_def=None):
    """`<f32: [1.0, 2.0]>` or the spec's `dense<...>` against `result_type`;
    `result_def`, when given, is the op result whose constraint the type must
    meet (checked after the literal's own element type, as NVIDIA's parser does)."""
    from ...ir.floats import FORMATS
    from ...ir.types import FloatType, IntegerType
    s = str(tok)
    try:
        if s.startswith("dense<"):
            body = s[6:-1]
        else:
            inner = s[1:-1]
            elt_text, sep, body = inner.partition(":")
            if not sep:
                raise BuildError("expected ':' after the element type of a constant", tok)
            try:
                elt = parse_type(elt_text.strip())
            except BodyError:
                err = BuildError(f"expect element type to be one of {_ELEMENT_KINDS} values, but got "
                                 f"'<<NULL TYPE>>'", tok)
                err.extra = [f"'{op_name}' unknown type: {elt_text.strip()}"]
                raise err
            valid = (isinstance(elt, IntegerType) and elt.width in (1, 8, 16, 32, 64)) or (
                isinstance(elt, FloatType) and elt.name in FORMATS)
            if not valid:
                raise BuildError(f"expect element type to be one of {_ELEMENT_KINDS} values, but got "
                                 f"'{elt.text()}'", tok)
        if result_def is not None and not result_def.constraint(result_type):
            raise BuildError(f"result #0 must be {result_def.constraint.description}, but got "
                             f"'{result_type.text()}'", tok, custom_op=True)
        if not s.startswith("dense<"):
            if elt != getattr(result_type, "element_type", None):
                raise BuildError(f"mismatch between the element type: '{elt.text()}' and the tile element type "
                                 f"'{getattr(result_type, 'element_type', result_type)}'", tok)
        return parse_elements(body, result_type)
    except BodyError as e:
        notes = getattr(e, "notes", ())
        if notes:  # a diagnostic with notes attached (e.g. the float literal hint)
            from ...syntax.parser import ParseError
            raise ParseError(e.message, tok.line, tok.column, [(n, tok.line, tok.column) for n in notes])
        raise BuildError(e.message, tok)


def _check_nesting(tok):
    """Raise when the literal's nested lists differ in length or depth (other
    problems wait for the type, which their messages need)."""
    from ...syntax.dense import _nested, _shape_of, _tokens, fast_structure
    s = str(tok)
    body = s[6:-1] if s.startswith("dense<") else s[1:-1].partition(":")[2]
    if fast_structure(body.strip()) is not None:
        return      # regular nesting
    try:
        _shape_of(_nested(_tokens(body)))
    except BodyError as e:
        if "ranks are not consistent" in e.message:
            raise BuildError(e.message, tok)


def dense_text(attr) -> str:
    return f"<{attr.element_type.text(True)}: {attr.literal()}>"


@directive("DenseTypedElementsAttr")
class DenseTypedElements(Directive):
    """`<f32: [..]> : tile<..>` — the value and the result type together."""
    rules = ('dense_lit: DENSE_LIT | DENSE',
             r'DENSE_LIT.4: /<\s*[A-Za-z][A-Za-z0-9]*(<[^<>]*>)?\s*:[^<>]*>/')

    def __init__(self):
        def literal(children):
            _check_nesting(children[0])
            return children
        # as soon as the literal is read, before its type: MLIR reports a ragged
        # literal ahead of a bad result type
        self.callbacks = {"dense_lit": literal}

    def grammar(self, args):
        return 'dense_lit ":" type'

    def parse(self, children, args, state):
        (lit,), t = children
        value_arg, type_arg = args
        state.result_types[type_arg.name] = [t]
        state.attrs[value_arg.name] = dense_literal(lit, t, op_name=state.op_cls.name, result_def=type_arg.field)

    def print(self, op, args, p):
        value = op.attributes[args[0].name]
        return f"{dense_text(value)} : {op.results[0].type.text(True)}"


@directive("DenseTypedElementsAttrNoResult")
class DenseTypedElementsNoResult(Directive):
    """`<f32: [..]> : tile<..>` where the type belongs to the value alone (global)."""

    def __init__(self):
        def literal(children):
            _check_nesting(children[0])
            return children
        # as soon as the literal is read, before its type: MLIR reports a ragged
        # literal ahead of a bad result type
        self.callbacks = {"dense_lit": literal}

    def grammar(self, args):
        return 'dense_lit ":" type'

    def parse(self, children, args, state):
        (lit,), t = children
        state.attrs[args[0].name] = dense_literal(lit, t, op_name=state.op_cls.name)

    def print(self, op, args, p):
        value = op.attributes[args[0].name]
        return f"{dense_text(value)} : {value.type.text(True)}"


@directive("FunctionSignature")
class FunctionSignature(Directive):
    """`@name(%a: T, ...)` of entry-like ops; args become the body's block args."""
    rules = ('fn_arg: VALUE_REF ":" type [attr_dict] [LOC]',)

    def grammar(self, args):
        return 'SYMBOL_REF "(" [fn_arg ("," fn_arg)*] ")"'

    def parse(self, children, args, state):
        from ...syntax.format import _sym
        sym, *fn_args = children
        fn_args = [a for a in fn_args if a is not None]
        name_arg, type_arg, region_arg = args
        state.attrs[name_arg.name] = A.StringAttr(_sym(sym))
        types = tuple(a[1] for a in fn_args)
        state.attrs[type_arg.name] = A.TypeAttr(FunctionType(types, ()))
        state.region_args[region_arg.name] = [(a[0], a[1], a[3]) for a in fn_args]
        arg_attrs = [a[2] or {} for a in fn_args]
        if any(arg_attrs):
            state.attrs["arg_attrs"] = A.ArrayAttr(tuple(A.DictionaryAttr(tuple(d.items())) for d in arg_attrs))

    def print(self, op, args, p):
        from ...ir.printing import symbol
        name = op.attributes[args[0].name].value
        region = op.regions[0]
        block_args = region.blocks[0].arguments if region.blocks else []
        fn_type = op.attributes[args[1].name].value
        if block_args:
            parts = [f"{p.value_name(a)}: {a.type.text(True)}" for a in block_args]
        else:
            parts = [t.text(True) for t in fn_type.inputs]
        return f"{symbol(name)}({', '.join(parts)})"


@directive("IEEERoundingMode")
class IEEERoundingMode(Directive):
    """Optional `rounding<mode>` with one of the four IEEE modes; absent means
    nearest_even, which is stored (the attribute is required) and not printed."""
    MODES = ("nearest_even", "zero", "negative_inf", "positive_inf")

    def grammar(self, args):
        return '["rounding" "<" BARE_ID ">"]'

    def parse(self, children, args, state):
        from .attributes import RoundingModeAttr
        (tok,) = children
        mode = "nearest_even" if tok is None else str(tok)
        if mode not in self.MODES:
            listed = ", ".join(f"'{m}'" for m in self.MODES)
            raise BuildError(f"custom op '{state.op_cls.name}' expected rounding mode to be one of: {listed}, "
                             f"got: '{mode}'", tok)
        state.attrs[args[0].name] = RoundingModeAttr(mode)

    def print(self, op, args, p):
        v = op.attributes.get(args[0].name)
        if v is None or v.value == "nearest_even":
            return None
        return f"rounding<{v.value}>"
