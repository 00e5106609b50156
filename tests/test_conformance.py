"""NVIDIA's lit suite (../shared/conformance) through ../shared/tools/conformance.py:
what passes today must keep passing. Skips when the suite, `tilec` or `filecheck`
is absent."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
TOOL = SHARED / "tools" / "conformance.py"

# files that pass whole; the rest fail on runner limits (%round_trip_test,
# cuda-tile-translate) or need passes tilec lacks
PASSING = {
    "Dialect/arith_invalid.mlir", "Dialect/canonicalize.mlir", "Dialect/conversion_invalid.mlir",
    "Dialect/debuginfo_attr.mlir", "Dialect/debuginfo_update_symbol_names.mlir",
    "Dialect/debuginfo_update_symbol_names_fail.mlir", "Dialect/dense_attr.mlir", "Dialect/dense_attr_invalid.mlir",
    "Dialect/entry_opt_hints_default_silent.mlir", "Dialect/entry_opt_hints_error.mlir",
    "Dialect/entry_opt_hints_invalid.mlir", "Dialect/entry_opt_hints_warn.mlir", "Dialect/get_shape_invalid.mlir",
    "Dialect/invalid.mlir", "Dialect/math_invalid.mlir", "Dialect/memory_consistency_ops.mlir",
    "Dialect/memory_consistency_ops_invalid.mlir", "Dialect/ops.mlir", "Dialect/permute_invalid.mlir",
    "Dialect/reduce_and_scan_invalid.mlir", "Dialect/syntax_omit_dialect_prefix.mlir", "Dialect/types.mlir",
    "Dialect/view_invalid.mlir", "Transforms/fuse-fma.mlir", "Transforms/synthesize-debuginfo-scopes.mlir",
}
# split files scored case by case: every case must pass (the entry_opt_hints files
# pass as files; their RUN line has no --verify-diagnostics, so their cases are not scored)
CASES = ["Dialect/arith_invalid.mlir", "Dialect/conversion_invalid.mlir", "Dialect/dense_attr_invalid.mlir",
         "Dialect/get_shape_invalid.mlir", "Dialect/invalid.mlir", "Dialect/math_invalid.mlir",
         "Dialect/memory_consistency_ops_invalid.mlir", "Dialect/permute_invalid.mlir",
         "Dialect/reduce_and_scan_invalid.mlir", "Dialect/view_invalid.mlir"]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    if not TOOL.exists():
        pytest.skip("../shared/tools/conformance.py is absent")
    for exe in ("tilec", "filecheck"):
        if shutil.which(exe) is None:
            pytest.skip(f"'{exe}' is not on PATH")
    out = tmp_path_factory.mktemp("conformance") / "report.json"
    subprocess.run([sys.executable, str(TOOL), "--json", str(out)], capture_output=True, timeout=1800)
    return json.loads(out.read_text())


def test_passing_files_still_pass(report):
    failed = sorted(f for f in PASSING if not report["files"].get(f))
    assert not failed, f"conformance files that passed before now fail: {failed}"


@pytest.mark.parametrize("name", CASES)
def test_every_case_of_split_files_passes(report, name):
    passed, total = report["cases"][name]
    assert passed == total, f"{name}: {passed}/{total} cases pass"
