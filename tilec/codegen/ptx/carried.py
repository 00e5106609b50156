"""Dots that accumulate straight into a loop-carried tile's registers.

A loop's accumulator comes back to its loop-carried registers at every
iteration's end. When the dot computing it starts from a new tile (attention
rescales O before its second dot), the emitter used to accumulate into fresh
registers and copy them back at the latch. ptxas then kept the two wgmma
accumulators of attention (S and O) in one register range and moved O out of
the way at every iteration: 32 moves in a loop of about 450 instructions,
where the kernel is bound by issue slots. Accumulating in the carried
registers themselves leaves O where it lives across the loop.

That is safe when nothing reads the carried value after the dot starts: every
op that uses it, directly or through anything computed from it, comes before
the dot in program order (pre-order position in the loop body), and the dot
runs once per iteration (in the body, or in regions that run once). The dot's
result must reach the loop's terminator as that same iteration argument:
directly, or through an SSA-renamed register view of the argument
(ops_memory._renamed), stored last and loaded for the terminator."""
from __future__ import annotations

_LOOPS = ("scf.for", "cuda_tile.for")


def destination(em, dot):
    """The carried tile (registers and layout) whose registers `dot`'s result
    may be written into, or None."""
    from .ops_memory import _ONCE, Cell
    result = dot.results[0]
    users = [u.owner for u in result.uses]
    if len(users) != 1:
        return None
    user = users[0]
    block = dot.parent
    while block is not None and not _loop_body(block):
        owner = block.parent_op
        if owner is None or owner.name not in _ONCE:
            return None
        block = owner.parent
    if block is None:
        return None
    term = block.last_op
    order = {id(op): i for i, op in enumerate(_preorder(block))}
    store = None
    if user is term:
        carried = [k for k, v in enumerate(term.operands) if v is result]
        if len(carried) != 1:
            return None
        arg = block.arguments[1 + carried[0]]
    elif user.name == "nv_tileas.store" and user.operands[1] is result:
        view = user.operands[0]
        vop = getattr(view, "op", None)
        cell = em.env.get(view)
        if getattr(vop, "name", None) != "nv_tileas.view" or not isinstance(cell, Cell) or not cell.renamed:
            return None
        arg = vop.operands[0]
        if getattr(arg, "block", None) is not block or arg.index == 0:
            return None           # not an iteration argument of this loop
        k = arg.index - 1
        store = user
        stores = [u.owner for u in view.uses if u.owner.name == "nv_tileas.store"]
        if any(order.get(id(s), -1) > order[id(store)] for s in stores):
            return None       # a later store replaces the dot's result
        out = term.operands[k] if k < len(term.operands) else None
        load = getattr(out, "op", None)
        if getattr(load, "name", None) != "nv_tileas.load" or load.operands[0] is not view \
                or order.get(id(load), -1) < order[id(store)]:
            return None
    else:
        return None
    if not _dead_by(dot, arg, order, store):
        return None
    slot = em.env.get(arg)
    return slot if getattr(slot, "regs", None) is not None and not slot.splat else None


def _loop_body(block) -> bool:
    owner = block.parent_op
    return owner is not None and owner.name in _LOOPS and block.arguments


def _preorder(block):
    for op in block.ops:
        yield op
        for region in op.regions:
            for b in region.blocks:
                yield from _preorder(b)


def _dead_by(dot, arg, order, store) -> bool:
    """Whether every op that uses the carried value `arg`, or anything computed
    from it (its view, and loads of the view before `store`), comes before
    `dot` (loads after `store` read the dot's result)."""
    at = order[id(dot)]
    seen, work = set(), [arg]
    while work:
        v = work.pop()
        for use in v.uses:
            op = use.owner
            if op is dot or id(op) in seen:
                continue
            seen.add(id(op))
            if op is store:
                continue
            if store is not None and op.name == "nv_tileas.load" and order.get(id(op), -1) > order[id(store)]:
                continue
            if id(op) not in order or order[id(op)] >= at:
                return False
            work.extend(op.results)
    return True
