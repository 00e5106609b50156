"""TMA producers for sm_90a: when a pending load reads a 2-D..5-D partition
view whose tensor view has unit element stride and is defined outside any
scf op, with an identity dim map, zero (or no) padding and a box whose
innermost extent is a multiple of 16 bytes, the producer issues
`nv_tileas.async.tiled_tma_load` through a descriptor built once at the
kernel's top level, before the loop nest (`make_tiled_tma_desc`: a persistent
kernel's loop over output tiles reuses it), into an SMEM view of the stage
slot, waits on it and yields the slot's tile. Other loads keep the
synchronous tiled_load.

TMA coordinates are element offsets: tile index x tile extent per dim.

The hardware faults on a misaligned tensor map, so TMA is planned only where
the IR proves the alignment (`tma_aligned`): a 16-byte aligned base and
strides that are multiples of 16 bytes. cuTile's 16-aligned kernels carry
exactly these `assume div_by` facts; the others keep cp.async."""
from __future__ import annotations

from ..dialects.nv_tileas.attributes import AtomAttr, OobModeAttr, SwizzleModeAttr
from ..dialects.nv_tileas.builders import build_constant, build_muli
from ..dialects.nv_tileas.ops import layout, memops, tokens
from ..dialects.nv_tileas.ops.tma import AsyncTiledTmaLoadOp, MakeTiledTmaDescOp
from ..dialects.nv_tileas.types import AsyncTokenType, MemTokenType, TiledViewType, TmaDescType, element_width
from ..dialects.nv_tileas.verifiers import defined_under_scf
from ..dialects.cuda_tile.divisibility import returns_early, tma_aligned
from ..dialects.cuda_tile.types import PartitionViewType
from ..ir.types import IndexType
from ..rewrite.clone import clone_op


class TmaPlan:
    def __init__(self, load, block_tile, tensor_view, box):
        self.load, self.block_tile, self.tensor_view, self.box = load, block_tile, tensor_view, box
        self.desc = None
        self.atom = AtomAttr(f"tma_load_{len(box)}d")


def tma_view(view, loop):
    """(block_tile, tensor view, box) when tiled view `view` (a block_tile of a
    partition view) is one a tensor map can address for the ops of `loop`'s
    kernel, else None."""
    bt = getattr(view, "op", None)
    if bt is None or bt.name != "nv_tileaa.block_tile":
        return None
    pv = bt.operands[0]
    pvt = pv.type
    if not isinstance(pvt, PartitionViewType) or tuple(pvt.dim_map) != tuple(range(len(pvt.tile_shape))):
        return None
    pad = pvt.padding_value
    if pad is not None and pad.value != "zero":
        return None
    mpv = getattr(pv, "op", None)
    if mpv is None or mpv.name != "cuda_tile.make_partition_view":
        return None
    tv = mpv.operands[0]
    tvt = tv.type
    box = tuple(pvt.tile_shape)
    width = element_width(tvt.element_type) or 0
    if not 2 <= len(box) <= 5 or tuple(tvt.strides)[-1] != 1 or (box[-1] * width) % 128:
        return None
    if defined_under_scf(tv):       # the descriptor is built once, at the kernel's top level
        return None
    if max(box) > TMA_BOX_MAX or not tma_aligned(tv, width) or returns_early(loop):
        return None
    return bt, tv, box


def plan_tma(load, loop):
    """A TmaPlan for `load`, or None when TMA cannot serve it."""
    found = tma_view(load.view, loop)
    return TmaPlan(load, *found) if found is not None else None


TMA_BOX_MAX = 256       # elements per box dimension


def build_descriptor(b, plan, loc, swizzle="128B"):
    """plan.desc: a make_tiled_tma_desc of plan's tensor view, box and atom
    (the swizzle of a load's slots is settled later: settle_swizzle)."""
    tvt = plan.tensor_view.type
    gview = b.create(layout.ViewOp, loc, source=plan.tensor_view, indices=[],
                     result=TiledViewType(tuple(tvt.shape), tvt.element_type, "GMEM", tuple(tvt.strides))).result
    dims = [build_constant(b, d, IndexType()) for d in plan.box]
    plan.desc = b.create(MakeTiledTmaDescOp, loc, global_view=gview, box_dims=dims, atom=plan.atom,
                         swizzle_mode=SwizzleModeAttr(swizzle), oob_mode=OobModeAttr("zero"),
                         result=TmaDescType(plan.atom)).result


def fill_tma_stage(block, analysis, plan, iv_value, loc):
    """The body of one TMA produce_one region."""
    from ..dialects.nv_tileas.builders import Builder
    from ..dialects.nv_tileas.ops.pipeline import PipelineYieldOp
    b = Builder(block, location=loc)
    mapping = {analysis.iv: iv_value}
    for op in analysis.slices[plan.load]:
        if op is plan.load or op is plan.block_tile:
            continue
        b.insert(clone_op(op, mapping))
    idx = [mapping.get(v, v) for v in plan.block_tile.operands[1:]]
    coords = [build_muli(b, i, build_constant(b, n, IndexType())) for i, n in zip(idx, plan.box)]
    slot = block.arguments[0]
    t = slot.type
    sview = b.create(layout.ViewOp, loc, source=slot, indices=[],
                     result=TiledViewType(tuple(t.shape), t.element_type, "SMEM")).result
    bar = b.create(tokens.CreateNoneOp, loc, result=MemTokenType()).result
    tok = b.create(AsyncTiledTmaLoadOp, loc, desc=plan.desc, dest=sview, coords=coords, barrier=bar,
                   atom=plan.atom, result=AsyncTokenType()).result
    b.create(tokens.AsyncWaitOp, loc, tokens=[tok])
    tile = b.create(memops.LoadOp, loc, view=sview, token=None, result=t).result
    b.create(PipelineYieldOp, loc, values=[tile])


def settle_swizzle(plan, pipe):
    """Give the descriptor of `plan` the swizzle of the slots it fills, once
    pipeline `pipe`'s consumers exist (operands.slots_swizzled decides the slot
    layout): the TMA unit then writes the layout the readers expect."""
    from ..dialects.nv_tileas.operands import slot_shape, slots_swizzled
    buf = pipe.operands[0].type
    shape, etype = tuple(buf.shape), buf.element_type
    mode = "none"
    if slots_swizzled(pipe, shape, etype):
        pitch = slot_shape(shape)[1] * (element_width(etype) // 8)
        mode = {32: "32B", 64: "64B"}.get(pitch, "128B")
    plan.desc.op.attributes["swizzle_mode"] = SwizzleModeAttr(mode)
