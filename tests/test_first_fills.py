"""A TMA pipeline's first slots are copied while the CTA builds its tensor maps
(codegen/ptx/first_fills.py): the producer agent's other warps copy them with
cp.async at the entry, arrive on per-slot `landed` barriers, the consumers wait
there (then fence for the async proxy) in the ring's first round, and the
producer's thread 0 only completes those slots' first `full` phase."""
from __future__ import annotations

import os
import re

import numpy as np
import pytest

try:
    import ptxsim
except ImportError:                    # pragma: no cover
    from tests import ptxsim

from tilec.codegen.ptx import compile_text
from tilec.runtime import convert_scalars

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALIGNED = os.path.join(ROOT, "examples", "cutile", "matmul_f16_aligned.mlir")


def _text(path):
    with open(path) as f:
        return f.read()


@pytest.fixture(scope="module")
def aligned():
    return compile_text(_text(ALIGNED), arch="sm_90a")


def _section(ptx):
    """What the threads other than warp 0's run while warp 0 builds the maps."""
    start = ptx.index("\n$L_tmap_others")
    return ptx[start:ptx.index("\n$L_tmap_built", start)]


def test_the_first_slots_are_copied_while_warp_0_builds_the_maps(aligned):
    ptx = aligned
    # five `landed` barriers a pipeline, each awaiting one arrival of the 96 copying threads
    assert len(re.findall(r"mbarrier\.init\.shared\.b64 \t\[\w+\+\d+\+\d+\], 96;", ptx)) == 10
    sec = _section(ptx)
    assert re.search(r"sub\.u32 \t(%r\d+), %r\d+, 32;\n\tsetp\.ge\.u32 \t%p\d+, \1, 96;", sec)
    assert sec.count("cp.async.cg.shared.global") == 2 and sec.count("cp.async.mbarrier.arrive.noinc") == 2
    assert "cp.async.bulk.tensor" not in sec and "tensormap" not in sec
    # no wait for a common start (the copies left at the entry), and no CTA barrier after
    # the maps: warp 0 arrives on their gate, and the threads go on to their agents
    assert re.search(r"\tbar\.warp\.sync \t-1;\n\t@%p\d+ mbarrier\.arrive\.shared\.b64 \t%rd\d+, "
                     r"\[(\w+\+\d+)\];\n\tbra\.uni \t\$L_tmap_built", ptx)
    assert re.search(r"\n\$L_tmap_built_\d+:\n\tsetp\.lt\.u32 [^\n]*\n\tsetp\.ge\.u32 [^\n]*, 128;", ptx)
    assert "%globaltimer" not in ptx
    # the first issuer completes each copied slot's first `full` phase before its copies
    assert len(re.findall(r"\t@(%p\d+) mbarrier\.arrive\.shared\.b64 \t_, \[%r\d+\];", sec)) == 2
    # the producer skips a copied slot whole: no `empty` wait, no load, no arrival
    skips = re.findall(r"\t@%p\d+ bra \t(\$L_filled_\d+);\n\txor\.b32 [^\n]*\n\tmov\.u32 [^\n]*\n"
                       r"\tmad\.lo\.u32 [^\n]*\n\$L_wait_\d+:\n\tmbarrier\.try_wait", ptx)
    assert len(skips) == 2
    for label in skips:
        assert re.search(r"cp\.async\.bulk\.tensor[^\n]*\n(?:[^\n]*\n){0,3}?" + re.escape(label) + ":", ptx)


def _run(m, n, k, ptx, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (m, k)).astype(np.float16)
    b = rng.integers(-3, 4, (k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float16)
    args = [a, m, k, k, 1, b, k, n, n, 1, c, m, n, n, 1]
    grid = (-(-m // 128), -(-n // 128), 1)
    res = ptxsim.run_ptx(ptx, "matmul_f16_aligned", grid, convert_scalars(_text(ALIGNED), args),
                         check_races=True)
    assert res.stats["race_checked"]
    return c, (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)


@pytest.mark.parametrize("m,n,k", [(128, 128, 64), (128, 256, 448), (144, 176, 208)],
                         ids=["one_trip", "seven_trips", "edges"])
def test_copied_slots_give_the_interpreters_product(aligned, m, n, k):
    """One trip (fewer than the five stages: one slot copied, no TMA load), seven
    (five copied, then TMA), and tiles over the tensors' edges (zeros outside,
    as the TMA fills them), race-checked."""
    got, want = _run(m, n, k, aligned)
    np.testing.assert_array_equal(got, want)


def _slowed(ptx):
    """The producer warp held, before its loop, until the consumers have released slot 0
    once: a CTA whose map build takes long (its claim and key loads are global round
    trips) while the copied slots let the consumers run ahead."""
    m = re.search(r"\n(\$L_for_head_\d+):\n(?:[^\n]*\n){0,16}?\tmov\.u32 \t(%r\d+), (\w+\+\d+);\n"
                  r"\tmad\.lo\.u32 \t%r\d+, %r\d+, 8, \2;\n\$L_wait_\d+:\n\tmbarrier\.try_wait", ptx)
    n = int(re.search(r"\.reg \.pred \t%p<(\d+)>;", ptx).group(1))
    ptx = ptx.replace(f".reg .pred \t%p<{n}>;", f".reg .pred \t%p<{n + 1}>;")
    hold = (f"\n$L_held:\n\tmbarrier.try_wait.parity.shared.b64 \t%p{n}, [{m.group(3)}], 0;\n"
            f"\t@!%p{n} bra \t$L_held;")
    return ptx.replace("\n" + m.group(1) + ":", hold + "\n" + m.group(1) + ":", 1)


@pytest.mark.parametrize("arch", ["sm_90a", "sm_100a"])
@pytest.mark.parametrize("timing", ["late", "eager"])
def test_a_producer_the_consumers_overtake_still_fills_the_next_round(arch, timing):
    """The consumers of copied slots need nothing from the producer's thread 0, so they
    may release slot 0 before it first reaches that slot. Its wait on `empty` for the
    phase before the first would then be a wait for the second (a deadlock), and a
    consumer's wait on `full` for the second round would find the first phase, which
    only the producer completed, still open (stale data). So the producer skips copied
    slots whole and the first issuer completes their first `full` phase at the entry.
    Seven trips, five copied; race-checked."""
    ptx = _slowed(compile_text(_text(ALIGNED), arch=arch))
    assert "$L_held" in ptx
    rng = np.random.default_rng(1)
    m, n, k = 128, 256, 448
    a = rng.integers(-3, 4, (m, k)).astype(np.float16)
    b = rng.integers(-3, 4, (k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float16)
    args = [a, m, k, k, 1, b, k, n, n, 1, c, m, n, n, 1]
    res = ptxsim.run_ptx(ptx, "matmul_f16_aligned", (1, 2, 1), convert_scalars(_text(ALIGNED), args),
                         check_races=True, copy_timing=timing)
    assert res.stats["race_checked"]
    np.testing.assert_array_equal(c, (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16))


def test_without_the_consumers_fence_wgmma_may_miss_the_copies(aligned):
    before, after = aligned.split("stmatrix", 1)
    cut = before.replace("\tfence.proxy.async.shared::cta;\n", "") + "stmatrix" + after
    with pytest.raises(ptxsim.PTXRuntimeError, match="no fence.proxy.async since"):
        _run(128, 128, 128, cut)


def test_without_the_landed_wait_the_race_check_sees_the_copies_unordered(aligned):
    """The consumers' wait for the copies replaced by a predicate already true."""
    def no_wait(branch):
        return re.sub(r"mbarrier\.try_wait\.parity\.shared\.b64 \t(%p\d+), \[[^]]*\], [^;]*;",
                      r"setp.eq.u32 \t\1, 0, 0;", branch.group(0))
    cut = re.sub(r"bra \t\$L_full_wait_\d+;.*?fence\.proxy\.async", no_wait, aligned, flags=re.S)
    assert cut != aligned
    with pytest.raises(ptxsim.PTXRuntimeError):
        _run(128, 128, 128, cut)


def test_the_switch_restores_the_maps_first_start(monkeypatch):
    monkeypatch.setenv("TILEC_FIRST_FILLS", "0")
    ptx = compile_text(_text(ALIGNED), arch="sm_90a")
    assert "cp.async.cg" not in ptx and "$L_tmap_others" not in ptx and "%globaltimer" in ptx


def test_the_barrier_switch_keeps_the_copies_and_ends_the_maps_at_a_cta_barrier(monkeypatch, aligned):
    """TILEC_FIRST_FILLS=barrier: the gate's own A/B. The first fills stay, the
    batch ends at a CTA barrier, and the consumers read the slot in their prologue."""
    monkeypatch.setenv("TILEC_FIRST_FILLS", "barrier")
    ptx = compile_text(_text(ALIGNED), arch="sm_90a")
    def same(sec):      # (the gate's 8 bytes move the shared offsets after it)
        return re.sub(r"smem\+\d+", "smem", sec)
    assert same(_section(ptx)) == same(_section(aligned))
    assert re.search(r"\n\$L_tmap_built_\d+:\n\tbar\.sync \t0;", ptx)
    assert "$L_tmap_waited" not in ptx and "$L_tmap_waited" in aligned
    got, want = _run(128, 128, 128, ptx)
    np.testing.assert_array_equal(got, want)
    # the attention's Q: a cp.async-group of its own, waited for before a CTA barrier
    att = compile_text(_text(os.path.join(ROOT, "examples", "cutile", "attention_m128_f16_aligned.mlir")),
                       arch="sm_90a")
    assert "cp.async.commit_group" in att and "cp.async.mbarrier.arrive.noinc.shared.b64 \t[" not in \
        att[:att.index("\n$L_tmap_others")]
    assert re.search(r"cp\.async\.wait_group \t0;\n\tfence\.proxy\.async\.shared::cta;\n\tbar\.sync \t0;", att)


def test_kernels_without_a_copyable_start():
    """No device maps (unaligned): nothing changes."""
    ptx = compile_text(_text(os.path.join(ROOT, "examples", "cutile", "matmul_f16.mlir")), arch="sm_90a")
    assert "$L_tmap_others" not in ptx and "$L_first_fill" not in ptx


# ---- a persistent kernel: the first fills are its first tile's -----------------------------------

def _persistent():
    try:
        from gpu import cases
    except ImportError:                # pragma: no cover
        from tests.gpu import cases
    return cases, cases.BY_NAME["cutile_persistent_bmm_f16_aligned"]


def _run_persistent(ptx, grid=None):
    """The persistent bmm (8 output tiles) race-checked against the interpreter over
    `grid` blocks (default the case's 3)."""
    from test_ptx_sim import entry_symbol
    from tilec.interp import launch as interp_launch, parse_module
    cases, case = _persistent()
    launch = case.build(case.rng())
    grid = grid or launch.grid
    args, memo = cases.copy_args(launch.args)
    res = ptxsim.run_ptx(ptx, entry_symbol(case), grid, convert_scalars(case.text(), args), check_races=True)
    assert res.stats["race_checked"]
    want_args, want_memo = cases.copy_args(launch.args)
    interp_launch(parse_module(case.text(), case.full_path), grid=grid, args=want_args)
    cases.compare(case, launch, cases.outputs_of(launch, memo), cases.outputs_of(launch, want_memo))


def test_a_persistent_kernel_copies_its_first_tiles_first_slots():
    """After fork_once the pipelines are set up after the maps (just before the agents
    fork): they are set up ahead with the maps' batch (set_up_after), and the first
    fills copy the K trips of the CTA's first output tile, whose coordinates the tile
    loop's raster arithmetic (floor divisions, remainders, a minimum) gives at its lower
    bound, the CTA's block index."""
    _, case = _persistent()
    ptx = compile_text(case.text(), arch="sm_90a")
    sec = _section(ptx)
    assert sec.count("cp.async.cg.shared.global") == 2 and sec.count("cp.async.mbarrier.arrive.noinc") == 2
    assert "rem.s32" in sec and "min.s32" in sec        # the raster arithmetic, at the first tile
    assert ptx.index("mbarrier.init") < ptx.index("\n$L_tmap_others")
    _run_persistent(ptx)


def test_a_persistent_cta_without_a_tile_copies_nothing():
    """10 blocks for 8 tiles: blocks 8 and 9 run no tile, so they copy no slot (their
    copies would land after the CTA had ended)."""
    _, case = _persistent()
    _run_persistent(compile_text(case.text(), arch="sm_90a"), grid=(10, 1, 1))


def test_first_fills_of_the_wrong_tile_are_caught(monkeypatch):
    """A mutation: the copies evaluate the raster arithmetic at tile 0 in every CTA,
    not at the CTA's own first tile: blocks 1 and 2 start from block 0's data."""
    from tilec.codegen.ptx import first_fills
    cases, case = _persistent()
    monkeypatch.setattr(first_fills.FirstFills, "seeds", lambda self, em: {
        self.outer.regions[0].blocks[0].arguments[0]: first_fills._reg(em, "0")})
    with pytest.raises(cases.Mismatch):
        _run_persistent(compile_text(case.text(), arch="sm_90a"))


def test_ptxas_takes_the_copies_without_spills(aligned, tmp_path):
    from conftest import ptxas_stderr
    err = ptxas_stderr(aligned, tmp_path, "sm_90a")
    assert " 0 bytes spill stores" in err and "bytes spill stores" in err
    assert not re.search(r"[1-9]\d* bytes spill stores", err)


def test_maps_built_ahead_bring_the_pipelines_set_up_and_their_first_fills_with_them():
    """The aligned attention loads Q, then builds its maps while Q's copies are in
    flight (operand_loads.maps_ahead), before its K and V pipelines' turn: their set-up
    comes ahead too, so their first slots go out with the maps. Q's copies complete on
    an mbarrier of their own (operand_loads._landed_on_barrier): initialized before the
    pipelines' publication, each thread's arrival (tracking its Q copies only) just
    before the batch, and the wait after it. No CTA barrier and no cp.async wait follow
    the batch: the consumers start once Q has landed, not once warp 0's maps are built
    and the other warps' first fills issued."""
    path = os.path.join(ROOT, "examples", "cutile", "attention_m128_f16_aligned.mlir")
    ptx = compile_text(_text(path), arch="sm_90a")
    sec = _section(ptx)
    assert sec.count("cp.async.cg.shared.global") == 2 and "%globaltimer" not in ptx
    bar = re.search(r"mbarrier\.init\.shared\.b64 \t\[(\w+\+\d+)\], 384;", ptx).group(1)
    init = ptx.index(f"[{bar}], 384;")
    publish = ptx.index("fence.mbarrier_init.release.cluster;\n\tbar.sync \t0;", init)
    arrive = ptx.index(f"cp.async.mbarrier.arrive.noinc.shared.b64 \t[{bar}];")
    others, built = ptx.index("\n$L_tmap_others"), ptx.index("\n$L_tmap_built")
    assert ptx.index("cp.async.cg.shared.global") < init < publish < arrive < others < built
    agents = ptx.index("\n$L_agent")
    after = ptx[built:agents]
    assert re.search(rf"mov\.u32 \t(%r\d+), {re.escape(bar)};\n\$L_wait_\d+:\n\tmbarrier\.try_wait\.parity"
                     rf"\.shared\.b64 \t%p\d+, \[\1\], 0;", after)
    assert "fence.proxy.async.shared::cta" in after and "bar.sync" not in after
    assert "cp.async.wait" not in ptx[:agents] and "cp.async.commit_group" not in ptx
    # the pipelines' barriers are initialized before the maps' batch that fills them
    assert init < ptx.rindex("mbarrier.init", 0, others) < publish


def _attention_case():
    try:
        from gpu import cases
    except ImportError:                # pragma: no cover
        from tests.gpu import cases
    return cases.BY_NAME["cutile_attention_m128_f16_aligned"]


def _run_case(case, ptx):
    from test_ptx_sim import entry_symbol, interpreter_result
    try:
        from gpu import cases
    except ImportError:                # pragma: no cover
        from tests.gpu import cases
    launch = case.build(case.rng())
    args, memo = cases.copy_args(launch.args)
    res = ptxsim.run_ptx(ptx, entry_symbol(case), launch.grid, convert_scalars(case.text(), args),
                         check_races=True)
    assert res.stats["race_checked"]
    cases.compare(case, launch, cases.outputs_of(launch, memo), interpreter_result(case)[0])


def test_the_attentions_q_is_read_once_its_own_barrier_completes():
    """The aligned attention runs race-checked and gives the interpreter's result. Without
    the wait on Q's barrier, the race check sees the consumers' wgmma read Q's bytes
    unordered with the copies that wrote them."""
    case = _attention_case()
    ptx = compile_text(case.text(), arch="sm_90a")
    _run_case(case, ptx)
    built = ptx.index("\n$L_tmap_built")
    wait = re.compile(r"mbarrier\.try_wait\.parity\.shared\.b64 \t(%p\d+), [^;]*;").search(ptx, built)
    cut = ptx[:wait.start()] + f"setp.eq.u32 \t{wait.group(1)}, 0, 0;" + ptx[wait.end():]
    with pytest.raises(ptxsim.DataRace, match=r"a copy completing on the mbarrier .* wgmma\.mma_async"):
        _run_case(case, cut)


def _two_loops():
    """The aligned matmul with its K loop cut in two: the last two K tiles [lo, n) first,
    then [0, lo), the second loop starting from the first's accumulator. Both loops fill
    the same two pipelines (as a causal attention's masked and unmasked key loops do); the
    second's tiles are not the first's continued, so a slot copied past the first loop's
    trips would hold the wrong tile."""
    s = _text(ALIGNED)
    a, b = s.index("    %for = for %loopIdx"), s.index("    %2 = ftof %for")
    loop = s[a:b]
    first = loop.replace("%for = for %loopIdx in (%cst_0_i32 to %1#1,", "%for0 = for %loopIdx in (%lo to %1#1,")
    second = loop.replace("(%cst_0_i32 to %1#1,", "(%cst_0_i32 to %lo,").replace("= %cst_0_f32)", "= %for0)")
    for old, new in (("%loopIdx", "%j"), ("%iterArg0", "%acc"), ("%pview_36", "%pv_a"), ("%pview_37", "%pv_b"),
                     ("%tile_38", "%t_b"), ("%result_token_39", "%tok_b"), ("%tile,", "%t_a,"),
                     ("%tile ", "%t_a "), ("%result_token ", "%tok_a "), ("%4 ", "%5 "), ("continue %4", "continue %5")):
        second = second.replace(old, new)
    lo = ("    %two = constant <i32: 2> : tile<i32>\n    %d = subi %1#1, %two : tile<i32>\n"
          "    %lo = maxi %d, %cst_0_i32 signed : tile<i32>\n")
    return s[:a] + lo + first + second + s[b:]


@pytest.mark.parametrize("k", [64, 192, 640])
def test_a_pipeline_two_loops_fill_gets_its_first_loops_trips_copied(k):
    """Only the first loop's trips are copied (two at most here): with three trips the
    ring's first round ends with a TMA fill of the second loop's first tile; with one,
    the second loop runs none. Race-checked against the product."""
    text = _two_loops()
    ptx = compile_text(text, arch="sm_90a")
    assert _section(ptx).count("cp.async.cg.shared.global") == 2
    assert ptx.count("nv_tileas") == 0 and len(re.findall(r"\n\$L_filled_\d+:", ptx)) >= 4   # every fill may skip
    got, want = _run(128, 128, k, ptx)
    np.testing.assert_array_equal(got, want)


def test_consumers_wait_for_the_maps_only_where_they_use_one(aligned):
    """No CTA barrier ends the maps' batch: the consumers' leader waits on the
    gate warp 0 arrives on just before its first map use (the epilogue's TMA
    store), then reads the CTA's slot and acquires the map. Without that wait
    the race check sees the slot read unordered with thread 0's claim."""
    use = re.search(r"\t@!(%p\d+) bra \t(\$L_tmap_waited_\d+);\n(.*?)\n\2:\n\t@\1 cp\.async\.bulk\.tensor\.2d"
                    r"\.global\.shared::cta", aligned, re.S)
    assert use, "the store's map is not awaited where it is used"
    body = use.group(3)
    gate = re.search(r"mbarrier\.init\.shared\.b64 \t\[(\w+\+\d+)\], 1;\n\t@%p\d+ mbarrier\.init\.shared\.b64 "
                     r"\t\[\w+\+\d+\+0\], 96;", aligned).group(1)
    assert re.search(rf"mov\.u32 \t(%r\d+), {re.escape(gate)};\n\$L_wait_\d+:\n\tmbarrier\.try_wait\.parity"
                     rf"\.shared\.b64 \t%p\d+, \[\1\], 0;", body)
    assert re.search(r"ld\.shared\.u32 [^\n]*\n(.*\n){3}\tcvta\.global\.u64 \t(%rd\d+), [^\n]*\n"
                     r"\tfence\.proxy\.tensormap::generic\.acquire\.gpu \t\[\2\], 128;$", body)
    # the consumers' prologue neither reads the slot nor acquires the map any more
    assert aligned.count("fence.proxy.tensormap::generic.acquire") == 3 + 1
    cut = aligned.replace(body, re.sub(r"mbarrier\.try_wait\.parity\.shared\.b64 \t(%p\d+), [^;]*;",
                                       r"setp.eq.u32 \t\1, 0, 0;", body))
    assert cut != aligned
    with pytest.raises(ptxsim.PTXRuntimeError, match="race"):
        _run(128, 128, 128, cut)


LAGGING = ["cutile_matmul_f16_aligned", "cutile_attention_m128_f16_aligned", "cutile_persistent_bmm_f16_aligned",
           "cutile_matmul_cluster_f16_aligned", "cutile_bmm_tt_f16_aligned"]


@pytest.mark.parametrize("arch", ["sm_90a", "sm_100a"])
@pytest.mark.parametrize("name", LAGGING)
def test_a_lagging_warp_0_is_overtaken_safely(name, arch):
    """The simulator's "lagging" order runs warp 0 only while no other thread can (a map
    build that takes long), and eager copies let the consumers of the copied slots run
    through them meanwhile: the first fills' hand-over must hold in any order. (Before
    the producer skipped copied slots, the GEMM and the attention deadlocked here.)"""
    try:
        from gpu import cases
    except ImportError:                # pragma: no cover
        from tests.gpu import cases
    from test_ptx_sim import entry_symbol, interpreter_result
    case = cases.BY_NAME[name]
    ptx = compile_text(case.text(), arch=arch)
    assert "$L_tmap_others" in ptx and "cp.async.cg.shared.global" in ptx
    launch = case.build(case.rng())
    args, memo = cases.copy_args(launch.args)
    res = ptxsim.run_ptx(ptx, entry_symbol(case), launch.grid, convert_scalars(case.text(), args),
                         thread_order="lagging", copy_timing="eager", check_races=True)
    assert res.stats["race_checked"]
    cases.compare(case, launch, cases.outputs_of(launch, memo), interpreter_result(case)[0])
