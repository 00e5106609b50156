"""Every example kernel, compiled by tilec to PTX for sm_80 and for sm_90a, runs on
the GPU and must agree with the reference interpreter on the same inputs.

- test_ptx_abi: the PTX keeps NVIDIA's kernel ABI (one `.visible .entry` named as
  the cuda_tile entry, one `.param` per argument in order, pointers 8 bytes,
  scalars at their width) and states its block size with `.reqntid`.
- test_gpu_matches_interpreter: the arrays the kernel writes (see cases.py for
  the comparisons; racy kernels are checked for the invariants any block order
  keeps).
- test_print_matches_interpreter: device `print` output equals the interpreter's.

A kernel whose compile raises fails (it is not skipped), except where cases.py
records a documented "not supported on <arch>" diagnostic, which is then expected.
sm_80 PTX runs on Hopper too, so both arches run on an H100.
"""
import numpy as np
import pytest

from . import cases

ARCHES = ["sm_80", "sm_90a"]
NUM_WARPS = None  # the compiler's default (launches use the kernel's .reqntid)
KERNEL_TIMEOUT_S = 60      # a kernel that hangs (a spin lock gone wrong) fails instead of blocking the run

_compiled = {}      # (case name, arch) -> PTX text or the exception compile_text raised
_interp = {}        # case name -> (arrays, globals, printed text)


def compile_case(case, arch):
    key = (case.name, arch)
    if key not in _compiled:
        try:
            from tilec.codegen.ptx import compile_text
            _compiled[key] = compile_text(case.text(), arch=arch, num_warps=NUM_WARPS)
        except Exception as e:   # noqa: BLE001 - reported by the tests, per (kernel, arch)
            _compiled[key] = e
    return _compiled[key]


def ptx_or_fail(case, arch):
    """The PTX of `case` for `arch`; a failure if the compile raised (None when the
    compile was refused with the diagnostic cases.py documents for this arch)."""
    res = compile_case(case, arch)
    expected = case.unsupported.get(arch, ())
    if isinstance(res, Exception):
        if any(text in str(res) for text in expected):
            return None
        pytest.fail(f"tilec could not compile {case.path} for {arch}: {type(res).__name__}: {res}",
                    pytrace=False)
    return res


def interpreter_result(case):
    if case.name not in _interp:
        _interp[case.name] = cases.run_interpreter(case, case.build(case.rng()))
    return _interp[case.name]


def entry_symbol(case):
    from tilec.interp import find_kernel, parse_module
    entry, _ = find_kernel(parse_module(case.text(), case.full_path))
    return entry.sym_name.value


def run_on_gpu(case, arch, ptx):
    """Launch `case` on the GPU; (arrays by label, globals by name)."""
    from tilec.runtime import convert_scalars, entry_arg_types, load_ptx
    launch = case.build(case.rng())
    args, memo = cases.copy_args(launch.args)
    text = case.text()
    module = load_ptx(ptx)
    kernel = module.kernel(entry_symbol(case))
    kernel.launch(launch.grid, convert_scalars(text, args), arg_dtypes=entry_arg_types(text),
                  timeout=KERNEL_TIMEOUT_S)
    globals_ = {name: module.read_global(ptx_global(ptx, name), dt) for name, dt in launch.globals_.items()}
    return cases.outputs_of(launch, memo), globals_, launch


def ptx_global(ptx, name):
    """The PTX symbol of cuda_tile global @name: the same name, else the one
    module-scope .global whose name contains it (the emitter may decorate it)."""
    from tilec.runtime import parse_ptx
    names = list(parse_ptx(ptx).globals)
    if name in names:
        return name
    near = [n for n in names if name in n]
    assert len(near) == 1, f"no PTX .global for cuda_tile global @{name} (PTX globals: {names})"
    return near[0]


def test_every_example_has_a_case():
    missing = set(cases.example_files()) - {c.path for c in cases.CASES}
    assert not missing, f"examples without a GPU case in tests/gpu/cases.py: {sorted(missing)}"


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("name", [c.name for c in cases.CASES])
def test_ptx_abi(name, arch):
    from tilec.runtime import entry_arg_types, parse_ptx
    case = cases.BY_NAME[name]
    ptx = ptx_or_fail(case, arch)
    if ptx is None:
        return
    info = parse_ptx(ptx)
    sym = entry_symbol(case)
    assert sym in info.entries, f"no .entry {sym} in the PTX (entries: {list(info.entries)})"
    assert info.target and arch in info.target, f".target is {info.target!r}, expected {arch}"
    entry = info.entries[sym]
    types = entry_arg_types(case.text())
    assert len(entry.params) == len(types), (
        f".entry {sym} has {len(entry.params)} .params, the cuda_tile entry {len(types)} arguments")
    for i, (p, t) in enumerate(zip(entry.params, types)):
        want = 8 if t == "ptr" else t.itemsize
        if t != "ptr" and t == np.bool_:
            continue   # i1: width not fixed by the ABI text
        assert p.size == want, f"argument {i}: .param {p.name} is {p.size} bytes, expected {want} ({t})"
    assert entry.reqntid is not None, f".entry {sym} states no .reqntid"
    threads = entry.reqntid[0] * entry.reqntid[1] * entry.reqntid[2]
    assert 32 <= threads <= 1024 and threads % 32 == 0, f".reqntid {entry.reqntid}"


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("name", [c.name for c in cases.CASES])
def test_gpu_matches_interpreter(name, arch):
    case = cases.BY_NAME[name]
    ptx = ptx_or_fail(case, arch)
    if ptx is None:
        return
    want, want_globals, _ = interpreter_result(case)
    got, got_globals, launch = run_on_gpu(case, arch, ptx)
    cases.compare(case, launch, got, want)
    if launch.check is not None:
        launch.check(want, want_globals)     # the interpreter's outcome is one valid order
        launch.check(got, got_globals)


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("name", [c.name for c in cases.CASES if c.prints])
def test_print_matches_interpreter(name, arch, capfd):
    from tilec.runtime import flush_printf
    case = cases.BY_NAME[name]
    ptx = ptx_or_fail(case, arch)
    if ptx is None:
        return
    _, _, printed = interpreter_result(case)
    capfd.readouterr()
    run_on_gpu(case, arch, ptx)
    flush_printf()
    out, _ = capfd.readouterr()
    assert out == printed, f"device printed {out!r}, the interpreter {printed!r}"
