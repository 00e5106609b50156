"""What the CLI commands do: read input, split it, parse, verify, print."""
from __future__ import annotations

import os
import sys

from .cli import SPLIT_MARKER


def read_input(path):
    """(content, display name). Content is the text of a .mlir file, or the
    raw bytes of a Tile IR bytecode file (recognized by its magic number)."""
    if path == "-":
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:  # a text-only stdin (e.g. io.StringIO in tests)
            return sys.stdin.read(), "<stdin>"
        data, name = stream.read(), "<stdin>"
    else:
        with open(path, "rb") as fh:
            data, name = fh.read(), path
    from .bytecode.format import MAGIC
    if data[:len(MAGIC)] == MAGIC:
        return data, name
    return data.decode("utf-8", errors="replace"), name


def split_chunks(text):
    """[(chunk text, line offset)] for --split-input-file."""
    chunks, pos, line = [], 0, 0
    for m in SPLIT_MARKER.finditer(text):
        chunks.append((text[pos:m.start()], line))
        line += text[pos:m.end()].count("\n")
        pos = m.end()
    chunks.append((text[pos:], line))
    return chunks


def process_chunk(text, filename, args, engine, line_offset=0):
    """Parse and verify one chunk; return its top-level ops or None."""
    import tilec.dialects  # noqa: F401  (registers the dialect loaders)
    from .ir.verifier import verify
    from .syntax.parser import parse_text
    if isinstance(text, bytes):
        from .bytecode import read_bytecode
        ops = read_bytecode(text, filename, engine)
    else:
        ops = parse_text(text, engine, filename, args.allow_unregistered_dialect, line_offset)
    if ops is None:
        return None
    for op in ops:
        if not verify(op, engine):
            return None
    return ops


def run_command(args) -> int:
    from .ir.diagnostics import DiagnosticEngine
    if args.command == "run":
        from .interp.command import run
        return run(args)
    if args.command == "compile":
        from .compiler import compile_command
        return compile_command(args)
    if getattr(args, "warn_hints", False) or getattr(args, "error_hints", False):
        from .dialects.cuda_tile.hints import configure
        configure(args.warn_hints, args.error_hints)
    try:
        text, filename = read_input(args.input)
    except OSError as e:
        print(f"tilec: error: could not open input file '{args.input}': {e.strerror}", file=sys.stderr)
        return 1
    chunks = split_chunks(text) if args.split_input_file and isinstance(text, str) else [(text, 0)]
    if getattr(args, "emit_bytecode", False):
        return emit_bytecode(chunks, filename, args)
    if args.verify_diagnostics:
        from .verify_diagnostics import run_verify_diagnostics
        return run_verify_diagnostics(chunks, filename, args)
    outputs, failed = [], False
    for chunk, offset in chunks:
        engine = DiagnosticEngine()
        ops = process_chunk(chunk, filename, args, engine, offset)
        if ops is not None and args.command == "opt":
            from .passes.cli import wants_passes
            if wants_passes(args):
                from .passes.cli import run_requested_passes
                ops = run_requested_passes(ops, args, engine)
        if engine.diagnostics:
            sys.stderr.write(engine.render() + "\n")
        if ops is None:
            failed = True
            continue
        if args.command == "opt":
            from .syntax.printer import print_ops
            outputs.append(print_ops(ops, generic=args.mlir_print_op_generic,
                                     debuginfo=args.mlir_print_debuginfo))
    if args.command == "opt" and not (failed and not args.split_input_file):
        text_out = "// -----\n".join(outputs)
        if args.output == "-":
            sys.stdout.write(text_out)
        elif not failed:
            tmp = args.output + ".tmp"
            with open(tmp, "w") as fh:
                fh.write(text_out)
            os.replace(tmp, args.output)
    return 1 if failed else 0


def emit_bytecode(chunks, filename, args) -> int:
    """`opt --emit-bytecode`: parse and verify, then write Tile IR bytecode."""
    from .bytecode import parse_version, write_bytecode
    from .bytecode.format import supported_range
    from .ir.diagnostics import DiagnosticEngine
    version = parse_version(args.bytecode_version) if args.bytecode_version is not None else None
    if args.bytecode_version is not None and version is None:
        print(f"tilec: error: unsupported bytecode version '{args.bytecode_version}', expected one of "
              f"{supported_range()}", file=sys.stderr)
        return 1
    if args.verify_diagnostics:       # the writer's diagnostics (version limits) are checked too
        from .verify_diagnostics import run_verify_diagnostics
        return run_verify_diagnostics(chunks, filename, args, after=lambda ops, e: write_bytecode(ops, e, version))
    written, failed = [], False
    for text, offset in chunks:      # split input: each chunk is written (or reported) on its own
        engine = DiagnosticEngine()
        ops = process_chunk(text, filename, args, engine, offset)
        data = write_bytecode(ops, engine, version) if ops is not None else None
        if engine.diagnostics:
            sys.stderr.write(engine.render() + "\n")
        failed |= data is None
        written += [data] if data is not None else []
    if failed:
        return 1
    if len(written) != 1:
        print(f"tilec: error: --emit-bytecode writes one module per file, and the split input holds "
              f"{len(written)}", file=sys.stderr)
        return 1
    data = written[0]
    if args.output == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        tmp = args.output + ".tmp"
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, args.output)
    return 0
