"""Exact IEEE arithmetic and conversions on Python ints/floats (the helpers generated code calls)."""
from __future__ import annotations

import math
import struct
import sys
from fractions import Fraction

import ml_dtypes
import numpy as np


# ============================================================================ numerics

_SCRATCH = bytearray(8)
_MF = memoryview(_SCRATCH).cast("f")      # _MF[0] = x rounds a double to f32 (nearest even; inf on overflow)
_MI = memoryview(_SCRATCH).cast("I")
_MD = memoryview(_SCRATCH).cast("d")
_MQ = memoryview(_SCRATCH).cast("Q")
_E = struct.Struct("<e")
_H = struct.Struct("<H")
INF = math.inf
NAN = math.nan


def _f32(x):
    _MF[0] = x
    return _MF[0]


def _f2u(x):
    _MF[0] = x
    return _MI[0]


def _u2f(u):
    _MI[0] = u
    return _MF[0]


def _d2u(x):
    _MD[0] = x
    return _MQ[0]


def _u2d(u):
    _MQ[0] = u
    return _MD[0]


with np.errstate(invalid="ignore"):
    _F16F = np.arange(65536, dtype=np.uint16).view(np.float16).astype(np.float64).tolist()
    _BF16F = (np.arange(65536, dtype=np.uint32) << 16).view(np.float32).astype(np.float64).tolist()
    _E4M3F = np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float64).tolist()
    _E5M2F = np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e5m2).astype(np.float64).tolist()
    _E4M3_H = np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float16).view(np.uint16).tolist()
    _E5M2_H = np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e5m2).astype(np.float16).view(np.uint16).tolist()
_E4M3_H = [0x7FFF if (b & 0x7F) == 0x7F else h for b, h in enumerate(_E4M3_H)]   # NaN -> canonical f16 NaN


def _f16_rn(x):
    """f16 bits of double x rounded to nearest even (one rounding)."""
    if x != x:
        return 0x7FFF
    try:
        return _H.unpack(_E.pack(x))[0]
    except OverflowError:
        return 0xFC00 if x < 0 else 0x7C00


def _bf16_rn_f32(x):
    """bf16 bits of f32 value x rounded to nearest even."""
    if x != x:
        return 0x7FFF
    b = _f2u(x)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF


class _Fmt:
    def __init__(self, name, p, emin, emax, maxval, has_inf):
        self.name, self.p, self.emin, self.emax, self.max, self.has_inf = name, p, emin, emax, maxval, has_inf


F64FMT = _Fmt("f64", 53, -1022, 1023, sys.float_info.max, True)
F32FMT = _Fmt("f32", 24, -126, 127, float(np.finfo(np.float32).max), True)
F16FMT = _Fmt("f16", 11, -14, 15, 65504.0, True)
BF16FMT = _Fmt("bf16", 8, -126, 127, float(ml_dtypes.finfo(ml_dtypes.bfloat16).max), True)
E4M3FMT = _Fmt("e4m3", 4, -6, 8, 448.0, False)
E5M2FMT = _Fmt("e5m2", 3, -14, 15, 57344.0, True)
TF32FMT = _Fmt("tf32", 11, -126, 127, float(np.finfo(np.float32).max), True)


def round_exact(x, fmt, mode="rn", satfinite=False, relu=False):
    """x (int, float or Fraction, exact) rounded to format `fmt` with `mode`
    (rn rna rz rm rp); a Python float (nan for NaN)."""
    if isinstance(x, float):
        if x != x:
            return NAN
        if relu and x < 0:
            return 0.0
        if x in (INF, -INF):
            if satfinite:
                return math.copysign(fmt.max, x)
            return x if fmt.has_inf else NAN
        if x == 0:
            return x
    elif relu and x < 0:
        return 0.0
    fr = Fraction(x)
    if fr == 0:
        return 0.0
    neg = fr < 0
    a = -fr if neg else fr
    n, d = a.numerator, a.denominator
    e = n.bit_length() - d.bit_length()
    if (n << max(0, -e)) < (d << max(0, e)):
        e -= 1
    q = max(e, fmt.emin) - (fmt.p - 1)
    if q >= 0:
        ip, rem = divmod(n, d << q)
        den = d << q
    else:
        ip, rem = divmod(n << -q, d)
        den = d
    up = False
    if rem:
        if mode == "rn":
            up = 2 * rem > den or (2 * rem == den and ip & 1)
        elif mode == "rna":
            up = 2 * rem >= den
        elif mode == "rz":
            up = False
        elif mode == "rm":
            up = neg
        elif mode == "rp":
            up = not neg
        else:
            raise ValueError(mode)
    m = ip + up
    res = Fraction(m) * (Fraction(2) ** q)
    if res > fmt.max:
        toward_inf = mode in ("rn", "rna") or (mode == "rm" and neg) or (mode == "rp" and not neg)
        if satfinite or not toward_inf:
            res = Fraction(fmt.max)
        else:
            return (-INF if neg else INF) if fmt.has_inf else NAN
    v = float(res)
    return -v if neg else v


def _f8_bits(v, table_dtype):
    """Bits of an fp8 value v (exactly representable) or NaN."""
    return int(np.array([v], np.float64).astype(table_dtype).view(np.uint8)[0])


def _to_f8(x, fmt, satfinite, relu):
    v = round_exact(float(x), fmt, "rn", satfinite, relu)
    dt = ml_dtypes.float8_e4m3fn if fmt is E4M3FMT else ml_dtypes.float8_e5m2
    if v != v:
        return 0x7F if fmt is E4M3FMT else 0x7F    # canonical NaN
    return _f8_bits(v, dt)


def _fma32_fix(p, c, s, r):
    """Correct f32(s) = r where s = fl64(p + c) may have double-rounded."""
    bp = s - p
    e = (p - (s - bp)) + (c - bp)
    if not e:
        return r
    h = s - r
    n = r + 2 * h
    if _f32(n) != n:
        return r                 # s is no f32 midpoint: no double rounding
    return n if (e > 0) == (h > 0) else r


def _fma64(a, b, c):
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        return a * b + c
    ex = Fraction(a) * Fraction(b) + Fraction(c)
    if ex == 0:
        p = a * b
        return p + c             # sign of an exact zero as IEEE says
    return round_exact(ex, F64FMT, "rn")


def _fdiv(a, b):
    if b == 0:
        if a != a or a == 0:
            return NAN
        return math.copysign(INF, a) * math.copysign(1.0, b)
    return a / b


def _fmin(a, b):
    if a != a:
        return b
    if b != b:
        return a
    if a == b == 0:
        return a if math.copysign(1, a) < 0 else b
    return a if a < b else b


def _fmax(a, b):
    if a != a:
        return b
    if b != b:
        return a
    if a == b == 0:
        return a if math.copysign(1, a) > 0 else b
    return a if a > b else b


def _fmin_nan(a, b):
    if a != a or b != b:
        return NAN
    return _fmin(a, b)


def _fmax_nan(a, b):
    if a != a or b != b:
        return NAN
    return _fmax(a, b)


def _sqrt(x):
    if x != x or x < 0:
        return NAN if x != 0 else x
    return math.sqrt(x)


def _rsqrt(x):
    if x != x or x < 0:
        return NAN
    if x == 0:
        return math.copysign(INF, x)
    if x == INF:
        return 0.0
    return 1.0 / math.sqrt(x)


def _rcp(x):
    return _fdiv(1.0, x)


def _ex2(x):
    if x != x:
        return NAN
    if x > 1100:
        return INF
    if x < -1100:
        return 0.0
    return 2.0 ** x


def _lg2(x):
    if x != x or x < 0:
        return NAN
    if x == 0:
        return -INF
    if x == INF:
        return INF
    return math.log2(x)


def _sin(x):
    return NAN if not math.isfinite(x) else math.sin(x)


def _cos(x):
    return NAN if not math.isfinite(x) else math.cos(x)


def _tanh(x):
    return x if x != x else math.tanh(x)


def _ftz32(x):
    return math.copysign(0.0, x) if x != 0 and abs(x) < 1.1754943508222875e-38 else x


def _sat01(x):
    if x != x:
        return 0.0
    return 0.0 if x <= 0 else (1.0 if x > 1 else x)


def _f2i(x, mode, lo, hi):
    """Float x to an integer in [lo, hi] (NaN -> 0, saturating)."""
    if x != x:
        return 0
    if x >= hi:
        return hi
    if x <= lo:
        return lo
    if mode == "rzi":
        v = math.trunc(x)
    elif mode == "rni":
        v = round(x)          # half to even
    elif mode == "rmi":
        v = math.floor(x)
    elif mode == "rpi":
        v = math.ceil(x)
    else:
        raise ValueError(mode)
    return min(max(v, lo), hi)


def _fround_int(x, mode):
    """Round float x to an integral float (cvt.rni.f32.f32 and the like)."""
    if not math.isfinite(x):
        return x
    if mode == "rzi":
        v = float(math.trunc(x))
    elif mode == "rni":
        v = float(round(x))
    elif mode == "rmi":
        v = float(math.floor(x))
    else:
        v = float(math.ceil(x))
    return math.copysign(v, x) if v == 0 else v


def _sdiv(a, b, w):
    if b == 0:
        return (1 << w) - 1
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    return q & ((1 << w) - 1)


def _srem(a, b, w):
    if b == 0:
        return a & ((1 << w) - 1)
    r = abs(a) % abs(b)
    if a < 0:
        r = -r
    return r & ((1 << w) - 1)


def _udiv(a, b, w):
    return a // b if b else (1 << w) - 1


def _urem(a, b, w):
    return a % b if b else a


def _clamp(v, lo, hi):
    return lo if v < lo else (hi if v > hi else v)



def _dirround(a, b, op, fmt, mode):
    if not (math.isfinite(a) and math.isfinite(b)):
        return {"+": a + b, "-": a - b, "*": a * b, "/": _fdiv(a, b)}[op]
    fa, fb = Fraction(a), Fraction(b)
    if op == "/":
        if b == 0:
            return _fdiv(a, b)
        ex = fa / fb
    else:
        ex = {"+": fa + fb, "-": fa - fb, "*": fa * fb}[op]
    if ex == 0:
        return {"+": a + b, "-": a - b, "*": a * b, "/": a / b}[op] if mode != "rm" else \
            (-0.0 if op in "+-" and (a + b == 0 if op == "+" else a - b == 0) else
             {"*": a * b, "/": a / b, "+": a + b, "-": a - b}[op])
    return round_exact(ex, fmt, mode)


def _fma_dir(a, b, c, fmt, mode):
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        return a * b + c
    ex = Fraction(a) * Fraction(b) + Fraction(c)
    if ex == 0:
        return a * b + c
    return round_exact(ex, fmt, mode)
