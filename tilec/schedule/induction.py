"""Counters carried through a loop, rewritten as functions of its induction variable.

cuTile kernels often walk a loop with a counter of their own beside the range
variable: `for j in range(lo, hi, BLOCK): ... load(K, (.., kv, ..)); kv += 1`.
The counter reaches the loop as an iter_arg that each trip advances by a
constant. A load indexed by it depends on a loop-carried value, so the
producer of a pipeline could not compute the address of trip i + d ahead of
the trip, and the loop stayed unpipelined: synchronous loads, and no operand
in shared memory for the tensor cores to read in place.

Such a counter is an induction variable: on trip t = (iv - lb) / step it holds
init + t * K. The rewrite gives its uses in the body that value (computed in
`index`, then truncated, so a 32-bit counter wraps the same way), leaving the
iter_arg to carry the final count out of the loop. Only the yield's `addi` of
the counter and an invariant K is recognised.
"""
from __future__ import annotations

from ..dialects.nv_tileas.builders import Builder, build_addi, build_divsi, build_muli, build_subi
from ..dialects.nv_tileas.ops.casts import IndexCastOp
from ..ir.types import IndexType, IntegerType
from .layouts import _defined_outside

ADD = ("cuda_tile.addi", "arith.addi")


def _integer(t) -> bool:
    if isinstance(t, (IndexType, IntegerType)):
        return True
    return tuple(getattr(t, "shape", (1,))) == () and isinstance(getattr(t, "element_type", None), IntegerType)


def _step_of(arg, new, loop):
    """K when `new` (the yielded value of iter_arg `arg`) is arg + K, K invariant; else None."""
    d = getattr(new, "op", None)
    if d is None or d.name not in ADD:
        return None
    a, b = d.operands[0], d.operands[1]
    if a is arg and _defined_outside(b, loop):
        return b
    if b is arg and _defined_outside(a, loop):
        return a
    return None


def _to_index(b, v):
    if isinstance(v.type, IndexType):
        return v
    return b.create(IndexCastOp, b.location, input=v, result=IndexType()).result


class CounterRewrite:
    """What rewrite_counters changed, to put back when the loop is not pipelined
    after all (its ops would only cost registers): the uses it redirected, and
    the ops it inserted, all before the body's first op."""

    def __init__(self, first):
        self.first, self.uses = first, []

    def __len__(self):
        return len(self.uses)

    def undo(self):
        for owner, index, old in self.uses:
            owner.set_operand(index, old)
        while self.uses and self.first.prev_op is not None:
            self.first.prev_op.erase()
        self.uses = []


def rewrite_counters(loop) -> CounterRewrite:
    """Rewrite the constant-stride counters of scf.for `loop` (module docstring)."""
    body = loop.regions[0].blocks[0]
    yield_op = body.last_op
    inits = list(loop.operands[3:])
    done = CounterRewrite(body.first_op or yield_op)
    b = Builder(body, before=done.first, location=loop.location)
    trip = None
    for i, arg in enumerate(body.arguments[1:]):
        if not _integer(arg.type) or i >= len(yield_op.operands):
            continue
        k = _step_of(arg, yield_op.operands[i], loop)
        uses = [u for u in arg.uses if u.owner is not yield_op]
        if k is None or not uses or not _integer(k.type):
            continue
        if trip is None:          # (iv - lb) / step, once for every counter
            trip = build_divsi(b, build_subi(b, body.arguments[0], loop.operands[0]), loop.operands[2])
        at = build_addi(b, _to_index(b, inits[i]), build_muli(b, trip, _to_index(b, k)))
        if not isinstance(arg.type, IndexType):
            at = b.create(IndexCastOp, loop.location, input=at, result=arg.type).result
        for u in uses:
            done.uses.append((u.owner, u.index, arg))
            u.owner.set_operand(u.index, at)
    return done
