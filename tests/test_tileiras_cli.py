"""`tilec-tileiras`: tilec behind tileiras's command line, as cuTile Python
1.7.0 calls it (cuda/tile/_compile.py: compile_cubin, _CompilerBinary.run,
_get_max_supported_bytecode_version, _parse_tileir_stderr). Cubins need ptxas
(tests that make one skip without it); the cuTile flow needs cuda.tile."""
import os
import re
import struct
import subprocess
import sys
import textwrap

import pytest

import tilec
from tilec import tileiras_cli
from tilec.ptxas import find_ptxas

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples")
needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="ptxas not found")

# cuTile 1.7.0's readers of tileiras's stderr (cuda/tile/_compile.py)
LOC_RE_SIMPLE = re.compile(r'loc\("([^"]+)"(?::(\d+):(\d+))?\):\s*error:\s*(.*)', re.I)
ERROR_RE = re.compile(r'^\s*error:\s*(.*)', re.I)

# what cuTile's bc.write_bytecode(num_functions=0, version=13.x) writes: its version probe
CUTILE_EMPTY = bytes.fromhex(
    "7f54696c654952000d040000820108cb00840808cbcbcbcb00cbcbcbcbcbcbcb831108cbcbcbcbcb00cbcbcb00cbcbcb01cbcbcb"
    "0000000000850e0402cbcbcb00000000010000000003810404cbcbcb00cbcbcb00")

DI = """\
#src = #cuda_tile.di_file<"kern.py" in "/work/proj">
#unit = #cuda_tile.di_compile_unit<file = #src>
#sp = #cuda_tile.di_subprogram<linkageName = "bad", name = "bad", file = #src, line = 10, compileUnit = #unit,
                              scopeLine = 11>
#l10 = #cuda_tile.di_loc<loc("/work/proj/kern.py":10:1) in #sp>
#l12 = #cuda_tile.di_loc<loc("/work/proj/kern.py":12:5) in #sp>
#l13 = #cuda_tile.di_loc<loc("/work/proj/kern.py":13:7) in #sp>
"""
# verifies in neither tilec nor tileiras (exti to a narrower type)
NARROWING = DI + """\
cuda_tile.module @kernels {
  entry @bad(%a: tile<ptr<f32>>) {
    %c = constant <i32: 1> : tile<4xi32> loc(#l12)
    %d = exti %c signed : tile<4xi32> -> tile<4xi16> loc(#l13)
    return loc(#l10)
  } loc(#l10)
}
"""


def _bytecode(text, version=(13, 4), verify=True):
    """Tile IR bytecode of cuda_tile `text` (written unverified with verify=False)."""
    import tilec.dialects  # noqa: F401
    from tilec.bytecode import write_bytecode
    from tilec.bytecode.writer import write_module
    from tilec.ir.diagnostics import DiagnosticEngine
    from tilec.syntax.parser import parse_text
    engine = DiagnosticEngine()
    ops = parse_text(text, engine, "k.mlir")
    assert ops is not None, engine.render()
    data = write_bytecode(ops, engine, version) if verify else write_module(ops, version)
    assert data is not None, engine.render()
    return data


def _run(argv, capsys):
    rc = tileiras_cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def _sm(cubin: bytes) -> int:
    assert cubin[:4] == b"\x7fELF"
    return (struct.unpack_from("<I", cubin, 0x30)[0] >> 8) & 0xFF     # e_flags: the SM number


def _static_shared(cubin: bytes, kernel: str) -> int:
    """The size of the cubin's `.nv.shared.<kernel>` section (static shared memory)."""
    shoff, = struct.unpack_from("<Q", cubin, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)
    def header(i):
        name, _type, _flags, _addr, off, size = struct.unpack_from("<IIQQQQ", cubin, shoff + i * shentsize)
        return name, off, size
    strtab = header(shstrndx)[1]
    for i in range(shnum):
        name, _off, size = header(i)
        end = cubin.index(b"\0", strtab + name)
        if cubin[strtab + name:end].decode() == f".nv.shared.{kernel}":
            return size
    return 0


@pytest.fixture(autouse=True)
def _default_error_form(monkeypatch):
    monkeypatch.delenv("TILEC_TILEIRAS_LOC", raising=False)


def test_version_names_tilec(capsys):
    rc, out, err = _run(["--version"], capsys)
    assert rc == 0 and err == ""
    assert out.startswith("tilec-tileiras: ")
    assert f"tilec {tilec.__version__} (sources " in out
    assert "ptxas: " in out


def test_list_versions(capsys):
    rc, out, _ = _run(["--list-versions"], capsys)
    assert rc == 0 and out.split() == ["13.1", "13.2", "13.3", "13.4", "13.5"]


def test_help(capsys):
    rc, out, _ = _run(["--help"], capsys)
    assert rc == 0 and "--gpu-name" in out and "USAGE: tilec-tileiras" in out


@needs_ptxas
@pytest.mark.parametrize("gpu,sm,arch_text", [("sm_80", 80, b"sm_80"), ("sm_86", 86, b"sm_86"),
                                              ("sm_90", 90, b"sm_90a"), ("sm_100", 100, b"sm_100a"),
                                              ("sm_120", 120, b"sm_120a")])
def test_empty_module_is_a_cubin_for_any_named_gpu(gpu, sm, arch_text, tmp_path, capsys):
    """cuTile's version probe: an empty module, compiled for sm_120, must succeed."""
    src, out = tmp_path / "probe.bytecode", tmp_path / "probe.cubin"
    src.write_bytes(CUTILE_EMPTY)
    rc, _, err = _run([src, "-o", out, "--gpu-name", gpu], capsys)
    assert rc == 0, err
    cubin = out.read_bytes()
    assert _sm(cubin) == sm and arch_text in cubin


@needs_ptxas
@pytest.mark.parametrize("version", [(13, 1), (13, 2), (13, 3), (13, 4), (13, 5)])
def test_every_bytecode_version_probes(version, tmp_path, capsys):
    src, out = tmp_path / "probe.bytecode", tmp_path / "probe.cubin"
    src.write_bytes(_bytecode("cuda_tile.module @kernels {\n}\n", version))
    rc, _, err = _run([src, "-o", out, "--gpu-name=sm_120"], capsys)
    assert rc == 0 and out.exists(), err


@needs_ptxas
@pytest.mark.parametrize("gpu,sm,kernel", [
    ("sm_90", 90, "vector_add.mlir"), ("sm_80", 80, "vector_add.mlir"),
    ("sm_90", 90, "cutile/matmul_f16.mlir"), ("sm_80", 80, "cutile/matmul_f16.mlir"),
    ("sm_87", 87, "vector_add.mlir"), ("sm_100", 100, "cutile/matmul_f16.mlir"),
    ("sm_120", 120, "cutile/matmul_f16.mlir"), ("sm_103", 103, "vector_add.mlir")])
def test_kernel_compiles_to_a_cubin(gpu, sm, kernel, tmp_path, capsys):
    from tilec.runtime.ptxinfo import cubin_kernels
    with open(os.path.join(EXAMPLES, kernel)) as fh:
        text = fh.read()
    src, out = tmp_path / "k.bytecode", tmp_path / "k.cubin"
    src.write_bytes(_bytecode(text))
    # what cuTile passes
    rc, _, err = _run([src, "-o", out, "--gpu-name", gpu, "-O3", "--lineinfo"], capsys)
    assert rc == 0, err
    cubin = out.read_bytes()
    assert _sm(cubin) == sm
    if gpu in ("sm_90", "sm_100", "sm_103", "sm_120"):
        assert f"{gpu}a".encode() in cubin        # the arch-specific cubin tileiras writes
    name = re.search(r"entry @(\w+)", text).group(1)
    assert name in cubin_kernels(cubin)


@needs_ptxas
def test_kernels_need_a_gpu_tilec_generates_code_for(tmp_path, capsys):
    with open(os.path.join(EXAMPLES, "vector_add.mlir")) as fh:
        src = tmp_path / "k.bytecode"
        src.write_bytes(_bytecode(fh.read()))
    out = tmp_path / "k.cubin"
    rc, _, err = _run([src, "-o", out, "--gpu-name", "sm_110"], capsys)
    assert rc == 2 and not out.exists()
    assert ERROR_RE.match(err) and "sm_110 is not supported by tilec" in err


def test_invalid_module_reports_the_python_line(tmp_path, capsys):
    src, out = tmp_path / "k.bytecode", tmp_path / "k.cubin"
    src.write_bytes(_bytecode(NARROWING, verify=False))
    rc, _, err = _run([src, "-o", out, "--gpu-name", "sm_90", "-O3", "--lineinfo"], capsys)
    assert rc == 3 and not out.exists()
    first = err.splitlines()[0]
    m = ERROR_RE.match(first)
    assert m and m.group(1) == ("/work/proj/kern.py:13:7: 'cuda_tile.exti' op extending to smaller or "
                                "identical integer")
    assert "Traceback" not in err


def test_located_form_matches_cutiles_loc_regex(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TILEC_TILEIRAS_LOC", "1")
    src, out = tmp_path / "k.bytecode", tmp_path / "k.cubin"
    src.write_bytes(_bytecode(NARROWING, verify=False))
    rc, _, err = _run([src, "-o", out, "--gpu-name", "sm_90"], capsys)
    assert rc == 3 and not out.exists()
    m = LOC_RE_SIMPLE.search(err.splitlines()[0])
    assert m and m.groups()[:3] == ("/work/proj/kern.py", "13", "7")
    assert m.group(4).startswith("'cuda_tile.exti' op extending")


def test_compile_failure_keeps_an_old_output_and_says_so(tmp_path, capsys):
    """fp8 MMA has no sm_80 instruction: exit 5, tileiras's closing line, -o untouched."""
    with open(os.path.join(EXAMPLES, "cutile", "matmul_fp8.mlir")) as fh:
        text = fh.read()
    text = text.replace("tile<32x64xf8E4M3FN>, tile<64x64xf32>",
                        "tile<32x64xf8E4M3FN>, tile<64x64xf32> loc(#l13)")
    text = re.sub(r"(?m)^  }$", "  } loc(#l10)", text)
    src, out = tmp_path / "k.bytecode", tmp_path / "k.cubin"
    src.write_bytes(_bytecode(DI.replace('"bad"', '"matmul_fp8"') + text))
    out.write_bytes(b"old")
    rc, _, err = _run([src, "-o", out, "--gpu-name", "sm_80"], capsys)
    assert rc == 5 and out.read_bytes() == b"old"
    lines = err.splitlines()
    assert lines[0].startswith("error: /work/proj/kern.py:13:7: 'cuda_tile.mmaf' op is not supported on sm_80")
    assert lines[-1] == "error: failed to compile Tile IR program"


def test_unreadable_inputs(tmp_path, capsys):
    rc, _, err = _run([tmp_path / "missing.bc", "-o", tmp_path / "o", "--gpu-name", "sm_90"], capsys)
    assert rc == 1 and ERROR_RE.match(err) and "unable to read input file" in err
    junk = tmp_path / "junk.bc"
    junk.write_bytes(b"\x7fTileIR\x00\x0d\x04\x00\x00\xff\xff")
    rc, _, err = _run([junk, "-o", tmp_path / "o", "--gpu-name", "sm_90"], capsys)
    assert rc == 3 and ERROR_RE.match(err) and not (tmp_path / "o").exists()
    binary = tmp_path / "bin.bc"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    rc, _, err = _run([binary, "-o", tmp_path / "o", "--gpu-name", "sm_90"], capsys)
    assert rc == 3 and err == "error: input does not correspond to Tile IR bytecode\n"


@needs_ptxas
def test_yaml_remarks_file_is_written(tmp_path, capsys):
    src, out, remarks = tmp_path / "p.bytecode", tmp_path / "p.cubin", tmp_path / "p.remarks.yaml"
    src.write_bytes(CUTILE_EMPTY)
    rc, _, err = _run([src, "-o", out, "--gpu-name", "sm_120", "-O3", "--lineinfo", "--remark-format=yaml",
                       "--remarks=all", f"--remarks-output-file={remarks}"], capsys)
    assert rc == 0, err
    assert remarks.read_text() == ""      # an empty YAML stream: tilec makes no remarks (yet)
    # as tileiras: no file without both a YAML format and a remark category
    other = tmp_path / "other.yaml"
    rc, _, _ = _run([src, "-o", out, "--gpu-name", "sm_120", "--remarks=all", f"--remarks-output-file={other}"],
                    capsys)
    assert rc == 0 and not other.exists()


@needs_ptxas
def test_optimization_and_debug_flags_are_accepted(tmp_path, capsys):
    src, out = tmp_path / "k.bytecode", tmp_path / "k.cubin"
    with open(os.path.join(EXAMPLES, "vector_add.mlir")) as fh:
        src.write_bytes(_bytecode(fh.read()))
    for flags in (["-O0", "--device-debug"], ["--opt-level=2", "-g"], ["-O", "1"], ["--preview=simt"],
                  ["--arch", "sm_89", "--host-arch=x86_64", "--host-os=linux"]):
        rc, _, err = _run([src, "-o", out, "--gpu-name=sm_90", *flags], capsys)
        assert rc == 0, (flags, err)


@pytest.mark.parametrize("argv,rc,message", [
    (["--bogus"], 1, "tilec-tileiras: Unknown command line argument '--bogus'."),
    (["a.bc", "b.bc"], 1, "tilec-tileiras: Too many positional arguments specified!"),
    (["a.bc", "--gpu-name", "sm_75"], 1,
     "tilec-tileiras: for the --gpu-name option: Cannot find option named 'sm_75'!"),
    (["a.bc", "--gpu-name"], 1, "tilec-tileiras: for the --gpu-name option: requires a value!"),
    (["a.bc", "--gpu-name=sm_90", "-Ox"], 1, "Unknown command line argument '-Ox'"),
    (["a.bc", "--gpu-name=sm_90", "--opt-level=x"], 1, "'x' value invalid for uint argument"),
    (["a.bc", "--gpu-name=sm_90", "-O4"], 2, "error: invalid optimization level: 4"),
    (["a.bc", "--gpu-name=sm_90", "--preview=foo"], 1, "unknown preview feature 'foo'; supported features: simt"),
    (["a.bc", "--gpu-name=sm_90", "--remarks=some"], 1, "for the --remarks option: Cannot find option named 'some'!"),
    (["a.bc"], 2, "error: no GPU architecture given"),
    (["--gpu-name=sm_90"], 1, "error: no input file provided"),
    (["a.bc", "--gpu-name=sm_90", "-l", "lib.a"], 5, "error: libraries require the 'simt' preview feature"),
    (["a.bc", "--gpu-name=sm_90", "--preview=simt", "-l", "lib.a"], 5, "tile libraries (-l lib.a) are not supported"),
    (["a.bc", "--gpu-name=sm_90", "--sanitize=memcheck"], 2, "error: --sanitize=memcheck is not supported"),
])
def test_command_line_errors(argv, rc, message, capsys):
    got, out, err = _run(argv, capsys)
    assert got == rc and message in err and out == ""


def test_bad_output_path_is_reported_before_work(tmp_path, capsys):
    src = tmp_path / "p.bytecode"
    src.write_bytes(CUTILE_EMPTY)
    rc, _, err = _run([src, "-o", tmp_path / "no" / "dir.cubin", "--gpu-name=sm_90"], capsys)
    assert rc == 1 and err.startswith("error: could not write output file")


def test_internal_error_is_one_line(tmp_path, capsys, monkeypatch):
    src = tmp_path / "p.bytecode"
    src.write_bytes(CUTILE_EMPTY)

    def boom(*a, **k):
        raise ValueError("boom")
    monkeypatch.setattr(tileiras_cli, "_compile", boom)
    rc, _, err = _run([src, "-o", tmp_path / "o", "--gpu-name=sm_90"], capsys)
    assert rc == 5 and err == "error: tilec internal error: ValueError: boom\n"


def test_console_script_never_shows_a_traceback(tmp_path):
    r = subprocess.run([sys.executable, "-m", "tilec.tileiras_cli", "--bogus"], capture_output=True, text=True,
                       cwd=ROOT)
    assert r.returncode == 1 and "Traceback" not in r.stderr and "Unknown command line argument" in r.stderr
    r = subprocess.run([sys.executable, "-m", "tilec.tileiras_cli", "--version"], capture_output=True, text=True,
                       cwd=ROOT)
    assert r.returncode == 0 and r.stdout.startswith("tilec-tileiras: ")


def test_library_does_not_import_the_command():
    r = subprocess.run([sys.executable, "-c", "import sys, tilec.compiler, tilec.ptxas, tilec.driver; "
                        "print('tilec.tileiras_cli' in sys.modules)"], capture_output=True, text=True, cwd=ROOT)
    assert r.stdout.strip() == "False", r.stderr


def _fake_ptxas(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write("#!/bin/sh\nexit 0\n")
    os.chmod(path, 0o755)
    return str(path)


def test_ptxas_lookup_order(tmp_path, monkeypatch):
    """TILEC_PTXAS, then PATH, then the nvidia-cuda-nvcc wheel (nvidia/cu13/bin), then CUDA_HOME/bin."""
    import importlib
    explicit = _fake_ptxas(tmp_path / "explicit" / "ptxas")
    on_path = _fake_ptxas(tmp_path / "path" / "ptxas")
    wheel = _fake_ptxas(tmp_path / "site" / "nvidia" / "cu13" / "bin" / "ptxas")
    home = _fake_ptxas(tmp_path / "home" / "bin" / "ptxas")
    monkeypatch.delitem(sys.modules, "nvidia", raising=False)     # find_spec then searches sys.path again
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    importlib.invalidate_caches()
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TILEC_PTXAS", explicit)
    monkeypatch.setenv("PATH", str(tmp_path / "path"))
    assert find_ptxas() == explicit
    monkeypatch.delenv("TILEC_PTXAS")
    assert find_ptxas() == on_path
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert find_ptxas() == wheel
    os.remove(wheel)
    assert find_ptxas() == home


# ---------------------------------------------------------------------------
# cuTile Python pointed at tilec: `tileiras` on PATH runs tilec-tileiras

CUTILE_FLOW = textwrap.dedent("""\
    import json, os, sys, tempfile
    import cuda.tile as ct
    from cuda.tile import _compile as C
    from cuda.tile.compilation import (ArrayConstraint, CallingConvention, KernelSignature, export_kernel)
    if C._find_pip_tileiras() is not None:
        print(json.dumps({"skip": "nvidia-cuda-tileiras is installed: cuTile would run it"}))
        sys.exit(0)

    def array(dtype, ndim):
        return ArrayConstraint(dtype=dtype, ndim=ndim, index_dtype=ct.int32, stride_lower_bound_incl=0,
                               alias_groups=(), may_alias_internally=False,
                               stride_constant=(None,) * (ndim - 1) + (1,), shape_divisible_by=1,
                               stride_divisible_by=1, base_addr_divisible_by=16)

    @ct.kernel
    def vector_add(a, b, c, TILE: ct.Constant[int]):
        i = ct.bid(0)
        ct.store(c, index=(i,), tile=ct.load(a, index=(i,), shape=(TILE,)) + ct.load(b, index=(i,), shape=(TILE,)))

    @ct.kernel
    def mm(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
        bx, by = ct.bid(0), ct.bid(1)
        acc = ct.full((BM, BN), 0, dtype=ct.float32)
        for k in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
            acc = ct.mma(ct.load(a, index=(bx, k), shape=(BM, BK)), ct.load(b, index=(k, by), shape=(BK, BN)), acc)
        ct.store(c, index=(bx, by), tile=acc)

    def export(kernel, params, name, arch):
        sig = KernelSignature(params, calling_convention=CallingConvention.cutile_python_v1(), symbol=name)
        out = os.path.join(sys.argv[1], f"{name}.{arch}.cubin")
        try:
            export_kernel(kernel, [sig], out, output_format="cubin", gpu_code=arch)
        except C.TileCompilerExecutionError as e:
            return {"error": e.message, "loc_unknown": e.loc.is_unknown()}
        with open(out, "rb") as fh:
            return {"cubin": fh.read()[:4].hex()}

    res = {"compiler": C._find_compiler_bin().path,
           "version": C._get_compiler_version_string(),
           "max_version": C._get_max_supported_bytecode_version(tempfile.mkdtemp()).as_string(),
           "remarks": C._tileiras_supports_remarks(tempfile.mkdtemp())}
    for arch in ("sm_80", "sm_90"):
        res["vector_add." + arch] = export(vector_add, [array(ct.float32, 1)] * 3 + [256], "vector_add", arch)
        res["mm." + arch] = export(mm, [array(ct.float16, 2)] * 2 + [array(ct.float32, 2), 128, 128, 32], "mm", arch)
    res["mm_huge"] = export(mm, [array(ct.float32, 2)] * 3 + [256, 256, 256], "mm_huge", "sm_90")
    print(json.dumps(res))
    """)


@needs_ptxas
def test_cutile_compiles_through_tilec(tmp_path):
    pytest.importorskip("cuda.tile")
    import json
    bindir = tmp_path / "bin"
    bindir.mkdir()
    wrapper = bindir / "tileiras"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH="{ROOT}${{PYTHONPATH:+:$PYTHONPATH}}" exec "{sys.executable}" '
                       f'-m tilec.tileiras_cli "$@"\n')
    wrapper.chmod(0o755)
    script = tmp_path / "flow.py"
    script.write_text(CUTILE_FLOW)
    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}",
               CUDA_TILE_CACHE_DIR=str(tmp_path / "cache"), CUDA_TILE_TEMP_DIR=str(tmp_path / "tmp"))
    env.pop("CUDA_HOME", None)
    r = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True, text=True, env=env,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    res = json.loads(r.stdout.strip().splitlines()[-1])
    if "skip" in res:
        pytest.skip(res["skip"])
    assert res["compiler"] == str(wrapper)
    assert res["version"].startswith("tilec-tileiras: ")
    assert res["max_version"] == "13.4" and res["remarks"] is True     # the newest cuTile 1.7.0 probes
    for key in ("vector_add.sm_80", "vector_add.sm_90", "mm.sm_80", "mm.sm_90"):
        assert res[key] == {"cubin": "7f454c46"}, (key, res[key])
    huge = res["mm_huge"]
    assert huge["loc_unknown"] and "flow.py:" in huge["error"] and "shared memory" in huge["error"]
    assert huge["error"].splitlines()[-1] == "failed to compile Tile IR program"
    assert os.listdir(tmp_path / "cache")           # cubins and their (empty) remarks were cached


@needs_ptxas
@pytest.mark.parametrize("gpu", ["sm_90", "sm_80"])
def test_shared_memory_is_static_for_cutile(gpu, tmp_path, capsys):
    """cuTile launches with no dynamic shared memory (tileiras's cubins hold all of it
    statically): a kernel needing more than 48 KiB gets it statically on sm_90 (ptxas
    takes that for sm_90a), and on sm_80 is compiled to fit 48 KiB (one stage here),
    with a warning. A dynamic array there would be an illegal address at launch."""
    with open(os.path.join(EXAMPLES, "cutile", "matmul_gelu_f16.mlir")) as fh:
        text = fh.read()
    src, out = tmp_path / "k.bytecode", tmp_path / "k.cubin"
    src.write_bytes(_bytecode(text))
    rc, _, err = _run([src, "-o", out, "--gpu-name", gpu], capsys)
    assert rc == 0, err
    size = _static_shared(out.read_bytes(), "matmul_gelu_f16")
    if gpu == "sm_90":
        assert size > 48 * 1024 and err == ""
    else:
        assert 0 < size <= 48 * 1024
        assert "over the 49152 bytes of sm_80; using 1" in err     # the schedule fits the stages to it
