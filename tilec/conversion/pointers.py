"""Pointer-tile loads and stores -> nv_tileas.gather_load / scatter_store.

A pointer tile built as `offset(base, offsets)` (base a scalar pointer,
possibly reshaped/broadcast) becomes a GMEM view of the base
(`nv_tileas.view %base : tile<ptr<T>> -> tiled_view<?xT, GMEM>`) gathered at
`offsets` (element units), under the op's mask. A padding operand becomes a
select on the mask after the gather; a splat +0 instead becomes the gather's
`padding_value = zero`, which its masked-off lanes read as. Pointer tiles of
any other shape, and non-weak (ordered) accesses, stay cuda_tile.load_ptr_tko /
store_ptr_tko, which the emitter consumes directly (codegen/ptx/ops_pointer.py)."""
from __future__ import annotations

import math

from ..dialects.cuda_tile.divisibility import splat_scalar
from ..dialects.cuda_tile.ops.core import SelectOp
from ..dialects.nv_tileas.ops.layout import ViewOp
from ..dialects.nv_tileas.attributes import PaddingAttr
from ..dialects.nv_tileas.ops.memops import GatherLoadOp, ScatterStoreOp
from ..dialects.nv_tileas.types import TiledViewType
from ..ir.types import DYNAMIC
from ..rewrite.pattern import RewritePattern
from .common import forward_token, memory_attrs, semantic_word


def _scalar_base(v):
    """Look through reshape/broadcast to a 0-d pointer tile."""
    while tuple(getattr(v.type, "shape", ())) != ():
        d = getattr(v, "op", None)
        if d is None or d.name not in ("cuda_tile.reshape", "cuda_tile.broadcast"):
            return None
        v = d.operands[0]
    return v


def decompose(ptr):
    """(scalar base pointer, offsets tile) for `offset(base, offsets)`, else None.
    An assume on the offset pointers (cuTile's `div_by` on a computed address)
    is looked through: the gather's own alignment proof starts from its base."""
    d = getattr(ptr, "op", None)
    while d is not None and d.name == "cuda_tile.assume":
        ptr = d.operands[0]
        d = getattr(ptr, "op", None)
    if d is None or d.name != "cuda_tile.offset":
        return None
    base = _scalar_base(d.operands[0])
    if base is None or tuple(d.operands[1].type.shape) != tuple(ptr.type.shape):
        return None
    return base, d.operands[1]


def _is_positive_zero(v) -> bool:
    """Whether tile `v` is a splat +0: the padding a gather's masked-off lanes get
    without a select (padding_value = zero)."""
    x = splat_scalar(v)
    return x is not None and not isinstance(x, bool) and x == 0 and math.copysign(1.0, float(x)) > 0


def _weak(op) -> bool:
    return semantic_word(op) == "weak"


def _gview(rw, op, base):
    elt = base.type.element_type.pointee
    return rw.create(ViewOp, location=op.location, source=base, indices=[],
                     result=TiledViewType((DYNAMIC,), elt, "GMEM")).result


class LowerLoadPtr(RewritePattern):
    root = "cuda_tile.load_ptr_tko"

    def match_and_rewrite(self, op, rw) -> bool:
        parts = decompose(op.source)
        if parts is None or not _weak(op):
            return False
        base, offs = parts
        view = _gview(rw, op, base)
        zero_pad = op.mask is not None and op.paddingValue is not None and _is_positive_zero(op.paddingValue)
        attrs = {"padding_value": PaddingAttr("zero")} if zero_pad else {}
        attrs.update(memory_attrs(op))
        g = rw.create(GatherLoadOp, location=op.location, view=view, indices=offs, mask=op.mask, token=None,
                      result=op.results[0].type, attributes=attrs).result
        if op.mask is not None and op.paddingValue is not None and not zero_pad:
            g = rw.create(SelectOp, location=op.location, cond=op.mask, val_if_true=g,
                          val_if_false=op.paddingValue, result=g.type).result
        forward_token(rw, op, op.results[1], op.token)
        rw.replace_op(op, [g, None])
        return True


class LowerStorePtr(RewritePattern):
    root = "cuda_tile.store_ptr_tko"

    def match_and_rewrite(self, op, rw) -> bool:
        parts = decompose(op.destination)
        if parts is None or not _weak(op):
            return False
        base, offs = parts
        view = _gview(rw, op, base)
        rw.create(ScatterStoreOp, location=op.location, view=view, indices=offs, value=op.value, mask=op.mask,
                  token=None, attributes=memory_attrs(op))
        forward_token(rw, op, op.results[0], op.token)
        rw.replace_op(op, [None])
        return True
