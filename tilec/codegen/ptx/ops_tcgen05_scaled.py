"""nv_tileas.block_scaled_mma on Blackwell's fifth-generation tensor cores
(sm_100a, sm_103a): tcgen05.mma ... .block_scale with the accumulator and the
scale factors in tensor memory,

    D[m, n] = sum_k (A[m, k] sfa[m, k / vec]) (B[k, n] sfb[k / vec, n]) + C[m, n].

Forms (PTX ISA "tcgen05.mma", "Block Scaling"; ptxas 13.0 takes each for
sm_100a and sm_103a; kind::mxf4nvf4 needs PTX ISA 8.7), one per (operand
type, scale type, vec):

    fp8 (e4m3/e5m2), e8m0 per 32    kind::mxf8f6f4.block_scale.scale_vec::1X   K 32
    fp4 (e2m1), e8m0 per 32         kind::mxf4.block_scale.scale_vec::2X       K 64
    fp4, e4m3 per 16 (ue4m3)        kind::mxf4nvf4.block_scale.scale_vec::4X   K 64
    fp4, e8m0 per 16                kind::mxf4nvf4.block_scale.scale_vec::4X   K 64 (idesc: UE8M0)

    tcgen05.mma.cta_group::1.<form> [d], a-desc, b-desc, idesc, [sfa], [sfb], enable-input-d

How, per op (the primitives are ops_tcgen05's: allocation, the group's
mbarrier and parity, the K-major canonical copies and descriptors, the
TmemAcc accumulator's tcgen05.st/ld):

* Shapes. M a multiple of 128 (cta_group::1 block-scaled MMAs are M = 128:
  the descriptor has M >> 7), N a multiple of 16 up to 256, the group whole
  warpgroups starting at one (TmemAcc); K a whole number of MMA steps.
* Operands. fp8 as ops_tcgen05 stages them (read in place from a swizzled
  slot, or copied K-major without swizzle). fp4 (kind::mxf4/mxf4nvf4 read it
  K-major only, packed two to a byte, element 2i in the low nibble): staged one
  element a byte (A row-major, B transposed), then packed eight elements to a
  word (fp4.pack_nibbles) into the K-major no-swizzle layout, 32 elements per
  16-byte core-matrix row; one MMA reads 32 bytes of K as the fp8 one does.
* Scale factors in tensor memory (the ISA's scale-factor layouts, as CUTLASS
  copies them with tcgen05.cp.32x128b.warpx4): word j of a row holds its
  scale factors 4j .. 4j + 3, byte i the (4j + i)-th; row m of a 128-row
  block sits in lane m % 32 of column m / 32, and the ISA wants every 32-lane
  partition to hold the same copy. MMA step s of row block b reads SF_ID
  (s X) % 4 of word (s X) / 4 (the instruction descriptor's SFA/SFB ids).
  Columns after D's (b N): sfa, blocks x W words x 4 columns (W =
  ceil(K / vec / 4)); then sfb, W words x ceil(N / 32) columns. The scales are
  staged in shared memory (sfa row-major, sfb transposed, rows of 4 W bytes)
  and each warp of the group's first warpgroup writes the words of its lanes
  into its own lane partition with tcgen05.st.32x32b.
* Instruction descriptor (block-scaled format, PTX ISA tables for
  kind::mxf8f6f4 and kind::mxf4/mxf4nvf4): SFB id at bits 4-5, A and B types
  at 7-9 and 10-12 (e4m3 0, e5m2 1; e2m1 1 for the fp4 kinds), transpose A/B
  at 15/16, N >> 3 at 17-22, scale type at 23 (UE8M0 1, UE4M3 0), M >> 7 at
  27-28, SFA id at 29-30; the rest 0 (dense, no negation, K 64 for the fp4
  kinds).
* The leader issues the MMAs, one per row block and K step, and the commit,
  and waits for its mbarrier phase; after a group barrier every thread reads
  its rows with tcgen05.ld (ops_tcgen05._issue's protocol). The accumulator
  goes in with tcgen05.st unless it is a zero splat (the first MMA then has
  enable-input-d false).
"""
from __future__ import annotations

from ...dialects.nv_tileas.layouts import tmem_acc
from .fp4 import is_fp4, pack_nibbles
from .numeric import float_name
from .ops_dot import _mma_acc_regs, _mma_result
from .ops_tcgen05 import (CHUNK, COLUMN_NEEDS, _alloc, _Canonical, _free, _handoff, _move, _rows_address,
                          _staged, _state, _zero_accumulator, commit, leader_begins)
from .ptxtypes import B32, PRED

_FP8 = {"f8E4M3FN": ("e4m3", 0), "f8E5M2": ("e5m2", 1)}
UE8M0, UE4M3 = 1, 0          # instruction descriptor bit 23


class ScaledForm:
    """One tcgen05 block-scaled MMA: kind, scale_vec X, K elements per MMA, the
    descriptor's A/B type codes and scale type code, and the operand names."""

    def __init__(self, kind, x, k, ta, tb, stype, names):
        self.kind, self.x, self.k, self.ta, self.tb, self.stype, self.names = kind, x, k, ta, tb, stype, names

    @property
    def fp4(self) -> bool:
        return self.kind != "mxf8f6f4"

    def instruction(self) -> str:
        return f"tcgen05.mma.cta_group::1.kind::{self.kind}.block_scale.scale_vec::{self.x}X"


def tcgen05_form(a_elt, b_elt, sf_elt, vec: int) -> ScaledForm | None:
    """The tcgen05.mma block-scaled form of these types and scale vector size, or None."""
    sf = float_name(sf_elt)
    a, b = float_name(a_elt), float_name(b_elt)
    if a in _FP8 and b in _FP8:
        if sf == "f8E8M0FNU" and vec == 32:
            return ScaledForm("mxf8f6f4", 1, 32, _FP8[a][1], _FP8[b][1], UE8M0, (_FP8[a][0], _FP8[b][0], "ue8m0"))
        return None
    if not (is_fp4(a_elt) and is_fp4(b_elt)):
        return None
    if sf == "f8E8M0FNU" and vec == 32:
        return ScaledForm("mxf4", 2, 64, 1, 1, UE8M0, ("e2m1", "e2m1", "ue8m0"))
    if sf == "f8E4M3FN" and vec == 16:
        return ScaledForm("mxf4nvf4", 4, 64, 1, 1, UE4M3, ("e2m1", "e2m1", "ue4m3"))
    if sf == "f8E8M0FNU" and vec == 16:
        return ScaledForm("mxf4nvf4", 4, 64, 1, 1, UE8M0, ("e2m1", "e2m1", "ue8m0"))
    return None


def scaled_idesc(form: ScaledForm, n: int, sfa_id: int = 0, sfb_id: int = 0, a_mn: bool = False,
                 b_mn: bool = False, m: int = 128) -> int:
    """The 32-bit block-scaled instruction descriptor (dense, no negation)."""
    return (sfb_id << 4) | (form.ta << 7) | (form.tb << 10) | (int(a_mn) << 15) | (int(b_mn) << 16) \
        | ((n >> 3) << 17) | (form.stype << 23) | ((m >> 7) << 27) | (sfa_id << 29)


def scaled_layout(shape, threads: int):
    """The TmemAcc layout of a block-scaled (M, N) accumulator, or None: M a
    multiple of 128 (no M = 64 block-scaled MMA), what tmem_acc takes."""
    if len(shape) != 2 or shape[0] % 128:
        return None
    return tmem_acc(tuple(shape), threads)


def _words(ks: int) -> int:
    """Scale-factor words per row: four scale factors a word."""
    return (ks + 3) // 4


def columns(M: int, N: int, ks: int):
    """(sfa's first column, sfb's first column, columns to allocate)."""
    w = _words(ks)
    sfa = (M // 128) * N
    sfb = sfa + (M // 128) * w * 4
    need = sfb + w * ((N + 31) // 32)
    cols = 32
    while cols < need:
        cols *= 2
    return sfa, sfb, cols


def tcgen05_block_scaled(em, op, at, bt, sat):
    """Emit block-scaled MMA `op` (operand types at, bt, sfa type sat) on tcgen05."""
    M, K = at.shape
    N = bt.shape[1]
    ks = sat.shape[1]
    vec = K // ks if ks else 0
    form = tcgen05_form(at.element_type, bt.element_type, sat.element_type, vec)
    if form is None:
        em.fail(f"has no tcgen05.mma block-scaled form for {at.element_type.text(True)} x "
                f"{bt.element_type.text(True)} operands with {sat.element_type.text(True)} scales over blocks of "
                f"{vec}")
    g = em.group
    layout = scaled_layout((M, N), g.threads)
    if layout is None or getattr(g, "first_thread", 0) % 128:
        em.fail(f"needs a {M}x{N} accumulator that tcgen05.mma ... .block_scale computes in tensor memory: M a "
                f"multiple of 128, N a multiple of 16 up to 256, the group whole warpgroups (it has "
                f"{g.threads} threads)")
    if K % form.k:
        em.fail(f"needs K a multiple of {form.k} for {form.instruction()} (K is {K})")
    sfa0, sfb0, cols = columns(M, N, ks)
    if cols > 512:
        em.fail(f"needs {cols} tensor-memory columns for its accumulator and scale factors, more than the 512 "
                f"there are")
    st = _state(em)
    cols = max(cols, st.cols)       # the group's allocations all take its most (_group_columns)
    kb = em.kb
    c = em.tile(op.c)
    zero = _zero_accumulator(op, c)
    if not zero:
        c = em.in_layout(c, layout)
    if form.fp4:
        a, b = em.regs_of(em.get(op.a)), em.regs_of(em.get(op.b))
    else:
        sa_op, sb_op, copied = _staged(em, em.get(op.a), em.get(op.b), M, N, K)
    sfa, sfb = em.regs_of(em.get(op.sfa)), em.regs_of(em.get(op.sfb))
    w = _words(ks)
    pitch = 4 * w                                  # bytes per staged scale row
    nrows = 32 * ((N + 31) // 32)                  # sfb rows (columns of B) staged, padded to 32
    parts = [M * pitch, nrows * pitch]
    if form.fp4:
        parts += [M * K, N * K]                    # one fp4 element a byte
    addrs = em.scratch_parts(parts)
    em.sync()                                      # every thread is past the scratch's previous use
    em.store_shared(sfa, addrs[0], (pitch, 1))
    em.store_shared(sfb, addrs[1], (1, pitch))     # sfb[k, n] at n * pitch + k
    if form.fp4:
        em.store_shared(a, addrs[2], (K, 1))
        em.store_shared(b, addrs[3], (1, K))       # B[k, n] at n * K + k
    em.sync()
    if form.fp4:
        packed = em.addr_of(kb.shared_buffer((M + N) * K // 2, 128, "tcgen05"))
        b_at = kb.reg(B32)
        kb.emit(f"add.u32 \t{b_at}, {packed}, {M * K // 2}")
        em.align_of[b_at] = 128
        _pack(em, addrs[2], packed, M, K)
        _pack(em, addrs[3], b_at, N, K)
        sa_op, sb_op, copied = _Canonical(packed, M), _Canonical(b_at, N), True
    words = _scale_words(em, addrs[0], addrs[1], M, N, w, pitch)
    if copied:
        kb.emit("fence.proxy.async.shared::cta")
    tmem = _alloc(em, st, cols)
    _store_scales(em, tmem, words, sfa0)
    mine = _rows_address(em, tmem, layout)
    acc = _mma_acc_regs(em, c, layout)      # C, or registers for the result (a zero C is dead)
    if not zero:
        _move(em, "st", mine, acc, layout)
    _handoff(em)
    _issue_scaled(em, st, op, form, sa_op, sb_op, tmem, M, N, K, sfa0, sfb0, w, zero)
    _move(em, "ld", mine, acc, layout)
    _free(em, tmem, cols)
    return _mma_result(em, op.results[0].type.element_type, (M, N), layout, acc)


def _pack(em, src: str, dst: str, rows: int, K: int):
    """Pack `rows` staged rows of K one-byte fp4 codes (row r at src + r K) into
    the K-major no-swizzle canonical layout at `dst`: the word of elements
    8 q .. 8 q + 7 of row r at 16 (r % 8) + 128 (r / 8) + 4 (q % 4) + 16 rows (q / 4)
    (core matrices of 8 rows x 16 bytes; LBO 16 rows, SBO 128: _Canonical)."""
    kb = em.kb
    per_row, total, T = K // 8, rows * K // 8, em.group.threads
    w = kb.reg(B32)
    kb.emit(f"mov.u32 \t{w}, {em.group.tid}")
    done, head = kb.label("fp4_packed"), kb.label("fp4_pack")
    p = kb.reg(PRED)
    kb.emit(f"setp.ge.u32 \t{p}, {w}, {total}")
    kb.emit(f"@{p} bra \t{done}")
    kb.place(head)
    r, q, t, s, d = (kb.reg(B32) for _ in range(5))
    kb.emit(f"div.u32 \t{r}, {w}, {per_row}")
    kb.emit(f"rem.u32 \t{q}, {w}, {per_row}")
    kb.emit(f"mad.lo.u32 \t{s}, {r}, {K}, {src}")
    kb.emit(f"mad.lo.u32 \t{s}, {q}, 8, {s}")
    lo, hi = kb.reg(B32), kb.reg(B32)
    kb.emit(f"ld.shared.v2.b32 \t{{{lo}, {hi}}}, [{s}]")
    word = pack_nibbles(kb, lo, hi)
    kb.emit(f"and.b32 \t{t}, {r}, 7")
    kb.emit(f"mad.lo.u32 \t{d}, {t}, 16, {dst}")
    kb.emit(f"shr.u32 \t{t}, {r}, 3")
    kb.emit(f"mad.lo.u32 \t{d}, {t}, 128, {d}")
    kb.emit(f"and.b32 \t{t}, {q}, 3")
    kb.emit(f"mad.lo.u32 \t{d}, {t}, 4, {d}")
    kb.emit(f"shr.u32 \t{t}, {q}, 2")
    kb.emit(f"mad.lo.u32 \t{d}, {t}, {16 * rows}, {d}")
    kb.emit(f"st.shared.b32 \t[{d}], {word}")
    kb.emit(f"add.u32 \t{w}, {w}, {T}")
    kb.emit(f"setp.lt.u32 \t{p}, {w}, {total}")
    kb.emit(f"@{p} bra \t{head}")
    kb.place(done)


def _scale_words(em, sfa_at: str, sfb_at: str, M: int, N: int, w: int, pitch: int):
    """This thread's scale-factor words, in tensor-memory column order from sfa's
    first column: lane l (the thread's lane) of sfa's column (b w + j) 4 + c is
    word j of row 128 b + 32 c + l, of sfb's column j G + c word j of B's column
    32 c + l (G = ceil(N / 32))."""
    kb = em.kb
    lane = kb.reg(B32)
    kb.emit(f"and.b32 \t{lane}, {em.group.tid}, 31")
    pa, pb = kb.reg(B32), kb.reg(B32)
    kb.emit(f"mad.lo.u32 \t{pa}, {lane}, {pitch}, {sfa_at}")
    kb.emit(f"mad.lo.u32 \t{pb}, {lane}, {pitch}, {sfb_at}")
    out = []
    for blk in range(M // 128):
        for j in range(w):
            for c in range(4):
                r = kb.reg(B32)
                kb.emit(f"ld.shared.b32 \t{r}, [{pa}+{(128 * blk + 32 * c) * pitch + 4 * j}]")
                out.append(r)
    for j in range(w):
        for c in range((N + 31) // 32):
            r = kb.reg(B32)
            kb.emit(f"ld.shared.b32 \t{r}, [{pb}+{32 * c * pitch + 4 * j}]")
            out.append(r)
    return out


def _store_scales(em, tmem: str, words, first_col: int):
    """Each warp of the group's first warpgroup writes `words` (one per column
    from `first_col`) into the lanes of its partition (32 (warp % 4) ..)."""
    kb = em.kb
    skip = None
    if em.group.threads > 128:
        skip = kb.label("sf_stored")
        p = kb.reg(PRED)
        kb.emit(f"setp.ge.u32 \t{p}, {em.group.tid}, 128")
        kb.emit(f"@{p} bra.uni \t{skip}")
    part = kb.reg(B32)
    kb.emit(f"shr.u32 \t{part}, {em.group.tid}, 5")
    kb.emit(f"and.b32 \t{part}, {part}, 3")
    kb.emit(f"shl.b32 \t{part}, {part}, 21")
    kb.emit(f"add.u32 \t{part}, {part}, {tmem}")
    i = 0
    while i < len(words):            # .num: a power of two, at most CHUNK registers at once
        n = min(CHUNK, 1 << ((len(words) - i).bit_length() - 1))
        regs = ", ".join(words[i:i + n])
        kb.emit(f"tcgen05.st.sync.aligned.32x32b.x{n}.b32 \t[{part}+{first_col + i}], {{{regs}}}")
        i += n
    kb.emit("tcgen05.wait::st.sync.aligned")
    if skip is not None:
        kb.place(skip)


def _issue_scaled(em, st, op, form, sa, sb, tmem, M, N, K, sfa0, sfb0, w, zero: bool):
    """The leader issues one MMA per row block and K step (step s of block b:
    D at columns b N, sfa word (s X) / 4 of block b, sfb word (s X) / 4, both
    SF ids (s X) % 4) and the commit, and waits for its mbarrier phase; the
    other threads learn of it through the group barrier after (ops_tcgen05._issue's
    protocol: _Tmem's two mbarriers in turn, only the leader waits)."""
    from .canonical import encode as _encode
    from .ops_wgmma import _offset
    kb = em.kb
    skip, da, db, on, off = leader_begins(em, op, sa, sb, zero)
    groups = (N + 31) // 32
    for blk in range(M // 128):
        d = tmem
        if blk:
            d = kb.reg(B32)
            kb.emit(f"add.u32 \t{d}, {tmem}, {blk * N}")
        a_off = sa.mn_offset(128 * blk)
        for step in range(K // form.k):
            j, sf_id = divmod(step * form.x, 4)
            idesc = scaled_idesc(form, N, sf_id, sf_id, not sa.k_major, not sb.k_major)
            das = _offset(em, da, _encode(sa.k_step(step) + a_off))
            dbs = _offset(em, db, _encode(sb.k_step(step)))
            kb.emit(f"{form.instruction()} \t[{d}], {das}, {dbs}, {idesc}, [{tmem}+{sfa0 + (blk * w + j) * 4}], "
                    f"[{tmem}+{sfb0 + j * groups}], {off if step == 0 else on}")
    commit(em, st, skip)


def _columns_needed(op, g):
    """The tensor-memory columns block-scaled MMA `op` takes in group `g` (COLUMN_NEEDS), or None."""
    if op.name != "nv_tileas.block_scaled_mma" or len(op.operands) < 5:
        return None
    at, bt, sat = op.operands[0].type, op.operands[1].type, op.operands[3].type
    shape = getattr(at, "shape", ())
    if len(shape) != 2 or len(getattr(sat, "shape", ())) != 2 or scaled_layout((shape[0], bt.shape[1]), g.threads) \
            is None:
        return None
    return columns(shape[0], bt.shape[1], sat.shape[1])[2]


COLUMN_NEEDS.append(_columns_needed)
