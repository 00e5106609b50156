"""Core ops (spec 8.3): module, entry, constant, global, get_global, shape
manipulation (broadcast, cat, extract, insert, permute, reshape, select, offset, iota),
tile-block queries, reduce and scan; also the token ops (make_token,
join_tokens), print/print_tko, assume, and the test function op."""
from __future__ import annotations

import math

from ....ir import attributes as A
from ....ir.opdef import (ANY_TYPE, AttrDef, Constraint, OptOperand, Operand, RegionDef, Result, VarOperand,
                          VarResult)
from ....ir.traits import (ConstantLike, Elementwise, IsolatedFromAbove, NoMemoryEffect, NoTerminator, Pure,
                           RecursiveMemoryEffects, ReturnLike, SameOperandsAndResultElementType, SingleBlock, Symbol,
                           SymbolTable, Terminator, all_types_match, has_parent)
from ....ir.types import FloatType, IntegerType
from ....syntax.format import SYMBOL_NAME, AttrSyntax
from .. import directives_core  # noqa: F401  (registers the custom<...> pieces used below)
from ..attributes import SymbolVisibilityAttr
from ..attributes_core import AssumePredicate, BoundedAttr, DivByAttr, SameElementsAttr
from ..debuginfo import verify_function, verify_function_body, verify_module_globals
from ..hints import ENTRY_KEYS, verify_hint_values
from ..types import NUMBER_TILE, TOKEN, PointerType, TensorViewType, TileType
from .base import CudaTileOp

# ---- type constraints (ODS wording, for the generic diagnostics) ------------
_INTS = tuple(IntegerType(w) for w in (1, 8, 16, 32, 64))
_INT_NAMES = "i1 or i8 or i16 or i32 or i64"

TILE = Constraint("tile of any type values", lambda t: isinstance(t, TileType))
INT_TILE = Constraint(f"tile of {_INT_NAMES} values",
                      lambda t: isinstance(t, TileType) and t.element_type in _INTS)
I1_TILE = Constraint("tile of i1 values", lambda t: isinstance(t, TileType) and t.element_type == IntegerType(1))
PTR_TILE = Constraint("tile of Pointer type values",
                      lambda t: isinstance(t, TileType) and isinstance(t.element_type, PointerType))


def scalar_tile(description, pred, buildable=None) -> Constraint:
    return Constraint(f"0D tile of {description} values",
                      lambda t: isinstance(t, TileType) and t.shape == () and pred(t.element_type),
                      None if buildable is None else TileType((), buildable))


SCALAR_I32 = scalar_tile("i32", lambda e: e == IntegerType(32), IntegerType(32))
SCALAR_I1 = scalar_tile("i1", lambda e: e == IntegerType(1), IntegerType(1))
SCALAR_INT = scalar_tile(_INT_NAMES, lambda e: e in _INTS)
SCALAR_PTR = scalar_tile("Pointer type", lambda e: isinstance(e, PointerType))


def _int_token(tok) -> int:
    s = str(tok)
    neg = s.startswith("-")
    body = s.lstrip("+-")
    v = int(body, 16) if body.lower().startswith("0x") else int(body)
    return -v if neg else v


def int_syntax(width):
    """An integer attribute of a given width written as a bare integer."""
    return lambda: AttrSyntax("INT", lambda t: A.IntegerAttr(_int_token(t), IntegerType(width)),
                              lambda a: str(a.value))


def _rename(cls, **renames):
    """Give fields the ODS names that clash with Python/Operation attributes."""
    for attr, new in renames.items():
        getattr(cls, attr).name = new
    cls.attr_names = frozenset(a.name for a in cls.attr_defs)


def _shape(t):
    return tuple(getattr(t, "shape", ()))


def _tt(t) -> str:
    return t.text()


def _dims(shape) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


def _types_q(types) -> str:
    """A type range as MLIR diagnostics print it: 'a', 'b'."""
    return ", ".join(f"'{_tt(t)}'" for t in types)


# ---- module, functions -------------------------------------------------------

class ModuleOp(CudaTileOp):
    name = "cuda_tile.module"
    summary = "Top-level module containing a series of defined items."
    traits = (IsolatedFromAbove, SingleBlock, NoTerminator, SymbolTable)
    sym_name = AttrDef(A.StringAttr, syntax=SYMBOL_NAME)
    producer = AttrDef(A.StringAttr, optional=True)
    body = RegionDef()
    assembly_format = "$sym_name attr-dict-with-keyword $body"

    @classmethod
    def after_parse(cls, op, state):
        from ....ir.core import Block
        if not op.regions[0].blocks:
            op.regions[0].add_block(Block())

    def verify_op(self):
        """SymbolTable (MLIR's verifySymbolTable): symbol names are unique."""
        from ....ir.diagnostics import current_engine
        seen = {}
        for block in self.regions[0].blocks:
            for o in block.ops:
                name = o.attributes.get("sym_name")
                if not isinstance(name, A.StringAttr):
                    continue
                if name.value in seen:
                    current_engine().error(o.location, f"redefinition of symbol named '{name.value}'").attach_note(
                        "see existing symbol definition here", seen[name.value])
                    return False
                seen[name.value] = o.location
        return verify_module_globals(self)


class _FunctionLike(CudaTileOp, register=False):
    """entry and testing$func: `@name(%a: T, ..)`, a body whose terminators are
    all printed, the attribute dictionary after the body."""
    implicit_terminator = "cuda_tile.return"
    sym_name = AttrDef(A.StringAttr, syntax=SYMBOL_NAME)
    function_type = AttrDef(A.TypeAttr)
    arg_attrs = AttrDef(A.ArrayAttr, optional=True)
    res_attrs = AttrDef(A.ArrayAttr, optional=True)
    elided_attrs = ("arg_attrs", "res_attrs")

    def verify_op(self):
        if len(self.regions[0].blocks) != 1:
            self.emit_error("region #0 ('body') failed to verify constraint: region with 1 blocks")
            return False
        return True


class EntryOp(_FunctionLike):
    name = "cuda_tile.entry"
    summary = "Define a tile kernel"
    traits = (IsolatedFromAbove, SingleBlock, Symbol)
    optimization_hints = AttrDef(A.Attribute, optional=True)
    body = RegionDef()
    assembly_format = ("custom<FuncSignature>($sym_name, $function_type, $body) "
                       "custom<OptimizationHints>($optimization_hints) custom<FunctionBody>($body) attr-dict")

    def verify_op(self):
        ft = self.function_type.value
        if ft.results:
            self.emit_error("entry op must not return values")
            return False
        for t in ft.inputs:
            if isinstance(t, TileType) and t.rank != 0:
                self.emit_error("entry op must have scalar types (rank 0 !cuda_tile.tile)")
                return False
        return (super().verify_op() and verify_function(self, self.sym_name.value)
                and verify_hint_values(self, ENTRY_KEYS))

    def verify_regions(self):
        return verify_function_body(self)


class TestFuncOp(_FunctionLike):
    """The test-only function op (`testing$func`): an entry without its limits."""
    name = "cuda_tile.testing$func"
    traits = (IsolatedFromAbove, SingleBlock, Symbol)
    body = RegionDef()
    assembly_format = ("custom<FuncSignature>($sym_name, $function_type, $body) "
                       "custom<FunctionBody>($body) attr-dict")


class ReturnOp(CudaTileOp):
    name = "cuda_tile.return"
    traits = (Pure, Terminator, ReturnLike,
              has_parent("cuda_tile.entry", "cuda_tile.if", "cuda_tile.testing$func"))
    operands_ = VarOperand()
    assembly_format = "attr-dict ($operands^ `:` custom<CudaTileType>(type($operands)))?"

    def verify_op(self):
        parent = self.parent_op
        while parent is not None and parent.name == "cuda_tile.if":
            parent = parent.parent_op
        if parent is None or parent.name not in ("cuda_tile.entry", "cuda_tile.testing$func"):
            self.emit_error("must be used within a cuda_tile.testing$func, cuda_tile.entry, or cuda_tile.if "
                            "operation")
            return False
        expected = list(parent.function_type.value.results)
        got = [v.type for v in self.operands]
        fname = parent.sym_name.value
        if len(got) != len(expected):
            self.emit_error(f"has {len(got)} operands, but enclosing function (@{fname}) returns {len(expected)}")
            return False
        if parent.name == "cuda_tile.entry" and got:
            self.emit_error(f"has {len(got)} operands, but entry function must return 0 operands")
            return False
        for i, (g, e) in enumerate(zip(got, expected)):
            if g != e:
                from ....ir.diagnostics import current_engine
                current_engine().error(self.location, f"type of return operand {i} ('{_tt(g)}') doesn't match "
                                       f"function result type ('{_tt(e)}') in function @{fname}")
                return False
        return True


_rename(ReturnOp, operands_="operands")


# ---- constants and globals ---------------------------------------------------

def _constant_name(op):
    """ConstantOp's suggested result name (MLIR getAsmResultNames)."""
    value = op.attributes.get("value")
    if not isinstance(value, A.DenseElementsAttr):
        return None
    elt = value.element_type
    if elt == IntegerType(1):
        if all(value.values):
            return "true"
        if not any(value.values):
            return "false"
        return "cst_i1"
    name = "cst"
    if value.splat or len(value.values) == 1:
        v = value.values[0]
        if isinstance(elt, IntegerType):
            name += f"_{v}"
        elif isinstance(elt, FloatType):
            if math.isnan(v):
                name += "_NaN"
            elif not math.isinf(v) and v == int(v) and 0 <= v < 2 ** 64:
                name += f"_{int(v)}"
    return f"{name}_{elt.text()}"


class ConstantOp(CudaTileOp):
    name = "cuda_tile.constant"
    traits = (Pure, ConstantLike)
    value = AttrDef(A.DenseElementsAttr)
    result = Result(NUMBER_TILE)
    assembly_format = "custom<DenseTypedElementsAttr>($value, type($result)) attr-dict"

    def asm_result_names(self):
        return [_constant_name(self)]

    def verify_op(self):
        v = self.value
        if v.type != self.results[0].type:
            self.emit_error(f"value type '{_tt(v.type)}' does not match result type "
                            f"'{_tt(self.results[0].type)}'")
            return False
        return True


class GlobalOp(CudaTileOp):
    name = "cuda_tile.global"
    summary = "Allocate static global memory"
    traits = (Symbol,)
    sym_name = AttrDef(A.StringAttr, syntax=SYMBOL_NAME)
    value = AttrDef(A.DenseElementsAttr)
    alignment = AttrDef(A.IntegerAttr, default=A.IntegerAttr(0, IntegerType(64)))
    constant = AttrDef(unit=True)
    symbol_visibility = AttrDef(SymbolVisibilityAttr, default=SymbolVisibilityAttr("public"))
    assembly_format = ("custom<SymbolVisibility>($symbol_visibility) (`constant` $constant^)? $sym_name "
                       "(`alignment` `=` $alignment^)? attr-dict custom<DenseTypedElementsAttrNoResult>($value)")

    def verify_op(self):
        t = self.value.type
        if getattr(t, "rank", None) != 1:
            self.emit_error("type must have rank 1")
            return False
        return True


class GetGlobalOp(CudaTileOp):
    name = "cuda_tile.get_global"
    summary = "Get a pointer to a global variable"
    traits = (Pure,)
    name_ = AttrDef(A.SymbolRefAttr)
    result = Result(SCALAR_PTR)
    assembly_format = "$name attr-dict `:` custom<CudaTileType>(type($result))"

    def verify_op(self):
        """verifySymbolUses: the nearest symbol table holds a global of that name
        whose element type the result points to."""
        ref = self.attributes["name"]
        table = self.parent_op
        from ....ir.traits import SymbolTable as _Table
        while table is not None and not table.has_trait(_Table):
            table = table.parent_op
        glob = None
        if table is not None and not ref.nested:
            for r in table.regions:
                for b in r.blocks:
                    for o in b.ops:
                        if o.name == "cuda_tile.global" and o.attributes.get("sym_name") == A.StringAttr(ref.root):
                            glob = o
        if glob is None:
            self.emit_error(f"'{ref.root}' does not reference a valid global")
            return False
        elt = glob.value.element_type
        ptr = self.results[0].type.element_type
        if ptr.pointee != elt:
            self.emit_error(f"pointee type of result type '{_tt(ptr)}' does not match type '{_tt(elt)}' of the "
                            f"global @{ref.root}")
            return False
        return True


_rename(GetGlobalOp, name_="name")  # ODS's `name`; the class attribute holds the op name


# ---- tile-block queries ------------------------------------------------------

class GetTileBlockIdOp(CudaTileOp):
    name = "cuda_tile.get_tile_block_id"
    summary = "Get the currently executing tile block coordinates"
    traits = (Pure, all_types_match("blockId_x", "blockId_y", "blockId_z"))
    blockId_x = Result(SCALAR_I32)
    blockId_y = Result(SCALAR_I32)
    blockId_z = Result(SCALAR_I32)
    assembly_format = "attr-dict `:` custom<CudaTileType>(type($blockId_x))"


class GetNumTileBlocksOp(CudaTileOp):
    name = "cuda_tile.get_num_tile_blocks"
    summary = "Get the number of tile blocks in the grid"
    traits = (Pure, all_types_match("gridSize_x", "gridSize_y", "gridSize_z"))
    gridSize_x = Result(SCALAR_I32)
    gridSize_y = Result(SCALAR_I32)
    gridSize_z = Result(SCALAR_I32)
    assembly_format = "attr-dict `:` custom<CudaTileType>(type($gridSize_x))"


class IotaOp(CudaTileOp):
    name = "cuda_tile.iota"
    summary = "Generate a 1-d tile range from 0 to n-1"
    traits = (Pure,)
    result = Result(INT_TILE)
    assembly_format = "attr-dict `:` custom<CudaTileType>(type($result))"

    def verify_op(self):
        t = self.results[0].type
        if t.rank != 1:
            self.emit_error("expects result type to be 1-d tile")
            return False
        n, w = t.shape[0], t.element_type.width
        if w < 64 and n > (1 << w):
            self.emit_error(f"the number of elements {n} exceeds the maximum value of element type "
                            f"'{_tt(t.element_type)}'")
            return False
        return True


# ---- shape manipulation ------------------------------------------------------

class _ReshapeLike(CudaTileOp):
    """One tile in, one tile of the same element type and a new shape out."""
    traits = (Pure, SameOperandsAndResultElementType)
    source = Operand(TILE)
    result = Result(TILE)
    assembly_format = ("$source attr-dict `:` custom<CudaTileType>(type($source)) "
                       "`->` custom<CudaTileType>(type($result))")


class BroadcastOp(_ReshapeLike):
    name = "cuda_tile.broadcast"
    summary = "Broadcast tile to new shape"

    def asm_result_names(self):
        return ["bcast"]

    def verify_op(self):
        src, res = _shape(self.source.type), _shape(self.results[0].type)
        if len(src) != len(res):
            self.emit_error("failed to verify that all of {source, result} have same rank")
            return False
        if any(s != r and s != 1 for s, r in zip(src, res)):
            self.emit_error(f"expects the shape of source tile to be compatible with that of the result tile, "
                            f"but got: {', '.join(map(str, src))} and {', '.join(map(str, res))}")
            return False
        return True


class CatOp(CudaTileOp):
    name = "cuda_tile.cat"
    summary = "Concatenate tiles along specified dimension"
    traits = (Pure,)
    lhs = Operand(TILE)
    rhs = Operand(TILE)
    dim = AttrDef(A.IntegerAttr)
    result = Result(TILE)
    assembly_format = ("$lhs `,` $rhs `dim` `=` $dim attr-dict `:` custom<CudaTileType>(type($lhs)) `,` "
                       "custom<CudaTileType>(type($rhs)) `->` custom<CudaTileType>(type($result))")

    def verify_op(self):
        lt, rt, ot = self.lhs.type, self.rhs.type, self.results[0].type
        if not (lt.rank == rt.rank == ot.rank):
            self.emit_error("failed to verify that all of {lhs, rhs, result} have same rank")
            return False
        if not (lt.element_type == rt.element_type == ot.element_type):
            self.emit_error("failed to verify that all of {lhs, rhs, result} have the same element type")
            return False
        d, rank = self.dim.value, lt.rank
        if d < 0 or d >= rank:
            self.emit_error(f"expect dim to be [0, {rank}), but got: {d}")
            return False
        ls, rs, os_ = lt.shape, rt.shape, ot.shape
        if ls[d] + rs[d] != os_[d]:
            self.emit_error(f"invalid concat at position {d}, expected: {ls[d] + rs[d]} but got: {os_[d]}")
            return False
        for i in range(rank):
            if i == d:
                continue
            if ls[i] != rs[i]:
                self.emit_error(f"expect lhs and rhs shapes to match at non-concat position {i}, expected: "
                                f"{ls[i]} but got: {rs[i]}")
                return False
            if ls[i] != os_[i]:
                self.emit_error(f"expect lhs and result shapes to match at non-concat position {i}, expected: "
                                f"{ls[i]} but got: {os_[i]}")
                return False
        return True


class ExtractOp(CudaTileOp):
    name = "cuda_tile.extract"
    summary = "Extract a subtile from a tile"
    traits = (Pure,)
    source = Operand(TILE)
    indices = VarOperand(SCALAR_I32)
    result = Result(TILE)
    assembly_format = ("$source `[` $indices `]` attr-dict `:` custom<CudaTileType>(type($source)) "
                       "`->` custom<CudaTileType>(type($result))")

    def verify_op(self):
        st, rt = self.source.type, self.results[0].type
        if st.rank != rt.rank:  # AllRanksMatch
            self.emit_error("failed to verify that all of {source, result} have same rank")
            return False
        if st.element_type != rt.element_type:
            self.emit_error("source and result element type do not match")
            return False
        for i, (s, r) in enumerate(zip(st.shape, rt.shape)):
            if s % r:
                self.emit_error(f"source dimension {i} size ({s}) must be evenly divisible by result dimension "
                                f"{i} size ({r})")
                return False
        if len(self.indices) != st.rank:
            self.emit_error(f"expected {st.rank} indices, but got {len(self.indices)}")
            return False
        warn_constant_slice_indices(self, "extract", st.shape, rt.shape)
        return True


def warn_constant_slice_indices(op, what, whole, part):
    """Warn about constant slice indices of extract/insert that select no slice
    of `whole` cut into `part`-shaped pieces (undefined behaviour, not an error)."""
    from ....ir.diagnostics import current_engine
    for i, idx in enumerate(op.indices):
        producer = getattr(idx, "op", None)
        value = getattr(producer, "attributes", {}).get("value") if getattr(producer, "name", "") == \
            "cuda_tile.constant" else None
        if isinstance(value, A.DenseElementsAttr) and value.splat:
            v = value.values[0]
            top = whole[i] // part[i] - 1
            if v < 0:
                current_engine().warning(op.location, f"{what} index {i} has negative value {v}, which "
                                         f"may cause undefined behavior")
            if v > top:
                current_engine().warning(op.location, f"{what} index {i} value {v} may be out of bounds "
                                         f"(max valid index: {top})")


class InsertOp(CudaTileOp):
    """The inverse of extract (13.4): `destination` with slice `indices` (in
    units of the source's shape) replaced by `source`."""
    name = "cuda_tile.insert"
    summary = "Insert a subtile into a tile"
    traits = (Pure, all_types_match("destination", "result"))
    source = Operand(TILE)
    destination = Operand(TILE)
    indices = VarOperand(SCALAR_I32)
    result = Result(TILE)
    assembly_format = ("$source `,` $destination `[` $indices `]` attr-dict `:` "
                       "custom<CudaTileType>(type($source)) `,` custom<CudaTileType>(type($destination))")

    def verify_op(self):
        st, rt = self.source.type, self.results[0].type
        if st.rank != rt.rank:
            self.emit_error("source and result must have the same rank")
            return False
        if st.element_type != rt.element_type:
            self.emit_error("source and result element type do not match")
            return False
        for i, (s, r) in enumerate(zip(st.shape, rt.shape)):
            if r % s:
                self.emit_error(f"result dimension {i} size ({r}) must be evenly divisible by source dimension "
                                f"{i} size ({s})")
                return False
        if len(self.indices) != rt.rank:
            self.emit_error(f"expected {rt.rank} indices, but got {len(self.indices)}")
            return False
        warn_constant_slice_indices(self, "insert", rt.shape, st.shape)
        return True


class PermuteOp(CudaTileOp):
    name = "cuda_tile.permute"
    summary = "Permute tile dimensions"
    traits = (Pure,)
    source = Operand(TILE)
    permutation = AttrDef(A.DenseArrayAttr)
    result = Result(TILE)
    assembly_format = ("$source $permutation attr-dict `:` custom<CudaTileType>(type($source)) "
                       "`->` custom<CudaTileType>(type($result))")

    def verify_op(self):
        st, rt = self.source.type, self.results[0].type
        perm = list(self.permutation.values)
        if st.element_type != rt.element_type:
            self.emit_error("failed to verify that all of {source, result} have the same element type")
            return False
        if st.rank != rt.rank:
            self.emit_error("failed to verify that all of {source, result} have same rank")
            return False
        rank = st.rank
        if rank < 2:
            self.emit_error(f"expects at least rank 2, but got: {rank}")
            return False
        if len(perm) != rank:
            self.emit_error(f"expect permutation size ({len(perm)}) to equal the rank of the source ({rank})")
            return False
        if len(set(perm)) != len(perm):
            self.emit_error("expect permutation elements to be unique")
            return False
        for i, p in enumerate(perm):
            if p < 0 or p >= rank:
                self.emit_error(f"permutation element at index {i} ({p}) is out of bound [0, {rank})")
                return False
        for i, p in enumerate(perm):
            if rt.shape[i] != st.shape[p]:
                self.emit_error(f"result shape invalid at index {i}, expected: {st.shape[p]}, but got: "
                                f"{rt.shape[i]}")
                return False
        return True


class ReshapeOp(_ReshapeLike):
    name = "cuda_tile.reshape"
    summary = "Reshape tile dimensions"

    def asm_result_names(self):
        return ["reshape"]

    def verify_op(self):
        st, rt = self.source.type, self.results[0].type
        if st.num_elements != rt.num_elements:
            self.emit_error("expected source tile and result tile to have the same number of elements")
            return False
        return True


class SelectOp(CudaTileOp):
    name = "cuda_tile.select"
    summary = "Select values based on condition"
    traits = (Pure, Elementwise, all_types_match("val_if_true", "val_if_false", "result"))
    cond = Operand(I1_TILE)
    val_if_true = Operand(TILE)
    val_if_false = Operand(TILE)
    result = Result(TILE)
    assembly_format = ("$cond `,` $val_if_true `,` $val_if_false attr-dict `:` "
                       "custom<CudaTileType>(type($cond)) `,` custom<CudaTileType>(type($result))")

    def verify_op(self):
        if len({_shape(v.type) for v in (*self.operands, self.results[0])}) != 1:
            self.emit_error("failed to verify that all of {cond, val_if_true, val_if_false, result} have "
                            "same shape")
            return False
        if getattr(self.results[0].type.element_type, "name", None) == "f4E2M1FN":
            self.emit_error("cannot operate on sub-byte type F4E2M1FN")
            return False
        return True


class OffsetOp(CudaTileOp):
    name = "cuda_tile.offset"
    summary = "Offsets a tile of pointers"
    traits = (Pure, Elementwise, all_types_match("result", "ptr"))
    ptr = Operand(PTR_TILE)
    offset = Operand(INT_TILE)
    result = Result(PTR_TILE)
    assembly_format = ("$ptr `,` $offset attr-dict `:` custom<CudaTileType>(type($ptr)) `,` "
                       "custom<CudaTileType>(type($offset)) `->` custom<CudaTileType>(type($result))")

    def verify_op(self):
        if _shape(self.ptr.type) != _shape(self.offset.type):
            self.emit_error("requires the same shape for all operands and results")
            return False
        return True


# ---- reduce / scan -----------------------------------------------------------

class _Combining(CudaTileOp, register=False):
    """reduce and scan: variadic tiles, a dim, identities, a combining body with
    one (current, accumulated) pair of 0-d tile arguments per operand. The body
    is taken as written (no implicit terminator: `{}` stays an empty region)."""
    traits = (RecursiveMemoryEffects,)
    operands_ = VarOperand(TILE)
    results_ = VarResult(TILE)
    body = RegionDef()
    same_result_types = False  # scan: results must equal the operands

    def inferred_types(self):
        return [v.type for v in self.operands]

    def verify_op(self):
        d = self.dim.value
        if d < 0 or self.dim.type != IntegerType(32):
            self.emit_error("attribute 'dim' failed to satisfy constraint: 32-bit signless integer attribute "
                            "whose value is non-negative")
            return False
        if len(self.regions[0].blocks) != 1:
            self.emit_error("region #0 ('body') failed to verify constraint: region with 1 blocks")
            return False
        ops = self.operands
        if ops and any(_shape(v.type) != _shape(ops[0].type) for v in ops):  # SameOperandsShape
            self.emit_error("requires the same shape for all operands")
            return False
        if not self._verify_aggregate():
            return False
        # InferTypeOpInterface is checked with the regions: after verify(), before verifyRegions()
        inferred = self.inferred_types()
        actual = [r.type for r in self.results]
        if inferred != actual:
            self.emit_error(f"inferred type(s) {', '.join(repr(_tt(t)) for t in inferred)} are incompatible "
                            f"with return type(s) of operation {', '.join(repr(_tt(t)) for t in actual)}")
            self.emit_error("failed to infer returned types")
            return False
        return self._verify_body()

    def _verify_aggregate(self):
        ops, results = self.operands, self.results
        if not ops:
            self.emit_error("expect at least 1 operand")
            return False
        if len(ops) != len(results):
            self.emit_error("expect same number of operands and results")
            return False
        ids = list(self.identities)
        if len(ids) != len(ops):
            self.emit_error(f"expect identities to match the number of operands but got: {len(ops)} operands "
                            f"and {len(ids)} identities")
            return False
        for i, (v, ident) in enumerate(zip(ops, ids)):
            elt = v.type.element_type
            it = getattr(ident, "type", None)
            if {getattr(elt, "name", None), getattr(it, "name", None)} == {"bf16", "f16"}:
                continue
            if elt != it:
                self.emit_error(f"expect same type for operand at index: {i} and identity at index: {i} but got: "
                                f"'{_tt(elt)}' and '{_tt(it) if it is not None else ident.text()}'")
                return False
        rank = ops[0].type.rank
        d = self.dim.value
        if d < 0 or d >= rank:
            self.emit_error(f"dimension ({d}) is out of bound [0, {rank})")
            return False
        if self.same_result_types:
            for i, (v, r) in enumerate(zip(ops, results)):
                if v.type != r.type:
                    self.emit_error(f"expect same type for operand at index: {i} and result at index: {i}")
                    return False
        return True

    def _verify_body(self):
        n = len(self.operands)
        block = self.regions[0].blocks[0]
        if block.last_op is None:
            self.emit_error("expect non-empty block")
            return False
        args = [a.type for a in block.arguments]
        if len(args) != 2 * n:
            self.emit_error(f"expect {2 * n} block arguments but got: {len(args)}")
            return False
        for i, t in enumerate(args):
            if not (isinstance(t, TileType) and t.rank == 0):
                self.emit_error(f"expect 0-rank tile type at index: {i} but got: '{_tt(t)}'")
                return False
        for i in range(0, 2 * n - 1, 2):
            a, b = args[i].element_type, args[i + 1].element_type
            if a != b:
                self.emit_error(f"expect same element type for block argument at index: {i} and {i + 1} but "
                                f"got: '{_tt(a)}' and '{_tt(b)}'")
                return False
        for i, v in enumerate(self.operands):
            a, b = v.type.element_type, args[2 * i].element_type
            if a != b:
                self.emit_error(f"expect same type for operand at index: {i} and block argument at index: "
                                f"{2 * i} but got: '{_tt(a)}' and '{_tt(b)}'")
                return False
        term = block.last_op
        if term.name != "cuda_tile.yield":
            term.emit_error(f"expects to be the terminator of '{self.name}'")
            return False
        if len(term.operands) != n:
            self.emit_error(f"expect number of terminators operands ({len(term.operands)}) to match number of "
                            f"operands ({n})")
            return False
        for i, (v, t) in enumerate(zip(self.operands, term.operands)):
            a = v.type.element_type
            b = getattr(t.type, "element_type", t.type)
            if a != b:
                self.emit_error(f"expect same type for operand at index: {i} and terminator argument at index: "
                                f"{i} but got: '{_tt(a)}' and '{_tt(b)}'")
                return False
        from ....ir.traits import Pure as _Pure
        for inner in block.ops:
            if inner is term:
                break
            if not inner.has_trait(_Pure):
                inner.emit_error(f"only pure operations are allowed inside '{self.name}'")
                return False
        return True


def _i32_attr_syntax():
    return int_syntax(32)()


class ReduceOp(_Combining):
    name = "cuda_tile.reduce"
    summary = "Variadic tile reduction across dimensions"
    dim = AttrDef(A.IntegerAttr, syntax=_i32_attr_syntax)
    identities = AttrDef(A.ArrayAttr)
    assembly_format = ("$operands attr-dict ` ` `dim` `` `=` `` $dim `identities` `` `=` `` $identities "
                       "`:` custom<CudaTileType>(type($operands)) `->` custom<CudaTileType>(type($results)) "
                       "custom<ArgumentRegion>($body)")

    def inferred_types(self):
        d = self.dim.value
        return [TileType(tuple(x for i, x in enumerate(v.type.shape) if i != d), v.type.element_type)
                for v in self.operands]

    def asm_result_names(self):
        return (["reduce"] + [None] * (len(self.results) - 1)) if self.results else []

    def asm_block_arg_names(self, region):
        n = len(region.blocks[0].arguments) if region.blocks else 0
        return [("reduce_lhs" if i % 2 == 0 else "reduce_rhs") + (str(i // 2) if n > 2 else "")
                for i in range(n)]


class ScanOp(_Combining):
    name = "cuda_tile.scan"
    summary = "A parallel prefix sum operation"
    same_result_types = True
    dim = AttrDef(A.IntegerAttr, syntax=_i32_attr_syntax)
    reverse = AttrDef(A.BoolAttr)
    identities = AttrDef(A.ArrayAttr)
    assembly_format = ("$operands attr-dict ` ` `dim` `` `=` `` $dim `reverse` `` `=` `` $reverse "
                       "`identities` `` `=` `` $identities `:` custom<CudaTileType>(type($operands)) "
                       "`->` custom<CudaTileType>(type($results)) custom<ArgumentRegion>($body)")


for _cls in (ReduceOp, ScanOp):  # the ODS names, kept apart from Operation's own attributes
    _rename(_cls, operands_="operands", results_="results")


# ---- tokens, printing, assumptions ---------------------------------------------

class MakeTokenOp(CudaTileOp):
    name = "cuda_tile.make_token"
    summary = "Create a fresh token with no prior dependencies"
    traits = (Pure,)
    result = Result(TOKEN)
    assembly_format = "attr-dict `:` custom<CudaTileType>(type($result))"


class JoinTokensOp(CudaTileOp):
    name = "cuda_tile.join_tokens"
    summary = "Product a new token which depends on a list of tokens"
    traits = (Pure,)
    tokens = VarOperand(TOKEN)
    result = Result(TOKEN)
    assembly_format = "$tokens attr-dict `:` custom<CudaTileType>(type($result))"

    def verify_op(self):
        if len(self.tokens) < 2:
            self.emit_error("expect two or more tokens")
            return False
        return True


def _check_format(op, fmt, n_args):
    """printf-style checks shared by print and print_tko (as cuda-tile-opt)."""
    expected, pos = 0, 0
    while pos < len(fmt):
        if fmt[pos] != "%":
            pos += 1
            continue
        end = next((i for i in range(pos + 1, len(fmt)) if fmt[i] in "diuoxXeEfFgGaAcsSpn%"), None)
        if end is None:
            op.emit_error("found unterminated format expression")
            return False
        if fmt[pos:end + 1] == "%%":
            pos += 2
            continue
        expected += 1
        pos += 1
    if expected != n_args:
        op.emit_error(f"incorrect number of operands: expected {expected}, found {n_args}")
        return False
    return True


class PrintTkoOp(CudaTileOp):
    name = "cuda_tile.print_tko"
    summary = "Print a formatted string (token-ordered)"
    str_ = AttrDef(A.StringAttr)
    args = VarOperand(TILE)
    token = OptOperand(TOKEN)
    result_token = Result(TOKEN)
    assembly_format = ("$str (`,` $args^)? (`token` `` `=` `` $token^)? attr-dict "
                       "(`:` custom<CudaTileType>(type($args))^)? `->` custom<CudaTileType>(type($result_token))")

    def verify_op(self):
        return _check_format(self, self.attributes["str"].value, len(self.args))


class PrintOp(CudaTileOp):
    """The spec's spelling of printing (no token): `print "fmt", %v : T`."""
    name = "cuda_tile.print"
    summary = "Print operation for debugging"
    str_ = AttrDef(A.StringAttr)
    args = VarOperand(TILE)
    assembly_format = "$str (`,` $args^)? attr-dict (`:` custom<CudaTileType>(type($args))^)?"

    def verify_op(self):
        return _check_format(self, self.attributes["str"].value, len(self.args))


for _cls in (PrintTkoOp, PrintOp):  # `str` in ODS
    _rename(_cls, str_="str")


class AssumeOp(CudaTileOp):
    name = "cuda_tile.assume"
    summary = "Attach static information to an SSA value"
    # it touches no memory, but its fact holds only where it runs: not hoisted past a guard
    traits = (NoMemoryEffect, all_types_match("value", "result"))
    value = Operand(ANY_TYPE)
    predicate = AttrDef(AssumePredicate)
    result = Result(ANY_TYPE)
    assembly_format = ("custom<AssumePredicate>($predicate) `,` $value attr-dict "
                       "`:` custom<CudaTileType>(type($value))")

    def asm_result_names(self):
        producer = getattr(self.value, "op", None)
        hook = getattr(producer, "asm_result_names", None)
        if hook is None:
            return ["assume"]
        names = hook() or []
        idx = self.value.index
        return ["assume_" + (names[idx] if idx < len(names) and names[idx] else "")]

    def verify_op(self):
        p = self.predicate
        t = self.value.type
        name = f"cuda_tile.{p.mnemonic}"
        if isinstance(p, DivByAttr):
            return self._verify_div_by(p, t, name)
        tile = t if isinstance(t, TileType) else None
        if isinstance(p, SameElementsAttr):
            if tile is None or not isinstance(tile.element_type, (IntegerType, PointerType)):
                self.emit_error(f"'{name}' is valid only for tile of integer/pointer values")
                return False
            if len(p.values) != tile.rank:
                self.emit_error(f"expected number of values in '{name}' ({len(p.values)}) to match rank of "
                                f"constrained tile ({tile.rank})")
                return False
            for i, v in enumerate(p.values):
                if v < 0 or v > tile.shape[i]:
                    self.emit_error(f"expected '{name}' value {i} to be within 0 and the size of the respective "
                                    f"dimension ({tile.shape[i]})")
                    return False
        if isinstance(p, BoundedAttr):
            if tile is None or not isinstance(tile.element_type, IntegerType):
                self.emit_error(f"'{name}' is valid only for tile of integer values")
                return False
            w = tile.element_type.width
            lo, hi = -(1 << (w - 1)), (1 << (w - 1)) - 1
            if p.lb is not None and not lo <= p.lb <= hi:
                self.emit_error(f"'{name}' expects lower bound to be within [{lo}, {hi}]")
                return False
            if p.ub is not None and not lo <= p.ub <= hi:
                self.emit_error(f"'{name}' expects upper bound to be within [{lo}, {hi}]")
                return False
            if p.lb is not None and p.ub is not None and p.lb > p.ub:
                self.emit_error(f"'{name}' expects lower bound to be less than or equal to upper bound")
                return False
        return True

    def _verify_div_by(self, p, t, name):
        d = p.divisor
        if d <= 0 or d & (d - 1):
            self.emit_error(f"'{name}' divisor must be a power of 2")
            return False
        if (p.every is None) != (p.along is None):
            self.emit_error(f"'{name}' 'every'/'along' must be used in combination")
            return False
        if d > 4611686018427387904:
            self.emit_error(f"'{name}' divisor is too large")
            return False
        if isinstance(t, TensorViewType):
            if p.every is not None:
                self.emit_error(f"'{name}' 'every'/'along' cannot be used if the constrained value is a "
                                "tensor_view")
                return False
            return True
        if not isinstance(t, TileType) or not isinstance(t.element_type, (IntegerType, PointerType)):
            self.emit_error(f"'{name}' is valid only for tile of integer/pointer or tensor_view values")
            return False
        if p.every is None:
            return True
        if t.rank == 0:
            self.emit_error(f"'{name}' 'every'/'along' cannot be used if the constrained value is a 0D tile")
            return False
        if p.along < 0 or p.along >= t.rank:
            self.emit_error(f"'{name}' every_dim ({p.along}) must be >= 0 and < tile rank ({t.rank})")
            return False
        if p.every < 0 or p.every > t.shape[p.along]:
            self.emit_error(f"expected '{name}' every_dim to be within 0 and the size of the respective "
                            f"dimension ({t.shape[p.along]})")
            return False
        return True
