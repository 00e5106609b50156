"""The epilogue runs in the agent that computed its inputs.

A warp-specialized loop ends with its accumulator in the consumer agent's
registers. The ops after the agent_switch (convert, scale, store) used to run
on the whole CTA: the switch joined the consumer's results through shared
memory (a 128x128 f32 accumulator is 64 KB, a 256x128 one 128 KB) behind a
CTA-wide barrier, and the CTA re-read them in its own layout. When those ops
use only the consumer's results and values defined before the switch, they
are moved into the consumer's region, before its yield: the results never
leave the consumer's registers, and the join carries only what is still used
after the switch.

What moves: the ops between the switch and its block's terminator, when none
of them is a pipeline or agent op, the terminator uses none of their results,
and the results of the switch they use are yielded for real by one region,
the same for all of them (the other agents yield `create_none` placeholders).
Every other value they use is defined before the switch, so it dominates the
region as well.
"""
from __future__ import annotations

AGENT_SWITCH = "nv_tileas.async.pipeline.agent_switch"
PLACEHOLDER = "nv_tileas.create_none"


def sink_epilogues(blocks) -> int:
    """Move every agent_switch's epilogue under `blocks` into its consumer; how many moved."""
    done = 0
    for block in blocks:
        for op in list(block.ops):
            if op.name == AGENT_SWITCH:
                done += _sink(op)
            else:
                for r in op.regions:
                    done += sink_epilogues(r.blocks)
    return done


def _sink(switch) -> int:
    block = switch.parent
    ops = list(block.ops)
    tail = ops[ops.index(switch) + 1:-1]
    if not tail:
        return 0
    inner = [x for op in tail for x in op.walk()]
    if any(x.name == AGENT_SWITCH or x.name.startswith("nv_tileas.async.pipeline.") for x in inner):
        return 0
    made = {r for x in inner for r in x.results}
    made.update(a for x in inner for reg in x.regions for b in reg.blocks for a in b.arguments)
    if any(v in made for v in ops[-1].operands):
        return 0
    used, region = {}, None
    for x in inner:
        for v in x.operands:
            if v in made:
                continue
            d = getattr(v, "op", None)
            if d is switch:
                r = _yielding_region(switch, v.index)
                if r is None or (region is not None and r is not region):
                    return 0
                region = r
                used[v] = r.blocks[0].last_op.operands[v.index]
            # anything else the tail uses dominates it from outside its block or before the
            # switch, so it dominates the switch's regions too
    if region is None:
        return 0              # nothing of the switch's: no reason to move it
    body = region.blocks[0]
    yield_op = body.last_op
    for op in tail:
        block.remove(op)
        body.insert_before(op, yield_op)
    for x in inner:
        for i, v in enumerate(x.operands):
            if v in used:
                x.set_operand(i, used[v])
    return 1


def _yielding_region(switch, index):
    """The one region of `switch` whose yield gives result `index` a real value."""
    real = [r for r in switch.regions
            if getattr(getattr(r.blocks[0].last_op.operands[index], "op", None), "name", None) != PLACEHOLDER]
    return real[0] if len(real) == 1 else None
