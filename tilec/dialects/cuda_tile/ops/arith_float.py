"""Floating-point arithmetic (spec 8.7): absf, addf, subf, mulf, divf, remf,
negf, maxf, minf, fma, cmpf. The math functions are in math.py."""
from __future__ import annotations

from ....ir.opdef import AttrDef, Operand, Result
from ....ir.traits import Elementwise, Pure, SameOperandsAndResultShape, all_types_match
from ..attributes import ComparisonOrderingAttr, ComparisonPredicateAttr, RoundingModeAttr
from ..types import I1_TILE
from ._elementwise import (BASE_FLOAT_TILE, IEEE_MODES, TYPE_ONLY, FloatBinaryOp, FloatUnaryOp, I1SameShape,
                           RoundingDefault, check_float_modifiers)
from .base import CudaTileOp


class _RoundedBinaryOp(RoundingDefault, FloatBinaryOp):
    """lhs, rhs, a rounding mode (IEEE modes, nearest_even unprinted) and flush_to_zero."""
    rounding_mode = AttrDef(RoundingModeAttr)
    flush_to_zero = AttrDef(unit=True)
    assembly_format = ("$lhs `,` $rhs custom<IEEERoundingMode>($rounding_mode) "
                       "(`flush_to_zero` $flush_to_zero^)? " + TYPE_ONLY)

    def verify_op(self):
        return check_float_modifiers(self, IEEE_MODES)


class AbsFOp(FloatUnaryOp):
    name = "cuda_tile.absf"
    traits = (Pure, Elementwise, SameOperandsAndResultShape, all_types_match("source", "result"))


class NegFOp(FloatUnaryOp):
    name = "cuda_tile.negf"


class AddFOp(_RoundedBinaryOp):
    name = "cuda_tile.addf"


class SubFOp(_RoundedBinaryOp):
    name = "cuda_tile.subf"


class MulFOp(_RoundedBinaryOp):
    name = "cuda_tile.mulf"


class DivFOp(_RoundedBinaryOp):
    name = "cuda_tile.divf"
    assembly_format = ("$lhs `,` $rhs custom<DivFOpRoundingMode>($rounding_mode) "
                       "(`flush_to_zero` $flush_to_zero^)? " + TYPE_ONLY)

    def verify_op(self):
        return check_float_modifiers(self, IEEE_MODES + ("approx", "full"), ("approx", "full"))


class RemFOp(FloatBinaryOp):
    name = "cuda_tile.remf"


class _MinMaxFOp(FloatBinaryOp):
    propagate_nan = AttrDef(unit=True)
    flush_to_zero = AttrDef(unit=True)
    assembly_format = "$lhs `,` $rhs custom<UnitFlags>($flush_to_zero, $propagate_nan) " + TYPE_ONLY

    def verify_op(self):
        return check_float_modifiers(self, ())


class MaxFOp(_MinMaxFOp):
    name = "cuda_tile.maxf"


class MinFOp(_MinMaxFOp):
    name = "cuda_tile.minf"


class FmaOp(_RoundedBinaryOp):
    name = "cuda_tile.fma"
    traits = (Pure, Elementwise, all_types_match("lhs", "rhs", "acc", "result"))
    acc = Operand(BASE_FLOAT_TILE)
    assembly_format = ("$lhs `,` $rhs `,` $acc custom<IEEERoundingMode>($rounding_mode) "
                       "(`flush_to_zero` $flush_to_zero^)? " + TYPE_ONLY)


class CmpFOp(CudaTileOp):
    name = "cuda_tile.cmpf"
    traits = (Pure, Elementwise, all_types_match("lhs", "rhs"), I1SameShape)
    comparison_predicate = AttrDef(ComparisonPredicateAttr)
    comparison_ordering = AttrDef(ComparisonOrderingAttr)
    lhs = Operand(BASE_FLOAT_TILE)
    rhs = Operand(BASE_FLOAT_TILE)
    result = Result(I1_TILE)
    assembly_format = ("custom<ComparisonPredicate>($comparison_predicate) "
                       "custom<ComparisonOrdering>($comparison_ordering) $lhs `,` $rhs attr-dict "
                       "`:` custom<CudaTileType>(type($lhs)) `->` custom<CudaTileType>(type($result))")
