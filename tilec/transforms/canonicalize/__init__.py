"""Canonicalization patterns of every dialect, gathered for the canonicalize pass.
Each dialect module exposes PATTERNS and registers its constant materializer."""
from __future__ import annotations

_ALL = None


def all_patterns():
    global _ALL
    if _ALL is None:
        from . import arith, cuda_tile, nv_tileas
        _ALL = list(arith.PATTERNS) + list(cuda_tile.PATTERNS) + list(nv_tileas.PATTERNS)
    return _ALL
