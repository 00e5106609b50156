"""cuda_tile -> nv_tileas lowering and scheduling over every example kernel,
on both targets: the output verifies (the pass manager verifies after each
pass) and prints text that parses back; goldens check the schedule's shape;
unsupported ops fail with a diagnostic naming the op and the target."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT
from test_lowering_util import EXAMPLES, FLASH, errors, lower, read, text_of
from tilec.ir.diagnostics import DiagnosticEngine
from tilec.ir.verifier import verify
from tilec.syntax.parser import parse_text

ARCHES = ("sm_80", "sm_90a")
# Kernels a target genuinely cannot run: Ampere tensor cores have no fp8 MMA.
UNSUPPORTED = {("matmul_fp8.mlir", "sm_80"): "'cuda_tile.mmaf' op is not supported on sm_80",
               ("matmul_fp8_bt_aligned.mlir", "sm_80"): "'cuda_tile.mmaf' op is not supported on sm_80"}


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("path", EXAMPLES + [FLASH])
def test_every_example_lowers_schedules_and_verifies(path, arch):
    ok, ops, engine = lower(read(path), arch, filename=path)
    expected_failure = UNSUPPORTED.get((os.path.basename(path), arch))
    if expected_failure:
        assert not ok and any(expected_failure in m for m in errors(engine)), errors(engine)
        return
    assert ok, errors(engine)
    text = text_of(ops)
    assert "cuda_tile.load_view_tko" not in text and "load_view_tko" not in text
    assert "mmaf " not in text and "mmai " not in text
    # the printed IR reads back and verifies
    e2 = DiagnosticEngine()
    again = parse_text(text, e2, "<printed>")
    assert again is not None and all(verify(op, e2) for op in again), [d.message for d in e2.diagnostics]


def _pipelines(text):
    return text.count("async.pipeline.create_pipeline")


def _mma_in_loop(src):
    """Does an mmaf/mmai sit inside a `for` (the loops the scheduler pipelines)?"""
    ops = parse_text(src, DiagnosticEngine(), "<example>")
    return any(op.name == "cuda_tile.for" and any(inner.name in ("cuda_tile.mmaf", "cuda_tile.mmai")
                                                  for inner in op.walk())
               for top in ops for op in top.walk())


@pytest.mark.parametrize("arch", ARCHES)
def test_only_mma_loops_get_pipelines(arch):
    for path in EXAMPLES:
        if (os.path.basename(path), arch) in UNSUPPORTED:
            continue
        ok, ops, _ = lower(read(path), arch)
        text = text_of(ops)
        has_mma = _mma_in_loop(read(path))
        assert (_pipelines(text) > 0) == has_mma, path
        assert ("agent_switch" in text) == (has_mma and arch == "sm_90a"), path


def test_default_stages_per_target():
    src = read("examples/cutile/matmul_f16.mlir")
    for arch, n in (("sm_80", 2), ("sm_90a", 3)):
        text = text_of(lower(src, arch)[1])
        assert f"numStages = {n} : i32" in text
    text = text_of(lower(src, "sm_80", num_stages=4)[1])
    assert "numStages = 4 : i32" in text and "tensor<4x64x32xf16>" in text


def test_atoms_follow_target_and_types():
    f16 = read("examples/cutile/matmul_f16.mlir")
    assert "atom mma_f16_f16_f32>" in text_of(lower(f16, "sm_80")[1])
    assert "atom mma_wgmma_f16_f16_f32>" in text_of(lower(f16, "sm_90a")[1])
    bf16 = text_of(lower(read("examples/cutile/matmul_bf16_relu.mlir"), "sm_80")[1])
    assert "mma_bf16_bf16_f32" in bf16
    i8 = text_of(lower(read("examples/cutile/matmul_i8_masked.mlir"), "sm_80")[1])
    assert "mma_s8_s8_s32" in i8 and "signedness_a = #nv_tileas.signedness<signed>" in i8


FP8 = """cuda_tile.module @m {
  entry @k(%a: tile<ptr<f32>>, %n: tile<i32>) {
    %x = constant dense<0.0> : tile<16x32xf8E4M3FN>
    %y = constant dense<0.0> : tile<32x16xf8E4M3FN>
    %z = constant dense<0.0> : tile<16x16xf32>
    %r = mmaf %x, %y, %z : tile<16x32xf8E4M3FN>, tile<32x16xf8E4M3FN>, tile<16x16xf32>
    %c0 = constant dense<0> : tile<i32>
    %tv = make_tensor_view %a, shape = [%n, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pv = make_partition_view %tv : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>
    %t = store_view_tko weak %r, %pv[%c0, %c0] : tile<16x16xf32>, partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
"""


def test_fp8_mma_is_not_supported_on_sm_80():
    ok, _, engine = lower(FP8, "sm_80", schedule=False)
    assert not ok
    msgs = errors(engine)
    assert any(m.startswith("'cuda_tile.mmaf' op is not supported on sm_80") for m in msgs), msgs
    d = next(d for d in engine.diagnostics if "not supported" in d.message)
    assert d.location is not None and d.location.line == 6
    ok, ops, engine = lower(FP8, "sm_90a", schedule=False)
    assert ok, errors(engine)
    assert "mma_wgmma_f8_f8_f32" in text_of(ops)


STRIDED = """cuda_tile.module @m {
  entry @k(%a: tile<ptr<f32>>, %n: tile<i32>) {
    %c0 = constant dense<0> : tile<i32>
    %tv = make_tensor_view %a, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %sv = make_strided_view %tv : strided_view<tile=(16), traversal_strides=[32], tensor_view<?xf32, strides=[1]>>
    %t, %tok = load_view_tko weak %sv[%c0] : strided_view<tile=(16), traversal_strides=[32], tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<16xf32>, token
    return
  }
}
"""


def test_unsupported_view_kind_is_a_diagnostic_not_a_crash():
    engine = DiagnosticEngine()
    if parse_text(STRIDED, engine, "<s>") is None:
        pytest.skip("strided view syntax differs: " + "; ".join(d.message for d in engine.diagnostics))
    ok, _, engine = lower(STRIDED, "sm_80", schedule=False)
    assert not ok
    assert any("'cuda_tile.load_view_tko' op is not supported on sm_80" in m for m in errors(engine))


def test_unknown_arch_is_a_diagnostic():
    ok, _, engine = lower(read("examples/vector_add.mlir"), "sm_70", schedule=False)
    assert not ok and any("unknown target 'sm_70'" in m for m in errors(engine))


def test_shared_memory_budget_reduces_stages_then_reports():
    # 256x128 f16 A and 128x256 B tiles: 128 KiB per stage
    src = read("examples/matmul_f16_tiled.mlir").replace("128x64", "256x128").replace("64x128", "128x256") \
        .replace("128x128", "256x256")
    ok, ops, engine = lower(src, "sm_90a")
    assert ok, errors(engine)
    assert "numStages = 1 : i32" in text_of(ops)
    assert any(d.severity == "warning" and "using 1" in d.message for d in engine.diagnostics)
    huge = src.replace("256x128", "512x256").replace("128x256", "256x512").replace("256x256", "512x512")
    ok, ops, engine = lower(huge, "sm_80")
    # 512x256 tiles: not even one stage fits, so the loop keeps its synchronous loads, with a warning
    assert ok, errors(engine)
    assert any(d.severity == "warning" and "the loop is not pipelined" in d.message for d in engine.diagnostics)
    assert "create_pipeline" not in text_of(ops)


def test_bad_schedule_options_are_diagnostics():
    ok, _, engine = lower(read("examples/cutile/matmul_f16.mlir"), "sm_90a", num_warps=6)
    assert not ok and any("multiple of 4" in m for m in errors(engine))


def test_elementwise_kernel_keeps_its_shape():
    ok, ops, _ = lower(read("examples/cutile/vector_add_f32.mlir"), "sm_90a")
    text = text_of(ops)
    assert "nv_tileas.tiled_load" in text and "nv_tileas.tiled_store" in text and "addf" in text
    assert "pipeline" not in text


# ---- goldens through the real command line ------------------------------------------

GOLDENS = [
    ("matmul_sm90a.mlir", "examples/cutile/matmul_f16_aligned.mlir", ["--lower-to-tileas", "--schedule"]),
    ("matmul_sm90a_no_tma.mlir", "examples/cutile/matmul_f16.mlir", ["--lower-to-tileas", "--schedule=tma=false"]),
    ("matmul_sm80.mlir", "examples/cutile/matmul_f16.mlir", ["--lower-to-tileas=arch=sm_80", "--schedule"]),
    ("flash_attention_sm90a.mlir", FLASH, ["--lower-to-tileas=arch=sm_90a", "--schedule"]),
    ("flash_attention_sm80.mlir", FLASH, ["--lower-to-tileas=arch=sm_80", "--schedule=num-stages=3"]),
    ("elementwise_no_pipeline.mlir", "examples/cutile/saxpy_bf16.mlir", ["--lower-to-tileas", "--schedule"]),
    ("softmax_sm80.mlir", "examples/cutile/row_softmax_f32.mlir", ["--lower-to-tileas=arch=sm_80", "--schedule"]),
    ("layernorm_sm80.mlir", "examples/cutile/layernorm_rows_f32.mlir", ["--lower-to-tileas=arch=sm_80", "--schedule"]),
    ("bmm_sm90a.mlir", "examples/cutile/bmm_tt_f16_aligned.mlir", ["--lower-to-tileas", "--schedule"]),
    ("scan_reverse.mlir", "examples/cutile/cumsum_f32.mlir", ["--lower-to-tileas", "--schedule"]),
    ("while_loop_sm80.mlir", "examples/gcd_loop_i32.mlir", ["--lower-to-tileas=arch=sm_80", "--schedule"]),
    ("if_to_scf.mlir", "examples/cutile/branchy_scale.mlir", ["--lower-to-tileas", "--schedule"]),
]


@pytest.mark.skipif(shutil.which("filecheck") is None, reason="filecheck not installed")
@pytest.mark.parametrize("golden,src,flags", GOLDENS)
def test_golden(golden, src, flags):
    cmd = [sys.executable, "-m", "tilec.cli", "opt", os.path.join(ROOT, src)] + flags
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    fc = subprocess.run(["filecheck", os.path.join(ROOT, "golden", "lowering", golden)], input=out.stdout,
                        capture_output=True, text=True)
    assert fc.returncode == 0, fc.stderr + fc.stdout


def test_cli_reports_unsupported_op_with_location():
    path = os.path.join(ROOT, "golden", "lowering", "unsupported_sm80.mlir")
    want = next(l for l in read("golden/lowering/unsupported_sm80.mlir").splitlines()
                if l.startswith("// DIAG: "))[len("// DIAG: "):]
    out = subprocess.run([sys.executable, "-m", "tilec.cli", "opt", path, "--lower-to-tileas=arch=sm_80"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert want in out.stderr, out.stderr
    ok = subprocess.run([sys.executable, "-m", "tilec.cli", "opt", path, "--lower-to-tileas=arch=sm_90a",
                         "--schedule"], capture_output=True, text=True, cwd=ROOT)
    assert ok.returncode == 0 and "mma_wgmma_f8_f8_f32" in ok.stdout, ok.stderr
