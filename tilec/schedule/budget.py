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
    sizes = [tile_regs(r.type, threads) for op in analysis.body.ops for o in op.walk() for r in o.results
             if getattr(r.type, "shape", None)]
    return max(sizes, default=0)
