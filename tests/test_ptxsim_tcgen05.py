"""The simulator's tcgen05 / Tensor Memory model (tests/ptxsim/tcgen05.py), sm_100a, .cta_group::1.

Hand-written one-CTA kernels (128 threads): the threads copy a shared-memory image, built here
from the PTX ISA's canonical layouts (CuTe form, "Shared Memory Layout and Swizzling") and its
Swizzle<B,M,S> functions, from global memory into shared memory; warp 0 allocates Tensor
Memory; thread 0 issues one tcgen05.mma per 32-byte K step (descriptor templates from the host,
the kernel adding the shared address) and a tcgen05.commit to an mbarrier; every warp waits on
it, fences, and reads its quarter of D with tcgen05.ld.32x32b, then stores it. The result must
equal NumPy's with the accumulator rounded after each instruction. Every kernel assembles with
ptxas -arch=sm_100a (when ptxas is on PATH).
"""
from __future__ import annotations

import shutil
import subprocess

import ml_dtypes
import numpy as np
import pytest

try:
    import ptxsim
except ImportError:                    # pragma: no cover
    from tests import ptxsim

PTXAS = shutil.which("ptxas")
KIND_ESIZE = {"f16": 2, "bf16": 2, "tf32": 4, "e4m3": 1, "e5m2": 1, "s8": 1, "u8": 1}
KIND_OF = {"f16": "f16", "bf16": "f16", "tf32": "tf32", "e4m3": "f8f6f4", "e5m2": "f8f6f4", "s8": "i8", "u8": "i8"}
TYPE_CODE = {"f16": 0, "bf16": 1, "tf32": 2, "e4m3": 0, "e5m2": 1, "u8": 0, "s8": 1}
MODES = {"none": 0, "128B_32B": 1, "128B": 2, "64B": 4, "32B": 6}
WIDTH = {0: 16, 1: 128, 2: 128, 4: 64, 6: 32}


def image_and_columns(nwords: int, ncols: int, relinquish: bool = False) -> str:
    """PTX (tid in %r0, its warp in %r1, the image pointer in %rd1): the CTA copies
    `nwords` words from the image to `smem`, fences them for the async proxy,
    thread 0 initializes `bar`, warp 0 allocates `ncols` columns (and gives up the
    permit), and the columns' address ends in %r10 for every thread."""
    give_up = "\n  tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" if relinquish else ""
    return f"""  mov.u32 %r5, %r0;
COPY:
  setp.ge.u32 %p1, %r5, {nwords};
  @%p1 bra COPY_DONE;
  mul.wide.u32 %rd5, %r5, 4;
  add.s64 %rd6, %rd1, %rd5;
  ld.global.u32 %r6, [%rd6];
  mov.u32 %r7, smem;
  shl.b32 %r8, %r5, 2;
  add.u32 %r7, %r7, %r8;
  st.shared.u32 [%r7], %r6;
  add.u32 %r5, %r5, 128;
  bra.uni COPY;
COPY_DONE:
  fence.proxy.async.shared::cta;
  setp.eq.u32 %p2, %r0, 0;
  @%p2 mbarrier.init.shared::cta.b64 [bar], 1;
  setp.eq.u32 %p3, %r1, 0;
  @!%p3 bra.uni ALLOC_DONE;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], {ncols};{give_up}
ALLOC_DONE:
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  ld.shared.b32 %r10, [slot];
"""

def assemble(ptx, tmp_path):
    """ptxas -arch=sm_100a accepts `ptx` (skipped without ptxas)."""
    if PTXAS is None:
        pytest.skip("ptxas not on PATH")
    src = tmp_path / "k.ptx"
    src.write_text(ptx)
    r = subprocess.run([PTXAS, "-arch=sm_100a", str(src), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


# ---- shared-memory images -------------------------------------------------------------------------

def swizzle(addr, mode):
    """CuTe's Swizzle<B, M, S> on byte addresses: bits [M+S, M+S+B) XORed into [M, M+B)."""
    b, m, s = {0: (0, 4, 3), 1: (2, 5, 2), 2: (3, 4, 3), 4: (2, 4, 3), 6: (1, 4, 3)}[mode]
    return addr ^ ((addr & (((1 << b) - 1) << (m + s))) >> s)


class Operand:
    """An operand (rows along M or N, ktot along K) laid out in a canonical layout at byte `base`
    of the image: .offsets (rows x ktot, swizzled), .lbo, .sbo, .size, .step_start(j) (the byte
    where K step j starts, its descriptor's start address)."""

    def __init__(self, rows, ktot, esize, mn_major, mode, base):
        self.rows, self.ktot, self.esize, self.mn, self.mode, self.base = rows, ktot, esize, mn_major, mode, base
        self.kstep = 32 // esize
        r = np.arange(rows)[:, None]
        k = np.arange(ktot)[None, :]
        w = WIDTH[mode]
        if not mn_major and mode == 0:
            # ((8,m),(T,2k)):((1T,SBO),(1,LBO)): 8x16-byte core matrices, K-adjacent ones LBO apart
            self.lbo, self.sbo = 128, ktot * esize // 16 * 128
            b = k * esize
            off = (r % 8) * 16 + (r // 8) * self.sbo + b % 16 + (b // 16) * self.lbo
            self.size = rows // 8 * self.sbo
            self.step = lambda j: j * 32 // 16 * self.lbo
        elif not mn_major:
            # ((8,m),(T,2k)):((W/16 T,SBO),(1,T)): 8-row atoms of W bytes; K beyond W in further atoms
            self.lbo, self.sbo = 16, 8 * w
            katom = rows // 8 * self.sbo
            b = k * esize
            off = (b // w) * katom + (r % 8) * w + (r // 8) * self.sbo + b % w
            self.size = max(1, ktot * esize // w) * katom
            self.step = lambda j: (j * 32 // w) * katom + j * 32 % w
        elif mode == 0:
            # ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)): 16-byte runs along M/N, T-element groups SBO apart
            t = 16 // esize
            self.sbo, self.lbo = 128, rows // t * 128
            off = (r % t) * esize + (r // t) * self.sbo + (k % 8) * 16 + (k // 8) * self.lbo
            self.size = ktot // 8 * self.lbo
            self.step = lambda j: j * self.kstep // 8 * self.lbo
        else:
            # ((T,W/16,m),(8,k)):((1,T,LBO),(W/16 T,SBO)); 128B with 32B atoms: 4 K rows an atom
            per, krows = w // esize, 4 if mode == 1 else 8
            self.lbo = krows * w
            self.sbo = rows // per * self.lbo
            off = (r % per) * esize + (r // per) * self.lbo + (k % krows) * w + (k // krows) * self.sbo
            self.size = ktot // krows * self.sbo
            self.step = lambda j: j * self.kstep // krows * self.sbo
        self.offsets = swizzle(base + off, mode)

    def place(self, image, raw):
        """Write `raw` (rows x ktot x esize bytes) into `image`."""
        for e in range(self.esize):
            image[self.offsets + e] = raw[..., e]

    def desc(self, j, version=1):
        start = self.base + self.step(j)
        return ((start >> 4) & 0x3FFF) | ((self.lbo >> 4) << 16) | ((self.sbo >> 4) << 32) | (version << 46) | \
            (self.mode << 61)


def idesc(atype, btype, dtype, m, n, mn_a=0, mn_b=0, neg_a=0, neg_b=0):
    d = {"f16": 0, "f32": 1, "s32": 2}[dtype]
    return (d << 4) | (TYPE_CODE[atype] << 7) | (TYPE_CODE[btype] << 10) | (neg_a << 13) | (neg_b << 14) | \
        (mn_a << 15) | (mn_b << 16) | ((n >> 3) << 17) | ((m >> 4) << 24)


# ---- the kernel -------------------------------------------------------------------------------------

def gemm_ptx(kind, *, m, n, ksteps, image_bytes, ncols, lane16=False, st_init=False, clobber=None, edits=()):
    """k(img, desc, idesc, first, c, out): D (TMEM) = sum over K steps of A_j B_j^T (+ D when first
    is nonzero, or + C stored by tcgen05.st with st_init); out (m x n .b32) = D."""
    assert image_bytes % 16 == 0
    nwords = image_bytes // 4
    vregs = ", ".join(f"%v{i}" for i in range(n))
    dt = "%r16" if lane16 else "%r10"
    lines = [f"""
.version 8.7
.target sm_100a
.address_size 64

.visible .entry tc_gemm(.param .u64 p_img, .param .u64 p_desc, .param .u32 p_idesc, .param .u32 p_first,
                        .param .u64 p_c, .param .u64 p_out)
.reqntid 128
{{
  .reg .pred %p<10>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<30>;
  .reg .b32 %v<{n}>;
  .shared .align 1024 .b8 smem[{image_bytes}];
  .shared .align 8 .b64 bar;
  .shared .align 4 .b32 slot;

  mov.u32 %r0, %tid.x;
  shr.u32 %r1, %r0, 5;
  and.b32 %r2, %r0, 31;
  ld.param.u64 %rd1, [p_img];
  ld.param.u64 %rd2, [p_desc];
  ld.param.u32 %r3, [p_idesc];
  ld.param.u32 %r4, [p_first];
  ld.param.u64 %rd3, [p_c];
  ld.param.u64 %rd4, [p_out];
{image_and_columns(nwords, ncols, relinquish=True)}  add.u32 %r16, %r10, 0x100000;
  shl.b32 %r13, %r1, 21;
  add.u32 %r14, %r10, %r13;
  mul.lo.u32 %r17, %r1, 32;
  add.u32 %r17, %r17, %r2;
  mul.wide.u32 %rd12, %r17, {4 * n};"""]
    if st_init:
        lines.append("  add.s64 %rd13, %rd3, %rd12;")
        lines += [f"  ld.global.u32 %v{i}, [%rd13+{4 * i}];" for i in range(n)]
        lines.append(f"""  tcgen05.st.sync.aligned.32x32b.x{n}.b32 [%r14], {{{vregs}}};
  tcgen05.wait::st.sync.aligned;
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;""")
    lines.append(f"""  @!%p2 bra.uni MMA_DONE;
  mov.u32 %r11, smem;
  shr.u32 %r11, %r11, 4;
  and.b32 %r11, %r11, 0x3FFF;
  cvt.u64.u32 %rd7, %r11;
  setp.ne.u32 %p4, %r4, 0;
  mov.u32 %r12, 0;
MMA_LOOP:
  mul.wide.u32 %rd8, %r12, 16;
  add.s64 %rd9, %rd2, %rd8;
  ld.global.u64 %rd10, [%rd9];
  ld.global.u64 %rd11, [%rd9+8];
  add.s64 %rd10, %rd10, %rd7;
  add.s64 %rd11, %rd11, %rd7;
  tcgen05.mma.cta_group::1.kind::{kind} [{dt}], %rd10, %rd11, %r3, %p4;
  setp.eq.u32 %p4, %r0, 0;
  add.u32 %r12, %r12, 1;
  setp.lt.u32 %p5, %r12, {ksteps};
  @%p5 bra.uni MMA_LOOP;
  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [bar];""")
    if clobber is not None:          # thread 0 zeroes bytes clobber[0] .. clobber[1] of the image after its commit
        lo, hi = clobber
        lines.append(f"""  mov.u32 %r20, {lo};
CLOB:
  mov.u32 %r21, smem;
  add.u32 %r21, %r21, %r20;
  st.shared.v4.u32 [%r21], {{0, 0, 0, 0}};
  add.u32 %r20, %r20, 16;
  setp.lt.u32 %p7, %r20, {hi};
  @%p7 bra.uni CLOB;""")
    lines.append("MMA_DONE:")
    lines.append(f"""WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p6, [bar], 0;
  @!%p6 bra.uni WAIT;
  tcgen05.fence::after_thread_sync;
  tcgen05.ld.sync.aligned.32x32b.x{n}.b32 {{{vregs}}}, [%r14];
  tcgen05.wait::ld.sync.aligned;""")
    if m == 64:                      # layout F: rows 16 w + i in lanes 32 w + i (+ 16 with lane16)
        lines.append(f"""  setp.lt.u32 %p8, %r2, 16;
  @{'' if lane16 else '!'}%p8 bra STORE_DONE;
  mul.lo.u32 %r17, %r1, 16;
  and.b32 %r18, %r2, 15;
  add.u32 %r17, %r17, %r18;
  mul.wide.u32 %rd12, %r17, {4 * n};""")
    lines.append("  add.s64 %rd14, %rd4, %rd12;")
    lines += [f"  st.global.b32 [%rd14+{4 * i}], %v{i};" for i in range(n)]
    lines.append(f"""STORE_DONE:
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  @!%p3 bra.uni END;
  tcgen05.fence::after_thread_sync;
  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r10, {ncols};
END:
  ret;
}}
""")
    ptx = "\n".join(lines)
    for old, new in edits:
        assert old in ptx, old
        ptx = ptx.replace(old, new)
    return ptx


# ---- inputs and references ----------------------------------------------------------------------------

NP = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}


def values(rng, etype, shape):
    """(raw bytes (shape + (esize,)), values as float64 or int64) of random `etype` elements."""
    if etype in ("f16", "bf16"):
        x = (rng.integers(-16, 17, shape) / 8).astype(NP[etype])
        return x.view(np.uint8).reshape(shape + (2,)), x.astype(np.float64)
    if etype in ("e4m3", "e5m2"):
        x = rng.standard_normal(shape).astype(NP[etype])
        return x.view(np.uint8).reshape(shape + (1,)), x.astype(np.float64)
    if etype == "tf32":
        x = (rng.integers(-64, 65, shape) / 16 + rng.integers(1, 8, shape) * 2.0 ** -22).astype(np.float32)
        t = (x.view(np.uint32) & 0xFFFFE000).view(np.float32)      # the tensor core reads the tf32 bits
        return x.view(np.uint8).reshape(shape + (4,)), t.astype(np.float64)
    x = rng.integers(-128, 128, shape).astype(np.int8) if etype == "s8" else \
        rng.integers(0, 256, shape).astype(np.uint8)
    return x.view(np.uint8).reshape(shape + (1,)), x.astype(np.int64)


def run_gemm(atype, btype, *, m=128, n=64, ksteps=2, amode="none", bmode="none", mn_a=0, mn_b=0, dtype=None,
             first=0, st_init=False, lane16=False, seed=0, tmp_path=None, copy_timing="late", clobber=None,
             edits=(), desc_version=1, check=True, scale=0, mask=None):
    """Build, assemble and run a GEMM; returns (out as uint32 (m x n), reference). scale:
    scale-input-d of every mma; mask: its disable-output-lane words (4 x 32 lanes)."""
    rng = np.random.default_rng(seed)
    kind = KIND_OF[atype]
    dtype = dtype or ("s32" if kind == "i8" else "f32")
    es = KIND_ESIZE[atype]
    ktot = ksteps * 32 // es
    a = Operand(m, ktot, es, mn_a, MODES[amode], 0)
    b = Operand(n, ktot, es, mn_b, MODES[bmode], (a.size + 1023) // 1024 * 1024)
    size = (b.base + b.size + 1023) // 1024 * 1024
    image = np.zeros(size, np.uint8)
    araw, av = values(rng, atype, (m, ktot))
    braw, bv = values(rng, btype, (n, ktot))
    a.place(image, araw)
    b.place(image, braw)
    descs = np.array([[a.desc(j, desc_version), b.desc(j, desc_version)] for j in range(ksteps)], np.uint64)
    ncols = max(32, 1 << (n - 1).bit_length())
    if scale or mask is not None:
        words = mask or (0, 0, 0, 0)
        sets = "".join(f"  mov.b32 %r{30 + i}, {w:#x};\n" for i, w in enumerate(words))
        edits = [("  mov.u32 %r12, 0;\nMMA_LOOP:\n", f"{sets}  mov.u32 %r12, 0;\nMMA_LOOP:\n"),
                 ("%rd11, %r3, %p4;", f"%rd11, %r3, {{%r30, %r31, %r32, %r33}}, %p4, {scale};")] + list(edits)
    ptx = gemm_ptx(kind, m=m, n=n, ksteps=ksteps, image_bytes=size, ncols=ncols, lane16=lane16, st_init=st_init,
                   clobber=clobber, edits=edits)
    if tmp_path is not None:
        assemble(ptx, tmp_path)
    # the reference: C (st_init) or zero, then one rounding to D's type per instruction
    c_bits = np.zeros((m, n), np.uint32)
    if kind == "i8":
        d = np.zeros((m, n), np.int64)
        if st_init:
            d = rng.integers(-1000, 1000, (m, n))
            c_bits = (d & 0xFFFFFFFF).astype(np.uint32)
    else:
        d = np.zeros((m, n))
        if st_init:
            d = (rng.integers(-64, 65, (m, n)) / 4).astype(np.float32).astype(np.float64)
            c_bits = d.astype(np.float32).view(np.uint32)
    rnd = (lambda x: x.astype(np.float16).astype(np.float64)) if dtype == "f16" else \
        (lambda x: x.astype(np.float32).astype(np.float64))
    k = 32 // es
    keep = np.zeros(m, bool) if mask is None else \
        np.array([(mask[lane // 32] >> (lane % 32)) & 1 for lane in range(m)], bool)    # M = 128: row = lane
    for j in range(ksteps):
        prod = av[:, j * k:(j + 1) * k] @ bv[:, j * k:(j + 1) * k].T
        new = d + prod if kind == "i8" else rnd(d * 2.0 ** -scale + prod)
        d = np.where(keep[:, None], d, new)
    c_full = np.zeros((128, n), np.uint32)
    c_full[:m] = c_bits
    out = np.zeros((m, n), np.uint32)
    ide = idesc(atype, btype, dtype, m, n, mn_a, mn_b)
    ptxsim.run_ptx(ptx, "tc_gemm", 1, [image.view(np.uint32), descs, np.uint32(ide),
                                        np.uint32(first or st_init), c_full, out], copy_timing=copy_timing)
    if kind == "i8":
        ref = (d & 0xFFFFFFFF).astype(np.uint32)
    elif dtype == "f16":
        ref = d.astype(np.float16).view(np.uint16).astype(np.uint32)
    else:
        ref = d.astype(np.float32).view(np.uint32)
    if check:
        np.testing.assert_array_equal(out, ref)
    return out, ref


# ---- the GEMMs --------------------------------------------------------------------------------------

def test_f16_kmajor_no_swizzle(tmp_path):
    """128x64x64 f16 -> f32, K-major A and B, no swizzle: four K steps, the first with
    enable-input-d false (D = A B), the others accumulating."""
    run_gemm("f16", "f16", ksteps=4, tmp_path=tmp_path)


def test_f16_kmajor_128b_swizzle(tmp_path):
    run_gemm("f16", "f16", ksteps=4, amode="128B", bmode="128B", tmp_path=tmp_path)


def test_f16_mn_major_b(tmp_path):
    """B N-major (transpose B): no swizzle (LBO between 8-row K groups, SBO between 8-element N
    groups) and 32-byte swizzle."""
    run_gemm("f16", "f16", ksteps=4, amode="128B", bmode="none", mn_b=1, tmp_path=tmp_path)
    run_gemm("f16", "f16", ksteps=2, amode="none", bmode="32B", mn_b=1, seed=1)


def test_f16_mn_major_a_128b_and_f16_d(tmp_path):
    """A M-major with 128-byte swizzling (two 64-row blocks LBO apart), D in f16 (unpacked: the
    low 16 bits of each TMEM word)."""
    out, ref = run_gemm("f16", "f16", ksteps=2, amode="128B", bmode="64B", mn_a=1, dtype="f16",
                        tmp_path=tmp_path)
    assert not (out >> 16).any()


def test_bf16_64b_swizzle(tmp_path):
    run_gemm("bf16", "bf16", ksteps=4, amode="64B", bmode="64B", tmp_path=tmp_path)


def test_tf32(tmp_path):
    """tf32 (8 K a step): the low 13 mantissa bits of each f32 word are not read."""
    run_gemm("tf32", "tf32", ksteps=4, amode="32B", bmode="128B", tmp_path=tmp_path)


def test_tf32_mn_major_b_128b_32b_atoms(tmp_path):
    """A transposed tf32 operand takes 128-byte swizzling with 32-byte atomicity (4 K rows an atom)."""
    run_gemm("tf32", "tf32", ksteps=2, amode="none", bmode="128B_32B", mn_b=1, tmp_path=tmp_path)


def test_e4m3_x_e5m2(tmp_path):
    run_gemm("e4m3", "e5m2", ksteps=2, amode="none", bmode="128B", tmp_path=tmp_path)


def test_s8_x_u8(tmp_path):
    run_gemm("s8", "u8", ksteps=4, amode="128B", bmode="none", tmp_path=tmp_path)
    run_gemm("s8", "s8", ksteps=2, amode="none", bmode="64B", mn_b=1, seed=3)


def test_m64_layout_f(tmp_path):
    """M = 64: rows 16 w .. 16 w + 15 in TMEM lanes 32 w .. 32 w + 15 (data path layout F), or
    32 w + 16 .. with the accumulator at lane 16."""
    run_gemm("f16", "f16", m=64, n=64, ksteps=2, amode="128B", bmode="none", tmp_path=tmp_path)
    run_gemm("f16", "f16", m=64, n=32, ksteps=2, lane16=True, seed=2)


def test_enable_input_d_accumulates_two_k_steps(tmp_path):
    """Two K steps: D = A0 B0 (enable-input-d false), then D += A1 B1; with the first mma's
    predicate true D starts from the poison fill (NaN)."""
    run_gemm("f16", "f16", ksteps=2, tmp_path=tmp_path)
    out, ref = run_gemm("f16", "f16", ksteps=2, first=1, check=False)
    assert np.isnan(out.view(np.float32)).all()


def test_st_then_mma_accumulate_then_ld(tmp_path):
    """C goes into TMEM by tcgen05.st (wait::st, fence, barrier, fence), then D = C + A B."""
    run_gemm("f16", "f16", ksteps=2, st_init=True, tmp_path=tmp_path)
    run_gemm("s8", "s8", ksteps=2, st_init=True, seed=4)


def test_operands_overwritten_before_completion_are_read_late():
    """Zeroing A after the commit, before waiting: the mma reads zeros under the late timing (it
    runs when nothing else can) and the original A when copies and commits are eager."""
    out, ref = run_gemm("f16", "f16", ksteps=2, clobber=(0, 8192), check=False)
    assert (out == 0).all() and (ref != 0).any()
    run_gemm("f16", "f16", ksteps=2, clobber=(0, 8192), copy_timing="eager")


# ---- errors -------------------------------------------------------------------------------------------

def _raises(match, **kw):
    with pytest.raises(ptxsim.PTXRuntimeError, match=match):
        run_gemm("f16", "f16", ksteps=2, **kw)


def test_ld_before_the_commit_wait_is_an_error(tmp_path):
    """A bar.sync in place of the mbarrier wait: the warps read D while the mma is queued. With no
    synchronization at all, warps that load before the mma is issued race with it the other way."""
    wait = "WAIT:\n  mbarrier.try_wait.parity.shared::cta.b64 %p6, [bar], 0;\n  @!%p6 bra.uni WAIT;\n"
    edits = [(wait, "  bar.sync 0;\n")]
    assemble(gemm_ptx("f16", m=128, n=64, ksteps=2, image_bytes=16384 + 8192, ncols=64, edits=edits), tmp_path)
    _raises(r"tcgen05\.ld reads TMEM columns 0\.\. of lanes the tcgen05\.mma at PTX line \d+ .* has not completed",
            edits=edits)
    _raises(r"tcgen05\.mma writes TMEM cells the tcgen05\.ld of warp \d \(PTX line \d+.*\) reads, and that warp has "
            r"not executed tcgen05\.wait::ld since", edits=[(wait, "")])


def test_missing_dealloc_is_an_error(tmp_path):
    edits = [("  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r10, 64;\n", "")]
    assemble(gemm_ptx("f16", m=128, n=64, ksteps=2, image_bytes=16384 + 8192, ncols=64, edits=edits), tmp_path)
    _raises(r"ended with Tensor Memory allocated .*tcgen05\.dealloc", edits=edits)


def test_missing_wait_ld_is_an_error(tmp_path):
    edits = [("  tcgen05.wait::ld.sync.aligned;\n", "")]
    assemble(gemm_ptx("f16", m=128, n=64, ksteps=2, image_bytes=16384 + 8192, ncols=64, edits=edits), tmp_path)
    _raises(r"reads a destination register of the tcgen05\.ld at PTX line \d+.* before its tcgen05\.wait::ld",
            edits=edits)


def test_wrong_lane_quarter_is_an_error(tmp_path):
    edits = [("  shl.b32 %r13, %r1, 21;", "  shl.b32 %r13, %r1, 20;")]
    assemble(gemm_ptx("f16", m=128, n=64, ksteps=2, image_bytes=16384 + 8192, ncols=64, edits=edits), tmp_path)
    _raises(r"tcgen05\.ld\.32x32b by warp 1 \(warp 1 of its warpgroup, which reaches TMEM lanes 32\.\.63 only\)",
            edits=edits)


def test_bad_descriptor_version_is_an_error():
    _raises(r"shared memory descriptor 0x[0-9a-f]+: bits 46-48 are 0b000, the ISA fixes them to 0b001",
            desc_version=0)


def test_missing_fence_after_wait_is_an_error():
    edits = [("  @!%p6 bra.uni WAIT;\n  tcgen05.fence::after_thread_sync;\n", "  @!%p6 bra.uni WAIT;\n")]
    _raises(r"executed no tcgen05.fence::after_thread_sync after that mma completed", edits=edits)


def test_unfenced_operand_store_is_an_error():
    _raises(r"tcgen05\.mma reads shared offset \d+, which thread \d+ stored to .* no fence\.proxy\.async",
            edits=[("  fence.proxy.async.shared::cta;\n", "")])


def test_unsupported_forms_fail_at_decode():
    for old, new in (("tcgen05.ld.sync.aligned.32x32b.x64.b32", "tcgen05.ld.sync.aligned.16x64b.x32.b32"),
                     ("kind::f16 [%r10]", "kind::f16.collector::a::fill [%r10]")):
        ptx = gemm_ptx("f16", m=128, n=64, ksteps=2, image_bytes=16384 + 8192, ncols=64, edits=[(old, new)])
        with pytest.raises(ptxsim.UnsupportedPTX):
            ptxsim.load(ptx).kernel("tc_gemm")


# ---- Tensor Memory allocation, ld / st --------------------------------------------------------------

def warp_ptx(body, nthreads=32):
    """k(out): a kernel of `nthreads` threads; `body` sees %r0 = tid, %r10 = the address from the
    alloc at [slot] (if it allocates), %rd4 = out + 4 * 64 * tid."""
    return f"""
.version 8.7
.target sm_100a
.address_size 64

.visible .entry k(.param .u64 p_out)
.reqntid {nthreads}
{{
  .reg .pred %p<4>;
  .reg .b32 %r<40>;
  .reg .f32 %f<140>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b32 slot[4];

  mov.u32 %r0, %tid.x;
  ld.param.u64 %rd1, [p_out];
  mul.wide.u32 %rd2, %r0, 256;
  add.s64 %rd4, %rd1, %rd2;
{body}
  ret;
}}
"""


ALLOC64 = """  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 64;
  ld.shared.b32 %r10, [slot];"""
DEALLOC64 = "  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r10, 64;"


def run_warp(body, tmp_path=None, nthreads=32):
    ptx = warp_ptx(body, nthreads)
    if tmp_path is not None:
        assemble(ptx, tmp_path)
    out = np.zeros((nthreads, 64), np.uint32)
    ptxsim.run_ptx(ptx, "k", 1, [out])
    return out


def test_st_ld_f32_registers_and_poison(tmp_path):
    """tcgen05.st of .f32 registers then tcgen05.ld (wait::st, wait::ld between): the values come
    back; a column nothing wrote reads 0xFFFFFFFF. The second allocation (32 columns) lands at
    column 64, its size-aligned free range."""
    body = ALLOC64 + """
  cvt.rn.f32.u32 %f1, %r0;
  add.f32 %f2, %f1, 0f3F000000;
  tcgen05.st.sync.aligned.32x32b.x2.b32 [%r10], {%f1, %f2};
  tcgen05.wait::st.sync.aligned;
  tcgen05.ld.sync.aligned.32x32b.x4.b32 {%f3, %f4, %f5, %f6}, [%r10];
  tcgen05.wait::ld.sync.aligned;
  st.global.f32 [%rd4], %f3;
  st.global.f32 [%rd4+4], %f4;
  st.global.f32 [%rd4+8], %f6;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot+4], 32;
  ld.shared.b32 %r11, [slot+4];
  st.global.b32 [%rd4+12], %r11;
  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r11, 32;
""" + DEALLOC64
    out = run_warp(body, tmp_path)
    t = np.arange(32, dtype=np.float32)
    np.testing.assert_array_equal(out[:, 0].view(np.float32), t)
    np.testing.assert_array_equal(out[:, 1].view(np.float32), t + 0.5)
    assert (out[:, 2] == 0xFFFFFFFF).all() and (out[:, 3] == 64).all()


def test_allocation_errors(tmp_path):
    more = ALLOC64 + "\n  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot+4], 128;"
    with pytest.raises(ptxsim.PTXRuntimeError, match="128 columns after one of 64: .* must not increase"):
        run_warp(more, tmp_path)
    late = "  tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n" + ALLOC64
    with pytest.raises(ptxsim.PTXRuntimeError, match="alloc after the CTA relinquished its permit"):
        run_warp(late)
    full = """  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 512;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot+4], 32;"""
    with pytest.raises(ptxsim.PTXRuntimeError, match="no free aligned range .* would block"):
        run_warp(full)
    odd = ALLOC64 + "\n  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r10, 32;"
    with pytest.raises(ptxsim.PTXRuntimeError, match="no allocation of the CTA starts there with that size"):
        run_warp(odd)
    past = ALLOC64 + "\n  add.u32 %r11, %r10, 32;\n  tcgen05.ld.sync.aligned.32x32b.x64.b32 {" + \
        ", ".join(f"%f{i}" for i in range(64)) + "}, [%r11];\n" + DEALLOC64
    with pytest.raises(ptxsim.PTXRuntimeError, match="reaches TMEM column 64 .* which no tcgen05.alloc"):
        run_warp(past)


def test_st_read_before_wait_st_is_an_error():
    body = ALLOC64 + """
  tcgen05.st.sync.aligned.32x32b.x1.b32 [%r10], {%r0};
  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r11}, [%r10];
  tcgen05.wait::ld.sync.aligned;
""" + DEALLOC64
    with pytest.raises(ptxsim.PTXRuntimeError, match="tcgen05.st of thread 0 .* no tcgen05.wait::st since"):
        run_warp(body)


def test_st_then_mma_needs_wait_st_and_the_fence_pair():
    st_sync = ("  tcgen05.wait::st.sync.aligned;\n  tcgen05.fence::before_thread_sync;\n  bar.sync 0;\n"
               "  tcgen05.fence::after_thread_sync;\n")
    with pytest.raises(ptxsim.PTXRuntimeError, match=r"tcgen05\.mma writes TMEM that the tcgen05\.st of thread 0 "
                                                      r".* no tcgen05\.wait::st since"):
        run_gemm("f16", "f16", ksteps=2, st_init=True, edits=[(st_sync, "  bar.sync 0;\n")])
    with pytest.raises(ptxsim.PTXRuntimeError, match=r"another thread's st needs, after its tcgen05\.wait::st, a "
                                                      r"tcgen05\.fence::before_thread_sync"):
        run_gemm("f16", "f16", ksteps=2, st_init=True,
                 edits=[(st_sync, "  tcgen05.wait::st.sync.aligned;\n  bar.sync 0;\n")])


def test_scale_input_d_and_disable_output_lane(tmp_path):
    """D = A B + D * 2^-2 on every step; lanes 0-31 and 96 untouched (C stays there)."""
    run_gemm("f16", "f16", ksteps=2, st_init=True, scale=2, mask=(0xFFFFFFFF, 0, 0, 1), tmp_path=tmp_path)
