"""`tilec compile`: check the flags, read the input, compile it with the
library (tilec.compiler), write PTX or a cubin only on success. A command
module: the library never imports it."""
from __future__ import annotations


def compile_command(args) -> int:
    """`tilec compile`: diagnostics on stderr, output written only on success."""
    import os
    import sys
    from .cmdio import configure_hints_and_read
    from .codegen.ptx.target import Target
    from .compiler import WGMMA_NEEDS_SM90A, CompileFailed, parse_and_compile
    if args.num_warps is not None and (args.num_warps < 1 or args.num_warps & (args.num_warps - 1)
                                       or args.num_warps > 32):
        print(f"tilec compile: error: --num-warps must be a power of two from 1 to 32, got {args.num_warps}",
              file=sys.stderr)
        return 1
    if args.num_stages is not None and args.num_stages < 1:
        print(f"tilec compile: error: --num-stages must be at least 1, got {args.num_stages}", file=sys.stderr)
        return 1
    try:
        Target.parse(args.arch)
    except ValueError as e:
        print(f"tilec compile: error: {e}", file=sys.stderr)
        return 1
    wgmma = getattr(args, "wgmma", None)
    if wgmma is True and args.arch != "sm_90a":
        print(f"tilec compile: error: {WGMMA_NEEDS_SM90A.format(arch=args.arch)}", file=sys.stderr)
        return 1
    got = configure_hints_and_read(args)
    if got is None:
        return 1
    text, filename = got
    try:
        ptx = parse_and_compile(text, filename, args.arch, args.num_warps, args.num_stages, wgmma,
                                on_warnings=sys.stderr.write, stamps=getattr(args, "stamps", False))
    except CompileFailed as e:
        sys.stderr.write(str(e) + "\n")
        return 1
    out = args.output
    if out is None:
        stem = os.path.splitext(args.input)[0] if args.input != "-" else "-"
        out = "-" if stem == "-" else stem + (".ptx" if args.emit == "ptx" else ".cubin")
    if args.emit == "ptx":
        data = ptx.encode()
    else:
        data = _assemble(ptx, args.arch)
        if data is None:
            return 1
    from .cmdio import write_output
    return 0 if write_output(out, data, "tilec compile") else 1


def _assemble(ptx: str, arch: str):
    """Run ptxas on `ptx` (found as tilec/ptxas.py says); the cubin bytes, or None after saying why."""
    import sys
    from .ptxas import MISSING, PtxasError, assemble
    try:
        return assemble(ptx, arch)
    except PtxasError as e:
        if str(e) == MISSING:
            print(f"tilec compile: error: --emit=cubin needs ptxas: {MISSING}; or use --emit=ptx and "
                  f"assemble elsewhere", file=sys.stderr)
        else:
            print(f"tilec compile: error: {e}", file=sys.stderr)
        return None
