"""The reference interpreter runs every example kernel; each result is compared
with a NumPy reference computed independently here.

Integers must match exactly. Floats: element-wise f32/f16/bf16 arithmetic must
match bit for bit (both round once to nearest-even); reductions, scans and MMAs
sum in a different order than NumPy, so they are compared with a relative
tolerance (see docs/decisions.md, "Interpreter").
"""
import io
import os

import ml_dtypes
import numpy as np
import pytest

from conftest import ROOT
from tilec.interp import LaunchError, launch, parse_module

BF16 = ml_dtypes.bfloat16


def module(path):
    full = os.path.join(ROOT, "examples", path)
    with open(full) as fh:
        return parse_module(fh.read(), full)


def arr(a):
    """cuTile's calling convention for an array: pointer, shape..., strides (elements)..."""
    return [a, *a.shape, *[s // a.itemsize for s in a.strides]]


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


def test_vector_add_masks_the_last_tile(rng):
    n = 1000  # not a multiple of the 256-element tile
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    c = np.full(n + 8, -7.0, np.float32)  # extra tail must stay untouched
    launch(module("vector_add.mlir"), "vector_add", (4,), [a, b, c[:n], n])
    assert np.array_equal(c[:n], a + b)
    assert np.all(c[n:] == -7.0)


def test_cutile_vector_add_f32(rng):
    a, b = rng.standard_normal(768).astype(np.float32), rng.standard_normal(768).astype(np.float32)
    c = np.zeros_like(a)
    launch(module("cutile/vector_add_f32.mlir"), "vector_add_f32", (3,), arr(a) + arr(b) + arr(c))
    assert np.array_equal(c, a + b)


def test_saxpy_bf16_bit_exact(rng):
    x = rng.standard_normal(384).astype(BF16)
    y = rng.standard_normal(384).astype(BF16)
    out = np.zeros(384, BF16)
    alpha = 0.7
    launch(module("cutile/saxpy_bf16.mlir"), None, (3,), arr(x) + arr(y) + arr(out) + [alpha])
    # fma in f32 (exact product, one rounding), then one rounding to bf16
    exact = np.float64(np.float32(alpha)) * x.astype(np.float64) + y.astype(np.float64)
    ref = exact.astype(np.float32).astype(BF16)
    assert np.array_equal(out.view(np.uint16), ref.view(np.uint16))


def test_row_softmax_f32(rng):
    x = (rng.standard_normal((16, 128)) * 5).astype(np.float32)
    out = np.zeros_like(x)
    launch(module("cutile/row_softmax_f32.mlir"), None, (4,), arr(x) + arr(out))
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    assert np.allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


def test_row_stats_i32_exact(rng):
    x = rng.integers(-2**31, 2**31, (24, 64), dtype=np.int64).astype(np.int32)
    sums, mins = np.zeros(24, np.int32), np.zeros(24, np.int32)
    launch(module("cutile/row_stats_i32.mlir"), None, (3,), arr(x) + arr(sums) + arr(mins))
    ref = (x.astype(np.int64).sum(axis=1) + 2**31) % 2**32 - 2**31  # i32 wrap-around
    assert np.array_equal(sums, ref.astype(np.int32))
    assert np.array_equal(mins, x.min(axis=1))


def test_cumsum_and_reverse_cumprod(rng):
    x = rng.uniform(0.5, 1.5, 256).astype(np.float32)
    fwd, rev = np.zeros_like(x), np.zeros_like(x)
    launch(module("cutile/cumsum_f32.mlir"), None, (2,), arr(x) + arr(fwd) + arr(rev))
    blocks = x.astype(np.float64).reshape(2, 128)
    assert np.allclose(fwd.reshape(2, 128), np.cumsum(blocks, axis=1), rtol=1e-5)
    assert np.allclose(rev.reshape(2, 128), np.cumprod(blocks[:, ::-1], axis=1)[:, ::-1], rtol=1e-5)


def _mm_close(got, a, b, rtol):
    ref = a.astype(np.float64) @ b.astype(np.float64)
    scale = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
    return np.all(np.abs(got.astype(np.float64) - ref) <= rtol * scale + 1e-6)


def test_matmul_f16_with_padding(rng):
    # K = 80 is not a multiple of the 32-wide K tile: the padded loads add zeros
    a = rng.standard_normal((128, 80)).astype(np.float16)
    b = rng.standard_normal((80, 128)).astype(np.float16)
    c = np.zeros((128, 128), np.float16)
    launch(module("cutile/matmul_f16.mlir"), None, (2, 2), arr(a) + arr(b) + arr(c))
    assert _mm_close(c, a, b, 2e-3)


def test_matmul_bf16_relu(rng):
    a = rng.standard_normal((128, 128)).astype(BF16)
    b = rng.standard_normal((128, 256)).astype(BF16)
    c = np.zeros((128, 256), np.float32)
    launch(module("cutile/matmul_bf16_relu.mlir"), None, (2, 2), arr(a) + arr(b) + arr(c))
    ref = np.maximum(a.astype(np.float64) @ b.astype(np.float64), 0)
    scale = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
    assert np.all(np.abs(c - ref) <= 1e-6 * scale + 1e-6)


def test_matmul_i8_exact_with_kmax(rng):
    a = rng.integers(-128, 128, (128, 96)).astype(np.int8)
    b = rng.integers(-128, 128, (96, 128)).astype(np.int8)
    c = np.zeros((128, 128), np.int32)
    kmax = 2  # only the first two 32-wide K tiles are accumulated
    launch(module("cutile/matmul_i8_masked.mlir"), None, (2, 2), arr(a) + arr(b) + arr(c) + [kmax])
    assert np.array_equal(c, a[:, :64].astype(np.int32) @ b[:64].astype(np.int32))


def test_branchy_scale_takes_both_branches(rng):
    x = rng.standard_normal(300).astype(np.float32)
    out = np.zeros_like(x)
    launch(module("cutile/branchy_scale.mlir"), None, (3,), arr(x) + arr(out) + [300])
    full = 256  # blocks 0 and 1 are whole tiles (scaled), block 2 is partial (shifted)
    assert np.array_equal(out[:full], x[:full] * np.float32(2))
    assert np.array_equal(out[full:], x[full:] - np.float32(1))


def test_grid_stride_loop(rng):
    x = rng.integers(-2**31, 2**31, 256 * 5, dtype=np.int64).astype(np.int32)
    out = np.zeros_like(x)
    launch(module("cutile/grid_stride_i32.mlir"), None, (2,), arr(x) + arr(out) + [5])
    ref = ((x.astype(np.int64) << 1) & 0xFFFFFFFF).astype(np.uint32).view(np.int32) ^ (x & 255)
    assert np.array_equal(out, ref)


def test_gather_reverse(rng):
    x = rng.standard_normal(300).astype(np.float32)
    out = np.zeros_like(x)
    launch(module("cutile/gather_reverse_f32.mlir"), None, (3,), arr(x) + arr(out) + [300])
    assert np.array_equal(out, x[::-1])


def test_histogram_atomics(rng):
    keys = rng.integers(-500, 500, 256).astype(np.int32)
    vals = rng.standard_normal(256).astype(np.float32)
    hist, best = np.zeros(64, np.int32), np.full(64, -2**31, np.int32)
    wsum, flags = np.zeros(64, np.float32), np.zeros(64, np.int32)
    launch(module("cutile/histogram_i32.mlir"), None, (2,),
           arr(keys) + arr(hist) + arr(best) + arr(wsum) + arr(vals) + arr(flags))
    bins = np.mod(keys, 64)  # Python-style modulo, as cuTile's %
    assert np.array_equal(hist, np.bincount(bins, minlength=64))
    ref_best = np.full(64, -2**31, np.int64)
    for k, b in zip(keys, bins):
        ref_best[b] = max(ref_best[b], k)
    assert np.array_equal(best, ref_best)
    ref_sum = np.zeros(64)
    for v, b in zip(vals, bins):
        ref_sum[b] += v
    assert np.allclose(wsum, ref_sum, rtol=1e-5, atol=1e-5)
    assert np.array_equal(flags, (np.bincount(bins, minlength=64) > 0).astype(np.int32))


def test_argmax_rows_and_print(rng):
    x = rng.standard_normal((16, 64))
    x[3, 10] = x[3, 20] = 50.0  # a tie: the lower index wins
    idx = np.zeros(16, np.int32)
    out = io.StringIO()
    launch(module("cutile/argmax_rows_f64.mlir"), None, (4,), arr(x) + arr(idx), stdout=out)
    ref = np.argmax(np.log(np.abs(x) + 1), axis=1)
    assert np.array_equal(idx, ref)
    assert ref[3] == 10
    assert out.getvalue() == f"first block argmax [{ref[0]}]\n"


def test_clamp_where_f16_bit_exact(rng):
    x = (rng.standard_normal((32, 32)) * 4).astype(np.float16)
    out = np.zeros_like(x)
    lo, hi = -1.0, 20.0
    launch(module("cutile/clamp_where_f16.mlir"), None, (2,), arr(x) + arr(out) + [lo, hi])
    t = np.where(x.astype(np.float32) < lo, np.float16(lo), x) + np.arange(32).astype(np.float16)
    ref = np.sqrt(np.abs(np.minimum(t, np.float16(hi))))
    assert np.array_equal(out.view(np.uint16), ref.view(np.uint16))


def test_transpose_with_edge_tiles(rng):
    x = rng.standard_normal((70, 45)).astype(np.float32)
    out = np.zeros((45, 70), np.float32)
    launch(module("transpose_f32.mlir"), None, (3, 2), [x, out, 70, 45])
    assert np.array_equal(out, x.T)


def test_gcd_while_loop(rng):
    a = rng.integers(-10**6, 10**6, 12).astype(np.int32)
    b = rng.integers(0, 10**4, 12).astype(np.int32)
    b[0] = 0
    out = np.zeros(12, np.int32)
    launch(module("gcd_loop_i32.mlir"), None, (12,), [a, b, out])
    assert np.array_equal(out, np.gcd(a, b))


def test_ticket_lock_atomics_and_global():
    owner, tickets, seen = np.zeros(4, np.int32), np.zeros(10, np.int32), np.zeros(10, np.int32)
    result = launch(module("ticket_lock_i32.mlir"), None, (10,), [owner, tickets, seen])
    # blocks run in order: block i takes ticket i; blocks 0-3 win their slots
    assert np.array_equal(tickets, np.arange(10))
    assert np.array_equal(owner, [1, 2, 3, 4])
    assert np.array_equal(seen, [0, 0, 0, 0, 1, 2, 3, 4, 1, 2])
    assert result.globals["counter"].tolist() == [10]


def test_tiled_matmul_example_small(rng):
    a = rng.standard_normal((200, 136)).astype(np.float16)
    b = rng.standard_normal((136, 150)).astype(np.float16)
    c = np.zeros((200, 150), np.float16)
    launch(module("matmul_f16_tiled.mlir"), None, (2, 2), [a, b, c, 200, 150, 136])
    assert _mm_close(c, a, b, 2e-3)


def test_out_of_range_tile_index_is_reported():
    a = np.zeros(256, np.float32)
    with pytest.raises(LaunchError) as e:
        launch(module("vector_add.mlir"), None, (2,), [a, a, a, 256])
    msg = str(e.value)
    assert "vector_add.mlir:13:5: error: 'cuda_tile.load_view_tko' op tile index 1" in msg
    assert "tile block (1, 0, 0)" in msg


def test_layernorm_with_partial_last_block(rng):
    rows = 10  # three blocks of 4 rows, the last one half empty
    x = (rng.standard_normal((rows, 128)) * 3 + 1).astype(np.float32)
    w, b = rng.standard_normal(128).astype(np.float32), rng.standard_normal(128).astype(np.float32)
    y = np.zeros_like(x)
    eps = 1e-5
    launch(module("layernorm_f32.mlir"), None, (3,), [x, w, b, y, rows, eps])
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=1, keepdims=True)
    ref = (x64 - mean) / np.sqrt(var + eps) * w + b
    assert np.allclose(y, ref, rtol=1e-5, atol=1e-5)


def test_flash_attention_f16(rng):
    # 2 heads, 128 queries/keys, head dim 64; 32x32 blocks: grid (query blocks, heads) = (4, 2),
    # and each block walks 4 key blocks with the online softmax (running max/sum, rescaling).
    # Q is scaled up so the scores spread (std ~2) and the running max moves between key blocks.
    h, s, d = 2, 128, 64
    q = (rng.standard_normal((h, s, d)) * 2).astype(np.float16)
    k = rng.standard_normal((h, s, d)).astype(np.float16)
    v = rng.standard_normal((h, s, d)).astype(np.float16)
    o = np.zeros_like(q)
    launch(module("cutile/flash_attention_f16.mlir"), None, (s // 32, h),
           arr(q) + arr(k) + arr(v) + arr(o) + [1 / np.sqrt(d)])
    # plain (not online) softmax(Q K^T / sqrt(d)) V in float64 on the f16 inputs
    scores = q.astype(np.float64) @ k.astype(np.float64).transpose(0, 2, 1) / np.sqrt(d)
    p = np.exp(scores - scores.max(axis=-1, keepdims=True))
    ref = (p / p.sum(axis=-1, keepdims=True)) @ v.astype(np.float64)
    # the kernel rounds P to f16 before P.V and the output to f16 (each ~2**-11 relative);
    # observed max abs error 7.7e-4 on outputs up to 3 (see docs/decisions.md, "Interpreter")
    assert np.allclose(o.astype(np.float64), ref, rtol=5e-3, atol=5e-3)


def test_matmul_fp8_e4m3(rng):
    f8 = ml_dtypes.float8_e4m3fn
    # quantize to f8E4M3FN first (clipped to its finite range, +-448: it has no Inf, overflow is
    # NaN); the reference then multiplies exactly the values the kernel reads
    a = np.clip(rng.standard_normal((128, 96)) * 40, -448, 448).astype(f8)
    b = np.clip(rng.standard_normal((96, 128)), -448, 448).astype(f8)
    c = np.zeros((128, 128), np.float32)
    launch(module("cutile/matmul_fp8.mlir"), None, (2, 2), arr(a) + arr(b) + arr(c))
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = a64 @ b64
    # e4m3 products (4-bit significands) are exact in f32: only the K=96 f32 additions round,
    # so |err| <= K * 2**-24 * sum|a_i b_i| in any summation order (observed: 3.4e-8 of it)
    assert np.all(np.abs(c - ref) <= 96 * 2.0**-24 * (np.abs(a64) @ np.abs(b64)))
    assert np.abs(c - ref).max() < 1e-3 * np.abs(ref).max()
