"""`tilec translate`: NVIDIA's cuda-tile-translate, with its flag names.

    tilec translate -mlir-to-cudatilebc [-bytecode-version=13.x] kernel.mlir -o kernel.tilebc
    tilec translate -cudatilebc-to-mlir kernel.tilebc          # text on stdout
    tilec translate -test-cudatile-roundtrip kernel.mlir       # write, read back, print
    tilec translate --list-versions

`-split-input-file`, `-verify-diagnostics`, `-mlir-print-debuginfo`,
`-allow-unregistered-dialect` and `-no-implicit-module` (tilec never wraps
input in an implicit module) are accepted as cuda-tile-translate accepts them.
The writer reports as NVIDIA's does: name and fused locations are refused, a
type too new for the version is reported at no location. A command module: the
library never imports it."""
from __future__ import annotations

import sys

from .cmdio import output_problem, read_input, report_output_problem, split_chunks, write_output

PROG = "tilec translate"


def add_arguments(p) -> None:
    """cuda-tile-translate's flags on the `translate` subparser."""
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--mlir-to-cudatilebc", dest="mode", action="store_const", const="write",
                      help="cuda_tile text to Tile IR bytecode")
    mode.add_argument("--cudatilebc-to-mlir", dest="mode", action="store_const", const="read",
                      help="Tile IR bytecode to cuda_tile text")
    mode.add_argument("--test-cudatile-roundtrip", dest="mode", action="store_const", const="roundtrip",
                      help="text to bytecode and back; print what was read")
    mode.add_argument("--list-versions", dest="mode", action="store_const", const="list",
                      help="print the bytecode versions that can be written")
    p.add_argument("input", nargs="?", default="-", help="input file ('-' for stdin)")
    p.add_argument("-o", dest="output", default="-", help="output file (default stdout)")
    p.add_argument("--bytecode-version", default=None, metavar="VERSION",
                   help="bytecode version to write (default: the oldest that holds the module)")
    p.add_argument("--no-implicit-module", action="store_true",
                   help="accepted for cuda-tile-translate's sake: tilec never adds an implicit module")
    p.add_argument("--split-input-file", action="store_true",
                   help="split the input at '// -----' lines and translate each chunk alone")
    p.add_argument("--verify-diagnostics", action="store_true",
                   help="check emitted diagnostics against expected-* comments")
    p.add_argument("--mlir-print-debuginfo", action="store_true", help="print locations")
    p.add_argument("--allow-unregistered-dialect", action="store_true",
                   help="accept ops of unknown dialects in generic form")


def _error(message) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 1


def run(args) -> int:
    from .bytecode import SUPPORTED_VERSIONS, parse_version, version_text
    from .bytecode.format import supported_range
    if args.mode == "list":
        sys.stdout.write("".join(version_text(v) + "\n" for v in SUPPORTED_VERSIONS))
        return 0
    if args.mode is None:
        return _error("no translation chosen: give -mlir-to-cudatilebc, -cudatilebc-to-mlir or "
                      "-test-cudatile-roundtrip")
    version = None
    if args.bytecode_version is not None:
        version = parse_version(args.bytecode_version)
        if version is None:    # LLVM's command-line parser's words, as cuda-tile-translate prints them
            print(f"{PROG}: for the --bytecode-version option: Invalid argument '{args.bytecode_version}': "
                  f"the supported versions are {supported_range()}", file=sys.stderr)
            return 1
    reason = output_problem(args.output)
    if reason:
        return report_output_problem(args.output, reason, PROG)
    try:
        data, filename = read_input(args.input)
    except OSError as e:
        return _error(f"could not open input file '{args.input}': {e.strerror}")
    if args.mode == "read" and not isinstance(data, bytes):
        return _error(f"'{filename}' is not Tile IR bytecode (it does not start with the magic number "
                      f"\\x7fTileIR\\x00)")
    chunks = split_chunks(data) if args.split_input_file and isinstance(data, str) else [(data, 0)]
    step = _STEPS[args.mode]
    outputs = []
    if args.verify_diagnostics:
        from .verify_diagnostics import run_verify_diagnostics

        def after(ops, engine):
            out = step(ops, engine, filename, version, args)
            if out is not None:
                outputs.append(out)
        code = run_verify_diagnostics(chunks, filename, args, after=after)
        if code == 0 and outputs and not _write(args.output, outputs):
            return 1
        return code
    from .frontend import parse_and_verify
    from .ir.diagnostics import DiagnosticEngine
    failed = False
    for text, offset in chunks:
        engine = DiagnosticEngine()
        ops = parse_and_verify(text, filename, engine, args.allow_unregistered_dialect, offset)
        out = step(ops, engine, filename, version, args) if ops is not None else None
        if engine.diagnostics:
            sys.stderr.write(engine.render() + "\n")
        if out is None:
            failed = True
            continue
        outputs.append(out)
    # like mlir-translate: what translated is written, chunks joined by the split marker
    if outputs and (not failed or args.output == "-") and not _write(args.output, outputs):
        return 1
    return 1 if failed else 0


def _write(path, outputs) -> bool:
    if isinstance(outputs[0], bytes):
        data = b"// -----\n".join(outputs)
    else:
        data = "// -----\n".join(outputs)
    return write_output(path, data, PROG)


def _write_step(ops, engine, filename, version, args):
    from .bytecode import write_bytecode
    return write_bytecode(ops, engine, version, nvidia=True)


def _print(ops, args):
    from .syntax.printer import print_ops
    return print_ops(ops, debuginfo=args.mlir_print_debuginfo)


def _read_step(ops, engine, filename, version, args):
    return _print(ops, args)     # the frontend read the bytecode; print it


def _roundtrip_step(ops, engine, filename, version, args):
    from .bytecode import read_bytecode, write_bytecode
    data = write_bytecode(ops, engine, version, nvidia=True)
    if data is None:
        return None
    back = read_bytecode(data, filename, engine)
    return _print(back, args) if back is not None else None


_STEPS = {"write": _write_step, "read": _read_step, "roundtrip": _roundtrip_step}
