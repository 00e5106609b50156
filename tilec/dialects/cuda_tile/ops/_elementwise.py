"""Shared shapes of the element-wise arithmetic, math and conversion ops: the
type constraints they use, base classes for unary/binary ops (one short class
per op in the family modules), and the modifier checks several verifiers share.
Declares no op itself."""
from __future__ import annotations

from ....ir.opdef import AttrDef, Constraint, Operand, Result
from ....ir.traits import Elementwise, Pure, Trait, all_types_match
from ....ir.types import FloatType, IntegerType
from ..attributes import IntegerOverflowAttr, RoundingModeAttr
from ..types import INT_TILE, UNLISTED_FLOATS, PointerType, TileType
from .base import CudaTileOp
from .. import directives_arith  # noqa: F401  (registers the custom<...> directives used below)


def _element(name):
    if name[0] == "i" and name[1:].isdigit():
        return IntegerType(int(name[1:]))
    return FloatType(name)


def tile_of_types(*names, what="tile", unlisted=()) -> Constraint:
    """ODS's TileOf<[...]>: "<what> of f16 or bf16 values"; `unlisted` element
    types are accepted but not named in the diagnostic."""
    allowed = frozenset(_element(n) for n in names + tuple(unlisted))
    return Constraint(f"{what} of {' or '.join(names)} values",
                      lambda t: isinstance(t, TileType) and t.element_type in allowed)


INT_NAMES = ("i1", "i8", "i16", "i32", "i64")
FLOAT_NAMES = ("f16", "bf16", "f32", "f64", "tf32", "f8E4M3FN", "f8E5M2", "f8E8M0FNU", "f4E2M1FN")
BASE_FLOAT_TILE = tile_of_types("f16", "bf16", "f32", "f64")
FLOAT_TILE = tile_of_types(*FLOAT_NAMES, unlisted=UNLISTED_FLOATS)
NUMBER_TILE = tile_of_types(*INT_NAMES, *FLOAT_NAMES, unlisted=UNLISTED_FLOATS)
POINTER_TILE = Constraint("tile of Pointer type values",
                          lambda t: isinstance(t, TileType) and isinstance(t.element_type, PointerType))
INT_OR_I4_TILE = tile_of_types(*INT_NAMES, "i4")
I64_TILE = tile_of_types("i64")
F32 = FloatType("f32")

TYPE_ONLY = "attr-dict `:` custom<CudaTileType>(type($result))"
UNARY_FORMAT = "$source " + TYPE_ONLY
BINARY_FORMAT = "$lhs `,` $rhs " + TYPE_ONLY
CAST_FORMAT = "$source attr-dict `:` custom<CudaTileType>(type($source)) `->` custom<CudaTileType>(type($result))"


def element_type(value):
    return getattr(value.type, "element_type", value.type)


# ---- base classes -------------------------------------------------------------

class RoundingDefault:
    """Mixin: `create()` fills a required `rounding_mode` the builder leaves
    out with `default_rounding` (what the custom form's absent modifier means)."""
    default_rounding = "nearest_even"

    @classmethod
    def create(cls, **fields):
        if "rounding_mode" not in (fields.get("attributes") or {}):
            fields.setdefault("rounding_mode", RoundingModeAttr(cls.default_rounding))
        return super().create(**fields)


class FloatUnaryOp(CudaTileOp):
    traits = (Pure, Elementwise, all_types_match("source", "result"))
    source = Operand(BASE_FLOAT_TILE)
    result = Result(BASE_FLOAT_TILE)
    assembly_format = UNARY_FORMAT


class FloatBinaryOp(CudaTileOp):
    traits = (Pure, Elementwise, all_types_match("lhs", "rhs", "result"))
    lhs = Operand(BASE_FLOAT_TILE)
    rhs = Operand(BASE_FLOAT_TILE)
    result = Result(BASE_FLOAT_TILE)
    assembly_format = BINARY_FORMAT


class IntUnaryOp(CudaTileOp):
    traits = (Pure, Elementwise, all_types_match("source", "result"))
    source = Operand(INT_TILE)
    result = Result(INT_TILE)
    assembly_format = UNARY_FORMAT


class IntBinaryOp(CudaTileOp):
    traits = (Pure, Elementwise, all_types_match("lhs", "rhs", "result"))
    lhs = Operand(INT_TILE)
    rhs = Operand(INT_TILE)
    result = Result(INT_TILE)
    assembly_format = BINARY_FORMAT


def overflow_attr():
    """The `overflow<...>` modifier: absent means `none`, which is not printed."""
    return AttrDef(IntegerOverflowAttr, default=IntegerOverflowAttr("none"))


OVERFLOW_BINARY_FORMAT = "$lhs `,` $rhs (`overflow` `` $overflow^)? " + TYPE_ONLY


class I1SameShape(Trait):
    """cmpf/cmpi's TypesMatchWith: the result is the i1 tile of the operands' shape."""

    @classmethod
    def verify(cls, op):
        lhs = op.operands[0].type
        if isinstance(lhs, TileType) and op.results[0].type != TileType(lhs.shape, IntegerType(1)):
            op.emit_error("failed to verify that Result type has i1 element type and same shape as operands")
            return False
        return True


# ---- modifier checks shared by verifiers ---------------------------------------

IEEE_MODES = ("nearest_even", "zero", "negative_inf", "positive_inf")


def check_rounding(op, allowed, name="rounding_mode") -> bool:
    mode = op.attributes.get(name)
    if isinstance(mode, RoundingModeAttr) and mode.value not in allowed:
        op.emit_error(f"invalid rounding mode specified, expect one of [{', '.join(allowed)}]")
        return False
    return True


def check_f32_only(op, modifier, elt) -> bool:
    """`flush_to_zero`, `approx` and `full` exist for f32 alone."""
    if elt != F32:
        op.emit_error(f"{modifier} modifier only supported for f32 data type, but got: '{elt.text()}'")
        return False
    return True


def check_float_modifiers(op, allowed_rounding, f32_only_modes=()) -> bool:
    """Rounding mode among `allowed_rounding`; flush_to_zero, then the rounding
    modes in `f32_only_modes`, only on f32 tiles."""
    if not check_rounding(op, allowed_rounding):
        return False
    elt = element_type(op.results[0])
    if "flush_to_zero" in op.attributes and not check_f32_only(op, "flush_to_zero", elt):
        return False
    mode = op.attributes.get("rounding_mode")
    if isinstance(mode, RoundingModeAttr) and mode.value in f32_only_modes:
        return check_f32_only(op, mode.value, elt)
    return True
