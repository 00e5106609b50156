"""wgmma kept in flight across K-loop iterations (sm_90a).

A K loop whose one wgmma dot accumulates into a loop-carried tile that only
it touches lets iteration i's wgmma group run while iteration i+1 waits for
its operands: the loop waits with `wgmma.wait_group 1` (group i-1 done, group
i in flight) instead of 0.

What that needs, and the rules that give it:

* The accumulator never leaves its registers inside the loop (reading or
  copying registers of a group in flight is undefined, and ptxas serializes
  every wgmma when it sees it): `accumulator_chain` finds the IR shape
  `A (iter arg) -> view V -> load -> [convert_layout] -> dot -> store V ->
  load -> yield` with every link used once. The emitter then aliases: the
  view is A's registers, the loads are V's registers, the dot accumulates in
  them, and the store and the yield move nothing.
* A slot the dot reads may be refilled only once its group is done: the
  consumer_release of each slot the dot reads (pipelines with `empty`
  barriers) is deferred by one iteration. The release records the slot's
  barrier in a register; the next iteration's dot arrives on it after its
  `wait_group 1`; after the loop, `wait_group 0` and the last arrivals.
* The iteration in flight holds its slots one iteration longer, so every
  pipeline read needs two stages at least (with one, the producer would wait
  for a slot the consumer releases only after the next one is full).
* Only when the loop body holds this one dot and reads both operands from
  shared memory (a register A would have to stay untouched in flight too),
  and has no early exit (break, return) that would skip the final wait.
"""
from __future__ import annotations

from .ptxtypes import B32, PRED

LOOPS = ("scf.for", "cuda_tile.for")


def _single_use(v):
    uses = list(v.uses)
    return uses[0].owner if len(uses) == 1 else None


def accumulator_chain(dot):
    """(view op, first load, second load, loop op) when `dot`'s accumulator
    runs around a loop through registers only the dot touches, else None."""
    c = dot.operands[2]
    d = getattr(c, "op", None)
    if d is not None and d.name == "nv_tileas.convert_layout":
        if _single_use(c) is not dot:
            return None
        c = d.operands[0]
        d = getattr(c, "op", None)
    if d is None or d.name != "nv_tileas.load" or _single_use(c) is None:
        return None
    view = getattr(d.operands[0], "op", None)
    if view is None or view.name != "nv_tileas.view":
        return None
    arg = view.operands[0]
    block = getattr(arg, "block", None)
    loop = getattr(block, "parent_op", None) if block is not None else None
    if loop is None or loop.name not in LOOPS or arg not in block.arguments or _single_use(arg) is not view:
        return None
    users = [u.owner for u in view.results[0].uses]
    store = _single_use(dot.results[0])
    if store is None or store.name != "nv_tileas.store" or store.operands[0] is not view.results[0]:
        return None
    later = [u for u in users if u is not d and u is not store]
    if len(users) != 3 or len(later) != 1 or later[0].name != "nv_tileas.load":
        return None
    load2 = later[0]
    y = _single_use(load2.results[0])
    index = list(block.arguments).index(arg) - (1 if loop.name in LOOPS else 0)
    if y is None or y.parent is not block or index < 0 or index >= len(y.operands) \
            or y.operands[index] is not load2.results[0]:
        return None
    order = {x: i for i, x in enumerate(loop.walk())}
    if not order.get(d, -1) < order.get(store, -1) < order.get(load2, -1):
        return None
    return view, d, load2, loop


def view_chain(view):
    """accumulator_chain of the dot an RMEM view `view` feeds, when `view` is its
    view (the emitter then aliases the view and its loads), else None."""
    for u in view.results[0].uses:
        load = u.owner
        if load.name != "nv_tileas.load":
            continue
        x = _single_use(load.results[0])
        if x is not None and x.name == "nv_tileas.convert_layout":
            x = _single_use(x.results[0])
        if x is not None and x.name == "nv_tileas.dot":
            chain = accumulator_chain(x)
            if chain is not None and chain[0] is view:
                return chain
    return None


def inflight_loop(dot):
    """The loop whose iterations may keep `dot`'s wgmma group in flight, or None."""
    chain = accumulator_chain(dot)
    if chain is None:
        return None
    loop = chain[3]
    dots = [x for x in loop.walk() if x.name == "nv_tileas.dot"]
    exits = [x for x in loop.walk() if x.name in ("cuda_tile.break", "cuda_tile.return", "cuda_tile.continue")]
    if dots != [dot] or exits:
        return None
    return loop


class InFlight:
    """The deferred releases of one in-flight dot: per consume_one whose slot it
    reads, a flag and the `empty` barrier address of the previous iteration."""

    def __init__(self, em, consumes):
        kb = em.kb
        self.consumes = {c: (kb.reg(PRED), kb.reg(B32), em.get(c.operands[0]).cluster) for c in consumes}
        with em._prologue():
            for has, _, _ in self.consumes.values():
                kb.emit(f"setp.ne.u32 \t{has}, 0, 0")

    def release_previous(self, em):
        """After `wait_group 1` (which converges each warp): the previous
        iteration's slots are free; lane 0 of each warp arrives."""
        from .multicast import arrive_empty
        kb = em.kb
        for has, addr, ctas in self.consumes.values():
            go = kb.reg(PRED)
            kb.emit(f"and.pred \t{go}, {has}, {em.lane0()}")
            arrive_empty(em, go, addr, ctas)

    def drain(self, em):
        """After the loop: every group done, the last slots released."""
        em.kb.emit("wgmma.wait_group.sync.aligned \t0")
        self.release_previous(em)
        for has, _, _ in self.consumes.values():
            em.kb.emit(f"setp.ne.u32 \t{has}, 0, 0")

    def defer(self, em, consume, barrier_addr) -> bool:
        got = self.consumes.get(consume)
        if got is None:
            return False
        has, addr, _ = got
        em.kb.emit(f"mov.u32 \t{addr}, {barrier_addr}")
        em.kb.emit(f"setp.eq.u32 \t{has}, 0, 0")
        return True


def start(em, dot, make=InFlight):
    """Register `dot` as kept in flight with its loop's frame (drained after the
    loop) when the rules above hold; returns its InFlight (`make(em, consumes)`:
    ops_tcgen05 keeps a commit in flight the same way), or None."""
    from ...dialects.nv_tileas.operands import slot_source
    loop = inflight_loop(dot)
    frame = next((f for f in reversed(em.loops) if f.op is loop), None) if loop is not None else None
    if frame is None:
        return None
    consumes = []
    for v in dot.operands[:2]:
        src = slot_source(v)
        if src is None:
            return None
        consume = src[0].block.parent_op
        pipe = em.get(consume.operands[0])
        if not getattr(pipe, "agents", False) or pipe.stages < 2:
            return None       # no `empty` barrier to defer, or no second slot to fill meanwhile
        consumes.append(consume)
    state = make(em, consumes)
    frame.after.append(state.drain)
    em.inflight.append(state)
    return state


def deferred_release(em, op, held, barrier_addr) -> bool:
    """consumer_release `op` of `held`'s slot: recorded for the next iteration
    when an in-flight dot reads that slot."""
    consume = op.parent_op
    while consume is not None and not consume.name.endswith("consume_one"):
        consume = consume.parent_op
    return any(s.defer(em, consume, barrier_addr) for s in em.inflight)
