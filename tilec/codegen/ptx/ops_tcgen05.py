"""nv_tileas.dot on Blackwell's fifth-generation tensor cores: tcgen05.mma with
the accumulator in tensor memory (sm_100a, sm_103a).

When: every rank-2 dot whose types tcgen05 has (f16/bf16, tf32, e4m3/e5m2,
s8/u8 into s32) and whose shape fits (operands.tcgen05_fits and
nv_tileas.layouts.tmem_acc: whole warpgroups starting at a warpgroup, M 64
or a multiple of 128, N a multiple of 16, K a whole number of 32-byte steps,
the operand copies within the staging limit). Layout assignment names such
a dot's accumulator `#nv_tileas<layout tmem>` (TmemAcc). Other dots stay on
mma.sync, which sm_100a still has.

How (PTX ISA, "TensorCore 5th Generation Family Instructions"), per dot:

* Operands. A tile in a swizzled 1024-aligned slot is read in place through
  the same canonical layouts wgmma reads (ops_wgmma._smem_operand); any other
  is copied into a buffer of its own in the no-swizzle K-major layout (8 x 16
  byte core matrices, ops_wgmma._canonical, generalized to any element size),
  then `fence.proxy.async.shared::cta`: the tensor core reads shared memory
  through the async proxy. A 16- or 32-bit A computed in registers
  (attention's P) goes to tensor memory instead (operands.tmem_a_columns):
  its threads hold it by rows, as tcgen05.st writes them, so each stores its
  rows packed into 32-bit columns after D's, and the MMAs name it `[a-tmem]`.
  The descriptors are wgmma's plus the version field
  (bits 46-48 = 1) tcgen05 requires; the swizzle field (61-63) encodes the
  same modes with the same bits.
* Tensor memory. The group's first warp allocates the columns (tcgen05.alloc
  writes their address to a shared word; a power of two, at least 32, and
  the most any dot of the group needs: a CTA's allocations must not grow),
  and gives them back once every thread has read its result: an allocation
  lives inside one dot (or one K loop), so no exit path can leak it. Row block b
  (128 rows, lanes 0..127) of D lives at columns [b N, (b + 1) N); a 64-row
  D is two M = 64 MMAs of N/2 columns, lanes 0-15 and 16-31 of each quarter.
* A K loop whose accumulator only this dot touches (the wgmma in-flight
  rules) keeps it in tensor memory for the whole loop: stored in the
  preheader, read back after the loop. When both operands are read in place
  from pipeline slots (two stages or more), one commit stays in flight: after
  issuing iteration i, the leader waits for iteration i - 1's commit and
  releases its slots for the group's warps (mbarrier.arrive with a count);
  the other threads wait for nothing inside the loop, not even for a slot's
  `full` barrier (_leader_waits: a ring's waiter must take part in its
  releases, or it may fall two phases behind).
* Only the leader waits on the commit mbarriers (_Tmem: a parity names a
  phase only while the barrier is less than two phases past it); the rest
  of the group learns of a completion through a barrier after it.
* The accumulator C goes in with tcgen05.st (32x32b: thread t of the group
  writes row t of its row blocks, TmemAcc), unless it is a zero splat (the
  first MMA of each row block then has enable-input-d false).
* One thread issues the MMAs (M = 128 per row block, N, K = 32 bytes per
  step; the 32-bit instruction descriptor carries the types, the majorness of
  A and B, N >> 3 and M >> 4) and tcgen05.commit, which arrives on one of
  the group's two mbarriers when they are done. The leader waits on it, a
  group barrier follows, and every thread reads its rows back with
  tcgen05.ld and tcgen05.wait::ld.
* The tcgen05.fence::before/after_thread_sync pairs order the tensor-memory
  accesses around the barriers that separate threads (st before the MMAs,
  the reads before the dealloc).
"""
from __future__ import annotations

from ...dialects.cuda_tile.divisibility import splat_scalar
from ...dialects.nv_tileas.layouts import TmemAcc, tmem_acc
from ...dialects.nv_tileas.operands import tcgen05_fits, tmem_a_columns
from ...ir.types import IntegerType
from .numeric import float_name
from .ops_dot import BACKENDS, _mma_acc_regs, _mma_result, _signed as _dot_signed
from .canonical import Canonical, encode as _encode, stage
from .ptxtypes import B32, PRED, byte_size
from .values import Tile
from .wgmma_inflight import InFlight, start

# element type -> (kind, the A/B type field of the instruction descriptor)
KINDS = {"f16": ("f16", 0), "bf16": ("f16", 1), "tf32": ("tf32", 2), "f32": ("tf32", 2),
         "f8E4M3FN": ("f8f6f4", 0), "f8E5M2": ("f8f6f4", 1)}
DESC_VERSION = 1 << 46          # shared-memory descriptor bits 46-48: 0b001 on tcgen05
# columns per tcgen05.ld/st: 32 registers at once, not the 128 one instruction
# may move (ptxas needs them all free at that instruction: a consumer entering
# with setmaxnreg's share could not find 128 beside its 128 accumulators)
CHUNK = 32


def _kind(t, signed=True):
    """(kind, descriptor type code) of an operand element type, or None."""
    if isinstance(t, IntegerType):
        return ("i8", 1 if signed else 0) if t.width == 8 else None
    return KINDS.get(float_name(t))


def tcgen05_layout(em, op, a_shape=None, c_shape=None):
    """The TmemAcc layout of dot `op`'s (M, N) result when it runs on tcgen05
    in this group, else None."""
    if not em.target.tcgen05 or em.mma_sync_only:
        return None
    a_shape = tuple(a_shape or op.operands[0].type.shape)
    c_shape = tuple(c_shape or op.results[0].type.shape)
    g = em.group
    shapes = (a_shape, c_shape) if len(a_shape) == 2 and len(c_shape) == 2 else None
    # short of shared memory (compile_ops' fallback, as the schedule was told): no operand
    # copies, which take a buffer of their own where mma.sync stages through the group scratch
    if not tcgen05_fits(op, g.threads, getattr(g, "first_thread", 0), shapes, copies=em.copies):
        return None
    return tmem_acc(c_shape, g.threads)


def _signed(op, i):
    return _dot_signed(op, "signedness_a" if i == 0 else "signedness_b")


def instruction_descriptor(kind: str, ta: int, tb: int, a_mn: bool, b_mn: bool, m: int, n: int) -> int:
    """The 32-bit instruction descriptor of kind::f16/tf32/f8f6f4/i8 (dense, no
    negation): D type (F32 = 1, S32 = 2) at bits 4-5, A and B types at 7-9 and
    10-12, transpose (MN-major) A and B at 15 and 16, N >> 3 at 17-22, M >> 4
    at 24-28."""
    dtype = 2 if kind == "i8" else 1
    return (dtype << 4) | (ta << 7) | (tb << 10) | (int(a_mn) << 15) | (int(b_mn) << 16) \
        | ((n >> 3) << 17) | ((m >> 4) << 24)


def _columns(m: int, n: int, a_cols: int = 0) -> int:
    """Tensor-memory columns to allocate for an M x N accumulator (and `a_cols`
    more for an A read from tensor memory): a power of two, at least 32."""
    need = (n // 2 if m == 64 else (m // 128) * n) + a_cols
    cols = 32
    while cols < need:
        cols *= 2
    return cols


class _Tmem:
    """The group's tcgen05 state: a shared word tcgen05.alloc writes the address
    to, two mbarriers the commits arrive on in turn, and `issued`, the group's
    commits so far. Commit k arrives on mbarrier k % 2 and completes its phase
    k / 2: waiting for it is a try_wait with parity (k / 2) % 2 there. With two
    barriers one commit may stay in flight while the next is issued (a loop
    waits for the previous iteration's). Only the leader, which issues the
    commits, waits on them: a parity names a phase only while the barrier is
    less than two phases past it, which a thread that could fall behind the
    leader would not know. The others learn of a completion through a group
    barrier after the leader's wait (_handoff)."""

    def __init__(self, em):
        kb = em.kb
        self.slot = kb.shared_buffer(24, 8, "tmem", span=kb.WHOLE_KERNEL)
        self.issued = kb.reg(B32)
        lead = em.leader()
        with em._prologue():
            kb.emit(f"mov.u32 \t{self.issued}, 0")
            kb.emit(f"@{lead} mbarrier.init.shared.b64 \t[{self.slot}+8], 1")
            kb.emit(f"@{lead} mbarrier.init.shared.b64 \t[{self.slot}+16], 1")

    def barrier(self, em, back: int) -> tuple:
        """(mbarrier address, parity) of commit `issued - back`."""
        kb = em.kb
        k = kb.reg(B32)
        kb.emit(f"sub.u32 \t{k}, {self.issued}, {back}")
        addr, parity = kb.reg(B32), kb.reg(B32)
        kb.emit(f"and.b32 \t{addr}, {k}, 1")
        kb.emit(f"mad.lo.u32 \t{addr}, {addr}, 8, {em.addr_of(self.slot)}")
        kb.emit(f"add.u32 \t{addr}, {addr}, 8")
        kb.emit(f"shr.u32 \t{parity}, {k}, 1")
        kb.emit(f"and.b32 \t{parity}, {parity}, 1")
        return addr, parity

    def wait(self, em, back: int):
        """The leader (the only thread here) waits for commit `issued - back`."""
        em.wait_parity(*self.barrier(em, back))
        em.kb.emit("tcgen05.fence::after_thread_sync")


def _state(em) -> _Tmem:
    g = em.group
    got = g.owners.get("tcgen05")
    if got is None:
        got = g.owners["tcgen05"] = _Tmem(em)
        got.cols = _group_columns(em)
    return got


AGENT_SWITCH = "nv_tileas.async.pipeline.agent_switch"

# other ops' tensor-memory needs, need(op, group) -> columns or None
# (ops_tcgen05_scaled registers block-scaled MMA's: accumulator and scale factors)
COLUMN_NEEDS: list = []


def _group_columns(em) -> int:
    """The columns every allocation of this group takes: the most any of its
    tcgen05 dots needs (the ISA: the columns one CTA allocates must not grow
    from one tcgen05.alloc to the next)."""
    op, region = em.op, None
    while op.parent_op is not None and region is None:
        parent = op.parent_op
        if parent.name in (AGENT_SWITCH, "cuda_tile.entry"):
            region = next(r for r in parent.regions if op.parent in r.blocks)
        op = parent
    g = em.group
    need = 32
    for x in (x for block in (region.blocks if region is not None else ()) for top in block.ops
              for x in top.walk()):
        if x.name == "nv_tileas.dot" and len(x.operands) >= 3:
            a_shape, c_shape = tuple(x.operands[0].type.shape)[-2:], tuple(x.results[0].type.shape)[-2:]
            if len(a_shape) == 2 and tcgen05_fits(x, g.threads, getattr(g, "first_thread", 0), (a_shape, c_shape),
                                                  copies=em.copies):
                need = max(need, _columns(a_shape[0], c_shape[1], tmem_a_columns(x, g.threads)))
        for need_of in COLUMN_NEEDS:
            need = max(need, need_of(x, g) or 0)
    return need


def _first_warp(em) -> str:
    """A predicate true in the group's first warp (the one that allocates)."""
    return em.group_value("warp0", PRED, lambda p: em.kb.emit(f"setp.lt.u32 \t{p}, {em.group.tid}, 32"))


def _in_warp0(em, text: str):
    kb = em.kb
    skip = kb.label("tmem_skip")
    kb.emit(f"@!{_first_warp(em)} bra.uni \t{skip}")
    kb.emit(text)
    kb.place(skip)


def _staged(em, a, b, M, N, K, sa=None):
    """(A, B) as ops_wgmma._Smem operands: in place where they sit in a swizzled
    slot, else copied into the no-swizzle K-major layout (canonical.stage).
    `sa`: A's operand when it is not in shared memory (_TmemA)."""
    from .ops_wgmma import _smem_operand
    sa = sa or _smem_operand(em, a, M, K, k_along_rows=False)
    sb = _smem_operand(em, b, K, N, k_along_rows=True)
    if M == 64 and sb is not None and not sb.k_major and (sb.es * N // 2) % 128:
        sb = None        # the second half's start would fall inside a swizzle atom
    return stage(em, a, b, M, N, K, sa, sb, "tcgen05", DESC_VERSION)


def _Canonical(addr, rows):
    """A copied operand as tcgen05 reads it (its descriptors carry the version field)."""
    return Canonical(addr, rows, DESC_VERSION)


def _desc(em, s, start):
    """tcgen05's descriptor of operand `s`: wgmma's, with the version field (a
    Canonical copy made here carries it already)."""
    from .ops_wgmma import _Smem
    return s.descriptor(em, start, DESC_VERSION) if isinstance(s, _Smem) else s.descriptor(em, start)


def _zero_accumulator(op, c: Tile) -> bool:
    """Whether dot `op`'s accumulator `c` is a splat zero: a constant seen
    through layout conversions (which may have spread it over registers)."""
    if c.splat and c.reg in ("0f00000000", "0"):
        return True
    v = op.operands[2]
    d = getattr(v, "op", None)
    while d is not None and d.name == "nv_tileas.convert_layout":
        v = d.operands[0]
        d = getattr(v, "op", None)
    return splat_scalar(v) == 0


def _alloc(em, st, cols: int):
    """Warp 0 allocates `cols` columns; every thread's (lane-quarter) address of them."""
    kb = em.kb
    _in_warp0(em, f"tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 \t[{st.slot}], {cols}")
    kb.emit("tcgen05.fence::before_thread_sync")
    em.sync()            # the address is written (and every operand copy done)
    kb.emit("tcgen05.fence::after_thread_sync")
    tmem = kb.reg(B32)
    kb.emit(f"ld.shared.u32 \t{tmem}, [{st.slot}]")
    return tmem


def _rows_address(em, tmem: str, layout: TmemAcc, pack: int = 1) -> str:
    """This thread's first row block and columns (TmemAcc): lane quarter
    32 (warp % 4) in bits 16-31; warpgroup g's row block g % row_groups at
    column (g % row_groups) N, its column range at + (g / row_groups) cols.
    `pack` elements share a 32-bit column (an A in tensor memory)."""
    kb = em.kb
    n = layout.shape[1] // pack
    warp = kb.reg(B32)
    kb.emit(f"shr.u32 \t{warp}, {em.group.tid}, 5")
    mine = kb.reg(B32)
    kb.emit(f"and.b32 \t{mine}, {warp}, 3")
    kb.emit(f"shl.b32 \t{mine}, {mine}, 21")
    if layout.threads > 128:
        g = kb.reg(B32)
        kb.emit(f"shr.u32 \t{g}, {warp}, 2")
        for parts, scale in ((layout.row_groups, n), (layout.col_groups, layout.cols // pack)):
            if parts > 1:
                part = kb.reg(B32)
                kb.emit(f"and.b32 \t{part}, {g}, {parts - 1}")
                kb.emit(f"mad.lo.u32 \t{mine}, {part}, {scale}, {mine}")
            rest = kb.reg(B32)
            kb.emit(f"shr.u32 \t{rest}, {g}, {parts.bit_length() - 1}")
            g = rest
    kb.emit(f"add.u32 \t{mine}, {mine}, {tmem}")
    return mine


def _move(em, what: str, mine: str, acc, layout: TmemAcc, pack: int = 1):
    """tcgen05.st (`what` "st") or .ld of this thread's accumulator registers
    `acc` (TmemAcc slot order; `pack` elements to a register and column; or a
    function of (first, end) making those registers just before their st) at
    its rows `mine`, CHUNK columns at a time, and the wait for them."""
    kb = em.kb
    M, N = layout.shape
    N //= pack
    cols, gr = layout.cols // pack, layout.row_groups
    for i in range(layout.blocks):
        for c0 in range(0, cols, CHUNK):
            n = min(CHUNK, cols - c0)
            where = mine
            if gr * i * N + c0:
                where = kb.reg(B32)
                kb.emit(f"add.u32 \t{where}, {mine}, {gr * i * N + c0}")
            lo = i * cols + c0
            regs = ", ".join(acc(lo, lo + n) if callable(acc) else acc[lo:lo + n])
            if what == "st":
                kb.emit(f"tcgen05.st.sync.aligned.32x32b.x{n}.b32 \t[{where}], {{{regs}}}")
            else:
                kb.emit(f"tcgen05.ld.sync.aligned.32x32b.x{n}.b32 \t{{{regs}}}, [{where}]")
    kb.emit(f"tcgen05.wait::{what}.sync.aligned")


def _packed(em, t: Tile, pack: int, first: int, end: int) -> list:
    """Registers `first` .. `end` - 1 of the thread's elements of `t` (slot
    order), `pack` consecutive columns to a 32-bit register, the first in the
    low bits (made here: packing them all before the first store would keep
    them all live)."""
    kb = em.kb
    regs = [t.at(i) for i in range(first * pack, end * pack)]
    if pack == 1:
        return regs
    out = []
    for i in range(0, len(regs), 2):      # 16-bit elements (tmem_a_columns takes no 8-bit A)
        w = kb.reg(B32)
        kb.emit(f"mov.b32 \t{w}, {{{regs[i]}, {regs[i + 1]}}}")
        out.append(w)
    return out


class _TmemA:
    """A dot's A in tensor memory: row block b's K * esize / 4 columns from
    column `col` + b * `per_block` of the allocation (K-major, as the ISA
    takes it)."""
    k_major = True

    def __init__(self, col: int, per_block: int):
        self.col, self.per_block = col, per_block


def _tmem_a(em, op, a, M, K):
    """(A as a TmemAcc register tile, its _TmemA) when the tensor core reads
    dot `op`'s A from tensor memory (tmem_a_columns), else (a, None)."""
    from .ops_wgmma import _smem_operand
    if not tmem_a_columns(op, em.group.threads) or a.view is not None or a.transpose_of is not None \
            or (a.regs is None and not a.splat) or _smem_operand(em, a, M, K, k_along_rows=False) is not None:
        return a, None
    N = op.results[0].type.shape[-1]
    es = byte_size(a.etype)
    return em.in_layout(a, tmem_acc((M, K), em.group.threads)), _TmemA((M // 128) * N, K * es // 4)


def _store_a(em, tmem: str, a: Tile, sa: _TmemA):
    """Every thread writes its rows of A (TmemAcc) into A's columns."""
    pack = 4 // byte_size(a.etype)
    mine = _rows_address(em, tmem, a.layout, pack)
    kb = em.kb
    at = kb.reg(B32)
    kb.emit(f"add.u32 \t{at}, {mine}, {sa.col}")
    _move(em, "st", at, lambda first, end: _packed(em, a, pack, first, end), a.layout, pack)


def _handoff(em):
    """Tensor-memory accesses of some threads ordered before others' after it."""
    em.kb.emit("tcgen05.fence::before_thread_sync")
    em.sync()
    em.kb.emit("tcgen05.fence::after_thread_sync")


def _issue(em, st, op, sa, sb, tmem, M, N, K, etype, first_overwrites: bool, wait: bool = True):
    """The leader issues every MMA (row block b into columns [b N, (b + 1) N);
    at M = 64 two MMAs, B's column halves into lanes 0-15 and 16-31 of each
    quarter, TmemAcc.half) and the commit; every thread waits for the
    commit's mbarrier phase. A slot read in place that cp.async filled (the
    generic proxy) is fenced for the tensor core's async-proxy reads first
    (ops_wgmma._generic_writes). `wait=False`: commit only (kept in flight)."""
    from .ops_wgmma import _offset
    kb = em.kb
    a_t, b_t = op.operands[0].type.element_type, op.operands[1].type.element_type
    kind, ta = _kind(a_t, _signed(op, 0) if isinstance(a_t, IntegerType) else True)
    tb = _kind(b_t, _signed(op, 1) if isinstance(b_t, IntegerType) else True)[1]
    skip, da, db, on, off = leader_begins(em, op, sa, sb, first_overwrites)
    halves = 2 if M == 64 else 1
    if isinstance(sa, _TmemA):
        da = kb.reg(B32)
        kb.emit(f"add.u32 \t{da}, {tmem}, {sa.col}")
    idesc = instruction_descriptor(kind, ta, tb, not sa.k_major, not sb.k_major, min(M, 128), N // halves)
    for blk in range(max(1, M // 128) * halves):
        d = tmem
        where = (16 << 16) * blk if halves == 2 else blk * N      # M = 64: lanes 16-31; else columns
        if where:
            d = kb.reg(B32)
            kb.emit(f"add.u32 \t{d}, {tmem}, {where}")
        a_off = 0 if halves == 2 or isinstance(sa, _TmemA) else sa.mn_offset(128 * blk)
        b_off = sb.mn_offset(N // 2) if halves == 2 and blk else 0
        for step in range(K * byte_size(etype) // 32):
            if isinstance(sa, _TmemA):     # 32 bytes of K: 8 columns
                das = _tmem_at(em, da, blk * sa.per_block + 8 * step)
            else:
                das = _offset(em, da, _encode(sa.k_step(step) + a_off))
            dbs = _offset(em, db, _encode(sb.k_step(step) + b_off))
            kb.emit(f"tcgen05.mma.cta_group::1.kind::{kind} \t[{d}], {das}, {dbs}, {idesc}, "
                    f"{off if step == 0 else on}")
    commit(em, st, skip, wait)


def _tmem_at(em, base: str, cols: int) -> str:
    """`[base + cols]`: a tensor-memory address operand."""
    if not cols:
        return f"[{base}]"
    r = em.kb.reg(B32)
    em.kb.emit(f"add.u32 \t{r}, {base}, {cols}")
    return f"[{r}]"


def leader_begins(em, op, sa, sb, first_overwrites: bool):
    """The start of the leader's MMAs: the other threads branch to `skip`; slots
    cp.async filled are fenced for the async proxy; the operands' descriptors;
    predicates `on` (true) and `off` (false when the first MMA overwrites D).
    Returns (skip, A descriptor, B descriptor, on, off)."""
    from .ops_wgmma import _generic_writes
    kb = em.kb
    skip = kb.label("tcgen05_issued")
    kb.emit(f"@!{em.leader()} bra \t{skip}")
    if _generic_writes(em, op, True):
        kb.emit("fence.proxy.async.shared::cta")
    da = None if isinstance(sa, _TmemA) else _desc(em, sa, sa.addr)
    db = _desc(em, sb, sb.addr)
    on = kb.reg(PRED)
    kb.emit(f"setp.eq.u32 \t{on}, {em.group.tid}, 0")      # true: only the leader is here
    off = on
    if first_overwrites:
        off = kb.reg(PRED)
        kb.emit(f"not.pred \t{off}, {on}")
    return skip, da, db, on, off


def commit(em, st, skip: str, wait: bool = True):
    """The leader commits its MMAs to the next of the group's mbarriers (and with
    `wait` waits for them); every thread counts the commit, and with `wait` meets
    the others after the leader's wait."""
    kb = em.kb
    mbar, parity = st.barrier(em, 0)
    kb.emit(f"tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 \t[{mbar}]")
    if wait:
        em.wait_parity(mbar, parity)
    kb.place(skip)
    kb.emit(f"add.u32 \t{st.issued}, {st.issued}, 1")
    if wait:
        _handoff(em)          # every thread after the MMAs


def _free(em, tmem: str, cols: int):
    """Every thread is done with the columns (and the MMAs with them): warp 0 frees them."""
    _handoff(em)
    _in_warp0(em, f"tcgen05.dealloc.cta_group::1.sync.aligned.b32 \t{tmem}, {cols}")


class _InFlight(InFlight):
    """A resident accumulator's commit kept in flight for one iteration
    (wgmma_inflight's rules and deferred slot releases): after issuing
    iteration i's MMAs, the threads wait for iteration i - 1's commit and
    release its slots; after the loop, for the last."""

    def __init__(self, em, consumes, st):
        for consume in consumes:
            _leader_waits(em, consume)
        super().__init__(em, consumes)
        self.st = st
        self.prev = em.kb.reg(PRED)
        with em._prologue():
            em.kb.emit(f"setp.ne.u32 \t{self.prev}, 0, 0")

    def _leader_releases(self, em, back: int):
        """The leader waits for commit `issued - back` and arrives on the slots of
        that iteration for the whole group (one arrival per warp, as the warps
        would: the others never wait on a commit, _Tmem)."""
        from .multicast import arrive_empty
        kb = em.kb
        skip = kb.label("tcgen05_waited")
        go = kb.reg(PRED)
        kb.emit(f"and.pred \t{go}, {self.prev}, {em.leader()}")
        kb.emit(f"@!{go} bra \t{skip}")
        self.st.wait(em, back)
        for has, addr, ctas in self.consumes.values():
            arrive_empty(em, has, addr, ctas, count=em.group.threads // 32)
        kb.place(skip)

    def step(self, em):
        self._leader_releases(em, 2)
        em.kb.emit(f"setp.eq.u32 \t{self.prev}, 0, 0")

    def drain(self, em):
        self._leader_releases(em, 1)
        _handoff(em)          # every thread after the last MMAs (the accumulator is read next)
        for has, _, _ in self.consumes.values():
            em.kb.emit(f"setp.ne.u32 \t{has}, 0, 0")
        em.kb.emit(f"setp.ne.u32 \t{self.prev}, 0, 0")


def _leader_waits(em, consume):
    """Only the leader waits for the slots of `consume` (the MMAs it issues are their only
    readers here): a thread that waited on a ring whose releases it takes no part in could
    fall two phases behind, and then take a later fill's phase for the one it waits for."""
    got = em.full_waits.pop(consume, None)
    if got is None:
        return
    before, after = got
    kb, lead = em.kb, em.leader()
    skip = kb.label("full_skipped")
    with kb.into(before):
        kb.emit(f"@!{lead} bra \t{skip}")
    with kb.into(after):
        kb.place(skip)


def _staged_copies(em, a, b, M, N, K) -> bool:
    """Whether _staged would copy an operand (not both read in place)."""
    from .ops_wgmma import _smem_operand
    if _smem_operand(em, a, M, K, k_along_rows=False) is None:
        return True
    sb = _smem_operand(em, b, K, N, k_along_rows=True)
    return sb is None or (M == 64 and not sb.k_major and (sb.es * N // 2) % 128 != 0)


def _resident_frame(em, op, c, layout, rt):
    """The loop frame to keep the accumulator in tensor memory across, or None:
    dot `op` accumulates into the loop's carried registers that only it touches
    (the wgmma in-flight rules: ops_wgmma._in_place, wgmma_inflight.inflight_loop)."""
    from .ops_wgmma import _in_place
    from .wgmma_inflight import inflight_loop
    if c.splat or c.layout != layout or not _in_place(em, op, c, rt):
        return None
    loop = inflight_loop(op)
    frame = next((f for f in reversed(em.loops) if f.op is loop), None) if loop is not None else None
    return frame if frame is not None and frame.preheader is not None and frame.group is em.group else None


def tcgen05_dot(em, op, a, b, c, layout: TmemAcc, rt):
    kb = em.kb
    M, K = a.shape
    N = b.shape[1]
    zero = _zero_accumulator(op, c)
    if not zero:
        c = em.in_layout(c, layout)
    a, ta = _tmem_a(em, op, a, M, K)
    st = _state(em)
    cols = st.cols
    frame = _resident_frame(em, op, c, layout, rt)
    if frame is not None:
        # the columns hold the accumulator for the whole loop: in before, out after
        key = ("tcgen05-acc", id(op))
        got = frame.hoisted.get(key)
        if got is None:
            # copies into a buffer of the dot's own are rewritten every iteration: no commit in flight
            state = None if _staged_copies(em, a, b, M, N, K) else start(em, op, lambda em, cs: _InFlight(em, cs, st))
            frame.hoisted[("tcgen05-inflight", id(op))] = state
            with kb.into(frame.preheader):
                tmem = _alloc(em, st, cols)
                mine = _rows_address(em, tmem, layout)
                _move(em, "st", mine, list(c.regs), layout)
                _handoff(em)
            frame.hoisted[key] = tmem

            def drain(em, tmem=tmem, mine=mine, regs=list(c.regs)):
                _move(em, "ld", mine, regs, layout)
                _free(em, tmem, cols)
            frame.after.append(drain)
        else:
            tmem = got
        sa, sb, copied = _staged(em, a, b, M, N, K, ta)
        if copied:
            kb.emit("fence.proxy.async.shared::cta")
            em.sync()
        if ta is not None:
            # the previous iteration's MMAs are done (A is a register tile: no commit in flight)
            _store_a(em, tmem, a, ta)
            _handoff(em)
        inflight = frame.hoisted.get(("tcgen05-inflight", id(op)))
        _issue(em, st, op, sa, sb, tmem, M, N, K, a.etype, False, wait=inflight is None)
        if inflight is not None:
            inflight.step(em)
        return c
    sa, sb, copied = _staged(em, a, b, M, N, K, ta)
    if copied:
        kb.emit("fence.proxy.async.shared::cta")
    tmem = _alloc(em, st, cols)
    mine = _rows_address(em, tmem, layout)
    acc = _mma_acc_regs(em, c, layout)      # C, or registers for the result (a zero C is dead)
    if ta is not None:
        _store_a(em, tmem, a, ta)
    if not zero:
        _move(em, "st", mine, acc, layout)
    if not zero or ta is not None:
        _handoff(em)
    _issue(em, st, op, sa, sb, tmem, M, N, K, a.etype, zero)
    _move(em, "ld", mine, acc, layout)
    _free(em, tmem, cols)
    return _mma_result(em, rt, (M, N), layout, acc)


BACKENDS.append((tcgen05_layout, TmemAcc, tcgen05_dot))
