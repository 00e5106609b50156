"""What the GPU benchmarks (matmul_gpu.py, attention_gpu.py) share: a launch run
once (for the check) then timed, tileiras's kernel from its cubin, and the
summary: each peer's median time and TFLOP/s, tilec's throughput ratios and the
exit status."""
from __future__ import annotations

# tilec_b, tilec_c: other PTX of the same kernel timed in the same run (matmul_gpu.py --ab-ptx), A/Bs of tilec's own
PEERS = ("tilec", "tilec_b", "tilec_c", "torch", "tileiras")


def report(name: str, results: dict, flops: float, tilec_failed: bool, ok: bool) -> int:
    """Print the table for `results` (peer -> median ms); 1 when tilec did not run
    or a result mismatched, else 0."""
    from tilec.runtime import tflops
    print()
    print(f"{'':10s} {'median ms':>10s} {'TFLOP/s':>9s}")
    for peer in PEERS:
        if peer in results:
            print(f"{peer:10s} {results[peer]:10.3f} {tflops(flops, results[peer]):9.1f}")
    if "tilec" in results:
        for peer in PEERS[1:]:
            if peer in results:
                print(f"ratio tilec/{peer} (throughput): {results[peer] / results['tilec']:.3f}")
    if tilec_failed or not ok:
        print(f"{name}: FAILED" + (" (tilec did not run)" if tilec_failed else " (result mismatch)"))
        return 1
    return 0


def run_once_then_time(kernel, grid, args, types, stream, reps: int, warmup: int, check) -> float:
    """Launch `kernel` once and wait, call `check()` (the result's check), then
    time it: the median of `reps` runs (ms)."""
    from tilec.runtime import median_ms, time_ms
    prep = kernel.prepare(grid, args, arg_dtypes=types)
    prep.run(stream)
    prep.wait(timeout=120)
    check()
    return median_ms(time_ms(lambda: prep.run(stream), reps=reps, warmup=warmup, stream=stream))


def tileiras_kernel(cubin: str, entry: str, types):
    """Entry `entry` of NVIDIA's cubin, its block size from the cubin's
    EIATTR_REQNTID (the driver's MAX_THREADS_PER_BLOCK, an upper bound, only
    when it states none); its parameters must be the entry's."""
    from tilec.runtime import LaunchInfoError, load_cubin
    kernel = load_cubin(cubin).kernel(entry)
    how = "EIATTR_REQNTID of the cubin"
    max_threads = kernel.attribute("MAX_THREADS_PER_BLOCK")
    if kernel.block is None:
        kernel.block = (max_threads, 1, 1)
        how = "CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK (the cubin states no REQNTID)"
    sizes = [p.size for p in kernel.params]
    want = [8 if t == "ptr" else t.itemsize for t in types]
    if sizes != want:
        raise LaunchInfoError(f"the cubin's parameters are {sizes} bytes, the entry's {want}")
    print(f"tileiras: {cubin}: block {kernel.block} (from {how}; MAX_THREADS_PER_BLOCK {max_threads}), "
          f"{kernel.attribute('NUM_REGS')} registers/thread")
    return kernel


def time_tileiras(cubin, entry, types, grid, stream, reps: int, warmup: int, make_out, args_for, check):
    """tileiras's timing of the same launch, or None: (milliseconds or None, ok).
    `make_out()` gives a fresh output, `args_for(out)` the arguments, `check(out)`
    whether the output is right. No `cubin`: None and ok, with a word on making one."""
    if not cubin:
        print("tileiras: no --tileiras-cubin given (benchmarks/make_tileiras_cubin.sh OUT.cubin KERNEL.mlir)")
        return None, True
    try:
        kernel = tileiras_kernel(cubin, entry, types)
        out, checked = make_out(), []
        ms = run_once_then_time(kernel, grid, args_for(out), types, stream, reps, warmup,
                                lambda: checked.append(check(out)))
        return ms, all(checked)
    except Exception as e:   # noqa: BLE001 - reported; the other peers' results still print
        print(f"!!! tileiras cubin could not run: {type(e).__name__}: {e}")
        return None, False
