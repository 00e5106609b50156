"""Views: a load or store through a partition view becomes the view of one
block's tile (nv_tileaa.block_tile, GMEM) plus an nv_tileas.tiled_load /
tiled_store at the tile's origin. The view's padding value rides on the load;
every dimension is marked possibly out of bounds (view shapes are dynamic)."""
from __future__ import annotations

from ..dialects.cuda_tile.types import PartitionViewType
from ..dialects.nv_tileas.attributes import AtomAttr, PaddingAttr
from ..dialects.nv_tileas.ops.control import BlockTileOp
from ..dialects.nv_tileas.ops.memops import TiledLoadOp, TiledStoreOp
from ..dialects.nv_tileas.types import TiledViewType
from ..ir import attributes as A
from ..ir.types import IntegerType
from ..rewrite.pattern import RewritePattern
from .common import forward_token, index_constant, memory_attrs, to_index
from .permuted_views import rewrite_load, rewrite_store


def _block_view(rw, op, view, indices, tile_type):
    idx = [to_index(rw, v, op.location) for v in indices]
    tv = TiledViewType(tuple(tile_type.shape), tile_type.element_type, "GMEM")
    return rw.create(BlockTileOp, location=op.location, source=view, indices=idx, result=tv).result


def _common_attrs(target, vt, rank, load: bool) -> dict:
    out = {"atom": AtomAttr("copy_g2r" if load else "copy_r2g"),
           "in_bounds": A.DenseArrayAttr(IntegerType(1), (False,) * rank)}
    if load and vt.padding_value is not None:
        out["padding_value"] = PaddingAttr(vt.padding_value.value)
    return out


class _TargetPattern(RewritePattern):
    """A lowering pattern that depends on the target architecture."""

    def __init__(self, target):
        super().__init__()
        self.target = target


class LowerLoadView(_TargetPattern):
    root = "cuda_tile.load_view_tko"

    def match_and_rewrite(self, op, rw) -> bool:
        vt = op.view.type
        if not isinstance(vt, PartitionViewType):
            return False  # strided / gather-scatter views: reported by the legality check
        if rewrite_load(op, rw):
            return True   # through the identity view, then a permute (permuted_views.py)
        tile_t = op.results[0].type
        bv = _block_view(rw, op, op.view, list(op.index), tile_t)
        zeros = [index_constant(rw, 0, op.location)] * len(tile_t.shape)
        attrs = {**_common_attrs(self.target, vt, len(tile_t.shape), True), **memory_attrs(op)}
        new = rw.create(TiledLoadOp, location=op.location, view=bv, coords=zeros, offsets=[], token=[],
                        result_types=[tile_t], attributes=attrs)
        forward_token(rw, op, op.results[1], op.token)
        rw.replace_op(op, [new.results[0], None])
        return True


class LowerStoreView(_TargetPattern):
    root = "cuda_tile.store_view_tko"

    def match_and_rewrite(self, op, rw) -> bool:
        vt = op.view.type
        if not isinstance(vt, PartitionViewType):
            return False
        if rewrite_store(op, rw):
            return True
        tile_t = op.tile.type
        bv = _block_view(rw, op, op.view, list(op.index), tile_t)
        zeros = [index_constant(rw, 0, op.location)] * len(tile_t.shape)
        attrs = {**_common_attrs(self.target, vt, len(tile_t.shape), False), **memory_attrs(op)}
        rw.create(TiledStoreOp, location=op.location, view=bv, value=op.tile, coords=zeros, offsets=[],
                  token=[], result_types=[], attributes=attrs)
        forward_token(rw, op, op.results[0], op.token)
        rw.replace_op(op, [None])
        return True


class LowerAtomicRedView(_TargetPattern):
    """atomic_red_view_tko -> nv_tileas.tiled_atomic_rmw on the block's tile
    (its old-value result unused). cuda_tile's `addf` is nv_tileas `add`
    (one mode for both); modes and element types nv_tileas rejects (xchg,
    8-bit, 16-bit integers, 16-bit floats beyond add/max/min) are left for
    the legality check to report."""
    root = "cuda_tile.atomic_red_view_tko"

    def match_and_rewrite(self, op, rw) -> bool:
        from ..dialects.cuda_tile.attributes import AtomicRMWModeAttr
        from ..dialects.nv_tileas.attributes import RmwModeAttr
        from ..dialects.nv_tileas.ops.memops import TiledAtomicRmwOp
        from ..dialects.nv_tileas.types import element_width
        from ..ir.types import FloatType
        vt = op.view.type
        if not isinstance(vt, PartitionViewType):
            return False
        mode = AtomicRMWModeAttr.name_of(op.attributes["mode"])
        mode = "add" if mode == "addf" else mode
        tile_t = op.value.type
        elt = tile_t.element_type
        w = element_width(elt)
        if mode == "xchg" or w == 8 or (w == 16 and (not isinstance(elt, FloatType) or
                                                     mode not in ("add", "max", "min"))):
            return False
        bv = _block_view(rw, op, op.view, list(op.index), tile_t)
        zeros = [index_constant(rw, 0, op.location)] * len(tile_t.shape)
        attrs = {"atom": AtomAttr("copy_r2g"), "rmw_mode": RmwModeAttr(mode), **memory_attrs(op)}
        rw.create(TiledAtomicRmwOp, location=op.location, view=bv, value=op.value, coords=zeros, token=[],
                  result_types=[tile_t], attributes=attrs)
        forward_token(rw, op, op.results[0], op.token)
        rw.replace_op(op, [None])
        return True
