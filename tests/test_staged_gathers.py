"""A gather that a dot reads goes through the K loop's pipeline like a tiled
load (schedule/analysis.py `_stageable`): the producer issues it for a stage
ahead, and its runs of consecutive elements land in the stage's slot by
cp.async (codegen/ptx/vector_gather.py `async_fill`), tracked by the slot's
barrier. The consumer reads the slot in place (wgmma's shared-memory A on
sm_90a, ldmatrix on sm_80, a descriptor on sm_100a).

Checked here: where the gather goes in the scheduled IR, the PTX's copies, and
the simulator (which lands copies late and zero-fills short ones) against the
interpreter; a gather whose bounds only a run-time test settles goes through
registers into the slot, and one that no dot reads stays in the consumer."""
from __future__ import annotations

import re
import shutil
import subprocess
import tempfile

import numpy as np
import pytest

import ptxsim
from tilec.codegen.ptx import compile_text
from tilec.compiler import lower_and_schedule
from tilec.frontend import parse_and_verify
from tilec.interp import launch, parse_module
from tilec.ir.diagnostics import DiagnosticEngine
from tilec.syntax.printer import print_ops

PTXAS = shutil.which("ptxas")

# C (64 x 64, f32) = A[rows] (64 x 128, f16, a row pitch of RS) @ B (128 x 64), K steps of
# 32. Elements at or past n read 0 (the mask cuTile's gather writes). ASSUME states what
# the caller guarantees about a, RS and n. EPILOGUE follows the dot in the loop body.
KERNEL = """cuda_tile.module @m {
  entry @moe(%a0: tile<ptr<f16>>, %idx: tile<ptr<i32>>, %b0: tile<ptr<f16>>, %c: tile<ptr<f32>>, %rs0: tile<i32>, %n0: tile<i32>, %w: tile<ptr<f32>>) {
    ASSUME
    %b = assume div_by<16>, %b0 : tile<ptr<f16>>
    %ti = make_tensor_view %idx, shape = [64], strides = [1] : tensor_view<64xi32, strides=[1]>
    %pi = make_partition_view %ti : partition_view<tile=(64), tensor_view<64xi32, strides=[1]>>
    %tb = make_tensor_view %b, shape = [128, 64], strides = [64, 1] : tensor_view<128x64xf16, strides=[64,1]>
    %pb = make_partition_view %tb : partition_view<tile=(32x64), tensor_view<128x64xf16, strides=[64,1]>>
    %tc = make_tensor_view %c, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xf32, strides=[64,1]>
    %pc = make_partition_view %tc : partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>
    %z = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %four = constant <i32: 4> : tile<i32>
    %k32 = constant <i32: 32> : tile<i32>
    %rows, %t0 = load_view_tko weak %pi[%z] : partition_view<tile=(64), tensor_view<64xi32, strides=[1]>>, tile<i32> -> tile<64xi32>, token
    %r2 = reshape %rows : tile<64xi32> -> tile<64x1xi32>
    %rsr = reshape %rs : tile<i32> -> tile<1x1xi32>
    %rsb = broadcast %rsr : tile<1x1xi32> -> tile<64x1xi32>
    %rowoff = muli %r2, %rsb : tile<64x1xi32>
    %rowb = broadcast %rowoff : tile<64x1xi32> -> tile<64x32xi32>
    %j = iota : tile<32xi32>
    %j2 = reshape %j : tile<32xi32> -> tile<1x32xi32>
    %jb = broadcast %j2 : tile<1x32xi32> -> tile<64x32xi32>
    %base = addi %rowb, %jb : tile<64x32xi32>
    %nr = reshape %n : tile<i32> -> tile<1x1xi32>
    %nb = broadcast %nr : tile<1x1xi32> -> tile<64x32xi32>
    %ra = reshape %a : tile<ptr<f16>> -> tile<1x1xptr<f16>>
    %pa = broadcast %ra : tile<1x1xptr<f16>> -> tile<64x32xptr<f16>>
    %pad = constant <f16: 0.0> : tile<64x32xf16>
    %acc0 = constant <f32: 0.0> : tile<64x64xf32>
    %res = for %k in (%z to %four, step %one) : tile<i32> iter_values(%acc = %acc0) -> (tile<64x64xf32>) {
      %kk = muli %k, %k32 : tile<i32>
      %kr = reshape %kk : tile<i32> -> tile<1x1xi32>
      %kb = broadcast %kr : tile<1x1xi32> -> tile<64x32xi32>
      %off = addi %base, %kb : tile<64x32xi32>
      %in = cmpi less_than %off, %nb, signed : tile<64x32xi32> -> tile<64x32xi1>
      %ptrs = offset %pa, %off : tile<64x32xptr<f16>>, tile<64x32xi32> -> tile<64x32xptr<f16>>
      %at, %t1 = load_ptr_tko weak %ptrs, %in, %pad : tile<64x32xptr<f16>>, tile<64x32xi1>, tile<64x32xf16> -> tile<64x32xf16>, token
      %bt, %t2 = load_view_tko weak %pb[%k, %z] : partition_view<tile=(32x64), tensor_view<128x64xf16, strides=[64,1]>>, tile<i32> -> tile<32x64xf16>, token
      %d = mmaf %at, %bt, %acc : tile<64x32xf16>, tile<32x64xf16>, tile<64x64xf32>
      EPILOGUE
    }
    %t3 = store_view_tko weak %res, %pc[%z, %z] : tile<64x64xf32>, partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>, tile<i32> -> token
    return
  }
}
"""

ALIGNED = """%a = assume div_by<16>, %a0 : tile<ptr<f16>>
    %rs = assume div_by<16>, %rs0 : tile<i32>
    %n = assume div_by<16>, %n0 : tile<i32>"""
UNPROVEN = """%a = assume div_by<16>, %a0 : tile<ptr<f16>>
    %rs = assume div_by<16>, %rs0 : tile<i32>
    %n = assume div_by<1>, %n0 : tile<i32>"""
CONTINUE = "continue %d : tile<64x64xf32>"
# a per-K-step weight gathered by the loop's counter: no dot reads it
SCALED = """%wi = reshape %k : tile<i32> -> tile<1xi32>
      %wr = reshape %w : tile<ptr<f32>> -> tile<1xptr<f32>>
      %wp = offset %wr, %wi : tile<1xptr<f32>>, tile<1xi32> -> tile<1xptr<f32>>
      %wv, %t4 = load_ptr_tko weak %wp : tile<1xptr<f32>> -> tile<1xf32>, token
      %w2 = reshape %wv : tile<1xf32> -> tile<1x1xf32>
      %wb = broadcast %w2 : tile<1x1xf32> -> tile<64x64xf32>
      %e = mulf %d, %wb rounding<nearest_even> : tile<64x64xf32>
      continue %e : tile<64x64xf32>"""

ARCHES = ["sm_80", "sm_90a", "sm_100a"]


def kernel(assume=ALIGNED, epilogue=CONTINUE):
    return KERNEL.replace("ASSUME", assume).replace("EPILOGUE", epilogue)


def scheduled(text, arch):
    engine = DiagnosticEngine()
    ops = lower_and_schedule(parse_and_verify(text, "moe.mlir", engine), engine, arch, 4, None)
    assert ops is not None, [d.message for d in engine.diagnostics]
    return print_ops(ops)


def regions(text, name):
    """The text of every `name` region (produce_one / consume_one) of the scheduled IR."""
    out = []
    for part in text.split(f"nv_tileas.async.pipeline.{name} ")[1:]:
        out.append(part.split("nv_tileas.async.pipeline.yield", 1)[0])
    return out


def run_both(text, arch, rs, n, rows, seed=0):
    """(simulated C, interpreted C) for A of 64 rows of pitch rs, bound n."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, 64 * rs).astype(np.float16)
    b = rng.integers(-3, 4, (128, 64)).astype(np.float16)
    w = (1.0 + np.arange(4)).astype(np.float32)
    args = lambda c: [a.copy(), rows.copy(), b.copy(), c, np.int32(rs), np.int32(n), w.copy()]
    want = np.zeros((64, 64), np.float32)
    launch(parse_module(text, "moe.mlir"), None, (1, 1, 1), args(want))
    got = np.zeros((64, 64), np.float32)
    ptx = compile_text(text, arch)
    ptxsim.run_ptx(ptx, "moe", (1, 1, 1), args(got))
    return got, want, ptx


def numpy_c(rs, n, rows, seed=0, scaled=False):
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, 64 * rs).astype(np.float32)
    b = rng.integers(-3, 4, (128, 64)).astype(np.float32)
    idx = rows[:, None] * rs + np.arange(128)[None, :]
    av = np.where(idx < n, a[np.minimum(idx, len(a) - 1)], 0)
    if not scaled:
        return av @ b
    c = np.zeros((64, 64))
    for k in range(4):
        c = (c + av[:, 32 * k:32 * k + 32] @ b[32 * k:32 * k + 32]) * (k + 1)
    return c


@pytest.mark.parametrize("arch", ARCHES)
def test_the_gather_is_staged_by_the_producer(arch):
    """The gather and its index arithmetic move into a produce_one region (one
    stage ahead); the consumer's regions hold no gather."""
    text = scheduled(kernel(), arch)
    produced = regions(text, "produce_one")
    assert any("nv_tileas.gather_load" in r for r in produced)
    assert not any("nv_tileas.gather_load" in r for r in regions(text, "consume_one"))


@pytest.mark.parametrize("arch", ARCHES)
def test_its_runs_land_by_cp_async(arch):
    """Each thread's runs of 4 consecutive f16 go to the slot as 8-byte cp.async
    copies whose source size is 0 where the run is out of bounds (zero-filled);
    the gathered A is not loaded into registers anywhere."""
    ptx = compile_text(kernel(), arch)
    copies = re.findall(r"cp\.async\.ca\.shared\.global \t\[[^\]]+\], \[%rd\d+\], 8, %r\d+;", ptx)
    # 64 x 32 f16 per stage = 512 runs; 128 threads (one warpgroup) issue 4 each per stage
    assert copies and len(copies) % 4 == 0
    assert not re.search(r"ld\.global(\.\w+)*\.v4\.b16", ptx)
    if PTXAS is not None:
        with tempfile.TemporaryDirectory() as d:
            open(f"{d}/k.ptx", "w").write(ptx)
            r = subprocess.run([PTXAS, f"-arch={arch}", "-v", f"{d}/k.ptx", "-o", f"{d}/k.cubin"],
                               capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert " 0 bytes spill stores" in r.stderr


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("rs,n", [(128, 64 * 128), (144, 40 * 144 + 64), (128, 0)],
                         ids=["in-bounds", "bound-cuts-rows", "all-masked"])
def test_staged_gather_simulates_equal(arch, rs, n):
    rows = np.random.default_rng(rs + n).permutation(64).astype(np.int32)
    got, want, _ = run_both(kernel(), arch, rs, n, rows)
    np.testing.assert_array_equal(want, numpy_c(rs, n, rows).astype(np.float32))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_a_bound_inside_a_run_goes_through_registers(arch):
    """n not known to divide the runs: a run may be cut by the bound, which only a
    run-time test settles, so the gather is loaded into the producer's registers
    and stored into the slot (the element-wise path beside the vector one)."""
    text = kernel(UNPROVEN)
    assert any("nv_tileas.gather_load" in r for r in regions(scheduled(text, arch), "produce_one"))
    rs, n = 128, 33 * 128 + 37
    rows = np.random.default_rng(5).permutation(64).astype(np.int32)
    got, want, ptx = run_both(text, arch, rs, n, rows)
    assert not re.search(r"cp\.async\.ca\.shared\.global \t\[[^\]]+\], \[%rd\d+\], 8", ptx)
    np.testing.assert_array_equal(want, numpy_c(rs, n, rows).astype(np.float32))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_a_gather_no_dot_reads_is_issued_before_the_consumer_waits(arch):
    """A read the pipeline does not stage (here a weight gathered per K step and
    multiplied into the accumulator) goes, with the index arithmetic it needs,
    before the consumer's wait for its slots (LoopSchedule.early), so its latency
    overlaps the wait."""
    text = kernel(epilogue=SCALED)
    sched = scheduled(text, arch)
    loop = sched.split("nv_tileas.async.pipeline.consume_one", 1)
    before = loop[0].rsplit("scf.for", 1)[1]      # the consumer loop's body up to the consume
    assert "nv_tileas.gather_load" in before and "nv_tileas.gather_load" not in loop[1].split("scf.yield")[0]
    rs, n = 128, 64 * 128
    rows = np.random.default_rng(2).permutation(64).astype(np.int32)
    got, want, _ = run_both(text, arch, rs, n, rows)
    np.testing.assert_array_equal(want, numpy_c(rs, n, rows, scaled=True).astype(np.float32))
    np.testing.assert_array_equal(got, want)


EXAMPLE = "examples/gather_matmul_f16.mlir"


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_a_producer_running_ahead_reads_nothing_past_the_loop(arch):
    """sm_80's producer issues stages for iterations past the loop's end (a tiled
    load's view bounds those reads). An unmasked gather there would read past
    the last row of A, which the simulator reports as a fault; its copies are
    masked to the loop's iterations instead."""
    import os
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    text = open(os.path.join(root, EXAMPLE)).read()
    r = np.random.default_rng(3)
    a = r.integers(-3, 4, (128, 128)).astype(np.float16)
    idx = r.permutation(128)[:64].astype(np.int32)
    idx[0] = 127                        # the last row of A: one step past K is past the array
    b = r.integers(-3, 4, (128, 64)).astype(np.float16)
    got = np.zeros((64, 64), np.float32)
    ptxsim.run_ptx(compile_text(text, arch), "gather_matmul_f16", (1, 1, 1), [a, idx, b, got])
    np.testing.assert_array_equal(got, (a[idx].astype(np.float32) @ b.astype(np.float32)))


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_short_of_shared_memory_the_gather_stays_in_the_consumer(arch):
    """When staging the gather leaves no room for one stage (A's 4 KB beside B's
    4 KB in a 6 KB budget), B alone is pipelined and the gather stays in the
    consumer's body, issued before its wait, as before."""
    engine = DiagnosticEngine()
    ops = lower_and_schedule(parse_and_verify(kernel(), "moe.mlir", engine), engine, arch, 4, None,
                             smem_budget=6 * 1024)
    assert ops is not None, [d.message for d in engine.diagnostics]
    text = print_ops(ops)
    assert text.count("create_pipeline") == 1
    assert not any("nv_tileas.gather_load" in r for r in regions(text, "produce_one"))
    assert "nv_tileas.gather_load" in text.split("nv_tileas.async.pipeline.consume_one", 1)[0].rsplit("scf.for", 1)[1]
    assert not [d.message for d in engine.diagnostics if "not pipelined" in d.message]


def test_gathered_stages_fill_the_shared_memory_no_other_cta_uses():
    """On sm_90a the producer's copies (TMA for B, cp.async for the gathered A)
    run ahead by more stages than the target's default where registers keep a
    second CTA off the SM anyway, as for TMA-only loops (deeper_stages)."""
    from tilec.conversion.target import target_for
    text = scheduled(kernel(), "sm_90a")
    counts = {int(n) for n in re.findall(r"numStages = (\d+)", text)}
    assert len(counts) == 1 and counts.pop() > target_for("sm_90a").default_stages
