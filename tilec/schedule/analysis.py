"""Schedule analysis of loop bodies: which tiled loads feed which compute ops,
what each load's address depends on, and whether the loop can be software
pipelined at all.

A candidate is an scf.for whose body (at top level) holds tiled loads feeding
an MMA (nv_tileas.dot), or gathers a dot reads (_stageable). It is
pipelinable when
- every iter_arg is a tile (they become register-resident accumulators),
- the body writes no memory and has no other side effects besides its loads,
  or its writes are stores that no token orders against its reads or they
  against the stores (`nv_tileas.unordered`: the spec leaves their order
  undefined), which then stay in the consumer in program order,
- each load takes no token and its address (the producer slice: the pure ops
  its operands come from inside the body) depends on the induction variable
  and values defined above the loop only, never on iter_args or loaded data.
"""
from __future__ import annotations

from ..conversion.common import UNORDERED
from ..ir.record import factory, mutable

from ..rewrite.effects import is_side_effect_free, touches_no_memory
from .trip_count import runs_at_most_once

LOAD = "nv_tileas.tiled_load"
COMPUTE = ("nv_tileas.dot",)  # register-only compute: no memory effects
COMBINING = ("nv_tileas.reduce", "nv_tileas.scan")
LOOP_CARRIED_ADDRESS = "a load address depends on loop-carried or loaded data"


# reads other than tiled loads (a gather through a tile of pointers): not pipelined, but a
# loop whose body writes no memory keeps them in its body beside the pipelined loads
READS = ("nv_tileas.gather_load",)


# stores a pipelined loop may keep in its body, in the consumer's program order, where
# neither they nor the loop's reads are ordered by tokens (conversion/common.UNORDERED)
STORES = ("nv_tileas.tiled_store", "nv_tileas.scatter_store")


def _unordered(op, names) -> bool:
    return op.name in names and UNORDERED in op.attributes


def register_only(op) -> bool:
    """No memory effects although not Pure: the MMA, and reduce/scan (which
    carry MemoryConsistencyOpInterface because their bodies *may* hold
    ordering-sensitive ops) whose bodies are side-effect free."""
    if op.name in COMPUTE:
        return True
    if op.name not in COMBINING:
        return False
    return all(inner is op or inner.name == "nv_tileas.yield" or is_side_effect_free(inner)
               for inner in op.walk())


@mutable
class LoopSchedule:
    loop: object
    loads: list = factory(list)          # tiled_load and staged gather_load ops, body order
    computes: list = factory(list)       # dot ops, body order
    feeds: dict = factory(dict)          # load -> compute ops its tile reaches
    slices: dict = factory(dict)         # load -> producer slice ops (body order, load last)
    varying: dict = factory(dict)        # load -> depends on the induction variable
    # READS the consumer issues before it waits for its slots, with the pure ops their
    # operands come from (none uses a slot or a loop-carried value): their latency then
    # overlaps the wait and the MMAs in flight instead of following them
    early: set = factory(set)
    reason: str | None = None                          # why it cannot be pipelined

    @property
    def pipelinable(self) -> bool:
        return self.reason is None and bool(self.loads) and bool(self.computes)

    @property
    def body(self):
        return self.loop.regions[0].blocks[0]

    @property
    def iv(self):
        return self.body.arguments[0]


def _forward(values, body_ops):
    """Ops of the body reached from `values` (through nested regions too)."""
    reached, frontier = set(), list(values)
    while frontier:
        v = frontier.pop()
        for u in v.uses:
            op = u.owner
            while op is not None and op not in body_ops:
                op = op.parent_op
            if op is None or op in reached:
                continue
            reached.add(op)
            frontier.extend(op.results)
    return reached


def analyze_loop(loop, stage_gathers: bool = True) -> LoopSchedule:
    """The schedule analysis of `loop`; `stage_gathers` False keeps every gather
    in the body (where staging them leaves no room for one stage)."""
    s = LoopSchedule(loop)
    if not loop.regions or not loop.regions[0].blocks:
        s.reason = "empty loop"
        return s
    if runs_at_most_once(loop):
        s.reason = "the loop runs at most once: no later trip to load ahead for"
        return s
    body = s.body
    ops = list(body.ops)
    in_body = set(ops)
    s.loads = [op for op in ops if op.name == LOAD]
    s.computes = [op for op in ops if op.name in COMPUTE]
    if not s.computes:
        s.reason = "no tiled load feeding an MMA"
        return s
    for a in body.arguments[1:]:
        if not hasattr(a.type, "shape"):
            s.reason = f"loop-carried value of type {a.type.text()} is not a tile"
            return s
    writes = [op for op in ops[:-1] if op.name != LOAD and op.name not in READS and not register_only(op)
              and not touches_no_memory(op)]
    if writes and all(_unordered(w, STORES) for w in writes) and \
            all(_unordered(r, (LOAD,) + READS) for r in ops if r.name == LOAD or r.name in READS):
        writes = []       # no token orders the reads against the stores: the reads may move ahead
    for op in ops[:-1]:
        if op.name == LOAD:
            if op.token_values() or op.result_token_values():
                s.reason = "token-ordered load"
                return s
            continue
        if op.name in READS and not writes and not (op.token_values() or op.result_token_values()):
            continue     # a read the loop orders with no write: it stays in the body, synchronous
        if not register_only(op) and not touches_no_memory(op) and not (op.name in STORES and not writes):
            s.reason = f"'{op.name}' has side effects"
            return s
    blocked = set(body.arguments[1:]) | {op.results[0] for op in s.loads}
    if not writes and stage_gathers:
        gathers = [op for op in ops if op.name in READS and _stageable(op, s.iv, in_body, blocked)]
        s.loads = [op for op in ops if op in s.loads or op in gathers]
        blocked |= {op.results[0] for op in gathers}
    if not s.loads:
        s.reason = "no tiled load feeding an MMA"
        return s
    for load in s.loads:
        seen, varying, why = _producer_slice(load, s.iv, in_body, blocked)
        if why is not None:
            s.reason = why
            return s
        s.slices[load] = [op for op in ops if op in seen] + [load]
        s.varying[load] = varying
        reach = _forward([load.results[0]], in_body)
        s.feeds[load] = [c for c in s.computes if c in reach]
    if not any(s.feeds[l] for l in s.loads):
        s.reason = "no tiled load feeding an MMA"
    for read in (op for op in ops if op.name in READS and op not in s.loads):
        seen, _, why = _producer_slice(read, s.iv, in_body, blocked)
        if why is None and all(touches_no_memory(d) for d in seen):
            s.early |= seen | {read}
    return s


def _stageable(read, iv, in_body, blocked) -> bool:
    """A gather that goes through the pipeline like a tiled load: it reads global
    memory, no token orders it, its indices and mask follow from the induction
    variable and values above the loop only (a producer runs ahead), and a dot
    reads what it loads. The copy engine then fills its slots (cp.async per run
    of consecutive elements) instead of the consumer waiting for its registers."""
    if read.token_values() or read.result_token_values():
        return False
    if getattr(read.view.type, "residency", None) != "GMEM":
        return False
    seen, varying, why = _producer_slice(read, iv, in_body, blocked)
    if why is not None or not varying or not all(touches_no_memory(d) for d in seen):
        return False
    return _reaches_compute(read.results[0], in_body)


def _reaches_compute(value, in_body) -> bool:
    """Whether `value` becomes an operand of a dot through pure ops only (an index
    tile that feeds another gather does not count: that gather reads it)."""
    seen, frontier = set(), [value]
    while frontier:
        for u in frontier.pop().uses:
            op = u.owner
            if op not in in_body or op in seen:
                continue
            seen.add(op)
            if op.name in COMPUTE:
                return True
            if touches_no_memory(op) and not op.regions:
                frontier.extend(op.results)
    return False


def _producer_slice(op, iv, in_body, blocked):
    """Walk `op`'s operands back through the loop body: (the body ops they come
    from, whether the induction variable is among their inputs, why they cannot
    be issued elsewhere or None): a value in `blocked` (loop-carried or loaded),
    or a region op."""
    stack, seen, varying = list(op.operands), set(), False
    while stack:
        v = stack.pop()
        if v is iv:
            varying = True
            continue
        if v in blocked:
            return seen, varying, LOOP_CARRIED_ADDRESS
        d = getattr(v, "op", None)
        if d is None or d not in in_body or d in seen:
            continue
        if d.regions:
            return seen, varying, "a load address is computed by a region op"
        seen.add(d)
        stack.extend(d.operands)
    return seen, varying, None


def candidate_loops(blocks):
    """Every scf.for nested in `blocks`, innermost first."""
    out = []
    for b in blocks:
        for top in b.ops:
            for op in top.walk():
                if op.name == "scf.for":
                    out.append(op)
    out.sort(key=lambda op: -sum(1 for _ in op.ancestors()))
    return out


def analyze(blocks) -> list[LoopSchedule]:
    return [analyze_loop(l) for l in candidate_loops(blocks)]
