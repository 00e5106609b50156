"""arith ops in MLIR's spelling: `arith.constant 0 : index`,
`arith.addi %a, %b : index`, `arith.addf %a, %b : f32`,
`arith.cmpf ogt, %a, %b : f32`, `arith.select %c, %a, %b : index`. Integer ops
take an optional `overflowFlags` attribute (`#arith.overflow<nsw, nuw>`), never
added unless asked for. Float ops take no `fastmath` flags (nothing tilec
builds uses them; text that writes them does not parse).

Semantics are upstream MLIR's: integers are two's complement and wrap;
maxnumf/minnumf return the non-NaN operand (either zero of a +0/-0 pair),
maximumf/minimumf propagate NaN and order -0 below +0 (IEEE 754-2019);
cmpf's `o*` predicates are false and `u*` true when an operand is NaN."""
from __future__ import annotations

from ...ir import attributes as A
from ...ir import registry
from ...ir.attributes import DialectAttr
from ...ir.opdef import AttrDef, Constraint, Op, Operand, Result
from ...ir.traits import ConstantLike, Pure, SameOperandsAndResultType, SameTypeOperands, all_types_match
from ...ir.types import FloatType, IndexType, IntegerType, RankedTensorType

SIGNLESS = Constraint("signless-integer-like", lambda t: isinstance(t, (IntegerType, IndexType)) or (
    isinstance(t, RankedTensorType) and isinstance(t.element_type, (IntegerType, IndexType))))
FLOAT = Constraint("floating-point-like", lambda t: isinstance(t, FloatType) or (
    isinstance(t, RankedTensorType) and isinstance(t.element_type, FloatType)))
SIGNLESS_OR_FLOAT = Constraint("signless-integer-like or floating-point-like",
                               lambda t: SIGNLESS(t) or FLOAT(t))
BOOL = Constraint("bool-like", lambda t: t == IntegerType(1) or (
    isinstance(t, RankedTensorType) and t.element_type == IntegerType(1)))

OVERFLOW_FLAGS = ("nsw", "nuw")


class IntegerOverflowFlagsAttr(DialectAttr):
    """`#arith.overflow<none>` / `<nsw>` / `<nuw>` / `<nsw, nuw>`."""
    __slots__ = ("flags",)
    dialect, mnemonic = "arith", "overflow"

    def __init__(self, flags=()):
        object.__setattr__(self, "flags", tuple(f for f in OVERFLOW_FLAGS if f in flags))

    def __eq__(self, other):
        return isinstance(other, IntegerOverflowFlagsAttr) and other.flags == self.flags

    def __hash__(self):
        return hash(("arith.overflow", self.flags))

    def body(self):
        return ", ".join(self.flags) if self.flags else "none"

    def text(self, short=False):  # no short spelling: always `#arith.overflow<...>`
        return super().text(False)

    @classmethod
    def parse_body(cls, r):
        if r is None:
            from ...syntax.reader import BodyError
            raise BodyError("expected '<' after 'overflow'")
        flags = []
        while True:
            w = r.keyword()
            if w not in OVERFLOW_FLAGS + ("none",):
                r.error(f"expected one of nsw, nuw, none, got '{w}'")
            if w != "none":
                flags.append(w)
            if not r.accept(","):
                break
        return cls(tuple(flags))


registry.register_attr(IntegerOverflowFlagsAttr)


def _typed_value_syntax():
    """`0 : index`, `dense<0.0> : tensor<4xf32>`: the value always with its type."""
    from ...syntax.format import AttrSyntax

    def render(a):
        if isinstance(a, A.IntegerAttr):
            return f"{a.value} : {a.type.text(True)}"
        return a.text(True)
    return AttrSyntax("attribute", lambda a: a, render)


class ConstantOp(Op):
    name = "arith.constant"
    traits = (Pure, ConstantLike)
    value = AttrDef(A.Attribute, syntax=_typed_value_syntax)
    result = Result()
    assembly_format = "$value attr-dict"

    @staticmethod
    def _type_of(v):
        return IntegerType(1) if isinstance(v, A.BoolAttr) else getattr(v, "type", None)

    def infer_result_types(self):
        t = self._type_of(self.attributes.get("value"))
        return None if t is None else [t]

    def verify_op(self):
        t = self._type_of(self.value)
        if t != self.result.type:
            self.emit_error("value type doesn't match result type" if t is not None else
                            "value must be a typed attribute")
            return False
        return True


class _BinaryOp(Op, register=False):
    traits = (Pure, SameOperandsAndResultType, all_types_match("lhs", "rhs", "result"))
    lhs = Operand(SIGNLESS)
    rhs = Operand(SIGNLESS)
    result = Result(SIGNLESS)
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($result)"


    def fold(self):
        """Integer constant folding and the identities x+0, x-0, x*1, x/1 (scalars only)."""
        from ...rewrite.arith_fold import fold_binary
        return fold_binary(self)


class _OverflowOp(_BinaryOp, register=False):
    overflowFlags = AttrDef(IntegerOverflowFlagsAttr, optional=True)


def _binary(cls_name, mnemonic, base):
    return type(cls_name, (base,), {"name": f"arith.{mnemonic}"})


AddIOp = _binary("AddIOp", "addi", _OverflowOp)
SubIOp = _binary("SubIOp", "subi", _OverflowOp)
MulIOp = _binary("MulIOp", "muli", _OverflowOp)
DivSIOp = _binary("DivSIOp", "divsi", _BinaryOp)
DivUIOp = _binary("DivUIOp", "divui", _BinaryOp)
RemSIOp = _binary("RemSIOp", "remsi", _BinaryOp)
RemUIOp = _binary("RemUIOp", "remui", _BinaryOp)
MaxSIOp = _binary("MaxSIOp", "maxsi", _BinaryOp)
MaxUIOp = _binary("MaxUIOp", "maxui", _BinaryOp)
MinSIOp = _binary("MinSIOp", "minsi", _BinaryOp)
MinUIOp = _binary("MinUIOp", "minui", _BinaryOp)
AndIOp = _binary("AndIOp", "andi", _BinaryOp)
OrIOp = _binary("OrIOp", "ori", _BinaryOp)
XOrIOp = _binary("XOrIOp", "xori", _BinaryOp)


# ---- floating point -----------------------------------------------------------------

class _FloatBinaryOp(Op, register=False):
    traits = (Pure, SameOperandsAndResultType)
    lhs = Operand(FLOAT)
    rhs = Operand(FLOAT)
    result = Result(FLOAT)
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($result)"


AddFOp = _binary("AddFOp", "addf", _FloatBinaryOp)
SubFOp = _binary("SubFOp", "subf", _FloatBinaryOp)
MulFOp = _binary("MulFOp", "mulf", _FloatBinaryOp)
DivFOp = _binary("DivFOp", "divf", _FloatBinaryOp)
MaximumFOp = _binary("MaximumFOp", "maximumf", _FloatBinaryOp)
MinimumFOp = _binary("MinimumFOp", "minimumf", _FloatBinaryOp)
MaxNumFOp = _binary("MaxNumFOp", "maxnumf", _FloatBinaryOp)
MinNumFOp = _binary("MinNumFOp", "minnumf", _FloatBinaryOp)


class NegFOp(Op):
    name = "arith.negf"
    traits = (Pure, SameOperandsAndResultType)
    operand = Operand(FLOAT)
    result = Result(FLOAT)
    assembly_format = "$operand attr-dict `:` type($result)"


# ---- comparisons ------------------------------------------------------------------------

CMPF_PREDICATES = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule",
                   "une", "uno", "true")
CMPI_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")


def _predicate_syntax(names):
    """The predicate keyword of the custom form; the attribute is its i64 case
    number (MLIR's I64EnumAttr: `{predicate = 2 : i64}` in the generic form)."""
    def make():
        from ...syntax.format import AttrSyntax, BuildError

        def convert(tok):
            word = str(tok)
            if word not in names:
                raise BuildError("expected string or keyword containing one of the following enum values for "
                                 f"attribute 'predicate' [{', '.join(names)}]", tok)
            return A.IntegerAttr(names.index(word), IntegerType(64))

        def render(a):
            return names[a.value]
        return AttrSyntax("BARE_ID", convert, render)
    return make


def _bool_like_of(t):
    """i1, or a tensor of i1 of `t`'s shape: a comparison's result type."""
    if isinstance(t, RankedTensorType):
        return RankedTensorType(tuple(t.shape), IntegerType(1), t.encoding)
    return IntegerType(1)


class _CmpOp(Op, register=False):
    """`arith.cmpX <predicate>, %lhs, %rhs : T` -> i1 (a tensor of i1 for tensors)."""
    traits = (Pure, SameTypeOperands)
    predicates: tuple = ()
    result = Result(BOOL)
    assembly_format = "$predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs)"

    def infer_result_types(self):
        return [_bool_like_of(self.operands[0].type)]

    def verify_op(self):
        p = self.predicate.value
        if not isinstance(p, int) or isinstance(p, bool) or not 0 <= p < len(self.predicates):
            cases = ", ".join(str(i) for i in range(len(self.predicates)))
            self.emit_error(f"attribute 'predicate' failed to satisfy constraint: allowed 64-bit signless "
                            f"integer cases: {cases}")
            return False
        if self.result.type != _bool_like_of(self.lhs.type):
            self.emit_error("failed to verify that result type has i1 element type and same shape as operands")
            return False
        return True

    def predicate_name(self) -> str:
        return self.predicates[self.predicate.value]


class CmpFOp(_CmpOp):
    name = "arith.cmpf"
    predicates = CMPF_PREDICATES
    predicate = AttrDef(A.IntegerAttr, syntax=_predicate_syntax(CMPF_PREDICATES))
    lhs = Operand(FLOAT)
    rhs = Operand(FLOAT)


class CmpIOp(_CmpOp):
    name = "arith.cmpi"
    predicates = CMPI_PREDICATES
    predicate = AttrDef(A.IntegerAttr, syntax=_predicate_syntax(CMPI_PREDICATES))
    lhs = Operand(SIGNLESS)
    rhs = Operand(SIGNLESS)


class SelectOp(Op):
    name = "arith.select"
    traits = (Pure, all_types_match("true_value", "false_value", "result"))
    condition = Operand(BOOL)
    true_value = Operand()
    false_value = Operand()
    result = Result()
    assembly_format = "$condition `,` $true_value `,` $false_value attr-dict `:` type($result)"

    def verify_op(self):
        c = self.condition.type
        if isinstance(c, RankedTensorType) and getattr(self.result.type, "shape", None) != c.shape:
            self.emit_error("expected condition type to have the same shape as the result type")
            return False
        return True
