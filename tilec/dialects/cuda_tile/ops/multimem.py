"""Multimem view ops of bytecode 13.5: a load that reduces over every member
of a multicast object, a reduction into every member, and a store to every
member, each of one tile of a partition view whose tensor_view is built on a
`#cuda_tile.ptr_attr<multicast>` pointer.

The verifier rules and their wording are NVIDIA's (tileirdisasm 13.5 checks
them on every file it reads)."""
from __future__ import annotations

from ....ir import attributes as A
from ....ir.opdef import AttrDef, OptOperand, Operand, Result, VarOperand
from ....ir.types import FloatType, IntegerType
from .. import directives_memory  # noqa: F401  (registers the custom<...> directives used below)
from ..attributes import MemoryOrderingSemanticsAttr, MemoryScopeAttr, MultimemReductionKindAttr
from ..types import INDEX_TILE, TILE_TYPE, TILE_VIEW, TOKEN_TYPE, PartitionViewType
from .base import CudaTileOp
from .memory import LOAD_ORDERINGS, STORE_ORDERINGS, verify_memory_model
from .views import verify_view_load_store


def _q(t) -> str:
    return f"'{t.text()}'"


def _reduction():
    return AttrDef(MultimemReductionKindAttr, default=MultimemReductionKindAttr("add"))


def _inbounds():
    return AttrDef(A.DenseArrayAttr)


_ORDERING = "custom<ViewMemoryAttributes>($memory_ordering_semantics, $memory_scope)"
_TAIL = "(`token` `=` $token^)? custom<ViewInbounds>($inbounds) attr-dict-with-keyword `:` "
_INDEX_TYPES = "custom<ViewIndexAndTokenTypes>(type($index), type($token))"
_BASE_FLOATS = ("f16", "bf16", "f32", "f64")


def verify_multimem_view(op, tile_type) -> bool:
    """The checks the three ops share, in NVIDIA's order: indices and tile
    type, the element type, the multicast pointer, the view kind."""
    if not verify_view_load_store(op):
        return False
    view = op.view.type
    elt = view.tensor_view.element_type
    if isinstance(elt, IntegerType):
        if elt.width not in (32, 64):
            op.emit_error(f"multimem requires 32- or 64-bit integer/index element types; got {elt.width} bits")
            return False
    elif isinstance(elt, FloatType):
        if elt.name not in _BASE_FLOATS:
            op.emit_error("multimem supports only f16, bf16, f32, and f64 floating-point element types")
            return False
        if elt.width == 16:
            n = 1
            for d in tile_type.shape:
                n *= d
            if n * 16 % 32:
                op.emit_error(f"multimem op requires tile total size to be a multiple of 4 bytes for float element "
                              f"types; got {n} element(s) of 16 bits (total {n * 16} bits)")
                return False
            unit = sum(1 for s in view.tensor_view.strides if s == 1)
            if unit != 1:
                op.emit_error(f"f16/bf16 multimem views must have exactly one element stride statically known to "
                              f"equal 1; got {unit}")
                return False
    else:
        op.emit_error("multimem expects integer, index, or standard floating-point tensor elements")
        return False
    kind = view.tensor_view.ptr_attr
    if kind != "multicast":
        op.emit_error(f"expected a multicast pointer, but got {kind or 'none'}")
        return False
    if not isinstance(view, PartitionViewType):
        op.emit_error(f"multimem view operations support only partition_view; got {_q(view)}")
        return False
    return True


def verify_inbounds(op) -> bool:
    flags = op.attributes.get("inbounds")
    if flags is not None and len(flags.values) != len(op.index):
        op.emit_error(f"inbounds size ({len(flags.values)}) must match the number of index dimensions "
                      f"({len(op.index)})")
        return False
    return True


def verify_reduction_kind(op, float_kinds) -> bool:
    """Integer elements take every kind; floats only `float_kinds` (and min/max,
    where allowed at all, only on 16-bit floats)."""
    kind = op.reduction.value
    elt = op.view.type.tensor_view.element_type
    if isinstance(elt, IntegerType):
        return True
    if kind in ("and", "or", "xor", "umin", "umax"):
        op.emit_error("and/or/xor/umin/umax reductions require integer element types")
        return False
    if kind not in float_kinds:
        op.emit_error("supports only add for floating-point element types")
        return False
    if kind in ("min", "max") and elt.name not in ("f16", "bf16"):
        op.emit_error(f"min/max supports f16 and bf16 float types only; got {_q(elt)}")
        return False
    return True


class MultimemLoadReduceViewTkoOp(CudaTileOp):
    name = "cuda_tile.multimem_load_reduce_view_tko"
    memory_ordering_semantics = AttrDef(MemoryOrderingSemanticsAttr)
    memory_scope = AttrDef(MemoryScopeAttr, optional=True)
    reduction = _reduction()
    inbounds = _inbounds()
    view = Operand(TILE_VIEW)
    index = VarOperand(INDEX_TILE)
    token = OptOperand(TOKEN_TYPE)
    tile = Result(TILE_TYPE)   # NVIDIA's `reduced_values`; `tile` lets the shared view checks read it
    result_token = Result(TOKEN_TYPE)
    assembly_format = (_ORDERING + " $view `[` $index `]` " + _TAIL + "custom<CudaTileType>(type($view)) "
                       + _INDEX_TYPES + " `->` custom<CudaTileType>(type($tile)) `,` "
                       "custom<CudaTileType>(type($result_token))")

    def asm_result_names(self):
        return ["reduced_values", "result_token"]

    def verify_op(self):
        return (verify_multimem_view(self, self.tile.type) and verify_reduction_kind(self, ("add", "min", "max"))
                and verify_inbounds(self) and verify_memory_model(self, "load", LOAD_ORDERINGS))


class MultimemReduceViewTkoOp(CudaTileOp):
    name = "cuda_tile.multimem_reduce_view_tko"
    memory_ordering_semantics = AttrDef(MemoryOrderingSemanticsAttr)
    memory_scope = AttrDef(MemoryScopeAttr)
    reduction = _reduction()
    inbounds = _inbounds()
    view = Operand(TILE_VIEW)
    tile = Operand(TILE_TYPE)
    index = VarOperand(INDEX_TILE)
    token = OptOperand(TOKEN_TYPE)
    result_token = Result(TOKEN_TYPE)
    assembly_format = (_ORDERING + " $view `,` $tile `[` $index `]` " + _TAIL + "custom<CudaTileType>(type($view)) "
                       "`,` custom<CudaTileType>(type($tile)) " + _INDEX_TYPES
                       + " `->` custom<CudaTileType>(type($result_token))")

    def verify_op(self):
        if not (verify_multimem_view(self, self.tile.type) and verify_reduction_kind(self, ("add",))
                and verify_inbounds(self)):
            return False
        sem = MemoryOrderingSemanticsAttr.name_of(self.memory_ordering_semantics)
        if sem not in ("relaxed", "release"):
            self.emit_error("memory ordering semantics must be one of: relaxed, release")
            return False
        return True


class MultimemStoreViewTkoOp(CudaTileOp):
    name = "cuda_tile.multimem_store_view_tko"
    memory_ordering_semantics = AttrDef(MemoryOrderingSemanticsAttr)
    memory_scope = AttrDef(MemoryScopeAttr, optional=True)
    inbounds = _inbounds()
    view = Operand(TILE_VIEW)
    tile = Operand(TILE_TYPE)
    index = VarOperand(INDEX_TILE)
    token = OptOperand(TOKEN_TYPE)
    result_token = Result(TOKEN_TYPE)
    assembly_format = (_ORDERING + " $view `,` $tile `[` $index `]` " + _TAIL + "custom<CudaTileType>(type($view)) "
                       "`,` custom<CudaTileType>(type($tile)) " + _INDEX_TYPES
                       + " `->` custom<CudaTileType>(type($result_token))")

    def verify_op(self):
        return (verify_multimem_view(self, self.tile.type) and verify_inbounds(self)
                and verify_memory_model(self, "store", STORE_ORDERINGS))
