"""Loops that run at most once.

A software pipeline overlaps the loads of later trips with the compute of
earlier ones; a loop of one trip has nothing to overlap, and its producer
agent, barriers and tensor maps only add latency before the first load lands
(TileGym's decode attention: one 128-key block per CTA, 4.7 us pipelined,
3.3 us not, on an H100). The proof is the bounds' own arithmetic, as cuTile
writes a loop over one block: constant bounds, `ub = lb + c`, or a signed
`min` of which one side is such a bound, with c no larger than a constant step.
Works on cuda_tile.for and on the scf.for it is lowered to (bounds cast to
index)."""
from __future__ import annotations

from ..dialects.cuda_tile.divisibility import int_constant

_TRANSPARENT = ("arith.index_cast", "builtin.unrealized_conversion_cast", "cuda_tile.assume")
_CONSTANT = ("arith.constant", "cuda_tile.constant")
_DEPTH = 8


def _source(v):
    """`v` seen through index casts and assumes (they keep its value)."""
    for _ in range(_DEPTH):
        op = getattr(v, "op", None)
        if op is None or op.name not in _TRANSPARENT:
            return v
        v = op.operands[0]
    return v


def _constant(v):
    op = getattr(_source(v), "op", None)
    return int_constant(op) if op is not None and op.name in _CONSTANT else None


def _within(ub, lb, step: int, depth: int = 0) -> bool:
    """Whether ub - lb <= step is shown (a wrapped `lb + c` is below lb: no trip)."""
    ub, lb = _source(ub), _source(lb)
    hi, lo = _constant(ub), _constant(lb)
    if hi is not None and lo is not None:
        return hi - lo <= step
    op = getattr(ub, "op", None)
    if op is None or depth > _DEPTH:
        return False
    if op.name == "cuda_tile.addi":
        for x, c in (op.operands, reversed(op.operands)):
            k = _constant(c)
            if k is not None and _source(x) is lb and k <= step:
                return True
        return False
    if op.name == "cuda_tile.mini":
        sign = getattr(op.attributes.get("signedness"), "value", None)
        return sign == "signed" and any(_within(side, lb, step, depth + 1) for side in op.operands)
    return False


def runs_at_most_once(loop) -> bool:
    """Whether for-loop `loop` (operands lb, ub, step, ...) makes at most one trip."""
    if loop.name not in ("scf.for", "cuda_tile.for") or len(loop.operands) < 3:
        return False
    lb, ub, step = loop.operands[:3]
    s = _constant(step)
    return s is not None and s > 0 and _within(ub, lb, s)
