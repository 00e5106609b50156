"""One warp-specialized region for consecutive pipelined loops.

Each scheduled K loop becomes its own agent_switch. Loops that follow each
other (the two halves cuTile's loop splitting makes of a causal attention
loop, say) then pass the consumer's loop-carried tiles out of the first
agent_switch (a join through shared memory to the whole CTA) and into the
second (a handoff back): for a 256x128 f32 accumulator 128 KB each way, and
two CTA-wide barriers. Merged, the producer agent runs both loops' loads one
after the other and the consumer agent both loops' compute, the accumulators
staying in the consumer's registers.

Two agent_switch ops of one block merge when their agents agree (count,
warps, register budgets), the ops between them are free of memory effects or
pipeline set-up (moved before the first switch, so they may not use its
results) and the second switch's producer does not read the first's results.
The price is that both loops' stage buffers are live together.
"""
from __future__ import annotations

from ..dialects.nv_tileas.builders import Builder
from ..dialects.nv_tileas.ops import pipeline as P, tokens
from ..rewrite.effects import has_no_memory_effect, is_side_effect_free

AGENT_SWITCH = P.AgentSwitchOp.name
# set-up ops a pipelined loop is preceded by (buffers, pipelines, iterators, descriptors)
SETUP = {"nv_tileas.alloc_tensor", "nv_tileas.view", "nv_tileas.async.pipeline.create_pipeline",
         "nv_tileas.async.pipeline.create_iterator", "nv_tileas.make_tiled_tma_desc"}


def merge_agent_switches(blocks) -> int:
    """Merge consecutive agent_switch ops in every block under `blocks`; how many merges."""
    done = 0
    work = list(blocks)
    while work:
        block = work.pop()
        while _merge_first_pair(block):
            done += 1
        for op in block.ops:
            for r in op.regions:
                work.extend(r.blocks)
    return done


def _merge_first_pair(block) -> bool:
    ops = list(block.ops)
    switches = [i for i, op in enumerate(ops) if op.name == AGENT_SWITCH]
    for i, j in zip(switches, switches[1:]):
        if _merge(block, ops[i], ops[j], ops[i + 1:j]):
            return True
    return False


def _same_agents(a, b) -> bool:
    def key(op):
        nw = op.attributes.get("num_warps")
        return (len(op.regions), op.attributes["num_agents_per_group"].value, op.attributes["max_regs"].values,
                nw.values if nw is not None else None, "isolated" in op.attributes)
    return key(a) == key(b) and len(a.regions) == 2 and not a.operands and not b.operands


def _movable(op) -> bool:
    """An op between the switches that may run before the first: set-up, a pure
    op, or one with no memory effects that is not speculatable (an integer
    division may trap). It runs on the same path either way, only earlier."""
    if op.name in SETUP or is_side_effect_free(op):
        return True
    return not op.regions and has_no_memory_effect(op)


def _uses_any(op, values) -> bool:
    return any(v in values for inner in op.walk() for v in inner.operands)


def _merge(block, a, b, between) -> bool:
    if not _same_agents(a, b):
        return False
    first = set(a.results)
    for op in between:
        if _uses_any(op, first) or not _movable(op):
            return False
    if any(_uses_any(op, first) for op in b.regions[0].blocks[0].ops):
        return False                   # the producer agent never has the consumer's results
    for op in between:                 # set-up moves before the first switch
        block.remove(op)
        block.insert_before(op, a)
    a_prod, a_cons = (r.blocks[0] for r in a.regions)
    b_prod, b_cons = (r.blocks[0] for r in b.regions)
    a_yield, b_yield = a_cons.last_op, b_cons.last_op
    carried = list(a_yield.operands)
    # the second loop reads the first's results where the consumer has them
    for r, v in zip(a.results, carried):
        for use in list(r.uses):
            if any(anc is b for anc in use.owner.ancestors()):
                use.set(v)
    # producer: both loops' loads, then placeholders for every result
    _drop(a_prod, a_prod.last_op)       # its create_none placeholders are left dead for canonicalization
    b_prod_yield = b_prod.last_op
    b_prod.remove(b_prod_yield)
    for op in list(b_prod.ops):
        b_prod.remove(op)
        a_prod.append(op)
    pb = Builder(a_prod, location=b.location)
    holes = [pb.create(tokens.CreateNoneOp, a.location, result=r.type).result for r in a.results]
    a_prod.append(P.PipelineYieldOp.create(location=b.location, values=holes + list(b_prod_yield.operands)))
    b_prod_yield.drop_all_references()
    # consumer: both loops, yielding both switches' results
    a_cons.remove(a_yield)
    b_cons.remove(b_yield)
    for op in list(b_cons.ops):
        b_cons.remove(op)
        a_cons.append(op)
    a_cons.append(P.PipelineYieldOp.create(location=b.location, values=carried + list(b_yield.operands)))
    a_yield.drop_all_references()
    b_yield.drop_all_references()
    # one switch with both result lists, where the second one stood
    regions = list(a.regions)
    a.regions.clear()
    merged = Builder(block, before=b, location=a.location).create(
        P.AgentSwitchOp, a.location, operands_=[], result_types=[r.type for r in a.results + b.results],
        regions=regions, attributes=dict(a.attributes))
    for old, new in zip(list(a.results) + list(b.results), merged.results):
        old.replace_all_uses_with(new)
    a.erase()
    b.erase()
    return True


def _drop(block, op):
    block.remove(op)
    op.drop_all_references()
