"""Layout ops: layout conversion, value views, rank/shape reinterpretation,
shuffles and generated tile bodies."""
from __future__ import annotations

from ....ir import attributes as A
from ....ir.opdef import AttrDef, Operand, RegionDef, Result, VarOperand, VarResult
from ....ir.traits import Pure, SingleBlock
from ..traits import (MustHaveMemLayoutAmongOperandsAndResult, SameOperandsAndResultEncoding,
                      SameTiledViewAndTensorShapeTrait, TensorTypeHavingLayout)
from ..layout_attr import LayoutAttr, layout_fits
from ..types import SHAPED, TILED_VIEW, element_width, num_elements
from .base import NvTileasOp


class ConvertLayoutOp(NvTileasOp):
    """Moves a tile into another layout; chains are trimmed by the
    layout-conversion removal pass, not folded here. Tensors carry their
    layouts as encodings; a cuda_tile tile (which has none) names the layout
    it is moved into with `layout` (assign-layouts writes it)."""
    name = "nv_tileas.convert_layout"
    traits = (TensorTypeHavingLayout,)
    source = Operand(SHAPED)
    layout = AttrDef(LayoutAttr, optional=True)
    result = Result(SHAPED)
    assembly_format = "$source attr-dict `:` custom<NvTypes>(type($source)) `->` custom<NvTypes>(type($result))"

    def verify_op(self):
        s, r = self.source.type, self.result.type
        if s.element_type != r.element_type:
            self.emit_error("expects source and result to have the same element type")
            return False
        if None in s.shape or None in r.shape or num_elements(s.shape) != num_elements(r.shape):
            self.emit_error("expects source and result to have the same number of elements")
            return False
        lay = self.layout
        if lay is not None and lay.kind == "mma":
            wm, wn = lay.warps
            if len(r.shape) != 2 or r.shape[0] % (16 * wm) or r.shape[1] % (8 * wn):
                self.emit_error(f"expects a rank-2 result whose shape the mma layout's {wm}x{wn} warps tile "
                                f"in 16x8 blocks")
                return False
        if lay is not None and lay.kind == "wgmma":
            if len(r.shape) != 2 or r.shape[0] % 64 or r.shape[1] % 8 or r.shape[1] > 256:
                self.emit_error("expects a rank-2 result of 64-row chunks and 8 to 256 columns (a multiple of 8) "
                                "for the wgmma layout")
                return False
        if lay is not None and lay.kind in ("none", "splat"):
            self.emit_error(f"cannot move a tile into layout '{lay.kind}'")
            return False
        if lay is not None and lay.kind == "slice":
            why = layout_fits(lay, tuple(r.shape))
            if why:
                self.emit_error(f"expects a result that fits its layout: the result {why}")
                return False
        return True


class ViewOp(NvTileasOp):
    """A tiled_view of a source at the given indices."""
    name = "nv_tileas.view"
    traits = (Pure, MustHaveMemLayoutAmongOperandsAndResult, SameTiledViewAndTensorShapeTrait)
    source = Operand()
    indices = VarOperand()
    result = Result(TILED_VIEW)
    assembly_format = ("$source (`[` $indices^ `]`)? attr-dict `:` custom<NvTypes>(type($source)) `->` "
                       "custom<NvTypes>(type($result))")

    def verify_op(self):
        src = self.source.type
        elt = getattr(src, "element_type", getattr(getattr(src, "pointee", None), "element_type", None))
        if hasattr(elt, "pointee"):  # a view of a pointer (tile) holds the pointee's elements
            elt = elt.pointee
        if elt is not None and elt != self.result.type.element_type:
            self.emit_error("expects the view to keep the source's element type")
            return False
        from ....ir.types import IndexType
        if any(not isinstance(v.type, IndexType) for v in self.indices):
            self.emit_error("expects index-typed view indices")
            return False
        return True


class ExpandDimsOp(NvTileasOp):
    """Inserts a unit dimension at `axis`."""
    name = "nv_tileas.expand_dims"
    traits = (Pure,)
    source = Operand(SHAPED)
    axis = AttrDef(A.IntegerAttr)
    result = Result(SHAPED)
    assembly_format = "$source attr-dict `:` custom<NvTypes>(type($source)) `->` custom<NvTypes>(type($result))"

    def verify_op(self):
        s, ax = list(self.source.type.shape), self.axis.value
        if not 0 <= ax <= len(s):
            self.emit_error(f"expects 'axis' in [0, {len(s)}], but got {ax}")
            return False
        want = tuple(s[:ax] + [1] + s[ax:])
        if tuple(self.result.type.shape) != want or self.result.type.element_type != self.source.type.element_type:
            self.emit_error("expects the result to be the source with a unit dimension inserted at 'axis'")
            return False
        return True


class ReinterpretOp(NvTileasOp):
    """Reads the same bits as another shape/element type (same total bits)."""
    name = "nv_tileas.reinterpret"
    traits = (Pure, SameOperandsAndResultEncoding)
    source = Operand(SHAPED)
    result = Result(SHAPED)
    assembly_format = "$source attr-dict `:` custom<NvTypes>(type($source)) `->` custom<NvTypes>(type($result))"

    def verify_op(self):
        s, r = self.source.type, self.result.type
        bits = [num_elements(t.shape) * (element_width(t.element_type) or 0) for t in (s, r)]
        if None in s.shape or None in r.shape or bits[0] != bits[1] or not bits[0]:
            self.emit_error("expects source and result to hold the same number of bits")
            return False
        return True


class ShuffleOp(NvTileasOp):
    """Permutes a tile's dimensions by `permutation`."""
    name = "nv_tileas.shuffle"
    traits = (Pure,)
    source = Operand(SHAPED)
    permutation = AttrDef(A.DenseArrayAttr)
    result = Result(SHAPED)
    assembly_format = "$source attr-dict `:` custom<NvTypes>(type($source)) `->` custom<NvTypes>(type($result))"

    def verify_op(self):
        perm, s = list(self.permutation.values), self.source.type.shape
        if sorted(perm) != list(range(len(s))):
            self.emit_error(f"expects 'permutation' to be a permutation of [0, {len(s)})")
            return False
        if tuple(self.result.type.shape) != tuple(s[p] for p in perm) or \
                self.result.type.element_type != self.source.type.element_type:
            self.emit_error("expects the result shape to be the permuted source shape")
            return False
        return True


class GenerateOp(NvTileasOp):
    """Builds tiles element by element: the body takes one index per result
    dimension and yields one scalar per result (with nv_tileas.yield)."""
    name = "nv_tileas.generate"
    traits = (SingleBlock,)
    operands_ = VarOperand()
    results = VarResult(SHAPED)
    body = RegionDef()

    def verify_op(self):
        if not self.results:
            self.emit_error("expects at least one result")
            return False
        block = self.body.blocks[0] if self.body.blocks else None
        rank = len(self.results[0].type.shape)
        if block is None or len(block.arguments) != rank:
            self.emit_error(f"expects the body to take {rank} index arguments")
            return False
        term = block.last_op
        want = [r.type.element_type for r in self.results]
        if term is None or term.name != "nv_tileas.yield" or [v.type for v in term.operands] != want:
            self.emit_error("expects the body to yield one element per result")
            return False
        return True
