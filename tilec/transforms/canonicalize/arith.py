"""arith: the constant materializer (arith folds live on the op classes)."""
from __future__ import annotations

from ...ir.attributes import BoolAttr, FloatAttr, IntegerAttr
from ...rewrite.fold import register_materializer
from ._util import op_cls


def _materialize(attr, type_, location):
    if isinstance(attr, (IntegerAttr, FloatAttr, BoolAttr)):
        return op_cls("arith.constant").create(value=attr, result=type_, location=location)
    return None


register_materializer("arith", _materialize)
register_materializer("scf", _materialize)
register_materializer("nv_tileas", _materialize)

PATTERNS: list = []
