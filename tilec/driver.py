"""What the CLI commands do: read input, split it, parse, verify, print."""
from __future__ import annotations

import os
import sys

from .cli import SPLIT_MARKER


def read_input(path):
    if path == "-":
        return sys.stdin.read(), "<stdin>"
    with open(path, encoding="utf-8", errors="replace") as fh:
        return fh.read(), path


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
    ops = parse_text(text, engine, filename, args.allow_unregistered_dialect, line_offset)
    if ops is None:
        return None
    for op in ops:
        if not verify(op, engine):
            return None
    return ops


def run_command(args) -> int:
    from .ir.diagnostics import DiagnosticEngine
    try:
        text, filename = read_input(args.input)
    except OSError as e:
        print(f"tilec: error: could not open input file '{args.input}': {e.strerror}", file=sys.stderr)
        return 1
    chunks = split_chunks(text) if args.split_input_file else [(text, 0)]
    if args.verify_diagnostics:
        from .verify_diagnostics import run_verify_diagnostics
        return run_verify_diagnostics(chunks, filename, args)
    outputs, failed = [], False
    for chunk, offset in chunks:
        engine = DiagnosticEngine()
        ops = process_chunk(chunk, filename, args, engine, offset)
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
