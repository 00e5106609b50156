"""Floating-point math functions (spec 8.7): ceil, floor, exp, exp2, log, log2,
sqrt, rsqrt, pow, fpowi, sin, sinh, cos, cosh, tan, tanh, atan2."""
from __future__ import annotations

from ....ir.opdef import AttrDef, Operand, Result
from ....ir.traits import Elementwise, Pure, all_ranks_match, all_shapes_match, all_types_match
from ..attributes import RoundingModeAttr
from ._elementwise import (BASE_FLOAT_TILE, IEEE_MODES, TYPE_ONLY, FloatUnaryOp, RoundingDefault,
                           check_float_modifiers, tile_of_types)
from .base import CudaTileOp


class CeilOp(FloatUnaryOp):
    name = "cuda_tile.ceil"


class FloorOp(FloatUnaryOp):
    name = "cuda_tile.floor"


class LogOp(FloatUnaryOp):
    name = "cuda_tile.log"


class Log2Op(FloatUnaryOp):
    name = "cuda_tile.log2"


class SinOp(FloatUnaryOp):
    name = "cuda_tile.sin"


class SinHOp(FloatUnaryOp):
    name = "cuda_tile.sinh"


class CosOp(FloatUnaryOp):
    name = "cuda_tile.cos"


class CosHOp(FloatUnaryOp):
    name = "cuda_tile.cosh"


class TanOp(FloatUnaryOp):
    name = "cuda_tile.tan"


class _FlushToZeroUnaryOp(FloatUnaryOp):
    flush_to_zero = AttrDef(unit=True)
    assembly_format = "$source (`flush_to_zero` $flush_to_zero^)? " + TYPE_ONLY

    def verify_op(self):
        return check_float_modifiers(self, ())


class Exp2Op(_FlushToZeroUnaryOp):
    name = "cuda_tile.exp2"


class RsqrtOp(_FlushToZeroUnaryOp):
    name = "cuda_tile.rsqrt"


class SqrtOp(RoundingDefault, _FlushToZeroUnaryOp):
    name = "cuda_tile.sqrt"
    rounding_mode = AttrDef(RoundingModeAttr)
    assembly_format = ("$source custom<SqrtOpRoundingMode>($rounding_mode) (`flush_to_zero` $flush_to_zero^)? "
                       + TYPE_ONLY)

    def verify_op(self):
        return check_float_modifiers(self, IEEE_MODES + ("approx",), ("approx",))


class _ApproxOrFullOp(FloatUnaryOp):
    """`rounding<approx>` (f32 only) or the default `full`, left unprinted."""
    rounding_mode = AttrDef(RoundingModeAttr, default=RoundingModeAttr("full"))

    def verify_op(self):
        return check_float_modifiers(self, ("approx", "full"), ("approx",))


class ExpOp(_ApproxOrFullOp):
    name = "cuda_tile.exp"
    assembly_format = "$source custom<ExpOpRoundingMode>($rounding_mode) " + TYPE_ONLY


class TanHOp(_ApproxOrFullOp):
    name = "cuda_tile.tanh"
    assembly_format = "$source custom<TanHOpRoundingMode>($rounding_mode) " + TYPE_ONLY


class PowOp(CudaTileOp):
    """One op, one name: `pow`, as cuda-tile-opt prints it and NVIDIA's current
    bytecode reader names opcode 0x54. The specification's `powf` and the 13.x
    tileirdisasm spelling `fpowf` still parse, as pow."""
    name = "cuda_tile.pow"
    aliases = ("cuda_tile.powf", "cuda_tile.fpowf")
    traits = (Pure, Elementwise, all_types_match("result", "source", "exponent"), all_ranks_match("source", "exponent", "result"))
    source = Operand(BASE_FLOAT_TILE)
    exponent = Operand(BASE_FLOAT_TILE)
    result = Result(BASE_FLOAT_TILE)
    assembly_format = "$source `,` $exponent " + TYPE_ONLY


class FpowiOp(CudaTileOp):
    """x ** n with a signed integer exponent tile of the same shape (13.4)."""
    name = "cuda_tile.fpowi"
    traits = (Pure, Elementwise, all_types_match("result", "source"), all_shapes_match("source", "exponent"))
    source = Operand(BASE_FLOAT_TILE)
    exponent = Operand(tile_of_types("i1", "i8", "i16", "i32"))
    result = Result(BASE_FLOAT_TILE)
    assembly_format = ("$source `,` $exponent attr-dict `:` custom<CudaTileType>(type($source)) `,` "
                       "custom<CudaTileType>(type($exponent))")


class Atan2Op(CudaTileOp):
    name = "cuda_tile.atan2"
    traits = (Pure, Elementwise, all_types_match("x", "y", "result"))
    x = Operand(BASE_FLOAT_TILE)
    y = Operand(BASE_FLOAT_TILE)
    result = Result(BASE_FLOAT_TILE)
    assembly_format = "$x `,` $y " + TYPE_ONLY
