"""`arith.index_cast`: the coordinate-width normalization the tiled load and
store builders need (the roster: builders "normalize rank and coordinate
widths"). It bridges a 0-d integer tile (or a signless integer) and `index`,
in either direction. It is declared here, beside the ops whose coordinates
need it, because the arith subset has no cast of its own yet."""
from __future__ import annotations

from ....ir.opdef import Op, Operand, Result
from ....ir.traits import Pure
from ....ir.types import IndexType, IntegerType


def _int_like(t) -> bool:
    if isinstance(t, (IntegerType, IndexType)):
        return True
    shape = getattr(t, "shape", None)
    return shape is not None and tuple(shape) == () and isinstance(getattr(t, "element_type", None), IntegerType)


class IndexCastOp(Op):
    name = "arith.index_cast"
    traits = (Pure,)
    input = Operand()
    result = Result()
    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    def verify_op(self):
        a, b = self.input.type, self.result.type
        if not (_int_like(a) and _int_like(b)) or (isinstance(a, IndexType) == isinstance(b, IndexType)):
            self.emit_error(f"expects a cast between index and an integer (or 0-d integer tile), but got "
                            f"'{a.text()}' to '{b.text()}'")
            return False
        return True
