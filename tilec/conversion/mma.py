"""mmaf / mmai -> nv_tileas.dot with the MMA atom the target has for the
operand and accumulator types. An f16 accumulator is widened to f32 around
the dot (nv_tileas MMAs accumulate in f32). Types the target has no MMA for
are left for the legality check, which names the op and the target."""
from __future__ import annotations

from ..dialects.cuda_tile.ops.conversion import FToFOp
from ..dialects.cuda_tile.types import TileType
from ..dialects.nv_tileas.attributes import AtomAttr, SignednessAttr
from ..dialects.nv_tileas.ops.compute import DotOp
from ..ir.types import FloatType
from ..rewrite.pattern import RewritePattern
from .target import mma_atom_name


class LowerMma(RewritePattern):
    def __init__(self, target, root):
        super().__init__(root=root)
        self.target = target

    def match_and_rewrite(self, op, rw) -> bool:
        a, b, c = op.operands[:3]
        acc_t = c.type
        name = mma_atom_name(self.target, a.type.element_type, b.type.element_type, acc_t.element_type)
        if name is None:
            return False
        attrs = {}
        if op.name == "cuda_tile.mmai":
            attrs = {"signedness_a": SignednessAttr(op.attributes["signedness_lhs"].value),
                     "signedness_b": SignednessAttr(op.attributes["signedness_rhs"].value)}
        wide = acc_t
        if isinstance(acc_t.element_type, FloatType) and acc_t.element_type != FloatType("f32"):
            wide = TileType(tuple(acc_t.shape), FloatType("f32"))
            c = rw.create(FToFOp, location=op.location, from_=c, to=wide).result
        d = rw.create(DotOp, location=op.location, a=a, b=b, c=c, atom=AtomAttr(name), result=wide,
                      attributes=attrs).result
        if wide is not acc_t:
            d = rw.create(FToFOp, location=op.location, from_=d, to=acc_t).result
        rw.replace_op(op, [d])
        return True
