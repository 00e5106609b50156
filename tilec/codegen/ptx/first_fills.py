"""A TMA pipeline's first fills go out while the CTA builds its tensor maps.

A kernel with device-built maps (tensormap.py) could not start a copy until
warp 0 had claimed a slot, read the keys and acquired the maps: a
global-memory round trip with a long tail, paid by every CTA of every wave
before its first byte was even requested, where tileiras's CTAs, whose maps
come from the host, request theirs at once. Only the maps made the first fills
wait: the addresses of a pipeline's first trips are known at the entry.

* The producer agent's other warps (threads 32 .. 32 W - 1, W the agent's
  warps; warp 0 builds the maps meanwhile) copy slots 0 .. min(stages, trips)
  - 1 of each such pipeline with cp.async, slot 0 of every pipeline first,
  into the layout the TMA would have written (the slot's swizzle; zeros
  outside the tensor), and arrive on the slot's `landed` mbarrier
  (cp.async.mbarrier.arrive.noinc: it counts once the thread's copies are in).
  Then they go on to their agents: no CTA barrier ends the maps' batch
  (tensormap.py's gate: a thread outside warp 0 waits for the maps only where
  it first uses one, the consumers at their epilogue's TMA store). A launch
  that copies no longer waits for a common start after the maps
  (start_phase.py): its loads leave at the entry, as in step as the CTAs'
  starts.
* The first issuer completes each copied slot's first `full` phase (a plain
  arrival) before its copies of the slot, so before any consumer can have
  the slot's `landed` phase: a consumer's wait on `full` in the ring's second
  round then waits for that round's fill, not for a first phase that is still
  open. The producer's thread 0 skips those trips whole: no copy, no arrival,
  and no wait on `empty` (the consumers, who need nothing from it there, may
  have released the slot already, and a wait for the phase before the first
  would then be a wait for the second).
* A consumer waiting for a slot in the ring's first round below the trips
  copied (Iter.first) waits on `landed` instead, then fences for the async
  proxy (cp.async writes through the generic proxy; wgmma reads through the
  async one); every other wait is on `full`, as before.

Where it applies: a pipeline filled by one TMA load per trip through a map the
batch being emitted builds. A multicast slot (a cluster's CTAs fill it
alike, each a slice for all: multicast.py) is copied whole by each CTA into
its own slot: the CTAs count the same trips, so at those trips no CTA
multicasts and every `full` phase completes on its own first issuer's arrival.
The first loop of an
agent_switch's first region (in the kernel's entry block) to fill it is a
counted loop with that fill directly in its body; later loops may fill it too
(only the first loop's trips are copied). The region runs at least two warps,
as many threads beyond warp 0 as a multiple of a slot row's 16-byte chunks.
The load's coordinates are index casts, additions, subtractions,
multiplications and signed divisions (induction.py's trip counts) of the
loop's variable and scalars already in registers; the innermost is a multiple
of 16 bytes (cp.async copies 16 aligned bytes). Where the maps are
built ahead of their turn, while an earlier load's copies are in flight
(operand_loads.maps_ahead: attention's Q), the pipelines' set-up between is
emitted ahead too (set_up_ahead), and that load's copies complete on an
mbarrier of their own (operand_loads._landed_on_barrier; else they are a
cp.async-group of their own), so its wait does not take the first fills.
TILEC_FIRST_FILLS=0 turns first fills off; TILEC_FIRST_FILLS=barrier keeps
them but lets no thread start before the maps (no gate, no mbarrier for the
earlier load): A/B switches for timing."""
from __future__ import annotations

from ...dialects.nv_tileas.ops.pipeline import agent_warps, slot_fill
from .ptxtypes import B32, B64, PRED, byte_size
from .values import Tile

AGENT_SWITCH = "nv_tileas.async.pipeline.agent_switch"
LOOP = "scf.for"
CHUNK = 16     # bytes of one cp.async
_SAME = ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci",
         "cuda_tile.exti", "cuda_tile.trunci")
_ARITH = {"arith.muli": "mul.lo.s32", "cuda_tile.muli": "mul.lo.s32", "arith.addi": "add.s32",
          "cuda_tile.addi": "add.s32", "arith.subi": "sub.s32", "cuda_tile.subi": "sub.s32",
          # a counter beside the loop variable, rewritten as (iv - lb) / step (schedule/induction.py)
          "arith.divsi": "div.s32"}


def enabled() -> bool:
    """TILEC_FIRST_FILLS=0 turns first fills off: an A/B switch for timing them
    on a GPU against the maps-first start (with start_phase's wait)."""
    import os
    return os.environ.get("TILEC_FIRST_FILLS", "1") != "0"


def gated() -> bool:
    """TILEC_FIRST_FILLS=barrier keeps the copies but ends the maps' batch at a
    CTA barrier, as before the gate (tensormap.plan_gate), and an earlier load's
    copies with it (operand_loads._landed_on_barrier): their own A/B."""
    import os
    return os.environ.get("TILEC_FIRST_FILLS", "1") != "barrier"


class FirstFills:
    """A pipeline whose first slots the producer agent's other warps copy."""

    def __init__(self, load, loop, stages, issuers, landed, outer=None):
        self.load, self.loop = load, loop     # the slot's TMA load; the counted loop around its produce_one
        self.outer = outer                    # a persistent kernel's tile loop around `loop`, or None
        self.stages = stages
        self.issuers = issuers                # threads 32 .. 32 + issuers - 1 copy
        self.landed = landed                  # shared symbol: one mbarrier per slot
        self.issued = False                   # the copies were emitted (issue); else TMA throughout

    def seeds(self, em) -> dict:
        """_value's starting values: the tile loop's variable at its first trip (its
        lower bound, a register made before the agents fork)."""
        if self.outer is None:
            return {}
        return {self.outer.regions[0].blocks[0].arguments[0]: _reg(em, em.tile(self.outer.operands[0]).reg)}


def plan(em, op, pipe):
    """At pipeline `op`'s creation (Pipe `pipe`, TMA-filled): a FirstFills with
    its `landed` barriers initialized, where the pipeline qualifies; else None."""
    from ...dialects.cuda_tile.divisibility import known_divisor
    if not pipe.tma or em.group.first_thread != 0 or not enabled():
        return None
    produce, outer = _first_fill(op)
    if produce is None:
        return None
    loop = produce.parent_op
    sw = (outer or loop).parent_op
    warps = agent_warps(sw)[0]
    load = slot_fill(produce.regions[0].blocks[0])
    desc = getattr(getattr(load, "desc", None), "op", None)
    if warps < 2 or load is None or desc is None:     # (pipe.tma: its map is a device map)
        return None
    ivs = {loop.regions[0].blocks[0].arguments[0]}
    if outer is not None:
        if not all(_outside(v, sw) for v in outer.operands[:3]):
            return None
        ivs.add(outer.regions[0].blocks[0].arguments[0])
    seen: dict = {}
    if not all(_computable(em, v, ivs, sw, outer, seen) for v in list(loop.operands[:3]) + list(load.coords)):
        return None
    es = byte_size(pipe.view.etype)
    if es > CHUNK or (pipe.view.shape[-1] * es) % CHUNK or known_divisor(load.coords[-1]) * es % CHUNK:
        return None
    issuers = 32 * (warps - 1)
    if issuers % (pipe.view.shape[-1] * es // CHUNK):
        return None
    if gated():
        from .tensormap import plan_gate
        plan_gate(em)       # the maps' batch may then end at a gate, not a CTA barrier
    landed = em.kb.shared_buffer(8 * pipe.stages, 8, "landed", span=em.kb.WHOLE_KERNEL)
    lead = em.leader()
    for i in range(pipe.stages):
        em.kb.emit(f"@{lead} mbarrier.init.shared.b64 \t[{landed}+{8 * i}], {issuers}")
    em.first_fills.append(pipe)
    return FirstFills(load, loop, pipe.stages, issuers, landed, outer)


SET_UP = ("nv_tileas.alloc_tensor", "nv_tileas.view", "nv_tileas.async.pipeline.create_pipeline",
          "nv_tileas.async.pipeline.create_iterator",
          # scalars from the launch and views' shapes: a loop's bounds (not Pure: no memory read either)
          "cuda_tile.get_index_space_shape", "cuda_tile.get_tile_block_id", "cuda_tile.get_num_tile_blocks")


def set_up_ahead(em, after, desc, quiet):
    """Before a descriptor batch emitted ahead of its turn (operand_loads.maps_ahead:
    while the copies of load `after` are in flight), emit ahead what lies between
    that sets up pipelines (stage buffers, their barriers, iterators) or computes
    scalars, where its operands are made: the pipelines then exist, and their first
    fills can go out with the maps' batch. `quiet`: emitter.quiet."""
    from ...rewrite.effects import memoryless_scalar
    if not enabled():
        return
    op = after.next_op
    while op is not None and op is not desc:
        # (a scalar division: no memory touched; ahead, but on the same path of the same block)
        if (op not in em.early and (op.name in SET_UP or quiet(op) or memoryless_scalar(op))
                and all(v in em.env for v in op.operands)):
            em.emit_op(op)
            em.early.add(op)
        op = op.next_op


def set_up_after(em, last, quiet):
    """After descriptor `last` (a batch's last): the set-up that follows it up to
    an agent_switch, emitted ahead with the batch, so the pipelines it creates
    are planned (plan) when the batch issues their first fills. A persistent
    kernel's pipelines come after its maps (schedule/fork_once.py hoists them
    out of the tile loop to just before the agents fork). Nothing is moved past
    an op that is not set-up or a scalar, nor one whose operands are not made."""
    from ...rewrite.effects import memoryless_scalar
    if not enabled():
        return
    ops, op = [], last.next_op
    while op is not None and op.name != AGENT_SWITCH:
        if op.name == last.name or op in em.early:
            op = op.next_op
            continue
        if not (op.name in SET_UP or quiet(op) or memoryless_scalar(op)):
            return
        ops.append(op)
        op = op.next_op
    if op is None or not any(o.name == "nv_tileas.async.pipeline.create_pipeline" for o in ops):
        return
    for o in ops:
        if all(v in em.env for v in o.operands):
            em.emit_op(o)
            em.early.add(o)


def _first_fill(op):
    """(produce_one, tile loop) of pipeline `op`: the produce_one whose trips fill
    its first slots, the one directly in the counted loop that is the first op of
    an agent_switch's first region (in the kernel's entry block) to fill the
    pipeline at all, its only fill of it; the tile loop None. Later loops may
    fill it too (a causal attention's masked and unmasked key loops): they come
    after, so the ring's first round starts with this loop's trips. In a
    persistent kernel whose agents fork once (schedule/fork_once.py) that first
    op is the loop over output tiles: then the same holds of the first op of its
    body, at the first tile, and the tile loop is returned with it. (None, None)
    where the pipeline is filled otherwise."""
    produces = [u for u in op.results[0].users if u.name.endswith("produce_one")]
    if not produces:
        return None, None
    sw = produces[0].parent_op
    while sw is not None and sw.name != AGENT_SWITCH:
        sw = sw.parent_op
    if sw is None or sw.parent_op is None or sw.parent_op.name != "cuda_tile.entry" or not sw.regions[0].blocks:
        return None, None
    top, inside = _first_filling(sw.regions[0].blocks[0], produces)
    if _fills_directly(top, inside):
        return inside[0], None
    if top is not None and top.name == LOOP:
        inner, inside = _first_filling(top.regions[0].blocks[0], inside)
        if _fills_directly(inner, inside):
            return inside[0], top
    return None, None


def _first_filling(block, produces):
    """(the first op of `block` that is or holds one of `produces`, those it holds)."""
    for top in block.ops:
        inside = [p for p in produces if top is p or any(a is top for a in p.ancestors())]
        if inside:
            return top, inside
    return None, []


def _fills_directly(top, inside) -> bool:
    """Whether `top` is a counted loop with the one produce_one of `inside` directly in its body."""
    return (top is not None and top.name == LOOP and len(inside) == 1 and inside[0].parent_op is top
            and inside[0].parent is top.regions[0].blocks[0])


def filled_through(em, batch) -> list:
    """The planned Pipes whose slots the maps of descriptor ops `batch` fill."""
    return [p for p in em.first_fills if p.first.load.desc.op in batch and not p.first.issued]


def _outside(v, sw) -> bool:
    """Whether `v` is defined outside agent_switch `sw`: a kernel argument or an
    op of the block around it."""
    d = getattr(v, "op", None)
    if d is None:
        return v.owner_block() is sw.parent
    return d.parent is sw.parent


def _defined_in(v, loop) -> bool:
    """Whether `v` is made inside `loop` (its block arguments, its ops, nested ones)."""
    op = getattr(v, "op", None)
    if op is None:
        op = v.owner_block().parent_op
    return op is loop or any(a is loop for a in op.ancestors())


def _computable(em, v, ivs, sw, outer, seen, depth=0) -> bool:
    """Whether the copies can compute `v` from the loop variables `ivs` and values
    made outside agent_switch `sw`: through index casts and _ARITH ops, and inside
    a persistent kernel's tile loop `outer` through any scalar op that touches no
    memory (the output tile's raster arithmetic, run at the first tile)."""
    if v in ivs or _outside(v, sw):
        return True
    if v in seen:
        return seen[v]
    from ...rewrite.effects import memoryless_scalar
    d = getattr(v, "op", None)
    ok = d is not None and depth <= 64 and (
        d.name in _SAME or d.name in _ARITH
        or (outer is not None and _defined_in(v, outer) and memoryless_scalar(d) and em.can_emit(d)))
    seen[v] = ok = ok and all(_computable(em, x, ivs, sw, outer, seen, depth + 1) for x in d.operands)
    return ok


def _reg(em, x) -> str:
    """`x` (a register, an immediate string or an int) in a 32-bit register."""
    from .tensormap import as_b32
    x = as_b32(em, x)
    if isinstance(x, str) and x.startswith("%"):
        return x
    r = em.kb.reg(B32)
    em.kb.emit(f"mov.u32 \t{r}, {x}")
    return r


def _value(em, v, memo, outer=None):
    """Emit `v` (a _computable expression) from `memo`'s values (the loop
    variables' registers; it collects those made here). Inside the tile loop
    `outer` every value is made again (the registers the loop binds belong to
    a later tile, and to code after this)."""
    if v in memo:
        return memo[v]
    d = getattr(v, "op", None)
    if d is None or (v in em.env and (outer is None or not _defined_in(v, outer))):
        out = _reg(em, em.tile(v).reg)      # made already (ready: in registers)
    elif d.name in _SAME:
        out = _value(em, d.operands[0], memo, outer)
    elif d.name in _ARITH:
        a, b = (_value(em, x, memo, outer) for x in d.operands)
        out = em.kb.reg(B32)
        em.kb.emit(f"{_ARITH[d.name]} \t{out}, {a}, {b}")
    else:
        out = _by_handler(em, d, memo, outer)
    memo[v] = out
    return out


def _by_handler(em, d, memo, outer):
    """Scalar op `d` emitted by its own handler on the registers of its operands
    (those made here are bound for the call only): its result's register. The
    environment is left as it was: nothing after the copies may take a value
    made in the issuers' branch."""
    made = {x: _value(em, x, memo, outer) for x in d.operands
            if x not in em.env or (outer is not None and _defined_in(x, outer))}
    keys = list(made) + list(d.results)
    saved = {x: em.env[x] for x in keys if x in em.env}
    for x, r in made.items():
        em.bind(x, Tile(getattr(x.type, "element_type", x.type), (), None, [r]))
    try:
        em.emit_handler(d)
        out = em.tile(d.results[0]).reg
    finally:
        for x in keys:
            em.env.pop(x, None)
        em.env.update(saved)
    return out if not isinstance(out, int) else str(out)


def ready(em, ff) -> bool:
    """Whether every value the copies need is emitted already (the batch of maps
    comes before the agent_switch, but not every operand need)."""
    outer = ff.outer
    ivs = {ff.loop.regions[0].blocks[0].arguments[0]}
    scalars = []          # the leaves of the coordinates and of the loops' bounds
    if outer is not None:
        ivs.add(outer.regions[0].blocks[0].arguments[0])
        scalars.extend(outer.operands[:2])
    stack = list(ff.loop.operands[:3]) + list(ff.load.coords)
    while stack:
        v = stack.pop()
        d = getattr(v, "op", None)
        if v in ivs:
            continue
        if d is not None and ((d.name in _SAME or d.name in _ARITH) and v not in em.env
                              or outer is not None and _defined_in(v, outer)):
            stack.extend(d.operands)
        else:
            scalars.append(v)
    # only what is in registers already: a tile made here, in the other threads'
    # branch, would be taken for made by the code after it in every thread
    return ff.load.desc.op.operands[0] in em.env and all(
        isinstance(em.env.get(v), Tile) and em.env[v].splat and em.env[v].regs is not None for v in scalars)


def trips(em, ff) -> str:
    """min(stages, the loop's trip count): the slots copied, in a register. In a
    persistent kernel, the first tile's trips, and none where the CTA has no
    tile."""
    kb = em.kb
    memo = ff.seeds(em)
    lb, ub, step = (_value(em, v, memo, ff.outer) for v in ff.loop.operands[:3])
    n, p = kb.reg(B32), kb.reg(PRED)
    kb.emit(f"sub.s32 \t{n}, {ub}, {lb}")
    kb.emit(f"setp.le.s32 \t{p}, {n}, 0")
    kb.emit(f"add.s32 \t{n}, {n}, {step}")
    kb.emit(f"sub.s32 \t{n}, {n}, 1")
    kb.emit(f"div.s32 \t{n}, {n}, {step}")
    kb.emit(f"selp.u32 \t{n}, 0, {n}, {p}")
    if ff.outer is not None:
        olb, oub = (_reg(em, em.tile(v).reg) for v in ff.outer.operands[:2])
        kb.emit(f"setp.ge.s32 \t{p}, {olb}, {oub}")
        kb.emit(f"selp.u32 \t{n}, 0, {n}, {p}")
    kb.emit(f"min.s32 \t{n}, {n}, {ff.stages}")
    return n


def issue(em, pipes) -> bool:
    """In the maps' batch, by threads other than warp 0's (the caller branched
    warp 0 around this): the issuers copy the first slots of each pipeline of
    `pipes` (Pipes with FirstFills whose map this batch builds), slot 0 of
    every pipeline first. True when anything was emitted."""
    kb = em.kb
    todo = [p for p in pipes if ready(em, p.first)]
    if not todo:
        return False
    t = kb.reg(B32)
    kb.emit(f"sub.u32 \t{t}, {em.group.tid}, 32")
    groups: dict = {}
    for pipe in todo:     # pipelines filled in one loop by one agent's warps: one pass over the slots
        groups.setdefault((pipe.first.loop, pipe.first.issuers), []).append(pipe)
    for (loop, issuers), group in groups.items():
        done = kb.label("first_fills_done")
        p = kb.reg(PRED)
        kb.emit(f"setp.ge.u32 \t{p}, {t}, {issuers}")
        kb.emit(f"@{p} bra \t{done}")
        _copies(em, group, t)
        kb.place(done)
        for pipe in group:
            pipe.first.issued = True
    return True


class _Column:
    """What an issuer copies of one pipeline's slots: chunk column `j` of rows
    rho0, rho0 + issuers / per_row, ... (the issuers are a multiple of a row's
    chunks), `cj` that column's first byte in its row (row-major)."""

    def __init__(self, em, pipe, t):
        from .tensormap import _stride_bytes
        kb = em.kb
        ff = self.ff = pipe.first
        self.pipe = pipe
        self.tv = em.get(ff.load.desc.op.operands[0])
        self.es = es = byte_size(pipe.view.etype)
        self.shape = list(pipe.view.shape[1:])               # the box, outermost first
        self.pitch = self.shape[-1] * es
        self.per_row = self.pitch // CHUNK
        self.rows = 1
        for d in self.shape[:-1]:
            self.rows *= d
        swz = self.swz = pipe.swizzle
        self.line = swz.row_bytes if swz is not None else self.pitch     # bytes from a row to the next
        self.j, self.rho0, self.cj = j, rho0, cj = kb.reg(B32), kb.reg(B32), kb.reg(B32)
        kb.emit(f"rem.u32 \t{j}, {t}, {self.per_row}")
        kb.emit(f"div.u32 \t{rho0}, {t}, {self.per_row}")
        kb.emit(f"mul.lo.u32 \t{cj}, {j}, {CHUNK}")        # the column's first byte in its row
        self.n = trips(em, ff)
        self.dims = [_reg(em, d) for d in self.tv.shape]
        self.strides = [_stride_bytes(em, st, es) for st in self.tv.strides]
        self.base = em.addr_of(pipe.view.addr) if not pipe.view.addr.startswith("%") else pipe.view.addr
        self.gbase = _global(em, self.tv.base)


def _copies(em, group, t):
    """Issuer `t`'s cp.async copies of slots 0 .. trips-1 of the pipelines of
    `group` (filled in one loop), slot by slot, and its arrivals on their
    `landed` barriers."""
    kb = em.kb
    cols = [_Column(em, pipe, t) for pipe in group]
    ff = group[0].first
    loop, outer = ff.loop, ff.outer
    iv = loop.regions[0].blocks[0].arguments[0]
    seeds = ff.seeds(em)
    lb, step = (_value(em, v, seeds, outer) for v in (loop.operands[0], loop.operands[2]))
    last = kb.reg(B32)
    kb.emit(f"mov.u32 \t{last}, {cols[0].n}")
    for c in cols[1:]:
        kb.emit(f"max.s32 \t{last}, {last}, {c.n}")     # (the same trips; stages may differ)
    k, ivr = kb.reg(B32), kb.reg(B32)
    next_k, end_k = kb.label("first_slot"), kb.label("first_slots_end")
    p = kb.reg(PRED)
    kb.emit(f"mov.u32 \t{k}, 0")
    kb.place(next_k)
    kb.emit(f"setp.ge.s32 \t{p}, {k}, {last}")
    kb.emit(f"@{p} bra \t{end_k}")
    kb.emit(f"mad.lo.s32 \t{ivr}, {k}, {step}, {lb}")
    memo = {**seeds, iv: ivr}
    first = kb.reg(PRED)
    kb.emit(f"setp.eq.u32 \t{first}, {t}, 0")
    for c in cols:
        skip = kb.label("first_slot_done")
        kb.emit(f"setp.ge.s32 \t{p}, {k}, {c.n}")
        kb.emit(f"@{p} bra \t{skip}")
        # the slot's first `full` phase completes here, before any consumer can have
        # its `landed` phase (this issuer's arrival on it comes after): a consumer's
        # wait on `full` in the ring's second round then waits for that round's fill
        full = kb.reg(B32)
        kb.emit(f"mad.lo.u32 \t{full}, {k}, 8, {em.addr_of(c.pipe.full)}")
        kb.emit(f"@{first} mbarrier.arrive.shared.b64 \t_, [{full}]")
        _slot(em, c, k, [_value(em, v, memo, outer) for v in c.ff.load.coords])
        kb.place(skip)
    kb.emit(f"add.u32 \t{k}, {k}, 1")
    kb.emit(f"bra.uni \t{next_k}")
    kb.place(end_k)


def _slot(em, c, k, coords):
    """Column `c`'s copies into slot `k` at element `coords` (outermost first),
    then the issuer's arrival on the slot's `landed` barrier."""
    kb = em.kb
    es, shape, dims = c.es, c.shape, c.dims
    ok, okd, p = kb.reg(PRED), kb.reg(PRED), kb.reg(PRED)
    # the column: its first element, whether it is inside the tensor, the bytes that are
    x, nb, slot, rho = kb.reg(B32), kb.reg(B32), kb.reg(B32), kb.reg(B32)
    rowbase, off = kb.reg(B64), kb.reg(B64)
    kb.emit(f"mad.lo.u32 \t{x}, {c.j}, {CHUNK // es}, {coords[-1]}")
    kb.emit(f"setp.lt.u32 \t{ok}, {x}, {dims[-1]}")
    kb.emit(f"sub.u32 \t{nb}, {dims[-1]}, {x}")
    kb.emit(f"mul.lo.u32 \t{nb}, {nb}, {es}")
    kb.emit(f"min.u32 \t{nb}, {nb}, {CHUNK}")
    kb.emit(f"selp.u32 \t{nb}, {nb}, 0, {ok}")
    kb.emit(f"selp.u32 \t{x}, {x}, 0, {ok}")
    kb.emit(f"mul.wide.s32 \t{off}, {x}, {es}")
    kb.emit(f"add.s64 \t{rowbase}, {c.gbase}, {off}")
    kb.emit(f"mad.lo.u32 \t{slot}, {k}, {c.pipe.slot_bytes}, {c.base}")
    next_r, end_r = kb.label("first_row"), kb.label("first_rows_end")
    kb.emit(f"mov.u32 \t{rho}, {c.rho0}")
    kb.place(next_r)
    kb.emit(f"setp.ge.u32 \t{p}, {rho}, {c.rows}")
    kb.emit(f"@{p} bra \t{end_r}")
    addr, g, rest, b = kb.reg(B64), kb.reg(B32), kb.reg(B32), kb.reg(B32)
    kb.emit(f"mov.b64 \t{addr}, {rowbase}")
    kb.emit(f"mov.pred \t{okd}, {ok}")
    kb.emit(f"mov.u32 \t{rest}, {rho}")
    for axis in range(len(shape) - 2, -1, -1):      # the row's outer coordinates, innermost first
        if shape[axis] == 1:
            kb.emit(f"mov.u32 \t{g}, {coords[axis]}")
        elif axis == 0:
            kb.emit(f"add.s32 \t{g}, {coords[axis]}, {rest}")
        else:
            r = kb.reg(B32)
            kb.emit(f"rem.u32 \t{r}, {rest}, {shape[axis]}")
            kb.emit(f"div.u32 \t{rest}, {rest}, {shape[axis]}")
            kb.emit(f"add.s32 \t{g}, {coords[axis]}, {r}")
        dim_ok = kb.reg(PRED)
        kb.emit(f"setp.lt.u32 \t{dim_ok}, {g}, {dims[axis]}")
        kb.emit(f"and.pred \t{okd}, {okd}, {dim_ok}")
        kb.emit(f"cvt.s64.s32 \t{off}, {g}")
        kb.emit(f"mad.lo.s64 \t{addr}, {off}, {c.strides[axis]}, {addr}")
    kb.emit(f"selp.u32 \t{b}, {nb}, 0, {okd}")
    kb.emit(f"@!{okd} mov.b64 \t{addr}, {c.gbase}")      # reads nothing, from a valid address
    dst = kb.reg(B32)
    # where the TMA would have put it: the slot's layout (swizzle.py), as wgmma reads it
    col = c.cj if c.swz is None else c.swz.column(kb, c.cj, c.swz.row_term(kb, rho))
    kb.emit(f"mad.lo.u32 \t{dst}, {rho}, {c.line}, {col}")
    kb.emit(f"add.u32 \t{dst}, {dst}, {slot}")
    kb.emit(f"cp.async.cg.shared.global \t[{dst}], [{addr}], {CHUNK}, {b}")
    kb.emit(f"add.u32 \t{rho}, {rho}, {c.ff.issuers // c.per_row}")
    kb.emit(f"bra.uni \t{next_r}")
    kb.place(end_r)
    bar = kb.reg(B32)
    kb.emit(f"mad.lo.u32 \t{bar}, {k}, 8, {em.addr_of(c.ff.landed)}")
    kb.emit(f"cp.async.mbarrier.arrive.noinc.shared.b64 \t[{bar}]")


def _global(em, base) -> str:
    """A tensor view's base pointer as a 64-bit register."""
    if isinstance(base, str) and base.startswith("%rd"):
        return base
    r = em.kb.reg(B64)
    em.kb.emit(f"mov.b64 \t{r}, {base}")
    return r


def copied(em, pipe, it) -> str:
    """A predicate: slot `it` of `pipe` is one the issuers copied (the ring's
    first round, below the trips copied)."""
    kb = em.kb
    g = em.group
    key = ("first_fills", id(pipe))
    n = g.owners.get(key)
    if n is None:
        with em._prologue():
            n = g.owners[key] = trips(em, pipe.first)
    p, q = kb.reg(PRED), kb.reg(PRED)
    kb.emit(f"setp.ne.u32 \t{p}, {it.first}, 0")
    kb.emit(f"setp.lt.u32 \t{q}, {it.stage}, {n}")
    kb.emit(f"and.pred \t{p}, {p}, {q}")
    return p
