"""Text or bytecode in, verified IR out: the first step of every command and
of the library entry points (tilec.compiler, tilec.interp). Library layer: it
imports nothing of the command layer (cli, driver, the per-command modules)."""
from __future__ import annotations


def parse_and_verify(source, filename, engine, allow_unregistered=False, line_offset=0):
    """The top-level ops of `source` (cuda_tile text, or the bytes of Tile IR
    bytecode), parsed and verified; None after reporting to `engine`."""
    import tilec.dialects  # noqa: F401  (registers the dialect loaders)
    from .ir.verifier import verify
    if isinstance(source, (bytes, bytearray)):
        from .bytecode import read_bytecode
        ops = read_bytecode(bytes(source), filename, engine)
    else:
        from .syntax.parser import parse_text
        ops = parse_text(source, engine, filename, allow_unregistered, line_offset)
    if ops is None:
        return None
    for op in ops:
        if not verify(op, engine):
            return None
    return ops
