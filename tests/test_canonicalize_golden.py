"""Golden canonicalization tests: every golden/canonicalize/*.mlir starts with
`// RUN: tilec opt %s <flags> | filecheck %s`; the test runs tilec with those
flags and checks its output with the `filecheck` package."""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "canonicalize"
FILES = sorted(GOLDEN.glob("*.mlir"))
TILEC = [sys.executable, "-c", "import sys; from tilec.cli import main; sys.exit(main())"]


def run_line(path: Path):
    for line in path.read_text().splitlines():
        m = re.match(r"//\s*RUN:\s*tilec opt (.*)\|\s*filecheck %s\s*$", line)
        if m:
            return shlex.split(m.group(1).replace("%s", str(path)))
    raise AssertionError(f"{path.name}: no '// RUN: tilec opt ... | filecheck %s' line")


def test_golden_files_exist():
    assert len(FILES) >= 8


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_golden(path):
    pytest.importorskip("filecheck")
    args = run_line(path)
    opt = subprocess.run(TILEC + ["opt"] + args, capture_output=True, text=True, timeout=120)
    assert opt.returncode == 0, opt.stderr
    assert "Traceback" not in opt.stderr
    fc = subprocess.run([sys.executable, "-m", "filecheck", str(path)], input=opt.stdout,
                        capture_output=True, text=True, timeout=120)
    assert fc.returncode == 0, f"{fc.stdout}\n{fc.stderr}\n--- tilec output ---\n{opt.stdout}"
