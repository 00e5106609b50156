"""Control and metadata: region termination, optimizer directives and
persistent-scheduling control; plus nv_tileaa.block_tile, the producer of the
tiled views the tiled memops consume."""
from __future__ import annotations

from ....ir import attributes as A
from ....ir.opdef import AttrDef, Operand, Result, VarOperand
from ....ir.traits import Pure, Terminator, has_parent
from ..types import ASYNC_VALUE, TILED_VIEW
from .base import NvTileasOp


class YieldOp(NvTileasOp):
    """Terminates the bodies of reduce, scan and generate."""
    name = "nv_tileas.yield"
    traits = (Terminator, has_parent("nv_tileas.reduce", "nv_tileas.scan", "nv_tileas.generate"))
    values = VarOperand()
    assembly_format = "attr-dict ($values^ `:` custom<NvTypes>(type($values)))?"


class PragmaOp(NvTileasOp):
    """Optimizer-control directives active on entry and on exit."""
    name = "nv_tileas.pragma"
    ocgEnterDirectives = AttrDef(A.ArrayAttr, optional=True)
    ocgLeaveDirectives = AttrDef(A.ArrayAttr, optional=True)
    assembly_format = "attr-dict"

    def verify_op(self):
        for n in ("ocgEnterDirectives", "ocgLeaveDirectives"):
            v = self.attributes.get(n)
            if v is not None and not all(isinstance(e, A.StringAttr) for e in v.elements):
                self.emit_error(f"expects '{n}' to be an array of strings")
                return False
        return True


class CancelNextProgramIdOp(NvTileasOp):
    """Claims the next program id of a persistent grid (or a negative value when none is left)."""
    name = "nv_tileas.cancel_next_program_id"
    result = Result()
    assembly_format = "attr-dict `:` custom<NvTypes>(type($result))"

    def verify_op(self):
        from ....ir.types import IndexType, IntegerType
        if not isinstance(self.result.type, (IndexType, IntegerType)):
            self.emit_error("expects an integer or index result")
            return False
        return True


class AsyncCancelNextProgramIdOp(NvTileasOp):
    name = "nv_tileas.async.cancel_next_program_id"
    result = Result(ASYNC_VALUE)
    assembly_format = "attr-dict `:` custom<NvTypes>(type($result))"


class BlockTileOp(NvTileasOp):
    """nv_tileaa.block_tile: the view of one block's tile of a source at the
    given (index) block coordinates."""
    name = "nv_tileaa.block_tile"
    traits = (Pure,)
    source = Operand()
    indices = VarOperand()
    result = Result(TILED_VIEW)
    assembly_format = ("$source (`[` $indices^ `]`)? attr-dict `:` custom<NvTypes>(type($source)) `->` "
                       "custom<NvTypes>(type($result))")
