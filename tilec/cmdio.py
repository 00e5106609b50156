"""The command layer's input and output: read a file or stdin (text or Tile IR
bytecode), split it, parse and verify a chunk for a command's flags, check and
write output files. Every command module imports this; it imports only the
library, so no command module needs another (tilec/driver.py dispatches)."""
from __future__ import annotations

import contextlib
import errno
import os
import re
import sys
import tempfile

SPLIT_MARKER = re.compile(r"^// -----\s*$", re.M)


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


def configure_hints_and_read(args):
    """Apply --Wunsupported-hints / --Werr-hints, then read args.input: (text,
    filename), or None after printing why it could not be opened."""
    if getattr(args, "warn_hints", False) or getattr(args, "error_hints", False):
        from .dialects.cuda_tile.hints import configure
        configure(args.warn_hints, args.error_hints)
    try:
        return read_input(args.input)
    except OSError as e:
        print(f"tilec: error: could not open input file '{args.input}': {e.strerror}", file=sys.stderr)
        return None


def exit_now(code) -> None:
    """Flush the standard streams and leave without tearing the IR down (a big
    module is millions of cyclic objects; see tilec.cli.entry)."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        code = code or 1
    os._exit(int(code or 0))
