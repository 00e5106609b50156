"""Element-wise ops: float and integer arithmetic, math, comparisons, select and
conversions. Each op is one instruction sequence per slot; operands that are
splats reuse their one register, and an all-splat op stays a splat."""
from __future__ import annotations

from .emitter import handles
from .numeric import canonical_int, compute_type, float_name, from_f32, select, to_f32, unsigned_view
from .ptxtypes import B16, B32, B64, F32, F64, PRED, Unsupported, bits, reg_class

LOG2E = 1.4426950408889634
LN2 = 0.6931471805599453


def apply(em, op, fn, operands=None):
    """Emit fn(dst, *operand registers) for every slot of op's first result."""
    vals = op.operands if operands is None else operands
    rt = op.results[0].type
    from .ir_layouts import layout_of
    layout = layout_of(em, op.results[0], rt.shape)
    if layout is None:
        from .slices import common_layout
        ins = [em.tile(v) for v in vals]
        layout = common_layout(ins)
    else:               # a tile in shared memory is read in the layout the op runs in
        ins = [em.tile_in(v, layout) if _shape_of(v) == tuple(rt.shape) else em.tile(v) for v in vals]
    ins = [t if t.splat else em.in_layout(t, layout) for t in ins]
    out = em.new_tile(rt.element_type, rt.shape, layout)
    for s, dst in enumerate(out.regs):
        fn(dst, *[t.at(s) for t in ins])
    em.bind(op.results[0], out)
    return ins


def _shape_of(v):
    return tuple(getattr(v.type, "shape", ()) or ())


def _elt(v):
    return v.type.element_type


def _attr(op, name, default=None):
    a = op.attributes.get(name)
    return getattr(a, "value", default) if a is not None else default


def _signed(op) -> bool:
    return _attr(op, "signedness", "signed") == "signed"


_ROUND = {"nearest_even": ".rn", "zero": ".rz", "negative_inf": ".rm", "positive_inf": ".rp", None: ".rn",
          "approx": ".rn", "full": ".rn", "nearest_int_to_zero": ".rn"}


def _f32_op(em, t, fn):
    """fn(dst, *f32-or-f64 regs) computed in the compute type of `t`, rounded back."""
    kb = em.kb
    ct = compute_type(t)
    native = float_name(t) in ("f32", "tf32", "f64")

    def run(dst, *regs):
        if native:
            fn(dst, *regs)
            return
        xs = [to_f32(em, r, t) for r in regs]
        tmp = kb.reg(F32)
        fn(tmp, *xs)
        from_f32(em, dst, tmp, t)
    return run, ct


def _ftz(op, ct):
    return ".ftz" if ct == "f32" and "flush_to_zero" in op.attributes else ""


# ---- float arithmetic -----------------------------------------------------------------------

def _float_binary(mnemonic):
    def handler(em, op):
        t = _elt(op.results[0])
        run, ct = _f32_op(em, t, None)
        rnd = _ROUND.get(_attr(op, "rounding_mode"), ".rn")
        ftz = _ftz(op, ct)
        mode = _attr(op, "rounding_mode")
        if mnemonic == "div" and mode in ("approx", "full") and ct == "f32":
            rnd = "." + mode
        text = f"{mnemonic}{rnd}{ftz}.{ct}"
        if mnemonic in ("max", "min"):
            nan = ".NaN" if "propagate_nan" in op.attributes and ct == "f32" else ""
            text = f"{mnemonic}{ftz}{nan}.{ct}"
        run, ct = _f32_op(em, t, lambda d, a, b: em.kb.emit(f"{text} \t{d}, {a}, {b}"))
        apply(em, op, run)
    return handler


for _n, _m in (("addf", "add"), ("subf", "sub"), ("mulf", "mul"), ("divf", "div"), ("maxf", "max"),
               ("minf", "min")):
    handles("cuda_tile." + _n)(_float_binary(_m))


@handles("cuda_tile.fma")
def _fma(em, op):
    t = _elt(op.results[0])
    ct = compute_type(t)
    rnd = _ROUND.get(_attr(op, "rounding_mode"), ".rn")
    ftz = _ftz(op, ct)
    run, _ = _f32_op(em, t, lambda d, a, b, c: em.kb.emit(f"fma{rnd}{ftz}.{ct} \t{d}, {a}, {b}, {c}"))
    apply(em, op, run)


@handles("cuda_tile.negf", "cuda_tile.absf")
def _sign(em, op):
    t = _elt(op.results[0])
    m = "neg" if op.name.endswith("negf") else "abs"
    if reg_class(t) == B16:   # flip/clear the sign bit: exact for every 16-bit float
        mask = "0x8000" if m == "neg" else "0x7FFF"
        instr = "xor.b16" if m == "neg" else "and.b16"
        apply(em, op, lambda d, a: em.kb.emit(f"{instr} \t{d}, {a}, {mask}"))
        return
    ct = compute_type(t)
    run, _ = _f32_op(em, t, lambda d, a: em.kb.emit(f"{m}.{ct} \t{d}, {a}"))
    apply(em, op, run)


def _math(build):
    """A unary math function emitted in f32 (f64 only where PTX has the instruction)."""
    def handler(em, op):
        t = _elt(op.results[0])
        ct = compute_type(t)
        ftz = _ftz(op, ct)
        run, _ = _f32_op(em, t, lambda d, a: build(em, op, ct, ftz, d, a))
        apply(em, op, run)
    return handler


def _const(em, ct, value):
    r = em.kb.reg(F64 if ct == "f64" else F32)
    from .ptxtypes import float_imm
    from ...ir.types import FloatType
    em.kb.emit(f"mov.{ct} \t{r}, {float_imm(value, FloatType(ct))}")
    return r


def _only_f32(ct, what):
    if ct != "f32":
        raise Unsupported(f"is not supported on f64 ({what} has no f64 PTX instruction)")


def _exp(em, op, ct, ftz, d, a):
    if ct == "f64":
        from .math_f64 import exp_f64
        exp_f64(em, d, a)
        return
    kb = em.kb
    t = kb.reg(F32)
    kb.emit(f"mul{ftz}.f32 \t{t}, {a}, {_const(em, ct, LOG2E)}")
    kb.emit(f"ex2.approx{ftz}.f32 \t{d}, {t}")


def _exp2(em, op, ct, ftz, d, a):
    if ct == "f64":
        from .math_f64 import exp_f64
        t = em.kb.reg(F64)
        em.kb.emit(f"mul.rn.f64 \t{t}, {a}, {_const(em, ct, LN2)}")
        exp_f64(em, d, t)
        return
    em.kb.emit(f"ex2.approx{ftz}.f32 \t{d}, {a}")


def _log(em, op, ct, ftz, d, a):
    if ct == "f64":
        from .math_f64 import log_f64
        log_f64(em, d, a)
        return
    kb = em.kb
    t = kb.reg(F32)
    kb.emit(f"lg2.approx{ftz}.f32 \t{t}, {a}")
    kb.emit(f"mul{ftz}.f32 \t{d}, {t}, {_const(em, ct, LN2)}")


def _log2(em, op, ct, ftz, d, a):
    if ct == "f64":
        from .math_f64 import log_f64
        t = em.kb.reg(F64)
        log_f64(em, t, a)
        em.kb.emit(f"mul.rn.f64 \t{d}, {t}, {_const(em, ct, LOG2E)}")
        return
    em.kb.emit(f"lg2.approx{ftz}.f32 \t{d}, {a}")


def _sqrt(em, op, ct, ftz, d, a):
    mode = _attr(op, "rounding_mode")
    if mode == "approx" and ct == "f32":
        em.kb.emit(f"sqrt.approx{ftz}.f32 \t{d}, {a}")
    else:
        em.kb.emit(f"sqrt{_ROUND.get(mode, '.rn')}{ftz}.{ct} \t{d}, {a}")


def _rsqrt(em, op, ct, ftz, d, a):
    if ct == "f64":
        em.kb.emit(f"rsqrt.approx.f64 \t{d}, {a}")
    else:
        em.kb.emit(f"rsqrt.approx{ftz}.f32 \t{d}, {a}")


def _trig(name):
    def build(em, op, ct, ftz, d, a):
        _only_f32(ct, name)
        kb = em.kb
        if name in ("sin", "cos"):
            kb.emit(f"{name}.approx{ftz}.f32 \t{d}, {a}")
            return
        if name == "tan":
            s, c = kb.reg(F32), kb.reg(F32)
            kb.emit(f"sin.approx{ftz}.f32 \t{s}, {a}")
            kb.emit(f"cos.approx{ftz}.f32 \t{c}, {a}")
            kb.emit(f"div.rn{ftz}.f32 \t{d}, {s}, {c}")
            return
        if name == "tanh":
            kb.emit(f"tanh.approx.f32 \t{d}, {a}")
            return
        # sinh / cosh: (e^x -+ e^-x) / 2
        e, n, ne = kb.reg(F32), kb.reg(F32), kb.reg(F32)
        _exp(em, op, ct, ftz, e, a)
        kb.emit(f"neg.f32 \t{n}, {a}")
        _exp(em, op, ct, ftz, ne, n)
        s = kb.reg(F32)
        kb.emit(f"{'sub' if name == 'sinh' else 'add'}.rn.f32 \t{s}, {e}, {ne}")
        kb.emit(f"mul.rn.f32 \t{d}, {s}, 0f3F000000")
    return build


def _round_to(mode):
    def build(em, op, ct, ftz, d, a):
        em.kb.emit(f"cvt.{mode}{ftz}.{ct}.{ct} \t{d}, {a}")
    return build


for _n, _b in (("exp", _exp), ("exp2", _exp2), ("log", _log), ("log2", _log2), ("sqrt", _sqrt),
               ("rsqrt", _rsqrt), ("sin", _trig("sin")), ("cos", _trig("cos")), ("tan", _trig("tan")),
               ("tanh", _trig("tanh")), ("sinh", _trig("sinh")), ("cosh", _trig("cosh")),
               ("ceil", _round_to("rpi")), ("floor", _round_to("rmi"))):
    handles("cuda_tile." + _n)(_math(_b))


@handles("cuda_tile.pow", "cuda_tile.powf", "cuda_tile.fpowf")
def _pow(em, op):
    """exp2(y * log2|x|), then C's pow cases: a negative base takes the sign of
    an odd integral exponent and gives NaN for a non-integral one; pow(x, 0),
    pow(1, y) and pow(-1, +-inf) are 1 (NaN operands included)."""
    t = _elt(op.results[0])
    ct = compute_type(t)
    kb = em.kb
    ct_reg = F64 if ct == "f64" else F32

    def build(d, a, b):
        ax, m = kb.reg(ct_reg), kb.reg(ct_reg)
        kb.emit(f"abs.{ct} \t{ax}, {a}")
        if ct == "f64":      # tilec's f64 exp/log (PTX has neither)
            from .math_f64 import exp_f64, log_f64
            lg = kb.reg(F64)
            log_f64(em, lg, ax)
            kb.emit(f"mul.rn.f64 \t{m}, {lg}, {b}")
            exp_f64(em, d, m)
        else:
            lg = kb.reg(F32)
            kb.emit(f"lg2.approx.f32 \t{lg}, {ax}")
            kb.emit(f"mul.f32 \t{m}, {lg}, {b}")
            kb.emit(f"ex2.approx.f32 \t{d}, {m}")
        _pow_cases(em, ct, d, a, ax, b)
    run, _ = _f32_op(em, t, build)
    apply(em, op, run)


def _pow_cases(em, ct, d, a, ax, b):
    kb = em.kb
    w = 64 if ct == "f64" else 32
    reg = F64 if ct == "f64" else F32
    half, one, nan = (("0d3FE0000000000000", "0d3FF0000000000000", "0d7FF8000000000000") if w == 64 else
                      ("0f3F000000", "0f3F800000", "0f7FFFFFFF"))
    inf, zero = ("0d7FF0000000000000", "0d0000000000000000") if w == 64 else ("0f7F800000", "0f00000000")
    bi, h, hi, bits_ = kb.reg(reg), kb.reg(reg), kb.reg(reg), kb.reg(B64 if w == 64 else B32)
    integral, odd, neg, p = kb.reg(PRED), kb.reg(PRED), kb.reg(PRED), kb.reg(PRED)
    kb.emit(f"cvt.rzi.{ct}.{ct} \t{bi}, {b}")
    kb.emit(f"setp.eq.{ct} \t{integral}, {bi}, {b}")           # false for NaN; true for +-inf
    kb.emit(f"mul.rn.{ct} \t{h}, {b}, {half}")
    kb.emit(f"cvt.rzi.{ct}.{ct} \t{hi}, {h}")
    kb.emit(f"setp.neu.{ct} \t{odd}, {hi}, {h}")
    kb.emit(f"and.pred \t{odd}, {odd}, {integral}")
    kb.emit(f"mov.b{w} \t{bits_}, {a}")
    kb.emit(f"setp.lt.s{w} \t{neg}, {bits_}, 0")                # sign bit: -0 counts
    kb.emit(f"and.pred \t{p}, {neg}, {odd}")
    kb.emit(f"@{p} neg.{ct} \t{d}, {d}")
    # a finite negative base with a non-integral exponent
    kb.emit(f"setp.lt.{ct} \t{p}, {a}, {zero}")
    finite = kb.reg(PRED)
    kb.emit(f"setp.ne.{ct} \t{finite}, {ax}, {inf}")
    kb.emit(f"and.pred \t{p}, {p}, {finite}")
    kb.emit(f"not.pred \t{neg}, {integral}")
    kb.emit(f"and.pred \t{p}, {p}, {neg}")
    kb.emit(f"selp.{ct} \t{d}, {nan}, {d}, {p}")
    # the results that are 1 whatever the other operand
    bx = kb.reg(reg)
    kb.emit(f"abs.{ct} \t{bx}, {b}")
    q = kb.reg(PRED)
    kb.emit(f"setp.eq.{ct} \t{p}, {ax}, {one}")
    kb.emit(f"setp.eq.and.{ct} \t{p}, {bx}, {inf}, {p}")        # |x| = 1, y = +-inf
    kb.emit(f"setp.eq.or.{ct} \t{p}, {b}, {zero}, {p}")
    kb.emit(f"setp.eq.{ct} \t{q}, {a}, {one}")
    kb.emit(f"or.pred \t{p}, {p}, {q}")
    kb.emit(f"selp.{ct} \t{d}, {one}, {d}, {p}")


@handles("cuda_tile.atan2")
def _atan2(em, op):
    t = _elt(op.results[0])
    ct = compute_type(t)
    kb = em.kb
    from .math_atan2 import atan2_f64

    def build(d, y, x):      # computed in f64 (see math_atan2), rounded once to f32 for f32 types
        if ct == "f64":
            atan2_f64(em, d, y, x)
            return
        y64, x64, r = kb.reg(F64), kb.reg(F64), kb.reg(F64)
        kb.emit(f"cvt.f64.f32 \t{y64}, {y}")
        kb.emit(f"cvt.f64.f32 \t{x64}, {x}")
        atan2_f64(em, r, y64, x64)
        kb.emit(f"cvt.rn.f32.f64 \t{d}, {r}")
    run, _ = _f32_op(em, t, build)
    apply(em, op, run)


@handles("cuda_tile.remf")
def _remf(em, op):
    t = _elt(op.results[0])
    ct = compute_type(t)
    kb = em.kb

    def build(d, a, b):   # a - trunc(a / b) * b
        q, tq = kb.reg(F64 if ct == "f64" else F32), kb.reg(F64 if ct == "f64" else F32)
        kb.emit(f"div.rn.{ct} \t{q}, {a}, {b}")
        kb.emit(f"cvt.rzi.{ct}.{ct} \t{tq}, {q}")
        nq = kb.reg(F64 if ct == "f64" else F32)
        kb.emit(f"neg.{ct} \t{nq}, {tq}")
        kb.emit(f"fma.rn.{ct} \t{d}, {nq}, {b}, {a}")
    run, _ = _f32_op(em, t, build)
    apply(em, op, run)


# ---- integer arithmetic ---------------------------------------------------------------------

def _wide(t) -> int:
    return 64 if bits(t) == 64 else 32


def _int_binary(mnemonic, signed_op=False, normalize=True):
    def handler(em, op):
        t = _elt(op.results[0])
        kb = em.kb
        if reg_class(t) == PRED:
            _pred_binary(em, op, mnemonic)
            return
        w = _wide(t)
        sgn = _signed(op) if signed_op else True
        kind = f"{'s' if sgn else 'u'}{w}"

        def fn(d, a, b):
            if not sgn:
                a, b = unsigned_view(em, a, t), unsigned_view(em, b, t)
            if mnemonic in ("and", "or", "xor"):
                kb.emit(f"{mnemonic}.b{w} \t{d}, {a}, {b}")
                return
            if mnemonic in ("shl", "shr") and w == 64:
                # PTX takes a .u32 shift amount; amounts past 64 shift everything out either way
                c, n = kb.reg("b64"), kb.reg(B32)
                kb.emit(f"min.u64 \t{c}, {b}, 64")
                kb.emit(f"cvt.u32.u64 \t{n}, {c}")
                b = n
            if mnemonic == "shl":
                kb.emit(f"shl.b{w} \t{d}, {a}, {b}")
            elif mnemonic == "shr":
                kb.emit(f"shr.{kind} \t{d}, {a}, {b}")
            elif mnemonic == "mul":
                kb.emit(f"mul.lo.{kind} \t{d}, {a}, {b}")
            else:
                kb.emit(f"{mnemonic}.{kind} \t{d}, {a}, {b}")
            if normalize:
                canonical_int(em, d, d, t)
        apply(em, op, fn)
    return handler


def _pred_binary(em, op, mnemonic):
    """i1 arithmetic is modulo 2: add/sub are xor, mul is and. true is 1
    unsigned and -1 signed, so max is or unsigned and and signed (min the
    other way round); a shift amount must be below the width, 0, so shifts
    return the value."""
    kb = em.kb
    table = {"and": "and", "or": "or", "xor": "xor", "add": "xor", "sub": "xor", "mul": "and"}
    if mnemonic in ("max", "min"):
        table[mnemonic] = "and" if (mnemonic == "max") == _signed(op) else "or"
    if mnemonic in ("shl", "shr"):
        apply(em, op, lambda d, a, b: kb.emit(f"mov.pred \t{d}, {a}"))
        return
    m = table.get(mnemonic)
    if m is None:
        raise Unsupported("is not supported on i1")
    apply(em, op, lambda d, a, b: kb.emit(f"{m}.pred \t{d}, {a}, {b}"))


for _n, _m, _s in (("addi", "add", False), ("subi", "sub", False), ("muli", "mul", False),
                   ("andi", "and", False), ("ori", "or", False), ("xori", "xor", False),
                   ("shli", "shl", False), ("shri", "shr", True), ("maxi", "max", True),
                   ("mini", "min", True)):
    handles("cuda_tile." + _n)(_int_binary(_m, _s))


@handles("cuda_tile.divi", "cuda_tile.remi")
def _divrem(em, op):
    t = _elt(op.results[0])
    kb = em.kb
    if reg_class(t) == PRED:      # the divisor must be true (1 or -1): a / b = a, a % b = 0
        rem = op.name.endswith("remi")
        apply(em, op, lambda d, a, b: kb.emit(f"setp.ne.u32 \t{d}, 0, 0" if rem else f"mov.pred \t{d}, {a}"))
        return
    w = _wide(t)
    sgn = _signed(op)
    kind = f"{'s' if sgn else 'u'}{w}"
    is_rem = op.name.endswith("remi")
    mode = _attr(op, "rounding", "zero")
    cls = reg_class(t)

    def fn(d, a, b):
        if not sgn:
            a, b = unsigned_view(em, a, t), unsigned_view(em, b, t)
        if is_rem:
            kb.emit(f"rem.{kind} \t{d}, {a}, {b}")
            canonical_int(em, d, d, t)
            return
        q = kb.reg(cls)
        kb.emit(f"div.{kind} \t{q}, {a}, {b}")
        if mode in ("negative_inf", "positive_inf"):
            # adjust the truncated quotient when the division is inexact and the
            # exact quotient lies on the other side
            r, p, p2, qq = kb.reg(cls), kb.reg(PRED), kb.reg(PRED), kb.reg(cls)
            kb.emit(f"rem.{kind} \t{r}, {a}, {b}")
            kb.emit(f"setp.ne.{kind} \t{p}, {r}, 0")
            if sgn:
                x = kb.reg(cls)
                kb.emit(f"xor.b{w} \t{x}, {a}, {b}")
                cmp = "lt" if mode == "negative_inf" else "ge"
                kb.emit(f"setp.{cmp}.s{w} \t{p2}, {x}, 0")
                kb.emit(f"and.pred \t{p}, {p}, {p2}")
            elif mode == "negative_inf":
                kb.emit(f"setp.ne.u32 \t{p}, 0, 0")
            kb.emit(f"add.s{w} \t{qq}, {q}, {-1 if mode == 'negative_inf' else 1}")
            kb.emit(f"selp.b{w} \t{q}, {qq}, {q}, {p}")
        canonical_int(em, d, q, t)
    apply(em, op, fn)


@handles("cuda_tile.mulhii")
def _mulhi(em, op):
    t = _elt(op.results[0])
    w = bits(t)
    kb = em.kb

    def fn(d, a, b):
        if w in (32, 64):
            kb.emit(f"mul.hi.u{w} \t{d}, {a}, {b}")
            return
        ua, ub = unsigned_view(em, a, t), unsigned_view(em, b, t)
        p = kb.reg(B32)
        kb.emit(f"mul.lo.u32 \t{p}, {ua}, {ub}")
        kb.emit(f"shr.u32 \t{p}, {p}, {w}")
        canonical_int(em, d, p, t)
    apply(em, op, fn)


@handles("cuda_tile.negi", "cuda_tile.absi")
def _int_unary(em, op):
    t = _elt(op.results[0])
    kb = em.kb
    if reg_class(t) == PRED:
        apply(em, op, lambda d, a: kb.emit(f"mov.pred \t{d}, {a}"))
        return
    m = "neg" if op.name.endswith("negi") else "abs"

    def fn(d, a):
        kb.emit(f"{m}.s{_wide(t)} \t{d}, {a}")
        canonical_int(em, d, d, t)
    apply(em, op, fn)


# ---- comparisons and select -----------------------------------------------------------------

_CMP = {"equal": "eq", "not_equal": "ne", "less_than": "lt", "less_than_or_equal": "le",
        "greater_than": "gt", "greater_than_or_equal": "ge"}


@handles("cuda_tile.cmpi")
def _cmpi(em, op):
    t = _elt(op.operands[0])
    kb = em.kb
    c = _CMP[op.attributes["comparison_predicate"].value]
    if reg_class(t) == PRED:
        # i1 compared as integers: signed reads true as -1, unsigned as 1
        def fn(d, a, b):
            x, y = kb.reg(B32), kb.reg(B32)
            v = "-1" if _signed(op) else "1"
            kb.emit(f"selp.s32 \t{x}, {v}, 0, {a}")
            kb.emit(f"selp.s32 \t{y}, {v}, 0, {b}")
            kb.emit(f"setp.{c}.s32 \t{d}, {x}, {y}")
        apply(em, op, fn)
        return
    sgn = _signed(op)
    w = _wide(t)

    def fn(d, a, b):
        if not sgn:
            a, b = unsigned_view(em, a, t), unsigned_view(em, b, t)
        kb.emit(f"setp.{c}.{'s' if sgn else 'u'}{w} \t{d}, {a}, {b}")
    apply(em, op, fn)


@handles("cuda_tile.cmpf")
def _cmpf(em, op):
    t = _elt(op.operands[0])
    kb = em.kb
    c = _CMP[op.attributes["comparison_predicate"].value]
    unordered = op.attributes["comparison_ordering"].value != "ordered"
    cc = c + "u" if unordered else c
    ct = compute_type(t)
    native = float_name(t) in ("f32", "tf32", "f64")

    def fn(d, a, b):
        if not native:
            a, b = to_f32(em, a, t), to_f32(em, b, t)
        kb.emit(f"setp.{cc}.{ct} \t{d}, {a}, {b}")
    apply(em, op, fn)


@handles("cuda_tile.select")
def _select(em, op):
    t = _elt(op.results[0])
    apply(em, op, lambda d, c, a, b: select(em, d, c, a, b, t))


# ---- conversions ----------------------------------------------------------------------------

@handles("cuda_tile.ftof")
def _ftof(em, op):
    src, dst = _elt(op.operands[0]), _elt(op.results[0])
    kb = em.kb
    sn, dn = float_name(src), float_name(dst)

    def fn(d, a):
        if sn == dn:
            em.mov(d, a, dst)
        elif sn == "f64" and dn in ("f32", "f16"):
            kb.emit(f"cvt.rn.{dn}.f64 \t{d}, {a}")
        elif dn == "f64":
            kb.emit(f"cvt.f64.f32 \t{d}, {to_f32(em, a, src)}")
        else:
            from_f32(em, d, to_f32(em, a, src), dst)
    apply(em, op, fn)


@handles("cuda_tile.itof")
def _itof(em, op):
    src, dst = _elt(op.operands[0]), _elt(op.results[0])
    kb = em.kb
    sgn = _signed(op)
    ct = compute_type(dst)

    def fn(d, a):
        if reg_class(src) == PRED:
            a = _bool_int(em, a, sgn)
            w = 32
        else:
            w = _wide(src)
            if not sgn:
                a = unsigned_view(em, a, src)
        if float_name(dst) in ("f32", "f64"):
            kb.emit(f"cvt.rn.{ct}.{'s' if sgn else 'u'}{w} \t{d}, {a}")
        elif float_name(dst) == "f16":
            kb.emit(f"cvt.rn.f16.{'s' if sgn else 'u'}{w} \t{d}, {a}")
        else:
            f = kb.reg(F32)
            kb.emit(f"cvt.rn.f32.{'s' if sgn else 'u'}{w} \t{f}, {a}")
            from_f32(em, d, f, dst)
    apply(em, op, fn)


def _bool_int(em, p, signed) -> str:
    r = em.kb.reg(B32)
    em.kb.emit(f"selp.s32 \t{r}, {-1 if signed else 1}, 0, {p}")
    return r


@handles("cuda_tile.ftoi")
def _ftoi(em, op):
    src, dst = _elt(op.operands[0]), _elt(op.results[0])
    kb = em.kb
    sgn = _signed(op)
    ct = compute_type(src)

    def fn(d, a):
        x = a if float_name(src) in ("f32", "f64") else to_f32(em, a, src)
        w = bits(dst)
        if reg_class(dst) == PRED:
            r = kb.reg(B32)
            kb.emit(f"cvt.rzi.{'s' if sgn else 'u'}32.{ct} \t{r}, {x}")
            b = kb.reg(B32)
            kb.emit(f"and.b32 \t{b}, {r}, 1")
            kb.emit(f"setp.ne.u32 \t{d}, {b}, 0")
        elif w in (8, 16):   # saturate to the narrow range, then keep the canonical form
            kb.emit(f"cvt.rzi.sat.{'s' if sgn else 'u'}{w}.{ct} \t{d}, {x}")
            canonical_int(em, d, d, dst)
        else:
            kb.emit(f"cvt.rzi.{'s' if sgn else 'u'}{w}.{ct} \t{d}, {x}")
    apply(em, op, fn)


@handles("cuda_tile.exti")
def _exti(em, op):
    src, dst = _elt(op.operands[0]), _elt(op.results[0])
    kb = em.kb
    sgn = _signed(op)

    def fn(d, a):
        if reg_class(src) == PRED:
            a = _bool_int(em, a, sgn)
            if bits(dst) == 64:
                kb.emit(f"cvt.s64.s32 \t{d}, {a}")
            else:
                canonical_int(em, d, a, dst)
            return
        if not sgn:
            a = unsigned_view(em, a, src)
        if bits(dst) == 64:
            kb.emit(f"cvt.{'s' if sgn else 'u'}64.{'s' if sgn else 'u'}32 \t{d}, {a}")
        else:
            canonical_int(em, d, a, dst)
    apply(em, op, fn)


@handles("cuda_tile.trunci")
def _trunci(em, op):
    src, dst = _elt(op.operands[0]), _elt(op.results[0])
    kb = em.kb

    def fn(d, a):
        if reg_class(dst) == PRED:
            b = kb.reg(reg_class(src))
            w = _wide(src)
            kb.emit(f"and.b{w} \t{b}, {a}, 1")
            kb.emit(f"setp.ne.u{w} \t{d}, {b}, 0")
            return
        if bits(src) == 64:
            lo = kb.reg(B32)
            kb.emit(f"cvt.u32.u64 \t{lo}, {a}")
            a = lo
        canonical_int(em, d, a, dst)
    apply(em, op, fn)


@handles("cuda_tile.bitcast", "cuda_tile.ptr_to_int", "cuda_tile.int_to_ptr", "cuda_tile.ptr_to_ptr")
def _bitcast(em, op):
    src, dst = _elt(op.operands[0]), _elt(op.results[0])
    kb = em.kb
    sc, dc = reg_class(src), reg_class(dst)

    def fn(d, a):
        if sc == dc:
            em.mov(d, a, dst)
        elif sc == B16 and dc == B32:       # f16-like -> i16
            kb.emit(f"cvt.s32.s16 \t{d}, {a}")
        elif sc == B32 and dc == B16:
            kb.emit(f"cvt.u16.u32 \t{d}, {a}")
        elif {sc, dc} <= {B32, F32} or {sc, dc} <= {B64, F64}:
            kb.emit(f"mov.b{64 if sc in (B64, F64) else 32} \t{d}, {a}")
        else:
            raise Unsupported(f"cannot reinterpret {src.text(True)} as {dst.text(True)}")
    apply(em, op, fn)
