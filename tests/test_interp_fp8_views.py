"""The interpreter reads and writes fp8 tensors through views of any element type.

Found with TileGym's fp8 attention (`_fmha_kernel`, float8_e5m2 Q, K, V and out):
NumPy's as_strided goes through the array interface, and it cannot read back the
type string of ml_dtypes' float8_e5m2 ('<f1'), so every load or store through a
view of such a tensor failed with "data type '<f1' not understood"
(interp.numerics.strided takes the window over same-size unsigned integers)."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from tilec.interp import launch, parse_module

TYPES = {"f8E5M2": ml_dtypes.float8_e5m2, "f8E4M3FN": ml_dtypes.float8_e4m3fn}

# y = f32(x[4 rows from 2, columns 8..15]) * 2, stored back into x's rows 0..3 as fp8 too
KERNEL = """cuda_tile.module @m {
  entry @k(%x: tile<ptr<T>>, %y: tile<ptr<f32>>) {
    %tok = make_token : token
    %vx = make_tensor_view %x, shape = [8, 16], strides = [16, 1] : tensor_view<8x16xT, strides=[16,1]>
    %px = make_partition_view %vx : partition_view<tile=(4x8), tensor_view<8x16xT, strides=[16,1]>>
    %vy = make_tensor_view %y, shape = [4, 8], strides = [8, 1] : tensor_view<4x8xf32, strides=[8,1]>
    %py = make_partition_view %vy : partition_view<tile=(4x8), tensor_view<4x8xf32, strides=[8,1]>>
    %zero = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %t, %t1 = load_view_tko weak %px[%one, %one] token = %tok : partition_view<tile=(4x8), tensor_view<8x16xT, strides=[16,1]>>, tile<i32> -> tile<4x8xT>, token
    %f = ftof %t : tile<4x8xT> -> tile<4x8xf32>
    %two = constant <f32: 2.000000e+00> : tile<4x8xf32>
    %g = mulf %f, %two : tile<4x8xf32>
    %t2 = store_view_tko weak %g, %py[%zero, %zero] token = %tok : tile<4x8xf32>, partition_view<tile=(4x8), tensor_view<4x8xf32, strides=[8,1]>>, tile<i32> -> token
    %h = ftof %g : tile<4x8xf32> -> tile<4x8xT>
    %t3 = store_view_tko weak %h, %px[%zero, %zero] token = %tok : tile<4x8xT>, partition_view<tile=(4x8), tensor_view<8x16xT, strides=[16,1]>>, tile<i32> -> token
    return
  }
}
"""


@pytest.mark.parametrize("name", list(TYPES))
def test_an_fp8_tensor_is_read_and_written_through_a_view(name):
    dt = TYPES[name]
    x = (np.arange(128).reshape(8, 16) % 7 - 3).astype(np.float32).astype(dt)
    want = x[4:8, 8:16].astype(np.float32) * 2
    y = np.zeros((4, 8), np.float32)
    launch(parse_module(KERNEL.replace("xT", f"x{name}").replace("<T>", f"<{name}>"), "k.mlir"),
           grid=(1, 1, 1), args=[x, y])
    np.testing.assert_array_equal(y, want)
    np.testing.assert_array_equal(x[0:4, 0:8].astype(np.float32), want)
