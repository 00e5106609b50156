"""Shape and element-type sweep of the example kernels through `tilec compile`.

Each variant rewrites one tile extent everywhere it appears (tile types and
partition-view tiles: 64 -> 1, 2, 32, 128, 256) or one float element type
everywhere (f32 -> f16, f16 -> bf16, ...). Variants that do not verify are
dropped (a consistent rewrite still breaks some kernels, e.g. a view whose
shape must divide). Every variant that verifies must, on both targets, either
compile to PTX that ptxas assembles or be refused with a located diagnostic of
a known kind; an exception escaping the compiler fails the test. A fixed
sample keeps the run short; `TILEC_SWEEP_ALL=1` runs every variant."""
from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess

import pytest

from tilec.ir.diagnostics import DiagnosticEngine
from tilec.ir.verifier import verify
from tilec.syntax.parser import parse_text

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "examples", "**", "*.mlir"), recursive=True))
PTXAS = shutil.which("ptxas")
ARCHES = ("sm_80", "sm_90a")
FLOAT_SWAPS = (("f32", "f16"), ("f16", "bf16"), ("f16", "f32"), ("f32", "f64"), ("f16", "f8E4M3FN"))
# what a variant may legitimately be refused for
KNOWN_REFUSALS = (r"is not supported on sm_80", r"need \d+ bytes of shared memory per stage, more than",
                  r"needs \d+ bytes of shared memory, more than the \d+ bytes a block may use")
SAMPLE_EVERY = 1 if os.environ.get("TILEC_SWEEP_ALL") else 6


def _extents(src):
    return sorted({int(m) for m in re.findall(r"(?<=[<x(])(\d+)(?=x)|(?<=x)(\d+)(?=[a-z)])", src) for m in m if m})


def variants(src):
    """[(tag, text)]: one extent or one element type rewritten throughout."""
    out = []
    for e in _extents(src):
        if e < 2:
            continue
        pattern = rf"(?<=[<x(]){e}(?=x)|(?<=x){e}(?=x|[a-z)])|(?<=\(){e}(?=\))"
        for new in sorted({1, 2, e // 2, e * 2, e * 4} - {e}):
            out.append((f"{e}->{new}", re.sub(pattern, str(new), src)))
    for a, b in FLOAT_SWAPS:
        if re.search(rf"\b{a}\b", src):
            out.append((f"{a}->{b}", re.sub(rf"\b{a}\b", b, src)))
    return out


def _verifies(text):
    engine = DiagnosticEngine()
    ops = parse_text(text, engine, "v.mlir")
    return ops is not None and all(verify(op, engine) for op in ops)


def _cases():
    cases = []
    for path in EXAMPLES:
        with open(path) as fh:
            src = fh.read()
        name = os.path.relpath(path, os.path.join(ROOT, "examples"))
        cases += [(f"{name}:{tag}", text) for tag, text in variants(src)]
    return cases[::SAMPLE_EVERY]


CASES = _cases()


def test_the_sweep_covers_the_examples():
    assert len(EXAMPLES) >= 8 and len(CASES) >= 40


@pytest.mark.parametrize("tag,text", CASES, ids=[t for t, _ in CASES])
def test_variant_compiles_and_assembles_or_is_refused(tag, text, tmp_path):
    from tilec.compiler import CompileFailed, parse_and_compile
    if not _verifies(text):
        pytest.skip("the rewrite does not verify")
    for arch in ARCHES:
        try:
            ptx = parse_and_compile(text, "v.mlir", arch)
        except CompileFailed as e:
            message = str(e)
            assert re.search(r"^v\.mlir:\d+:\d+: error: ", message, re.M), message
            assert any(re.search(k, message) for k in KNOWN_REFUSALS), message
            continue
        if PTXAS is None:
            continue
        src = tmp_path / f"{arch}.ptx"
        src.write_text(ptx)
        r = subprocess.run([PTXAS, f"-arch={arch}", str(src), "-o", str(tmp_path / f"{arch}.cubin")],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, f"{arch}: {r.stderr}"
