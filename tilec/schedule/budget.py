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


def estimate_registers(analysis, stages, target, num_warps: int, occupancy: int = 1) -> RegisterEstimate:
    """Accumulators live in consumer registers for the whole loop; each stage's
    operand tiles pass through them once. Budgets: on sm_90a one producer
    warpgroup at PRODUCER_REGS and the rest of the register file's share of
    one of `occupancy` CTAs split among the consumer warpgroups (multiple of
    8, at most 240); elsewhere the per-thread limit."""
    consumer_warps = max(WARPGROUP, num_warps) if target.warp_specialized else max(1, num_warps)
    threads = 32 * consumer_warps
    need = OVERHEAD_REGS
    for a in analysis.body.arguments[1:]:
        need += tile_regs(a.type, threads)
    for p in stages.pairs:
        need += tile_regs(p.tile_type, threads)
    if target.warp_specialized:
        agents = max(1, consumer_warps // WARPGROUP)
        per = (target.regs_per_sm // max(1, occupancy) - 128 * PRODUCER_REGS) // (128 * agents)
        budget = min(240, per - per % 8)
        return RegisterEstimate(need, budget, PRODUCER_REGS, agents)
    per = target.regs_per_sm // (threads * max(1, occupancy))
    return RegisterEstimate(need, min(target.max_regs_per_thread, per), 0, 1)


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
