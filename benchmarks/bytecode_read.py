#!/usr/bin/env python3
"""How fast tilec reads Tile IR bytecode: a 1 MB file, decoded into IR.

The file is built from the cuTile kernels in examples/cutile/: each kernel is
parsed, copied under fresh names into one `cuda_tile.module` until the
module's bytecode (written by tilec, version 13.1 by default) reaches the
target size. Prints the best-of-N read time (bytes -> cuda_tile IR), the time
to read and verify (--verify), the time to write the module back, and --
when NVIDIA's `tileirdisasm` is on PATH (see
shared/tools/reference-toolchain.sh) -- its time on the same file, measured
in the same run, and the ratio.

    python benchmarks/bytecode_read.py [--size-mb 1] [--version 13.1] [--repeat 5] [--keep FILE]
"""
from __future__ import annotations

import argparse
import gc
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

import tilec.dialects  # noqa: E402,F401
from tilec.bytecode import parse_version, read_bytecode, write_bytecode  # noqa: E402
from tilec.ir import attributes as A  # noqa: E402
from tilec.ir import registry  # noqa: E402
from tilec.ir.core import Block, Region  # noqa: E402
from tilec.ir.diagnostics import DiagnosticEngine  # noqa: E402
from tilec.ir.verifier import verify  # noqa: E402
from tilec.syntax.parser import parse_text  # noqa: E402

registry.load_all()


def build(target_bytes: int, version) -> bytes:
    """Bytecode of one module holding renamed copies of the example kernels.
    The examples are parsed once; further copies are read back from the
    bytecode of the first one (much faster than re-parsing text)."""
    module_cls = registry.OPS["cuda_tile.module"]

    def new_module():
        block = Block()
        return module_cls([], [], {"sym_name": A.StringAttr("bench")}, [Region([block])]), block

    def write(module):
        engine = DiagnosticEngine()
        out = write_bytecode([module], engine, version)
        if out is None:
            sys.exit(engine.render())
        return out

    def move_into(block, module_ops, suffix, seen):
        for op in list(module_ops[0].regions[0].blocks[0].ops):
            name = op.attributes["sym_name"].value
            if op.name == "cuda_tile.global":  # one copy of each global, shared by all kernels
                if name in seen:
                    continue
                seen.add(name)
            else:
                op.attributes["sym_name"] = A.StringAttr(f"{name}{suffix}")
            op.parent.remove(op)
            block.append(op)

    one, one_block = new_module()
    for path in sorted(glob.glob(os.path.join(ROOT, "examples", "cutile", "*.mlir"))):
        engine = DiagnosticEngine()
        move_into(one_block, parse_text(open(path).read(), engine, path), "", set())
    seed = write(one)
    big, block = new_module()
    seen: set = set()
    copies = 0
    need = max(1, target_bytes // len(seed))
    while True:
        for _ in range(need):
            engine = DiagnosticEngine()
            move_into(block, read_bytecode(seed, "seed", engine), f"_{copies}", seen)
            copies += 1
        data = write(big)
        if len(data) >= target_bytes:
            return data
        # copies share the string and type tables: the mean size per copy so
        # far is at least what one more copy adds, so this count never
        # overshoots the fewest copies that reach the target
        need = max(1, -(-(target_bytes - len(data)) * copies // len(data)))


def constant_module(target_bytes: int, version) -> bytes:
    """A module whose bytecode is mostly one f32 global of `target_bytes`."""
    from tilec.dialects.cuda_tile.types import TileType
    from tilec.ir.types import FloatType
    n = target_bytes // 4
    text = ("cuda_tile.module @c {\n  global @table <f32: [1.0, 2.0]> : tile<2xf32>\n"
            "  entry @k() {\n    %0 = get_global @table : tile<ptr<f32>>\n    return\n  }\n}\n")
    engine = DiagnosticEngine()
    ops = parse_text(text, engine, "<const>")
    glob_op = ops[0].regions[0].blocks[0].first_op
    size = 1 << (n.bit_length() - 1)  # tile dimensions are powers of two
    glob_op.attributes["value"] = A.DenseElementsAttr(TileType((size,), FloatType("f32")),
                                                      tuple(float(i % 1000) for i in range(size)), False)
    return write_bytecode(ops, engine, version)


def best_of(fn, repeat, cpu_times=None):
    best = float("inf")
    for _ in range(repeat):
        # collect the previous run's module first: freeing ~1.7M cyclic IR
        # objects is not part of reading (timed separately in main)
        gc.collect()
        c = time.process_time()
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
        if cpu_times is not None:
            cpu_times.append(time.process_time() - c)
    return best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size-mb", type=float, default=1.0)
    ap.add_argument("--version", default="13.1")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--keep", help="also write the generated bytecode here")
    ap.add_argument("--verify", action="store_true", help="also time read + verify (slow on big modules)")
    a = ap.parse_args(argv)
    version = parse_version(a.version)
    data = build(int(a.size_mb * (1 << 20)), version)
    if a.keep:
        open(a.keep, "wb").write(data)

    def read():
        engine = DiagnosticEngine()
        ops = read_bytecode(data, "bench.tilebc", engine)
        assert ops is not None, engine.render()
        return ops

    def read_verify():
        engine = DiagnosticEngine()
        assert all(verify(op, engine) for op in read()), engine.render()

    n_ops = sum(1 for _ in read()[0].walk())
    cpu_times: list = []
    t_read = best_of(read, a.repeat, cpu_times)
    cpu = sum(cpu_times) / len(cpu_times)
    print(f"file: {len(data) / (1 << 20):.2f} MB bytecode {a.version}, {n_ops} ops (the example kernels, "
          f"copied)")
    print(f"tilec read:          {t_read:.3f} s wall (best of {a.repeat}), {cpu:.3f} s CPU (mean)  "
          f"({len(data) / t_read / (1 << 20):.2f} MB/s)")
    print(f"{a.size_mb:g} MB read time: {t_read:.3f} s  (target for 1 MB: under 1 s)")
    gc.collect()
    ops = read()
    t = time.perf_counter()
    del ops
    gc.collect()
    print(f"freeing the module read (cycle collection, not timed above): {time.perf_counter() - t:.3f} s")
    if a.verify:
        print(f"tilec read + verify: {best_of(read_verify, 1):.3f} s")
    module = read()
    t_write = best_of(lambda: write_bytecode(module, DiagnosticEngine(), version), a.repeat)
    print(f"tilec write (the module read, back to {a.version}): {t_write:.3f} s")
    del module
    const = constant_module(int(a.size_mb * (1 << 20)), version)
    t_const = best_of(lambda: read_bytecode(const, "const.tilebc", DiagnosticEngine()), a.repeat)
    print(f"tilec read, {len(const) / (1 << 20):.2f} MB that is mostly one dense global: {t_const:.3f} s")
    # how fast this machine runs Python right now (it may be shared): a
    # million empty loop iterations take ~10-15 ms on an idle modern core
    loop = best_of(lambda: [None for _ in range(1000000)], 3)
    print(f"machine calibration: 1e6 empty list-comprehension iterations take {loop * 1000:.0f} ms")
    disasm = shutil.which("tileirdisasm")
    if disasm:
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bench.tilebc")
            open(path, "wb").write(data)

            def nvidia():
                subprocess.run([disasm, path], check=True, stdout=subprocess.DEVNULL)
            t_ref = best_of(nvidia, a.repeat)
        print(f"tileirdisasm (read + print): {t_ref:.3f} s")
        print(f"ratio tilec read / tileirdisasm: {t_read / t_ref:.2f}x")
    else:
        print("tileirdisasm not on PATH: no ratio (source shared/tools/reference-toolchain.sh)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
