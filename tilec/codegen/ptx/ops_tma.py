"""TMA descriptors and tiled TMA loads.

On sm_90a, where the IR proves the tensor view aligned for a tensor map
(divisibility.tma_aligned) and the kernel has one exit, the descriptor is a
real tensor map built on the device (tensormap.py), and a load that fills a
pipeline slot is `cp.async.bulk.tensor` issued by the group's thread 0,
completing on the slot's `full` mbarrier (`arrive.expect_tx` by that thread,
plain arrivals by the others). Slots wider than the swizzle span are panels
(swizzle.py), one copy each.

Otherwise the load is carried out by the issuing group's threads (cp.async
into a pipeline slot, or global loads with zero fill and shared stores), and
the pipeline's `full` barrier (or group barrier) publishes the slot as it
would a TMA completion."""
from __future__ import annotations

from .emitter import handles, quiet
from ...dialects.nv_tileas.layouts import linear_offsets
from .ops_memory import SharedView, async_fill, global_slots, load_slots, store_slots, vector_width
from .ptxtypes import byte_size
from .tensormap import as_b32, desc_box


class TmaDesc:
    def __init__(self, tv, box, tmap=None, cluster=1):
        self.tv, self.box, self.tmap = tv, box, tmap    # tmap: a device-built TensorMap, or None
        self.cluster = cluster     # > 1: each CTA copies 1/cluster of a slot, multicast (multicast.py)


def _tensor_view_value(op):
    v = op.operands[0]
    d = getattr(v, "op", None)
    return d.operands[0] if d is not None and d.name == "nv_tileas.view" else v


def device_map_mode(target, op):
    """The swizzle mode ("none", "32B", ...) of the tensor map descriptor `op`
    becomes on the device, or None when no real TMA serves it (another
    target, a box TMA cannot copy, alignment the IR does not prove, a kernel
    that may return early, a descriptor inside control flow)."""
    from ...dialects.cuda_tile.divisibility import returns_early, tma_aligned
    from ...dialects.nv_tileas.types import element_width
    from .tensormap import SWIZZLE_CODE
    box = desc_box(op)
    if (not target.tensormap_replace or box is None or not 1 <= len(box) <= 5 or max(box) > 256
            or op.parent_op is None or op.parent_op.name != "cuda_tile.entry"):
        return None
    width = element_width(op.operands[0].type.element_type) or 0
    if not tma_aligned(_tensor_view_value(op), width) or returns_early(op):
        return None
    swz = op.attributes.get("swizzle_mode")
    mode = swz.value if swz is not None else "none"
    return mode if mode in SWIZZLE_CODE else None


def tma_fills(target, load, swizzle, shape) -> bool:
    """Whether pipeline-slot load `load` (a tiled TMA load) is a real TMA copy
    into slots of `shape` stored with `swizzle` (a Swizzle or None): read off
    the IR, so the pipeline's barriers can be set up for it before the
    descriptor is emitted."""
    if load is None or load.name != "nv_tileas.async.tiled_tma_load":
        return False
    desc = getattr(load.desc, "op", None)
    if desc is None or desc.name != "nv_tileas.make_tiled_tma_desc":
        return False
    mode = device_map_mode(target, desc)
    return mode is not None and mode == _swizzle_name(swizzle) and desc_box(desc) == tuple(shape)


@handles("nv_tileas.make_tiled_tma_desc")
def _make_desc(em, op):
    tv = em.get(op.operands[0])
    if device_map_mode(em.target, op) is None:
        em.bind(op.results[0], TmaDesc(tv, list(op.operands[1:])))
        return
    from .multicast import multicast_ctas, slice_box
    from .tensormap import build_maps
    batch = _batch(em, op)
    views = [em.get(d.operands[0]) for d in batch]
    ctas = [multicast_ctas(em, d) for d in batch]
    specs = [(v, slice_box(desc_box(d), c) if c > 1 else desc_box(d), device_map_mode(em.target, d))
             for v, d, c in zip(views, batch, ctas)]
    # descriptors of one tensor view with one box and swizzle share a map
    distinct = list({(id(v), box, mode): (v, box, mode) for v, box, mode in specs}.values())
    from .first_fills import filled_through, issue, set_up_after
    set_up_after(em, batch[-1], quiet)     # pipelines set up after the maps, before the agents fork
    pipes = filled_through(em, batch)
    meanwhile = (lambda: issue(em, pipes)) if pipes else None
    built = dict(zip([(id(v), box, mode) for v, box, mode in distinct], build_maps(em, distinct, meanwhile)))
    for d, (v, box, mode), c in zip(batch, specs, ctas):
        em.bind(d.results[0], TmaDesc(v, list(d.operands[1:]), built[(id(v), box, mode)], c))
        em.early.add(d)


def _batch(em, op):
    """`op` and the device-mapped descriptors that follow it in its block with
    only views and pure scalar ops between (emitted here, ahead of their turn):
    one claim, one round trip for their keys, one barrier."""
    out = [op]
    nxt = op.next_op
    while nxt is not None and (nxt.name == op.name or quiet(nxt)):
        if nxt.name != op.name and nxt not in em.early and all(v in em.env for v in nxt.operands):
            em.emit_op(nxt)       # (one whose operands are not made yet waits for its turn:
            em.early.add(nxt)     # a batch emitted ahead of it, operand_loads.maps_ahead)
        elif device_map_mode(em.target, nxt) is not None and all(v in em.env for v in nxt.operands):
            out.append(nxt)
        nxt = nxt.next_op
    return out


def _swizzle_name(swz):
    return "none" if swz is None else {32: "32B", 64: "64B"}.get(min(swz.pitch, 128), "128B")


def _acquired(em, m):
    """(the group's leader predicate, map `m`'s address), once the leader may issue
    copies through `m`."""
    lead = em.leader()
    if em.group.first_thread != 0 and m.gate is not None:
        from .tensormap import await_map
        return lead, await_map(em, m, lead)       # no CTA barrier ended the maps' batch
    addr = m.address(em)
    fenced = em.group.owners.setdefault("tensormaps_acquired", set())
    if m.addr not in fenced and em.group.first_thread != 0:
        # CTA thread 0 acquired every map when warp 0 built them (tensormap.build_maps);
        # another issuing thread acquires the map the building warp released (once per group)
        fenced.add(m.addr)
        with em._prologue():
            em.kb.emit(f"@{lead} fence.proxy.tensormap::generic.acquire.gpu \t[{addr}], 128")
    return lead, addr


def _issue_tma(em, op, desc, dest, base):
    """cp.async.bulk.tensor copies of the slot at `base` from `desc`'s map, by
    the group's thread 0, completing on the slot's `full` barrier. Only for a
    pipeline that tma_fills read off the IR as TMA-filled (the produce_one set
    em.async_barrier); False (nothing emitted) otherwise."""
    m = desc.tmap
    swz = em.swizzle_of.get(base)
    bar = em.async_barrier
    if bar is None or m is None:
        return False
    kb = em.kb
    lead, addr = _acquired(em, m)
    nbytes = byte_size(dest.etype)
    for d in dest.shape:
        nbytes *= d
    coords = [em.tile(v).reg for v in op.coords]
    coords = [as_b32(em, c) for c in reversed(coords)]      # the map's order: innermost first
    kb.emit(f"@{lead} mbarrier.arrive.expect_tx.shared::cta.b64 \t_, [{bar}], {nbytes}")
    if desc.cluster > 1:      # this CTA's slice, into every CTA of the cluster
        from .multicast import issue
        issue(em, lead, m, addr, swz, base, coords, dest.shape, byte_size(dest.etype), bar, desc.cluster)
        em.async_issued = "tma"
        return True
    for dst, where in m.panels(em, swz, base, coords, dest.shape[-1]):
        kb.emit(f"@{lead} cp.async.bulk.tensor.{len(coords)}d.{em.target.tma_into_cta}.global"
                ".mbarrier::complete_tx::bytes "
                f"\t[{dst}], [{addr}, {{{where}}}], [{bar}]")
    em.async_issued = "tma"
    return True


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
    if em.async_targets.get(op) is not None and _issue_tma(em, op, desc, dest, base):
        for r in op.results:
            em.bind(r, None)
        return
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


class BulkStore:
    """The token of a TMA store: the group committed its copies as one bulk group."""

    def __init__(self, op):
        self.op = op


@handles("nv_tileas.async.tiled_tma_store")
def _tma_store(em, op):
    """Every thread of the group fences its shared stores of the tile for the
    async proxy and meets the others at the group barrier; then the leader
    copies the tile out through the map, one copy per swizzle panel (elements
    outside the tensor are not written), and commits them as one bulk group.
    Without a device map the group copies the tile out itself."""
    desc, src = em.get(op.desc), em.get(op.source)
    if not isinstance(src, SharedView):
        em.fail("needs a shared-memory source")
    kb = em.kb
    base = src.addr if src.addr.startswith("%") else em.addr_of(src.addr)
    coords = [em.tile(v).reg for v in op.coords]
    m = desc.tmap
    if m is None:
        em.sync()
        tv = desc.tv
        layout = em.layout_for(src.shape)
        tile = em.load_shared(src.etype, src.shape, layout, base, linear_offsets(src.shape))
        slots = global_slots(em, tv.base, src.etype, src.shape, layout, coords, tv.strides, tv.shape)
        plan = vector_width(em, src.etype, layout, tv.strides, tv.shape, None, slots[0][0])
        store_slots(em, tile.regs, src.etype, slots, layout, plan)
        em.bind(op.results[0], None)
        return
    kb.emit("fence.proxy.async.shared::cta")
    em.sync()
    lead, addr = _acquired(em, m)
    swz = em.swizzle_of.get(base)
    coords = [as_b32(em, c) for c in reversed(coords)]      # the map's order: innermost first
    for at, where in m.panels(em, swz, base, coords, src.shape[-1]):
        kb.emit(f"@{lead} cp.async.bulk.tensor.{len(coords)}d.global.shared::cta.bulk_group "
                f"\t[{addr}, {{{where}}}], [{at}]")
    kb.emit(f"@{lead} cp.async.bulk.commit_group")
    em.bind(op.results[0], BulkStore(op))


@handles("nv_tileas.async.wait")
def _wait(em, op):
    """TMA loads complete on their barriers; a TMA store's group is waited for by
    its leader: until the copies have read the tile when a loop may write it
    again (and then the group waits for the leader), else until they are done,
    so the CTA's tensor maps and shared memory outlive them."""
    for v in op.operands:
        token = em.env.get(v)
        if not isinstance(token, BulkStore):
            continue
        again = any(a.name in ("scf.for", "scf.while", "cuda_tile.loop", "cuda_tile.for") for a in op.ancestors())
        em.kb.emit(f"@{em.leader()} cp.async.bulk.wait_group{'.read' if again else ''} \t0")
        if again:
            em.sync()
    for r in op.results:
        em.bind(r, None)
