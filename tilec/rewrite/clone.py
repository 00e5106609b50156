"""Deep copies of operations, regions and blocks with a value mapping."""
from __future__ import annotations

from ..ir.core import Block, Operation, Region


def clone_op(op: Operation, mapping: dict | None = None) -> Operation:
    """A detached deep copy of `op`. Operands found in `mapping` are remapped;
    results and nested block arguments are added to it."""
    mapping = {} if mapping is None else mapping
    operands = [mapping.get(v, v) for v in op.operands]
    regions = [Region() for _ in op.regions]
    cls = type(op)
    if cls is Operation:
        new = Operation(operands, op.result_types, dict(op.attributes), regions, op.location,
                        list(op.successors), name=op.name)
    else:
        new = cls(operands, op.result_types, dict(op.attributes), regions, op.location, list(op.successors))
    for old, nv in zip(op.results, new.results):
        nv.name_hint = old.name_hint
        mapping[old] = nv
    for src, dst in zip(op.regions, new.regions):
        clone_region_into(src, dst, mapping)
    return new


def clone_region_into(src: Region, dst: Region, mapping: dict):
    blocks = []
    for b in src.blocks:
        nb = Block([a.type for a in b.arguments], [a.location for a in b.arguments])
        nb.label_hint = b.label_hint
        for a, na in zip(b.arguments, nb.arguments):
            na.name_hint = a.name_hint
            mapping[a] = na
        mapping[b] = nb
        dst.add_block(nb)
        blocks.append((b, nb))
    for b, nb in blocks:
        for op in b.ops:
            c = clone_op(op, mapping)
            c.successors = [mapping.get(s, s) for s in c.successors]
            nb.append(c)
