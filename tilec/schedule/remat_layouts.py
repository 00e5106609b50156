"""Backward rematerialization: a value that costs nothing to compute in any layout
is made again in the layout its user needs, instead of being moved there.

Such values come from iota, uniform constants, scalars and tiles in shared
memory (a pipeline slot reads into any layout for one ld.shared) through
element-wise ops, reshapes and broadcasts: causal masks, position indices, a
slot's tile scaled by the exponential of another slot's vector. Attention adds
its mask (built from iotas in the blocked layout) to the scores (in the MMA
accumulator layout); moving the mask costs a shared-memory round trip and two
barriers on every iteration, computing it in the accumulator's layout costs
the same index arithmetic as before.

Where propagation finds an element-wise op whose operand does not reach the
op's layout without moving data, and the operand is such a value, the ops that
make it are cloned right before the user, and each clone is given the layout
its user wants, pushed backward: an element-wise op passes it to its operands,
a broadcast asks its source for the slice of it, a reshape for its relabel,
and an iota computes its coordinates in whatever layout it gets. The
originals go when nothing else uses them."""
from __future__ import annotations

from ..dialects.cuda_tile.types import TileType
from ..dialects.nv_tileas.layouts import broadcast_axes
from ..dialects.nv_tileas.linear_layout import relabel, slice_layout
from ..ir.traits import Pure
from ..rewrite.clone import clone_op

MAX_OPS = 32          # a bigger subgraph is not "free" any more
LEAVES = ("cuda_tile.iota",)
SHAPE_OPS = ("cuda_tile.broadcast", "cuda_tile.reshape")


def _shape(v):
    return tuple(getattr(v.type, "shape", ()) or ())


def _tile_operands(op):
    return [v for v in op.operands if isinstance(v.type, TileType) and _shape(v)]


def _elementwise(op) -> bool:
    shape = _shape(op.results[0])
    return all(_shape(v) in ((), shape) for v in op.operands if isinstance(v.type, TileType))


def _makes_freely(d) -> bool:
    """An op that a value free of layout may come from."""
    return (not d.regions and len(d.results) == 1 and d.has_trait(Pure)
            and (d.name in LEAVES or d.name in SHAPE_OPS or _elementwise(d)))


def is_free(v, is_leaf, limit: int = MAX_OPS) -> bool:
    """Whether `v` is made from iotas and leaves (is_leaf) by at most `limit`
    element-wise ops, reshapes and broadcasts (plan may still find no way to
    make it in a given layout)."""
    seen, work = set(), [v]
    while work:
        x = work.pop()
        if x in seen or is_leaf(x):
            continue
        d = getattr(x, "op", None)
        if d is None or not _makes_freely(d) or len(seen) >= limit:
            return False
        seen.add(x)
        work.extend(_tile_operands(d))
    return True


def plan(v, layout, is_leaf, limit: int = MAX_OPS):
    """How to make `v` in `layout` from iotas and uniform values through
    element-wise ops, reshapes and broadcasts: [(op, layout of its result,
    {operand: layout it is wanted in})], definitions first, one entry per op
    and layout (a value two users want in two layouts, as the row and the
    column index of a square causal mask, is made twice). None when `v` is
    made otherwise (a load, a dot, a block argument...), when some op cannot
    give the layout (a broadcast whose source has no slice of it, a reshape
    with no relabel), or past `limit` ops. `is_leaf(value)`: a value any layout
    has as it is (a splat, a scalar, a tile in shared memory)."""
    order, seen = [], set()

    def visit(x, w) -> bool:
        if is_leaf(x) or (x, w) in seen:
            return True
        d = getattr(x, "op", None)
        if d is None or not _makes_freely(d) or len(order) >= limit:
            return False
        wants = {}
        for u in _tile_operands(d):
            if is_leaf(u):
                continue
            if d.name == "cuda_tile.broadcast":
                need = slice_layout(w, broadcast_axes(_shape(u), _shape(x)), _shape(u))
            elif d.name == "cuda_tile.reshape":
                need = relabel(w, _shape(u))
            else:
                need = w
            if need is None or not visit(u, need):
                return False
            wants[u] = need
        seen.add((x, w))
        order.append((d, w, wants))
        return True

    return order if visit(v, layout) else None


def rematerialize(user, index: int, steps) -> dict:
    """Clone the ops of `steps` (see plan) right before `user` and make its
    operand `index` the last clone; the originals nothing else uses are
    erased. Returns {clone result: its layout}."""
    made, forced = {}, {}
    for op, w, wants in steps:
        mapping = {u: made[(u, lay)] for u, lay in wants.items()}
        c = clone_op(op, mapping)
        user.parent.insert_before(c, user)
        made[(op.results[0], w)] = c.results[0]
        forced[c.results[0]] = w
    op, w, _ = steps[-1]
    user.set_operand(index, made[(op.results[0], w)])
    left = list({id(o): o for o, _, _ in steps}.values())
    while True:                     # users first; an op made twice is free once both copies are
        dead = [o for o in left if not any(r.uses for r in o.results)]
        if not dead:
            return forced
        for o in dead:
            o.erase()
        left = [o for o in left if o not in dead]
