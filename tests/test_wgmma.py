"""The opt-in wgmma path (`tilec compile --wgmma`, sm_90a; experimental, never
run on a GPU) and the simulator's wgmma, two independent readings of the PTX
ISA that must agree:

- the examples with tensor-core matmuls compile with wgmma.mma_async where the
  dot fits (flash attention's 32-row dots fall back to mma.sync), ptxas
  assembles them without spills, and the simulated PTX equals the interpreter
  at the GPU test's sizes (tests/gpu/cases.py);
- single dots outside loops (operands in registers, not in a stage slot),
  several warpgroups, N from 8 to 256, and the shapes that fall back;
- `--wgmma` on sm_80 is a diagnostic; default output does not change;
- a golden pins the instruction sequence (golden/ptx/matmul_f16_sm90a_wgmma.check);
- the simulator's wgmma on hand-written PTX whose shared-memory image the test
  builds from the ISA's canonical-layout formula with other LBO/SBO than the
  emitter uses, and the ordering rules it enforces (wgmma.fence,
  fence.proxy.async, reading D before wait_group).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

from test_ptx_sim import _MMAF_BODY, _loaded_dot, interpreter_result, run_in_sim

try:
    from gpu import cases
except ImportError:                    # pragma: no cover
    from tests.gpu import cases
try:
    import ptxsim
except ImportError:                    # pragma: no cover
    from tests import ptxsim

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PTXAS = shutil.which("ptxas")

# example -> (case name, whether its dots fit wgmma)
EXAMPLES = {
    "cutile/matmul_f16.mlir": ("cutile_matmul_f16", True),
    "matmul_f16_tiled.mlir": ("matmul_f16_tiled", True),
    "cutile/matmul_bf16_relu.mlir": ("cutile_matmul_bf16_relu", True),
    "cutile/matmul_gelu_f16.mlir": ("cutile_matmul_gelu_f16", True),
    "cutile/flash_attention_f16.mlir": ("cutile_flash_attention_f16", False),   # M = 32: mma.sync
    # Q in a shared layout, K^T K-major in its slot, P from registers, V MN-major in its slot
    "cutile/attention_m128_f16.mlir": ("cutile_attention_m128_f16", True),
    "cutile/attention_causal_f16.mlir": ("cutile_attention_causal_f16", True),
    # A MN-major and B K-major: both read through permuted, reshaped rank-3 slots
    "cutile/matmul_tt_f16.mlir": ("cutile_matmul_tt_f16", True),
}

_ptx = {}


def wgmma_ptx(text, arch="sm_90a", **kw):
    from tilec.codegen.ptx import compile_text
    key = (text, arch, tuple(sorted(kw.items())))
    if key not in _ptx:
        _ptx[key] = compile_text(text, arch, wgmma=True, **kw)
    return _ptx[key]


def example_text(rel):
    with open(os.path.join(ROOT, "examples", rel)) as fh:
        return fh.read()


def ptxas(ptx, tmp_path, *flags):
    """(return code, stderr) of ptxas -arch=sm_90a on `ptx`; skips without ptxas."""
    if PTXAS is None:
        pytest.skip("ptxas not on PATH")
    src = tmp_path / "k.ptx"
    src.write_text(ptx)
    r = subprocess.run([PTXAS, "-arch=sm_90a", *flags, str(src), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True, timeout=300)
    return r.returncode, r.stderr


def assemble(ptx, tmp_path):
    """ptxas -v output of `ptx` for sm_90a (skips without ptxas); fails on spills."""
    rc, err = ptxas(ptx, tmp_path, "-v")
    assert rc == 0, err
    spills = [int(s) for s in re.findall(r"(\d+) bytes spill (?:stores|loads)", err)]
    assert spills and not any(spills), err
    assert "wgmma" not in err.lower(), err      # no "wgmma serialized" performance warnings
    return err


# ---- the examples ------------------------------------------------------------------------------

@pytest.mark.parametrize("rel", list(EXAMPLES))
def test_examples_use_wgmma_where_the_dot_fits_and_assemble(rel, tmp_path):
    ptx = wgmma_ptx(example_text(rel))
    fits = EXAMPLES[rel][1]
    assert ("wgmma.mma_async" in ptx) == fits
    assert ("mma.sync" in ptx) != fits
    if fits:
        for ins in ("wgmma.fence.sync.aligned", "wgmma.commit_group.sync.aligned",
                    "wgmma.wait_group.sync.aligned", "fence.proxy.async.shared::cta"):
            assert ins in ptx
    assemble(ptx, tmp_path)


@pytest.mark.parametrize("rel", list(EXAMPLES))
def test_examples_simulate_like_the_interpreter(rel):
    case = cases.BY_NAME[EXAMPLES[rel][0]]
    ptx = wgmma_ptx(case.text())
    want, _, _ = interpreter_result(case)
    got, _, _, launch = run_in_sim(case, ptx)
    try:
        cases.compare(case, launch, got, want)
    except cases.Mismatch as e:
        pytest.fail(f"--wgmma: the simulated PTX differs from the interpreter: {str(e).replace(' gpu ', ' sim ')}",
                    pytrace=False)


def test_default_runs_wgmma_where_it_reads_slots_in_place():
    """The sm_90a default: dots whose operands sit in swizzled pipeline slots run
    on wgmma (the same PTX as --wgmma for these examples, whose dots all read in
    place), the others on mma.sync (the same PTX as --no-wgmma)."""
    from tilec.codegen.ptx import compile_text
    for rel, (_, fits) in EXAMPLES.items():
        text = example_text(rel)
        default = compile_text(text, "sm_90a")
        plain = compile_text(text, "sm_90a", wgmma=False)
        assert "wgmma" not in plain
        assert default == (wgmma_ptx(text) if fits else plain)
        assert ("wgmma.mma_async" in default) == fits


def test_golden_pins_the_wgmma_sequence():
    pytest.importorskip("filecheck")
    check = os.path.join(ROOT, "golden", "ptx", "matmul_f16_sm90a_wgmma.check")
    ptx = wgmma_ptx(example_text("cutile/matmul_f16.mlir"))
    fc = subprocess.run([sys.executable, "-m", "filecheck", check], input=ptx, capture_output=True, text=True,
                        timeout=120)
    assert fc.returncode == 0, fc.stderr + fc.stdout


def test_attention_accumulates_in_the_carried_registers():
    """Attention's second dot (O += P V, O rescaled first) accumulates in the
    registers O is carried in around the key loop (its register view renamed,
    not copied): nothing moves the accumulator between that dot's wgmma group
    and the back branch (ptxas had turned such copies into 32 moves per
    iteration, carried.py)."""
    from tilec.codegen.ptx import compile_text
    ptx = compile_text(example_text("cutile/attention_m128_f16.mlir"), "sm_90a").splitlines()
    loops = [i for i, line in enumerate(ptx) if re.match(r"\s*bra\.uni\s+\$L_for_head", line)]
    waits = [i for i, line in enumerate(ptx) if "wgmma.wait_group" in line]
    checked = 0
    for end in loops:
        before = [w for w in waits if w < end]
        head = next(i for i in range(end, -1, -1) if ptx[i].startswith("$L_for_head"))
        if len([w for w in before if w > head]) < 2:
            continue          # not the loop of two dots
        last = next(i for i in range(before[-1], head, -1) if "wgmma.mma_async" in ptx[i])
        acc = set(re.search(r"\{([^}]*)\}", ptx[last]).group(1).replace(" ", "").split(","))
        moves = [line for line in ptx[before[-1]:end]
                 if re.match(r"\s*mov\.(f32|b32)\s+%f\d+,\s*(%f\d+)", line)
                 and re.match(r"\s*mov\.(f32|b32)\s+%f\d+,\s*(%f\d+)", line).group(2) in acc]
        assert len(acc) == 32 and moves == [], moves[:4]
        checked += 1
    assert checked == 1


def test_a_loop_invariant_operand_descriptor_is_built_before_the_loop():
    """Attention's Q sits in shared memory for the whole key loop: its wgmma
    descriptor (this warpgroup's rows of it) is built once, in the loop's
    preheader, from a warpgroup index broadcast from lane 0 (which ptxas can
    keep in a uniform register). Inside the loop only K's descriptor is built (for the
    next key block's S, issued a trip ahead: wgmma_prefetch)."""
    from tilec.codegen.ptx import compile_text
    ptx = compile_text(example_text("cutile/attention_m128_f16_aligned.mlir"), "sm_90a").splitlines()
    ex2 = next(i for i, line in enumerate(ptx) if "ex2.approx" in line)
    head = max(i for i in range(ex2) if ptx[i].startswith("$L_for_head"))        # the key loop
    first = next(i for i in range(head, ex2) if "wgmma.mma_async" in ptx[i] and "{%r" not in ptx[i])
    qdesc = re.search(r"\}, (%rd\d+), (%rd\d+),", ptx[first]).group(1)
    defs = [i for i, line in enumerate(ptx) if re.match(rf"\s*(cvt|or)\.\S+\s+{qdesc},", line)]
    assert defs and max(defs) < head                       # Q's descriptor: before the loop
    built = [line for line in ptx[head:first] if re.match(r"\s*cvt\.u64\.u32", line)]
    assert len(built) == 1                                 # K's, in the loop
    wg = [i for i, line in enumerate(ptx) if re.match(r"\s*shfl\.sync\.idx\.b32\s+(%r\d+), \1, 0, 31, -1", line)]
    assert wg and wg[0] < head


# ---- single dots -----------------------------------------------------------------------------

def dot_text(m, k, n, et="f16", ct="f32"):
    return _loaded_dot(et, ct, _MMAF_BODY, m, k, n, entry="dot")


NP = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32}


@pytest.mark.parametrize("m,k,n,et,ct,warps", [
    (64, 16, 8, "f16", "f32", 4),        # the smallest instruction
    (64, 64, 32, "bf16", "f32", 4),      # bf16, 4 K steps
    (64, 32, 64, "f16", "f16", 4),       # an f16 mmaf: lowered to an f32 dot and a conversion
    (128, 32, 256, "bf16", "f32", 8),    # two warpgroups, the widest instruction
    (256, 16, 64, "f16", "f32", 8),      # two warpgroups of two 64-row chunks each
    (64, 32, 64, "f16", "f32", 8),       # two warpgroups, one 64-row chunk: they split N
    (64, 16, 16, "bf16", "f32", 8),      # the same at the narrowest: 8 columns each
], ids=["m64n8k16", "bf16-k64", "f16-acc", "2wg-n256", "2wg-2chunks", "2wg-split-n", "2wg-n8-each"])
def test_single_dot_matches_the_interpreter(m, k, n, et, ct, warps, tmp_path):
    """A dot outside any loop: operands come from registers (no stage slot),
    the CTA is the group (2 warpgroups with 8 warps: they split M in whole
    64-row chunks, then N)."""
    from tilec.dialects.nv_tileas.layouts import wgmma_acc
    from tilec.interp import launch as interp_launch, parse_module
    text = dot_text(m, k, n, et, ct)
    ptx = wgmma_ptx(text, num_warps=warps)
    acc = wgmma_acc((m, n), 32 * warps)
    assert acc.n_per == n // max(1, (warps // 4) // (m // 64))
    assert ptx.count("wgmma.mma_async") == (k // 16) * acc.tiles_m
    assert f"m64n{acc.n_per}k16.f32.{et}.{et}" in ptx
    rng = np.random.default_rng(7)
    a = rng.standard_normal((m, k)).astype(NP[et])
    b = rng.standard_normal((k, n)).astype(NP[et])
    want = np.zeros((m, n), NP[ct])
    interp_launch(parse_module(text, "dot.mlir"), None, (1, 1, 1), [a.copy(), b.copy(), want])
    got = np.zeros((m, n), NP[ct])
    ptxsim.run_ptx(ptx, "dot", (1, 1, 1), [a, b, got])
    exact = a.astype(np.float64) @ b.astype(np.float64) + 1.5
    scale = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)) + 1.5
    tol = 1e-6 if ct == "f32" else 2.0 ** -10     # the rounding of the f32 result (to f16: half an ulp)
    for res in (got, want):
        assert np.all(np.abs(res.astype(np.float64) - exact) <= tol * scale)
    assemble(ptx, tmp_path)


@pytest.mark.parametrize("m,k,n,et,ct,warps", [
    (32, 32, 32, "f16", "f32", 4),      # fewer than 64 rows per warpgroup
    (64, 32, 512, "f16", "f32", 4),     # N over 256
    (64, 256, 128, "f16", "f32", 4),    # operands over the staging limit (64 KiB)
], ids=["m32", "n512", "staging-limit"])
def test_dots_that_do_not_fit_fall_back_to_mma_sync(m, k, n, et, ct, warps):
    from tilec.codegen.ptx import compile_text
    text = dot_text(m, k, n, et, ct)
    ptx = wgmma_ptx(text, num_warps=warps)
    assert "wgmma" not in ptx and "mma.sync" in ptx
    assert ptx == compile_text(text, "sm_90a", num_warps=warps)


# ---- the option --------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_wgmma_needs_sm_90a(arch, tmp_path, run_cli):
    from tilec.codegen.ptx import CodegenError, emit_ptx
    from tilec.compiler import CompileFailed
    text = example_text("cutile/matmul_f16.mlir")
    with pytest.raises(CompileFailed, match=f"wgmma needs sm_90a \\(the target is {arch}\\)"):
        wgmma_ptx(text, arch)
    with pytest.raises(CodegenError, match="wgmma needs sm_90a"):
        emit_ptx([], arch, wgmma=True)
    out = tmp_path / "k.ptx"
    rc, _, err = run_cli("compile", os.path.join(ROOT, "examples", "cutile", "matmul_f16.mlir"), "--arch", arch,
                         "--wgmma", "-o", str(out))
    assert rc == 1 and f"error: wgmma needs sm_90a (the target is {arch})" in err
    assert "Traceback" not in err and not out.exists()


def test_compile_command_takes_wgmma(tmp_path, run_cli):
    out = tmp_path / "k.ptx"
    rc, _, err = run_cli("compile", os.path.join(ROOT, "examples", "cutile", "matmul_f16.mlir"), "--wgmma",
                         "-o", str(out))
    assert rc == 0, err
    assert "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16" in out.read_text()


def test_wgmma_accumulator_layout():
    """One 64-row warpgroup: the m16n8 fragment of every warp, warps stacked
    along M (so the same as mma.sync's layout over a 4x1 warp grid); more rows
    repeat it 64 rows down per chunk."""
    from tilec.dialects.nv_tileas.layouts import MmaAcc, WgmmaAcc, wgmma_acc
    one = wgmma_acc((64, 32), 128)
    mma = MmaAcc((64, 32), 128, 4, 1)
    assert one.nslots == mma.nslots == 16
    assert [one.offsets(s) for s in range(16)] == [mma.offsets(s) for s in range(16)]
    two = wgmma_acc((128, 16), 128)
    assert two.tiles_m == 2 and [two.offsets(s) for s in range(8, 12)] == [(64, 0), (64, 1), (72, 0), (72, 1)]
    assert wgmma_acc((128, 16), 256) == WgmmaAcc((128, 16), 256)
    assert wgmma_acc((64, 264), 128) is None and wgmma_acc((64, 12), 128) is None
    # two warpgroups and one 64-row chunk: each takes half the columns (the instruction's N)
    half = wgmma_acc((64, 16), 256)
    assert (half.row_groups, half.col_groups, half.n_per, half.tiles_m, half.nslots) == (1, 2, 8, 1, 4)
    assert [half.offsets(s) for s in range(4)] == [(0, 0), (0, 1), (8, 0), (8, 1)]
    four = wgmma_acc((128, 64), 512)     # two bands of two column groups
    assert (four.row_groups, four.col_groups, four.n_per) == (2, 2, 32)
    assert wgmma_acc((64, 8), 256) is None and wgmma_acc((64, 16), 384) is None


# ---- the simulator's wgmma -------------------------------------------------------------------

def d_fragment_io(n, c_base, d_base):
    """PTX that loads C into and stores D from the m64nNk* D fragment (%f0 ..),
    at the thread's row-major f32 addresses `c_base` and `d_base`: register i of
    lane 4 g + t of warp w is row 16 w + g + 8 ((i / 2) % 2), column 8 (i / 4) +
    2 t + (i % 2). Returns (loads, stores), one line per register."""
    loads, stores = [], []
    for i in range(n // 2):
        off = 4 * (8 * ((i >> 1) & 1) * n + 8 * (i >> 2) + (i & 1))
        loads.append(f"  ld.global.f32 %f{i}, [{c_base}+{off}];")
        stores.append(f"  st.global.f32 [{d_base}+{off}], %f{i};")
    return loads, stores


def fragment_row_col(warp, lane, row, col, tid="%r0"):
    """PTX for the fragment's first row (16 warp + lane / 4) into `row` and first
    column (2 (lane % 4)) into `col`, from thread index `tid`."""
    return f"""  shr.u32 {warp}, {tid}, 5;             // warp
  and.b32 {lane}, {tid}, 31;            // lane
  shr.u32 {row}, {lane}, 2;
  mad.lo.u32 {row}, {warp}, 16, {row};  // row 16 warp + lane / 4
  and.b32 {col}, {lane}, 3;
  shl.b32 {col}, {col}, 1;            // column 2 (lane % 4)"""


def _wgmma_kernel(n, etype, image_bytes, scale="1", scale_a="1", scale_b="1", fence=True, proxy_fence=True,
                  early_read=False, wait=True):
    """128 threads: copy `image_bytes` from global into shared memory, build the
    descriptors (relative ones from the parameters + the encoded shared base),
    load C in the D fragment layout, one wgmma, store D."""
    loads, stores = d_fragment_io(n, "%rd20", "%rd21")
    dl = ", ".join(f"%f{i}" for i in range(n // 2))
    body = f"""
  ld.param.u64 %rd1, [pimg]; ld.param.u64 %rd2, [pc]; ld.param.u64 %rd3, [pd];
  ld.param.u64 %rd7, [pda]; ld.param.u64 %rd9, [pdb]; ld.param.u32 %r9, [pscale];
  setp.ne.u32 %p1, %r9, 0;
  mov.u32 %r0, %tid.x;
  shl.b32 %r1, %r0, 2;
copy:
  setp.ge.u32 %p0, %r1, {image_bytes};
  @%p0 bra copied;
  cvt.u64.u32 %rd4, %r1;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.b32 %r2, [%rd5];
  mov.u32 %r3, smem;
  add.u32 %r3, %r3, %r1;
  st.shared.b32 [%r3], %r2;
  add.u32 %r1, %r1, 512;
  bra copy;
copied:
  {"fence.proxy.async.shared::cta;" if proxy_fence else ""}
  bar.sync 0;
  mov.u32 %r4, smem;
  and.b32 %r4, %r4, 262143;
  shr.u32 %r4, %r4, 4;
  cvt.u64.u32 %rd6, %r4;
  add.s64 %rd8, %rd7, %rd6;
  add.s64 %rd10, %rd9, %rd6;
{fragment_row_col("%r5", "%r6", "%r7", "%r8")}
  mad.lo.u32 %r10, %r7, {n}, %r8;
  mul.wide.u32 %rd11, %r10, 4;
  add.s64 %rd20, %rd2, %rd11;
  add.s64 %rd21, %rd3, %rd11;
{chr(10).join(loads)}
  {"wgmma.fence.sync.aligned;" if fence else ""}
  wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{etype}.{etype} {{{dl}}}, %rd8, %rd10, {scale}, {scale_a}, {scale_b}, 0, 0;
{chr(10).join(stores) if early_read else ""}
  {"wgmma.commit_group.sync.aligned;" if wait else ""}
  {"wgmma.wait_group.sync.aligned 0;" if wait else ""}
{chr(10).join(stores) if wait and not early_read else ""}
  ret;"""
    regs = (".reg .pred %p<4>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<24>;\n"
            f".reg .f32 %f<{max(n // 2, 4)}>;")
    return (".version 8.5\n.target sm_90a\n.address_size 64\n"
            f".shared .align 128 .b8 smem[{image_bytes}];\n"
            ".visible .entry k(.param .u64 pimg, .param .u64 pc, .param .u64 pd, .param .u64 pda, "
            ".param .u64 pdb, .param .u32 pscale)\n.reqntid 128, 1, 1\n{\n" + regs + body + "\n}\n")


def descriptor(start, lbo, sbo, swizzle=0):
    """The ISA's 64-bit matrix descriptor (start relative to the shared array)."""
    enc = lambda x: (x & 0x3FFFF) >> 4   # noqa: E731  (matrix-descriptor-encode)
    return enc(start) | (enc(lbo) << 16) | (enc(sbo) << 32) | (swizzle << 62)


def kmajor_image(img, start, mat, lbo, sbo):
    """Write `mat` (rows along M or N, 16 columns along K, 16-bit) into `img` at
    byte `start` in the canonical K-major no-swizzle layout:
    element (r, c) at (r % 8) * 16 + (r // 8) * SBO + (c % 8) * 2 + (c // 8) * LBO."""
    bits = mat.view(np.uint16)
    for r in range(mat.shape[0]):
        for c in range(mat.shape[1]):
            off = start + (r % 8) * 16 + (r // 8) * sbo + (c % 8) * 2 + (c // 8) * lbo
            img[off:off + 2] = int(bits[r, c]).to_bytes(2, "little")


# A: (LBO, SBO) and B: (LBO, SBO), deliberately unlike the emitter's (16 M, 128) and (16 N, 128)
LAYOUTS = [((128, 256), (128, 256)),          # K-adjacent core matrices packed together
           ((1024, 128), (4096, 384)),        # M-adjacent packed (A); gaps between B's core matrices
           ((2048, 144), (160, 320))]         # LBO/SBO not multiples of 128


def _sim_wgmma(n, etype, layouts, scale_d=True, scale_a=1, scale_b=1, **kw):
    dt = NP[etype]
    rng = np.random.default_rng(n)
    a = rng.standard_normal((64, 16)).astype(dt)
    b = rng.standard_normal((16, n)).astype(dt)
    c = rng.standard_normal((64, n)).astype(np.float32)
    (alb, asb), (blb, bsb) = layouts
    a_end = 7 * 16 + 7 * asb + 14 + alb + 2
    b_start = (a_end + 127) // 128 * 128
    b_end = b_start + 7 * 16 + (n // 8 - 1) * bsb + 14 + blb + 2
    size = (b_end + 15) // 16 * 16
    img = bytearray(np.full(size // 2, 1000.0, np.float16).tobytes())   # bytes no descriptor names: 1000
    kmajor_image(img, 0, a, alb, asb)
    kmajor_image(img, b_start, np.ascontiguousarray(b.T), blb, bsb)
    d = np.zeros((64, n), np.float32)
    ptx = _wgmma_kernel(n, etype, size, scale="%p1", scale_a=str(scale_a), scale_b=str(scale_b), **kw)
    ptxsim.run_ptx(ptx, "k", 1, [np.frombuffer(bytes(img), np.uint8).copy(), c, d,
                                  np.uint64(descriptor(0, alb, asb)), np.uint64(descriptor(b_start, blb, bsb)),
                                  np.uint32(int(scale_d))])
    prod = (scale_a * a.astype(np.float64)) @ (scale_b * b.astype(np.float64))
    return d, (prod + c if scale_d else prod).astype(np.float32)


@pytest.mark.parametrize("layouts", LAYOUTS, ids=["k-packed", "mn-packed", "odd-strides"])
@pytest.mark.parametrize("etype,n", [("f16", 64), ("bf16", 24), ("f16", 256)])
def test_sim_wgmma_reads_the_canonical_layout(etype, n, layouts):
    got, want = _sim_wgmma(n, etype, layouts)
    np.testing.assert_array_equal(got, want)


def test_sim_wgmma_scale_d_and_negation():
    got, want = _sim_wgmma(32, "f16", LAYOUTS[0], scale_d=False)
    np.testing.assert_array_equal(got, want)
    got, want = _sim_wgmma(32, "bf16", LAYOUTS[1], scale_a=-1)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("kw,message", [
    ({"fence": False}, "without a wgmma.fence"),
    ({"proxy_fence": False}, "no fence.proxy.async"),
    ({"early_read": True}, "uninitialized register"),
    ({"wait": False}, "no wgmma.wait_group waited for"),
])
def test_sim_wgmma_enforces_the_isa_ordering_rules(kw, message):
    with pytest.raises(ptxsim.PTXRuntimeError, match=message):
        _sim_wgmma(16, "f16", LAYOUTS[0], **kw)


def test_sim_wgmma_rejects_a_base_offset():
    """Swizzled layouts are simulated from whole swizzle patterns only (what tilec
    emits: 1024-aligned slots); a descriptor with a base offset is reported."""
    n, size = 8, 4096
    ptx = _wgmma_kernel(n, "f16", size)
    args = [np.zeros(size, np.uint8), np.zeros((64, n), np.float32), np.zeros((64, n), np.float32),
            np.uint64(descriptor(0, 128, 256, swizzle=1) | (3 << 49)), np.uint64(descriptor(2048, 128, 256)),
            np.uint32(1)]
    with pytest.raises(ptxsim.PTXRuntimeError, match="nonzero base offset is not simulated"):
        ptxsim.run_ptx(ptx, "k", 1, args)
