"""fuse-fma: mulf feeding addf/subf (as the left operand, with one use, and the
same rounding mode and flush_to_zero) becomes one cuda_tile.fma; a - b
becomes fma(x, y, negf(c)). Runs with addf's canonicalization (product moved
to the left) under the greedy driver."""
from __future__ import annotations

from ..passes.base import Pass, target_blocks
from ..rewrite.driver import GreedyDriver
from ..rewrite.pattern import RewritePattern
from .canonicalize._util import op_cls
from .canonicalize.cuda_tile import ADDF_PATTERNS, defining


def _modifiers(op):
    return op.attributes.get("rounding_mode"), "flush_to_zero" in op.attributes


class _FuseMul(RewritePattern):
    negate = False

    def match_and_rewrite(self, op, rw):
        mul = defining(op.lhs, "cuda_tile.mulf")
        if mul is None or len(mul.result._uses) != 1:
            return False
        if _modifiers(mul) != _modifiers(op):
            return False
        c = op.rhs
        if self.negate:
            c = rw.create(op_cls("cuda_tile.negf"), source=c, result=c.type, location=op.location).result
        attrs = {k: v for k, v in op.attributes.items() if k in ("rounding_mode", "flush_to_zero")}
        fma = rw.create(op_cls("cuda_tile.fma"), lhs=mul.lhs, rhs=mul.rhs, acc=c, result=op.result.type,
                        attributes=attrs, location=op.location)
        rw.replace_op(op, [fma.result])
        rw.erase_op(mul)
        return True


class MulAdd(_FuseMul):
    root, name = "cuda_tile.addf", "fuse-mul-add"


class MulSub(_FuseMul):
    root, name, negate = "cuda_tile.subf", "fuse-mul-sub", True


class FuseFMA(Pass):
    name = "fuse-fma"
    argument = "FuseFMAPass"

    def run(self, target) -> bool:
        GreedyDriver(ADDF_PATTERNS + [MulAdd(), MulSub()]).run(target_blocks(target), None)
        return True
