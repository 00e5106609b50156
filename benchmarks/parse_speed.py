#!/usr/bin/env python3
"""Parser throughput: tilec against xDSL on the same generic-form file.

    python benchmarks/parse_speed.py [--ops 20000] [--repeat 3] [--keep DIR]

1. Generates a cuda_tile module of about --ops operations in custom form, in
   the spelling NVIDIA's tools print: constants, float and integer elementwise
   arithmetic, unary math, compare+select, and every few hundred ops a `for`
   loop with loop-carried values or an `if` yielding values.
2. Writes its generic form with `tilec opt --mlir-print-op-generic`.
3. Times, in this one process, best of --repeat runs (xDSL: --xdsl-repeat):
     tilec:  parse + verify + print (generic form) of the generic file;
             the same for the custom-form file (printed in custom form);
     xDSL:   parse (xdsl.parser.Parser, Context(allow_unregistered=True)) and
             print (xdsl.printer.Printer, generic) of the generic file.
   and prints ops/second and the ratio tilec/xDSL (> 1: tilec is faster).
   Times are CPU seconds of this process (time.process_time).

xDSL reads generic MLIR with unregistered dialects, but its `dense<...>`
parser only takes builtin shaped types (tensor, vector, memref) after the
colon, while the cuda_tile constant's value is `dense<...> : !cuda_tile.tile<..>`
(as in MLIR, where `!cuda_tile.tile` is a ShapedType). For xDSL, and only for
it, those `: !cuda_tile.tile<S>` after a `dense<...>` are rewritten to
`: tensor<S>` (same length class of text, same op count); the script prints
how many were rewritten. xDSL spends most of its time on those dense
literals (it rebuilds an IRDL type constraint for each), so a second xDSL
run, with the values as opaque `#cuda_tile.dense<...>` attributes, shows the
rest of its parser's speed. Everything else of tilec's generic form (dialect
types such as `!cuda_tile.partition_view<tile=(4x64), tensor_view<?x?xf64,
strides=[?,1]>>`, dialect attributes `#cuda_tile.x<...>`, properties `<{}>`,
regions, `%0:2` results) xDSL accepts unchanged.
"""
from __future__ import annotations

import argparse
import gc
import io
import os
import random
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

FLOAT_BIN = ["addf", "subf", "mulf", "divf", "maxf", "minf"]
FLOAT_UN = ["exp", "absf", "negf", "sqrt"]
INT_BIN = ["addi", "subi", "muli", "andi", "xori", "ori"]
FLOAT_TYPES = ["tile<64xf32>", "tile<16x16xf16>", "tile<f32>", "tile<8x32xbf16>"]
INT_TYPES = ["tile<64xi32>", "tile<i32>", "tile<16x16xi64>"]


class Gen:
    """Writes one entry's body as custom-form text."""

    def __init__(self, rng):
        self.rng = rng
        self.lines: list[str] = []
        self.n = 0
        self.ops = 0

    def fresh(self):
        self.n += 1
        return f"%v{self.n}"

    def emit(self, depth, text):
        self.lines.append("  " * depth + text)
        self.ops += 1

    def const(self, depth, t, scope):
        v = self.fresh()
        elt = t[t.rfind("x") + 1:-1] if "x" in t[5:] else t[5:-1]
        if elt.startswith("i"):
            lit = str(self.rng.randrange(-100, 100))
        else:
            lit = f"{self.rng.randrange(-4000, 4000) / 64:.6e}"
        self.emit(depth, f"{v} = constant <{elt}: {lit}> : {t}")
        scope.setdefault(t, []).append(v)
        return v

    def get(self, depth, t, scope):
        vals = scope.get(t)
        if not vals or self.rng.random() < 0.08:
            return self.const(depth, t, scope)
        return self.rng.choice(vals[-12:])  # mostly recent values, like real code

    def step(self, depth, scope):
        r = self.rng.random()
        if r < 0.40:
            t = self.rng.choice(FLOAT_TYPES)
            a, b = self.get(depth, t, scope), self.get(depth, t, scope)
            v = self.fresh()
            self.emit(depth, f"{v} = {self.rng.choice(FLOAT_BIN)} {a}, {b} : {t}")
        elif r < 0.55:
            t = self.rng.choice(FLOAT_TYPES)
            a = self.get(depth, t, scope)
            v = self.fresh()
            self.emit(depth, f"{v} = {self.rng.choice(FLOAT_UN)} {a} : {t}")
        elif r < 0.75:
            t = self.rng.choice(INT_TYPES)
            a, b = self.get(depth, t, scope), self.get(depth, t, scope)
            v = self.fresh()
            self.emit(depth, f"{v} = {self.rng.choice(INT_BIN)} {a}, {b} : {t}")
        elif r < 0.85:
            t = self.rng.choice(FLOAT_TYPES)
            a, b = self.get(depth, t, scope), self.get(depth, t, scope)
            i1 = re.sub(r"(f32|f16|bf16)>$", "i1>", t)
            c, v = self.fresh(), self.fresh()
            self.emit(depth, f"{c} = cmpf less_than ordered {a}, {b} : {t} -> {i1}")
            self.emit(depth, f"{v} = select {c}, {a}, {b} : {i1}, {t}")
        else:
            t = self.rng.choice(FLOAT_TYPES + INT_TYPES)
            v = self.const(depth, t, scope)
            return
        scope.setdefault(t, []).append(v)

    def loop(self, depth, scope, n_body):
        lb, ub, st = (self.const(depth, "tile<i32>", scope) for _ in range(3))
        t = self.rng.choice(FLOAT_TYPES[:2])
        init = self.get(depth, t, scope)
        res, iv, acc = self.fresh(), self.fresh(), self.fresh()
        self.emit(depth, f"{res} = for {iv} in ({lb} to {ub}, step {st}) : tile<i32> "
                         f"iter_values({acc} = {init}) -> ({t}) {{")
        inner = {k: list(v) for k, v in scope.items()}
        inner.setdefault(t, []).append(acc)
        inner.setdefault("tile<i32>", []).append(iv)
        for _ in range(n_body):
            self.step(depth + 1, inner)
        out = self.get(depth + 1, t, inner)
        self.emit(depth + 1, f"continue {out} : {t}")
        self.lines.append("  " * depth + "}")
        scope.setdefault(t, []).append(res)

    def branch(self, depth, scope, n_body):
        a, b = self.get(depth, "tile<i32>", scope), self.get(depth, "tile<i32>", scope)
        c = self.fresh()
        self.emit(depth, f"{c} = cmpi less_than {a}, {b}, signed : tile<i32> -> tile<i1>")
        t = self.rng.choice(FLOAT_TYPES)
        res = self.fresh()
        self.emit(depth, f"{res} = if {c} -> ({t}) {{")
        for i in range(2):
            inner = {k: list(v) for k, v in scope.items()}
            for _ in range(n_body // 2):
                self.step(depth + 1, inner)
            self.emit(depth + 1, f"yield {self.get(depth + 1, t, inner)} : {t}")
            self.lines.append("  " * depth + ("} else {" if i == 0 else "}"))
        scope.setdefault(t, []).append(res)


def generate(n_ops: int, seed: int = 1) -> tuple[str, int]:
    """Custom-form text of a module with about n_ops operations."""
    rng = random.Random(seed)
    per_entry = 2000
    out = ["cuda_tile.module @bench {"]
    total = 1
    k = 0
    while total < n_ops:
        g = Gen(rng)
        scope: dict = {"tile<f32>": ["%arg0"], "tile<i32>": ["%arg1"]}
        budget = min(per_entry, n_ops - total - 2)
        while g.ops < budget:
            r = rng.random()
            if r < 0.006 and budget - g.ops > 80:
                g.loop(2, scope, rng.randrange(20, 60))
            elif r < 0.010 and budget - g.ops > 80:
                g.branch(2, scope, rng.randrange(10, 40))
            else:
                g.step(2, scope)
        out.append(f"  entry @kernel{k}(%arg0: tile<f32>, %arg1: tile<i32>) {{")
        out.extend(g.lines)
        out.append("    return")
        out.append("  }")
        total += g.ops + 2
        k += 1
    out.append("}")
    return "\n".join(out) + "\n", total


# ---------------------------------------------------------------------------

def _best(fn, repeat):
    """Best of `repeat` runs in CPU seconds of this process: both parsers are
    single-threaded pure Python, and CPU time is not inflated by other work
    on a shared machine as wall-clock time is."""
    best, result = None, None
    for _ in range(repeat):
        gc.collect()
        t0 = time.process_time()
        result = fn()
        dt = time.process_time() - t0
        best = dt if best is None else min(best, dt)
    return best, result


def tilec_run(text, generic_out, repeat):
    import tilec.dialects  # noqa: F401
    from tilec.ir.diagnostics import DiagnosticEngine
    from tilec.ir.verifier import verify
    from tilec.syntax.parser import get_parser, parse_text
    from tilec.syntax.printer import print_ops
    get_parser(lean=True)  # the LALR tables are built (or loaded from cache) once, outside the timing

    def parse():
        engine = DiagnosticEngine()
        ops = parse_text(text, engine, "bench.mlir")
        if ops is None:
            raise SystemExit("tilec failed to parse the benchmark file:\n" + engine.render()[:2000])
        return ops

    def verify_all(ops):
        engine = DiagnosticEngine()
        if not all(verify(op, engine) for op in ops):
            raise SystemExit("tilec failed to verify the benchmark file:\n" + engine.render()[:2000])

    t_parse, ops = _best(parse, repeat)
    t_verify, _ = _best(lambda: verify_all(ops), repeat)
    t_print, printed = _best(lambda: print_ops(ops, generic=generic_out), repeat)
    n = sum(1 for top in ops for _ in top.walk())
    return n, t_parse, t_verify, t_print


def xdsl_run(text, repeat):
    from xdsl.context import Context
    from xdsl.parser import Parser
    from xdsl.printer import Printer

    def parse():
        return Parser(Context(allow_unregistered=True), text, "bench.mlir").parse_module()

    def print_(m):
        s = io.StringIO()
        Printer(stream=s, print_generic_format=True).print_op(m)
        return s.getvalue()

    t_parse, module = _best(parse, repeat)
    t_print, _ = _best(lambda: print_(module), repeat)
    n = sum(1 for _ in module.walk()) - 1  # minus xDSL's implicit builtin.module wrapper
    return n, t_parse, t_print


_DENSE_TILE = re.compile(r"dense<([^>]*)>\s*:\s*!cuda_tile\.tile<([^<>]*)>")


def xdsl_compatible(generic: str) -> tuple[str, int]:
    """Rewrite `dense<...> : !cuda_tile.tile<S>` to `dense<...> : tensor<S>` (xDSL's
    dense parser accepts builtin shaped types only)."""
    return _DENSE_TILE.subn(r"dense<\1> : tensor<\2>", generic)


def xdsl_opaque_dense(generic: str) -> str:
    """The same file with each constant's value as an opaque dialect attribute
    `#cuda_tile.dense<...>`: xDSL then skips its (slow) dense-literal checks,
    which shows what the rest of its parser costs."""
    return _DENSE_TILE.sub(r"#cuda_tile.dense<\1 : \2>", generic)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ops", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--xdsl-repeat", type=int, default=1, help="xDSL runs (it is slow; default 1)")
    ap.add_argument("--no-opaque", action="store_true", help="skip the opaque-constant xDSL variant")
    ap.add_argument("--keep", metavar="DIR", help="write the generated files here (default: a temp dir)")
    args = ap.parse_args(argv)

    workdir = args.keep or tempfile.mkdtemp(prefix="tilec-bench-")
    os.makedirs(workdir, exist_ok=True)
    custom_path = os.path.join(workdir, "bench.mlir")
    generic_path = os.path.join(workdir, "bench.generic.mlir")
    custom, n_gen = generate(args.ops)
    with open(custom_path, "w") as fh:
        fh.write(custom)
    cmd = [sys.executable, "-c", "import sys; from tilec.cli import main; sys.exit(main())",
           "opt", "--mlir-print-op-generic", custom_path, "-o", generic_path]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    t_cli = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"`tilec opt --mlir-print-op-generic` failed (exit {proc.returncode}):\n{proc.stderr[:3000]}")
    generic = open(generic_path).read()
    print(f"generated {n_gen} ops: {custom_path} ({len(custom) / 1e6:.2f} MB custom), "
          f"{generic_path} ({len(generic) / 1e6:.2f} MB generic); "
          f"`tilec opt --mlir-print-op-generic` took {t_cli:.2f} s as a process")

    n, tp, tv, tpr = tilec_run(generic, True, args.repeat)
    tilec_total = tp + tv + tpr
    print(f"tilec  generic: {n} ops  parse {tp:.3f} s  verify {tv:.3f} s  print {tpr:.3f} s  "
          f"-> parse {n / tp:,.0f} ops/s, parse+verify+print {n / tilec_total:,.0f} ops/s")
    nc, cp, cv, cpr = tilec_run(custom, False, args.repeat)
    print(f"tilec  custom:  {nc} ops  parse {cp:.3f} s  verify {cv:.3f} s  print {cpr:.3f} s  "
          f"-> parse {nc / cp:,.0f} ops/s, parse+verify+print {nc / (cp + cv + cpr):,.0f} ops/s")

    try:
        import xdsl  # noqa: F401
    except ImportError:
        print("xDSL is not installed (pip install xdsl): no ratio")
        return 0
    xtext, n_rewritten = xdsl_compatible(generic)
    with open(os.path.join(workdir, "bench.generic.xdsl.mlir"), "w") as fh:
        fh.write(xtext)
    xn, xp, xpr = xdsl_run(xtext, args.xdsl_repeat)
    print(f"xDSL {xdsl.__version__} generic: {xn} ops  parse {xp:.3f} s  print {xpr:.3f} s  "
          f"-> parse {xn / xp:,.0f} ops/s, parse+print {xn / (xp + xpr):,.0f} ops/s  "
          f"({n_rewritten} `dense<..> : !cuda_tile.tile<..>` rewritten to `: tensor<..>` for xDSL)")
    if xn != n:
        print(f"note: op counts differ (tilec {n}, xDSL {xn})")
    print(f"ratio tilec/xDSL (ops/s): parse {(n / tp) / (xn / xp):.2f}x, "
          f"parse+print {(n / (tp + tpr)) / (xn / (xp + xpr)):.2f}x, "
          f"tilec parse+verify+print vs xDSL parse+print {(n / tilec_total) / (xn / (xp + xpr)):.2f}x")
    if not args.no_opaque:
        on, op_, opr = xdsl_run(xdsl_opaque_dense(generic), args.xdsl_repeat)
        print(f"xDSL, constants' values as opaque `#cuda_tile.dense<..>` (no dense-literal checks): {on} ops  "
              f"parse {op_:.3f} s -> {on / op_:,.0f} ops/s; ratio tilec/xDSL parse {(n / tp) / (on / op_):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
