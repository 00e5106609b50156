"""NVIDIA's bytecode tests (../shared/conformance/cuda-tile), run as lit runs
them: every RUN line that names `cuda-tile-translate` runs unchanged with
`tilec translate` in its place (`cuda-tile-opt` -> `tilec opt`), `%t` is one
path for all RUN lines of a file, and the output goes through FileCheck (LLVM's
where one is installed, else the `filecheck` package). The shared runner
(../shared/tools/conformance.py) makes a fresh directory per RUN line, so files
that write `%t.bc` on one line and read it on the next fail there; here they run.

`%round_trip_test FILE T FLAGS` (NVIDIA's lit substitution): write FILE as
bytecode, read it back and print it with FLAGS; print FILE with FLAGS; the two
must be identical up to blank lines.

Files that cannot pass are listed in DIFFERS with the reason. Skips when the
suite is absent."""
from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SUITE = Path(__file__).resolve().parents[2] / "shared" / "conformance" / "cuda-tile"
RUN = re.compile(r"^\s*//\s*RUN:\s*(.*)$", re.M)
_LLVM = sorted(glob.glob("/usr/lib/llvm-*/bin/FileCheck"))
FILECHECK = shutil.which("FileCheck") or (_LLVM[-1] if _LLVM else shutil.which("filecheck"))
TILEC = f"'{sys.executable}' -m tilec.cli"


def _files(pattern):
    if not SUITE.is_dir():
        return []
    return [p for p in sorted(SUITE.glob("*/*.mlir")) if any(re.search(pattern, r) for r in RUN.findall(p.read_text()))]


ROUND_TRIP = _files(r"^%round_trip_test %s %t")
TRANSLATE = _files(r"cuda-tile-translate")

# files whose cuda-tile-translate RUN lines cannot pass, and why
DIFFERS = {
    "list_versions.mlir": "expects NVIDIA's supported range then (13.1-13.3) followed by its test-only "
                          "versions 250.0/250.1; tilec writes 13.1-13.5 and has no test-only versions",
    "unsupportedVersionTest.mlir": "the expected message names NVIDIA's supported range then ([13.1 - 13.3]); "
                                   "tilec's is [13.1 - 13.5]",
    "test_forward_compatibility.mlir": "needs NVIDIA's test-only dialect (testing$ ops) and bytecode version 250.x",
    "test_version_250_1.mlir": "needs NVIDIA's test-only dialect (testing$ ops) and bytecode version 250.x",
    "test_version_errors.mlir": "needs NVIDIA's test-only dialect (testing$ ops) and bytecode version 250.x",
    "new_types_reader_error.mlir": "reads Bytecode/Inputs/13.1/*.tileirbc, which the shared copy of the suite lacks",
    "print_tko_backward_compat.mlir": "reads Bytecode/Inputs/13.1/*.tileirbc, which the shared copy of the suite "
                                      "lacks",
    "versioned_op.mlir": "reads Bytecode/Inputs/13.1/*.tileirbc, which the shared copy of the suite lacks",
}


def _blank_free(text):
    return "\n".join(line for line in text.splitlines() if line.strip())


def test_the_suite_has_bytecode_files():
    if not SUITE.is_dir():
        pytest.skip("../shared/conformance is absent")
    assert len(ROUND_TRIP) >= 14 and len(TRANSLATE) >= 20
    assert set(DIFFERS) <= {p.name for p in TRANSLATE}


@pytest.mark.parametrize("path", ROUND_TRIP, ids=[f"{p.parent.name}/{p.name}" for p in ROUND_TRIP])
def test_round_trip_test(path, tmp_path, run_cli):
    run = next(r for r in RUN.findall(path.read_text()) if r.startswith("%round_trip_test"))
    flags = run.split("%t", 1)[1].split()
    bc = tmp_path / "out.tilebc"
    rc, _, err = run_cli("opt", str(path), "--emit-bytecode", "-o", str(bc))
    assert rc == 0, err
    rc, round_tripped, err = run_cli("opt", str(bc), *flags)
    assert rc == 0, err
    rc, reference, err = run_cli("opt", str(path), *flags)
    assert rc == 0, err
    assert _blank_free(round_tripped) == _blank_free(reference)


def _shell(run, path, tmp):
    """A RUN line as lit runs it, with tilec's commands."""
    cmd = run.replace("%s", f"'{path}'").replace("%t", f"'{tmp}/t'").replace("%S", f"'{path.parent}'")
    cmd = re.sub(r"\bcuda-tile-translate\b", f"{TILEC} translate", cmd)
    cmd = re.sub(r"\bcuda-tile-opt\b", f"{TILEC} opt", cmd)
    cmd = re.sub(r"\bFileCheck\b", f"'{FILECHECK}'", cmd)
    return "set -o pipefail\nnot() { ! \"$@\"; }\n" + cmd


@pytest.mark.skipif(FILECHECK is None, reason="no FileCheck (LLVM's or the filecheck package)")
@pytest.mark.parametrize("path", TRANSLATE, ids=[f"{p.parent.name}/{p.name}" for p in TRANSLATE])
def test_translate_run_lines(path, tmp_path):
    if path.name in DIFFERS:
        pytest.skip(DIFFERS[path.name])
    for run in RUN.findall(path.read_text()):
        if run.startswith("%round_trip_test"):
            continue     # test_round_trip_test
        script = _shell(run, path, tmp_path)
        r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, FILECHECK_OPTS=""))
        assert r.returncode == 0, f"{run}\n{r.stdout[-2000:]}{r.stderr[-2000:]}"


def test_differs_are_still_different(tmp_path):
    """Each listed file fails for the reason given, not for another: the
    versions tilec writes, and the fixtures the suite lacks."""
    if not SUITE.is_dir():
        pytest.skip("../shared/conformance is absent")
    out = subprocess.run([sys.executable, "-m", "tilec.cli", "translate", "--list-versions"],
                         capture_output=True, text=True).stdout.split()
    assert out == ["13.1", "13.2", "13.3", "13.4", "13.5"]
    assert not (SUITE / "Bytecode" / "Inputs").exists()
