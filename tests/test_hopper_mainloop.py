"""The sm_90a GEMM mainloop's rules (docs/decisions.md, "The Hopper GEMM mainloop"):

- TMA only where the IR proves the alignment a tensor map needs (divisibility.py);
- setmaxnreg only where every slot a producer fills comes by TMA, with a `.maxnreg`
  so ptxas honours it, and the counts covering each other;
- a wgmma group kept in flight only for an accumulator that never leaves its
  registers, with two stages or more; the slots it reads released one
  iteration late;
- ptxas takes all of it without spills and without serializing the wgmma.
Results are checked by the simulator elsewhere (tests/test_ptx_sim.py runs the
examples; tests/test_ptxsim_tma.py the tensor-map model)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest
from conftest import ptxas_stderr

from tilec.codegen.ptx import compile_text
from tilec.dialects.cuda_tile.divisibility import ZERO, known_divisor, tensor_view_parts, tma_aligned

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALIGNED = os.path.join(ROOT, "examples", "cutile", "matmul_f16_aligned.mlir")
UNALIGNED = os.path.join(ROOT, "examples", "cutile", "matmul_f16.mlir")
FP8 = os.path.join(ROOT, "examples", "cutile", "matmul_fp8_bt_aligned.mlir")


def text(path):
    with open(path) as fh:
        return fh.read()


def ptx(path_or_text, **kw):
    src = text(path_or_text) if os.path.exists(path_or_text) else path_or_text
    return compile_text(src, arch="sm_90a", **kw)


def tensor_views(src):
    from tilec.frontend import parse_and_verify
    from tilec.ir.diagnostics import DiagnosticEngine
    ops = parse_and_verify(src, "input", DiagnosticEngine())
    return [op.results[0] for top in ops for op in top.walk() if op.name == "cuda_tile.make_tensor_view"]


def test_divisibility_reads_cutiles_assumptions():
    aligned = tensor_views(text(ALIGNED))
    assert len(aligned) == 3 and all(tma_aligned(tv, 16) for tv in aligned)
    base, shape, strides = tensor_view_parts(aligned[0])
    assert known_divisor(base) == 16 and known_divisor(strides[0]) == 16 and strides[1] == 1
    # the unaligned specialization: base 16-byte aligned, strides unknown
    plain = tensor_views(text(UNALIGNED))
    assert all(known_divisor(tensor_view_parts(tv)[0]) == 16 for tv in plain)
    assert not any(tma_aligned(tv, 16) for tv in plain)


def test_divisibility_through_arithmetic():
    src = """cuda_tile.module @m {
  entry @k(%p: tile<ptr<f16>>, %n: tile<i32>) {
    %a = assume div_by<4>, %n : tile<i32>
    %c8 = constant <i32: 8> : tile<i32>
    %c0 = constant <i32: 0> : tile<i32>
    %m = muli %a, %c8 : tile<i32>
    %s = addi %m, %c8 : tile<i32>
    %q = assume div_by<16>, %p : tile<ptr<f16>>
    %tv = make_tensor_view %q, shape = [%n, %n], strides = [%s, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tw = make_tensor_view %q, shape = [%n, %n], strides = [%m, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    return
  }
}
"""
    tv, tw = tensor_views(src)
    s = tensor_view_parts(tv)[2][0]
    m = tensor_view_parts(tw)[2][0]
    assert known_divisor(m) == 32 and known_divisor(s) == 8          # 4*8, gcd(32, 8)
    assert tma_aligned(tw, 16) and tma_aligned(tv, 16)               # 8 f16 = 16 bytes
    assert not tma_aligned(tv, 8)                                    # 8 u8 = 8 bytes
    from tilec.dialects.cuda_tile.divisibility import _pow2
    assert _pow2(0) == ZERO and _pow2(24) == 8


def test_aligned_matmul_loads_by_tma_and_rebalances_registers():
    out = ptx(ALIGNED)
    assert out.count("cp.async.bulk.tensor.2d.shared::cluster") == 3   # A one box, B two panels
    assert "cp.async.cg" not in out
    assert re.search(r"\.maxnreg 144\b", out)
    decs = re.findall(r"setmaxnreg\.dec\.sync\.aligned\.u32 \t(\d+)", out)
    incs = re.findall(r"setmaxnreg\.inc\.sync\.aligned\.u32 \t(\d+)", out)
    assert decs == ["40", "144"] and incs == ["144", "240"]
    # what the producer gives back (4 warps x 104) covers what the consumer takes (4 warps x 96)
    assert 128 * (144 - 40) >= 128 * (240 - 144)
    assert "wgmma.wait_group.sync.aligned \t1" in out


def test_the_producer_takes_its_registers_back_after_the_consumers_give_theirs():
    """setmaxnreg.inc waits until the CTA's pool holds what it asks for. A
    producer that took its registers back as soon as its loop ended (no wait in
    a loop of no more trips than stages) left the consumers' .inc waiting for
    ever: TileGym's gemma attention hung on an H100 that way. The consumers give
    back and arrive at a named barrier; the producer waits there first."""
    out = ptx(ALIGNED)
    give = out.index("setmaxnreg.dec.sync.aligned.u32 \t144")
    assert re.match(r"\s*bar\.arrive \t3, 256;", out[out.index("\n", give):])
    take = out.index("setmaxnreg.inc.sync.aligned.u32 \t144")
    assert out[:take].rstrip().endswith("bar.sync \t3, 256;")


@pytest.mark.parametrize("k", [0, 64])
def test_a_loop_of_no_or_one_trip_runs_to_the_end(k):
    """The simulator runs the producer first, as a fast producer runs on the GPU:
    before the fix both shapes deadlocked in the consumers' setmaxnreg.inc."""
    _simulate_aligned(128, 128, k, (1, 1, 1), 5)


def test_tma_filled_slots_need_no_proxy_fence():
    """wgmma reads through the async proxy: slots that cp.async (generic proxy)
    filled are fenced before each read, slots TMA filled are not (the one fence
    left publishes the epilogue's staging tile to the TMA store, test_tma_store.py)."""
    for out in (ptx(ALIGNED), ptx(FP8)):
        assert "fence.proxy.async" not in out[:out.index("stmatrix")]
        assert out.count("fence.proxy.async") == 1
    assert "fence.proxy.async.shared::cta" in ptx(UNALIGNED)


def test_unaligned_matmul_keeps_cp_async_without_setmaxnreg():
    out = ptx(UNALIGNED)
    assert "cp.async.bulk.tensor" not in out and "tensormap" not in out and "__tilec_tmap" not in out
    assert "setmaxnreg" not in out and ".maxnreg" not in out
    assert "cp.async.cg.shared.global" in out
    assert "wgmma.wait_group.sync.aligned \t1" in out     # in flight all the same


def test_one_stage_keeps_the_group_waited_for():
    out = ptx(ALIGNED, num_stages=1)
    assert "wgmma.wait_group.sync.aligned \t1" not in out
    assert "wgmma.wait_group.sync.aligned \t0" in out


def test_rescaled_accumulators_wait_every_iteration():
    """Attention rescales its accumulator each key tile: it leaves the wgmma's
    registers, so the group cannot stay in flight."""
    out = ptx(os.path.join(ROOT, "examples", "cutile", "attention_m128_f16.mlir"))
    assert "wgmma.mma_async" in out and "wgmma.wait_group.sync.aligned \t1" not in out


def test_no_tma_when_a_nested_return_could_skip_the_release():
    src = text(ALIGNED)
    body_end = src.rindex("    return\n")
    # an early exit for blocks past the array: taken before the slot is given back
    early = ("    %early_c0 = constant <i32: 0> : tile<i32>\n"
             "    %early_p = cmpi less_than %blockId_x, %early_c0, signed : tile<i32> -> tile<i1>\n"
             "    if %early_p {\n      return\n    }\n")
    first = src.index("    %pview = make_partition_view")
    out = ptx(src[:first] + early + src[first:body_end] + src[body_end:])
    assert "cp.async.bulk.tensor" not in out and "setmaxnreg" not in out


def test_fp8_runs_on_wgmma_k_major():
    out = ptx(FP8)
    assert out.count("wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3") == 8
    assert re.search(r"e4m3\.e4m3 \t\{[^}]*\}, %rd\d+, %rd\d+, 1, 1, 1;", out)   # no transpose immediates
    assert out.count("cp.async.bulk.tensor.2d.shared::cluster") == 2


@pytest.mark.parametrize("path", [ALIGNED, FP8] + [os.path.join(ROOT, "examples", "cutile", f"{k}.mlir") for k in (
    "bmm_tt_f16_aligned", "persistent_bmm_f16_aligned", "attention_m128_f16_aligned")])
def test_ptxas_takes_the_mainloop_without_spills_or_serialization(path, tmp_path):
    """Also the staged TMA-store epilogue of the aligned, bmm, persistent and
    attention kernels (tests/test_tma_store.py)."""
    text = ptx(path)
    err = ptxas_stderr(text, tmp_path)
    assert " 0 bytes spill stores" in err
    assert "C7508" not in err          # setmaxnreg ignored
    assert "C7514" not in err and "C7511" not in err and "C7520" not in err   # wgmma serialized
    assert "C75" not in err            # nor any other performance advisory
    assert "cp.async.bulk.tensor" in text


def _stage_counts(path, *extra):
    import sys
    r = subprocess.run([sys.executable, "-m", "tilec.cli", "opt", path, "--lower-to-tileas", *extra],
                       capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    return sorted(set(int(n) for n in re.findall(r"numStages = (\d+)", r.stdout)))


def test_tma_stages_fill_the_shared_memory_one_cta_holds():
    """Agents whose register budgets leave one CTA per SM: the shared memory no
    second CTA can use holds more TMA stages (6 of 32 KB here, 197 KB in all, as
    tileiras's cubin of the same kernel); cp.async loops and explicit counts keep theirs."""
    assert _stage_counts(ALIGNED, "--schedule") == [5]          # and the 32 KB epilogue tile (test_tma_store.py)
    assert _stage_counts(ALIGNED, "--schedule=tma-store=false") == [6]
    assert _stage_counts(ALIGNED, "--schedule=num-stages=3") == [3]
    assert _stage_counts(ALIGNED, "--schedule=tma=false") == [3]
    assert _stage_counts(UNALIGNED, "--schedule") == [3]
    out = ptx(ALIGNED)
    smem = int(re.search(r"dynamic_shared_bytes \w+ (\d+)", out).group(1))
    assert 6 * 32768 <= smem <= 227 * 1024 - 16 * 1024 + 1024


BMM_TT = os.path.join(ROOT, "examples", "cutile", "bmm_tt_f16_aligned.mlir")
PERSISTENT = os.path.join(ROOT, "examples", "cutile", "persistent_bmm_f16_aligned.mlir")
ATTENTION = os.path.join(ROOT, "examples", "cutile", "attention_m128_f16_aligned.mlir")


def _with_occupancy(path, n):
    src = text(path)
    hinted = src.replace("optimization_hints=<sm_90 = {}>", f"optimization_hints=<sm_90 = {{occupancy = {n}}}>")
    assert hinted != src
    return hinted


def _budget(out):
    """(.maxnreg, dynamic shared bytes) of a kernel's PTX."""
    return (int(re.search(r"\.maxnreg (\d+)", out).group(1)),
            int(re.search(r"dynamic_shared_bytes \w+ (\d+)", out).group(1)))


def _ctas_per_sm(out, threads):
    regs, smem = _budget(out)
    return min(65536 // (regs * threads), 228 * 1024 // (smem + 1024))


@pytest.mark.parametrize("path,auto", [(ALIGNED, 1), (BMM_TT, 2), (PERSISTENT, 1), (ATTENTION, 1)])
def test_occupancy_sizes_registers_and_stages_for_that_many_ctas(path, auto):
    """cuTile's `occupancy` hint (CTAs per SM) sizes the agents' register budgets
    (`.maxnreg`) and the TMA stages to 1/N of an SM. Without one the schedule takes
    two for an outermost TMA loop whose consumers fit half the registers (a 64x64
    batched tile), one for a persistent kernel, the 128x128 GEMM and attention."""
    threads = int(re.search(r"\.reqntid (\d+)", ptx(path)).group(1))
    assert _ctas_per_sm(ptx(path), threads) == auto
    assert _ctas_per_sm(ptx(_with_occupancy(path, 1)), threads) == 1
    if path != ATTENTION:       # two attention CTAs leave each consumer 108 registers: too few
        hinted = ptx(_with_occupancy(path, 2))
        assert _ctas_per_sm(hinted, threads) == 2
        assert "setmaxnreg.inc.sync.aligned.u32 \t216" in hinted


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not on PATH")
@pytest.mark.parametrize("path", [ALIGNED, BMM_TT])
def test_ptxas_fits_two_ctas_without_spills(path, tmp_path):
    p = tmp_path / "k.ptx"
    p.write_text(ptx(_with_occupancy(path, 2)))
    r = subprocess.run(["ptxas", "-arch=sm_90a", "-v", str(p), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert " 0 bytes spill stores" in r.stderr and "C7508" not in r.stderr


def test_occupancy_option_and_bad_values(run_cli):
    """`schedule{occupancy=N}` overrides the hint; a negative one is refused."""
    assert _stage_counts(ALIGNED, "--schedule=occupancy=2") == [3]
    assert _stage_counts(ALIGNED, "--schedule=occupancy=1") == [5]       # beside the epilogue's tile
    rc, _, err = run_cli("opt", ALIGNED, "--lower-to-tileas", "--schedule=occupancy=-1")
    assert rc != 0 and "invalid schedule options" in err and "occupancy=-1" in err


def _simulate_aligned(m, n, k, grid, seed, edit=lambda out: out):
    """Run the aligned matmul's PTX (after `edit`) in the simulator on random
    operands, check C, and return the simulation's result."""
    import numpy as np
    try:
        import ptxsim
    except ImportError:                     # pragma: no cover
        from tests import ptxsim
    from tilec.runtime import convert_scalars
    src = text(ALIGNED)
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float16)
    args = [a, m, k, k, 1, b, k, n, n, 1, c, m, n, n, 1]
    res = ptxsim.run_ptx(edit(ptx(src)), "matmul_f16_aligned", grid, convert_scalars(src, args))
    want = a.astype(np.float64) @ b.astype(np.float64)
    assert np.all(np.abs(c - want) <= 2e-3 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))) + 1e-3)
    return res


def test_slots_are_released_and_their_keys_let_later_ctas_skip_the_build():
    """Six CTAs over the simulator's four SMs (%smid = CTA index mod 4): CTAs 4 and 5
    claim the slots CTAs 0 and 1 gave back, find their own tensors' keys there and
    use the maps without building them. The result stays right, every busy bit is
    clear at the end, and four slots hold keys."""
    import numpy as np
    m, k = 384, 128
    res = _simulate_aligned(m, 256, k, (3, 2, 1), 7)
    assert not res.global_as("__tilec_tmap_busy_matmul_f16_aligned", np.uint32).any()
    keys = res.global_as("__tilec_tmapkeys_matmul_f16_aligned_0", np.uint32).reshape(-1, 16)
    assert sorted(np.nonzero(keys[:, 0])[0].tolist()) == [0, 32, 64, 96]
    assert keys[0, 1] == k and keys[0, 2] == m          # A's dims, innermost first


def test_taken_bits_and_full_words_send_the_claim_further():
    """The claim ORs in bit 0 of its SM's word first. Where that bit is held, it
    takes the lowest bit the atom saw free; where the word is full, the next
    word. Busy words preset: word 0 holds bit 0, word 1 is full. CTA 0 (SM 0)
    gets slot 1, CTA 1 (SM 1) slot 64, and the preset bits are still set after."""
    import numpy as np
    name = "__tilec_tmap_busy_matmul_f16_aligned"
    decl = f".global .align 4 .b32 {name}[256];"

    def preset(out):
        assert decl in out
        return out.replace(decl, decl[:-1] + " = {" + ", ".join(["1", str(0xFFFFFFFF)] + ["0"] * 254) + "};")
    res = _simulate_aligned(128, 256, 128, (1, 2, 1), 3, preset)
    busy = res.global_as(name, np.uint32)
    assert busy[0] == 1 and busy[1] == 0xFFFFFFFF and not busy[2:].any()
    keys = res.global_as("__tilec_tmapkeys_matmul_f16_aligned_0", np.uint32).reshape(-1, 16)
    assert sorted(np.nonzero(keys[:, 0])[0].tolist()) == [1, 64]


def test_maps_start_up_in_one_round_trip_and_release_without_waiting_for_stores():
    """The CTA's tensor maps are one batch: one claim, every key load issued
    before any is compared, one CTA barrier after the builds, and no fence on a
    build's path: the slot goes back with a release red where the CTA wrote a
    map and its key (the next holder sees them), else with a relaxed one, so a
    CTA that reused the maps does not wait for the epilogue's stores at its exit.
    The claim's first atom goes out at the entry, before the barrier inits and
    their CTA barrier (on an H100 the claim came back 1.0-2.0 us after the
    entry when it waited for them, the maps ready 1.5-3 us after)."""
    out = ptx(ALIGNED)
    start = out.index("atom.acquire.gpu.global.or.b32")
    assert start < out.index("mbarrier.init") < out.index("fence.mbarrier_init") < out.index("$L_tmap_check")
    start = out.index("$L_tmap_check")
    loads = [m.start() for m in re.finditer(r"ld\.global\.u(32|64) \t%\w+, \[%rd\d+\+\d+\]", out)]
    compares = [m.start() for m in re.finditer(r"setp\.eq\.and\.u(32|64)", out)]
    # five key words a map (base, two dims, one stride, the set flag): A, B and C's (the epilogue's TMA store)
    assert len(loads) == len(compares) == 15 and max(loads) < min(compares) and start < min(loads)
    between = out[start:out.index("$L_agent")]
    assert between.count("bar.sync") == 1 and "ld.relaxed" not in out
    wrote = re.search(r"setp\.ne\.u32 \t(%p\d+), 0, 0", out).group(1)
    assert between.count(f"setp.eq.u32 \t{wrote}, 1, 1") == 3     # on each map's build path
    assert "fence.acq_rel" not in out
    assert f"@{wrote} red.release.gpu.global.and.b32" in out and f"@!{wrote} red.relaxed.gpu.global.and.b32" in out


def test_proven_alignment_drops_the_run_time_vector_test():
    """The epilogue's vector stores test alignment at run time unless the IR
    proves it: the aligned specialization has no element-wise fallback (with
    two CTAs per SM it has no room for the TMA store's staging tile, so it
    stores from registers), the unaligned one keeps it."""
    two = ptx(_with_occupancy(ALIGNED, 2))
    assert "$L_scalar_access" not in two and "st.global.v2.b16" in two and "bulk_group" not in two
    assert "$L_scalar_access" in ptx(UNALIGNED)


def test_an_occupancy_hint_the_tensor_core_tiles_cannot_keep_is_not_honoured(run_cli, tmp_path):
    """Three attention CTAs per SM leave each consumer thread 64 registers, fewer
    than the 96 that S, P and O hold at once (wgmma operands in flight cannot
    spill: ptxas refused TileGym's gemma attention at two, C7602). The hint is
    advice: the schedule warns and keeps one CTA. The 128x128 GEMM's 128
    accumulator registers fit two CTAs' budget, and it keeps that hint
    (test_occupancy_sizes_registers_and_stages_for_that_many_ctas)."""
    src = tmp_path / "att.mlir"
    src.write_text(_with_occupancy(ATTENTION, 3))
    rc, out, err = run_cli("compile", str(src), "--arch", "sm_90a", "-o", str(tmp_path / "att.ptx"))
    assert rc == 0, err
    assert re.search(r"warning: occupancy 3 leaves each consumer thread 64 registers, fewer than the 96 its "
                     r"tensor-core tiles hold at once; using 1 CTA per SM", err)
    threads = int(re.search(r"\.reqntid (\d+)", (tmp_path / "att.ptx").read_text()).group(1))
    assert _ctas_per_sm((tmp_path / "att.ptx").read_text(), threads) == 1


def test_mbarriers_keep_their_shared_memory_for_the_whole_kernel():
    """The PTX ISA lets an mbarrier's memory serve nothing else until it is
    invalidated, and tilec never invalidates one: a buffer of a later phase (a
    second batch of tensor maps, between two pipelined loops) is never placed
    over a pipeline's barriers, although their last use is an earlier phase."""
    from tilec.codegen.ptx.builder import KernelBuilder
    kb = KernelBuilder("k")
    bars = kb.shared_buffer(64, 8, "full", span=kb.WHOLE_KERNEL)
    kb.mark_phase(0)
    kb.emit(f"mbarrier.init.shared.b64 \t[{bars}], 1")
    kb.mark_phase(2)
    later = kb.shared_buffer(128, 128, "tmap")
    kb.emit(f"st.shared.u32 \t[{later}], 0")
    offsets, _, _ = kb.shared_layout()
    assert offsets[later] >= offsets[bars] + 64 or offsets[later] + 128 <= offsets[bars]


def test_a_hint_not_honoured_does_not_shrink_the_shared_memory_of_the_operands():
    """Where the schedule keeps one CTA per SM against an `occupancy` hint, the
    loop-invariant dot operands (attention's Q) get the room of one CTA too:
    Q is read in place from shared memory as without the hint, not staged into
    registers because three CTAs' share of shared memory would not hold it."""
    from tilec.compiler import lower_and_schedule
    from tilec.frontend import parse_and_verify
    from tilec.ir.diagnostics import DiagnosticEngine
    from tilec.syntax.printer import print_ops

    def shared_operands(text):
        engine = DiagnosticEngine()
        ops = lower_and_schedule(parse_and_verify(text, "att.mlir", engine), engine, "sm_90a", 4, None)
        return print_ops(ops).count("{layout = #nv_tileas<layout shared>")
    plain = shared_operands(text(ATTENTION))
    assert plain >= 1
    assert shared_operands(_with_occupancy(ATTENTION, 3)) == plain
