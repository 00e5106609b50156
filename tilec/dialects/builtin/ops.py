"""builtin.module: a symbol table holding any ops, printed as `module { ... }`."""
from __future__ import annotations

from ...ir.opdef import Op, RegionDef
from ...ir.traits import IsolatedFromAbove, NoTerminator, SingleBlock, SymbolTable


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
