"""Integer arithmetic (spec 8.8) and bitwise ops (8.9).

Integers wrap around (two's complement) unless an `overflow<...>` annotation
promises they do not: the interpreter then checks the promise and reports a
broken one as the undefined behaviour it is. Division by zero is reported.
Shifts by at least the bit width give 0 (logical) or the sign fill (arithmetic),
as PTX's clamped shifts do. i1 is arithmetic modulo 2; read as signed, true is -1.
"""
from __future__ import annotations

import numpy as np

from .errors import first_index, index_text, ub
from .numerics import BOOL, I64, from_unsigned, signed_value, unsigned, wrap_int
from .ops_core import result_dtype
from .registry import compute


def _bits(dtype):
    return 1 if dtype == BOOL else dtype.itemsize * 8


def _i1_wrap(f):
    """Lift a NumPy integer op to i1 (computed on 0/1 bytes, modulo 2)."""
    return lambda a, b: ((f(np.asarray(a).astype(np.uint8), np.asarray(b).astype(np.uint8)) & 1) != 0)


def _overflow_check(op, kind, dtype):
    """A checker (a, b, result) -> None for the op's overflow annotation, or None."""
    flag = getattr(op.attributes.get("overflow"), "value", "none")
    if flag == "none" or dtype == BOOL:
        return None
    nsw = flag in ("no_signed_wrap", "no_wrap")
    nuw = flag in ("no_unsigned_wrap", "no_wrap")
    bits = _bits(dtype)

    def exact(a, b, signed):
        x = np.asarray(a).astype(object) if bits == 64 else np.asarray(a).astype(I64)
        y = np.asarray(b).astype(object) if bits == 64 else np.asarray(b).astype(I64)
        if not signed:
            x = unsigned(a).astype(object) if bits == 64 else unsigned(a).astype(I64)
            y = unsigned(b).astype(object) if bits == 64 else unsigned(b).astype(I64)
        if kind == "add":
            return x + y
        if kind == "sub":
            return x - y
        if kind == "mul":
            return x * y
        return x * (2 ** np.minimum(y, bits)) if bits == 64 else x << np.minimum(y, 63)

    def check(a, b):
        for on, signed, what in ((nsw, True, "signed"), (nuw, False, "unsigned")):
            if not on:
                continue
            lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
            v = exact(a, b, signed)
            bad = (v < lo) | (v > hi)
            if np.any(bad):
                ub(op, f"{what} overflow contradicts overflow<{flag}>" +
                   (" at index " + _idx(bad) if np.ndim(bad) else ""), bad if np.ndim(bad) else None)
    return check


def _idx(bad):
    return index_text(first_index(np.asarray(bad, dtype=bool)))


def _arith(kind, f):
    def build(op, cc):
        dtype = result_dtype(op)
        g = _i1_wrap(f) if dtype == BOOL else f
        check = _overflow_check(op, kind, dtype)
        if check is None:
            return g

        def fn(a, b):
            check(a, b)
            return g(a, b)
        return fn
    return build


compute("cuda_tile.addi")(_arith("add", np.add))
compute("cuda_tile.subi")(_arith("sub", np.subtract))
compute("cuda_tile.muli")(_arith("mul", np.multiply))


@compute("cuda_tile.shli")
def _shli(op, cc):
    dtype = result_dtype(op)
    bits = _bits(dtype)
    check = _overflow_check(op, "shl", dtype)

    def fn(a, n):
        amt = unsigned(n).astype(np.uint64)
        big = amt >= bits
        u = unsigned(a)
        r = np.left_shift(u, np.minimum(amt, bits - 1).astype(u.dtype))
        r = np.where(big, np.zeros((), u.dtype), r)
        if check is not None:
            check(a, np.minimum(amt, bits).astype(I64))
        return from_unsigned(r, dtype)
    return fn


@compute("cuda_tile.shri")
def _shri(op, cc):
    dtype = result_dtype(op)
    bits = _bits(dtype)
    is_signed = op.attributes["signedness"].value == "signed"

    def fn(a, n):
        amt = np.minimum(unsigned(n).astype(np.uint64), bits)
        if is_signed:
            s = signed_value(a)
            r = np.right_shift(s, np.minimum(amt, bits - 1).astype(s.dtype))
            return (r & 1) != 0 if dtype == BOOL else r.astype(dtype)
        u = unsigned(a)
        r = np.where(amt >= bits, np.zeros((), u.dtype), np.right_shift(u, np.minimum(amt, bits - 1).astype(u.dtype)))
        return from_unsigned(r, dtype)
    return fn


def _read(x, is_signed):
    return signed_value(x) if is_signed else unsigned(x)


def _div_common(op, rem):
    dtype = result_dtype(op)
    is_signed = op.attributes["signedness"].value == "signed"
    mode = getattr(op.attributes.get("rounding"), "value", "zero")
    bits = _bits(dtype)

    def fn(a, b):
        x, y = _read(a, is_signed), _read(b, is_signed)
        zero = y == 0
        if np.any(zero):
            ub(op, "integer division by zero" + (" at index " + _idx(zero) if np.ndim(zero) else ""),
               zero if np.ndim(zero) else None)
        if bits == 64 and is_signed:
            x, y = x.astype(object), y.astype(object)  # INT64_MIN / -1 and exact floors
        elif is_signed:
            x, y = x.astype(I64), y.astype(I64)
        else:
            x, y = x.astype(np.uint64), y.astype(np.uint64)
        q = x // y                               # floor
        r = x - q * y
        inexact = r != 0
        if rem:
            if is_signed:   # C remainder: sign of the dividend
                r = np.where(inexact & ((r < 0) != (x < 0)), r - y, r)
            out = r
        else:
            if mode == "zero" and is_signed:
                q = np.where(inexact & ((x < 0) != (y < 0)), q + 1, q)
            elif mode == "positive_inf":   # ceil = floor + 1 when inexact
                q = np.where(inexact, q + 1, q)
            out = q
        if bits == 64 and is_signed:
            return wrap_int(list(np.ravel(out)), dtype).reshape(np.shape(out))
        if dtype == BOOL:
            return (np.asarray(out).astype(np.int64) & 1) != 0
        if is_signed:
            return np.asarray(out).astype(dtype)   # INT_MIN / -1 wraps to INT_MIN
        return from_unsigned(np.asarray(out).astype(np.uint64), dtype)
    return fn


@compute("cuda_tile.divi")
def _divi(op, cc):
    return _div_common(op, False)


@compute("cuda_tile.remi")
def _remi(op, cc):
    return _div_common(op, True)


@compute("cuda_tile.maxi", "cuda_tile.mini")
def _minmaxi(op, cc):
    is_signed = op.attributes["signedness"].value == "signed"
    pick = np.greater_equal if op.name == "cuda_tile.maxi" else np.less_equal

    def fn(a, b):
        return np.where(pick(_read(a, is_signed), _read(b, is_signed)), a, b)
    return fn


@compute("cuda_tile.negi")
def _negi(op, cc):
    dtype = result_dtype(op)
    if dtype == BOOL:
        return lambda a: a
    check = _overflow_check(op, "sub", dtype)
    if check is None:
        return np.negative

    def fn(a):
        check(np.zeros((), dtype), a)
        return np.negative(a)
    return fn


@compute("cuda_tile.absi")
def _absi(op, cc):
    dtype = result_dtype(op)
    if dtype == BOOL:
        return lambda a: a
    return np.abs


@compute("cuda_tile.mulhii")
def _mulhi(op, cc):
    dtype = result_dtype(op)
    bits = _bits(dtype)

    def fn(a, b):
        x, y = unsigned(a), unsigned(b)
        if bits < 64:
            p = x.astype(np.uint64) * y.astype(np.uint64)
            return from_unsigned(p >> np.uint64(bits), dtype)
        m32 = np.uint64(0xFFFFFFFF)
        s32 = np.uint64(32)
        xl, xh, yl, yh = x & m32, x >> s32, y & m32, y >> s32
        ll, lh, hl, hh = xl * yl, xl * yh, xh * yl, xh * yh
        mid = (ll >> s32) + (lh & m32) + (hl & m32)
        hi = hh + (lh >> s32) + (hl >> s32) + (mid >> s32)
        return from_unsigned(hi, dtype)
    return fn


@compute("cuda_tile.andi")
def _andi(op, cc):
    return np.bitwise_and


@compute("cuda_tile.ori")
def _ori(op, cc):
    return np.bitwise_or


@compute("cuda_tile.xori")
def _xori(op, cc):
    return np.bitwise_xor


_PREDICATES = {"equal": np.equal, "not_equal": np.not_equal, "less_than": np.less,
               "less_than_or_equal": np.less_equal, "greater_than": np.greater,
               "greater_than_or_equal": np.greater_equal}


@compute("cuda_tile.cmpi")
def _cmpi(op, cc):
    pred = _PREDICATES[op.attributes["comparison_predicate"].value]
    is_signed = op.attributes["signedness"].value == "signed"
    return lambda a, b: pred(_read(a, is_signed), _read(b, is_signed))
