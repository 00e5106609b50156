#!/usr/bin/env python3
"""The TileGym corpus on a GPU: tilec's cubin against tileiras's, same inputs.

    python benchmarks/tilegym_gpu_diff.py CORPUS ARTIFACTS [--kernel REGEX] [--workers N]
                                          [--max-elements N] [--time-per-kernel N] [--time-only] [--json FILE]

CORPUS is what benchmarks/tilegym_export.py wrote (manifest.json). ARTIFACTS
holds, per corpus file NAME.tilebc, made on a machine without a GPU by
`tilegym_gpu_diff.py --prepare CORPUS ARTIFACTS`:
  NAME.mlir          the file's text (tilec opt), for the parameter types;
  NAME.tilec.cubin   tilec's sm_90a PTX assembled by ptxas -arch=sm_90a;
  NAME.tileiras.cubin  tileiras --gpu-name=sm_90 of the same bytecode.

For each file both cubins run on the same random inputs (tilegym_sim.py's:
the recorded shapes, strides and dtypes) at two of the tests' launches: the one
with the least work and the largest with at most --max-elements array
elements. Every array is compared afterwards (tilegym_sim.py's bounds: another
summation order passes; integers exact). A launch after which neither kernel
changed any array is "no-writes", not "ok": equal outputs then prove nothing. A launch that faults ("an illegal
memory access") under tileiras is reported as the inputs' fault and tilec's
run is skipped; one that faults under tilec only is tilec's bug. Workers run
files in child processes, since a fault poisons a process's CUDA context.

Then, one process at a time, the first file of each kernel is timed at its
largest launch (median of 10 after 3 warm-ups), tilec against tileiras.
--time-only skips the comparison (a replay that ran at the same time, say).
An A/B of two tilec trees uses the same files: `--prepare-ab OTHER_TREE CORPUS
ARTIFACTS [--kernel REGEX]` writes this checkout's cubins as NAME.tilec.* and
the other tree's as NAME.tileiras.*; on the GPU, CORPUS is the prepared folder
(for its manifest).

Prints a row per (file, launch), a per-kernel table and a summary line.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)

from tilegym_sim import _args, _compare, _elements, _kinds, _work  # noqa: E402

TILEIRAS_BIN = os.environ.get("TILEIRAS", "tileiras")


def _launches(record, max_elements):
    """Indices of the launches to replay: the least work, and the largest under the cap."""
    ls = record["launches"]
    small = min(range(len(ls)), key=lambda i: _work(ls[i]))
    fit = [i for i in range(len(ls)) if _elements(ls[i]) <= max_elements]
    large = max(fit, key=lambda i: _elements(ls[i])) if fit else small
    return sorted({small, large})


def _tilec_ptx(src, ptx, tree):
    """sm_90a PTX of corpus file `src` by the tilec of checkout `tree`; None, or its stderr."""
    p = subprocess.run([sys.executable, "-m", "tilec.cli", "compile", src, "--arch", "sm_90a", "-o", ptx],
                       capture_output=True, text=True, cwd=tree)
    return None if p.returncode == 0 else p.stderr


def _cubin_of(ptx, base, who):
    """NAME.<who>.cubin from `ptx`, and NAME.<who>.json: its dynamic shared memory,
    which the cubin does not say."""
    from tilec.runtime import parse_ptx
    with open(ptx) as fh:
        dyn = parse_ptx(fh.read()).dynamic_shared or {}
    with open(f"{base}.{who}.json", "w") as fh:
        json.dump({"dynamic_shared": dyn}, fh)
    from tilec.ptxas import find_ptxas     # TILEC_PTXAS first: the same ptxas for every cubin
    subprocess.run([find_ptxas() or "ptxas", "-arch=sm_90a", ptx, "-o", f"{base}.{who}.cubin"], check=False)


def _tilec_cubin(src, base, who, tree):
    """NAME.<who>.{cubin,json} by the tilec of checkout `tree`; None, or its error."""
    ptx = f"{base}.{who}.sm_90a.ptx"
    err = _tilec_ptx(src, ptx, tree)
    if err is None:
        _cubin_of(ptx, base, who)
        os.remove(ptx)
    return err


def prepare_ab(corpus, art, other, pattern, jobs):
    """Here, without a GPU: an A/B of two tilec trees over the corpus files whose
    kernel matches `pattern`. This checkout's cubin is NAME.tilec.*, checkout
    `other`'s NAME.tileiras.* (a throughput ratio above 1: this tree is faster);
    files both trees compile to the same PTX are left out."""
    os.makedirs(art, exist_ok=True)
    manifest = json.load(open(os.path.join(corpus, "manifest.json")))

    def one(r):
        name = r["file"][:-len(".tilebc")]
        src, base = os.path.join(corpus, r["file"]), os.path.join(art, name)
        new, old = base + ".new.ptx", base + ".old.ptx"
        try:
            if _tilec_ptx(src, new, ROOT) is not None or _tilec_ptx(src, old, other) is not None:
                return f"{name} fails to compile"
            if open(new).read() == open(old).read():
                return f"{name} same"
            _cubin_of(new, base, "tilec")
            _cubin_of(old, base, "tileiras")
            with open(base + ".mlir", "w") as fh:
                subprocess.run([sys.executable, "-m", "tilec.cli", "opt", src], stdout=fh, cwd=ROOT)
            return f"{name} differs"
        finally:
            for f in (new, old):
                if os.path.exists(f):
                    os.remove(f)

    files = [r for r in manifest["files"] if re.search(pattern or "", r["kernel"])]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for line in pool.map(one, files):
            print(line, flush=True)


def prepare(corpus, art, jobs):
    """Here, without a GPU: the text, tilec's cubin and tileiras's cubin of every file."""
    os.makedirs(art, exist_ok=True)
    manifest = json.load(open(os.path.join(corpus, "manifest.json")))

    def one(r):
        name = r["file"][:-len(".tilebc")]
        src = os.path.join(corpus, r["file"])
        out = os.path.join(art, name)
        if not os.path.exists(out + ".mlir"):
            with open(out + ".mlir", "w") as fh:
                subprocess.run([sys.executable, "-m", "tilec.cli", "opt", src], stdout=fh, cwd=ROOT)
        if not os.path.exists(out + ".tilec.cubin"):
            err = _tilec_cubin(src, out, "tilec", ROOT)
            if err is not None:
                with open(out + ".tilec.err", "w") as fh:
                    fh.write(err)
        if r.get("tileiras", {}).get("sm_90", {}).get("ok") and not os.path.exists(out + ".tileiras.cubin"):
            subprocess.run([TILEIRAS_BIN, "--gpu-name=sm_90", src, "-o", out + ".tileiras.cubin"], check=False)
        return name

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for name in pool.map(one, manifest["files"]):
            print(name, flush=True)


# ---- on the GPU -----------------------------------------------------------------------------

def _sticky(e):
    """A CUDA error after which the process's context is unusable."""
    text = str(e).lower()
    return any(w in text for w in ("illegal", "launch failed", "misaligned", "timed out", "unspecified",
                                   "exception", "trap", "hardware stack"))


def _kernel(base, who, entry):
    """The entry of NAME.<who>.cubin, with its block size and dynamic shared memory."""
    from tilec.runtime import load_cubin
    kernel = load_cubin(f"{base}.{who}.cubin").kernel(entry)
    if kernel.block is None:
        kernel.block = (kernel.attribute("MAX_THREADS_PER_BLOCK"), 1, 1)
    if os.path.exists(f"{base}.{who}.json"):
        with open(f"{base}.{who}.json") as fh:
            kernel.shared_bytes = json.load(fh)["dynamic_shared"].get(entry, 0)
    return kernel


def _device_args(flat):
    """`flat` with one-byte float arrays (fp8) seen as bytes: the kernel reads bytes,
    and a device image's NumPy may not know ml_dtypes' types ("data type '<f1' not
    understood"); the views share memory with the arrays compared afterwards."""
    import numpy as np

    def plain(a):
        if isinstance(a, np.ndarray) and a.dtype.itemsize == 1 and a.dtype.kind not in "iub":
            return a.view(np.uint8)
        if isinstance(a, tuple) and len(a) == 2 and isinstance(a[0], np.ndarray):
            return plain(a[0]), a[1]
        return a
    return [plain(a) for a in flat]


def _run(base, who, text, launch, kinds, seed):
    """Launch NAME.<who>.cubin on fresh random inputs; the arrays afterwards, by label."""
    import numpy as np
    from tilec.runtime import convert_scalars, entry_arg_types
    entry = re.search(r"entry @([\w$.]+)", text).group(1)
    kernel = _kernel(base, who, entry)
    flat, bases = _args(launch, np.random.default_rng(seed), kinds)
    kernel.launch(tuple(launch["grid"]), _device_args(convert_scalars(text, flat)), arg_dtypes=entry_arg_types(text),
                  timeout=60)
    return bases


def _wrote(after, launch, kinds):
    """Whether a run changed any array: `after` against the inputs regenerated."""
    import numpy as np
    _, before = _args(launch, np.random.default_rng(0), kinds)
    return any(not np.array_equal(np.asarray(a).view(np.uint8), np.asarray(b).view(np.uint8))
               for (_, a), (_, b) in zip(after, before))


def _attempt(row, base, who, text, launch, kinds, statuses):
    """(the arrays after `who`'s run, False), or (None, whether the context is lost)
    with `row` given statuses[0] for a fault, statuses[1] for another error."""
    try:
        return _run(base, who, text, launch, kinds, 0), False
    except Exception as e:  # noqa: BLE001 - every failure is a row
        import traceback
        at = traceback.extract_tb(e.__traceback__)[-1]     # where, for an error that is not the kernel's
        row.update(status=statuses[0] if _sticky(e) else statuses[1],
                   detail=f"{who}: {type(e).__name__}: {str(e).splitlines()[0][:160]}"
                          f" ({os.path.basename(at.filename)}:{at.lineno})")
        return None, _sticky(e)


def worker(corpus, art, jobs):
    """Run (file, launch) jobs in this process; one JSON line each. Exit 3 after a fault."""
    manifest = json.load(open(os.path.join(corpus, "manifest.json")))
    files = {r["file"]: r for r in manifest["files"]}
    for file, li in jobs:
        r = files[file]
        name = file[:-len(".tilebc")]
        base = os.path.join(art, name)
        row = {"file": file, "kernel": r["kernel"], "launch": li, "test": r["launches"][li]["test"]}
        launch = r["launches"][li]
        kinds = _kinds(r.get("constraints"))
        text = open(base + ".mlir").read()
        want, fatal = _attempt(row, base, "tileiras", text, launch, kinds, ("input-fault", "tileiras-error"))
        if want is not None:
            if not os.path.exists(base + ".tilec.cubin"):
                err = open(base + ".tilec.err").read().strip().splitlines() if os.path.exists(base + ".tilec.err") else []
                row.update(status="compile", detail=(err or ["no cubin"])[0][:200])
            else:
                got, fatal = _attempt(row, base, "tilec", text, launch, kinds, ("fault", "error"))
                if got is not None:
                    problems = [p for (lg, g), (_, w) in zip(got, want) if (p := _compare(lg, g, w))]
                    row.update(status="differs" if problems else "ok", detail=problems[0] if problems else "")
                    if not problems and not _wrote(want, launch, kinds):
                        # both left every array as it was: equal, but nothing was checked
                        row.update(status="no-writes", detail="neither kernel changed any array")
        print(json.dumps(row), flush=True)
        if fatal:
            sys.exit(3)


ROTATE = 4     # argument sets a rotating timing cycles through


def time_one(corpus, art, file, li, reps=10, warmup=3):
    """(tilec ms, tileiras ms) at one launch, each the median of `reps` replays
    of a CUDA graph of 20 launches (time_graph_ms: per-launch events around a
    10 us kernel time the host's launch instead); the same from events around
    single launches ("*_events"), as measured before; and from a graph whose
    launches cycle through ROTATE sets of arrays ("*_rotating": a model's
    layers call one kernel on other tensors each time, so tilec's device-built
    tensor maps are built again at every launch, where the same arrays keep
    them)."""
    import numpy as np
    from tilec.runtime import convert_scalars, entry_arg_types, median_ms, time_graph_ms, time_ms
    manifest = json.load(open(os.path.join(corpus, "manifest.json")))
    r = next(x for x in manifest["files"] if x["file"] == file)
    base = os.path.join(art, file[:-len(".tilebc")])
    text = open(base + ".mlir").read()
    launch, kinds = r["launches"][li], _kinds(r.get("constraints"))
    entry = re.search(r"entry @([\w$.]+)", text).group(1)
    types = entry_arg_types(text)
    out = {}
    for who in ("tilec", "tileiras"):
        kernel = _kernel(base, who, entry)
        flat, _ = _args(launch, np.random.default_rng(0), kinds)
        prep = kernel.prepare(tuple(launch["grid"]), _device_args(convert_scalars(text, flat)), arg_dtypes=types)
        prep.run()
        prep.wait(timeout=60)
        out[who + "_events"] = median_ms(time_ms(prep.run, reps=reps, warmup=warmup))
        try:
            out[who] = median_ms(time_graph_ms(prep.run, reps=reps, warmup=warmup))
        except Exception as e:  # noqa: BLE001 - a driver without graph capture: the events' time
            print(f"graph timing failed ({type(e).__name__}: {e}); single-launch events", file=sys.stderr)
            out[who] = out[who + "_events"]
            prep.free()
            continue
        preps = [prep]
        try:
            preps += [kernel.prepare(tuple(launch["grid"]), _device_args(convert_scalars(
                text, _args(launch, np.random.default_rng(i), kinds)[0])), arg_dtypes=types) for i in range(1, ROTATE)]
            turn = iter(range(1 << 30))
            out[who + "_rotating"] = median_ms(time_graph_ms(lambda stream: preps[next(turn) % ROTATE].run(stream),
                                                             reps=reps, warmup=warmup))
        except Exception as e:  # noqa: BLE001 - the plain numbers stand without it
            print(f"rotating timing failed ({type(e).__name__}: {e})", file=sys.stderr)
        for p in preps:
            p.free()
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus")
    ap.add_argument("artifacts")
    ap.add_argument("--prepare", action="store_true", help="make ARTIFACTS here (no GPU needed)")
    ap.add_argument("--prepare-ab", metavar="OTHER_TREE",
                    help="make ARTIFACTS here for an A/B of this checkout against another (see prepare_ab)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="--prepare's parallel compiles")
    ap.add_argument("--kernel", default=None, help="only kernels whose name matches this regex")
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--max-elements", type=float, default=3e7)
    ap.add_argument("--time-per-kernel", type=int, default=1, help="files of each kernel timed (0: none)")
    ap.add_argument("--time-only", action="store_true",
                    help="skip the comparison; time every file with both cubins (a replay already checked them)")
    ap.add_argument("--json", default=None)
    ap.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    ap.add_argument("--time-one", nargs=2, help=argparse.SUPPRESS)
    opts = ap.parse_args(argv)
    if opts.prepare:
        prepare(opts.corpus, opts.artifacts, opts.jobs)
        return 0
    if opts.prepare_ab:
        prepare_ab(opts.corpus, opts.artifacts, os.path.abspath(opts.prepare_ab), opts.kernel, opts.jobs)
        return 0
    if opts.worker:
        worker(opts.corpus, opts.artifacts, [(f, int(li)) for f, li in (j.split(":") for j in opts.worker)])
        return 0
    if opts.time_one:
        print(json.dumps(time_one(opts.corpus, opts.artifacts, opts.time_one[0], int(opts.time_one[1]))))
        return 0

    manifest = json.load(open(os.path.join(opts.corpus, "manifest.json")))
    jobs = []
    for r in manifest["files"]:
        if opts.kernel and not re.search(opts.kernel, r["kernel"]):
            continue
        if not os.path.exists(os.path.join(opts.artifacts, r["file"][:-len(".tilebc")] + ".tileiras.cubin")):
            continue     # tileiras does not compile it: nothing to hold tilec to
        jobs += [(r["file"], li) for li in _launches(r, opts.max_elements)]
    chunks = [jobs[i::opts.workers] for i in range(opts.workers)]
    me = [sys.executable, os.path.abspath(__file__), opts.corpus, opts.artifacts]
    rows = []

    def run_chunk(chunk):
        got = []
        while chunk:
            p = subprocess.run(me + ["--worker"] + [f"{f}:{li}" for f, li in chunk],
                               capture_output=True, text=True, timeout=900)
            done = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
            for row in done:
                print(f"{row['file']:<56} {row['launch']} {row['status']:<12} {row['detail']}", flush=True)
            got += done
            if not done:   # the worker died before its first answer: report it, go on without it
                f, li = chunk[0]
                got.append({"file": f, "launch": li, "status": "crash", "kernel": "?",
                            "detail": (p.stderr.strip().splitlines() or ["no output"])[-1][:200]})
                print(f"{f:<56} {li} crash        {got[-1]['detail']}", flush=True)
                done = [None]
            chunk = chunk[len(done):]
        return got

    t0 = time.time()
    with ThreadPoolExecutor(max_workers=opts.workers) as pool:
        for got in pool.map(run_chunk, [] if opts.time_only else chunks):
            rows += got
    counts = {}
    for row in rows:
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    print("summary: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
          + f" of {len(rows)} launches, {time.time() - t0:.0f} s", flush=True)

    timings = []
    if opts.time_per_kernel:
        seen = {}
        ok = set(jobs) if opts.time_only else {(row["file"], row["launch"]) for row in rows if row["status"] == "ok"}
        for r in manifest["files"]:
            lis = [li for li in _launches(r, opts.max_elements) if (r["file"], li) in ok]
            if not lis or seen.get(r["kernel"], 0) >= opts.time_per_kernel:
                continue
            seen[r["kernel"]] = seen.get(r["kernel"], 0) + 1
            li = lis[-1]
            try:
                p = subprocess.run(me + ["--time-one", r["file"], str(li)], capture_output=True, text=True,
                                   timeout=120)
                t = json.loads(p.stdout.strip().splitlines()[-1])
            except Exception as e:  # noqa: BLE001
                print(f"time {r['file']}: {type(e).__name__}: {e}", flush=True)
                continue
            t.update(file=r["file"], kernel=r["kernel"], launch=li)
            timings.append(t)
            rot = (f"; other arrays each launch: {t['tilec_rotating']:.4f} / {t['tileiras_rotating']:.4f} ms"
                   if "tilec_rotating" in t and "tileiras_rotating" in t else "")
            print(f"time {r['file']:<56} tilec {t['tilec']:9.4f} ms  tileiras {t['tileiras']:9.4f} ms  "
                  f"tilec/tileiras throughput {t['tileiras'] / t['tilec']:6.3f}  (single-launch events: "
                  f"{t['tilec_events']:.4f} / {t['tileiras_events']:.4f} ms{rot})", flush=True)
    if timings:
        import math
        geo = math.exp(sum(math.log(t["tileiras"] / t["tilec"]) for t in timings) / len(timings))
        print(f"timing: geometric mean of tilec/tileiras throughput over {len(timings)} kernels: {geo:.3f}")
    if opts.json:
        with open(opts.json, "w") as fh:
            json.dump({"rows": rows, "timings": timings}, fh, indent=1)
    return 0 if counts.get("ok", 0) + counts.get("input-fault", 0) == len(rows) else 1   # no-writes fails too


if __name__ == "__main__":
    sys.exit(main())
