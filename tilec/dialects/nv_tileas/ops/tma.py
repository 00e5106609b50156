"""TMA: descriptor construction and async bulk tensor copies."""
from __future__ import annotations

from ....ir import attributes as A
from ....ir.opdef import AttrDef, Operand, Result, VarOperand
from ....ir.core import OpResult
from ....ir.types import DYNAMIC, FloatType
from ..attributes import AtomAttr, OobModeAttr, PaddingAttr, SwizzleModeAttr
from ..traits import (MemoryConsistencyOpInterface, MemoryModelReadTrait, MemoryModelWriteTrait,
                      SameOperandsAndResultsAtom, SameOperationAndResultsAtom)
from ..types import ASYNC_RESULT, ASYNC_TOKEN, MEM_TOKEN, SHAPED, TILED_VIEW, TMA_DESC, element_width
from ..verifiers import constant_index, defined_under_scf, is_zero_padding, tma_lowered_point
from .base import NvTileasOp

PADDING = (A.FloatAttr, A.IntegerAttr, PaddingAttr)


class MakeTiledTmaDescOp(NvTileasOp):
    """{global view, box dims...} -> tma_desc. `nv_tileas.tma_lowered` on an
    enclosing op marks the point after which no descriptor builder may remain."""
    name = "nv_tileas.make_tiled_tma_desc"
    segmented = True
    traits = (SameOperationAndResultsAtom, MemoryConsistencyOpInterface)
    global_view = Operand(TILED_VIEW)
    box_dims = VarOperand()
    atom = AttrDef(AtomAttr)
    swizzle_mode = AttrDef(SwizzleModeAttr, optional=True)
    oob_mode = AttrDef(OobModeAttr, optional=True)
    result = Result(TMA_DESC)
    assembly_format = ("$global_view (`box` `[` $box_dims^ `]`)? attr-dict `:` custom<NvTypes>(type($global_view)) "
                       "`->` custom<NvTypes>(type($result))")

    def box_values(self):
        """The box extents: the atom's box when it lists one, else the constant operands."""
        if self.atom.box is not None:
            return list(self.atom.box)
        return [constant_index(v) for v in self.box_dims]

    def verify_op(self):
        atom, view = self.atom, self.global_view.type
        if tma_lowered_point(self):
            self.emit_error("expect lower MakeTiledTMADescOp")
            return False
        if not atom.is_tma():
            self.emit_error("expects a TMA load or store atom")
            return False
        if len(self.box_dims) != atom.box_rank:
            self.emit_error("tma box-dim and copy atom box-dim mismatch")
            return False
        from ....ir.types import IndexType
        if any(not isinstance(v.type, IndexType) for v in self.box_dims):
            self.emit_error("expects index-typed box dims")
            return False
        if view.residency not in (None, "GMEM"):
            self.emit_error(f"expects a global-memory (GMEM) view, but got {view.residency}")
            return False
        if view.element_stride != 1:
            self.emit_error("TMA descriptors require unit element stride")
            return False
        box = self.box_values()
        width = element_width(view.element_type)
        if box and box[-1] is not None and width and (box[-1] * width) % 128 != 0:
            self.emit_error("tma leading box-dim bit-width is not 16 bytes aligned")
            return False
        if any(defined_under_scf(v) for v in self.operands):
            self.emit_error("expected MakeTiledTMADescOp not depends on scf")
            return False
        return True


def _check_coords(op, want_kind):
    atom = op.atom
    if not getattr(atom, f"is_tma_{want_kind}")():
        op.emit_error(f"expected a TMA {want_kind} atom")
        return False
    if len(op.coords) != atom.box_rank:
        op.emit_error("tma box-dim and copy atom box-dim mismatch")
        return False
    from ....ir.types import IndexType
    if any(not isinstance(v.type, IndexType) for v in op.coords):
        op.emit_error("expects index-typed TMA coordinates")
        return False
    return True


def _check_smem(op, view):
    if view.type.residency not in (None, "SMEM"):
        op.emit_error(f"expects a shared-memory (SMEM) view, but got {view.type.residency}")
        return False
    return True


def _dims_text(dims):
    return "[" + ", ".join("?" if d is DYNAMIC else str(d) for d in dims) + "]"


def _check_box(op, view):
    """The rank is the table's check (`tma box-dim and copy atom box-dim mismatch`,
    in _check_coords); this is the pseudocode's: with the rank right, the box the
    atom lists must be the extents of the shared-memory view it fills or drains."""
    box, shape = op.atom.box, tuple(view.type.shape)
    if box is None or len(box) != len(shape):
        return True
    if any(d is not DYNAMIC and d != b for d, b in zip(shape, box)):
        op.emit_error(f"TMA box dimensions do not match atom box dimensions: view {_dims_text(shape)}, "
                      f"atom box {_dims_text(box)}")
        return False
    return True


SWIZZLE_SPAN_BITS = {"32B": 256, "64B": 512, "128B": 1024}


def descriptor_swizzle(desc):
    """The swizzle a descriptor was built with (`none` when its builder names
    none), or None when the descriptor's builder is not in sight."""
    d = desc.op if isinstance(desc, OpResult) else None
    if isinstance(d, MakeTiledTmaDescOp):
        return d.swizzle_mode.value if d.swizzle_mode is not None else "none"
    return None


def _dense_row_major(shape, strides):
    want = 1
    for d, s in zip(reversed(shape), reversed(strides)):
        if s is not DYNAMIC and s != want:
            return False
        if d is DYNAMIC or s is DYNAMIC:
            return True  # the rest is not known statically
        want = d * s
    return True


def _check_smem_layout(op, view, desc):
    """The shared-memory side of a TMA copy must be laid out as the TMA unit
    writes it: dense row-major, with the descriptor's swizzle, and (swizzled)
    no row wider than the swizzle span. A view with neither strides nor
    swizzle has no layout decided yet and passes."""
    t = view.type
    why = None
    if t.strides is not None and not _dense_row_major(t.shape, t.strides):
        why = f"strides {_dims_text(t.strides)} are not dense row-major"
    elif t.swizzle is not None:
        want = descriptor_swizzle(desc)
        span = SWIZZLE_SPAN_BITS.get(t.swizzle)
        width = element_width(t.element_type)
        inner = t.shape[-1] if t.shape else None
        if want is not None and want != t.swizzle:
            why = f"the view's swizzle {t.swizzle} differs from the descriptor's {want}"
        elif span and width and inner is not None and inner is not DYNAMIC and inner * width > span:
            why = f"a {inner * width // 8}-byte row exceeds the {t.swizzle} swizzle span"
    if why is not None:
        op.emit_error(f"shared-memory layout is not TMA-compatible: {why}")
        return False
    return True


def _check_padding(op):
    pad = op.padding_value
    if pad is None:
        return True
    if not isinstance(op.dest.type.element_type, FloatType):
        op.emit_error("expects padding_value only for floating-point elements")
        return False
    if not is_zero_padding(pad):
        op.emit_error("TmaLoad only support zero padding now")
        return False
    return True


class AsyncTiledTmaLoadOp(NvTileasOp):
    """{desc, dst, coords, barrier} -> async token (or async value)."""
    name = "nv_tileas.async.tiled_tma_load"
    segmented = True
    traits = (SameOperandsAndResultsAtom, MemoryModelReadTrait, MemoryConsistencyOpInterface)
    desc = Operand(TMA_DESC)
    dest = Operand(TILED_VIEW)
    coords = VarOperand()
    barrier = Operand(MEM_TOKEN)
    atom = AttrDef(AtomAttr)
    padding_value = AttrDef(PADDING, optional=True)
    result = Result(ASYNC_RESULT)
    assembly_format = ("$desc `,` $dest `[` $coords `]` `,` $barrier attr-dict `:` "
                       "custom<NvTypes>(type($desc), type($dest), type($coords), type($barrier)) `->` "
                       "custom<NvTypes>(type($result))")

    def verify_op(self):
        return (_check_coords(self, "load") and _check_box(self, self.dest) and _check_smem(self, self.dest)
                and _check_smem_layout(self, self.dest, self.desc) and _check_padding(self))


class AsyncTiledTmaStoreOp(NvTileasOp):
    """{desc, src, coords} -> async token."""
    name = "nv_tileas.async.tiled_tma_store"
    segmented = True
    traits = (SameOperandsAndResultsAtom, MemoryModelWriteTrait, MemoryConsistencyOpInterface)
    desc = Operand(TMA_DESC)
    source = Operand(TILED_VIEW)
    coords = VarOperand()
    atom = AttrDef(AtomAttr)
    result = Result(ASYNC_TOKEN)
    assembly_format = ("$desc `,` $source `[` $coords `]` attr-dict `:` "
                       "custom<NvTypes>(type($desc), type($source), type($coords)) `->` "
                       "custom<NvTypes>(type($result))")

    def verify_op(self):
        return (_check_coords(self, "store") and _check_box(self, self.source) and _check_smem(self, self.source)
                and _check_smem_layout(self, self.source, self.desc))


class AsyncGatherTmaLoadOp(NvTileasOp):
    """The discontiguous load: a per-lane coordinate tile on top of the contiguous operands."""
    name = "nv_tileas.async.gather_tma_load"
    segmented = True
    traits = (SameOperandsAndResultsAtom, MemoryModelReadTrait, MemoryConsistencyOpInterface)
    desc = Operand(TMA_DESC)
    dest = Operand(TILED_VIEW)
    coords = VarOperand()
    indices = Operand(SHAPED)
    barrier = Operand(MEM_TOKEN)
    atom = AttrDef(AtomAttr)
    padding_value = AttrDef(PADDING, optional=True)
    result = Result(ASYNC_RESULT)

    def verify_op(self):
        return (_check_coords(self, "load") and _check_box(self, self.dest) and _check_smem(self, self.dest)
                and _check_smem_layout(self, self.dest, self.desc) and _check_padding(self))


class AsyncScatterTmaStoreOp(NvTileasOp):
    """The discontiguous store: a per-lane address tile; no padding value."""
    name = "nv_tileas.async.scatter_tma_store"
    segmented = True
    traits = (SameOperandsAndResultsAtom, MemoryModelWriteTrait, MemoryConsistencyOpInterface)
    desc = Operand(TMA_DESC)
    source = Operand(TILED_VIEW)
    coords = VarOperand()
    indices = Operand(SHAPED)
    atom = AttrDef(AtomAttr)
    padding_value = AttrDef(PADDING, optional=True)
    result = Result(ASYNC_TOKEN)

    def verify_op(self):
        if self.padding_value is not None:
            self.emit_error("scatter_tma_store does not accept a padding_value")
            return False
        return (_check_coords(self, "store") and _check_box(self, self.source) and _check_smem(self, self.source)
                and _check_smem_layout(self, self.source, self.desc))
