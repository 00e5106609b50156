"""The pass manager: runs a Nest of passes over the top-level ops, verifying
after every pass, with optional IR dumps and a timing report."""
from __future__ import annotations

import sys
import time

from ..ir.core import Block
from ..ir.diagnostics import current_engine, using_engine
from ..ir.verifier import verify
from .base import Pass, PassError, TopLevel
from .pipeline import Nest


class PassManager:
    def __init__(self, root: Nest, verify_each=True, print_ir_after_all=False, timing=False,
                 dump=None, generic=False, debuginfo=False):
        self.root = root
        self.verify_each = verify_each
        self.print_ir_after_all = print_ir_after_all
        self.timing = timing
        self.dump = dump or sys.stderr
        self.generic, self.debuginfo = generic, debuginfo
        self.times: dict = {}       # display name -> seconds (summed over anchors)
        self.order: list = []
        self._top_ops = []

    def run(self, ops, engine) -> bool:
        """Run on the parser's top-level ops (in their parentless block). When
        the input is a single explicit `builtin.module` op, that op is the root."""
        ops = list(ops)
        self._top_ops = ops
        start = time.perf_counter()
        with using_engine(engine):
            if len(ops) == 1 and ops[0].name == "builtin.module":
                target = ops[0]
            else:
                block = ops[0].parent if ops and ops[0].parent is not None else _block_of(ops)
                target = TopLevel(block)
            ok = self._run_nest(self.root, target)
        self.result_ops = [target] if not isinstance(target, TopLevel) else list(target.block.ops)
        self.total = time.perf_counter() - start
        if self.timing:
            self.dump.write(self.report())
        return ok

    def _children(self, target, anchor):
        blocks = [target.block] if isinstance(target, TopLevel) else [b for r in target.regions for b in r.blocks]
        for b in blocks:
            for op in list(b.ops):
                if anchor == "any" or op.name == anchor:
                    yield op

    def _run_nest(self, nest: Nest, target) -> bool:
        for item in nest.items:
            if isinstance(item, Nest):
                for child in self._children(target, item.anchor):
                    if not self._run_nest(item, child):
                        return False
            elif not self._run_pass(item, target):
                return False
        return True

    def _run_pass(self, p: Pass, target) -> bool:
        engine = current_engine()
        n_errors = sum(d.severity == "error" for d in engine.diagnostics)
        t0 = time.perf_counter()
        try:
            ok = p.run(target)
        except RecursionError:
            engine.error(target.location, f"pass '{p.name}' failed: input nests too deeply")
            return False
        except PassError as e:   # bad options found only when the pass runs: the user's error, not a bug
            engine.error(target.location, f"pass '{p.name}': {e}")
            return False
        except Exception as e:  # a bug in a pass: a diagnostic naming it, never a traceback
            engine.error(target.location, f"internal error in pass '{p.name}': {type(e).__name__}: {e}")
            return False
        dt = time.perf_counter() - t0
        if p.display_name not in self.times:
            self.order.append(p.display_name)
            self.times[p.display_name] = 0.0
        self.times[p.display_name] += dt
        if ok is False:
            if sum(d.severity == "error" for d in engine.diagnostics) == n_errors:
                engine.error(target.location, f"pass '{p.name}' failed")
            return False
        if self.verify_each:
            t1 = time.perf_counter()
            ops = list(target.block.ops) if isinstance(target, TopLevel) else [target]
            for op in ops:
                if not verify(op, engine):
                    engine.error(op.location, f"pass '{p.name}' produced IR that fails to verify")
                    return False
            self.times.setdefault("(verifier)", 0.0)
            if "(verifier)" not in self.order:
                self.order.append("(verifier)")
            self.times["(verifier)"] += time.perf_counter() - t1
        if self.print_ir_after_all:
            from ..syntax.printer import print_ops
            self.dump.write(f"// -----// IR Dump After {p.display_name} ({p.name}) //----- //\n")
            ops = list(target.block.ops) if isinstance(target, TopLevel) else [target]
            self.dump.write(print_ops(ops, generic=self.generic, debuginfo=self.debuginfo))
            self.dump.write("\n")
        return True

    def report(self) -> str:
        bar = "===" + "-" * 73 + "==="
        total = getattr(self, "total", 0.0) or 1e-12
        lines = [bar, "... Execution time report ...".center(79).rstrip(), bar,
                 f"  Total Execution Time: {total:.4f} seconds", "", "  ----Wall Time----  ----Name----"]
        for name in self.order:
            t = self.times[name]
            lines.append(f"  {t:10.4f} ({100 * t / total:5.1f}%)  {name}")
        lines.append(f"  {total:10.4f} (100.0%)  Total")
        return "\n".join(lines) + "\n"


def _block_of(ops):
    b = Block()
    for op in ops:
        b.append(op)
    return b
