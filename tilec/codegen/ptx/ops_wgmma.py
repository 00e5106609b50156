"""nv_tileas.dot on Hopper's warpgroup tensor cores: wgmma.mma_async (sm_90a).

When: on sm_90a by default (AUTO, operands.wgmma_chosen; layout assignment
names such a dot's accumulator `#nv_tileas<layout wgmma>`) for a dot whose B
is read in place from a swizzled pipeline slot, seen through views
(operands.wgmma_in_place), or whose B is computed in registers
(operands.wgmma_copies_b: mma.sync's B fragments are no layout a computation
leaves, so its path moves such a B through shared memory too) unless the
kernel is short of shared memory; `tilec compile --wgmma` takes it for every
dot that qualifies; `--no-wgmma` keeps mma.sync. Checked by ptxas, by the
test simulator (tests/ptxsim) and on an H100 (tests/gpu; numbers in
docs/decisions.md, "wgmma"; the register-A, transposed, tf32 and copied forms
by the simulator only). A dot that does not qualify runs on mma.sync
(ops_dot._mma_dot) without a word.

Operands (wgmma_dot): each in place where it sits in a swizzled tile (_Smem:
B MN-major as stored or K-major through a transpose; A K-major from a slot or
a shared-layout tile, MN-major through a transpose); else a 16-bit A from
registers (_pack_a: the 7-operand form) when the warpgroups split M only; any
other operand is copied into the no-swizzle K-major canonical layout
(canonical.stage, shared with tcgen05), then `fence.proxy.async.shared::cta`
and the group's barrier: wgmma reads shared memory through the async proxy.

What qualifies (operands.wgmma_fits): a rank-2 dot with f16, bf16 or tf32 A
and B of one type (fp8 too, both K-major in slots) and an f32 accumulator,
run by whole warpgroups over which the accumulator has a WgmmaAcc layout
(M a multiple of 64, N a multiple of 8 up to 256; the warpgroups split M in
64-row chunks, then N), K a whole number of 32-byte steps, and the copies
within operands.WGMMA_STAGE_LIMIT.

How (PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate"):

* Descriptors (64 bits): start address >> 4 in bits 0-13, LBO >> 4 in 16-29,
  SBO >> 4 in 32-45, base offset 0, swizzle mode in bits 62-63. Each
  instruction's A descriptor starts at its band's 64-row chunk and K step, B's
  at its column group's first column and the K step (32 bytes of K: k16 for
  16-bit types, k8 for tf32, k32 for fp8).
* The accumulator registers are written, `wgmma.fence` orders those writes
  before the first wgmma, then every K step issues `tiles_m` m64nNk
  instructions of the warpgroup's N (scale-d = 1: D = A B + D; tf32 and fp8
  take no transpose immediates), one `commit_group` and `wait_group 0` before
  the registers are read again (or 1, when a loop's accumulator stays in
  flight: wgmma_inflight). Accumulator accesses by wgmma of one shape need no
  fence between them (ISA, wgmma.fence).
"""
from __future__ import annotations

from ...dialects.nv_tileas.layouts import WgmmaAcc, wgmma_acc
from ...dialects.nv_tileas.operands import WGMMA_K_MAJOR_ONLY, WGMMA_K_STEP, wgmma_chosen
from .canonical import Canonical, descriptor as _descriptor, encode as _encode, stage
from .numeric import float_name
from .ptxtypes import B32, B64, F32, byte_size
from .values import Tile

FP8_KINDS = {"f8E4M3FN": "e4m3", "f8E5M2": "e5m2"}     # element type -> wgmma's fp8 type
REGISTER_A = ("f16", "bf16")    # A from registers: the 16-bit fragments match the accumulator's


def wgmma_supported(target) -> bool:
    return target.arch == "sm_90a"


def wgmma_layout(em, op, a_shape=None, c_shape=None):
    """The WgmmaAcc layout of `op`'s (M, N) result when the wgmma path is on and
    the dot qualifies (operands.wgmma_chosen: by default where B is read in
    place or computed in registers, the rule layout assignment follows when it
    names the accumulator `#nv_tileas<layout wgmma>`), else None."""
    if not getattr(em, "wgmma", False) or not wgmma_supported(em.target):
        return None
    g = em.group
    shapes = None if a_shape is None else (a_shape, c_shape)
    # short of shared memory (compile_ops' fallback, as the schedule was told): no copies
    if not wgmma_chosen(op, g.threads, AUTO if em.wgmma == AUTO else "all", getattr(g, "first_thread", 0), shapes,
                        copies=em.copies):
        return None
    m = tuple(a_shape or op.operands[0].type.shape)[0]
    n = tuple(c_shape or op.results[0].type.shape)[1]
    return wgmma_acc((m, n), g.threads)


AUTO = "auto"     # em.wgmma: operands.wgmma_chosen's default rule (sm_90a)


class _Smem:
    """An operand wgmma reads where it is: a swizzled tile at `addr` stored
    row-major in rows of `swz.pitch` bytes; `k_major` when K runs along the
    stored rows (A as stored, or B through a transpose)."""

    def __init__(self, addr, swz, k_major, es=2):
        self.addr, self.swz, self.k_major, self.es = addr, swz, k_major, es

    def descriptor(self, em, start, extra: int = 0):
        """`extra`: more fixed bits (tcgen05's version field)."""
        swz = self.swz
        if self.k_major:     # SBO: eight rows; LBO unused with a swizzle
            return _descriptor(em, start, 16, 8 * swz.row_bytes, swz.mode, extra)
        return _descriptor(em, start, swz.panel_bytes, 8 * swz.row_bytes, swz.mode, extra)

    def mn_offset(self, n: int) -> int:
        """Bytes from the operand's start to its row (A: M, B: N) `n`, a multiple of 8
        (64 when MN-major)."""
        swz = self.swz
        if self.k_major:
            return n * swz.row_bytes
        b = self.es * n
        return (b // 128) * swz.panel_bytes + b % 128

    def k_step(self, step: int) -> int:
        """Bytes from the operand's start to its K step `step` (32 bytes of K:
        16 elements of 16 bits, 32 of 8)."""
        swz = self.swz
        if not self.k_major:
            return 16 * step * swz.row_bytes
        kbyte = 32 * step
        return (kbyte // 128) * swz.panel_bytes + kbyte % 128 if swz.pitch > 128 else kbyte


def _smem_operand(em, t: Tile, rows: int, cols: int, k_along_rows: bool):
    """A _Smem for `t` (rows x cols as the dot sees it) when it sits in a
    swizzled, 1024-aligned shared tile wgmma can read in place, else None. A
    (M x K) is K-major as stored; B (K x N) MN-major as stored, K-major when it
    is a transpose of an (N x K) tile. `k_along_rows`: K is the dot's rows (B)."""
    from .ops_dot import transposed_home
    es = byte_size(t.etype)
    if t.home is not None:
        addr, stored_rows, pitch, transposed = t.home, rows, es * cols, False
    else:
        addr, stored_rows, pitch, transposed = transposed_home(em, t), cols, es * rows, True
        if addr is None:
            return None
    swz = em.swizzle_of.get(addr)
    if swz is None or swz.pitch != pitch or swz.rows != stored_rows or em.align_of.get(addr, 1) % 1024:
        return None
    k_major = transposed == k_along_rows
    if es != 2 and not k_major:
        return None          # wgmma reads 8-bit operands K-major only
    return _Smem(addr, swz, k_major, es)


def _warpgroup_offset(em, layout, base: str, stride: int, along_n: bool = False) -> str:
    """`base` moved `stride` bytes per band of warpgroups before this one's
    when several split M (stride: the bytes between their first rows), or
    with `along_n`, per column group before this one's when they split N."""
    groups = layout.col_groups if along_n else layout.row_groups
    if groups == 1:
        return base
    kb = em.kb
    idx = em.warpgroup_index()
    if groups < layout.warpgroups:      # warpgroup g = band * col_groups + column group
        wg, idx = idx, kb.reg(B32)
        if along_n:
            kb.emit(f"and.b32 \t{idx}, {wg}, {groups - 1}")
        else:
            kb.emit(f"shr.u32 \t{idx}, {wg}, {layout.col_groups.bit_length() - 1}")
    out = kb.reg(B32)
    kb.emit(f"mad.lo.u32 \t{out}, {idx}, {stride}, {base}")
    return out


def _a_descriptor(em, sa, layout, M: int, value):
    """The descriptor of this warpgroup's rows of A in place. When A (IR value
    `value`) is defined outside the enclosing loops, it is built once in the
    outermost such loop's preheader (attention's Q, read at every key block)."""
    def build():
        return sa.descriptor(em, _warpgroup_offset(em, layout, sa.addr, sa.mn_offset(M // layout.row_groups)))
    frame = em.hoist_point([value]) if value is not None else None
    if frame is None:
        return build()
    key = ("wgmma-a", sa.addr, M, layout.warpgroups, layout.col_groups, sa.k_major, sa.swz)
    got = frame.hoisted.get(key)
    if got is None:
        with em.kb.into(frame.preheader):
            got = frame.hoisted[key] = build()
    return got


def _pack_a(em, a, layout, M: int, K: int):
    """A in registers, as wgmma's A fragments: per 64-row chunk i and K step s,
    four .b32 registers of two 16-bit elements. The fragment of the m64nNk16 A
    (PTX ISA, register fragment for matrix A) puts (row, column) pairs where the
    f32 accumulator of an M x K product has them (WgmmaAcc with N = K): the 8
    halves of step s are slots 8 s .. 8 s + 7 of the chunk. So a tile already in
    that layout (the probabilities of attention, from the first dot's
    accumulator) moves nothing; any other is converted (em.in_layout)."""
    from .ops_dot import pack_a_fragments
    t = em.in_layout(em.regs_of(a), WgmmaAcc((M, K), layout.threads))
    return pack_a_fragments(em, t, layout.tiles_m, K)


def _issue(em, frags, sa, sb, acc, layout, kind, M: int, N: int, K: int, inflight=None, fence=True,
           a_value=None, wait=True):
    """wgmma.fence, the m64nNk16 instructions of every K step and 64-row chunk
    (A from `sa`'s descriptor, or the register fragments `frags` when `sa` is
    None; B from `sb`'s), commit and wait for them. When the operands' shared
    memory was written through the generic proxy (cp.async, st.shared), the
    proxy fence makes it visible to wgmma's async-proxy reads (`fence`; slots
    TMA filled, written by the async proxy itself, need none). `wait=False`:
    commit only (a prefetched dot waits where its result is read)."""
    kb = em.kb
    if fence:
        kb.emit("fence.proxy.async.shared::cta")
    if sa is not None:
        da = _a_descriptor(em, sa, layout, M, a_value)
        trans_a = 0 if sa.k_major else 1
    # this warpgroup's columns of B (warpgroups that split N)
    db = sb.descriptor(em, _warpgroup_offset(em, layout, sb.addr, sb.mn_offset(layout.n_per), along_n=True))
    trans_b = 0 if sb.k_major else 1
    per = layout.regs_per_tile
    N = layout.n_per
    k_major_only = kind in WGMMA_K_MAJOR_ONLY
    ktype, kstep = FP8_KINDS.get(kind, kind), WGMMA_K_STEP[kind]     # a K step is 32 bytes for every type
    shape = f"wgmma.mma_async.sync.aligned.m64n{N}k{kstep}.f32.{ktype}.{ktype}"
    kb.emit("wgmma.fence.sync.aligned")
    for step in range(K // kstep):
        dbs = _offset(em, db, _encode(sb.k_step(step)))
        for i in range(layout.tiles_m):
            dl = ", ".join(acc[i * per:(i + 1) * per])
            if sa is None:
                kb.emit(f"{shape} \t{{{dl}}}, {{{', '.join(frags[i][step])}}}, {dbs}, 1, 1, 1, {trans_b}")
                continue
            das = _offset(em, da, _encode(sa.k_step(step) + sa.mn_offset(64 * i)))
            tail = "1, 1, 1" if k_major_only else f"1, 1, 1, {trans_a}, {trans_b}"
            kb.emit(f"{shape} \t{{{dl}}}, {das}, {dbs}, {tail}")
    kb.emit("wgmma.commit_group.sync.aligned")
    if not wait:
        return
    if inflight is None:
        kb.emit("wgmma.wait_group.sync.aligned \t0")
        return
    kb.emit("wgmma.wait_group.sync.aligned \t1")      # the previous iteration's group is done
    inflight.release_previous(em)


def _generic_writes(em, op, a_in_smem: bool) -> bool:
    """Whether the shared memory dot `op` reads in place may have been written
    through the generic proxy since it was last fenced: unless every operand
    it reads there is a pipeline slot filled by TMA (a shared-layout tile is
    fenced where it is written; a register A is no shared memory)."""
    from ...dialects.nv_tileas.operands import slot_source
    for v in op.operands[:2] if a_in_smem else op.operands[1:2]:
        src = slot_source(v)
        pipe = em.get(src[0].block.parent_op.operands[0]) if src is not None else None
        if src is None and v is op.operands[0]:
            continue            # A in a shared layout: fenced when it was stored
        if not getattr(pipe, "tma", False):
            return True
    return False


def _in_place(em, op, c, rt) -> bool:
    """Whether dot `op` may accumulate in `c`'s registers: f32 registers of a
    loop's accumulator that only this dot touches (the view aliased them)."""
    from .wgmma_inflight import accumulator_chain
    from .ops_memory import Cell
    if float_name(rt) != "f32" or c.etype != rt or c.splat or c.regs is None or not c.regs[0].startswith("%f"):
        return False
    chain = accumulator_chain(op)
    cell = em.env.get(chain[0].results[0]) if chain is not None else None
    return isinstance(cell, Cell) and cell.tile.regs is not None and list(cell.tile.regs) == list(c.regs)


def wgmma_dot(em, op, a, b, c, layout: WgmmaAcc, rt):
    from .ops_dot import _mma_acc_regs, _mma_result
    kb = em.kb
    M, K = a.shape
    N = b.shape[1]
    kind = float_name(a.etype)
    c = em.in_layout(c, layout)       # before staging: converting uses the group scratch
    # each operand in place where it sits in a swizzled tile; else a 16-bit A from
    # registers, and the rest copied into the canonical layout (canonical.stage)
    sb = _smem_operand(em, b, K, N, k_along_rows=True)
    sa = _smem_operand(em, a, M, K, k_along_rows=False)
    if kind in WGMMA_K_MAJOR_ONLY:      # an operand not K-major where it sits is copied (tf32)
        sa, sb = (x if x is not None and x.k_major else None for x in (sa, sb))
    if kind in FP8_KINDS and (sa is None or sb is None):
        em.fail(f"cannot read its fp8 {'B' if sb is None else 'A'} K-major from shared memory "
                f"(wgmma's only fp8 form)")
    if layout.col_groups > 1 and isinstance(sb, _Smem) and not sb.k_major and (sb.es * layout.n_per) % 128:
        sb = None         # a column group's start would fall inside a swizzle panel's row
    # A from registers when every warpgroup's fragments are its own rows (not when they split N)
    frags = _pack_a(em, a, layout, M, K) if sa is None and kind in REGISTER_A and layout.col_groups == 1 else None
    # register fragments stand for A where stage() would copy it
    sa, sb, copied = stage(em, a, b, M, N, K, sa or frags, sb, "wgmma")
    if frags is not None:
        sa = None
    if copied:
        kb.emit("fence.proxy.async.shared::cta")       # the copies are read through the async proxy
        em.sync()
        fence = False         # (and this fence covers a slot A read in place, waited for before)
    else:
        fence = _generic_writes(em, op, sa is not None)
    # a copied A's descriptor is the buffer's: nothing to hoist
    a_value = op.operands[0] if not isinstance(sa, Canonical) else None
    if _in_place(em, op, c, rt):
        # the loop's accumulator registers themselves (wgmma_inflight); copies are rewritten
        # every trip, so none stays in flight across one
        from .wgmma_inflight import start
        inflight = start(em, op) if sa is not None and not copied else None
        _issue(em, frags, sa, sb, list(c.regs), layout, kind, M, N, K, inflight, fence, a_value)
        return c
    if sa is not None and not copied:
        got = _prefetched(em, op, sa, sb, layout, kind, M, N, K, fence, rt)
        if got is not None:
            return got
    acc = _mma_acc_regs(em, c, layout)
    _issue(em, frags, sa, sb, acc, layout, kind, M, N, K, fence=fence, a_value=a_value)
    return _mma_result(em, rt, (M, N), layout, acc)


def _prefetched(em, op, sa, sb, layout, kind, M, N, K, fence, rt):
    """Dot `op` issued one loop trip ahead (wgmma_prefetch), when its rules
    hold and its accumulator starts from a loop-invariant splat (a zero tile:
    ptxas folds it into the first wgmma): its result registers, once this
    trip's group is waited for."""
    from .ops_dot import _mma_result
    from .wgmma_prefetch import plan, start
    pl = plan(em, op)
    c = em.env.get(pl.acc) if pl is not None else None
    if not isinstance(c, Tile) or not c.splat or float_name(c.etype) != "f32":
        return None
    acc = Tile(c.etype, tuple(op.results[0].type.shape), layout, [em.kb.reg(F32) for _ in range(layout.nslots)])

    def issue(addrs):
        a = _Smem(addrs[0], sa.swz, sa.k_major, sa.es) if 0 in addrs else sa
        b = _Smem(addrs[1], sb.swz, sb.k_major, sb.es) if 1 in addrs else sb
        em.copy_into(acc, c)
        _issue(em, None, a, b, list(acc.regs), layout, kind, M, N, K, fence=fence, a_value=op.operands[0],
               wait=False)
    if start(em, op, pl, issue) is None:
        return None
    em.kb.emit("wgmma.wait_group.sync.aligned \t0")      # this trip's group, issued a trip ago
    return _mma_result(em, rt, (M, N), layout, list(acc.regs))


def _offset(em, desc: str, add: int) -> str:
    if not add:
        return desc
    r = em.kb.reg(B64)
    em.kb.emit(f"add.s64 \t{r}, {desc}, {add}")
    return r
