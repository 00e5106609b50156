"""Floating-point arithmetic (spec 8.7)."""
from __future__ import annotations

from ....ir.opdef import AttrDef, Operand, Result
from ....ir.traits import Pure, SameOperandsAndResultType
from ..attributes import RoundingModeAttr
from ..types import FLOAT_TILE
from .base import CudaTileOp


class AddFOp(CudaTileOp):
    name = "cuda_tile.addf"
    traits = (Pure, SameOperandsAndResultType)
    lhs = Operand(FLOAT_TILE)
    rhs = Operand(FLOAT_TILE)
    rounding_mode = AttrDef(RoundingModeAttr, default=RoundingModeAttr("nearest_even"))
    flush_to_zero = AttrDef(unit=True)
    result = Result(FLOAT_TILE)
    assembly_format = ("$lhs `,` $rhs custom<IEEERoundingMode>($rounding_mode) "
                       "(`flush_to_zero` $flush_to_zero^)? attr-dict `:` custom<CudaTileType>(type($result))")
