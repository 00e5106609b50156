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


def edit_ptx(ptx, old, new=""):
    """`ptx` with `old` (which must be there) replaced: a seeded fault or a variant."""
    assert old in ptx, old
    return ptx.replace(old, new)


def map_fill_2d(cols, rows):
    """The tensormap.replace lines that fill a 2-D f16 map staged at [%r1]: base %rd1,
    dims %r30 x %r31, row stride %rd20 bytes, a box of `cols` x `rows`, 128-byte
    swizzle (hand-written TMA kernels of the simulator's tests)."""
    put = "  @%p1 tensormap.replace.tile.{}.shared::cta.b1024.{} [%r1], {};"
    fields = [("global_address", "b64", "%rd1"), ("rank", "b32", "1"), ("box_dim", "b32", f"0, {cols}"),
              ("box_dim", "b32", f"1, {rows}"), ("global_dim", "b32", "0, %r30"), ("global_dim", "b32", "1, %r31"),
              ("element_stride", "b32", "0, 1"), ("element_stride", "b32", "1, 1"),
              ("global_stride", "b64", "0, %rd20"), ("elemtype", "b32", "6"), ("interleave_layout", "b32", "0"),
              ("swizzle_mode", "b32", "3"), ("fill_mode", "b32", "0")]
    return "\n".join(put.format(*f) for f in fields)


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
