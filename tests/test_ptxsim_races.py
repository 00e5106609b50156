"""The simulator's race check (tests/ptxsim/hb.py, check_races=True): happens-before
through named barriers, mbarriers, bar.warp.sync, cp.async waits, TMA, wgmma and
tcgen05.mma.

Each case runs a synchronized kernel (no race, and the check ran) and the same
kernel with one synchronization taken out (DataRace naming both accesses),
in both thread orders: the check must not depend on which thread the
simulator happened to run first. The last cases take tilec's own warp-
specialized GEMM (TMA producer, wgmma consumers on sm_90a, tcgen05 on sm_100a)
and remove one mbarrier wait at a time."""
from __future__ import annotations

import re

import numpy as np
import pytest

try:
    import ptxsim
except ImportError:                    # pragma: no cover
    from tests import ptxsim

HEAD = ".version 8.0\n.target sm_90a\n.address_size 64\n"
REGS = ".reg .pred %p<8>;\n.reg .b32 %r<40>;\n.reg .b64 %rd<20>;\n"
ORDERS = ("forward", "reverse")


def _kernel(body, threads=64, shared=".shared .align 16 .b8 buf[256];\n.shared .align 8 .b64 mb;\n"):
    return (HEAD + shared + f".visible .entry k(.param .u64 p0)\n.reqntid {threads}, 1, 1\n{{\n{REGS}"
            f"  ld.param.u64 %rd1, [p0];\n  mov.u32 %r0, %tid.x;\n  mov.u32 %r1, buf;\n  mov.u32 %r2, mb;\n"
            f"{body}\n  ret;\n}}\n")


def _checked(ptx, **kw):
    """Run in both orders with the race check; the check must have run."""
    for order in ORDERS:
        out = np.zeros(64, np.uint32)
        res = ptxsim.run_ptx(ptx, "k", 1, [out], check_races=True, thread_order=order, **kw)
        assert res.stats["race_checked"]
    return out


def _races(ptx, pattern, **kw):
    for order in ORDERS:
        out = np.zeros(64, np.uint32)
        with pytest.raises(ptxsim.DataRace, match=pattern):
            ptxsim.run_ptx(ptx, "k", 1, [out], check_races=True, thread_order=order, **kw)


# thread 0 writes buf[0] and hands it to warp 1 through an mbarrier; warp 1 stores what it read
_MBARRIER = """
  setp.eq.u32 %p0, %r0, 0;
  @%p0 mbarrier.init.shared.b64 [%r2], 1;
  bar.sync 0;
  setp.lt.u32 %p1, %r0, 32;
  @!%p1 bra $L_consumer;
  mov.u32 %r3, 7;
  @%p0 st.shared.b32 [%r1], %r3;
  @%p0 mbarrier.arrive.shared.b64 %rd2, [%r2];
  bra.uni $L_end;
$L_consumer:
$L_wait:
  WAIT
  ld.shared.b32 %r5, [%r1];
  mul.wide.u32 %rd3, %r0, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.b32 [%rd4], %r5;
$L_end:"""


def test_an_mbarrier_wait_orders_the_arrivers_writes():
    wait = "mbarrier.try_wait.parity.shared.b64 %p2, [%r2], 0;\n  @!%p2 bra $L_wait;"
    out = _checked(_kernel(_MBARRIER.replace("WAIT", wait)))
    assert (out[32:] == 7).all()
    _races(_kernel(_MBARRIER.replace("WAIT", "")),
           r"thread (0 writes|\d+ reads) it \(PTX line \d+: (@%p0 st|ld)\.shared\.b32.*after thread (\d+ read|0 wrote)")


# warp 0 writes and bar.arrive's; warp 1 bar.sync's and reads (ordered). Then warp 1 writes
# again while warp 0, which only arrived, reads: bar.arrive releases, it does not acquire.
_ARRIVE = """
  setp.lt.u32 %p1, %r0, 32;
  mul.wide.u32 %rd3, %r0, 4;
  add.s64 %rd4, %rd1, %rd3;
  and.b32 %r3, %r0, 31;
  mad.lo.u32 %r4, %r3, 4, %r1;
  @!%p1 bra $L_second;
  st.shared.b32 [%r4], %r0;
  bar.arrive 1, 64;
  LATE
  bra.uni $L_end;
$L_second:
  bar.sync 1, 64;
  ld.shared.b32 %r5, [%r4];
  st.global.b32 [%rd4], %r5;
  AGAIN
$L_end:"""


def test_bar_arrive_releases_and_bar_sync_acquires():
    out = _checked(_kernel(_ARRIVE.replace("LATE", "").replace("AGAIN", "")))
    assert out[32:].tolist() == list(range(32))
    late = _ARRIVE.replace("LATE", "ld.shared.b32 %r6, [%r4];").replace("AGAIN", "st.shared.b32 [%r4], %r3;")
    _races(_kernel(late), r"thread \d+ (reads|writes) it .* after thread \d+ (wrote|read) it")


# lane 0 writes, lane 1 reads after bar.warp.sync (or without it)
_WARP = """
  setp.eq.u32 %p0, %r0, 0;
  setp.eq.u32 %p1, %r0, 1;
  mov.u32 %r3, 5;
  @%p0 st.shared.b32 [%r1], %r3;
  SYNC
  @%p1 ld.shared.b32 %r5, [%r1];
  @%p1 st.global.b32 [%rd1], %r5;"""


def test_bar_warp_sync_orders_its_lanes():
    assert _checked(_kernel(_WARP.replace("SYNC", "bar.warp.sync -1;"), threads=32))[0] == 5
    _races(_kernel(_WARP.replace("SYNC", ""), threads=32), r"thread [01] (reads|writes) it")


# thread 0 copies 16 bytes in with cp.async; thread 1 reads them after a CTA barrier, with the
# copier's cp.async.wait_all before the barrier or not (then only eager copies land at all)
_COPY = """
  setp.eq.u32 %p0, %r0, 0;
  setp.eq.u32 %p1, %r0, 1;
  @%p0 cp.async.cg.shared.global [%r1], [%rd1], 16;
  WAIT
  bar.sync 0;
  @%p1 ld.shared.b32 %r5, [%r1+4];
  @%p1 st.global.b32 [%rd1+128], %r5;"""


def test_a_copy_is_ordered_by_its_threads_wait():
    out = np.arange(64, dtype=np.uint32)
    ptx = _kernel(_COPY.replace("WAIT", "@%p0 cp.async.wait_all;"), threads=32)
    for order in ORDERS:
        got = out.copy()
        assert ptxsim.run_ptx(ptx, "k", 1, [got], check_races=True, thread_order=order).stats["race_checked"]
        assert got[32] == 1
    for order in ORDERS:
        with pytest.raises(ptxsim.DataRace, match=r"thread 1 reads it .* after a copy thread 0 issued wrote it"):
            ptxsim.run_ptx(_kernel(_COPY.replace("WAIT", ""), threads=32), "k", 1, [out.copy()],
                           check_races=True, thread_order=order, copy_timing="eager")


def test_a_write_of_the_same_value_is_no_race_but_a_read_of_it_is():
    """Duplicate threads storing one result (replicated layouts) do not race with each other;
    a read beside either store does."""
    same = """
  mov.u32 %r3, 9;
  st.shared.b32 [%r1], %r3;
  bar.sync 0;
  ld.shared.b32 %r5, [%r1];
  mul.wide.u32 %rd3, %r0, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.b32 [%rd4], %r5;"""
    assert (_checked(_kernel(same, threads=64)) == 9).all()
    _races(_kernel(same.replace("bar.sync 0;", ""), threads=64), r"thread \d+ (reads|writes) it")


def test_a_nan_stored_over_the_same_nan_is_no_race():
    """Duplicate threads storing one f32 result that is NaN (TileGym's mHC finalize on random
    data: rsqrt of a negative mean) leave the bytes as they were: NaN != NaN must not make
    them a race; a different value still is one."""
    nan = """
  .reg .f32 %f<4>;
  mov.f32 %f1, 0f7FC00000;
  st.shared.f32 [%r1], %f1;
  bar.sync 0;
  ld.shared.b32 %r5, [%r1];
  mul.wide.u32 %rd3, %r0, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.b32 [%rd4], %r5;"""
    assert (_checked(_kernel(nan, threads=64)) == 0x7FC00000).all()
    other = nan.replace("mov.f32 %f1, 0f7FC00000;", "cvt.rn.f32.u32 %f1, %r0;")
    _races(_kernel(other, threads=64), r"thread \d+ writes it")


# ---- tilec's warp-specialized GEMM: TMA into slots, wgmma out of them ------------------------------

def _gemm_case():
    try:
        from gpu import cases
    except ImportError:                # pragma: no cover
        from tests.gpu import cases
    return cases.BY_NAME["cutile_matmul_f16_aligned"]


def _run_gemm(ptx, case, **kw):
    from tilec.runtime import convert_scalars
    from tilec.interp import find_kernel, parse_module
    entry, _ = find_kernel(parse_module(case.text(), case.full_path))
    launch = case.build(case.rng())
    return ptxsim.run_ptx(ptx, entry.sym_name.value, launch.grid, convert_scalars(case.text(), launch.args),
                          check_races=True, **kw)


def test_a_gemms_slots_are_ordered_by_their_full_and_empty_barriers():
    """The GEMM runs race-checked and clean. Without the producer's wait on a slot's `empty`
    barrier, a TMA copy overwrites a slot a wgmma in flight still reads; without a consumer's
    wait on `full`, a wgmma reads a slot before its copy is known to have landed; without its
    wait on `landed` (a slot copied at the entry, first_fills.py), before the cp.async copies
    are known to have."""
    from tilec.codegen.ptx import compile_text
    case = _gemm_case()
    ptx = compile_text(case.text(), arch="sm_90a")
    assert _run_gemm(ptx, case).stats["race_checked"]
    waits = [m for m in re.finditer(r"mbarrier\.try_wait\.parity\.shared\.b64 \t(%p\d+), \[(%r\d+)\].*", ptx)]
    # the producer agent (warps 0-3) comes first in the kernel: its waits are on `empty`; a
    # consumer's wait on `full` follows the branch taken for slots the TMA filled
    producer = waits[0]
    full = ptx.index("\n$L_full_wait_")
    consumer = next(m for m in waits if m.start() > full)
    landed = next(m for m in reversed(waits) if m.start() < full)
    with pytest.raises(ptxsim.DataRace, match=r"a copy completing on the mbarrier .* writes it \(PTX line \d+: "
                                              r"cp\.async\.cg\.shared\.global .* with nothing ordering them"):
        _run_gemm(ptx[:landed.start()] + f"setp.eq.u32 \t{landed.group(1)}, 0, 0;" + ptx[landed.end():], case)

    def without(m):
        return ptx[:m.start()] + f"setp.eq.u32 \t{m.group(1)}, 0, 0;" + ptx[m.end():]
    # (the refill's TMA copy then also meets the first round's cp.async copy it overwrites)
    with pytest.raises(ptxsim.DataRace, match=r"a copy completing on the mbarrier .* writes it .* after a "
                                              r"(wgmma\.mma_async of warpgroup 1 reads|copy completing on .* wrote) it"):
        _run_gemm(without(producer), case)
    with pytest.raises(ptxsim.DataRace, match=r"a wgmma\.mma_async of warpgroup 1 reads it .* after a copy "
                                              r"completing on the mbarrier .* wrote it"):
        _run_gemm(without(consumer), case)


def test_a_tcgen05_gemm_releases_a_slot_only_after_its_commit():
    """sm_100a: the consumers' leader releases a slot once the commit of the mmas reading it
    has arrived (it waits on the commit's mbarrier first). Without that wait the producer
    refills the slot under them: where the commit fires late (the default), the mma reads
    the refill's bytes; where it fires at once (eager), the refill writes bytes the mma read
    with nothing acquiring its completion."""
    from tilec.codegen.ptx import compile_text
    case = _gemm_case()
    ptx = compile_text(case.text(), arch="sm_100a")
    assert _run_gemm(ptx, case).stats["race_checked"]
    commit = ptx.index("tcgen05.commit")
    m = re.compile(r"mbarrier\.try_wait\.parity\.shared\.b64 \t(%p\d+), \[(%r\d+)\].*").search(ptx, commit)
    assert "mbarrier.arrive" in ptx[m.end():ptx.index("$L_for_head", m.end())]     # the release follows it
    bad = ptx[:m.start()] + f"setp.eq.u32 \t{m.group(1)}, 0, 0;" + ptx[m.end():]
    with pytest.raises(ptxsim.DataRace, match=r"a tcgen05\.mma reads it \(PTX line \d+: tcgen05\.mma.* after a copy "
                                              r"completing on the mbarrier .* wrote it"):
        _run_gemm(bad, case)
    with pytest.raises(ptxsim.DataRace, match=r"a copy completing on the mbarrier .* writes it .* after a "
                                              r"tcgen05\.mma reads it .*its completion not acquired"):
        _run_gemm(bad, case, copy_timing="eager")


def test_a_tcgen05_accumulator_is_read_only_after_its_completion_is_acquired():
    """sm_100a: after the K loop the leader waits for the last commit, then a group barrier
    hands the completion to the other threads before they read D with tcgen05.ld. With that
    barrier moved before the leader's wait (the fences kept), the others read D with
    nothing ordering them after the mma: where commits fire late the mma is still queued
    (tcgen05.py's own check); where they fire at once (eager) only the race check's clocks
    can tell. (Without the barrier at all, the other threads, which wait for no slot,
    would read D before the last mma is even issued: another of tcgen05.py's checks.)"""
    from tilec.codegen.ptx import compile_text
    case = _gemm_case()
    ptx = compile_text(case.text(), arch="sm_100a")
    handoff = re.compile(r"tcgen05\.fence::before_thread_sync;\n(\tbar\.sync \t\d+, \d+;\n)"
                         r"\ttcgen05\.fence::after_thread_sync;")
    m = list(handoff.finditer(ptx, 0, ptx.index("tcgen05.ld.")))[-1]
    loop_end = list(re.compile(r"\n\$L_for_end_\d+:\n").finditer(ptx, 0, m.start()))[-1]
    assert "mbarrier.try_wait" in ptx[loop_end.end():m.start()]         # the leader's wait for the last commit
    bad = ptx[:loop_end.end()] + m.group(1) + ptx[loop_end.end():m.start(1)] + ptx[m.end(1):]
    with pytest.raises(ptxsim.PTXRuntimeError, match=r"tcgen05\.ld reads TMEM .* has not completed"):
        _run_gemm(bad, case)
    with pytest.raises(ptxsim.PTXRuntimeError, match=r"tcgen05\.ld reads TMEM lane \d+ column \d+, which the "
                                                     r"tcgen05\.mma .* wrote, but nothing orders thread \d+ after"):
        _run_gemm(bad, case, copy_timing="eager")


@pytest.mark.parametrize("kw", [dict(thread_order="forward"), dict(thread_order="reverse"),
                                dict(copy_timing="eager")], ids=["forward", "reverse", "eager"])
def test_a_tma_stores_staging_tile_is_rewritten_only_after_its_read_is_retired(kw):
    """A persistent kernel's epilogue stages each tile in one shared buffer: the issuing
    thread's cp.async.bulk.wait_group.read retires the TMA store's read of it, and the
    group barrier after the wait hands that on to the warps that write the next tile. The
    kernel runs race-checked and clean; without that barrier a warp's stmatrix of the
    next tile races with the store's read, whichever order the simulator runs (the
    simulated order alone showed nothing: the issuing thread's wait came first)."""
    from tilec.codegen.ptx import compile_text
    try:
        from gpu import cases
    except ImportError:                # pragma: no cover
        from tests.gpu import cases
    case = cases.BY_NAME["cutile_persistent_bmm_f16_aligned"]
    ptx = compile_text(case.text(), arch="sm_90a")
    assert _run_gemm(ptx, case, **kw).stats["race_checked"]
    m = re.search(r"\t@%p\d+ cp\.async\.bulk\.wait_group\.read \t0;\n(\tbar\.sync \t\d+, \d+;\n)", ptx)
    bad = ptx[:m.start(1)] + ptx[m.end(1):]
    with pytest.raises(ptxsim.DataRace, match=r"thread \d+ writes it \(PTX line \d+: stmatrix\..*after a TMA store "
                                              r"thread \d+ issued reads it \(PTX line \d+: @%p\d+ cp\.async\.bulk\.tensor"
                                              r"\.3d\.global.*not yet retired by a cp\.async\.bulk\.wait_group\.read"):
        _run_gemm(bad, case, **kw)
