"""What the CLI commands do: read input, split it, parse, verify, print."""
from __future__ import annotations

import contextlib
import errno
import os
import sys
import tempfile

from .cli import SPLIT_MARKER


class InputNotText(OSError):
    """Input that is neither Tile IR bytecode nor UTF-8 text. An OSError so that
    every command's "could not open input file" handler reports it."""


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
    try:
        return data.decode("utf-8"), name
    except UnicodeDecodeError as e:
        # replacing the byte would let strings and comments change silently
        start = data.rfind(b"\n", 0, e.start) + 1
        line, col = data.count(b"\n", 0, e.start) + 1, len(data[start:e.start].decode()) + 1
        raise InputNotText(errno.EILSEQ, f"not UTF-8 text (byte 0x{data[e.start]:02x} at line {line}, "
                                         f"column {col})") from None


def output_problem(path):
    """Why `path` cannot take an output file (an OSError-style reason), or None;
    checked before the work so a bad -o fails fast."""
    if path is None or path == "-":
        return None
    if os.path.isdir(path):
        return os.strerror(errno.EISDIR)
    parent = os.path.dirname(path) or "."
    if not os.path.isdir(parent):
        return os.strerror(errno.ENOTDIR if os.path.exists(parent) else errno.ENOENT)
    return None


def report_output_problem(path, reason, command="tilec") -> int:
    print(f"{command}: error: could not write output file '{path}': {reason}", file=sys.stderr)
    return 1


def write_output(path, data, command="tilec") -> bool:
    """Write `data` (str or bytes) to `path` ('-': stdout); False after saying why.
    A regular file is replaced whole or not at all (written to a temporary beside
    it, then renamed over it); an existing device or pipe (`-o /dev/null`) is
    written in place, as renaming over it would replace it with a file."""
    binary = isinstance(data, bytes)
    if path == "-":
        if binary:
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        else:
            sys.stdout.write(data)
        return True
    target = os.path.realpath(path)   # through a symlink: replace the file it names
    try:
        if os.path.exists(target) and not os.path.isfile(target) and not os.path.isdir(target):
            with open(target, "wb" if binary else "w") as fh:
                fh.write(data)
            return True
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=os.path.basename(target) + ".",
                                   suffix=".tmp")
        try:
            umask = os.umask(0)
            os.umask(umask)
            os.fchmod(fd, 0o666 & ~umask)   # mkstemp's 0600 is not what a new output file gets
            with open(fd, "wb" if binary else "w") as fh:
                fh.write(data)
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.remove(tmp)
            raise
    except OSError as e:
        report_output_problem(path, e.strerror or str(e), command)
        return False
    return True


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
    from .frontend import parse_and_verify
    return parse_and_verify(text, filename, engine, args.allow_unregistered_dialect, line_offset)


def run_command(args) -> int:
    from .ir.diagnostics import DiagnosticEngine
    if args.command == "run":
        from .interp.command import run
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
    from .compiler import compile_command
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
