"""arith ops on scalars: the index arithmetic and casts the lowering adds for
coordinates and loop bounds, the combiners of nv_tileas.reduce / scan, and
the i1 conditions of scf.if / scf.while (with the
builtin.unrealized_conversion_cast that reads a 0-d tile<i1> as i1).

Each is one register in (valid in every thread, as scalars are) and one
register out, computed as the cuda_tile op it came from is (see
ops_elementwise): narrow floats in f32 rounded once, narrow integers
sign-extended in 32-bit registers, i1 in predicates (arithmetic modulo 2).
`index` lives in 32-bit registers. Tensor operands are not supported."""
from __future__ import annotations

from .emitter import handles
from .numeric import canonical_int, compute_type, float_name, from_f32, select, to_f32, unsigned_view
from .ptxtypes import B16, B32, F32, PRED, Unsupported, bits, reg_class
from .values import Tile


def _scalar_type(v):
    t = v.type
    if hasattr(t, "shape"):
        if tuple(t.shape) != ():
            raise Unsupported("is only supported on scalars")
        t = t.element_type
    return t


def _operands(em, op):
    out = []
    for v in op.operands:
        x = em.tile(v)
        if not x.splat:
            em.fail("expects scalar operands")
        out.append(x.reg)
    return out


def _emit(em, op, fn):
    """fn(dst, *operand registers) into a fresh scalar of the result type."""
    t = _scalar_type(op.results[0])
    regs = _operands(em, op)
    out = em.new_tile(t, ())
    fn(out.reg, *regs)
    em.bind(op.results[0], out)


def _wide(t) -> int:
    return 64 if bits(t) == 64 else 32


# ---- constants and casts ----------------------------------------------------------------

@handles("arith.constant")
def _constant(em, op):
    t = _scalar_type(op.results[0])
    out = em.new_tile(t, ())
    em.mov_imm(out.reg, t, op.attributes["value"].value)
    em.bind(op.results[0], out)


@handles("arith.index_cast")
def _index_cast(em, op):
    src = em.tile(op.operands[0])
    dst_t = _scalar_type(op.results[0])
    src_t = src.etype
    out = em.new_tile(dst_t, ())
    if bits(src_t) == 64 and bits(dst_t) != 64:
        em.kb.emit(f"cvt.u32.u64 \t{out.reg}, {src.reg}")
    elif bits(src_t) != 64 and bits(dst_t) == 64:
        em.kb.emit(f"cvt.s64.s32 \t{out.reg}, {src.reg}")
    else:
        em.mov(out.reg, src.reg, dst_t)
    em.bind(op.results[0], out)


@handles("builtin.unrealized_conversion_cast")
def _unrealized_cast(em, op):
    """A 0-d tile and the scalar of its element type are the same register."""
    if len(op.operands) != 1 or len(op.results) != 1:
        em.fail("is only supported from one value to one value")
    x = em.get(op.operands[0])
    if not isinstance(x, Tile) or not x.splat:
        em.fail("is only supported between a 0-d tile and a scalar")
    em.bind(op.results[0], Tile(_scalar_type(op.results[0]), (), None, x.regs, x.home))


# ---- integers -------------------------------------------------------------------------------

# i1 is arithmetic modulo 2; read as signed, true is -1 (so signed max is `and`)
_PRED_OPS = {"addi": "xor", "subi": "xor", "muli": "and", "andi": "and", "ori": "or", "xori": "xor",
             "maxsi": "and", "minsi": "or", "maxui": "or", "minui": "and"}


def _int_binary(kind):
    def handler(em, op):
        t = _scalar_type(op.results[0])
        kb = em.kb
        if reg_class(t) == PRED:
            m = _PRED_OPS.get(kind)
            if m is None:
                raise Unsupported("is not supported on i1")
            _emit(em, op, lambda d, a, b: kb.emit(f"{m}.pred \t{d}, {a}, {b}"))
            return
        w = _wide(t)
        signed = not kind.endswith("ui")
        ty = f"{'s' if signed else 'u'}{w}"

        def fn(d, a, b):
            if not signed:
                a, b = unsigned_view(em, a, t), unsigned_view(em, b, t)
            if kind in ("andi", "ori", "xori"):
                kb.emit(f"{kind[:-1]}.b{w} \t{d}, {a}, {b}")
            elif kind == "muli":
                kb.emit(f"mul.lo.s{w} \t{d}, {a}, {b}")
            elif kind in ("addi", "subi"):
                kb.emit(f"{kind[:-1]}.s{w} \t{d}, {a}, {b}")
            else:   # max/min/div/rem, signed or unsigned
                kb.emit(f"{kind[:3]}.{ty} \t{d}, {a}, {b}")
            canonical_int(em, d, d, t)
        _emit(em, op, fn)
    return handler


for _k in ("addi", "subi", "muli", "andi", "ori", "xori", "maxsi", "minsi", "maxui", "minui", "divsi", "divui",
           "remsi", "remui"):
    handles("arith." + _k)(_int_binary(_k))


@handles("arith.cmpi")
def _cmpi(em, op):
    t = _scalar_type(op.operands[0])
    kb = em.kb
    name = op.predicate_name()
    c = name if name in ("eq", "ne") else name[1:]
    signed = name[0] != "u"
    if reg_class(t) == PRED:   # compared as integers: signed reads true as -1, unsigned as 1
        def pfn(d, a, b):
            x, y = kb.reg(B32), kb.reg(B32)
            v = "-1" if signed else "1"
            kb.emit(f"selp.s32 \t{x}, {v}, 0, {a}")
            kb.emit(f"selp.s32 \t{y}, {v}, 0, {b}")
            kb.emit(f"setp.{c}.s32 \t{d}, {x}, {y}")
        _emit(em, op, pfn)
        return
    w = _wide(t)

    def fn(d, a, b):
        if not signed:
            a, b = unsigned_view(em, a, t), unsigned_view(em, b, t)
        kb.emit(f"setp.{c}.{'s' if signed else 'u'}{w} \t{d}, {a}, {b}")
    _emit(em, op, fn)


# ---- floats ---------------------------------------------------------------------------------

def _in_compute_type(em, t, build):
    """build(dst, *regs) run in f32 (f64 for f64), rounded back once for narrow types."""
    kb = em.kb
    native = float_name(t) in ("f32", "tf32", "f64")

    def run(d, *regs):
        if native:
            build(d, *regs)
            return
        xs = [to_f32(em, r, t) for r in regs]
        tmp = kb.reg(F32)
        build(tmp, *xs)
        from_f32(em, d, tmp, t)
    return run


def _float_binary(kind):
    def handler(em, op):
        t = _scalar_type(op.results[0])
        kb = em.kb
        ct = compute_type(t)
        if kind in ("addf", "subf", "mulf", "divf"):
            m = kind[:-1]
            build = lambda d, a, b: kb.emit(f"{m}.rn.{ct} \t{d}, {a}, {b}")  # noqa: E731
        elif kind in ("maxnumf", "minnumf"):
            m = kind[:3]
            build = lambda d, a, b: kb.emit(f"{m}.{ct} \t{d}, {a}, {b}")  # noqa: E731
        elif ct == "f32":   # maximumf / minimumf: NaN in, NaN out
            m = kind[:3]
            build = lambda d, a, b: kb.emit(f"{m}.NaN.f32 \t{d}, {a}, {b}")  # noqa: E731
        else:               # no max.NaN.f64: max, then NaN where an operand is NaN
            m = kind[:3]

            def build(d, a, b):
                p, s = kb.reg(PRED), kb.reg("f64")
                kb.emit(f"{m}.f64 \t{d}, {a}, {b}")
                kb.emit(f"setp.nan.f64 \t{p}, {a}, {b}")
                kb.emit(f"add.rn.f64 \t{s}, {a}, {b}")
                kb.emit(f"selp.f64 \t{d}, {s}, {d}, {p}")
        _emit(em, op, _in_compute_type(em, t, build))
    return handler


for _k in ("addf", "subf", "mulf", "divf", "maxnumf", "minnumf", "maximumf", "minimumf"):
    handles("arith." + _k)(_float_binary(_k))


@handles("arith.negf")
def _negf(em, op):
    t = _scalar_type(op.results[0])
    kb = em.kb
    if reg_class(t) == B16:   # flip the sign bit: exact for every 16-bit float
        _emit(em, op, lambda d, a: kb.emit(f"xor.b16 \t{d}, {a}, 0x8000"))
        return
    _emit(em, op, lambda d, a: kb.emit(f"neg.{compute_type(t)} \t{d}, {a}"))


@handles("arith.cmpf")
def _cmpf(em, op):
    t = _scalar_type(op.operands[0])
    kb = em.kb
    name = op.predicate_name()
    ct = compute_type(t)
    native = float_name(t) in ("f32", "tf32", "f64")
    if name in ("false", "true"):
        _emit(em, op, lambda d, a, b: kb.emit(f"setp.{'eq' if name == 'true' else 'ne'}.u32 \t{d}, 0, 0"))
        return
    cmp = {"ord": "num", "uno": "nan"}.get(name)
    if cmp is None:   # o<c>: ordered (false on NaN); u<c>: unordered (true on NaN)
        cmp = name[1:] + ("u" if name[0] == "u" else "")

    def fn(d, a, b):
        if not native:
            a, b = to_f32(em, a, t), to_f32(em, b, t)
        kb.emit(f"setp.{cmp}.{ct} \t{d}, {a}, {b}")
    _emit(em, op, fn)


@handles("arith.select")
def _select(em, op):
    t = _scalar_type(op.results[0])
    _emit(em, op, lambda d, c, a, b: select(em, d, c, a, b, t))
