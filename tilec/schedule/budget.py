"""Resource budgets: shared memory for the stage buffers (per target), and a
register estimate for the agents of a warp-specialized loop."""
from __future__ import annotations

from ..ir.record import mutable

from ..dialects.nv_tileas.types import element_width, num_elements

PRODUCER_REGS = 40         # a load-issuing warpgroup after setmaxnreg.dec
WARPGROUP = 4              # warps per warpgroup (setmaxnreg granularity)
OVERHEAD_REGS = 32         # addresses, loop state, predicates


def fit_stages(stages, target, requested: int, reserve: int = 0, budget: int | None = None):
    """The largest stage count <= requested whose buffers fit `budget` (default
    the target's shared memory per CTA) less `reserve` bytes (the loop's invariant dot operands,
    kept in shared memory beside the stages: layouts.invariant_operand_bytes),
    or 0 when not even one stage fits. The reserve is dropped (the operands
    are then staged on each iteration) when it would leave fewer than two
    stages of the requested ones: loads that do not overlap compute cost more
    than the copies."""
    budget = target.smem_bytes if budget is None else budget
    n = requested
    while n >= 1 and stages.smem_bytes(n) + reserve > budget:
        n -= 1
    if reserve and n < min(2, requested):
        return fit_stages(stages, target, requested, 0, budget)
    return n


def tile_regs(t, threads) -> int:
    """32-bit registers per thread for tile type `t` spread over `threads`."""
    bits = num_elements(t.shape) * (element_width(t.element_type) or 32)   # 16-bit values pack in pairs
    return -(-bits // (32 * threads))


@mutable
class RegisterEstimate:
    consumer: int          # estimated registers per consumer thread
    consumer_budget: int   # what each consumer thread may use
    producer_budget: int
    consumer_agents: int


def estimate_registers(analysis, target, num_warps: int, occupancy: int = 1,
                       specialized: bool | None = None) -> RegisterEstimate:
    """The consumer's registers: OVERHEAD_REGS beside the tiles its loop body
    holds at once (live_peak: accumulators, and the tiles made from each stage's
    operands; operands only the tensor cores read stay in their slots). Budgets: on sm_90a one producer
    warpgroup at PRODUCER_REGS and the rest of the register file's share of
    one of `occupancy` CTAs split among the consumer warpgroups (multiple of
    8, at most 240); elsewhere the per-thread limit. `specialized` False: the
    loop runs unpipelined on all the warps even where the target would
    specialize them (a loop without dots)."""
    specialized = target.warp_specialized if specialized is None else specialized
    consumer_warps = max(WARPGROUP, num_warps) if specialized else max(1, num_warps)
    threads = 32 * consumer_warps
    need = OVERHEAD_REGS + live_peak(analysis, threads)
    if specialized:
        agents = max(1, consumer_warps // WARPGROUP)
        per = (target.regs_per_sm // max(1, occupancy) - 128 * PRODUCER_REGS) // (128 * agents)
        budget = min(240, per - per % 8)
        return RegisterEstimate(need, budget, PRODUCER_REGS, agents)
    per = target.regs_per_sm // (threads * max(1, occupancy))
    return RegisterEstimate(need, min(target.max_regs_per_thread, per), 0, 1)


def broadcast_of_smaller(v) -> bool:
    """Whether `v` is a broadcast of a tile with fewer elements: its registers are
    its source's, copied into the reader's layout (propagate_layouts.rebroadcast)."""
    d = getattr(v, "op", None)
    return d is not None and d.name == "cuda_tile.broadcast" and bool(d.operands) \
        and num_elements(getattr(d.operands[0].type, "shape", ()) or ()) < num_elements(v.type.shape)


REDUCTIONS = ("nv_tileas.reduce", "cuda_tile.reduce")


def streamed(v) -> bool:
    """Whether `v` is made by an element-wise op for one element-wise op or
    reduction in the same block: the two run a few elements at a time, so its
    registers never exist all at once. A GEMM that squares and sums its bf16 A
    tile over the rows (f32 squares, 128 registers a thread on one warpgroup)
    holds A and its row sums, not the squares: ptxas ran it in 144 registers
    where counting them estimated 289."""
    from ..ir.traits import Elementwise
    d = getattr(v, "op", None)
    if d is None or not d.has_trait(Elementwise):
        return False
    readers = {id(u.owner): u.owner for u in v.uses}
    if len(readers) != 1:
        return False
    r = next(iter(readers.values()))
    return r.parent is d.parent and (r.has_trait(Elementwise) or r.name in REDUCTIONS)


def _splat(v, depth: int = 8) -> bool:
    """A tile every element of which is one value (a constant, a broadcast or
    reshape of one, or of a scalar): one register, not a tile of them."""
    d = getattr(v, "op", None)
    if d is None or depth == 0:
        return False
    if d.name == "cuda_tile.constant":
        return True
    if d.name in ("cuda_tile.broadcast", "cuda_tile.reshape") and d.operands:
        src = d.operands[0]
        return not getattr(src.type, "shape", None) or _splat(src, depth - 1)
    return False


VIEWS = ("cuda_tile.reshape", "cuda_tile.permute", "nv_tileas.shuffle", "nv_tileas.convert_layout")


def _dot_only(v, depth: int = 6) -> bool:
    """Whether every reader of `v`, through reshapes and permutations, is a dot:
    a loaded tile that stays in its pipeline slot (the tensor cores read it
    there, or stage a fragment at a time)."""
    users = [u.owner for u in v.uses]
    return bool(users) and depth > 0 and all(
        o.name == "nv_tileas.dot" or (o.name in VIEWS and _dot_only(o.results[0], depth - 1)) for o in users)


def live_peak(analysis, threads: int) -> int:
    """Registers per thread of the register tiles the loop body holds at once:
    the tiles defined above the loop and read in it (live throughout), and each
    carried tile and each tile the body makes from its definition up to its last
    reader (a read inside a nested region counts at the body op that holds it).
    A tile is freed at its last reader, whose results may take its registers (a
    dot accumulates in place). Splats take one register, loaded tiles only dots
    read stay in shared memory, and the loads' own index arithmetic runs in the
    producer: all are left out, and so are broadcasts of smaller tiles (their
    source's registers, copied into the reader's layout) and tiles streamed
    into their one element-wise reader."""
    from ..dialects.cuda_tile.types import TileType
    body = analysis.body
    ops = list(body.ops)
    pos = {op: i for i, op in enumerate(ops)}

    def top(op):
        while op is not None and op not in pos:
            op = op.parent_op
        return op

    slots = {op.results[0] for op in analysis.loads if _dot_only(op.results[0])}
    # the loads' address arithmetic runs in the producer, unless the compute reads it too
    sliced = {o for sl in analysis.slices.values() for o in sl}
    producer = {r for o in sliced for r in o.results if all(u.owner in sliced for u in r.uses)}

    def size(v):
        t = v.type
        if v in slots or v in producer or not isinstance(t, TileType) or not t.shape or _splat(v):
            return 0
        if broadcast_of_smaller(v) or streamed(v):
            return 0
        return tile_regs(t, threads)

    last, outside = {}, set()
    carried = set(body.arguments[1:])
    for i, op in enumerate(ops):
        for inner in op.walk():
            for v in inner.operands:
                d = getattr(v, "op", None)
                if v in carried or (d is not None and top(d) is not None):
                    last[v] = i
                elif d is not None and size(v) and op not in sliced:
                    outside.add(v)          # defined above the loop, read by the compute
    delta = [0] * (len(ops) + 1)
    for v, start in [(a, 0) for a in carried] + [(r, i) for i, op in enumerate(ops) for r in op.results]:
        n = size(v)
        if n:
            delta[start] += n
            delta[max(last.get(v, start), start + 1)] -= n
    peak = live = 0
    for d in delta:
        live += d
        peak = max(peak, live)
    return sum(size(v) for v in outside) + peak


def largest_tile_regs(analysis, agents: int) -> int:
    """Registers per consumer thread of the largest tile the loop body computes
    (a score tile beside the accumulator, say), which the estimate leaves out."""
    threads = 128 * max(1, agents)
    from ..dialects.cuda_tile.types import TileType
    sizes = [tile_regs(r.type, threads) for op in analysis.body.ops for o in op.walk() for r in o.results
             if isinstance(r.type, TileType) and r.type.shape]      # register tiles, not views
    return max(sizes, default=0)


def pinned_registers(analysis, num_warps: int) -> int:
    """Registers per consumer thread that the loop's tensor-core dots hold at
    once and ptxas cannot spill: every dot's accumulator (a wgmma group in
    flight keeps its accumulator in registers; a dot accumulating onto
    another's result shares its registers) and every A operand computed from
    another dot's result (attention's P, read from registers), plus
    OVERHEAD_REGS / 2 for the addresses and loop state beside them."""
    threads = 32 * max(WARPGROUP, num_warps)
    made = {op.results[0] for op in analysis.computes}
    need = OVERHEAD_REGS // 2
    for op in analysis.computes:
        if _reaches(op.operands[2], made) is None:
            need += tile_regs(op.results[0].type, threads)
        if _reaches(op.operands[0], made) is not None:
            need += tile_regs(op.operands[0].type, threads)
    return need


def _reaches(v, made, depth: int = 12):
    """The dot result in `made` that `v` is computed from through ops keeping its
    shape (within `depth` ops), or None."""
    shape = tuple(getattr(v.type, "shape", ()))
    work, seen = [(v, 0)], set()
    while work:
        v, n = work.pop()
        if v in made:
            return v
        d = getattr(v, "op", None)
        if d is None or n >= depth or id(d) in seen:
            continue
        seen.add(id(d))
        work.extend((u, n + 1) for u in d.operands if tuple(getattr(u.type, "shape", ())) == shape)
    return None
