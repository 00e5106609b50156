"""nv_tileas.dot on CUDA cores: C[m, n] += sum_k A[m, k] * B[k, n].

A and B are read from shared memory (their stage-buffer home when they have
one, else a scratch copy); each thread keeps its accumulator slots in
registers and walks K in a loop, loading each distinct row of A and column of
B it needs once per k. Floats accumulate in f32 (f64 for f64), integers in
32/64-bit integers."""
from __future__ import annotations

from .emitter import handles
from .layout import linear_offsets
from .numeric import float_name, to_f32
from .ptxtypes import B32, F32, F64, PRED, byte_size, mem_type, reg_class


def _operand_home(em, tile):
    if tile.home is not None:
        return tile.home
    return None


def _stage(em, tiles):
    """Shared addresses of row-major copies of `tiles` (homes reused)."""
    need = [t for t in tiles if t.home is None]
    addrs = {}
    if need:
        sizes = []
        for t in need:
            n = 1
            for d in t.shape:
                n *= d
            sizes.append((n * byte_size(t.etype) + 15) // 16 * 16)
        sym = em.scratch(sum(sizes))
        base = em.addr_of(sym)
        em.sync()
        off = 0
        for t, s in zip(need, sizes):
            a = em.kb.reg(B32)
            em.kb.emit(f"add.u32 \t{a}, {base}, {off}")
            em.store_shared(em.regs_of(t), a, linear_offsets(t.shape))
            addrs[id(t)] = a
            off += s
        em.sync()
    return [t.home if t.home is not None else addrs[id(t)] for t in tiles]


@handles("nv_tileas.dot")
def _dot(em, op):
    kb = em.kb
    a, b = em.get(op.operands[0]), em.get(op.operands[1])
    c = em.tile(op.operands[2])
    if len(a.shape) != 2:
        em.fail("is only supported on rank-2 operands by the PTX emitter")
    M, K = a.shape
    N = b.shape[1]
    rt = op.results[0].type.element_type
    is_float = bool(float_name(rt))
    wide = float_name(rt) == "f64"
    acc_cls = F64 if wide else F32 if is_float else reg_class(rt)
    ct = "f64" if wide else "f32"
    a_addr, b_addr = _stage(em, [a, b])
    layout = c.layout or em.layout_for((M, N))
    c = em.in_layout(c, layout)
    # accumulators
    acc = []
    for s in range(layout.nslots):
        r = kb.reg(acc_cls)
        src = c.at(s)
        if is_float and not wide:
            src = to_f32(em, src, c.etype)
        kb.emit(f"mov.b{64 if acc_cls in ('f64', 'b64') else 32} \t{r}, {src}")
        acc.append(r)
    bases = em.bases(layout)
    ea, eb = byte_size(a.etype), byte_size(b.etype)
    pa, pb = kb.reg(B32), kb.reg(B32)
    kb.emit(f"mad.lo.u32 \t{pa}, {bases[0]}, {K * ea}, {a_addr}")
    kb.emit(f"mad.lo.u32 \t{pb}, {bases[1]}, {eb}, {b_addr}")
    offs = [layout.offsets(s) for s in range(layout.nslots)]
    rows = sorted({o[0] for o in offs})
    cols = sorted({o[1] for o in offs})
    sa = _signed(op, "signedness_a")
    sb = _signed(op, "signedness_b")
    k = kb.reg(B32)
    kb.emit(f"mov.u32 \t{k}, 0")
    head = kb.label("dot_k")
    kb.place(head)
    av = {m: _load(em, a.etype, f"[{pa}+{m * K * ea}]", is_float, wide, sa) for m in rows}
    bv = {n: _load(em, b.etype, f"[{pb}+{n * eb}]", is_float, wide, sb) for n in cols}
    for s, o in enumerate(offs):
        if is_float:
            kb.emit(f"fma.rn.{ct} \t{acc[s]}, {av[o[0]]}, {bv[o[1]]}, {acc[s]}")
        else:
            w = 64 if acc_cls == "b64" else 32
            x, y = av[o[0]], bv[o[1]]
            if w == 64:
                x, y = _widen(em, x, sa), _widen(em, y, sb)
            kb.emit(f"mad.lo.s{w} \t{acc[s]}, {x}, {y}, {acc[s]}")
    kb.emit(f"add.u32 \t{pa}, {pa}, {ea}")
    kb.emit(f"add.u32 \t{pb}, {pb}, {N * eb}")
    kb.emit(f"add.u32 \t{k}, {k}, 1")
    more = kb.reg(PRED)
    kb.emit(f"setp.lt.u32 \t{more}, {k}, {K}")
    kb.emit(f"@{more} bra \t{head}")
    out = em.new_tile(rt, (M, N), layout)
    for r, s in zip(out.regs, acc):
        if is_float and not wide:
            from .numeric import from_f32
            from_f32(em, r, s, rt)
        else:
            em.mov(r, s, rt)
    em.bind(op.results[0], out)


def _signed(op, name):
    a = op.attributes.get(name)
    return getattr(a, "value", "signed") == "signed"


def _widen(em, r, signed):
    out = em.kb.reg("b64")
    em.kb.emit(f"cvt.{'s' if signed else 'u'}64.{'s' if signed else 'u'}32 \t{out}, {r}")
    return out


def _load(em, etype, where, is_float, wide, signed):
    kb = em.kb
    if is_float:
        raw = kb.reg(reg_class(etype))
        kb.emit(f"ld.shared{mem_type(etype)} \t{raw}, {where}")
        if wide:
            return raw
        return to_f32(em, raw, etype)
    r = kb.reg(B32)
    t = mem_type(etype)
    if not signed and t.startswith(".s"):
        t = ".u" + t[2:]
    kb.emit(f"ld.shared{t} \t{r}, {where}")
    return r
