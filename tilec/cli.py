"""The `tilec` command. Imports are lazy so `tilec --help` stays fast."""
from __future__ import annotations

import argparse
import sys


def _normalize(argv):
    """Accept mlir-opt's single-dash long flags (`-split-input-file`)."""
    out = []
    for a in argv:
        if a.startswith("-") and not a.startswith("--") and len(a) > 2 and a[1].isalpha() and a[:2] != "-o":
            a = "-" + a
        out.append(a)
    return out


def _common(p):
    p.add_argument("input", nargs="?", default="-", help="input file ('-' for stdin)")
    p.add_argument("-o", dest="output", default="-", help="output file (default stdout)")
    p.add_argument("--split-input-file", action="store_true",
                   help="split the input at '// -----' lines and process each chunk alone")
    p.add_argument("--allow-unregistered-dialect", action="store_true",
                   help="accept ops of unknown dialects in generic form")
    p.add_argument("--verify-diagnostics", action="store_true",
                   help="check emitted diagnostics against expected-* comments")
    p.add_argument("--Wunsupported-hints", dest="warn_hints", action="store_true",
                   help="warn about unsupported or invalid optimization hints")
    p.add_argument("--Werr-hints", dest="error_hints", action="store_true",
                   help="treat unsupported or invalid optimization hints as errors")


def _opt_arguments(opt):
    _common(opt)
    opt.add_argument("--mlir-print-op-generic", action="store_true", help="print ops in generic form")
    opt.add_argument("--mlir-print-debuginfo", action="store_true", help="print locations")
    opt.add_argument("--verify-each", action="store_true", default=True, help=argparse.SUPPRESS)
    opt.add_argument("--no-implicit-module", action="store_true",
                     help="accepted for cuda-tile-opt's sake: tilec never adds an implicit module")
    opt.add_argument("--emit-bytecode", action="store_true", help="write Tile IR bytecode instead of text")
    opt.add_argument("--bytecode-version", default=None, metavar="VERSION",
                     help="bytecode version to write, 13.1 to 13.5 (default: the oldest that holds "
                          "the module: 13.1 unless newer features need more)")
    from .passes.cli import add_pass_options, add_target_options
    add_pass_options(opt)
    add_target_options(opt)


def _translate_arguments(tr):
    from .translate import add_arguments
    add_arguments(tr)


def _compile_arguments(comp):
    comp.add_argument("input", help="kernel file: cuda_tile text or Tile IR bytecode ('-' for stdin)")
    comp.add_argument("-o", dest="output", default=None,
                      help="output file (default: the input's name with .ptx/.cubin; '-' for stdout)")
    comp.add_argument("--arch", default="sm_90a", help="target: sm_80, sm_86, sm_89 (Ampere/Ada), sm_90, sm_90a (Hopper; the default), sm_100a, sm_103a (Blackwell, tcgen05), sm_120a, sm_121a (RTX Blackwell)")
    comp.add_argument("--num-warps", dest="num_warps", type=int, default=None,
                      help="warps per CTA (default 4; 8 on sm_80 for MMA accumulators over 64 registers per thread)")
    comp.add_argument("--num-stages", dest="num_stages", type=int, default=None,
                      help="pipeline stages (default: the target's)")
    comp.add_argument("--emit", choices=("ptx", "cubin"), default="ptx",
                      help="ptx (default) or cubin (runs ptxas: $TILEC_PTXAS, PATH, or pip install 'tilec[cubin]')")
    comp.add_argument("--wgmma", dest="wgmma", action="store_const", const=True, default=None,
                      help="sm_90a only: run every dot that fits on wgmma.mma_async (by default those that "
                           "read B in place from a pipeline slot or compute it in registers do)")
    comp.add_argument("--no-wgmma", dest="wgmma", action="store_const", const=False,
                      help="run tensor-core dots on mma.sync only (no wgmma on sm_90a, no tcgen05 on sm_100a)")
    comp.add_argument("--stamps", action="store_true",
                      help="instrument: thread 0 of each CTA writes %%globaltimer into __tilec_stamps_<kernel> "
                           "at its entry, tensor maps claimed/keyed/ready, first pipeline data and exit "
                           "(read with tilec.runtime.stamps)")
    comp.add_argument("--Wunsupported-hints", dest="warn_hints", action="store_true", help=argparse.SUPPRESS)
    comp.add_argument("--Werr-hints", dest="error_hints", action="store_true", help=argparse.SUPPRESS)
    comp.set_defaults(allow_unregistered_dialect=False, split_input_file=False, verify_diagnostics=False)


def _run_arguments(run):
    run.add_argument("input", help="kernel file ('-' for stdin)")
    run.add_argument("--kernel", help="entry to run (default: the module's only entry)")
    run.add_argument("--grid", default="1", help="tile blocks per dimension: X[,Y[,Z]] (default 1)")
    run.add_argument("--arg", action="append", metavar="NAME=VALUE",
                     help="a kernel argument: NAME=file.npy[@OFFSET], NAME=zeros:SHAPE or NAME=NUMBER")
    run.add_argument("--out", action="append", metavar="NAME=FILE",
                     help="save pointer argument NAME (or @GLOBAL) to FILE (.npy) after the run")
    run.set_defaults(allow_unregistered_dialect=False, split_input_file=False, verify_diagnostics=False)


# name, help, what adds its arguments
COMMANDS = (
    ("opt", "parse, verify, run passes and print IR (like mlir-opt)", _opt_arguments),
    ("translate", "text to Tile IR bytecode and back (like cuda-tile-translate)", _translate_arguments),
    ("verify", "parse and verify; report diagnostics", _common),
    ("compile", "compile a kernel to PTX (or a cubin with --emit=cubin)", _compile_arguments),
    ("run", "run a kernel on the CPU with the NumPy reference interpreter", _run_arguments),
)


def build_argparser(command=None):
    """The `tilec` argument parser. With `command` (the subcommand the
    arguments name), only that subcommand's arguments are declared: the others
    are listed by name, which is all a run of one command needs from them."""
    from . import __version__
    ap = argparse.ArgumentParser(prog="tilec", description="A compiler for NVIDIA's CUDA Tile IR.")
    ap.add_argument("--version", action="version", version=f"tilec {__version__}")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_text, add_arguments in COMMANDS:
        p = sub.add_parser(name, help=help_text)
        if command is None or command == name:
            add_arguments(p)
    return ap


def main(argv=None) -> int:
    argv = _normalize(sys.argv[1:] if argv is None else argv)
    from .passes.cli import expand_pass_flags
    argv = expand_pass_flags(argv)
    command = argv[0] if argv and any(argv[0] == name for name, _, _ in COMMANDS) else None
    ap = build_argparser(command)
    args, unknown = ap.parse_known_args(argv)
    if args.command is None:
        ap.print_help()
        return 0
    if unknown:
        bad = [u for u in unknown if u.startswith("-")]
        if bad:
            print(f"tilec {args.command}: error: unknown option '{bad[0]}'", file=sys.stderr)
            return 2
        # a second file would otherwise be dropped without a word
        print(f"tilec {args.command}: error: unexpected argument '{unknown[0]}' "
              f"(one input file per command)", file=sys.stderr)
        return 2
    from .driver import run_command
    import gc
    # IR is many small long-lived objects and no cycles worth chasing while a
    # command runs: the default collector thresholds cost up to half the run.
    gc.set_threshold(200_000, 50, 1000)
    try:
        return run_command(args)
    except RecursionError:
        print("tilec: error: input nests too deeply", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1
    except Exception as e:  # a bug in tilec: say so plainly, never a traceback
        print(f"tilec: internal error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1


def entry() -> None:
    """The `tilec` console script: `main`, then an exit that skips tearing the
    IR down. A big module is millions of cyclic objects; collecting them at
    interpreter shutdown took 1.9 s of a 5 s `tilec verify` of 1 MB of
    bytecode. Output files are closed by then; the standard streams are flushed here.

    Lark imports the third-party `regex` package where one is installed (~7 ms
    of a ~0.1 s compile) and uses it only for `Lark(regex=True)`, which tilec
    never asks for; this process is tilec's own, so it goes without."""
    sys.modules.setdefault("regex", None)
    from .cmdio import exit_now
    exit_now(main())


if __name__ == "__main__":
    entry()
