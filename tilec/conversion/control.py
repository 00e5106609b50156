"""cuda_tile.for -> scf.for over index. Bounds and step are cast to index; the
body sees the induction variable cast back to its 0-d tile type (the casts
cancel against the coordinate casts of the tiled memops). A loop stays a
cuda_tile.for when it compares unsigned or when a `continue` nested in an `if`
leaves it early (scf.for has no early exit). cuda_tile.if and cuda_tile.loop
stay: scf.if needs an i1 scalar condition and the subset has no scf.while
(docs/decisions.md, "Lowering and scheduling")."""
from __future__ import annotations

from ..dialects.nv_tileas.ops.casts import IndexCastOp
from ..dialects.scf import ops as scf
from ..ir.core import Block, Region
from ..rewrite.pattern import RewritePattern
from .common import INDEX, to_index

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
