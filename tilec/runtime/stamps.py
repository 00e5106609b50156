"""The stamps of a kernel compiled with `tilec compile --stamps` (codegen/ptx/stamps.py).

    from tilec.runtime import load_ptx, stamps
    module = load_ptx(ptx)
    kernel = module.kernel("k")
    stamps.clear(module, "k")
    kernel.launch(grid, args)
    table = stamps.read(module, "k", grid)     # point -> microseconds after the first entry
    print(stamps.summary(table))

Each CTA's row holds the global timer (ns) at the points POINTS names; a point
the CTA did not pass reads NaN. Times are relative to the earliest entry of
the launch, so `table["entry"]` shows how the CTAs started, and
`table["exit"] - table["entry"]` how long each ran."""
from __future__ import annotations

import numpy as np


def table(raw, ctas: int) -> dict:
    """{point: microseconds after the earliest entry, per CTA (NaN: not passed)} from
    the stamp array's words `raw` (unsigned 64-bit, zero where nothing was written)."""
    from ..codegen.ptx.stamps import MAX_CTAS, POINTS, SLOTS
    rows = np.asarray(raw, np.uint64)[:min(ctas, MAX_CTAS) * SLOTS].reshape(-1, SLOTS).astype(np.float64)
    rows[rows == 0] = np.nan
    start = np.nanmin(rows[:, POINTS.index("entry")]) if np.any(~np.isnan(rows[:, 0])) else 0.0
    return {p: (rows[:, i] - start) / 1000.0 for i, p in enumerate(POINTS)}


def summary(t: dict) -> str:
    """One line: the median and the largest of each point's time after its CTA's entry."""
    from ..codegen.ptx.stamps import POINTS
    entry = t["entry"]
    parts = [f"entry {_q(entry)}"]
    for p in POINTS[1:]:
        parts.append(f"{p} {_q(t[p] - entry)}")
    return "  ".join(parts) + " (us: median/max)"


def _q(x) -> str:
    x = x[~np.isnan(x)]
    return "-" if not len(x) else f"{np.median(x):.2f}/{np.max(x):.2f}"


def clear(module, kernel: str):
    """Zero the stamps of `kernel` in `module` (a loaded Module) before a launch."""
    from ..codegen.ptx.stamps import symbol
    from .cuda import _check, _driver, synchronize
    ptr, size = module.global_address(symbol(kernel))
    synchronize()
    _check(_driver().cuMemsetD8(ptr, 0, size), "cuMemsetD8")


def read(module, kernel: str, grid) -> dict:
    """table() of `kernel`'s stamps after a launch over `grid`."""
    from ..codegen.ptx.stamps import symbol
    g = tuple(grid) + (1, 1)
    raw = module.read_global(symbol(kernel), np.uint64)
    return table(raw, g[0] * g[1] * g[2])
