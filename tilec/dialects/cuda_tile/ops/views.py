"""View ops (spec 8.10): building tensor views and the tile views over them,
querying their shapes, and token-ordered tile loads and stores through a view."""
from __future__ import annotations

from ....ir.opdef import AttrDef, OptOperand, Operand, Result, VarOperand, VarResult
from ....ir.traits import NoMemoryEffect, Pure
from ....ir.types import DYNAMIC
from .. import directives_memory  # noqa: F401  (registers the custom<...> directives used below)
from ..attributes import MemoryOrderingSemanticsAttr, MemoryScopeAttr
from ..attributes_core import OptimizationHintsAttr
from ..hints import VIEW_MEMORY_KEYS
from ..types import (GATHER_SCATTER_VIEW_TYPE, INDEX_TILE, PARTITION_VIEW_TYPE, SCALAR_INT_TILE, SCALAR_POINTER_TILE,
                     STRIDED_VIEW_TYPE, TENSOR_VIEW_TYPE, TILE_TYPE, TILE_VIEW, TOKEN_TYPE, GatherScatterViewType,
                     TileType, view_index_rank, view_tile_type)
from .base import CudaTileOp
from .memory import LOAD_ORDERINGS, STORE_ORDERINGS, verify_hints, verify_memory_model


def _q(t) -> str:
    return f"'{t.text()}'"


def verify_view_indices(op, view_type, index_types) -> bool:
    """TileView::verifyIndices: scalar tiles of one type; a gather/scatter
    view takes a 1-D tile at its sparse dimension."""
    if not index_types:
        return True
    if isinstance(view_type, GatherScatterViewType):
        sparse = view_type.sparse_dim
        if sparse >= len(index_types):
            op.emit_error(f"gather/scatter dimension {sparse} is out of range for index count {len(index_types)}")
            return False
        gather = index_types[sparse]
        if not isinstance(gather, TileType):
            op.emit_error(f"expected index at sparse_dim position {sparse} to be a tile type for GatherScatterView")
            return False
        if len(gather.shape) != 1:
            op.emit_error(f"expected index at sparse_dim position {sparse} to be a 1D tensor for GatherScatterView, "
                          f"got rank {len(gather.shape)}")
            return False
        if gather.shape[0] != view_type.tile_shape[sparse]:
            op.emit_error(f"expected gather/scatter index size ({gather.shape[0]}) to match tile shape at "
                          f"gather/scatter dimension {sparse} ({view_type.tile_shape[sparse]})")
            return False
        base = None
        for i, t in enumerate(index_types):
            if i == sparse:
                continue
            if not isinstance(t, TileType) or t.shape:
                op.emit_error(f"expected index {i} to be a scalar tile for GatherScatterView")
                return False
            if base is None:
                base = t
            elif t != base:
                op.emit_error(f"expected scalar index {i} to have the same type as other scalar indices "
                              f"({_q(base)}), got {_q(t)}")
                return False
        return True
    for t in index_types:
        if not isinstance(t, TileType):
            op.emit_error(f"expected index type to be a tile type, got {_q(t)}")
            return False
        if t.shape:
            op.emit_error(f"expected index type to be a scalar tile, got {_q(t)}")
            return False
    base = index_types[0]
    for i, t in enumerate(index_types):
        if t != base:
            op.emit_error(f"expected index type {i} to be the same as other index types ({_q(base)}), "
                          f"got {_q(t)}")
            return False
    return True


def no_multicast_view(op) -> bool:
    """Plain view accesses cannot reach a multicast object (13.5): that takes the multimem ops."""
    if getattr(op.view.type.tensor_view, "ptr_attr", None) == "multicast":
        op.emit_error("multicast ptr_attr is not allowed")
        return False
    return True


def verify_view_load_store(op) -> bool:
    """verifyViewLoadStoreCommon: index count and tile type follow the view."""
    view = op.view.type
    index_types = [v.type for v in op.index]
    rank = view_index_rank(view)
    if len(index_types) != rank:
        op.emit_error(f"expected {rank} index operands (based on view type), got {len(index_types)}")
        return False
    expected = view_tile_type(view)
    if op.tile.type != expected:
        op.emit_error(f"expected tile type to be {_q(expected)} (based on view type), got {_q(op.tile.type)}")
        return False
    return verify_view_indices(op, view, index_types) and verify_hints(op, VIEW_MEMORY_KEYS)


_VIEW_TAIL = ("(`token` `=` $token^)? "
              "(`optimization_hints` `=` custom<MemoryOptimizationHints>($optimization_hints)^)? "
              "attr-dict-with-keyword")


class LoadViewTkoOp(CudaTileOp):
    name = "cuda_tile.load_view_tko"
    memory_ordering_semantics = AttrDef(MemoryOrderingSemanticsAttr)
    memory_scope = AttrDef(MemoryScopeAttr, optional=True)
    view = Operand(TILE_VIEW)
    index = VarOperand(INDEX_TILE)
    token = OptOperand(TOKEN_TYPE)
    optimization_hints = AttrDef(OptimizationHintsAttr, optional=True)
    tile = Result(TILE_TYPE)
    result_token = Result(TOKEN_TYPE)
    assembly_format = ("custom<ViewMemoryAttributes>($memory_ordering_semantics, $memory_scope) "
                       "$view `[` $index `]` " + _VIEW_TAIL + " `:` custom<CudaTileType>(type($view)) "
                       "custom<ViewIndexTypes>(type($index)) `->` custom<CudaTileType>(type($tile)) `,` "
                       "custom<CudaTileType>(type($result_token))")

    def verify_op(self):
        return (verify_view_load_store(self) and no_multicast_view(self)
                and verify_memory_model(self, "load", LOAD_ORDERINGS))


class StoreViewTkoOp(CudaTileOp):
    name = "cuda_tile.store_view_tko"
    memory_ordering_semantics = AttrDef(MemoryOrderingSemanticsAttr)
    memory_scope = AttrDef(MemoryScopeAttr, optional=True)
    tile = Operand(TILE_TYPE)
    view = Operand(TILE_VIEW)
    index = VarOperand(INDEX_TILE)
    token = OptOperand(TOKEN_TYPE)
    optimization_hints = AttrDef(OptimizationHintsAttr, optional=True)
    result_token = Result(TOKEN_TYPE)
    assembly_format = ("custom<ViewMemoryAttributes>($memory_ordering_semantics, $memory_scope) "
                       "$tile `,` $view `[` $index `]` " + _VIEW_TAIL + " `:` custom<CudaTileType>(type($tile)) `,` "
                       "custom<CudaTileType>(type($view)) custom<ViewIndexTypes>(type($index)) `->` "
                       "custom<CudaTileType>(type($result_token))")

    def verify_op(self):
        return (verify_view_load_store(self) and no_multicast_view(self)
                and verify_memory_model(self, "store", STORE_ORDERINGS))


def verify_ptr_attr_preserved(op, base, view) -> bool:
    """A tensor_view carries its base pointer's classification (13.4), no other."""
    def spell(kind):
        return f"#cuda_tile.ptr_attr<{kind}>"
    if base == view:
        return True
    if view is None:
        op.emit_error(f"tensor_view must preserve ptr_attr from base pointer ({spell(base)})")
    elif base is None:
        op.emit_error("pointer base without ptr_attr cannot produce tensor_view with ptr_attr")
    else:
        op.emit_error(f"ptr_attr mismatch between base pointer ({spell(base)}) and result tensor_view "
                      f"({spell(view)})")
    return False


class MakeTensorViewOp(CudaTileOp):
    name = "cuda_tile.make_tensor_view"
    traits = (NoMemoryEffect,)
    base = Operand(SCALAR_POINTER_TILE)
    dynamicShape = VarOperand(SCALAR_INT_TILE)
    dynamicStrides = VarOperand(SCALAR_INT_TILE)
    result = Result(TENSOR_VIEW_TYPE)
    assembly_format = "$base `,` custom<TensorViewShape>($dynamicShape, $dynamicStrides, type($result))"

    def asm_result_names(self):
        return ["tview"]

    def verify_op(self):
        tv = self.result.type
        pointee = self.base.type.element_type.pointee
        if tv.element_type != pointee:
            self.emit_error(f"expected pointer to {_q(tv.element_type)} to build tensor_view of this type, "
                            f"got {_q(pointee)}")
            return False
        if not verify_ptr_attr_preserved(self, self.base.type.element_type.ptr_attr, tv.ptr_attr):
            return False
        n_shape = sum(d is DYNAMIC for d in tv.shape)
        if n_shape != len(self.dynamicShape):
            self.emit_error(f"expected {n_shape} dynamic shape operands, got {len(self.dynamicShape)}")
            return False
        n_strides = sum(d is DYNAMIC for d in tv.strides)
        if n_strides != len(self.dynamicStrides):
            self.emit_error(f"expected {n_strides} dynamic stride operands, got {len(self.dynamicStrides)}")
            return False
        first = None
        for what, vals in (("shape", self.dynamicShape), ("stride", self.dynamicStrides)):
            for i, v in enumerate(vals):
                if first is None:
                    first = v.type
                elif v.type != first:
                    self.emit_error(f"expected dynamic {what} index {i} to be of the same type as the other dynamic "
                                    f"values ({_q(first)}), got {_q(v.type)}")
                    return False
        return True


class _MakeViewOp(CudaTileOp, register=False):
    traits = (Pure,)
    tensor_view = Operand(TENSOR_VIEW_TYPE)
    asm_name = ""

    def asm_result_names(self):
        return [self.asm_name]

    def verify_op(self):
        tv, view = self.tensor_view.type, self.result.type
        if tv != view.tensor_view:
            self.emit_error(f"expected the type of the provided tensor_view value ({_q(tv)}) to be the same as the "
                            f"view's tensor_view type ({_q(view.tensor_view)})")
            return False
        return True


class MakePartitionViewOp(_MakeViewOp):
    name = "cuda_tile.make_partition_view"
    result = Result(PARTITION_VIEW_TYPE)
    asm_name = "pview"
    assembly_format = "$tensor_view attr-dict custom<PartitionViewResult>(type($result), type($tensor_view))"


class MakeStridedViewOp(_MakeViewOp):
    name = "cuda_tile.make_strided_view"
    result = Result(STRIDED_VIEW_TYPE)
    asm_name = "sview"
    assembly_format = "$tensor_view attr-dict custom<StridedViewResult>(type($result), type($tensor_view))"


class MakeGatherScatterViewOp(_MakeViewOp):
    name = "cuda_tile.make_gather_scatter_view"
    result = Result(GATHER_SCATTER_VIEW_TYPE)
    asm_name = "gsview"
    assembly_format = "$tensor_view attr-dict custom<GatherScatterViewResult>(type($result), type($tensor_view))"


class GetTensorShapeOp(CudaTileOp):
    name = "cuda_tile.get_tensor_shape"
    traits = (NoMemoryEffect,)
    src = Operand(TENSOR_VIEW_TYPE)
    result = VarResult(SCALAR_INT_TILE)
    assembly_format = "$src custom<TensorShapeTypes>($src, type($result))"

    def verify_op(self):
        rank = len(self.src.type.shape)
        if len(self.results) != rank:
            self.emit_error(f"expected {rank} results due to tensor rank, but got {len(self.results)}")
            return False
        return True


class GetIndexSpaceShapeOp(CudaTileOp):
    name = "cuda_tile.get_index_space_shape"
    traits = (NoMemoryEffect,)
    src = Operand(TILE_VIEW)
    result = VarResult(SCALAR_INT_TILE)
    assembly_format = "$src custom<IndexSpaceShapeTypes>($src, type($result))"

    def verify_op(self):
        rank = view_index_rank(self.src.type)
        if len(self.results) != rank:
            self.emit_error(f"expected {rank} results due to view index space rank, but got {len(self.results)}")
            return False
        return True

