"""CTAs that read the same operand tiles start their loads in step.

The L2 merges requests for one sector that reach it close together, so
the CTAs of a GEMM-like kernel that load the same A or B tile at the same
time cost it one read, not several. They do that only when they are in
phase: with equal work per K step, a CTA keeps the phase it starts its loads
at. tilec's CTAs start together but leave their tensor-map set-up (the slot
claim, the key loads, the proxy fences: global-memory round trips with a long
tail) 1 to 4 us apart. On an H100 (cuTile's aligned 128x128x64 f16 matmul,
4096^3, session 32) that left the L2 serving 54.3 M read sectors against
tileiras's 45.6 M for the same DRAM traffic, in a kernel the L2's bandwidth
bounds. Waiting, once the maps are ready, for the next
boundary of a START_PERIOD_NS period of the global timer put the CTAs back in
step: 43.5 M sectors and 1.085x the throughput, the wait included.

The wait (just before the maps' barrier, so `--stamps`' maps_ready includes
it) is emitted where device maps feed tensor-core dots (operands other
CTAs read too), and runs only when the launch has more CTAs than the GPU has
SMs: a launch of one wave has no later CTAs to keep in phase and would pay
up to a period (on average half) for little. (%nsmid counts SM ids, which need
not be contiguous: a launch a little over the SM count may be taken for one
wave, which costs it only the alignment.)

Where the CTA's first pipeline slots are copied while its maps are built
(first_fills.py), its loads leave at the entry, as in step as the CTAs'
starts, and it does not wait."""
from __future__ import annotations

from .ptxtypes import B32, B64, PRED

# ns; the timer ticks in steps of a few hundred ns (tilec.runtime.stamps)
START_PERIOD_NS = 2048

DOT_OPS = frozenset({"nv_tileas.dot", "nv_tileas.async.dot", "nv_tileas.block_scaled_mma"})


def wants_phase(entry) -> bool:
    """Whether `entry`'s CTAs should start their loads in step: it has tensor-core dots."""
    return any(op.name in DOT_OPS for op in entry.walk())


def align_start(em):
    """Every thread, just before the maps' CTA barrier, waits for the next multiple of
    START_PERIOD_NS of %globaltimer, where the grid has more CTAs than the GPU has SMs.
    Warp 0, which builds the maps, comes last, so the barrier lets the CTA go at the
    boundary after its maps are ready: one start per CTA, with no word to share."""
    kb, period = em.kb, START_PERIOD_NS
    n, d, sms = kb.reg(B32), kb.reg(B32), kb.reg(B32)
    goal, now, skip, again = kb.reg(B64), kb.reg(B64), kb.label("in_step"), kb.label("step_wait")
    p = kb.reg(PRED)
    kb.emit(f"mov.u32 \t{n}, %nctaid.x")
    for axis in "yz":
        kb.emit(f"mov.u32 \t{d}, %nctaid.{axis}")
        kb.emit(f"mul.lo.u32 \t{n}, {n}, {d}")
    kb.emit(f"mov.u32 \t{sms}, %nsmid")
    kb.emit(f"setp.le.u32 \t{p}, {n}, {sms}")
    kb.emit(f"@{p} bra \t{skip}")
    kb.emit(f"mov.u64 \t{goal}, %globaltimer")
    kb.emit(f"add.u64 \t{goal}, {goal}, {period}")
    kb.emit(f"and.b64 \t{goal}, {goal}, {-period}")
    kb.place(again)
    kb.emit(f"mov.u64 \t{now}, %globaltimer")
    kb.emit(f"setp.lt.u64 \t{p}, {now}, {goal}")
    kb.emit(f"@{p} bra \t{again}")
    kb.place(skip)
