#!/usr/bin/env python3
"""Run the TileGym corpus in the PTX simulator and compare with the interpreter.

    python benchmarks/tilegym_sim.py OUTDIR [--arch sm_80 sm_90a] [--kernel REGEX] [--max-per-kernel N]
                                            [--max-work N] [--timeout S] [--jobs N] [--json FILE]
                                            [--copy-timing late|eager] [--races]

OUTDIR is what benchmarks/tilegym_export.py wrote (manifest.json and the
.tilebc files). For each file that tileiras compiles, the launch of its tests
with the least work (array elements times blocks) is rebuilt with random data:
arrays of the recorded shapes, strides, offsets and dtypes (floats from a normal
distribution, integers in [0, 8)), scalars as recorded. tilec's PTX runs in
tests/ptxsim and the interpreter runs the same bytecode on a copy of the same
arrays; every array is compared afterwards (floats within 2% of the value plus
0.2% of the array's largest magnitude, which covers another summation order;
integers exactly). The simulator reports a
global access outside every argument array as a fault: what a GPU reports as
"an illegal memory access was encountered".

Launches over --max-work (default 2e8: elements x blocks) are skipped: the
simulator runs a few million warp instructions a minute. Kernels whose integer
arrays hold indices (MoE routing, gathers) can fault on random data that a real
caller would never pass: read their faults with that in mind.

--races runs the simulator's race check (tests/ptxsim/hb.py): an access to shared
memory that no barrier, mbarrier or wait orders after a conflicting one is a
"race" row, whatever values the run gave; the CTAs of a cluster are checked
against each other too.

Prints one row per (file, arch) and a summary line; --json writes the rows.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _elements(launch):
    """Elements of a launch's array arguments."""
    elems = 0
    for a in launch["args"]:
        for x in a.get("items", [a]) if a.get("kind") == "list" else [a]:
            if x.get("kind") == "array":
                n = 1
                for d in x["shape"]:
                    n *= d
                elems += n
    return elems


def _work(launch):
    blocks = 1
    for g in launch["grid"]:
        blocks *= g
    return _elements(launch) * blocks


def _dtype(name):
    import ml_dtypes
    import numpy as np
    special = {"bfloat16": ml_dtypes.bfloat16, "float8_e4m3fn": ml_dtypes.float8_e4m3fn,
               "float8_e5m2": ml_dtypes.float8_e5m2, "bool": np.bool_}
    return np.dtype(special.get(name, name))


def _array(desc, rng):
    """A NumPy view with the recorded shape, strides (elements) and storage offset."""
    import numpy as np
    dt = _dtype(desc["dtype"])
    shape, strides = desc["shape"], desc["strides"]
    span = 1 + sum((d - 1) * s for d, s in zip(shape, strides) if d > 0)
    size = desc.get("storage_offset", 0) + max(span, 1)
    if dt.kind == "f" or dt.name in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
        base = rng.standard_normal(size).astype(np.float32).astype(dt)
    elif dt.kind == "b":
        base = rng.integers(0, 2, size).astype(dt)
    else:
        base = rng.integers(0, 8, size).astype(dt)
    from tilec.interp.numerics import strided       # as_strided for ml_dtypes' types too
    off = desc.get("storage_offset", 0)
    return strided(base[off:], tuple(shape), tuple(s * dt.itemsize for s in strides)), base


def _kinds(constraints):
    """Each Python argument's constraint kind: Array, Scalar or Constant (compiled in)."""
    # a list's element constraint (ListConstraint(element=ArrayConstraint(...))) counts as the list's
    return re.findall(r"(?<!element=)\b(List|Array|Scalar|Constant)Constraint\(", constraints or "")


def _args(launch, rng, kinds):
    """(flat kernel arguments in cuTile's calling convention, [(label, base buffer)])."""
    flat, bases = [], []
    for i, a in enumerate(launch["args"]):
        if i < len(kinds) and kinds[i] == "Constant":
            continue
        kind = a.get("kind")
        if kind == "array":
            view, base = _array(a, rng)
            flat += [(base, a.get("storage_offset", 0)) if a.get("storage_offset") else base,
                     *a["shape"], *a["strides"]]
            bases.append((f"arg{i}", base))
        elif kind == "list":
            # cuTile's list of arrays: a table of (address, shape, strides) rows and its length
            from tilec.runtime import PointerTable
            items = []
            for j, item in enumerate(a["items"]):
                view, base = _array(item, rng)
                if item.get("storage_offset") or not view.flags.c_contiguous or view.size != base.size:
                    raise ValueError(f"argument {i}: a list of strided arrays is not replayed")
                items.append(base.reshape(view.shape))
                bases.append((f"arg{i}[{j}]", items[-1]))
            flat += [PointerTable(items), len(items)]
        elif kind == "value":
            v = a["value"]
            flat.append(v)
        else:
            raise ValueError(f"argument {i} of kind {kind!r} is not replayed")
    return flat, bases


def _compare(label, got, want):
    import numpy as np
    g = (got.astype(np.float64) if got.dtype.kind != "b" else got.astype(np.int64)).reshape(-1)
    w = (want.astype(np.float64) if want.dtype.kind != "b" else want.astype(np.int64)).reshape(-1)
    if got.dtype.kind in "iub":
        bad = g != w
    else:
        both_nan = np.isnan(g) & np.isnan(w)
        finite = np.isfinite(w)
        scale = float(np.abs(w[finite]).max()) if finite.any() else 0.0
        # a sum in another order (tf32/f16 MMAs, reductions) errs relative to the
        # magnitudes summed: bounded by the array's largest value, not each element's
        bad = ~(both_nan | (g == w) | (np.abs(g - w) <= 2e-2 * np.abs(w) + 2e-3 * scale + 1e-5))
    if bad.any():
        i = int(np.argmax(bad))
        scale = float(np.nanmax(np.abs(w))) if np.isfinite(w).any() else float("nan")
        return (f"{label}: {int(bad.sum())} of {bad.size} elements differ (first at {i}: sim {float(g[i])!r} "
                f"interp {float(w[i])!r}; max |interp| {scale:.3g})")
    return None


def run_one(outdir, file, launch, arch, constraints, copy_timing="late", races=False, cut=None):
    """Compile, simulate and interpret one launch; returns (status, detail).
    `cut`: only the first that many tile blocks run, in both."""
    import numpy as np
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    import ptxsim
    from tilec.codegen.ptx import compile_text
    from tilec.interp import launch as interp_launch, parse_module
    from tilec.runtime import convert_scalars
    path = os.path.join(outdir, file)
    text = subprocess.run([sys.executable, "-m", "tilec.cli", "opt", path], capture_output=True,
                          text=True).stdout
    if not text:
        from tilec.cli import main as _unused  # noqa: F401 - the import error, if any, is the detail
        return "error", "tilec opt printed nothing"
    try:
        ptx = compile_text(text, arch=arch)
    except Exception as e:  # noqa: BLE001 - a compile failure is a result
        return "compile", str(e).splitlines()[0][:200]
    rng = np.random.default_rng(0)
    flat, bases = _args(launch, rng, _kinds(constraints))
    interp_bases = [(label, b.copy()) for label, b in bases]
    swap = {id(b): c for (_, b), (_, c) in zip(bases, interp_bases)}

    def for_interp(x):
        if isinstance(x, tuple):
            return swap.get(id(x[0]), x[0]), x[1]
        if getattr(x, "pointees", None):       # a list's table: one over the interpreter's copies
            return type(x)([swap[id(p)] for p in x.pointees])
        return swap.get(id(x), x)
    iflat = [for_interp(x) for x in flat]
    grid = tuple(launch["grid"])
    try:
        # cuTile asserts divisibility of strides it never uses (div_by<4> on the unit stride of
        # a one-element array): the interpreter's assumption check would stop there
        interp_launch(parse_module(text, path), None, grid, iflat, check_assumptions=False, blocks=cut)
    except Exception as e:  # noqa: BLE001
        return "interp", f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
    entry = re.search(r"\.visible \.entry (\w+)\(", ptx).group(1)
    try:
        ptxsim.run_ptx(ptx, entry, grid, convert_scalars(text, flat), copy_timing=copy_timing,
                       check_races=races, clusters=cut)
    except ptxsim.DataRace as e:
        return "race", str(e).splitlines()[0][:400]
    except Exception as e:  # noqa: BLE001 - faults, deadlocks, unsupported instructions
        return "sim", f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
    for (label, got), (_, want) in zip(bases, interp_bases):
        problem = _compare(label, got, want)
        if problem:
            return "differs", problem
    return "ok", ""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--arch", nargs="+", default=["sm_80", "sm_90a"])
    ap.add_argument("--kernel", default=None, help="only kernels whose name matches this regex")
    ap.add_argument("--file", default=None, help="only files whose name matches this regex")
    ap.add_argument("--max-work", type=float, default=2e8)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--json", default=None)
    ap.add_argument("--max-per-kernel", type=int, default=0, help="at most N files of each kernel (0: all)")
    ap.add_argument("--copy-timing", choices=["late", "eager"], default="late",
                    help="when cp.async/TMA copies land in the simulator (tests/ptxsim): late (default) "
                         "catches reads before the wait, eager slots refilled too early")
    ap.add_argument("--races", action="store_true",
                    help="run the simulator's race check (shared-memory accesses no synchronization orders)")
    ap.add_argument("--cut", type=int, default=0,
                    help="a launch over --max-work runs its first N tile blocks only, in the interpreter and "
                         "the simulator alike (kernels whose tile blocks do not wait for each other)")
    ap.add_argument("--one", nargs=3, metavar=("FILE", "LAUNCH", "ARCH"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    manifest = json.load(open(os.path.join(args.outdir, "manifest.json")))
    files = {r["file"]: r for r in manifest["files"]}
    if args.one:
        file, li, arch = args.one
        status, detail = run_one(args.outdir, file, files[file]["launches"][int(li)], arch,
                                 files[file].get("constraints"), args.copy_timing, args.races, args.cut or None)
        print(json.dumps({"status": status, "detail": detail}))
        return 0
    jobs, per_kernel = [], {}
    for r in manifest["files"]:
        if args.kernel and not re.search(args.kernel, r["kernel"]):
            continue
        if args.file and not re.search(args.file, r["file"]):
            continue
        per_kernel[r["kernel"]] = per_kernel.get(r["kernel"], 0) + 1
        if args.max_per_kernel and per_kernel[r["kernel"]] > args.max_per_kernel:
            continue
        best = min(range(len(r["launches"])), key=lambda i: _work(r["launches"][i]))
        for arch in args.arch:
            tarch = "sm_90" if arch.startswith("sm_90") else "sm_80"
            if not r.get("tileiras", {}).get(tarch, {}).get("ok", True):
                continue
            jobs.append((r, best, arch))

    def run(job):
        r, li, arch = job
        cut = []
        if _work(r["launches"][li]) > args.max_work:
            if not args.cut:
                return "skipped", f"work {_work(r['launches'][li]):.2g} over --max-work"
            cut = ["--cut", str(args.cut)]
        t0 = time.time()
        try:
            p = subprocess.run([sys.executable, os.path.abspath(__file__), args.outdir, "--one", r["file"],
                                str(li), arch, "--copy-timing", args.copy_timing]
                               + (["--races"] if args.races else []) + cut, capture_output=True, text=True,
                               timeout=args.timeout, cwd=ROOT)
        except subprocess.TimeoutExpired:
            return "timeout", f"over {args.timeout:.0f} s"
        try:
            out = json.loads(p.stdout.strip().splitlines()[-1])
            return out["status"], out["detail"] + f" ({time.time() - t0:.0f} s{', cut to ' + cut[1] if cut else ''})"
        except (IndexError, ValueError, KeyError):
            return "error", (p.stderr.strip().splitlines() or ["no output"])[-1][:200]

    rows = []
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for (r, li, arch), (status, detail) in zip(jobs, pool.map(run, jobs)):
            rows.append({"file": r["file"], "kernel": r["kernel"], "arch": arch, "status": status,
                         "detail": detail, "test": r["launches"][li]["test"]})
            print(f"{r['file']:<56} {arch:<7} {status:<8} {detail}", flush=True)
    counts = {}
    for row in rows:
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    print("summary: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + f" of {len(rows)}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0 if counts.get("ok", 0) == len(rows) - counts.get("skipped", 0) else 1


if __name__ == "__main__":
    sys.exit(main())
