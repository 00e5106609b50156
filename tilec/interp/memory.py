"""Simulated global memory: host NumPy arrays (and globals, allocas) placed in a
flat byte address space. A pointer is an i64 byte address; a pointer tile is an
i64 array of them.

Each allocation starts 256-byte aligned and is followed by a gap of at least
256 bytes, so running off the end of one allocation never lands in the next:
every access outside an allocation is detected and reported as the undefined
behaviour it is.
"""
from __future__ import annotations

import bisect

import numpy as np

from .errors import InterpError, first_index, index_text
from .numerics import BOOL

ALIGN = 256
FIRST_ADDRESS = 0x7F0000000000


class Allocation:
    __slots__ = ("base", "nbytes", "raw", "name", "_typed", "host")

    def __init__(self, base, raw, name, host=None):
        self.base, self.raw, self.name, self.host = base, raw, name, host
        self.nbytes = raw.size
        self._typed = {}

    @property
    def end(self):
        return self.base + self.nbytes

    def typed(self, dtype):
        """The allocation as a flat array of `dtype` (i1 is read as bytes)."""
        view = self._typed.get(dtype)
        if view is None:
            store = np.dtype(np.uint8) if dtype == BOOL else dtype
            n = self.nbytes // store.itemsize
            view = self.raw[:n * store.itemsize].view(store)
            self._typed[dtype] = view
        return view


def _load_cast(values, dtype):
    return values != 0 if dtype == BOOL else values


def _store_cast(values, dtype):
    return np.asarray(values).astype(np.uint8) if dtype == BOOL else values


class Memory:
    def __init__(self):
        self.allocs: list[Allocation] = []
        self.bases: list[int] = []
        self.next = FIRST_ADDRESS

    # -- allocation ---------------------------------------------------------
    def add(self, array: np.ndarray, name: str, alignment: int = ALIGN) -> Allocation:
        """Place C-contiguous `array` in memory (shared, not copied)."""
        raw = array.reshape(-1).view(np.uint8) if array.size else np.zeros(0, np.uint8)
        align = max(ALIGN, int(alignment or 0))
        base = -(-self.next // align) * align
        alloc = Allocation(base, raw, name, array)
        self.allocs.append(alloc)
        self.bases.append(base)
        self.next = base + max(raw.size, 1) + ALIGN
        return alloc

    def allocate(self, nbytes: int, name: str, alignment: int = ALIGN) -> Allocation:
        return self.add(np.zeros(nbytes, np.uint8), name, alignment)

    def find(self, address: int):
        k = bisect.bisect_right(self.bases, address) - 1
        if k >= 0:
            a = self.allocs[k]
            if address < a.end:
                return a
        return None

    # -- resolving pointer tiles ------------------------------------------------
    def resolve(self, op, addrs, itemsize, mask=None, what="access"):
        """Group the active lanes of pointer tile `addrs` by allocation.
        Returns [(allocation, lanes or None for all, element indices)] over the
        flattened tile; reports out-of-bounds and misaligned active lanes."""
        addrs = np.asarray(addrs, dtype=np.int64)
        flat = addrs.reshape(-1)
        act = None if mask is None else np.asarray(mask).reshape(-1)
        if act is not None and act.all():
            act = None
        sel = flat if act is None else flat[act]
        if sel.size == 0:
            return []
        lo, hi = int(sel.min()), int(sel.max())
        a = self.find(lo)
        if a is not None and hi + itemsize <= a.end:
            rel = flat - a.base
            if itemsize > 1:
                mis = (rel % itemsize) != 0
                if act is not None:
                    mis &= act
                if mis.any():
                    self._fail(op, what, "misaligned address", mis, addrs)
            idx = rel // itemsize
            return [(a, None if act is None else np.nonzero(act)[0], idx)]
        # slow path: several allocations, or lanes outside every allocation
        bases = np.asarray(self.bases, dtype=np.int64)
        ends = np.asarray([x.end for x in self.allocs], dtype=np.int64)
        k = np.searchsorted(bases, flat, side="right") - 1
        kk = np.clip(k, 0, len(bases) - 1)
        ok = (k >= 0) & (flat + itemsize <= ends[kk]) & (flat >= bases[kk])
        active = np.ones(flat.shape, bool) if act is None else act
        bad = active & ~ok
        if bad.any():
            self._fail(op, what, "out-of-bounds", bad, addrs)
        mis = active & (((flat - bases[kk]) % itemsize) != 0)
        if mis.any():
            self._fail(op, what, "misaligned address", mis, addrs)
        groups = []
        for key in np.unique(kk[active]):
            lanes = np.nonzero(active & (kk == key))[0]
            alloc = self.allocs[int(key)]
            groups.append((alloc, lanes, (flat - alloc.base) // itemsize))
        return groups

    def _fail(self, op, what, kind, bad, addrs):
        bad = np.asarray(bad).reshape(np.shape(addrs)) if np.ndim(addrs) else np.asarray(bad).reshape(())
        idx = first_index(bad) if np.ndim(addrs) else None
        address = int(np.asarray(addrs).reshape(-1)[int(np.argmax(np.asarray(bad).reshape(-1)))])
        where = f" at index {index_text(idx)}" if idx is not None else ""
        near = self.find(address)
        detail = f" (inside '{near.name}')" if near is not None else " (outside every allocation)"
        raise InterpError(op, f"{kind} memory {what}{where}: address 0x{address:x}{detail}", idx)

    # -- gather / scatter -------------------------------------------------------
    def gather(self, op, addrs, dtype, mask=None):
        shape = np.shape(addrs)
        itemsize = 1 if dtype == BOOL else dtype.itemsize
        groups = self.resolve(op, addrs, itemsize, mask, "read")
        if len(groups) == 1 and groups[0][1] is None:
            a, _, idx = groups[0]
            return _load_cast(a.typed(dtype)[idx], dtype).reshape(shape)
        out = np.zeros(int(np.prod(shape, dtype=np.int64)), dtype=dtype)
        for a, lanes, idx in groups:
            out[lanes] = _load_cast(a.typed(dtype)[idx[lanes]], dtype)
        return out.reshape(shape)

    def scatter(self, op, addrs, values, mask=None):
        values = np.asarray(values)
        dtype = values.dtype
        itemsize = 1 if dtype == BOOL else dtype.itemsize
        groups = self.resolve(op, addrs, itemsize, mask, "write")
        flat_vals = np.broadcast_to(values, np.shape(addrs)).reshape(-1)
        for a, lanes, idx in groups:
            if lanes is None:
                a.typed(dtype)[idx] = _store_cast(flat_vals, dtype)
            else:
                a.typed(dtype)[idx[lanes]] = _store_cast(flat_vals[lanes], dtype)

    def region(self, op, base, lo_bytes, hi_bytes, what):
        """The allocation holding bytes [base+lo, base+hi) of a view access."""
        a = self.find(base + lo_bytes)
        if a is None or base + hi_bytes > a.end:
            bad = base + lo_bytes if a is None else base + hi_bytes - 1
            raise InterpError(op, f"out-of-bounds memory {what}: the view's in-bounds elements span "
                                  f"[0x{base + lo_bytes:x}, 0x{base + hi_bytes:x}), which leaves its "
                                  f"allocation (first bad address 0x{bad:x})")
        return a
