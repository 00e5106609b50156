"""cuTile's list-of-arrays argument. cuTile passes a list of arrays as two
parameters: a pointer to a table with one int64 row per array (its address,
then its shape and its strides in elements) and the list's length. A
PointerTable is that table on the host, with the arrays it points to; each
runtime (the interpreter, the GPU launcher, the PTX simulator) places those
arrays first and writes their addresses into column 0 (`place_pointees`)."""
from __future__ import annotations

import numpy as np


class PointerTable(np.ndarray):
    """The table for `arrays` (each C-contiguous, all of one rank); pass it
    and `len(arrays)` where the kernel takes the list."""

    def __new__(cls, arrays):
        arrays = list(arrays)
        if not arrays or any(not isinstance(a, np.ndarray) for a in arrays):
            raise ValueError("a PointerTable takes a non-empty list of NumPy arrays")
        if len({a.ndim for a in arrays}) != 1 or any(not a.flags.c_contiguous for a in arrays):
            raise ValueError("a PointerTable's arrays are C-contiguous and of one rank")
        rows = [[0, *a.shape, *(s // a.itemsize for s in a.strides)] for a in arrays]
        table = np.array(rows, np.int64).view(cls)
        table.pointees = arrays
        return table

    def __array_finalize__(self, obj):
        self.pointees = getattr(obj, "pointees", None)


def place_pointees(table, place) -> None:
    """For a PointerTable: `place(array, index)` -> its address, for each of its
    arrays, written into column 0. Anything else is left alone."""
    pointees = getattr(table, "pointees", None)
    if pointees:
        table[:, 0] = [place(a, i) for i, a in enumerate(pointees)]
