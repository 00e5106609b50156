"""Floating-point arithmetic and math functions (spec 8.7).

Round-to-nearest-even arithmetic is NumPy's own (f16 and bf16 are computed in
f32 and rounded once, which is exact for + - * / sqrt). The directed rounding
modes compute the exact result as an f64 pair and round it once (see
numerics.round_pair). Math functions of f16/bf16 are evaluated in f32, as the
spec says the hardware does. `flush_to_zero` (f32 only) flushes subnormal
inputs and results to sign-preserving zero.
"""
from __future__ import annotations

import numpy as np

from .numerics import F32, F64, flush_subnormals, round_pair, round_value, signed_value, step, two_prod, two_sum
from .ops_core import result_dtype
from .registry import compute

_NEAREST = ("nearest_even", "approx", "full", None)


def _mode(op, name="rounding_mode"):
    a = op.attributes.get(name)
    return getattr(a, "value", None)


def _ftz(op, fn, arity):
    if "flush_to_zero" not in op.attributes:
        return fn
    if arity == 1:
        return lambda a: flush_subnormals(fn(flush_subnormals(a)))
    if arity == 2:
        return lambda a, b: flush_subnormals(fn(flush_subnormals(a), flush_subnormals(b)))
    return lambda a, b, c: flush_subnormals(fn(flush_subnormals(a), flush_subnormals(b), flush_subnormals(c)))


def _elt(op):
    return op.results[0].type.element_type


def _f64(x):
    return np.asarray(x).astype(F64)


def _directed_add(elt, mode, sign):
    def fn(a, b):
        s, e = two_sum(_f64(a), sign * _f64(b))
        return round_pair(s, e, elt, mode)
    return fn


def _directed_mul(elt, mode):
    def fn(a, b):
        p, e = two_prod(_f64(a), _f64(b))
        return round_pair(p, e, elt, mode)
    return fn


def _directed_div(elt, mode):
    def fn(a, b):
        a64, b64 = _f64(a), _f64(b)
        q = a64 / b64
        r = round_value(q, elt, "nearest_even")
        r64 = np.asarray(r).astype(F64)
        ph, pl = two_prod(r64, b64)
        resid = (a64 - ph) - pl          # a - r*b, exact sign
        direction = np.sign(resid) * np.sign(b64)  # sign of (a/b - r)
        finite = np.isfinite(r64) & np.isfinite(q) & (b64 != 0)
        direction = np.where(finite, direction, 0)
        if mode == "positive_inf":
            return np.where(direction > 0, step(r, 1), r)
        if mode == "negative_inf":
            return np.where(direction < 0, step(r, -1), r)
        shrink = ((r64 > 0) & (direction < 0)) | ((r64 < 0) & (direction > 0))
        return np.where(shrink, step(r, -np.sign(r64)), r)
    return fn


def _binary(op, native, directed):
    mode = _mode(op)
    elt = _elt(op)
    dtype = result_dtype(op)
    if mode in _NEAREST:
        def fn(a, b):
            return native(a, b).astype(dtype, copy=False)
    else:
        d = directed(elt, mode)

        def fn(a, b):
            return np.asarray(d(a, b)).astype(dtype, copy=False)
    return _ftz(op, fn, 2)


@compute("cuda_tile.addf")
def _addf(op, cc):
    return _binary(op, np.add, lambda e, m: _directed_add(e, m, 1.0))


@compute("cuda_tile.subf")
def _subf(op, cc):
    return _binary(op, np.subtract, lambda e, m: _directed_add(e, m, -1.0))


@compute("cuda_tile.mulf")
def _mulf(op, cc):
    return _binary(op, np.multiply, _directed_mul)


@compute("cuda_tile.divf")
def _divf(op, cc):
    return _binary(op, np.divide, _directed_div)


@compute("cuda_tile.fma")
def _fma(op, cc):
    mode = _mode(op) or "nearest_even"
    elt = _elt(op)
    dtype = result_dtype(op)

    def fn(a, b, c):
        a, b, c = _f64(a), _f64(b), _f64(c)
        p, pe = two_prod(a, b)
        s, se = two_sum(p, c)
        lo = se + pe
        hi, lo2 = two_sum(s, lo)
        out = np.asarray(round_pair(hi, lo2, elt, "nearest_even" if mode in _NEAREST else mode)).astype(dtype)
        # an infinite or NaN operand: the error terms are NaN (inf - inf), but
        # IEEE fma's special cases are those of a*b+c, which f64 gets exactly
        special = ~(np.isfinite(a) & np.isfinite(b) & np.isfinite(c))
        if np.any(special):
            out = np.where(special, (a * b + c).astype(dtype), out)
        return out
    return _ftz(op, fn, 3)


@compute("cuda_tile.remf")
def _remf(op, cc):
    dtype = result_dtype(op)
    return lambda a, b: np.fmod(np.asarray(a).astype(F64), np.asarray(b).astype(F64)).astype(dtype)


@compute("cuda_tile.negf")
def _negf(op, cc):
    return np.negative


@compute("cuda_tile.absf")
def _absf(op, cc):
    return np.abs


@compute("cuda_tile.maxf", "cuda_tile.minf")
def _minmax(op, cc):
    is_max = op.name == "cuda_tile.maxf"
    if "propagate_nan" in op.attributes:
        f = np.maximum if is_max else np.minimum
    else:
        f = np.fmax if is_max else np.fmin
    return _ftz(op, f, 2)


_PREDICATES = {"equal": np.equal, "not_equal": np.not_equal, "less_than": np.less,
               "less_than_or_equal": np.less_equal, "greater_than": np.greater,
               "greater_than_or_equal": np.greater_equal}


@compute("cuda_tile.cmpf")
def _cmpf(op, cc):
    pred = _PREDICATES[op.attributes["comparison_predicate"].value]
    ordered = op.attributes["comparison_ordering"].value == "ordered"

    def fn(a, b):
        nan = np.isnan(a) | np.isnan(b)
        r = pred(a, b)
        return (r & ~nan) if ordered else (r | nan)
    return fn


# ---- math functions -------------------------------------------------------------

def _in_f32(op, f):
    """Evaluate `f` in f32 for half types, natively for f32/f64; round back once."""
    dtype = result_dtype(op)
    if dtype in (F32, F64):
        return f
    return lambda *xs: f(*[np.asarray(x).astype(F32) for x in xs]).astype(dtype)


def _unary(f):
    def build(op, cc):
        return _ftz(op, _in_f32(op, f), 1)
    return build


def _rsqrt(x):
    return np.float32(1) / np.sqrt(x) if np.asarray(x).dtype == F32 else 1 / np.sqrt(x)


for _name, _f in (("ceil", np.ceil), ("floor", np.floor), ("exp", np.exp), ("exp2", np.exp2),
                  ("log", np.log), ("log2", np.log2), ("rsqrt", _rsqrt), ("sin", np.sin),
                  ("sinh", np.sinh), ("cos", np.cos), ("cosh", np.cosh), ("tan", np.tan),
                  ("tanh", np.tanh)):
    compute("cuda_tile." + _name)(_unary(_f))


@compute("cuda_tile.sqrt")
def _sqrt(op, cc):
    mode = _mode(op)
    elt = _elt(op)
    dtype = result_dtype(op)
    if mode in _NEAREST:
        return _ftz(op, np.sqrt, 1)

    def fn(x):
        x64 = _f64(x)
        r = round_value(np.sqrt(x64), elt, "nearest_even")
        r64 = np.asarray(r).astype(F64)
        sh, sl = two_prod(r64, r64)
        direction = np.sign((x64 - sh) - sl)    # sign of (sqrt(x) - r)
        direction = np.where(np.isfinite(r64) & (x64 > 0), direction, 0)
        if mode == "positive_inf":
            out = np.where(direction > 0, step(r, 1), r)
        elif mode == "negative_inf":
            out = np.where(direction < 0, step(r, -1), r)
        else:
            out = np.where(direction < 0, step(r, -1), r)
        return np.asarray(out).astype(dtype)
    return _ftz(op, fn, 1)


@compute("cuda_tile.pow", "cuda_tile.powf", "cuda_tile.fpowf")
def _pow(op, cc):
    return _in_f32(op, np.power)


@compute("cuda_tile.fpowi")
def _fpowi(op, cc):
    """x ** n by binary powering, rounding every product, then one correctly
    rounded 1 / r for n < 0: the sequence NVIDIA's compiler emits (compiler-rt's
    __powisf2), in f32 for half types and f32, in f64 for f64."""
    dtype = result_dtype(op)
    work = F64 if dtype == F64 else F32

    def fn(x, n):
        x = np.asarray(x).astype(work)
        n = signed_value(n).astype(np.int64)
        b = np.abs(n)
        one = np.ones_like(x)
        r = np.where(b & 1, x, one)
        b = b >> 1
        while np.any(b):
            x = x * x
            r = np.where(b & 1, x * r, r)
            b = b >> 1
        r = np.where(n < 0, one / r, r)
        return r.astype(dtype)
    return fn


@compute("cuda_tile.atan2")
def _atan2(op, cc):
    return _in_f32(op, np.arctan2)
