"""The simulator's fp8 warpgroup MMA (tests/ptxsim/wgmma.py):

    wgmma.mma_async.sync.aligned.m64nNk32.f32.{e4m3,e5m2}.{e4m3,e5m2}
        {d0, ..}, a-desc, b-desc, scale-d, imm-scale-a, imm-scale-b;

Hand-written one-warpgroup kernels: the threads copy A (64 x K) and B (given as
N x K, i.e. K-major) byte by byte into shared memory with st.shared, at byte
offsets this file computes from the PTX ISA's K-major layouts (core matrices of
8 rows x 16 bytes = 16 fp8 elements; or swizzle atoms of 8 rows x W bytes whose
16-byte chunks are permuted by the row), then run K / 32 wgmma.mma_async (one
per 32-element K step, the descriptors' start advanced by one step) in one or
more commit groups, and store D. The result must equal NumPy's, with the inputs
decoded by ml_dtypes (float8_e4m3fn, float8_e5m2) and the f32 accumulator
rounded after each instruction. Every kernel assembles with ptxas for sm_90a
(when ptxas is on PATH); forms ptxas rejects, and register-A fp8 (not
simulated), are unsupported at decode time.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

try:
    import ptxsim
    from ptxsim.wgmma import fp8_values
except ImportError:                    # pragma: no cover
    from tests import ptxsim
    from tests.ptxsim.wgmma import fp8_values

from test_wgmma import d_fragment_io, fragment_row_col, ptxas

NP8 = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}


def descriptor(start, lbo, sbo, swizzle=0):
    """A 64-bit wgmma matrix descriptor: start, LBO, SBO in 16-byte units at bits 0, 16
    and 32; the swizzle mode at bits 62-63 (1: 128-byte, 2: 64-byte, 3: 32-byte)."""
    return ((start >> 4) & 0x3FFF) | (((lbo >> 4) & 0x3FFF) << 16) | (((sbo >> 4) & 0x3FFF) << 32) | \
        (swizzle << 62)


SWIZZLE_MODE = {0: 0, 128: 1, 64: 2, 32: 3}

# K-major shared layouts: swizzle span W (0: none), LBO, SBO (None: computed from the shape)
LAYOUTS = {
    "sw128": dict(w=128, lbo=16, sbo=1024),      # tilec's slots: 8-row atoms of 128 bytes, 1 KiB apart
    "sw128-gaps": dict(w=128, lbo=16, sbo=2048),
    "sw64": dict(w=64, lbo=16, sbo=512),
    "sw32": dict(w=32, lbo=16, sbo=256),
    # no swizzle: the two core matrices of a K step side by side, 8-row groups after them
    "interleave-k": dict(w=0, lbo=128, sbo=None),
    # no swizzle: all 8-row groups of one 16-byte K column, then the next column (LBO = rows * 16)
    "interleave-rows": dict(w=0, lbo=None, sbo=128),
}


def layout(name, rows, k):
    """(lbo, sbo, swizzle span, image bytes) of `name` for a rows x k fp8 operand."""
    lay = LAYOUTS[name]
    w, lbo, sbo = lay["w"], lay["lbo"], lay["sbo"]
    if w:
        assert k <= w, "one swizzle atom along K"
        size = rows // 8 * sbo
    else:
        if sbo is None:
            sbo = k // 16 * lbo
        if lbo is None:
            lbo = rows // 8 * sbo
        size = (rows // 8 - 1) * sbo + (k // 16 - 1) * lbo + 128
    return lbo, sbo, w, (size + 1023) // 1024 * 1024


def byte_offsets(rows, k, lbo, sbo, w):
    """(rows x k) shared byte offsets of the fp8 elements of a K-major operand.

    Without swizzle: 8 x 16-byte core matrices; element (r, c) is byte r % 8 * 16 + c % 16
    of core matrix (r // 8, c // 16), which starts at (r // 8) SBO + (c // 16) LBO.
    Swizzled with span W: row r of an 8-row atom holds W bytes at (r // 8) SBO + (r % 8) W;
    its 16-byte chunk j is stored in chunk position j XOR s(r % 8), with s the atom row's
    pattern: r for 128-byte, r / 2 for 64-byte and r / 4 for 32-byte swizzling (atoms
    start at multiples of 8 W bytes, so this is the address swizzle the hardware applies)."""
    out = np.zeros((rows, k), np.int64)
    for r in range(rows):
        for c in range(k):
            if not w:
                out[r, c] = (r // 8) * sbo + (c // 16) * lbo + (r % 8) * 16 + c % 16
            else:
                row = r % 8
                pattern = {128: row, 64: row // 2, 32: row // 4}[w]
                chunk = (c // 16) ^ pattern
                out[r, c] = (r // 8) * sbo + row * w + chunk * 16 + c % 16
    return out


def fp8_kernel(n, k, atype, btype, *, groups=1, scale_d="%p1", scale_a=1, scale_b=1, a_bytes, edit=None):
    """A one-warpgroup kernel k(pa, pb, pta, ptb, pc, pd, pda, pdb, pstepa, pstepb, pscale):
    byte i of A (64 x k) goes to smem + pta[i], byte i of B (n x k) to smem + a_bytes +
    ptb[i]; then D (64 x n, f32) = sum over the K steps j of A_j B_j^T (+ C when scale-d).
    pda/pdb are descriptor templates (LBO, SBO, swizzle) to which the kernel adds the
    encoded shared address, advanced by pstepa/pstepb (16-byte units) per K step. `edit`:
    {"after_fence": PTX} inserted after the fence.proxy.async and bar.sync."""
    edit = edit or {}
    steps = k // 32
    cload, dstore = d_fragment_io(n, "%rd13", "%rd14")
    descs = []
    for j in range(steps):
        descs.append(f"  add.s64 %rd{20 + 2 * j}, %rd9, %rd17;")
        descs.append(f"  add.s64 %rd{21 + 2 * j}, %rd10, %rd18;")
        if j + 1 < steps:
            descs.append("  add.s64 %rd17, %rd17, %rd15;")
            descs.append("  add.s64 %rd18, %rd18, %rd16;")
    per_group = -(-steps // groups)
    mmas = []
    dl = ", ".join(f"%f{i}" for i in range(n // 2))
    for j in range(steps):
        sd = scale_d if j == 0 else "1"
        mmas.append(f"  wgmma.mma_async.sync.aligned.m64n{n}k32.f32.{atype}.{btype} {{{dl}}}, "
                    f"%rd{20 + 2 * j}, %rd{21 + 2 * j}, {sd}, {scale_a}, {scale_b};")
        if (j + 1) % per_group == 0 or j == steps - 1:
            mmas.append("  wgmma.commit_group.sync.aligned;")
    waits = [f"  wgmma.wait_group.sync.aligned {g};" for g in range(min(groups, steps) - 1, -1, -1)]

    def copy(label, count, src, tab, base):
        return f"""
  mov.u32 %r1, %r0;
{label}:
  setp.ge.u32 %p0, %r1, {count};
  @%p0 bra {label}_done;
  cvt.u64.u32 %rd6, %r1;
  add.s64 %rd7, {src}, %rd6;
  ld.global.u8 %r2, [%rd7];
  mul.wide.u32 %rd8, %r1, 4;
  add.s64 %rd8, {tab}, %rd8;
  ld.global.u32 %r3, [%rd8];
  mov.u32 %r4, smem;
  add.u32 %r4, %r4, {base};
  add.u32 %r4, %r4, %r3;
  st.shared.u8 [%r4], %r2;
  add.u32 %r1, %r1, 128;
  bra {label};
{label}_done:"""
    body = f"""
  ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [pta]; ld.param.u64 %rd4, [ptb];
  ld.param.u64 %rd11, [pc]; ld.param.u64 %rd12, [pd]; ld.param.u64 %rd9, [pda]; ld.param.u64 %rd10, [pdb];
  ld.param.u64 %rd15, [pstepa]; ld.param.u64 %rd16, [pstepb]; ld.param.u32 %r9, [pscale];
  setp.ne.u32 %p1, %r9, 0;
  mov.u32 %r0, %tid.x;{copy("copya", 64 * k, "%rd1", "%rd3", 0)}{copy("copyb", n * k, "%rd2", "%rd4", a_bytes)}
  fence.proxy.async.shared::cta;
  bar.sync 0;
{edit.get("after_fence", "")}
  mov.u32 %r6, smem;
  and.b32 %r6, %r6, 262143;
  shr.u32 %r6, %r6, 4;              // the descriptors' encoded start address
  cvt.u64.u32 %rd17, %r6;
  add.s64 %rd18, %rd17, {a_bytes >> 4};
{chr(10).join(descs)}
{fragment_row_col("%r10", "%r11", "%r12", "%r13")}
  mad.lo.u32 %r15, %r12, {n}, %r13;
  mul.wide.u32 %rd19, %r15, 4;
  add.s64 %rd13, %rd11, %rd19;
  add.s64 %rd14, %rd12, %rd19;
{chr(10).join(cload)}
  wgmma.fence.sync.aligned;
{chr(10).join(mmas)}
{chr(10).join(waits)}
{chr(10).join(dstore)}
  ret;"""
    regs = (".reg .pred %p<4>;\n.reg .b32 %r<24>;\n"
            f".reg .b64 %rd<{20 + 2 * steps}>;\n.reg .f32 %f<{n // 2}>;")
    params = ", ".join(f".param .u64 {p}" for p in ("pa", "pb", "pta", "ptb", "pc", "pd", "pda", "pdb", "pstepa",
                                                    "pstepb")) + ", .param .u32 pscale"
    return (".version 8.5\n.target sm_90a\n.address_size 64\n"
            f".shared .align 1024 .b8 smem[{{size}}];\n"
            f".visible .entry k({params})\n.reqntid 128, 1, 1\n{{\n" + regs + body + "\n}\n")


def random_fp8(rng, shape, etype, scale=1.0):
    """Random finite values of `etype` (bits as uint8), roughly normal with spread `scale`."""
    x = (rng.standard_normal(shape) * scale).astype(NP8[etype])
    x = np.where(np.isfinite(x.astype(np.float32)), x, NP8[etype](0.0))
    return x.view(np.uint8)


def run_fp8(n, k, atype, btype, alay, blay, *, seed=0, scale_d=True, scale_a=1, scale_b=1, groups=1,
            a_bits=None, b_bits=None, edit=None, describe=None):
    """(ptx, simulated D, NumPy's D). a_bits/b_bits: given operand bytes (else random);
    describe: {"a"/"b": layout name} describing an operand's image by another layout
    (the test of the test)."""
    rng = np.random.default_rng(seed)
    a = random_fp8(rng, (64, k), atype) if a_bits is None else a_bits
    b = random_fp8(rng, (n, k), btype) if b_bits is None else b_bits
    c = rng.standard_normal((64, n)).astype(np.float32)
    d = np.zeros((64, n), np.float32)
    la, lb = layout(alay, 64, k), layout(blay, n, k)
    ta = byte_offsets(64, k, *la[:3]).astype(np.uint32)
    tb = byte_offsets(n, k, *lb[:3]).astype(np.uint32)
    describe = describe or {}
    da, db = layout(describe.get("a", alay), 64, k), layout(describe.get("b", blay), n, k)
    step = lambda lay: 32 if lay[2] else 2 * lay[0]           # noqa: E731  (one 32-byte K step)
    ptx = fp8_kernel(n, k, atype, btype, groups=groups, scale_a=scale_a, scale_b=scale_b, a_bytes=la[3],
                     edit=edit).replace("{size}", str(la[3] + lb[3]))
    args = [a, b, ta, tb, c, d,
            np.uint64(descriptor(0, da[0], da[1], SWIZZLE_MODE[da[2]])),
            np.uint64(descriptor(0, db[0], db[1], SWIZZLE_MODE[db[2]])),
            np.uint64(step(da) >> 4), np.uint64(step(db) >> 4), np.uint32(int(scale_d))]
    ptxsim.run_ptx(ptx, "k", 1, args)
    av = a.view(NP8[atype]).astype(np.float64) * scale_a
    bv = b.view(NP8[btype]).astype(np.float64) * scale_b
    want = c.astype(np.float64) if scale_d else np.zeros((64, n))
    with np.errstate(all="ignore"):
        for j in range(k // 32):
            want = (av[:, 32 * j:32 * j + 32] @ bv[:, 32 * j:32 * j + 32].T + want).astype(np.float32) \
                .astype(np.float64)
    return ptx, d, want.astype(np.float32)


def test_fp8_decoding_matches_ml_dtypes():
    for etype, dt in NP8.items():
        got = fp8_values(etype)
        want = np.arange(256, dtype=np.uint8).view(dt).astype(np.float64)
        np.testing.assert_array_equal(got, want)
        assert np.array_equal(np.signbit(got), np.signbit(want))       # -0.0 too
    e4 = fp8_values("e4m3")
    assert np.nanmax(e4) == 448 and np.isnan(e4[0x7F]) and np.isnan(e4[0xFF]) and not np.isinf(e4).any()
    assert e4[0x01] == 2.0 ** -9 and e4[0x08] == 2.0 ** -6
    e5 = fp8_values("e5m2")
    assert e5[0x7C] == np.inf and e5[0xFC] == -np.inf and np.isnan(e5[0x7D]) and np.nanmax(e5[e5 < np.inf]) == 57344
    assert e5[0x01] == 2.0 ** -16


CASES = [
    # n, k, atype, btype, A layout, B layout, options
    (128, 64, "e4m3", "e4m3", "sw128", "sw128-gaps", {}),             # tilec's form (and 1 KiB gaps)
    (256, 128, "e5m2", "e5m2", "sw128", "sw128", {"groups": 2}),       # the widest N, 4 K steps
    (64, 64, "e4m3", "e5m2", "sw64", "sw64", {}),                     # mixed types
    (8, 32, "e5m2", "e4m3", "sw32", "sw32", {}),                      # the smallest instruction
    (24, 64, "e4m3", "e4m3", "interleave-k", "interleave-k", {"groups": 2}),
    (136, 96, "e5m2", "e4m3", "interleave-rows", "sw128", {}),        # LBO used; no swizzle with swizzle
]


def _case_id(c):
    return f"{c[2]}x{c[3]}-n{c[0]}k{c[1]}-{c[4]}-{c[5]}" + "".join(f"-{o}{v}" for o, v in c[6].items())


@pytest.mark.parametrize("n,k,atype,btype,alay,blay,kw", CASES, ids=[_case_id(c) for c in CASES])
def test_fp8_wgmma_matches_numpy(n, k, atype, btype, alay, blay, kw, tmp_path):
    ptx, got, want = run_fp8(n, k, atype, btype, alay, blay, **kw)
    np.testing.assert_array_equal(got, want)
    assert np.abs(want).max() > 1           # a real product, not zeros
    rc, err = ptxas(ptx, tmp_path)
    assert rc == 0, err
    assert "wgmma" not in err.lower(), err


def test_fp8_scale_d_and_negation(tmp_path):
    for kw in ({"scale_d": False, "scale_a": -1}, {"scale_b": -1, "seed": 5}):
        ptx, got, want = run_fp8(64, 64, "e4m3", "e5m2", "sw128", "sw128", **kw)
        np.testing.assert_array_equal(got, want)
        rc, err = ptxas(ptx, tmp_path)
        assert rc == 0, err


def test_fp8_special_values():
    """Extremes are exact: e4m3 448 and subnormals (2^-9), -0; e5m2 infinities and NaN propagate."""
    rng = np.random.default_rng(7)
    n, k = 16, 32
    a = random_fp8(rng, (64, k), "e4m3", scale=64.0)
    a[0, :] = 0x7E                          # 448
    a[1, :] = 0x01                          # 2^-9
    a[2, :] = 0x80                          # -0
    b = random_fp8(rng, (n, k), "e4m3", scale=64.0)
    b[0, :] = 0xFE                          # -448
    b[1, :] = 0x01
    _, got, want = run_fp8(n, k, "e4m3", "e4m3", "sw32", "sw32", a_bits=a, b_bits=b, scale_d=False)
    np.testing.assert_array_equal(got, want)
    assert got[0, 0] == np.float32(-448.0 * 448 * 32) and got[1, 1] == np.float32(32 * 2.0 ** -18)
    e = random_fp8(rng, (64, k), "e5m2")
    e[3, 5] = 0x7C                          # +inf
    e[4, 6] = 0x7F                          # NaN
    f = random_fp8(rng, (n, k), "e5m2")
    _, got, want = run_fp8(n, k, "e5m2", "e5m2", "sw64", "sw64", a_bits=e, b_bits=f, scale_d=False)
    np.testing.assert_array_equal(got, want)          # NaN where NumPy has NaN, infinities alike
    assert np.isnan(got[4]).all() and np.isinf(got[3][f.view(NP8["e5m2"])[:, 5].astype(float) != 0]).all()


@pytest.mark.parametrize("which,other", [("a", "sw64"), ("b", "interleave-k")])
def test_a_wrong_layout_reading_is_noticed(which, other):
    """Sanity of the test itself: an image described by another layout gives another product."""
    _, got, want = run_fp8(64, 64, "e4m3", "e4m3", "sw128", "sw128", describe={which: other})
    assert not np.allclose(got, want, rtol=1e-2, atol=1e-2)


def test_fp8_keeps_the_proxy_rule():
    with pytest.raises(ptxsim.PTXRuntimeError, match="no fence.proxy.async"):
        run_fp8(8, 32, "e4m3", "e4m3", "sw32", "sw32",
                edit={"after_fence": "  st.shared.u32 [smem], %r0;"})


# ---- forms the simulator does not take (decode time) ------------------------------------------

def _base_ptx():
    ptx, _, _ = run_fp8(8, 32, "e4m3", "e4m3", "sw32", "sw32")
    return ptx


MALFORMED = {
    # 8-bit types have no transpose immediates: ptxas rejects them
    "imm-trans": (lambda t: t.replace("%rd21, %p1, 1, 1;", "%rd21, %p1, 1, 1, 0, 0;"), "fp8 wgmma.mma_async operands",
                  False),
    # k16 with 8-bit types
    "k16": (lambda t: t.replace("m64n8k32.f32.e4m3", "m64n8k16.f32.e4m3"), "shape/types", False),
    # register A (valid PTX, not simulated)
    "register-a": (lambda t: t.replace("}, %rd20, %rd21,", "}, {%r20, %r21, %r22, %r23}, %rd21,"),
                   "fp8 wgmma.mma_async with A in registers", True),
    # an f16 accumulator (valid PTX, not simulated)
    "f16-d": (lambda t: t.replace("m64n8k32.f32.e4m3.e4m3 {%f0, %f1, %f2, %f3}",
                                  "m64n8k32.f16.e4m3.e4m3 {%r20, %r21}"), "fp8 shape/types", True),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_unsupported_fp8_forms(name, tmp_path):
    change, message, valid = MALFORMED[name]
    ptx = _base_ptx()
    bad = change(ptx)
    assert bad != ptx
    with pytest.raises(ptxsim.UnsupportedPTX, match=message):
        ptxsim.load(bad).kernel("k")
    rc, err = ptxas(bad, tmp_path)
    assert (rc == 0) == valid, err
