"""What the CLI commands do: read input, split it, parse, verify, print."""
from __future__ import annotations

import os
import sys

from .cmdio import (SPLIT_MARKER, InputNotText, output_problem, process_chunk, read_input,  # noqa: F401
                    report_output_problem, split_chunks, write_output)  # (re-exported: tests, tilec-tileiras)
from .cmdio import configure_hints_and_read


def run_command(args) -> int:
    from .ir.diagnostics import DiagnosticEngine
    if args.command == "run":
        from .run_command import run
        return run(args)
    if args.command == "compile":
        return _compile(args)
    if args.command == "translate":
        from .translate import run
        return run(args)
    if args.command == "opt":
        problem = _check_opt_flags(args)
        if problem:
            print(f"tilec opt: error: {problem}", file=sys.stderr)
            return 1
        reason = output_problem(args.output)
        if reason:
            return report_output_problem(args.output, reason)
    got = configure_hints_and_read(args)
    if got is None:
        return 1
    text, filename = got
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
        if (args.output == "-" or not failed) and not write_output(args.output, text_out):
            return 1
    return 1 if failed else 0


def _check_opt_flags(args):
    """What is wrong with `tilec opt`'s pass and bytecode flags, or None; checked
    before reading the input, so a bad flag is reported once, not per chunk."""
    from .passes.base import PassError
    from .passes.cli import FlagError, build_pipeline
    try:
        build_pipeline(args)
    except FlagError as e:
        return str(e)
    except PassError as e:
        return f"invalid pass pipeline: {e}"
    if args.bytecode_version is not None:
        from .bytecode import parse_version
        from .bytecode.format import supported_range
        if parse_version(args.bytecode_version) is None:
            return (f"unsupported bytecode version '{args.bytecode_version}', expected one of "
                    f"{supported_range()}")
    return None


def _compile(args) -> int:
    from .compile_command import compile_command
    out = args.output
    if out is None and args.input != "-":      # compile_command's default: beside the input
        out = os.path.splitext(args.input)[0] + "." + args.emit
    reason = output_problem(out)
    if reason:
        return report_output_problem(out, reason, "tilec compile")
    return compile_command(args)


def emit_bytecode(chunks, filename, args) -> int:
    """`opt --emit-bytecode`: parse and verify, then write Tile IR bytecode."""
    from .bytecode import parse_version, write_bytecode
    from .ir.diagnostics import DiagnosticEngine
    version = parse_version(args.bytecode_version) if args.bytecode_version is not None else None
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
    return 0 if write_output(args.output, written[0]) else 1
