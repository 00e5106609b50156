"""Tensor-core operands copied into shared memory, in the no-swizzle K-major
canonical layout that wgmma (sm_90a) and tcgen05.mma (sm_100a) both read
(PTX ISA, "Matrix Descriptor" / "Shared Memory Matrix Layout").

A core matrix is 8 rows (along M for A, N for B) of 16 bytes of K (16 / esize
elements), 128 contiguous bytes with row r at 16 r. Core matrix (mn block,
k block) sits at 128 mn + 16 MN k bytes, so the descriptor's SBO (next core
matrix along M/N) is 128 and its LBO (next along K) 16 MN. One instruction's
K step is 32 bytes, two core matrices, whatever the element size (k16 for
16-bit types, k8 for tf32, k32 for 8-bit), so its offsets are the same in
bytes for every type.
"""
from __future__ import annotations

from math import gcd

from ...dialects.nv_tileas.layouts import blocked, linear_offsets
from ...dialects.nv_tileas.linear_layout import to_linear
from .ptxtypes import B32, B64, byte_size
from .values import Tile


def encode(x: int) -> int:
    """matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4."""
    return (x & 0x3FFFF) >> 4


def descriptor(em, start: str, lbo: int, sbo: int, mode: int, extra: int = 0) -> str:
    """The 64-bit matrix descriptor of a tile at shared address `start` (a
    register); `extra`: more fixed bits (tcgen05's version field)."""
    kb = em.kb
    enc = kb.reg(B32)
    kb.emit(f"and.b32 \t{enc}, {start}, {0x3FFFF}")
    kb.emit(f"shr.u32 \t{enc}, {enc}, 4")
    d = kb.reg(B64)
    kb.emit(f"cvt.u64.u32 \t{d}, {enc}")
    kb.emit(f"or.b64 \t{d}, {d}, {(encode(lbo) << 16) | (encode(sbo) << 32) | (mode << 62) | extra}")
    return d


class Canonical:
    """A copied operand at `addr`: K-major, `rows` (M or N) rows of core
    matrices. `extra`: the descriptor's fixed bits beyond wgmma's."""
    k_major = True

    def __init__(self, addr, rows, extra=0):
        self.addr, self.rows, self.extra = addr, rows, extra

    def descriptor(self, em, start):
        return descriptor(em, start, 16 * self.rows, 128, 0, self.extra)

    def mn_offset(self, n: int) -> int:
        return 16 * n

    def k_step(self, step: int) -> int:
        return 2 * 16 * self.rows * step


def copy_canonical(em, tile: Tile, shape4, coeffs, base: str):
    """Store `tile` (2-D, row-major reshaped to `shape4`) at `base` with element
    offsets sum(c_d * coeffs_d) over the 4-D coordinates, through a blocked
    4-D layout (a move through the group scratch for a register tile)."""
    layout4 = blocked(shape4, em.group.threads)
    if tile.home is not None:
        t4 = em.load_shared(tile.etype, shape4, layout4, tile.home, linear_offsets(shape4))
    else:
        t = em.regs_of(tile)
        if t.splat:
            t4 = Tile(t.etype, shape4, layout4, [t.reg] * layout4.nslots)
        else:
            t4 = em.remap(t, shape4, layout4, linear_offsets(shape4))
    em.store_shared(t4, base, coeffs)


def _byte_offset(mn: int, k: int, mn_len: int, es: int) -> int:
    ke = 16 // es
    return 16 * mn + 16 * mn_len * (k // ke) + es * (k % ke)


_DIRECT: dict = {}


def _direct_plan(layout, es: int, mn_dim: int):
    """(alignment of the threads' parts, per-slot byte constants) when every
    slot of `layout` lands at its thread's part plus a constant in the
    canonical layout (the thread's K coordinate and the slot's never carry
    across a core-matrix row), else None."""
    key = (layout, es, mn_dim)
    if key in _DIRECT:
        return _DIRECT[key]
    plan = None
    lin = to_linear(layout)
    # every thread holds elements of its own (a replica would store again what replica 0 does)
    if lin is not None and len(layout.shape) == 2 and getattr(layout, "replicas", 1) == 1:
        ke, k_dim = 16 // es, 1 - mn_dim
        mn_len = layout.shape[mn_dim]
        offs = [tuple(layout.offsets(s)) for s in range(layout.nslots)]
        bases = [lin.thread_coords(0, t) for t in range(layout.threads)]
        exact = all(lin.thread_coords(s, t) == tuple(b + o for b, o in zip(bases[t], offs[s]))
                    for t in range(layout.threads) for s in range(layout.nslots))
        if exact and max(b[k_dim] % ke for b in bases) + max(o[k_dim] % ke for o in offs) < ke:
            align = 0
            for b in bases:
                align = gcd(align, _byte_offset(b[mn_dim], b[k_dim], mn_len, es))
            plan = (align or 128, [_byte_offset(o[mn_dim], o[k_dim], mn_len, es) for o in offs])
    _DIRECT[key] = plan
    return plan


def store_direct(em, t: Tile, addr: str, mn_dim: int) -> bool:
    """Store register tile `t` (another dot's accumulator, an element-wise
    result: any layout whose slots sit at its thread's coordinates plus a
    constant) straight into the canonical layout at `addr`, without the move
    through the scratch copy_canonical makes. `mn_dim`: 0 for A (rows are M),
    1 for B (columns are N). False (nothing emitted) when the layout does not
    allow it."""
    if t.regs is None or t.home is not None or t.splat:
        return False
    es = byte_size(t.etype)
    plan = _direct_plan(t.layout, es, mn_dim)
    if plan is None:
        return False
    align, consts = plan
    kb = em.kb
    ke = 16 // es
    mn_len = t.layout.shape[mn_dim]
    k_dim = 1 - mn_dim
    bases = em.bases(t.layout)
    mn, k = bases[mn_dim], bases[k_dim]
    off = kb.reg(B32)
    t1 = kb.reg(B32)
    kb.emit(f"shr.u32 \t{t1}, {k}, {ke.bit_length() - 1}")
    kb.emit(f"mul.lo.u32 \t{off}, {t1}, {16 * mn_len}")
    kb.emit(f"and.b32 \t{t1}, {k}, {ke - 1}")
    kb.emit(f"mad.lo.u32 \t{off}, {t1}, {es}, {off}")
    kb.emit(f"mad.lo.u32 \t{off}, {mn}, 16, {off}")
    where = kb.reg(B32)
    kb.emit(f"add.u32 \t{where}, {addr}, {off}")
    st = {1: ".b8", 2: ".b16", 4: ".b32"}[es]
    slot, n = 0, len(consts)
    while slot < n:
        run = 1
        for r in (4, 2):       # consecutive elements of one core-matrix row, aligned for every thread
            if slot + r <= n and all(consts[slot + i] == consts[slot] + i * es for i in range(r)) \
                    and (consts[slot] % (r * es)) == 0 and align % (r * es) == 0 and r * es <= 16:
                run = r
                break
        regs = [t.at(slot + i) for i in range(run)]
        what = ("{" + ", ".join(regs) + "}") if run > 1 else regs[0]
        kb.emit(f"st.shared{f'.v{run}' if run > 1 else ''}{st} \t[{where}+{consts[slot]}], {what}")
        slot += run
    return True


class _CopyLog:
    """A group's operand-copy buffers; per buffer, its last copy (block run,
    sequence number in emission order); per block run, its latest copy
    (sequence number, buffer)."""
    def __init__(self):
        self.syms, self.last, self.latest, self.seq = [], {}, {}, 0


def _copy_buffer(em, tag: str):
    """(buffer, past): the buffer a dot copies its operands into, and whether
    every thread is known to be past its previous readers already (or the
    barrier that makes it so is placed already: _barrier_after_trip).

    wgmma dots (em.pingpong) alternate between two buffers. Each copy is
    followed by the group's barrier, and a dot that copied waits for its wgmma
    at once (wait_group 0), so when the last copy into a buffer and this one
    sit in one block with another copy between them (ops of one block run in
    order, each once), that copy's barrier already came after the first dot's
    reads in every thread: the barrier before writing is not needed. Else (the
    first copies of a block, a buffer last used in another block) it is kept,
    but in a loop trip (_trip_body) the previous trip's copies count as well.
    One buffer otherwise: tcgen05 (whose reads end at its commit, not here), and
    blocks of fewer than three dots, where a second buffer would save no
    barrier."""
    g = em.group
    log = g.owners.get(f"{tag}-copies")
    if log is None:
        log = g.owners[f"{tag}-copies"] = _CopyLog()
    parent = getattr(em.op, "parent", None)
    # (a block emitted twice, a peeled trip and a loop's body, is two runs of its own)
    block = None if parent is None else (parent, em.block_runs.get(parent, 0))
    # (a second buffer pays from a third copy in a block on: count its dots)
    count = 2 if em.pingpong and tag == "wgmma" and block is not None and sum(
        o.name == "nv_tileas.dot" for o in parent.ops) >= 3 else 1
    latest = log.latest.get(block)         # (seq, buffer) of this run's latest copy

    def past(i):    # a copy of this run came after the last copy into buffer i, in this run
        last = log.last.get(i)
        return last is not None and last[0] == block and latest[0] > last[1]
    ready = [i for i in range(count) if past(i)]
    if ready:
        i = ready[0]
    else:       # not the buffer the latest copy of this block used
        i = 0 if count == 1 or latest is None else 1 - latest[1]
    body = _trip_body(parent) if not ready and count == 2 and i not in log.last else None
    while len(log.syms) <= i:
        log.syms.append(em.kb.shared_buffer(1, 128, tag))
    log.seq += 1
    log.last[i] = (block, log.seq)
    log.latest[block] = (log.seq, i)
    if body is not None:
        _barrier_after_trip(em, log, block, i, (body, em.block_runs.get(body, 0)))
    return log.syms[i], bool(ready) or body is not None


_WHILE_LOOPS = ("cuda_tile.loop", "scf.while")


def _trip_body(block):
    """The body of the loop whose every trip runs `block` once, from start to end: `block`
    itself or pipeline regions nested at its top level, the loop a for loop inside no other loop,
    left only at its end. Then a buffer no copy wrote before the loop is written first in the
    first trip, and a later trip follows the previous one's end with nothing between. None
    otherwise."""
    from .carried import _LOOPS as FOR_LOOPS
    from .ops_memory import _ONCE
    from .wgmma_prefetch import EXITS
    op = getattr(block, "parent_op", None)
    while op is not None and op.name in _ONCE:     # (regions nest: one per pipeline read)
        block = op.parent
        op = getattr(block, "parent_op", None)
    if op is None or op.name not in FOR_LOOPS or op.regions[0].blocks[0] is not block:
        return None
    up = op.parent_op
    while up is not None:
        if up.name in FOR_LOOPS or up.name in _WHILE_LOOPS:
            return None
        up = up.parent_op
    ops = list(block.ops)
    end = ops[-1] if ops else None
    if any(x.name in EXITS and x is not end for x in op.walk()):
        return None
    return block


def _barrier_after_trip(em, log, block, i, trip):
    """The first copy into buffer `i` in a loop trip (`block`: the run of the copy's block,
    `trip`: the loop body's): its previous readers are the previous trip's. Its barrier goes
    where the copy starts, decided once the trip is emitted: none when a later copy of the
    block's run came after the trip's last copy into `i` (that copy's barrier followed every
    thread's reads of `i`, as within one run), else the group's barrier. (In the first trip
    nothing came before: no copy wrote `i` before the loop, and a phase reusing other
    buffers' bytes begins with a barrier of its own.)"""
    section = em.kb.section()
    group = em.group

    def decide(em):
        last, latest = log.last.get(i), log.latest.get(block)
        if last is not None and last[0] == block and latest[0] > last[1]:
            return
        saved, em.group = em.group, group
        try:
            with em.kb.into(section):
                em.sync()
        finally:
            em.group = saved
    em.after_block.setdefault(trip, []).append(decide)


def stage(em, a, b, M: int, N: int, K: int, sa, sb, tag: str, extra: int = 0):
    """(A, B, copied): `sa`/`sb` where the caller has them (read in place, or
    A held elsewhere), each missing one copied into the canonical layout, in
    one buffer the group's dots share, grown to the largest (a dot's tensor-core
    reads are done, and a barrier followed, before the next dot writes it)."""
    need = [x for x, s in ((a, sa), (b, sb)) if s is None]
    if not need:
        return sa, sb, False
    kb = em.kb
    es = byte_size(a.etype if sa is None else b.etype)
    ke = 16 // es                    # elements of one 16-byte core-matrix row
    sizes = {id(a): M * K * es, id(b): N * K * es}
    total = sum(sizes[id(x)] for x in need)
    sym, past = _copy_buffer(em, tag)
    kb.grow_shared(sym, total)
    base = em.addr_of(sym)
    if not past:
        em.sync()                    # every thread is past the previous use of the buffer
    off = 0
    out = {}
    for x in need:
        addr = base
        if off:
            addr = kb.reg(B32)
            kb.emit(f"add.u32 \t{addr}, {base}, {off}")
            em.align_of[addr] = 128
        if store_direct(em, x, addr, 0 if x is a else 1):
            pass
        elif x is a:   # (M/8, 8, K/ke, ke): core matrix (mb, kb) at 128 mb + 16 M kb bytes
            copy_canonical(em, a, (M // 8, 8, K // ke, ke), (8 * ke, ke, M * ke, 1), addr)
        else:        # (K/ke, ke, N/8, 8): B^T's core matrix (nb, kb) at 128 nb + 16 N kb bytes
            copy_canonical(em, b, (K // ke, ke, N // 8, 8), (N * ke, 1, 8 * ke, ke), addr)
        out[id(x)] = Canonical(addr, M if x is a else N, extra)
        off += sizes[id(x)]
    return (sa or out[id(a)]), (sb or out[id(b)]), True
