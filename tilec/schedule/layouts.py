"""Layout assignment: every tensor-core `nv_tileas.dot` gets its accumulator
through an explicit `nv_tileas.convert_layout` into the mma.sync accumulator
layout it computes in (`#nv_tileas<layout mma, warps = [wm, wn]>`), chosen for
the thread group that runs the dot (its agent's warps under agent_switch, the
CTA's otherwise).

Only the accumulator is constrained: dot operands A and B are staged through
shared memory, and every other op the emitter runs keeps its operands' layout
(a dot's result stays in the mma layout through elementwise ops and stores),
so no other conversion is needed. A loop-carried accumulator is kept in the
mma layout by the emitter, so the conversion inside a K loop moves nothing at
run time; the IR states the layout the dot requires, not a data movement per
iteration. The emitter reads the layout from this op (ops_dot.mma_layout)."""
from __future__ import annotations

from ..dialects.nv_tileas.layouts import LayoutAttr, tensor_core_acc
from ..dialects.nv_tileas.ops.layout import ConvertLayoutOp
from ..dialects.nv_tileas.ops.pipeline import agent_warps

DOT = "nv_tileas.dot"
AGENT_SWITCH = "nv_tileas.async.pipeline.agent_switch"


def cta_threads(entry, num_warps: int) -> int:
    """Threads of the CTA: all agents' warps when the entry is warp-specialized."""
    for op in entry.walk():
        if op.name == AGENT_SWITCH:
            return 32 * sum(agent_warps(op))
    return 32 * num_warps


def group_threads(op, cta: int) -> int:
    """Threads of the group that runs `op`: its agent's, or the CTA's."""
    child, p = op, op.parent_op
    while p is not None:
        if p.name == AGENT_SWITCH:
            for i, r in enumerate(p.regions):
                if child.parent in r.blocks:
                    return 32 * agent_warps(p)[i]
        child, p = p, p.parent_op
    return cta


def assign_layouts(entry, num_warps: int) -> int:
    """Insert the accumulator conversions in `entry`; how many were inserted."""
    threads = cta_threads(entry, num_warps)
    n = 0
    for op in list(entry.walk()):
        if op.name != DOT or len(op.operands) < 3:
            continue
        a, b, c = op.operands[:3]
        acc = tensor_core_acc(a.type, b.type, c.type, group_threads(op, threads))
        if acc is None:
            continue
        want = LayoutAttr.of(acc)
        src = getattr(c, "op", None)
        if src is not None and src.name == ConvertLayoutOp.name and src.attributes.get("layout") == want:
            continue
        conv = ConvertLayoutOp.create(source=c, layout=want, result_types=[c.type], location=op.location)
        op.parent.insert_before(conv, op)
        op.set_operand(2, conv.results[0])
        n += 1
    return n
