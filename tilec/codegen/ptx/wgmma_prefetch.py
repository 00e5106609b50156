"""A loop's independent wgmma dot issued one iteration ahead (sm_90a).

Attention's key loop computes S = Q K_j^T, then the softmax of S, then
O += P V_j. Each warpgroup ran them one after another, so the tensor cores sat
idle during its softmax and the CUDA cores during its dots. A dot whose
operands do not depend on the iteration's other work -- each one loop-invariant
or a whole pipeline slot that the loop's iterator advances once per trip --
and whose accumulator is loop-invariant (a zero tile) can run early: iteration
j issues iteration j + 1's dot as soon as it has read its own dot's result for
the last time, and that group runs under the rest of iteration j (attention:
the max, exp2, the row sum and P V_j). At the dot's own place an iteration only
waits for its group. The first trip's dot is issued before the loop.

The rules that make it safe:

* The result registers are free once the last op that reads them is done:
  the *anchor*, the last op of the dot's block that uses the result or a value
  that may share its registers (the results of any op that does not always
  compute new registers, transitively). A value that leaves the block (its
  terminator uses it) keeps the registers: no prefetch.
* The next trip exists: `iv + step < ub`, a uniform branch around the issue.
* Its slot is full: the issuing warpgroup waits on the slot's `full` barrier of
  the next pipeline position (the iteration's own consumer_wait for it later
  passes at once: the slot is not released before). So the pipeline needs two
  stages, and the loop no early exit.
* Only the dot's own block (and consume_one scopes around it) separates it from
  its loop, so every trip runs it exactly once.
"""
from __future__ import annotations

from .ptxtypes import PRED, bits

LOOPS = ("scf.for", "cuda_tile.for")
AGENT_SWITCH = "nv_tileas.async.pipeline.agent_switch"
CONSUME = "nv_tileas.async.pipeline.consume_one"
INC_ITER = "nv_tileas.async.pipeline.inc_iter"
EXITS = ("cuda_tile.break", "cuda_tile.return", "cuda_tile.continue")
# ops whose results are always new registers (never their operands')
FRESH = {f"cuda_tile.{n}" for n in ("addf", "subf", "mulf", "divf", "maxf", "minf", "fma", "ftof",
                                   "exp", "exp2")}


class Plan:
    def __init__(self, loop, anchor, slots, acc):
        self.loop, self.anchor, self.slots = loop, anchor, slots   # slots: operand index -> consume_one
        self.acc = acc              # the loop-invariant value the accumulator starts from


def _loop_of(op):
    """The loop whose every trip runs `op` once, through consume_one scopes only."""
    p = op.parent_op
    while p is not None and p.name == CONSUME:
        p = p.parent_op
    return p if p is not None and p.name in LOOPS else None


def _advanced_once(loop, it) -> bool:
    """Whether iterator `it` is a block argument of `loop` that its yield
    advances by one inc_iter."""
    body = loop.regions[0].blocks[0]
    if it not in body.arguments:
        return False
    index = list(body.arguments).index(it) - 1
    y = list(body.ops)[-1]
    if index < 0 or index >= len(y.operands):
        return False
    nxt = getattr(y.operands[index], "op", None)
    return nxt is not None and nxt.name == INC_ITER and nxt.operands[0] is it


def _anchor(dot):
    """The last op of dot's block that reads its result registers, or None
    when they leave the block."""
    block = dot.parent
    ops = list(block.ops)
    pos = {o: i for i, o in enumerate(ops)}
    last, todo, seen = dot, [dot.results[0]], set()
    while todo:
        v = todo.pop()
        for u in v.uses:
            user = u.owner
            top = user
            while top is not None and top.parent is not block:
                top = top.parent_op
            if top is None or top is ops[-1]:
                return None
            if pos[top] > pos[last]:
                last = top
            if user.name not in FRESH:
                for r in user.results:
                    if r not in seen:
                        seen.add(r)
                        todo.append(r)
    return last if last is not dot else None


def plan(em, dot):
    """A Plan when `dot` may be issued one iteration ahead, else None."""
    from ...dialects.nv_tileas.operands import slot_source
    from .emitter import _defined_in
    loop = _loop_of(dot)
    if loop is None or any(x.name in EXITS for x in loop.walk()):
        return None
    acc = dot.operands[2]
    while getattr(acc, "op", None) is not None and acc.op.name == "nv_tileas.convert_layout" \
            and _defined_in(acc, loop):
        acc = acc.op.operands[0]      # a layout change of a loop-invariant tile is one too
    if _defined_in(acc, loop):
        return None
    slots = {}
    for i, v in enumerate(dot.operands[:2]):
        if not _defined_in(v, loop):
            continue
        src = slot_source(v)
        if src is None:
            return None
        consume = src[0].block.parent_op
        pipe = em.get(consume.operands[0])
        if not getattr(pipe, "agents", False) or pipe.full is None or pipe.stages < 2 \
                or not _advanced_once(loop, consume.operands[1]):
            return None
        slots[i] = consume
    anchor = _anchor(dot)
    if not slots or anchor is None or not _room(em, loop, dot, anchor):
        return None
    return Plan(loop, anchor, slots, acc)


def _room(em, loop, dot, anchor) -> bool:
    """Whether the agent's registers hold the next trip's accumulator beside
    what the trip keeps live from the anchor on, or the trip is over its budget
    anyway. A prefetch that is what breaks the budget costs more than it hides:
    ptxas spills and serializes every wgmma (C7512), as TileGym's flash-attention
    backward did with S_{j+1} beside P_j, dP_j and the dQ accumulator in a
    216-register consumer, and with dK's and dV's in 168 registers a thread."""
    from ...schedule.budget import OVERHEAD_REGS, tile_regs
    from ...conversion.target import target_for
    from ...dialects.nv_tileas.ops.pipeline import agent_warps
    switch, region = loop, None
    while switch is not None and switch.name != AGENT_SWITCH:
        region, switch = switch.parent.parent, switch.parent_op
    if switch is None:
        return True
    warps = agent_warps(switch)
    threads = 32 * warps[switch.regions.index(region)]
    # after setmaxnreg the agent's own count; else every thread's share of the file
    budget = em.agent_regs or min(255, target_for(em.target.arch).regs_per_sm // (32 * sum(warps)) // 8 * 8)
    held = _peak_from(loop, anchor, threads)
    # a trip whose tiles alone are over the budget spills either way; ptxas did no
    # worse with the prefetch there (TileGym's 256-row fmha: 3048 spilled bytes with, 3816
    # without). The estimate errs high, so the overhead counts only against the prefetch.
    return held > budget or held + tile_regs(dot.results[0].type, threads) + OVERHEAD_REGS <= budget


def _peak_from(loop, anchor, threads: int) -> int:
    """Registers per thread of the distributed tiles live at once in `loop`'s
    body from `anchor` to the end of the trip: the carried tiles, the tiles made
    above the loop that the body reads, and the body's own from their
    definition to their last reader (in the walk's order). Splats, tiles in
    shared memory, and values that share another's registers (a broadcast of a
    smaller tile, a reshape, a read of a register cell) count nothing."""
    from ...schedule.budget import tile_regs
    order = {o: i for i, o in enumerate(loop.walk())}
    start, last = order[anchor], {}
    for o, i in order.items():
        for v in o.operands:
            last[v] = i
    body = loop.regions[0].blocks[0]
    live = [0] * (len(order) + 1)
    fixed = 0
    for v, end in last.items():
        n = _regs(v, threads, tile_regs)
        d = getattr(v, "op", None)
        if not n or end < start:
            continue
        if d is None or d not in order:
            if d is None and v.block is not body and v.block.parent_op in order:
                begin = order[v.block.parent_op]      # a nested region's argument
            else:
                fixed += n                          # carried, or made above the loop
                continue
        else:
            begin = order[d]
        live[max(begin, start)] += n
        live[end] -= n
    peak = run = 0
    for i in range(start, len(live)):
        run += live[i]
        peak = max(peak, run)
    return fixed + peak


SHARED_REGS = ("cuda_tile.reshape", "nv_tileas.load", "cuda_tile.permute", "nv_tileas.shuffle")


def _regs(v, threads: int, tile_regs) -> int:
    from ...dialects.cuda_tile.types import TileType
    from ...schedule.budget import broadcast_of_smaller
    t = v.type
    if not isinstance(t, TileType) or not t.shape:
        return 0
    d = getattr(v, "op", None)
    if d is not None:
        lay = d.attributes.get("nv_tileas.layouts")
        kind = getattr(lay.elements[v.index], "kind", None) if lay is not None and len(lay) > v.index else None
        if kind is not None and kind not in ("blocked", "mma", "wgmma", "slice"):
            return 0
        if d.name in SHARED_REGS or broadcast_of_smaller(v):
            return 0
    return tile_regs(t, threads)


def _trip_exists(em, loop, ahead: bool) -> str:
    """A predicate: the loop runs the current trip (its first, before the loop:
    `lb < ub`) or, `ahead`, another one after it (`iv + step < ub`)."""
    kb = em.kb
    body = loop.regions[0].blocks[0]
    iv, ub = em.get(body.arguments[0]).reg, em.get(loop.operands[1]).reg
    t = loop.operands[0].type
    w = 64 if bits(getattr(t, "element_type", t)) == 64 else 32
    if ahead:
        nxt = kb.reg("b64" if w == 64 else "b32")
        kb.emit(f"add.s{w} \t{nxt}, {iv}, {em.get(loop.operands[2]).reg}")
        iv = nxt
    p = kb.reg(PRED)
    kb.emit(f"setp.lt.{'u' if 'unsignedCmp' in loop.attributes else 's'}{w} \t{p}, {iv}, {ub}")
    return p


class Prefetched:
    """One emission of a prefetched dot: its fixed result registers and how to
    issue it for a pipeline position (`advance`: the next one)."""

    def __init__(self, em, pl, issue):
        self.em, self.plan, self.issue = em, pl, issue

    def _issue_at(self, advance: bool):
        from .ops_pipeline import advanced, slot_address, wait_full
        em = self.em
        addrs = {}
        for i, consume in self.plan.slots.items():
            it = em.get(consume.operands[1])
            if advance:
                it = advanced(em, it)
            wait_full(em, it.pipe, it)
            addrs[i] = slot_address(em, it.pipe, it)
        self.issue(addrs)

    def _guarded(self, pred, advance):
        kb = self.em.kb
        skip = kb.label("prefetch_done")
        kb.emit(f"@!{pred} bra \t{skip}")
        self._issue_at(advance)
        kb.place(skip)

    def before_loop(self, frame):
        em = self.em
        with em.kb.into(frame.preheader):
            self._guarded(_trip_exists(em, self.plan.loop, ahead=False), advance=False)

    def after_anchor(self, em):
        self._guarded(_trip_exists(em, self.plan.loop, ahead=True), advance=True)


def start(em, dot, pl, issue):
    """Set up `dot` (Plan `pl`) as prefetched in this emission: the first trip's
    group before the loop, the next trip's after the anchor. `issue(addrs)`
    emits the group with the slot operands at `addrs` (operand index ->
    shared address register), without waiting. None when the loop's frame is
    not open."""
    frame = next((f for f in reversed(em.loops) if f.op is pl.loop), None)
    if frame is None or frame.preheader is None:
        return None
    pf = Prefetched(em, pl, issue)
    pf.before_loop(frame)
    # nothing is in flight after the loop (the last trip prefetches nothing); saying
    # so keeps ptxas from guarding the loop's exit with a wait of its own (C7517)
    frame.after.append(lambda em: em.kb.emit("wgmma.wait_group.sync.aligned \t0"))
    em.after_op.setdefault(pl.anchor, []).append(pf.after_anchor)
    return pf
