"""The canonicalize pass: folding, dead-code removal and every dialect's
canonicalization patterns, run by the greedy driver to a fixed point."""
from __future__ import annotations

from ..ir.diagnostics import current_engine
from ..rewrite.driver import GreedyDriver
from .base import Pass, target_blocks


def _names(s):
    return {x.strip() for x in (s or "").split(",") if x.strip()}


class Canonicalize(Pass):
    name = "canonicalize"
    argument = "Canonicalizer"
    OPTIONS = {
        "max-iterations": (int, 10),
        "max-num-rewrites": (int, -1),
        "test-convergence": (bool, False),
        "top-down": (bool, False),
        "region-simplify": (str, "normal"),
        "disable-patterns": (str, ""),
        "enable-patterns": (str, ""),
    }

    def run(self, target) -> bool:
        from ..transforms.canonicalize import all_patterns
        pats = all_patterns()
        off, on = _names(self.options["disable-patterns"]), _names(self.options["enable-patterns"])
        if off:
            pats = [p for p in pats if p.name not in off]
        if on:
            pats = [p for p in pats if p.name in on]
        limit = self.options["max-num-rewrites"]
        driver = GreedyDriver(pats, fold=True, max_iterations=max(1, self.options["max-iterations"]),
                              max_rewrites=limit if limit > 0 else None)
        converged = driver.run(target_blocks(target), None)
        if not converged:
            sev = "error" if self.options["test-convergence"] else "warning"
            current_engine().emit(sev, target.location,
                                  f"canonicalization did not converge within "
                                  f"{self.options['max-iterations']} iterations")
            return not self.options["test-convergence"]
        return True
