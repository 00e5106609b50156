"""Matrix multiply-accumulate: mmaf, mmai and mmaf_scaled (2-D, or batched 3-D).

mmaf multiplies in the accumulator's precision: f16/bf16/fp8/tf32 products are
exact in f32, so `acc + lhs @ rhs` is one f32 (BLAS) matmul; an f16 accumulator
is computed in f32 and rounded to f16 once per mmaf. f64 runs in f64.
mmai is exact: i8 products summed in f64 (exact below 2**53), added to the i32
accumulator with wrap-around.
mmaf_scaled is acc + sum_k (lhs[m, k] lhs_scale[m, k / B]) (rhs[k, n] rhs_scale[k / B, n])
with B = K / (the scales' K extent): every scaled operand value and product is exact
in f64 (fp8/fp4 values times e8m0/e4m3 scales), the sum runs in f64 and is rounded
to f32 once per mmaf_scaled (a NaN scale, e8m0's 0xFF, makes its block NaN).
"""
from __future__ import annotations

import numpy as np

from .numerics import F32, F64, dtype_of, unsigned
from .registry import compute


@compute("cuda_tile.mmaf")
def _mmaf(op, cc):
    acc_dtype = dtype_of(op.results[0].type.element_type)
    work = F64 if acc_dtype == F64 else F32

    def fn(a, b, c):
        a = np.asarray(a).astype(work, copy=False)
        b = np.asarray(b).astype(work, copy=False)
        r = np.matmul(a, b)
        r += np.asarray(c).astype(work, copy=False)
        return r.astype(acc_dtype, copy=False)
    return fn


@compute("cuda_tile.mmai")
def _mmai(op, cc):
    signed_lhs = op.attributes["signedness_lhs"].value == "signed"
    signed_rhs = op.attributes["signedness_rhs"].value == "signed"

    def fn(a, b, c):
        x = (np.asarray(a) if signed_lhs else unsigned(a)).astype(F64)
        y = (np.asarray(b) if signed_rhs else unsigned(b)).astype(F64)
        p = np.matmul(x, y).astype(np.int64)
        return (np.asarray(c).astype(np.int64) + p).astype(np.int32)
    return fn


def scaled_mma(a, b, c, sa, sb):
    """acc + (a sa) (b sb), each scale repeated over its block of K (None: 1)."""
    a = np.asarray(a).astype(F64)
    b = np.asarray(b).astype(F64)
    with np.errstate(all="ignore"):
        if sa is not None:
            sa = np.asarray(sa).astype(F64)
            a = a * np.repeat(sa, a.shape[-1] // sa.shape[-1], axis=-1)
        if sb is not None:
            sb = np.asarray(sb).astype(F64)
            b = b * np.repeat(sb, b.shape[-2] // sb.shape[-2], axis=-2)
        r = np.matmul(a, b) + np.asarray(c).astype(F64)
    return r.astype(F32)


@compute("cuda_tile.mmaf_scaled")
def _mmaf_scaled(op, cc):
    return scaled_mma
