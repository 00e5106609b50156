"""TMA descriptors and tiled TMA loads.

The descriptor records the tensor view and box; `async.tiled_tma_load` is
carried out by the issuing group's threads (global loads with zero fill for
out-of-bounds elements, stores into the destination slot, row-major), which
keeps the kernel ABI free of host-built tensor maps. The pipeline's `full`
barrier (or group barrier) publishes the slot as it would a TMA completion."""
from __future__ import annotations

from .emitter import handles
from ...dialects.nv_tileas.layouts import linear_offsets
from .ops_memory import SharedView, async_fill, global_slots, load_slots, vector_width


class TmaDesc:
    def __init__(self, tv, box):
        self.tv, self.box = tv, box


@handles("nv_tileas.make_tiled_tma_desc")
def _make_desc(em, op):
    tv = em.get(op.operands[0])
    em.bind(op.results[0], TmaDesc(tv, list(op.operands[1:])))


@handles("nv_tileas.async.tiled_tma_load")
def _tma_load(em, op):
    desc = em.get(op.desc)
    dest = em.get(op.dest)
    if not isinstance(dest, SharedView):
        em.fail("needs a shared-memory destination")
    shape = dest.shape
    coords = [em.tile(v).reg for v in op.coords]
    tv = desc.tv
    base = dest.addr if dest.addr.startswith("%") else em.addr_of(dest.addr)
    if em.async_targets.get(op) is not None:      # filling a pipeline slot: cp.async, tracked by its barrier
        issued = async_fill(em, tv.base, dest.etype, shape, coords, tv.strides, tv.shape, None, 0, base)
        if issued is not None:
            em.async_issued = issued
            for r in op.results:
                em.bind(r, None)
            return
    layout = em.layout_for(shape)
    slots = global_slots(em, tv.base, dest.etype, shape, layout, coords, tv.strides, tv.shape)
    plan = vector_width(em, dest.etype, layout, tv.strides, tv.shape, None, slots[0][0])
    tile = em.new_tile(dest.etype, shape, layout)
    load_slots(em, tile.regs, dest.etype, slots, layout, plan, 0)
    em.store_shared(tile, base, linear_offsets(shape))
    for r in op.results:
        em.bind(r, None)


@handles("nv_tileas.async.wait")
def _wait(em, op):
    for r in op.results:
        em.bind(r, None)
