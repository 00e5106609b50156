"""Pointer-tile memory ops (spec 8.6) and atomics (8.10).

Loads gather and stores scatter through pointer tiles; masked-off lanes are not
accessed (a load gives them the padding value, or 0 without one). Active lanes
outside every allocation are reported as undefined behaviour.

Atomics apply lane by lane in row-major lane order, so lanes of one tile that hit
the same address see each other's updates (as a histogram needs); without such
collisions the whole tile is updated in one NumPy operation.
"""
from __future__ import annotations

import numpy as np

from .numerics import BOOL, F64, dtype_of, to_float, unsigned
from .registry import TOKEN, compute


def _slots(op, cc):
    return cc.operand_slots(op)


def _pick(slot, vals):
    return None if slot is None else vals[slot]


@compute("cuda_tile.load_ptr_tko")
def _load_ptr(op, cc):
    src_s, mask_s, pad_s, _ = _slots(op, cc)
    dtype = dtype_of(op.results[0].type.element_type)
    mem = cc.machine.memory

    def fn(*vals):
        ptr, mask, pad = vals[src_s], _pick(mask_s, vals), _pick(pad_s, vals)
        out = mem.gather(op, ptr, dtype, mask)
        if mask is not None and pad is not None:
            out = np.where(mask, out, pad).astype(dtype, copy=False)
        return out, TOKEN
    return fn


@compute("cuda_tile.store_ptr_tko")
def _store_ptr(op, cc):
    dst_s, val_s, mask_s, _ = _slots(op, cc)
    mem = cc.machine.memory

    def fn(*vals):
        mem.scatter(op, vals[dst_s], vals[val_s], _pick(mask_s, vals))
        return TOKEN
    return fn


def _rmw_function(mode, dtype):
    if mode == "and":
        return np.bitwise_and
    if mode == "or":
        return np.bitwise_or
    if mode == "xor":
        return np.bitwise_xor
    if mode in ("add", "addf"):
        return np.add
    if mode in ("max", "min"):
        if dtype.kind in "iub":
            return np.maximum if mode == "max" else np.minimum
        return np.fmax if mode == "max" else np.fmin
    if mode in ("umax", "umin"):
        pick = np.greater_equal if mode == "umax" else np.less_equal
        return lambda old, v: np.where(pick(unsigned(old), unsigned(v)), old, v)
    if mode == "xchg":
        return lambda old, v: np.broadcast_to(v, np.shape(old))
    raise ValueError(mode)


def _atomic(mem, op, ptrs, values, mask, dtype, update):
    """Apply `update(old, value) -> new` at every active lane; return the old values."""
    shape = np.shape(ptrs)
    itemsize = 1 if dtype == BOOL else dtype.itemsize
    groups = mem.resolve(op, ptrs, itemsize, mask, "access")
    n = int(np.prod(shape, dtype=np.int64))
    flat_vals = [np.broadcast_to(v, shape).reshape(-1) for v in values]
    old_out = np.zeros(n, dtype=dtype)
    for alloc, lanes, idx in groups:
        mem_view = alloc.typed(dtype)
        lanes = np.arange(n) if lanes is None else lanes
        where = idx[lanes]
        if np.unique(where).size == where.size:
            old = mem_view[where]
            if dtype == BOOL:
                old = old != 0
            new = update(old, *[v[lanes] for v in flat_vals])
            mem_view[where] = np.asarray(new).astype(np.uint8) if dtype == BOOL else new
            old_out[lanes] = old
        else:
            for lane, e in zip(lanes, where):
                old = mem_view[e]
                if dtype == BOOL:
                    old = old != 0
                new = update(np.asarray(old), *[np.asarray(v[lane]) for v in flat_vals])
                mem_view[e] = np.asarray(new).astype(np.uint8) if dtype == BOOL else new
                old_out[lane] = old
    return old_out.reshape(shape)


@compute("cuda_tile.atomic_rmw_tko")
def _atomic_rmw(op, cc):
    from ..dialects.cuda_tile.attributes import AtomicRMWModeAttr
    ptr_s, arg_s, mask_s, _ = _slots(op, cc)
    mode = AtomicRMWModeAttr.name_of(op.attributes["mode"])
    dtype = dtype_of(op.results[0].type.element_type)
    f = _rmw_function(mode, dtype)
    mem = cc.machine.memory
    if dtype.kind not in "iub":   # floats: f16/bf16 combine in f64 and round once
        g = f
        elt = op.results[0].type.element_type
        f = (lambda old, v: to_float(np.asarray(g(np.asarray(old).astype(F64), np.asarray(v).astype(F64))), elt)) \
            if dtype.itemsize < 4 else (lambda old, v: np.asarray(g(old, v)).astype(dtype))

    def fn(*vals):
        old = _atomic(mem, op, vals[ptr_s], [vals[arg_s]], _pick(mask_s, vals), dtype, f)
        return old, TOKEN
    return fn


@compute("cuda_tile.atomic_cas_tko")
def _atomic_cas(op, cc):
    ptr_s, cmp_s, val_s, mask_s, _ = _slots(op, cc)
    dtype = dtype_of(op.results[0].type.element_type)
    mem = cc.machine.memory

    def update(old, expected, desired):
        same = unsigned(np.asarray(old, dtype)) == unsigned(np.asarray(expected, dtype))
        return np.where(same, desired, old).astype(dtype)

    def fn(*vals):
        old = _atomic(mem, op, vals[ptr_s], [vals[cmp_s], vals[val_s]], _pick(mask_s, vals), dtype, update)
        return old, TOKEN
    return fn
