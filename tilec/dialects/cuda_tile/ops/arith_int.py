"""Integer arithmetic (spec 8.8) and bitwise ops (spec 8.9): absi, addi, subi,
muli, mulhii, divi, remi, negi, maxi, mini, cmpi, andi, ori, xori, shli, shri."""
from __future__ import annotations

from ....ir.opdef import AttrDef, Operand, Result
from ....ir.traits import (Elementwise, NoMemoryEffect, Pure, SameOperandsAndResultShape, all_shapes_match,
                            all_types_match)
from ..attributes import ComparisonPredicateAttr, RoundingModeAttr, SignednessAttr
from ..types import I1_TILE, INT_TILE
from ._elementwise import (OVERFLOW_BINARY_FORMAT, TYPE_ONLY, I1SameShape, IntBinaryOp, IntUnaryOp,
                           overflow_attr)
from .base import CudaTileOp


class _OverflowBinaryOp(IntBinaryOp):
    overflow = overflow_attr()
    assembly_format = OVERFLOW_BINARY_FORMAT


class _SignedBinaryOp(IntBinaryOp):
    signedness = AttrDef(SignednessAttr)
    assembly_format = "$lhs `,` $rhs custom<Signedness>($signedness) " + TYPE_ONLY


class AbsIOp(IntUnaryOp):
    name = "cuda_tile.absi"
    traits = (Pure, Elementwise, SameOperandsAndResultShape, all_types_match("source", "result"))


class NegIOp(IntUnaryOp):
    name = "cuda_tile.negi"
    overflow = overflow_attr()
    assembly_format = "$source (`overflow` `` $overflow^)? " + TYPE_ONLY

    def verify_op(self):
        # NegIOp::verify: the op has signed semantics, so only NUW is rejected
        # (no_wrap, which also implies no signed wrap, is accepted)
        if self.overflow.value == "no_unsigned_wrap":
            self.emit_error("'no_unsigned_wrap' overflow flag is not supported")
            return False
        return True


class AddIOp(_OverflowBinaryOp):
    name = "cuda_tile.addi"


class SubIOp(_OverflowBinaryOp):
    name = "cuda_tile.subi"


class MulIOp(_OverflowBinaryOp):
    name = "cuda_tile.muli"


class ShLIOp(_OverflowBinaryOp):
    name = "cuda_tile.shli"


class MulhiIOp(CudaTileOp):
    name = "cuda_tile.mulhii"
    traits = (Pure, Elementwise, all_types_match("x", "y", "result"))
    x = Operand(INT_TILE)
    y = Operand(INT_TILE)
    result = Result(INT_TILE)
    assembly_format = "$x `,` $y " + TYPE_ONLY


class DivIOp(_SignedBinaryOp):
    name = "cuda_tile.divi"
    traits = (NoMemoryEffect, Elementwise, all_types_match("lhs", "rhs", "result"))
    rounding = AttrDef(RoundingModeAttr, default=RoundingModeAttr("zero"))
    assembly_format = ("$lhs `,` $rhs custom<Signedness>($signedness) (`rounding` `` $rounding^)? "
                       + TYPE_ONLY)

    MODES = ("zero", "negative_inf", "positive_inf")

    def verify_op(self):
        mode = self.rounding.value
        if mode not in self.MODES:
            self.emit_error(f"invalid rounding mode specified, expect one of [{', '.join(self.MODES)}]")
            return False
        if mode == "negative_inf" and self.signedness.value == "unsigned":
            self.emit_error(f"rounding mode '{mode}' is not allowed with 'unsigned' flag")
            return False
        return True


class RemIOp(_SignedBinaryOp):
    name = "cuda_tile.remi"
    traits = (Pure, Elementwise, all_types_match("result", "lhs", "rhs"), all_shapes_match("result", "lhs", "rhs"))


class MaxIOp(_SignedBinaryOp):
    name = "cuda_tile.maxi"


class MinIOp(_SignedBinaryOp):
    name = "cuda_tile.mini"


class ShRIOp(_SignedBinaryOp):
    name = "cuda_tile.shri"


class AndIOp(IntBinaryOp):
    name = "cuda_tile.andi"


class OrIOp(IntBinaryOp):
    name = "cuda_tile.ori"


class XOrIOp(IntBinaryOp):
    name = "cuda_tile.xori"


class CmpIOp(CudaTileOp):
    name = "cuda_tile.cmpi"
    traits = (Pure, Elementwise, all_types_match("lhs", "rhs"), I1SameShape)
    comparison_predicate = AttrDef(ComparisonPredicateAttr)
    lhs = Operand(INT_TILE)
    rhs = Operand(INT_TILE)
    signedness = AttrDef(SignednessAttr)
    result = Result(I1_TILE)
    assembly_format = ("custom<ComparisonPredicate>($comparison_predicate) $lhs `,` $rhs `,` "
                       "custom<Signedness>($signedness) attr-dict "
                       "`:` custom<CudaTileType>(type($lhs)) `->` custom<CudaTileType>(type($result))")
