"""Conversions (spec 8.4): bitcast, exti, trunci, ftof, ftoi, itof, int_to_ptr,
ptr_to_int, ptr_to_ptr."""
from __future__ import annotations

from ....ir.opdef import AttrDef, Operand, Result
from ....ir.traits import Elementwise, Pure, all_shapes_match
from ....ir.types import FloatType
from ..attributes import RoundingModeAttr, SignednessAttr
from ..types import INT_TILE
from ._elementwise import (CAST_FORMAT, FLOAT_TILE, I64_TILE, INT_OR_I4_TILE, NUMBER_TILE, POINTER_TILE,
                           RoundingDefault, element_type, overflow_attr)
from .base import CudaTileOp

F8E8M0 = FloatType("f8E8M0FNU")
FNV8 = FloatType("fnv8E5M3FNU")


def _cast_format(middle=""):
    """`$from <middle> attr-dict : type($from) -> type($to)` (the field is `from_`)."""
    return (f"$from_ {middle} attr-dict `:` custom<CudaTileType>(type($from_)) `->` "
            "custom<CudaTileType>(type($to))")


class _ConvertOp(CudaTileOp):
    """from -> to, same shape, different element type."""
    traits = (Pure, Elementwise, all_shapes_match("from_", "to"))


def _rounding_only(op, allowed, what=""):
    mode = op.rounding_mode.value
    if mode not in allowed:
        listed = " and ".join(f"'{m}'" for m in allowed)
        op.emit_error(f"invalid rounding mode specified{what}. Only {listed} "
                      f"{'is' if len(allowed) == 1 else 'are'} supported")
        return False
    return True


class BitcastOp(CudaTileOp):
    name = "cuda_tile.bitcast"
    traits = (Pure, Elementwise, all_shapes_match("source", "result"))
    source = Operand(NUMBER_TILE)
    result = Result(NUMBER_TILE)
    assembly_format = CAST_FORMAT

    def verify_op(self):
        if element_type(self.source).width != element_type(self.result).width:
            self.emit_error("types must be equal width")
            return False
        return True


class ExtIOp(_ConvertOp):
    name = "cuda_tile.exti"
    from_ = Operand(INT_OR_I4_TILE)
    signedness = AttrDef(SignednessAttr)
    to = Result(INT_OR_I4_TILE)
    assembly_format = _cast_format("custom<Signedness>($signedness)")

    def verify_op(self):
        if element_type(self.to).width <= element_type(self.from_).width:
            self.emit_error("extending to smaller or identical integer")
            return False
        return True


class TruncIOp(_ConvertOp):
    name = "cuda_tile.trunci"
    from_ = Operand(INT_OR_I4_TILE)
    overflow = overflow_attr()
    to = Result(INT_OR_I4_TILE)
    assembly_format = _cast_format("(`overflow` `` $overflow^)?")

    def verify_op(self):
        if element_type(self.to).width >= element_type(self.from_).width:
            self.emit_error("truncating to larger or identical integer")
            return False
        return True


class FToFOp(_ConvertOp):
    name = "cuda_tile.ftof"
    from_ = Operand(FLOAT_TILE)
    rounding_mode = AttrDef(RoundingModeAttr, default=RoundingModeAttr("nearest_even"))
    to = Result(FLOAT_TILE)
    assembly_format = _cast_format("custom<IEEERoundingMode>($rounding_mode)")

    def verify_op(self):
        if self.from_.type == self.to.type:
            self.emit_error("converting tiles must not be a no-op")
            return False
        if element_type(self.to) == F8E8M0:
            return _rounding_only(self, ("zero", "positive_inf"), " for conversion to f8E8M0FNU")
        if element_type(self.to) == FNV8:  # a 13.4 type: NVIDIA's 13.5 wording
            return _rounding_only(self, ("nearest_even",), " for conversion to low-precision type")
        return _rounding_only(self, ("nearest_even",))


class FToIOp(RoundingDefault, _ConvertOp):
    default_rounding = "nearest_int_to_zero"
    name = "cuda_tile.ftoi"
    from_ = Operand(FLOAT_TILE)
    signedness = AttrDef(SignednessAttr)
    rounding_mode = AttrDef(RoundingModeAttr)
    to = Result(INT_TILE)
    assembly_format = _cast_format("custom<Signedness>($signedness) custom<IntegerRoundingMode>($rounding_mode)")

    def verify_op(self):
        return _rounding_only(self, ("nearest_int_to_zero",))


class IToFOp(RoundingDefault, _ConvertOp):
    name = "cuda_tile.itof"
    from_ = Operand(INT_TILE)
    signedness = AttrDef(SignednessAttr)
    rounding_mode = AttrDef(RoundingModeAttr)
    to = Result(FLOAT_TILE)
    assembly_format = _cast_format("custom<Signedness>($signedness) custom<IEEERoundingMode>($rounding_mode)")

    def verify_op(self):
        if element_type(self.to) == F8E8M0:
            self.emit_error("integer to f8E8M0FNU conversion is not supported, please first convert to "
                            "another float type")
            return False
        return _rounding_only(self, ("nearest_even",))


class IntToPtrOp(CudaTileOp):
    name = "cuda_tile.int_to_ptr"
    traits = (Pure, Elementwise, all_shapes_match("source", "result"))
    source = Operand(I64_TILE)
    result = Result(POINTER_TILE)
    assembly_format = CAST_FORMAT


class PtrToIntOp(CudaTileOp):
    name = "cuda_tile.ptr_to_int"
    traits = (Pure, Elementwise, all_shapes_match("source", "result"))
    source = Operand(POINTER_TILE)
    result = Result(I64_TILE)
    assembly_format = CAST_FORMAT


class PtrToPtrOp(CudaTileOp):
    name = "cuda_tile.ptr_to_ptr"
    traits = (Pure, Elementwise, all_shapes_match("source", "result"))
    source = Operand(POINTER_TILE)
    result = Result(POINTER_TILE)
    assembly_format = CAST_FORMAT
