"""Block-scaled MMA (issue 23): cuda_tile.mmaf_scaled lowers to
nv_tileas.block_scaled_mma on sm_120a/sm_121a, which the code generator
(codegen/ptx/ops_block_scaled.py) emits as warp-level `mma.sync ...
.block_scale`, one form per family:

    mxf8f6f4  fp8 (e4m3/e5m2) x fp8, e8m0 scales per 32     m16n8k32 scale_vec::1X ue8m0
    mxf4      fp4 (e2m1) x fp4, e8m0 scales per 32          m16n8k64 scale_vec::2X ue8m0
    mxf4nvf4  fp4 x fp4, e4m3 scales per 16                 m16n8k64 scale_vec::4X ue4m3
    (e8m0 scales per 16: two mxf4nvf4 scale_vec::2X ue8m0 MMAs per K step of 64)

Each family: the instruction line (golden), ptxas's acceptance, and the PTX
simulator's result (tests/ptxsim/mma_scaled.py) equal to the interpreter's and
to NumPy's D = sum_k (A[m, k] sfa[m, k / vec]) (B[k, n] sfb[k / vec, n]) + C
with every value decoded by ml_dtypes. fp4 arrays are passed packed two to a
byte, element 2i in the low nibble (codegen/ptx/fp4.py). The simulator's model
is also checked alone, on hand-written PTX whose fragments and scale registers
this file lays out from the PTX ISA (with garbage in every lane and byte the
selectors do not pick). Targets without the instruction are refused with a
located diagnostic that names them.

On sm_100a/sm_103a the op runs as tcgen05.mma ... .block_scale with the
accumulator and the scale factors in tensor memory (codegen/ptx/ops_tcgen05_scaled.py):
golden instruction lines, ptxas on both targets, every instruction descriptor
decoded, the simulator (tests/ptxsim/tcgen05.py) equal to the interpreter and
NumPy per family, and the simulator's block-scale model alone on hand-written
PTX (scale-factor layout and ids, the partitions' copies, descriptor checks)."""
from __future__ import annotations

import io
import re
import shutil
import subprocess

import ml_dtypes
import numpy as np
import pytest

try:
    import ptxsim
except ImportError:                    # pragma: no cover
    from tests import ptxsim

from test_ptxsim_tcgen05 import image_and_columns
from tilec.codegen.ptx.target import ARCHES, Target
from tilec.compiler import CompileFailed, compile_text

PTXAS = shutil.which("ptxas")
needs_ptxas = pytest.mark.skipif(PTXAS is None, reason="ptxas not on PATH")

NP = {"f8E4M3FN": ml_dtypes.float8_e4m3fn, "f8E5M2": ml_dtypes.float8_e5m2, "f4E2M1FN": ml_dtypes.float4_e2m1fn,
      "f8E8M0FNU": ml_dtypes.float8_e8m0fnu}

# family -> (operand type, scale type, vec, atom, instruction, MMAs per 16x8 tile and K step)
FAMILIES = {
    "mxf8f6f4": ("f8E4M3FN", "f8E8M0FNU", 32, "mxf8f6f4",
                 "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0",
                 1),
    "mxf4": ("f4E2M1FN", "f8E8M0FNU", 32, "mxf4",
             "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0", 1),
    "mxf4nvf4": ("f4E2M1FN", "f8E4M3FN", 16, "mxf4nvf4",
                 "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3",
                 1),
    "mxf4nvf4-e8m0": ("f4E2M1FN", "f8E8M0FNU", 16, "mxf4nvf4",
                      "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32"
                      ".ue8m0", 2),
}


# ---- kernels ---------------------------------------------------------------------------------------

def kernel(M, N, K, elt, selt, vec, bk=None, a_rows=None, a_pitch=None, elt_b=None):
    """C (M x N, f32, read and written) += mmaf_scaled of A (M x K), B (K x N) and
    their scales, one tile; with `bk`, a loop over K in blocks of bk. `a_rows`: A's
    rows in its view (fewer than M: the rest padded with zeros); `a_pitch`: A's
    row stride in elements."""
    bk = bk or K
    ks, bks = K // vec, bk // vec
    a_rows, a_pitch, elt_b = a_rows or M, a_pitch or K, elt_b or elt
    specs = [("a", (a_rows, K), (a_pitch, 1), elt, (M, bk)), ("b", (K, N), (N, 1), elt_b, (bk, N)),
             ("sa", (M, ks), (ks, 1), selt, (M, bks)), ("sb", (ks, N), (N, 1), selt, (bks, N)),
             ("c", (M, N), (N, 1), "f32", (M, N))]
    lines = ["cuda_tile.module @m {",
             f"  entry @k({', '.join(f'%{n}: tile<ptr<{e}>>' for n, _, _, e, _ in specs)}) {{",
             "    %tok = make_token : token", "    %c0 = constant dense<0> : tile<i32>",
             "    %c1 = constant dense<1> : tile<i32>", f"    %nk = constant dense<{K // bk}> : tile<i32>"]
    pv, ty = {}, {}
    for n, shape, strides, e, tile in specs:
        tv = f"tensor_view<{'x'.join(map(str, shape))}x{e}, strides=[{','.join(map(str, strides))}]>"
        pad = ", padding_value = zero" if n == "a" and a_rows < M else ""
        pv[n] = f"partition_view<tile=({'x'.join(map(str, tile))}){pad}, {tv}>"
        ty[n] = f"tile<{'x'.join(map(str, tile))}x{e}>"
        lines.append(f"    %v{n} = make_tensor_view %{n}, shape = [{', '.join(map(str, shape))}], "
                     f"strides = [{', '.join(map(str, strides))}] : {tv}")
        lines.append(f"    %p{n} = make_partition_view %v{n} : {pv[n]}")
    lines.append(f"    %cin, %kc = load_view_tko weak %pc[%c0, %c0] token = %tok : {pv['c']}, tile<i32> -> {ty['c']}, "
                 "token")
    lines.append(f"    %acc = for %kk in (%c0 to %nk, step %c1) : tile<i32> iter_values(%acc_in = %cin) -> "
                 f"({ty['c']}) {{")
    for n, idx in (("a", "%c0, %kk"), ("b", "%kk, %c0"), ("sa", "%c0, %kk"), ("sb", "%kk, %c0")):
        lines.append(f"      %t{n}, %k{n} = load_view_tko weak %p{n}[{idx}] token = %tok : {pv[n]}, tile<i32> -> "
                     f"{ty[n]}, token")
    lines.append(f"      %r = mmaf_scaled %ta, %tb, %acc_in, %tsa, %tsb : {ty['a']}, {ty['b']}, {ty['c']}, "
                 f"{ty['sa']}, {ty['sb']}")
    lines += [f"      continue %r : {ty['c']}", "    }",
              f"    %t5 = store_view_tko weak %acc, %pc[%c0, %c0] token = %tok : {ty['c']}, {pv['c']}, tile<i32> -> "
              "token", "    return", "  }", "}"]
    return "\n".join(lines) + "\n"


def inputs(M, N, K, elt, selt, vec, seed, a_rows=None, a_pitch=None, elt_b=None):
    """Random operands whose every partial sum is exact in f32 (the MMAs round
    after each K step, the reference once): fp8 on a quarter grid up to 3, fp4
    any, e8m0 scales 2^-2 .. 2^1, e4m3 scales on a quarter grid up to 3, C on a
    quarter grid (products on a 2^-8 grid, sums below 2^16 for K <= 256). A is
    a_rows x a_pitch (its view reads the first K columns)."""
    rng = np.random.default_rng(seed)
    a_rows, a_pitch, elt_b = a_rows or M, a_pitch or K, elt_b or elt
    ks = K // vec

    def operand(shape, e):
        if e == "f4E2M1FN":
            return rng.choice([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.5, -1, -1.5, -2, -3, -4, -6], shape).astype(NP[e])
        return (rng.integers(-12, 13, shape) / 4).astype(NP[e])

    def scale(shape):
        if selt == "f8E8M0FNU":
            return (2.0 ** rng.integers(-2, 2, shape)).astype(NP[selt])
        return (rng.integers(1, 13, shape) / 4).astype(NP[selt])
    return dict(a=operand((a_rows, a_pitch), elt), b=operand((K, N), elt_b), sa=scale((M, ks)), sb=scale((ks, N)),
                c=(rng.integers(-16, 17, (M, N)) / 4).astype(np.float32))


def reference(x, M, K):
    """NumPy: C + sum_k (A sfa)(B sfb), values decoded by ml_dtypes, exact in f64 here."""
    a = np.zeros((M, K))
    rows = min(M, x["a"].shape[0])
    a[:rows] = x["a"][:rows, :K].astype(np.float64)
    sa, sb = x["sa"].astype(np.float64), x["sb"].astype(np.float64)
    a = a * np.repeat(sa, K // sa.shape[1], axis=1)
    b = x["b"].astype(np.float64) * np.repeat(sb, K // sb.shape[0], axis=0)
    return (a @ b + x["c"].astype(np.float64)).astype(np.float32)


def packed(x):
    """A device array: fp4 packed two to a byte (element 2i in the low nibble), others as they are."""
    if x.dtype != np.dtype(ml_dtypes.float4_e2m1fn):
        return x.copy()
    codes = x.view(np.uint8).reshape(-1) & 0xF
    if codes.size % 2:
        codes = np.append(codes, 0)
    return (codes[0::2] | (codes[1::2] << 4)).astype(np.uint8)


def run_both(text, x, ptx):
    """(simulator's C, interpreter's C)."""
    from tilec.interp import launch, parse_module
    order = ("a", "b", "sa", "sb")
    got = x["c"].copy()
    ptxsim.run_ptx(ptx, "k", (1, 1, 1), [packed(x[n]) for n in order] + [got])
    want = x["c"].copy()
    launch(parse_module(text), None, (1, 1, 1), [x[n] for n in order] + [want], stdout=io.StringIO())
    return got, want


def _lower(text, arch="sm_120a"):
    r = subprocess.run(["tilec", "opt", "--lower-to-tileas", "--arch", arch, "-"], input=text, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


def _assemble(ptx, arch, tmp_path):
    f = tmp_path / "k.ptx"
    f.write_text(ptx)
    r = subprocess.run([PTXAS, f"-arch={arch}", str(f), "-o", str(tmp_path / "k.cubin")], capture_output=True,
                       text=True)
    return r.returncode, r.stderr


def _lines_of(ptx, instr):
    return [ln.strip() for ln in ptx.splitlines() if ln.strip().startswith(instr)]


# ---- lowering and golden PTX -------------------------------------------------------------------------

@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("arch", ["sm_120a", "sm_121a"])
def test_lowering_names_the_kind_and_the_target(family, arch):
    elt, selt, vec, atom, _, _ = FAMILIES[family]
    out = _lower(kernel(64, 32, 128, elt, selt, vec), arch)
    line = next(ln for ln in out.splitlines() if "block_scaled_mma" in ln)
    assert f"atom = #nv_tileas<atom {atom}>" in line and f"compute_capability = {arch[3:6]}" in line
    assert "cuda_tile.mmaf_scaled" not in out


@pytest.mark.parametrize("family", FAMILIES)
def test_golden_instruction(family):
    """The exact block_scale line: D and C the same four f32 registers, four A and
    two B fragment registers, the scale registers with selector {0, 0}; one MMA
    per 16x8 accumulator fragment (two for the e8m0 vec-16 form), in the K loop."""
    elt, selt, vec, _, instr, passes = FAMILIES[family]
    ptx = compile_text(kernel(64, 32, 128, elt, selt, vec), arch="sm_120a")
    lines = _lines_of(ptx, "mma.sync")
    f4 = r"\{(%f\d+), (%f\d+), (%f\d+), (%f\d+)\}"
    pat = re.compile(re.escape(instr) + r" \t" + f4 + r", \{%r\d+, %r\d+, %r\d+, %r\d+\}, \{%r\d+, %r\d+\}, " + f4 +
                     r", %r\d+, \{0, 0\}, %r\d+, \{0, 0\};$")
    # 64x32 over 4 warps: a 2x2 warp grid of 32x16, so 2 x 2 fragments a warp
    assert len(lines) == 4 * passes, lines
    for ln in lines:
        m = pat.match(ln)
        assert m, ln
        assert m.groups()[:4] == m.groups()[4:]
    assert "bs_mma_k" in ptx                  # the K steps run in a loop


@needs_ptxas
@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("arch", ["sm_120a", "sm_121a"])
def test_ptxas_accepts(family, arch, tmp_path):
    elt, selt, vec, _, _, _ = FAMILIES[family]
    for text in (kernel(64, 32, 128, elt, selt, vec), kernel(64, 64, 256, elt, selt, vec, bk=128)):
        rc, err = _assemble(compile_text(text, arch=arch), arch, tmp_path)
        assert rc == 0, err


# ---- simulator against interpreter and NumPy ---------------------------------------------------------

@pytest.mark.parametrize("family", FAMILIES)
def test_simulator_matches_interpreter(family):
    elt, selt, vec, _, _, _ = FAMILIES[family]
    M, N, K = 64, 32, 128
    text = kernel(M, N, K, elt, selt, vec)
    x = inputs(M, N, K, elt, selt, vec, seed=len(family))
    got, want = run_both(text, x, compile_text(text, arch="sm_120a"))
    ref = reference(x, M, K)
    assert np.array_equal(want, ref)
    assert np.array_equal(got, ref)


@pytest.mark.parametrize("family", FAMILIES)
def test_k_loop_keeps_the_accumulator_in_mma_layout(family):
    """A K loop: the carried accumulator is in the mma layout (the IR says so: no
    conversion in the loop), and the simulated result is NumPy's."""
    elt, selt, vec, _, _, _ = FAMILIES[family]
    M, N, K, bk = 64, 64, 256, 64 if elt == "f4E2M1FN" else 32
    text = kernel(M, N, K, elt, selt, vec, bk=bk)
    sched = subprocess.run(["tilec", "opt", "--lower-to-tileas", "--schedule", "--arch", "sm_120a", "-"], input=text,
                           capture_output=True, text=True, check=True).stdout
    loop = sched[sched.index("scf.for"):]
    assert "convert_layout" not in loop
    assert re.search(r"block_scaled_mma .*nv_tileas.layouts = \[#nv_tileas<layout mma, warps = \[2, 2\]>\]", loop)
    x = inputs(M, N, K, elt, selt, vec, seed=7)
    got, want = run_both(text, x, compile_text(text, arch="sm_120a"))
    assert np.array_equal(want, reference(x, M, K))
    assert np.array_equal(got, want)


def test_fp4_reads_odd_offsets_and_pads():
    """fp4 rows at an odd pitch (rows start mid-byte) and a partial tile (rows past
    the view read as zero)."""
    elt, selt, vec = "f4E2M1FN", "f8E8M0FNU", 32
    M, N, K = 64, 16, 64
    text = kernel(M, N, K, elt, selt, vec, a_rows=45, a_pitch=K + 3)
    x = inputs(M, N, K, elt, selt, vec, seed=11, a_rows=45, a_pitch=K + 3)
    got, want = run_both(text, x, compile_text(text, arch="sm_120a"))
    ref = reference(x, M, K)
    assert np.array_equal(want, ref) and np.array_equal(got, ref)
    assert np.array_equal(got[45:], x["c"][45:])


def test_mixed_fp8_types_through_nv_tileas_ir():
    """e4m3 x e5m2 (nv_tileas allows the two fp8 types to differ, cuda_tile does
    not): the lowered module, edited, compiles with `tilec compile` (modules in
    nv_tileas form go straight to scheduling and emission), and both the
    simulator and the nv_tileas evaluator give NumPy's result."""
    import importlib
    importlib.import_module("tilec.schedule.evaluator")     # nv_tileas handlers for the interpreter
    from tilec.interp import launch, parse_module
    M, N, K = 64, 32, 64
    low = _lower(kernel(M, N, K, "f8E4M3FN", "f8E8M0FNU", 32))
    low = low.replace(f"{K}x{N}xf8E4M3FN", f"{K}x{N}xf8E5M2").replace("%arg1: tile<ptr<f8E4M3FN>>",
                                                                      "%arg1: tile<ptr<f8E5M2>>")
    ptx = compile_text(low, arch="sm_120a")
    [line] = _lines_of(ptx, "mma.sync")[:1]
    assert line.startswith("mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X"
                           ".f32.e4m3.e5m2.f32.ue8m0 ")
    x = inputs(M, N, K, "f8E4M3FN", "f8E8M0FNU", 32, seed=5, elt_b="f8E5M2")
    ref = reference(x, M, K)
    order = ("a", "b", "sa", "sb")
    got, ev = x["c"].copy(), x["c"].copy()
    ptxsim.run_ptx(ptx, "k", (1, 1, 1), [x[n].copy() for n in order] + [got])
    launch(parse_module(low), None, (1, 1, 1), [x[n] for n in order] + [ev], stdout=io.StringIO())
    assert np.array_equal(got, ref) and np.array_equal(ev, ref)


# ---- targets without the instruction ----------------------------------------------------------------

@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_cuda_tile_route_refuses_targets_without_it(arch):
    text = kernel(64, 32, 64, "f8E4M3FN", "f8E8M0FNU", 32)
    line = 1 + next(i for i, ln in enumerate(text.splitlines()) if "mmaf_scaled" in ln)
    with pytest.raises(CompileFailed) as e:
        compile_text(text, arch=arch, filename="bs.mlir")
    assert f"bs.mlir:{line}:7: error: 'cuda_tile.mmaf_scaled' op is not supported on {arch} (block-scaled MMA: " \
           f"rank 2 on sm_100a, sm_103a, sm_120a and sm_121a)" in str(e.value)


def test_code_generator_refuses_targets_without_it():
    """nv_tileas.block_scaled_mma IR (lowered for sm_120a) compiled for a target
    with neither form: the code generator names the target at the op."""
    low = _lower(kernel(64, 32, 64, "f8E4M3FN", "f8E8M0FNU", 32))
    line = 1 + next(i for i, ln in enumerate(low.splitlines()) if "block_scaled_mma" in ln)
    with pytest.raises(CompileFailed) as e:
        compile_text(low, arch="sm_90a", filename="low.mlir")
    msg = str(e.value)
    assert re.search(rf"low.mlir:{line}:\d+: error: 'nv_tileas.block_scaled_mma' op is not supported on sm_90a", msg)
    assert "mma.sync ... .block_scale, which sm_120a and sm_121a have, or tcgen05.mma ... .block_scale (sm_100a, " \
           "sm_103a)" in msg and "(PTX emission for sm_90a)" in msg


def test_fp4_stores_are_refused_at_the_op():
    text = kernel(64, 32, 64, "f4E2M1FN", "f8E8M0FNU", 32).replace(
        "%t5 = store_view_tko weak %acc", "%t6 = store_view_tko weak %ta0, %pa[%c0, %c0] token = %tok : "
        "tile<64x64xf4E2M1FN>, partition_view<tile=(64x64), tensor_view<64x64xf4E2M1FN, strides=[64,1]>>, "
        "tile<i32> -> token\n    %t5 = store_view_tko weak %acc")
    text = text.replace("    %cin, %kc = load_view_tko",
                        "    %ta0, %ka0 = load_view_tko weak %pa[%c0, %c0] token = %tok : partition_view<tile=(64x64), "
                        "tensor_view<64x64xf4E2M1FN, strides=[64,1]>>, tile<i32> -> "
                        "tile<64x64xf4E2M1FN>, token\n    %cin, %kc = load_view_tko")
    with pytest.raises(CompileFailed, match=r"'nv_tileas.tiled_store' op accesses f4E2M1FN elements in global memory "
                                            r"other than by a tiled load"):
        compile_text(text, arch="sm_120a")


def _probe_takes(arch, tmp_path):
    t = Target.parse(arch)
    ptx = (f".version {t.ptx_version}\n.target {arch}\n.address_size 64\n.visible .entry k()\n{{\n"
           ".reg .b32 %r<8>;\n.reg .f32 %f<4>;\n"
           "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0 "
           "{%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%f0, %f1, %f2, %f3}, %r6, {0, 0}, %r7, {0, 0};\n"
           "ret;\n}\n")
    return _assemble(ptx, arch, tmp_path)[0] == 0


@needs_ptxas
@pytest.mark.parametrize("arch", ARCHES)
def test_capability_is_what_ptxas_takes(arch, tmp_path):
    assert _probe_takes(arch, tmp_path) == Target.parse(arch).block_scale_mma_sync


# ---- the simulator's model alone: hand-written PTX ---------------------------------------------------

# (kind, K, scale_vec X, operand type names, scale type)
SIM_FORMS = {
    "mxf8f6f4": ("mxf8f6f4", 32, 1, ("e4m3", "e5m2"), "ue8m0"),
    "mxf4": ("mxf4", 64, 2, ("e2m1", "e2m1"), "ue8m0"),
    "mxf4nvf4-2x": ("mxf4nvf4", 64, 2, ("e2m1", "e2m1"), "ue8m0"),
    "mxf4nvf4-4x": ("mxf4nvf4", 64, 4, ("e2m1", "e2m1"), "ue4m3"),
}
_ML = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2, "e2m1": ml_dtypes.float4_e2m1fn,
       "ue8m0": ml_dtypes.float8_e8m0fnu, "ue4m3": ml_dtypes.float8_e4m3fn}


def _mma_ptx(kind, k, x, types, stype, sel_a, sel_b, arch="sm_120a"):
    """One warp: lane l loads its A (4 words), B (2), C (4 f32) and scale words
    (2) from arrays laid out per lane, runs the MMA, stores D per lane."""
    instr = (f"mma.sync.aligned.m16n8k{k}.row.col.kind::{kind}.block_scale.scale_vec::{x}X.f32.{types[0]}."
             f"{types[1]}.f32.{stype}")
    return f""".version {Target.parse(arch).ptx_version}
.target {arch}
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 ps, .param .u64 pd)
.reqntid 32
{{
  .reg .b32 %r<16>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pc];
  ld.param.u64 %rd4, [ps];
  ld.param.u64 %rd5, [pd];
  mov.u32 %r0, %tid.x;
  mul.wide.u32 %rd6, %r0, 16;
  mul.wide.u32 %rd7, %r0, 8;
  add.s64 %rd8, %rd1, %rd6;
  ld.global.v4.b32 {{%r1, %r2, %r3, %r4}}, [%rd8];
  add.s64 %rd9, %rd2, %rd7;
  ld.global.v2.b32 {{%r5, %r6}}, [%rd9];
  add.s64 %rd10, %rd3, %rd6;
  ld.global.v4.f32 {{%f0, %f1, %f2, %f3}}, [%rd10];
  add.s64 %rd11, %rd4, %rd7;
  ld.global.v2.b32 {{%r7, %r8}}, [%rd11];
  {instr} {{%f4, %f5, %f6, %f7}}, {{%r1, %r2, %r3, %r4}}, {{%r5, %r6}}, {{%f0, %f1, %f2, %f3}},
      %r7, {{{sel_a[0]}, {sel_a[1]}}}, %r8, {{{sel_b[0]}, {sel_b[1]}}};
  add.s64 %rd12, %rd5, %rd6;
  st.global.v4.f32 [%rd12], {{%f4, %f5, %f6, %f7}};
  ret;
}}
"""


def _codes(rng, shape, t):
    """Random codes of type t, and their values (ml_dtypes' decoding); no NaN."""
    if t == "e2m1":
        c = rng.integers(0, 16, shape)
    elif t == "ue8m0":
        c = rng.integers(120, 135, shape)
    elif t == "ue4m3":
        c = rng.integers(1, 0x7F, shape)
    else:
        c = rng.integers(0, 256, shape)
        c = np.where((c & 0x7F) >= (0x7C if t == "e5m2" else 0x7F), c & 0x3F, c)    # no NaN / inf
    c = c.astype(np.uint8)
    return c, c.view(_ML[t]).astype(np.float64)


def _lane_data(kind, k, x, types, stype, sel_a, sel_b, seed):
    """Per-lane arrays for _mma_ptx and NumPy's D (16 x 8), from the PTX ISA's
    fragment figures: g = lane / 4, t = lane % 4; 8-bit types: a_r holds row
    g + 8 (r % 2), K 4 t + byte + 16 (r / 2); e2m1: K 8 t + nibble + 32 (r / 2);
    b_e column g, the same K. sfa's row m: lane 4 (m % 8) + m / 8 + 2 thread-id,
    bytes byte-id + j (j < X); sfb's column n: lane 4 n + thread-id. Every other
    lane and byte of the scale words is random."""
    rng = np.random.default_rng(seed)
    ac, av = _codes(rng, (16, k), types[0])
    bc, bv = _codes(rng, (k, 8), types[1])
    sac, sav = _codes(rng, (16, x), stype)
    sbc, sbv = _codes(rng, (x, 8), stype)
    c = (rng.integers(-16, 17, (16, 8)) / 4).astype(np.float32)
    per = 8 if types[0] == "e2m1" else 4
    bits = 32 // per
    a_words = np.zeros((32, 4), np.uint32)
    b_words = np.zeros((32, 2), np.uint32)
    c_lane, d_index = np.zeros((32, 4), np.float32), []
    for lane in range(32):
        g, t = lane // 4, lane % 4
        for r in range(4):
            row = g + 8 * (r % 2)
            for e in range(per):
                a_words[lane, r] |= int(ac[row, per * t + e + 4 * per * (r // 2)]) << (bits * e)
        for r in range(2):
            for e in range(per):
                b_words[lane, r] |= int(bc[per * t + e + 4 * per * r, g]) << (bits * e)
        idx = [(g + 8 * (i // 2), 2 * t + i % 2) for i in range(4)]
        d_index.append(idx)
        c_lane[lane] = [c[i] for i in idx]
    scale = rng.integers(0, 2 ** 32, (32, 2), dtype=np.uint64).astype(np.uint32)    # garbage everywhere ...
    for m in range(16):                                                          # ... but the picked bytes
        lane = 4 * (m % 8) + m // 8 + 2 * sel_a[1]
        for j in range(x):
            sh = 8 * (sel_a[0] + j)
            scale[lane, 0] = (int(scale[lane, 0]) & ~(0xFF << sh)) | (int(sac[m, j]) << sh)
    for n in range(8):
        lane = 4 * n + sel_b[1]
        for j in range(x):
            sh = 8 * (sel_b[0] + j)
            scale[lane, 1] = (int(scale[lane, 1]) & ~(0xFF << sh)) | (int(sbc[j, n]) << sh)
    blk = k // x
    d = (av * np.repeat(sav, blk, axis=1)) @ (bv * np.repeat(sbv, blk, axis=0)) + c.astype(np.float64)
    d_lane = np.array([[d[i] for i in idx] for idx in d_index], np.float64).astype(np.float32)
    return a_words, b_words, c_lane, scale, d_lane


@pytest.mark.parametrize("form", SIM_FORMS)
@pytest.mark.parametrize("sel", [((0, 0), (0, 0)), ((2, 1), (2, 3)), ((0, 1), (0, 2)), ((3, 0), (1, 1))])
def test_simulator_fragments_and_selectors(form, sel, tmp_path):
    kind, k, x, types, stype = SIM_FORMS[form]
    sel_a, sel_b = sel
    if sel_a[0] % x or sel_b[0] % x or sel_a[0] + x > 4 or sel_b[0] + x > 4:
        pytest.skip("byte-id outside the form's range")
    ptx = _mma_ptx(kind, k, x, types, stype, sel_a, sel_b)
    if PTXAS is not None:
        rc, err = _assemble(ptx, "sm_120a", tmp_path)
        assert rc == 0, err
    a, b, c, s, want = _lane_data(kind, k, x, types, stype, sel_a, sel_b, seed=x + 3 * sel_a[0] + sel_b[1])
    d = np.full((32, 4), np.nan, np.float32)
    ptxsim.run_ptx(ptx, "k", (1, 1, 1), [a, b, c, s, d])
    assert np.array_equal(d, want)


@pytest.mark.parametrize("change", [
    (".scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3", ".scale_vec::4X.f32.e2m1.e2m1.f32.ue8m0"),   # 4X takes ue4m3 only
    (".kind::mxf4nvf4.", ".kind::mxf4."),                                                   # mxf4 has no 4X
    ("{0, 0}, %r8", "{0, 2}, %r8"),                                                         # thread-id-a 0..1
    ("%r7, {0, 0}", "%r7, {1, 0}"),                                                         # 4X: byte-id 0
])
def test_simulator_refuses_what_ptxas_refuses(change, tmp_path):
    kind, k, x, types, stype = SIM_FORMS["mxf4nvf4-4x"]
    ptx = _mma_ptx(kind, k, x, types, stype, (0, 0), (0, 0))
    assert change[0] in ptx
    bad = ptx.replace(change[0], change[1], 1)
    if PTXAS is not None:
        assert _assemble(bad, "sm_120a", tmp_path)[0] != 0
    with pytest.raises(ptxsim.UnsupportedPTX):
        ptxsim.load(bad).kernel("k")


def test_simulator_reports_a_signed_ue4m3_scale():
    kind, k, x, types, stype = SIM_FORMS["mxf4nvf4-4x"]
    ptx = _mma_ptx(kind, k, x, types, stype, (0, 0), (0, 0))
    a, b, c, s, _ = _lane_data(kind, k, x, types, stype, (0, 0), (0, 0), seed=1)
    s[0, 0] |= 0x80
    with pytest.raises(ptxsim.PTXRuntimeError, match="ue4m3 scale factor has bit 7 set"):
        ptxsim.run_ptx(ptx, "k", (1, 1, 1), [a, b, c, s, np.zeros((32, 4), np.float32)])


def test_simulator_nan_scale_poisons_its_rows():
    """An e8m0 scale of 0xFF is NaN: the rows of A it scales come out NaN, the others exact."""
    kind, k, x, types, stype = SIM_FORMS["mxf4"]
    ptx = _mma_ptx(kind, k, x, types, stype, (0, 0), (0, 0))
    a, b, c, s, want = _lane_data(kind, k, x, types, stype, (0, 0), (0, 0), seed=2)
    s[4 * 3, 0] |= 0xFF          # row 3's first scale (lane 12, byte 0)
    d = np.zeros((32, 4), np.float32)
    ptxsim.run_ptx(ptx, "k", (1, 1, 1), [a, b, c, s, d])
    lanes_row3 = [12, 13, 14, 15]
    assert np.isnan(d[lanes_row3, :2]).all()
    keep = np.ones((32, 4), bool)
    keep[lanes_row3, :2] = False
    assert np.array_equal(d[keep], want[keep])


# ---- sm_100a / sm_103a: tcgen05.mma ... .block_scale -------------------------------------------------

# family -> the tcgen05 form, (A type code, B type code, scale type code) of the PTX ISA's
# block-scaled instruction descriptor tables (e4m3 0; e2m1 1 in the fp4 kinds; UE8M0 1, UE4M3 0),
# scale_vec X, K per MMA
TC_FAMILIES = {
    "mxf8f6f4": ("tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X", (0, 0, 1), 1, 32),
    "mxf4": ("tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::2X", (1, 1, 1), 2, 64),
    "mxf4nvf4": ("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X", (1, 1, 0), 4, 64),
    "mxf4nvf4-e8m0": ("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X", (1, 1, 1), 4, 64),
}


def _isa_idesc(ta, tb, stype, n, sfa_id, sfb_id, m=128):
    """The block-scaled instruction descriptor, field by field from the PTX ISA's table: SFB id at
    bits 4-5, atype 7-9, btype 10-12 (10-11 for the fp4 kinds), N >> 3 at 17-22, the scale type at
    23, M >> 7 at 27-28, SFA id at 29-30; dense, no negation or transpose."""
    return (sfb_id << 4) | (ta << 7) | (tb << 10) | ((n >> 3) << 17) | (stype << 23) | ((m >> 7) << 27) | \
        (sfa_id << 29)


@pytest.mark.parametrize("arch", ["sm_100a", "sm_103a"])
@pytest.mark.parametrize("family", FAMILIES)
def test_tcgen05_lowering_names_the_kind_and_the_tensor_memory_accumulator(family, arch):
    elt, selt, vec, atom, _, _ = FAMILIES[family]
    out = subprocess.run(["tilec", "opt", "--lower-to-tileas", "--schedule", "--arch", arch, "-"],
                         input=kernel(128, 32, 256, elt, selt, vec, bk=128), capture_output=True, text=True,
                         check=True).stdout
    line = next(ln for ln in out.splitlines() if "block_scaled_mma" in ln)
    assert f"atom = #nv_tileas<atom {atom}>" in line and f"compute_capability = {arch[3:6]}" in line
    assert "nv_tileas.layouts = [#nv_tileas<layout tmem>]" in line       # the K loop carries TmemAcc
    assert "convert_layout" not in out[out.index("scf.for"):]


@pytest.mark.parametrize("family", FAMILIES)
def test_tcgen05_golden_instruction(family):
    """128x32, K 128 on sm_100a: one MMA per K step, each [D], the A and B descriptors, the
    step's instruction descriptor (both SF ids (s X) % 4), [sfa], [sfb] at word (s X) / 4 of the
    scale-factor columns after D's 32 (sfa 32.., four columns a word; sfb after sfa's), and the
    enable-input-d predicate."""
    elt, selt, vec, _, _, _ = FAMILIES[family]
    instr, (ta, tb, stype), x, k = TC_FAMILIES[family]
    K, N = 128, 32
    ptx = compile_text(kernel(128, N, K, elt, selt, vec), arch="sm_100a")
    assert ".version 8.7" in ptx and ".target sm_100a" in ptx and "mma.sync" not in ptx
    lines = _lines_of(ptx, "tcgen05.mma")
    ks = K // vec
    words = (ks + 3) // 4
    assert len(lines) == K // k
    for s, ln in enumerate(lines):
        j, sf = divmod(s * x, 4)
        want = _isa_idesc(ta, tb, stype, N, sf, sf)
        pat = (re.escape(instr) + rf" \t\[(%r\d+)\], %rd\d+, %rd\d+, {want}, \[(%r\d+)\+{32 + 4 * j}\], "
               rf"\[(%r\d+)\+{32 + 4 * words + j}\], %p\d+;$")
        m = re.match(pat, ln)
        assert m, (ln, pat)
        assert m.group(1) == m.group(2) == m.group(3)        # D and the scale factors in one allocation
    assert _lines_of(ptx, "tcgen05.commit") and _lines_of(ptx, "tcgen05.alloc") and _lines_of(ptx, "tcgen05.dealloc")
    sts = _lines_of(ptx, "tcgen05.st.sync.aligned.32x32b")
    assert any("+32]" in ln for ln in sts)                   # the scale factors, from column 32


@pytest.mark.parametrize("family", FAMILIES)
def test_tcgen05_descriptor_fields_decode(family):
    """Every emitted instruction descriptor, decoded by the simulator's reading of the ISA
    tables (tests/ptxsim/tcgen05.py: decode_idesc_scaled), names the family's types, scale type,
    M 128, the tile's N and the step's SF ids; and the emitter's scaled_idesc is _isa_idesc."""
    from ptxsim.tcgen05 import decode_idesc_scaled
    from tilec.codegen.ptx.ops_tcgen05_scaled import scaled_idesc, tcgen05_form
    from tilec.ir.types import FloatType
    elt, selt, vec, _, _, _ = FAMILIES[family]
    instr, (ta, tb, stype), x, k = TC_FAMILIES[family]
    kind = instr.split("kind::")[1].split(".")[0]
    N, K = 64, 256
    ptx = compile_text(kernel(128, N, K, elt, selt, vec, bk=128), arch="sm_100a")
    lines = _lines_of(ptx, "tcgen05.mma")
    assert len(lines) == 128 // k
    names = {"f8E4M3FN": "e4m3", "f4E2M1FN": "e2m1"}
    for s, ln in enumerate(lines):
        f = decode_idesc_scaled(int(ln.split(", ")[3]), kind, x)
        assert (f["atype"], f["btype"]) == (names[elt], names[elt])
        assert f["stype"] == {"f8E8M0FNU": "ue8m0", "f8E4M3FN": "ue4m3"}[selt]
        assert (f["m"], f["n"], f["sfa_id"], f["sfb_id"]) == (128, N, s * x % 4, s * x % 4)
        assert not (f["mn_a"] or f["mn_b"] or f["neg_a"] or f["neg_b"])
    form = tcgen05_form(FloatType(elt), FloatType(elt), FloatType(selt), vec)
    assert (form.instruction(), form.k, form.x) == (instr, k, x)
    for n in (16, 64, 256):
        for sf in (0, 2):
            assert scaled_idesc(form, n, sf, sf) == _isa_idesc(ta, tb, stype, n, sf, sf)


@needs_ptxas
@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("arch", ["sm_100a", "sm_103a"])
def test_tcgen05_ptxas_accepts(family, arch, tmp_path):
    elt, selt, vec, _, _, _ = FAMILIES[family]
    for text, warps in ((kernel(128, 32, 128, elt, selt, vec), 4), (kernel(128, 64, 256, elt, selt, vec, bk=128), 4),
                        (kernel(256, 128, 128, elt, selt, vec), 8)):
        ptx = compile_text(text, arch=arch, num_warps=warps)
        assert TC_FAMILIES[family][0] in ptx
        rc, err = _assemble(ptx, arch, tmp_path)
        assert rc == 0, err


@pytest.mark.parametrize("shape", [(128, 32, 128, None, 4), (128, 64, 256, 128, 4), (256, 32, 128, None, 8)],
                         ids=["tile", "k-loop", "m256-8warps"])
@pytest.mark.parametrize("family", FAMILIES)
def test_tcgen05_simulator_matches_interpreter(family, shape):
    """The sm_100a PTX in the simulator (scale factors decoded exactly from tensor memory,
    products exact, summed in f64, rounded to f32 per MMA) equals the interpreter and NumPy."""
    elt, selt, vec, _, _, _ = FAMILIES[family]
    M, N, K, bk, warps = shape
    text = kernel(M, N, K, elt, selt, vec, bk=bk)
    x = inputs(M, N, K, elt, selt, vec, seed=3 + len(family))
    got, want = run_both(text, x, compile_text(text, arch="sm_100a", num_warps=warps))
    ref = reference(x, M, K)
    assert np.array_equal(want, ref)
    assert np.array_equal(got, ref)


def test_tcgen05_zero_accumulator_and_mixed_fp8_types():
    """A zero accumulator is not stored (the first MMA has enable-input-d false); e4m3 x e5m2
    through nv_tileas IR (idesc btype 1) in the simulator and the nv_tileas evaluator."""
    import importlib
    importlib.import_module("tilec.schedule.evaluator")
    from tilec.interp import launch, parse_module
    M, N, K = 128, 32, 64
    text = kernel(M, N, K, "f8E4M3FN", "f8E8M0FNU", 32).replace(
        "    %cin, %kc = load_view_tko", f"    %zero = constant dense<0.0> : tile<{M}x{N}xf32>\n"
        "    %cin, %kc = load_view_tko").replace("mmaf_scaled %ta, %tb, %acc_in,", "mmaf_scaled %ta, %tb, %zero,")
    low = _lower(text, "sm_100a")
    low = low.replace(f"{K}x{N}xf8E4M3FN", f"{K}x{N}xf8E5M2").replace("%arg1: tile<ptr<f8E4M3FN>>",
                                                                      "%arg1: tile<ptr<f8E5M2>>")
    ptx = compile_text(low, arch="sm_100a")
    lines = _lines_of(ptx, "tcgen05.mma")
    assert [int(ln.split(", ")[3]) for ln in lines] == [_isa_idesc(0, 1, 1, N, s, s) for s in range(2)]
    sts = _lines_of(ptx, "tcgen05.st")
    assert "not.pred" in ptx and sts and all(int(re.search(r"\+(\d+)\]", ln).group(1)) >= N for ln in sts)
    x = inputs(M, N, K, "f8E4M3FN", "f8E8M0FNU", 32, seed=9, elt_b="f8E5M2")
    x["c"][:] = 0
    ref = reference(x, M, K)
    order = ("a", "b", "sa", "sb")
    got, ev = np.full_like(x["c"], np.nan), np.full_like(x["c"], np.nan)
    ptxsim.run_ptx(ptx, "k", (1, 1, 1), [x[n].copy() for n in order] + [got])
    launch(parse_module(low), None, (1, 1, 1), [x[n] for n in order] + [ev], stdout=io.StringIO())
    assert np.array_equal(got, ref) and np.array_equal(ev, ref)


def test_tcgen05_dense_dot_then_block_scaled_share_the_allocation_size():
    """A tcgen05 dot (32 columns) before a block-scaled MMA (D and scale factors: 64): every
    allocation of the group takes 64 (the ISA: a CTA's allocations must not grow; the simulator
    checks it), and the sum is NumPy's."""
    M, N, K = 128, 32, 64
    text = kernel(M, N, K, "f8E4M3FN", "f8E8M0FNU", 32).replace(
        "      %r = mmaf_scaled %ta, %tb, %acc_in,",
        f"      %d = mmaf %ta, %tb, %acc_in : tile<{M}x{K}xf8E4M3FN>, tile<{K}x{N}xf8E4M3FN>, tile<{M}x{N}xf32>\n"
        "      %r = mmaf_scaled %ta, %tb, %d,")
    ptx = compile_text(text, arch="sm_100a")
    assert [ln.split(", ")[-1] for ln in _lines_of(ptx, "tcgen05.alloc")] == ["64;", "64;"]
    assert len(_lines_of(ptx, "tcgen05.mma.cta_group::1.kind::f8f6f4")) == 2
    x = inputs(M, N, K, "f8E4M3FN", "f8E8M0FNU", 32, seed=1)
    got, want = run_both(text, x, ptx)
    ref = (reference(x, M, K).astype(np.float64) + x["a"].astype(np.float64) @ x["b"].astype(np.float64))
    assert np.array_equal(want, ref.astype(np.float32)) and np.array_equal(got, ref.astype(np.float32))


@pytest.mark.parametrize("arch", ["sm_100a", "sm_103a"])
def test_tcgen05_refuses_shapes_it_has_no_mma_for(arch):
    """M 64: tcgen05's block-scaled MMAs are M = 128 (.cta_group::1), and sm_100a has no
    block-scaled mma.sync: the code generator says so at the op."""
    with pytest.raises(CompileFailed) as e:
        compile_text(kernel(64, 32, 64, "f8E4M3FN", "f8E8M0FNU", 32), arch=arch, filename="bs.mlir")
    msg = str(e.value)
    assert "'nv_tileas.block_scaled_mma' op needs a 64x32 accumulator that tcgen05.mma ... .block_scale computes " \
           "in tensor memory: M a multiple of 128" in msg


# ---- the simulator's tcgen05 block-scale model alone: hand-written PTX --------------------------------

# (kind, scale-vector qualifier, X, operand types, scale type)
SIM_TC_FORMS = {
    "mxf8f6f4": ("mxf8f6f4", "scale_vec::1X", 1, ("e4m3", "e5m2"), "ue8m0"),
    "mxf4": ("mxf4", "scale_vec::2X", 2, ("e2m1", "e2m1"), "ue8m0"),
    "mxf4nvf4-2x": ("mxf4nvf4", "scale_vec::2X", 2, ("e2m1", "e2m1"), "ue8m0"),
    "mxf4nvf4-4x": ("mxf4nvf4", "scale_vec::4X", 4, ("e2m1", "e2m1"), "ue4m3"),
    "mxf4nvf4-block16-e8m0": ("mxf4nvf4", "block16", 4, ("e2m1", "e2m1"), "ue8m0"),
}
TC_CODES = {"e4m3": 0, "e5m2": 1, "e2m1": 1, "ue8m0": 1, "ue4m3": 0}
TC_N, TC_SF_COL, TC_LBO, TC_SBO = 32, 32, 128, 256        # sfa in columns 32-35, sfb in 36


def _tc_ptx(kind, vec, idesc, n=TC_N):
    """k(img, sf, out), 128 threads: copy the shared-memory image (A: 128 rows of 32 bytes, B: n
    rows, K-major without swizzle, LBO 128, SBO 256: core matrices of one 8-row group K-adjacent)
    from global memory; warp 0 allocates 64 columns; thread t writes row t of `sf` (8 words) into
    lane t, columns 32-39, with tcgen05.st; thread 0 issues one block-scaled MMA (D at column 0,
    enable-input-d false) and commits; every thread waits, reads its row of D and stores it."""
    a_bytes, img = 128 * 32, 128 * 32 + n * 32
    vregs = ", ".join(f"%v{i}" for i in range(n))
    sregs = ", ".join(f"%s{i}" for i in range(8))
    desc = (TC_LBO >> 4 << 16) | (TC_SBO >> 4 << 32) | (1 << 46)
    version = "8.8" if (vec or "").startswith("block") else Target.parse("sm_100a").ptx_version   # .blockN: 8.8
    return f""".version {version}
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 p_img, .param .u64 p_sf, .param .u64 p_out)
.reqntid 128
{{
  .reg .pred %p<8>;
  .reg .b32 %r<32>;
  .reg .b64 %rd<24>;
  .reg .b32 %v<{n}>;
  .reg .b32 %s<8>;
  .shared .align 1024 .b8 smem[{img}];
  .shared .align 8 .b64 bar;
  .shared .align 4 .b32 slot;
  mov.u32 %r0, %tid.x;
  shr.u32 %r1, %r0, 5;
  ld.param.u64 %rd1, [p_img];
  ld.param.u64 %rd2, [p_sf];
  ld.param.u64 %rd3, [p_out];
{image_and_columns(img // 4, 64)}  shl.b32 %r13, %r1, 21;
  add.u32 %r14, %r10, %r13;
  mul.wide.u32 %rd7, %r0, 32;
  add.s64 %rd8, %rd2, %rd7;
  ld.global.v4.u32 {{%s0, %s1, %s2, %s3}}, [%rd8];
  ld.global.v4.u32 {{%s4, %s5, %s6, %s7}}, [%rd8+16];
  tcgen05.st.sync.aligned.32x32b.x8.b32 [%r14+{TC_SF_COL}], {{{sregs}}};
  tcgen05.wait::st.sync.aligned;
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  @!%p2 bra.uni MMA_DONE;
  mov.u32 %r11, smem;
  shr.u32 %r11, %r11, 4;
  and.b32 %r11, %r11, 0x3FFF;
  cvt.u64.u32 %rd9, %r11;
  or.b64 %rd10, %rd9, {desc};
  add.s64 %rd11, %rd10, {a_bytes >> 4};
  tcgen05.mma.cta_group::1.kind::{kind}.block_scale{'.' + vec if vec else ''} [%r10], %rd10, %rd11, {idesc},
      [%r10+{TC_SF_COL}], [%r10+{TC_SF_COL + 4}], 0;
  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [bar];
MMA_DONE:
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p6, [bar], 0;
  @!%p6 bra.uni WAIT;
  tcgen05.fence::after_thread_sync;
  tcgen05.ld.sync.aligned.32x32b.x{n}.b32 {{{vregs}}}, [%r14];
  tcgen05.wait::ld.sync.aligned;
  mul.wide.u32 %rd12, %r0, {4 * n};
  add.s64 %rd13, %rd3, %rd12;
{chr(10).join(f"  st.global.b32 [%rd13+{4 * i}], %v{i};" for i in range(n))}
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  @!%p3 bra.uni END;
  tcgen05.fence::after_thread_sync;
  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r10, 64;
END:
  ret;
}}
"""


def _canonical_image(a_bytes, b_bytes):
    """A (128 x 32 bytes) and B (n x 32) in the K-major no-swizzle layout of _tc_ptx: byte b of row
    r at (r % 8) 16 + (r / 8) SBO + b % 16 + (b / 16) LBO (the ISA's canonical K-major form)."""
    out = []
    for raw in (a_bytes, b_bytes):
        rows = raw.shape[0]
        img = np.zeros(rows // 8 * TC_SBO, np.uint8)
        r, b = np.arange(rows)[:, None], np.arange(32)[None, :]
        img[(r % 8) * 16 + (r // 8) * TC_SBO + b % 16 + (b // 16) * TC_LBO] = raw
        out.append(img)
    return np.concatenate(out)


def _tc_case(form, sf_ids, seed, n=TC_N):
    """(image, sf words (128 x 8), NumPy's D (128 x n), idesc) for one MMA of `form` with SF ids
    `sf_ids`: scale_A row m in lane m % 32 + 32 q (every q) of column m / 32, scale_B column j
    likewise in column 4 + j / 32, bytes SF_ID + t; every other byte random, differing between
    the lane partitions."""
    kind, vec, x, types, stype = SIM_TC_FORMS[form]
    rng = np.random.default_rng(seed)
    k = 64 if types[0] == "e2m1" else 32
    ac, av = _codes(rng, (128, k), types[0])
    bc, bv = _codes(rng, (n, k), types[1])
    sac, sav = _codes(rng, (128, x), stype)
    sbc, sbv = _codes(rng, (n, x), stype)
    if types[0] == "e2m1":                  # packed two to a byte, element 2i in the low nibble
        ab, bb = ac[:, 0::2] | (ac[:, 1::2] << 4), bc[:, 0::2] | (bc[:, 1::2] << 4)
    else:
        ab, bb = ac, bc
    words = rng.integers(0, 2 ** 32, (128, 8), dtype=np.uint64)
    for codes, rows, col0, sf in ((sac, 128, 0, sf_ids[0]), (sbc, n, 4, sf_ids[1])):
        for i in range(rows):
            for q in range(4):
                lane, col = 32 * q + i % 32, col0 + i // 32
                for t in range(x):
                    sh = 8 * (sf + t)
                    words[lane, col] = (words[lane, col] & ~np.uint64(0xFF << sh)) | np.uint64(int(codes[i, t]) << sh)
    blk = k // x
    d = (av * np.repeat(sav, blk, axis=1)) @ (bv * np.repeat(sbv, blk, axis=1)).T
    idesc = _isa_idesc(TC_CODES[types[0]], TC_CODES[types[1]], TC_CODES[stype], n, *sf_ids)
    return _canonical_image(ab, bb), words.astype(np.uint32), d.astype(np.float32), idesc


def _tc_run(ptx, img, words, n=TC_N):
    out = np.full((128, n), np.nan, np.float32)
    ptxsim.run_ptx(ptx, "k", (1, 1, 1), [img.copy(), words.copy(), out])
    return out


@pytest.mark.parametrize("form", SIM_TC_FORMS)
@pytest.mark.parametrize("sf_ids", [(0, 0), (2, 1), (3, 2), (2, 0)])
def test_tcgen05_simulator_scale_factor_layout(form, sf_ids, tmp_path):
    """One MMA per form and SF ids (the ids the ISA allows for its X), against NumPy; the PTX
    assembles for sm_100a."""
    kind, vec, x, _, _ = SIM_TC_FORMS[form]
    if any(i % x or i + x > 4 for i in sf_ids):
        pytest.skip("SF id outside the form's range")
    img, words, want, idesc = _tc_case(form, sf_ids, seed=sum(sf_ids) + 7 * x)
    ptx = _tc_ptx(kind, vec, idesc)
    if PTXAS is not None:
        rc, err = _assemble(ptx, "sm_100a", tmp_path)
        assert rc == 0, err
    assert np.array_equal(_tc_run(ptx, img, words), want)


def test_tcgen05_simulator_wants_the_scale_factors_in_every_partition():
    kind, vec, _, _, _ = SIM_TC_FORMS["mxf4"]
    img, words, _, idesc = _tc_case("mxf4", (2, 0), seed=1)
    words[64 + 5, 1] ^= 0x01 << 16             # row 37 of scale_A, byte 2 (SFA id 2), partition 2 only
    with pytest.raises(ptxsim.PTXRuntimeError, match=r"scale factors of A's row 37 differ between the 32-lane "
                                                     r"partitions.*duplicated to all four"):
        _tc_run(_tc_ptx(kind, vec, idesc), img, words)


def test_tcgen05_simulator_nan_scale_poisons_its_rows():
    """An e8m0 scale of 0xFF is NaN: the row of A it scales comes out NaN, the others exact."""
    kind, vec, _, _, _ = SIM_TC_FORMS["mxf8f6f4"]
    img, words, want, idesc = _tc_case("mxf8f6f4", (1, 0), seed=2)
    for q in range(4):
        words[32 * q + 9, 2] |= 0xFF << 8       # row 73 of scale_A (lane 9, column 2), byte 1
    got = _tc_run(_tc_ptx(kind, vec, idesc), img, words)
    assert np.isnan(got[73]).all()
    keep = np.ones(128, bool)
    keep[73] = False
    assert np.array_equal(got[keep], want[keep])


@pytest.mark.parametrize("change, message", [
    (lambda d: d | (1 << 28), r"M = 384 \(bits 27-28"),
    (lambda d: (d & ~(3 << 29)) | (1 << 29), r"SFA ID 1 \(bits 29-30\) with scale_vec::2X"),
    (lambda d: d & ~(1 << 23), r"scale type 0 \(bit 23\) with scale_vec::2X"),
    (lambda d: d | (1 << 15), r"K-major operands only"),
    (lambda d: d | (1 << 3), r"reserved bits"),
    (lambda d: d | (1 << 31), r"K = 96 is not simulated"),
    (lambda d: d | (1 << 2), r"sparsity"),
    (lambda d: (d & ~(7 << 7)) | (5 << 7), r"atype \(bits 7-9\) 5 is invalid"),
])
def test_tcgen05_simulator_checks_the_instruction_descriptor(change, message):
    kind, vec, _, _, _ = SIM_TC_FORMS["mxf4"]
    img, words, _, idesc = _tc_case("mxf4", (0, 2), seed=3)
    with pytest.raises(ptxsim.PTXRuntimeError, match=message):
        _tc_run(_tc_ptx(kind, vec, change(idesc)), img, words)


@pytest.mark.parametrize("kind, vec", [("mxf4", "scale_vec::4X"), ("mxf4nvf4", None), ("mxf8f6f4", "block16"),
                                       ("mxf8f6f4", "scale_vec::2X")])
def test_tcgen05_simulator_refuses_forms_ptxas_refuses(kind, vec, tmp_path):
    ptx = _tc_ptx(kind, vec, _isa_idesc(1, 1, 1, TC_N, 0, 0))
    if PTXAS is not None:
        assert _assemble(ptx, "sm_100a", tmp_path)[0] != 0
    with pytest.raises(ptxsim.UnsupportedPTX):
        ptxsim.load(ptx).kernel("k")
