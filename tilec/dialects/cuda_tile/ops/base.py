"""Shared pieces of cuda_tile op declarations."""
from __future__ import annotations

from ....ir.core import Block
from ....ir.opdef import Op


class CudaTileOp(Op):
    """Base of cuda_tile ops. `implicit_terminator` names the terminator the
    custom form may leave out (inserted on parse, elided on print)."""
    implicit_terminator: str | None = None

    @classmethod
    def after_parse(cls, op, state):
        if cls.implicit_terminator is None:
            return
        from ....ir import registry
        term_cls = registry.OPS[cls.implicit_terminator]
        for region in op.regions:
            if not region.blocks:
                region.add_block(Block())
            block = region.blocks[-1]
            last = block.last_op
            if last is None or not last.has_trait(_terminator()):
                term = block.append(term_cls.create(location=op.location))
                # the op's own location is set once its whole text is read: the
                # parser then hands it on to the terminators inserted here
                op.__dict__.setdefault("_implicit_terminators", []).append(term)


def _terminator():
    from ....ir.traits import Terminator
    return Terminator
