"""cuda_tile types: tile, ptr, token, tensor_view, partition_view."""
from __future__ import annotations

import attrs

from ...ir import registry
from ...ir.types import DYNAMIC, DialectType, FloatType, IntegerType, Type, shape_text

DIALECT = "cuda_tile"
registry.SHORT_TYPE_DIALECTS.append(DIALECT)


def _dims(shape) -> str:
    return ",".join("?" if d is DYNAMIC else str(d) for d in shape)


@registry.register_type
@attrs.frozen(cache_hash=True, repr=False)
class PointerType(DialectType):
    pointee: Type
    dialect, mnemonic = DIALECT, "ptr"

    def body(self):
        return self.pointee.text(True)

    @classmethod
    def takes_no_body(cls):
        return False

    @classmethod
    def parse_body(cls, r):
        return cls(r.type())


@registry.register_type
@attrs.frozen(cache_hash=True, repr=False)
class TileType(DialectType):
    shape: tuple
    element_type: Type
    dialect, mnemonic = DIALECT, "tile"

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def num_elements(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def body(self):
        return shape_text(self.shape) + self.element_type.text(True)

    @classmethod
    def takes_no_body(cls):
        return False

    @classmethod
    def parse_body(cls, r):
        off = r.offset()
        shape, elt = r.shape_and_element()
        if any(d is DYNAMIC for d in shape):
            r.error("tile dimensions must be static")
        return cls(shape, elt)


@registry.register_type
@attrs.frozen(cache_hash=True, repr=False)
class TokenType(DialectType):
    dialect, mnemonic = DIALECT, "token"

    @classmethod
    def takes_no_body(cls):
        return True

    @classmethod
    def parse_body(cls, r):
        return cls()


@registry.register_type
@attrs.frozen(cache_hash=True, repr=False)
class TensorViewType(DialectType):
    shape: tuple
    element_type: Type
    strides: tuple
    dialect, mnemonic = DIALECT, "tensor_view"

    @property
    def rank(self) -> int:
        return len(self.shape)

    def body(self):
        s = shape_text(self.shape) + self.element_type.text(True)
        if self.shape:
            s += f", strides=[{_dims(self.strides)}]"
        return s

    @classmethod
    def takes_no_body(cls):
        return False

    @classmethod
    def parse_body(cls, r):
        shape, elt = r.shape_and_element()
        strides = ()
        if r.accept(","):
            if r.keyword() != "strides":
                r.error("expected 'strides'")
            r.expect("=")
            strides = r.int_list(allow_dynamic=True)
        return cls(shape, elt, strides)


@registry.register_type
@attrs.frozen(cache_hash=True, repr=False)
class PartitionViewType(DialectType):
    tile_shape: tuple
    tensor_view: TensorViewType
    dim_map: tuple
    padding_value: object = None  # a PaddingValueAttr or None
    dialect, mnemonic = DIALECT, "partition_view"

    @property
    def element_type(self):
        return self.tensor_view.element_type

    def body(self):
        s = f"tile=({'x'.join(str(d) for d in self.tile_shape)})"
        if self.padding_value is not None:
            s += f", padding_value = {self.padding_value.value}"
        s += f", {self.tensor_view.text(True)}"
        if self.dim_map != tuple(range(len(self.dim_map))):
            s += f", dim_map=[{', '.join(map(str, self.dim_map))}]"
        return s

    @classmethod
    def takes_no_body(cls):
        return False

    @classmethod
    def parse_body(cls, r):
        from .attributes import PaddingValueAttr
        if r.keyword() != "tile":
            r.error("expected 'tile'")
        r.expect("=")
        r.expect("(")
        shape = ()
        if not r.accept(")"):
            shape, _ = _tile_dims(r)
            r.expect(")")
        r.expect(",")
        pad = None
        if r.peek()[1] == "padding_value":
            r.next()
            r.expect("=")
            word = r.keyword()
            if word not in PaddingValueAttr.values:
                r.error(f"unknown padding value '{word}'")
            pad = PaddingValueAttr(word)
            r.expect(",")
        tv = r.type()
        if not isinstance(tv, TensorViewType):
            r.error("expected tensor_view type")
        dim_map = tuple(range(len(shape)))
        if r.accept(","):
            if r.keyword() != "dim_map":
                r.error("expected 'dim_map'")
            r.expect("=")
            dim_map = r.int_list()
        return cls(tuple(shape), tv, dim_map, pad)


def _tile_dims(r):
    """`2x4x8` inside parentheses."""
    import re
    pos = r.peek()[2]
    m = re.compile(r"\d+(?:x\d+)*").match(r.text, pos)
    if not m:
        r.error("expected tile shape")
    r.skip_to(m.end())
    return tuple(int(d) for d in m.group().split("x")), None


# ---- type constraints used by op declarations ------------------------------
from ...ir.opdef import Constraint  # noqa: E402

INT_TYPES = tuple(IntegerType(w) for w in (1, 8, 16, 32, 64))
FLOAT_NAMES = ("f16", "bf16", "f32", "tf32", "f64", "f8E4M3FN", "f8E5M2", "f8E8M0FNU", "f4E2M1FN")


def is_tile(t, elt=None) -> bool:
    return isinstance(t, TileType) and (elt is None or elt(t.element_type))


def is_int(t) -> bool:
    return isinstance(t, IntegerType)


def is_float(t) -> bool:
    return isinstance(t, FloatType)


def tile_of(description: str, elt_pred) -> Constraint:
    return Constraint(f"tile of {description} values", lambda t: isinstance(t, TileType) and elt_pred(t.element_type))


ANY_TILE = Constraint("tile of any values", lambda t: isinstance(t, TileType))
INT_TILE = tile_of("i1 or i8 or i16 or i32 or i64", is_int)
FLOAT_TILE = tile_of("f16 or bf16 or f32 or tf32 or f64 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN", is_float)
NUMBER_TILE = tile_of("i1 or i8 or i16 or i32 or i64 or f16 or bf16 or f32 or tf32 or f64 or f8E4M3FN or "
                      "f8E5M2 or f8E8M0FNU or f4E2M1FN", lambda e: is_int(e) or is_float(e))
I1_TILE = tile_of("i1", lambda e: e == IntegerType(1))
I32_TILE = tile_of("i32", lambda e: e == IntegerType(32))
PTR_TILE = tile_of("ptr", lambda e: isinstance(e, PointerType))
TOKEN = Constraint("cuda tile token type", lambda t: isinstance(t, TokenType))
TENSOR_VIEW = Constraint("tensor_view", lambda t: isinstance(t, TensorViewType))
PARTITION_VIEW = Constraint("partition_view", lambda t: isinstance(t, PartitionViewType))
