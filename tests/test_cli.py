"""The tilec command: options, diagnostics, exit codes, verify-diagnostics."""
import os
import subprocess
import sys
import time

from conftest import ROOT

GOOD = """cuda_tile.module @m {
  testing$func @e(%a: tile<4xf32>) {
    %b = addf %a, %a : tile<4xf32>
  }
}
"""


def test_opt_prints_canonical_form(run_cli, tmp_path):
    f = tmp_path / "k.mlir"
    f.write_text(GOOD.replace("tile<4xf32>)", "!cuda_tile.tile<4xf32>)"))
    rc, out, err = run_cli("opt", str(f))
    assert rc == 0, err
    assert "testing$func @e(%arg0: tile<4xf32>) {" in out
    assert "%0 = addf %arg0, %arg0 : tile<4xf32>" in out


def test_stdin_and_output_file(run_cli, tmp_path):
    out_path = tmp_path / "o.mlir"
    rc, out, err = run_cli("opt", "-", "-o", str(out_path), stdin=GOOD)
    assert rc == 0 and out == ""
    assert "addf %arg0, %arg0" in out_path.read_text()


def test_syntax_error_is_a_located_diagnostic(run_cli, tmp_path):
    f = tmp_path / "bad.mlir"
    f.write_text(GOOD.replace("addf %a, %a", "addf %a %a"))
    rc, out, err = run_cli("verify", str(f))
    assert rc == 1
    assert err.startswith(f"{f}:3:")
    assert ": error: " in err and "Traceback" not in err


def test_undefined_value(run_cli, tmp_path):
    f = tmp_path / "bad.mlir"
    f.write_text(GOOD.replace("addf %a, %a", "addf %a, %zz"))
    rc, _, err = run_cli("verify", str(f))
    assert rc == 1 and f"{f}:3:19: error: use of undeclared SSA value name" in err


def test_failed_output_is_not_written(run_cli, tmp_path):
    f = tmp_path / "bad.mlir"
    f.write_text(GOOD.replace("addf %a, %a", "addf %a, %zz"))
    out_path = tmp_path / "o.mlir"
    rc, _, _ = run_cli("opt", str(f), "-o", str(out_path))
    assert rc == 1 and not out_path.exists()


def test_single_dash_flags_like_mlir_opt(run_cli, tmp_path):
    f = tmp_path / "k.mlir"
    f.write_text(GOOD + "// -----\n" + GOOD)
    rc, out, err = run_cli("opt", "-split-input-file", "-mlir-print-op-generic", str(f))
    assert rc == 0, err
    assert out.count('"cuda_tile.addf"') == 2 and "// -----" in out


def test_verify_diagnostics_matches_and_rejects(run_cli, tmp_path):
    ok = tmp_path / "ok.mlir"
    ok.write_text("// expected-error @below {{use of undeclared SSA value name}}\n"
                  "%0 = \"cuda_tile.addf\"(%x, %x) : (tile<f32>, tile<f32>) -> tile<f32>\n")
    assert run_cli("opt", "--verify-diagnostics", str(ok))[0] == 0
    missing = tmp_path / "missing.mlir"
    missing.write_text("// expected-error @below {{never emitted}}\n" + GOOD)
    rc, _, err = run_cli("opt", "--verify-diagnostics", str(missing))
    assert rc == 1 and 'expected error "never emitted" was not produced' in err
    unexpected = tmp_path / "unexpected.mlir"
    unexpected.write_text("%0 = \"cuda_tile.addf\"(%x, %x) : (tile<f32>, tile<f32>) -> tile<f32>\n")
    rc, _, err = run_cli("opt", "--verify-diagnostics", str(unexpected))
    assert rc == 1 and "unexpected error: use of undeclared SSA value name" in err


def test_split_keeps_original_line_numbers(run_cli, tmp_path):
    f = tmp_path / "k.mlir"
    f.write_text(GOOD + "// -----\n" + GOOD.replace("addf %a, %a", "addf %a, %q"))
    rc, _, err = run_cli("verify", "--split-input-file", str(f))
    assert rc == 1 and f"{f}:9:" in err


def test_help_starts_fast():
    start = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "tilec.cli", "--help"], capture_output=True, text=True, cwd=ROOT)
    elapsed = time.perf_counter() - start
    assert p.returncode == 0 and "opt" in p.stdout
    assert elapsed < 1.0  # generous for CI noise; typically ~0.1 s


def test_version(run_cli):
    import pytest
    with pytest.raises(SystemExit) as e:
        run_cli("--version")
    assert e.value.code == 0
