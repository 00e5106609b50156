"""Pass-related flags of `tilec opt` and running what they ask for."""
from __future__ import annotations

import argparse

from . import registry


class _PassFlag(argparse.Action):
    """`--canonicalize`: appends (name, None) to pass_flags, in CLI order."""

    def __call__(self, parser, namespace, values, option_string=None):
        lst = list(getattr(namespace, "pass_flags", None) or [])
        if self.const is None:  # --pass-with-options NAME=OPTIONS (from expand_pass_flags)
            name, _, values = values.partition("=")
            lst.append((name, values))
        else:
            lst.append((self.const, None))
        namespace.pass_flags = lst


class _Once(argparse.Action):
    """A flag that may be given once (mlir-opt refuses a second --pass-pipeline
    rather than silently dropping the first)."""

    def __call__(self, parser, namespace, values, option_string=None):
        if getattr(namespace, self.dest, None) is not None:
            parser.error(f"{option_string} may be given only once")
        setattr(namespace, self.dest, values)


def expand_pass_flags(argv):
    """`--canonicalize=max-iterations=3` -> `--pass-with-options canonicalize=max-iterations=3`
    (argparse cannot give a flag an optional value without eating the input path)."""
    names = set(registry.pass_names())
    out = []
    for a in argv:
        if a.startswith("--") and "=" in a and a[2:].split("=", 1)[0] in names:
            name, opts = a[2:].split("=", 1)
            out += ["--pass-with-options", f"{name}={opts.strip(chr(34) + chr(39))}"]
        else:
            out.append(a)
    return out


def add_pass_options(p):
    p.set_defaults(pass_flags=[])
    p.add_argument("--pass-pipeline", metavar="PIPELINE", action=_Once,
                   help="a textual pipeline, e.g. 'builtin.module(cuda_tile.module(canonicalize))'")
    p.add_argument("--mlir-print-ir-after-all", action="store_true", help="print the IR after every pass (stderr)")
    p.add_argument("--mlir-timing", action="store_true", help="report the time each pass took (stderr)")
    p.add_argument("--mlir-disable-verify-each", "--no-verify-each", dest="no_verify_each", action="store_true",
                   help="do not verify the IR after every pass")
    p.add_argument("--pass-with-options", action=_PassFlag, const=None, dest="pass_flags_opts",
                   help=argparse.SUPPRESS)
    for name in registry.pass_names():
        p.add_argument(f"--{name}", action=_PassFlag, const=name, nargs=0,
                       help=registry.description(name) + f" (options: --{name}='key=value ...')",
                       dest="pass_flags_" + name.replace("-", "_"))


class FlagError(Exception):
    """A bad --arch, --num-stages or --num-warps: the flag's fault, not the pipeline
    text's. (Not a PassError: passes.base is too heavy an import for `tilec --help`.)"""


# top-level `tilec opt` flag (argparse dest) -> {pass name: pass option} it sets
TARGET_FLAGS = {
    "arch": {"lower-to-tileas": "arch", "schedule": "arch"},
    "num_stages": {"schedule": "num-stages"},
    "num_warps": {"schedule": "num-warps"},
}


def add_target_options(p):
    """`--arch`, `--num-stages`, `--num-warps`: defaults for the options of the
    lower-to-tileas and schedule passes in the pipeline (an option written in
    the pipeline or pass flag wins)."""
    p.add_argument("--arch", metavar="ARCH",
                   help="target for lower-to-tileas and schedule: sm_80 or sm_90a")
    p.add_argument("--num-stages", dest="num_stages", type=int, metavar="N",
                   help="pipeline stages for schedule (default: the target's)")
    p.add_argument("--num-warps", dest="num_warps", type=int, metavar="N",
                   help="consumer warps for schedule (default: what tilec compile picks, 4 or 8)")


def _passes_of(nest):
    from .pipeline import Nest
    for item in nest.items:
        if isinstance(item, Nest):
            yield from _passes_of(item)
        else:
            yield item


def apply_target_flags(root, args):
    """Set the options the top-level target flags ask for on every pass of
    `root` they concern, unless the user wrote that option for that pass."""
    flags = {dest: getattr(args, dest, None) for dest in TARGET_FLAGS}
    if all(v is None for v in flags.values()):
        return root
    if flags["arch"] is not None:
        from ..conversion.target import ARCHES
        if flags["arch"] not in ARCHES:
            raise FlagError(f"unknown target '{flags['arch']}' for --arch (known: {', '.join(ARCHES)})")
    for dest, name in (("num_stages", "--num-stages"), ("num_warps", "--num-warps")):
        if flags[dest] is not None and flags[dest] < 1:
            raise FlagError(f"{name} must be at least 1, not {flags[dest]}")
    for p in _passes_of(root):
        for dest, value in flags.items():
            opt = TARGET_FLAGS[dest].get(p.name)
            if value is not None and opt is not None and opt not in getattr(p, "explicit_options", ()):
                p.options[opt] = value
    return root


def default_warps(root, ops, args):
    """A schedule pass that was given no warp count gets the one `tilec compile`
    picks for these ops (compiler.default_num_warps: 8 where the accumulators
    live at once need them), so that `tilec opt --schedule` prints the IR the
    compiler emits."""
    if getattr(args, "num_warps", None) is not None:
        return
    for p in _passes_of(root):
        if p.name == "schedule" and "num-warps" not in getattr(p, "explicit_options", ()):
            from ..compiler import default_num_warps
            arch = p.options.get("arch") or getattr(args, "arch", None) or "sm_90a"
            p.options["num-warps"] = default_num_warps(ops, arch)
            if "auto-warps" not in getattr(p, "explicit_options", ()):
                p.options["auto-warps"] = True      # as compile: the loops' registers may raise it


def wants_passes(args) -> bool:
    return bool(getattr(args, "pass_pipeline", None) or getattr(args, "pass_flags", None))


def build_pipeline(args):
    from .pipeline import Nest, make_pass, parse_options, parse_pipeline
    root = parse_pipeline(args.pass_pipeline) if args.pass_pipeline else Nest("builtin.module")
    for name, opts in args.pass_flags or []:
        root.items.append(make_pass(name, parse_options(opts) if opts else {}))
    return apply_target_flags(root, args)


def run_requested_passes(ops, args, engine):
    """Run the pipeline the flags ask for on `ops`; the new top-level ops, or
    None after reporting a failure."""
    from .base import PassError
    from .manager import PassManager
    try:
        root = build_pipeline(args)
    except (PassError, FlagError) as e:
        engine.error(None, f"invalid pass pipeline: {e}")
        return None
    default_warps(root, ops, args)
    pm = PassManager(root, verify_each=not getattr(args, "no_verify_each", False),
                     print_ir_after_all=args.mlir_print_ir_after_all, timing=args.mlir_timing,
                     generic=getattr(args, "mlir_print_op_generic", False),
                     debuginfo=getattr(args, "mlir_print_debuginfo", False))
    if not pm.run(ops, engine):
        return None
    return pm.result_ops
