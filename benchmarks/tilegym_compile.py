#!/usr/bin/env python3
"""Compile the TileGym bytecode corpus with tilec and compare with tileiras.

    python benchmarks/tilegym_compile.py OUTDIR [--arch sm_90a sm_80] [--jobs N] [--timeout S] [--all]
                                                [--kernel REGEX] [--max-per-kernel N] [--json FILE]

OUTDIR is what benchmarks/tilegym_export.py wrote (manifest.json and
<kernel>__<n>.tilebc). Each file that tileiras compiles for the matching arch
(sm_90 for sm_90a; --all: every file) is compiled by `tilec compile FILE --arch
ARCH -o /dev/null` in a subprocess with a timeout. Prints one row per file
(tileiras sm_90 / sm_80, tilec per arch, the first line of tilec's error), a
per-kernel summary, the failures grouped by cause (with the smallest file of
each group and the command that reproduces it), and a summary line. Results
also go to OUTDIR/tilec_results.json (or --json).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

TILEIRAS_ARCH = {"sm_90a": "sm_90", "sm_90": "sm_90", "sm_80": "sm_80", "sm_86": "sm_80", "sm_89": "sm_80"}


def first_error(output, rc):
    """The line that says why tilec failed: a diagnostic, or a traceback's exception line."""
    lines = [l.rstrip() for l in output.splitlines() if l.strip()]
    if any(l.startswith("Traceback") for l in lines):
        exc = [l for l in lines if re.match(r"^[A-Za-z_.]*(Error|Exception|Interrupt)\b", l)]
        return "internal error: " + (exc[-1] if exc else lines[-1])
    for l in lines:
        if "error:" in l:
            return l
    return lines[0] if lines else "exit status %d, no output" % rc


def compile_one(path, arch, timeout):
    t0 = time.monotonic()
    cmd = ["tilec", "compile", path, "--arch", arch, "-o", os.devnull]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": "timeout after %ds" % timeout, "s": round(time.monotonic() - t0, 1)}
    res = {"ok": r.returncode == 0, "s": round(time.monotonic() - t0, 1)}
    if r.returncode != 0:
        res["error"] = first_error(r.stderr + r.stdout, r.returncode)
    return res


def cause(error):
    """A failure's group: the error text without file names, locations, numbers, types and names."""
    e = re.sub(r"^.*?error:\s*", "", error)
    e = re.sub(r"internal error: ", "internal: ", e)
    e = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", "'…'", e)
    e = re.sub(r"%[\w#]+", "%v", e)
    e = re.sub(r"<[^<>]*>", "<…>", e)
    e = re.sub(r"\b\d+(x\d+)*\b", "N", e)
    e = re.sub(r"\b(sm_\w+)\b", "ARCH", e)
    return e[:140]


def mark(res):
    if res is None:
        return "-"
    return "ok" if res.get("ok") else "FAIL"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("outdir")
    p.add_argument("--arch", nargs="+", default=["sm_90a", "sm_80"])
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    p.add_argument("--timeout", type=int, default=300)
    p.add_argument("--all", action="store_true", help="also files tileiras rejects")
    p.add_argument("--kernel", help="regex on the file name")
    p.add_argument("--max-per-kernel", type=int, default=0,
                   help="compile an evenly spaced sample of at most N files per kernel (0: all)")
    p.add_argument("--json", help="where to write results (default OUTDIR/tilec_results.json)")
    args = p.parse_args()

    manifest = json.load(open(os.path.join(args.outdir, "manifest.json")))
    files = manifest["files"]
    if args.kernel:
        files = [f for f in files if re.search(args.kernel, f["file"])]
    if args.max_per_kernel:
        by_kernel = defaultdict(list)
        for f in files:
            by_kernel[f["kernel"]].append(f)
        files = []
        for fs in by_kernel.values():
            step = max(1.0, len(fs) / args.max_per_kernel)
            files += [fs[int(i * step)] for i in range(min(len(fs), args.max_per_kernel))]
    jobs = []
    for f in files:
        for arch in args.arch:
            ref = f.get("tileiras", {}).get(TILEIRAS_ARCH.get(arch, arch))
            if args.all or (ref and ref.get("ok")):
                jobs.append((f, arch))
    t0 = time.monotonic()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda fa: compile_one(os.path.join(args.outdir, fa[0]["file"]), fa[1],
                                                       args.timeout), jobs))
    tilec = defaultdict(dict)
    for (f, arch), res in zip(jobs, results):
        tilec[f["file"]][arch] = res

    # One row per file, grouped by kernel.
    w = max([len(f["file"]) for f in files] + [10])
    head = "%-*s  %-8s %-8s " % (w, "file", "ias_sm90", "ias_sm80") + " ".join("%-8s" % ("tc_" + a) for a in args.arch)
    print(head + "  first tilec error")
    print("-" * (len(head) + 20))
    per_kernel = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for f in sorted(files, key=lambda f: (f["kernel"], int(f["file"].rsplit("__", 1)[1].split(".")[0]))):
        ti = f.get("tileiras", {})
        row = "%-*s  %-8s %-8s " % (w, f["file"], mark(ti.get("sm_90")), mark(ti.get("sm_80")))
        row += " ".join("%-8s" % mark(tilec[f["file"]].get(a)) for a in args.arch)
        errs = [tilec[f["file"]][a]["error"] for a in args.arch if tilec[f["file"]].get(a, {}).get("error")]
        print(row + ("  " + errs[0][:160] if errs else ""))
        for a in args.arch:
            r = tilec[f["file"]].get(a)
            if r is not None:
                per_kernel[f["kernel"]][a][0] += r["ok"]
                per_kernel[f["kernel"]][a][1] += 1

    print("\nper kernel (tilec ok / files tileiras compiles):")
    for k in sorted(per_kernel):
        print("  %-45s " % k + "  ".join("%s %d/%d" % (a, *per_kernel[k][a]) for a in args.arch))

    # Failures grouped by cause, each with its smallest reproducer.
    groups = defaultdict(list)
    for (f, arch), res in zip(jobs, results):
        if not res["ok"]:
            groups[(arch, cause(res["error"]))].append((f, res))
    if groups:
        print("\nfailures by cause:")
        for (arch, c), items in sorted(groups.items(), key=lambda kv: (kv[0][0], -len(kv[1]))):
            f, res = min(items, key=lambda it: it[0].get("bytes", 0))
            kernels = sorted({it[0]["kernel"] for it in items})
            print("  [%s] %d file(s), kernels %s" % (arch, len(items), ", ".join(kernels)))
            print("      %s" % res["error"][:300])
            print("      tilec compile %s --arch %s -o /dev/null" % (os.path.join(args.outdir, f["file"]), arch))

    out = args.json or os.path.join(args.outdir, "tilec_results.json")
    with open(out, "w") as fh:
        json.dump({k: v for k, v in tilec.items()}, fh, indent=1)
    total = {a: [sum(1 for (f, aa), r in zip(jobs, results) if aa == a and r["ok"]),
                 sum(1 for f, aa in jobs if aa == a)] for a in args.arch}
    print("\nsummary: %d files (%d kernels); tilec " % (len(files), len({f["kernel"] for f in files}))
          + ", ".join("%s %d/%d" % (a, *total[a]) for a in args.arch)
          + " of the files tileiras compiles; %.0fs" % (time.monotonic() - t0))
    return 0 if all(ok == n for ok, n in total.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
