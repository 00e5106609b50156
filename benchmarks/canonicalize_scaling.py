"""Canonicalize generated modules of ~2k, 20k and 200k ops and print the times
and the time per op: near-constant per-op cost means linear scaling.

Each group of 10 ops holds folds (x + 0, x * 1), duplicate constants to
unique, an extract-from-insert pair to forward, and the dead alloc_tensor /
insert_slice left behind. Modules are built directly (no parsing), so only
the rewrite driver is timed.

    python benchmarks/canonicalize_scaling.py [--sizes 2000,20000,200000]
"""
from __future__ import annotations

import argparse
import gc
import time

import tilec.dialects  # noqa: F401
from tilec.ir import registry
from tilec.ir.attributes import DenseArrayAttr, IntegerAttr
from tilec.ir.core import Block, Operation
from tilec.ir.types import FloatType, IndexType, IntegerType, RankedTensorType


def build(n_ops: int) -> Block:
    registry.load_all()
    O = registry.OPS
    idx, i64 = IndexType(), IntegerType(64)
    tile = RankedTensorType((16, 16), FloatType("f32"))
    big = RankedTensorType((64, 64), FloatType("f32"))
    static = dict(static_offsets=DenseArrayAttr(i64, (-(2 ** 63), 0)), static_sizes=DenseArrayAttr(i64, (16, 16)),
                  static_strides=DenseArrayAttr(i64, (1, 1)))
    b = Block()
    for _ in range(max(1, n_ops // 10)):
        x = b.append(Operation([], [idx], name="bench.src")).result
        zero = b.append(O["arith.constant"].create(value=IntegerAttr(0, idx), result=idx)).result
        one = b.append(O["arith.constant"].create(value=IntegerAttr(1, idx), result=idx)).result
        a = b.append(O["arith.addi"].create(lhs=x, rhs=zero, result=idx)).result
        m = b.append(O["arith.muli"].create(lhs=a, rhs=one, result=idx)).result
        t = b.append(O["nv_tileas.alloc_tensor"].create(result=big)).result
        v = b.append(Operation([], [tile], name="bench.get")).result
        ins = b.append(O["nv_tileas.insert_slice"].create(source=v, dest=t, offsets=[a], sizes=[], strides=[],
                                                          result=big, **static)).result
        e = b.append(O["nv_tileas.extract_slice"].create(source=ins, offsets=[a], sizes=[], strides=[],
                                                         result=tile, **static)).result
        b.append(Operation([e, m], [], name="bench.use"))
    return b


def count(block) -> int:
    return sum(1 for op in block.ops for _ in op.walk())


def run(n_ops: int):
    from tilec.ir.diagnostics import DiagnosticEngine, using_engine
    from tilec.rewrite.driver import GreedyDriver
    from tilec.transforms.canonicalize import all_patterns
    block = build(n_ops)
    before = count(block)
    gc.collect()
    gc.disable()
    t0 = time.perf_counter()
    with using_engine(DiagnosticEngine()):
        converged = GreedyDriver(all_patterns()).run([block], None)
    dt = time.perf_counter() - t0
    gc.enable()
    after = count(block)
    assert converged and after == 3 * (before // 10), (before, after)
    return before, after, dt


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="2000,20000,200000")
    args = ap.parse_args()
    rows = []
    for n in (int(s) for s in args.sizes.split(",")):
        before, after, dt = run(n)
        rows.append((before, after, dt))
        print(f"{before:>8} ops -> {after:>7} ops: {dt:8.3f} s  {1e6 * dt / before:7.2f} us/op", flush=True)
    base = rows[0][2] / rows[0][0]
    print("per-op cost relative to the smallest module: " +
          ", ".join(f"{(dt / n) / base:.2f}x @ {n}" for n, _, dt in rows))


if __name__ == "__main__":
    main()
