"""End-to-end `tilec compile` time of a kernel next to NVIDIA's tileiras on the
same kernel (its bytecode), measured in the same run; plus tilec's in-process
time once the parser is loaded (what a long-lived caller pays).

tilec's modules are byte-compiled first (`compileall`), as an install leaves
them: a machine that sets PYTHONDONTWRITEBYTECODE would otherwise recompile
every module on every run. The first run on a machine also builds the parser
snapshot (tilec/syntax/snapshot.py); it is reported on its own.

    python benchmarks/compile_speed.py [kernel.mlir] [--runs N]
(tileiras: --tileiras PATH, e.g. the one ../shared/tools/reference-toolchain.sh
installs; skipped if absent)"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def best_of(cmd, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True)
        times.append(time.perf_counter() - t)
        if r.returncode:
            sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr}")
    return min(times), statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kernel", nargs="?", default=os.path.join(ROOT, "examples", "cutile", "flash_attention_f16.mlir"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--arch", default="sm_90a")
    ap.add_argument("--tileiras", default=shutil.which("tileiras"),
                    help="path of NVIDIA's tileiras (default: from PATH)")
    args = ap.parse_args()
    tilec = [sys.executable, "-m", "tilec.cli"]
    import compileall
    compileall.compile_dir(os.path.join(ROOT, "tilec"), quiet=1)
    with tempfile.TemporaryDirectory() as d:
        cold_env = dict(os.environ, TILEC_CACHE_DIR=os.path.join(d, "cache"))
        t = time.perf_counter()
        subprocess.run(tilec + ["compile", args.kernel, "--arch", args.arch, "-o", os.path.join(d, "k.ptx")],
                       check=True, env=cold_env)
        print(f"tilec compile, first run on a machine (builds the parser snapshot): {time.perf_counter() - t:.2f} s")
        best, med = best_of(tilec + ["compile", args.kernel, "--arch", args.arch, "-o", os.path.join(d, "k.ptx")],
                            args.runs)
        print(f"tilec compile (PTX), end to end:   best {best:.2f} s, median {med:.2f} s")
        if shutil.which("ptxas"):
            cb, cm = best_of(tilec + ["compile", args.kernel, "--arch", args.arch, "--emit=cubin", "-o",
                                      os.path.join(d, "k.cubin")], args.runs)
            print(f"tilec compile --emit=cubin:          best {cb:.2f} s, median {cm:.2f} s")
        from tilec.codegen.ptx import compile_text
        src = open(args.kernel).read()
        t = time.perf_counter()
        compile_text(src, args.arch)
        first = time.perf_counter() - t
        warm = min(_timed(compile_text, src, args.arch) for _ in range(args.runs))
        print(f"tilec in-process: first {first:.2f} s (loads the parser tables), then {warm:.3f} s")
        tileiras = args.tileiras
        if tileiras is None or not os.path.isfile(tileiras):
            print(f"tileiras: {'not on PATH' if tileiras is None else tileiras + ' does not exist'} "
                  "(../shared/tools/reference-toolchain.sh installs one); no ratio")
            return
        bc = os.path.join(d, "k.tilebc")
        subprocess.run(tilec + ["opt", args.kernel, "--emit-bytecode", "-o", bc], check=True)
        tb, tm = best_of([tileiras, "--gpu-name=sm_90", bc, "-o", os.path.join(d, "ref.cubin")], args.runs)
        print(f"tileiras (bytecode -> cubin):        best {tb:.2f} s, median {tm:.2f} s")
        print(f"ratio tilec PTX / tileiras: {best / tb:.2f}x")


def _timed(fn, *a):
    t = time.perf_counter()
    fn(*a)
    return time.perf_counter() - t


if __name__ == "__main__":
    main()
