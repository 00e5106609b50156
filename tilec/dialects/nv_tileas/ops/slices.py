"""Tensor slices: local tile storage and slice extraction/insertion with
MLIR's mixed static/dynamic offsets, sizes and strides."""
from __future__ import annotations

from ....ir import attributes as A
from ....ir.opdef import AttrDef, Operand, Result, VarOperand
from ....ir.traits import Pure
from ..directives import DYNAMIC_INDEX
from ..types import ASYNC_VALUE, SHAPED, TILED_VIEW, payload
from .base import NvTileasOp

_LISTS = ("offsets", "sizes", "strides")


class _SliceOp(NvTileasOp):
    """Subclasses declare their tensor operands, then `offsets`, `sizes` and
    `strides` (VarOperand each; declaration order is operand order)."""
    static_offsets = AttrDef(A.DenseArrayAttr)
    static_sizes = AttrDef(A.DenseArrayAttr)
    static_strides = AttrDef(A.DenseArrayAttr)
    _POS = ("custom<DynamicIndexList>($offsets, $static_offsets) custom<DynamicIndexList>($sizes, $static_sizes) "
            "custom<DynamicIndexList>($strides, $static_strides)")

    def big_type(self):
        raise NotImplementedError

    def small_type(self):
        raise NotImplementedError

    def verify_op(self):
        big, small = payload(self.big_type()), payload(self.small_type())
        rank = len(big.shape)
        for n in _LISTS:
            static = self.attributes[f"static_{n}"].values
            dyn = getattr(self, n)
            if len(static) != rank:
                self.emit_error(f"expected {rank} {n} values, but got {len(static)}")
                return False
            if sum(v == DYNAMIC_INDEX for v in static) != len(dyn):
                self.emit_error(f"expects one dynamic {n} operand per dynamic entry")
                return False
        if len(small.shape) != rank:
            self.emit_error(f"expects the slice to have rank {rank}, but got {len(small.shape)}")
            return False
        for d, s in zip(small.shape, self.attributes["static_sizes"].values):
            if s != DYNAMIC_INDEX and d is not None and d != s:
                self.emit_error(f"expects the slice shape to agree with the static sizes, but got "
                                f"{small.text()}")
                return False
        if small.element_type != big.element_type:
            self.emit_error("expects the slice and the tensor to have the same element type")
            return False
        return True


class AllocTensorOp(NvTileasOp):
    """Local tile storage (a pure tile constructor)."""
    name = "nv_tileas.alloc_tensor"
    traits = (Pure,)
    result = Result(SHAPED)
    assembly_format = "attr-dict `:` custom<NvTypes>(type($result))"


class ExtractSliceOp(_SliceOp):
    """A slice of a tile, tensor or tiled_view (slicing a view is what makes
    extract_slice(view(x)) -> view(extract_slice(x)) expressible)."""
    name = "nv_tileas.extract_slice"
    traits = (Pure,)
    source = Operand(SHAPED | TILED_VIEW)
    offsets = VarOperand()
    sizes = VarOperand()
    strides = VarOperand()
    result = Result(SHAPED | TILED_VIEW)
    assembly_format = ("$source " + _SliceOp._POS + " attr-dict `:` custom<NvTypes>(type($source)) `to` "
                       "custom<NvTypes>(type($result))")

    def big_type(self):
        return self.source.type

    def small_type(self):
        return self.result.type


class InsertSliceOp(_SliceOp):
    name = "nv_tileas.insert_slice"
    traits = (Pure,)
    source = Operand(SHAPED)
    dest = Operand(SHAPED)
    offsets = VarOperand()
    sizes = VarOperand()
    strides = VarOperand()
    result = Result(SHAPED)
    assembly_format = ("$source `into` $dest " + _SliceOp._POS + " attr-dict `:` custom<NvTypes>(type($source)) "
                       "`into` custom<NvTypes>(type($dest))")

    def big_type(self):
        return self.dest.type

    def small_type(self):
        return self.source.type

    def verify_op(self):
        if self.result.type != self.dest.type:
            self.emit_error("expects the result type to be the destination type")
            return False
        return _SliceOp.verify_op(self)

    def infer_result_types(self):
        return [self.dest.type]


class AsyncExtractSliceOp(ExtractSliceOp):
    """Extracts from a tile that may still be in flight; the slice arrives as an async value."""
    name = "nv_tileas.async.extract_slice"
    traits = ()
    source = Operand(SHAPED | ASYNC_VALUE)
    result = Result(ASYNC_VALUE)


class AsyncInsertSliceOp(InsertSliceOp):
    name = "nv_tileas.async.insert_slice"
    traits = ()
    source = Operand(SHAPED | ASYNC_VALUE)
    dest = Operand(SHAPED | ASYNC_VALUE)
    result = Result(ASYNC_VALUE)

    def infer_result_types(self):
        from ..types import AsyncValueType
        return [AsyncValueType(payload(self.dest.type))]

    def verify_op(self):
        if payload(self.result.type) != payload(self.dest.type):
            self.emit_error("expects the result type to be the destination type")
            return False
        return _SliceOp.verify_op(self)
