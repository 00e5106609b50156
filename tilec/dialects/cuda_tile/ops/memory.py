"""Memory ops (spec 8.9): token-ordered loads and stores through tiles of
pointers, stack allocation, and byte-level pack/unpack."""
from __future__ import annotations

from ....ir import attributes as A
from ....ir.opdef import AttrDef, OptOperand, Operand, Result
from ....ir.traits import Pure, all_ranks_match
from ....ir.types import FloatType, IntegerType
from .. import directives_memory  # noqa: F401  (registers the custom<...> directives used below)
from ..attributes import MemoryOrderingSemanticsAttr, MemoryScopeAttr
from ..attributes_core import OptimizationHintsAttr
from ..hints import PTR_MEMORY_KEYS, verify_hint_values
from ..types import (I8_TILE, MASK_TILE, NUMBER_TILE_ODS, POINTER_TILE, SCALAR_POINTER_TILE, TILE_TYPE, TOKEN_TYPE,
                     UNPACKED_TILE, PointerType, TileType)
from .base import CudaTileOp


def _word(attr) -> str:
    return MemoryOrderingSemanticsAttr.name_of(attr)


def verify_memory_model(op, kind: str, allowed: tuple) -> bool:
    """impl::verifyMemoryModelLoad/Store: the ordering must be one `kind`
    accepts; weak takes no scope, the others need one."""
    sem = _word(op.memory_ordering_semantics)
    if sem not in allowed:
        op.emit_error(f"expect one of: {allowed[0]}, {allowed[1]}, or {allowed[2]}, but got: {sem}")
        return False
    scope = op.attributes.get("memory_scope")
    if sem == "weak":
        if scope is not None:
            op.emit_error(f"weak {kind} must not have memory scope")
            return False
    elif scope is None:
        op.emit_error(f"memory scope is required for {sem} {kind}")
        return False
    return True


def optional_scope_syntax():
    """`($memory_scope^)?` before an operand: MLIR only takes a keyword naming a
    scope there, so any other word is where it expected the operand."""
    from ....syntax.format import AttrSyntax, BuildError
    base = MemoryScopeAttr.custom_syntax()

    def convert(tok):
        if tok.type == "BARE_ID" and str(tok) not in MemoryScopeAttr.values:
            raise BuildError("expected SSA operand", tok)
        return base.convert(tok)
    return AttrSyntax(base.grammar, convert, base.render)


LOAD_ORDERINGS = ("weak", "relaxed", "acquire")
STORE_ORDERINGS = ("weak", "relaxed", "release")


def verify_hints(op, valid_keys=PTR_MEMORY_KEYS) -> bool:
    """The hints must be per-target dictionaries, then each value is checked
    under the -Wunsupported-hints policy."""
    hints = op.attributes.get("optimization_hints")
    if isinstance(hints, OptimizationHintsAttr):
        for key, value in hints.entries:
            if not isinstance(value, A.DictionaryAttr):
                op.emit_error(f"expected dictionary attribute for optimization_hints entry `{key}` "
                              f"got value={value.text()}")
                return False
    return verify_hint_values(op, valid_keys)


def pointee_matches(ptr_type, value_type) -> bool:
    """verifyLoadStoreType: a tile of pointers to the value tile's elements, same shape."""
    return (isinstance(ptr_type, TileType) and isinstance(value_type, TileType)
            and isinstance(ptr_type.element_type, PointerType) and ptr_type.shape == value_type.shape
            and ptr_type.element_type.pointee == value_type.element_type)


def is_multicast(ptr_tile) -> bool:
    """A tile of `ptr<T, <multicast>>` (13.5): not accessible element-wise."""
    return getattr(getattr(ptr_tile, "element_type", None), "ptr_attr", None) == "multicast"


def no_multicast(op, pointers) -> bool:
    if is_multicast(pointers.type):
        op.emit_error("multicast pointer is not allowed")
        return False
    return True


def _same_shape(a, b) -> bool:
    return isinstance(a, TileType) and isinstance(b, TileType) and a.shape == b.shape


class LoadPtrTkoOp(CudaTileOp):
    name = "cuda_tile.load_ptr_tko"
    memory_ordering_semantics = AttrDef(MemoryOrderingSemanticsAttr)
    memory_scope = AttrDef(MemoryScopeAttr, optional=True, syntax=optional_scope_syntax)
    source = Operand(POINTER_TILE)
    mask = OptOperand(MASK_TILE)
    paddingValue = OptOperand(NUMBER_TILE_ODS)
    token = OptOperand(TOKEN_TYPE)
    optimization_hints = AttrDef(OptimizationHintsAttr, optional=True)
    result = Result(TILE_TYPE)
    result_token = Result(TOKEN_TYPE)
    # `, %mask, %padding` share a leading comma, which one LALR rule per group
    # cannot tell apart: a directive takes them in order, as MLIR's parser does
    assembly_format = ("$memory_ordering_semantics ($memory_scope^)? $source "
                       "custom<TrailingOperands>($mask, $paddingValue) (`token` `` `=` `` $token^)? "
                       "(`optimization_hints` `=` custom<MemoryOptimizationHints>($optimization_hints)^)? "
                       "attr-dict `:` custom<CudaTileType>(type($source)) "
                       "custom<TrailingOperandTypes>(type($mask), type($paddingValue)) "
                       "`->` custom<CudaTileType>(type($result)) `,` custom<CudaTileType>(type($result_token))")

    def verify_op(self):
        if not pointee_matches(self.source.type, self.result.type):
            self.emit_error("failed to verify that `source` type is expected a pointer type of `result` type")
            return False
        if self.mask is not None and not _same_shape(self.source.type, self.mask.type):
            self.emit_error("failed to verify that shape of 'mask' must match the shape of 'source'")
            return False
        pad = self.paddingValue
        if pad is not None and not (_same_shape(self.result.type, pad.type)
                                    and self.result.type.element_type == pad.type.element_type):
            self.emit_error("failed to verify that type of 'paddingValue' must match the type of 'result'")
            return False
        return no_multicast(self, self.source) and verify_hints(self) and verify_memory_model(self, "load",
                                                                                              LOAD_ORDERINGS)


class StorePtrTkoOp(CudaTileOp):
    name = "cuda_tile.store_ptr_tko"
    memory_ordering_semantics = AttrDef(MemoryOrderingSemanticsAttr)
    memory_scope = AttrDef(MemoryScopeAttr, optional=True, syntax=optional_scope_syntax)
    destination = Operand(POINTER_TILE)
    value = Operand(TILE_TYPE)
    mask = OptOperand(MASK_TILE)
    token = OptOperand(TOKEN_TYPE)
    optimization_hints = AttrDef(OptimizationHintsAttr, optional=True)
    result_token = Result(TOKEN_TYPE)
    assembly_format = ("$memory_ordering_semantics ($memory_scope^)? $destination `,` $value "
                       "(`,` $mask^)? (`token` `` `=` `` $token^)? "
                       "(`optimization_hints` `=` custom<MemoryOptimizationHints>($optimization_hints)^)? "
                       "attr-dict `:` custom<CudaTileType>(type($destination)) `,` custom<CudaTileType>(type($value)) "
                       "(`,` custom<CudaTileType>(type($mask))^)? `->` custom<CudaTileType>(type($result_token))")

    def verify_op(self):
        if not pointee_matches(self.destination.type, self.value.type):
            self.emit_error("failed to verify that `destination` type is expected a pointer type of `value` type")
            return False
        if self.mask is not None and not _same_shape(self.mask.type, self.destination.type):
            self.emit_error("failed to verify that shape of 'destination' must match the shape of 'mask'")
            return False
        return no_multicast(self, self.destination) and verify_hints(self) and verify_memory_model(
            self, "store", STORE_ORDERINGS)


class _NonNegI64Meta(type):
    def __instancecheck__(cls, v):
        return isinstance(v, A.IntegerAttr) and v.type == IntegerType(64) and v.value >= 0


class NonNegativeI64Attr(metaclass=_NonNegI64Meta):
    """ConfinedAttr<I64Attr, [IntMinValue<0>]>: an i64 IntegerAttr >= 0."""
    description = "64-bit signless integer attribute whose minimum value is 0"

    @classmethod
    def custom_syntax(cls):
        from ....syntax.format import attr_syntax
        return attr_syntax(A.IntegerAttr)


def _byte_size(t) -> int:
    if isinstance(t, IntegerType):
        return 1 if t.width == 1 else t.width // 8
    if isinstance(t, FloatType):
        return t.width // 8
    return 0


class AllocaOp(CudaTileOp):
    name = "cuda_tile.alloca"
    num_elem = AttrDef(NonNegativeI64Attr)
    alignment = AttrDef(NonNegativeI64Attr)
    vars()["global"] = AttrDef(unit=True)  # a Python keyword, hence vars()
    result = Result(SCALAR_POINTER_TILE)
    assembly_format = ("`num_elem` `=` $num_elem `,` `alignment` `=` $alignment (`global` $global^)? "
                       "attr-dict `:` custom<CudaTileType>(type($result))")

    def verify_op(self):
        align = self.alignment.value
        if align <= 0 or align & (align - 1):
            self.emit_error("'alignment' must be power of two")
            return False
        pointee = self.result.type.element_type.pointee
        size = _byte_size(pointee)
        if align < size:
            self.emit_error(f"'alignment' ({align}) must be at least the natural size ({size} bytes) for element "
                            f"type '{pointee.text()}'")
            return False
        return True


def _bits(t: TileType) -> int:
    e = t.element_type
    width = 1 if e == IntegerType(1) else (32 if isinstance(e, FloatType) and e.name == "tf32" else e.width)
    n = 1
    for d in t.shape:
        n *= d
    return width * n


def verify_pack_unpack(op) -> bool:
    src, res = op.source.type, op.result.type
    if len(src.shape) != 1:
        op.emit_error("expects source and result to be rank-1 tiles")
        return False
    if src.element_type.width == res.element_type.width:
        op.emit_error("expects source and result to have different element type widths")
        return False
    src_bits, res_bits = _bits(src), _bits(res)
    if src_bits % 8:
        op.emit_error("expects source tile to be byte-aligned")
        return False
    if res_bits % 8:
        op.emit_error("expects result tile to be byte-aligned")
        return False
    if src_bits != res_bits:
        op.emit_error(f"expects source and result to have the same size in bytes, but got source tile size "
                      f"{src_bits // 8} bytes and result tile size {res_bits // 8} bytes")
        return False
    return True


class PackOp(CudaTileOp):
    name = "cuda_tile.pack"
    traits = (Pure, all_ranks_match("source", "result"))
    source = Operand(UNPACKED_TILE)
    result = Result(I8_TILE)
    assembly_format = ("$source attr-dict `:` custom<CudaTileType>(type($source)) `->` "
                       "custom<CudaTileType>(type($result))")

    def verify_op(self):
        return verify_pack_unpack(self)


class UnpackOp(CudaTileOp):
    name = "cuda_tile.unpack"
    traits = (Pure, all_ranks_match("source", "result"))
    source = Operand(I8_TILE)
    result = Result(UNPACKED_TILE)
    assembly_format = ("$source attr-dict `:` custom<CudaTileType>(type($source)) `->` "
                       "custom<CudaTileType>(type($result))")

    def verify_op(self):
        return verify_pack_unpack(self)

