"""A persistent kernel forks its agents once, not once per output tile.

A persistent cuTile kernel loops over output tiles (`for t in range(bid,
tiles, grid)`), with the K loop inside. Pipelining that K loop puts its
pipelines' set-up and its agent_switch inside the tile loop, so every tile
initialized the pipelines' barriers again, forked the agents and joined them
behind a CTA barrier: the producer could not load the next tile's first
stages while the consumers ran the current tile's epilogue, and each tile
paid a pipeline fill.

Where the tile loop's body is only scalar ops without memory effects (the
tile index arithmetic), the loop-invariant set-up of the pipelines and the
one agent_switch, the loop is turned inside out:

* the set-up goes before the loop (the rings live for the whole kernel);
* the agent_switch takes the loop's place, and each agent region runs its own
  copy of the tile loop: the scalar ops (cloned into each) and the region's
  ops, with the iterators of the hoisted pipelines carried from tile to tile
  (each region's last value of an iterator, followed through the top-level
  loops and inc_iter ops that advance it, is the next tile's first);
* the regions yield placeholders: nothing after the loop read the switch.

Every agent runs the same trips (the same bounds), so producer and consumers
stay in step across tiles, and the producer runs ahead into the next tile as
far as the slots allow. On a cluster the same holds between the CTAs: the
tile block is the cluster, so its CTAs walk the same tiles and fill and
release the multicast slots in the same order; each producer drains its
multicast pipelines once, after its tile loop (codegen ops_pipeline.drain).
Loops whose body does anything else (a value carried from tile to tile, a
memory op outside the switch) are left as they are."""
from __future__ import annotations

from ..dialects.nv_tileas.ops import tokens
from ..dialects.scf import ops as scf
from ..ir.core import Block, Region
from ..rewrite.clone import clone_op
from ..rewrite.effects import memoryless_scalar
from ..transforms.canonicalize._util import defined_outside

AGENT_SWITCH = "nv_tileas.async.pipeline.agent_switch"
CREATE_ITERATOR = "nv_tileas.async.pipeline.create_iterator"
INC_ITER = "nv_tileas.async.pipeline.inc_iter"
LOOP = "scf.for"
SET_UP = ("nv_tileas.alloc_tensor", "nv_tileas.view", "nv_tileas.async.pipeline.create_pipeline",
          CREATE_ITERATOR)


def fork_once(entry_blocks) -> int:
    """Turn every qualifying tile loop at the top level of the entry bodies
    `entry_blocks` inside out; how many were."""
    done = 0
    for block in entry_blocks:
        for op in list(block.ops):
            if op.name == LOOP:
                plan = _plan(op)
                if plan is not None:
                    _rewrite(op, *plan)
                    done += 1
    return done


def _plan(loop):
    """(scalar ops, set-up ops, switch, {region: [(iterator, its last value)]}) for
    a tile loop this applies to, else None."""
    body = loop.regions[0].blocks[0]
    ops = list(body.ops)
    if len(ops) < 2 or ops[-2].name != AGENT_SWITCH:
        return None
    switch, term = ops[-2], ops[-1]
    if list(term.operands) != list(body.arguments[1:]) or any(r.uses for r in switch.results):
        return None           # a value carried from tile to tile, or one read after the switch
    scalars, set_up, made = [], [], set()
    for o in ops[:-2]:
        if o.name in SET_UP and not o.regions:
            if not all(v in made or defined_outside(v, loop) for v in o.operands):
                return None   # set-up that differs from tile to tile
            set_up.append(o)
            made.update(o.results)
        elif memoryless_scalar(o):     # cloned into each agent, it runs where the loop ran it
            scalars.append(o)
        else:
            return None
    iterators = [r for o in set_up if o.name == CREATE_ITERATOR for r in o.results]
    if not iterators:
        return None
    if any(all(a is not switch for a in u.ancestors()) for it in iterators for u in it.users):
        return None           # an iterator read outside the switch
    carried = {}
    for region in switch.regions:
        if len(region.blocks) != 1 or region.blocks[0].arguments:
            return None
        chains = []
        for it in iterators:
            last = _last_value(region.blocks[0], it)
            if last is False:
                return None
            if last is not None:
                chains.append((it, last))
        carried[region] = chains
    return scalars, set_up, switch, carried


def _last_value(block, it):
    """The value iterator `it` has after the top-level ops of region block
    `block`: a top-level loop taking it as an iter_arg gives it back as that
    result, an inc_iter gives the advanced one, any other top-level op only
    reads it. None where the region does not use it; False where a use is not
    one of these (a nested op reading a value of the chain)."""
    cur, chain, used = it, {id(it)}, False
    for op in block.ops:
        idx = [i for i, v in enumerate(op.operands) if v is cur]
        if not idx:
            continue
        used = True
        if op.name == LOOP:
            if len(idx) != 1 or idx[0] < 3:
                return False
            cur = op.results[idx[0] - 3]
        elif op.name == INC_ITER:
            cur = op.results[0]
        chain.add(id(cur))
    for op in block.ops:
        for x in op.walk():
            if x is not op and any(id(v) in chain for v in x.operands):
                return False
    return cur if used else None


def _rewrite(loop, scalars, set_up, switch, carried):
    parent = loop.parent
    lb, ub, step = loop.operands[:3]
    body = loop.regions[0].blocks[0]
    iv, args = body.arguments[0], list(body.arguments[1:])
    inits = list(loop.operands[3:])
    for o in set_up:              # the rings live for the whole kernel
        body.remove(o)
        parent.insert_before(o, loop)
    body.remove(switch)
    parent.insert_before(switch, loop)
    for region in switch.regions:
        rblock = region.blocks[0]
        moved = list(rblock.ops)[:-1]
        ryield = rblock.last_op
        chains = carried[region]
        block = Block([iv.type] + [it.type for it, _ in chains])
        mapping = {iv: block.arguments[0]}
        mapping.update(zip(args, inits))       # carried values pass through the tile loop unchanged
        mapping.update((it, a) for (it, _), a in zip(chains, block.arguments[1:]))
        for o in scalars:
            block.append(clone_op(o, mapping))
        for o in moved:
            rblock.remove(o)
            block.append(o)
            for x in o.walk():
                for i, v in enumerate(x.operands):
                    if v in mapping:
                        x.set_operand(i, mapping[v])
        lasts = [mapping.get(last, last) for _, last in chains]
        block.append(scf.YieldOp.create(location=loop.location, results_=lasts))
        tile_loop = scf.ForOp.create(location=loop.location, lowerBound=lb, upperBound=ub, step=step,
                                     initArgs=[it for it, _ in chains],
                                     results=[it.type for it, _ in chains], regions=[Region([block])])
        rblock.insert_before(tile_loop, ryield)
        for i, v in enumerate(list(ryield.operands)):     # nothing reads the switch's results
            hole = tokens.CreateNoneOp.create(location=loop.location, result=v.type)
            rblock.insert_before(hole, ryield)
            ryield.set_operand(i, hole.results[0])
    for r, init in zip(loop.results, inits):
        r.replace_all_uses_with(init)
    for o in reversed(list(body.ops)):
        o.erase()
    loop.erase()
