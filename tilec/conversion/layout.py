"""Layout-shaped cuda_tile ops with an nv_tileas counterpart: permute becomes
nv_tileas.shuffle (the same permutation convention: result dim i is source dim
perm[i])."""
from __future__ import annotations

from ..dialects.nv_tileas.ops.layout import ShuffleOp
from ..rewrite.pattern import RewritePattern


class PermuteToShuffle(RewritePattern):
    root = "cuda_tile.permute"

    def match_and_rewrite(self, op, rw) -> bool:
        new = rw.create(ShuffleOp, location=op.location, source=op.source, permutation=op.permutation,
                        result=op.result.type)
        rw.replace_op(op, [new.result])
        return True
