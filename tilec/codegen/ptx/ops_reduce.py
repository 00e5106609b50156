"""reduce and scan (cuda_tile's, and nv_tileas's lowered from them), in shared
memory, in the interpreter's combination order.

reduce: the pairwise-halving tree (element j combined with j + m, m = n/2 ...
1), each round spread over the group's threads. scan: Hillis-Steele doubling
(element j combined with j - off, identity below off), double-buffered. Both
orders equal the NumPy interpreter's, so float results match it bit for bit.
The combiner region is emitted once per element handled, on scalar registers.
"""
from __future__ import annotations

from .emitter import handles
from ...dialects.nv_tileas.layouts import linear_offsets
from .numeric import select
from .ptxtypes import B32, PRED, byte_size
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
    kb = em.kb
    ins = [em.tile(v) for v in op.operands]
    shape = ins[0].shape
    dim = op.attributes["dim"].value
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


@handles("cuda_tile.scan", "nv_tileas.scan")
def _scan(em, op):
    kb = em.kb
    ins = [em.tile(v) for v in op.operands]
    shape = ins[0].shape
    dim = op.attributes["dim"].value
    reverse = bool(getattr(op.attributes.get("reverse"), "value", False))
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
