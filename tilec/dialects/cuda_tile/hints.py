"""Checking `optimization_hints` against the known targets and keys.

Hints are advice, so by default unknown or out-of-range ones are accepted
silently (the printed IR keeps them). `-Wunsupported-hints` turns each problem
into a warning at the op; `-Werr-hints` additionally fails the op with
"Optimization hints verification failed", as NVIDIA's cuda-tile-opt does.
"""
from __future__ import annotations

from ...ir import attributes as A
from ...ir.diagnostics import current_engine

KNOWN_TARGETS = ("sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_100", "sm_103",
                 "sm_110", "sm_120", "sm_121", "default")
# Ampere and Ada have no thread-block clusters: one CTA per CGA.
SINGLE_CTA_TARGETS = ("sm_80", "sm_86", "sm_87", "sm_88", "sm_89")

ENTRY_KEYS = ("num_cta_in_cga", "num_worker_warps_per_cta", "occupancy")
VIEW_MEMORY_KEYS = ("latency", "allow_tma")
PTR_MEMORY_KEYS = ("latency",)


class HintsPolicy:
    """Process-wide switches, set once by the command line."""
    warn = False
    error = False


def configure(warn: bool, error: bool):
    HintsPolicy.warn = bool(warn or error)
    HintsPolicy.error = bool(error)


def _int(value):
    return value.value if isinstance(value, A.IntegerAttr) else None


def _power_of_two_upto(n, limit):
    return n is not None and 0 < n <= limit and n & (n - 1) == 0


def _check_value(target, key, value):
    """The problem with one hint value, or None."""
    name = f"{target}.{key}"
    n = _int(value)
    if key == "allow_tma":
        return None if isinstance(value, A.BoolAttr) else f"boolean value expected for {name}"
    if n is None:
        return f"integer value expected for {name}"
    if key == "num_cta_in_cga":
        if target.startswith(SINGLE_CTA_TARGETS) and n != 1:
            return f"expected 1 for {name}"
        return None if _power_of_two_upto(n, 16) else f"expected power-of-two ≤ 16 for {name}"
    if key == "num_worker_warps_per_cta":
        return None if _power_of_two_upto(n, 32) else f"expected power-of-two ≤ 32 for {name}"
    if key == "occupancy":
        return None if 1 <= n <= 32 else f"integer value in the range [1, 32] is expected for {name}"
    if key == "latency":
        return None if 1 <= n <= 10 else f"integer value in the range [1, 10] is expected for {name}"
    return f"unknown param {key} for {target}"


def hint_problems(hints, valid_keys):
    """[message] for every unsupported target, key or value in `hints`."""
    problems = []
    for target, inner in hints.entries:
        if target not in KNOWN_TARGETS:
            problems.append(f"unknown hint key {target}")
            continue
        for key, value in inner.entries:
            if key not in valid_keys:
                problems.append(f"{key} is not known hint for current Operation")
                continue
            message = _check_value(target, key, value)
            if message:
                problems.append(message)
    return problems


def verify_hint_values(op, valid_keys) -> bool:
    """Warn about (and, under -Werr-hints, reject) unsupported hints on `op`."""
    from .attributes_core import OptimizationHintsAttr
    hints = op.attributes.get("optimization_hints")
    if not HintsPolicy.warn or not isinstance(hints, OptimizationHintsAttr):
        return True
    problems = hint_problems(hints, valid_keys)
    engine = current_engine()
    for message in problems:
        engine.warning(op.location, message)
    if problems and HintsPolicy.error:
        op.emit_error("Optimization hints verification failed")
        return False
    return True


def hint_value(op, arch: str, key: str):
    """The integer value of hint `key` on `op` for `arch` (its tileiras name:
    sm_90a reads sm_90), else the `default` target's, else None."""
    from .attributes_core import OptimizationHintsAttr
    hints = op.attributes.get("optimization_hints")
    if not isinstance(hints, OptimizationHintsAttr):
        return None
    found = {}
    for target, inner in hints.entries:
        for k, value in inner.entries:
            if k == key and _int(value) is not None:
                found[target] = _int(value)
    return found.get(arch.rstrip("a"), found.get("default"))

