"""split-tile-blocks (tilec/transforms/split_tile_blocks.py): an entry that
asks for a CGA (`num_cta_in_cga = C`) runs each tile block on a cluster of C
CTAs, each computing 1/C of its dot's tiles. Checked at three levels: the IR
(the cut, what refuses it), the interpreter (the cut entry over C times the
blocks equals the original), and the PTX (directives, ptxas, the simulator
against the interpreter, and a mutation the simulator must catch)."""
from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest
from conftest import ptxas_stderr

from tilec.codegen.ptx import compile_text
from tilec.frontend import parse_and_verify
from tilec.interp.launch import launch
from tilec.ir.diagnostics import DiagnosticEngine
from tilec.syntax.printer import print_ops
from tilec.transforms.split_tile_blocks import choose_axis, split_entry

try:
    import ptxsim
except ImportError:
    from tests import ptxsim

# C[64m.., 256n..] = A @ B + bias (pointer loads from an iota), and the column
# sums of each 64-row block (a reduction over M, which the N cut keeps whole);
# 16-aligned views: the loads arrive by TMA into warp-specialized agents
BIAS_MM = """cuda_tile.module @m {
  entry @bias_mm(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %bias: tile<ptr<f32>>, %c: tile<ptr<f32>>, %cs: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>) optimization_hints=<sm_90 = {num_cta_in_cga = CTAS}> {
    %tok = make_token : token
    %one = constant <i32: 1> : tile<i32>
    %zero = constant <i32: 0> : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %a16 = assume div_by<16>, %a : tile<ptr<f16>>
    %b16 = assume div_by<16>, %b : tile<ptr<f16>>
    %c16 = assume div_by<16>, %c : tile<ptr<f32>>
    %k16 = assume div_by<16>, %k : tile<i32>
    %n16 = assume div_by<16>, %n : tile<i32>
    %va = make_tensor_view %a16, shape = [%m, %k16], strides = [%k16, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %vb = make_tensor_view %b16, shape = [%k16, %n16], strides = [%n16, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %vc = make_tensor_view %c16, shape = [%m, %n16], strides = [%n16, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pa = make_partition_view %va : partition_view<tile=(64x64), tensor_view<?x?xf16, strides=[?,1]>>
    %pb = make_partition_view %vb : partition_view<tile=(64x256), tensor_view<?x?xf16, strides=[?,1]>>
    %pc = make_partition_view %vc : partition_view<tile=(64x256), tensor_view<?x?xf32, strides=[?,1]>>
    %nk:2 = get_index_space_shape %pa : partition_view<tile=(64x64), tensor_view<?x?xf16, strides=[?,1]>> -> tile<i32>
    %acc0 = constant <f32: 0.000000e+00> : tile<64x256xf32>
    %acc = for %i in (%zero to %nk#1, step %one) : tile<i32> iter_values(%x = %acc0) -> (tile<64x256xf32>) {
      %ta, %t1 = load_view_tko weak %pa[%bx, %i] token = %tok : partition_view<tile=(64x64), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x64xf16>, token
      %tb, %t2 = load_view_tko weak %pb[%i, %by] token = %tok : partition_view<tile=(64x256), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x256xf16>, token
      %y = mmaf %ta, %tb, %x : tile<64x64xf16>, tile<64x256xf16>, tile<64x256xf32>
      continue %y : tile<64x256xf32>
    }
    %cols = iota : tile<256xi32>
    %c256 = constant <i32: 256> : tile<i32>
    %base = muli %by, %c256 : tile<i32>
    %base1 = reshape %base : tile<i32> -> tile<1xi32>
    %baseb = broadcast %base1 : tile<1xi32> -> tile<256xi32>
    %idx = addi %cols, %baseb : tile<256xi32>
    %bias1 = reshape %bias : tile<ptr<f32>> -> tile<1xptr<f32>>
    %biasb = broadcast %bias1 : tile<1xptr<f32>> -> tile<256xptr<f32>>
    %pbias = offset %biasb, %idx : tile<256xptr<f32>>, tile<256xi32> -> tile<256xptr<f32>>
    %bv, %t3 = load_ptr_tko weak %pbias : tile<256xptr<f32>> -> tile<256xf32>, token
    %bv2 = reshape %bv : tile<256xf32> -> tile<1x256xf32>
    %bvb = broadcast %bv2 : tile<1x256xf32> -> tile<64x256xf32>
    %out = addf %acc, %bvb : tile<64x256xf32>
    %t4 = store_view_tko weak %out, %pc[%bx, %by] token = %tok : tile<64x256xf32>, partition_view<tile=(64x256), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    %sums = reduce %out dim=REDUCE_DIM identities=[0.000000e+00 : f32] : tile<64x256xf32> -> tile<SUMSxf32>
    (%l: tile<f32>, %r: tile<f32>) {
      %s = addf %l, %r : tile<f32>
      yield %s : tile<f32>
    }
    %row = muli %bx, %n : tile<i32>
    %row1 = reshape %row : tile<i32> -> tile<1xi32>
    %rowb = broadcast %row1 : tile<1xi32> -> tile<256xi32>
    %cidx = addi %idx, %rowb : tile<256xi32>
    %cs1 = reshape %cs : tile<ptr<f32>> -> tile<1xptr<f32>>
    %csb = broadcast %cs1 : tile<1xptr<f32>> -> tile<256xptr<f32>>
    %pcs = offset %csb, %cidx : tile<256xptr<f32>>, tile<256xi32> -> tile<256xptr<f32>>
    %t5 = store_ptr_tko weak %pcs, %sums : tile<256xptr<f32>>, tile<256xf32> -> token
    return
  }
}
"""


def kernel(ctas=2, reduce_dim=0):
    text = BIAS_MM.replace("CTAS", str(ctas)).replace("REDUCE_DIM", str(reduce_dim))
    if reduce_dim == 1:     # row sums, left unused: the reduction alone must refuse the N cut
        text = text[:text.index("    %row = ")] + "    return\n  }\n}\n"
    return text.replace("SUMS", "256" if reduce_dim == 0 else "64")


def entry_of(text):
    ops = parse_and_verify(text, "k.mlir", DiagnosticEngine())
    assert ops is not None
    return ops, next(op for op in ops[0].walk() if op.name == "cuda_tile.entry")


def inputs(m, n, k, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (m, k)).astype(np.float16)
    b = rng.integers(-3, 4, (k, n)).astype(np.float16)
    bias = rng.integers(-8, 9, n).astype(np.float32)
    return a, b, bias


def reference(a, b, bias):
    c = a.astype(np.float32) @ b.astype(np.float32) + bias
    return c, c.reshape(-1, 64, c.shape[1]).sum(axis=1)


def run_interp(module, m, n, k, grid):
    a, b, bias = inputs(m, n, k)
    c = np.zeros((m, n), np.float32)
    cs = np.zeros((m // 64, n), np.float32)
    launch(module, grid=grid, args=[a, b, bias, c, cs, m, n, k])
    return c, cs


def test_the_n_axis_is_cut_where_m_would_drop_below_wgmma():
    ops, e = entry_of(kernel())
    assert split_entry(e, 2) is None
    text = print_ops(ops)
    assert "nv_tileas.blocks_are_clusters = 2 : i32" in text
    assert "tile<64x128xf32>" in text and "tile<64x256xf32>" not in text
    assert "partition_view<tile=(64x128)" in text and "partition_view<tile=(64x64)" in text   # A stays whole
    assert re.search(r"remi %blockId_x\w*, %\w+ unsigned", text)       # the CTA's rank in its cluster
    assert "tile<128xf32>" in text and "tile<128xptr<f32>>" in text   # the bias's pointers and the sums


def test_axis_choice():
    """M where it keeps 64 rows and its accumulator fits; N where M would drop
    below 64 (128x512 over 4: 128x128, tileiras's choice); nothing under 64x64."""
    class Dot:
        def __init__(self, *shape):
            self.results = [type("V", (), {"type": type("T", (), {"shape": shape})()})()]
    assert choose_axis(Dot(256, 256), 4) == 0
    assert choose_axis(Dot(256, 256), 2) == 0
    assert choose_axis(Dot(128, 512), 4) == 1
    assert choose_axis(Dot(128, 512), 2) == 1          # 64x512 would need 256 registers a thread
    assert choose_axis(Dot(1, 128, 256), 2) == 2       # batched: the squarer 128x128 of the last two
    assert choose_axis(Dot(64, 64), 2) is None


@pytest.mark.parametrize("text,why", [
    (kernel(reduce_dim=1), "runs along the cut axis"),
    (kernel(ctas=8), "too small to cut 8 ways"),
], ids=["row-sums", "eight-ctas"])
def test_what_the_cut_refuses_leaves_the_entry_as_it_was(text, why):
    ops, e = entry_of(text)
    before = print_ops(ops)
    got = split_entry(e, int(re.search(r"num_cta_in_cga = (\d+)", text).group(1)))
    assert got is not None and why in got
    assert print_ops(ops) == before


def test_a_refused_hint_is_one_warning(tmp_path):
    """As the occupancy hint's: `tilec compile` says once, at the entry, why the
    cluster was not made, and still compiles (exit 0). Once: a kernel that
    overflows shared memory is cut again after each reload."""
    src = tmp_path / "k.mlir"
    src.write_text(kernel(reduce_dim=1))
    r = subprocess.run([sys.executable, "-m", "tilec.cli", "compile", str(src), "--arch", "sm_90a", "-o",
                        str(tmp_path / "k.ptx")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    warned = [line for line in r.stderr.splitlines() if "num_cta_in_cga" in line]
    assert len(warned) == 1, r.stderr
    assert re.search(r"k\.mlir:2:\d+: warning: num_cta_in_cga = 2 not honoured: .*runs along the cut axis.*; "
                     r"one CTA per tile block", warned[0])
    assert ".blocksareclusters" not in (tmp_path / "k.ptx").read_text()


def test_an_atomic_keeps_one_cta_per_block():
    text = kernel().replace("    return\n", "    %old, %t9 = atomic_rmw_tko relaxed device %cs, addf, %zero_f : "
                            "tile<ptr<f32>>, tile<f32> -> tile<f32>, token\n    return\n")
    text = text.replace("%tok = make_token : token", "%tok = make_token : token\n"
                        "    %zero_f = constant <f32: 0.000000e+00> : tile<f32>")
    _, e = entry_of(text)
    assert "atomic" in split_entry(e, 2)


def test_the_cut_entry_over_the_cluster_grid_equals_the_original():
    m, n, k = 128, 512, 128
    want = run_interp(kernel(), m, n, k, (m // 64, n // 256, 1))
    ops, e = entry_of(kernel())
    assert split_entry(e, 2) is None
    got = run_interp(ops, m, n, k, (m // 64, n // 256, 1))     # the interpreter reads the attribute
    ref = reference(*inputs(m, n, k))
    for g, w, r in zip(got, want, ref):
        np.testing.assert_array_equal(g, w)
        np.testing.assert_allclose(g, r, rtol=0, atol=1e-3)


def test_opt_runs_the_pass():
    r = subprocess.run([sys.executable, "-m", "tilec.cli", "opt", "-", "--split-tile-blocks"], input=kernel(),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "nv_tileas.blocks_are_clusters = 2 : i32" in r.stdout and "tile<64x128xf32>" in r.stdout


def test_sm80_keeps_one_cta():
    ptx = compile_text(kernel(), arch="sm_80")
    assert ".blocksareclusters" not in ptx and ".version 9.0" not in ptx


@pytest.fixture(scope="module")
def sm90_ptx():
    return compile_text(kernel(), arch="sm_90a")


def assemble_without_spills(ptx, tmp_path):
    assert " 0 bytes spill stores" in ptxas_stderr(ptx, tmp_path)


def test_the_ptx_asks_for_clusters(sm90_ptx, tmp_path):
    assert ".version 9.0" in sm90_ptx
    assert re.search(r"\.reqnctapercluster 2, 1, 1\s+\.blocksareclusters", sm90_ptx)
    assert "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16" in sm90_ptx
    assemble_without_spills(sm90_ptx, tmp_path)


def test_a_lone_consumer_warpgroup_enters_with_room_for_an_m64n256_wgmma(tmp_path):
    """ptxas allocates every instruction within the kernel's .maxnreg, whatever
    setmaxnreg grants later: a 64x256 accumulator in one consumer warpgroup
    beside a 40-register producer averaged to 144 and was refused (C7602)."""
    ptx = compile_text(kernel(ctas=1), arch="sm_90a")
    assert "m64n256k16" in ptx and ".blocksareclusters" not in ptx
    assert int(re.search(r"^\.maxnreg (\d+)", ptx, re.M).group(1)) >= 160
    assemble_without_spills(ptx, tmp_path)


def simulate(ptx, m, n, k):
    a, b, bias = inputs(m, n, k)
    c = np.zeros((m, n), np.float32)
    cs = np.zeros((m // 64, n), np.float32)
    ptxsim.run_ptx(ptx, "bias_mm", (m // 64, n // 256, 1), [a, b, bias, c, cs, m, n, k])
    return c, cs


def test_the_simulated_clusters_match_the_interpreter(sm90_ptx):
    m, n, k = 64, 512, 128
    want = run_interp(kernel(), m, n, k, (m // 64, n // 256, 1))
    got = simulate(sm90_ptx, m, n, k)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-3)
    # without the directive the grid counts CTAs, and one tile block per CTA is not a
    # whole number of 2-CTA clusters here: the driver (and the simulator) refuse the launch
    with pytest.raises(ptxsim.PTXSimError, match="not a whole number of clusters"):
        simulate(sm90_ptx.replace(".blocksareclusters", ""), m, n, k)
