"""Structured control flow: cuda_tile.for / if / loop -> scf.for / if / while.

- cuda_tile.for -> scf.for over index. Bounds and step are cast to index; the
  body sees the induction variable cast back to its 0-d tile type (the casts
  cancel against the coordinate casts of the tiled memops). A loop stays a
  cuda_tile.for when it compares unsigned or when a `continue` nested in an
  `if` leaves it early (scf.for has no early exit).
- cuda_tile.if -> scf.if when both branches end in `yield` and nothing inside
  leaves it (a break/continue of an enclosing loop, a return). Its condition,
  a 0-d tile<i1>, becomes the i1 scf.if wants through
  `builtin.unrealized_conversion_cast` (MLIR's bridge between the types of
  two dialects; tilec's evaluator and emitter read it as the identity).
- An early `continue` (`if %c {continue X}` followed by the rest R of a body
  that ends in `continue Y`) becomes `%r = if %c {yield X} else {R; yield Y};
  continue %r` first, which removes the early exit.
- cuda_tile.loop -> scf.while when its body is `P; if %c {break X} [else {}];
  Q; continue Y` (or the `if %c {} else {break X}` form): the before region
  runs P and ends with scf.condition(continue?) on X plus the values of P that
  Q and Y use; the after region runs Q and yields Y. Any other break or
  continue of the loop (nested in a conditional, two exits, none) keeps it a
  cuda_tile.loop: scf.while has one exit point.
What stays cuda_tile is consumed by the emitter directly (docs/decisions.md,
"Lowering and scheduling")."""
from __future__ import annotations

from ..dialects.arith import ops as arith
from ..dialects.builtin.ops import UnrealizedConversionCastOp
from ..dialects.nv_tileas.ops.casts import IndexCastOp
from ..dialects.scf import ops as scf
from ..ir import attributes as A
from ..ir.core import Block, Region
from ..ir.types import IntegerType
from ..rewrite.pattern import RewritePattern
from .common import INDEX, to_index

I1 = IntegerType(1)
CUDA_LOOPS = ("cuda_tile.for", "cuda_tile.loop")
EXITS = ("cuda_tile.break", "cuda_tile.continue", "cuda_tile.return")

LOOPS = ("cuda_tile.for", "cuda_tile.loop", "scf.for")


def _early_exits(loop) -> bool:
    body = loop.regions[0].blocks[0]
    term = body.last_op
    for op in loop.walk():
        if op is loop or op is term or op.name not in ("cuda_tile.continue", "cuda_tile.break"):
            continue
        anc = op.parent_op
        while anc is not None and anc.name not in LOOPS:
            anc = anc.parent_op
        if anc is loop:
            return True
    return False


class ForToScf(RewritePattern):
    root = "cuda_tile.for"

    def match_and_rewrite(self, op, rw) -> bool:
        if "unsignedCmp" in op.attributes or not op.regions[0].blocks:
            return False
        body = op.regions[0].blocks[0]
        term = body.last_op
        if term is None or term.name != "cuda_tile.continue" or _early_exits(op):
            return False
        loc = op.location
        lb, ub, st = (to_index(rw, v, loc) for v in op.operands[:3])
        inits = list(op.operands[3:])
        block = Block([INDEX] + [v.type for v in inits])
        new = rw.create(scf.ForOp, location=loc, lowerBound=lb, upperBound=ub, step=st, initArgs=inits,
                        results=[r.type for r in op.results], regions=[Region([block])])
        iv_old = body.arguments[0]
        for a, b in zip(body.arguments[1:], block.arguments[1:]):
            b.name_hint = a.name_hint
        block.arguments[0].name_hint = iv_old.name_hint
        with rw.insertion_point():
            rw.set_insertion_point_to_end(block)
            if iv_old.uses:
                iv = rw.create(IndexCastOp, location=loc, input=block.arguments[0], result=iv_old.type).result
            else:
                iv = block.arguments[0]
            rw.inline_block_at_end(body, block, [iv] + list(block.arguments[1:]))
            rw.set_insertion_point_before(term)
            rw.create(scf.YieldOp, location=term.location, results_=list(term.operands))
        rw.erase_op(term)
        rw.replace_op(op, list(new.results))
        return True


class FoldIndexCastPair(RewritePattern):
    """index_cast(index_cast(x)) back to x's type is x: the loop casts and the
    coordinate casts meet here (the values came from i32/i64 bounds)."""
    root = IndexCastOp.name

    def match_and_rewrite(self, op, rw) -> bool:
        src = op.operands[0]
        inner = getattr(src, "op", None)
        if inner is None or inner.name != IndexCastOp.name or inner.operands[0].type != op.result.type:
            return False
        rw.replace_op(op, [inner.operands[0]])
        return True


# ---- if -> scf.if -----------------------------------------------------------------------

def _target_loop(exit_op):
    """The loop a break/continue leaves (the nearest cuda_tile loop); None for return."""
    if exit_op.name == "cuda_tile.return":
        return None
    p = exit_op.parent_op
    while p is not None and p.name not in CUDA_LOOPS:
        p = p.parent_op
    return p


def _nested_in(op, container) -> bool:
    while op is not None:
        if op is container:
            return True
        op = op.parent_op
    return False


def _leaves(op) -> bool:
    """Whether a break/continue/return nested in `op` leaves it."""
    for inner in op.walk():
        if inner is not op and inner.name in EXITS:
            target = _target_loop(inner)
            if target is None or not _nested_in(target, op):
                return True
    return False


def as_i1(rw, value, location):
    """The i1 scalar of a 0-d tile<i1> (an i1 stays itself)."""
    if value.type == I1:
        return value
    d = getattr(value, "op", None)
    if d is not None and d.name == UnrealizedConversionCastOp.name and len(d.operands) == 1 and \
            d.operands[0].type == I1:
        return d.operands[0]
    return rw.create(UnrealizedConversionCastOp, location=location, inputs=[value], outputs=[I1]).results[0]


def _yield_block(region):
    """The region's block when it ends in a cuda_tile.yield (or has no block: None, True)."""
    if not region.blocks:
        return None, True
    if len(region.blocks) != 1:
        return None, False
    term = region.blocks[0].last_op
    return region.blocks[0], term is not None and term.name == "cuda_tile.yield"


class IfToScf(RewritePattern):
    root = "cuda_tile.if"

    def match_and_rewrite(self, op, rw) -> bool:
        then_b, ok_then = _yield_block(op.regions[0])
        else_b, ok_else = _yield_block(op.regions[1])
        if then_b is None or not (ok_then and ok_else) or _leaves(op):
            return False
        loc = op.location
        cond = as_i1(rw, op.operands[0], loc)
        regions = [Region(), Region()]
        new = rw.create(scf.IfOp, location=loc, condition=cond, results=[r.type for r in op.results],
                        regions=regions)
        for block, region in ((then_b, new.regions[0]), (else_b, new.regions[1])):
            if block is None:
                continue
            op.regions[0 if block is then_b else 1].blocks = []
            region.add_block(block)
            term = block.last_op
            with rw.insertion_point():
                rw.set_insertion_point_before(term)
                rw.create(scf.YieldOp, location=term.location, results_=list(term.operands))
            rw.erase_op(term)
        rw.replace_op(op, list(new.results))
        return True


# ---- early continue -> if/else ---------------------------------------------------------------

def _ends_in_continue(block) -> bool:
    """Whether leaving `block` through its terminator continues the loop with
    the terminator's values: it is a `continue`, or the `yield` of an if whose
    results are exactly the operands of the `continue` right after it."""
    term = block.last_op
    if term is None:
        return False
    if term.name == "cuda_tile.continue":
        return True
    if term.name != "cuda_tile.yield":
        return False
    parent = block.parent_op
    if parent is None or parent.name != "cuda_tile.if" or not parent.results:
        return False
    nxt = parent.next_op
    return nxt is not None and nxt.name == "cuda_tile.continue" and nxt is parent.parent.last_op and \
        list(nxt.operands) == list(parent.results)


class SinkEarlyContinue(RewritePattern):
    """`if %c {continue X}; R; T Y` (T a continue, or a yield that goes straight
    to one) -> `%r = if %c {yield X} else {R; yield Y}; T %r` (the `{} else
    {continue X}` form likewise): the loop's early exit becomes an if/else, so
    the loop and its ifs can lower to scf.for / scf.if."""
    root = "cuda_tile.if"

    def match_and_rewrite(self, op, rw) -> bool:
        got = _lone_exit(op, "cuda_tile.continue")
        block = op.parent
        if got is None or block is None or not _ends_in_continue(block):
            return False
        cont, in_then = got
        term = block.last_op
        if op is term:
            return False
        from ..dialects.cuda_tile.ops.control_flow import IfOp, YieldOp
        loc = op.location
        types = [v.type for v in term.operands]
        exit_b, rest_b = Block(), Block()
        new = IfOp.create(condition=op.operands[0], results=types, location=loc)
        new.regions[0].add_block(exit_b if in_then else rest_b)
        new.regions[1].add_block(rest_b if in_then else exit_b)
        exit_b.append(YieldOp.create(operands=list(cont.operands), location=cont.location))
        moved = []
        o = op.next_op
        while o is not term:
            moved.append(o)
            o = o.next_op
        for o in moved:
            block.remove(o)
            rest_b.append(o)
        rest_b.append(YieldOp.create(operands=list(term.operands), location=term.location))
        with rw.insertion_point():
            rw.set_insertion_point_before(op)
            rw.insert(new)
        with rw.modify_in_place(term):
            term.set_operands(list(new.results))
        rw.erase_op(op)
        return True


# ---- loop -> scf.while ----------------------------------------------------------------------

def _exit_if(op):
    """(break, break-in-then) when `op` is `if %c {break X}` / `if %c {} else {break X}`
    with no results and nothing else in either branch; else None."""
    return _lone_exit(op, "cuda_tile.break")


def _lone_exit(op, exit_name):
    """(exit op, in-then) when `op` is `if %c {EXIT}` / `if %c {} else {EXIT}` with
    no results and nothing else in either branch; else None."""
    if op.name != "cuda_tile.if" or op.results:
        return None
    blocks = [r.blocks[0] if len(r.blocks) == 1 else None for r in op.regions]
    if len(op.regions[0].blocks) != 1 or len(op.regions[1].blocks) > 1:
        return None
    ops = [list(b.ops) if b is not None else [] for b in blocks]
    for k in (0, 1):
        mine, other = ops[k], ops[1 - k]
        if len(mine) == 1 and mine[0].name == exit_name and (
                not other or (len(other) == 1 and other[0].name == "cuda_tile.yield" and not other[0].operands)):
            return mine[0], k == 0
    return None


def _top_level(op, block):
    """The op of `block` that holds `op` (op itself when it is in `block`)."""
    while op is not None and op.parent is not block:
        op = op.parent_op
    return op


class LoopToWhile(RewritePattern):
    root = "cuda_tile.loop"

    def match_and_rewrite(self, op, rw) -> bool:
        region = op.regions[0]
        if len(region.blocks) != 1:
            return False
        body = region.blocks[0]
        term = body.last_op
        if term is None or term.name != "cuda_tile.continue":
            return False
        exits = [(o, _exit_if(o)) for o in body.ops]
        exits = [(o, e) for o, e in exits if e is not None]
        if len(exits) != 1:
            return False
        exit_if, (brk, in_then) = exits[0]
        for inner in op.walk():
            if inner.name in ("cuda_tile.break", "cuda_tile.continue") and inner is not brk and \
                    inner is not term and _target_loop(inner) is op:
                return False
            if inner.name == "cuda_tile.return":
                return False
        ops = list(body.ops)
        k = ops.index(exit_if)
        head, tail = ops[:k], ops[k + 1:-1]
        tail_set = set(tail) | {term}
        defined = set(body.arguments) | {r for o in head for r in o.results}
        live = []                      # values of the head the tail uses
        for o in tail + [term]:
            for inner in o.walk():
                for v in inner.operands:
                    if v in defined and v not in live:
                        live.append(v)
        exit_vals = list(brk.operands)
        passed = []
        for v in exit_vals + live:
            if v not in passed:
                passed.append(v)
        loc = op.location
        before = Block([a.type for a in body.arguments])
        after = Block([v.type for v in passed])
        for a, b in zip(body.arguments, before.arguments):
            b.name_hint = a.name_hint
        for v, b in zip(passed, after.arguments):
            b.name_hint = getattr(v, "name_hint", None)
        new = rw.create(scf.WhileOp, location=loc, inits=list(op.operands), results=[v.type for v in passed],
                        regions=[Region([before]), Region([after])])
        # the tail reads the head's values through the after region's arguments
        for v in live:
            arg = after.arguments[passed.index(v)]
            for use in list(v.uses):
                if _top_level(use.owner, body) in tail_set:
                    use.set(arg)
                    rw.notify_modified(use.owner)
        arg_map = dict(zip(body.arguments, before.arguments))
        for a, b in arg_map.items():
            rw.replace_all_uses_with(a, b)
        for o in head:
            body.remove(o)
            before.append(o)
        for o in tail:
            body.remove(o)
            after.append(o)
        with rw.insertion_point():
            rw.set_insertion_point_to_end(before)
            go = as_i1(rw, exit_if.operands[0], exit_if.location)
            if in_then:   # the loop goes on when the condition is false
                true = rw.create(arith.ConstantOp, location=exit_if.location, value=A.BoolAttr(True),
                                 result=I1).result
                go = rw.create(arith.XOrIOp, location=exit_if.location, lhs=go, rhs=true, result=I1).result
            rw.create(scf.ConditionOp, location=brk.location, condition=go,
                      args=[arg_map.get(v, v) for v in passed])
            rw.set_insertion_point_to_end(after)
            rw.create(scf.YieldOp, location=term.location, results_=list(term.operands))
        rw.erase_op(term)
        rw.erase_op(exit_if)
        rw.replace_op(op, [new.results[passed.index(v)] for v in exit_vals])
        return True
