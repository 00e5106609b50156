"""cuda_tile types: tile, ptr, token, tensor_view, partition_view."""
from __future__ import annotations

from ...ir.record import frozen

from ...ir import registry
from ...ir.types import DYNAMIC, BodilessType, DialectType, FloatType, IntegerType, Type, shape_text

DIALECT = "cuda_tile"
registry.SHORT_TYPE_DIALECTS.append(DIALECT)


def _dims(shape) -> str:
    return ",".join("?" if d is DYNAMIC else str(d) for d in shape)


@registry.register_type
@frozen(cache_hash=True, repr=False)
class PointerType(DialectType):
    """`ptr<f32>`; 13.4 adds an optional pointer classification, `ptr<f32, <multicast>>`."""
    pointee: Type
    ptr_attr: str | None = None   # one of PTR_ATTRS
    dialect, mnemonic = DIALECT, "ptr"

    def body(self):
        s = self.pointee.text(True)
        return s if self.ptr_attr is None else f"{s}, <{self.ptr_attr}>"

    @classmethod
    def parse_body(cls, r):
        start = max(r.base - 1, 0)
        pointee = r.type()
        if not _is_number(pointee):
            _check(r, start, f"failed to verify 'pointeeType': {NUMBER_NAMES}")
        kind = None
        if r.accept(","):
            r.expect("<")
            kind = _ptr_attr_keyword(r)
            r.expect(">")
        return cls(pointee, kind)


# #cuda_tile.ptr_attr cases, in their bytecode order (`none` from 13.4, the others from 13.5)
PTR_ATTRS = ("none", "unicast", "multicast")


def _ptr_attr_keyword(r) -> str:
    at = r.offset()
    word = r.keyword()
    if word not in PTR_ATTRS:
        from ...syntax.reader import BodyError
        raise BodyError(f"expected pointer classification to be one of: {', '.join(PTR_ATTRS)}, got '{word}'", at)
    return word


def _tensor_view_ptr_attr(r):
    """`#cuda_tile.ptr_attr<kind>` after a tensor_view's shape (and strides)."""
    if r.peek()[1] != "#cuda_tile.ptr_attr":
        r.error("expected '#cuda_tile.ptr_attr'")
    r.next()
    r.expect("<")
    kind = _ptr_attr_keyword(r)
    r.expect(">")
    return kind


@registry.register_type
@frozen(cache_hash=True, repr=False)
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
    def parse_body(cls, r):
        start = max(r.base - 1, 0)
        shape, elt = r.shape_and_element(allow_dynamic=False)
        # i4 is admitted too (packed operands of the conversion ops), though
        # NVIDIA's diagnostic does not list it
        if not (_is_number(elt) or isinstance(elt, PointerType) or elt == IntegerType(4)):
            _check(r, start, f"failed to verify 'elementType': {NUMBER_NAMES} or Pointer type")
        _check(r, start, tile_shape_problem(shape, elt))
        return cls(shape, elt)


MAX_TILE_ELEMENTS = 1 << 24


def tile_shape_problem(shape, element_type):
    """Why `shape` cannot be a tile's (TileType::verify), or None."""
    if isinstance(element_type, FloatType) and element_type.name == "f4E2M1FN":
        if not shape or all(d % 2 for d in shape):
            return "F4E2M1FN tiles must have an even number of elements"
    count = 1
    for d in shape:
        if d <= 0:
            return f"all dimensions must be positive constants, got {_ints(shape)}"
        if d & (d - 1):
            return f"all dimensions must be powers of two, got {_ints(shape)}"
        count *= d
        if count > MAX_TILE_ELEMENTS:
            return f"tile would exceed the maximum of {MAX_TILE_ELEMENTS} elements"
    return None


@registry.register_type
@frozen(cache_hash=True, repr=False)
class TokenType(BodilessType):
    dialect, mnemonic = DIALECT, "token"


@registry.register_type
@frozen(cache_hash=True, repr=False)
class TensorViewType(DialectType):
    shape: tuple
    element_type: Type
    strides: tuple
    ptr_attr: str | None = None   # the base pointer's classification, see PointerType
    dialect, mnemonic = DIALECT, "tensor_view"

    @property
    def rank(self) -> int:
        return len(self.shape)

    def body(self):
        s = shape_text(self.shape) + self.element_type.text(True)
        if self.shape:
            s += f", strides=[{_dims(self.strides)}]"
        if self.ptr_attr is not None:
            s += f", #cuda_tile.ptr_attr<{self.ptr_attr}>"
        return s

    @classmethod
    def parse_body(cls, r):
        start = max(r.base - 1, 0)
        shape, elt = r.shape_and_element()
        if not (elt in INT_TYPES or (isinstance(elt, FloatType) and elt.name in ELEMENT_FLOATS)):
            _check(r, start, f"failed to verify 'elementType': {NUMBER_NAMES}")
        strides, kind = (), None
        if not shape:
            if r.accept(","):
                if r.peek()[1] == "strides":
                    r.next()
                    r.error("strides must not be provided for 0-d tiles")
                if r.peek()[1] != "#cuda_tile.ptr_attr":
                    r.error("unexpected token after element type in 0-d tensor_view")
                kind = _tensor_view_ptr_attr(r)
        else:
            if not r.accept(","):
                r.error("expected 'strides'")
            if r.keyword() != "strides":
                r.error("expected 'strides'")
            r.expect("=")
            strides = _stride_array(r)
            if r.accept(","):
                kind = _tensor_view_ptr_attr(r)
        if len(shape) != len(strides):
            _check(r, start, f"expected shape and stride to be of same rank but got shape of rank {len(shape)} "
                             f"and stride of rank {len(strides)}")
        if any(d is not DYNAMIC and d <= 0 for d in shape):
            _check(r, start, f"dimensions must have strictly positive constant sizes but got [{_dims_diag(shape)}]")
        return cls(shape, elt, strides, kind)


def _dims_diag(dims) -> str:
    return ", ".join("?" if d is DYNAMIC else str(d) for d in dims)


def _stride_array(r):
    """`[s, ?, ...]`: strictly positive integers or `?`."""
    r.expect("[")
    out = []
    if r.accept("]"):
        return ()
    while True:
        if r.accept("?"):
            out.append(DYNAMIC)
        elif r.peek()[0] == "int":
            off = r.offset()
            v = r.integer()
            if v <= 0:
                from ...syntax.reader import BodyError
                raise BodyError(f"expected strictly positive integer, got {v}", off)
            out.append(v)
        else:
            r.error("expected either 64-bit integer or question mark")
        if r.accept("]"):
            return tuple(out)
        r.expect(",")


@registry.register_type
@frozen(cache_hash=True, repr=False)
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
    def parse_body(cls, r):
        start = max(r.base - 1, 0)
        if r.keyword() != "tile":
            r.error("expected 'tile'")
        r.expect("=")
        r.expect("(")
        shape = ()
        if not r.accept(")"):
            shape, _ = _tile_dims(r)
            r.expect(")")
        r.expect(",")
        pad = _view_padding(r)
        tv = _view_tensor_view(r)
        dim_map = _view_dim_map(r, len(shape))
        _check(r, start, view_like_error(tuple(shape), tv, dim_map, pad))
        return cls(tuple(shape), tv, dim_map, pad)


def _tile_dims(r):
    """`2x4x8` inside parentheses."""
    import re
    pos = r.peek()[2]
    m = re.compile(r"\d+(?:x\d+)*").match(r.text, pos)
    if not m:
        r.error("expected tile shape")
    dims = tuple(int(d) for d in m.group().split("x"))
    for i, d in enumerate(dims):
        if d <= 0 or d > 2147483647:
            r.error(f"tile dimension {i} exceeds i32 limitations (got {d}, expected strictly positive and less "
                    f"than or equal to 2147483647)")
    r.skip_to(m.end())
    return dims, None


# ---- type constraints used by op declarations ------------------------------
from ...ir.opdef import Constraint  # noqa: E402

INT_TYPES = tuple(IntegerType(w) for w in (1, 8, 16, 32, 64))
FLOAT_NAMES = ("f16", "bf16", "f32", "tf32", "f64", "f8E4M3FN", "f8E5M2", "f8E8M0FNU", "f4E2M1FN")
# Accepted wherever FLOAT_NAMES are, but left out of the diagnostics' lists: the
# conformance suite (13.3) pins those texts, and the type only exists from 13.4.
UNLISTED_FLOATS = ("fnv8E5M3FNU",)
ELEMENT_FLOATS = FLOAT_NAMES + UNLISTED_FLOATS
# The element types a tile may hold, in the order NVIDIA's type verifiers list them.
NUMBER_NAMES = " or ".join(FLOAT_NAMES + ("i1", "i8", "i16", "i32", "i64"))


def is_tile(t, elt=None) -> bool:
    return isinstance(t, TileType) and (elt is None or elt(t.element_type))


def is_int(t) -> bool:
    return isinstance(t, IntegerType)


def is_float(t) -> bool:
    return isinstance(t, FloatType)


def tile_of(description: str, elt_pred) -> Constraint:
    return Constraint(f"tile of {description} values", lambda t: isinstance(t, TileType) and elt_pred(t.element_type))


ANY_TILE = Constraint("tile of any values", lambda t: isinstance(t, TileType))
INT_TILE = tile_of("i1 or i8 or i16 or i32 or i64", lambda e: e in INT_TYPES)
FLOAT_TILE = tile_of("f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN", is_float)
NUMBER_TILE = tile_of("i1 or i8 or i16 or i32 or i64 or f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or "
                      "f8E5M2 or f8E8M0FNU or f4E2M1FN", lambda e: is_int(e) or is_float(e))
I1_TILE = tile_of("i1", lambda e: e == IntegerType(1))
I32_TILE = tile_of("i32", lambda e: e == IntegerType(32))
PTR_TILE = tile_of("ptr", lambda e: isinstance(e, PointerType))
TOKEN = Constraint("cuda tile token type", lambda t: isinstance(t, TokenType), buildable=TokenType())
TENSOR_VIEW = Constraint("tensor_view", lambda t: isinstance(t, TensorViewType))
PARTITION_VIEW = Constraint("partition_view", lambda t: isinstance(t, PartitionViewType))


# ---- strided and gather/scatter views ------------------------------------------

def _view_tile(r):
    """`tile=(AxB)`; returns the dims."""
    if r.keyword() != "tile":
        r.error("expected 'tile'")
    r.expect("=")
    r.expect("(")
    shape = ()
    if not r.accept(")"):
        shape, _ = _tile_dims(r)
        r.expect(")")
    return tuple(shape)


def _view_padding(r):
    """An optional `padding_value = word,` (the comma included)."""
    from .attributes import PaddingValueAttr
    if r.peek()[1] != "padding_value":
        return None
    r.next()
    r.expect("=")
    word = r.keyword()
    if word not in PaddingValueAttr.values:
        r.error(f"unknown padding value '{word}'")
    r.expect(",")
    return PaddingValueAttr(word)


def _view_dim_map(r, rank):
    """An optional trailing `, dim_map=[...]`; the identity when absent."""
    if not r.accept(","):
        return tuple(range(rank))
    if r.keyword() != "dim_map":
        r.error("expected 'dim_map'")
    r.expect("=")
    return r.int_list()


def _view_tensor_view(r):
    tv = r.type()
    if not isinstance(tv, TensorViewType):
        r.error(f"expected 'tensor_view' type, but got '{tv.text()}'")
    return tv


def _ints(values, sep=", "):
    return sep.join(str(v) for v in values)


def view_like_error(tile_shape, tv, dim_map, pad):
    """The checks every grid-like view type shares; the message, or None."""
    rank = len(tv.shape)
    if not tile_shape:
        return "0-dimension tile shape is not supported"
    if len(tile_shape) != rank:
        return (f"expected tensor_view rank and tile rank to match, got tensor_view of rank {rank} "
                f"and tiles of rank {len(tile_shape)}")
    if dim_map is not None:
        if len(dim_map) != len(tile_shape):
            return (f"expected dim_map to map exactly all {len(tile_shape)} dimensions of the tile, "
                    f"got {len(dim_map)} mappings")
    if any(d <= 0 for d in tile_shape):
        return f"tile shape dimensions must have positive length but got [{_ints(tile_shape)}]"
    if any(d & (d - 1) for d in tile_shape):
        return f"tile shape dimensions must have power of two length but got [{_ints(tile_shape)}]"
    if dim_map is not None:
        used = {}
        for tile_dim, target in enumerate(dim_map):
            if target < 0:
                return f"target dimension must not be negative, got {target}"
            if target >= rank:
                return (f"target dimension is outside of tensor view dimensions, expected strictly less "
                        f"than {rank}, got {target}")
            if target in used:
                return (f"target dimension {target} mapped at least twice (for tile dimensions "
                        f"{used[target]} and {tile_dim})")
            used[target] = tile_dim
    if pad is not None and pad.value != "zero" and not isinstance(tv.element_type, FloatType):
        return (f"padding_value {pad.value} can only be used with floating point element types, "
                f"got {tv.element_type.text()}")
    return None


def _check(r, start, message):
    if message is not None:
        from ...syntax.reader import BodyError
        raise BodyError(message, start)


@registry.register_type
@frozen(cache_hash=True, repr=False)
class StridedViewType(DialectType):
    """`strided_view<tile=(AxB), traversal_strides=[s,t], [padding_value = v,]
    tensor_view<...>[, dim_map=[...]]>`: tiles laid out on a grid whose step per
    dimension is `traversal_strides` (in tiles' units of elements)."""
    tile_shape: tuple
    traversal_strides: tuple
    tensor_view: TensorViewType
    dim_map: tuple
    padding_value: object = None
    dialect, mnemonic = DIALECT, "strided_view"

    @property
    def element_type(self):
        return self.tensor_view.element_type

    def body(self):
        s = f"tile=({'x'.join(map(str, self.tile_shape))}), traversal_strides=[{_ints(self.traversal_strides, ',')}], "
        if self.padding_value is not None:
            s += f"padding_value = {self.padding_value.value}, "
        s += self.tensor_view.text(True)
        if self.dim_map != tuple(range(len(self.dim_map))):
            s += f", dim_map=[{_ints(self.dim_map)}]"
        return s

    @classmethod
    def parse_body(cls, r):
        start = max(r.base - 1, 0)
        shape = _view_tile(r)
        r.expect(",")
        if r.keyword() != "traversal_strides":
            r.error("expected 'traversal_strides'")
        r.expect("=")
        strides = r.int_list()
        r.expect(",")
        pad = _view_padding(r)
        tv = _view_tensor_view(r)
        dim_map = _view_dim_map(r, len(shape))
        _check(r, start, view_like_error(shape, tv, dim_map, pad))
        if len(strides) != len(shape):
            _check(r, start, f"expected {len(shape)} traversal strides, got {len(strides)}")
        if any(s <= 0 for s in strides):
            _check(r, start, f"traversal strides must be strictly positive but got [{_ints(strides)}]")
        return cls(shape, tuple(strides), tv, tuple(dim_map), pad)


@registry.register_type
@frozen(cache_hash=True, repr=False)
class GatherScatterViewType(DialectType):
    """`gather_scatter_view<tile=(AxB), [padding_value = v,] tensor_view<...>,
    sparse_dim=d>`: a grid of tiles where dimension `sparse_dim` is indexed by a
    1-D tile of row indices."""
    tile_shape: tuple
    tensor_view: TensorViewType
    sparse_dim: int
    padding_value: object = None
    dialect, mnemonic = DIALECT, "gather_scatter_view"

    @property
    def element_type(self):
        return self.tensor_view.element_type

    def body(self):
        s = f"tile=({'x'.join(map(str, self.tile_shape))}), "
        if self.padding_value is not None:
            s += f"padding_value = {self.padding_value.value}, "
        return s + f"{self.tensor_view.text(True)}, sparse_dim={self.sparse_dim}"

    @classmethod
    def parse_body(cls, r):
        start = max(r.base - 1, 0)
        shape = _view_tile(r)
        r.expect(",")
        pad = _view_padding(r)
        tv = _view_tensor_view(r)
        r.expect(",")
        if r.keyword() != "sparse_dim":
            r.error("expected 'sparse_dim'")
        r.expect("=")
        sparse_dim = r.integer()
        if sparse_dim < 0:
            r.error("expected non-negative integer")
        _check(r, start, view_like_error(shape, tv, None, pad) if shape else
               "0-dimension tile shape is not supported")
        if sparse_dim >= len(tv.shape):
            _check(r, start, f"gather dimension is outside of tensor view dimensions, expected strictly "
                             f"less than {len(tv.shape)}, got {sparse_dim}")
        return cls(shape, tv, sparse_dim, pad)


VIEW_TYPES = (PartitionViewType, StridedViewType, GatherScatterViewType)


def view_index_rank(view) -> int:
    """How many indices select a tile of `view` (TileView::getViewIndexRank)."""
    return len(view.tile_shape)


def view_tile_type(view) -> TileType:
    """The tile one index of `view` selects (TileView::getViewTileType)."""
    return TileType(tuple(view.tile_shape), view.tensor_view.element_type)


# ODS summaries, as op diagnostics quote them
_INT_NAMES = "i1 or i8 or i16 or i32 or i64"
_NUMBER_NAMES = (_INT_NAMES + " or f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 or f8E8M0FNU "
                 "or f4E2M1FN")


def _is_number(e) -> bool:
    return e in INT_TYPES or (isinstance(e, FloatType) and e.name in ELEMENT_FLOATS)


def _scalar_tile(description, pred) -> Constraint:
    return Constraint(f"0D tile of {description} values",
                      lambda t: isinstance(t, TileType) and not t.shape and pred(t.element_type))


TILE_TYPE = Constraint("Tile type", lambda t: isinstance(t, TileType))
POINTER_TILE = Constraint("tile of Pointer type values",
                          lambda t: isinstance(t, TileType) and isinstance(t.element_type, PointerType))
SCALAR_POINTER_TILE = _scalar_tile("Pointer type", lambda e: isinstance(e, PointerType))
SCALAR_INT_TILE = _scalar_tile(_INT_NAMES, lambda e: e in INT_TYPES)
MASK_TILE = Constraint("tile of i1 values", lambda t: isinstance(t, TileType) and t.element_type == IntegerType(1))
INDEX_TILE = Constraint(f"tile of {_INT_NAMES} values",
                        lambda t: isinstance(t, TileType) and t.element_type in INT_TYPES)
NUMBER_TILE_ODS = Constraint(f"tile of {_NUMBER_NAMES} values",
                             lambda t: isinstance(t, TileType) and _is_number(t.element_type))
UNPACKED_TILE = Constraint(f"tile of {_NUMBER_NAMES} or i4 values",
                           lambda t: isinstance(t, TileType) and (_is_number(t.element_type)
                                                                   or t.element_type == IntegerType(4)))
I8_TILE = Constraint("tile of i8 values", lambda t: isinstance(t, TileType) and t.element_type == IntegerType(8))
TOKEN_TYPE = TOKEN
TENSOR_VIEW_TYPE = Constraint("tensor view type", lambda t: isinstance(t, TensorViewType))
PARTITION_VIEW_TYPE = Constraint("partition view type", lambda t: isinstance(t, PartitionViewType))
STRIDED_VIEW_TYPE = Constraint("strided view type", lambda t: isinstance(t, StridedViewType))
GATHER_SCATTER_VIEW_TYPE = Constraint("gather/scatter view type", lambda t: isinstance(t, GatherScatterViewType))
TILE_VIEW = Constraint("TileView instance", lambda t: isinstance(t, VIEW_TYPES))
