"""loop-split: where it splits (CHECK-style assertions on the printed IR),
where it must not, and that a split loop computes what the original did
(both run on the reference interpreter over bounds that straddle, precede
and follow the split point, with unit and non-unit steps)."""
from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

from tilec.interp import launch, parse_module

TILEC = [sys.executable, "-c", "import sys; from tilec.cli import main; sys.exit(main())"]
PIPE = "--pass-pipeline=builtin.module(cuda_tile.module(cuda_tile.entry(loop-split)))"

KERNEL = """cuda_tile.module @m {
  entry @k(%po: tile<ptr<i64>>, %x: tile<i64>, %lb: tile<i64>, %ub: tile<i64>) {
    %c0 = constant <i64: 0> : tile<i64>
    %step = constant <i64: STEP> : tile<i64>
    %s = for %iv in (%lb to %ub, step %step) : tile<i64> iter_values(%acc = %c0) -> (tile<i64>) {
      %c = cmpi PRED LHS, RHS, signed : tile<i64> -> tile<i1>
      %v = if %c -> (tile<i64>) {
        %m = muli %iv, %iv : tile<i64>
        yield %m : tile<i64>
      } else {
        yield %iv : tile<i64>
      }
      %n = addi %acc, %v : tile<i64>
      continue %n : tile<i64>
    }
    %t = store_ptr_tko weak %po, %s : tile<ptr<i64>>, tile<i64> -> token
    return
  }
}
"""


def kernel(pred="greater_than", step=1, swapped=False):
    lhs, rhs = ("%x", "%iv") if swapped else ("%iv", "%x")
    return (KERNEL.replace("STEP", str(step)).replace("PRED", pred)
            .replace("LHS", lhs).replace("RHS", rhs))


def opt(text, *flags):
    r = subprocess.run(TILEC + ["opt", "-", *flags], input=text, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    return r.stdout


def run(text, x, lb, ub):
    res = np.zeros(1, np.int64)
    launch(parse_module(text, "k.mlir"), "k", (1,), [res, x, lb, ub])
    return int(res[0])


def count(pattern, text):
    return len(re.findall(pattern, text, re.M))


@pytest.mark.parametrize("pred", ["greater_than", "greater_than_or_equal", "less_than", "less_than_or_equal"])
@pytest.mark.parametrize("step", [1, 3])
def test_split_preserves_results(pred, step):
    swapped = pred.endswith("equal")   # the iv on the right of the cmpi for two of them
    src = kernel(pred, step, swapped)
    out = opt(src, PIPE)
    assert count(r"= for ", out) == 2 and count(r"\bif\b", out) == 0 and "cmpi" not in out
    assert count(r"= mini ", out) == 1 and count(r"= maxi ", out) == 1
    assert ("divi" in out) == (step != 1)
    for x, lb, ub in [(5, 0, 20), (-7, 0, 20), (40, 0, 20), (0, 0, 20), (20, 0, 20), (7, 2, 17), (3, 5, 5),
                      (-3, -10, 4)]:
        assert run(out, x, lb, ub) == run(src, x, lb, ub), (x, lb, ub)


def test_first_loop_takes_else_for_greater_than():
    out = opt(kernel("greater_than"), PIPE)
    first, second = out.split("= for ")[1:3]
    # CHECK: the split point is x + 1; CHECK: first loop yields %iv, second squares
    assert re.search(r"%(\w+) = addi %arg1, %\w+ : tile<i64>\n\s*%\w+ = mini %\1, %arg3 signed", out)
    assert "muli" not in first and "muli" in second


def test_non_invariant_bound_is_not_split():
    src = kernel().replace("%c = cmpi greater_than %iv, %x", "%y = addi %iv, %x : tile<i64>\n"
                           "      %c = cmpi greater_than %iv, %y")
    out = opt(src, PIPE)
    assert count(r"= for ", out) == 1 and count(r"= if ", out) == 1


def test_equality_and_signedness_mismatch_are_not_split():
    for src in (kernel("equal"), kernel().replace("%x, signed", "%x, unsigned")):
        out = opt(src, PIPE)
        assert count(r"= for ", out) == 1 and count(r"= if ", out) == 1


def test_hints_and_threshold():
    hinted = kernel().replace("continue %n : tile<i64>\n    }", "continue %n : tile<i64>\n    } "
                              "{cuda_tile.loop_split = 0}")
    assert count(r"= for ", opt(hinted, PIPE)) == 1
    # the if holds one op besides its terminator and nothing expensive
    high = PIPE.replace("loop-split", "loop-split{split-threshold=3}")
    assert count(r"= for ", opt(kernel(), high)) == 1
    assert count(r"= for ", opt(kernel(), PIPE.replace("loop-split", "loop-split{split-threshold=1}"))) == 2


def test_bound_at_type_max_is_not_split():
    src = kernel().replace("%c = cmpi greater_than %iv, %x",
                           "%big = constant <i64: 9223372036854775807> : tile<i64>\n"
                           "      %c = cmpi greater_than %iv, %big")
    assert count(r"= for ", opt(src, PIPE)) == 1


def test_bad_option_is_a_diagnostic():
    r = subprocess.run(TILEC + ["opt", "-", PIPE.replace("loop-split", "loop-split{split-threshold=x}")],
                       input=kernel(), capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "Traceback" not in r.stderr and "split-threshold" in r.stderr


# --- the cuda-tile conformance file Transforms/loop_split.mlir -------------
# Its trailing `CHECK-NOT: if` in the split_cmp_uses case is followed by
# `CHECK: cuda_tile.module @supported_split_inner_if` in the next case. LLVM
# FileCheck searches a CHECK-NOT from the end of the previous match to the
# START of the next one; the Python `filecheck` package (every release through
# 1.0.6) searches to the END of it and so finds the "if" of "inner_if". We
# therefore check each `// -----` case on its own with the Python package: a
# case's trailing CHECK-NOTs then run to the end of that case's output, which
# covers LLVM's range except the next case's `// -----` and `module attributes
# {...} {` lines before its first match (asserted separately below). Where an
# LLVM FileCheck binary is installed the whole file is also run through it.

import glob
import os
import shutil

SHARED = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "shared")
CONFORMANCE_LOOP_SPLIT = os.path.join(SHARED, "conformance", "cuda-tile", "Transforms", "loop_split.mlir")
SEP = re.compile(r"^// -----\s*$", re.M)


def _llvm_filecheck():
    found = shutil.which("FileCheck")
    if found:
        return found
    cands = sorted(glob.glob("/usr/lib/llvm-*/bin/FileCheck"))
    return cands[-1] if cands else None


@pytest.fixture(scope="module")
def conformance_cases():
    if not os.path.exists(CONFORMANCE_LOOP_SPLIT):
        pytest.skip("shared conformance suite not present")
    src = open(CONFORMANCE_LOOP_SPLIT).read()
    out = opt(src, PIPE, "--split-input-file")
    checks, outs = SEP.split(src), SEP.split(out)
    assert len(checks) == len(outs)
    return src, out, checks, outs


def test_conformance_cases_with_python_filecheck(conformance_cases, tmp_path):
    if shutil.which("filecheck") is None:
        pytest.skip("filecheck not installed")
    _, _, checks, outs = conformance_cases
    failed = []
    for i, (check, got) in enumerate(zip(checks, outs)):
        f = tmp_path / f"case{i}.mlir"
        f.write_text(check)
        r = subprocess.run(["filecheck", str(f)], input=got, capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            failed.append((i, r.stdout + r.stderr))
    assert not failed, failed


def test_conformance_trailing_check_nots_hold_across_case_boundary(conformance_cases):
    """The part of LLVM's CHECK-NOT range that the per-case run does not see:
    from each case's start up to its first CHECK match."""
    _, _, checks, outs = conformance_cases
    for i in range(1, len(checks)):
        prev = [l for l in checks[i - 1].splitlines() if re.search(r"//\s*CHECK", l)]
        trailing = []
        while prev and "CHECK-NOT:" in prev[-1]:
            trailing.append(prev.pop().split("CHECK-NOT:", 1)[1].strip())
        if not trailing:
            continue
        first = next(l for l in checks[i].splitlines() if re.search(r"//\s*CHECK:", l))
        head = first.split("CHECK:", 1)[1].strip()
        assert "{{" not in head and "[[" not in head, head
        gap = outs[i][:outs[i].index(head)]
        for pat in trailing:
            rx = "".join(p if k % 2 else re.escape(p) for k, p in enumerate(re.split(r"\{\{(.*?)\}\}", pat)))
            assert not re.search(rx, gap), (i, pat, gap)


def test_conformance_file_with_llvm_filecheck(conformance_cases, tmp_path):
    fc = _llvm_filecheck()
    if fc is None:
        pytest.skip("LLVM FileCheck not installed")
    _, out, _, _ = conformance_cases
    r = subprocess.run([fc, CONFORMANCE_LOOP_SPLIT], input=out, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
