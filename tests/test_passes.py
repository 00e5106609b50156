"""Pass registry, textual pipelines, the pass manager and the `tilec opt` flags."""
from __future__ import annotations

import re

import pytest

from tilec.passes import registry
from tilec.passes.base import Pass, PassError
from tilec.passes.pipeline import Nest, parse_options, parse_pipeline

MODULE = """cuda_tile.module @m {
  testing$func @f() -> !cuda_tile.tile<f32> {
    %a = constant <f32: 2.0> : !cuda_tile.tile<f32>
    %b = constant <f32: 3.0> : !cuda_tile.tile<f32>
    %c = constant <f32: 4.0> : !cuda_tile.tile<f32>
    %m = mulf %a, %b : !cuda_tile.tile<f32>
    %r = addf %c, %m : !cuda_tile.tile<f32>
    return %r : !cuda_tile.tile<f32>
  }
}
"""


class BreakTypes(Pass):
    """Test pass: makes the function return a value of the wrong type."""
    name = "test-break-ir"

    def run(self, target):
        for op in target.walk():
            if op.name == "cuda_tile.return":
                from tilec.ir.types import IndexType
                from tilec.ir.core import Operation
                bad = Operation([], [IndexType()], name="test.bad")
                op.parent.insert_before(bad, op)
                op.set_operand(0, bad.result)
        return True


class Crash(Pass):
    name = "test-crash"

    def run(self, target):
        raise ValueError("boom")


class BadOptionAtRun(Pass):
    name = "test-bad-option-at-run"

    def run(self, target):
        raise PassError("needs 'x'")


registry.register_pass(BreakTypes)
registry.register_pass(Crash)
registry.register_pass(BadOptionAtRun)


def test_pipeline_nesting_as_mlir_opt_writes_it():
    root = parse_pipeline("builtin.module(cuda_tile.module(cuda_tile.testing$func(fuse-fma), canonicalize))")
    assert root.anchor == "builtin.module"
    (mod,) = root.items
    assert isinstance(mod, Nest) and mod.anchor == "cuda_tile.module"
    fn, canon = mod.items
    assert fn.anchor == "cuda_tile.testing$func" and fn.items[0].name == "fuse-fma"
    assert canon.name == "canonicalize"
    assert root.text() == "builtin.module(cuda_tile.module(cuda_tile.testing$func(fuse-fma),canonicalize))"


def test_pipeline_options_and_errors():
    root = parse_pipeline("builtin.module(canonicalize{max-iterations=3 test-convergence=true})")
    p = root.items[0]
    assert p.options["max-iterations"] == 3 and p.options["test-convergence"] is True
    assert parse_options('a=1 b="x y" c') == {"a": "1", "b": "x y", "c": None}
    for bad, msg in [("builtin.module(nope)", "does not refer to a registered pass"),
                     ("builtin.module(canonicalize{bogus=1})", "does not have an option named 'bogus'"),
                     ("builtin.module(canonicalize{max-iterations=x})", "invalid value"),
                     ("builtin.module(canonicalize", "expected ')'")]:
        with pytest.raises(PassError, match=re.escape(msg)):
            parse_pipeline(bad)



def test_flags_single_dash_and_pipeline_agree(run_cli, tmp_path):
    f = tmp_path / "k.mlir"
    f.write_text(MODULE)
    rc1, out1, err1 = run_cli("opt", str(f), "-fuse-fma")
    rc2, out2, err2 = run_cli("opt", str(f), "--pass-pipeline=builtin.module(cuda_tile.module("
                                             "cuda_tile.testing$func(fuse-fma)))")
    assert rc1 == rc2 == 0, err1 + err2
    assert out1 == out2 and "fma %" in out1 and "mulf" not in out1


def test_canonicalize_flag_spellings(run_cli, tmp_path):
    f = tmp_path / "k.mlir"
    f.write_text(MODULE)
    outs = set()
    for flag in ("--canonicalize", "-canonicalize", "--canonicalize=max-iterations=2"):
        rc, out, err = run_cli("opt", flag, str(f))
        assert rc == 0, err
        outs.add(out)
    assert len(outs) == 1
    assert "= addf %0, %cst_4_f32 : tile<f32>" in outs.pop()  # product moved to the left


def test_broken_pass_is_named(run_cli, tmp_path):
    f = tmp_path / "k.mlir"
    f.write_text(MODULE)
    rc, out, err = run_cli("opt", str(f), "--pass-pipeline=builtin.module(test-break-ir)")
    assert rc == 1 and out == ""
    assert "pass 'test-break-ir' produced IR that fails to verify" in err
    assert "Traceback" not in err


def test_crashing_pass_is_a_diagnostic(run_cli, tmp_path):
    f = tmp_path / "k.mlir"
    f.write_text(MODULE)
    rc, out, err = run_cli("opt", str(f), "--pass-pipeline=builtin.module(test-crash)")
    assert rc == 1
    assert "internal error in pass 'test-crash': ValueError: boom" in err
    assert "Traceback" not in err


def test_pass_error_while_running_is_not_an_internal_error(run_cli, tmp_path):
    f = tmp_path / "k.mlir"
    f.write_text(MODULE)
    rc, out, err = run_cli("opt", str(f), "--pass-pipeline=builtin.module(test-bad-option-at-run)")
    assert (rc, out) == (1, "")
    assert err.endswith(": error: pass 'test-bad-option-at-run': needs 'x'\n") and "internal error" not in err


def test_bad_pipeline_is_a_diagnostic(run_cli, tmp_path):
    f = tmp_path / "k.mlir"
    f.write_text(MODULE)
    rc, out, err = run_cli("opt", str(f), "--pass-pipeline=builtin.module(no-such-pass)")
    assert rc == 1 and "'no-such-pass' does not refer to a registered pass" in err


def test_print_ir_after_all_and_timing(run_cli, tmp_path):
    f = tmp_path / "k.mlir"
    f.write_text(MODULE)
    rc, out, err = run_cli("opt", str(f), "--canonicalize", "--cse", "--mlir-print-ir-after-all", "--mlir-timing")
    assert rc == 0, err
    assert "// -----// IR Dump After Canonicalizer (canonicalize) //----- //" in err
    assert "// -----// IR Dump After CSE (cse) //----- //" in err
    assert "Execution time report" in err and "Canonicalizer" in err and "Total" in err


def test_nested_anchor_only_runs_on_matching_ops(run_cli, tmp_path):
    f = tmp_path / "k.mlir"
    f.write_text(MODULE)
    rc, out, err = run_cli("opt", str(f), "--pass-pipeline=builtin.module(cuda_tile.module("
                                          "cuda_tile.entry(fuse-fma)))")
    assert rc == 0 and "mulf" in out and "fma %" not in out


def test_layout_pass_rejects_unknown_target(run_cli, tmp_path):
    f = tmp_path / "k.mlir"
    f.write_text(MODULE)
    rc, out, err = run_cli("opt", str(f), "--layout-conversion-removal=target=sm_70")
    assert rc == 1 and "unknown target 'sm_70'" in err


def test_cse(run_cli, tmp_path):
    f = tmp_path / "k.mlir"
    f.write_text("""
%x = "src"() : () -> index
%a = arith.addi %x, %x : index
%b = arith.addi %x, %x : index
"use"(%a, %b) : (index, index) -> ()
""")
    rc, out, err = run_cli("opt", "--allow-unregistered-dialect", "--cse", str(f))
    assert rc == 0, err
    assert out.count("arith.addi") == 1 and '"use"(%1, %1)' in out


def test_help_lists_passes(run_cli):
    import subprocess
    import sys
    p = subprocess.run([sys.executable, "-c", "import sys; from tilec.cli import main; sys.exit(main(['opt', '--help']))"],
                       capture_output=True, text=True)
    assert "--canonicalize" in p.stdout and "--pass-pipeline" in p.stdout and "--mlir-timing" in p.stdout
