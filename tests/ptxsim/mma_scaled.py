"""Warp-level block-scaled MMA (sm_120a/sm_121a):

    mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale{.scale_vec::1X}.f32.<a>.<b>.f32.ue8m0
    mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale{.scale_vec::2X}.f32.e2m1.e2m1.f32.ue8m0
    mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0
    mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3
        d, a, b, c, scale-a-data, {byte-id-a, thread-id-a}, scale-b-data, {byte-id-b, thread-id-b};

(<a>, <b> in e4m3, e5m2; the qualifiers may come in any order; a missing
.scale_vec is 1X for mxf8f6f4 and 2X for mxf4, mandatory for mxf4nvf4). These
are the forms ptxas (CUDA 13) accepts for sm_120a; the e2m1/e3m2/e2m3 operands
of kind::mxf8f6f4 (held in 8-bit containers) are not modelled. Written from the
PTX ISA ("Block Scaling for mma.sync", "Matrix Fragments for mma.m16n8k32 /
m16n8k64") and CUTLASS's SM120 block-scaled MMA traits:

    D = (A * scale_A) (B * scale_B) + C,  scale_A: 16 x X, scale_B: X x 8

with X = 1, 2, 4 (.scale_vec::XX): row m of A is cut into X chunks of K / X
elements, chunk t multiplied by scale_A[m, t]; column n of B likewise by
scale_B[t, n].

* Fragments. 8-bit types (m16n8k32): a0..a3 hold rows g, g + 8, g, g + 8 and
  K elements 4 tig + byte (+ 16 for a2, a3); b0, b1 column g, K elements
  4 tig + byte (+ 16 for b1) -- the m16n8k32 8-bit integer layout. e2m1
  (m16n8k64): a register holds 8 K-consecutive codes, the lowest in bits 0-3:
  a0..a3 rows g, g + 8, g, g + 8 and K 8 tig + nibble (+ 32 for a2, a3); b0, b1
  column g, K 8 tig + nibble (+ 32 for b1). C and D as every m16n8 f32
  accumulator (g = lane / 4, tig = lane % 4).
* Scale factors. Each lane gives a .b32; the selector picks lanes and bytes:
  scale_A[m, t] is byte byte-id-a + t of lane 4 (m % 8) + m / 8 + 2 thread-id-a,
  scale_B[t, n] byte byte-id-b + t of lane 4 n + thread-id-b. Selector ranges
  are ptxas's: thread-id-a 0..1, thread-id-b 0..3, byte-id 0..3 (1X), 0 or 2
  (2X), 0 (4X); immediates only.
* Values. e4m3/e5m2/e2m1 decode exactly from their bit fields (e4m3 0x7F/0xFF
  and e5m2's NaN/inf patterns as such). ue8m0 x is 2^(x - 127), 0xFF NaN.
  ue4m3 is E4M3 without sign (bias 7, subnormals, 0x7F NaN); a scale byte with
  bit 7 set has no defined value and is reported.
* Arithmetic. Every scaled product is exact; D is C plus their exact sum,
  rounded once to f32 (nearest even). A NaN or infinite input makes the tile
  computed in f64 instead (IEEE NaN/inf propagation). The hardware's
  accumulation order and intermediate precision are not modelled.
"""
from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np

from .base import PTXRuntimeError
from .numerics import F32FMT, _f2u, _u2f, round_exact
from .ptx import Imm, Reg, Vec, _unsupported

_TYPES8 = ("e4m3", "e5m2")
# kind -> (K, operand types, {scale_vec X: scale type})
_KINDS = {"mxf8f6f4": (32, _TYPES8, {1: ("ue8m0",)}),
          "mxf4": (64, ("e2m1",), {2: ("ue8m0",)}),
          "mxf4nvf4": (64, ("e2m1",), {2: ("ue8m0",), 4: ("ue4m3",)})}
_DEFAULT_X = {"mxf8f6f4": 1, "mxf4": 2}
_BYTE_IDS = {1: (0, 1, 2, 3), 2: (0, 2), 4: (0,)}

with np.errstate(invalid="ignore"):
    _E4M3 = np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    _E5M2 = np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e5m2).astype(np.float64)
_E2M1 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0], np.float64)
_E2M1 = np.concatenate([_E2M1, -_E2M1])
# every finite value of the type times 2^shift is an integer
_SHIFT = {"e4m3": 9, "e5m2": 16, "e2m1": 1, "ue8m0": 127, "ue4m3": 9}


def _fail(ins, what):
    _unsupported(what, ins.lineno, ins.text)


def decode(cg, ins, k, nblocks, mma_kind):
    """The WaitOp of a block-scaled mma.sync (codegen.KernelCodegen._i_mma's
    branch): its registers, form and selectors in w.args (w.args["scaled"])."""
    mods = ins.mods
    if mods[:1] != ["sync"] or "aligned" not in mods:
        _fail(ins, "mma without .sync.aligned")
    rest = [m for m in mods if m not in ("sync", "aligned", "block_scale")]
    kinds = [m[len("kind::"):] for m in rest if m.startswith("kind::")]
    vecs = [m[len("scale_vec::"):] for m in rest if m.startswith("scale_vec::")]
    shapes = [m for m in rest if m.startswith("m") and m[1:2].isdigit()]
    types = [m for m in rest if not m.startswith(("kind::", "scale_vec::")) and m not in shapes
             and m not in ("row", "col")]
    if len(kinds) != 1 or kinds[0] not in _KINDS or len(vecs) > 1 or len(shapes) != 1 or \
            [m for m in rest if m in ("row", "col")] != ["row", "col"]:
        _fail(ins, "block-scaled mma form (kind::mxf8f6f4/mxf4/mxf4nvf4, .row.col)")
    kind = kinds[0]
    kdim, elts, xs = _KINDS[kind]
    if vecs:
        if vecs[0] not in ("1X", "2X", "4X"):
            _fail(ins, f"scale_vec::{vecs[0]}")
        x = int(vecs[0][0])
    elif kind in _DEFAULT_X:
        x = _DEFAULT_X[kind]
    else:
        _fail(ins, "kind::mxf4nvf4 without .scale_vec")
    if shapes[0] != f"m16n8k{kdim}" or len(types) != 5 or types[0] != "f32" or types[3] != "f32" or \
            types[1] not in elts or types[2] not in elts or x not in xs or types[4] not in xs[x]:
        _fail(ins, f"block-scaled mma shape/types (kind::{kind}: m16n8k{kdim}.f32.{'/'.join(elts)} x2.f32, "
                   f"scale_vec/stype {', '.join(f'{v}X {s}' for v, ss in xs.items() for s in ss)})")
    if len(ins.operands) != 8:
        _fail(ins, "block-scaled mma operand count")
    d, a, b, c, sa, sel_a, sb, sel_b = ins.operands
    for o, n in zip((d, a, b, c), (4, 4, 2, 4)):
        if not isinstance(o, Vec) or len(o.items) != n or not all(isinstance(r, Reg) for r in o.items):
            _fail(ins, "mma operand vectors")
    for r in a.items + b.items:
        if r.kind != "i" or r.width != 32:
            _fail(ins, "mma A/B fragments must be .b32 registers")
    for r in c.items + d.items:
        if r.kind not in ("f", "i") or r.width != 32:
            _fail(ins, "mma C/D fragments must be 32-bit registers")
    for r in (sa, sb):
        if not isinstance(r, Reg) or r.kind != "i" or r.width != 32:
            _fail(ins, "scale-a-data/scale-b-data must be .b32 registers")
    sel = []
    for o, tids in ((sel_a, 2), (sel_b, 4)):
        if not isinstance(o, Vec) or len(o.items) != 2 or not all(isinstance(v, Imm) and v.ival is not None
                                                                 for v in o.items):
            _fail(ins, "block-scale selector (immediates {byte-id, thread-id})")
        byte, tid = o.items[0].ival, o.items[1].ival
        if byte not in _BYTE_IDS[x] or not 0 <= tid < tids:
            _fail(ins, f"block-scale selector {{{byte}, {tid}}} (scale_vec::{x}X: byte-id in "
                       f"{_BYTE_IDS[x]}, thread-id below {tids})")
        sel.append((byte, tid))
    if ins.guard:
        _fail(ins, "predicated mma")
    w, term = cg._wait(ins, mma_kind, k, nblocks)
    w.args.update(d=list(d.items), a=[r.slot for r in a.items], b=[r.slot for r in b.items], c=list(c.items),
                  atype=types[1], btype=types[2], scaled=dict(k=kdim, x=x, stype=types[4], sa=sa.slot, sb=sb.slot,
                                                               sel_a=sel[0], sel_b=sel[1]))
    return term


def _lane_index(kdim):
    """[lane, register, element] -> (row, K) of A and (K, column) of B."""
    lane = np.arange(32)[:, None, None]
    g, tig = lane >> 2, lane % 4
    per = 4 if kdim == 32 else 8                  # elements per register
    r4, r2, e = np.arange(4)[None, :, None], np.arange(2)[None, :, None], np.arange(per)[None, None, :]
    a_row = np.broadcast_to(g + 8 * (r4 & 1), (32, 4, per))
    a_col = np.broadcast_to(per * tig + e + 4 * per * (r4 >> 1), (32, 4, per))
    b_row = np.broadcast_to(per * tig + e + 4 * per * r2, (32, 2, per))
    b_col = np.broadcast_to(g, (32, 2, per))
    return a_row, a_col, b_row, b_col


_INDEX = {32: _lane_index(32), 64: _lane_index(64)}
_C_LANE = np.arange(32)[:, None]
_C_ROW = (_C_LANE >> 2) + 8 * (np.arange(4)[None, :] >= 2)
_C_COL = 2 * (_C_LANE % 4) + (np.arange(4)[None, :] & 1)


def _codes(bits, per):
    """[lane, register] words -> [lane, register, element] codes (8 or 4 bits each)."""
    width = 32 // per
    return np.stack([(bits >> (width * i)) & ((1 << width) - 1) for i in range(per)], axis=-1)


def _values(codes, t):
    return (_E2M1 if t == "e2m1" else _E4M3 if t == "e4m3" else _E5M2)[codes]


def _scale_values(codes, stype, where):
    if stype == "ue8m0":
        out = np.ldexp(1.0, codes.astype(np.int64) - 127)
        return np.where(codes == 0xFF, np.nan, out)
    if (codes & 0x80).any():
        raise PTXRuntimeError(f"block-scaled mma: a ue4m3 scale factor has bit 7 set (no defined value; "
                              f"{where})")
    return _E4M3[codes]


def compute(w, lanes):
    """D = (A scale_A) (B scale_B) + C for one warp (runtime._mma_compute's branch)."""
    where = w.instr.where()
    if len(lanes) != 32:
        raise PTXRuntimeError(f"mma.sync in a warp of {len(lanes)} threads ({where})")
    s = w.args["scaled"]
    kdim, x = s["k"], s["x"]
    try:
        abits = np.array([[lanes[l][r] for r in w.args["a"]] for l in range(32)], dtype=np.uint64)
        bbits = np.array([[lanes[l][r] for r in w.args["b"]] for l in range(32)], dtype=np.uint64)
        cvals = np.array([[lanes[l][r.slot] if r.kind == "f" else _u2f(lanes[l][r.slot]) for r in w.args["c"]]
                          for l in range(32)], dtype=np.float64)
        sa = np.array([lanes[l][s["sa"]] for l in range(32)], dtype=np.uint64)
        sb = np.array([lanes[l][s["sb"]] for l in range(32)], dtype=np.uint64)
    except TypeError:
        raise PTXRuntimeError(f"mma.sync reads an uninitialized register ({where})") from None
    per = 4 if kdim == 32 else 8
    a_row, a_col, b_row, b_col = _INDEX[kdim]
    acodes, bcodes = np.zeros((16, kdim), np.int64), np.zeros((kdim, 8), np.int64)
    acodes[a_row, a_col] = _codes(abits, per)
    bcodes[b_row, b_col] = _codes(bbits, per)
    # scale_A[m, t]: byte byte-id + t of lane 4 (m % 8) + m // 8 + 2 thread-id
    (ba, ta), (bb, tb) = s["sel_a"], s["sel_b"]
    m, t = np.arange(16)[:, None], np.arange(x)[None, :]
    sa_codes = (sa[4 * (m % 8) + m // 8 + 2 * ta] >> (8 * (ba + t)).astype(np.uint64)) & 0xFF
    n = np.arange(8)[None, :]
    sb_codes = (sb[4 * n + tb] >> (8 * (bb + t.T)).astype(np.uint64)) & 0xFF
    sa_codes, sb_codes = sa_codes.astype(np.int64), sb_codes.astype(np.int64)
    at, bt, st = w.args["atype"], w.args["btype"], s["stype"]
    A, B = _values(acodes, at), _values(bcodes, bt)
    SA, SB = _scale_values(sa_codes, st, where), _scale_values(sb_codes, st, where)
    C = np.zeros((16, 8))
    C[_C_ROW, _C_COL] = cvals
    blk = kdim // x
    if not (np.isfinite(A).all() and np.isfinite(B).all() and np.isfinite(SA).all() and np.isfinite(SB).all()
            and np.isfinite(C).all()):
        with np.errstate(all="ignore"):
            D = ((A * np.repeat(SA, blk, axis=1)) @ (B * np.repeat(SB, blk, axis=0)) + C).astype(np.float32)
        dv = D.astype(np.float64)
    else:
        # exact: every value is an integer times 2^-shift
        ia = (A * 2.0 ** _SHIFT[at]).astype(np.int64).astype(object)
        ib = (B * 2.0 ** _SHIFT[bt]).astype(np.int64).astype(object)
        isa = np.vectorize(lambda v: int(Fraction(v) * 2 ** _SHIFT[st]), otypes=[object])(SA)
        isb = np.vectorize(lambda v: int(Fraction(v) * 2 ** _SHIFT[st]), otypes=[object])(SB)
        total = np.zeros((16, 8), dtype=object)
        for j in range(x):
            part = ia[:, j * blk:(j + 1) * blk].dot(ib[j * blk:(j + 1) * blk, :])
            total = total + part * isa[:, j:j + 1] * isb[j:j + 1, :]
        den = 2 ** (_SHIFT[at] + _SHIFT[bt] + 2 * _SHIFT[st])
        dv = np.zeros((16, 8))
        for mm in range(16):
            for nn in range(8):
                dv[mm, nn] = round_exact(Fraction(int(total[mm, nn]), den) + Fraction(float(C[mm, nn])), F32FMT)
    out = dv[_C_ROW, _C_COL].tolist()
    for l in range(32):
        R = lanes[l]
        for i, r in enumerate(w.args["d"]):
            R[r.slot] = out[l][i] if r.kind == "f" else _f2u(out[l][i])
