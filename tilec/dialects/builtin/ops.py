"""builtin.module: a symbol table holding any ops, printed as `module { ... }`;
builtin.unrealized_conversion_cast."""
from __future__ import annotations

from ...ir.opdef import Op, RegionDef, VarOperand, VarResult
from ...ir.traits import IsolatedFromAbove, NoTerminator, Pure, SingleBlock, SymbolTable


class ModuleOp(Op):
    name = "builtin.module"
    summary = "A top-level container operation"
    traits = (IsolatedFromAbove, SingleBlock, NoTerminator, SymbolTable)
    body = RegionDef()
    # no symbol name: `module @name` would read the same as cuda_tile's short `module @name`
    assembly_format = "attr-dict-with-keyword $body"

    @classmethod
    def after_parse(cls, op, state):
        from ...ir.core import Block
        if not op.regions[0].blocks:
            op.regions[0].add_block(Block())


class UnrealizedConversionCastOp(Op):
    """`%y = builtin.unrealized_conversion_cast %x : !cuda_tile.tile<i1> to i1`:
    MLIR's bridge between the types of two dialects during a conversion. The
    lowering uses it to read a 0-d tile as the scalar of its element type (the
    i1 condition of scf.if / scf.condition); the evaluator and the PTX emitter
    treat that as the identity (a 0-d tile already lives as one scalar). Like
    MLIR's, it has no verifier of its own. Printed with its prefix, as MLIR
    prints it inside any op whose default dialect is not builtin."""
    name = "builtin.unrealized_conversion_cast"
    summary = "An unrealized conversion from one set of types to another"
    traits = (Pure,)
    print_short_name = False
    inputs = VarOperand()
    outputs = VarResult()
    assembly_format = "($inputs^ `:` type($inputs))? `to` type($outputs) attr-dict"

    def fold(self):
        """cast(cast(x : A to B) : B to A) is x."""
        if len(self.inputs) != 1 or len(self.outputs) != 1:
            return None
        inner = getattr(self.inputs[0], "op", None)
        if inner is None or inner.name != self.name or len(inner.operands) != 1 or len(inner.results) != 1:
            return None
        src = inner.operands[0]
        return [src] if src.type == self.outputs[0].type else None
