"""arith ops in MLIR's spelling: `arith.constant 0 : index`,
`arith.addi %a, %b : index`, `arith.select %c, %a, %b : index`. Integer ops
take an optional `overflowFlags` attribute (`#arith.overflow<nsw, nuw>`), never
added unless asked for."""
from __future__ import annotations

from ...ir import attributes as A
from ...ir import registry
from ...ir.attributes import DialectAttr
from ...ir.opdef import AttrDef, Constraint, Op, Operand, Result
from ...ir.traits import ConstantLike, Pure, SameOperandsAndResultType, all_types_match
from ...ir.types import IndexType, IntegerType, RankedTensorType

SIGNLESS = Constraint("signless-integer-like", lambda t: isinstance(t, (IntegerType, IndexType)) or (
    isinstance(t, RankedTensorType) and isinstance(t.element_type, (IntegerType, IndexType))))
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
RemSIOp = _binary("RemSIOp", "remsi", _BinaryOp)
MaxSIOp = _binary("MaxSIOp", "maxsi", _BinaryOp)


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
