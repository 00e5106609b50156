import os

import pytest

import tilec.dialects  # noqa: F401
from tilec.ir import registry

registry.load_all()

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")


def diagnostics_of(text, filename="in.mlir"):
    """Parse and verify `text` as the CLI does (stopping at the first failing
    op); return the diagnostic engine."""
    from tilec.ir.diagnostics import DiagnosticEngine
    from tilec.ir.verifier import verify
    from tilec.syntax.parser import parse_text
    engine = DiagnosticEngine()
    ops = parse_text(text, engine, filename)
    if ops is not None:
        for op in ops:
            if not verify(op, engine):
                break
    engine.ops = ops
    return engine


def parse_verified(text, filename="in.mlir"):
    """The top-level ops of `text`, which must parse and verify."""
    engine = diagnostics_of(text, filename)
    assert engine.ops is not None and not engine.has_errors, engine.render()
    return engine.ops


def ptxas_stderr(ptx, tmp_path, arch="sm_90a"):
    """ptxas -v's report on `ptx`, which it must accept (skips without ptxas)."""
    import shutil
    import subprocess
    if shutil.which("ptxas") is None:
        pytest.skip("ptxas not on PATH")
    f = tmp_path / "k.ptx"
    f.write_text(ptx)
    r = subprocess.run(["ptxas", f"-arch={arch}", "-v", str(f), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stderr


@pytest.fixture
def run_cli(capsys):
    """Run `tilec ARGS` in-process; return (exit code, stdout, stderr)."""
    from tilec.cli import main

    def run(*args, stdin=None):
        import io
        import sys
        old = sys.stdin
        if stdin is not None:
            sys.stdin = io.StringIO(stdin)
        try:
            rc = main(list(args))
        finally:
            sys.stdin = old
        out, err = capsys.readouterr()
        return rc, out, err
    return run
