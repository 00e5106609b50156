"""Tile IR bytecode: the binary form NVIDIA's cuTile Python emits and
`tileiras` consumes. `read_bytecode` turns a file into a `cuda_tile.module`,
`write_bytecode` does the reverse, for any version 13.1-13.5.

Modules: stream (varints, bounds-checked cursor), format (tags, versions),
optable (per-op layout table), types (type table), attrs (constants and
attributes), debuginfo (debug section), opcodec (instructions), reader,
writer. Malformed input is reported as `FILE: error: at byte 0x..: ...`."""
from __future__ import annotations

from .format import DEFAULT_VERSION, MAGIC, SUPPORTED_VERSIONS, parse_version, version_text  # noqa: F401


def is_bytecode(data) -> bool:
    return bytes(data[:len(MAGIC)]) == MAGIC


def _location(filename, offset):
    """Where in a bytecode file a problem is: it describes itself as the file
    name; the message carries `at byte 0x..`."""
    from ..ir.location import Location

    class _Loc(Location):
        __slots__ = ()

        def describe(self):
            return filename

        def file_line_col(self):
            return None

        def __repr__(self):
            return f"loc({filename!r} at byte {offset})"
    return _Loc()


def read_bytecode(data: bytes, filename: str, engine):
    """Decode `data`; returns [cuda_tile.module] or None after reporting the
    problem to `engine` (never raises on malformed input)."""
    import tilec.dialects  # noqa: F401
    from ..ir import registry
    registry.load_all()
    import gc
    from .reader import read_module
    from .stream import BytecodeError
    # The IR is a web of cyclic references (ops, results, uses); building it
    # with the cycle collector running costs 2-3x. Nothing built here is garbage.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return read_module(data)
    except BytecodeError as e:
        engine.error(_location(filename, e.offset), f"at byte 0x{e.offset:x}: {e.message}")
        return None
    except RecursionError:
        engine.error(_location(filename, 0), "bytecode nests too deeply")
        return None
    finally:
        if gc_was_enabled:
            gc.enable()


def write_bytecode(ops, engine, version=DEFAULT_VERSION, nvidia=False):
    """Encode verified top-level ops (one cuda_tile.module, or its bare entries
    and globals) as bytecode of `version`; None after reporting an error.
    `version` None: the oldest version that holds all of `ops` (see
    write_oldest). `nvidia`: report as NVIDIA's writer (cuda-tile-translate)
    does: name and fused locations are refused, and a type too new for the
    version is reported at no location (by default tilec writes such locations
    as loc(unknown) and reports the type at the op that uses it)."""
    if version is None:
        return write_oldest(ops, engine, nvidia)
    from .opcodec import WriteError
    from .writer import write_module
    try:
        return write_module(ops, tuple(version), strict_locations=nvidia)
    except WriteError as e:
        type_too_new = e.message.startswith("type '") and " requires bytecode version " in e.message
        engine.error(None if nvidia and type_too_new else e.op.location, e.message)
        for op, message in e.remarks:
            engine.emit("remark", op.location, message)
        return None


def write_oldest(ops, engine, nvidia=False):
    """Bytecode of the oldest version that loses nothing of `ops`: 13.1 (what
    every tileiras reads) unless an op, type or attribute needs a newer one, or
    the module names its producer (kept from 13.3). When no version can hold
    `ops`, the newest version's diagnostics are reported."""
    from ..ir.diagnostics import DiagnosticEngine
    from .format import V13_3
    named = any(getattr(op, "name", None) == "cuda_tile.module" and "producer" in op.attributes for op in ops)
    scratch = None
    for version in SUPPORTED_VERSIONS:
        if named and version < V13_3:
            continue
        scratch = DiagnosticEngine()
        data = write_bytecode(ops, scratch, version, nvidia)
        if data is not None:
            return data
    for d in scratch.diagnostics:
        engine.emit(d.severity, d.location, d.message)
    return None
