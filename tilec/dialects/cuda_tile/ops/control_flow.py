"""Control flow ops (spec 8.5): assert, if, for, loop and their terminators
yield, continue and break (return lives with the functions in core)."""
from __future__ import annotations

from ....ir import attributes as A
from ....ir.opdef import ANY_TYPE, AttrDef, Operand, RegionDef, VarOperand, VarResult
from ....ir.traits import Pure, RecursiveMemoryEffects, ReturnLike, Terminator, all_types_match, has_parent
from .. import directives_core as D
from ..types import TensorViewType
from .base import CudaTileOp
from .core import I1_TILE, SCALAR_I1, SCALAR_INT, _rename, _tt, _types_q


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


def _early_exit_loop(op, loops):
    """verifyEarlyExitOp: the op sits in `if`s inside one of `loops`; returns
    that loop, or None after reporting."""
    parent = op.parent_op
    while parent is not None and parent.name not in loops:
        if parent.name != "cuda_tile.if":
            names = "', '".join((*loops, "cuda_tile.if"))
            op.emit_error(f"can only be nested within a ancestor chain of '{names}' operations").attach_note(
                "see unexpected ancestor operation", parent.location)
            return None
        parent = parent.parent_op
    return parent


class ContinueOp(CudaTileOp):
    name = "cuda_tile.continue"
    summary = "Continue to next loop iteration"
    traits = (Terminator, has_parent("cuda_tile.for", "cuda_tile.if", "cuda_tile.loop"))
    operands_ = VarOperand(ANY_TYPE)
    assembly_format = _TERMINATOR_FORMAT

    def verify_op(self):
        loop = _early_exit_loop(self, ("cuda_tile.for", "cuda_tile.loop"))
        if loop is None:
            return False
        got = [v.type for v in self.operands]
        if loop.name == "cuda_tile.loop":
            want = [v.type for v in loop.operands]
            if want != got:
                _plain_error(self, "`loop` is missing a valid terminator. `continue` op should have operand types "
                             f"that match the parent loop iter_values: ({_types_q(want)}), but found: "
                             f"({_types_q(got)})")
                return False
        else:
            want = [r.type for r in loop.results]
            if want != got:
                _plain_error(self, "`for` is missing a valid terminator. `continue` op should have operand types "
                             f"that match the parent loop return types: ({_types_q(want)}), but found: "
                             f"({_types_q(got)})")
                return False
        return True


class BreakOp(CudaTileOp):
    name = "cuda_tile.break"
    summary = "Break from loop"
    traits = (ReturnLike, Terminator, has_parent("cuda_tile.if", "cuda_tile.loop"))
    operands_ = VarOperand(ANY_TYPE)
    assembly_format = _TERMINATOR_FORMAT

    def verify_op(self):
        loop = _early_exit_loop(self, ("cuda_tile.loop",))
        if loop is None:
            return False
        got = [v.type for v in self.operands]
        want = [r.type for r in loop.results]
        if got != want:
            self.emit_error(f"operand types must correspond to the parent loop result types: ({_types_q(got)}) "
                            f"vs ({_types_q(want)})")
            return False
        return True


for _cls in (YieldOp, ContinueOp, BreakOp):
    _rename(_cls, operands_="operands")


def _plain_error(op, message):
    """An error at the op without the `'name' op` prefix (MLIR's emitError)."""
    from ....ir.diagnostics import current_engine
    return current_engine().error(op.location, message)


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
        rets = [r.type for r in self.results]
        for i, t in enumerate(rets):
            if isinstance(t, TensorViewType):
                self.emit_error(f"result type {i} is a tensor_view, which is not supported")
                return False
            if _is_view(t):
                self.emit_error(f"result type {i} is a tile view, which is not supported")
                return False
        if not self._check_yield(then, "then", rets):
            return False
        if not other.blocks:
            if rets:
                self.emit_error("has non-empty return type, must define else branch")
                return False
            return True
        return self._check_yield(other, "else", rets)

    def _check_yield(self, region, which, rets):
        term = region.blocks[0].last_op
        if term is None or term.name != "cuda_tile.yield":
            return True
        ys = [v.type for v in term.operands]
        if rets and not ys:
            self.emit_error(f"has return type of {_types_q(rets)} but {which} branch does not yield anything")
            return False
        if not rets and ys:
            self.emit_error(f"does not return a value, but {which} branch yields {_types_q(ys)}")
            return False
        if ys != rets:
            self.emit_error(f"type does not match yield type, {which} branch yields {_types_q(ys)} but op result "
                            f"type is {_types_q(rets)}")
            return False
        return True


_rename(IfOp, results_="results")


# ---- loops ------------------------------------------------------------------------

def _verify_iter_values(op, inits, iter_args, results) -> bool:
    if len(iter_args) != len(inits):
        op.emit_error(f"mismatch in number of region iterator values and loop iterator inits: "
                      f"{len(iter_args)} vs {len(inits)}")
        return False
    for i, (init, arg) in enumerate(zip(inits, iter_args)):
        if isinstance(arg.type, TensorViewType):
            op.emit_error(f"loop-carried value {i} is a tensor_view, which is not supported")
            return False
        if _is_view(arg.type):
            op.emit_error(f"loop-carried value {i} is a tile view, which is not supported")
            return False
        if init.type != arg.type:
            op.emit_error(f"init value {i} and region iter_value {i} have different type: "
                          f"'{_tt(init.type)}' != '{_tt(arg.type)}'")
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
                            f"'{_tt(args[0].type)}' vs '{_tt(self.lowerBound.type)}'")
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
