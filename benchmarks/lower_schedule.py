#!/usr/bin/env python3
"""Lowering + scheduling time of one kernel, next to its parse time.

    python benchmarks/lower_schedule.py [FILE] [--repeat 5] [--arch sm_90a,sm_80]

For each arch, in this one process (imports and the parser warmed first),
best of --repeat runs of:
  parse    parse_text of FILE (default examples/cutile/flash_attention_f16.mlir);
  lower+schedule
           the pipeline `lower-to-tileas{arch=A}, schedule{arch=A}` on freshly
           parsed IR, as `tilec opt --lower-to-tileas --schedule --arch A`
           runs it but without the verifier after each pass (parse excluded:
           each run parses its own copy outside the timed region);
  +verify  the same with the verifier after each pass (tilec opt's default).
Prints the times and lower+schedule / parse. The issue's bar: lowering plus
scheduling the flash-attention kernel takes under 0.3 s.
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import tilec.dialects  # noqa: E402,F401  (registers the dialects)
from tilec.ir.diagnostics import DiagnosticEngine  # noqa: E402
from tilec.passes.manager import PassManager  # noqa: E402
from tilec.passes.pipeline import Nest, make_pass  # noqa: E402
from tilec.syntax.parser import parse_text  # noqa: E402

TARGET = 0.3
DEFAULT = os.path.join("examples", "cutile", "flash_attention_f16.mlir")


def parse(text, path):
    engine = DiagnosticEngine()
    ops = parse_text(text, engine, path)
    if ops is None:
        raise SystemExit(engine.render())
    return ops


def lower_schedule(ops, arch, verify_each):
    """Seconds the pass manager takes on `ops` (already parsed)."""
    engine = DiagnosticEngine()
    root = Nest("builtin.module", [make_pass("lower-to-tileas", {"arch": arch}),
                                   make_pass("schedule", {"arch": arch})])
    pm = PassManager(root, verify_each=verify_each)
    t = time.perf_counter()
    ok = pm.run(ops, engine)
    dt = time.perf_counter() - t
    if not ok:
        raise SystemExit(engine.render())
    return dt


def best_parse(text, path, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        parse(text, path)
        times.append(time.perf_counter() - t)
    return min(times)


def best_passes(text, path, arch, repeat, verify_each):
    times = []
    for _ in range(repeat):
        ops = parse(text, path)
        gc.collect()
        times.append(lower_schedule(ops, arch, verify_each))
    return min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file", nargs="?", default=DEFAULT)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--arch", default="sm_90a,sm_80")
    a = ap.parse_args()
    path = a.file if os.path.isabs(a.file) else os.path.join(ROOT, a.file)
    text = open(path).read()
    gc.set_threshold(200_000, 50, 1000)     # as the tilec command sets it
    for arch in a.arch.split(","):          # warm imports of every pass module
        lower_schedule(parse(text, path), arch, True)
    tp = best_parse(text, path, a.repeat)
    print(f"{os.path.relpath(path, ROOT)}: {len(text)} bytes, best of {a.repeat}")
    print(f"  parse                        {tp * 1e3:8.1f} ms")
    worst = 0.0
    for arch in a.arch.split(","):
        tl = best_passes(text, path, arch, a.repeat, False)
        tv = best_passes(text, path, arch, a.repeat, True)
        worst = max(worst, tl)
        print(f"  {arch:7s} lower+schedule      {tl * 1e3:8.1f} ms  = {tl / tp:5.2f} x parse")
        print(f"  {arch:7s} lower+schedule+verify {tv * 1e3:6.1f} ms  = {tv / tp:5.2f} x parse")
    print(f"target: lower+schedule under {TARGET:.1f} s: {'met' if worst < TARGET else 'NOT met'} "
          f"(worst {worst:.3f} s)")


if __name__ == "__main__":
    main()
