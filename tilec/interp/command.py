"""`tilec run kernel.mlir --kernel NAME --grid X,Y,Z --arg a=a.npy --arg n=128 --out c=c.npy`

Arguments, by kernel parameter name (`a` for `%a`; `arg3` or `3` also work):
  NAME=FILE.npy          a pointer parameter: the array (modified in place by the kernel)
  NAME=FILE.npy@OFFSET   ... starting OFFSET elements into it
  NAME=zeros:SHAPE       a fresh zero array of the pointee type, SHAPE like 64x64
  NAME=NUMBER            a scalar parameter
`--out NAME=FILE.npy` saves a pointer argument's array after the run
(`--out @GLOBAL=FILE.npy` a global's final contents).
"""
from __future__ import annotations

import os
import sys

import numpy as np

from ..ir.diagnostics import DiagnosticEngine


def _error(msg) -> int:
    print(f"tilec run: error: {msg}", file=sys.stderr)
    return 1


def _parse_grid(text):
    try:
        grid = tuple(int(g) for g in text.split(","))
    except ValueError:
        return None
    if not 1 <= len(grid) <= 3 or any(g < 1 for g in grid):
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
    from .launch import param_names
    block = entry.regions[0].blocks[0]
    return dict(zip(param_names(entry), [a.type for a in block.arguments])), param_names(entry)


def _lookup(name, types, names):
    if name in types:
        return name
    key = name[3:] if name.startswith("arg") else name
    if key.isdigit() and int(key) < len(names):
        return names[int(key)]
    return None


def _value(name, text, t):
    from .numerics import dtype_of
    elt = getattr(t, "element_type", None)
    if type(elt).__name__ == "PointerType":
        dtype = dtype_of(elt.pointee)
        if text.startswith("zeros:"):
            shape = tuple(int(d) for d in text[6:].split("x") if d)
            return np.zeros(shape, dtype)
        path, offset = text, 0
        if not os.path.exists(path) and "@" in path:
            path, _, off = path.rpartition("@")
            offset = int(off)
        arr = np.load(path, allow_pickle=False)
        if arr.dtype.kind == "V" and arr.dtype.itemsize == dtype.itemsize:
            arr = arr.view(dtype)
        return (arr, offset) if offset else arr
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    try:
        return int(text, 0)
    except ValueError:
        return float(text)


def run(args) -> int:
    from ..driver import process_chunk, read_input
    from .errors import LaunchError
    from .launch import find_kernel, launch
    try:
        text, filename = read_input(args.input)
    except OSError as e:
        return _error(f"could not open input file '{args.input}': {e.strerror}")
    grid = _parse_grid(args.grid)
    if grid is None:
        return _error(f"invalid --grid '{args.grid}': expected X[,Y[,Z]] of positive integers")
    engine = DiagnosticEngine()
    ops = process_chunk(text, filename, args, engine)
    if engine.diagnostics:
        sys.stderr.write(engine.render() + "\n")
    if ops is None:
        return 1
    try:
        entry, _ = find_kernel(ops, args.kernel)
        types, names = _param_types(entry)
        values = {}
        for name, text_value in _pairs(args.arg, "--arg"):
            key = _lookup(name, types, names)
            if key is None:
                return _error(f"kernel @{entry.sym_name.value} has no parameter '{name}' "
                              f"(parameters: {', '.join(names)})")
            try:
                values[key] = _value(key, text_value, types[key])
            except (OSError, ValueError) as e:
                return _error(f"--arg {name}: {e}")
        outs = _pairs(args.out, "--out")
        result = launch(ops, entry.sym_name.value, grid, values, stdout=sys.stdout)
    except LaunchError as e:
        sys.stdout.flush()
        print(str(e), file=sys.stderr)
        return 1
    except ValueError as e:
        return _error(str(e))
    sys.stdout.flush()
    for name, path in outs:
        if name.startswith("@"):
            arr = result.globals.get(name[1:])
        else:
            key = _lookup(name, types, names)
            arr = result.arrays.get(key) if key else None
        if arr is None:
            return _error(f"--out {name}: no such pointer argument or global")
        try:
            np.save(path, arr)
        except OSError as e:
            return _error(f"--out {name}: could not write '{path}': {e.strerror}")
    return 0
