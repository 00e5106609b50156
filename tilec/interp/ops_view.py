"""Views (spec 8.11): tensor views over global memory, partition and strided
views that tile them, and the loads/stores through a view.

A tile index selects one tile of the view's grid. Tile dimension i runs along
tensor dimension dim_map[i]. Elements of a tile outside the tensor's shape are
masked: loads give the view's padding value (0 when it has none), stores skip
them. A tile index outside the view's index space, or in-bounds elements whose
addresses leave the allocation, are undefined behaviour and reported.

A tile is moved as one strided NumPy view of the allocation (never element by
element).

The multimem ops (13.5) act on every member of a multicast object. A launch
here is one device, so a multicast pointer addresses an object with one
member: a load-reduce is a load (the reduction of one value), a multimem
reduction is an atomic reduction into that member, a multimem store a store.
"""
from __future__ import annotations

import numpy as np

from ..ir.types import DYNAMIC
from .errors import InterpError
from .numerics import BOOL, dtype_of, strided
from .registry import TOKEN, compute

_PADDING = {"zero": 0.0, "neg_zero": -0.0, "nan": np.nan, "pos_inf": np.inf, "neg_inf": -np.inf}


class TensorView:
    __slots__ = ("base", "dtype", "shape", "strides")

    def __init__(self, base, dtype, shape, strides):
        self.base, self.dtype, self.shape, self.strides = base, dtype, shape, strides

    def __repr__(self):
        return f"TensorView(0x{self.base:x}, {self.dtype}, shape={self.shape}, strides={self.strides})"


class TiledView:
    """A partition view (steps = tile shape) or strided view (steps = traversal strides)."""
    __slots__ = ("tv", "tile", "dim_map", "pad", "steps", "index_space")

    def __init__(self, tv, tile, dim_map, pad, steps):
        self.tv, self.tile, self.dim_map, self.pad, self.steps = tv, tile, dim_map, pad, steps
        self.index_space = tuple(-(-tv.shape[d] // s) for d, s in zip(dim_map, steps))


@compute("cuda_tile.make_tensor_view")
def _make_tensor_view(op, cc):
    t = op.result.type
    dtype = dtype_of(t.element_type)
    n_dyn_shape = sum(d is DYNAMIC for d in t.shape)
    shape_t, strides_t = tuple(t.shape), tuple(t.strides)

    def fill(static, dynamic):
        it = iter(dynamic)
        return tuple(int(next(it)) if d is DYNAMIC else d for d in static)

    def fn(base, *dyn):
        shape = fill(shape_t, dyn[:n_dyn_shape])
        strides = fill(strides_t, dyn[n_dyn_shape:])
        if any(d < 0 for d in shape):
            raise InterpError(op, f"negative tensor shape {list(shape)}")
        return TensorView(int(base), dtype, shape, strides)
    return fn


def _tiled(op, steps_of):
    t = op.result.type
    pad = t.padding_value.value if t.padding_value is not None else None
    tile, dim_map = tuple(t.tile_shape), tuple(t.dim_map)
    steps = steps_of(t)
    return lambda tv: TiledView(tv, tile, dim_map, pad, steps)


@compute("cuda_tile.make_partition_view")
def _make_partition_view(op, cc):
    return _tiled(op, lambda t: tuple(t.tile_shape))


@compute("cuda_tile.make_strided_view")
def _make_strided_view(op, cc):
    return _tiled(op, lambda t: tuple(t.traversal_strides))


@compute("cuda_tile.get_tensor_shape")
def _get_tensor_shape(op, cc):
    dtypes = [dtype_of(r.type.element_type) for r in op.results]
    return lambda tv: tuple(np.array(d, dt) for d, dt in zip(tv.shape, dtypes))


@compute("cuda_tile.get_index_space_shape")
def _get_index_space_shape(op, cc):
    dtypes = [dtype_of(r.type.element_type) for r in op.results]
    return lambda v: tuple(np.array(d, dt) for d, dt in zip(v.index_space, dtypes))


def _geometry(op, view, index, what):
    """For tile `index` of `view`: (first element offset, per-tile-dim element
    strides, per-tile-dim in-bounds extent)."""
    tv = view.tv
    if len(index) != len(view.tile):
        raise InterpError(op, f"expects {len(view.tile)} indices, got {len(index)}")
    off, strides, extent = 0, [], []
    for i, (k, n, d, s) in enumerate(zip(index, view.tile, view.dim_map, view.steps)):
        k = int(k)
        if not 0 <= k < view.index_space[i]:
            raise InterpError(op, f"tile index {k} of dimension {i} is outside the view's index space "
                                  f"[0, {view.index_space[i]}) ({what})")
        start = k * s
        off += start * tv.strides[d]
        strides.append(tv.strides[d])
        extent.append(max(0, min(n, tv.shape[d] - start)))
    return off, strides, extent


def _window(op, mem, view, index, what):
    """A writable strided NumPy view of the in-bounds part of a tile, and its extent."""
    tv = view.tv
    off, strides, extent = _geometry(op, view, index, what)
    if 0 in extent:
        return None, extent
    itemsize = 1 if tv.dtype == BOOL else tv.dtype.itemsize
    lo = off + sum(min(0, (e - 1) * s) for e, s in zip(extent, strides))
    hi = off + sum(max(0, (e - 1) * s) for e, s in zip(extent, strides))
    alloc = mem.region(op, tv.base, lo * itemsize, (hi + 1) * itemsize, what)
    rel = tv.base - alloc.base
    if rel % itemsize:
        raise InterpError(op, f"misaligned tensor_view base address 0x{tv.base:x}")
    flat = alloc.typed(tv.dtype)
    start = rel // itemsize + off
    return strided(flat[start:], tuple(extent), tuple(s * itemsize for s in strides)), extent


@compute("cuda_tile.load_view_tko")
def _load_view(op, cc):
    t = op.results[0].type
    dtype = dtype_of(t.element_type)
    shape = tuple(t.shape)
    n_index = len(op.index)
    mem = cc.machine.memory

    def fn(view, *rest):
        index = rest[:n_index]
        win, extent = _window(op, mem, view, index, "read")
        if win is not None and tuple(extent) == shape:
            out = np.array(win)
            return (out != 0 if dtype == BOOL else out), TOKEN
        pad = _PADDING.get(view.pad, 0.0) if dtype.kind not in "iub" else 0
        out = np.full(shape, pad, dtype=dtype)
        if win is not None:
            out[tuple(slice(0, e) for e in extent)] = (win != 0) if dtype == BOOL else win
        return out, TOKEN
    return fn


@compute("cuda_tile.store_view_tko")
def _store_view(op, cc):
    n_index = len(op.index)
    mem = cc.machine.memory

    def fn(tile, view, *rest):
        index = rest[:n_index]
        win, extent = _window(op, mem, view, index, "write")
        if win is not None:
            src = np.asarray(tile)[tuple(slice(0, e) for e in extent)]
            win[...] = src.astype(np.uint8) if view.tv.dtype == BOOL else src
        return TOKEN
    return fn


@compute("cuda_tile.multimem_load_reduce_view_tko")
def _multimem_load_reduce(op, cc):
    load = _load_view(op, cc)
    view_s, index_s, _ = cc.operand_slots(op)
    return lambda *vals: load(vals[view_s], *[vals[i] for i in index_s])


@compute("cuda_tile.multimem_store_view_tko")
def _multimem_store(op, cc):
    store = _store_view(op, cc)
    view_s, tile_s, index_s, _ = cc.operand_slots(op)
    return lambda *vals: store(vals[tile_s], vals[view_s], *[vals[i] for i in index_s])


# multimem reduction kind -> atomic mode of the same update
_MULTIMEM_MODES = {"add": "add", "min": "min", "max": "max", "and": "and", "or": "or", "xor": "xor",
                   "umin": "umin", "umax": "umax"}


@compute("cuda_tile.multimem_reduce_view_tko")
def _multimem_reduce(op, cc):
    view_s, tile_s, index_s, _ = cc.operand_slots(op)
    kind = op.attributes.get("reduction")
    mode = _MULTIMEM_MODES[kind.value if kind is not None else "add"]
    update = _reduce_into_window(op, cc, mode, op.operands[tile_s].type.element_type)
    return lambda *vals: update(vals[view_s], vals[tile_s], [vals[i] for i in index_s])


def _reduce_into_window(op, cc, mode, elt):
    """fn(view, value, index) applying `mode` (an atomic RMW mode) to the
    in-bounds part of one tile of `view`."""
    from .numerics import F64, to_float
    from .ops_memory import _rmw_function
    dtype = dtype_of(elt)
    f = _rmw_function(mode, dtype)
    if dtype.kind not in "iub" and dtype.itemsize < 4:   # f16/bf16: combine in f64, round once
        g = f
        f = lambda old, v: to_float(g(np.asarray(old).astype(F64), np.asarray(v).astype(F64)), elt)  # noqa: E731
    mem = cc.machine.memory

    def fn(view, value, index):
        win, extent = _window(op, mem, view, index, "access")
        if win is not None:
            src = np.asarray(value)[tuple(slice(0, e) for e in extent)]
            win[...] = np.asarray(f(np.array(win), src)).astype(win.dtype)
        return TOKEN
    return fn


@compute("cuda_tile.atomic_red_view_tko")
def _atomic_red_view(op, cc):
    from ..dialects.cuda_tile.attributes import AtomicRMWModeAttr
    view_s, index_s, value_s, _ = cc.operand_slots(op)
    mode = AtomicRMWModeAttr.name_of(op.attributes["mode"])
    update = _reduce_into_window(op, cc, mode, op.operands[value_s].type.element_type)
    return lambda *vals: update(vals[view_s], vals[value_s], [vals[i] for i in index_s])
