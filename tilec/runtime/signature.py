"""The argument types of a cuda_tile entry, for the launcher: which parameters are
pointers and which NumPy dtype each scalar has, read from the kernel's IR (the
PTX alone cannot tell f16 from bf16 or i16 in a `.b16`)."""
from __future__ import annotations

import numpy as np


def entry_arg_types(module, kernel=None) -> list:
    """One entry per parameter of entry `kernel` of `module` (MLIR text, a parsed
    module or its top-level ops): "ptr" for `tile<ptr<T>>`, else the NumPy dtype
    of the scalar's element type. This is `Kernel.launch`'s `arg_dtypes`."""
    from ..interp.launch import find_kernel
    from ..interp.numerics import dtype_of
    entry, _ = find_kernel(module, kernel)
    out = []
    for a in entry.regions[0].blocks[0].arguments:
        elt = getattr(a.type, "element_type", None)
        if elt is None:
            raise TypeError(f"parameter of type {a.type} cannot be passed")
        out.append("ptr" if type(elt).__name__ == "PointerType" else np.dtype(dtype_of(elt)))
    return out


def convert_scalars(module, args, kernel=None) -> list:
    """`args` with every scalar converted to a NumPy scalar of its parameter's
    exact type, rounded as the interpreter rounds it (floats once to nearest-even,
    integers wrapped), so the GPU and the interpreter see the same bits."""
    from ..interp.launch import find_kernel
    from ..interp.numerics import to_float, wrap_int
    from ..ir.types import FloatType, IntegerType
    entry, _ = find_kernel(module, kernel)
    params = entry.regions[0].blocks[0].arguments
    out = []
    for p, a in zip(params, args):
        elt = getattr(p.type, "element_type", None)
        if isinstance(elt, FloatType):
            a = np.asarray(to_float(np.asarray(a, dtype=np.float64), elt)).reshape(())[()]
        elif isinstance(elt, IntegerType) and not isinstance(a, np.ndarray):
            from ..interp.numerics import dtype_of
            a = np.asarray(wrap_int(int(a), dtype_of(elt))).reshape(())[()]
        out.append(a)
    return out
