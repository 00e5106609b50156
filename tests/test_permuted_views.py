"""Loads and stores through partition views with a non-identity dim_map
(cuTile's `order=`) go through the identity view in the tensor's own order and
a permute (conversion/permuted_views.py): the load is then a TMA box on
sm_90a and the transposed operand a wgmma descriptor, and a reshape that only
drops unit dimensions moves before the permute (SinkUnitReshape).

Checked: the lowered IR, the PTX (TMA for the permuted operand, no element
loads of it), and the PTX simulator against the interpreter on sm_90a and
sm_80, for a 2-D transposed B, a 3-D one with a leading 1, and a transposed
store of C."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from tilec.codegen.ptx import compile_text
from tilec.interp import launch, parse_module

try:
    import ptxsim
except ImportError:
    from tests import ptxsim

# C = A @ B with B stored transposed (Bt is N x K). VIEW/LOADB/STOREC vary per case.
KERNEL = """cuda_tile.module @m {
  entry @mm(%a: tile<ptr<f16>>, %bt: tile<ptr<f16>>, %c: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>) {
    %tok = make_token : token
    %one = constant <i32: 1> : tile<i32>
    %zero = constant <i32: 0> : tile<i32>
    %a16 = assume div_by<16>, %a : tile<ptr<f16>>
    %b16 = assume div_by<16>, %bt : tile<ptr<f16>>
    %c16 = assume div_by<16>, %c : tile<ptr<f32>>
    %k16 = assume div_by<16>, %k : tile<i32>
    %n16 = assume div_by<16>, %n : tile<i32>
    %m16 = assume div_by<16>, %m : tile<i32>
    %va = make_tensor_view %a16, shape = [%m16, %k16], strides = [%k16, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %pa = make_partition_view %va : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    VIEWS
    %nk:2 = get_index_space_shape %pa : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>> -> tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %acc0 = constant <f32: 0.000000e+00> : tile<64x64xf32>
    %acc = for %i in (%zero to %nk#1, step %one) : tile<i32> iter_values(%x = %acc0) -> (tile<64x64xf32>) {
      %ta, %t1 = load_view_tko weak %pa[%bx, %i] token = %tok : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x64xf16>, token
      LOADB
      %y = mmaf %ta, %tb, %x : tile<64x64xf16>, tile<64x64xf16>, tile<64x64xf32>
      continue %y : tile<64x64xf32>
    }
    STOREC
    return
  }
}
"""

B2 = ("%vb = make_tensor_view %b16, shape = [%n16, %k16], strides = [%k16, 1] : tile<i32> -> "
      "tensor_view<?x?xf16, strides=[?,1]>\n"
      "    %pb = make_partition_view %vb : partition_view<tile=(64x64), padding_value = zero, "
      "tensor_view<?x?xf16, strides=[?,1]>, dim_map=[1, 0]>")
LOAD_B2 = ("%tb, %t2 = load_view_tko weak %pb[%i, %by] token = %tok : partition_view<tile=(64x64), "
           "padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>, dim_map=[1, 0]>, tile<i32> -> "
           "tile<64x64xf16>, token")
B3 = ("%vb = make_tensor_view %b16, shape = [1, %n16, %k16], strides = [%k16, %k16, 1] : tile<i32> -> "
      "tensor_view<1x?x?xf16, strides=[?,?,1]>\n"
      "    %pb = make_partition_view %vb : partition_view<tile=(1x64x64), padding_value = zero, "
      "tensor_view<1x?x?xf16, strides=[?,?,1]>, dim_map=[0, 2, 1]>")
LOAD_B3 = ("%tb3, %t2 = load_view_tko weak %pb[%zero, %i, %by] token = %tok : partition_view<tile=(1x64x64), "
           "padding_value = zero, tensor_view<1x?x?xf16, strides=[?,?,1]>, dim_map=[0, 2, 1]>, tile<i32> -> "
           "tile<1x64x64xf16>, token\n"
           "      %tb = reshape %tb3 : tile<1x64x64xf16> -> tile<64x64xf16>")
C_PLAIN = ("%vc = make_tensor_view %c16, shape = [%m16, %n16], strides = [%n16, 1] : tile<i32> -> "
           "tensor_view<?x?xf32, strides=[?,1]>\n"
           "    %pc = make_partition_view %vc : partition_view<tile=(64x64), tensor_view<?x?xf32, strides=[?,1]>>")
STORE_PLAIN = ("%t4 = store_view_tko weak %acc, %pc[%bx, %by] token = %tok : tile<64x64xf32>, "
               "partition_view<tile=(64x64), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token")
# C stored transposed: the array is N x M
C_T = ("%vc = make_tensor_view %c16, shape = [%n16, %m16], strides = [%m16, 1] : tile<i32> -> "
       "tensor_view<?x?xf32, strides=[?,1]>\n"
       "    %pc = make_partition_view %vc : partition_view<tile=(64x64), tensor_view<?x?xf32, strides=[?,1]>, "
       "dim_map=[1, 0]>")
STORE_T = ("%t4 = store_view_tko weak %acc, %pc[%bx, %by] token = %tok : tile<64x64xf32>, "
           "partition_view<tile=(64x64), tensor_view<?x?xf32, strides=[?,1]>, dim_map=[1, 0]>, tile<i32> -> token")

CASES = {
    "b_2d": (B2, LOAD_B2, C_PLAIN, STORE_PLAIN),
    "b_3d": (B3, LOAD_B3, C_PLAIN, STORE_PLAIN),
    "c_transposed": (B2, LOAD_B2, C_T, STORE_T),
}


def kernel(case):
    views, loadb, cview, store = CASES[case]
    return (KERNEL.replace("VIEWS", views + "\n    " + cview).replace("LOADB", loadb)
            .replace("STOREC", store))


def arrays(m, n, k, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (m, k)).astype(np.float16)
    bt = rng.integers(-3, 4, (n, k)).astype(np.float16)
    return a, bt


def lowered(case, arch):
    out = subprocess.run([sys.executable, "-m", "tilec.cli", "opt", "-", f"--lower-to-tileas=arch={arch}"],
                         input=kernel(case), capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.parametrize("case", ["b_2d", "b_3d"])
def test_the_load_reads_the_tensor_order_then_permutes(case):
    ir = lowered(case, "sm_90a")
    assert "dim_map" not in ir
    # the tile in the tensor's order (N x K), then one 2-D shuffle into K x N
    assert "tiled_view<64x64xf16, GMEM>" in ir or "tiled_view<1x64x64xf16, GMEM>" in ir
    assert ir.count("nv_tileas.shuffle") == 1
    assert "tile<64x64xf16> -> tile<64x64xf16>" in ir.split("nv_tileas.shuffle", 1)[1].split("\n", 1)[0]


@pytest.mark.parametrize("case", ["b_2d", "b_3d"])
def test_the_permuted_operand_comes_by_tma(case):
    ptx = compile_text(kernel(case), "sm_90a")
    assert ptx.count("cp.async.bulk.tensor") >= 2          # A and the permuted B
    assert "ld.global.b16" not in ptx and "ld.global.v4.b16" not in ptx


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80"])
@pytest.mark.parametrize("case", list(CASES))
def test_simulated_equal_to_the_interpreter(case, arch):
    m, n, k = 128, 128, 192
    a, bt = arrays(m, n, k)
    shape = (n, m) if case == "c_transposed" else (m, n)
    want = np.zeros(shape, np.float32)
    launch(parse_module(kernel(case), "k.mlir"), grid=(2, 2, 1), args=[a, bt, want, m, n, k])
    exact = a.astype(np.float32) @ bt.astype(np.float32).T
    np.testing.assert_array_equal(want, exact.T if case == "c_transposed" else exact)
    got = np.zeros(shape, np.float32)
    ptxsim.run_ptx(compile_text(kernel(case), arch), "mm", (2, 2, 1), [a, bt, got, m, n, k])
    np.testing.assert_array_equal(got, want)
