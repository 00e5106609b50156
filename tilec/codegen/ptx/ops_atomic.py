"""atomic_rmw_tko and atomic_cas_tko: one `atom` per element, issued by the
thread owning it (replicas and, for scalars, every thread but one skip it);
the old values are then shared with the threads that did not issue it."""
from __future__ import annotations

from .emitter import handles
from ...dialects.nv_tileas.layouts import linear_offsets
from .numeric import float_name
from .ptxtypes import B32, PRED, Unsupported, bits, byte_size, reg_class
from .values import Tile

_SCOPE = {"tl_blk": ".cta", "device": ".gpu", "sys": ".sys"}


def _enum(op, attr_name, cls_name):
    from ...dialects.cuda_tile import attributes as A
    return getattr(A, cls_name).name_of(op.attributes[attr_name])


def _qualifiers(op):
    sem = _enum(op, "memory_ordering_semantics", "MemoryOrderingSemanticsAttr")
    scope = _enum(op, "memory_scope", "MemoryScopeAttr") if "memory_scope" in op.attributes else "device"
    sem = "relaxed" if sem == "weak" else sem
    return f".{sem}{_SCOPE[scope]}"


def _rmw_suffix(mode, t) -> str:
    w = bits(t)
    fname = float_name(t)
    if reg_class(t) == PRED or (w < 32 and not fname):
        raise Unsupported(f"on {t.text(True)} is not supported (PTX atomics are 32 or 64 bits wide)")
    if mode == "addf" or (fname and mode == "add"):
        if fname == "f16":
            return ".add.noftz.f16"
        if fname == "bf16":
            return ".add.noftz.bf16"
        if fname in ("f32", "f64"):
            return f".add.{fname}"
        raise Unsupported(f"addf on {t.text(True)} is not supported")
    if fname:
        raise Unsupported(f"mode '{mode}' on {t.text(True)} is not supported")
    table = {"and": f".and.b{w}", "or": f".or.b{w}", "xor": f".xor.b{w}", "add": f".add.u{w}",
             "max": f".max.s{w}", "min": f".min.s{w}", "umax": f".max.u{w}", "umin": f".min.u{w}",
             "xchg": f".exch.b{w}"}
    return table[mode]


def _gather_operands(em, op, names):
    vals = [em.tile(getattr(op, n)) for n in names]
    mask = em.tile(op.mask) if op.mask is not None else None
    layout = next((v.layout for v in vals + ([mask] if mask else []) if not v.splat), None)
    vals = [em.in_layout(v, layout) for v in vals]
    if mask is not None:
        mask = em.in_layout(mask, layout)
    return vals, mask, layout


def _issuer(em, layout, mask, slot):
    return em.pred_and(em.owner(layout), mask.at(slot) if mask is not None else None)


def _share(em, old: Tile, layout):
    """Give every thread the old values its owner thread got."""
    if layout is not None and layout.replicas == 1:
        return old
    shape = old.shape or (1,)
    sym = em.scratch(_prod(shape) * byte_size(old.etype))
    base = em.addr_of(sym)
    owner = em.owner(layout)
    em.sync()
    kb = em.kb
    if layout is None:
        kb.emit(f"@{owner} st.shared{_st_type(old.etype)} \t[{base}], {old.reg}")
    else:
        lin = em.linear_base(layout, linear_offsets(shape))
        addr = kb.reg(B32)
        kb.emit(f"mad.lo.u32 \t{addr}, {lin}, {byte_size(old.etype)}, {base}")
        for s in range(layout.nslots):
            off = sum(a * b for a, b in zip(layout.offsets(s), linear_offsets(shape))) * byte_size(old.etype)
            kb.emit(f"@{owner} st.shared{_st_type(old.etype)} \t[{addr}+{off}], {old.regs[s]}")
    em.sync()
    return em.load_shared(old.etype, old.shape, layout, base, linear_offsets(old.shape) if old.shape else ())


def _prod(xs):
    n = 1
    for x in xs:
        n *= x
    return n


def _st_type(t):
    from .ptxtypes import mem_type
    return mem_type(t).replace(".s", ".b")


def _finish(em, op, old, layout):
    # an unused result (a histogram's) needs no trip through shared memory
    em.bind(op.results[0], _share(em, old, layout) if op.results[0].users else old)
    for r in op.results[1:]:
        em.bind(r, None)


@handles("cuda_tile.atomic_rmw_tko")
def _atomic_rmw(em, op):
    from ...dialects.cuda_tile.attributes import AtomicRMWModeAttr
    mode = AtomicRMWModeAttr.name_of(op.attributes["mode"])
    t = op.results[0].type.element_type
    suffix = _rmw_suffix(mode, t)
    q = _qualifiers(op)
    (ptrs, arg), mask, layout = _gather_operands(em, op, ("pointers", "arg"))
    old = em.new_tile(t, op.results[0].type.shape, layout)
    for s, r in enumerate(old.regs):
        p = _issuer(em, layout, mask, s)
        _undefined_where_masked(em, r, t, mask)
        em.kb.emit(f"{'@' + p + ' ' if p else ''}atom{q}.global{suffix} \t{r}, [{ptrs.at(s)}], {arg.at(s)}")
    _finish(em, op, old, layout)


def _undefined_where_masked(em, r, t, mask):
    """A masked-off element's old value is undefined (spec); give it zero rather
    than leave its register unwritten, since the result is shared as a whole."""
    if mask is not None:
        em.kb.emit(f"mov.b{bits(t)} \t{r}, 0")


@handles("cuda_tile.atomic_cas_tko")
def _atomic_cas(em, op):
    t = op.results[0].type.element_type
    w = bits(t)
    if reg_class(t) == PRED or w < 32:
        raise Unsupported(f"on {t.text(True)} is not supported (PTX atomics are 32 or 64 bits wide)")
    q = _qualifiers(op)
    (ptrs, cmp, val), mask, layout = _gather_operands(em, op, ("pointers", "cmp", "val"))
    old = em.new_tile(t, op.results[0].type.shape, layout)
    kb = em.kb
    for s, r in enumerate(old.regs):
        p = _issuer(em, layout, mask, s)
        _undefined_where_masked(em, r, t, mask)
        c, v = cmp.at(s), val.at(s)
        if float_name(t):    # compare and swap the bits
            ci, vi = kb.reg(reg_class(_int_of(w))), kb.reg(reg_class(_int_of(w)))
            kb.emit(f"mov.b{w} \t{ci}, {c}")
            kb.emit(f"mov.b{w} \t{vi}, {v}")
            c, v = ci, vi
            o = kb.reg(reg_class(_int_of(w)))
            kb.emit(f"{'@' + p + ' ' if p else ''}atom{q}.global.cas.b{w} \t{o}, [{ptrs.at(s)}], {c}, {v}")
            kb.emit(f"mov.b{w} \t{r}, {o}")
        else:
            kb.emit(f"{'@' + p + ' ' if p else ''}atom{q}.global.cas.b{w} \t{r}, [{ptrs.at(s)}], {c}, {v}")
    _finish(em, op, old, layout)


def _int_of(w):
    from ...ir.types import IntegerType
    return IntegerType(w)
