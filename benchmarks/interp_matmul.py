#!/usr/bin/env python3
"""Speed of the reference interpreter on a tiled f16 matmul.

Runs examples/matmul_f16_tiled.mlir (128x128 output tiles, K steps of 64, f32
accumulation) for M = N = K = 1024 (an 8x8 grid of tile blocks) and prints the
interpreter's time next to a plain `numpy.matmul` of the same f16 inputs
converted to f32, measured in the same run. The target is under 30 s.

BLAS runs single-threaded unless OPENBLAS_NUM_THREADS/OMP_NUM_THREADS say
otherwise: the interpreter's matmuls are small (128x64 @ 64x128), and on this
shared 2-core machine a multi-threaded BLAS spends more time waking threads than
multiplying (about 4x slower here). Both timings use the same setting.

    python benchmarks/interp_matmul.py [SIZE]
"""
from __future__ import annotations

import os
import sys
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402  (after the thread settings, which BLAS reads at load)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from tilec.interp import launch, parse_module  # noqa: E402

KERNEL = os.path.join(HERE, "..", "examples", "matmul_f16_tiled.mlir")


def main(argv):
    size = int(argv[1]) if len(argv) > 1 else 1024
    rng = np.random.default_rng(0)
    a = rng.standard_normal((size, size)).astype(np.float16)
    b = rng.standard_normal((size, size)).astype(np.float16)
    c = np.zeros((size, size), np.float16)
    with open(KERNEL) as fh:
        module = parse_module(fh.read(), KERNEL)
    grid = (-(-size // 128), -(-size // 128), 1)

    t0 = time.perf_counter()
    launch(module, "matmul_f16", grid, [a, b, c, size, size, size])
    t_interp = time.perf_counter() - t0

    t0 = time.perf_counter()
    ref = np.matmul(a.astype(np.float32), b.astype(np.float32))
    t_numpy = time.perf_counter() - t0

    err = float(np.max(np.abs(c.astype(np.float32) - ref) / (1 + np.abs(ref))))
    print(f"interp matmul {size}x{size}x{size} f16 (128x128x64 tiles, grid {grid[0]}x{grid[1]}): "
          f"{t_interp:.3f} s")
    print(f"numpy.matmul (f32) same inputs: {t_numpy:.3f} s  ratio interp/numpy: {t_interp / t_numpy:.1f}x  "
          f"(BLAS threads: {os.environ['OPENBLAS_NUM_THREADS']})")
    print(f"max relative error vs numpy: {err:.2e}  target < 30 s: {'ok' if t_interp < 30 else 'MISSED'}")
    return 0 if t_interp < 30 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
