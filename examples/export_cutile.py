#!/usr/bin/env python3
"""Export a set of cuTile Python kernels to textual cuda_tile IR.

A development aid: it needs NVIDIA's reference toolchain (cuda.tile,
tileirdisasm, tileiras), which tilec itself never uses. Run it with the
reference python:

    source ../shared/tools/reference-toolchain.sh
    python examples/export_cutile.py [OUTDIR]     # default: examples/cutile

For each kernel below it writes OUTDIR/NAME.mlir: the text `tileirdisasm`
prints for the bytecode cuTile emits, wrapped in `cuda_tile.module @NAME { }`
(the disassembler prints the module body only; a module is what `tilec` and
`cuda-tile-opt` take as input). The bytecode and NVIDIA's cubin are written to
a scratch directory and not kept: only the .mlir text belongs in git.

Set CUTILE_EXPORT_TOOL to the path of shared/tools/cutile_export.py when this
checkout does not sit beside shared/.
"""
from __future__ import annotations

import math
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
_TOOL = os.environ.get("CUTILE_EXPORT_TOOL",
                       os.path.join(HERE, "..", "..", "shared", "tools", "cutile_export.py"))
if not os.path.exists(_TOOL):
    _TOOL = "/work/shared/tools/cutile_export.py"
sys.path.insert(0, os.path.dirname(os.path.abspath(_TOOL)))

import cuda.tile as ct  # noqa: E402
from cutile_export import array, export, scalar  # noqa: E402


# ---------------------------------------------------------------------------
# 1. elementwise: f32 vector add (load/store through partition views)

@ct.kernel
def vector_add_f32(a, b, c, TILE: ct.Constant[int]):
    i = ct.bid(0)
    x = ct.load(a, index=(i,), shape=(TILE,))
    y = ct.load(b, index=(i,), shape=(TILE,))
    ct.store(c, index=(i,), tile=x + y)


# ---------------------------------------------------------------------------
# 2. mixed precision elementwise: bf16 in/out, f32 math, a scalar parameter

@ct.kernel
def saxpy_bf16(x, y, out, alpha, TILE: ct.Constant[int]):
    i = ct.bid(0)
    xs = ct.astype(ct.load(x, index=(i,), shape=(TILE,)), ct.float32)
    ys = ct.astype(ct.load(y, index=(i,), shape=(TILE,)), ct.float32)
    r = alpha * xs + ys
    ct.store(out, index=(i,), tile=ct.astype(r, ct.bfloat16))


# ---------------------------------------------------------------------------
# 3. reductions: numerically stable row softmax (max and sum reduce regions)

@ct.kernel
def row_softmax_f32(x, out, ROWS: ct.Constant[int], COLS: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(ROWS, COLS))
    m = ct.max(t, axis=1, keepdims=True)
    e = ct.exp(t - m)
    s = ct.sum(e, axis=1, keepdims=True)
    ct.store(out, index=(i, 0), tile=e / s)


# ---------------------------------------------------------------------------
# 4. integer reductions: i32 row sum and row min, f16 column max

@ct.kernel
def row_stats_i32(x, sums, mins, ROWS: ct.Constant[int], COLS: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(ROWS, COLS))
    ct.store(sums, index=(i,), tile=ct.sum(t, axis=1))
    ct.store(mins, index=(i,), tile=ct.min(t, axis=1))


# ---------------------------------------------------------------------------
# 5. scan: inclusive prefix sum along a row (f32) and a reversed cumprod

@ct.kernel
def cumsum_f32(x, out, rev, TILE: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(TILE,))
    ct.store(out, index=(i,), tile=ct.cumsum(t, axis=0))
    ct.store(rev, index=(i,), tile=ct.cumprod(t, axis=0, reverse=True))


# ---------------------------------------------------------------------------
# 6. loops + MMA: tiled f16 GEMM with an f32 accumulator carried by `for`

@ct.kernel
def matmul_f16(a, b, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    acc = ct.full((TM, TN), 0.0, dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(TM, TK))):
        ta = ct.load(a, index=(bm, k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, index=(k, bn), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta, tb, acc)
    ct.store(c, index=(bm, bn), tile=ct.astype(acc, c.dtype))     # f16 here; bf16 in the benchmark's bf16 export


# ---------------------------------------------------------------------------
# 7. integer matmul-free GEMV-like loop with i32 accumulation and a bf16 mma

@ct.kernel
def matmul_bf16_relu(a, b, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(TM, TK))):
        ta = ct.load(a, index=(bm, k), shape=(TM, TK))
        tb = ct.load(b, index=(k, bn), shape=(TK, TN))
        acc = ct.mma(ta, tb, acc)
    acc = ct.maximum(acc, 0.0)
    ct.store(c, index=(bm, bn), tile=acc)


# ---------------------------------------------------------------------------
# 8. if/else on a runtime scalar condition, yielding a tile

@ct.kernel
def branchy_scale(x, out, n, TILE: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(TILE,))
    if i * TILE + TILE <= n:
        r = t * 2.0
    else:
        r = t - 1.0
    ct.store(out, index=(i,), tile=r)


# ---------------------------------------------------------------------------
# 9. while loop (cuda_tile.loop with break), grid-stride over tiles

@ct.kernel
def grid_stride_i32(x, out, ntiles, TILE: ct.Constant[int]):
    i = ct.bid(0)
    step = ct.num_blocks(0)
    while i < ntiles:
        t = ct.load(x, index=(i,), shape=(TILE,))
        ct.store(out, index=(i,), tile=(t << 1) ^ (t & 255))
        i = i + step


# ---------------------------------------------------------------------------
# 10. gather / scatter through pointer tiles (reverse a vector with a mask)

@ct.kernel
def gather_reverse_f32(x, out, n, TILE: ct.Constant[int]):
    i = ct.bid(0)
    idx = i * TILE + ct.arange(TILE, dtype=ct.int32)
    src = n - 1 - idx
    t = ct.gather(x, src, mask=idx < n, padding_value=0.0)
    ct.scatter(out, idx, t)


# ---------------------------------------------------------------------------
# 11. atomics: integer histogram (atomic add), an integer atomic max with a
#     relaxed order, a float atomic add, and a compare-and-swap

@ct.kernel
def histogram_i32(keys, hist, best, wsum, vals, flags, TILE: ct.Constant[int], BINS: ct.Constant[int]):
    i = ct.bid(0)
    k = ct.load(keys, index=(i,), shape=(TILE,))
    b = k % BINS
    ct.atomic_add(hist, b, 1)
    ct.atomic_max(best, b, k, memory_order=ct.MemoryOrder.RELAXED)
    v = ct.load(vals, index=(i,), shape=(TILE,))
    ct.atomic_add(wsum, b, v, memory_scope=ct.MemoryScope.BLOCK)
    ct.atomic_cas(flags, b, 0, 1)


# ---------------------------------------------------------------------------
# 12. compare / select / math on f16 with broadcasting and a 2-D reshape

@ct.kernel
def clamp_where_f16(x, out, lo, hi, ROWS: ct.Constant[int], COLS: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(ROWS, COLS))
    col = ct.reshape(ct.arange(COLS, dtype=ct.float16), (1, COLS))
    t = ct.where(t < lo, ct.astype(lo, ct.float16), t) + col
    t = ct.minimum(t, ct.astype(hi, ct.float16))
    ct.store(out, index=(i, 0), tile=ct.transpose(ct.transpose(ct.sqrt(ct.abs(t)))))


# ---------------------------------------------------------------------------
# 13. int8 MMA (mmai, i32 accumulator) in a loop with an if nested inside it

@ct.kernel
def matmul_i8_masked(a, b, c, kmax, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.int32)
    for k in range(ct.num_tiles(a, axis=1, shape=(TM, TK))):
        if k < kmax:
            ta = ct.load(a, index=(bm, k), shape=(TM, TK))
            tb = ct.load(b, index=(k, bn), shape=(TK, TN))
            acc = ct.mma(ta, tb, acc)
    ct.store(c, index=(bm, bn), tile=acc)


# ---------------------------------------------------------------------------
# 14. argmax along rows (a two-value reduce) plus f64 math and a device print

@ct.kernel
def argmax_rows_f64(x, idx, ROWS: ct.Constant[int], COLS: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(ROWS, COLS))
    am = ct.argmax(ct.log(ct.abs(t) + 1.0), axis=1)
    if i == 0:
        ct.printf("first block argmax %d\n", ct.extract(am, index=(0,), shape=(1,)))
    ct.store(idx, index=(i,), tile=ct.astype(am, ct.int32))


# ---------------------------------------------------------------------------
# 15. flash attention: one tile block per (query block, head); a loop over key
#     blocks with an online softmax (running max and sum, rescaling of the
#     accumulator), Q.K^T and P.V by f16 MMAs with f32 accumulation

@ct.kernel
def flash_attention_f16(q, k, v, out, qk_scale,
                        BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    bm = ct.bid(0)
    h = ct.bid(1)
    tq = ct.reshape(ct.load(q, index=(h, bm, 0), shape=(1, BM, D)), (BM, D))
    scale = qk_scale * 1.4426950408889634  # fold log2(e) in: exp(x) == exp2(x * log2(e))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(k, axis=1, shape=(1, BN, D))):
        tk = ct.reshape(ct.load(k, index=(h, j, 0), shape=(1, BN, D)), (BN, D))
        s = ct.mma(tq, ct.transpose(tk), ct.zeros((BM, BN), dtype=ct.float32)) * scale
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        tv = ct.reshape(ct.load(v, index=(h, j, 0), shape=(1, BN, D)), (BN, D))
        acc = ct.mma(ct.astype(p, ct.float16), tv, acc * alpha)
        m_i = m_new
    o = ct.astype(acc / l_i, ct.float16)
    ct.store(out, index=(h, bm, 0), tile=ct.reshape(o, (1, BM, D)))


# ---------------------------------------------------------------------------
# 16. fp8 GEMM: f8E4M3FN inputs (cuTile's mma wants both operands of one fp8
#     type), f32 accumulator, f32 output

@ct.kernel
def matmul_fp8(a, b, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(TM, TK))):
        ta = ct.load(a, index=(bm, k), shape=(TM, TK))
        tb = ct.load(b, index=(k, bn), shape=(TK, TN))
        acc = ct.mma(ta, tb, acc)
    ct.store(c, index=(bm, bn), tile=acc)


# ---------------------------------------------------------------------------
# 17-26. broader coverage: layer norm, transpose, batched and tf32 MMA, integer bit
# ops, atomics, cat/reshape, a 2-D grid with bf16 math, gather/scatter, argmin

@ct.kernel
def layernorm_f32(x, w, out, ROWS: ct.Constant[int], COLS: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(ROWS, COLS))
    mean = ct.sum(t, axis=1, keepdims=True) / COLS
    d = t - mean
    var = ct.sum(d * d, axis=1, keepdims=True) / COLS
    g = ct.load(w, index=(0,), shape=(COLS,))
    ct.store(out, index=(i, 0), tile=d * ct.rsqrt(var + 1e-5) * ct.reshape(g, (1, COLS)))

@ct.kernel
def transpose_tile(x, out, T: ct.Constant[int]):
    i = ct.bid(0); j = ct.bid(1)
    t = ct.load(x, index=(i, j), shape=(T, T))
    ct.store(out, index=(j, i), tile=ct.transpose(t))

@ct.kernel
def bmm_f16(a, b, c, B: ct.Constant[int], TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    bm = ct.bid(0)
    acc = ct.zeros((B, TM, TN), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=2, shape=(B, TM, TK))):
        ta = ct.load(a, index=(0, bm, k), shape=(B, TM, TK), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, index=(0, k, 0), shape=(B, TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta, tb, acc)
    ct.store(c, index=(0, bm, 0), tile=acc)

@ct.kernel
def matmul_tf32(a, b, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    bm = ct.bid(0); bn = ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(TM, TK))):
        ta = ct.load(a, index=(bm, k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, index=(k, bn), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta, tb, acc)
    ct.store(c, index=(bm, bn), tile=acc)

@ct.kernel
def bits_i32(x, y, out, TILE: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(TILE,))
    b = ct.load(y, index=(i,), shape=(TILE,))
    r = ct.where(a > b, (a ^ b) << 2, (a & b) | (b >> 1))
    ct.store(out, index=(i,), tile=r % 1000 + ct.abs(a - b))

@ct.kernel
def atomics_f32(x, acc, mx, TILE: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(TILE,))
    ct.atomic_add(acc, ct.arange(TILE, dtype=ct.int32), t)
    ct.atomic_max(mx, ct.zeros((TILE,), dtype=ct.int32), ct.astype(t * 100.0, ct.int32))

@ct.kernel
def cat_reshape(x, out, T: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i, 0), shape=(T, T))
    b = ct.cat((a, a * 2.0), axis=1)
    r = ct.reshape(b, (T * 2, T))
    ct.store(out, index=(i, 0), tile=ct.exp2(r) + ct.expand_dims(ct.max(r, axis=0), 0))

@ct.kernel
def grid2d_bf16(x, out, T: ct.Constant[int]):
    i = ct.bid(0); j = ct.bid(1)
    t = ct.astype(ct.load(x, index=(i, j), shape=(T, T)), ct.float32)
    n = ct.num_blocks(0)
    r = ct.tanh(t) * n + ct.sin(t) - ct.floor(t)
    ct.store(out, index=(i, j), tile=ct.astype(r, ct.bfloat16))

@ct.kernel
def scatter_masked(x, idx, out, n, TILE: ct.Constant[int]):
    i = ct.bid(0)
    off = i * TILE + ct.arange(TILE, dtype=ct.int32)
    v = ct.gather(x, off)
    k = ct.gather(idx, off)
    ct.scatter(out, k, v * 3.0)

@ct.kernel
def argmin_f32(x, out, ROWS: ct.Constant[int], COLS: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(ROWS, COLS))
    ct.store(out, index=(i,), tile=ct.argmin(t, axis=1))


# ---------------------------------------------------------------------------
# 27-33. more coverage: -inf padding, f64 math, unsigned division, axis-0 reductions,
# a 3-D permute, a 128x128x64 GEMM with a GELU epilogue (dynamic shared memory), a while loop

@ct.kernel
def masked_softmax_f16(x, out, n, ROWS: ct.Constant[int], COLS: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.astype(ct.load(x, index=(i, 0), shape=(ROWS, COLS), padding_mode=ct.PaddingMode.NEG_INF), ct.float32)
    m = ct.max(t, axis=1, keepdims=True)
    e = ct.exp(t - m)
    ct.store(out, index=(i, 0), tile=ct.astype(e / ct.sum(e, axis=1, keepdims=True), ct.float16))

@ct.kernel
def math_f64(x, out, TILE: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(TILE,))
    r = ct.sqrt(ct.abs(t)) + ct.exp(t * 0.5) - ct.log(ct.abs(t) + 1.0) + ct.pow(ct.abs(t), 1.5)
    ct.store(out, index=(i,), tile=r)

@ct.kernel
def int_div_u8(x, y, q, r, TILE: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.astype(ct.load(x, index=(i,), shape=(TILE,)), ct.int32)
    b = ct.astype(ct.load(y, index=(i,), shape=(TILE,)), ct.int32) + 1
    ct.store(q, index=(i,), tile=ct.astype(ct.floordiv(a, b), ct.uint8))
    ct.store(r, index=(i,), tile=ct.astype(ct.mod(a - 100, b), ct.int16))

@ct.kernel
def colsum_axis0(x, out, ROWS: ct.Constant[int], COLS: ct.Constant[int]):
    j = ct.bid(0)
    t = ct.load(x, index=(0, j), shape=(ROWS, COLS))
    ct.store(out, index=(j,), tile=ct.sum(t, axis=0) + ct.min(t, axis=0))

@ct.kernel
def permute3d(x, out, A: ct.Constant[int], B: ct.Constant[int], C: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0, 0), shape=(A, B, C))
    ct.store(out, index=(0, 0, i), tile=ct.permute(t, (2, 1, 0)))

@ct.kernel
def matmul_big_f16(a, b, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    bm = ct.bid(0); bn = ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(TM, TK))):
        ta = ct.load(a, index=(bm, k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, index=(k, bn), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta, tb, acc)
    g = acc * 0.5 * (1.0 + ct.tanh(acc * 0.7978845608))
    ct.store(c, index=(bm, bn), tile=ct.astype(g, ct.float16))

@ct.kernel
def while_collatz(x, out, TILE: ct.Constant[int]):
    i = ct.bid(0)
    n = ct.load(x, index=(i,), shape=(TILE,))
    steps = ct.zeros((TILE,), dtype=ct.int32)
    k = 0
    while k < 64:
        odd = (n % 2) == 1
        n = ct.where(n == 1, n, ct.where(odd, 3 * n + 1, n // 2))
        steps = steps + ct.where(n == 1, 0, 1)
        k += 1
    ct.store(out, index=(i,), tile=steps)


# ---------------------------------------------------------------------------
# 34-38. a loop with break/continue, i64 shifts after a bitcast, argmax along
# axis 0, chained scans, three-way broadcasting

@ct.kernel
def loop_break(x, out, n, TILE: ct.Constant[int]):
    i = ct.bid(0)
    acc = ct.zeros((TILE,), dtype=ct.float32)
    for k in range(n):
        t = ct.load(x, index=(k,), shape=(TILE,))
        if ct.sum(t) > 100.0:
            break
        if k % 2 == 1:
            continue
        acc = acc + t
    ct.store(out, index=(i,), tile=acc)

@ct.kernel
def i64_bitcast(x, out, TILE: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(TILE,))
    u = ct.bitcast(t, ct.int32)
    w = ct.astype(u, ct.int64) * 3 + (ct.astype(u, ct.int64) >> 7)
    ct.store(out, index=(i,), tile=w)

@ct.kernel
def argmax_axis0(x, out, ROWS: ct.Constant[int], COLS: ct.Constant[int]):
    j = ct.bid(0)
    t = ct.load(x, index=(0, j), shape=(ROWS, COLS))
    ct.store(out, index=(j,), tile=ct.argmax(t, axis=0))

@ct.kernel
def prod_scan_rev(x, out, TILE: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(TILE,))
    ct.store(out, index=(i,), tile=ct.cumsum(ct.cumprod(t, axis=0), axis=0, reverse=True))

@ct.kernel
def bcast_3way(x, y, z, out, R: ct.Constant[int], C: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i, 0), shape=(R, 1))
    b = ct.load(y, index=(0, 0), shape=(1, C))
    c = ct.load(z, index=(i, 0), shape=(R, C))
    ct.store(out, index=(i, 0), tile=ct.where(c > 0, a * b, a + b - c))


# ---------------------------------------------------------------------------
# 39. causal attention with a ragged key length (zero-padded K/V tiles): the mask is applied only in
#     the iterations past `mask_from`, so the K loop's body reads the
#     induction variable in a branch (the pipelined consumer must remap it)

@ct.kernel
def attention_causal_f16(q, k, v, out, qk_scale, TM: ct.Constant[int], TN: ct.Constant[int],
                         D: ct.Constant[int]):
    bm = ct.bid(0)
    h = ct.bid(1)
    rows = (bm * TM + ct.arange(TM, dtype=ct.int32))[:, None]
    cols = ct.arange(TN, dtype=ct.int32)[None, :]
    tq = ct.load(q, index=(h, bm, 0), shape=(1, TM, D), padding_mode=ct.PaddingMode.ZERO).reshape((TM, D))
    n_keys = k.shape[1]
    mask_from = min((bm * TM) // TN, n_keys // TN)
    m_i = ct.full((TM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((TM, 1), dtype=ct.float32)
    acc = ct.zeros((TM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((bm + 1) * TM, n_keys), TN)):
        tk = ct.load(k, index=(h, 0, j), shape=(1, D, TN), order=(0, 2, 1), latency=2,
                     padding_mode=ct.PaddingMode.ZERO).reshape((D, TN))
        s = ct.mma(tq, tk, ct.zeros((TM, TN), dtype=ct.float32))
        if j >= mask_from:
            key = j * TN + cols
            s += ct.where((key < n_keys) & (rows >= key), 0.0, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=-1, keepdims=True) * qk_scale)
        p = ct.exp2(s * qk_scale - m_new, flush_to_zero=True)
        alpha = ct.exp2(m_i - m_new, flush_to_zero=True)
        l_i = l_i * alpha + ct.sum(p, axis=-1, keepdims=True)
        tv = ct.load(v, index=(h, j, 0), shape=(1, TN, D), latency=4,
                     padding_mode=ct.PaddingMode.ZERO).reshape((TN, D))
        acc = ct.mma(p.astype(ct.float16), tv, acc * alpha)
        m_i = m_new
    o = ct.truediv(acc, l_i, flush_to_zero=True, rounding_mode=ct.RoundingMode.APPROX)
    ct.store(out, index=(h, bm, 0), tile=o.reshape((1, TM, D)).astype(ct.float16))


# ---------------------------------------------------------------------------
# 40. explicit tf32 operands: f32 tiles cast to tfloat32, a matmul without an
#     accumulator (its result is tf32, cast back to f32), a second matmul on bf16

@ct.kernel
def matmul_tf32_cast(a, b, c, d, T: ct.Constant[int]):
    i = ct.bid(0)
    x = ct.load(a, index=(i, 0), shape=(T, T))
    y = ct.load(b, index=(0, 0), shape=(T, T))
    prod = ct.astype(ct.matmul(ct.astype(x, ct.tfloat32), ct.astype(y, ct.tfloat32)), ct.float32)
    ct.store(c, index=(i, 0), tile=prod)
    ct.store(d, index=(i, 0), tile=ct.astype(ct.matmul(ct.astype(prod, ct.bfloat16), ct.astype(y, ct.bfloat16)),
                                             ct.float32))


# ---------------------------------------------------------------------------
# 41. persistent batched GEMM: each block walks output tiles bid, bid + grid, ...
#     (grouped along M), a K loop per tile; B may be stored transposed

@ct.kernel
def persistent_bmm_f16(a, b, c, batch, M: ct.Constant[int], N: ct.Constant[int], K: ct.Constant[int],
                       TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int],
                       GROUP: ct.Constant[int], B_T: ct.Constant[bool]):
    tiles_m, tiles_n = ct.cdiv(M, TM), ct.cdiv(N, TN)
    for t in range(ct.bid(0), tiles_m * tiles_n * batch, ct.num_blocks(0)):
        q = t // (tiles_m * tiles_n)
        flat = t % (tiles_m * tiles_n)
        first_m = (flat // (GROUP * tiles_n)) * GROUP
        rows = ct.minimum(tiles_m - first_m, GROUP)
        bm = first_m + flat % rows
        bn = (flat % (GROUP * tiles_n)) // rows
        acc = ct.zeros((TM, TN), dtype=ct.float32)
        for k in range(ct.cdiv(K, TK)):
            ta = ct.load(a, index=(q, bm, k), shape=(1, TM, TK), padding_mode=ct.PaddingMode.ZERO, latency=3)
            if B_T:
                tb = ct.permute(ct.load(b, index=(q, bn, k), shape=(1, TN, TK), padding_mode=ct.PaddingMode.ZERO),
                                (0, 2, 1))
            else:
                tb = ct.load(b, index=(q, k, bn), shape=(1, TK, TN), padding_mode=ct.PaddingMode.ZERO)
            acc = ct.mma(ct.reshape(ta, (TM, TK)), ct.reshape(tb, (TK, TN)), acc=acc)
        ct.store(c, index=(q, bm, bn), tile=ct.reshape(ct.astype(acc, c.dtype), (1, TM, TN)))


# ---------------------------------------------------------------------------
# 36. both operands transposed: C = A^T B^T with A stored K x M and B stored N x K,
#     so the tensor cores read A MN-major and B K-major from their slots (rank-3
#     loads with a leading batch dimension, permuted and reshaped, as TileGym's bmm)

@ct.kernel
def matmul_tt_f16(a, b, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    q = ct.bid(2)
    acc = ct.full((TM, TN), 0.0, dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(1, TK, TM))):
        ta = ct.load(a, index=(q, k, bm), shape=(1, TK, TM), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, index=(q, bn, k), shape=(1, TN, TK), padding_mode=ct.PaddingMode.ZERO)
        ta = ct.reshape(ct.permute(ta, (0, 2, 1)), (TM, TK))
        tb = ct.reshape(ct.permute(tb, (0, 2, 1)), (TK, TN))
        acc = ct.mma(ta, tb, acc)
    ct.store(c, index=(q, bm, bn), tile=ct.reshape(ct.astype(acc, ct.float16), (1, TM, TN)))


# ---------------------------------------------------------------------------
# 37. fp8 e4m3 GEMM as torch._scaled_mm lays it out: B given as N x K (K-major),
#     both tensor-core operands read K-major (wgmma's only fp8 form), f16 out

@ct.kernel
def matmul_fp8_bt(a, bt, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(TM, TK))):
        ta = ct.load(a, index=(bm, k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(bt, index=(bn, k), shape=(TN, TK), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta, ct.permute(tb, (1, 0)), acc)
    ct.store(c, index=(bm, bn), tile=ct.astype(acc, c.dtype))


# ---------------------------------------------------------------------------
# 43. the dQ half of flash attention's backward pass: three dots a key block, the
#     rows' log-sum-exp and delta loaded once as vectors and broadcast over the keys

@ct.kernel
def attention_bwd_dq_f16(q, k, v, do, lse, delta, dq, scale, TM: ct.Constant[int], TN: ct.Constant[int],
                         D: ct.Constant[int]):
    bm = ct.bid(0)
    h = ct.bid(1)
    tq = ct.load(q, index=(h, bm, 0), shape=(1, TM, D)).reshape((TM, D))
    tdo = ct.load(do, index=(h, bm, 0), shape=(1, TM, D)).reshape((TM, D))
    # log2 units: P = exp2(S * scale * log2(e) - lse)
    row_lse = ct.load(lse, index=(h, bm), shape=(1, TM)).reshape((TM, 1))
    row_delta = ct.load(delta, index=(h, bm), shape=(1, TM)).reshape((TM, 1))
    acc = ct.zeros((TM, D), dtype=ct.float32)
    for j in range(k.shape[1] // TN):
        tk = ct.load(k, index=(h, j, 0), shape=(1, TN, D), latency=2).reshape((TN, D))
        tv = ct.load(v, index=(h, j, 0), shape=(1, TN, D), latency=4).reshape((TN, D))
        s = ct.mma(tq, ct.permute(tk, (1, 0)), ct.zeros((TM, TN), dtype=ct.float32))
        p = ct.exp2(s * (scale * 1.4426950408889634) - row_lse, flush_to_zero=True)
        dp = ct.mma(tdo, ct.permute(tv, (1, 0)), ct.zeros((TM, TN), dtype=ct.float32))
        ds = p * (dp - row_delta)
        acc = ct.mma(ds.astype(ct.float16), tk, acc)
    ct.store(dq, index=(h, bm, 0), tile=(acc * scale).reshape((1, TM, D)).astype(ct.float16))


# ---------------------------------------------------------------------------
# 44. a GEMM that also sums the squares of A's rows over K (an RMS statistic of
#     the input, as a fused norm-and-project kernel needs): A feeds the tensor
#     cores and a register tile of its own on every K step

@ct.kernel
def matmul_rowsq_bf16(a, b, c, sq, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    rows = ct.zeros((TM,), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(TM, TK))):
        ta = ct.load(a, index=(bm, k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, index=(k, bn), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta, tb, acc)
        x = ta.astype(ct.float32)
        rows = rows + ct.sum(x * x, axis=1)
    ct.store(c, index=(bm, bn), tile=acc.astype(c.dtype))
    ct.store(sq, index=(bn, bm), tile=rows.reshape((1, TM)))


# ---------------------------------------------------------------------------
# 45. block-scaled GEMM: each K step's product is scaled by its rows' scales and
#     one scale of its column block (gathered; the scale column is the K offset
#     over the scale group), then added to the accumulator

@ct.kernel
def matmul_blockscale_f16(a, b, c, sa, sb, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int],
                          GROUP_K: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    rows = bm * TM + ct.arange(TM, dtype=ct.int32)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(TM, TK))):
        ta = ct.load(a, index=(bm, k), shape=(TM, TK), latency=3)
        tb = ct.load(b, index=(k, bn), shape=(TK, TN), latency=3)
        g = (k * TK) // GROUP_K
        row_scale = ct.gather(sa, (rows, g), check_bounds=True, padding_value=0.0)
        col_scale = ct.gather(sb, (bn, g), check_bounds=True, padding_value=0.0)
        part = ct.mma(ta, tb, ct.zeros((TM, TN), dtype=ct.float32))
        acc = acc + part * (row_scale[:, None] * col_scale)
    ct.store(c, index=(bm, bn), tile=acc.astype(c.dtype))


# ---------------------------------------------------------------------------
# 46. a paged GEMM: each K step reads the row block of B a page table names (as a
#     paged KV cache does), so the producer reads the table before it copies

@ct.kernel
def matmul_paged_f16(a, b, table, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(TM, TK))):
        page = ct.gather(table, k)
        ta = ct.load(a, index=(bm, k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, index=(page, bn), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta, tb, acc)
    ct.store(c, index=(bm, bn), tile=acc.astype(c.dtype))


# ---------------------------------------------------------------------------
# 47. RMS norm backward's dx, persistent: each block walks row tiles bid, bid + grid,
#     ... (two 4x4096 f32 tiles, x-hat and w * dy, live at once in the loop)

@ct.kernel
def rms_norm_bwd_bf16(dy, x, w, rstd, dx, ROWS: ct.Constant[int], COLS: ct.Constant[int]):
    bid = ct.bid(0)
    wt = ct.load(w, index=(0,), shape=(COLS,)).astype(ct.float32).reshape((1, COLS))
    for i in range(bid, ct.cdiv(dy.shape[0], ROWS), ct.num_blocks(0)):
        g = ct.load(dy, index=(i, 0), shape=(ROWS, COLS), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
        xs = ct.load(x, index=(i, 0), shape=(ROWS, COLS), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
        r = ct.load(rstd, index=(i,), shape=(ROWS,), padding_mode=ct.PaddingMode.ZERO).reshape((ROWS, 1))
        xhat = xs * r
        wg = g * wt
        c = ct.sum(xhat * wg, axis=1, keepdims=True) * (1.0 / COLS)
        ct.store(dx, index=(i, 0), tile=((wg - xhat * c) * r).astype(dx.dtype))


def aligned(dtype, ndim):
    """An array parameter as cuTile specializes it for torch tensors whose
    strides (and last two extents) divide by 16 and whose base is 16-byte
    aligned: the `assume div_by<16>` facts that let sm_90a load it with TMA."""
    from cuda.tile.compilation import ArrayConstraint
    return ArrayConstraint(dtype=dtype, ndim=ndim, index_dtype=ct.int32, stride_lower_bound_incl=0,
                           alias_groups=(), may_alias_internally=False,
                           stride_constant=(None,) * (ndim - 1) + (1,),
                           shape_divisible_by=(1,) * (ndim - 2) + (16, 16),    # batch extents: any
                           stride_divisible_by=(16,) * (ndim - 1) + (1,), base_addr_divisible_by=16)


def kernels():
    """name -> (kernel, parameters[, bytecode version, default 13.1])."""
    f16, bf16, f32, i32 = ct.float16, ct.bfloat16, ct.float32, ct.int32
    return {
        "vector_add_f32": (vector_add_f32, [array(f32, 1)] * 3 + [256]),
        "saxpy_bf16": (saxpy_bf16, [array(bf16, 1)] * 3 + [scalar(f32), 128]),
        "row_softmax_f32": (row_softmax_f32, [array(f32, 2)] * 2 + [4, 128]),
        "row_stats_i32": (row_stats_i32, [array(i32, 2), array(i32, 1), array(i32, 1), 8, 64]),
        "cumsum_f32": (cumsum_f32, [array(f32, 1)] * 3 + [128]),
        "matmul_f16": (matmul_f16, [array(f16, 2)] * 3 + [64, 64, 32]),
        "matmul_bf16_relu": (matmul_bf16_relu, [array(bf16, 2), array(bf16, 2), array(f32, 2), 64, 128, 64]),
        "branchy_scale": (branchy_scale, [array(f32, 1)] * 2 + [scalar(i32), 128]),
        "grid_stride_i32": (grid_stride_i32, [array(i32, 1)] * 2 + [scalar(i32), 256]),
        "gather_reverse_f32": (gather_reverse_f32, [array(f32, 1)] * 2 + [scalar(i32), 128]),
        "histogram_i32": (histogram_i32, [array(i32, 1)] * 3 + [array(f32, 1)] * 2 + [array(i32, 1), 128, 64]),
        "matmul_i8_masked": (matmul_i8_masked, [array(ct.int8, 2)] * 2 + [array(i32, 2), scalar(i32), 64, 64, 32]),
        "argmax_rows_f64": (argmax_rows_f64, [array(ct.float64, 2), array(i32, 1), 4, 64]),
        "clamp_where_f16": (clamp_where_f16, [array(f16, 2)] * 2 + [scalar(f32), scalar(f32), 16, 32]),
        "flash_attention_f16": (flash_attention_f16, [array(f16, 3)] * 4 + [scalar(f32), 32, 32, 64]),
        "matmul_fp8": (matmul_fp8, [array(ct.float8_e4m3fn, 2)] * 2 + [array(f32, 2), 64, 64, 32]),
        "layernorm_rows_f32": (layernorm_f32, [array(f32, 2), array(f32, 1), array(f32, 2), 4, 128]),
        "transpose_tile_f32": (transpose_tile, [array(f32, 2)] * 2 + [32]),
        "bmm_f16": (bmm_f16, [array(f16, 3)] * 2 + [array(f32, 3), 2, 32, 32, 32]),
        "matmul_tf32": (matmul_tf32, [array(f32, 2)] * 3 + [64, 64, 32]),
        "bits_i32": (bits_i32, [array(i32, 1)] * 3 + [256]),
        "atomics_f32": (atomics_f32, [array(f32, 1), array(f32, 1), array(i32, 1), 128]),
        "cat_reshape_f32": (cat_reshape, [array(f32, 2)] * 2 + [16]),
        "grid2d_bf16": (grid2d_bf16, [array(bf16, 2)] * 2 + [32]),
        "scatter_perm_f32": (scatter_masked, [array(f32, 1), array(i32, 1), array(f32, 1), scalar(i32), 128]),
        "argmin_rows_f32": (argmin_f32, [array(f32, 2), array(i32, 1), 8, 64]),
        "masked_softmax_f16": (masked_softmax_f16, [array(f16, 2)] * 2 + [scalar(i32), 4, 128]),
        "math_f64": (math_f64, [array(ct.float64, 1)] * 2 + [128]),
        "int_div_u8": (int_div_u8, [array(ct.uint8, 1)] * 3 + [array(ct.int16, 1), 256]),
        "colsum_axis0_f32": (colsum_axis0, [array(f32, 2), array(f32, 1), 64, 32]),
        "permute3d_f32": (permute3d, [array(f32, 3)] * 2 + [4, 8, 16]),
        "matmul_gelu_f16": (matmul_big_f16, [array(f16, 2)] * 3 + [128, 128, 64]),
        "while_collatz_i32": (while_collatz, [array(i32, 1)] * 2 + [128]),
        "loop_break_f32": (loop_break, [array(f32, 1), array(f32, 1), scalar(i32), 128]),
        "i64_bitcast": (i64_bitcast, [array(f32, 1), array(ct.int64, 1), 128]),
        "argmax_axis0_f32": (argmax_axis0, [array(f32, 2), array(i32, 1), 64, 32]),
        "prod_scan_rev_f32": (prod_scan_rev, [array(f32, 1)] * 2 + [64]),
        "bcast_3way_f32": (bcast_3way, [array(f32, 2)] * 4 + [16, 32]),
        "attention_causal_f16": (attention_causal_f16, [array(f16, 3)] * 4 + [scalar(f32), 64, 32, 64]),
        "matmul_tf32_cast": (matmul_tf32_cast, [array(f32, 2)] * 4 + [32]),
        # flash attention at the tile shape tensor cores want on Hopper: 128 query rows
        # (both dots on wgmma, the second with P in registers), 64 keys, D = 64
        "attention_m128_f16": (flash_attention_f16, [array(f16, 3)] * 4 + [scalar(f32), 128, 64, 64]),
        "matmul_tt_f16": (matmul_tt_f16, [array(f16, 3)] * 3 + [64, 64, 64]),
        # the 16-aligned specializations: TMA loads from tensor maps built on the device
        "matmul_f16_aligned": (matmul_f16, [aligned(f16, 2)] * 3 + [128, 128, 64]),
        "bmm_tt_f16_aligned": (matmul_tt_f16, [aligned(f16, 3)] * 3 + [64, 64, 64]),
        "attention_m128_f16_aligned": (flash_attention_f16, [aligned(f16, 3)] * 4 + [scalar(f32), 128, 64, 64]),
        # a persistent kernel (a loop over output tiles around the K loop): the tensor maps are built
        # once per CTA and the mainloop is the same
        "persistent_bmm_f16_aligned": (persistent_bmm_f16, [aligned(f16, 3)] * 3 + [scalar(i32), 128, 128, 448, 64,
                                                                                  64, 64, 2, False]),
        "matmul_fp8_bt_aligned": (matmul_fp8_bt, [aligned(ct.float8_e4m3fn, 2)] * 2 + [aligned(f16, 2), 128, 128, 128]),
        # flash attention backward's dQ: TMA loads, three wgmma dots a key block in one consumer warpgroup
        "attention_bwd_dq_f16_aligned": (attention_bwd_dq_f16, [aligned(f16, 3)] * 4 + [array(f32, 2)] * 2
                                         + [aligned(f16, 3), scalar(f32), 64, 128, 64]),
        # A read by the tensor cores and squared in registers on each K step; two 128x128
        # register tiles (the accumulator and a scaled product) on each K step
        "matmul_rowsq_bf16_aligned": (matmul_rowsq_bf16, [aligned(bf16, 2)] * 3 + [array(f32, 2), 128, 128, 128]),
        "matmul_blockscale_f16_aligned": (matmul_blockscale_f16, [aligned(f16, 2)] * 3 + [array(f32, 2)] * 2
                                          + [128, 128, 64, 128]),
        "matmul_paged_f16_aligned": (matmul_paged_f16, [aligned(f16, 2)] * 2 + [array(i32, 1), aligned(f16, 2),
                                                                          128, 128, 64]),
        "rms_norm_bwd_bf16": (rms_norm_bwd_bf16, [array(bf16, 2)] * 2 + [array(bf16, 1), array(f32, 1),
                                                                       array(bf16, 2), 4, 4096]),
        "persistent_bmm_f16": (persistent_bmm_f16, [array(f16, 3)] * 3 + [scalar(i32), 80, 64, 48, 32, 32, 16, 2, True]),
    }


def wrap_module(name: str, text: str) -> str:
    """`entry ... { }` (tileirdisasm's output) -> `cuda_tile.module @name { entry ... }`."""
    body = "\n".join(("  " + line) if line.strip() else "" for line in text.rstrip("\n").split("\n"))
    return f"cuda_tile.module @{name} {{\n{body}\n}}\n"


def main(argv):
    out = argv[1] if len(argv) > 1 else os.path.join(HERE, "cutile")
    only = set(argv[2:])
    os.makedirs(out, exist_ok=True)
    failures = []
    with tempfile.TemporaryDirectory(prefix="cutile-export-") as scratch:
        for name, (kernel, params, *version) in kernels().items():
            if only and name not in only:
                continue
            try:
                text = export(kernel, params, name, scratch, version=(version or ["13.1"])[0])
            except Exception as e:  # report and go on: one bad kernel should not hide the rest
                failures.append(name)
                print(f"{name}: FAILED: {type(e).__name__}: {e}", file=sys.stderr)
                continue
            with open(os.path.join(out, name + ".mlir"), "w") as fh:
                fh.write(wrap_module(name, text))
            print(f"{name}: {text.count(chr(10))} lines -> {os.path.join(out, name + '.mlir')}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
