"""Element-wise ops over broadcasts run before the broadcast.

`f(broadcast(a), broadcast(b), ...)` becomes `broadcast(f(a, b, ...))` when
every operand of the element-wise op `f` is a broadcast, and their sources
broadcast to one shape smaller than the result: `f` then computes that
shape's elements once instead of the result's, and what the layout passes see
is a broadcast, which any layout gets from the slice its source is in by
register copies. A source with fewer dimensions of its own (a scalar's 1x1)
is broadcast to the common shape first.

Why: an element-wise op of a broadcast is a full tile of repeated values. A
row vector negated and then broadcast over an attention tile's columns
(TileGym's flash-attention backward subtracts the rows' log-sum-exp that way)
was a 64x128 tile made before the agents forked, handed to the consumer
through shared memory and converted into the accumulator's layout every K
step; made after the negation, it is a broadcast of 64 values."""
from __future__ import annotations

from ..dialects.cuda_tile.ops.core import BroadcastOp
from ..dialects.cuda_tile.types import TileType
from ..dialects.nv_tileas.types import num_elements
from ..ir.traits import Elementwise
from ..rewrite.pattern import RewritePattern


def _fits(src, shape) -> bool:
    """Whether a tile of shape `src` broadcasts to `shape` (same rank)."""
    return len(src) == len(shape) and all(s in (1, d) for s, d in zip(src, shape))


class ElementwiseBeforeBroadcast(RewritePattern):
    """f(broadcast(a), ...) -> broadcast(f(a, ...)) for an element-wise f."""

    def match_and_rewrite(self, op, rw) -> bool:
        if not op.has_trait(Elementwise) or op.regions or len(op.results) != 1:
            return False
        rt = op.results[0].type
        if not isinstance(rt, TileType) or not rt.shape:
            return False
        sources = []
        for v in op.operands:
            d = getattr(v, "op", None)
            if d is None or d.name != "cuda_tile.broadcast":
                return False
            sources.append(d.operands[0])
        shape = max((tuple(s.type.shape) for s in sources), key=num_elements)
        if num_elements(shape) >= num_elements(rt.shape) \
                or not all(_fits(tuple(s.type.shape), shape) for s in sources):
            return False
        operands = []
        for s in sources:
            if tuple(s.type.shape) != shape:
                s = rw.create(BroadcastOp, location=op.location, source=s,
                              result=TileType(shape, s.type.element_type)).result
            operands.append(s)
        small = rw.insert(type(op)(operands, [TileType(shape, rt.element_type)], dict(op.attributes), [],
                                   op.location, []))
        out = rw.create(BroadcastOp, location=op.location, source=small.results[0], result=rt).result
        rw.replace_op(op, [out])
        return True
