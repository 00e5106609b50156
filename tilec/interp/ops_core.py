"""Core ops (spec 8.3) and the small utilities of 8.12: constant, iota, shape
ops (extract, insert, ...), select, offset, tile block ids, globals, tokens
(with the 13.4 token-only ops gdc_* and memory_fence_alias_tko), assume,
print, assert."""
from __future__ import annotations

import numpy as np

from ..ir.types import FloatType, IntegerType
from .errors import InterpError, first_index, index_text
from .numerics import BOOL, I64, dtype_of, float_constant, storage_size, unsigned, wrap_int
from .printf import format_print
from .registry import TOKEN, compute


def result_dtype(op, i=0):
    return dtype_of(op.results[i].type.element_type)


def dense_array(attr, elt=None, shape=None):
    """A DenseElementsAttr as a NumPy array of element type `elt`."""
    elt = attr.element_type if elt is None else elt
    shape = attr.shape if shape is None else shape
    dtype = dtype_of(elt)
    values = list(attr.values)
    if isinstance(elt, FloatType):
        arr = float_constant(values, elt)
    elif isinstance(elt, IntegerType):
        arr = wrap_int(values, dtype)
    else:
        arr = np.asarray(values, dtype=dtype)
    if attr.splat:
        arr = np.broadcast_to(arr.reshape(()) if arr.size == 1 else arr, shape)
    return np.array(arr.reshape(shape), order="C")


def scalar_attr(attr, elt):
    """An IntegerAttr/FloatAttr (a reduce/scan identity) as a 0-d array of element type `elt`."""
    if isinstance(elt, FloatType):
        return float_constant([attr.value], elt).reshape(())
    return wrap_int(attr.value, dtype_of(elt))


def _frozen(a):
    a = np.array(a)
    a.setflags(write=False)
    return a


@compute("cuda_tile.constant")
def _constant(op, cc):
    value = _frozen(dense_array(op.attributes["value"], op.result.type.element_type, op.result.type.shape))
    return lambda: value


@compute("cuda_tile.iota")
def _iota(op, cc):
    t = op.result.type
    dtype = dtype_of(t.element_type)
    value = _frozen(wrap_int(list(range(t.shape[0])), dtype))
    return lambda: value


@compute("cuda_tile.broadcast")
def _broadcast(op, cc):
    shape = op.result.type.shape
    return lambda x: np.broadcast_to(x, shape)


@compute("cuda_tile.reshape")
def _reshape(op, cc):
    shape = op.result.type.shape
    return lambda x: np.reshape(x, shape)


@compute("cuda_tile.permute")
def _permute(op, cc):
    perm = tuple(op.attributes["permutation"].values)
    return lambda x: np.transpose(x, perm)


@compute("cuda_tile.cat")
def _cat(op, cc):
    dim = op.attributes["dim"].value
    return lambda a, b: np.concatenate([a, b], axis=dim)


@compute("cuda_tile.extract")
def _extract(op, cc):
    src_shape = op.operands[0].type.shape
    res_shape = op.result.type.shape

    def fn(src, *indices):
        sl = []
        for d, (i, n, m) in enumerate(zip(indices, res_shape, src_shape)):
            k = int(i)
            if k < 0 or (k + 1) * n > m:
                raise InterpError(op, f"slice index {k} of dimension {d} is out of bounds (the source has "
                                      f"{m // n} slices of {n})")
            sl.append(slice(k * n, (k + 1) * n))
        return np.asarray(src)[tuple(sl)]
    return fn


@compute("cuda_tile.insert")
def _insert(op, cc):
    src_shape = op.operands[0].type.shape
    dst_shape = op.result.type.shape

    def fn(src, dst, *indices):
        sl = []
        for d, (i, n, m) in enumerate(zip(indices, src_shape, dst_shape)):
            k = int(np.asarray(i).astype(np.uint32))   # indices are unsigned
            if (k + 1) * n > m:
                raise InterpError(op, f"slice index {k} of dimension {d} is out of bounds (the destination has "
                                      f"{m // n} slices of {n})")
            sl.append(slice(k * n, (k + 1) * n))
        out = np.array(dst)
        out[tuple(sl)] = src
        return out
    return fn


@compute("cuda_tile.select")
def _select(op, cc):
    dtype = result_dtype(op)
    return lambda c, a, b: np.where(c, a, b).astype(dtype, copy=False)


@compute("cuda_tile.offset")
def _offset(op, cc):
    size = storage_size(op.operands[0].type.element_type.pointee)

    def fn(ptr, off):
        off = np.asarray(off)
        if off.dtype == BOOL:
            off = -off.astype(I64)  # i1 read as signed
        return (np.asarray(ptr, I64) + off.astype(I64) * size).astype(I64)
    return fn


@compute("cuda_tile.get_tile_block_id")
def _block_id(op, cc):
    m = cc.machine
    return lambda: m.block_id_values


@compute("cuda_tile.get_num_tile_blocks")
def _num_blocks(op, cc):
    values = tuple(np.array(g, np.int32) for g in cc.machine.grid)
    return lambda: values


# programmatic dependent launch and the alias fence order nothing here: one
# grid runs at a time and memory has one address per byte
@compute("cuda_tile.make_token", "cuda_tile.join_tokens", "cuda_tile.gdc_wait_tko",
         "cuda_tile.gdc_launch_dependents_tko", "cuda_tile.memory_fence_alias_tko")
def _token(op, cc):
    return lambda *tokens: TOKEN


@compute("cuda_tile.get_global")
def _get_global(op, cc):
    name = op.attributes["name"].root
    alloc = cc.machine.globals.get(name)
    if alloc is None:
        raise InterpError(op, f"refers to unknown global @{name}")
    value = _frozen(np.array(alloc.base, I64))
    return lambda: value


@compute("cuda_tile.alloca")
def _alloca(op, cc):
    elt = op.result.type.element_type.pointee
    nbytes = op.attributes["num_elem"].value * storage_size(elt)
    align = op.attributes["alignment"].value
    mem = cc.machine.memory
    return lambda: np.array(mem.allocate(nbytes, "alloca", align).base, I64)


@compute("cuda_tile.assume")
def _assume(op, cc):
    pred = op.attributes["predicate"]
    kind = type(pred).__name__
    if not cc.machine.check_assumptions or kind not in ("BoundedAttr", "DivByAttr"):
        return lambda v: v

    def fn(v):
        if not isinstance(v, (np.ndarray, np.generic)):
            return v  # a view: nothing cheap to check
        a = np.asarray(v)
        if kind == "BoundedAttr":
            lo, hi = pred.lb, pred.ub
            bad = np.zeros(a.shape, bool)
            if lo is not None:
                bad |= a < lo
            if hi is not None:
                bad |= a > hi
            what = f"bounded<{'?' if lo is None else lo}, {'?' if hi is None else hi}>"
        else:
            if pred.every is not None:
                return v
            bad = (unsigned(a).astype(np.uint64) % np.uint64(pred.divisor)) != 0
            what = f"div_by<{pred.divisor}>"
        if bad.any():
            idx = first_index(bad) if a.ndim else None
            val = a[idx] if idx is not None else a
            where = f" at index {index_text(idx)}" if idx is not None else ""
            raise InterpError(op, f"assumption {what} does not hold{where}: value {int(val)}", idx)
        return v
    return fn


@compute("cuda_tile.print", "cuda_tile.print_tko")
def _print(op, cc):
    fmt = op.attributes["str"].value
    n_args = len(op.operands) - (1 if op.name == "cuda_tile.print_tko" and op.token is not None else 0)
    m = cc.machine
    elts = [v.type.element_type for v in op.operands[:n_args]]

    def fn(*vals):
        m.out.write(format_print(fmt, [np.asarray(v) for v in vals[:n_args]], elts))
        return TOKEN
    return fn


@compute("cuda_tile.assert")
def _assert(op, cc):
    msg = op.attributes["message"].value
    m = cc.machine

    def fn(cond):
        c = np.asarray(cond)
        if c.all():
            return None
        bad = np.argwhere(~c)
        for k, idx in enumerate(bad):
            if k == m.max_assert_reports:
                m.assertion_failed(op, f"assertion failed: {msg} ({len(bad) - k} more failing elements)")
                break
            where = f" at index {index_text(tuple(int(i) for i in idx))}" if c.ndim else ""
            m.assertion_failed(op, f"assertion failed: {msg}{where}")
        return None
    return fn
