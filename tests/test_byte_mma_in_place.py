"""8-bit dots on mma.sync read K-contiguous operands where they are.

An M x K A and the transpose of an N x K B keep K consecutive in shared
memory; read as rows of byte pairs they are what the 16-bit dot's ldmatrix
reads, so the m16n8k32 fragments come from the pipeline slots with no padded
copy, no barrier and no scratch (ops_dot._byte_homes). A K x N B, or a
register operand, is copied into padded rows and read by the same ldmatrix.
Each case runs in the PTX simulator against the interpreter and the exact
product."""
from __future__ import annotations

import re

import numpy as np
import pytest

import ptxsim

# A K loop over 32 x K_TILE tiles of A (M x K) and of B stored N x K, B
# permuted to K x N for the dot: cuTile's `order=` / `.T` matmul
_KERNEL = """cuda_tile.module @m {
  entry @k(%a0: tile<ptr<ET>>, %b0: tile<ptr<ET>>, %c: tile<ptr<CT>>) {
    %a = assume div_by<16>, %a0 : tile<ptr<ET>>
    %b = assume div_by<16>, %b0 : tile<ptr<ET>>
    %ta = make_tensor_view %a, shape = [M, K], strides = [K, 1] : tensor_view<MxKxET, strides=[K,1]>
    %tb = make_tensor_view %b, shape = [N, K], strides = [K, 1] : tensor_view<NxKxET, strides=[K,1]>
    %tc = make_tensor_view %c, shape = [M, N], strides = [N, 1] : tensor_view<MxNxCT, strides=[N,1]>
    %pa = make_partition_view %ta : partition_view<tile=(MxT), tensor_view<MxKxET, strides=[K,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(NxT), tensor_view<NxKxET, strides=[K,1]>>
    %pc = make_partition_view %tc : partition_view<tile=(MxN), tensor_view<MxNxCT, strides=[N,1]>>
    %z = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %steps = constant <i32: STEPS> : tile<i32>
    %init = constant <CT: INIT> : tile<MxNxCT>
    %acc = for %i in (%z to %steps, step %one) : tile<i32> iter_values(%s = %init) -> (tile<MxNxCT>) {
      %x, %t0 = load_view_tko weak %pa[%z, %i] : partition_view<tile=(MxT), tensor_view<MxKxET, strides=[K,1]>>, tile<i32> -> tile<MxTxET>, token
      %yt, %t1 = load_view_tko weak %pb[%z, %i] : partition_view<tile=(NxT), tensor_view<NxKxET, strides=[K,1]>>, tile<i32> -> tile<NxTxET>, token
      %y = permute %yt [1, 0] : tile<NxTxET> -> tile<TxNxET>
DOT
      continue %r : tile<MxNxCT>
    }
    %t2 = store_view_tko weak %acc, %pc[%z, %z] : tile<MxNxCT>, partition_view<tile=(MxN), tensor_view<MxNxCT, strides=[N,1]>>, tile<i32> -> token
    return
  }
}
"""
# the same dot once, on the first K_TILE columns: synchronous loads, no slots
_UNLOOPED = _KERNEL[:_KERNEL.index("    %acc = for")] + """\
    %x, %t0 = load_view_tko weak %pa[%z, %z] : partition_view<tile=(MxT), tensor_view<MxKxET, strides=[K,1]>>, tile<i32> -> tile<MxTxET>, token
    %yt, %t1 = load_view_tko weak %pb[%z, %z] : partition_view<tile=(NxT), tensor_view<NxKxET, strides=[K,1]>>, tile<i32> -> tile<NxTxET>, token
    %y = permute %yt [1, 0] : tile<NxTxET> -> tile<TxNxET>
    %s = constant <CT: INIT> : tile<MxNxCT>
DOT
    %t2 = store_view_tko weak %r, %pc[%z, %z] : tile<MxNxCT>, partition_view<tile=(MxN), tensor_view<MxNxCT, strides=[N,1]>>, tile<i32> -> token
    return
  }
}
"""
_MMAI = "      %r = mmai %x, %y, %s SA SB : tile<MxTxET>, tile<TxNxET>, tile<MxNxCT>"
_MMAF = "      %r = mmaf %x, %y, %s : tile<MxTxET>, tile<TxNxET>, tile<MxNxCT>"

M, N, K, T = 64, 32, 128, 64


def _text(et, ct, dot, init, kernel=None):
    text = (kernel or _KERNEL).replace("DOT", dot).replace("ET", "@e").replace("CT", "@c").replace("INIT", init)
    text = text.replace("STEPS", str(K // T))
    for key, val in (("M", M), ("N", N), ("K", K), ("T", T)):
        text = text.replace(key, str(val))
    return text.replace("@e", et).replace("@c", ct)      # type names hold the letters above


def _runs(text, ptx, a, bt, dtype):
    from tilec.interp import launch as interp_launch, parse_module
    want = np.zeros((M, N), dtype)
    interp_launch(parse_module(text, "dot.mlir"), None, (1, 1, 1), [a.copy(), bt.copy(), want])
    got = np.zeros((M, N), dtype)
    ptxsim.run_ptx(ptx, "k", (1, 1, 1), [a, bt, got])
    return got, want


def _assert_read_in_place(ptx, form, copied=0):
    """The dot's fragments come by ldmatrix: m16n8k32 MMAs, and `copied` byte
    stores per thread (an operand copied into the scratch; the 16-aligned
    views leave the slot fills no element-wise path that stores bytes)."""
    assert form in ptx
    assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in ptx
    assert ptx.count("st.shared.b8") == copied


@pytest.mark.parametrize("arch", ["sm_80", "sm_89", "sm_120a"])
@pytest.mark.parametrize("signs", [("signed", "signed"), ("unsigned", "signed")])
def test_int8_operands_read_in_place(arch, signs):
    from tilec.codegen.ptx import compile_text
    text = _text("i8", "i32", _MMAI.replace("SA", signs[0]).replace("SB", signs[1]), "-7")
    ptx = compile_text(text, arch)
    kinds = ["s8" if x == "signed" else "u8" for x in signs]
    _assert_read_in_place(ptx, f"mma.sync.aligned.m16n8k32.row.col.s32.{kinds[0]}.{kinds[1]}.s32")
    rng = np.random.default_rng(5)
    a = rng.integers(-128, 128, (M, K)).astype(np.int8)
    bt = rng.integers(-128, 128, (N, K)).astype(np.int8)
    got, want = _runs(text, ptx, a, bt, np.int32)
    wide = [x.astype(np.int64) if sg == "signed" else x.view(np.uint8).astype(np.int64)
            for x, sg in ((a, signs[0]), (bt, signs[1]))]
    exact = (wide[0] @ wide[1].T - 7).astype(np.int32)
    assert np.array_equal(got, exact) and np.array_equal(want, exact)


@pytest.mark.parametrize("arch,wgmma", [("sm_89", None), ("sm_120a", None), ("sm_90a", False)])
@pytest.mark.parametrize("et", ["f8E4M3FN", "f8E5M2"])
def test_fp8_operands_read_in_place(arch, wgmma, et):
    import ml_dtypes
    from tilec.codegen.ptx import compile_text
    text = _text(et, "f32", _MMAF, "1.5")
    ptx = compile_text(text, arch) if wgmma is None else compile_text(text, arch, wgmma=wgmma)
    short = {"f8E4M3FN": "e4m3", "f8E5M2": "e5m2"}[et]
    kind = "kind::f8f6f4." if arch == "sm_120a" else ""
    _assert_read_in_place(ptx, f"mma.sync.aligned.m16n8k32.row.col.{kind}f32.{short}.{short}.f32")
    dt = {"f8E4M3FN": ml_dtypes.float8_e4m3fn, "f8E5M2": ml_dtypes.float8_e5m2}[et]
    rng = np.random.default_rng(17)
    a = rng.standard_normal((M, K)).astype(dt)
    bt = rng.standard_normal((N, K)).astype(dt)
    got, want = _runs(text, ptx, a, bt, np.float32)
    exact = a.astype(np.float64) @ bt.astype(np.float64).T + 1.5
    scale = np.abs(a.astype(np.float64)) @ np.abs(bt.astype(np.float64)).T + 1.5
    for res in (got, want):
        assert np.all(np.abs(res.astype(np.float64) - exact) <= 1e-6 * scale)


@pytest.mark.parametrize("arch", ["sm_80", "sm_120a"])
def test_synchronous_byte_loads_go_to_shared_memory_and_are_read_there(arch):
    """An 8-bit tile that only a dot reads, K contiguous, is loaded by cp.async
    into a buffer of its own (operand_loads), and the dot reads it there."""
    from tilec.codegen.ptx import compile_text
    text = _text("i8", "i32", _MMAI.replace("SA", "signed").replace("SB", "unsigned"), "3", _UNLOOPED)
    ptx = compile_text(text, arch)
    assert "cp.async.cg.shared.global" in ptx
    _assert_read_in_place(ptx, "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32")
    rng = np.random.default_rng(3)
    a = rng.integers(-128, 128, (M, K)).astype(np.int8)
    bt = rng.integers(-128, 128, (N, K)).astype(np.int8)
    got, want = _runs(text, ptx, a, bt, np.int32)
    exact = (a[:, :T].astype(np.int64) @ bt[:, :T].view(np.uint8).astype(np.int64).T + 3).astype(np.int32)
    assert np.array_equal(got, exact) and np.array_equal(want, exact)


def test_a_k_by_n_b_alone_is_copied():
    """B stored K x N has its K values a row apart: ldmatrix cannot pair them
    (it moves 16-bit elements), so B alone is copied, transposed into N padded
    rows of K bytes (one byte store per element a thread holds: T x N / 128),
    and read by the same ldmatrix; A still comes from its slot, uncopied. The
    product is exact."""
    from tilec.codegen.ptx import compile_text
    text = _text("i8", "i32", _MMAI.replace("SA", "signed").replace("SB", "signed"), "0")
    kn = (text.replace(f"shape = [{N}, {K}], strides = [{K}, 1] : tensor_view<{N}x{K}xi8, strides=[{K},1]>",
                       f"shape = [{K}, {N}], strides = [{N}, 1] : tensor_view<{K}x{N}xi8, strides=[{N},1]>")
          .replace(f"tile=({N}x{T}), tensor_view<{N}x{K}xi8, strides=[{K},1]>",
                   f"tile=({T}x{N}), tensor_view<{K}x{N}xi8, strides=[{N},1]>")
          .replace("%yt, %t1 = load_view_tko weak %pb[%z, %i]", "%y, %t1 = load_view_tko weak %pb[%i, %z]")
          .replace(f"-> tile<{N}x{T}xi8>, token", f"-> tile<{T}x{N}xi8>, token"))
    kn = "\n".join(line for line in kn.splitlines() if "permute" not in line) + "\n"
    assert kn.count(f"tensor_view<{K}x{N}xi8") == 3
    ptx = compile_text(kn, "sm_80")
    _assert_read_in_place(ptx, "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", copied=T * N // 128)
    rng = np.random.default_rng(9)
    a = rng.integers(-128, 128, (M, K)).astype(np.int8)
    b = rng.integers(-128, 128, (K, N)).astype(np.int8)
    got, want = _runs(kn, ptx, a, b, np.int32)
    exact = (a.astype(np.int64) @ b.astype(np.int64)).astype(np.int32)
    assert np.array_equal(got, exact) and np.array_equal(want, exact)
