"""Element types as NumPy dtypes, and the bit-exact numeric helpers the op
handlers share: signed/unsigned views of integers, i1 handling, float
conversions without double rounding, directed (non-nearest) rounding and
flush-to-zero.

Tiles are NumPy arrays (0-d tiles may also be NumPy scalars). Integers are kept
in signed NumPy types (`signless` as in the IR) and reinterpreted as unsigned
where an op says so; i1 is `bool`. tf32 is kept as f32 whose low 13 mantissa
bits are zero.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from ..ir.types import FloatType, IntegerType

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
BF16 = np.dtype(ml_dtypes.bfloat16)
BOOL = np.dtype(np.bool_)
I64 = np.dtype(np.int64)

_FLOATS = {
    "f16": F16, "bf16": BF16, "f32": F32, "tf32": F32, "f64": F64,
    "f8E4M3FN": np.dtype(ml_dtypes.float8_e4m3fn), "f8E5M2": np.dtype(ml_dtypes.float8_e5m2),
    "f8E8M0FNU": np.dtype(ml_dtypes.float8_e8m0fnu), "f4E2M1FN": np.dtype(ml_dtypes.float4_e2m1fn),
    # no NumPy type exists: tiles hold the bit patterns (so memory, bitcast and
    # data movement need nothing special); to_float / as_float convert
    "fnv8E5M3FNU": np.dtype(np.uint8),
}
_INTS = {1: BOOL, 4: np.dtype(np.int8), 8: np.dtype(np.int8), 16: np.dtype(np.int16),
         32: np.dtype(np.int32), 64: I64}
_UNSIGNED = {np.dtype(np.int8): np.dtype(np.uint8), np.dtype(np.int16): np.dtype(np.uint16),
             np.dtype(np.int32): np.dtype(np.uint32), I64: np.dtype(np.uint64), BOOL: np.dtype(np.uint8)}
_UINT_OF_SIZE = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}


def dtype_of(elt) -> np.dtype:
    """The NumPy dtype holding elements of IR element type `elt` (pointers: i64 addresses)."""
    if isinstance(elt, IntegerType):
        return _INTS[elt.width]
    if isinstance(elt, FloatType):
        return _FLOATS[elt.name]
    if type(elt).__name__ == "PointerType":
        return I64
    raise TypeError(f"no runtime representation for element type {elt}")


def storage_size(elt) -> int:
    """Bytes one element of `elt` occupies in memory."""
    return dtype_of(elt).itemsize


def is_tf32(elt) -> bool:
    return isinstance(elt, FloatType) and elt.name == "tf32"


def int_width(elt) -> int:
    return elt.width


# ---- integers -------------------------------------------------------------------

def unsigned(x):
    """The same bits read as an unsigned integer (i1: 0/1 as uint8)."""
    x = np.asarray(x)
    if x.dtype == BOOL:
        return x.astype(np.uint8)
    return x.view(_UNSIGNED[x.dtype])


def signed_value(x):
    """Signed reading; for i1 that is 0 / -1 (as int8)."""
    x = np.asarray(x)
    if x.dtype == BOOL:
        return -x.astype(np.int8)
    return x


def from_unsigned(u, dtype):
    """Store unsigned bits `u` into the signless storage dtype."""
    if dtype == BOOL:
        return (np.asarray(u) & 1).astype(np.bool_)
    return np.asarray(u).astype(_UNSIGNED[dtype]).view(dtype)


def wrap_int(values, dtype):
    """Wrap Python integers (a scalar or a flat sequence) into `dtype`, two's complement."""
    if dtype == BOOL:
        conv = lambda v: bool(int(v) & 1)  # noqa: E731
    else:
        bits = dtype.itemsize * 8
        mask, half = (1 << bits) - 1, 1 << (bits - 1)
        conv = lambda v: ((int(v) & mask) ^ half) - half  # noqa: E731
    if isinstance(values, (list, tuple)):
        return np.array([conv(v) for v in values], dtype=dtype)
    return np.array(conv(values), dtype=dtype)


def int_range(width: int, is_signed: bool):
    if width == 1:
        return (-1, 0) if is_signed else (0, 1)
    if is_signed:
        return -(1 << (width - 1)), (1 << (width - 1)) - 1
    return 0, (1 << width) - 1


# ---- float bit stepping -------------------------------------------------------

def _uint_view(x):
    x = np.asarray(x)
    return x.view(_UINT_OF_SIZE[x.dtype.itemsize])


def step(x, direction):
    """The neighbour of `x` one unit in the last place toward +inf (direction > 0)
    or -inf (direction < 0), elementwise; direction 0 and NaN leave x alone."""
    x = np.asarray(x)
    bits = _uint_view(x)
    width = x.dtype.itemsize * 8
    sign_bit = np.array(1 << (width - 1), dtype=bits.dtype)
    one = np.array(1, dtype=bits.dtype)
    neg = (bits & sign_bit) != 0
    mag = bits & ~sign_bit
    direction = np.asarray(direction)
    up = direction > 0
    down = direction < 0
    zero = mag == 0
    away = (up & ~neg) | (down & neg)      # magnitude grows
    toward = (up & neg) | (down & ~neg)    # magnitude shrinks
    new = np.where(away & ~zero, bits + one, bits)
    new = np.where(toward & ~zero, bits - one, new)
    new = np.where(zero & up, one, new)                 # +-0 -> smallest positive
    new = np.where(zero & down, sign_bit | one, new)    # +-0 -> smallest negative
    inf_bits = np.asarray(np.array(np.inf, dtype=x.dtype)).view(bits.dtype) if _has_inf(x.dtype) else None
    if inf_bits is not None:
        is_inf = mag == inf_bits
        new = np.where(is_inf & away, bits, new)        # inf stays inf going outward
    new = np.where(np.isnan(x.astype(np.float32) if x.dtype.itemsize < 4 else x), bits, new)
    new = np.where(direction == 0, bits, new)
    return new.astype(bits.dtype).view(x.dtype)


def _has_inf(dtype) -> bool:
    return dtype in (F16, BF16, F32, F64, np.dtype(ml_dtypes.float8_e5m2))


# ---- conversions ------------------------------------------------------------------

def round_to_odd_f32(x64):
    """f64 -> f32 rounding to odd: a later rounding to any format of at most
    22 significand bits is then correctly rounded (no double rounding)."""
    x64 = np.asarray(x64, dtype=F64)
    r = x64.astype(F32)
    back = r.astype(F64)
    inexact = (back != x64) & ~np.isnan(x64)
    even = (_uint_view(r) & np.uint32(1)) == 0
    fix = inexact & even
    if np.any(fix):
        r = np.where(fix, step(r, np.sign(x64 - back)), r).astype(F32)
    return r


def round_tf32(x32):
    """Round f32 values to tf32 (10 mantissa bits), nearest-even, kept as f32."""
    x32 = np.asarray(x32, dtype=F32)
    bits = x32.view(np.uint32).astype(np.uint64)
    lsb = (bits >> 13) & 1
    rounded = ((bits + 0xFFF + lsb) & ~np.uint64(0x1FFF)).astype(np.uint32)
    special = ~np.isfinite(x32)
    out = np.where(special, x32.view(np.uint32), rounded).astype(np.uint32).view(F32)
    return out


def to_float(x, dst_elt):
    """Convert a float or integer array to float element type `dst_elt`, rounding
    once to nearest-even (ml_dtypes narrows from f64 via f32, so values wider
    than f32 are first rounded to odd)."""
    dst = dtype_of(dst_elt)
    x = np.asarray(x)
    if is_fnv8(dst_elt):
        return fnv8_encode(x)
    if is_tf32(dst_elt):
        narrow_float = x.dtype.kind not in "iub" and x.dtype.itemsize <= 4
        return round_tf32(x.astype(F32) if narrow_float else round_to_odd_f32(x.astype(F64)))
    if dst in (F64, F32, F16):
        return x.astype(dst)
    if x.dtype == F64 or (x.dtype.kind in "iu" and x.dtype.itemsize >= 4):
        x = round_to_odd_f32(x.astype(F64))
    return x.astype(dst)


# ---- fnv8E5M3FNU: unsigned E5M3, bias 15, subnormals, no inf, 0xFF is nan --------

def is_fnv8(elt) -> bool:
    return isinstance(elt, FloatType) and elt.name == "fnv8E5M3FNU"


def _fnv8_table():
    from ..ir.types import FloatType as FT
    from ..syntax.dense import float_from_bits
    return np.array([float_from_bits(b, FT("fnv8E5M3FNU")) for b in range(256)], dtype=F32)


_FNV8_VALUES = None


def fnv8_decode(bits):
    """fnv8E5M3FNU bit patterns -> f32 (every value is exact in f32)."""
    global _FNV8_VALUES
    if _FNV8_VALUES is None:
        _FNV8_VALUES = _fnv8_table()
    return _FNV8_VALUES[np.asarray(bits, dtype=np.uint8)]


def fnv8_encode(x):
    """Round to nearest even into fnv8E5M3FNU bits, as APFloat converts: a
    negative non-zero value, nan, inf, or a value rounding above the largest
    finite one (114688) becomes nan (0xFF); -0 becomes +0."""
    v = np.asarray(x).astype(F64)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        _, ex = np.frexp(v)
        e = np.maximum(ex - 1, -14)            # exponent of the ulp's binade (subnormals: -14)
        q = np.rint(np.ldexp(v, 3 - e))        # significand in units of the ulp: [0, 16]
        carry = q >= 16
        e = np.where(carry, e + 1, e)
        q = np.where(carry, q / 2, q)
        normal = q >= 8
        field = np.where(normal, e + 15, 0)
        mant = np.where(normal, q - 8, q)
        bits = field * 8 + mant
        bad = np.isnan(v) | (v < 0) | ~np.isfinite(v) | (field > 31) | (bits >= 255)
        bits = np.where(v == 0, 0, np.where(bad, 255, bits))
    return np.asarray(bits).astype(np.uint8)


def as_float(x, elt):
    """A tile of float type `elt` as values NumPy computes with (fnv8: decoded)."""
    return fnv8_decode(x) if is_fnv8(elt) else x


def float_constant(values, elt):
    arr = np.asarray(values, dtype=F64)
    return to_float(arr, elt)


# ---- exact arithmetic for directed rounding ---------------------------------

def two_sum(a, b):
    s = a + b
    bb = s - a
    err = (a - (s - bb)) + (b - bb)
    return s, err


_SPLIT = 134217729.0  # 2**27 + 1


def _split(a):
    c = _SPLIT * a
    hi = c - (c - a)
    return hi, a - hi


def two_prod(a, b):
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, np.where(np.isfinite(p), err, 0.0)


def round_pair(hi, lo, dst_elt, mode):
    """Round the exact value hi + lo (f64 pair, hi = fl(hi + lo)) to `dst_elt`
    with rounding `mode` (nearest_even, zero, positive_inf, negative_inf)."""
    hi = np.asarray(hi, dtype=F64)
    lo = np.asarray(lo, dtype=F64)
    dst = dtype_of(dst_elt)
    if dst == F64:
        if mode == "positive_inf":
            return np.where(lo > 0, step(hi, 1), hi)
        if mode == "negative_inf":
            return np.where(lo < 0, step(hi, -1), hi)
        if mode == "zero":
            shrink = ((hi > 0) & (lo < 0)) | ((hi < 0) & (lo > 0))
            return np.where(shrink, step(hi, -np.sign(hi)), hi)
        return hi
    # mark inexactness in the last f64 bit (round to odd), then round once
    inexact = (lo != 0) & np.isfinite(hi)
    even = (_uint_view(hi) & np.uint64(1)) == 0
    v = np.where(inexact & even, step(hi, np.sign(lo)), hi)
    return round_value(v, dst_elt, mode)


def round_value(v, dst_elt, mode):
    """Round f64 values `v` (already carrying a round-to-odd sticky bit when
    inexact) to `dst_elt` with `mode`."""
    r = to_float(v, dst_elt)
    if mode in ("nearest_even", "full", "approx", None):
        return r
    rv = np.asarray(r).astype(F64)
    if mode == "positive_inf":
        return np.where(rv < v, step(r, 1), r)
    if mode == "negative_inf":
        return np.where(rv > v, step(r, -1), r)
    if mode == "zero":
        return np.where(np.abs(rv) > np.abs(v), step(r, -np.sign(rv)), r)
    raise ValueError(mode)


def flush_subnormals(x):
    """Flush f32 subnormals to sign-preserving zero."""
    x = np.asarray(x)
    tiny = np.finfo(np.float32).tiny
    return np.where(np.abs(x) < tiny, np.copysign(np.zeros((), x.dtype), x), x).astype(x.dtype)


def strided(flat, shape, strides):
    """numpy's as_strided for any element type. as_strided goes through the array
    interface, whose type string NumPy cannot read back for some of ml_dtypes'
    types (float8_e5m2 is '<f1'), so the window is taken over unsigned integers of
    the same size and seen as `flat`'s type again."""
    from numpy.lib.stride_tricks import as_strided
    size = flat.dtype.itemsize
    raw = flat.view(f"u{size}") if size in (1, 2, 4, 8) else flat
    return as_strided(raw, shape=shape, strides=strides).view(flat.dtype)
