#!/usr/bin/env python3
"""Flash attention on the GPU: tilec's PTX against torch's SDPA and NVIDIA's tileiras.

O = softmax(Q K^T * scale) V for f16 Q, K, V, O of shape (H, S, D), by default
H = 64, S = 4096, D = 64 (issue 19's measurement), with
examples/cutile/attention_m128_f16.mlir: each tile block computes 128 query rows
of one head, walking the keys 64 at a time with an online softmax; the grid is
(S / 128, H, 1). Parameters follow cuTile's array convention, (pointer, shape
(3), strides (3)) for Q, K, V and O, then the f32 scale: 29 in all.

Measured in one process on the same buffers and stream, like matmul_gpu.py:
- tilec: `compile_text(text, arch)` (or `--ptx FILE`), loaded by the driver;
- torch: `torch.nn.functional.scaled_dot_product_attention(q, k, v)`;
- tileiras (`--tileiras-cubin PATH`, from benchmarks/make_tileiras_cubin.sh with
  this kernel): NVIDIA's cubin of the same text, same arguments and grid.

Each runs --warmup times, then --reps times (at least 20) between CUDA events;
the median gives TFLOP/s = 4 H S^2 D / time (the two products). Results are
checked against an f32 torch reference: |O - ref| <= 5e-3 (1 + |ref|).

Exit status: 0 all ran and matched (also: no GPU, unless --require-gpu);
1 tilec failed or a result MISMATCH; 2 no GPU with --require-gpu; 3 no torch.

    python benchmarks/attention_gpu.py [--heads 64] [--seq 4096] [--arch sm_90a]
        [--wgmma | --no-wgmma] [--tileiras-cubin FILE] [--ptx FILE] [--save-ptx FILE] [--reps 30]
"""
from __future__ import annotations

import argparse
import math
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

KERNEL = os.path.join(ROOT, "examples", "cutile", "attention_m128_f16.mlir")
TOL = 5e-3


def _shapes(text):
    """(entry name, query rows per block, head dimension) of the kernel's text."""
    entry = re.search(r"entry @(\w+)", text)
    tile = re.search(r"store_view_tko[^\n]*partition_view<tile=\(1x(\d+)x(\d+)\)", text)
    if not entry or not tile:
        raise SystemExit("attention_gpu: cannot find the entry or the output tile in the kernel")
    return entry.group(1), int(tile.group(1)), int(tile.group(2))


def _check(torch, name, o, ref):
    err = (o.float() - ref).abs()
    bound = TOL * (1 + ref.abs())
    nbad = int((err > bound).sum().item())
    if nbad or not bool(torch.isfinite(o).all().item()):
        print(f"!!! {name}: RESULT MISMATCH: {nbad} of {o.numel()} elements off "
              f"(max |err| {float(err.max().item()):.3g})")
        return False
    print(f"{name}: result ok (max |err| {float(err.max().item()):.2e})")
    return True


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--heads", type=int, default=64)
    ap.add_argument("--seq", type=int, default=4096)
    ap.add_argument("--arch", default="sm_90a", choices=["sm_80", "sm_90a"])
    ap.add_argument("--wgmma", dest="wgmma", action="store_const", const=True, default=None)
    ap.add_argument("--no-wgmma", dest="wgmma", action="store_const", const=False)
    ap.add_argument("--kernel", default=KERNEL, help="the kernel's text (default the example)")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--tileiras-cubin", help="NVIDIA's cubin of the same kernel (make_tileiras_cubin.sh)")
    ap.add_argument("--ptx", help="launch this PTX instead of compiling the kernel")
    ap.add_argument("--save-ptx", help="write the PTX tilec produced here")
    ap.add_argument("--require-gpu", action="store_true", help="exit 2 (not 0) when there is no GPU")
    opts = ap.parse_args(argv)
    reps = max(opts.reps, 20)
    with open(opts.kernel) as fh:
        text = fh.read()
    entry, bm, d = _shapes(text)

    from tilec.runtime import cuda_available, unavailable_reason
    if not cuda_available():
        print(f"attention_gpu: SKIPPED, no GPU: {unavailable_reason()}")
        return 2 if opts.require_gpu else 0
    try:
        import torch
    except ImportError as e:
        print(f"attention_gpu: torch is needed for the data and the baseline ({e})")
        return 3
    from tilec.runtime import device_info, entry_arg_types, load_ptx, median_ms, time_ms
    from gpu_report import run_once_then_time, time_tileiras

    h, s = opts.heads, opts.seq
    grid = (-(-s // bm), h, 1)
    flops = 4.0 * h * s * s * d
    dev = device_info()
    print(f"device: {dev['name']} (sm_{dev['cc'][0]}{dev['cc'][1]}, {dev['sms']} SMs), torch {torch.__version__}")
    print(f"attention f16 H={h} S={s} D={d}; {os.path.relpath(opts.kernel, ROOT)}: {bm} query rows per block, "
          f"grid {grid}; median of {reps} timed runs after {opts.warmup} warm-up runs")
    torch.manual_seed(0)
    cuda = torch.device("cuda")
    q, k, v = (torch.randn((h, s, d), dtype=torch.float16, device=cuda) for _ in range(3))
    scale = 1.0 / math.sqrt(d)
    ref = torch.softmax((q.float() @ k.float().transpose(1, 2)) * scale, dim=-1) @ v.float()
    stream = torch.cuda.current_stream().cuda_stream
    types = entry_arg_types(text)

    def args_for(o):
        out = []
        for t in (q, k, v, o):
            out += [t.data_ptr(), h, s, d, s * d, d, 1]
        return out + [scale]

    results, ok = {}, True
    o_torch = torch.empty_like(q)

    def sdpa():
        # (1, H, S, D): 3-d inputs would be read as a batch of H single-head problems,
        # which SDPA runs on its slow math kernel
        o_torch.copy_(torch.nn.functional.scaled_dot_product_attention(q[None], k[None], v[None])[0])
    results["torch"] = median_ms(time_ms(sdpa, reps=reps, warmup=opts.warmup, stream=stream))
    ok &= _check(torch, "torch SDPA", o_torch, ref)

    tilec_failed = False
    try:
        if opts.ptx:
            with open(opts.ptx) as fh:
                ptx = fh.read()
        else:
            from tilec.codegen.ptx import compile_text
            t0 = time.perf_counter()
            ptx = compile_text(text, arch=opts.arch, wgmma=opts.wgmma)
            print(f"tilec: compiled for {opts.arch} in {time.perf_counter() - t0:.2f} s")
        if opts.save_ptx:
            with open(opts.save_ptx, "w") as fh:
                fh.write(ptx)
        kernel = load_ptx(ptx).kernel(entry)
        print(f"tilec: block {kernel.block}, {kernel.attribute('NUM_REGS')} registers/thread")
        o_tilec = torch.zeros_like(q)
        checked = []
        results["tilec"] = run_once_then_time(kernel, grid, args_for(o_tilec), types, stream, reps, opts.warmup,
                                              lambda: checked.append(_check(torch, "tilec", o_tilec, ref)))
        ok &= all(checked)
    except Exception as e:   # noqa: BLE001 - reported; the peers still run
        print(f"!!! tilec FAILED: {type(e).__name__}: {e}")
        tilec_failed = True

    ms, good = time_tileiras(opts.tileiras_cubin, entry, types, grid, stream, reps, opts.warmup,
                             lambda: torch.zeros_like(q), args_for, lambda o: _check(torch, "tileiras", o, ref))
    ok &= good
    if ms is not None:
        results["tileiras"] = ms

    from gpu_report import report
    return report("attention_gpu", results, flops, tilec_failed, ok)


if __name__ == "__main__":
    sys.exit(main())
