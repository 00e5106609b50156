"""PTX emission: every example kernel compiles for sm_80 and sm_90a and ptxas
assembles the result (no spills); `tilec compile` writes output only on
success and reports failures as located diagnostics; PTX goldens pin the key
instructions (golden/ptx/*.check)."""
from __future__ import annotations

import functools
import glob
import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "examples", "*.mlir")) +
                  glob.glob(os.path.join(ROOT, "examples", "cutile", "*.mlir")))
ARCHES = ("sm_80", "sm_90a")
# fp8 has no sm_80 hardware path (no e4m3 conversion or MMA before sm_89)
EXPECTED_UNSUPPORTED = {("matmul_fp8", "sm_80"): "is not supported on sm_80",
                        ("matmul_fp8_bt_aligned", "sm_80"): "is not supported on sm_80"}
PTXAS = shutil.which("ptxas")


def _name(path):
    return os.path.splitext(os.path.basename(path))[0]


@functools.lru_cache(maxsize=None)
def compiled(path, arch, wgmma=None):
    from tilec.codegen.ptx import compile_text
    with open(path) as fh:
        return compile_text(fh.read(), arch, filename=path, wgmma=wgmma)


CASES = [(p, a) for p in EXAMPLES for a in ARCHES]


def assemble(ptx, arch, tmp_path) -> str:
    """`ptxas -v` of `ptx` for `arch`: its report (skips without ptxas; fails when ptxas refuses)."""
    if PTXAS is None:
        pytest.skip("ptxas not on PATH: PTX generated but not assembled")
    src = tmp_path / "k.ptx"
    src.write_text(ptx)
    r = subprocess.run([PTXAS, f"-arch={arch}", "-v", str(src), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stderr


def spill_bytes(report) -> list[int]:
    """Spill-store bytes per function of a `ptxas -v` report."""
    return [int(s) for s in re.findall(r"(\d+) bytes spill stores", report)]


@pytest.mark.parametrize("path,arch", CASES, ids=[f"{_name(p)}-{a}" for p, a in CASES])
def test_example_compiles_and_assembles(path, arch, tmp_path):
    from tilec.compiler import CompileFailed
    expected = EXPECTED_UNSUPPORTED.get((_name(path), arch))
    if expected:
        with pytest.raises(CompileFailed, match=expected):
            compiled(path, arch)
        return
    ptx = compiled(path, arch)
    assert f".target {arch}" in ptx
    spills = spill_bytes(assemble(ptx, arch, tmp_path))
    assert spills and not any(spills)   # ptxas -v reports, and no example spills


def test_large_accumulators_get_eight_warps_on_sm_80():
    """128x128 f32 on 4 warps would be 128 accumulator registers per thread:
    the default doubles the warps there (sm_90a keeps its 4-warp consumer)."""
    path = os.path.join(ROOT, "examples", "matmul_f16_tiled.mlir")
    assert ".reqntid 256, 1, 1" in compiled(path, "sm_80")
    assert ".reqntid 128, 1, 1" in compiled(os.path.join(ROOT, "examples", "cutile", "matmul_f16.mlir"), "sm_80")
    from tilec.codegen.ptx import compile_text
    with open(path) as fh:
        assert ".reqntid 128, 1, 1" in compile_text(fh.read(), "sm_80", num_warps=4)


def test_very_large_accumulators_get_two_consumer_warpgroups_on_sm_90a(tmp_path):
    """A 128x256 f32 accumulator is 256 registers per thread of one consumer
    warpgroup: the default gives the consumer two (384 threads with the
    producer); 128x128 keeps one."""
    from tilec.codegen.ptx import compile_text
    path = os.path.join(ROOT, "examples", "matmul_f16_tiled.mlir")
    assert ".reqntid 256, 1, 1" in compiled(path, "sm_90a")
    with open(path) as fh:
        wide = fh.read().replace("128x128", "128x256").replace("64x128", "64x256")
    ptx = compile_text(wide, "sm_90a")
    assert ".reqntid 384, 1, 1" in ptx
    # 1228 bytes on one consumer warpgroup; 84 with two (the swizzled slots' ldmatrix
    # addresses cost the consumer two registers more than row-major ones, which spilled 64)
    assert sum(spill_bytes(assemble(ptx, "sm_90a", tmp_path))) <= 96


def test_kernel_abi_matches_entry_signature():
    ptx = compiled(os.path.join(ROOT, "examples", "vector_add.mlir"), "sm_90a")
    params = re.findall(r"\.param (\.\w+) (\w+)", ptx)
    assert [t for t, _ in params] == [".u64", ".u64", ".u64", ".u32"]
    assert ".visible .entry vector_add(" in ptx
    assert ".reqntid 128, 1, 1" in ptx


def test_num_warps_sets_cta_size():
    from tilec.codegen.ptx import compile_text
    with open(os.path.join(ROOT, "examples", "vector_add.mlir")) as fh:
        ptx = compile_text(fh.read(), "sm_80", num_warps=8)
    assert ".reqntid 256, 1, 1" in ptx


def test_warp_specialized_kernel_runs_both_agents():
    ptx = compiled(os.path.join(ROOT, "examples", "cutile", "matmul_f16.mlir"), "sm_90a")
    assert ".reqntid 256, 1, 1" in ptx            # producer + consumer warpgroups
    assert "mbarrier.try_wait.parity" in ptx and "mbarrier.arrive" in ptx
    assert "fence.mbarrier_init" in ptx and re.search(r"bar\.sync \t0\b", ptx) is not None


def test_large_shared_memory_is_dynamic():
    ptx = compiled(os.path.join(ROOT, "examples", "matmul_f16_tiled.mlir"), "sm_90a")
    m = re.search(r"// tilec\.dynamic_shared_bytes (\w+) (\d+)", ptx)
    assert m and int(m.group(2)) > 48 * 1024
    assert ".extern .shared .align 1024 .b8 matmul_f16_smem[];" in ptx   # swizzled slots: 1024-aligned


# ---- the command ---------------------------------------------------------------------

def test_compile_command_writes_ptx(tmp_path, run_cli):
    out = tmp_path / "k.ptx"
    rc, _, err = run_cli("compile", os.path.join(ROOT, "examples", "vector_add.mlir"), "-o", str(out), "--arch",
                         "sm_80")
    assert rc == 0, err
    assert out.read_text().startswith("// Generated by tilec for sm_80")


def test_compile_default_output_name(tmp_path, run_cli):
    src = tmp_path / "kern.mlir"
    shutil.copy(os.path.join(ROOT, "examples", "vector_add.mlir"), src)
    rc, _, err = run_cli("compile", str(src))
    assert rc == 0, err
    assert (tmp_path / "kern.ptx").exists()


def test_compile_unsupported_is_a_located_diagnostic_and_writes_nothing(tmp_path, run_cli):
    out = tmp_path / "k.ptx"
    rc, _, err = run_cli("compile", os.path.join(ROOT, "examples", "cutile", "matmul_fp8.mlir"), "-o", str(out),
                         "--arch", "sm_80")
    assert rc == 1
    assert re.search(r"matmul_fp8\.mlir:\d+:\d+: error: 'cuda_tile.mmaf' op is not supported on sm_80", err)
    assert "Traceback" not in err
    assert not out.exists()


def test_compile_parse_error(tmp_path, run_cli):
    src = tmp_path / "bad.mlir"
    src.write_text("cuda_tile.module @m {\n  entry @k() {\n    %x = addf\n  }\n}\n")
    rc, _, err = run_cli("compile", str(src), "-o", str(tmp_path / "o.ptx"))
    assert rc == 1 and "bad.mlir:3" in err and "error:" in err
    assert not (tmp_path / "o.ptx").exists()


@pytest.mark.parametrize("flags,message", [
    (["--arch", "sm_70"], "unknown target 'sm_70'"),
    (["--num-warps", "3"], "--num-warps must be a power of two"),
    (["--num-stages", "0"], "--num-stages must be at least 1"),
])
def test_compile_bad_options(flags, message, tmp_path, run_cli):
    rc, _, err = run_cli("compile", os.path.join(ROOT, "examples", "vector_add.mlir"), "-o",
                         str(tmp_path / "o.ptx"), *flags)
    assert rc == 1 and message in err


@pytest.mark.skipif(PTXAS is None, reason="ptxas not on PATH")
def test_compile_emit_cubin(tmp_path, run_cli):
    out = tmp_path / "k.cubin"
    rc, _, err = run_cli("compile", os.path.join(ROOT, "examples", "vector_add.mlir"), "--emit=cubin", "-o", str(out))
    assert rc == 0, err
    assert out.read_bytes()[:4] == b"\x7fELF"


def test_compile_reads_bytecode(tmp_path, run_cli):
    bc = tmp_path / "k.tilebc"
    src = os.path.join(ROOT, "examples", "cutile", "vector_add_f32.mlir")
    assert run_cli("opt", src, "--emit-bytecode", "-o", str(bc))[0] == 0
    rc, _, err = run_cli("compile", str(bc), "-o", str(tmp_path / "k.ptx"))
    assert rc == 0, err
    assert ".visible .entry" in (tmp_path / "k.ptx").read_text()


# ---- goldens -----------------------------------------------------------------------------

GOLDEN = sorted(glob.glob(os.path.join(ROOT, "golden", "ptx", "*.check")))


@pytest.mark.parametrize("check", GOLDEN, ids=[_name(g) for g in GOLDEN])
def test_ptx_golden(check):
    pytest.importorskip("filecheck")
    with open(check) as fh:
        head = fh.readline()
    m = re.match(r"//\s*COMPILE:\s*(\S+)\s+--arch\s+(\S+)\s*(--wgmma|--no-wgmma)?\s*$", head)
    assert m, f"{check}: first line must be '// COMPILE: <example> --arch <arch> [--wgmma|--no-wgmma]'"
    wgmma = {"--wgmma": True, "--no-wgmma": False}.get(m.group(3))
    ptx = compiled(os.path.join(ROOT, m.group(1)), m.group(2), wgmma)
    fc = subprocess.run([sys.executable, "-m", "filecheck", check], input=ptx, capture_output=True, text=True,
                        timeout=120)
    assert fc.returncode == 0, fc.stderr + fc.stdout


def test_symbols_defined_by_two_modules_are_a_diagnostic():
    """Each cuda_tile.module is its own namespace, a PTX module has one: two
    modules defining one entry (or global) name cannot share a PTX file."""
    from tilec.compiler import CompileFailed, parse_and_compile
    one = """cuda_tile.module @MOD {
  global @g <f32: [1.0]> : tile<1xf32>
  entry @k() {
    return
  }
}
"""
    with pytest.raises(CompileFailed, match=r"input:8:3: error: 'cuda_tile.global' op defines '@g', which an earlier "
                                            r"cuda_tile.module of this input also defines"):
        parse_and_compile(one.replace("MOD", "a") + one.replace("MOD", "b"), "input")
    two = one.replace("  global @g <f32: [1.0]> : tile<1xf32>\n", "")
    with pytest.raises(CompileFailed, match=r"input:7:3: error: 'cuda_tile.entry' op defines '@k'"):
        parse_and_compile(two.replace("MOD", "a") + two.replace("MOD", "b"), "input")


# Ampere/Ada (sm_86, sm_89: sm_80's code, 99 KiB of shared memory) and plain sm_90
# (sm_90a's code without wgmma): a sample across the features, assembled for that arch
OTHER_ARCH_SAMPLE = ["matmul_f16_tiled", "flash_attention_f16", "matmul_gelu_f16", "matmul_fp8", "atomics_f32",
                     "layernorm_rows_f32", "cumsum_f32", "ticket_lock_i32"]


@pytest.mark.parametrize("arch", ["sm_86", "sm_89", "sm_90"])
@pytest.mark.parametrize("name", OTHER_ARCH_SAMPLE)
def test_other_ampere_and_hopper_targets(name, arch, tmp_path):
    from tilec.compiler import CompileFailed
    path = next(p for p in EXAMPLES if _name(p) == name)
    if name == "matmul_fp8" and arch == "sm_86":     # fp8 needs sm_89+
        with pytest.raises(CompileFailed, match="'cuda_tile.mmaf' op is not supported on sm_86"):
            compiled(path, arch)
        return
    ptx = compiled(path, arch)
    assert f".target {arch}\n" in ptx and "wgmma" not in ptx
    assert not any(spill_bytes(assemble(ptx, arch, tmp_path)))


def test_compile_prints_warnings_and_still_writes(tmp_path, run_cli):
    """A stage count cut to fit the target's shared memory is a warning on
    stderr; the PTX is written with the stages that fit."""
    path = next(p for p in EXAMPLES if _name(p) == "matmul_gelu_f16")
    out = tmp_path / "k.ptx"
    rc, _, err = run_cli("compile", path, "--arch", "sm_86", "--num-stages", "4", "-o", str(out))
    assert rc == 0
    assert re.search(r"matmul_gelu_f16\.mlir:\d+:\d+: warning: 4 pipeline stages need 131072 bytes of shared "
                     r"memory, over the 101376 bytes of sm_86; using 3", err), err
    assert "// tilec.dynamic_shared_bytes matmul_gelu_f16 98352" in out.read_text()
    rc, _, err = run_cli("compile", path, "--arch", "sm_80", "--num-stages", "4", "-o", str(out))
    assert rc == 0 and err == ""


def test_shared_memory_over_the_target_is_a_diagnostic(tmp_path, run_cli):
    """IR scheduled for sm_90a with six stages (196800 bytes of shared memory)
    compiled for sm_86 (101376 per block) is refused at the entry instead of
    failing at launch; sm_90a takes it."""
    src = next(p for p in EXAMPLES if _name(p) == "matmul_gelu_f16")
    sched = tmp_path / "s.mlir"
    rc, _, err = run_cli("opt", src, "--lower-to-tileas", "--schedule=num-stages=6", "-o", str(sched))
    assert rc == 0, err
    out = tmp_path / "k.ptx"
    rc, _, err = run_cli("compile", str(sched), "--arch", "sm_86", "-o", str(out))
    assert rc == 1 and not out.exists()
    assert re.search(r"s\.mlir:\d+:\d+: error: 'cuda_tile.entry' op needs 196800 bytes of shared memory, more "
                     r"than the 101376 bytes a block may use on sm_86", err), err
    rc, _, err = run_cli("compile", str(sched), "--arch", "sm_90a", "-o", str(out))
    assert rc == 0, err
    assert "// tilec.dynamic_shared_bytes matmul_gelu_f16 196800" in out.read_text()


def test_warp_specialized_cta_over_1024_threads_is_a_diagnostic(tmp_path, run_cli):
    """32 consumer warps plus the producer warpgroup would be 1152 threads: refused
    at the loop; a kernel without a pipelined loop keeps its 32 warps."""
    path = os.path.join(ROOT, "examples", "matmul_f16_tiled.mlir")
    out = tmp_path / "k.ptx"
    rc, _, err = run_cli("compile", path, "--arch", "sm_90a", "--num-warps", "32", "-o", str(out))
    assert rc == 1 and not out.exists()
    assert ("matmul_f16_tiled.mlir:18:5: error: num-warps=32 consumer warps and the producer warpgroup make 36 "
            "warps, more than the 32 (1024 threads) of a CTA on sm_90a; use at most 28") in err
    plain = next(p for p in EXAMPLES if _name(p) == "vector_add_f32")
    rc, _, err = run_cli("compile", plain, "--arch", "sm_90a", "--num-warps", "32", "-o", str(out))
    assert rc == 0 and ".reqntid 1024, 1, 1" in out.read_text()


def test_entry_arguments_must_be_rank_0_tiles(tmp_path, run_cli):
    """A token parameter verifies (the spec allows it) but has no place in the
    kernel ABI: a diagnostic at the entry, as tileiras refuses it too."""
    src = tmp_path / "k.mlir"
    src.write_text("cuda_tile.module @m {\n  entry @k(%t0: token, %a: tile<i32>) {\n    return\n  }\n}\n")
    out = tmp_path / "k.ptx"
    rc, _, err = run_cli("compile", str(src), "-o", str(out))
    assert rc == 1 and not out.exists()
    assert ("k.mlir:2:3: error: 'cuda_tile.entry' op entry argument #0 has type '!cuda_tile.token', but a kernel "
            "parameter must be a rank-0 tile") in err
