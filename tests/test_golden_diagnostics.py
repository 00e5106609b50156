"""tilec's own golden diagnostic tests for the cuda_tile dialect.

Every `golden/cuda_tile/**/*.mlir` file whose first line is a
`// RUN: tilec opt %s ... --verify-diagnostics [flags]` header is run through
`tilec opt <file> --split-input-file --verify-diagnostics <flags>` and must
exit 0: each `// -----` case produces exactly the `expected-*` diagnostics it
declares. (golden/nv_tileas/ is run by tests/test_nv_tileas.py.)
"""
import glob
import os
import shlex

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(ROOT, "golden", "cuda_tile")

# Files of cases where tilec is known to differ from MLIR's parser; strict, so
# that a fix turns them into failures (then move the cases into syntax.mlir).
XFAIL: dict = {}


def run_header(path):
    """The flags of the file's `// RUN:` line after `%s`, or None without one."""
    with open(path, encoding="utf-8") as f:
        first = f.readline()
    if not first.startswith("// RUN:") or "--verify-diagnostics" not in first:
        return None
    words = shlex.split(first[len("// RUN:"):])
    assert words[:3] == ["tilec", "opt", "%s"], f"{path}: unexpected RUN line {first!r}"
    return words[3:]


def _golden_files():
    paths = sorted(glob.glob(os.path.join(GOLDEN, "**", "*.mlir"), recursive=True))
    params = []
    for p in paths:
        if run_header(p) is None:
            continue
        name = os.path.relpath(p, GOLDEN)
        marks = [pytest.mark.xfail(reason=XFAIL[name], strict=True)] if name in XFAIL else []
        params.append(pytest.param(p, id=name, marks=marks))
    return params


GOLDEN_FILES = _golden_files()


def _run(run_cli, path):
    flags = run_header(path)
    if "--split-input-file" not in flags:
        flags = ["--split-input-file"] + flags
    return run_cli("opt", path, *flags)


@pytest.mark.parametrize("path", GOLDEN_FILES)
def test_golden_file(run_cli, path):
    rc, out, err = _run(run_cli, path)
    assert rc == 0, err


def test_golden_files_found():
    assert len(GOLDEN_FILES) >= 10
    cases = 0
    for param in GOLDEN_FILES:
        with open(param.values[0], encoding="utf-8") as f:
            cases += f.read().count("\n// -----\n") + 1
    assert cases >= 150


def test_every_case_expects_a_diagnostic():
    """Golden files hold invalid programs: each case declares what it expects
    (a case without expectations would pass silently when it means nothing)."""
    from tilec.driver import split_chunks
    allowed_silent = {("hints.mlir", "@hint_silent_by_default")}
    for param in GOLDEN_FILES:
        path = param.values[0]
        name = os.path.relpath(path, GOLDEN)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for chunk, _ in split_chunks(text):
            if "expected-" in chunk or not chunk.strip():
                continue
            assert any(n == name and tag in chunk for n, tag in allowed_silent), \
                f"{name}: a case declares no expected diagnostic:\n{chunk[:300]}"


# ---- the harness can fail ----------------------------------------------------------

_WRONG = """// RUN: tilec opt %s --split-input-file --verify-diagnostics
cuda_tile.module @m {
  testing$func @f() {
    // expected-error @below {{expects result type to be 2-d tile}}
    %r = iota : tile<4x4xi32>
    return
  }
}
"""

_MISSING = """cuda_tile.module @m {
  testing$func @f(%a: tile<4xi32>) {
    // expected-error @below {{this diagnostic is never emitted}}
    %r = addi %a, %a : tile<4xi32>
    return
  }
}

// -----

cuda_tile.module @m {
  testing$func @f() {
    %r = iota : tile<4x4xi32>
    return
  }
}
"""


def test_harness_rejects_wrong_message(run_cli, tmp_path):
    path = tmp_path / "wrong.mlir"
    path.write_text(_WRONG)
    rc, out, err = _run(run_cli, str(path))
    assert rc == 1
    assert "expects result type to be 1-d tile" in err          # the unexpected one
    assert "expects result type to be 2-d tile" in err          # the missing one


def test_harness_rejects_missing_and_unexpected(run_cli, tmp_path):
    path = tmp_path / "missing.mlir"
    path.write_text(_MISSING)
    rc, out, err = run_cli("opt", str(path), "--split-input-file", "--verify-diagnostics")
    assert rc == 1
    assert "this diagnostic is never emitted" in err
    assert "expects result type to be 1-d tile" in err
