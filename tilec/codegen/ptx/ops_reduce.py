"""reduce and scan (cuda_tile's, and nv_tileas's lowered from them).

reduce over a linear distributed layout (linear_layout.py; the blocked and the
MMA/wgmma accumulator layouts): in registers, then across lanes, then across
warps. For reduced dimension d,
  1. each thread combines its slots whose coordinates differ only along d
     (the slot bits whose basis moves along d), as a pairwise tree: slot bit
     b_k's pairs are combined highest bit first;
  2. the lanes whose lane bits move along d exchange values with
     shfl.sync.bfly (one butterfly per such lane bit, low bit first): every lane
     then holds the warp's value of its output elements;
  3. one lane per output element and warp (the lane and warp bits along d, and
     the copy bits, zero) writes it to a small shared buffer, one row per warp
     index along d; after one barrier each thread reads its elements of the
     result's blocked layout, combining the warps' values in warp order.
The buffer holds (warps along d) x (result elements), never the input tile.
The combiner is taken as associative and commutative (the spec leaves the order
to the implementation, 8.3.14): a lane combines (its value, its partner's), so
float sums differ from the interpreter's in the last bits; the order is fixed,
so results are deterministic. Layouts that are not linear (splats, non power
of two extents) take the shared-memory tree below.

scan over a linear layout goes one coordinate bit of the scanned dimension at
a time, lowest first (_scan_distributed): a slot bit combines registers, a
lane bit a butterfly, a warp bit one exchange through shared memory.

The shared-memory tree (the fallback): the pairwise-halving tree (element j
combined with j + m, m = n/2 ... 1), each round spread over the group's
threads. scan: Hillis-Steele doubling (element j combined with j - off,
identity below off), double-buffered. Both orders equal the NumPy
interpreter's, so float results match it bit for bit. The combiner region is
emitted once per element handled, on scalar registers.
"""
from __future__ import annotations

from .emitter import handles
from ...dialects.nv_tileas.layouts import linear_offsets
from ...dialects.nv_tileas.linear_layout import reduced_layout, to_linear
from .numeric import select
from .ptxtypes import B16, B32, B64, F64, PRED, byte_size, reg_class
from .values import Tile


def _prod(xs):
    n = 1
    for x in xs:
        n *= x
    return n


def _log2(n):
    return n.bit_length() - 1


def _identity(em, attr, etype) -> Tile:
    return em.splat_const(etype, attr.value)


def _combine(em, op, cur, acc):
    """Emit the combiner region on scalar tiles; the yielded tiles. cuda_tile's
    body takes the pairs interleaved (lhs_0, rhs_0, lhs_1, ...), nv_tileas's
    grouped (lhs_0 .. lhs_n-1, rhs_0 .. rhs_n-1)."""
    block = op.regions[0].blocks[0]
    args = block.arguments
    n = len(cur)
    grouped = op.name.startswith("nv_tileas.")
    for k in range(n):
        em.bind(args[k] if grouped else args[2 * k], cur[k])
        em.bind(args[n + k] if grouped else args[2 * k + 1], acc[k])
    for inner in block.ops:
        if inner.name in ("cuda_tile.yield", "nv_tileas.yield"):
            return [em.tile(v) for v in inner.operands]
        em.emit_op(inner)
    em.fail("combiner region has no yield")


def _buffers(em, etypes, n_elems, copies=1):
    """Shared addresses (registers) of one buffer per operand (x copies)."""
    sizes = [(n_elems * byte_size(t) + 15) // 16 * 16 for t in etypes]
    sym = em.scratch(sum(sizes) * copies)
    base = em.addr_of(sym)
    out, off = [], 0
    for _ in range(copies):
        row = []
        for s in sizes:
            r = em.kb.reg(B32)
            em.kb.emit(f"add.u32 \t{r}, {base}, {off}")
            row.append(r)
            off += s
        out.append(row)
    return out


def _thread_items(em, count):
    """[(item register, store predicate or None)] covering `count` items with the group's threads."""
    kb = em.kb
    g = em.group
    out = []
    for c in range(max(1, -(-count // g.threads))):
        q = kb.reg(B32)
        kb.emit(f"add.u32 \t{q}, {g.tid}, {c * g.threads}")
        pred = None
        if (c + 1) * g.threads > count:
            pred = kb.reg(PRED)
            kb.emit(f"setp.lt.u32 \t{pred}, {q}, {count}")
            clamped = kb.reg(B32)
            kb.emit(f"and.b32 \t{clamped}, {q}, {count - 1}")
            q = clamped
        out.append((q, pred))
    return out


def _ld(em, etype, addr):
    t = em.new_tile(etype, ())
    em._ld_shared(t.reg, etype, f"[{addr}]")
    return t


def _st(em, tile, addr, pred):
    kb = em.kb
    from .ptxtypes import mem_type, reg_class
    reg, st = tile.reg, mem_type(tile.etype).replace(".s", ".b")
    if reg_class(tile.etype) == PRED:
        b = kb.reg(B32)
        kb.emit(f"selp.u32 \t{b}, 1, 0, {reg}")
        reg, st = b, ".b8"
    kb.emit(f"{'@' + pred + ' ' if pred else ''}st.shared{st} \t[{addr}], {reg}")


def _addr(em, base, lin, es):
    r = em.kb.reg(B32)
    em.kb.emit(f"mad.lo.u32 \t{r}, {lin}, {es}, {base}")
    return r


@handles("cuda_tile.reduce", "nv_tileas.reduce")
def _reduce(em, op):
    ins = [em.tile(v) for v in op.operands]
    dim = op.attributes["dim"].value
    if not _reduce_distributed(em, op, ins, dim):
        _reduce_tree(em, op, ins, dim)


# ---- over a linear layout: registers, shuffles, one small buffer across warps ----------------

def _linear_of(em, ins):
    """(layout, linear layout, operand tiles all in it) when the reduce can run in
    registers, else None."""
    g = em.group
    layout = next((t.layout for t in ins if not t.splat), None)
    if layout is None or layout.threads != g.threads or getattr(g, "first_thread", 0) % 32:
        return None
    lin = to_linear(layout)
    if lin is None or not lin.axis_aligned() or lin.free_bits("reg") or lin.nslots != layout.nslots:
        return None
    return layout, lin, [em.in_layout(t, layout) for t in ins]


def _shfl_xor(em, reg, etype, mask) -> str:
    """The value of `reg` in lane (this lane ^ mask), through shfl.sync.bfly.b32
    (64-bit values in two halves, 16-bit and predicates widened to 32 bits)."""
    kb = em.kb
    cls = reg_class(etype)

    def shfl32(src, dst_cls=B32):
        d = kb.reg(dst_cls)
        kb.emit(f"shfl.sync.bfly.b32 \t{d}, {src}, {mask}, 31, -1")
        return d
    if cls in (B32, "f32"):
        return shfl32(reg, cls)
    if cls in (B64, F64):
        lo, hi = kb.reg(B32), kb.reg(B32)
        kb.emit(f"mov.b64 \t{{{lo}, {hi}}}, {reg}")
        lo2, hi2 = shfl32(lo), shfl32(hi)
        d = kb.reg(cls)
        kb.emit(f"mov.b64 \t{d}, {{{lo2}, {hi2}}}")
        return d
    if cls == B16:
        w = kb.reg(B32)
        kb.emit(f"cvt.u32.u16 \t{w}, {reg}")
        w2 = shfl32(w)
        d = kb.reg(B16)
        kb.emit(f"cvt.u16.u32 \t{d}, {w2}")
        return d
    w = kb.reg(B32)
    kb.emit(f"selp.u32 \t{w}, 1, 0, {reg}")
    w2 = shfl32(w)
    d = kb.reg(PRED)
    kb.emit(f"setp.ne.u32 \t{d}, {w2}, 0")
    return d


def _scalar(etype, reg) -> Tile:
    return Tile(etype, (), None, [reg])


def _prologue_value(em, key, build):
    """A per-thread value of the group prologue, computed once per key."""
    g = em.group
    got = g.bases.get(key)
    if got is None:
        with em._prologue():
            got = build(em.kb, g.tid)
        g.bases[key] = got
    return got


def _warp_index(em, warp_bits):
    """sum_k bit warp_bits[k] of (tid / 32) << k: this warp's row of the buffer."""
    def build(kb, tid):
        w = kb.reg(B32)
        kb.emit(f"shr.u32 \t{w}, {tid}, 5")
        acc = None
        for k, b in enumerate(warp_bits):
            t = kb.reg(B32)
            kb.emit(f"shr.u32 \t{t}, {w}, {b}")
            kb.emit(f"and.b32 \t{t}, {t}, 1")
            if k:
                kb.emit(f"shl.b32 \t{t}, {t}, {k}")
            if acc is None:
                acc = t
            else:
                nxt = kb.reg(B32)
                kb.emit(f"or.b32 \t{nxt}, {acc}, {t}")
                acc = nxt
        return acc
    return _prologue_value(em, ("reduce-warp", tuple(warp_bits)), build)


def _tid_predicate(em, tid_mask, any_set=False):
    """A predicate (group prologue) true in the threads whose tid bits `tid_mask`
    are all zero, or with `any_set`, in those with one of them set."""
    def build(kb, tid):
        t, p = kb.reg(B32), kb.reg(PRED)
        kb.emit(f"and.b32 \t{t}, {tid}, {tid_mask}")
        kb.emit(f"setp.{'ne' if any_set else 'eq'}.u32 \t{p}, {t}, 0")
        return p
    return _prologue_value(em, ("tid-bits", tid_mask, any_set), build)


def _reduce_distributed(em, op, ins, dim) -> bool:
    found = _linear_of(em, ins)
    if found is None:
        return False
    layout, lin, ins = found
    kb = em.kb
    etypes = [t.etype for t in ins]
    rshape = tuple(op.results[0].type.shape)
    reg_d = lin.bits_into("reg", dim)
    lane_d = lin.bits_into("lane", dim)
    warp_d = lin.bits_into("warp", dim)
    # 1. in registers: per output slot (no slot bit along d), a tree over the slot bits along d
    d_mask = sum(1 << b for b in reg_d)
    outs = []      # (output slot, [value register per operand])
    for s0 in range(lin.nslots):
        if s0 & d_mask:
            continue
        vals = []
        for c in range(1 << len(reg_d)):
            slot = s0 | sum(1 << b for k, b in enumerate(reg_d) if c >> k & 1)
            vals.append([_scalar(t.etype, t.at(slot)) for t in ins])
        while len(vals) > 1:
            half = len(vals) // 2
            vals = [_combine(em, op, vals[i], vals[i + half]) for i in range(half)]
        outs.append((s0, vals[0]))
    # 2. across lanes: one butterfly per lane bit along d
    for b in lane_d:
        nxt = []
        for s0, vs in outs:
            vs = [em.in_layout(v, None) for v in vs]
            other = [_scalar(v.etype, _shfl_xor(em, v.reg, v.etype, 1 << b)) for v in vs]
            nxt.append((s0, _combine(em, op, vs, other)))
        outs = nxt
    # every lane now holds its output elements' values (a butterfly leaves the
    # combined value in both partners): the result is the slice of the operand's
    # layout, in registers, unless warps split dimension d
    rlayout = reduced_layout(layout, dim, rshape) if rshape else None
    if not warp_d and (rlayout is not None or not rshape):
        for k, (r, t) in enumerate(zip(op.results, etypes)):
            regs = [em.in_layout(vs[k], None).reg for _, vs in outs]
            em.bind(r, Tile(t, rshape, rlayout, regs))
        return True
    # 3. across warps, through (warps along d) x (result elements): every thread
    # reads its slots' values of every warp and combines them in warp order
    nout = _prod(rshape)
    nw = 1 << len(warp_d)
    bufs = _buffers(em, etypes, nw * nout)[0]
    rstrides = linear_offsets(rshape)
    coeffs = list(rstrides[:dim]) + [0] + list(rstrides[dim:])
    lane_skip = lane_d + lin.free_bits("lane")
    warp_skip = lin.free_bits("warp")
    tid_mask = sum(1 << b for b in lane_skip) | sum(1 << (5 + b) for b in warp_skip)
    pred = _tid_predicate(em, tid_mask) if tid_mask else None
    em.sync()
    lin_base = em.linear_base(layout, coeffs)
    for k, (t, b) in enumerate(zip(etypes, bufs)):
        es = byte_size(t)
        where = b
        if warp_d:
            where = kb.reg(B32)
            kb.emit(f"mad.lo.u32 \t{where}, {_warp_index(em, warp_d)}, {nout * es}, {b}")
        addr = kb.reg(B32)
        kb.emit(f"mad.lo.u32 \t{addr}, {lin_base}, {es}, {where}")
        for s0, vs in outs:
            off = sum(o * c for o, c in zip(layout.offsets(s0), coeffs)) * es
            _st(em, em.in_layout(vs[k], None), f"{addr}+{off}", pred)
    em.sync()
    if rlayout is None:
        rlayout = em.layout_for(rshape)
    parts = []     # per warp row: the operands' tiles in the result layout
    for w in range(nw):
        row = []
        for t, b in zip(etypes, bufs):
            base = b
            if w:
                base = kb.reg(B32)
                kb.emit(f"add.u32 \t{base}, {b}, {w * nout * byte_size(t)}")
            em.align_of[base] = 16 if (w * nout * byte_size(t)) % 16 == 0 else 1
            row.append(em.load_shared(t, rshape, rlayout, base, rstrides))
        parts.append(row)
    results = parts[0]
    if nw > 1:
        nslots = 1 if rlayout is None else rlayout.nslots
        merged = [em.new_tile(t, rshape, rlayout) for t in etypes]
        for slot in range(nslots):
            acc = [_scalar(t, parts[0][k].at(slot)) for k, t in enumerate(etypes)]
            for w in range(1, nw):
                acc = _combine(em, op, acc, [_scalar(t, parts[w][k].at(slot)) for k, t in enumerate(etypes)])
                acc = [em.in_layout(v, None) for v in acc]
            for k, t in enumerate(etypes):
                em.mov(merged[k].regs[slot], acc[k].reg, t)
        results = merged
    for r, t in zip(op.results, results):
        em.bind(r, t)
    return True


# ---- the shared-memory tree (layouts that are not linear) ------------------------------------

def _reduce_tree(em, op, ins, dim):
    kb = em.kb
    shape = ins[0].shape
    n, inner = shape[dim], _prod(shape[dim + 1:])
    total = _prod(shape)
    rows = total // n
    etypes = [t.etype for t in ins]
    bufs = _buffers(em, etypes, total)[0]
    em.sync()
    for t, b in zip(ins, bufs):
        em.store_shared(t, b, linear_offsets(shape))
    em.sync()
    m = n // 2
    while m >= 1:
        for q, pred in _thread_items(em, rows * m):
            r, j = kb.reg(B32), kb.reg(B32)
            kb.emit(f"shr.u32 \t{r}, {q}, {_log2(m)}")
            kb.emit(f"and.b32 \t{j}, {q}, {m - 1}")
            # lin(r, j) = (r / inner) * n * inner + r % inner + j * inner
            hi, lo, lin = kb.reg(B32), kb.reg(B32), kb.reg(B32)
            kb.emit(f"shr.u32 \t{hi}, {r}, {_log2(inner)}")
            kb.emit(f"and.b32 \t{lo}, {r}, {inner - 1}")
            kb.emit(f"mad.lo.u32 \t{lin}, {hi}, {n * inner}, {lo}")
            kb.emit(f"mad.lo.u32 \t{lin}, {j}, {inner}, {lin}")
            cur, acc, addrs = [], [], []
            for t, b in zip(etypes, bufs):
                es = byte_size(t)
                a = _addr(em, b, lin, es)
                addrs.append(a)
                cur.append(_ld(em, t, a))
                far = kb.reg(B32)
                kb.emit(f"add.u32 \t{far}, {a}, {m * inner * es}")
                acc.append(_ld(em, t, far))
            out = _combine(em, op, cur, acc)
            for v, a in zip(out, addrs):
                _st(em, em.in_layout(v, None), a, pred)
        em.sync()
        m //= 2
    rshape = tuple(op.results[0].type.shape)
    strides = linear_offsets(shape)
    coeffs = [s for i, s in enumerate(strides) if i != dim]
    layout = em.layout_for(rshape)
    for r, t, b in zip(op.results, etypes, bufs):
        em.bind(r, em.load_shared(t, rshape, layout, b, coeffs))


# ---- scan over a linear layout: registers, shuffles, one exchange per warp bit --------------

def _scan_distributed(em, op, ins, dim, reverse) -> bool:
    """Scan along `dim` of a linear layout, one coordinate bit at a time, lowest
    first. Every element keeps `pre`, its scan within the aligned block of 2^b
    elements along d that holds it, and `tot`, that block's total. At bit b the
    block doubles: each element takes `tot` of its partner (the element with
    bit b flipped: another slot of the thread when a slot bit carries b, a
    butterfly shuffle for a lane bit, shared memory for a warp bit); elements
    of the later half in scan order (bit b set; clear for a reverse scan) add
    the partner's total to `pre`, and both halves combine the totals. The
    combiner's left operand is always the later part in scan order, as in the
    shared-memory scan. The order is fixed by the layout (spec 8.3.15), so
    float results are deterministic; they may differ from the interpreter's
    in the last bits."""
    found = _linear_of(em, ins)
    if found is None:
        return False
    layout, lin, ins = found
    n = ins[0].shape[dim]
    bits = sorted((v[dim].bit_length() - 1, kind, i) for kind in ("reg", "lane", "warp")
                  for i, v in enumerate(getattr(lin, kind)) if v[dim])
    if [c for c, _, _ in bits] != list(range(n.bit_length() - 1)):
        return False
    kb = em.kb
    etypes = [t.etype for t in ins]
    pre = [[_scalar(t.etype, t.at(s)) for t in ins] for s in range(lin.nslots)]
    tot = [list(vs) for vs in pre]

    def norm(vs):
        return [em.in_layout(v, None) for v in vs]

    def pick(cond, a, b):
        out = []
        for x, y, t in zip(norm(a), norm(b), etypes):
            r = em.new_tile(t, ())
            select(em, r.reg, cond, x.reg, y.reg, t)
            out.append(r)
        return out
    for _, kind, i in bits:
        if kind == "reg":
            partner = [tot[s ^ (1 << i)] for s in range(lin.nslots)]
        elif kind == "lane":
            partner = [[_scalar(v.etype, _shfl_xor(em, v.reg, v.etype, 1 << i)) for v in norm(tot[s])]
                       for s in range(lin.nslots)]
        else:
            partner = _warp_exchange(em, etypes, tot, lin.nslots, 5 + i)
        new_pre, new_tot = [], []
        for s in range(lin.nslots):
            if kind == "reg":       # which half is known statically
                if bool(s >> i & 1) != reverse:
                    new_pre.append(_combine(em, op, pre[s], partner[s]))
                    new_tot.append(_combine(em, op, tot[s], partner[s]))
                else:
                    new_pre.append(pre[s])
                    new_tot.append(_combine(em, op, partner[s], tot[s]))
                continue
            later_then = _combine(em, op, pre[s], partner[s])       # this element in the later half
            tot_later = _combine(em, op, tot[s], partner[s])
            tot_earlier = _combine(em, op, partner[s], tot[s])
            q = _tid_predicate(em, 1 << (i if kind == "lane" else 5 + i), any_set=True)
            if reverse:
                nq = kb.reg(PRED)
                kb.emit(f"not.pred \t{nq}, {q}")
                q = nq
            new_pre.append(pick(q, later_then, pre[s]))
            new_tot.append(pick(q, tot_later, tot_earlier))
        pre, tot = new_pre, new_tot
    for k, (r, t) in enumerate(zip(op.results, etypes)):
        em.bind(r, Tile(t, ins[0].shape, layout, [em.in_layout(pre[s][k], None).reg for s in range(lin.nslots)]))
    return True


def _warp_exchange(em, etypes, values, nslots, tid_bit):
    """values[slot][operand] of the thread whose tid differs in bit `tid_bit`,
    through a shared buffer of (threads x slots) elements per operand."""
    kb = em.kb
    bufs = _buffers(em, etypes, em.group.threads * nslots)[0]
    me, other = kb.reg(B32), kb.reg(B32)
    kb.emit(f"mul.lo.u32 \t{me}, {em.group.tid}, {nslots}")
    kb.emit(f"xor.b32 \t{other}, {em.group.tid}, {1 << tid_bit}")
    kb.emit(f"mul.lo.u32 \t{other}, {other}, {nslots}")
    em.sync()
    for k, (t, b) in enumerate(zip(etypes, bufs)):
        es = byte_size(t)
        addr = _addr(em, b, me, es)
        for s in range(nslots):
            _st(em, em.in_layout(values[s][k], None), f"{addr}+{s * es}", None)
    em.sync()
    out = [[None] * len(etypes) for _ in range(nslots)]
    for k, (t, b) in enumerate(zip(etypes, bufs)):
        es = byte_size(t)
        addr = _addr(em, b, other, es)
        for s in range(nslots):
            out[s][k] = _ld(em, t, f"{addr}+{s * es}")
    return out


@handles("cuda_tile.scan", "nv_tileas.scan")
def _scan(em, op):
    kb = em.kb
    ins = [em.tile(v) for v in op.operands]
    shape = ins[0].shape
    dim = op.attributes["dim"].value
    reverse = bool(getattr(op.attributes.get("reverse"), "value", False))
    if _scan_distributed(em, op, ins, dim, reverse):
        return
    n, inner = shape[dim], _prod(shape[dim + 1:])
    total = _prod(shape)
    etypes = [t.etype for t in ins]
    if "identities" not in op.attributes:
        em.fail("needs the combiner's identities (the 'identities' attribute)")
    ids = [_identity(em, a, t) for a, t in zip(op.attributes["identities"], etypes)]
    bufs = _buffers(em, etypes, total, copies=2)
    em.sync()
    for t, b in zip(ins, bufs[0]):
        em.store_shared(t, b, linear_offsets(shape))
    em.sync()
    src, dst = 0, 1
    off = 1
    while off < n:
        for e, pred in _thread_items(em, total):
            j, has = kb.reg(B32), kb.reg(PRED)
            kb.emit(f"shr.u32 \t{j}, {e}, {_log2(inner)}")
            kb.emit(f"and.b32 \t{j}, {j}, {n - 1}")
            if reverse:   # position counted from the end
                kb.emit(f"sub.u32 \t{j}, {n - 1}, {j}")
            kb.emit(f"setp.ge.u32 \t{has}, {j}, {off}")
            nb = kb.reg(B32)   # the neighbour (itself when it has none)
            step = off * inner
            kb.emit(f"{'add' if reverse else 'sub'}.u32 \t{nb}, {e}, {step}")
            kb.emit(f"selp.b32 \t{nb}, {nb}, {e}, {has}")
            cur, acc, outs = [], [], []
            for k, t in enumerate(etypes):
                es = byte_size(t)
                cur.append(_ld(em, t, _addr(em, bufs[src][k], e, es)))
                prev = _ld(em, t, _addr(em, bufs[src][k], nb, es))
                pick = em.new_tile(t, ())
                select(em, pick.reg, has, prev.reg, ids[k].reg, t)
                acc.append(pick)
                outs.append(_addr(em, bufs[dst][k], e, es))
            res = _combine(em, op, cur, acc)
            for v, a in zip(res, outs):
                _st(em, em.in_layout(v, None), a, pred)
        em.sync()
        src, dst = dst, src
        off *= 2
    layout = em.layout_for(shape)
    for r, t, b in zip(op.results, etypes, bufs[src]):
        em.bind(r, em.load_shared(t, shape, layout, b, linear_offsets(shape)))
