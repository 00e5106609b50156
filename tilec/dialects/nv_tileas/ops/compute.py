"""Compute: MMA (dot, async.dot, block_scaled_mma) and the region-bearing
reductions (reduce, scan)."""
from __future__ import annotations

from ....ir import attributes as A
from ....ir.opdef import AttrDef, OptOperand, Operand, RegionDef, Result, VarOperand, VarResult
from ....ir.types import FloatType, IntegerType
from ..attributes import AtomAttr, SignednessAttr
from ..traits import MemoryConsistencyOpInterface
from ..types import ASYNC_VALUE, SHAPED, payload
from ..verifiers import FP8, verify_block_scaled_mma
from .base import NvTileasOp


def _compatible(a, b):
    return a == b or (a in FP8 and b in FP8)


class DotOp(NvTileasOp):
    """D = A x B + C with an MMA atom; integer MMA names each side's signedness."""
    name = "nv_tileas.dot"
    a = Operand(SHAPED)
    b = Operand(SHAPED)
    c = Operand(SHAPED)
    atom = AttrDef(AtomAttr)
    signedness_a = AttrDef(SignednessAttr, optional=True)
    signedness_b = AttrDef(SignednessAttr, optional=True)
    result = Result(SHAPED)
    assembly_format = ("$a `,` $b `,` $c attr-dict `:` custom<NvTypes>(type($a), type($b), type($c)) `->` "
                       "custom<NvTypes>(type($result))")

    def verify_op(self):
        if not self.atom.is_mma():
            self.emit_error(f"expects an MMA atom, but got {self.atom.text()}")
            return False
        ea, eb = self.a.type.element_type, self.b.type.element_type
        if not _compatible(ea, eb):
            self.emit_error(f"expects compatible A and B element types, but got {ea.text()} and {eb.text()}")
            return False
        if isinstance(ea, IntegerType):
            if self.signedness_a is None or self.signedness_b is None:
                self.emit_error("integer MMA requires 'signedness_a' and 'signedness_b'")
                return False
        elif self.c.type.element_type != FloatType("f32"):
            self.emit_error("expects a Float32 accumulator for floating-point MMA")
            return False
        if payload(self.result.type) != self.c.type:
            self.emit_error("expects the result type to be the accumulator type")
            return False
        return True


class AsyncDotOp(DotOp):
    name = "nv_tileas.async.dot"
    traits = (MemoryConsistencyOpInterface,)
    result = Result(ASYNC_VALUE)


class BlockScaledMmaOp(NvTileasOp):
    """Blackwell block-scaled MMA. `two_cta` selects the 2-CTA atom catalog;
    `compute_capability` (when set) is the target's SM version, 100 assumed."""
    name = "nv_tileas.block_scaled_mma"
    a = Operand(SHAPED)
    b = Operand(SHAPED)
    c = Operand(SHAPED)
    sfa = OptOperand(SHAPED)
    sfb = OptOperand(SHAPED)
    atom = AttrDef(AtomAttr)
    two_cta = AttrDef(A.UnitAttr, optional=True)
    compute_capability = AttrDef(A.IntegerAttr, optional=True)
    result = Result(SHAPED)
    assembly_format = ("$a `,` $b `,` $c custom<ScaleOperands>($sfa, $sfb) custom<ScaleAttrDict>($sfa, $sfb) `:` "
                       "custom<ScaleTypes>(type($a), type($b), type($c), type($sfa), type($sfb)) "
                       "`->` custom<NvTypes>(type($result))")

    def verify_shape(self) -> int:
        """The packed (atom_K << 32) | vecSize, or 0 after a diagnostic."""
        cc = self.compute_capability
        return verify_block_scaled_mma(self, self.a.type, self.b.type, self.c.type,
                                       self.sfa.type if self.sfa is not None else None,
                                       self.sfb.type if self.sfb is not None else None,
                                       self.atom, self.result.type, self.two_cta is not None,
                                       cc.value if cc is not None else 100)

    def verify_op(self):
        if not self.atom.is_mma():
            self.emit_error(f"expects an MMA atom, but got {self.atom.text()}")
            return False
        if self.verify_shape() == 0:
            return False
        if self.result.type != self.c.type:
            self.emit_error("expects the result type to be the accumulator type")
            return False
        return True


def _attr_type(a):
    return IntegerType(1) if isinstance(a, A.BoolAttr) else getattr(a, "type", None)


class _ReductionOp(NvTileasOp):
    """Reduces (or scans) `operands_` along `dim` with the body as combiner:
    the body takes two scalars per operand -- (lhs_0 .. lhs_n-1, rhs_0 ..
    rhs_n-1) -- and yields one per operand. `identities` (optional, one typed
    value per operand) is the combiner's identity: a scan combines the first
    elements with it, a reduce pads a non-power-of-two extent with it. The
    lowering from cuda_tile always sets it (docs/decisions.md)."""
    traits = (MemoryConsistencyOpInterface,)
    operands_ = VarOperand(SHAPED)
    dim = AttrDef(A.IntegerAttr)
    identities = AttrDef(A.ArrayAttr, optional=True)
    results = VarResult(SHAPED)
    body = RegionDef()

    def verify_op(self):
        ins = list(self.operands_)
        if not ins or len(ins) != len(self.results):
            self.emit_error("expects one result per operand")
            return False
        rank = len(ins[0].type.shape)
        if not 0 <= self.dim.value < rank:
            self.emit_error(f"expects 'dim' in [0, {rank}), but got {self.dim.value}")
            return False
        block = self.body.blocks[0] if self.body.blocks else None
        elts = [v.type.element_type for v in ins]
        if block is None or [a.type for a in block.arguments] != elts + elts:
            self.emit_error("expects the body to take two element values per operand")
            return False
        term = block.last_op
        if term is None or term.name != "nv_tileas.yield" or [v.type for v in term.operands] != elts:
            self.emit_error("expects the body to yield one element per operand")
            return False
        ids = self.identities
        if ids is not None and (len(ids) != len(ins) or any(
                _attr_type(a) != t for a, t in zip(ids, elts))):
            self.emit_error("expects one identity per operand, of its element type")
            return False
        for v, r in zip(ins, self.results):
            if not self._result_ok(v.type, r.type):
                self.emit_error("unexpected result shape")
                return False
        return True


class ReduceOp(_ReductionOp):
    name = "nv_tileas.reduce"

    def _result_ok(self, src, res):
        shape = list(src.shape)
        del shape[self.dim.value]
        return tuple(res.shape) == tuple(shape) and res.element_type == src.element_type


class ScanOp(_ReductionOp):
    name = "nv_tileas.scan"
    reverse = AttrDef(A.BoolAttr, optional=True)

    def _result_ok(self, src, res):
        return res == src
