"""Matrix multiply-accumulate: mmaf and mmai (2-D, or batched 3-D).

mmaf multiplies in the accumulator's precision: f16/bf16/fp8/tf32 products are
exact in f32, so `acc + lhs @ rhs` is one f32 (BLAS) matmul; an f16 accumulator
is computed in f32 and rounded to f16 once per mmaf. f64 runs in f64.
mmai is exact: i8 products summed in f64 (exact below 2**53), added to the i32
accumulator with wrap-around.
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
