"""`tilec-tileiras`: tilec behind the command line of NVIDIA's `tileiras`, so
cuTile Python (which runs `tileiras BYTECODE -o OUT.cubin --gpu-name sm_XX -O3
--lineinfo ...` for every kernel specialization) can compile with tilec.

    tilec-tileiras kernel.tilebc -o kernel.cubin --gpu-name sm_90 [-O0..3]
        [--lineinfo | --device-debug] [--remark-format=yaml --remarks=all
        --remarks-output-file=F] [--preview=F] [-l LIB] [--version]

Options follow LLVM's command-line conventions as tileiras does (`--opt=value`
or `--opt value`, one or two dashes). Errors are lines cuTile's
`_parse_tileir_stderr` reads: `error: file:line:col: message` (or
`loc("file":line:col): error: message`, see `render`). Exit status as
tileiras: 1 command line or unreadable input file, 2 unsupported
configuration (-O level, GPU), 3 input that is not valid Tile IR bytecode,
5 compilation failed. The output file is written only on success.

The command layer: nothing in the library imports this module. Imports are
lazy so `--version` (cuTile's cache key) answers fast."""
from __future__ import annotations

import os
import sys

PROG = "tilec-tileiras"

# --gpu-name -> (tilec code-generation target, ptxas -arch). The sm_8x parts
# without a tilec target of their own run sm_80 code; every sm_90 part runs
# sm_90a code, and ptxas -arch=sm_90a writes the sm_90a cubin tileiras writes;
# the Blackwell parts likewise run their arch-specific targets' code.
CODEGEN = {
    "sm_80": ("sm_80", "sm_80"), "sm_86": ("sm_86", "sm_86"), "sm_87": ("sm_80", "sm_87"),
    "sm_88": ("sm_80", "sm_88"), "sm_89": ("sm_89", "sm_89"), "sm_90": ("sm_90a", "sm_90a"),
    "sm_100": ("sm_100a", "sm_100a"), "sm_103": ("sm_103a", "sm_103a"),
    "sm_120": ("sm_120a", "sm_120a"), "sm_121": ("sm_121a", "sm_121a"),
}
# the GPUs tileiras names that tilec has no code generator for: an empty module
# (cuTile's version probe) still gets a cubin, assembled for the arch-specific
# target tileiras's cubin has.
EMPTY_ONLY = {"sm_107": "sm_107a", "sm_110": "sm_110a"}
GPU_NAMES = tuple(CODEGEN) + tuple(EMPTY_ONLY)

PREVIEW_FEATURES = ("simt",)
REMARK_FORMATS = ("command-line", "yaml")
REMARK_CATEGORIES = ("none", "all", "memory", "tensorcore")
EXIT_USAGE, EXIT_CONFIG, EXIT_INPUT, EXIT_COMPILE = 1, 2, 3, 5

# option name -> kind. "flag": no value; "value": `--name=V` or `--name V`.
_OPTIONS = {
    "help": "flag", "help-list": "flag", "help-hidden": "flag", "version": "flag", "list-versions": "flag",
    "lineinfo": "flag", "device-debug": "flag", "g": "flag",
    "gpu-name": "value", "arch": "value", "opt-level": "value", "O": "value",
    "output-file": "value", "o": "value", "l": "value", "preview": "value",
    "remark-format": "value", "remarks": "value", "remarks-analysis": "value", "remarks-failed": "value",
    "remarks-missed": "value", "remarks-passed": "value", "remarks-output-file": "value",
    "host-arch": "value", "host-os": "value", "sanitize": "value", "apply-controls": "value",
}
_ALIASES = {"g": "device-debug", "arch": "gpu-name", "O": "opt-level", "o": "output-file",
            "help-list": "help", "help-hidden": "help"}
_CHOICES = {
    "gpu-name": GPU_NAMES, "remark-format": REMARK_FORMATS, "host-arch": ("x86_64", "aarch64"),
    "host-os": ("linux", "windows"), "sanitize": ("memcheck",),
    **{k: REMARK_CATEGORIES for k in ("remarks", "remarks-analysis", "remarks-failed", "remarks-missed",
                                      "remarks-passed")},
}

USAGE = f"""OVERVIEW: {PROG}: tilec (a pure-Python CUDA Tile IR compiler) with the command line of NVIDIA's tileiras

USAGE: {PROG} [options] <tile bytecode file>

OPTIONS:
  --gpu-name=<sm_XX>, --arch     GPU to generate code for: sm_80, sm_86, sm_87, sm_88, sm_89 (Ampere/Ada
                                 code), sm_90 (Hopper, sm_90a code), sm_100, sm_103, sm_120, sm_121
                                 (Blackwell, sm_1XXa code); sm_107, sm_110 for modules without kernels
  -o <file>, --output-file=<file>  output cubin (default elf.o)
  -O<N>, --opt-level=<N>         0..3 (default 3): the ptxas optimization level
  --lineinfo                     ptxas -lineinfo
  --device-debug, -g             accepted; tilec emits no debug information (as --lineinfo)
  --remark-format=<command-line|yaml>, --remarks[-passed|-missed|-failed|-analysis]=<none|all|memory|tensorcore>
  --remarks-output-file=<file>   YAML remarks file (default tileir_remarks.yaml); tilec writes no remarks
  --preview=<feature[,...]>      preview features: simt
  -l <path>                      tile libraries (need the simt preview; tilec cannot link them)
  --list-versions                list the supported bytecode versions and exit
  --version                      display the version of this program
  --help                         display this text

ptxas is looked up as $TILEC_PTXAS, PATH, the nvidia-cuda-nvcc wheel (pip install 'tilec[cubin]'),
$CUDA_HOME/bin, /usr/local/cuda/bin.
"""


class _Usage(Exception):
    """A command-line problem: `str(e)` is the line to print; exit status EXIT_USAGE."""


class Options:
    def __init__(self):
        self.input = None
        self.output = "elf.o"
        self.gpu_name = None
        self.opt_level = 3
        self.lineinfo = False
        self.device_debug = False
        self.preview = []
        self.libraries = []
        self.remark_format = None
        self.remarks = {}
        self.remarks_output_file = "tileir_remarks.yaml"
        self.sanitize = None
        self.apply_controls = None
        self.action = None          # "help", "version", "list-versions"


def parse_args(argv) -> Options:
    """LLVM-style options as tileiras takes them; _Usage on a bad one."""
    o = Options()
    i = 0
    positional_only = False
    while i < len(argv):
        a = argv[i]
        i += 1
        if positional_only or a == "-" or not a.startswith("-"):
            if o.input is not None:
                raise _Usage(f"{PROG}: Too many positional arguments specified!\nCan specify at most 1 "
                             f"positional arguments: See: {PROG} --help")
            o.input = a
            continue
        if a == "--":
            positional_only = True
            continue
        body = a[2:] if a.startswith("--") else a[1:]
        name, eq, value = body.partition("=")
        if name not in _OPTIONS and not eq and len(body) > 1 and body[0] == "O" and body[1:].isdigit():
            name, eq, value = "O", "=", body[1:]          # -O3
        kind = _OPTIONS.get(name)
        if kind is None:
            raise _Usage(f"{PROG}: Unknown command line argument '{a}'.  Try: '{PROG} --help'")
        name = _ALIASES.get(name, name)
        if kind == "flag":
            if eq:
                raise _Usage(f"{PROG}: for the --{name} option: may not be given a value")
            _set_flag(o, name)
            continue
        if not eq:
            if i >= len(argv):
                raise _Usage(f"{PROG}: for the --{name} option: requires a value!")
            value = argv[i]
            i += 1
        _set_value(o, name, value)
    return o


def _set_flag(o, name):
    if name in ("help", "version", "list-versions"):
        o.action = o.action or name
    elif name == "lineinfo":
        o.lineinfo = True
    elif name == "device-debug":
        o.device_debug = True


def _set_value(o, name, value):
    choices = _CHOICES.get(name)
    if choices is not None and value not in choices:
        raise _Usage(f"{PROG}: for the --{name} option: Cannot find option named '{value}'!")
    if name == "gpu-name":
        o.gpu_name = value
    elif name == "opt-level":
        if not value.isdigit():
            raise _Usage(f"{PROG}: for the --opt-level option: '{value}' value invalid for uint argument!")
        o.opt_level = int(value)
    elif name == "output-file":
        o.output = value
    elif name == "l":
        o.libraries.append(value)
    elif name == "preview":
        for feature in value.split(","):
            if feature not in PREVIEW_FEATURES:
                raise _Usage(f"{PROG}: for the --preview option: unknown preview feature '{feature}'; "
                             f"supported features: {', '.join(PREVIEW_FEATURES)}")
            o.preview.append(feature)
    elif name == "remark-format":
        o.remark_format = value
    elif name.startswith("remarks-output-file"):
        o.remarks_output_file = value
    elif name.startswith("remarks"):
        o.remarks[name] = value
    elif name == "sanitize":
        o.sanitize = value
    elif name == "apply-controls":
        o.apply_controls = value
    # host-arch / host-os: the cubin has no host code; checked and ignored


def version_text() -> str:
    """What --version prints (cuTile keys its cubin cache on it): tilec's
    version, a digest of its sources (so an edited tilec misses the cache) and
    the ptxas that assembles the cubins."""
    from . import __version__
    from .ptxas import find_ptxas, ptxas_version
    exe = find_ptxas()
    assembler = f"ptxas: {exe} ({ptxas_version(exe) or 'unknown version'})" if exe else "ptxas: not found"
    return (f"{PROG}: tilec's Cuda Tile IR compiler with the tileiras command line\n"
            f"tilec {__version__} (sources {_source_digest()})\n"
            f"{assembler}\n")


def _source_digest() -> str:
    import hashlib
    root = os.path.dirname(os.path.abspath(__file__))
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for f in sorted(filenames):
            if f.endswith((".py", ".lark")):
                path = os.path.join(dirpath, f)
                h.update(os.path.relpath(path, root).encode() + b"\0")
                try:
                    with open(path, "rb") as fh:
                        h.update(fh.read())
                except OSError:
                    pass
    return h.hexdigest()[:12]


def render(diagnostic, located=None) -> list[str]:
    """`diagnostic` and its notes as lines cuTile's `_parse_tileir_stderr` reads.
    By default `error: FILE:LINE:COL: message` (its ERROR_RE: the message names
    the Python line, the error's location stays unknown). `located` (default:
    $TILEC_TILEIRAS_LOC=1) gives `loc("FILE":LINE:COL): error: message` (its
    LOC_RE_SIMPLE), which cuTile maps to a source location, but cuTile 1.7.0
    cannot print such an error: its format_location needs the location's
    function, which a parsed location has not (str(e) raises AttributeError)."""
    if located is None:
        located = os.environ.get("TILEC_TILEIRAS_LOC", "") not in ("", "0")
    lines = []
    for d in [diagnostic, *diagnostic.notes]:
        flc = d.location.file_line_col()
        if flc and located:
            file = str(flc[0]).replace("\\", "\\\\").replace('"', '\\"')
            lines.append(f'loc("{file}":{flc[1]}:{flc[2]}): {d.severity}: {d.message}')
        else:
            where = d.location.describe()
            where = "" if where == "loc(unknown)" else f"{where}: "
            lines.append(f"{d.severity}: {where}{d.message}")
    return lines


def _report(engine):
    for d in engine.diagnostics:
        sys.stderr.write("\n".join(render(d)) + "\n")


def _error(message, status) -> int:
    sys.stderr.write(f"error: {message}\n")
    return status


def _has_kernels(ops) -> bool:
    for top in ops:
        if top.name == "cuda_tile.module":
            for region in top.regions:
                for block in region.blocks:
                    if any(op.name == "cuda_tile.entry" for op in block.ops):
                        return True
        elif top.name == "cuda_tile.entry":
            return True
    return False


def run(o: Options) -> int:
    if o.action == "help":
        sys.stdout.write(USAGE)
        return 0
    if o.action == "version":
        sys.stdout.write(version_text())
        return 0
    if o.action == "list-versions":
        from .bytecode import SUPPORTED_VERSIONS, version_text as vtext
        sys.stdout.write("".join(vtext(v) + "\n" for v in sorted(SUPPORTED_VERSIONS)))
        return 0
    if o.input is None:
        return _error("no input file provided", EXIT_USAGE)
    if o.opt_level > 3:
        return _error(f"invalid optimization level: {o.opt_level}", EXIT_CONFIG)
    if o.gpu_name is None:
        return _error(f"no GPU architecture given: pass --gpu-name (one of {', '.join(GPU_NAMES)})", EXIT_CONFIG)
    if o.sanitize is not None:
        return _error(f"--sanitize={o.sanitize} is not supported by tilec", EXIT_CONFIG)
    if o.apply_controls is not None:
        return _error("--apply-controls is not supported by tilec (there is no libNVVM to forward it to)",
                      EXIT_CONFIG)
    if o.libraries:
        if "simt" not in o.preview:
            return _error("libraries require the 'simt' preview feature", EXIT_COMPILE)
        return _error(f"tile libraries (-l {o.libraries[0]}) are not supported by tilec: it cannot link them",
                      EXIT_COMPILE)
    from .driver import InputNotText, output_problem, read_input
    outputs = [o.output] + ([o.remarks_output_file] if _wants_yaml_remarks(o) else [])
    for path in outputs:
        reason = output_problem(path)
        if reason:
            return _error(f"could not write output file '{path}': {reason}", EXIT_USAGE)
    try:
        content, filename = read_input(o.input)
    except InputNotText:
        return _error("input does not correspond to Tile IR bytecode", EXIT_INPUT)
    except OSError as e:
        return _error(f"unable to read input file '{o.input}': {e.strerror or e}", EXIT_USAGE)
    if isinstance(content, str) and not content.strip():
        return _error("input does not correspond to Tile IR bytecode", EXIT_INPUT)
    return _compile(o, content, filename)


def _wants_yaml_remarks(o) -> bool:
    return o.remark_format == "yaml" and any(v != "none" for v in o.remarks.values())


def _compile(o, content, filename) -> int:
    from .driver import process_chunk, write_output
    from .ir.diagnostics import DiagnosticEngine

    class _Args:
        allow_unregistered_dialect = False
    engine = DiagnosticEngine()
    ops = process_chunk(content, filename, _Args(), engine)
    if ops is None:
        _report(engine)
        return _error("input is not valid Tile IR: failed to read or verify it", EXIT_INPUT)
    from .ptxas import PtxasError, assemble, empty_module_ptx
    options = [f"-O{o.opt_level}"] + (["-lineinfo"] if o.lineinfo or o.device_debug else [])
    if not _has_kernels(ops):
        arch = CODEGEN[o.gpu_name][1] if o.gpu_name in CODEGEN else EMPTY_ONLY[o.gpu_name]
        ptx = empty_module_ptx(arch)
    elif o.gpu_name not in CODEGEN:
        return _error(f"GPU architecture {o.gpu_name} is not supported by tilec: it generates code for "
                      f"{', '.join(CODEGEN)} (sm_90 as sm_90a, sm_1XX as sm_1XXa); compile for one of those", EXIT_CONFIG)
    else:
        from .compiler import compile_ops
        target, arch = CODEGEN[o.gpu_name]
        # cuTile launches with no dynamic shared memory (tileiras's cubins hold it all statically)
        ptx = compile_ops(ops, engine, target, static_shared=True,
                          reload=lambda: process_chunk(content, filename, _Args(), DiagnosticEngine()))
        _report(engine)
        if ptx is None:
            return _error("failed to compile Tile IR program", EXIT_COMPILE)
    try:
        cubin = assemble(ptx, arch, options)
    except PtxasError as e:
        return _error(str(e), EXIT_COMPILE)
    if _wants_yaml_remarks(o) and not write_output(o.remarks_output_file, "", PROG):
        return EXIT_USAGE
    return 0 if write_output(o.output, cubin, PROG) else EXIT_USAGE


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        o = parse_args(argv)
    except _Usage as e:
        sys.stderr.write(f"{e}\n")
        return EXIT_USAGE
    import gc
    gc.set_threshold(200_000, 50, 1000)     # as `tilec`: the IR is many long-lived objects
    try:
        return run(o)
    except RecursionError:
        return _error("input nests too deeply", EXIT_INPUT)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1
    except Exception as e:  # a bug in tilec: say so plainly, never a traceback
        return _error(f"tilec internal error: {type(e).__name__}: {e}", EXIT_COMPILE)


def entry() -> None:
    """The console script: `main`, then leave without tearing the IR down (see
    `tilec.cli.entry`, also for why the `regex` package stays out)."""
    sys.modules.setdefault("regex", None)
    from .cmdio import exit_now
    exit_now(main())


if __name__ == "__main__":
    entry()
