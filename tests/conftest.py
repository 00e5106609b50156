import os

import pytest

import tilec.dialects  # noqa: F401
from tilec.ir import registry

registry.load_all()

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")


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
