"""Runtime errors of the interpreter.

`InterpError` is raised inside a handler (undefined behaviour the spec names,
an op the interpreter does not implement); `launch` turns it into a diagnostic
located at the op and raises `LaunchError`, which carries every diagnostic of
the launch (assertion failures included)."""
from __future__ import annotations

import numpy as np


class InterpError(Exception):
    def __init__(self, op, message: str, index=None):
        super().__init__(message)
        self.op, self.message, self.index = op, message, index


class LaunchError(Exception):
    """A launch ended in error; `diagnostics` are tilec Diagnostic objects."""

    def __init__(self, diagnostics):
        self.diagnostics = list(diagnostics)
        super().__init__("\n".join(_render(d) for d in self.diagnostics))


def _render(diag) -> str:
    if diag.location.file_line_col() is None and not diag.notes:
        return f"{diag.severity}: {diag.message}"
    return diag.render()


def first_index(bad, shape=None):
    """The row-major first position where boolean array `bad` holds, as a tuple."""
    bad = np.asarray(bad)
    flat = int(np.argmax(bad.ravel()))
    return tuple(int(i) for i in np.unravel_index(flat, bad.shape if shape is None else shape))


def index_text(index) -> str:
    if index is None:
        return ""
    return "[" + ", ".join(str(i) for i in index) + "]"


def ub(op, message, bad=None):
    """Raise undefined behaviour at the first lane where `bad` holds (if given)."""
    index = first_index(bad) if bad is not None and np.ndim(bad) > 0 else None
    raise InterpError(op, message, index)
