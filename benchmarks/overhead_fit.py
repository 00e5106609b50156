"""Part a matmul's time into a CTA's fixed cost and its cost per K step.

Reads the log of `gpu_session.sh overhead`: matmul_gpu.py runs of one kernel at
M = N fixed and several K. One CTA computes one output tile, so a launch runs
`waves` = ceil(tiles / SMs) rounds of CTAs, and each round costs
    fixed + steps * per_step      (steps = K / BK)
where `fixed` is start-up (barriers, tensor maps), pipeline fill and epilogue.
A least-squares line through (steps, ms / waves) gives both, per compiler, and
their ratio says which part of the gap to the peer is which.

    python benchmarks/overhead_fit.py gpu-out/overhead.log [--bk 64] [--tile 128x128]
"""
import argparse
import math
import re
import sys


def parse(lines):
    """[(M, N, K, {peer: ms})], and the SM count from the device line."""
    runs, sms, cur = [], None, None
    for line in lines:
        m = re.search(r"(\d+) SMs\)", line)
        if m:
            sms = int(m.group(1))
        m = re.match(r"matmul \S+ (?:\d+ x )?(\d+)x(\d+)x(\d+),", line)
        if m:
            cur = (int(m.group(1)), int(m.group(2)), int(m.group(3)), {})
            runs.append(cur)
            continue
        m = re.match(r"(tilec|tileiras|torch)\s+([\d.]+)\s+[\d.]+\s*$", line)
        if m and cur is not None:
            cur[3][m.group(1)] = float(m.group(2))
    return runs, sms


def fit(points):
    """Least squares y = a + b x over [(x, y)]: (a, b)."""
    n = len(points)
    sx = sum(x for x, _ in points)
    sy = sum(y for _, y in points)
    sxx = sum(x * x for x, _ in points)
    sxy = sum(x * y for x, y in points)
    den = n * sxx - sx * sx
    b = (n * sxy - sx * sy) / den
    return (sy - b * sx) / n, b


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("log")
    ap.add_argument("--bk", type=int, default=64, help="the kernel's K tile (default 64)")
    ap.add_argument("--tile", default="128x128", help="the kernel's output tile BMxBN (default 128x128)")
    opts = ap.parse_args(argv)
    with open(opts.log) as fh:
        runs, sms = parse(fh)
    if not runs or sms is None:
        print("overhead_fit: no matmul runs (or no device line) in " + opts.log)
        return 1
    bm, bn = (int(v) for v in opts.tile.split("x"))
    fits = {}
    for peer in ("tilec", "tileiras"):
        pts = []
        for M, N, K, ms in runs:
            if peer in ms:
                waves = math.ceil(math.ceil(M / bm) * math.ceil(N / bn) / sms)
                pts.append((K / opts.bk, 1000.0 * ms[peer] / waves))
        if len({x for x, _ in pts}) < 2:
            continue
        fits[peer] = fit(pts)
        a, b = fits[peer]
        print(f"{peer:9s} fixed {a:7.2f} us per CTA, {1000.0 * b:7.1f} ns per K step "
              f"({len(pts)} sizes, {waves} waves at K={runs[-1][2]})")
    if len(fits) == 2:
        (a0, b0), (a1, b1) = fits["tilec"], fits["tileiras"]
        print(f"ratio tilec/tileiras: fixed {a0 / a1 if a1 > 0 else float('inf'):.2f}x, "
              f"per K step {b0 / b1:.3f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
