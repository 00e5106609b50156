"""The summary the GPU benchmarks print (matmul_gpu.py, attention_gpu.py): each
peer's median time and TFLOP/s, tilec's throughput ratios, and the exit status."""
from __future__ import annotations

PEERS = ("tilec", "torch", "tileiras")


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
