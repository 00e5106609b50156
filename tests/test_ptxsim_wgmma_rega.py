"""The simulator's wgmma.mma_async with A in registers (tests/ptxsim/wgmma.py):

    wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}.{f16,bf16}
        {d0, ..}, {a0, a1, a2, a3}, b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-b;

Hand-written kernels (one warpgroup): each thread loads its A fragments from
global memory straight into registers (the ISA's m64nNk16 A fragment: warp w,
lane l = 4 g + t holds rows 16 w + g and 16 w + g + 8, columns 2t, 2t+1 and
2t+8, 2t+9 of every 16-column K step), copies B into shared memory in a
128-byte-swizzled layout -- K-major (imm-trans-b 0) or MN-major (imm-trans-b 1),
the swizzle computed by the kernel -- and runs several wgmma.mma_async (K steps,
N slices that share one A fragment, one or two commit groups) before storing D.
The result must equal numpy's, rounded to f32 after each instruction as the
hardware's f32 accumulator is. Every kernel assembles with ptxas for sm_90a;
the malformed ones ptxas rejects are unsupported in the simulator (no crash),
and the misuses it accepts (registers of A touched while the instruction is in
flight, written after the wgmma.fence, never written) are reported at run time.
"""
from __future__ import annotations

import numpy as np
import pytest

from test_wgmma import NP, d_fragment_io, descriptor, fragment_row_col, ptxas

try:
    import ptxsim
except ImportError:                    # pragma: no cover
    from tests import ptxsim



# B layouts in shared memory, all with the 128-byte swizzle (descriptor mode 1):
#   K-major (B given as N x K, imm-trans-b 0): (n, k) at (n % 8) 128 + (n // 8) SBO + 2 k (K <= 64);
#   MN-major (K x N, imm-trans-b 1): (n, k) at 2 (n % 64) + (k % 8) 128 + (k // 8) SBO + (n // 64) LBO;
# then the byte offset's bits 4-6 XOR bits 7-9.
LAYOUTS = {
    "kmajor": dict(major="k", lbo=16, sbo=1024),           # the dense layout (LBO unused when swizzled)
    "kmajor-gaps": dict(major="k", lbo=16, sbo=2048),      # 1 KiB gaps between 8-row groups
    "mnmajor": dict(major="mn", lbo=None, sbo=1024),        # N atoms after all K groups (LBO = K / 8 KiB)
    "mnmajor-interleaved": dict(major="mn", lbo=1024, sbo=None),   # N atoms between K groups (SBO = N / 64 KiB)
}


def _layout(name, k, n):
    lay = dict(LAYOUTS[name])
    if lay["major"] == "mn" and lay["lbo"] is None:
        lay["lbo"] = k // 8 * lay["sbo"]
    if lay["major"] == "mn" and lay["sbo"] is None:
        lay["sbo"] = n // 64 * lay["lbo"]
    if lay["major"] == "k":
        assert k <= 64
        size = n // 8 * lay["sbo"]
    else:
        assert n % 64 == 0
        size = max((k // 8 - 1) * lay["sbo"] + (n // 64 - 1) * lay["lbo"] + 1024, 1024)
    lay["size"] = (size + 1023) // 1024 * 1024
    return lay


def _b_offset(lay, n):
    """PTX computing into %r4 the unswizzled byte offset of B element (k = %r2, n = %r3)."""
    if lay["major"] == "k":
        return f"""
  and.b32 %r7, %r3, 7;
  shl.b32 %r7, %r7, 7;              // (n % 8) 128
  shr.u32 %r8, %r3, 3;
  mad.lo.u32 %r7, %r8, {lay['sbo']}, %r7;   // + (n / 8) SBO
  mad.lo.u32 %r4, %r2, 2, %r7;      // + 2 k"""
    return f"""
  and.b32 %r7, %r3, 63;
  shl.b32 %r7, %r7, 1;              // 2 (n % 64)
  and.b32 %r8, %r2, 7;
  mad.lo.u32 %r7, %r8, 128, %r7;    // + (k % 8) 128
  shr.u32 %r8, %r2, 3;
  mad.lo.u32 %r7, %r8, {lay['sbo']}, %r7;   // + (k / 8) SBO
  shr.u32 %r8, %r3, 6;
  mad.lo.u32 %r4, %r8, {lay['lbo']}, %r7;   // + (n / 64) LBO"""


def rega_kernel(n, k, etype, layout, *, slices=1, groups=1, scale_d="%p1", scale_a=1, scale_b=1, edit=None):
    """A one-warpgroup kernel k(pa, pb, pc, pd, pdesc): D (64 x n, f32) = A (64 x k,
    row-major) @ B (k x n, row-major) + C with k / 16 K steps of `slices`
    register-A wgmma.mma_async each (N slices of n / slices columns reading the
    same A registers), the K steps split over `groups` commit groups. pdesc is
    B's descriptor relative to the shared array; scale_d applies to the first
    K step. `edit`: {place: PTX} inserted at "after_fence" (before the first
    mma_async) or "after_issue" (after it), or {"drop": text} removing the first
    line that contains text."""
    edit = edit or {}
    lay = _layout(layout, k, n)
    steps, ns = k // 16, n // slices
    trans_b = 0 if lay["major"] == "k" else 1
    step_bytes = 32 if lay["major"] == "k" else 2 * lay["sbo"]       # one 16-element K step
    slice_bytes = ns // 8 * lay["sbo"] if lay["major"] == "k" else ns // 64 * lay["lbo"]
    if lay["major"] == "mn":
        assert ns % 64 == 0
    lines = []
    # A fragments: register 4 j + r of K step j holds row 16 w + g + 8 (r % 2), columns 16 j + 8 (r / 2) + 2 t, +1
    for j in range(steps):
        for r in range(4):
            off = 2 * (8 * (r % 2) * k + 16 * j + 8 * (r // 2))
            lines.append(f"  ld.global.b32 %a{4 * j + r}, [%rd11+{off}];")
    # C in the D fragment (d_fragment_io)
    cload, dstore = d_fragment_io(n, "%rd13", "%rd14")
    descs = []
    for j in range(steps):
        for s in range(slices):
            descs.append(f"  add.s64 %rd{20 + j * slices + s}, %rd9, {(j * step_bytes + s * slice_bytes) >> 4};")
    mmas = []
    per_group = -(-steps // groups)
    for j in range(steps):
        for s in range(slices):
            dl = ", ".join(f"%f{i}" for i in range(s * ns // 2, (s + 1) * ns // 2))
            al = ", ".join(f"%a{4 * j + r}" for r in range(4))
            sd = scale_d if j == 0 else "1"
            mmas.append(f"  wgmma.mma_async.sync.aligned.m64n{ns}k16.f32.{etype}.{etype} {{{dl}}}, {{{al}}}, "
                        f"%rd{20 + j * slices + s}, {sd}, {scale_a}, {scale_b}, {trans_b};")
            if j == 0 and s == 0:
                mmas.append(edit.get("after_issue", ""))
        if (j + 1) % per_group == 0 or j == steps - 1:
            mmas.append("  wgmma.commit_group.sync.aligned;")
    waits = [f"  wgmma.wait_group.sync.aligned {g};" for g in range(groups - 1, -1, -1)]
    body = f"""
  ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [pc]; ld.param.u64 %rd4, [pd];
  ld.param.u64 %rd5, [pdesc]; ld.param.u32 %r9, [pscale];
  setp.ne.u32 %p1, %r9, 0;
  mov.u32 %r0, %tid.x;
  mov.u32 %r1, %r0;
copy:                               // B (k x n, row-major in global) into shared memory
  setp.ge.u32 %p0, %r1, {k * n};
  @%p0 bra copied;
  shr.u32 %r2, %r1, {n.bit_length() - 1};      // k
  and.b32 %r3, %r1, {n - 1};        // n
  mul.wide.u32 %rd6, %r1, 2;
  add.s64 %rd6, %rd2, %rd6;
  ld.global.b16 %h0, [%rd6];{_b_offset(lay, n)}
  shr.u32 %r5, %r4, 7;
  and.b32 %r5, %r5, 7;
  shl.b32 %r5, %r5, 4;
  xor.b32 %r4, %r4, %r5;            // the 128-byte swizzle: bits 4-6 ^= bits 7-9
  mov.u32 %r6, smem;
  add.u32 %r6, %r6, %r4;
  st.shared.b16 [%r6], %h0;
  add.u32 %r1, %r1, 128;
  bra copy;
copied:
  fence.proxy.async.shared::cta;
  bar.sync 0;
  mov.u32 %r6, smem;
  and.b32 %r6, %r6, 262143;
  shr.u32 %r6, %r6, 4;
  cvt.u64.u32 %rd8, %r6;
  add.s64 %rd9, %rd5, %rd8;         // B's descriptor: + the encoded shared address
{chr(10).join(descs)}
{fragment_row_col("%r10", "%r11", "%r12", "%r13")}
  mad.lo.u32 %r14, %r12, {k}, %r13;
  mul.wide.u32 %rd10, %r14, 2;
  add.s64 %rd11, %rd1, %rd10;
{chr(10).join(lines)}
  mad.lo.u32 %r15, %r12, {n}, %r13;
  mul.wide.u32 %rd12, %r15, 4;
  add.s64 %rd13, %rd3, %rd12;
  add.s64 %rd14, %rd4, %rd12;
{chr(10).join(cload)}
  wgmma.fence.sync.aligned;
{edit.get("after_fence", "")}
{chr(10).join(mmas)}
{chr(10).join(waits)}
{chr(10).join(dstore)}
  ret;"""
    if "drop" in edit:
        lines = body.split("\n")
        lines.remove(next(l for l in lines if edit["drop"] in l))
        body = "\n".join(lines)
    regs = (".reg .pred %p<4>;\n.reg .b16 %h<2>;\n.reg .b32 %r<24>;\n"
            f".reg .b32 %a<{4 * steps}>;\n.reg .b64 %rd<{20 + steps * slices}>;\n.reg .f32 %f<{n // 2}>;")
    return (".version 8.5\n.target sm_90a\n.address_size 64\n"
            f".shared .align 1024 .b8 smem[{lay['size']}];\n"
            ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd, "
            ".param .u64 pdesc, .param .u32 pscale)\n.reqntid 128, 1, 1\n{\n" + regs + body + "\n}\n"), lay


def run_rega(n, k, etype="f16", layout="kmajor", *, seed=0, scale_d=True, scale_a=1, scale_b=1, **kw):
    """(simulated D, numpy's D) of rega_kernel; scale_d: the first K step's scale-d
    (given as a predicate register)."""
    ptx, lay = rega_kernel(n, k, etype, layout, scale_a=scale_a, scale_b=scale_b, **kw)
    dt = NP[etype]
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((64, k)).astype(dt)
    b = rng.standard_normal((k, n)).astype(dt)
    c = rng.standard_normal((64, n)).astype(np.float32)
    d = np.zeros((64, n), np.float32)
    desc = descriptor(0, lay["lbo"], lay["sbo"], swizzle=1)
    ptxsim.run_ptx(ptx, "k", 1, [a, b, c, d, np.uint64(desc), np.uint32(int(scale_d))])
    # the f32 accumulator: each instruction's exact A B + D rounded once to f32
    want = c.astype(np.float64) if scale_d else np.zeros((64, n))
    for j in range(k // 16):
        aj = scale_a * a[:, 16 * j:16 * j + 16].astype(np.float64)
        bj = scale_b * b[16 * j:16 * j + 16].astype(np.float64)
        want = (aj @ bj + want).astype(np.float32).astype(np.float64)
    exact = a.astype(np.float64) @ b.astype(np.float64) * (scale_a * scale_b) + (c if scale_d else 0)
    np.testing.assert_allclose(want, exact, rtol=1e-5, atol=1e-5)
    return ptx, d, want.astype(np.float32)


CASES = [
    # n, k, etype, layout, options
    (64, 64, "f16", "kmajor", {}),                               # 4 K steps in one commit group
    (32, 32, "bf16", "kmajor-gaps", {"groups": 2}),              # one commit group per K step
    (128, 32, "f16", "kmajor", {"slices": 2}),                   # two N slices share each A fragment
    (64, 32, "f16", "mnmajor", {}),
    (128, 48, "bf16", "mnmajor", {"slices": 2, "groups": 3}),
    (128, 32, "f16", "mnmajor-interleaved", {}),                 # one m64n128k16 per K step, LBO used
    (256, 16, "bf16", "mnmajor-interleaved", {}),                # the widest instruction
]


@pytest.mark.parametrize("n,k,etype,layout,kw", CASES,
                         ids=[f"{c[3]}-{c[2]}-n{c[0]}k{c[1]}" + "".join(f"-{o}{v}" for o, v in c[4].items())
                              for c in CASES])
def test_register_a_matches_numpy(n, k, etype, layout, kw, tmp_path):
    ptx, got, want = run_rega(n, k, etype, layout, **kw)
    np.testing.assert_array_equal(got, want)
    rc, err = ptxas(ptx, tmp_path)
    assert rc == 0, err
    assert "wgmma" not in err.lower(), err      # no "wgmma serialized" performance warnings


@pytest.mark.parametrize("layout", ["kmajor", "mnmajor"])
def test_register_a_scale_d_and_negation(layout, tmp_path):
    for kw in ({"etype": "f16", "scale_d": False, "scale_a": -1}, {"etype": "bf16", "scale_b": -1, "seed": 3}):
        ptx, got, want = run_rega(64, 32, layout=layout, **kw)
        np.testing.assert_array_equal(got, want)
        rc, err = ptxas(ptx, tmp_path)
        assert rc == 0, err


def test_a_wrong_b_layout_reading_is_noticed():
    """Sanity of the test itself: B written K-major but described as MN-major
    (imm-trans-b 1) gives another product."""
    ptx, _ = rega_kernel(64, 64, "f16", "kmajor", scale_d="1")
    assert ptx.count(", 1, 1, 1, 0;") == 4
    ptx = ptx.replace(", 1, 1, 1, 0;", ", 1, 1, 1, 1;")
    rng = np.random.default_rng(1)
    a = rng.standard_normal((64, 64)).astype(np.float16)
    b = rng.standard_normal((64, 64)).astype(np.float16)
    c = np.zeros((64, 64), np.float32)
    d = np.zeros((64, 64), np.float32)
    ptxsim.run_ptx(ptx, "k", 1, [a, b, c, d, np.uint64(descriptor(0, 16, 1024, swizzle=1)), np.uint32(1)])
    assert not np.allclose(d, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-3, atol=1e-3)


# ---- misuse the simulator reports at run time (ptxas accepts these kernels) ---------------------------

@pytest.mark.parametrize("edit,message", [
    ({"after_issue": "  mov.b32 %a0, 0;"}, "wrote a register A of a wgmma.mma_async in flight"),
    ({"after_issue": "  st.global.b32 [%rd14], %a1;"}, "uninitialized register"),
    ({"after_fence": "  xor.b32 %a2, %a2, 1;"}, "wrote register A 2 after its last wgmma.fence"),
    ({"drop": "ld.global.b32 %a3,"}, "register A from an uninitialized register"),
    # another mma_async whose D is the register A of the first, in flight
    ({"after_issue": "  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%a0, %a1, %a2, %a3}, "
                     "{%a4, %a5, %a6, %a7}, %rd21, 1, 1, 1, 0;"}, "D register is the register A"),
    # another mma_async whose D (in flight) the second K step takes as its A
    ({"after_issue": "  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%a4, %a5, %a6, %a7}, "
                     "{%a0, %a1, %a2, %a3}, %rd21, 1, 1, 1, 0;"}, "register A is the accumulator"),
], ids=["write-in-flight", "read-in-flight", "write-after-fence", "never-written", "d-is-a", "a-is-d"])
def test_register_a_misuse_is_reported(edit, message, tmp_path):
    ptx, _ = rega_kernel(64, 32, "f16", "kmajor", edit=edit)
    with pytest.raises(ptxsim.PTXRuntimeError, match=message):
        run_rega(64, 32, "f16", "kmajor", edit=edit)
    rc, err = ptxas(ptx, tmp_path)
    assert rc == 0, err


def test_register_a_keeps_the_fence_and_proxy_rules():
    with pytest.raises(ptxsim.PTXRuntimeError, match="without a wgmma.fence"):
        run_rega(64, 16, "f16", "kmajor", edit={"drop": "  wgmma.fence.sync.aligned;"})
    with pytest.raises(ptxsim.PTXRuntimeError, match="no fence.proxy.async"):
        run_rega(64, 16, "f16", "kmajor", edit={"drop": "  fence.proxy.async.shared::cta;"})
    with pytest.raises(ptxsim.PTXRuntimeError, match="uninitialized register"):   # D stored without the wait
        run_rega(64, 16, "f16", "kmajor", edit={"drop": "  wgmma.wait_group.sync.aligned 0;"})


# ---- malformed forms: unsupported at decode time, not a crash (ptxas rejects them too) -------------

MALFORMED = {
    # register A with imm-trans-a: 8 operands
    "eight-operands": (lambda t: t.replace("%rd20, 1, 1, 1, 0;", "%rd20, 1, 1, 1, 0, 0;", 1),
                       "with A in registers takes 7 operands"),
    # three registers for A
    "three-registers": (lambda t: t.replace("{%a0, %a1, %a2, %a3}", "{%a0, %a1, %a2}", 1),
                        "register A must be four .b32 registers"),
    # a descriptor A without imm-trans-a: 7 operands
    "descriptor-seven": (lambda t: t.replace("{%a0, %a1, %a2, %a3}", "%rd9", 1),
                         "with 7 operands takes A in registers"),
    # six operands
    "six-operands": (lambda t: t.replace("%rd20, 1, 1, 1, 0;", "%rd20, 1, 1, 1;", 1),
                     r"wgmma.mma_async operands \(6;"),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_register_a_is_unsupported(name, tmp_path):
    ptx, _ = rega_kernel(64, 16, "f16", "kmajor", scale_d="1")
    change, message = MALFORMED[name]
    bad = change(ptx)
    assert bad != ptx
    with pytest.raises(ptxsim.UnsupportedPTX, match=message):
        ptxsim.load(bad).kernel("k")
    rc, err = ptxas(bad, tmp_path)
    assert rc != 0, f"ptxas accepted the {name} form"
