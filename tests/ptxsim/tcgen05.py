"""tcgen05 (sm_100a, fifth-generation tensor cores) and Tensor Memory, .cta_group::1 only.

Written from the PTX ISA, "TensorCore 5th Generation Family Instructions" (9.7.16): Tensor
Memory, Matrix Descriptors, Instruction Descriptor, Shared Memory Layout and Swizzling, Data
Path Layout Organization, Memory Consistency Model for tcgen05, and the instruction pages. It is
a reading of the ISA, independent of tilec's emitter.

Tensor Memory (TMEM)
--------------------
Per CTA 128 lanes x 512 columns of 32-bit cells (CTA.tc.data). An address is 32 bits: lane in
bits 31-16, column in bits 15-0. tcgen05.alloc (warp-collective; nCols a power of two in
32..512, the same in every lane) takes the lowest free column range aligned to its size, fills
it (all lanes) with 0xFFFFFFFF (NaN as f32: a read of TMEM nothing wrote shows up), and writes
its address (lane 0, first column) as a .b32 to shared memory at [dst]. No room is an error (the
hardware would block), as is an alloc after the CTA's tcgen05.relinquish_alloc_permit, or one
asking more columns than the CTA's previous alloc (the ISA: "the number of columns allocated
should not increase between any two allocations"). tcgen05.dealloc taddr, nCols must name an
allocation exactly; a CTA that ends with TMEM allocated is an error. Every tcgen05.ld / st / mma
cell must lie in allocated columns.

tcgen05.mma (one thread issues it; queued, executed late)
--------------------------------------------------------
tcgen05.mma.cta_group::1.kind::{f16,tf32,f8f6f4,i8} [d], a-desc, b-desc, idesc,
{disable-output-lane,} enable-input-d {, scale-input-d}: B from a shared-memory descriptor, A
from one or from TMEM ([a-tmem]; not for the block-scaled kinds). The descriptors and idesc are decoded
and checked at issue; the operation is queued and runs -- reading shared memory and D then --
when a tcgen05.commit covering it fires, in CTA issue order (an mma runs no later than a
later one of any thread: the tcgen05 pipelines keep their order).

* Instruction descriptor (32 bits): 0-1 sparsity selector, 2 sparsity (must be 0: dense), 3
  saturate (.kind::i8 only), 4-5 dtype (F16 0, F32 1, S32 2), 6 reserved, 7-9 atype, 10-12
  btype (f16: F16 0, BF16 1; tf32: 2; f8f6f4: E4M3 0, E5M2 1, E2M3 3, E3M2 4, E2M1 5; i8: U8 0,
  S8 1), 13/14 negate A/B (not for i8), 15/16 transpose A/B (1: MN-major), 17-22 N >> 3, 23
  reserved, 24-28 M >> 4, 29 reserved, 30-31 .ws B-reuse shift (0 here). Reserved bits set,
  sparsity, an invalid type or type pair, f6/f4 types (not simulated), M not 64/128, N outside
  8..256 step 8 (.kind::i8: 8, 16, 24, 32, then 48..256 step 16; 8-bit MN-major B: step 16)
  are errors. kind::f16: atype = btype, D f16 only with f16 inputs.
* Shared memory descriptor (64 bits): 0-13 start address, 16-29 leading dimension byte offset
  (LBO), 32-45 stride dimension byte offset (SBO), all encoded (x & 0x3FFFF) >> 4; 46-48 fixed
  0b001; 49-51 base offset; 52 LBO mode (1, absolute, is sm_103a-only: an error); 53-60 fixed 0;
  61-63 swizzle: 0 none, 1 128-byte with 32-byte atomicity, 2 128-byte, 4 64-byte, 6 32-byte
  (3, 5, 7 invalid). Reserved bits 14-15 and 30-31 must be 0. A nonzero base offset is not
  simulated (reported; the layouts read here start on whole swizzle patterns).
* Layouts (the ISA's canonical CuTe layouts; esize bytes per element, T = 16 / esize, W the
  swizzle width in bytes; row along M (A) or N (B), k along K; one instruction covers 32 bytes
  of K: 16 f16/bf16, 8 tf32, 32 fp8/8-bit integers). Byte offset from the start address:
  K-major none: (row%8)*16 + (row/8)*SBO + (k*esize)%16 + ((k*esize)/16)*LBO;
  K-major swizzled: (row%8)*W + (row/8)*SBO + k*esize (LBO unused);
  MN-major none: (row%T)*esize + (row/T)*SBO + (k%8)*16 + (k/8)*LBO;
  MN-major swizzled (W = 32/64/128): (row%(W/esize))*esize + (row/(W/esize))*LBO + (k%8)*W +
  (k/8)*SBO; MN-major 128-byte/32-byte atoms: the same with 4 K rows per atom, (k%4)*128 +
  (k/4)*SBO. The address (shared window) is then swizzled: bits 4-6 ^= bits 7-9 (128B), 4-5 ^=
  7-8 (64B), 4 ^= 7 (32B), 5-6 ^= 7-8 (128B with 32B atoms). Transpose (MN-major) is valid for
  8/16-bit types in every mode but the 32B-atom one, and for tf32 only in it (Table 52); K-major
  with 32B atoms has no swizzle atom in the ISA (Table 53): not simulated.
* A in TMEM ([a-tmem]): K-major only (transpose-A set is an error); row i in the lane D's row
  i would take (below), the row's 32 bytes of K in 8 consecutive columns from a-tmem's, each
  column a little-endian word (16-bit elements: k even in the low half). Read when the mma
  runs; the ordering rules for cells it reads are those of D's (a tcgen05.st of them needs its
  wait::st, and across threads the fence pair, before the issue; a tcgen05.st over them while
  the mma is queued is reported).
* D in TMEM: M = 128 (layout D): row i in lane i (taddr's lane must be 0); M = 64 (layout F,
  half the data path): row i in lane L + 32 (i/16) + i%16, L = taddr's lane, 0 or 16. Element
  (i, j) in column taddr.col + j; an f16 D element sits unpacked in the low 16 bits (the high
  bits written 0). disable-output-lane: bit l of the four words (the first word's LSB is lane
  0) leaves lane l unwritten.
* Numerics: products exact, summed in f64 with D * 2^-scale-input-d when enable-input-d
  (D = A*B otherwise), rounded once to D's type; negate bits negate A/B; tf32 operands are f32
  words of which only the tf32 bits are read (the low 13 mantissa bits dropped, as the mma.sync
  tf32 model); fp8 decoded from its bit fields (wgmma.fp8_values); .kind::i8 exact, wrapped to
  32 bits, or clamped with the saturate bit.

Block scaling: tcgen05.mma.cta_group::1.kind::{mxf8f6f4,mxf4,mxf4nvf4}.block_scale
{.scale_vec::1X/2X/4X, .block16, .block32} [d], a-desc, b-desc, idesc, [scale-A-tmem],
[scale-B-tmem], enable-input-d (the qualifiers ptxas takes: mxf8f6f4 1X (the default), mxf4 2X (the
default), mxf4nvf4 2X or 4X, named). D = (A scale_A)(B scale_B) + D, each row of A (column of B)
cut into X blocks of K / X, block t scaled by the row's t-th scale factor.
* Instruction descriptor (the ISA's block-scaled tables): 0-1, 3, 6, 24-26 reserved; 2 sparsity
  (must be 0); 4-5 SFB id; 7-9 atype, 10-12 btype (mxf8f6f4: E4M3 0, E5M2 1, E2M3 3, E3M2 4,
  E2M1 5 -- only the 8-bit two simulated; mxf4/mxf4nvf4: E2M1 1, btype 10-11, 12 reserved);
  13/14 negate; 15/16 transpose (not for the fp4 kinds); 17-22 N >> 3 (8..256 step 8); 23 scale
  type (UE8M0 1; UE4M3 0, mxf4nvf4 4X only); 27-28 M >> 7 (M = 128 for .cta_group::1); 29-30 SFA
  id; 31 reserved (mxf8f6f4) or K = 96 (fp4 kinds; not simulated). SF ids: 0-3 (1X), 0 or 2
  (2X), 0 (4X). K per MMA: 32 (mxf8f6f4), 64 (fp4 kinds: e2m1 packed two to a byte, element 2i
  in the low nibble, laid out as 8-bit K-major data, 32 bytes of K).
* Scale factors in TMEM (as CUTLASS's tcgen05.cp.32x128b.warpx4 copies them): scale_A's row m
  in lane m % 32 of column sfa + m / 32, scale_B's column n in lane n % 32 of column sfb + n / 32
  (the addresses' lane must be 0), bytes SF_ID .. SF_ID + X - 1 of the word. The ISA wants them
  duplicated to all four 32-lane partitions: the model reads the copies in lanes + 32 q and
  reports bytes that differ. Read when the mma runs; the tcgen05.st ordering rules apply to
  them as to D, and a tcgen05.st over them (or a dealloc) while the mma is queued is reported.
  ue8m0 x is 2^(x - 127) (0xFF NaN), ue4m3 E4M3 without sign (bit 7 set: reported).
* Numerics as above: scaled values exact, products exact, summed in f64, rounded once to f32.

tcgen05.commit.cta_group::1.mbarrier::arrive::one{.shared::cluster}.b64 [mbar] (the
mbarrier in the issuing CTA) makes the mbarrier track every mma its thread issued before it:
the commit fires -- its mmas (and any issued earlier by other threads) run, then one arrive
on the mbarrier -- when no thread of the CTA can run otherwise (after any TMA copy that may
land), the latest a GPU may; with copy_timing="eager" at once. So an operand overwritten
before the mbarrier phase completes is read overwritten, and D read early is poison or old.

tcgen05.ld / st / wait (warp-collective)
----------------------------------------
tcgen05.ld.sync.aligned.32x32b.xN.b32 {r0..r(N-1)}, [taddr] (N = 1, 2, .. 128; .b32 or .f32
registers): every lane gives the same taddr; warp w reaches lanes 32 (w%4) .. 32 (w%4) + 31
only, so taddr's lane must be 32 (w%4); lane t of the warp gets TMEM lane taddr.lane + t,
columns col .. col + N - 1. TMEM is read at issue; the destination registers read as
uninitialized (None) until the thread's tcgen05.wait::ld, so a computation with one before it
fails (a plain copy of one passes the None on), and writing one in between is reported at the
wait. (The ISA's "register dependencies, same thread" rule says a true register dependency on
tcgen05.ld is respected; this model is stricter and asks for the wait, as CUTLASS always does.)
tcgen05.st.sync.aligned.32x32b.xN.b32 [taddr], {r..} is the reverse; it writes TMEM at issue.
16x64b/16x128b/16x256b/16x32bx2, .pack::16b/.unpack::16b and .ld.red are unsupported.

Checked orderings (CTA-wide clock; fences per thread)
-----------------------------------------------------
* A tcgen05.ld of cells a queued (uncompleted) mma writes names both lines; so does a
  tcgen05.st to cells a queued mma reads or writes, and a dealloc under one.
* A tcgen05.ld or st of cells a completed mma wrote needs a tcgen05.fence::after_thread_sync
  of the thread after the mma ran (the mbarrier wait then the fence: the ISA's pattern).
* A cell written by tcgen05.st and then read by ld or mma (or overwritten by mma) needs the
  writing warp's tcgen05.wait::st after the st; for another thread, also the writer's
  fence::before_thread_sync after that wait and the consumer's fence::after_thread_sync after
  that fence (the synchronization in between is not checked).
* An mma or st writing cells that a tcgen05.ld not yet followed by its warp's wait::ld reads
  is reported (the load may see the new values).
* tcgen05.mma reads shared memory through the async proxy: each byte's latest generic-proxy
  write must be followed by a fence.proxy.async of its thread or of the issuing thread (the
  wgmma rule).
* At the CTA's end: no TMEM allocated, no mma queued or commit unfired.
* With the race check on (hb.py), the synchronization a fence pair stands for too: a reader of
  cells a completed mma wrote must have acquired that mma's completion (the commit's mbarrier
  phase, directly or through a barrier after another thread's wait), and a reader of another
  thread's tcgen05.st must be ordered after the writer's fence::before_thread_sync.
Not checked: fence ordering between mmas of different threads on one accumulator (they run in
CTA issue order), the fence pair between a waited tcgen05.ld and another thread's mma or st
over its cells, the cross-thread synchronization of a fence pair without the race check (only
the clock order of the fences), .aligned beyond the warp join, the "same .cta_group in a kernel" rule (only ::1
decodes). In copy_timing="eager" an ld that skips the mbarrier wait reads the right D (the late
default catches it).
"""
from __future__ import annotations

from bisect import bisect_right

import ml_dtypes
import numpy as np

from .base import MemoryFault, PTXRuntimeError, SHARED_BASE
from .mma_scaled import _E2M1 as E2M1_VALUES, _scale_values
from .wgmma import FP8_VALUES

TC_ALLOC, TC_DEALLOC, TC_RELINQ = "tcgen05.alloc", "tcgen05.dealloc", "tcgen05.relinquish_alloc_permit"
TC_LD, TC_ST, TC_WAIT_LD, TC_WAIT_ST = "tcgen05.ld", "tcgen05.st", "tcgen05.wait::ld", "tcgen05.wait::st"
TC_KINDS = (TC_ALLOC, TC_DEALLOC, TC_RELINQ, TC_LD, TC_ST, TC_WAIT_LD, TC_WAIT_ST)

LANES, COLS = 128, 512
POISON = 0xFFFFFFFF
MMA_KINDS = ("f16", "tf32", "f8f6f4", "i8")

# shared memory descriptor: swizzle field -> (name, row width in bytes, mask of the 16-byte chunk bits
# (address bits 4..) XORed with bits 7..; mode 1 XORs bits 5-6 with bits 7-8 instead: operand_offsets)
SWIZZLES = {0: ("none", 0, 0), 1: ("128B with 32B atomicity", 128, 0x6), 2: ("128B", 128, 0x7),
            4: ("64B", 64, 0x3), 6: ("32B", 32, 0x1)}
SMEM_DESC_RESERVED = (0x3 << 14) | (0x3 << 30) | (0xFF << 53)

# instruction descriptor type codes per kind: (dtypes, atypes/btypes)
IDESC_TYPES = {
    "f16": ({0: "f16", 1: "f32"}, {0: "f16", 1: "bf16"}),
    "tf32": ({1: "f32"}, {2: "tf32"}),
    "f8f6f4": ({1: "f32"}, {0: "e4m3", 1: "e5m2", 3: "e2m3", 4: "e3m2", 5: "e2m1"}),
    "i8": ({2: "s32"}, {0: "u8", 1: "s8"}),
}
ESIZE = {"f16": 2, "bf16": 2, "tf32": 4, "e4m3": 1, "e5m2": 1, "u8": 1, "s8": 1}


def operand_bytes(et):
    """(bytes a layout element, elements along K of one mma's 32 bytes): e2m1 (.kind::mxf4,
    .kind::mxf4nvf4) is packed two to a byte, element 2i in the low nibble, and laid out as
    8-bit K-major data (64 elements of K)."""
    return (1, 32) if et == "e2m1" else (ESIZE[et], 32 // ESIZE[et])


def decode_smem_desc(desc):
    """The fields of a 64-bit shared memory descriptor (byte values for start, LBO, SBO)."""
    return {"start": (desc & 0x3FFF) << 4, "lbo": ((desc >> 16) & 0x3FFF) << 4,
            "sbo": ((desc >> 32) & 0x3FFF) << 4, "version": (desc >> 46) & 0x7, "base": (desc >> 49) & 0x7,
            "lbo_mode": (desc >> 52) & 1, "swizzle": (desc >> 61) & 0x7}


def check_smem_desc(desc):
    """The decoded descriptor, or PTXRuntimeError saying what is wrong with it."""
    f = decode_smem_desc(desc)
    bad = None
    if f["version"] != 1:
        bad = f"bits 46-48 are {f['version']:#05b}, the ISA fixes them to 0b001"
    elif desc & SMEM_DESC_RESERVED:
        bad = "reserved bits (14-15, 30-31, 53-60) are set"
    elif f["swizzle"] not in SWIZZLES:
        bad = f"swizzle mode {f['swizzle']} is invalid (0, 1, 2, 4, 6)"
    elif f["lbo_mode"]:
        bad = "bit 52 (leading dimension byte address absolute) is supported on sm_103a only"
    elif f["base"]:
        bad = f"base offset {f['base']} (nonzero) is not simulated"
    if bad:
        raise PTXRuntimeError(f"shared memory descriptor {desc:#018x}: {bad}")
    return f


def decode_idesc(v, kind):
    """The instruction descriptor of a .kind::`kind` tcgen05.mma, checked: a dict with dtype,
    atype, btype (names), neg_a, neg_b, mn_a, mn_b (transposes), sat, m, n; PTXRuntimeError
    saying what is wrong otherwise."""
    dtypes, etypes = IDESC_TYPES[kind]
    d = (v >> 4) & 3
    a, b = (v >> 7) & 7, (v >> 10) & 7
    f = {"sat": (v >> 3) & 1, "neg_a": (v >> 13) & 1, "neg_b": (v >> 14) & 1, "mn_a": (v >> 15) & 1,
         "mn_b": (v >> 16) & 1, "n": ((v >> 17) & 0x3F) << 3, "m": ((v >> 24) & 0x1F) << 4}

    def bad(why):
        raise PTXRuntimeError(f"tcgen05.mma .kind::{kind} instruction descriptor {v:#010x}: {why}")
    if (v >> 2) & 1:
        bad("bit 2 (sparsity) set: tcgen05.mma is dense (tcgen05.mma.sp is unsupported)")
    if v & ((1 << 6) | (1 << 23) | (1 << 29)):
        bad("reserved bits (6, 23, 29) are set")
    if v >> 30:
        bad("bits 30-31 (B-reuse shift) are for .ws only")
    if f["sat"] and kind != "i8":
        bad("bit 3 (saturate) is for .kind::i8 only")
    if d not in dtypes:
        bad(f"dtype {d} (bits 4-5) is invalid (valid: {', '.join(f'{k} {x}' for k, x in dtypes.items())})")
    for code, what in ((a, "atype (bits 7-9)"), (b, "btype (bits 10-12)")):
        if code not in etypes:
            bad(f"{what} {code} is invalid (valid: {', '.join(f'{k} {x}' for k, x in etypes.items())})")
    f["dtype"], f["atype"], f["btype"] = dtypes[d], etypes[a], etypes[b]
    if kind == "f8f6f4" and (f["atype"] not in ("e4m3", "e5m2") or f["btype"] not in ("e4m3", "e5m2")):
        bad(f"{f['atype']} x {f['btype']}: the 6- and 4-bit types are not simulated")
    if kind == "f16" and f["atype"] != f["btype"]:
        bad(f"atype {f['atype']} and btype {f['btype']} differ")
    if kind == "f16" and f["dtype"] == "f16" and f["atype"] != "f16":
        bad("an f16 D takes f16 A and B")
    if kind == "i8" and (f["neg_a"] or f["neg_b"]):
        bad("negate A/B (bits 13, 14) is not supported for .kind::i8")
    m, n = f["m"], f["n"]
    if m not in (64, 128):
        bad(f"M = {m} (bits 24-28 = M >> 4): .cta_group::1 takes M = 64 or 128")
    if kind == "i8":
        ok = n in (8, 16, 24, 32) or (n % 16 == 0 and 48 <= n <= 256)
        rule = "8, 16, 24, 32, then 48..256 in steps of 16"
    else:
        ok = n % 8 == 0 and 8 <= n <= 256
        rule = "8..256 in steps of 8"
    if not ok:
        bad(f"N = {n} (bits 17-22 = N >> 3): .kind::{kind} takes N = {rule}")
    if f["mn_b"] and ESIZE[f["btype"]] == 1 and n % 16:
        bad(f"N = {n}: an 8-bit transposed (MN-major) B takes N a multiple of 16")
    return f


# block-scaled kinds: (K per MMA, the scale_vec X each takes, A/B type codes, scale type codes
# (instruction descriptor bit 23) each X takes)
SCALED_KINDS = {
    "mxf8f6f4": (32, (1,), {0: "e4m3", 1: "e5m2", 3: "e2m3", 4: "e3m2", 5: "e2m1"}, {1: {1: "ue8m0"}}),
    "mxf4": (64, (2,), {1: "e2m1"}, {2: {1: "ue8m0"}}),
    "mxf4nvf4": (64, (2, 4), {1: "e2m1"}, {2: {1: "ue8m0"}, 4: {0: "ue4m3", 1: "ue8m0"}}),
}
SF_IDS = {1: (0, 1, 2, 3), 2: (0, 2), 4: (0,)}


def decode_idesc_scaled(v, kind, x):
    """The instruction descriptor of a .kind::`kind`.block_scale.scale_vec::`x`X tcgen05.mma
    (PTX ISA: the formats for .kind::mxf8f6f4 and for .kind::mxf4/.kind::mxf4nvf4), checked: a
    dict with atype, btype, stype (names), sfa_id, sfb_id, neg_a, neg_b, mn_a, mn_b, m, n;
    PTXRuntimeError saying what is wrong otherwise."""
    kdim, _, etypes, stypes = SCALED_KINDS[kind]
    fp4 = kind != "mxf8f6f4"
    a, b = (v >> 7) & 7, (v >> 10) & (3 if fp4 else 7)
    s = (v >> 23) & 1
    f = {"dtype": "f32", "sfb_id": (v >> 4) & 3, "sfa_id": (v >> 29) & 3, "neg_a": (v >> 13) & 1,
         "neg_b": (v >> 14) & 1, "mn_a": (v >> 15) & 1, "mn_b": (v >> 16) & 1, "n": ((v >> 17) & 0x3F) << 3,
         "m": ((v >> 27) & 3) << 7, "k": kdim}

    def bad(why):
        raise PTXRuntimeError(f"tcgen05.mma .kind::{kind}.block_scale instruction descriptor {v:#010x}: {why}")
    if (v >> 2) & 1:
        bad("bit 2 (sparsity) set: tcgen05.mma is dense (tcgen05.mma.sp is unsupported)")
    reserved = 0x3 | (1 << 3) | (1 << 6) | (0x7 << 24) | ((1 << 12) if fp4 else 0) | (0 if fp4 else 1 << 31)
    if v & reserved:
        bad(f"reserved bits ({'0-1, 3, 6, 12, 24-26' if fp4 else '0-1, 3, 6, 24-26, 31'}) are set")
    if fp4 and v >> 31:
        bad("bit 31 (K dimension) is 1: K = 96 is not simulated")
    for code, what in ((a, "atype (bits 7-9)"), (b, f"btype (bits {'10-11' if fp4 else '10-12'})")):
        if code not in etypes:
            bad(f"{what} {code} is invalid (valid: {', '.join(f'{k} {t}' for k, t in etypes.items())})")
    f["atype"], f["btype"] = etypes[a], etypes[b]
    if not fp4 and (f["atype"] not in ("e4m3", "e5m2") or f["btype"] not in ("e4m3", "e5m2")):
        bad(f"{f['atype']} x {f['btype']}: the 6- and 4-bit types of .kind::mxf8f6f4 are not simulated")
    if s not in stypes[x]:
        bad(f"scale type {s} (bit 23) with scale_vec::{x}X (valid: "
            f"{', '.join(f'{k} {t}' for k, t in stypes[x].items())})")
    f["stype"] = stypes[x][s]
    for name in ("sfa_id", "sfb_id"):
        if f[name] not in SF_IDS[x]:
            bad(f"{name.upper().replace('_ID', ' ID')} {f[name]} (bits {'29-30' if name == 'sfa_id' else '4-5'}) with "
                f"scale_vec::{x}X (valid: {', '.join(map(str, SF_IDS[x]))})")
    if fp4 and (f["mn_a"] or f["mn_b"]):
        bad("transpose A/B (bits 15, 16) set: .kind::mxf4 and .kind::mxf4nvf4 take K-major operands only")
    if f["m"] != 128:
        bad(f"M = {f['m']} (bits 27-28 = M >> 7): a .cta_group::1 block-scaled MMA takes M = 128")
    n = f["n"]
    if n % 8 or not 8 <= n <= 256:
        bad(f"N = {n} (bits 17-22 = N >> 3): N = 8..256 in steps of 8")
    if f["mn_b"] and n % 16:
        bad(f"N = {n}: an 8-bit transposed (MN-major) B takes N a multiple of 16")
    return f


def operand_offsets(rows, k, esize, mn_major, f):
    """Shared-window byte offsets (rows x k) of the first byte of each element of an operand
    laid out as descriptor fields `f` say (row along M/N, col along K), swizzled; see the module
    docstring. PTXRuntimeError for layouts the ISA rules out or that are not simulated."""
    mode = f["swizzle"]
    name, w, mask = SWIZZLES[mode]
    lbo, sbo = f["lbo"], f["sbo"]
    r = np.arange(rows)[:, None]
    c = np.arange(k)[None, :]
    if esize == 4 and mn_major and mode != 1:
        raise PTXRuntimeError(f"a transposed (MN-major) tf32 operand takes 128B swizzling with 32B atomicity, "
                              f"not swizzle mode {mode} ({name})")
    if esize != 4 and mn_major and mode == 1:
        raise PTXRuntimeError(f"a transposed (MN-major) {8 * esize}-bit operand cannot use 128B swizzling with "
                              f"32B atomicity")
    if not mn_major and mode == 1:
        raise PTXRuntimeError("a K-major operand with 128B swizzling and 32B atomicity: the ISA gives no swizzle "
                              "atom for it (not simulated)")
    if mode == 0:
        if mn_major:
            t = 16 // esize
            off = (r % t) * esize + (r // t) * sbo + (c % 8) * 16 + (c // 8) * lbo
        else:
            b = c * esize
            off = (r % 8) * 16 + (r // 8) * sbo + b % 16 + (b // 16) * lbo
    elif mn_major:
        per = w // esize                     # elements along M/N in one swizzle row
        krows = 4 if mode == 1 else 8        # K rows in one swizzle atom
        off = (r % per) * esize + (r // per) * lbo + (c % krows) * w + (c // krows) * sbo
    else:
        off = (r % 8) * w + (r // 8) * sbo + c * esize
    off = f["start"] + off
    if mode == 1:
        return off ^ (((off >> 7) & 0x3) << 5)
    return off ^ (((off >> 7) & mask) << 4)


def d_lanes(m, lane0):
    """The TMEM lanes of D's rows (data path layout D for M = 128, F for M = 64)."""
    i = np.arange(m)
    return lane0 + i if m == 128 else lane0 + 32 * (i // 16) + i % 16


class TcMma:
    """One tcgen05.mma: its operands as issued (checked), queued until a commit fires."""

    def __init__(self, seq, lid, tid, kind, f, adesc, bdesc, af, bf, lanes, col, enable, mask, scale, sf=None):
        self.seq, self.lid, self.tid, self.kind, self.f = seq, lid, tid, kind, f
        self.adesc, self.bdesc, self.af, self.bf = adesc, bdesc, af, bf
        self.lanes, self.col, self.n = lanes, col, f["n"]
        self.enable, self.mask, self.scale = enable, mask, scale
        self.sf = sf               # block scale: (x, sfa column, sfb column)
        self.reads = []            # TMEM cells it reads besides D: (lanes, column, count)
        self.a_cells = None        # those of an A in Tensor Memory (one of `reads`)
        self.done = False
        self.hb = None             # the race check: (issuing thread's clock at the issue, shared offsets read)
        self.hb_clock = None       # the race check: the mma's clock once it ran


class TcCommit:
    def __init__(self, lid, tid, mbar, ops):
        self.lid, self.tid, self.mbar, self.ops = lid, tid, mbar, ops


class TcState:
    """A CTA's Tensor Memory and tcgen05 state."""

    def __init__(self):
        self.data = np.full((LANES, COLS), POISON, np.uint32)
        self.colmap = np.full(COLS, -1, np.int32)     # per column: the start column of its allocation
        self.allocs = {}           # start column -> (columns, lid of the alloc)
        self.relinquished = None   # lid of the CTA's tcgen05.relinquish_alloc_permit
        self.last_ncols = None     # columns of the CTA's latest alloc (they must not increase)
        # the latest write of each cell: 0 none, 1 tcgen05.st, 2 tcgen05.mma; its clock, thread, PTX line
        self.wkind = np.zeros((LANES, COLS), np.int8)
        self.wclock = np.zeros((LANES, COLS), np.int64)
        self.wtid = np.zeros((LANES, COLS), np.int32)
        self.wlid = np.zeros((LANES, COLS), np.int32)
        self.wmma = np.zeros((LANES, COLS), np.int64)  # the race check: the number of the mma that wrote it
        self.queue = []            # TcMma issued and not run, in issue order (CTA-wide)
        self.commits = []          # TcCommit not yet fired, in issue order
        self.pending_ld = {}       # warp -> [(lid, lane0, columns start, count)] not yet followed by wait::ld
        self.shadow = {}           # thread -> {slot: value} of tcgen05.ld destinations before the wait::ld
        self.shadow_lid = {}       # thread -> lid of the tcgen05.ld whose registers are pending
        self.wait_st = {}          # warp -> clocks of its tcgen05.wait::st
        self.fence_before = {}     # thread -> clocks of its tcgen05.fence::before_thread_sync
        self.fence_before_hb = {}  # the race check: thread -> its own clock component at each of them
        self.fence_after = {}      # thread -> clock of its latest tcgen05.fence::after_thread_sync
        self.clock = 0

    def tick(self):
        self.clock += 1
        return self.clock


class Tcgen05Runtime:
    """Mixed into runtime.Kernel: TMEM allocation, tcgen05.ld/st/wait (warp-collective, through
    the runner's joins), tcgen05.mma/commit/fence (inline in generated code), late completion."""

    def _tc(self):
        tc = self.cta.tc
        if tc is None:
            tc = self.cta.tc = TcState()
        return tc

    # ---- helpers ------------------------------------------------------------------------------
    def _tc_uniform(self, w, lanes, what, values):
        where = w.instr.where()
        if any(v is None for v in values):
            raise PTXRuntimeError(f"{w.kind} {what} from an uninitialized register ({where})")
        if len(set(values)) != 1:
            raise PTXRuntimeError(f"{w.kind}: the lanes of the warp give different {what} "
                                  f"({sorted(set(values))[:4]}...): .sync.aligned needs one value ({where})")
        return values[0]

    def _tc_val(self, R, spec):
        """An operand's value in a lane: ("reg", slot) / ("imm", v), or an address (kind, base, offset)."""
        if len(spec) == 3:
            kind, base, off = spec
            v = R[base] if kind == "reg" else base
            return None if v is None else (v + off) & 0xFFFFFFFF
        kind, v = spec
        return R[v] if kind == "reg" else v

    def _tc_cols(self, tc, col, n, what, where):
        """Columns col .. col + n - 1 must be allocated."""
        if col + n > COLS or not (tc.colmap[col:col + n] >= 0).all():
            free = [c for c in range(col, min(col + n, COLS)) if tc.colmap[c] < 0] or [COLS]
            raise PTXRuntimeError(f"{what} reaches TMEM column {free[0]} (columns {col}..{col + n - 1}), which no "
                                  f"tcgen05.alloc of the CTA holds ({where})")

    def _tc_queued_on(self, tc, lanes, col, n, what, where, reads_too=False):
        """No queued (not yet run) mma may write (or, with reads_too, read) the cells."""
        ls = set(np.atleast_1d(lanes).tolist())
        for op in tc.queue:
            regions = [(op.lanes, op.col, op.n, "writes")]
            if reads_too:
                regions += [(rl, rc, rn, "reads (scale factors)") for rl, rc, rn in op.reads]
            for ol, oc, on, verb in regions:
                if oc < col + n and col < oc + on and ls.intersection(np.atleast_1d(ol).tolist()):
                    ins = self.instrs[op.lid]
                    raise PTXRuntimeError(
                        f"{what} TMEM columns {max(col, oc)}.. of lanes the tcgen05.mma at PTX line {ins.lineno} "
                        f"({ins.text.strip()}, thread {op.tid}) {verb}, and that mma has not completed: wait for "
                        f"its tcgen05.commit's mbarrier phase (then tcgen05.fence::after_thread_sync) first "
                        f"({where})")

    def _tc_pending_ld_on(self, tc, lanes, col, n, what, where):
        """No tcgen05.ld not yet waited for (wait::ld) may read cells about to be written."""
        ls = set(np.atleast_1d(lanes).tolist())
        for warp, lds in tc.pending_ld.items():
            for lid, l0, c0, cn in lds:
                if c0 < col + n and col < c0 + cn and ls.intersection(range(l0, l0 + 32)):
                    raise PTXRuntimeError(f"{what} TMEM cells the tcgen05.ld of warp {warp} ({self._where(lid)}) "
                                          f"reads, and that warp has not executed tcgen05.wait::ld since: the load "
                                          f"may see the new values ({where})")

    def _tc_readers_ok(self, tc, lanes, col, n, readers, what, where, mma_rule=True, st_rule=True):
        """Cells (lanes x columns) consumed by `readers` (a thread per lane, or one thread): the
        ordering rules for their latest writers (module docstring). mma_rule: cells a completed
        mma wrote need the reader's tcgen05.fence::after_thread_sync after it ran; st_rule: cells
        a tcgen05.st wrote need its warp's wait::st (and, across threads, the fence pair)."""
        lanes = np.atleast_1d(lanes)
        rows = np.broadcast_to(np.asarray(readers), lanes.shape)
        sub = np.ix_(lanes, np.arange(col, col + n))
        kinds, clocks = tc.wkind[sub], tc.wclock[sub]
        if mma_rule and (kinds == 2).any():
            def check(bad, why):
                if bad.any():
                    i, j = np.argwhere(bad)[0]
                    raise PTXRuntimeError(
                        f"{what} TMEM lane {lanes[i]} column {col + j}, which the tcgen05.mma at "
                        f"{self._where(int(tc.wlid[sub][i, j]))} wrote, but {why(int(rows[i]))} ({where})")
            fa = np.array([tc.fence_after.get(int(t), -1) for t in rows], np.int64)[:, None]
            check((kinds == 2) & (fa <= clocks),
                  lambda t: f"thread {t} executed no tcgen05.fence::after_thread_sync after that mma completed "
                            f"(wait on its commit's mbarrier, then fence)")
            h = self.cta.hb
            if h is not None:        # the race check: the reader acquired the mma's completion
                check((kinds == 2) & (h.vc[rows, h.tc_comp][:, None] < tc.wmma[sub]),
                      lambda t: f"nothing orders thread {t} after that mma's completion (a wait on its commit's "
                                f"mbarrier phase, or a barrier after another thread's wait)")
        st = kinds == 1
        if not st_rule or not st.any():
            return
        tids, lids = tc.wtid[sub], tc.wlid[sub]
        rd = np.broadcast_to(rows[:, None], kinds.shape)
        seen = set()
        for u, s, t, lid in zip(tids[st].tolist(), clocks[st].tolist(), rd[st].tolist(), lids[st].tolist()):
            if (u, s, t) in seen:
                continue
            seen.add((u, s, t))
            waits = tc.wait_st.get(u >> 5, [])
            k = bisect_right(waits, s)
            if k == len(waits):
                raise PTXRuntimeError(f"{what} TMEM that the tcgen05.st of thread {u} ({self._where(lid)}) wrote, "
                                      f"and its warp has executed no tcgen05.wait::st since ({where})")
            if u == t:
                continue
            fbs = tc.fence_before.get(u, [])
            kb = bisect_right(fbs, waits[k])
            if kb == len(fbs) or tc.fence_after.get(t, -1) <= fbs[kb]:
                raise PTXRuntimeError(
                    f"{what} TMEM that thread {u} wrote by tcgen05.st ({self._where(lid)}): another thread's st "
                    f"needs, after its tcgen05.wait::st, a tcgen05.fence::before_thread_sync of the writer, the "
                    f"synchronization, and a tcgen05.fence::after_thread_sync of thread {t} ({where})")
            h = self.cta.hb
            if h is not None and h.vc[t, h.tb + u] < tc.fence_before_hb[u][kb]:
                raise PTXRuntimeError(
                    f"{what} TMEM that thread {u} wrote by tcgen05.st ({self._where(lid)}): no synchronization "
                    f"orders thread {t} after thread {u}'s tcgen05.fence::before_thread_sync (a barrier or an "
                    f"mbarrier between the fences) ({where})")

    # ---- warp-collective instructions ------------------------------------------------------------
    def _tc_collective(self, w, lanes, warp):
        {TC_ALLOC: self._tc_alloc, TC_DEALLOC: self._tc_dealloc, TC_RELINQ: self._tc_relinquish,
         TC_LD: self._tc_ld, TC_ST: self._tc_st, TC_WAIT_LD: self._tc_wait_ld,
         TC_WAIT_ST: self._tc_wait_st}[w.kind](w, lanes, warp)

    def _tc_alloc(self, w, lanes, warp):
        tc, where = self._tc(), w.instr.where()
        kind, base, off = w.args["addr"]
        dst = self._tc_uniform(w, lanes, "addresses", [(R[base] if kind == "reg" else base) + off
                                                        for R in lanes.values()])
        n = self._tc_uniform(w, lanes, "nCols", [self._tc_val(R, w.args["ncols"]) for R in lanes.values()])
        if n not in (32, 64, 128, 256, 512):
            raise PTXRuntimeError(f"tcgen05.alloc of {n} columns: nCols must be a power of 2 in 32..512 ({where})")
        if tc.relinquished is not None:
            raise PTXRuntimeError(f"tcgen05.alloc after the CTA relinquished its permit to allocate "
                                  f"({self._where(tc.relinquished)}) ({where})")
        if tc.last_ncols is not None and n > tc.last_ncols:
            raise PTXRuntimeError(f"tcgen05.alloc of {n} columns after one of {tc.last_ncols}: the ISA says the "
                                  f"number of columns allocated must not increase between allocations ({where})")
        if not (SHARED_BASE <= dst and dst + 4 <= SHARED_BASE + self.launch_shared) or dst % 4:
            raise MemoryFault(f"tcgen05.alloc writes the TMEM address to {dst:#x}, not a 4-byte aligned address "
                              f"in the CTA's {self.launch_shared} shared bytes ({where})")
        start = next((c for c in range(0, COLS, n) if (tc.colmap[c:c + n] < 0).all()), None)
        if start is None:
            held = ", ".join(f"{c}..{c + k - 1} ({self._where(lid)})" for c, (k, lid) in sorted(tc.allocs.items()))
            raise PTXRuntimeError(f"tcgen05.alloc of {n} columns: no free aligned range in the CTA's {COLS} TMEM "
                                  f"columns (held: {held}); the hardware would block until a dealloc ({where})")
        tc.allocs[start] = (n, w.instr.lid)
        tc.colmap[start:start + n] = start
        tc.last_ncols = n
        tc.data[:, start:start + n] = POISON
        tc.wkind[:, start:start + n] = 0
        self._st_shared_checked(w.instr.lid, "I", dst, start, 4, warp * 32)
        if self.cta.hb is not None:
            o = dst - SHARED_BASE
            self._hb_thread_write(warp * 32, range(o, o + 4), w.instr.lid)

    def _tc_dealloc(self, w, lanes, warp):
        tc, where = self._tc(), w.instr.where()
        taddr = self._tc_uniform(w, lanes, "taddr", [self._tc_val(R, w.args["taddr"]) for R in lanes.values()])
        n = self._tc_uniform(w, lanes, "nCols", [self._tc_val(R, w.args["ncols"]) for R in lanes.values()])
        col = taddr & 0xFFFF
        if taddr >> 16 or tc.allocs.get(col, (None,))[0] != n:
            held = ", ".join(f"columns {c}..{c + k - 1}" for c, (k, _) in sorted(tc.allocs.items())) or "none"
            raise PTXRuntimeError(f"tcgen05.dealloc of taddr {taddr:#x}, {n} columns: no allocation of the CTA "
                                  f"starts there with that size (allocations: {held}) ({where})")
        self._tc_queued_on(tc, np.arange(LANES), col, n, "tcgen05.dealloc frees", where, reads_too=True)
        self._tc_pending_ld_on(tc, np.arange(LANES), col, n, "tcgen05.dealloc frees", where)
        del tc.allocs[col]
        tc.colmap[col:col + n] = -1

    def _tc_relinquish(self, w, lanes, warp):
        tc = self._tc()
        if tc.relinquished is None:
            tc.relinquished = w.instr.lid

    def _tc_warp_lanes(self, w, lanes, warp, taddr):
        """(first TMEM lane, column) of a 32x32b access by `warp`: its lane quarter only."""
        where = w.instr.where()
        if len(lanes) != 32:
            raise PTXRuntimeError(f"{w.kind} in a warp of {len(lanes)} threads ({where})")
        lane, col = taddr >> 16, taddr & 0xFFFF
        q = 32 * (warp % 4)
        if lane != q:
            raise PTXRuntimeError(f"{w.kind}.32x32b by warp {warp} (warp {warp % 4} of its "
                                  f"warpgroup, which reaches TMEM lanes {q}..{q + 31} only) at taddr {taddr:#x}: "
                                  f"lanes {lane}..{lane + 31} ({where})")
        return lane, col

    def _tc_ld(self, w, lanes, warp):
        tc, where = self._tc(), w.instr.where()
        taddr = self._tc_uniform(w, lanes, "taddr", [self._tc_val(R, w.args["taddr"]) for R in lanes.values()])
        lane0, col = self._tc_warp_lanes(w, lanes, warp, taddr)
        n = w.args["n"]
        self._tc_cols(tc, col, n, "tcgen05.ld", where)
        tl = np.arange(lane0, lane0 + 32)
        self._tc_queued_on(tc, tl, col, n, "tcgen05.ld reads", where)
        self._tc_readers_ok(tc, tl, col, n, np.arange(warp * 32, warp * 32 + 32), "tcgen05.ld reads", where)
        vals = tc.data[lane0:lane0 + 32, col:col + n]
        regs = w.args["d"]
        fv = vals.view(np.float32).astype(np.float64).tolist()
        iv = vals.tolist()
        for l, R in lanes.items():
            t = warp * 32 + l
            sh = tc.shadow.setdefault(t, {})
            for i, r in enumerate(regs):
                sh[r.slot] = fv[l][i] if r.kind == "f" else iv[l][i]
                R[r.slot] = None                  # undefined until tcgen05.wait::ld
            tc.shadow_lid[t] = w.instr.lid
        tc.pending_ld.setdefault(warp, []).append((w.instr.lid, lane0, col, n))

    def _tc_wait_ld(self, w, lanes, warp):
        tc = self._tc()
        tc.pending_ld.pop(warp, None)
        for l, R in lanes.items():
            t = warp * 32 + l
            sh = tc.shadow.pop(t, None)
            lid = tc.shadow_lid.pop(t, None)
            if not sh:
                continue
            for s, v in sh.items():
                if R[s] is not None:
                    raise PTXRuntimeError(f"thread {t} wrote a destination register of the tcgen05.ld at "
                                          f"{self._where(lid)} before its tcgen05.wait::ld ({w.instr.where()})")
                R[s] = v

    def _tc_st(self, w, lanes, warp):
        tc, where = self._tc(), w.instr.where()
        taddr = self._tc_uniform(w, lanes, "taddr", [self._tc_val(R, w.args["taddr"]) for R in lanes.values()])
        lane0, col = self._tc_warp_lanes(w, lanes, warp, taddr)
        n = w.args["n"]
        self._tc_cols(tc, col, n, "tcgen05.st", where)
        tl = np.arange(lane0, lane0 + 32)
        self._tc_queued_on(tc, tl, col, n, "tcgen05.st writes", where, reads_too=True)
        self._tc_pending_ld_on(tc, tl, col, n, "tcgen05.st writes", where)
        self._tc_readers_ok(tc, tl, col, n, np.arange(warp * 32, warp * 32 + 32), "tcgen05.st writes", where,
                            st_rule=False)
        vals = np.zeros((32, n), np.uint32)
        for l, R in lanes.items():
            for i, r in enumerate(w.args["s"]):
                v = R[r.slot]
                if v is None:
                    raise PTXRuntimeError(f"tcgen05.st stores an uninitialized register (lane {l}, {where})")
                vals[l, i] = np.float32(v).view(np.uint32) if r.kind == "f" else v & 0xFFFFFFFF
        clock = tc.tick()
        tc.data[lane0:lane0 + 32, col:col + n] = vals
        tc.wkind[lane0:lane0 + 32, col:col + n] = 1
        tc.wclock[lane0:lane0 + 32, col:col + n] = clock
        tc.wtid[lane0:lane0 + 32, col:col + n] = (warp * 32 + np.arange(32))[:, None]
        tc.wlid[lane0:lane0 + 32, col:col + n] = w.instr.lid

    def _tc_wait_st(self, w, lanes, warp):
        tc = self._tc()
        tc.wait_st.setdefault(warp, []).append(tc.tick())

    # ---- single-thread instructions (generated code calls these) --------------------------------
    def _tc_fence(self, tid, after):
        tc = self._tc()
        c = tc.tick()
        if after:
            tc.fence_after[tid] = c
        else:
            tc.fence_before.setdefault(tid, []).append(c)
            if self.cta.hb is not None:
                tc.fence_before_hb.setdefault(tid, []).append(int(self.cta.hb.vc[tid, self.cta.hb.tb + tid]))

    def _tc_mma(self, lid, tid, kind, taddr, adesc, bdesc, idesc, enable, mask, scale, sf=None, a_tmem=False):
        """tcgen05.mma; `sf` for .block_scale: (scale_vec X, [scale-A-tmem], [scale-B-tmem]);
        `a_tmem`: `adesc` is A's Tensor Memory address ([a-tmem])."""
        tc, where = self._tc(), self._where(lid)
        for v, what in ((taddr, "d-tmem address"), (adesc, "a-tmem address" if a_tmem else "a-desc"),
                        (bdesc, "b-desc"), (idesc, "idesc"),
                        (enable, "enable-input-d")) + (((sf[1], "scale-A-tmem address"),
                                                        (sf[2], "scale-B-tmem address")) if sf else ()):
            if v is None:
                raise PTXRuntimeError(f"tcgen05.mma {what} from an uninitialized register ({where})")
        if mask is not None and any(v is None for v in mask):
            raise PTXRuntimeError(f"tcgen05.mma disable-output-lane from an uninitialized register ({where})")
        taddr &= 0xFFFFFFFF
        try:
            f = decode_idesc_scaled(idesc, kind, sf[0]) if sf else decode_idesc(idesc, kind)
            af, bf = None if a_tmem else check_smem_desc(adesc), check_smem_desc(bdesc)
        except PTXRuntimeError as e:
            raise PTXRuntimeError(f"{e} ({where})") from None
        m, n = f["m"], f["n"]
        lane0, col = taddr >> 16, taddr & 0xFFFF
        if (m == 128 and lane0 != 0) or (m == 64 and lane0 not in (0, 16)):
            raise PTXRuntimeError(f"tcgen05.mma with M = {m} at taddr {taddr:#x} (lane {lane0}): D must start at "
                                  f"lane {'0' if m == 128 else '0 or 16 (data path layout F)'} ({where})")
        self._tc_cols(tc, col, n, "tcgen05.mma D", where)
        lanes = d_lanes(m, lane0)
        op = TcMma(tc.tick(), lid, tid, kind, f, adesc, bdesc, af, bf, lanes, col, bool(enable), mask, scale,
                   None if sf is None else (sf[0], sf[1] & 0xFFFF, sf[2] & 0xFFFF))
        if sf:
            op.reads = self._tc_scale_cells(tc, sf, n, where)
        if a_tmem:
            op.a_cells = self._tc_a_cells(tc, adesc & 0xFFFFFFFF, f, where)
            op.reads.append(op.a_cells)
        reads = []
        for desc, fd, rows, mn, et, name in ((adesc, af, m, f["mn_a"], f["atype"], "A"),
                                              (bdesc, bf, n, f["mn_b"], f["btype"], "B")):
            if fd is None:                          # A in Tensor Memory
                continue
            es, kk = operand_bytes(et)
            try:
                offs = operand_offsets(rows, kk, es, mn, fd)
            except PTXRuntimeError as e:
                raise PTXRuntimeError(f"tcgen05.mma {name} (descriptor {desc:#018x}): {e} ({where})") from None
            if offs.min() < 0 or offs.max() + es > self.launch_shared:
                raise MemoryFault(f"tcgen05.mma {name} operand (descriptor {desc:#018x}) reaches outside the "
                                  f"{self.launch_shared} shared bytes ({where})")
            reads.append((offs[..., None] + np.arange(es)).ravel())
        if self.tracks_proxy:
            self._tc_proxy_check(np.concatenate(reads), tid, where)
        if self.cta.hb is not None:
            op.hb = (self.cta.hb.vc[tid].copy(), np.concatenate(reads) if reads else np.zeros(0, np.int64))
        self._tc_pending_ld_on(tc, lanes, col, n, "tcgen05.mma writes", where)
        self._tc_readers_ok(tc, lanes, col, n, tid, "tcgen05.mma writes", where, mma_rule=False)
        for rl, rc, rn in op.reads:
            self._tc_readers_ok(tc, rl, rc, rn, tid, "tcgen05.mma reads A in" if (rl, rc, rn) is op.a_cells
                                else "tcgen05.mma reads scale factors in", where)
        tc.queue.append(op)

    def _tc_a_cells(self, tc, addr, f, where):
        """The TMEM cells (lanes, column, count) an mma with A in Tensor Memory at `addr` reads:
        A's rows in the lanes of D's data path layout (M = 128: lane i; M = 64: layout F), its
        32 bytes of K per row in 8 consecutive columns, elements packed from the low bits up.
        The ISA takes such an A K-major only (the transpose-A bit clear)."""
        if f["mn_a"]:
            raise PTXRuntimeError(f"tcgen05.mma with A in Tensor Memory has the transpose-A bit (15) of idesc set: "
                                  f"an A in Tensor Memory is K-major ({where})")
        lane0, col = addr >> 16, addr & 0xFFFF
        m = f["m"]
        if (m == 128 and lane0 != 0) or (m == 64 and lane0 not in (0, 16)):
            raise PTXRuntimeError(f"tcgen05.mma with M = {m}: A at a-tmem {addr:#x} (lane {lane0}) must start at lane "
                                  f"{'0' if m == 128 else '0 or 16 (data path layout F)'} ({where})")
        self._tc_cols(tc, col, 8, "tcgen05.mma A", where)
        return (d_lanes(m, lane0), col, 8)

    def _tc_scale_cells(self, tc, sf, n, where):
        """The TMEM cells a block-scaled mma reads its scale factors from, checked at issue:
        [(lanes, column, 1)] -- sfa's four columns (rows 32 c .. 32 c + 31 in column c) and
        sfb's ceil(N / 32), each in all four 32-lane partitions (the ISA wants the copies)."""
        out = []
        for addr, rows, what in ((sf[1] & 0xFFFFFFFF, 128, "scale-A-tmem"), (sf[2] & 0xFFFFFFFF, n, "scale-B-tmem")):
            lane, col = addr >> 16, addr & 0xFFFF
            if lane:
                raise PTXRuntimeError(f"tcgen05.mma {what} address {addr:#x} names lane {lane}: the scale factors "
                                      f"are read from every 32-lane partition, from lane 0 (not simulated otherwise) "
                                      f"({where})")
            ncol = (rows + 31) // 32
            self._tc_cols(tc, col, ncol, f"tcgen05.mma {what}", where)
            for c in range(ncol):
                used = np.arange(min(32, rows - 32 * c))
                out.append(((32 * np.arange(4)[:, None] + used[None, :]).ravel(), col + c, 1))
        return out

    def _tc_proxy_check(self, offs, tid, where):
        pxw = self.ns["PXW"][offs]
        bad = self._px_unfenced(pxw, self.ns["PXF"][tid])
        if bad.any():
            i = int(np.argmin(np.where(bad, offs, np.iinfo(np.int64).max)))
            o, v = int(offs[i]), int(pxw[i])
            raise PTXRuntimeError(f"tcgen05.mma reads shared offset {o}, which thread {v & 4095} stored to "
                                  f"({self._where((v >> 12) & 0xFFFFF)}) with no fence.proxy.async since (by that "
                                  f"thread or the issuing one): the async proxy may not see the data ({where})")

    def _tc_commit(self, lid, tid, mbar):
        tc = self._tc()
        if mbar is None:
            raise PTXRuntimeError(f"tcgen05.commit mbarrier address from an uninitialized register "
                                  f"({self._where(lid)})")
        ro = self._cl_split(mbar)            # a shared::cta address, or a shared::cluster one (mapa)
        if ro is None or ro[0] != self.cta.rank:
            raise PTXRuntimeError(f"tcgen05.commit on {mbar:#x}: only an mbarrier in the issuing CTA's shared "
                                  f"memory is simulated ({self._where(lid)})")
        mbar = SHARED_BASE + ro[1]
        self._mb_get(lid, mbar, "tcgen05.commit")
        tc.tick()
        c = TcCommit(lid, tid, mbar, [op for op in tc.queue if op.tid == tid])
        if self.eager:
            self._tc_fire(c)
        else:
            tc.commits.append(c)

    # ---- completion ----------------------------------------------------------------------------
    def _tc_fire(self, c):
        """Commit `c` fires: its mmas run (with every mma issued before them), then one arrive."""
        tc = self.cta.tc
        pending = [op for op in c.ops if not op.done]
        if pending:
            last = max(tc.queue.index(op) for op in pending)
            run, tc.queue = tc.queue[:last + 1], tc.queue[last + 1:]
            for op in run:
                self._tc_run(op)
        clock = None
        if self.cta.hb is not None:         # the arrival releases the mmas it completes
            clock = np.zeros(self.cta.hb.width, np.int64)
            for op in c.ops:
                np.maximum(clock, op.hb_clock, out=clock)
        self._mb_arrive(c.lid, c.mbar, 1, clock=clock)

    def _tc_fire_one(self, cta):
        """Nothing in `cta` (current) can run: its oldest pending commit fires. False if none."""
        tc = cta.tc
        if tc is None or not tc.commits:
            return False
        self._tc_fire(tc.commits.pop(0))
        return True

    def _tc_operand(self, op, desc, fd, rows, mn, et, neg):
        es, kk = operand_bytes(et)
        smem = np.asarray(self.sviews["B"])
        offs = SHARED_BASE + operand_offsets(rows, kk, es, mn, fd)
        if et == "e2m1":                         # packed: element 2i in the low nibble of byte i
            raw = smem[offs].astype(np.int64)
            v = E2M1_VALUES[np.stack([raw & 15, raw >> 4], axis=-1).reshape(rows, 2 * kk)]
        elif es == 1:
            raw = smem[offs]
            if et == "u8":
                return raw.astype(np.int64)
            if et == "s8":
                return raw.view(np.int8).astype(np.int64)
            v = FP8_VALUES[et][raw]
        elif es == 2:
            bits = smem[offs].astype(np.uint16) | (smem[offs + 1].astype(np.uint16) << 8)
            v = bits.view(np.float16 if et == "f16" else ml_dtypes.bfloat16).astype(np.float64)
        else:
            bits = np.zeros(offs.shape, np.uint32)
            for j in range(4):
                bits |= smem[offs + j].astype(np.uint32) << (8 * j)
            v = (bits & 0xFFFFE000).view(np.float32).astype(np.float64)     # the tf32 bits of the word
        return -v if neg else v

    def _tc_run(self, op):
        """Execute one mma: read A and B from shared memory and D from TMEM now."""
        tc, f = self.cta.tc, op.f
        self._tc_cols(tc, op.col, op.n, "tcgen05.mma D", self._where(op.lid))
        if op.a_cells is not None:
            a = self._tc_tmem_a(tc, op)
        else:
            a = self._tc_operand(op, op.adesc, op.af, f["m"], f["mn_a"], f["atype"], f["neg_a"])     # (M, K)
        b = self._tc_operand(op, op.bdesc, op.bf, op.n, f["mn_b"], f["btype"], f["neg_b"])       # (N, K)
        if op.sf is not None:
            sa, sb = self._tc_scales(tc, op)
            blk = f["k"] // op.sf[0]
            a = a * np.repeat(sa, blk, axis=1)           # exact: few significant bits, in f64's range
            b = b * np.repeat(sb, blk, axis=1)
        sub = np.ix_(op.lanes, np.arange(op.col, op.col + op.n))
        cur = tc.data[sub]
        if op.kind == "i8":
            acc = a @ b.T
            if op.enable:
                acc = acc + cur.view(np.int32).astype(np.int64)
            if f["sat"]:
                acc = np.clip(acc, -2 ** 31, 2 ** 31 - 1)
            out = (acc & 0xFFFFFFFF).astype(np.uint32)
        else:
            with np.errstate(all="ignore"):
                acc = a @ b.T
                if op.enable:
                    if f["dtype"] == "f16":
                        d = (cur & 0xFFFF).astype(np.uint16).view(np.float16).astype(np.float64)
                    else:
                        d = cur.view(np.float32).astype(np.float64)
                    acc = acc + d * 2.0 ** -op.scale
                if f["dtype"] == "f16":
                    out = acc.astype(np.float16).view(np.uint16).astype(np.uint32)
                else:
                    out = acc.astype(np.float32).view(np.uint32)
        if op.mask is not None:
            bits = np.array([(op.mask[l >> 5] >> (l & 31)) & 1 for l in op.lanes.tolist()], bool)
            out = np.where(bits[:, None], cur, out)
        if op.hb is not None:
            op.hb_clock = self._hb_tc_reads(op.hb[0], op.hb[1], op.lid)
            tc.wmma[sub] = op.hb_clock[self.cta.hb.tc_comp]
        clock = tc.tick()
        tc.data[sub] = out
        tc.wkind[sub] = 2
        tc.wclock[sub] = clock
        tc.wtid[sub] = op.tid
        tc.wlid[sub] = op.lid
        op.done = True

    def _tc_tmem_a(self, tc, op):
        """A (M x K) read from Tensor Memory now: row i from its lane, element k in byte
        (k * esize) of the row's 8 columns taken as little-endian words."""
        f = op.f
        lanes, col, n = op.a_cells
        self._tc_cols(tc, col, n, "tcgen05.mma A", self._where(op.lid))
        et = f["atype"]
        es, kk = operand_bytes(et)
        raw = np.ascontiguousarray(tc.data[np.ix_(lanes, np.arange(col, col + n))]).view(np.uint8)   # (M, 32)
        if et in ("u8", "s8"):
            return (raw if et == "u8" else raw.view(np.int8)).astype(np.int64)
        if es == 1:
            v = FP8_VALUES[et][raw]
        elif es == 2:
            v = raw.view(np.uint16).view(np.float16 if et == "f16" else ml_dtypes.bfloat16).astype(np.float64)
        else:
            v = (raw.view(np.uint32) & 0xFFFFE000).view(np.float32).astype(np.float64)
        return -v if f["neg_a"] else v

    def _tc_scales(self, tc, op):
        """(scale_A (M x X), scale_B (N x X)) of block-scaled `op`, read from TMEM now: row m of A
        (column n of B) from lane m % 32 of column sfa + m / 32 (sfb + n / 32), bytes SF_ID ..
        SF_ID + X - 1 of the word, the t-th byte scaling the t-th of its X blocks of K; the four
        32-lane partitions must hold the same bytes (the ISA: the scale factors are duplicated to
        all of them)."""
        x, ca, cb = op.sf
        f, where = op.f, self._where(op.lid)
        out = []
        for col, rows, sf_id, what in ((ca, f["m"], f["sfa_id"], "A"), (cb, op.n, f["sfb_id"], "B")):
            ncol = (rows + 31) // 32
            self._tc_cols(tc, col, ncol, f"tcgen05.mma scale-{what}-tmem", where)
            r = np.arange(rows)
            words = tc.data[32 * np.arange(4)[:, None] + (r % 32)[None, :], (col + r // 32)[None, :]]
            shifts = (8 * (sf_id + np.arange(x))).astype(np.uint64)
            codes = (words.astype(np.uint64)[..., None] >> shifts) & 0xFF          # (partition, row, X)
            differ = (codes != codes[0]).any(axis=(0, 2))
            if differ.any():
                i = int(np.argmax(differ))
                got = [[int(v) for v in codes[q, i]] for q in range(4)]
                raise PTXRuntimeError(
                    f"tcgen05.mma scale factors of {what}'s {'row' if what == 'A' else 'column'} {i} differ between "
                    f"the 32-lane partitions of TMEM column {col + i // 32} (lanes {i % 32} + 32 q: {got}): the ISA "
                    f"wants them duplicated to all four partitions ({where})")
            out.append(_scale_values(codes[0].astype(np.int64), f["stype"], where))
        return out

    # ---- the CTA's end, error notes --------------------------------------------------------------
    def _tc_cta_end(self, cta):
        tc = cta.tc
        if tc is None:
            return
        if tc.queue or tc.commits:
            op = tc.queue[0] if tc.queue else None
            what = (f"tcgen05.mma operations that never completed (the first: {self._where(op.lid)}, thread "
                    f"{op.tid}{'' if any(op in c.ops for c in tc.commits) else '; no tcgen05.commit covers it'})"
                    if op else f"a tcgen05.commit never completed ({self._where(tc.commits[0].lid)})")
            raise PTXRuntimeError(f"CTA {cta.ctaid} ended with {what}: wait on the commit's mbarrier before "
                                  f"reading D, deallocating and exiting")
        if tc.allocs:
            c, (n, lid) = sorted(tc.allocs.items())[0]
            raise PTXRuntimeError(f"CTA {cta.ctaid} ended with Tensor Memory allocated (columns {c}..{c + n - 1} from "
                                  f"{self._where(lid)}): the ISA requires tcgen05.dealloc of all of it before exit")

    def _tc_note(self, cta, t):
        """A note for an error in generated code: registers of a tcgen05.ld not yet waited for."""
        tc = cta.tc
        if tc is None or not tc.shadow.get(t):
            return ""
        return (f"; thread {t} reads a destination register of the tcgen05.ld at {self._where(tc.shadow_lid[t])} "
                f"before its tcgen05.wait::ld (undefined until then)")
