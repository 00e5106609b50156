"""Side-effect queries the driver uses for dead-code removal."""
from __future__ import annotations

from ..ir.traits import NoMemoryEffect, Pure, RecursiveMemoryEffects, Terminator


def is_memory_consistency_op(op) -> bool:
    """MemoryConsistencyOpInterface is an nv_tileas trait; the core looks it up
    by name so it stays dialect-free."""
    return any(t.__name__ == "MemoryConsistencyOpInterface" for t in type(op).traits_all)


def has_no_memory_effect(op) -> bool:
    """MLIR's NoMemoryEffect without Pure (an integer division: no memory touched,
    but it may trap, so not speculatable)."""
    return op.has_trait(NoMemoryEffect)


def memoryless_scalar(op) -> bool:
    """An op without regions whose results are scalars and which touches no memory:
    Pure, or NoMemoryEffect (an integer division, which may trap). It may run
    earlier on the same path, or be cloned where its block's path runs it."""
    return (not op.regions and (op.has_trait(Pure) or has_no_memory_effect(op))
            and all(not getattr(r.type, "shape", ()) for r in op.results))


def _yield_like(op) -> bool:
    """A terminator that only hands values to its parent (not return/break/continue)."""
    return op.name.endswith(".yield")


def is_side_effect_free(op) -> bool:
    """Pure ops, and region ops with recursive effects whose nested ops are all
    free of side effects. Terminators and memory-consistency ops never are."""
    if op.has_trait(Terminator) or is_memory_consistency_op(op):
        return False
    if op.has_trait(Pure):
        return True
    if op.has_trait(RecursiveMemoryEffects):
        for r in op.regions:
            for b in r.blocks:
                for inner in b.ops:
                    if inner.has_trait(Terminator):
                        if not _yield_like(inner):
                            return False
                    elif not is_side_effect_free(inner):
                        return False
        return True
    return False


def touches_no_memory(op) -> bool:
    """Side-effect free, or a region-less op that reads and writes no memory (an
    integer division, which may trap): a pipeline may issue it in the producer
    or the consumer, for the trips that run it in the loop."""
    return is_side_effect_free(op) or (not op.regions and not op.has_trait(Terminator)
                                       and has_no_memory_effect(op))


def is_trivially_dead(op) -> bool:
    if op.parent is None:
        return False
    for r in op.results:
        if r._uses:
            return False
    return is_side_effect_free(op)
