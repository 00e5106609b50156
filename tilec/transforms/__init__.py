"""Transformations: canonicalization patterns per dialect and the standalone
passes (fuse-fma, loop-split, layout-conversion removal)."""
