"""Floating-point values of a given MLIR float type: rounding a decimal literal
into the type, the type's bit pattern, and MLIR's spelling of a value
(LLVM APFloat's printing rules, as MLIR's printFloatValue applies them):

* six significant digits in scientific form (`1.500000e+00`) when that reads
  back as the same value;
* otherwise APFloat's shortest-safe decimal form (`1.2345678`, `1.5E+10`) when
  it contains a '.';
* otherwise, and for inf/nan, the bit pattern in hex (`0x7C00`).
"""
from __future__ import annotations

import math  # (fractions is imported where used: it costs ~1.5 ms of every start-up)

# name -> (exponent bits, mantissa bits, bias, non-finite behaviour)
#   ieee: inf and nan; nanonly: no inf, all-ones is nan; finite: neither;
#   e8m0: unsigned powers of two only; unsigned: no sign bit, no inf, all-ones is nan
#   (NVIDIA's fnv8E5M3FNU: the exponent field 31 still holds finite values).
FORMATS = {
    "f16": (5, 10, 15, "ieee"),
    "bf16": (8, 7, 127, "ieee"),
    "tf32": (8, 10, 127, "ieee"),
    "f32": (8, 23, 127, "ieee"),
    "f64": (11, 52, 1023, "ieee"),
    "f8E5M2": (5, 2, 15, "ieee"),
    "f8E4M3FN": (4, 3, 7, "nanonly"),
    "f4E2M1FN": (2, 1, 1, "finite"),
    "f8E8M0FNU": (8, 0, 127, "e8m0"),
    "fnv8E5M3FNU": (5, 3, 15, "unsigned"),
}


def _fmt(elt):
    name = getattr(elt, "name", elt)
    return FORMATS.get(name, FORMATS["f64"])


def bit_width(elt) -> int:
    e, m, _, kind = _fmt(elt)
    return e + m + (0 if kind in ("e8m0", "unsigned") else 1)


def storage_bytes(elt) -> int:
    """Bytes per element of MLIR's dense storage (hex strings, bytecode): the
    encoding's bits rounded up to whole bytes, so tf32's 19 bits take 3."""
    w = bit_width(elt) if getattr(elt, "name", None) in FORMATS else elt.width
    return max(1, (w + 7) // 8)


def _max_finite(e, m, bias, kind) -> Fraction:
    from fractions import Fraction
    if kind == "ieee":
        return (2 - Fraction(1, 2 ** m)) * Fraction(2) ** ((2 ** e - 2) - bias)
    if kind in ("nanonly", "unsigned"):
        return (2 - Fraction(2, 2 ** m)) * Fraction(2) ** ((2 ** e - 1) - bias)
    if kind == "finite":
        return (2 - Fraction(1, 2 ** m)) * Fraction(2) ** ((2 ** e - 1) - bias)
    return Fraction(2) ** (2 ** e - 2 - bias)


def _floor_log2(a: Fraction) -> int:
    from fractions import Fraction
    ex = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** ex > a:
        ex -= 1
    elif Fraction(2) ** (ex + 1) <= a:
        ex += 1
    return ex


def round_to(value, elt) -> float:
    """Round an exact value (a decimal string, Fraction, int or float) to the
    nearest value of float type `elt` (ties to even); returned as a Python float."""
    from fractions import Fraction
    if isinstance(value, str):
        text = value.strip()
        neg = text.startswith("-")
        low = text.lstrip("+-").lower()
        if low in ("inf", "infinity"):
            return -math.inf if neg else math.inf
        if low == "nan":
            return math.nan
        a = Fraction(text.lstrip("+-"))
    elif isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return value
        neg = math.copysign(1.0, value) < 0
        a = Fraction(abs(value))
    else:
        a = Fraction(value)
        neg = a < 0
        a = abs(a)
    e, m, bias, kind = _fmt(elt)
    sign = -1.0 if neg else 1.0
    if kind == "unsigned" and neg:
        return 0.0 if a == 0 else math.nan   # APFloat: no -0, a negative value is nan
    if a == 0:
        return sign * 0.0
    if (e, m) == (11, 52):
        try:
            return sign * float(a)
        except OverflowError:
            return sign * math.inf
    ex = max(_floor_log2(a), 1 - bias)
    ulp = Fraction(2) ** (ex - m)
    r = round(a / ulp) * ulp
    if r > _max_finite(e, m, bias, kind):
        if kind == "ieee":
            return sign * math.inf
        if kind == "finite":
            return sign * float(_max_finite(e, m, bias, kind))
        return math.nan
    return sign * float(r)


def to_bits(value: float, elt) -> int:
    """The bit pattern of `value` (already representable) in float type `elt`."""
    from fractions import Fraction
    e, m, bias, kind = _fmt(elt)
    if kind == "e8m0":
        if math.isnan(value) or value <= 0 or math.isinf(value):
            return 0xFF
        return max(0, min(0xFE, _floor_log2(Fraction(value)) + bias))
    if kind == "unsigned" and (math.isnan(value) or math.isinf(value) or value < 0):
        return 2 ** (e + m) - 1
    sign = 1 if math.copysign(1.0, value) < 0 and kind != "unsigned" else 0
    top = sign << (e + m)
    if math.isnan(value):
        if kind == "ieee":
            return ((2 ** e - 1) << m) | (1 << (m - 1))
        return (2 ** (e + m) - 1) if kind == "nanonly" else 0
    if math.isinf(value):
        if kind == "ieee":
            return top | ((2 ** e - 1) << m)
        return top | (2 ** (e + m) - 1)
    a = Fraction(abs(value))
    if a == 0:
        return top
    ex = _floor_log2(a)
    if ex + bias <= 0:  # subnormal
        return top | int(a / Fraction(2) ** (1 - bias - m))
    mant = int((a / Fraction(2) ** ex - 1) * 2 ** m)
    return top | ((ex + bias) << m) | mant


def _digits(value: float, precision: int):
    """Decimal digits (most significant first) and the power of ten of the last
    one, as APFloat::toString makes them for `precision` significant digits:
    the exact value is an integer I times 10^e; when I has more bits than the
    precision needs, whole low decimal digits are first cut off (truncating),
    and only then is what is left rounded half-up to `precision` digits. So
    f32 0.7 gives 699999 (cut from 24 digits to 6, nothing left to round) but
    f32 1.3 gives 130000 (cut to 1299999, rounded); NVIDIA's printers show it."""
    num, den = abs(value).as_integer_ratio()
    if den == 1:
        big, exp = num, 0
    else:
        k = den.bit_length() - 1          # den is 2^k
        big, exp = num * 5 ** k, -k
    required = (precision * 196 + 58) // 59   # 196/59 slightly over log2(10)
    bits = big.bit_length()
    if bits > required:
        cut = (bits - required) * 59 // 196
        if cut:
            big //= 10 ** cut
            exp += cut
    digits = [int(c) for c in str(big)]
    while len(digits) > 1 and digits[-1] == 0:
        digits.pop()
        exp += 1
    if len(digits) > precision:
        drop = len(digits) - precision
        up = digits[precision] >= 5
        digits = digits[:precision]
        exp += drop
        if up:
            i = len(digits) - 1
            while i >= 0 and digits[i] == 9:
                digits.pop()
                exp += 1
                i -= 1
            if i < 0:
                digits = [1]
            else:
                digits[i] += 1
        while len(digits) > 1 and digits[-1] == 0:
            digits.pop()
            exp += 1
    return "".join(map(str, digits)), exp


def _scientific6(value: float) -> str:
    neg = "-" if math.copysign(1.0, value) < 0 else ""
    if value == 0:
        return neg + "0.000000e+00"
    ds, exp = _digits(value, 6)
    e10 = exp + len(ds) - 1
    mant = ds[0] + "." + ds[1:] + "0" * (6 - len(ds) + 1)
    return f"{neg}{mant}e{'+' if e10 >= 0 else '-'}{abs(e10):02d}"


def _natural(value: float, elt) -> str:
    """APFloat::toString with its default arguments."""
    e, m, bias, kind = _fmt(elt)
    neg = "-" if math.copysign(1.0, value) < 0 else ""
    if value == 0:
        return neg + "0"
    precision = 2 + (m + 1) * 59 // 196
    ds, exp = _digits(value, precision)
    nd = len(ds)
    if exp >= 0:
        sci = exp > 3 or nd + exp > precision
    else:
        msd = exp + nd - 1
        sci = msd < 0 and -msd > 3
    if sci:
        e10 = exp + nd - 1
        return f"{neg}{ds[0]}.{ds[1:] or '0'}E{'+' if e10 >= 0 else '-'}{abs(e10)}"
    if exp >= 0:
        return neg + ds + "0" * exp
    whole = exp + nd
    if whole > 0:
        return f"{neg}{ds[:whole]}.{ds[whole:]}"
    return f"{neg}0.{'0' * -whole}{ds}"


def hex_text(value: float, elt) -> str:
    return "0x" + format(to_bits(value, elt), "X")


def float_text(value: float, elt) -> str:
    """MLIR's spelling of a value of float type `elt`."""
    if math.isnan(value) or math.isinf(value):
        return hex_text(value, elt)
    bits = to_bits(value, elt)
    s = _scientific6(value)
    if to_bits(round_to(s, elt), elt) == bits:
        return s
    s = _natural(value, elt)
    if "." in s:
        return s
    return hex_text(value, elt)
