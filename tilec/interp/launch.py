"""Launching a kernel: bind the arguments, place arrays and globals in memory,
compile the entry's body once, then run it for every tile block of the grid
(x fastest, then y, then z), one block after the other."""
from __future__ import annotations

import sys

import numpy as np

from ..dialects.nv_tileas.attributes import BLOCKS_ARE_CLUSTERS
from ..ir.diagnostics import Diagnostic, DiagnosticEngine
from ..ir.types import FloatType, IntegerType
from . import ops_control, ops_convert, ops_core, ops_float, ops_int, ops_memory, ops_mma, ops_view  # noqa: F401
from .engine import Compiler, run_block
from .errors import InterpError, LaunchError, index_text
from .memory import Memory
from .numerics import dtype_of, to_float, wrap_int
from .registry import RETURN, YIELD


class Machine:
    """What a running kernel sees: memory, grid, current block, output stream."""

    def __init__(self, memory, grid, out, check_assumptions=True, max_loop_iterations=10 ** 8):
        self.memory, self.grid, self.out = memory, grid, out
        self.check_assumptions = check_assumptions
        self.max_loop_iterations = max_loop_iterations
        self.max_assert_reports = 16
        self.globals: dict = {}
        self.failures: list = []
        self.set_block((0, 0, 0))

    def set_block(self, block_id):
        self.block_id = block_id
        self.block_id_values = tuple(np.array(i, np.int32) for i in block_id)

    def assertion_failed(self, op, message):
        self.failures.append(Diagnostic("error", op.location,
                                        f"'{op.name}' op {message} in tile block {_triple(self.block_id)}"))


def _triple(t):
    return "(" + ", ".join(str(i) for i in t) + ")"


class LaunchResult:
    """`arrays`: the host array behind each pointer argument (by parameter name);
    `globals`: the final contents of every `global` (by symbol name)."""

    def __init__(self, arrays, globals_):
        self.arrays, self.globals = arrays, globals_


# ---- finding the kernel -----------------------------------------------------------

def parse_module(text: str, filename: str = "<string>"):
    """Parse and verify `text`; the top-level ops, or LaunchError with the diagnostics."""
    import tilec.dialects  # noqa: F401
    from ..ir import registry
    from ..ir.verifier import verify
    from ..syntax.parser import parse_text
    registry.load_all()
    engine = DiagnosticEngine()
    ops = parse_text(text, engine, filename)
    if ops is None or not all(verify(op, engine) for op in ops):
        raise LaunchError(engine.diagnostics or [Diagnostic("error", None, "could not parse the module")])
    return ops


def _entries(module):
    if isinstance(module, str):
        module = parse_module(module)
    tops = module if isinstance(module, (list, tuple)) else [module]
    found, globals_ = [], []
    for top in tops:
        if top.name == "cuda_tile.entry":
            found.append(top)
            continue
        for region in top.regions:
            for block in region.blocks:
                for op in block.ops:
                    if op.name == "cuda_tile.entry":
                        found.append(op)
                    elif op.name == "cuda_tile.global":
                        globals_.append(op)
    return found, globals_


def find_kernel(module, kernel=None):
    entries, globals_ = _entries(module)
    if not entries:   # "name the kernel" would send the user looking for a name to give
        raise LaunchError([Diagnostic("error", None, "the module has no entry to run")])
    if kernel is None:
        if len(entries) != 1:
            names = ", ".join("@" + e.sym_name.value for e in entries)
            raise LaunchError([Diagnostic("error", None, f"name the kernel to run (entries: {names})")])
        return entries[0], globals_
    name = kernel.lstrip("@")
    for e in entries:
        if e.sym_name.value == name:
            return e, globals_
    names = ", ".join("@" + e.sym_name.value for e in entries)
    raise LaunchError([Diagnostic("error", None, f"no kernel @{name} in the module (entries: {names})")])


def param_names(entry):
    return [(a.name_hint or f"%arg{i}").lstrip("%") for i, a in enumerate(entry.regions[0].blocks[0].arguments)]


# ---- arguments ----------------------------------------------------------------------

def _bind(entry, args, memory, host_arrays, copy_back):
    block = entry.regions[0].blocks[0]
    names = param_names(entry)
    params = block.arguments
    if isinstance(args, dict):
        ordered = []
        keys = {str(k).lstrip("%"): v for k, v in args.items()}
        for i, n in enumerate(names):
            for key in (n, str(i), f"arg{i}"):
                if key in keys:
                    ordered.append(keys.pop(key))
                    break
            else:
                raise LaunchError([Diagnostic("error", entry.location, f"missing kernel argument '{n}'")])
        if keys:
            raise LaunchError([Diagnostic("error", entry.location,
                                          f"unknown kernel argument(s): {', '.join(sorted(keys))}")])
        args = ordered
    args = list(args)
    if len(args) != len(params):
        raise LaunchError([Diagnostic("error", entry.location,
                                      f"kernel @{entry.sym_name.value} takes {len(params)} arguments, "
                                      f"got {len(args)}")])
    env, by_id = {}, {}
    for name, p, a in zip(names, params, args):
        env[p] = _convert_arg(entry, name, p.type, a, memory, by_id, host_arrays, copy_back)
    return env


def _convert_arg(entry, name, t, a, memory, by_id, host_arrays, copy_back):
    def fail(msg):
        raise LaunchError([Diagnostic("error", entry.location, f"argument '{name}': {msg}")])
    elt = getattr(t, "element_type", None)
    if elt is None:
        fail(f"parameters of type {t} cannot be passed")
    if type(elt).__name__ == "PointerType":
        offset = 0
        if isinstance(a, tuple) and len(a) == 2:
            a, offset = a
        if isinstance(a, (int, np.integer)) and not isinstance(a, bool):
            return np.array(int(a), np.int64)
        if not isinstance(a, np.ndarray):
            fail("a pointer parameter takes a NumPy array, (array, element offset) or an address")
        alloc = by_id.get(id(a))
        if alloc is None:
            from ..runtime.pointer_table import place_pointees
            place_pointees(a, lambda x, i: int(_convert_arg(entry, f"{name}[{i}]", t, x, memory, by_id,
                                                            host_arrays, copy_back)))
            host = a
            if not a.flags.c_contiguous or not a.flags.writeable:
                host = np.ascontiguousarray(a).copy()
                if a.flags.writeable:
                    copy_back.append((a, host))
            alloc = memory.add(host, name)
            by_id[id(a)] = alloc
        host_arrays[name] = a
        return np.array(alloc.base + int(offset) * a.dtype.itemsize, np.int64)
    dtype = dtype_of(elt)
    shape = tuple(t.shape)
    if isinstance(elt, FloatType):
        v = to_float(np.asarray(a, dtype=np.float64), elt)
    elif isinstance(elt, IntegerType):
        arr = np.asarray(a)
        if arr.dtype.kind == "f":
            fail(f"expected an integer, got {a!r}")
        v = wrap_int([int(x) for x in arr.reshape(-1)], dtype).reshape(arr.shape) if arr.ndim else \
            wrap_int(int(arr), dtype)
    else:
        fail(f"parameters of type {t} cannot be passed")
    if np.shape(v) != shape:
        try:
            v = np.broadcast_to(v, shape)
        except ValueError:
            fail(f"expected shape {shape}, got {np.shape(v)}")
    return np.asarray(v)


# ---- launch -----------------------------------------------------------------------------

def _grid(grid):
    if isinstance(grid, (int, np.integer)):
        grid = (int(grid),)
    grid = tuple(int(g) for g in grid)
    if not 1 <= len(grid) <= 3 or any(g < 1 for g in grid):
        raise LaunchError([Diagnostic("error", None, f"invalid grid {grid}: 1 to 3 positive extents")])
    return grid + (1,) * (3 - len(grid))


def launch(module, kernel=None, grid=(1, 1, 1), args=(), *, stdout=None, check_assumptions=True,
           max_loop_iterations=10 ** 8, blocks=None) -> LaunchResult:
    """Run entry `kernel` of `module` (a parsed module, its top-level ops, or
    MLIR text) for `grid` tile blocks. `args` is a sequence (in parameter order)
    or a dict (parameter name -> value). Pointer parameters take NumPy arrays
    (modified in place) or (array, element offset) pairs; scalar parameters take
    Python numbers. `print` output goes to `stdout` (default sys.stdout).
    Undefined behaviour, unsupported ops and failed assertions raise LaunchError.
    `blocks`: run only the first that many tile blocks, x fastest (a cut-down
    launch; the others still count in the grid the kernel sees)."""
    entry, global_ops = find_kernel(module, kernel)
    grid = _grid(grid)
    ctas = entry.attributes.get(BLOCKS_ARE_CLUSTERS)
    if ctas is not None:
        # split-tile-blocks' output: each tile block asked for is `ctas` blocks along x
        grid = (grid[0] * ctas.value,) + grid[1:]
    memory = Memory()
    machine = Machine(memory, grid, stdout if stdout is not None else sys.stdout,
                      check_assumptions, max_loop_iterations)
    host_arrays, copy_back = {}, []
    globals_out = {}
    for g in global_ops:
        t = g.attributes["value"].type
        arr = np.array(ops_core.dense_array(g.attributes["value"], t.element_type, t.shape)).reshape(-1)
        align = g.attributes.get("alignment")
        name = g.sym_name.value
        machine.globals[name] = memory.add(arr, "@" + name, align.value if align is not None else 0)
        globals_out[name] = arr
    env0 = _bind(entry, args, memory, host_arrays, copy_back)
    running = False
    try:
        prog = Compiler(machine).block(entry.regions[0].blocks[0])
        running = True
        with np.errstate(all="ignore"):
            for z in range(grid[2]):
                for y in range(grid[1]):
                    for x in range(grid[0]):
                        if blocks is not None and (z * grid[1] + y) * grid[0] + x >= blocks:
                            break
                        machine.set_block((x, y, z))
                        sig = run_block(prog, dict(env0))
                        if sig[0] not in (RETURN, YIELD):
                            raise InterpError(prog.ops[-1], f"kernel body ended with '{sig[0]}'")
    except InterpError as e:
        where = f" at index {index_text(e.index)}" if e.index is not None and "at index" not in e.message else ""
        block = f" in tile block {_triple(machine.block_id)}" if running else ""
        diag = Diagnostic("error", e.op.location if e.op is not None else None,
                          f"'{e.op.name}' op {e.message}{where}{block}")
        raise LaunchError(machine.failures + [diag]) from None
    finally:
        for original, host in copy_back:
            original[...] = host
    if machine.failures:
        raise LaunchError(machine.failures)
    return LaunchResult(host_arrays, globals_out)
