"""`tilec compile`: parse, verify, lower to nv_tileas, schedule, emit PTX.

Every failure is a diagnostic (rendered text in CompileFailed), never a
traceback; the CLI writes the output file only after emission succeeded."""
from __future__ import annotations


class CompileFailed(Exception):
    """Compilation stopped; `str(e)` is the rendered diagnostics."""


def lower_and_schedule(ops, engine, arch: str, num_warps: int, num_stages: int | None):
    """Run lower-to-tileas and schedule on verified `ops`; the new ops or None."""
    from .passes.manager import PassManager
    from .passes.pipeline import Nest, make_pass
    sched = {"arch": arch, "num-warps": str(num_warps)}
    if num_stages is not None:
        sched["num-stages"] = str(num_stages)
    root = Nest("builtin.module", [make_pass("lower-to-tileas", {"arch": arch}), make_pass("schedule", sched)])
    pm = PassManager(root, verify_each=True)
    if not pm.run(ops, engine):
        return None
    return pm.result_ops


def compile_ops(ops, engine, arch="sm_90a", num_warps=4, num_stages=None) -> str | None:
    """PTX text for verified cuda_tile `ops`, or None after reporting to `engine`."""
    from .codegen.ptx import CodegenError, emit_ptx
    lowered = lower_and_schedule(ops, engine, arch, num_warps, num_stages)
    if lowered is None:
        return None
    try:
        return emit_ptx(lowered, arch, num_warps)
    except CodegenError as e:
        loc = getattr(e.op, "location", None)
        engine.error(loc, f"{e.message}" if e.op is None else f"'{e.op.name}' op {_strip(e.op.name, e.message)}"
                     f" (PTX emission for {arch})")
        return None


def _strip(name, message):
    prefix = f"'{name}' "
    return message[len(prefix):] if message.startswith(prefix) else message


def parse_and_compile(text, filename="<input>", arch="sm_90a", num_warps=4, num_stages=None) -> str:
    from .driver import process_chunk
    from .ir.diagnostics import DiagnosticEngine

    class _Args:
        allow_unregistered_dialect = False
    engine = DiagnosticEngine()
    ops = process_chunk(text, filename, _Args(), engine)
    ptx = compile_ops(ops, engine, arch, num_warps, num_stages) if ops is not None else None
    if ptx is None:
        raise CompileFailed(engine.render())
    return ptx
