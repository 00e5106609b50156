"""Shared pieces of nv_tileas op declarations."""
from __future__ import annotations

from ....ir.opdef import Op
from ..types import payload


class NvTileasOp(Op):
    """`segmented = True` keeps an operandSegmentSizes attribute even when the
    declaration has a single variadic group (the spec's TMA ops carry one)."""
    segmented = False

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if cls.segmented:
            cls._segmented = True
            cls._all_single = False

    # the ordering tokens of a memory op that declares `token` / `result_token` (none otherwise)
    def token_values(self):
        t = getattr(type(self), "token", None)
        if t is None:
            return []
        v = self.token
        return v if isinstance(v, list) else ([] if v is None else [v])

    def result_token_values(self):
        if getattr(type(self), "result_token", None) is None:
            return []
        v = self.result_token
        return v if isinstance(v, list) else ([] if v is None else [v])


class TiledMemOp(NvTileasOp):
    """A tiled memory op. Subclasses declare `view`, `coords`, optionally
    `offsets`, `token`, and say which value is the tile (`tile_from`: a field
    name; an async value is unwrapped)."""
    tile_from: str | None = None
    descriptor_coord_count = 0

    def view_value(self):
        return self.view

    def coord_values(self):
        return list(self.coords)

    def offset_values(self):
        return list(getattr(self, "offsets", None) or [])

    def tile_type(self):
        if self.tile_from is None:
            return None
        v = getattr(self, self.tile_from)
        return payload(v.type) if v is not None else None


def _verify_segments(op) -> bool:
    """Segmented memops: the segment sizes must follow the op schema (one
    entry per declared group, summing to the operand count)."""
    from ....ir.attributes import DenseArrayAttr
    from ....ir.opdef import SEGMENTS
    seg = op.attributes.get(SEGMENTS)
    if not isinstance(seg, DenseArrayAttr) or len(seg.values) != len(op.operand_defs) or \
            sum(seg.values) != len(op.operands) or any(v < 0 for v in seg.values) or any(
                d.kind == "single" and v != 1 for d, v in zip(op.operand_defs, seg.values)):
        op.emit_error("operandSegmentSizes does not match the op schema")
        return False
    return True


def _tiled_verify_structure(self):
    return _verify_segments(self) and NvTileasOp.verify_structure(self)


TiledMemOp.verify_structure = _tiled_verify_structure
