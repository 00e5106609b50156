"""Atomic ops (spec 8.11): compare-and-swap and read-modify-write through tiles
of pointers, and reductions into a tile of a view."""
from __future__ import annotations

from ....ir.opdef import AttrDef, OptOperand, Operand, Result, VarOperand
from ....ir.traits import all_shapes_match, all_types_match
from ....ir.types import FloatType, IntegerType
from ....syntax.format import AttrSyntax, BuildError
from .. import directives_memory  # noqa: F401  (registers the custom<...> directives used below)
from ..attributes import AtomicRMWModeAttr, MemoryOrderingSemanticsAttr, MemoryScopeAttr
from ..types import (INDEX_TILE, MASK_TILE, POINTER_TILE, TILE_TYPE, TILE_VIEW, TOKEN_TYPE, GatherScatterViewType,
                     TileType, view_tile_type)
from .base import CudaTileOp
from .memory import is_multicast
from .views import no_multicast_view


def _q(t) -> str:
    return f"'{t.text()}'"


def _width(t):
    """getIntOrFloatBitWidth (tf32 counts 19 bits there)."""
    if isinstance(t, FloatType) and t.name == "tf32":
        return 19
    return t.width if isinstance(t, (IntegerType, FloatType)) else None


def verify_rmw_mode(op, mode: str, elt) -> bool:
    """verifyAtomicRMWMode: which element types each mode takes."""
    if mode in ("and", "or", "xor", "add", "max", "min", "umax", "umin"):
        if elt not in (IntegerType(32), IntegerType(64)):
            op.emit_error(f"'{mode}' works only with integers i32 and i64")
            return False
    elif mode == "addf":
        if not (isinstance(elt, FloatType) and elt.name in ("f16", "bf16", "f32", "f64")):
            op.emit_error(f"'{mode}' works only with floats f16, bf16, f32, and f64")
            return False
    elif mode == "xchg":
        if not isinstance(elt, (IntegerType, FloatType)) or _width(elt) not in (32, 64):
            op.emit_error(f"'{mode}' works only with integers or float of 32 or 64 bitwidth")
            return False
    return True


def verify_atomic_ordering(op) -> bool:
    sem = MemoryOrderingSemanticsAttr.name_of(op.memory_ordering_semantics)
    if sem not in ("relaxed", "acquire", "release", "acq_rel"):
        op.emit_error("memory ordering semantics must be one of: relaxed, acquire, release, acq_rel")
        return False
    return True


def _pointee(t):
    return t.element_type.pointee


class AtomicCASTkoOp(CudaTileOp):
    name = "cuda_tile.atomic_cas_tko"
    traits = (all_shapes_match("pointers", "cmp", "val", "result"), all_types_match("cmp", "val", "result"))
    memory_ordering_semantics = AttrDef(MemoryOrderingSemanticsAttr)
    memory_scope = AttrDef(MemoryScopeAttr)
    pointers = Operand(POINTER_TILE)
    cmp = Operand(TILE_TYPE)
    val = Operand(TILE_TYPE)
    mask = OptOperand(MASK_TILE)
    token = OptOperand(TOKEN_TYPE)
    result = Result(TILE_TYPE)
    result_token = Result(TOKEN_TYPE)
    assembly_format = ("custom<AtomicOrderingAndScope>($memory_ordering_semantics, $memory_scope) "
                       "$pointers `,` $cmp `,` $val (`,` $mask^)? "
                       "(`token` `` `=` `` $token^)? attr-dict `:` custom<CudaTileType>(type($pointers)) `,` "
                       "custom<CudaTileType>(type($val)) (`,` custom<CudaTileType>(type($mask))^)? `->` "
                       "custom<CudaTileType>(type($result)) `,` custom<CudaTileType>(type($result_token))")

    def verify_op(self):
        if is_multicast(self.pointers.type):
            self.emit_error("multicast pointer is not supported for atomic_cas")
            return False
        pointee, elt = _pointee(self.pointers.type), self.val.type.element_type
        if pointee != elt:
            self.emit_error(f"expected pointee type ({_q(pointee)}) to match element type of 'val' ({_q(elt)})")
            return False
        if not isinstance(elt, (IntegerType, FloatType)) or _width(elt) not in (32, 64):
            self.emit_error("expect only float or integer types with 32 or 64 bit")
            return False
        if self.mask is not None and self.mask.type.shape != self.val.type.shape:
            self.emit_error("failed to verify that all of {pointers, val, cmp and mask} have same shape")
            return False
        return verify_atomic_ordering(self)


class AtomicRMWTkoOp(CudaTileOp):
    name = "cuda_tile.atomic_rmw_tko"
    traits = (all_shapes_match("pointers", "arg", "result"), all_types_match("arg", "result"))
    memory_ordering_semantics = AttrDef(MemoryOrderingSemanticsAttr)
    memory_scope = AttrDef(MemoryScopeAttr)
    pointers = Operand(POINTER_TILE)
    mode = AttrDef(AtomicRMWModeAttr)
    arg = Operand(TILE_TYPE)
    mask = OptOperand(MASK_TILE)
    token = OptOperand(TOKEN_TYPE)
    result = Result(TILE_TYPE)
    result_token = Result(TOKEN_TYPE)
    assembly_format = ("custom<AtomicOrderingAndScope>($memory_ordering_semantics, $memory_scope) "
                       "$pointers `,` $mode `,` $arg (`,` $mask^)? "
                       "(`token` `` `=` `` $token^)? attr-dict `:` custom<CudaTileType>(type($pointers)) `,` "
                       "custom<CudaTileType>(type($arg)) (`,` custom<CudaTileType>(type($mask))^)? `->` "
                       "custom<CudaTileType>(type($result)) `,` custom<CudaTileType>(type($result_token))")

    def verify_op(self):
        if is_multicast(self.pointers.type):
            self.emit_error("multicast pointer is not supported for atomic_rmw")
            return False
        pointee, elt = _pointee(self.pointers.type), self.arg.type.element_type
        if pointee != elt:
            self.emit_error(f"expected pointee type ({_q(pointee)}) to match element type of 'arg' ({_q(elt)})")
            return False
        if self.mask is not None and self.mask.type.shape != self.arg.type.shape:
            self.emit_error("failed to verify that all of {pointers, arg, mask} have same shape")
            return False
        return (verify_rmw_mode(self, AtomicRMWModeAttr.name_of(self.mode), elt)
                and verify_atomic_ordering(self))


_RED_MODES = ("and", "or", "xor", "add", "addf", "max", "min", "umax", "umin")


def _red_mode_syntax():
    """atomic_red_view_tko's own parser words an unknown mode this way."""
    def convert(tok):
        s = str(tok)
        if s not in AtomicRMWModeAttr.values:
            raise BuildError(f"unknown atomic RMW mode: '{s}'; expected one of: {', '.join(_RED_MODES)}", tok,
                             custom_op=True)
        return AtomicRMWModeAttr(s)
    return AttrSyntax("BARE_ID", convert, AtomicRMWModeAttr.name_of)


def _shape_text(shape) -> str:
    return ", ".join(str(d) for d in shape)


class AtomicRedViewTkoOp(CudaTileOp):
    name = "cuda_tile.atomic_red_view_tko"
    memory_ordering_semantics = AttrDef(MemoryOrderingSemanticsAttr)
    memory_scope = AttrDef(MemoryScopeAttr, optional=True)
    view = Operand(TILE_VIEW)
    index = VarOperand(INDEX_TILE)
    mode = AttrDef(AtomicRMWModeAttr, syntax=_red_mode_syntax)
    value = Operand(TILE_TYPE)
    token = OptOperand(TOKEN_TYPE)
    result_token = Result(TOKEN_TYPE)
    assembly_format = ("custom<AtomicMemoryAttributes>($memory_ordering_semantics, $memory_scope) "
                       "$view `[` $index `]` `,` $mode `,` $value (`token` `=` $token^)? attr-dict-with-keyword "
                       "`:` custom<CudaTileType>(type($value)) `,` custom<CudaTileType>(type($view)) "
                       "custom<ViewIndexTypes>(type($index)) `->` custom<CudaTileType>(type($result_token))")

    def verify_op(self):
        view = self.view.type
        if isinstance(view, GatherScatterViewType):
            self.emit_error("gather_scatter_view is not supported; use partition_view instead")
            return False
        if view.padding_value is not None:
            self.emit_error("views with padding_value are not supported for atomic reductions")
            return False
        tile = view_tile_type(view)
        elt = self.value.type.element_type
        if tile.element_type != elt:
            self.emit_error(f"view element type ({_q(tile.element_type)}) must match value element type ({_q(elt)})")
            return False
        if tile.shape != self.value.type.shape:
            self.emit_error(f"view tile shape {_shape_text(tile.shape)} must match value shape "
                            f"{_shape_text(self.value.type.shape)} for element-wise atomic operations")
            return False
        mode = AtomicRMWModeAttr.name_of(self.mode)
        if mode == "xchg":
            self.emit_error("atomic_red_view_tko op cannot use xchg operation")
            return False
        if not verify_rmw_mode(self, mode, elt):
            return False
        if MemoryOrderingSemanticsAttr.name_of(self.memory_ordering_semantics) != "relaxed":
            self.emit_error("only 'relaxed' memory ordering is supported for view-based atomic reductions")
            return False
        scope = self.attributes.get("memory_scope")
        if scope is not None and MemoryScopeAttr.name_of(scope) == "sys":
            self.emit_error("memory scope 'sys' is not supported for view-based atomic reductions; use 'tl_blk' "
                            "or 'device' for TMA compatibility")
            return False
        rank = len(tile.shape)
        if len(self.index) != rank:
            self.emit_error(f"expected {rank} index operand(s) for view with tile rank {rank}, got {len(self.index)}")
            return False
        for i, idx in enumerate(self.index):
            t = idx.type
            if isinstance(t, TileType) and t.shape:
                self.emit_error(f"index operand {i} must be a scalar tile (rank 0), got shape {_shape_text(t.shape)}")
                return False
            if not isinstance(t.element_type, IntegerType):
                self.emit_error(f"index operand {i} must be a scalar integer tile, got element type "
                                f"{_q(t.element_type)}")
                return False
        return no_multicast_view(self)
