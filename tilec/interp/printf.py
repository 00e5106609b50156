"""`print` / `print_tko` formatting: C printf conversions (`%d %i %u %x %X %o
%c %f %F %e %E %g %G %a %s`, flags, width, precision, length modifiers, `%%`),
each taking one argument. A 0-d tile prints as one value; a tile of rank >= 1
prints as a nested bracketed list `[[a, b], [c, d]]`, every element formatted
by the conversion."""
from __future__ import annotations

import math
import re

import numpy as np

from ..ir.types import IntegerType

_SPEC = re.compile(r"%(?P<flags>[-+ #0]*)(?P<width>\*|\d+)?(?:\.(?P<prec>\*|\d*))?"
                   r"(?P<len>hh|h|ll|l|j|z|t|L|q)?(?P<conv>[diuxXofFeEgGaAcsp%])")


def _format_one(spec, conv, value, elt):
    if conv in "diuxXoc":
        if isinstance(value, (float, np.floating)) or (hasattr(value, "dtype") and value.dtype.kind == "f"):
            value = float(value)
            value = int(value) if math.isfinite(value) else 0
        else:
            value = int(value)
        if conv in "uxXo" and isinstance(elt, IntegerType) and value < 0:
            value += 1 << max(elt.width, 8 if elt.width == 1 else elt.width)
        if conv in "iu":
            conv = "d"
        if conv == "c":
            return spec.replace("c", "s") % chr(value & 0x10FFFF)
        return (spec[:-1] + conv) % value
    if conv in "fFeEgG":
        return (spec[:-1] + conv) % float(value)
    if conv in "aA":
        text = float(value).hex()
        return text.upper() if conv == "A" else text
    if conv == "p":
        return hex(int(value))
    return (spec[:-1] + "s") % _plain(value)


def _plain(v):
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    return str(v)


def _format_tile(spec, conv, arr, elt):
    if arr.ndim == 0:
        return _format_one(spec, conv, arr[()], elt)
    return "[" + ", ".join(_format_tile(spec, conv, sub, elt) for sub in arr) + "]"


def format_print(fmt: str, values, elts) -> str:
    out, pos, k = [], 0, 0
    for m in _SPEC.finditer(fmt):
        out.append(fmt[pos:m.start()])
        pos = m.end()
        conv = m.group("conv")
        if conv == "%":
            out.append("%")
            continue
        if k >= len(values):
            out.append(m.group(0))
            continue
        spec = "%" + (m.group("flags") or "") + (m.group("width") or "").replace("*", "")
        if m.group("prec") not in (None, "*"):
            spec += "." + m.group("prec")
        spec += conv
        out.append(_format_tile(spec, conv, values[k], elts[k]))
        k += 1
    out.append(fmt[pos:])
    return "".join(out)
