"""Dots whose loaded operand does not fit shared memory are cut into K blocks
(transforms/chunk_dots.py, the compiler's last shared-memory fallback).

The kernels are shaped like TileGym's naive-absorb MLA decode on a 99 KB
target: a 128 x 512 f16 tile (128 KB) loaded in a loop against a loop-
invariant operand, and a transposed value tile of the same size against a
computed one. Each compiles only with its dots cut, and the simulator agrees
with the interpreter and with NumPy."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import ptxsim

# C[128x16] = sum over two row blocks i of A[i] (128 x 512) @ Q^T, Q (16 x 512)
# loaded once before the loop and transposed
_SCORES = """cuda_tile.module @m {
  entry @k(%a: tile<ptr<f16>>, %q: tile<ptr<f16>>, %c: tile<ptr<f32>>) {
    %ta = make_tensor_view %a, shape = [256, 512], strides = [512, 1] : tensor_view<256x512xf16, strides=[512,1]>
    %tq = make_tensor_view %q, shape = [16, 512], strides = [512, 1] : tensor_view<16x512xf16, strides=[512,1]>
    %tc = make_tensor_view %c, shape = [128, 16], strides = [16, 1] : tensor_view<128x16xf32, strides=[16,1]>
    %pa = make_partition_view %ta : partition_view<tile=(128x512), tensor_view<256x512xf16, strides=[512,1]>>
    %pq = make_partition_view %tq : partition_view<tile=(16x512), tensor_view<16x512xf16, strides=[512,1]>>
    %pc = make_partition_view %tc : partition_view<tile=(128x16), tensor_view<128x16xf32, strides=[16,1]>>
    %z = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %two = constant <i32: 2> : tile<i32>
    %qt, %t0 = load_view_tko weak %pq[%z, %z] : partition_view<tile=(16x512), tensor_view<16x512xf16, strides=[512,1]>>, tile<i32> -> tile<16x512xf16>, token
    %qq = permute %qt [1, 0] : tile<16x512xf16> -> tile<512x16xf16>
    %init = constant <f32: 0.5> : tile<128x16xf32>
    %acc = for %i in (%z to %two, step %one) : tile<i32> iter_values(%s = %init) -> (tile<128x16xf32>) {
      %x, %t1 = load_view_tko weak %pa[%i, %z] : partition_view<tile=(128x512), tensor_view<256x512xf16, strides=[512,1]>>, tile<i32> -> tile<128x512xf16>, token
      %r = mmaf %x, %qq, %s : tile<128x512xf16>, tile<512x16xf16>, tile<128x16xf32>
      continue %r : tile<128x16xf32>
    }
    %t2 = store_view_tko weak %acc, %pc[%z, %z] : tile<128x16xf32>, partition_view<tile=(128x16), tensor_view<128x16xf32, strides=[16,1]>>, tile<i32> -> token
    return
  }
}
"""

# C[128x16] = A (128 x 512) @ B, B loaded in the same block from a 3-D view as 1 x 512 x 16
# and reshaped: both operands are cut by loading blocks (B's through the unit reshape)
_BOTH = """cuda_tile.module @m {
  entry @k(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>) {
    %ta = make_tensor_view %a, shape = [128, 512], strides = [512, 1] : tensor_view<128x512xf16, strides=[512,1]>
    %tb = make_tensor_view %b, shape = [1, 512, 16], strides = [8192, 16, 1] : tensor_view<1x512x16xf16, strides=[8192,16,1]>
    %tc = make_tensor_view %c, shape = [128, 16], strides = [16, 1] : tensor_view<128x16xf32, strides=[16,1]>
    %pa = make_partition_view %ta : partition_view<tile=(128x512), tensor_view<128x512xf16, strides=[512,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(1x512x16), tensor_view<1x512x16xf16, strides=[8192,16,1]>>
    %pc = make_partition_view %tc : partition_view<tile=(128x16), tensor_view<128x16xf32, strides=[16,1]>>
    %z = constant <i32: 0> : tile<i32>
    %x, %t0 = load_view_tko weak %pa[%z, %z] : partition_view<tile=(128x512), tensor_view<128x512xf16, strides=[512,1]>>, tile<i32> -> tile<128x512xf16>, token
    %y3, %t1 = load_view_tko weak %pb[%z, %z, %z] : partition_view<tile=(1x512x16), tensor_view<1x512x16xf16, strides=[8192,16,1]>>, tile<i32> -> tile<1x512x16xf16>, token
    %y = reshape %y3 : tile<1x512x16xf16> -> tile<512x16xf16>
    %init = constant <f32: 2.0> : tile<128x16xf32>
    %r = mmaf %x, %y, %init : tile<128x512xf16>, tile<512x16xf16>, tile<128x16xf32>
    %t2 = store_view_tko weak %r, %pc[%z, %z] : tile<128x16xf32>, partition_view<tile=(128x16), tensor_view<128x16xf32, strides=[16,1]>>, tile<i32> -> token
    return
  }
}
"""

# O[512x16] = V^T @ P: V (128 x 512) loaded and transposed, P computed from an f32 tile
_VALUES = """cuda_tile.module @m {
  entry @k(%v: tile<ptr<f16>>, %p: tile<ptr<f32>>, %o: tile<ptr<f32>>) {
    %tv = make_tensor_view %v, shape = [128, 512], strides = [512, 1] : tensor_view<128x512xf16, strides=[512,1]>
    %tp = make_tensor_view %p, shape = [128, 16], strides = [16, 1] : tensor_view<128x16xf32, strides=[16,1]>
    %to = make_tensor_view %o, shape = [512, 16], strides = [16, 1] : tensor_view<512x16xf32, strides=[16,1]>
    %pv = make_partition_view %tv : partition_view<tile=(128x512), tensor_view<128x512xf16, strides=[512,1]>>
    %pp = make_partition_view %tp : partition_view<tile=(128x16), tensor_view<128x16xf32, strides=[16,1]>>
    %po = make_partition_view %to : partition_view<tile=(512x16), tensor_view<512x16xf32, strides=[16,1]>>
    %z = constant <i32: 0> : tile<i32>
    %pf, %t0 = load_view_tko weak %pp[%z, %z] : partition_view<tile=(128x16), tensor_view<128x16xf32, strides=[16,1]>>, tile<i32> -> tile<128x16xf32>, token
    %ph = ftof %pf : tile<128x16xf32> -> tile<128x16xf16>
    %vv, %t1 = load_view_tko weak %pv[%z, %z] : partition_view<tile=(128x512), tensor_view<128x512xf16, strides=[512,1]>>, tile<i32> -> tile<128x512xf16>, token
    %vt = permute %vv [1, 0] : tile<128x512xf16> -> tile<512x128xf16>
    %init = constant <f32: -1.0> : tile<512x16xf32>
    %r = mmaf %vt, %ph, %init : tile<512x128xf16>, tile<128x16xf16>, tile<512x16xf32>
    %t2 = store_view_tko weak %r, %po[%z, %z] : tile<512x16xf32>, partition_view<tile=(512x16), tensor_view<512x16xf32, strides=[16,1]>>, tile<i32> -> token
    return
  }
}
"""


def _opt(text, *args):
    r = subprocess.run([sys.executable, "-m", "tilec.cli", "opt", *args, "-"], input=text, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_a_loaded_operand_is_loaded_a_k_block_at_a_time():
    """The loop's 128 x 512 A becomes eight 128 x 64 loads of a finer view at
    index (i, 0 * 8 + c); the invariant Q^T is cut once, before the loop."""
    out = _opt(_SCORES, "--chunk-dots")
    body = out[out.index("= for "):]
    head = out[:out.index("= for ")]
    assert body.count("mmaf") == 8 and "tile<128x64xf16>, tile<64x16xf16>, tile<128x16xf32>" in body
    assert body.count("partition_view<tile=(128x64)") == 8 and "tile=(128x512)" not in out
    assert head.count("extract") == 8 and "extract" not in body
    assert body.count("muli") == 8 and body.count("addi") == 8


def test_small_dots_are_left_whole():
    out = _opt(_SCORES, "--chunk-dots=bytes=131072")
    assert out.count("mmaf") == 1 and "extract" not in out


def test_both_loaded_operands_are_cut_through_a_unit_reshape():
    out = _opt(_BOTH, "--chunk-dots")
    assert out.count("mmaf") == 8 and "extract" not in out
    # each finer view: its make_partition_view and eight loads
    assert out.count("partition_view<tile=(128x64)") == 9 and out.count("partition_view<tile=(1x64x16)") == 9
    assert out.count("tile<1x64x16xf16> -> tile<64x16xf16>") == 8


@pytest.mark.parametrize("arch", ["sm_86", "sm_120a"])
@pytest.mark.parametrize("which", ["scores", "values", "both"])
def test_oversized_dots_compile_cut_and_compute_the_product(arch, which):
    from tilec.compiler import parse_and_compile
    from tilec.interp import launch as interp_launch, parse_module
    text = {"scores": _SCORES, "values": _VALUES, "both": _BOTH}[which]
    warnings = []
    ptx = parse_and_compile(text, "k.mlir", arch, on_warnings=warnings.append)
    assert any("cut into K blocks" in w for w in warnings), warnings
    rng = np.random.default_rng(23)
    if which == "scores":
        a = rng.standard_normal((256, 512)).astype(np.float16)
        q = rng.standard_normal((16, 512)).astype(np.float16)
        exact = a[:128].astype(np.float64) @ q.T.astype(np.float64) + \
            a[128:].astype(np.float64) @ q.T.astype(np.float64) + 0.5
        scale = np.abs(a[:128].astype(np.float64)) @ np.abs(q.T) + np.abs(a[128:].astype(np.float64)) @ np.abs(q.T)
        args, shape = [a, q], (128, 16)
    elif which == "both":
        a = rng.standard_normal((128, 512)).astype(np.float16)
        b = rng.standard_normal((1, 512, 16)).astype(np.float16)
        exact = a.astype(np.float64) @ b[0].astype(np.float64) + 2.0
        scale = np.abs(a.astype(np.float64)) @ np.abs(b[0].astype(np.float64)) + 2.0
        args, shape = [a, b], (128, 16)
    else:
        v = rng.standard_normal((128, 512)).astype(np.float16)
        p = rng.standard_normal((128, 16)).astype(np.float32)
        ph = p.astype(np.float16).astype(np.float64)
        exact = v.T.astype(np.float64) @ ph - 1.0
        scale = np.abs(v.T.astype(np.float64)) @ np.abs(ph) + 1.0
        args, shape = [v, p], (512, 16)
    want = np.zeros(shape, np.float32)
    interp_launch(parse_module(text, "k.mlir"), None, (1, 1, 1), [x.copy() for x in args] + [want])
    got = np.zeros(shape, np.float32)
    ptxsim.run_ptx(ptx, "k", (1, 1, 1), args + [got])
    for res in (got, want):
        assert np.all(np.abs(res - exact) <= 1e-5 * scale + 1e-6)
