"""`tilec run kernel.mlir --kernel NAME --grid X,Y,Z --arg a=a.npy --arg n=128 --out c=c.npy`

Arguments, by kernel parameter name (`a` for `%a`; `arg3` or `3` also work):
  NAME=FILE.npy          a pointer parameter: the array (modified in place by the kernel)
  NAME=FILE.npy@OFFSET   ... starting OFFSET elements into it
  NAME=zeros:SHAPE       a fresh zero array of the pointee type, SHAPE like 64x64
  NAME=NUMBER            a scalar parameter
`--out NAME=FILE.npy` saves a pointer argument's array after the run
(`--out @GLOBAL=FILE.npy` a global's final contents).

A command module (it was tilec/interp/command.py): the interpreter is library
and never imports the command layer.
"""
from __future__ import annotations

import io
import os
import sys

import numpy as np

from .ir.diagnostics import DiagnosticEngine


def _error(msg) -> int:
    print(f"tilec run: error: {msg}", file=sys.stderr)
    return 1


# get_tile_block_id and get_num_tile_blocks are i32
_MAX_GRID = 2 ** 31 - 1


def _parse_grid(text):
    try:
        grid = tuple(int(g) for g in text.split(","))
    except ValueError:
        return None
    if not 1 <= len(grid) <= 3 or any(not 1 <= g <= _MAX_GRID for g in grid):
        return None
    return grid


def _pairs(items, what):
    out = []
    for item in items or ():
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise ValueError(f"{what} '{item}' is not NAME=VALUE")
        out.append((name.lstrip("%"), value))
    return out


def _param_types(entry):
    from .interp.launch import param_names
    block = entry.regions[0].blocks[0]
    return dict(zip(param_names(entry), [a.type for a in block.arguments])), param_names(entry)


def _lookup(name, types, names):
    if name in types:
        return name
    key = name[3:] if name.startswith("arg") else name
    if key.isdigit() and int(key) < len(names):
        return names[int(key)]
    return None


def _is_pointer(t):
    return type(getattr(t, "element_type", None)).__name__ == "PointerType"


def _integer(text, what):
    try:
        return int(text, 0)
    except ValueError:
        raise ValueError(f"{what} '{text}' is not an integer") from None


def _load(path, dtype, pointee):
    """The array in .npy file `path`, which must hold `pointee` elements: the
    kernel reads its bytes as they are, so another dtype would give silent garbage."""
    try:
        arr = np.load(path, allow_pickle=False)
    except OSError as e:
        raise ValueError(f"could not read '{path}': {e.strerror or e}") from None
    except ValueError:       # not a .npy file at all, or one of Python objects
        arr = None
    if not isinstance(arr, np.ndarray) or arr.dtype.hasobject:
        raise ValueError(f"'{path}' is not a .npy file of numbers")
    if arr.dtype.kind == "V" and arr.dtype.itemsize == dtype.itemsize:
        arr = arr.view(dtype)
    # integers are signless: an unsigned array of the width is the same bits
    same_int = arr.dtype.kind in "iub" and dtype.kind in "iub" and arr.dtype.itemsize == dtype.itemsize
    if arr.dtype != dtype and not same_int:
        raise ValueError(f"'{path}' holds {arr.dtype} elements, the parameter points to {pointee} ({dtype})")
    return arr


def _value(name, text, t):
    from .interp.numerics import dtype_of
    elt = getattr(t, "element_type", None)
    if _is_pointer(t):
        dtype = dtype_of(elt.pointee)
        if text.startswith("zeros:"):
            dims = text[6:].split("x")
            if not all(d.isdigit() for d in dims):
                raise ValueError(f"invalid shape '{text[6:]}' in '{text}': expected sizes like 64x64")
            try:
                return np.zeros(tuple(int(d) for d in dims), dtype)
            except (MemoryError, ValueError):
                raise ValueError(f"cannot allocate '{text}' of {elt.pointee.text(True)}") from None
        path, offset = text, 0
        if not os.path.exists(path) and "@" in path:
            path, _, off = path.rpartition("@")
            offset = _integer(off, "element offset")
        arr = _load(path, dtype, elt.pointee.text(True))
        return (arr, offset) if offset else arr
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    try:
        value = int(text, 0)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"'{text}' is not a number") from None
    width = getattr(elt, "width", None)
    if width is not None and not -2 ** (width - 1) <= value < 2 ** width:   # signless: either reading
        raise ValueError(f"{value} does not fit in i{width}")
    return value


def run(args) -> int:
    from .cmdio import output_problem, process_chunk, read_input, write_output
    from .interp.errors import LaunchError
    from .interp.launch import find_kernel, launch
    try:
        text, filename = read_input(args.input)
    except OSError as e:
        return _error(f"could not open input file '{args.input}': {e.strerror}")
    grid = _parse_grid(args.grid)
    if grid is None:
        return _error(f"invalid --grid '{args.grid}': expected X[,Y[,Z]] of integers from 1 to {_MAX_GRID}")
    engine = DiagnosticEngine()
    ops = process_chunk(text, filename, args, engine)
    if engine.diagnostics:
        sys.stderr.write(engine.render() + "\n")
    if ops is None:
        return 1
    try:
        entry, global_ops = find_kernel(ops, args.kernel)
    except LaunchError as e:     # no such entry: not a place in the file
        return _error(e.diagnostics[0].message)
    types, names = _param_types(entry)
    try:
        # every --out is checked before the run, so a typo does not cost the run
        outs = []
        for name, path in _pairs(args.out, "--out"):
            key = None if name.startswith("@") else _lookup(name, types, names)
            if (name[1:] not in {g.sym_name.value for g in global_ops} if name.startswith("@")
                    else key is None or not _is_pointer(types[key])):
                return _error(f"--out {name}: no such pointer argument or global")
            reason = output_problem(path)
            if reason:
                return _error(f"--out {name}: could not write '{path}': {reason}")
            outs.append((name, key, path))
        values = {}
        for name, text_value in _pairs(args.arg, "--arg"):
            key = _lookup(name, types, names)
            if key is None:
                return _error(f"kernel @{entry.sym_name.value} has no parameter '{name}' "
                              f"(parameters: {', '.join(names)})")
            if key in values:   # `n=1 n=2` or `n=1 arg3=2`: which one was meant?
                return _error(f"--arg {name}: parameter '{key}' is given more than once")
            try:
                values[key] = _value(key, text_value, types[key])
            except ValueError as e:
                return _error(f"--arg {name}: {e}")
        result = launch(ops, entry.sym_name.value, grid, values, stdout=sys.stdout)
    except LaunchError as e:
        sys.stdout.flush()
        print(str(e), file=sys.stderr)
        return 1
    except ValueError as e:
        return _error(str(e))
    sys.stdout.flush()
    for name, key, path in outs:
        arr = result.globals[name[1:]] if name.startswith("@") else result.arrays[key]
        data = io.BytesIO()
        np.save(data, arr)      # to bytes, so FILE is written as named (np.save would add .npy)
        if not write_output(path, data.getvalue(), "tilec run"):
            return 1
    return 0
