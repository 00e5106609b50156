"""Conversions (spec 8.4): bitcast, exti, trunci, ftof, ftoi, itof and the
pointer casts.

ftoi rounds toward zero, saturates out-of-range values to the target range,
turns NaN into 0 and reports an infinite input (undefined behaviour). itof and
ftof round to nearest even once (no double rounding through f32); values out of
the target's range become Inf, or NaN for formats without Inf (f8E4M3FN).
"""
from __future__ import annotations

import numpy as np

from .errors import ub
from .numerics import BOOL, F64, I64, as_float, from_unsigned, int_range, signed_value, to_float, unsigned
from .ops_core import result_dtype
from .registry import compute


def _elts(op):
    return op.operands[0].type.element_type, op.results[0].type.element_type


@compute("cuda_tile.bitcast")
def _bitcast(op, cc):
    dtype = result_dtype(op)
    return lambda x: np.asarray(x).view(dtype)


@compute("cuda_tile.exti")
def _exti(op, cc):
    dtype = result_dtype(op)
    is_signed = op.attributes["signedness"].value == "signed"
    if is_signed:
        return lambda x: signed_value(x).astype(dtype)
    return lambda x: from_unsigned(unsigned(x).astype(np.uint64), dtype)


@compute("cuda_tile.trunci")
def _trunci(op, cc):
    dtype = result_dtype(op)
    flag = getattr(op.attributes.get("overflow"), "value", "none")
    width = op.results[0].type.element_type.width

    def convert(x):
        if dtype == BOOL:
            return (unsigned(x) & 1) != 0
        return from_unsigned(unsigned(x).astype(np.uint64), dtype)
    if flag == "none":
        return convert

    def fn(x):
        r = convert(x)
        if flag in ("no_signed_wrap", "no_wrap"):
            bad = signed_value(r).astype(I64) != signed_value(x).astype(I64)
            if np.any(bad):
                ub(op, f"value does not fit {width} signed bits, contradicting overflow<{flag}>",
                   bad if np.ndim(bad) else None)
        if flag in ("no_unsigned_wrap", "no_wrap"):
            bad = unsigned(r).astype(np.uint64) != unsigned(x).astype(np.uint64)
            if np.any(bad):
                ub(op, f"value does not fit {width} unsigned bits, contradicting overflow<{flag}>",
                   bad if np.ndim(bad) else None)
        return r
    return fn


@compute("cuda_tile.ftof")
def _ftof(op, cc):
    src, dst = _elts(op)
    return lambda x: to_float(as_float(x, src), dst)


@compute("cuda_tile.itof")
def _itof(op, cc):
    is_signed = op.attributes["signedness"].value == "signed"
    _, dst = _elts(op)

    def fn(x):
        v = signed_value(x) if is_signed else unsigned(x)
        return to_float(v, dst)
    return fn


@compute("cuda_tile.ftoi")
def _ftoi(op, cc):
    is_signed = op.attributes["signedness"].value == "signed"
    dtype = result_dtype(op)
    width = op.results[0].type.element_type.width
    lo, hi = int_range(width, is_signed)

    def fn(x):
        x64 = np.asarray(x).astype(F64)
        inf = np.isinf(x64)
        if np.any(inf):
            ub(op, "conversion of an infinite value to an integer", inf if np.ndim(inf) else None)
        t = np.trunc(np.where(np.isnan(x64), 0.0, x64))
        if width == 64:
            big = t >= float(hi) + 1   # 2**63 or 2**64: not representable as the target
            small = t < float(lo)
            mid = np.where(big | small, 0.0, t)
            if is_signed:
                r = mid.astype(np.int64)
                r = np.where(big, np.int64(hi), np.where(small, np.int64(lo), r))
                return r.astype(dtype)
            r = mid.astype(np.uint64)
            r = np.where(big, np.uint64(hi), np.where(small, np.uint64(0), r))
            return r.view(dtype) if isinstance(r, np.ndarray) else np.asarray(r).view(dtype)
        c = np.clip(t, lo, hi).astype(np.int64)
        if dtype == BOOL:
            return (c & 1) != 0
        return from_unsigned(c.astype(np.uint64), dtype) if not is_signed else c.astype(dtype)
    return fn


@compute("cuda_tile.int_to_ptr", "cuda_tile.ptr_to_int", "cuda_tile.ptr_to_ptr")
def _ptr_cast(op, cc):
    return lambda x: np.asarray(x, I64)
