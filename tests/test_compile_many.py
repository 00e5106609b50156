"""tilec.compiler.compile_many: the in-process batch path for autotuners."""
from __future__ import annotations

import os

from tilec.compiler import compile_many, compile_text

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_batch_compiles_in_order_and_keeps_going_after_a_failure():
    src = open(os.path.join(ROOT, "examples", "vector_add.mlir")).read()
    jobs = [src, "cuda_tile.module @m { entry @k() { bogus } }",
            {"source": src, "arch": "sm_80", "num_warps": 8}, src]
    results = list(compile_many(jobs))
    assert len(results) == 4
    (p0, d0), (p1, d1), (p2, _), (p3, _) = results
    assert p0 == compile_text(src) and p3 == p0 and d0 == ""
    assert p1 is None and "error" in d1 and "<job 1>" in d1
    assert p2 is not None and ".target sm_80" in p2 and p2 != p0


def test_batch_reads_bytecode():
    from tilec.bytecode import write_bytecode
    from tilec.ir.diagnostics import DiagnosticEngine
    from conftest import parse_verified
    src = open(os.path.join(ROOT, "examples", "vector_add.mlir")).read()
    data = write_bytecode(parse_verified(src), DiagnosticEngine(), None)
    [(ptx, _)] = compile_many([data])
    assert ptx is not None and ".entry" in ptx


def test_compile_text_is_still_importable_from_the_code_generator():
    from tilec.codegen.ptx import compile_text as old
    assert old is compile_text
