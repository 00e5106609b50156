"""expand_single_tiled_op: clone one scheduled tiled op (with the producer
slice its operands come from) once per stage, each clone computing its
address for that stage's induction value.

Two maps keep stages apart: `sources` maps each operand of the op and of its
slice to the op that defines it inside the loop body, and `replicas` maps
each such source op to its per-stage clone. A replica's operand is rewired
to the replica of its source in the *same* stage; operands defined outside
the loop are shared by all stages."""
from __future__ import annotations

from ..rewrite.clone import clone_op


def collect_operand_sources(slice_ops) -> dict:
    """operand value -> defining op, for operands defined inside the slice."""
    inside = set(slice_ops)
    out = {}
    for op in slice_ops:
        for v in op.operands:
            d = getattr(v, "op", None)
            if d in inside:
                out[v] = d
    return out


def clone_op_per_stage(slice_ops, stages: dict, insert) -> dict:
    """stage -> {source op -> replica}; `stages` maps a stage to the value
    mapping its clones start from (the induction variable's stage value);
    `insert(stage, op)` places a clone."""
    replicas = {}
    for stage, seed in stages.items():
        mapping = dict(seed)
        per = {}
        for op in slice_ops:
            c = clone_op(op, mapping)
            insert(stage, c)
            per[op] = c
        replicas[stage] = per
    return replicas


def lookup_stage_replacement(value, sources, replicas_of_stage):
    src = sources.get(value)
    if src is None:
        return None
    return replicas_of_stage[src].results[value.index]


def expand_single_tiled_op(slice_ops, stages: dict, insert) -> dict:
    """Per stage, the replica of the tiled op (the last op of `slice_ops`)."""
    sources = collect_operand_sources(slice_ops)
    replicas = clone_op_per_stage(slice_ops, stages, insert)
    for stage, per in replicas.items():
        for original, replica in per.items():
            for i, v in enumerate(original.operands):
                repl = lookup_stage_replacement(v, sources, per)
                if repl is not None and replica.operands[i] is not repl:
                    replica.set_operand(i, repl)
    return {stage: per[slice_ops[-1]] for stage, per in replicas.items()}
