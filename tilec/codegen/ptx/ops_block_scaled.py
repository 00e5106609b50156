"""nv_tileas.block_scaled_mma on warp-level tensor cores (sm_120a, sm_121a;
sm_100a/sm_103a run it on tcgen05: ops_tcgen05_scaled.py):

    D[m, n] = sum_k (A[m, k] sfa[m, k / vec]) (B[k, n] sfb[k / vec, n]) + C[m, n]

A is M x K, B is K x N, sfa M x K/vec, sfb K/vec x N (the verifier's shapes),
C and D f32. One form of `mma.sync.aligned ... .block_scale` per (operand
type, scale type, vec), as ptxas (CUDA 13) accepts them on sm_120a/sm_121a:

    fp8 (e4m3/e5m2, the two may differ), e8m0 scales, vec 32:
        mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.<a>.<b>.f32.ue8m0
    fp4 (e2m1), e8m0 scales, vec 32:
        mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0
    fp4, e4m3 scales (read as ue4m3), vec 16:
        mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3
    fp4, e8m0 scales, vec 16 (ptxas takes scale_vec::4X with ue4m3 only): two
        kind::mxf4nvf4 scale_vec::2X ue8m0 MMAs per K step of 64, the first on K
        blocks 0 and 2 of 16 (A's blocks 1 and 3 zeroed), the second on 1 and 3.

The kind comes from the types and vec, never from the atom's name (the spec's
table names (64, 16) mxf4 and (64, 32) mxf4nvf4, the PTX ISA the reverse;
docs/decisions.md). The accumulator is mma.sync's (MmaAcc, the layout that
layout propagation names for the result). A and B are staged in shared memory
one element a byte (fp8, or fp4 codes, fp4.py) as ops_dot._stage_bytes copies 8-bit
integers: A row-major, B transposed (N rows of K), rows padded by I8_PAD, the
scales row-major (sfa) and transposed (sfb). Fragments (PTX ISA, the
m16n8k32 8-bit and m16n8k64 4-bit figures): A registers r = 0..3 hold row
g + 8 (r & 1), K elements w tig + 4 w (r >> 1) .. + w (w = 4 for fp8, 8 for
fp4: an fp4 register is two staged words packed into nibbles); B registers
e = 0, 1 column g, the same K elements. Scale registers (selector {0, 0}):
lane l gives row (l >> 2) + 8 (l & 1) of sfa and column l >> 2 of sfb, its
bytes 0 .. X-1 the X scale factors of the K step in order."""
from __future__ import annotations

from ...dialects.nv_tileas.layouts import mma_acc
from .emitter import handles
from .fp4 import is_fp4, pack_nibbles
from .numeric import float_name
from .ops_dot import I8_PAD, _k_loop_head, _k_loop_tail, _lane_parts, _mma_acc_regs, _mma_result
from .ops_tcgen05_scaled import tcgen05_block_scaled
from .ptxtypes import B32, PRED

_FP8 = {"f8E4M3FN": "e4m3", "f8E5M2": "e5m2"}


class Form:
    """One block-scaled mma.sync: K per instruction, kind, operand and scale
    type names, X (scale factors per row and instruction), the scale factors
    one K step reads (X, or 4 for the two-pass vec-16 e8m0 form) and passes."""

    def __init__(self, k, kind, atype, btype, stype, x, per_step, passes):
        self.k, self.kind, self.atype, self.btype, self.stype = k, kind, atype, btype, stype
        self.x, self.per_step, self.passes = x, per_step, passes

    @property
    def fp4(self) -> bool:
        return self.atype == "e2m1"

    def instruction(self) -> str:
        return (f"mma.sync.aligned.m16n8k{self.k}.row.col.kind::{self.kind}.block_scale.scale_vec::{self.x}X"
                f".f32.{self.atype}.{self.btype}.f32.{self.stype}")


def mma_sync_form(a_elt, b_elt, sf_elt, vec: int) -> Form | None:
    """The mma.sync form of these types and scale vector size, or None."""
    sf = float_name(sf_elt)
    if float_name(a_elt) in _FP8 and float_name(b_elt) in _FP8:
        if sf == "f8E8M0FNU" and vec == 32:
            return Form(32, "mxf8f6f4", _FP8[float_name(a_elt)], _FP8[float_name(b_elt)], "ue8m0", 1, 1, 1)
        return None
    if not (is_fp4(a_elt) and is_fp4(b_elt)):
        return None
    if sf == "f8E8M0FNU" and vec == 32:
        return Form(64, "mxf4", "e2m1", "e2m1", "ue8m0", 2, 2, 1)
    if sf == "f8E4M3FN" and vec == 16:
        return Form(64, "mxf4nvf4", "e2m1", "e2m1", "ue4m3", 4, 4, 1)
    if sf == "f8E8M0FNU" and vec == 16:
        return Form(64, "mxf4nvf4", "e2m1", "e2m1", "ue8m0", 2, 4, 2)
    return None


def _types(op):
    return [None if v is None else v.type for v in (op.a, op.b, op.c, op.sfa, op.sfb)]


@handles("nv_tileas.block_scaled_mma")
def _block_scaled_mma(em, op):
    if not (em.target.block_scale_mma_sync or em.target.tcgen05):
        em.fail(f"is not supported on {em.target.arch}: block-scaled MMA runs as mma.sync ... .block_scale, "
                f"which sm_120a and sm_121a have, or tcgen05.mma ... .block_scale (sm_100a, sm_103a)")
    at, bt, ct, sat, sbt = _types(op)
    if sat is None or sbt is None:
        em.fail("needs both scale factors (sfa and sfb) to be emitted")
    if len(at.shape) != 2 or len(bt.shape) != 2:
        em.fail("is only supported on rank-2 operands by the PTX emitter")
    if em.target.tcgen05:
        em.bind(op.results[0], tcgen05_block_scaled(em, op, at, bt, sat))
        return
    M, K = at.shape
    N = bt.shape[1]
    ks = sat.shape[1]
    form = mma_sync_form(at.element_type, bt.element_type, sat.element_type, K // ks if ks else 0)
    if form is None:
        em.fail(f"has no mma.sync form for {at.element_type.text(True)} x {bt.element_type.text(True)} operands "
                f"with {sat.element_type.text(True)} scales over blocks of {K // ks if ks else 0}")
    if K % form.k:
        em.fail(f"needs K a multiple of {form.k} for {form.instruction()} (K is {K})")
    layout = mma_acc((M, N), em.group.threads)
    if layout is None:
        em.fail(f"needs its {M}x{N} accumulator split into 16x8 fragments over the {em.group.threads // 32} "
                f"warps (mma.sync's accumulator layout): fewer warps, or a bigger tile")
    c = em.in_layout(em.tile(op.c), layout)         # before staging: converting uses the same scratch
    a, b = em.regs_of(em.get(op.a)), em.regs_of(em.get(op.b))
    sfa, sfb = em.regs_of(em.get(op.sfa)), em.regs_of(em.get(op.sfb))
    em.bind(op.results[0], _emit(em, form, layout, a, b, c, sfa, sfb, M, N, K, ks,
                                 op.results[0].type.element_type))


def _emit(em, form, layout, a, b, c, sfa, sfb, M, N, K, ks, rt):
    kb = em.kb
    pitch = K + I8_PAD                      # bytes per staged row of A and of B (one element a byte)
    a_addr, b_addr, sa_addr, sb_addr = em.scratch_parts([M * pitch, N * pitch, M * ks, N * ks])
    em.sync()
    em.store_shared(a, a_addr, (pitch, 1))
    em.store_shared(b, b_addr, (1, pitch))     # B[k, n] at n * pitch + k
    em.store_shared(sfa, sa_addr, (ks, 1))
    em.store_shared(sfb, sb_addr, (1, ks))     # sfb[k, n] at n * ks + k
    em.sync()
    acc = _mma_acc_regs(em, c, layout)
    row, col = em.bases(layout)                # (warp row + g, warp column + 2 tig)
    g, tig = _lane_parts(em)
    w = 8 if form.fp4 else 4                   # K elements (staged bytes) per fragment word
    # this lane's A row (warp row + g) and B column (warp column + g), from K element w tig
    wcol_g, t = kb.reg(B32), kb.reg(B32)
    kb.emit(f"shl.b32 \t{t}, {tig}, 1")
    kb.emit(f"sub.u32 \t{wcol_g}, {col}, {t}")
    kb.emit(f"add.u32 \t{wcol_g}, {wcol_g}, {g}")
    kofs = kb.reg(B32)
    kb.emit(f"shl.b32 \t{kofs}, {tig}, {w.bit_length() - 1}")
    pa, pb = kb.reg(B32), kb.reg(B32)
    kb.emit(f"mad.lo.u32 \t{pa}, {row}, {pitch}, {kofs}")
    kb.emit(f"add.u32 \t{pa}, {pa}, {a_addr}")
    kb.emit(f"mad.lo.u32 \t{pb}, {wcol_g}, {pitch}, {kofs}")
    kb.emit(f"add.u32 \t{pb}, {pb}, {b_addr}")
    # scale rows: sfa row (warp row + (lane >> 2) + 8 (lane & 1)), sfb column warp column + g
    lane, srow = kb.reg(B32), kb.reg(B32)
    kb.emit(f"and.b32 \t{lane}, {em.group.tid}, 31")
    kb.emit(f"and.b32 \t{srow}, {lane}, 1")
    kb.emit(f"mad.lo.u32 \t{srow}, {srow}, 8, {row}")    # row = warp row + g = warp row + (lane >> 2)
    psa, psb = kb.reg(B32), kb.reg(B32)
    kb.emit(f"mad.lo.u32 \t{psa}, {srow}, {ks}, {sa_addr}")
    kb.emit(f"mad.lo.u32 \t{psb}, {wcol_g}, {ks}, {sb_addr}")
    keep = None
    if form.passes == 2:
        # pass p keeps the A elements of the 16-wide K blocks p and 2 + p: lanes with tig >> 1 == p
        keep = []
        half = kb.reg(B32)
        kb.emit(f"shr.u32 \t{half}, {tig}, 1")
        for p in range(2):
            q = kb.reg(PRED)
            kb.emit(f"setp.eq.u32 \t{q}, {half}, {p}")
            keep.append(q)
    ld_scale = {1: "ld.shared.u8", 2: "ld.shared.u16", 4: "ld.shared.b32"}[form.per_step]
    grp = 4 * w                                # K elements between a fragment's two K halves

    def fragment(ptr, off):
        r = kb.reg(B32)
        if not form.fp4:
            kb.emit(f"ld.shared.b32 \t{r}, [{ptr}+{off}]")
            return r
        lo, hi = kb.reg(B32), kb.reg(B32)
        kb.emit(f"ld.shared.v2.b32 \t{{{lo}, {hi}}}, [{ptr}+{off}]")
        return pack_nibbles(kb, lo, hi)

    def scales(ptr, off, p):
        r = kb.reg(B32)
        kb.emit(f"{ld_scale} \t{r}, [{ptr}+{off}]")
        if form.passes == 1:
            return r
        s = kb.reg(B32)                        # bytes p and 2 + p of the step's four
        kb.emit(f"prmt.b32 \t{s}, {r}, 0, {0x20 + 0x11 * p:#x}")
        return s

    k, head = _k_loop_head(kb, "bs_mma_k")
    afr = []
    for i in range(layout.tiles_m):
        afr.append([fragment(pa, (16 * i + 8 * (r & 1)) * pitch + grp * (r >> 1)) for r in range(4)])
    for p in range(form.passes):
        if keep is None:
            apass = afr
        else:
            apass = []
            for regs in afr:
                masked = []
                for x in regs:
                    m = kb.reg(B32)
                    kb.emit(f"selp.b32 \t{m}, {x}, 0, {keep[p]}")
                    masked.append(m)
                apass.append(masked)
        sa = [scales(psa, 16 * i * ks, p) for i in range(layout.tiles_m)]
        for j in range(layout.tiles_n):
            bfr = [fragment(pb, 8 * j * pitch + grp * e) for e in range(2)]
            sb = scales(psb, 8 * j * ks, p)
            for i in range(layout.tiles_m):
                tt = i * layout.tiles_n + j
                dl = ", ".join(acc[tt * 4:tt * 4 + 4])
                kb.emit(f"{form.instruction()} \t{{{dl}}}, {{{', '.join(apass[i])}}}, {{{', '.join(bfr)}}}, "
                        f"{{{dl}}}, {sa[i]}, {{0, 0}}, {sb}, {{0, 0}}")
    kb.emit(f"add.u32 \t{pa}, {pa}, {form.k}")
    kb.emit(f"add.u32 \t{pb}, {pb}, {form.k}")
    kb.emit(f"add.u32 \t{psa}, {psa}, {form.per_step}")
    kb.emit(f"add.u32 \t{psb}, {psb}, {form.per_step}")
    _k_loop_tail(kb, k, form.k, K, head)
    return _mma_result(em, rt, (M, N), layout, acc)
