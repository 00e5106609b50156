"""The type section: a table of types, each a tag byte followed by its
parameters; composite types refer to earlier entries by index.

    tile            elementType[idx] shape[count, i64 LE...]
    ptr             [flags (13.4+)] pointee[idx] [ptrAttr if flagged: none 0, unicast 1, multicast 2]
    tensor_view     [flags (13.4+)] elementType[idx] shape[i64s] strides[i64s] [ptrAttr if flagged]
    partition_view  [flags (13.3+)] tile[i32s] tensorView[idx] dimMap[i32s] padding
    strided_view    flags tile[i32s] traversalStrides[i32s] tensorView[idx] dimMap[i32s] padding
    gather_scatter  flags tile[i32s] tensorView[idx] sparseDim[varint] padding
    function        inputs[count, idx...] results[count, idx...]

Before 13.3 an optional enum parameter (partition_view's padding) carries its
own presence varint; from 13.3 on all optional parameters share one leading
bitfield. A dynamic extent (`?`) is INT64_MIN."""
from __future__ import annotations

from ..dialects.cuda_tile.attributes import PaddingValueAttr
from ..dialects.cuda_tile.types import (PTR_ATTRS, GatherScatterViewType, PartitionViewType, PointerType,
                                        StridedViewType, TensorViewType, TileType, TokenType)
from ..ir.types import DYNAMIC, FloatType, FunctionType, IntegerType
from . import format as F
from .stream import BytecodeError, Reader, Writer

INT64_MIN = -(1 << 63)
_INT_TAG = {w: t for t, w in F.INT_TAGS.items()}
_FLOAT_TAG = {n: t for t, n in F.FLOAT_TAGS.items()}
_SIMPLE = {}
for _t, _w in F.INT_TAGS.items():
    _SIMPLE[_t] = IntegerType(_w)
for _t, _n in F.FLOAT_TAGS.items():
    _SIMPLE[_t] = FloatType(_n)
_SIMPLE[F.T_TOKEN] = TokenType()


def _dims_in(values):
    return tuple(DYNAMIC if v == INT64_MIN else v for v in values)


def _dims_out(values):
    return tuple(INT64_MIN if v is DYNAMIC else v for v in values)


def _padding_in(r: Reader, flagged: bool):
    if not flagged:
        return None
    at = r.pos
    v = r.varint()
    if v >= len(PaddingValueAttr.values):
        raise BytecodeError(at, f"invalid padding value {v}")
    return PaddingValueAttr(PaddingValueAttr.values[v])


_PTR_ATTR_SINCE = (F.V13_4, F.V13_5, F.V13_5)   # none, unicast, multicast (as NVIDIA's reader checks)


def _ptr_attr_in(r: Reader, flags: int, r_version):
    """The pointer classification a ptr / tensor_view carries when flag bit 0 is set."""
    if not flags & 1:
        return None
    at = r.pos
    v = r.varint()
    if v >= len(PTR_ATTRS):
        raise BytecodeError(at, f"expected ptr_attr to be a valid pointer classification but got invalid enum "
                                f"value {v}")
    if r_version < _PTR_ATTR_SINCE[v]:
        raise BytecodeError(at, f"ptr_attr enum value {v} is not available in bytecode version "
                                f"{F.version_text(r_version)}")
    return PTR_ATTRS[v]


class TypeTable:
    """Lazily decoded types of a file's type section."""

    def __init__(self, data, offsets, base: int, end: int, version):
        self.data, self.offsets, self.base, self.end, self.version = data, offsets, base, end, version
        self.cache = [None] * len(offsets)
        self.busy = set()

    def __len__(self):
        return len(self.offsets)

    def get(self, index: int, at: int):
        """Type #index; `at` is where the reference was read (for errors)."""
        if index >= len(self.cache):
            raise BytecodeError(at, f"type index {index} out of range (the type table has {len(self.cache)})")
        t = self.cache[index]
        if t is not None:
            return t
        if index in self.busy:
            raise BytecodeError(at, f"type {index} refers to itself")
        start = self.base + self.offsets[index]
        stop = self.base + self.offsets[index + 1] if index + 1 < len(self.offsets) else self.end
        if not (self.base <= start <= stop <= self.end):
            raise BytecodeError(at, f"type {index} has an invalid offset")
        self.busy.add(index)
        try:
            t = self._decode(Reader(self.data, start, stop, f"type {index}"))
        finally:
            self.busy.discard(index)
        self.cache[index] = t
        return t

    def read(self, r: Reader):
        at = r.pos
        return self.get(r.varint(), at)

    def _decode(self, r: Reader):
        at = r.pos
        tag = r.varint()
        since = F.TYPE_SINCE.get(tag)
        if since and self.version < since[0]:
            raise BytecodeError(at, f"type '{since[1]}' requires bytecode version {F.version_text(since[0])}+, "
                                    f"file version is {F.version_text(self.version)}")
        t = _SIMPLE.get(tag)
        if t is not None:
            return t
        v = self.version
        if tag == F.T_TILE:
            elt = self.read(r)
            shape = r.le_array(8)
            if any(d < 0 for d in shape):
                raise BytecodeError(at, "tile dimensions must be static and non-negative")
            return TileType(tuple(shape), elt)
        if tag == F.T_PTR:
            flags = r.varint() if v >= F.V13_4 else 0
            pointee = self.read(r)
            return PointerType(pointee, _ptr_attr_in(r, flags, v))
        if tag == F.T_TENSOR_VIEW:
            flags = r.varint() if v >= F.V13_4 else 0
            elt = self.read(r)
            shape = _dims_in(r.le_array(8))
            strides = _dims_in(r.le_array(8))
            kind = _ptr_attr_in(r, flags, v)
            if len(shape) != len(strides):
                raise BytecodeError(at, "tensor_view shape and strides differ in rank")
            return TensorViewType(shape, elt, strides, kind)
        if tag == F.T_PARTITION_VIEW:
            unified = v >= F.V13_3
            flags = r.varint() if unified else 0
            tile = r.le_array(4)
            tv = self._view(r)
            dim_map = r.le_array(4)
            pad = _padding_in(r, bool(flags & 1) if unified else bool(r.varint()))
            return PartitionViewType(tuple(tile), tv, tuple(dim_map), pad)
        if tag == F.T_STRIDED_VIEW:
            flags = r.varint()
            tile, strides = r.le_array(4), r.le_array(4)
            tv = self._view(r)
            dim_map = r.le_array(4)
            return StridedViewType(tuple(tile), tuple(strides), tv, tuple(dim_map), _padding_in(r, bool(flags & 1)))
        if tag == F.T_GATHER_SCATTER_VIEW:
            flags = r.varint()
            tile = r.le_array(4)
            tv = self._view(r)
            sparse = r.varint()
            return GatherScatterViewType(tuple(tile), tv, sparse, _padding_in(r, bool(flags & 1)))
        if tag == F.T_FUNCTION:
            ins = tuple(self.read(r) for _ in range(r.count("function input")))
            outs = tuple(self.read(r) for _ in range(r.count("function result")))
            return FunctionType(ins, outs)
        raise BytecodeError(at, f"unknown type tag {tag}")

    def _view(self, r):
        at = r.pos
        tv = self.read(r)
        if not isinstance(tv, TensorViewType):
            raise BytecodeError(at, f"expected a tensor_view type, got '{tv.text()}'")
        return tv


def parse_type_section(r: Reader, version) -> TypeTable:
    n = r.count("type", 4)
    r.align(4)
    offsets = [r.le(4) for _ in range(n)]
    return TypeTable(r.data, offsets, r.pos, r.end, version)


class TypeError_(Exception):
    """A type the target version (or the format) cannot express."""


class TypeWriter:
    """Collects types (dependencies first) and writes the type section."""

    def __init__(self, version):
        self.version = version
        self.index: dict = {}
        self.entries: list[bytes] = []

    def id(self, t) -> int:
        i = self.index.get(t)
        if i is None:
            data = self._encode(t)  # registers nested types first
            i = self.index[t] = len(self.entries)
            self.entries.append(data)
        return i

    def _encode(self, t) -> bytes:
        w = Writer()
        v = self.version
        if isinstance(t, IntegerType):
            tag = _INT_TAG.get(t.width)
            if tag is None:
                raise TypeError_(f"unsupported type in bytecode writer: '{t.text()}'")
            self._tag(w, tag)
        elif isinstance(t, FloatType):
            tag = _FLOAT_TAG.get(t.name)
            if tag is None:
                raise TypeError_(f"unsupported type in bytecode writer: '{t.text()}'")
            self._tag(w, tag)
        elif isinstance(t, TokenType):
            self._tag(w, F.T_TOKEN)
        elif isinstance(t, TileType):
            elt = self.id(t.element_type)
            self._tag(w, F.T_TILE)
            w.varint(elt)
            w.le_array(t.shape, 8)
        elif isinstance(t, PointerType):
            pointee = self.id(t.pointee)
            self._tag(w, F.T_PTR)
            self._ptr_flags(w, t)
            w.varint(pointee)
            self._ptr_attr(w, t)
        elif isinstance(t, TensorViewType):
            elt = self.id(t.element_type)
            self._tag(w, F.T_TENSOR_VIEW)
            self._ptr_flags(w, t)
            w.varint(elt)
            w.le_array(_dims_out(t.shape), 8)
            w.le_array(_dims_out(t.strides), 8)
            self._ptr_attr(w, t)
        elif isinstance(t, PartitionViewType):
            tv = self.id(t.tensor_view)
            self._tag(w, F.T_PARTITION_VIEW)
            pad = t.padding_value
            if v >= F.V13_3:
                w.varint(1 if pad is not None else 0)
            w.le_array(t.tile_shape, 4)
            w.varint(tv)
            w.le_array(t.dim_map, 4)
            if v < F.V13_3:
                w.varint(1 if pad is not None else 0)
            if pad is not None:
                w.varint(PaddingValueAttr.values.index(pad.value))
        elif isinstance(t, StridedViewType):
            tv = self.id(t.tensor_view)
            self._tag(w, F.T_STRIDED_VIEW)
            pad = t.padding_value
            w.varint(1 if pad is not None else 0)
            w.le_array(t.tile_shape, 4)
            w.le_array(t.traversal_strides, 4)
            w.varint(tv)
            w.le_array(t.dim_map, 4)
            if pad is not None:
                w.varint(PaddingValueAttr.values.index(pad.value))
        elif isinstance(t, GatherScatterViewType):
            tv = self.id(t.tensor_view)
            self._tag(w, F.T_GATHER_SCATTER_VIEW)
            pad = t.padding_value
            w.varint(1 if pad is not None else 0)
            w.le_array(t.tile_shape, 4)
            w.varint(tv)
            w.varint(t.sparse_dim)
            if pad is not None:
                w.varint(PaddingValueAttr.values.index(pad.value))
        elif isinstance(t, FunctionType):
            ins = [self.id(x) for x in t.inputs]
            outs = [self.id(x) for x in t.results]
            self._tag(w, F.T_FUNCTION)
            w.varint(len(ins))
            for i in ins:
                w.varint(i)
            w.varint(len(outs))
            for i in outs:
                w.varint(i)
        else:
            raise TypeError_(f"unsupported type in bytecode writer: '{t.text()}'")
        return w.getvalue()

    def _ptr_flags(self, w, t):
        if self.version >= F.V13_4:
            w.varint(0 if t.ptr_attr is None else 1)
        elif t.ptr_attr is not None:
            raise TypeError_(f"parameter 'ptrAttr' of type '{t.text(True)}' requires bytecode version 13.4+, "
                             f"targeting {F.version_text(self.version)}")

    def _ptr_attr(self, w, t):
        if t.ptr_attr is not None:
            v = PTR_ATTRS.index(t.ptr_attr)
            if self.version < _PTR_ATTR_SINCE[v]:
                raise TypeError_(f"ptr_attr '{t.ptr_attr}' requires bytecode version "
                                 f"{F.version_text(_PTR_ATTR_SINCE[v])}+, targeting {F.version_text(self.version)}")
            w.varint(v)

    def _tag(self, w, tag):
        since = F.TYPE_SINCE.get(tag)
        if since and self.version < since[0]:
            raise TypeError_(f"type '{since[1]}' requires bytecode version {F.version_text(since[0])}+, "
                             f"targeting {F.version_text(self.version)}")
        w.varint(tag)

    def section(self) -> bytes:
        return table_section(self.entries, 4)


def table_section(entries, width: int, base: int = 0) -> bytes:
    """count, padding to `width`, one offset per entry, the entries: the
    layout of the string, type, constant and debug-attribute tables."""
    w = Writer()
    w.varint(len(entries))
    w.align(width, base)
    off = 0
    for e in entries:
        w.le(off, width)
        off += len(e)
    for e in entries:
        w.raw(e)
    return w.getvalue()
