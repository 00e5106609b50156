"""exp and log on f64, which PTX has no instruction for (ex2/lg2 are f32-only).

exp: x = k ln2 + r with |r| <= ln2/2 (ln2 split in two for an exact k ln2),
e^r by its Taylor series to r^14, scaled by 2^k in two halves so results in
the subnormal range and up to overflow are exact powers of two.
log: x = 2^e m with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s) with
s = (m-1)/(m+1), |s| < 0.172, by its series to s^25. Both are within a few
ulp; special values (NaN, +-inf, 0, negatives) follow IEEE."""
from __future__ import annotations

import math

from .ptxtypes import B32, B64, F64, PRED

LN2_HI = 6.93147180369123816490e-01
LN2_LO = 1.90821492927058770002e-10


def _c(em, value):
    from .ptxtypes import float_imm
    from ...ir.types import FloatType
    r = em.kb.reg(F64)
    em.kb.emit(f"mov.f64 \t{r}, {float_imm(value, FloatType('f64'))}")
    return r


def _pow2(em, k32):
    """f64 register holding 2^k for k in the normal exponent range."""
    kb = em.kb
    e = kb.reg(B32)
    kb.emit(f"add.s32 \t{e}, {k32}, 1023")
    hi = kb.reg(B32)
    kb.emit(f"shl.b32 \t{hi}, {e}, 20")
    zero = kb.reg(B32)
    kb.emit(f"mov.b32 \t{zero}, 0")
    out = kb.reg(F64)
    kb.emit(f"mov.b64 \t{out}, {{{zero}, {hi}}}")
    return out


def exp_f64(em, d, x):
    kb = em.kb
    xc = kb.reg(F64)
    kb.emit(f"max.f64 \t{xc}, {x}, {_c(em, -746.0)}")
    kb.emit(f"min.f64 \t{xc}, {xc}, {_c(em, 710.0)}")
    kf = kb.reg(F64)
    kb.emit(f"mul.rn.f64 \t{kf}, {xc}, {_c(em, 1 / math.log(2))}")
    kb.emit(f"cvt.rni.f64.f64 \t{kf}, {kf}")
    nk = kb.reg(F64)
    kb.emit(f"neg.f64 \t{nk}, {kf}")
    r = kb.reg(F64)
    kb.emit(f"fma.rn.f64 \t{r}, {nk}, {_c(em, LN2_HI)}, {xc}")
    kb.emit(f"fma.rn.f64 \t{r}, {nk}, {_c(em, LN2_LO)}, {r}")
    p = _c(em, 1.0 / math.factorial(14))
    for n in range(13, -1, -1):
        kb.emit(f"fma.rn.f64 \t{p}, {p}, {r}, {_c(em, 1.0 / math.factorial(n))}")
    k = kb.reg(B32)
    kb.emit(f"cvt.rni.s32.f64 \t{k}, {kf}")
    k1, k2 = kb.reg(B32), kb.reg(B32)
    kb.emit(f"shr.s32 \t{k1}, {k}, 1")
    kb.emit(f"sub.s32 \t{k2}, {k}, {k1}")
    t = kb.reg(F64)
    kb.emit(f"mul.rn.f64 \t{t}, {p}, {_pow2(em, k1)}")
    kb.emit(f"mul.rn.f64 \t{t}, {t}, {_pow2(em, k2)}")
    nan = kb.reg(PRED)
    kb.emit(f"setp.nan.f64 \t{nan}, {x}, {x}")
    xx = kb.reg(F64)
    kb.emit(f"add.rn.f64 \t{xx}, {x}, {x}")
    kb.emit(f"selp.f64 \t{d}, {xx}, {t}, {nan}")


def log_f64(em, d, x):
    kb = em.kb
    # subnormals: scale into the normal range first
    sub = kb.reg(PRED)
    kb.emit(f"setp.lt.f64 \t{sub}, {x}, {_c(em, 2.0 ** -1022)}")
    xs = kb.reg(F64)
    kb.emit(f"mul.rn.f64 \t{xs}, {x}, {_c(em, 2.0 ** 54)}")
    kb.emit(f"selp.f64 \t{xs}, {xs}, {x}, {sub}")
    lo, hi = kb.reg(B32), kb.reg(B32)
    kb.emit(f"mov.b64 \t{{{lo}, {hi}}}, {xs}")
    e = kb.reg(B32)
    kb.emit(f"shr.u32 \t{e}, {hi}, 20")
    kb.emit(f"and.b32 \t{e}, {e}, 2047")
    kb.emit(f"sub.s32 \t{e}, {e}, 1023")
    adj = kb.reg(B32)
    kb.emit(f"selp.s32 \t{adj}, 54, 0, {sub}")
    kb.emit(f"sub.s32 \t{e}, {e}, {adj}")
    mh = kb.reg(B32)
    kb.emit(f"and.b32 \t{mh}, {hi}, 1048575")
    kb.emit(f"or.b32 \t{mh}, {mh}, 1072693248")
    m = kb.reg(F64)
    kb.emit(f"mov.b64 \t{m}, {{{lo}, {mh}}}")
    big = kb.reg(PRED)
    kb.emit(f"setp.gt.f64 \t{big}, {m}, {_c(em, math.sqrt(2.0))}")
    half = kb.reg(F64)
    kb.emit(f"mul.rn.f64 \t{half}, {m}, 0d3FE0000000000000")
    kb.emit(f"selp.f64 \t{m}, {half}, {m}, {big}")
    inc = kb.reg(B32)
    kb.emit(f"selp.s32 \t{inc}, 1, 0, {big}")
    kb.emit(f"add.s32 \t{e}, {e}, {inc}")
    num, den, s = kb.reg(F64), kb.reg(F64), kb.reg(F64)
    kb.emit(f"sub.rn.f64 \t{num}, {m}, 0d3FF0000000000000")
    kb.emit(f"add.rn.f64 \t{den}, {m}, 0d3FF0000000000000")
    kb.emit(f"div.rn.f64 \t{s}, {num}, {den}")
    s2 = kb.reg(F64)
    kb.emit(f"mul.rn.f64 \t{s2}, {s}, {s}")
    p = _c(em, 1.0 / 25)
    for n in range(23, 0, -2):
        kb.emit(f"fma.rn.f64 \t{p}, {p}, {s2}, {_c(em, 1.0 / n)}")
    lm = kb.reg(F64)
    kb.emit(f"mul.rn.f64 \t{lm}, {s}, {p}")
    kb.emit(f"add.rn.f64 \t{lm}, {lm}, {lm}")
    ef = kb.reg(F64)
    kb.emit(f"cvt.rn.f64.s32 \t{ef}, {e}")
    t = kb.reg(F64)
    kb.emit(f"fma.rn.f64 \t{t}, {ef}, {_c(em, LN2_LO)}, {lm}")
    kb.emit(f"fma.rn.f64 \t{t}, {ef}, {_c(em, LN2_HI)}, {t}")
    # specials: log(0) = -inf, log(<0) = NaN, log(inf) = inf, log(NaN) = NaN
    z, neg, inf, nan = kb.reg(PRED), kb.reg(PRED), kb.reg(PRED), kb.reg(PRED)
    kb.emit(f"setp.eq.f64 \t{z}, {x}, 0d0000000000000000")
    kb.emit(f"setp.lt.f64 \t{neg}, {x}, 0d0000000000000000")
    kb.emit(f"setp.eq.f64 \t{inf}, {x}, 0d7FF0000000000000")
    kb.emit(f"setp.nan.f64 \t{nan}, {x}, {x}")
    kb.emit(f"selp.f64 \t{t}, 0d7FF0000000000000, {t}, {inf}")
    kb.emit(f"selp.f64 \t{t}, 0dFFF0000000000000, {t}, {z}")
    kb.emit(f"or.pred \t{neg}, {neg}, {nan}")
    kb.emit(f"selp.f64 \t{d}, 0d7FF8000000000000, {t}, {neg}")


_ = (B64,)
