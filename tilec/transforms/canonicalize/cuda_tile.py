"""cuda_tile canonicalization patterns and its constant materializer."""
from __future__ import annotations

from ...rewrite.fold import register_materializer
from ...rewrite.pattern import RewritePattern
from ._util import op_cls


def _materialize(attr, type_, location):
    from ...ir.attributes import Attribute
    if not isinstance(attr, Attribute):
        return None
    try:
        return op_cls("cuda_tile.constant").create(value=attr, result=type_, location=location)
    except Exception:
        return None


register_materializer("cuda_tile", _materialize)


def defining(v, name):
    op = getattr(v, "op", None)
    return op if op is not None and op.name == name else None


class AddFMulOnLhs(RewritePattern):
    """addf(x, mulf(..)) -> addf(mulf(..), x) when x is not itself a mulf,
    so FMA fusion finds the product on the left."""
    root, name = "cuda_tile.addf", "addf-mul-on-lhs"

    def match_and_rewrite(self, op, rw):
        if defining(op.rhs, "cuda_tile.mulf") is None or defining(op.lhs, "cuda_tile.mulf") is not None:
            return False
        lhs, rhs = op.lhs, op.rhs
        with rw.modify_in_place(op):
            op.set_operand(0, rhs)
            op.set_operand(1, lhs)
        return True


ADDF_PATTERNS = [AddFMulOnLhs()]


def _patterns():
    from .cuda_tile_if import IF_PATTERNS
    from .cuda_tile_select import SELECT_PATTERNS
    return list(ADDF_PATTERNS) + IF_PATTERNS + SELECT_PATTERNS


PATTERNS = _patterns()
