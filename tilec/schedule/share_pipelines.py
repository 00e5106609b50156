"""One ring of stage buffers for the pipelines of consecutive loops.

Once merge_agents has put consecutive pipelined loops into one agent_switch,
each loop still has its own pipelines, and all of their stage buffers are
live together: the producer agent may run into the second loop while the
consumer is still in the first. When a pipeline of the second loop has the
same slots as one of the first (the K and V tiles of the two halves of a
causal attention loop), the second loop uses the first's pipeline instead:
its iterators start where the first loop's ended (stage and phase), so the
producer waits for the slots the consumer releases as it does inside one
loop. The ring is then one loop's buffers, not two.

A pair shares when both pipelines have the same buffer type and attributes,
each side (producer, consumer) of each pipeline has one iterator that starts
one loop of the switch's region, both sides' loops of the first pipeline come
before those of the second in the same blocks, the first loops' final
iterators are unused, and every use of a pipeline lies in its loop.
"""
from __future__ import annotations

AGENT_SWITCH = "nv_tileas.async.pipeline.agent_switch"
CREATE_PIPELINE = "nv_tileas.async.pipeline.create_pipeline"
CREATE_ITERATOR = "nv_tileas.async.pipeline.create_iterator"
LOOP = "scf.for"
LOOP_INITS = 3          # scf.for operands: lower bound, upper bound, step, then the carried values


def share_pipelines(blocks) -> int:
    """Share pipelines between consecutive loops of every agent_switch under `blocks`; how many."""
    done = 0
    for block in blocks:
        for op in list(block.ops):
            if op.name == AGENT_SWITCH:
                while _share_one(op):
                    done += 1
            for r in op.regions:
                done += share_pipelines(r.blocks)
    return done


def _start(pipe, side):
    """(iterator op, loop, carried index) when side `side` of `pipe` has one
    iterator, used once, as the carried value of an scf.for; else None."""
    its = [u for u in pipe.results[side].users if u.name == CREATE_ITERATOR]
    if len(its) != 1 or len(its[0].results[0].uses) != 1:
        return None
    use = its[0].results[0].uses[0]
    loop = use.owner
    if loop.name != LOOP or use.index < LOOP_INITS:
        return None
    return its[0], loop, use.index - LOOP_INITS


def _inside(value, loop, skip) -> bool:
    """Every use of `value` is in `loop` or is the iterator op `skip`."""
    return all(u.owner is skip or u.owner is loop or loop in u.owner.ancestors() for u in value.uses)


def _before(a, b) -> bool:
    """`a` comes before `b` (another op) in their block."""
    if a.parent is not b.parent or a is b:
        return False
    for op in a.parent.ops:
        if op is a:
            return True
        if op is b:
            return False
    return False


def _plan(p1, p2, switch):
    """[(second pipeline's iterator op, first loop's final iterator)] per side, or None."""
    if p1.operands[0].type != p2.operands[0].type or dict(p1.attributes) != dict(p2.attributes):
        return None
    plan = []
    for side in (0, 1):
        s1, s2 = _start(p1, side), _start(p2, side)
        if s1 is None or s2 is None:
            return None
        (it1, l1, k1), (it2, l2, _) = s1, s2
        if switch not in l1.ancestors() or not _before(l1, l2):
            return None
        final = l1.results[k1]
        if final.uses or not _inside(p1.results[side], l1, it1) or not _inside(p2.results[side], l2, it2):
            return None
        plan.append((it2, final))
    return plan


def _share_one(switch) -> bool:
    block = switch.parent
    pipes = [op for op in block.ops if op.name == CREATE_PIPELINE]
    for i, p1 in enumerate(pipes):
        for p2 in pipes[i + 1:]:
            plan = _plan(p1, p2, switch)
            if plan is None:
                continue
            for it2, final in plan:
                it2.results[0].replace_all_uses_with(final)
                it2.erase()
            for side in (0, 1):
                p2.results[side].replace_all_uses_with(p1.results[side])
            source = p2.operands[0]
            p2.erase()
            _erase_unused_chain(source)
            return True
    return False


def _erase_unused_chain(value):
    """Erase the ops that made `value` (the view of the stage buffer, the buffer)
    once nothing uses them."""
    while value is not None:
        op = getattr(value, "op", None)
        if op is None or value.uses or any(r.uses for r in op.results):
            return
        nxt = op.operands[0] if op.operands else None
        op.erase()
        value = nxt
