"""Control flow ops (spec 8.5): assert, if, for, loop and their terminators
yield, continue and break (return lives with the functions in core)."""
from __future__ import annotations

from ....ir import attributes as A
from ....ir.opdef import ANY_TYPE, AttrDef, Operand, RegionDef, VarOperand, VarResult
from ....ir.traits import Pure, RecursiveMemoryEffects, ReturnLike, Terminator, all_types_match, has_parent
from .. import directives_core as D
from ..types import TensorViewType
from .base import CudaTileOp
from .core import I1_TILE, SCALAR_I1, SCALAR_INT, _rename, _tt


def _is_view(t) -> bool:
    from .. import types as T
    views = tuple(getattr(T, n) for n in ("PartitionViewType", "StridedViewType", "GatherScatterViewType")
                  if hasattr(T, n))
    return isinstance(t, views)


class AssertOp(CudaTileOp):
    name = "cuda_tile.assert"
    summary = "Terminate kernel execution with an error message if condition is false-y"
    condition = Operand(I1_TILE)
    message = AttrDef(A.StringAttr)
    assembly_format = "$condition `,` $message attr-dict `:` custom<CudaTileType>(type($condition))"


# ---- terminators ---------------------------------------------------------------

_TERMINATOR_FORMAT = "attr-dict ($operands^ `:` custom<CudaTileType>(type($operands)))?"


class YieldOp(CudaTileOp):
    name = "cuda_tile.yield"
    summary = "Yield a value from the block"
    traits = (Pure, ReturnLike, Terminator, has_parent("cuda_tile.if", "cuda_tile.reduce", "cuda_tile.scan"))
    operands_ = VarOperand(ANY_TYPE)
    assembly_format = _TERMINATOR_FORMAT

    def verify_op(self):
        parent = self.parent_op
        if parent is not None and parent.name == "cuda_tile.if":
            return _check_values(self, parent.results, "parent operation results", "yield")
        return True


class ContinueOp(CudaTileOp):
    name = "cuda_tile.continue"
    summary = "Continue to next loop iteration"
    traits = (Terminator, has_parent("cuda_tile.for", "cuda_tile.if", "cuda_tile.loop"))
    operands_ = VarOperand(ANY_TYPE)
    assembly_format = _TERMINATOR_FORMAT

    def verify_op(self):
        loop = _enclosing_loop(self, ("cuda_tile.for", "cuda_tile.loop"))
        if loop is None:
            self.emit_error("expects to be nested in one of 'cuda_tile.for', 'cuda_tile.loop'")
            return False
        return _check_values(self, loop.operands[3:] if loop.name == "cuda_tile.for" else loop.operands,
                             "loop iteration values", "continue")


class BreakOp(CudaTileOp):
    name = "cuda_tile.break"
    summary = "Break from loop"
    traits = (ReturnLike, Terminator, has_parent("cuda_tile.if", "cuda_tile.loop"))
    operands_ = VarOperand(ANY_TYPE)
    assembly_format = _TERMINATOR_FORMAT

    def verify_op(self):
        loop = _enclosing_loop(self, ("cuda_tile.loop",))
        if loop is None:
            self.emit_error("expects to be nested in 'cuda_tile.loop'")
            return False
        return _check_values(self, loop.results, "loop results", "break")


for _cls in (YieldOp, ContinueOp, BreakOp):
    _rename(_cls, operands_="operands")


def _enclosing_loop(op, names):
    """The loop an early exit belongs to: through `if`s only."""
    parent = op.parent_op
    while parent is not None and parent.name == "cuda_tile.if":
        parent = parent.parent_op
    return parent if parent is not None and parent.name in names else None


def _check_values(op, expected, what, kind) -> bool:
    got = [v.type for v in op.operands]
    want = [v.type for v in expected]
    if len(got) != len(want):
        op.emit_error(f"expected {len(want)} operands to match the {what}, but got {len(got)}")
        return False
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            op.emit_error(f"operand #{i} type '{_tt(g)}' does not match the {what} type '{_tt(w)}'")
            return False
    return True


# ---- if ---------------------------------------------------------------------------

class IfOp(CudaTileOp):
    name = "cuda_tile.if"
    summary = "Conditional execution"
    traits = (RecursiveMemoryEffects,)
    implicit_terminator = "cuda_tile.yield"
    condition = Operand(SCALAR_I1)
    results_ = VarResult(ANY_TYPE)
    thenRegion = RegionDef()
    elseRegion = RegionDef()
    assembly_format = ("$condition (`->` `(` custom<CudaTileType>(type($results))^ `)`)? "
                       "custom<IfOpRegion>($thenRegion) (`else` custom<IfOpRegion>($elseRegion)^)? attr-dict")

    @classmethod
    def after_parse(cls, op, state):
        D.ensure_terminator(op.regions[0], cls.implicit_terminator, op.location)
        D.ensure_terminator(op.regions[1], cls.implicit_terminator, op.location, only_if_blocks=True)

    def verify_op(self):
        then, other = self.regions
        if len(then.blocks) != 1:
            self.emit_error("region #0 ('thenRegion') failed to verify constraint: region with 1 blocks")
            return False
        if len(other.blocks) > 1:
            self.emit_error("region #1 ('elseRegion') failed to verify constraint: region with at most 1 blocks")
            return False
        if self.results and not other.blocks:
            self.emit_error(f"must have an else block if defining values")
            return False
        return True


_rename(IfOp, results_="results")


# ---- loops ------------------------------------------------------------------------

def _verify_iter_values(op, inits, iter_args, results) -> bool:
    for i, (init, arg) in enumerate(zip(inits, iter_args)):
        if isinstance(arg.type, TensorViewType):
            op.emit_error(f"loop-carried value {i} is a tensor_view, which is not supported")
            return False
        if _is_view(arg.type):
            op.emit_error(f"loop-carried value {i} is a tile view, which is not supported")
            return False
        if init.type != arg.type:
            op.emit_error(f"init value {i} and region iter_value {i} have different type: "
                          f"{_tt(init.type)} != {_tt(arg.type)}")
            return False
    for i, r in enumerate(results):
        if isinstance(r.type, TensorViewType):
            op.emit_error(f"result type {i} is a tensor_view, which is not supported")
            return False
        if _is_view(r.type):
            op.emit_error(f"result type {i} is a tile view, which is not supported")
            return False
    return True


class ForOp(CudaTileOp):
    name = "cuda_tile.for"
    summary = "For loop over integer range"
    traits = (RecursiveMemoryEffects, all_types_match("lowerBound", "upperBound", "step"),
              all_types_match("initValues", "resultValues"))
    implicit_terminator = "cuda_tile.continue"
    lowerBound = Operand(SCALAR_INT)
    upperBound = Operand(SCALAR_INT)
    step = Operand(SCALAR_INT)
    initValues = VarOperand(ANY_TYPE)
    unsignedCmp = AttrDef(unit=True)
    resultValues = VarResult(ANY_TYPE)
    region = RegionDef()
    assembly_format = ("custom<ForLoop>($unsignedCmp, $lowerBound, $upperBound, $step, $initValues, "
                       "$resultValues, $region) attr-dict")

    def asm_result_names(self):
        return (["for"] + [None] * (len(self.results) - 1)) if self.results else []

    def asm_block_arg_names(self, region):
        n = len(region.blocks[0].arguments) if region.blocks else 0
        return (["loopIdx"] + [f"iterArg{i}" for i in range(n - 1)]) if n else []

    def verify_op(self):
        region = self.regions[0]
        if len(region.blocks) != 1:
            self.emit_error("region #0 ('region') failed to verify constraint: region with 1 blocks")
            return False
        args = region.blocks[0].arguments
        if not args:
            self.emit_error("expected at least one block argument for induction variable")
            return False
        if args[0].type != self.lowerBound.type:
            self.emit_error(f"expected induction variable to be same type as bounds and step: "
                            f"{_tt(args[0].type)} vs {_tt(self.lowerBound.type)}")
            return False
        return _verify_iter_values(self, self.initValues, args[1:], self.results)


class LoopOp(CudaTileOp):
    name = "cuda_tile.loop"
    summary = "Loop until a break operation"
    traits = (RecursiveMemoryEffects,)
    implicit_terminator = "cuda_tile.continue"
    initValues = VarOperand(ANY_TYPE)
    resultValues = VarResult(ANY_TYPE)
    region = RegionDef()
    assembly_format = "custom<LoopBody>($initValues, $resultValues, $region) attr-dict"

    def verify_op(self):
        region = self.regions[0]
        if len(region.blocks) != 1:
            self.emit_error("region #0 ('region') failed to verify constraint: region with 1 blocks")
            return False
        return _verify_iter_values(self, self.initValues, region.blocks[0].arguments, self.results)
