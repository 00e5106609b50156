"""The ops bytecode 13.4/13.5 added: programmatic dependent launch
(griddepcontrol, sm_90+; a no-op below, as NVIDIA's tileiras compiles it), the
alias-proxy fence, fpowi, insert; the multimem ops are refused (they need a
multicast object, which no kernel parameter can carry)."""
from __future__ import annotations

from .emitter import handles
from ...dialects.nv_tileas.layouts import linear_offsets
from .numeric import float_name, from_f32, to_f32
from .ptxtypes import B32, F32, F64, PRED, byte_size, reg_class


def _tokens(em, op):
    for r in op.results:
        em.bind(r, None)


@handles("cuda_tile.gdc_wait_tko", "cuda_tile.gdc_launch_dependents_tko")
def _gdc(em, op):
    if em.target.sm >= 90:
        what = "wait" if op.name.endswith("wait_tko") else "launch_dependents"
        em.kb.emit(f"griddepcontrol.{what}")
    _tokens(em, op)


@handles("cuda_tile.memory_fence_alias_tko")
def _fence_alias(em, op):
    em.kb.emit("fence.proxy.alias")
    _tokens(em, op)


@handles("cuda_tile.multimem_load_reduce_view_tko", "cuda_tile.multimem_reduce_view_tko",
         "cuda_tile.multimem_store_view_tko")
def _multimem(em, op):
    em.fail(f"'{op.name}' is not supported by the PTX emitter: it needs a multicast object, which the kernel "
            f"ABI cannot pass")


# ---- fpowi ------------------------------------------------------------------------------

def _powi(em, dst, x, n, ct):
    """dst = x ** n (n a signed 32-bit register) by binary powering, each
    product rounded, then a correctly rounded reciprocal for n < 0: the
    sequence NVIDIA's compiler emits, and what the interpreter computes."""
    kb = em.kb
    cls = F64 if ct == "f64" else F32
    one = "0d3FF0000000000000" if ct == "f64" else "0f3F800000"
    base, r, b, bit = kb.reg(cls), kb.reg(cls), kb.reg(B32), kb.reg(B32)
    odd, done, neg = kb.reg(PRED), kb.reg(PRED), kb.reg(PRED)
    loop, end = kb.label("powi"), kb.label("powi_end")
    kb.emit(f"mov.{ct} \t{base}, {x}")
    kb.emit(f"abs.s32 \t{b}, {n}")              # |INT_MIN| stays 0x80000000: read unsigned below
    kb.emit(f"and.b32 \t{bit}, {b}, 1")
    kb.emit(f"setp.ne.u32 \t{odd}, {bit}, 0")
    kb.emit(f"selp.{ct} \t{r}, {base}, {one}, {odd}")
    kb.emit(f"shr.u32 \t{b}, {b}, 1")
    kb.place(loop)
    kb.emit(f"setp.eq.u32 \t{done}, {b}, 0")
    kb.emit(f"@{done} bra \t{end}")
    kb.emit(f"mul.rn.{ct} \t{base}, {base}, {base}")
    kb.emit(f"and.b32 \t{bit}, {b}, 1")
    kb.emit(f"setp.ne.u32 \t{odd}, {bit}, 0")
    kb.emit(f"@{odd} mul.rn.{ct} \t{r}, {base}, {r}")
    kb.emit(f"shr.u32 \t{b}, {b}, 1")
    kb.emit(f"bra \t{loop}")
    kb.place(end)
    kb.emit(f"setp.lt.s32 \t{neg}, {n}, 0")
    kb.emit(f"@{neg} rcp.rn.{ct} \t{r}, {r}")
    kb.emit(f"mov.{ct} \t{dst}, {r}")


def _exponent(em, reg, t) -> str:
    """A signed 32-bit register holding exponent `reg` (i1 reads as 0 / -1;
    i8 and i16 are kept sign-extended)."""
    if reg_class(t) == PRED:
        out = em.kb.reg(B32)
        em.kb.emit(f"selp.s32 \t{out}, -1, 0, {reg}")
        return out
    return reg


@handles("cuda_tile.fpowi")
def _fpowi(em, op):
    from .ops_elementwise import apply
    t = op.results[0].type.element_type
    nt = op.operands[1].type.element_type
    ct = "f64" if float_name(t) == "f64" else "f32"

    def run(dst, x, n):
        n = _exponent(em, n, nt)
        if float_name(t) in ("f32", "f64"):
            _powi(em, dst, x, n, ct)
            return
        tmp = em.kb.reg(F32)              # f16 / bf16: computed in f32, rounded once
        _powi(em, tmp, to_f32(em, x, t), n, ct)
        from_f32(em, dst, tmp, t)
    apply(em, op, run)


# ---- insert -----------------------------------------------------------------------------

@handles("cuda_tile.insert")
def _insert(em, op):
    """The destination goes row-major into shared memory, the source over the
    slice the indices select, and the result is read back in its own layout."""
    src, dst = em.tile(op.operands[0]), em.tile(op.operands[1])
    shape = tuple(op.results[0].type.shape)
    if not shape:
        em.bind(op.results[0], src)
        return
    kb = em.kb
    strides = linear_offsets(shape)
    n = 1
    for d in shape:
        n *= d
    es = byte_size(dst.etype)
    base = em.addr_of(em.scratch(n * es))
    extra = kb.reg(B32)
    kb.emit(f"mov.u32 \t{extra}, 0")
    for v, m, s in zip(op.operands[2:], src.shape, strides):
        nxt = kb.reg(B32)
        kb.emit(f"mad.lo.u32 \t{nxt}, {em.tile(v).reg}, {m * s}, {extra}")
        extra = nxt
    at = kb.reg(B32)
    kb.emit(f"mad.lo.u32 \t{at}, {extra}, {es}, {base}")
    em.sync()
    em.store_shared(dst, base, strides)
    em.sync()                             # the slice's elements may belong to other threads
    em.store_shared(src, at, strides)
    em.sync()
    em.bind(op.results[0], em.load_shared(dst.etype, shape, em.layout_for(shape), base, strides))
