#!/usr/bin/env python3
"""What verification costs next to parsing, per example kernel.

    python benchmarks/verify_cost.py [--repeat 30]

For each examples/**/*.mlir (largest first) it times, in this process, best of
--repeat runs of parse_text (parser built and cached beforehand) and of
verify on the parsed module, and prints both and verify/parse. The issue's
bar: verifying the largest example costs under 20% of its parse time.
"""
from __future__ import annotations

import argparse
import glob
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import tilec.dialects  # noqa: E402,F401  (registers the dialects)
from tilec.ir.diagnostics import DiagnosticEngine  # noqa: E402
from tilec.ir.verifier import verify  # noqa: E402
from tilec.syntax.parser import parse_text  # noqa: E402


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=30)
    a = ap.parse_args()
    paths = sorted(glob.glob(os.path.join(ROOT, "examples", "**", "*.mlir"), recursive=True),
                   key=os.path.getsize, reverse=True)
    parse_text("", DiagnosticEngine(), "<warm>")  # build or load the cached parser
    print(f"{'example':40} {'bytes':>7} {'parse ms':>9} {'verify ms':>10} {'verify/parse':>13}")
    for path in paths:
        text = open(path).read()
        parse_t = best(lambda: parse_text(text, DiagnosticEngine(), path), a.repeat)
        ops = parse_text(text, DiagnosticEngine(), path)
        if ops is None:
            print(f"{os.path.relpath(path, ROOT):40} does not parse")
            continue
        verify_t = best(lambda: [verify(op, DiagnosticEngine()) for op in ops], a.repeat)
        print(f"{os.path.relpath(path, ROOT):40} {len(text):7d} {parse_t * 1e3:9.2f} {verify_t * 1e3:10.2f} "
              f"{verify_t / parse_t:12.1%}")


if __name__ == "__main__":
    main()
