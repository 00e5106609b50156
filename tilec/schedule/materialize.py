"""materialize_schedule: partition a loop's memory traffic from the schedule
analysis. Loads whose address varies with the induction variable are
*pending*: every iteration needs a fresh tile, so they go through a staged
pipeline. Loop-invariant loads are *resident*: loaded once, before the loop.
A pipelined loop stores nothing (the analysis refuses side effects), so both
store sets are empty; the async-eligible subsets are the loads a target can
issue asynchronously (GMEM-sourced tiles on targets with async copies)."""
from __future__ import annotations

from ..ir.record import factory, mutable


@mutable
class MaterializeOptions:
    target: object
    num_stages: int


@mutable
class ScheduleMaterialization:
    resident_loads: list = factory(list)
    resident_stores: list = factory(list)
    pending_loads: list = factory(list)
    pending_stores: list = factory(list)
    resident_async: list = factory(list)
    pending_async: list = factory(list)


def _gmem(load) -> bool:
    return getattr(load.view.type, "residency", None) == "GMEM"


def filter_async_eligible(loads, options: MaterializeOptions):
    return [l for l in loads if _gmem(l)]  # cp.async (sm_80) and TMA/cp.async (sm_90a) both read GMEM


def materialize_schedule(analysis, options: MaterializeOptions) -> ScheduleMaterialization:
    out = ScheduleMaterialization()
    out.resident_loads = [l for l in analysis.loads if not analysis.varying[l]]
    out.pending_loads = [l for l in analysis.loads if analysis.varying[l]]
    out.resident_async = filter_async_eligible(out.resident_loads, options)
    out.pending_async = filter_async_eligible(out.pending_loads, options)
    return out
