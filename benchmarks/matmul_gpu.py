#!/usr/bin/env python3
"""f16 matmul on the GPU: tilec's PTX against torch.matmul (cuBLAS) and NVIDIA's tileiras.

Other operand types with --kernel and --dtype (default: the kernel's): bf16 against
torch.matmul, fp8 e4m3 (B given N x K, f16 out) against torch._scaled_mm. With --batch,
a batched kernel (rank-3 arrays, the batch on grid axis 2; export_cutile_matmul.py's
`bmm:`) against torch.bmm.

C = A @ B for row-major f16 A (M x K), B (K x N), C (M x N), by default
M = N = K = 4096, with examples/cutile/matmul_f16.mlir: each tile block computes
one 64x64 tile of C (f32 accumulation over 64x32 / 32x64 tiles of A and B), so
the grid is (M/64, N/64, 1). Its parameters follow cuTile's array convention,
(pointer, shape..., strides...) for A, B and C: 15 in all.

Measured in one process, on the same device buffers and the same CUDA stream:
- tilec: `tilec.codegen.ptx.compile_text(text, arch, num_warps)` (or `--ptx FILE`),
  JIT-loaded by the driver, block size from the PTX's `.reqntid`;
- torch: `torch.matmul(A, B, out=C)`;
- tileiras (with `--tileiras-cubin PATH`, made by benchmarks/make_tileiras_cubin.sh):
  NVIDIA's cubin of the same kernel, loaded with cuModuleLoad and launched with
  the same 15 arguments and grid. Its block size is read from the cubin itself:
  EIATTR_REQNTID in the kernel's `.nv.info` section, the value `.reqntid`
  becomes (the same number `cuobjdump --dump-elf` prints); the driver's
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK is only an upper bound (1024 for a
  kernel that states none), so it is printed as a cross-check, and used only
  when the cubin states no REQNTID/MAX_THREADS.

Each is run --warmup times, then timed --reps times (at least 20) with CUDA
events around each launch; the median gives TFLOP/s = 2*M*N*K / time. The
ratios printed are throughputs: tilec/torch and tilec/tileiras (1.0 = as fast).
tilec's (and tileiras's) C is checked against an f32 torch reference,
|C - ref| <= 2e-3 * (|A| @ |B|) + 1e-6 (the interpreter tests' f16 bound).

Exit status: 0 all ran and matched (also: no GPU, unless --require-gpu);
1 tilec failed to compile or launch, or a result MISMATCH; 2 no GPU with
--require-gpu; 3 torch missing.

    python benchmarks/matmul_gpu.py [--size 4096] [--arch sm_90a] [--num-warps 4]
        [--wgmma | --no-wgmma] [--tileiras-cubin FILE] [--ptx FILE] [--save-ptx FILE] [--reps 30] [--warmup 5]
        [--stamps FILE.npz] [--ab-ptx FILE [--ab-ptx FILE]]

--ab-ptx: another PTX of the same kernel, timed as tilec_b in the same run (ratio tilec/tilec_b); a
second one as tilec_c.

--stamps: each CTA's entry, tensor maps claimed/keyed/ready, first pipeline data and exit
(tilec.runtime.stamps) from one more launch, to see how the CTAs of a launch move in step.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

KERNEL = os.path.join(ROOT, "examples", "cutile", "matmul_f16.mlir")
ENTRY = "matmul_f16"     # the example's entry; another --kernel names its own (`entry @name`)
RTOL = 2e-3


def _tile_of_output(text):
    """The (rows, cols) tile of the partition view C is stored through."""
    m = re.search(r"store_view_tko[^\n]*partition_view<tile=\((?:1x)?(\d+)x(\d+)\)", text)
    if not m:
        raise SystemExit("matmul_gpu: cannot find the output tile size in " + KERNEL)
    return int(m.group(1)), int(m.group(2))


def tiled_kernel(text, tile):
    """The example with other tile sizes: tile = (BM, BN, BK) makes A's tiles BMxBK,
    B's BKxBN and the accumulator and C's BMxBN (the example is (64, 64, 32))."""
    bm, bn, bk = tile
    subst = {"64x32": f"{bm}x{bk}", "32x64": f"{bk}x{bn}", "64x64": f"{bm}x{bn}"}
    return re.sub(r"\b(64x32|32x64|64x64)(?=xf|\))", lambda m: subst[m.group(1)], text)


# operand type -> (the kernel text's element type, the output's, B given N x K)
DTYPES = {"f16": ("f16", "f16", False), "bf16": ("bf16", "bf16", False), "fp8": ("f8E4M3FN", "f16", True)}


def _dtype_of(text):
    """The operand type the kernel's first tensor view names (f16 when none matches)."""
    m = re.search(r"tensor_view<[?x0-9]*x(\w+),", text)
    return next((k for k, v in DTYPES.items() if m and v[0] == m.group(1)), "f16")


def _operands(torch, dtype, M, N, K, dev_t, batch=None):
    """A, the B the kernel takes (K x N, or N x K for fp8), the output type, and
    the f32 reference and |A| |B| scale of the check; `batch` A, B of them."""
    if batch:
        t = {"f16": torch.float16, "bf16": torch.bfloat16}[dtype]
        a = torch.randn((batch, M, K), dtype=t, device=dev_t)
        b = torch.randn((batch, K, N), dtype=t, device=dev_t)
        return a, b, t, a.float() @ b.float(), a.abs().float() @ b.abs().float()
    if dtype == "fp8":
        a = (torch.randn((M, K), device=dev_t) * 4).to(torch.float8_e4m3fn)
        bt = torch.randn((N, K), device=dev_t).to(torch.float8_e4m3fn)
        af, bf = a.float(), bt.float().t()
        return a, bt, torch.float16, af @ bf, af.abs() @ bf.abs()
    t = {"f16": torch.float16, "bf16": torch.bfloat16}[dtype]
    a = torch.randn((M, K), dtype=t, device=dev_t)
    b = torch.randn((K, N), dtype=t, device=dev_t)
    return a, b, t, a.float() @ b.float(), a.abs().float() @ b.abs().float()


def _torch_peer(torch, dtype, a, b, c):
    """torch's kernel for the same product: cuBLAS's matmul, or _scaled_mm for fp8."""
    if dtype == "fp8":
        one = torch.ones((), dtype=torch.float32, device=a.device)
        return "torch._scaled_mm", lambda: c.copy_(torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one,
                                                                    out_dtype=torch.float16))
    if a.dim() == 3:
        return "torch.bmm", lambda: torch.bmm(a, b, out=c)
    return "torch.matmul", lambda: torch.matmul(a, b, out=c)


def _check(torch, name, c, ref, scale):
    rtol = RTOL if c.dtype != torch.bfloat16 else 4 * RTOL     # bf16 output: 8 bits of mantissa
    err = (c.float() - ref).abs()
    bound = rtol * scale + 1e-6
    bad = err > bound
    nbad = int(bad.sum().item())
    worst = float((err / bound).max().item())
    rel = float((err / scale.clamp_min(1e-30)).max().item())
    if nbad or not bool(torch.isfinite(c).all().item()):
        idx = bad.nonzero()[:5].tolist()
        sample = ", ".join(f"{tuple(i)}: {float(c[tuple(i)]):.4g} vs {float(ref[tuple(i)]):.4g}" for i in idx)
        print(f"!!! {name}: RESULT MISMATCH: {nbad} of {c.numel()} elements off "
              f"(worst {worst:.3g}x the bound, max |err|/sum|a*b| {rel:.3g}); first: {sample}")
        return False
    print(f"{name}: result ok (max |err| / sum|a*b| = {rel:.2e}, bound {rtol:g})")
    return True


def _write_stamps(module, entry, grid, kernel, args, types, path):
    """One more launch of a stamped kernel; its CTAs' phases to `path` and a summary line."""
    import numpy as np
    from tilec.runtime import stamps
    stamps.clear(module, entry)
    prep = kernel.prepare(grid, args, arg_dtypes=types)
    prep.run()
    prep.wait(timeout=120)
    t = stamps.read(module, entry, grid)
    np.savez(path, grid=np.array(grid), **t)
    print(f"tilec stamps: {stamps.summary(t)} -> {path}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=4096, help="M = N = K (default 4096)")
    ap.add_argument("--k", type=int, help="K alone (default --size): a sweep over K parts a CTA's fixed "
                    "cost (start-up, pipeline fill, epilogue) from its cost per K step")
    ap.add_argument("--batch", type=int, help="a batched matmul of this many products (rank-3 arrays, "
                    "the batch on grid axis 2, 21 parameters), against torch.bmm")
    ap.add_argument("--arch", default="sm_90a", choices=["sm_80", "sm_90a"])
    ap.add_argument("--num-warps", type=int, default=None, help="default: the compiler's choice")
    ap.add_argument("--wgmma", dest="wgmma", action="store_const", const=True, default=None,
                    help="tilec: wgmma for every dot that fits (sm_90a)")
    ap.add_argument("--no-wgmma", dest="wgmma", action="store_const", const=False, help="tilec: mma.sync only")
    ap.add_argument("--kernel", default=KERNEL, help="the kernel's text (default the example); "
                    "same 15 parameters and entry name, e.g. from benchmarks/export_cutile_matmul.py")
    ap.add_argument("--tile", help="BMxBNxBK: the example with these tile sizes (default 64x64x32)")
    ap.add_argument("--write-kernel", metavar="FILE", help="write the (tiled) kernel's text to FILE and exit")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--tileiras-cubin", help="NVIDIA's cubin of the same kernel (make_tileiras_cubin.sh)")
    ap.add_argument("--ptx", help="launch this PTX instead of compiling the kernel")
    ap.add_argument("--save-ptx", help="write the PTX tilec produced here")
    ap.add_argument("--ab-ptx", action="append", default=[],
                    help="also time this PTX of the same kernel (tilec_b; a second --ab-ptx: tilec_c), same "
                    "buffers and stream: an A/B of tilec builds, e.g. one made with TILEC_FIRST_FILLS=0")
    ap.add_argument("--stamps", metavar="FILE", help="compile tilec's kernel with --stamps (or launch a --ptx "
                    "compiled so), launch it once more after the timing and write each CTA's phases (us after "
                    "the launch's first entry) to FILE (.npz, with the grid)")
    ap.add_argument("--require-gpu", action="store_true", help="exit 2 (not 0) when there is no GPU")
    ap.add_argument("--dtype", choices=sorted(DTYPES), help="the operands' type (default: the kernel's); "
                    "fp8 kernels take B as N x K (K-major, torch._scaled_mm's layout) and write f16")
    opts = ap.parse_args(argv)
    reps = max(opts.reps, 20)
    with open(opts.kernel) as fh:
        text = fh.read()
    if opts.tile:
        try:
            tile = tuple(int(v) for v in opts.tile.lower().split("x"))
            assert len(tile) == 3
        except (ValueError, AssertionError):
            ap.error(f"--tile takes BMxBNxBK, not {opts.tile!r}")
        text = tiled_kernel(text, tile)
    found = re.search(r"\bentry\s+@([\w$.]+)", text)
    entry = found.group(1) if found else ENTRY
    if opts.write_kernel:
        with open(opts.write_kernel, "w") as fh:
            fh.write(text)
        return 0

    from tilec.runtime import cuda_available, unavailable_reason
    if not cuda_available():
        print(f"matmul_gpu: SKIPPED, no GPU: {unavailable_reason()}")
        return 2 if opts.require_gpu else 0
    try:
        import torch
    except ImportError as e:
        print(f"matmul_gpu: torch is needed for the data and the baseline ({e})")
        return 3

    from tilec.runtime import device_info, entry_arg_types, load_ptx, median_ms, time_ms
    from gpu_report import run_once_then_time, time_tileiras

    tm, tn = _tile_of_output(text)
    M = N = K = opts.size
    K = opts.k or K
    grid = (-(-M // tm), -(-N // tn), opts.batch or 1)
    flops = 2.0 * M * N * K * (opts.batch or 1)
    dev = device_info()
    print(f"device: {dev['name']} (sm_{dev['cc'][0]}{dev['cc'][1]}, {dev['sms']} SMs), "
          f"torch {torch.__version__}")
    dtype = opts.dtype or _dtype_of(text)
    print(f"matmul {dtype} {str(opts.batch) + ' x ' if opts.batch else ''}{M}x{N}x{K}, f32 accumulation; {os.path.relpath(opts.kernel, ROOT)}"
          f"{' with tiles ' + opts.tile if opts.tile else ''}: {tm}x{tn} output tiles, "
          f"grid {grid}; median of {reps} timed runs after {opts.warmup} warm-up runs")

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.manual_seed(0)
    dev_t = torch.device("cuda")
    a, b, out_t, ref, scale = _operands(torch, dtype, M, N, K, dev_t, opts.batch)
    out_shape = tuple(ref.shape)
    stream = torch.cuda.current_stream().cuda_stream

    def args_for(c):
        # cuTile's convention per array: pointer, shape (rank), strides in elements (rank)
        return [v for t in (a, b, c) for v in (t.data_ptr(), *t.shape, *t.stride())]

    types = entry_arg_types(text)
    results, ok = {}, True

    # ---- torch ----
    c_torch = torch.empty(out_shape, dtype=out_t, device=dev_t)
    peer, run_peer = _torch_peer(torch, dtype, a, b, c_torch)
    results["torch"] = median_ms(time_ms(run_peer, reps=reps, warmup=opts.warmup, stream=stream))
    ok &= _check(torch, peer, c_torch, ref, scale)

    # ---- tilec ----
    tilec_failed = False
    try:
        if opts.ptx:
            with open(opts.ptx) as fh:
                ptx = fh.read()
            print(f"tilec: PTX from {opts.ptx}")
        else:
            from tilec.codegen.ptx import compile_text
            t0 = time.perf_counter()
            ptx = compile_text(text, arch=opts.arch, num_warps=opts.num_warps, wgmma=opts.wgmma,
                               stamps=bool(opts.stamps))
            print(f"tilec: compiled for {opts.arch}, num_warps {opts.num_warps}"
                  f"{ {True: ', --wgmma', False: ', --no-wgmma'}.get(opts.wgmma, '')}, "
                  f"in {time.perf_counter() - t0:.2f} s")
        if opts.save_ptx:
            with open(opts.save_ptx, "w") as fh:
                fh.write(ptx)
        module = load_ptx(ptx)
        kernel = module.kernel(entry)
        print(f"tilec: block {kernel.block}, {kernel.attribute('NUM_REGS')} registers/thread, "
              f"{kernel.attribute('SHARED_SIZE_BYTES')} B static shared memory")
        c_tilec = torch.zeros(out_shape, dtype=out_t, device=dev_t)
        checked = []
        results["tilec"] = run_once_then_time(kernel, grid, args_for(c_tilec), types, stream, reps, opts.warmup,
                                              lambda: checked.append(_check(torch, "tilec", c_tilec, ref, scale)))
        ok &= all(checked)
        if opts.stamps:
            _write_stamps(module, entry, grid, kernel, args_for(c_tilec), types, opts.stamps)
    except Exception as e:   # noqa: BLE001 - any failure is reported, then the peers still run
        print(f"!!! tilec FAILED: {type(e).__name__}: {e}")
        tilec_failed = True

    for name, path in zip(("tilec_b", "tilec_c"), opts.ab_ptx):       # ---- tilec's other builds ----
        try:
            with open(path) as fh:
                kernel_b = load_ptx(fh.read()).kernel(entry)
            c_b, checked = torch.zeros(out_shape, dtype=out_t, device=dev_t), []
            results[name] = run_once_then_time(kernel_b, grid, args_for(c_b), types, stream, reps, opts.warmup,
                                               lambda: checked.append(_check(torch, name, c_b, ref, scale)))
            ok &= all(checked)
        except Exception as e:   # noqa: BLE001 - reported; the other peers still run
            print(f"!!! {name} ({path}) could not run: {type(e).__name__}: {e}")
            ok = False

    # ---- tileiras ----
    ms, good = time_tileiras(opts.tileiras_cubin, entry, types, grid, stream, reps, opts.warmup,
                             lambda: torch.zeros(out_shape, dtype=out_t, device=dev_t), args_for,
                             lambda c: _check(torch, "tileiras", c, ref, scale))
    ok &= good
    if ms is not None:
        results["tileiras"] = ms

    from gpu_report import report
    return report("matmul_gpu", results, flops, tilec_failed, ok)


if __name__ == "__main__":
    sys.exit(main())
