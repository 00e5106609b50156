"""End-to-end `tilec compile` time of kernels next to NVIDIA's tileiras on the
same kernels (their bytecode), measured in the same run; plus tilec's
in-process times once the parser is loaded (what a long-lived caller pays),
one by one (`compile_text`) and as a batch (`tilec.compiler.compile_many`, the
path for autotuners that compile many configurations). tilec is timed on the
kernel's text and on its bytecode (what cuTile hands tileiras, and tilec-tileiras).

tilec's modules are byte-compiled first (`compileall`), as an install leaves
them: a machine that sets PYTHONDONTWRITEBYTECODE would otherwise recompile
every module on every run. The first run on a machine also builds the parser
snapshot (tilec/syntax/snapshot.py); it is reported on its own.

    python benchmarks/compile_speed.py [kernel.mlir ...] [--runs N]

Default kernels: the element-wise ones (vector_add, cuTile's vector_add_f32,
row_softmax) and the heavy ones (flash attention, matmul). tileiras:
--tileiras PATH, else from PATH, else where ../shared/tools/reference-toolchain.sh
installs it (/tmp/tileir-ref); without one the ratio column is empty."""
from __future__ import annotations

import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_KERNELS = ["examples/vector_add.mlir", "examples/cutile/vector_add_f32.mlir",
                   "examples/cutile/row_softmax_f32.mlir", "examples/cutile/flash_attention_f16.mlir",
                   "examples/cutile/matmul_f16.mlir"]


def best_of(cmd, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True)
        times.append(time.perf_counter() - t)
        if r.returncode:
            sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr}")
    return min(times)


def find_tileiras(given):
    if given:
        return given
    found = shutil.which("tileiras")
    if found:
        return found
    ref = os.environ.get("TILEIR_REF", "/tmp/tileir-ref")
    hits = sorted(glob.glob(os.path.join(ref, "lib", "python*", "site-packages", "nvidia", "*", "bin", "tileiras")))
    return hits[-1] if hits else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kernels", nargs="*", default=[os.path.join(ROOT, k) for k in DEFAULT_KERNELS])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--arch", default="sm_90a")
    ap.add_argument("--tileiras", default=None, help="path of NVIDIA's tileiras")
    args = ap.parse_args()
    tilec = [sys.executable, "-m", "tilec.cli"]
    import compileall
    compileall.compile_dir(os.path.join(ROOT, "tilec"), quiet=1)
    tileiras = find_tileiras(args.tileiras)
    if tileiras is not None and not os.path.isfile(tileiras):
        print(f"tileiras: {tileiras} does not exist; no ratio")
        tileiras = None
    elif tileiras is None:
        print("tileiras: not found (../shared/tools/reference-toolchain.sh installs one); no ratio")
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "k.ptx")
        cold_env = dict(os.environ, TILEC_CACHE_DIR=os.path.join(d, "cache"))
        t = time.perf_counter()
        subprocess.run(tilec + ["compile", args.kernels[0], "--arch", args.arch, "-o", out], check=True, env=cold_env)
        print(f"tilec compile, first run on a machine (builds the parser snapshot): {time.perf_counter() - t:.2f} s")
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        print(f"python -c pass (the interpreter's own start): {time.perf_counter() - t:.3f} s")

        from tilec.compiler import compile_many, compile_text
        sources = [open(k).read() for k in args.kernels]
        t = time.perf_counter()
        compile_text(sources[0], args.arch)
        print(f"tilec in-process, first compile (imports, loads the parser): {time.perf_counter() - t:.3f} s\n")

        rows = []
        for path, src in zip(args.kernels, sources):
            name = os.path.splitext(os.path.basename(path))[0]
            proc = best_of(tilec + ["compile", path, "--arch", args.arch, "-o", out], args.runs)
            warm = min(_timed(compile_text, src, args.arch) for _ in range(args.runs))
            t = time.perf_counter()
            results = list(compile_many([src] * 8, arch=args.arch))
            batch = (time.perf_counter() - t) / 8
            assert all(ptx is not None for ptx, _ in results)
            bc = os.path.join(d, name + ".tilebc")
            subprocess.run(tilec + ["opt", path, "--emit-bytecode", "-o", bc], check=True)
            proc_bc = best_of(tilec + ["compile", bc, "--arch", args.arch, "-o", out], args.runs)
            ref = None
            if tileiras is not None:
                ref = best_of([tileiras, "--gpu-name=sm_90", bc, "-o", os.path.join(d, "ref.cubin")], args.runs)
            rows.append((name, proc, proc_bc, ref, warm, batch))
    print(f"{'kernel':24} {'tilec compile':>14} {'ratio':>7} {'(bytecode)':>11} {'ratio':>7} {'tileiras':>10} "
          f"{'in-process':>11} {'compile_many':>13}")
    for name, proc, proc_bc, ref, warm, batch in rows:
        ratio = f"{proc / ref:.2f}x" if ref else "-"
        ratio_bc = f"{proc_bc / ref:.2f}x" if ref else "-"
        ref_text = f"{ref:.3f} s" if ref else "-"
        print(f"{name:24} {proc:12.3f} s {ratio:>7} {proc_bc:9.3f} s {ratio_bc:>7} {ref_text:>10} "
              f"{warm:9.3f} s {batch:11.3f} s")
    print("\n(best of N whole processes; tileiras: bytecode -> cubin for sm_90; tilec compile: text -> PTX for "
          f"{args.arch}; (bytecode): the same kernel's bytecode -> PTX, as cuTile runs tilec-tileiras; "
          "compile_many: per kernel, 8 in one call)")


def _timed(fn, *a):
    t = time.perf_counter()
    fn(*a)
    return time.perf_counter() - t


if __name__ == "__main__":
    main()
