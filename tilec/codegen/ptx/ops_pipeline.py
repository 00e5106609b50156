"""Pipelines and agents: create_pipeline, iterators, produce_one/consume_one,
consumer_wait/release, agent_switch.

A pipeline is `numStages` slots of its stage buffer in shared memory. When its
producer and consumer run in different agents (warp specialization), each
slot has a `full` and an `empty` mbarrier: the producer waits for `empty`
(parity phase^1), fills the slot and arrives on `full`; the consumer waits
for `full` (parity phase), computes and arrives on `empty` (lane 0 of each
consumer warp, after the warp's lanes are done: `empty` counts warps). When one group
runs both sides in program order, group barriers order the slot accesses.
"""
from __future__ import annotations

import math

from ...dialects.nv_tileas.ops import pipeline as pipeline_ops
from ...dialects.nv_tileas.ops.pipeline import agent_warps, slot_fill
from . import multicast
from .emitter import handles, quiet
from .ops_control import Frame
from .ops_memory import SharedView, needs_registers
from .ptxtypes import B32, B64, PRED, byte_size
from .stamps import stamp
from .values import Tile

AGENT_SWITCH = "nv_tileas.async.pipeline.agent_switch"


class Pipe:
    def __init__(self, view, stages, slot_bytes, full=None, empty=None, swizzle=None, tma=False):
        self.view, self.stages, self.slot_bytes = view, stages, slot_bytes
        self.full, self.empty = full, empty   # shared symbols of the mbarrier arrays (agent mode)
        self.swizzle = swizzle                # Swizzle of every slot, or None (row-major)
        self.tma = tma                        # slots filled by TMA: `full` counts the one issuing thread
        self.cluster = 1                      # > 1: slots multicast to the cluster's CTAs (multicast.py)
        self.first = None                     # first_fills.FirstFills: its first slots copied at the entry

    @property
    def agents(self) -> bool:
        """Producer and consumer in different agents (`empty` barriers too)."""
        return self.empty is not None


class Iter:
    """A pipeline position: slot index and phase parity registers, and for a
    pipeline with first fills (first_fills.py) whether the ring is still in its
    first round (1) or has wrapped (0)."""

    def __init__(self, pipe, stage, phase, first=None):
        self.pipe, self.stage, self.phase, self.first = pipe, stage, phase, first

    def fresh(self, em):
        out = Iter(self.pipe, em.kb.reg(B32), em.kb.reg(B32), None if self.first is None else em.kb.reg(B32))
        out.assign(em, self)
        return out

    def assign(self, em, src):
        em.kb.emit(f"mov.b32 \t{self.stage}, {src.stage}")
        em.kb.emit(f"mov.b32 \t{self.phase}, {src.phase}")
        if self.first is not None:
            em.kb.emit(f"mov.b32 \t{self.first}, {src.first}")

    def registers(self) -> list:
        return [r for r in (self.stage, self.phase, self.first) if r is not None]


class Held:
    """A consumer_wait's token: which slot to release."""

    def __init__(self, pipe, it):
        self.pipe, self.it = pipe, it


def _agent_of(op):
    """(agent_switch op, region index) enclosing `op`, or None."""
    child, p = op, op.parent_op
    while p is not None:
        if p.name == AGENT_SWITCH:
            for i, r in enumerate(p.regions):
                if child.parent in r.blocks:
                    return p, i
        child, p = p, p.parent_op
    return None


def _agent_threads(op):
    found = _agent_of(op)
    if found is None:
        return None
    sw, i = found
    if i is None:
        return None
    return 32 * agent_warps(sw)[i]


@handles("nv_tileas.async.pipeline.create_pipeline")
def _create_pipeline(em, op):
    kb = em.kb
    view = em.get(op.operands[0])
    if not isinstance(view, SharedView):
        em.fail("needs a shared-memory stage buffer")
    stages = op.attributes["numStages"].value
    swizzle = _slot_swizzle(op, view)
    slot_elems = 1
    for d in view.shape[1:]:
        slot_elems *= d
    slot_bytes = slot_elems * byte_size(view.etype)
    producers = [_agent_threads(u) for u in op.results[0].users if u.name.endswith("produce_one")]
    consumers = [_agent_threads(u) for u in op.results[1].users if u.name.endswith("consume_one")]
    tma = _filled_by_tma(em, op, swizzle, view.shape[1:])
    if any(producers) or any(consumers):
        p_threads = 1 if tma else next((t for t in producers if t), em.group.threads)
        c_threads = next((t for t in consumers if t), em.group.threads)
        ctas = multicast.pipeline_ctas(em, op) if tma else 1
        if ctas > 1:
            multicast.before_inits(em, op, _drained(op))
        full = kb.shared_buffer(8 * stages, 8, "full", span=kb.WHOLE_KERNEL)
        empty = kb.shared_buffer(8 * stages, 8, "empty", span=kb.WHOLE_KERNEL)
        lead = em.leader()
        for i in range(stages):
            kb.emit(f"@{lead} mbarrier.init.shared.b64 \t[{full}+{8 * i}], {p_threads}")
            # a multicast slot is refilled once the consumer warps of every CTA are done with it
            kb.emit(f"@{lead} mbarrier.init.shared.b64 \t[{empty}+{8 * i}], {c_threads // 32 * ctas}")
        pipe = Pipe(view, stages, slot_bytes, full, empty, swizzle, tma)
        pipe.cluster = ctas
        if tma:
            from .first_fills import plan
            pipe.first = plan(em, op, pipe)
        _publish_inits(em, op)
    elif all(slot_fill(u.regions[0].blocks[0]) is not None
             for u in op.results[0].users if u.name.endswith("produce_one")):
        # one group, slots filled by cp.async: a `full` mbarrier per slot tracks the copies
        full = kb.shared_buffer(8 * stages, 8, "full", span=kb.WHOLE_KERNEL)
        lead = em.leader()
        for i in range(stages):
            kb.emit(f"@{lead} mbarrier.init.shared.b64 \t[{full}+{8 * i}], {1 if tma else em.group.threads}")
        _publish_inits(em, op)
        pipe = Pipe(view, stages, slot_bytes, full, swizzle=swizzle, tma=tma)
    else:
        pipe = Pipe(view, stages, slot_bytes, swizzle=swizzle)
    em.bind(op.results[0], pipe)
    em.bind(op.results[1], pipe)


_NO_BARRIER = ("nv_tileas.async.pipeline.create_iterator", "nv_tileas.alloc_tensor")


def _publish_inits(em, op):
    """Make pipeline `op`'s barrier inits visible to the group: the fence and a
    group barrier, unless another pipeline is created next with only ops that
    touch no barrier between (its own publication then covers both)."""
    nxt = op.next_op
    while nxt is not None and quiet(nxt, _NO_BARRIER):
        nxt = nxt.next_op
    if nxt is not None and nxt.name == op.name:
        return
    if em.target.hopper:
        em.kb.emit("fence.mbarrier_init.release.cluster")
    if not multicast.publish_inits(em):
        em.sync()
    em.inits_published += 1


def _filled_by_tma(em, op, swizzle, shape) -> bool:
    """Whether every produce_one of pipeline `op` fills its slot by one real
    TMA load (ops_tma.tma_fills, read off the IR)."""
    from .ops_tma import tma_fills
    produces = [u for u in op.results[0].users if u.name.endswith("produce_one")]
    return bool(produces) and all(tma_fills(em.target, slot_fill(p.regions[0].blocks[0]), swizzle, shape)
                                  for p in produces)


@handles("nv_tileas.async.pipeline.create_iterator")
def _create_iterator(em, op):
    pipe = em.get(op.operands[0])
    s, p = em.kb.reg(B32), em.kb.reg(B32)
    em.kb.emit(f"mov.u32 \t{s}, 0")
    em.kb.emit(f"mov.u32 \t{p}, 0")
    first = None
    if pipe.first is not None:
        first = em.kb.reg(B32)
        em.kb.emit(f"mov.u32 \t{first}, 1")
    em.bind(op.results[0], Iter(pipe, s, p, first))


def advanced(em, it) -> Iter:
    """The pipeline position after `it`, in new registers: the next slot, the
    phase flipped where the ring wraps."""
    kb = em.kb
    s, p, wrap = kb.reg(B32), kb.reg(B32), kb.reg(PRED)
    kb.emit(f"add.u32 \t{s}, {it.stage}, 1")
    kb.emit(f"setp.eq.u32 \t{wrap}, {s}, {it.pipe.stages}")
    kb.emit(f"selp.u32 \t{s}, 0, {s}, {wrap}")
    kb.emit(f"xor.b32 \t{p}, {it.phase}, 1")
    kb.emit(f"selp.u32 \t{p}, {p}, {it.phase}, {wrap}")
    first = None
    if it.first is not None:
        first = kb.reg(B32)
        kb.emit(f"selp.u32 \t{first}, 0, {it.first}, {wrap}")
    return Iter(it.pipe, s, p, first)


@handles("nv_tileas.async.pipeline.inc_iter")
def _inc_iter(em, op):
    em.bind(op.results[0], advanced(em, em.get(op.operands[0])))


def slot_address(em, pipe, it) -> str:
    kb = em.kb
    base = em.addr_of(pipe.view.addr) if not pipe.view.addr.startswith("%") else pipe.view.addr
    r = kb.reg(B32)
    kb.emit(f"mad.lo.u32 \t{r}, {it.stage}, {pipe.slot_bytes}, {base}")
    em.align_of[r] = math.gcd(em.align_of.get(base, 1), pipe.slot_bytes)
    if pipe.swizzle is not None:
        em.swizzle_of[r] = pipe.swizzle
    return r


DOT = "nv_tileas.dot"


def _slot_swizzle(op, view):
    """The Swizzle for the slots of pipeline `op` when every consumer hands its
    slot straight to rank-2 tensor-core dots (16-bit ones read it with ldmatrix
    or wgmma, eight rows at a time; fp8 ones with wgmma, K-major), else None:
    other readers gain nothing from it."""
    return slot_swizzle(op, view.shape, view.etype)


def slot_swizzle(op, shape, etype):
    """_slot_swizzle from the stage buffer's (stages, [1, ...,] rows, cols) shape
    and element type (operands.slots_swizzled: the dots may read the slots
    through views)."""
    from ...dialects.nv_tileas.operands import slot_shape, slots_swizzled
    if not slots_swizzled(op, shape, etype):
        return None
    from .swizzle import Swizzle
    rows, cols = slot_shape(shape)
    return Swizzle.for_rows(cols * byte_size(etype), rows)


def _barrier(em, sym, it) -> str:
    kb = em.kb
    base = em.addr_of(sym)
    r = kb.reg(B32)
    kb.emit(f"mad.lo.u32 \t{r}, {it.stage}, 8, {base}")
    return r


def wait_full(em, pipe, it):
    """A consumer's wait for slot `it` to be filled: on its `full` barrier, or
    for a slot the issuers copied at the entry (first_fills.py), on its `landed`
    barrier and then a proxy fence (cp.async writes through the generic proxy,
    wgmma reads through the async one)."""
    if pipe.first is None or not pipe.first.issued:
        em.wait_parity(_barrier(em, pipe.full, it), it.phase)
        return
    from .first_fills import copied
    kb = em.kb
    tma, done = kb.label("full_wait"), kb.label("full_waited")
    kb.emit(f"@!{copied(em, pipe, it)} bra \t{tma}")
    landed, zero = kb.reg(B32), kb.reg(B32)
    kb.emit(f"mad.lo.u32 \t{landed}, {it.stage}, 8, {em.addr_of(pipe.first.landed)}")
    kb.emit(f"mov.u32 \t{zero}, 0")
    em.wait_parity(landed, zero)
    kb.emit("fence.proxy.async.shared::cta")
    kb.emit(f"bra.uni \t{done}")
    kb.place(tma)
    em.wait_parity(_barrier(em, pipe.full, it), it.phase)
    kb.place(done)


def arrive(em, addr, pred=None):
    st = em.kb.reg(B64)
    em.kb.emit(f"{'@' + pred + ' ' if pred else ''}mbarrier.arrive.shared.b64 \t{st}, [{addr}]")


def release_slot(em, addr, ctas=1):
    """A consumer warp is done with a slot: its lanes' reads are ordered before
    lane 0's arrival on the slot's `empty` barrier (which counts warps)."""
    em.kb.emit("bar.warp.sync \t-1")
    multicast.arrive_empty(em, em.lane0(), addr, ctas)


@handles("nv_tileas.async.pipeline.produce_one")
def _produce_one(em, op):
    pipe, it = em.get(op.operands[0]), em.get(op.operands[1])
    kb = em.kb
    handed = None
    if pipe.first is not None and pipe.first.issued:
        # a slot the issuers copied at the entry (first_fills.py): nothing to wait for or
        # fill. Not even the round's `empty` wait: the consumers may have released the
        # slot already, and a wait for the phase before the first would then be a wait
        # for the second.
        from .first_fills import copied
        handed = kb.label("filled")
        kb.emit(f"@{copied(em, pipe, it)} bra \t{handed}")
    if pipe.agents:
        flip = kb.reg(B32)
        kb.emit(f"xor.b32 \t{flip}, {it.phase}, 1")
        em.wait_parity(_barrier(em, pipe.empty, it), flip)
    slot = slot_address(em, pipe, it)
    block = op.regions[0].blocks[0]
    shape = pipe.view.shape[1:]
    for a in block.arguments:
        em.bind(a, em.home_tile(pipe.view.etype, shape, slot))
    load = slot_fill(block) if pipe.full is not None else None
    if load is not None:
        em.async_targets[load] = slot
        if pipe.tma:
            em.async_barrier = _barrier(em, pipe.full, it)     # where the TMA copies complete
    em.async_issued = None

    def on_yield(values):
        for v in values:
            if isinstance(v, Tile) and v.home != slot:
                from ...dialects.nv_tileas.layouts import linear_offsets
                em.store_shared(em.regs_of(v), slot, linear_offsets(shape))
        if pipe.tma:
            if em.async_issued != "tma":
                em.fail("expected its slot filled by a TMA copy")    # tma_fills and the copy disagree
        elif pipe.full is not None:
            _arrive_full(em, _barrier(em, pipe.full, it), em.async_issued)
    _region(em, op, block, on_yield)
    em.async_targets.pop(load, None)
    em.async_issued = em.async_barrier = None
    if handed is not None:
        kb.place(handed)


def _arrive_full(em, addr, issued):
    """The producer thread's arrival on a slot's `full` barrier: through
    cp.async.mbarrier.arrive (counted when its copies land) where it issued
    cp.async copies (`issued`: True, or the predicate of that path), a plain
    arrive (after its shared stores) otherwise. (A slot filled by TMA needs
    none: its one issuing thread arrived with the copies' byte count.)"""
    kb = em.kb
    if issued is True:
        kb.emit(f"cp.async.mbarrier.arrive.noinc.shared.b64 \t[{addr}]")
        return
    if issued is not None:
        kb.emit(f"@{issued} cp.async.mbarrier.arrive.noinc.shared.b64 \t[{addr}]")
        st = kb.reg(B64)
        kb.emit(f"@!{issued} mbarrier.arrive.shared.b64 \t{st}, [{addr}]")
        return
    arrive(em, addr)


@handles("nv_tileas.async.pipeline.consume_one")
def _consume_one(em, op):
    pipe, it = em.get(op.operands[0]), em.get(op.operands[1])
    slot = slot_address(em, pipe, it)
    block = op.regions[0].blocks[0]
    shape = pipe.view.shape[1:]
    lazy = []
    for a in block.arguments:
        t = em.home_tile(pipe.view.etype, shape, slot)
        em.bind(a, t)
        if needs_registers(a):
            lazy.append(t)
    frame = _region(em, op, block, lambda values: None, lazy=lazy, run=False)
    em.loops.append(frame)
    em.emit_block(block)
    em.loops.pop()
    for r in op.results:
        em.bind(r, pipe)


def _region(em, op, block, on_yield, lazy=(), run=True):
    frame = Frame(op, [])
    frame.on_yield, frame.lazy = on_yield, list(lazy)
    if not run:
        return frame
    em.loops.append(frame)
    em.emit_block(block)
    em.loops.pop()
    for r in op.results:
        em.bind(r, em.get(op.operands[0]))
    return frame


def _enclosing(em, kinds):
    for f in reversed(em.loops):
        if getattr(f.op, "name", None) in kinds:
            return f
    return None


@handles("nv_tileas.async.pipeline.consumer_wait")
def _consumer_wait(em, op):
    pipe, it = em.get(op.operands[0]), em.get(op.operands[1])
    if pipe.full is not None:
        before = em.kb.section()
        wait_full(em, pipe, it)
        em.full_waits[op.parent_op] = (before, em.kb.section())
    else:
        em.sync()
    stamp(em, "first_data", once=True)
    f = _enclosing(em, ("nv_tileas.async.pipeline.consume_one",))
    if f is not None:
        for t in f.lazy:
            em.regs_of(t)
        f.lazy = []
    em.bind(op.results[0], Held(pipe, it))


@handles("nv_tileas.async.pipeline.consumer_release")
def _consumer_release(em, op):
    held = em.get(op.operands[0])
    if held.pipe.agents and em.inflight:
        from .wgmma_inflight import deferred_release
        addr = _barrier(em, held.pipe.empty, held.it)
        if not deferred_release(em, op, held, addr):
            release_slot(em, addr, held.pipe.cluster)
    elif held.pipe.agents:
        release_slot(em, _barrier(em, held.pipe.empty, held.it), held.pipe.cluster)
    else:
        em.sync()
    em.bind(op.results[0], held.pipe)


@handles("nv_tileas.async.pipeline.yield")
def _pipeline_yield(em, op):
    parent = op.parent_op
    for f in reversed(em.loops):
        if f.op is parent:
            f.on_yield([em.get(v) for v in op.operands])
            return
    em.fail("is not inside a pipeline region")


def _join_plan(em, results):
    """Per result: its byte size, or None (not a tile). The join buffers overlay the
    stage buffers, which are idle once every agent is done; results that fit
    neither there nor in what the target has left go through one buffer in
    chunks of rows. Returns (sizes, chunk bytes or None for a whole-tile join)."""
    kb = em.kb
    sizes = []
    for r in results:
        t = r.type
        if not hasattr(t, "element_type") or not r.uses:      # nothing after the switch reads it
            sizes.append(None)
            continue
        n = 1
        for d in getattr(t, "shape", ()):
            n *= d
        sizes.append(n * byte_size(t.element_type))
    total = sum(x for x in sizes if x)
    offsets, used, _ = kb.shared_layout()
    stage_end = max([offsets[e[0]] + e[1] for e in kb.shared if e[3] == "stage"], default=0)
    from ...conversion.target import target_for
    limit = getattr(target_for(em.target.arch), "smem_bytes", None)
    if limit is None or total <= stage_end or used + total <= limit:
        return sizes, None
    return sizes, max(stage_end, limit - used - 1024, 4096)


def _chunked_join(em, consumer, values, results, chunk_bytes):
    """Hand the last agent's results to the whole CTA through one shared buffer of
    `chunk_bytes`, a block of rows at a time: the agent's threads write rows,
    everyone reads them, and the buffer is reused for the next rows."""
    kb, outer = em.kb, em.group
    sym = kb.shared_buffer(chunk_bytes, 16, "join", reuse_stages=True)
    lo, hi = consumer.first_thread - outer.first_thread, consumer.first_thread - outer.first_thread + consumer.threads
    mine = kb.reg(PRED)
    t = kb.reg(B32)
    kb.emit(f"sub.u32 \t{t}, {outer.tid}, {lo}")
    kb.emit(f"setp.lt.u32 \t{mine}, {t}, {hi - lo}")
    base = em.addr_of(sym)
    out = []
    for v, r in zip(values, results):
        if not isinstance(v, Tile) or not hasattr(r.type, "element_type"):
            out.append(None)
            continue
        shape = tuple(r.type.shape)
        if v.splat:      # one value (a scalar, or a splat): any of the agent's threads writes it
            skip = kb.label("join_skip")
            kb.emit(f"@!{mine} bra \t{skip}")
            em.store_shared(Tile(v.etype, (), None, v.regs), base, ())
            kb.place(skip)
            kb.emit("bar.sync \t0")
            one = em.load_shared(v.etype, (), None, base, ())
            kb.emit("bar.sync \t0")
            out.append(Tile(v.etype, shape, None, one.regs))
            continue
        row_bytes = byte_size(r.type.element_type)
        for d in shape[1:]:
            row_bytes *= d
        rows = max(1, chunk_bytes // row_bytes)
        dst = em.new_tile(r.type.element_type, shape, em.layout_for(shape))
        for r0 in range(0, shape[0], rows):
            n = min(rows, shape[0] - r0)
            skip = kb.label("join_skip")
            kb.emit(f"@!{mine} bra \t{skip}")
            em.group = consumer
            em.store_rows(v, base, r0, n)
            em.group = outer
            kb.place(skip)
            kb.emit("bar.sync \t0")
            em.load_rows(dst, base, r0, n)
            kb.emit("bar.sync \t0")
        out.append(dst)
    return out


@handles(AGENT_SWITCH)
def _agent_switch(em, op):
    kb = em.kb
    outer = em.group
    warps = agent_warps(op)
    if 32 * sum(warps) != outer.threads:
        em.fail(f"needs {32 * sum(warps)} threads but the kernel runs {outer.threads}")
    join = kb.label("agents_join")
    results = list(op.results)
    sizes, chunk_bytes = _join_plan(em, results)
    join_bufs = [None if n is None or chunk_bytes else kb.shared_buffer(n, 16, "join", reuse_stages=True)
                 for n in sizes]
    handoff, remat, uses = _hand_off(em, op)
    outer_remat = {r: em.env[r] for d in remat for r in d.results if r in em.env}
    start = 0
    kept = {}     # the last agent's yielded tiles and group, for a chunked join
    regs = _register_split(em, op, warps)
    for i, (region, nw) in enumerate(zip(op.regions, warps)):
        skip = kb.label(f"agent{i}_end")
        lo, hi = kb.reg(PRED), kb.reg(PRED)
        kb.emit(f"setp.lt.u32 \t{lo}, {outer.tid}, {start * 32}")
        kb.emit(f"setp.ge.u32 \t{hi}, {outer.tid}, {(start + nw) * 32}")
        kb.emit(f"or.pred \t{lo}, {lo}, {hi}")
        kb.emit(f"@{lo} bra \t{skip}")
        tid = kb.reg(B32)
        kb.emit(f"sub.u32 \t{tid}, {outer.tid}, {start * 32}")
        last = i == len(op.regions) - 1
        lone = nw > 1 and not last and _one_warp_suffices(em, region, handoff, remat, uses[i])
        # an agent that takes registers takes them before its prologue (the values it
        # hoists out of its loops live in the new count); one that gives them back
        # does so after it, the prologue still at the entry count
        if regs is not None and regs[1][i] > regs[0]:
            _set_registers(em, regs[0], regs[1][i])
        # what the agent's threads may hold (wgmma_prefetch weighs a prefetch against it)
        em.agent_regs = regs[1][i] if regs is not None else None
        group = em.enter_group(tid, 32 if lone else nw * 32, i + 1, outer.first_thread + start * 32)
        if regs is not None and regs[1][i] < regs[0]:
            _set_registers(em, regs[0], regs[1][i])
        idle = None
        if lone:     # the agent's other warps wait at the join (blocked, not polling its barriers)
            idle = kb.label(f"agent{i}_idle")
            other = kb.reg(PRED)
            kb.emit(f"setp.ge.u32 \t{other}, {tid}, 32")
            kb.emit(f"@{other} bra \t{idle}")
        from ...dialects.nv_tileas.layouts import linear_offsets
        for v, (tile, base) in handoff.items():   # outer tiles, re-read in this agent's layout
            if v in uses[i] and base is None:
                em.bind(v, Tile(tile.etype, tile.shape, em.layout_for(tile.shape), None, tile.home, view=tile.view))
            elif v in uses[i]:
                em.bind(v, em.load_shared(tile.etype, tile.shape, em.layout_for(tile.shape), base,
                                          linear_offsets(tile.shape)))
        for d in remat:
            if d in uses[i]:
                # made again from the handed-off values: the IR names the layout of the
                # definition outside the agent, not of this copy (propagate_layouts._hand_off)
                em.emit_handler(d)

        def on_yield(values, last=last, group=group):
            if not last:
                return
            from ...dialects.nv_tileas.layouts import linear_offsets
            if chunk_bytes:
                kept["values"] = [em.regs_of(v) if isinstance(v, Tile) else v for v in values]
                kept["group"] = group
                em.sync()    # the join buffer overlays the stages: every thread of the agent is done reading them
                return
            if any(sym is not None for sym in join_bufs):
                em.sync()    # the join buffers overlay the stages: every thread of the agent is done reading them
            for v, sym in zip(values, join_bufs):
                if sym is not None and isinstance(v, Tile):
                    em.store_shared(em.regs_of(v), em.addr_of(sym), linear_offsets(v.shape) if v.shape else ())
        frame = Frame(op, [])
        frame.on_yield = on_yield
        em.loops.append(frame)
        em.emit_block(region.blocks[0])
        em.loops.pop()
        drain(em, region.blocks[0])
        if idle is not None:
            kb.place(idle)
        if regs is not None:
            _give_back(em, warps, regs, i)      # every thread meets the join with the entry count
        kb.emit(f"bra.uni \t{join}")
        kb.place(skip)
        start += nw
    kb.place(join)
    em.group = outer
    for v, (tile, _) in handoff.items():
        em.bind(v, tile)
    for v, x in outer_remat.items():
        em.bind(v, x)
    kb.emit("bar.sync \t0")
    if chunk_bytes:
        for r, x in zip(results, _chunked_join(em, kept["group"], kept["values"], results, chunk_bytes)):
            em.bind(r, x)
        return
    from ...dialects.nv_tileas.layouts import linear_offsets
    for r, sym in zip(results, join_bufs):
        if sym is None:
            em.bind(r, None)
            continue
        shape = tuple(r.type.shape)
        em.bind(r, em.load_shared(r.type.element_type, shape, em.layout_for(shape), em.addr_of(sym),
                                  linear_offsets(shape)))


def _drained(op) -> bool:
    """Whether pipeline `op` is filled in agents only, each of which drains it
    (drain) when it ends."""
    fills = [u for u in op.results[0].users if u.name.endswith("produce_one")]
    return bool(fills) and all(_agent_of(u) is not None for u in fills)


def drain(em, block):
    """After a producer agent's ops: for each multicast pipeline it fills, wait on
    every slot's `empty` barrier as if to fill it once more, from the last
    iterator the agent's top level holds. Each CTA's consumers have then released
    every slot, so none of their remote arrivals is still on its way to this CTA:
    it may leave, or initialize the barriers again (a persistent kernel's next
    tile), without a release cluster barrier (a MEMBAR.ALL.GPU in SASS, which
    waits for every memory access in flight)."""
    filled = {id(p): p for top in block.ops for u in top.walk()
              if u.name.endswith("produce_one") and (p := em.get(u.operands[0])).cluster > 1}
    last = {}
    for op in block.ops:
        for r in op.results:
            it = em.env.get(r)
            if isinstance(it, Iter) and id(it.pipe) in filled:
                last[id(it.pipe)] = it
    if len(last) < len(filled):     # _drained promised a drain: no cluster barrier stands in
        em.fail("fills a multicast pipeline without its iterator at the agent's top level to drain it from")
    for it in last.values():
        for _ in range(it.pipe.stages):
            flip = em.kb.reg(B32)
            em.kb.emit(f"xor.b32 \t{flip}, {it.phase}, 1")
            em.wait_parity(_barrier(em, it.pipe.empty, it), flip)
            it = advanced(em, it)


def _register_split(em, op, warps):
    """(entry count, per-agent counts) when the agents rebalance registers with
    setmaxnreg, else None. Only where the producers fill their slots by TMA
    (a cp.async producer needs more than its budget) and every agent is whole
    warpgroups. The counts are the schedule's `max_regs`; the kernel enters
    with their thread-weighted mean (`.maxnreg`), so the registers the
    producers give back cover what the consumers take."""
    budgets = op.attributes.get("max_regs")
    if not em.target.setmaxnreg or budgets is None or len(budgets.values) != len(warps) or any(w % 4 for w in warps):
        return None
    if not any(tma_producer(em, r) for r in op.regions):
        return None
    if any(r.blocks and not tma_producer(em, r) and _produces(r) for r in op.regions):
        return None
    counts = [min(256, max(24, v // 8 * 8)) for v in budgets.values]
    total = sum(c * w for c, w in zip(counts, warps))
    entry = -(-total // (sum(warps) * 8)) * 8
    # ptxas allocates code after a setmaxnreg within its count, but a wgmma
    # fragment needs the entry count too: a lone consumer warpgroup's m64n256
    # wgmma (128 accumulator registers) beside a producer's 40 averaged to 144
    # and was refused (C7602, "register target of 154 or higher")
    fragment = max((_dot_fragment_regs(r) for r in op.regions), default=0)
    if fragment:
        entry = max(entry, min(max(counts), -(-(fragment + WGMMA_SIDE_REGS) // 8) * 8))
    # a launch gets at most the SM's register file (20 warps at 104 would take
    # 66,560 of 65,536), and the counts must fit the pool it starts with, or a
    # setmaxnreg.inc waits forever
    from ...conversion.target import target_for
    t = target_for(em.target.arch)
    if t is not None:
        entry = min(entry, t.regs_per_sm // (32 * sum(warps)) // 8 * 8)
    while sum(c * w for c, w in zip(counts, warps)) > entry * sum(warps):
        i = max(range(len(counts)), key=counts.__getitem__)
        counts[i] -= 8
    if entry > 255 or em.maxnreg not in (None, entry):
        return None
    em.maxnreg = entry
    return entry, counts


# a wgmma's descriptors, addresses and loop state beside its accumulator fragment
WGMMA_SIDE_REGS = 32


def _dot_fragment_regs(region) -> int:
    """32-bit registers per thread of the accumulator fragment of the widest
    single wgmma agent `region` issues: m64nN writes 64 x N values over a
    warpgroup, N wide at most 256 (its whole accumulator may take several)."""
    from ...dialects.nv_tileas.operands import DOT
    best = 0
    for b in region.blocks:
        for x in b.ops:
            for o in x.walk():
                if o.name == DOT and o.results and len(getattr(o.results[0].type, "shape", ())) >= 2:
                    t = o.results[0].type
                    n = min(256, t.shape[-1])
                    best = max(best, 64 * n * max(32, getattr(t.element_type, "width", 32)) // (32 * 128))
    return best


def tma_producer(em, region) -> bool:
    """Whether every pipeline slot agent `region` fills, it fills by TMA (so
    its threads need few registers: setmaxnreg)."""
    produces = [o for b in region.blocks for x in b.ops for o in x.walk() if o.name.endswith("produce_one")]
    return bool(produces) and all(getattr(em.get(p.operands[0]), "tma", False) for p in produces)


def _one_warp_suffices(em, region, handoff, remat, uses) -> bool:
    """Whether agent `region` runs on one warp of its warpgroup: it only fills
    slots by TMA (one thread issues the copies; the rest would only poll the
    `empty` barriers, in issue slots the consumers' warps share), and it computes
    no tile outside those fills, so no layout is spread over its threads. The
    whole warpgroup still enters it for setmaxnreg, as tileiras's load warp does."""
    if not tma_producer(em, region):
        return False
    if any(v in uses for v in handoff) or any(d in uses for d in remat):
        return False
    stack = [x for b in region.blocks for x in b.ops]
    while stack:
        x = stack.pop()
        if x.name.endswith("produce_one") or x.name == "nv_tileas.create_none":   # none: no value, no code
            continue
        if any(getattr(r.type, "shape", ()) for r in x.results):
            return False
        stack.extend(o for r in x.regions for b in r.blocks for o in b.ops)
    return True


def _produces(region):
    return any(o.name.endswith("produce_one") for b in region.blocks for x in b.ops for o in x.walk())


def _give_back(em, warps, regs, i):
    """Agent i, at its end, returns to the entry count. setmaxnreg.inc waits until
    the CTA's pool holds what it asks for: a producer that took its registers back
    at once (after a loop of no or few trips), before the consumers had taken
    theirs, left them waiting for ever. So the agents that took registers give
    them back and arrive at a named barrier (the one after the agents' own),
    on which the agents that gave registers up wait before they take theirs back.
    Both then reach the join with the entry count, as ptxas needs to allocate the
    code after it."""
    entry, counts = regs
    movers = 32 * sum(w for w, c in zip(warps, counts) if c != entry)
    both = any(c > entry for c in counts) and any(c < entry for c in counts)
    bar = f"{len(warps) + 1}, {movers}"
    if counts[i] > entry:
        _set_registers(em, counts[i], entry)
        if both:
            em.kb.emit(f"bar.arrive \t{bar}")
    elif counts[i] < entry:
        if both:
            em.kb.emit(f"bar.sync \t{bar}")
        _set_registers(em, counts[i], entry)


def _set_registers(em, have, want):
    if want < have:
        em.kb.emit(f"setmaxnreg.dec.sync.aligned.u32 \t{want}")
    elif want > have:
        em.kb.emit(f"setmaxnreg.inc.sync.aligned.u32 \t{want}")


# cheap to redo: an agent re-emits these from their (handed-off) operands rather
# than receive their often much larger results (a broadcast 256x1 -> 256x128)


def _hand_off(em, op):
    """Distributed tiles defined outside the agent_switch and used inside it are
    laid out over the whole CTA; write them to shared memory (row-major) before
    the agents split, so each agent can read them in its own layout. Returns
    ({value: (tile, shared address)}, [ops each agent re-emits, in order])."""
    from ...dialects.nv_tileas.layouts import linear_offsets
    inside_ops = [x for r in op.regions for b in r.blocks for inner in b.ops for x in inner.walk()]
    inside = set(inside_ops)
    out, remat, redone = {}, [], set()

    def need(v):
        if v in out or v not in em.env:
            return
        d = getattr(v, "op", None)
        if d in inside or d in redone:
            return
        if getattr(v, "block", None) is not None and v.block.parent_op in inside:
            return
        x = em.env[v]
        if not isinstance(x, Tile) or x.splat:
            return
        if d is not None and d.name in pipeline_ops.AGENT_REMADE:
            redone.add(d)
            for u in d.operands:
                need(u)
            remat.append(d)
            return
        if x.regs is None and (x.home is not None or x.view is not None):
            out[v] = (x, None)       # already in shared memory (a shared layout): every agent reads it there
            return
        x = em.regs_of(x)
        n = 1
        for dim in x.shape:
            n *= dim
        sym = em.kb.shared_buffer(n * byte_size(x.etype), 16, "handoff")
        base = em.addr_of(sym)
        em.store_shared(x, base, linear_offsets(x.shape))
        out[v] = (x, base)

    for inner in inside_ops:
        for v in inner.operands:
            need(v)
    if any(base is not None for _, base in out.values()):
        em.sync()
    # what each agent reads: the handed-off values and re-emitted ops its region uses
    uses = []
    for r in op.regions:
        got, work = set(), [v for b in r.blocks for inner in b.ops for x in inner.walk() for v in x.operands]
        while work:
            v = work.pop()
            if v in got:
                continue
            got.add(v)
            d = getattr(v, "op", None)
            if d in redone:
                got.add(d)
                work.extend(d.operands)
        uses.append(got)
    return out, remat, uses
