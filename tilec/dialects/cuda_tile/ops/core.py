"""Core ops (spec 8.3): module, entry, constant, global, ..."""
from __future__ import annotations

from ....ir import attributes as A
from ....ir.opdef import AttrDef, Operand, RegionDef, Result, VarOperand
from ....ir.traits import (ConstantLike, IsolatedFromAbove, NoTerminator, Pure, ReturnLike, SingleBlock, Symbol,
                           SymbolTable, Terminator)
from ....syntax.format import SYMBOL_NAME
from ..attributes import SymbolVisibilityAttr
from ..types import NUMBER_TILE
from .base import CudaTileOp


class ModuleOp(CudaTileOp):
    name = "cuda_tile.module"
    traits = (IsolatedFromAbove, SingleBlock, NoTerminator, SymbolTable)
    sym_name = AttrDef(A.StringAttr, syntax=SYMBOL_NAME)
    body = RegionDef()
    assembly_format = "$sym_name attr-dict-with-keyword $body"


class EntryOp(CudaTileOp):
    name = "cuda_tile.entry"
    traits = (IsolatedFromAbove, SingleBlock, Symbol)
    implicit_terminator = "cuda_tile.return"
    sym_name = AttrDef(A.StringAttr, syntax=SYMBOL_NAME)
    function_type = AttrDef(A.TypeAttr)
    arg_attrs = AttrDef(A.ArrayAttr, optional=True)
    res_attrs = AttrDef(A.ArrayAttr, optional=True)
    optimization_hints = AttrDef(A.Attribute, optional=True)
    body = RegionDef()
    assembly_format = ("custom<FunctionSignature>($sym_name, $function_type, $body) "
                       "attr-dict-with-keyword $body")
    elided_attrs = ("arg_attrs", "res_attrs")


class ReturnOp(CudaTileOp):
    name = "cuda_tile.return"
    traits = (Pure, Terminator, ReturnLike)
    operands_ = VarOperand()
    assembly_format = "attr-dict ($operands_^ `:` custom<CudaTileType>(type($operands_)))?"


class ConstantOp(CudaTileOp):
    name = "cuda_tile.constant"
    traits = (Pure, ConstantLike)
    value = AttrDef(A.DenseElementsAttr)
    result = Result(NUMBER_TILE)
    assembly_format = "custom<DenseTypedElementsAttr>($value, type($result)) attr-dict"
