"""mmaf / mmai -> nv_tileas.dot with the MMA atom the target has for the
operand and accumulator types. An f16 accumulator is widened to f32 around
the dot (nv_tileas MMAs accumulate in f32). Types the target has no MMA for
are left for the legality check, which names the op and the target.
mmaf_scaled -> nv_tileas.block_scaled_mma (rank 2) where the target has a
block-scaled MMA for its types (conversion/target.py: block_scaled_atom_name)."""
from __future__ import annotations

from ..dialects.cuda_tile.ops.conversion import FToFOp
from ..dialects.cuda_tile.types import TileType
from ..dialects.nv_tileas.attributes import AtomAttr, SignednessAttr
from ..dialects.nv_tileas.ops.compute import BlockScaledMmaOp, DotOp
from ..ir import attributes as A
from ..ir.types import FloatType, IntegerType
from ..rewrite.pattern import RewritePattern
from .target import block_scaled_atom_name, mma_atom_name


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


class LowerMmaScaled(RewritePattern):
    """cuda_tile.mmaf_scaled (rank 2) -> nv_tileas.block_scaled_mma with the
    kind's atom and the target's SM as compute_capability."""

    def __init__(self, target):
        super().__init__(root="cuda_tile.mmaf_scaled")
        self.target = target

    def match_and_rewrite(self, op, rw) -> bool:
        a, b, c, sfa, sfb = op.operands
        if len(a.type.shape) != 2:
            return False
        k, ks = a.type.shape[1], sfa.type.shape[1]
        name = block_scaled_atom_name(self.target, a.type.element_type, sfa.type.element_type,
                                      k // ks if ks and k % ks == 0 else 0)
        if name is None:
            return False
        sm = int(self.target.arch[3:].rstrip("a"))
        d = rw.create(BlockScaledMmaOp, location=op.location, a=a, b=b, c=c, sfa=sfa, sfb=sfb,
                      atom=AtomAttr(name), result=c.type,
                      attributes={"compute_capability": A.IntegerAttr(sm, IntegerType(64))}).result
        rw.replace_op(op, [d])
        return True
