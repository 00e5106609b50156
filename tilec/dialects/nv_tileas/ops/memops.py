"""Tiled memory ops: token-ordered loads, stores and atomics through tiled
views, copies between residencies, plain and gather/scatter accesses, and their
async forms."""
from __future__ import annotations

from ....ir import attributes as A
from ....ir.opdef import AttrDef, OptOperand, OptResult, Operand, Result, VarOperand
from ..attributes import AtomAttr, MemoryScopeAttr, MemorySemanticAttr, PaddingAttr, RmwModeAttr
from ..traits import (MemoryConsistencyOpInterface, MemoryModelReadTrait, MemoryModelReadWriteTrait,
                      MemoryModelWriteTrait, MustHaveMemLayoutAmongOperandsAndResult,
                      SameLoadStoreOperandsAndResultEncoding, SameLoadStoreOperandsAndResultShape,
                      SameLoadStoreOperandsEncoding, SameLoadStoreOperandsShape, TensorSizeTrait,
                      TiledLoadStoreOpSameElementTypeTrait, TiledLoadStoreOpTrait, TiledPaddingValueTrait,
                      ValidTileASLoadOperandsAndResultEncoding)
from ..types import ANY_TOKEN, ASYNC_TOKEN, ASYNC_VALUE, SHAPED, TILED_VIEW, payload
from ..verifiers import verify_atomic_rmw, verify_copy_pair, verify_memory_semantics, verify_view_provenance
from .base import NvTileasOp, TiledMemOp

PADDING = (A.FloatAttr, A.IntegerAttr, PaddingAttr)
TILE_OR_ASYNC = SHAPED | ASYNC_VALUE

LOAD_TRAITS = (TiledLoadStoreOpTrait, TiledLoadStoreOpSameElementTypeTrait, SameLoadStoreOperandsAndResultShape,
               SameLoadStoreOperandsAndResultEncoding, ValidTileASLoadOperandsAndResultEncoding, TensorSizeTrait,
               TiledPaddingValueTrait, MemoryModelReadTrait)
STORE_TRAITS = (TiledLoadStoreOpTrait, TiledLoadStoreOpSameElementTypeTrait, SameLoadStoreOperandsShape,
                SameLoadStoreOperandsEncoding, TensorSizeTrait, TiledPaddingValueTrait, MemoryModelWriteTrait)
RMW_TRAITS = (TiledLoadStoreOpTrait, TiledLoadStoreOpSameElementTypeTrait, SameLoadStoreOperandsShape,
              SameLoadStoreOperandsEncoding, TensorSizeTrait, MemoryModelReadWriteTrait)


class _Semantics:
    mem_semantic = AttrDef(MemorySemanticAttr, optional=True)
    mem_scope = AttrDef(MemoryScopeAttr, optional=True)


class TiledLoadOp(TiledMemOp, _Semantics):
    """{view, coords, offsets, token} -> tile [, token]."""
    name = "nv_tileas.tiled_load"
    traits = LOAD_TRAITS
    tile_from = "result"
    view = Operand(TILED_VIEW)
    coords = VarOperand()
    offsets = VarOperand()
    token = VarOperand(ANY_TOKEN)
    atom = AttrDef(AtomAttr)
    in_bounds = AttrDef(A.DenseArrayAttr, optional=True)
    padding_value = AttrDef(PADDING, optional=True)
    result = Result(SHAPED)
    result_token = OptResult(ANY_TOKEN)
    kind = "tiled_load"
    rejected = ("acquire_release",)

    def verify_op(self):
        return verify_view_provenance(self, self.kind) and verify_memory_semantics(self, self.kind, self.rejected)


class AsyncTiledLoadOp(TiledLoadOp):
    """The async form: the tile arrives as an async value."""
    name = "nv_tileas.async.tiled_load"
    traits = LOAD_TRAITS + (MemoryConsistencyOpInterface,)
    result = Result(ASYNC_VALUE)
    kind = "async_tiled_load"


class TiledStoreOp(TiledMemOp, _Semantics):
    """{view, value, coords, offsets, token} -> [token]."""
    name = "nv_tileas.tiled_store"
    traits = STORE_TRAITS
    tile_from = "value"
    view = Operand(TILED_VIEW)
    value = Operand(SHAPED)
    coords = VarOperand()
    offsets = VarOperand()
    token = VarOperand(ANY_TOKEN)
    atom = AttrDef(AtomAttr)
    in_bounds = AttrDef(A.DenseArrayAttr, optional=True)
    padding_value = AttrDef(PADDING, optional=True)
    result_token = OptResult(ANY_TOKEN)

    def verify_op(self):
        return verify_view_provenance(self, "tiled_store") and verify_memory_semantics(
            self, "tiled_store", ("acquire", "acquire_release"))


class TiledAtomicRmwOp(TiledMemOp, _Semantics):
    """{view, value, coords, token} -> old tile [, token]."""
    name = "nv_tileas.tiled_atomic_rmw"
    traits = RMW_TRAITS
    tile_from = "value"
    view = Operand(TILED_VIEW)
    value = Operand(SHAPED)
    coords = VarOperand()
    token = VarOperand(ANY_TOKEN)
    atom = AttrDef(AtomAttr)
    rmw_mode = AttrDef(RmwModeAttr)
    result = Result(SHAPED)
    result_token = OptResult(ANY_TOKEN)
    kind = "tiled_atomic_rmw"

    def verify_op(self):
        if payload(self.result.type) != self.value.type:
            self.emit_error("expects the old-value result to have the operand tile's type")
            return False
        return verify_atomic_rmw(self, self.kind) and verify_memory_semantics(self, self.kind, ())


class AsyncTiledAtomicRmwOp(TiledAtomicRmwOp):
    """The async form; with a TMA atom it is a TMA reduction."""
    name = "nv_tileas.async.tiled_atomic_rmw"
    traits = RMW_TRAITS + (MemoryConsistencyOpInterface,)
    result = Result(ASYNC_VALUE)
    kind = "async_tiled_atomic_rmw"

    def verify_op(self):
        atom = self.atom
        if atom.is_tma() and not atom.is_tma_reduce():
            self.emit_error("expected a TMA reduce atom")
            return False
        return TiledAtomicRmwOp.verify_op(self)


class CopyOp(NvTileasOp):
    """A synchronous copy between two views of (possibly) different residency."""
    name = "nv_tileas.copy"
    traits = (MustHaveMemLayoutAmongOperandsAndResult, MemoryModelReadWriteTrait, MemoryConsistencyOpInterface)
    source = Operand(TILED_VIEW)
    dest = Operand(TILED_VIEW)
    token = OptOperand(ANY_TOKEN)
    atom = AttrDef(AtomAttr)
    result_token = OptResult(ANY_TOKEN)

    def verify_op(self):
        if self.source.type.shape != self.dest.type.shape or \
                self.source.type.element_type != self.dest.type.element_type:
            self.emit_error("expects source and destination views of the same shape and element type")
            return False
        return verify_copy_pair(self, self.source, self.dest)


class AsyncCopyOp(CopyOp):
    name = "nv_tileas.async.copy"
    result_token = Result(ASYNC_TOKEN)


class _PlainLoad(NvTileasOp):
    view = Operand(TILED_VIEW)
    token = OptOperand(ANY_TOKEN)
    atom = AttrDef(AtomAttr, optional=True)
    padding_value = AttrDef(PADDING, optional=True)

    def verify_op(self):
        t = payload(self.result.type)
        v = self.view.type
        if getattr(t, "shape", None) != v.shape or getattr(t, "element_type", None) != v.element_type:
            self.emit_error("expects the loaded tile to have the view's shape and element type")
            return False
        return True


class LoadOp(_PlainLoad):
    """Loads the whole view as a tile."""
    name = "nv_tileas.load"
    traits = (MemoryModelReadTrait,)
    result = Result(SHAPED)
    result_token = OptResult(ANY_TOKEN)


class AsyncLoadOp(_PlainLoad):
    name = "nv_tileas.async.load"
    traits = (MemoryModelReadTrait, MemoryConsistencyOpInterface)
    result = Result(ASYNC_VALUE)


class _PlainStore(NvTileasOp):
    view = Operand(TILED_VIEW)
    value = Operand(SHAPED)
    token = OptOperand(ANY_TOKEN)
    atom = AttrDef(AtomAttr, optional=True)

    def verify_op(self):
        t, v = self.value.type, self.view.type
        if t.shape != v.shape or t.element_type != v.element_type:
            self.emit_error("expects the stored tile to have the view's shape and element type")
            return False
        return True


class StoreOp(_PlainStore):
    name = "nv_tileas.store"
    traits = (MemoryModelWriteTrait,)
    result_token = OptResult(ANY_TOKEN)


class AsyncStoreOp(_PlainStore):
    name = "nv_tileas.async.store"
    traits = (MemoryModelWriteTrait, MemoryConsistencyOpInterface)
    result_token = Result(ASYNC_TOKEN)


class GatherLoadOp(NvTileasOp):
    """Loads the elements a tile of offsets selects, under an optional mask."""
    name = "nv_tileas.gather_load"
    traits = (MemoryModelReadTrait,)
    view = Operand(TILED_VIEW)
    indices = Operand(SHAPED)
    mask = OptOperand(SHAPED)
    token = OptOperand(ANY_TOKEN)
    atom = AttrDef(AtomAttr, optional=True)
    padding_value = AttrDef(PADDING, optional=True)
    result = Result(SHAPED)
    result_token = OptResult(ANY_TOKEN)

    def verify_op(self):
        if self.result.type.shape != self.indices.type.shape or (
                self.mask is not None and self.mask.type.shape != self.indices.type.shape):
            self.emit_error("expects indices, mask and result of the same shape")
            return False
        if self.result.type.element_type != self.view.type.element_type:
            self.emit_error("tile element type must match view element type")
            return False
        return True


class ScatterStoreOp(NvTileasOp):
    name = "nv_tileas.scatter_store"
    traits = (MemoryModelWriteTrait,)
    view = Operand(TILED_VIEW)
    indices = Operand(SHAPED)
    value = Operand(SHAPED)
    mask = OptOperand(SHAPED)
    token = OptOperand(ANY_TOKEN)
    atom = AttrDef(AtomAttr, optional=True)
    result_token = OptResult(ANY_TOKEN)

    def verify_op(self):
        if self.value.type.shape != self.indices.type.shape or (
                self.mask is not None and self.mask.type.shape != self.indices.type.shape):
            self.emit_error("expects indices, mask and value of the same shape")
            return False
        if self.value.type.element_type != self.view.type.element_type:
            self.emit_error("tile element type must match view element type")
            return False
        return True
