"""atan2 on f64 (and, through f64, on the narrower floats): PTX has no
arctangent instruction.

The quotient q = min(|x|,|y|) / max(|x|,|y|) lies in [0, 1]; above tan(pi/8)
it is reduced with atan q = pi/4 + atan((q-1)/(q+1)), so the series argument r
stays within tan(pi/8). atan r = r P(r^2), P of degree 10 fitted by least
squares on that interval (relative error under 1e-15). The octant is then
restored: pi/2 - a when |y| > |x|, pi - a when x is negative (-0 included),
and the sign of y is copied. IEEE's special cases: both zero gives 0 (pi for
negative x), both infinite gives pi/4 before the octant step, NaN propagates."""
from __future__ import annotations

import math

from .math_f64 import _c
from .ptxtypes import F64, PRED

# atan(r) / r = sum P[i] r^(2i) on [0, tan(pi/8)]
P = (1.0, -0.33333333333329546, 0.19999999999069118, -0.1428571419839239, 0.11111106879805423,
     -0.09090789072198352, 0.0769017552673573, -0.06642137685490684, 0.056982002190579535,
     -0.04376239490148854, 0.021477756783364933)
TAN_PI_8 = math.tan(math.pi / 8)


def atan2_f64(em, d, y, x):
    kb = em.kb

    def reg():
        return kb.reg(F64)

    def pred():
        return kb.reg(PRED)

    ax, ay, lo, hi = reg(), reg(), reg(), reg()
    kb.emit(f"abs.f64 \t{ax}, {x}")
    kb.emit(f"abs.f64 \t{ay}, {y}")
    kb.emit(f"min.f64 \t{lo}, {ax}, {ay}")
    kb.emit(f"max.f64 \t{hi}, {ax}, {ay}")
    q = reg()
    kb.emit(f"div.rn.f64 \t{q}, {lo}, {hi}")
    zero, inf = pred(), pred()
    kb.emit(f"setp.eq.f64 \t{zero}, {hi}, 0d0000000000000000")          # both zero: 0/0
    kb.emit(f"setp.eq.f64 \t{inf}, {lo}, 0d7FF0000000000000")          # both infinite: inf/inf
    kb.emit(f"selp.f64 \t{q}, 0d0000000000000000, {q}, {zero}")
    kb.emit(f"selp.f64 \t{q}, 0d3FF0000000000000, {q}, {inf}")
    big = pred()
    kb.emit(f"setp.gt.f64 \t{big}, {q}, {_c(em, TAN_PI_8)}")
    num, den, red = reg(), reg(), reg()
    kb.emit(f"sub.rn.f64 \t{num}, {q}, 0d3FF0000000000000")
    kb.emit(f"add.rn.f64 \t{den}, {q}, 0d3FF0000000000000")
    kb.emit(f"div.rn.f64 \t{red}, {num}, {den}")
    r = reg()
    kb.emit(f"selp.f64 \t{r}, {red}, {q}, {big}")
    s = reg()
    kb.emit(f"mul.rn.f64 \t{s}, {r}, {r}")
    p = _c(em, P[-1])
    for c in reversed(P[:-1]):
        kb.emit(f"fma.rn.f64 \t{p}, {p}, {s}, {_c(em, c)}")
    a = reg()
    kb.emit(f"mul.rn.f64 \t{a}, {r}, {p}")
    base = reg()
    kb.emit(f"selp.f64 \t{base}, {_c(em, math.pi / 4)}, 0d0000000000000000, {big}")
    kb.emit(f"add.rn.f64 \t{a}, {a}, {base}")
    swap, t = pred(), reg()
    kb.emit(f"setp.gt.f64 \t{swap}, {ay}, {ax}")
    kb.emit(f"sub.rn.f64 \t{t}, {_c(em, math.pi / 2)}, {a}")
    kb.emit(f"selp.f64 \t{a}, {t}, {a}, {swap}")
    neg, bits = pred(), kb.reg("b64")
    kb.emit(f"mov.b64 \t{bits}, {x}")
    kb.emit(f"setp.lt.s64 \t{neg}, {bits}, 0")                        # the sign bit: -0 counts
    kb.emit(f"sub.rn.f64 \t{t}, {_c(em, math.pi)}, {a}")
    kb.emit(f"selp.f64 \t{a}, {t}, {a}, {neg}")
    ybits, sign = kb.reg("b64"), kb.reg("b64")
    kb.emit(f"mov.b64 \t{ybits}, {y}")
    kb.emit(f"and.b64 \t{sign}, {ybits}, -9223372036854775808")
    abits = kb.reg("b64")
    kb.emit(f"mov.b64 \t{abits}, {a}")
    kb.emit(f"or.b64 \t{abits}, {abits}, {sign}")
    out = reg()
    kb.emit(f"mov.b64 \t{out}, {abits}")
    nan, sm = pred(), reg()
    kb.emit(f"setp.nan.f64 \t{nan}, {x}, {y}")
    kb.emit(f"add.rn.f64 \t{sm}, {x}, {y}")
    kb.emit(f"selp.f64 \t{d}, {sm}, {out}, {nan}")
