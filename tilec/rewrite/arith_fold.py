"""Folding of arith's integer binary ops (used by the ops' `fold` hooks)."""
from __future__ import annotations

from ..ir.attributes import IntegerAttr
from ..ir.types import IndexType, IntegerType
from .fold import constant_value


def _wrap(v, t):
    if isinstance(t, IndexType):
        bits = 64
    elif isinstance(t, IntegerType):
        bits = t.width
    else:
        return None
    v &= (1 << bits) - 1
    return v - (1 << bits) if bits > 1 and v >= 1 << (bits - 1) else v


def fold_binary(op):
    kind = op.name.split(".", 1)[1]
    t = op.result.type
    if not isinstance(t, (IndexType, IntegerType)):
        return None
    a, b = constant_value(op.lhs), constant_value(op.rhs)
    a = a.value if isinstance(a, IntegerAttr) else None
    b = b.value if isinstance(b, IntegerAttr) else None
    if a is not None and b is not None:
        if kind == "addi":
            r = a + b
        elif kind == "subi":
            r = a - b
        elif kind == "muli":
            r = a * b
        elif kind in ("divsi", "remsi"):
            if b == 0:
                return None
            q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
            r = q if kind == "divsi" else a - q * b
        elif kind == "maxsi":
            r = max(a, b)
        else:
            return None
        w = _wrap(r, t)
        return None if w is None else [IntegerAttr(w, t)]
    if b == 0 and kind in ("addi", "subi"):
        return [op.lhs]
    if a == 0 and kind == "addi":
        return [op.rhs]
    if b == 1 and kind in ("muli", "divsi"):
        return [op.lhs]
    if a == 1 and kind == "muli":
        return [op.rhs]
    if (a == 0 or b == 0) and kind == "muli":
        return [IntegerAttr(0, t)]
    if b == 1 and kind == "remsi":
        return [IntegerAttr(0, t)]
    return None
