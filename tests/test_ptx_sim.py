"""tilec's PTX, run in a PTX simulator (tests/ptxsim/), must agree with the
reference interpreter on the same inputs: CI's check of the emitted PTX without
a GPU.

- test_ptxsim_decodes: every example compiles for sm_80, sm_90a, sm_100a
  (tcgen05 and tensor memory) and sm_120a (mma.sync, 99 KiB) and every
  instruction of its PTX is one the simulator supports (a gap fails with
  "unsupported PTX instruction: ...").
- test_sim_matches_interpreter: every example case of tests/gpu/cases.py (the
  GPU test's inputs, grids and comparisons) on each arch; racy kernels are
  checked for the invariants any block order keeps. A wrong result fails.
- test_sim_print_matches_interpreter: vprintf output equals the interpreter's.
- test_sim_*: the simulator's own semantics on small hand-written PTX (MMA
  fragment layout, warp shuffles, barriers, mbarrier parity, deadlock, fault
  and race reports, rounding).

The examples run with ptxsim's race check (check_races=True, tests/ptxsim/hb.py):
a shared-memory access that no barrier, mbarrier or wait orders after a
conflicting one fails the case, whatever numbers the run gave (tests/
test_ptxsim_races.py checks the check).

A kernel whose compile raises fails, except where cases.py records a documented
"not supported on <arch>" diagnostic (as in tests/gpu/test_examples_gpu.py).
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import shutil

import pytest

try:                                   # pytest's default (prepend) import mode puts tests/ on sys.path
    from gpu import cases
except ImportError:                    # pragma: no cover - importlib mode from the repository root
    from tests.gpu import cases
try:
    import ptxsim
except ImportError:                    # pragma: no cover
    from tests import ptxsim

# sm_100a and sm_120a have no GPU here: the simulator is their semantic check (issue 23)
ARCHES = ["sm_80", "sm_90a", "sm_100a", "sm_120a"]
NUM_WARPS = None  # the compiler's default (launches use the kernel's .reqntid)

# Cases whose simulation is too slow for CI: name -> reason (skipped, with the reason). None now:
# the slowest (matmul_f16_tiled, flash_attention_f16) take a few seconds per arch at the GPU
# test's sizes, so no case is shrunk either.
TOO_SLOW: dict = {}

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
    """The PTX of `case` for `arch`; None when the compile was refused with the
    diagnostic cases.py documents for this arch; a failure for any other error."""
    res = compile_case(case, arch)
    if isinstance(res, Exception):
        if any(text in str(res) for text in case.unsupported.get(arch, ())):
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


def ptx_global(result, name):
    """The PTX .global of cuda_tile global @name: the same name, else the one whose
    name contains it (the emitter prefixes `g_`)."""
    if name in result.globals:
        return name
    near = [n for n in result.globals if n.endswith(name)]
    assert len(near) == 1, f"no PTX .global for cuda_tile global @{name} (PTX globals: {list(result.globals)})"
    return near[0]


def run_in_sim(case, ptx):
    """Run `case` in the simulator: (arrays by label, globals by cuda_tile name, printed, launch)."""
    from tilec.runtime import convert_scalars
    launch = case.build(case.rng())
    args, memo = cases.copy_args(launch.args)
    text = case.text()
    res = ptxsim.run_ptx(ptx, entry_symbol(case), launch.grid, convert_scalars(text, args), check_races=True)
    globals_ = {name: res.global_as(ptx_global(res, name), dt) for name, dt in launch.globals_.items()}
    return cases.outputs_of(launch, memo), globals_, res.printed, launch


def _sim_or_skip(name, arch):
    case = cases.BY_NAME[name]
    if name in TOO_SLOW:
        pytest.skip(f"simulation too slow for CI: {TOO_SLOW[name]}")
    return case, ptx_or_fail(case, arch)


# ---- the examples ------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("name", [c.name for c in cases.CASES])
def test_ptxsim_decodes(name, arch):
    case = cases.BY_NAME[name]
    ptx = ptx_or_fail(case, arch)
    if ptx is None:
        return
    prog = ptxsim.load(ptx)
    for entry in prog.module.entries:
        prog.kernel(entry)            # raises UnsupportedPTX naming the instruction and its line


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("name", [c.name for c in cases.CASES])
def test_sim_matches_interpreter(name, arch):
    case, ptx = _sim_or_skip(name, arch)
    if ptx is None:
        return
    want, want_globals, _ = interpreter_result(case)
    got, got_globals, _, launch = run_in_sim(case, ptx)
    try:
        cases.compare(case, launch, got, want)
        problem = None
    except cases.Mismatch as e:
        problem = str(e).replace(" gpu ", " sim ")
    if problem:
        pytest.fail(f"{arch}: the simulated PTX differs from the interpreter: {problem}", pytrace=False)
    if launch.check is not None:
        launch.check(want, want_globals)     # the interpreter's outcome is one valid order
        launch.check(got, got_globals)


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("name", [c.name for c in cases.CASES if c.prints])
def test_sim_print_matches_interpreter(name, arch):
    case, ptx = _sim_or_skip(name, arch)
    if ptx is None:
        return
    _, _, printed = interpreter_result(case)
    _, _, sim_printed, _ = run_in_sim(case, ptx)
    assert sim_printed == printed, f"the simulated PTX printed {sim_printed!r}, the interpreter {printed!r}"


# ---- the simulator itself ----------------------------------------------------------------------

HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"


def _kernel(body, params=".param .u64 p0", threads=32, regs=None, extra=""):
    regs = regs or (".reg .pred %p<8>;\n.reg .b16 %h<8>;\n.reg .b32 %r<40>;\n.reg .b64 %rd<20>;\n"
                    ".reg .f32 %f<16>;\n.reg .f64 %fd<4>;")
    return (HEAD + extra + f".visible .entry k({params})\n.reqntid {threads}, 1, 1\n{{\n{regs}\n{body}\n}}\n")


MMA_PTX = _kernel("""
  ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [pc]; ld.param.u64 %rd10, [pd];
  mov.u32 %r0, %laneid;
  shr.u32 %r1, %r0, 2;             // groupID
  and.b32 %r2, %r0, 3;             // threadID_in_group
  shl.b32 %r3, %r2, 1;
  mad.lo.u32 %r4, %r1, 16, %r3;    // A (16x16, row-major): a0,a1 = A[g][2t..2t+1]
  mul.wide.u32 %rd4, %r4, 2;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.b32 %r10, [%rd5];      // rows g, g+8; cols 2t, 2t+8
  ld.global.b32 %r11, [%rd5+256];
  ld.global.b32 %r12, [%rd5+16];
  ld.global.b32 %r13, [%rd5+272];
  mad.lo.u32 %r5, %r3, 8, %r1;     // B (16x8, row-major): b0 = B[2t][g], b1 = B[2t+1][g], b2/b3 rows + 8
  mul.wide.u32 %rd6, %r5, 2;
  add.s64 %rd7, %rd2, %rd6;
  ld.global.b16 %h0, [%rd7];
  ld.global.b16 %h1, [%rd7+16];
  ld.global.b16 %h2, [%rd7+128];
  ld.global.b16 %h3, [%rd7+144];
  mov.b32 %r14, {%h0, %h1};
  mov.b32 %r15, {%h2, %h3};
  mad.lo.u32 %r6, %r1, 8, %r3;     // C/D (16x8 f32): c0,c1 = C[g][2t..2t+1], c2,c3 row g+8
  mul.wide.u32 %rd8, %r6, 4;
  add.s64 %rd9, %rd3, %rd8;
  ld.global.f32 %f0, [%rd9];
  ld.global.f32 %f1, [%rd9+4];
  ld.global.f32 %f2, [%rd9+256];
  ld.global.f32 %f3, [%rd9+260];
  mma.sync.aligned.m16n8k16.row.col.f32.TYPE.TYPE.f32 {%f4, %f5, %f6, %f7},
      {%r10, %r11, %r12, %r13}, {%r14, %r15}, {%f0, %f1, %f2, %f3};
  add.s64 %rd11, %rd10, %rd8;
  st.global.f32 [%rd11], %f4;
  st.global.f32 [%rd11+4], %f5;
  st.global.f32 [%rd11+256], %f6;
  st.global.f32 [%rd11+260], %f7;
  ret;""", params=".param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd")


@pytest.mark.parametrize("etype", ["f16", "bf16"])
def test_sim_mma_fragment_layout(etype):
    """mma.m16n8k16 with fragments loaded as the PTX ISA's layout figures say."""
    dt = np.float16 if etype == "f16" else ml_dtypes.bfloat16
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((16, 16)).astype(dt), rng.standard_normal((16, 8)).astype(dt)
    c = rng.standard_normal((16, 8)).astype(np.float32)
    d = np.zeros((16, 8), np.float32)
    ptxsim.run_ptx(MMA_PTX.replace("TYPE", etype), "k", 1, [a, b, c, d])
    np.testing.assert_array_equal(d, (a.astype(np.float64) @ b.astype(np.float64) + c).astype(np.float32))


def test_sim_threads_run_until_they_block():
    """Thread 0 runs to its barrier before thread 1 starts: a shared-memory read
    without a barrier sees the poison of unwritten shared memory; with one, the data."""
    body = """
  ld.param.u64 %rd1, [p0];
  mov.u32 %r0, %tid.x;
  mov.u32 %r1, buf;
  mad.lo.u32 %r2, %r0, 4, %r1;
  st.shared.b32 [%r2], %r0;
  BARRIER
  xor.b32 %r3, %r0, 1;
  mad.lo.u32 %r4, %r3, 4, %r1;
  ld.shared.b32 %r5, [%r4];
  mul.wide.u32 %rd2, %r0, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.b32 [%rd3], %r5;
  ret;"""
    extra = ".shared .align 4 .b8 buf[128];\n"
    out = np.zeros(32, np.uint32)
    ptxsim.run_ptx(_kernel(body.replace("BARRIER", "bar.sync 0;"), extra=extra), "k", 1, [out])
    assert out.tolist() == [i ^ 1 for i in range(32)]
    ptxsim.run_ptx(_kernel(body.replace("BARRIER", ""), extra=extra), "k", 1, [out])
    assert out[0] == 0xFFFFFFFF, "thread 0 read its neighbour's slot before it was written"
    assert out[31] == 30
    ptxsim.run_ptx(_kernel(body.replace("BARRIER", ""), extra=extra), "k", 1, [out], thread_order="reverse")
    assert out[31] == 0xFFFFFFFF and out[0] == 1
    # the race check names the unsynchronized pair, whichever value the schedule happened to give
    with pytest.raises(ptxsim.DataRace, match=r"thread 1 writes it \(PTX line 19: st.shared.b32.*after thread 0 "
                                              r"read it \(PTX line 23: ld.shared.b32"):
        ptxsim.run_ptx(_kernel(body.replace("BARRIER", ""), extra=extra), "k", 1, [out], check_races=True)
    res = ptxsim.run_ptx(_kernel(body.replace("BARRIER", "bar.sync 0;"), extra=extra), "k", 1, [out],
                         check_races=True)
    assert res.stats["race_checked"]


def test_sim_named_barrier_and_deadlock():
    body = """
  mov.u32 %r0, %tid.x;
  setp.lt.u32 %p0, %r0, 64;
  @!%p0 bra $L_done;
  bar.sync 1, COUNT;
$L_done:
  ret;"""
    ptxsim.run_ptx(_kernel(body.replace("COUNT", "64"), threads=128), "k", 1, [np.zeros(1)])
    with pytest.raises(ptxsim.Deadlock, match=r"bar.sync 1: 64 threads waiting.*64 of 96 arrived"):
        ptxsim.run_ptx(_kernel(body.replace("COUNT", "96"), threads=128), "k", 1, [np.zeros(1)])


def test_sim_setmaxnreg_moves_registers_through_the_cta_pool():
    """Each thread starts with the kernel's .maxnreg; a .dec gives the surplus to
    the CTA's pool, and an .inc waits until the pool holds what it takes. A
    warpgroup that gives its registers up and takes them back before the other
    has taken its share leaves that one waiting for ever (the simulator runs the
    lower threads first, so it always finds that order); ordering the take-back
    after the other's give-back (a named barrier) runs."""
    body = """
  mov.u32 %r0, %tid.x;
  setp.lt.u32 %p0, %r0, 128;
  @!%p0 bra $L_take;
  setmaxnreg.dec.sync.aligned.u32 64;
  GIVER
  setmaxnreg.inc.sync.aligned.u32 128;
  bra.uni $L_join;
$L_take:
  setmaxnreg.inc.sync.aligned.u32 192;
  setmaxnreg.dec.sync.aligned.u32 128;
  TAKER
$L_join:
  bar.sync 0;
  ret;"""

    def run(giver, taker):
        text = _kernel(body.replace("GIVER", giver).replace("TAKER", taker), threads=256)
        ptxsim.run_ptx(text.replace(".reqntid 256, 1, 1", ".reqntid 256, 1, 1\n.maxnreg 128"), "k", 1,
                       [np.zeros(1)])
    run("bar.sync 1, 256;", "bar.arrive 1, 256;")
    with pytest.raises(ptxsim.Deadlock, match=r"setmaxnreg.inc: 128 threads waiting \(tids 128-255\) for "
                                              r"registers, 0 in the CTA's pool"):
        run("", "")
    with pytest.raises(ptxsim.PTXRuntimeError, match=r"setmaxnreg.inc to 64 registers, from 128"):
        ptxsim.run_ptx(
            _kernel("setmaxnreg.inc.sync.aligned.u32 64;\n  ret;", threads=128).replace(
                ".reqntid 128, 1, 1", ".reqntid 128, 1, 1\n.maxnreg 128"), "k", 1, [np.zeros(1)])


def test_sim_mbarrier_parity():
    """A fresh mbarrier's parity-1 wait succeeds at once; parity 0 waits for `count`
    arrivals. Warp 0 produces (waits on `empty` parity 1, writes, arrives on `full`),
    warp 1 consumes (waits on `full` parity 0)."""
    body = """
  ld.param.u64 %rd1, [p0];
  mov.u32 %r0, %tid.x;
  mov.u32 %r1, bars;
  setp.eq.u32 %p0, %r0, 0;
  @%p0 mbarrier.init.shared.b64 [bars+0], 32;
  @%p0 mbarrier.init.shared.b64 [bars+8], 32;
  bar.sync 0;
  setp.ge.u32 %p1, %r0, 32;
  @%p1 bra $L_consumer;
$L_wait_empty:
  mbarrier.try_wait.parity.shared.b64 %p2, [%r1+8], 1;
  @!%p2 bra $L_wait_empty;
  mov.u32 %r2, data;
  mad.lo.u32 %r3, %r0, 4, %r2;
  add.u32 %r4, %r0, 100;
  st.shared.b32 [%r3], %r4;
  mbarrier.arrive.shared.b64 %rd2, [%r1];
  bra.uni $L_end;
$L_consumer:
  mbarrier.try_wait.parity.shared.b64 %p3, [%r1], 0;
  @!%p3 bra $L_consumer;
  sub.u32 %r5, %r0, 32;
  mov.u32 %r2, data;
  mad.lo.u32 %r3, %r5, 4, %r2;
  ld.shared.b32 %r6, [%r3];
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.b32 [%rd4], %r6;
$L_end:
  ret;"""
    extra = ".shared .align 8 .b8 bars[16];\n.shared .align 4 .b8 data[128];\n"
    out = np.zeros(32, np.int32)
    ptxsim.run_ptx(_kernel(body, threads=64, extra=extra), "k", 1, [out])
    assert out.tolist() == list(range(100, 132))
    # waiting on parity 0 of `empty` (never arrived on) blocks forever: a deadlock, reported
    with pytest.raises(ptxsim.Deadlock, match="mbarrier at shared offset 8"):
        ptxsim.run_ptx(_kernel(body.replace("[%r1+8], 1", "[%r1+8], 0"), threads=64, extra=extra), "k", 1,
                       [out])


def test_sim_faults_and_unsupported():
    body = """
  ld.param.u64 %rd1, [p0];
  ld.global.f32 %f0, [%rd1+OFF];
  st.global.f32 [%rd1], %f0;
  ret;"""
    a = np.arange(4, dtype=np.float32)
    ptxsim.run_ptx(_kernel(body.replace("OFF", "12"), threads=1), "k", 1, [a])
    assert a[0] == 3
    with pytest.raises(ptxsim.MemoryFault, match=r"byte 16 of p0 \(16 bytes\): past its end.*PTX line 15"):
        ptxsim.run_ptx(_kernel(body.replace("OFF", "16"), threads=1), "k", 1, [a])
    with pytest.raises(ptxsim.MemoryFault, match="misaligned"):
        ptxsim.run_ptx(_kernel(body.replace("OFF", "2"), threads=1), "k", 1, [a])
    with pytest.raises(ptxsim.UnsupportedPTX, match=r"unsupported PTX instruction: popc.b32 %r1, %r0"):
        ptxsim.load(_kernel("popc.b32 %r1, %r0;\nret;")).kernel("k")


def test_sim_numerics():
    """Conversions round as their modifiers say; fma rounds once; unordered compares."""
    body = """
  ld.param.u64 %rd1, [p0];
  ld.param.u64 %rd2, [p1];
  mov.u32 %r0, %tid.x;
  mul.wide.u32 %rd3, %r0, 16;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %f0, [%rd4];
  ld.global.f32 %f1, [%rd4+4];
  ld.global.f32 %f2, [%rd4+8];
  fma.rn.f32 %f3, %f0, %f1, %f2;
  cvt.rn.f16.f32 %h0, %f0;
  cvt.rn.bf16.f32 %h1, %f0;
  cvt.rzi.s32.f32 %r1, %f0;
  cvt.rmi.s32.f32 %r2, %f0;
  cvt.rn.satfinite.e4m3x2.f32 %h2, %f0, %f1;
  setp.ltu.f32 %p0, %f0, %f1;
  selp.u32 %r3, 1, 0, %p0;
  mul.wide.u32 %rd5, %r0, 24;
  add.s64 %rd6, %rd2, %rd5;
  st.global.f32 [%rd6], %f3;
  st.global.b16 [%rd6+4], %h0;
  st.global.b16 [%rd6+6], %h1;
  st.global.b32 [%rd6+8], %r1;
  st.global.b32 [%rd6+12], %r2;
  st.global.b16 [%rd6+16], %h2;
  st.global.b32 [%rd6+20], %r3;
  ret;"""
    rng = np.random.default_rng(3)
    n = 64
    x = np.zeros((n, 4), np.float32)
    x[:, :3] = (rng.standard_normal((n, 3)) * 300).astype(np.float32)
    x[0, :3] = [1 + 2.0 ** -23, 1 - 2.0 ** -23, -1.0]    # fma: exact 2^-46 (two roundings give 0)
    x[1, :3] = [np.nan, 1.0, 0.0]
    x[2, :3] = [2.5, -2.5, 0.0]
    x[3, :3] = [1000.0, -1000.0, 0.0]                    # e4m3 satfinite: +-448
    x[4, 0] = np.float32(1 + 2.0 ** -8)                  # a bf16 tie: to even (1.0)
    # a*b + c = 1 + 2^-23 + 2^-24 - 2^-60: just below an f32 midpoint, but on it once rounded to f64
    x[5, :3] = [2.0 ** -12 * (1 + 2.0 ** -18), 2.0 ** -12 * (1 - 2.0 ** -18), 1 + 2.0 ** -23]
    out = np.zeros(n * 24, np.uint8)
    ptxsim.run_ptx(_kernel(body, params=".param .u64 p0, .param .u64 p1", threads=n), "k", 1, [x, out])
    rec = out.reshape(n, 24)
    fma = rec[:, 0:4].copy().view(np.float32)[:, 0]
    want = (x[:, 0].astype(np.float64) * x[:, 1] + x[:, 2]).astype(np.float32)   # exact product in f64
    ok = np.isnan(want)
    ok[5] = True
    np.testing.assert_array_equal(fma[~ok], want[~ok])
    assert fma[0] == np.float32(-2.0 ** -46)
    assert fma[5] == np.float32(1 + 2.0 ** -23) and want[5] == np.float32(1 + 2.0 ** -22)
    assert rec[:, 4:6].copy().view(np.float16)[:, 0][2:].tolist() == x[2:, 0].astype(np.float16).tolist()
    bf = rec[:, 6:8].copy().view(ml_dtypes.bfloat16)[:, 0]
    assert bf[2:].astype(np.float32).tolist() == x[2:, 0].astype(ml_dtypes.bfloat16).astype(np.float32).tolist()
    assert float(bf[4]) == 1.0 and rec[1, 6:8].copy().view(np.uint16)[0] == 0x7FFF
    s = rec[:, 8:16].copy().view(np.int32)
    assert s[1].tolist() == [0, 0]                                   # NaN -> 0
    assert s[2].tolist() == [2, 2] and s[6:, 0].tolist() == np.trunc(x[6:, 0]).astype(np.int32).tolist()
    assert s[6:, 1].tolist() == np.floor(x[6:, 0]).astype(np.int32).tolist()
    f8 = rec[:, 16:18].copy()
    assert f8[3].view(ml_dtypes.float8_e4m3fn).astype(np.float32).tolist() == [-448.0, 448.0]   # lo = b, hi = a
    clipped = np.clip(x[6:, :2], -448, 448)
    assert f8[6:, 1].view(ml_dtypes.float8_e4m3fn).astype(np.float32).tolist() == \
        clipped[:, 0].astype(ml_dtypes.float8_e4m3fn).astype(np.float32).tolist()
    ltu = rec[:, 20:24].copy().view(np.int32)[:, 0]
    assert ltu[1] == 1 and ltu[6:].tolist() == (x[6:, 0] < x[6:, 1]).astype(int).tolist()


def test_sim_shfl_sync():
    """shfl.sync.bfly/down/up/idx.b32 on .b32 and .f32 registers: lane l reads lane
    l ^ 3 (bfly), l + 1 (down, its own past lane 31), l - 2 (up, its own below lane 2),
    lane 5 (idx); a warp's lanes exchange only among themselves (64 threads, two warps)."""
    body = """
  ld.param.u64 %rd1, [p0];
  mov.u32 %r0, %tid.x;
  mul.lo.u32 %r1, %r0, 10;
  cvt.rn.f32.u32 %f0, %r0;
  shfl.sync.bfly.b32 %r2, %r1, 3, 31, -1;
  shfl.sync.down.b32 %r3, %r1, 1, 31, 0xffffffff;
  shfl.sync.up.b32 %r4, %r1, 2, 0, -1;
  mov.u32 %r5, 5;
  shfl.sync.idx.b32 %r6, %r1, %r5, 31, -1;
  shfl.sync.bfly.b32 %f1, %f0, 16, 31, -1;
  mul.wide.u32 %rd2, %r0, 20;
  add.s64 %rd3, %rd1, %rd2;
  st.global.b32 [%rd3], %r2;
  st.global.b32 [%rd3+4], %r3;
  st.global.b32 [%rd3+8], %r4;
  st.global.b32 [%rd3+12], %r6;
  st.global.f32 [%rd3+16], %f1;
  ret;"""
    out = np.zeros((64, 5), np.int32)
    ptxsim.run_ptx(_kernel(body, threads=64), "k", 1, [out])
    t = np.arange(64)
    lane, warp = t % 32, t // 32 * 32
    assert out[:, 0].tolist() == ((warp + (lane ^ 3)) * 10).tolist()
    assert out[:, 1].tolist() == ((warp + np.where(lane < 31, lane + 1, lane)) * 10).tolist()
    assert out[:, 2].tolist() == ((warp + np.where(lane >= 2, lane - 2, lane)) * 10).tolist()
    assert out[:, 3].tolist() == ((warp + 5) * 10).tolist()
    assert out[:, 4].copy().view(np.float32).tolist() == (warp + (lane ^ 16)).astype(np.float32).tolist()
    # every lane of the warp must be in membermask
    with pytest.raises(ptxsim.PTXRuntimeError, match="membermask"):
        ptxsim.run_ptx(_kernel(body.replace("31, 0xffffffff", "31, 0xffff"), threads=64), "k", 1, [out])


def test_sim_memory_forms():
    """Vector ld/st, kernel-scope .shared, generic addresses, atomics, module .global."""
    body = """
  .shared .align 16 .b8 tile[512];
  ld.param.u64 %rd1, [p0];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r0, %tid.x;
  mul.wide.u32 %rd3, %r0, 16;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.nc.v4.f32 {%f0, %f1, %f2, %f3}, [%rd4];
  mov.u32 %r1, tile;
  mad.lo.u32 %r2, %r0, 16, %r1;
  st.shared.v4.f32 [%r2], {%f3, %f2, %f1, %f0};
  bar.sync 0;
  xor.b32 %r3, %r0, 31;
  mad.lo.u32 %r4, %r3, 16, %r1;
  cvta.shared.u64 %rd5, %r4;
  ld.f32 %f4, [%rd5+4];
  st.global.v2.f32 [%rd4], {%f4, %f4};
  mov.u64 %rd6, counter;
  atom.global.add.u32 %r5, [%rd6], 1;
  atom.global.max.s32 %r6, [%rd6+4], %r0;
  atom.global.cas.b32 %r7, [%rd6+8], %r0, 100;
  atom.global.add.f32 %f5, [%rd6+12], %f0;
  ret;"""
    x = np.arange(32 * 4, dtype=np.float32).reshape(32, 4)
    res = ptxsim.run_ptx(_kernel(body, extra=".global .align 4 .b8 counter[16];\n"), "k", 1, [x])
    assert x[:, 0].tolist() == [float(4 * (i ^ 31) + 2) for i in range(32)] and (x[:, 0] == x[:, 1]).all()
    c = res.globals["counter"]
    assert c[:12].view(np.int32).tolist() == [32, 31, 100]    # cas: thread 0 swaps 0 -> 100
    assert c[12:].view(np.float32)[0] == sum(4.0 * i for i in range(32))


def test_ldmatrix_fragments_as_the_ptx_isa_states():
    """ldmatrix in the simulator, on a hand-written kernel: lane l gets row l/4,
    columns 2(l%4)..+1 of each matrix (or the transposed pair with .trans)."""
    import numpy as np
    ptx = """
.version 8.5
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<20>;
    .reg .b64 %rd<4>;
    .shared .align 16 .b8 tile[512];
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 3;
    mov.u32 %r3, tile;
    mad.lo.u32 %r4, %r1, 16, %r3;
    mov.u32 %r5, 0;
$fill:
    add.u32 %r6, %r2, %r5;
    shl.b32 %r7, %r5, 1;
    add.u32 %r8, %r4, %r7;
    st.shared.b16 [%r8], %r6;
    add.u32 %r5, %r5, 1;
    setp.lt.u32 %p1, %r5, 8;
    @%p1 bra $fill;
    bar.sync 0;
    ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r10, %r11, %r12, %r13}, [%r4];
    ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r14, %r15}, [%r4];
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r1, 32;
    add.s64 %rd3, %rd1, %rd2;
    st.global.v4.b32 [%rd3], {%r10, %r11, %r12, %r13};
    st.global.v2.b32 [%rd3+16], {%r14, %r15};
    ret;
}
""".replace("    .reg .b64 %rd<4>;", "    .reg .b64 %rd<4>;\n    .reg .pred %p<2>;")
    out = np.zeros((32, 8), np.uint32)
    ptxsim.run_ptx(ptx, "k", (1, 1, 1), [out], block=(32, 1, 1))
    # the shared tile holds value 8 * row + col at (row, col) of a 32x8 row-major b16 array
    for lane in range(32):
        g, q = lane // 4, lane % 4
        for i in range(4):       # matrix i = rows 8i..8i+7
            lo, hi = 8 * (8 * i + g) + 2 * q, 8 * (8 * i + g) + 2 * q + 1
            assert out[lane, i] == lo | hi << 16
        for i in range(2):       # transposed: rows 2q, 2q+1 of column g
            lo, hi = 8 * (8 * i + 2 * q) + g, 8 * (8 * i + 2 * q + 1) + g
            assert out[lane, 4 + i] == lo | hi << 16


@pytest.mark.parametrize("arch", ARCHES)
def test_misaligned_views_take_the_element_wise_path(arch):
    """Vector accesses and cp.async need aligned runs: with an odd row stride and
    operands that start one element into their buffers, the kernel must take its
    element-wise branch, and still compute the product."""
    import numpy as np
    from tilec.runtime import convert_scalars
    case = cases.BY_NAME["cutile_matmul_f16"]
    ptx = ptx_or_fail(case, arch)
    # stage loads: 16-byte cp.async or the branch
    assert "cp.async.cg.shared.global" in ptx and "$L_sync_copy" in ptx
    rng = np.random.default_rng(7)
    M, K, N = 128, 80, 128
    abuf = rng.standard_normal(M * (K + 1) + 1).astype(np.float16)
    bbuf = rng.standard_normal(K * N + 1).astype(np.float16)
    a = abuf[1:].reshape(M, K + 1)[:, :K]          # row stride K + 1, one element in
    b = bbuf[1:].reshape(K, N)                     # one element in: 2-byte aligned only
    c = np.zeros((M, N), np.float16)
    args = [(abuf, 1), M, K, K + 1, 1, (bbuf, 1), K, N, N, 1, c, M, N, N, 1]
    ptxsim.run_ptx(ptx, entry_symbol(case), (2, 2, 1), convert_scalars(case.text(), args))
    want = a.astype(np.float64) @ b.astype(np.float64)
    scale = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
    assert np.all(np.abs(c.astype(np.float64) - want) <= 2e-3 * scale + 1e-3)


_CP_ASYNC_PTX = """
.version 8.5
.target sm_80
.address_size 64
.visible .entry k(.param .u64 src, .param .u64 out)
{
    .reg .b32 %r<12>;
    .reg .b64 %rd<8>;
    .reg .pred %p<4>;
    .shared .align 16 .b8 buf[32];
    .shared .align 8 .b8 bar[8];
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 mbarrier.init.shared.b64 [bar], 1;
    bar.sync 0;
    ld.param.u64 %rd1, [src];
    ld.param.u64 %rd2, [out];
    mov.u32 %r2, buf;
    @%p1 st.shared.b32 [buf], 7;
    @%p1 cp.async.cg.shared.global [buf], [%rd1], 16, 16;
    @%p1 cp.async.ca.shared.global [buf+16], [%rd1], 8, 0;
    @%p1 ld.shared.b32 %r3, [buf];
    @%p1 st.global.b32 [%rd2], %r3;
    @%p1 cp.async.mbarrier.arrive.noinc.shared.b64 [bar];
$wait:
    mbarrier.test_wait.parity.shared.b64 %p2, [bar], 0;
    @!%p2 bra $wait;
    @%p1 ld.shared.b32 %r4, [buf];
    @%p1 st.global.b32 [%rd2+4], %r4;
    @%p1 ld.shared.b32 %r5, [buf+16];
    @%p1 st.global.b32 [%rd2+8], %r5;
    ret;
}
"""


def test_cp_async_lands_when_its_barrier_phase_completes():
    """A read before the barrier sees the old shared value; after it, the copy
    (and the zero fill of a copy that reads no bytes)."""
    import numpy as np
    src = np.array([11, 12, 13, 14], np.uint32)
    out = np.full(3, 99, np.uint32)
    ptxsim.run_ptx(_CP_ASYNC_PTX, "k", (1, 1, 1), [src, out], block=(32, 1, 1))
    assert out.tolist() == [7, 11, 0]


def test_cp_async_nobody_tracks_is_an_error():
    ptx = _CP_ASYNC_PTX.replace("    @%p1 cp.async.mbarrier.arrive.noinc.shared.b64 [bar];\n",
                                "    @%p1 mbarrier.arrive.shared.b64 %rd3, [bar];\n")
    import numpy as np
    with pytest.raises(ptxsim.PTXRuntimeError, match="cp.async copies no mbarrier arrive or wait tracked"):
        ptxsim.run_ptx(ptx, "k", (1, 1, 1), [np.zeros(4, np.uint32), np.zeros(3, np.uint32)], block=(32, 1, 1))


def test_cp_async_wait_group_lands_the_committed_groups_only():
    """commit_group makes the thread's copies so far a group; wait_group 0 lands the
    groups, not the copies issued after the last commit: here those are the mbarrier's,
    and land with its phase."""
    import numpy as np
    ptx = _CP_ASYNC_PTX.replace(
        "    @%p1 cp.async.ca.shared.global [buf+16], [%rd1], 8, 0;\n",
        "    @%p1 cp.async.commit_group;\n    @%p1 st.shared.b32 [buf+16], 5;\n"
        "    @%p1 cp.async.ca.shared.global [buf+16], [%rd1+4], 4, 4;\n"
    ).replace("    @%p1 ld.shared.b32 %r3, [buf];\n",
              "    @%p1 cp.async.wait_group 0;\n    @%p1 ld.shared.b32 %r3, [buf];\n"
              "    @%p1 ld.shared.b32 %r6, [buf+16];\n    @%p1 st.global.b32 [%rd2+8], %r6;\n"
    ).replace("    @%p1 st.global.b32 [%rd2+8], %r5;\n", "    @%p1 st.global.b32 [%rd2+12], %r5;\n")
    src = np.array([11, 12, 13, 14], np.uint32)
    out = np.full(4, 99, np.uint32)
    ptxsim.run_ptx(ptx, "k", (1, 1, 1), [src, out], block=(32, 1, 1))
    # the group's copy landed at the wait; the later copy (buf+16 still 5) with the barrier
    assert out.tolist() == [11, 11, 5, 12]
    with pytest.raises(ptxsim.PTXRuntimeError, match="no mbarrier arrive or wait tracked"):
        ptxsim.run_ptx(ptx.replace("    @%p1 cp.async.wait_group 0;\n", "").replace(
            "    @%p1 cp.async.mbarrier.arrive.noinc.shared.b64 [bar];\n",
            "    @%p1 mbarrier.arrive.shared.b64 %rd3, [bar];\n"), "k", (1, 1, 1), [src, out], block=(32, 1, 1))


_CP_ASYNC_WAIT = """$wait:
    mbarrier.test_wait.parity.shared.b64 %p2, [bar], 0;
    @!%p2 bra $wait;
"""


def test_cp_async_arrivals_in_flight_block_reinit():
    """A cp.async.mbarrier.arrive lands when its copies complete: a barrier
    re-initialized before anyone waited for that phase would count it."""
    import numpy as np
    ptx = _CP_ASYNC_PTX.replace(_CP_ASYNC_WAIT, "    bar.sync 0;\n    @%p1 mbarrier.init.shared.b64 [bar], 1;\n"
                                "    bar.sync 0;\n" + _CP_ASYNC_WAIT.replace("[bar], 0", "[bar], 1"))
    assert ptx != _CP_ASYNC_PTX
    with pytest.raises(ptxsim.PTXRuntimeError, match="mbarrier.init of a barrier with 1 cp.async.mbarrier.arrive"):
        ptxsim.run_ptx(ptx, "k", (1, 1, 1), [np.zeros(4, np.uint32), np.zeros(3, np.uint32)], block=(32, 1, 1))


def test_cp_async_arrivals_in_flight_at_exit_are_an_error():
    import numpy as np
    ptx = _CP_ASYNC_PTX.replace(_CP_ASYNC_WAIT, "")
    assert ptx != _CP_ASYNC_PTX
    with pytest.raises(ptxsim.PTXRuntimeError, match="ended with cp.async.mbarrier.arrive arrivals"):
        ptxsim.run_ptx(ptx, "k", (1, 1, 1), [np.zeros(4, np.uint32), np.zeros(3, np.uint32)], block=(32, 1, 1))


_BMM = """cuda_tile.module @m {
  entry @bmm(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>) {
    %ta = make_tensor_view %a, shape = [B, M, K], strides = [MK, K, 1] : tensor_view<BxMxKxf16, strides=[MK,K,1]>
    %tb = make_tensor_view %b, shape = [B, K, N], strides = [KN, N, 1] : tensor_view<BxKxNxf16, strides=[KN,N,1]>
    %tc = make_tensor_view %c, shape = [B, M, N], strides = [MN, N, 1] : tensor_view<BxMxNxf32, strides=[MN,N,1]>
    %pa = make_partition_view %ta : partition_view<tile=(BxMxK), tensor_view<BxMxKxf16, strides=[MK,K,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(BxKxN), tensor_view<BxKxNxf16, strides=[KN,N,1]>>
    %pc = make_partition_view %tc : partition_view<tile=(BxMxN), tensor_view<BxMxNxf32, strides=[MN,N,1]>>
    %z = constant <i32: 0> : tile<i32>
    %x, %t0 = load_view_tko weak %pa[%z, %z, %z] : partition_view<tile=(BxMxK), tensor_view<BxMxKxf16, strides=[MK,K,1]>>, tile<i32> -> tile<BxMxKxf16>, token
    %y, %t1 = load_view_tko weak %pb[%z, %z, %z] : partition_view<tile=(BxKxN), tensor_view<BxKxNxf16, strides=[KN,N,1]>>, tile<i32> -> tile<BxKxNxf16>, token
    %acc = constant <f32: 1.5> : tile<BxMxNxf32>
    %r = mmaf %x, %y, %acc : tile<BxMxKxf16>, tile<BxKxNxf16>, tile<BxMxNxf32>
    %t2 = store_view_tko weak %r, %pc[%z, %z, %z] : tile<BxMxNxf32>, partition_view<tile=(BxMxN), tensor_view<BxMxNxf32, strides=[MN,N,1]>>, tile<i32> -> token
    return
  }
}
"""


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("bmkn", [(2, 16, 32, 16), (2, 32, 32, 32)], ids=["cuda-cores", "mma"])
def test_batched_dot_matches_the_interpreter(arch, bmkn):
    """Rank-3 mmaf: one (M, K) x (K, N) product per batch, on CUDA cores or
    (when the 2-D shape tiles the warps) tensor cores."""
    import numpy as np
    from tilec.codegen.ptx import compile_text
    from tilec.interp import launch as interp_launch, parse_module
    nb, m, k, n = bmkn
    text = _BMM
    for key, val in (("MK", m * k), ("KN", k * n), ("MN", m * n), ("B", nb), ("M", m), ("K", k), ("N", n)):
        text = text.replace(key, str(val))
    ptx = compile_text(text, arch)
    assert ("mma.sync" in ptx) == (m == 32)
    rng = np.random.default_rng(3)
    a = rng.standard_normal((nb, m, k)).astype(np.float16)
    b = rng.standard_normal((nb, k, n)).astype(np.float16)
    want = np.zeros((nb, m, n), np.float32)
    interp_launch(parse_module(text, "bmm.mlir"), None, (1, 1, 1), [a.copy(), b.copy(), want])
    got = np.zeros((nb, m, n), np.float32)
    ptxsim.run_ptx(ptx, "bmm", (1, 1, 1), [a, b, got])
    exact = np.einsum("bmk,bkn->bmn", a.astype(np.float64), b.astype(np.float64)) + 1.5
    scale = np.einsum("bmk,bkn->bmn", np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64))) + 1.5
    assert np.all(np.abs(got - exact) <= 1e-5 * scale) and np.all(np.abs(want - exact) <= 1e-5 * scale)


# one (M x K) x (K x N) dot of loaded tiles: ET the arrays' element type, CT the
# accumulator's, BODY the conversions and the dot (%x, %y -> %r)
_LOADED_DOT = """cuda_tile.module @m {
  entry @k(%a: tile<ptr<ET>>, %b: tile<ptr<ET>>, %c: tile<ptr<CT>>) {
    %ta = make_tensor_view %a, shape = [M, K], strides = [K, 1] : tensor_view<MxKxET, strides=[K,1]>
    %tb = make_tensor_view %b, shape = [K, N], strides = [N, 1] : tensor_view<KxNxET, strides=[N,1]>
    %tc = make_tensor_view %c, shape = [M, N], strides = [N, 1] : tensor_view<MxNxCT, strides=[N,1]>
    %pa = make_partition_view %ta : partition_view<tile=(MxK), tensor_view<MxKxET, strides=[K,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(KxN), tensor_view<KxNxET, strides=[N,1]>>
    %pc = make_partition_view %tc : partition_view<tile=(MxN), tensor_view<MxNxCT, strides=[N,1]>>
    %z = constant <i32: 0> : tile<i32>
    %x, %t0 = load_view_tko weak %pa[%z, %z] : partition_view<tile=(MxK), tensor_view<MxKxET, strides=[K,1]>>, tile<i32> -> tile<MxKxET>, token
    %y, %t1 = load_view_tko weak %pb[%z, %z] : partition_view<tile=(KxN), tensor_view<KxNxET, strides=[N,1]>>, tile<i32> -> tile<KxNxET>, token
BODY
    %t2 = store_view_tko weak %r, %pc[%z, %z] : tile<MxNxCT>, partition_view<tile=(MxN), tensor_view<MxNxCT, strides=[N,1]>>, tile<i32> -> token
    return
  }
}
"""


_MMAF_BODY = """    %acc = constant <CT: 1.5> : tile<MxNxCT>
    %r = mmaf %x, %y, %acc : tile<MxKxET>, tile<KxNxET>, tile<MxNxCT>"""


def _loaded_dot(et, ct, body, m, k, n, entry="k"):
    text = _LOADED_DOT.replace("@k(", f"@{entry}(").replace("BODY", body).replace("ET", et).replace("CT", ct)
    for key, val in (("M", m), ("K", k), ("N", n)):
        text = text.replace(key, str(val))
    return text


def dot_runs(text, ptx, a, b, dtype):
    """(simulated, interpreted) results of the one-CTA loaded-dot kernel `text`
    (its PTX `ptx`) on operands `a`, `b`; results of `dtype`."""
    from tilec.interp import launch as interp_launch, parse_module
    m, n = a.shape[0], b.shape[1]
    want = np.zeros((m, n), dtype)
    interp_launch(parse_module(text, "dot.mlir"), None, (1, 1, 1), [a.copy(), b.copy(), want])
    got = np.zeros((m, n), dtype)
    ptxsim.run_ptx(ptx, "k", (1, 1, 1), [a, b, got])
    return got, want


def assert_near_exact(a, b, results, acc=1.5, tol=1e-6):
    """Every result within `tol` (relative to sum |a||b| + |acc|) of a @ b + acc in f64."""
    exact = a.astype(np.float64) @ b.astype(np.float64) + acc
    scale = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)) + abs(acc)
    for res in results:
        assert np.all(np.abs(res.astype(np.float64) - exact) <= tol * scale)


_I8_BODY = """    %acc = constant <i32: -7> : tile<MxNxi32>
    %r = mmai %x, %y, %acc SA SB : tile<MxKxi8>, tile<KxNxi8>, tile<MxNxi32>"""
_TF32_BODY = """    %x32 = ftof %x : tile<MxKxf32> -> tile<MxKxtf32>
    %y32 = ftof %y : tile<KxNxf32> -> tile<KxNxtf32>
    %acc = constant <f32: 1.5> : tile<MxNxf32>
    %r = mmaf %x32, %y32, %acc : tile<MxKxtf32>, tile<KxNxtf32>, tile<MxNxf32>"""


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("signs", [("signed", "signed"), ("unsigned", "signed"), ("unsigned", "unsigned")])
def test_int8_dot_runs_on_tensor_cores(arch, signs):
    """8-bit integer dots run on mma.sync m16n8k32 (A rows and B columns as
    K-consecutive words, from padded shared copies), exactly the interpreter's."""
    import numpy as np
    from tilec.codegen.ptx import compile_text
    from tilec.interp import launch as interp_launch, parse_module
    m, k, n = 64, 64, 32
    text = _loaded_dot("i8", "i32", _I8_BODY.replace("SA", signs[0]).replace("SB", signs[1]), m, k, n)
    ptx = compile_text(text, arch)
    kinds = ["s8" if x == "signed" else "u8" for x in signs]
    form = "tcgen05.mma.cta_group::1.kind::i8" if arch == "sm_100a" else \
        f"mma.sync.aligned.m16n8k32.row.col.s32.{kinds[0]}.{kinds[1]}.s32"
    assert form in ptx and "dot_k" not in ptx
    rng = np.random.default_rng(11)
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    b = rng.integers(-128, 128, (k, n)).astype(np.int8)
    want = np.zeros((m, n), np.int32)
    interp_launch(parse_module(text, "i8.mlir"), None, (1, 1, 1), [a.copy(), b.copy(), want])
    got = np.zeros((m, n), np.int32)
    ptxsim.run_ptx(ptx, "k", (1, 1, 1), [a, b, got])
    wide = [x.astype(np.int64) if sg == "signed" else x.view(np.uint8).astype(np.int64) for x, sg in ((a, signs[0]), (b, signs[1]))]
    exact = (wide[0] @ wide[1] - 7).astype(np.int32)
    assert np.array_equal(got, exact) and np.array_equal(want, exact)


@pytest.mark.parametrize("arch", ["sm_89", "sm_90a", "sm_120a"])
@pytest.mark.parametrize("et", ["f8E4M3FN", "f8E5M2"])
def test_fp8_dot_runs_on_tensor_cores(arch, et):
    """fp8 dots that wgmma does not take run on mma.sync m16n8k32 (the 8-bit
    fragments of the integer form; sm_120a spells it .kind::f8f6f4), equal to
    the interpreter and within an f32 rounding of the exact product."""
    import ml_dtypes
    from tilec.codegen.ptx import compile_text
    m, k, n = 64, 64, 32
    # Q stands for the fp8 type until the shape letters are substituted
    text = _loaded_dot("Q", "f32", _MMAF_BODY.replace("ET", "Q").replace("CT", "f32"), m, k, n).replace("Q", et)
    ptx = compile_text(text, arch)
    short = {"f8E4M3FN": "e4m3", "f8E5M2": "e5m2"}[et]
    kind = "kind::f8f6f4." if arch == "sm_120a" else ""
    assert f"mma.sync.aligned.m16n8k32.row.col.{kind}f32.{short}.{short}.f32" in ptx
    dt = {"f8E4M3FN": ml_dtypes.float8_e4m3fn, "f8E5M2": ml_dtypes.float8_e5m2}[et]
    rng = np.random.default_rng(13)
    a = rng.standard_normal((m, k)).astype(dt)
    b = rng.standard_normal((k, n)).astype(dt)
    assert_near_exact(a, b, dot_runs(text, ptx, a, b, np.float32))


def _fragment_offsets(thr_strides, val_shape, val_strides):
    """offset[lane][value] of a warp fragment given as layout algebra: lane
    (tig = lane % 4, g = lane / 4) at tig * s0 + g * s1, value v (first mode
    fastest) at sum v_i * val_strides_i."""
    import itertools
    vals = [sum(c * st for c, st in zip(v[::-1], val_strides))      # v: the last mode first
            for v in itertools.product(*[range(n) for n in val_shape[::-1]])]
    return [[(l % 4) * thr_strides[0] + (l // 4) * thr_strides[1] + v for v in vals] for l in range(32)]


def test_simulated_mma_fragments_follow_the_isa_layouts():
    """The simulator's m16n8k8 tf32 and m16n8k32 8-bit fragments, checked against
    the fragment layouts as (lane, value) -> column-major offset in A (M x K) and
    B (N x K): tf32 A (4,8):(16,1) x (2,2):(8,64), B (4,8):(8,1) x 2:32; 8-bit A
    (4,8):(64,1) x (4,2,2):(16,8,256), B (4,8):(32,1) x (4,2):(8,128)."""
    from ptxsim import runtime as R
    import numpy as np
    want = _fragment_offsets((16, 1), (2, 2), (8, 64))
    got = (R._TF32_A_ROW + 16 * R._TF32_A_COL).tolist()
    assert got == want
    assert (R._TF32_B_COL + 8 * R._TF32_B_ROW).tolist() == _fragment_offsets((8, 1), (2,), (32,))
    a8 = (R._I8_A_ROW + 16 * R._I8_A_COL).reshape(32, 16)        # [lane][register * 4 + byte]
    want8 = np.array(_fragment_offsets((64, 1), (4, 2, 2), (16, 8, 256)))
    assert a8.tolist() == want8.tolist()
    b8 = (R._I8_B_COL + 8 * R._I8_B_ROW).reshape(32, 8)
    assert b8.tolist() == _fragment_offsets((32, 1), (4, 2), (8, 128))




@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("mkn,warps", [((16, 8, 8), 1), ((64, 32, 64), 4), ((128, 64, 32), 8)],
                         ids=["one-fragment", "4-warps", "8-warps"])
def test_tf32_dot_runs_on_tensor_cores(arch, mkn, warps):
    """tf32 dots run on mma.sync m16n8k8 (A and B words from padded shared
    copies), on sm_90a on wgmma m64nNk8 (both copied K-major: B is computed in
    registers, the ftof), equal to the interpreter within f32 summation order."""
    import numpy as np
    from tilec.codegen.ptx import compile_text
    from tilec.interp import launch as interp_launch, parse_module
    if arch != "sm_80" and warps % 4:
        pytest.skip(f"{arch} schedules whole warpgroups")
    m, k, n = mkn
    text = _loaded_dot("f32", "f32", _TF32_BODY, m, k, n)
    ptx = compile_text(text, arch, num_warps=warps)
    form = {"sm_100a": "tcgen05.mma.cta_group::1.kind::tf32",
            "sm_90a": f"wgmma.mma_async.sync.aligned.m64n{n}k8.f32.tf32.tf32"}.get(
        arch, "mma.sync.aligned.m16n8k8.row.col.f32.tf32")
    assert ptx.count(form) >= 1 and "dot_k" not in ptx
    rng = np.random.default_rng(5)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    want = np.zeros((m, n), np.float32)
    interp_launch(parse_module(text, "tf32.mlir"), None, (1, 1, 1), [a.copy(), b.copy(), want])
    got = np.zeros((m, n), np.float32)
    ptxsim.run_ptx(ptx, "k", (1, 1, 1), [a, b, got])
    scale = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)) + 1.5
    assert np.all(np.abs(got.astype(np.float64) - want) <= 1e-5 * scale)
    # the operands were rounded to tf32: far from the f32 product, close to the tf32 one
    exact = a.astype(np.float64) @ b.astype(np.float64) + 1.5
    assert np.abs(got - exact).max() > 1e-5 * scale.max()


_GATHER_MM = """cuda_tile.module @m {
  entry @gather_mm(%a: tile<ptr<f16>>, %idx: tile<ptr<i32>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>) {
    %ti = make_tensor_view %idx, shape = [64], strides = [1] : tensor_view<64xi32, strides=[1]>
    %pi = make_partition_view %ti : partition_view<tile=(64), tensor_view<64xi32, strides=[1]>>
    %tb = make_tensor_view %b, shape = [128, 64], strides = [64, 1] : tensor_view<128x64xf16, strides=[64,1]>
    %pb = make_partition_view %tb : partition_view<tile=(32x64), tensor_view<128x64xf16, strides=[64,1]>>
    %tc = make_tensor_view %c, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xf32, strides=[64,1]>
    %pc = make_partition_view %tc : partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>
    %z = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %four = constant <i32: 4> : tile<i32>
    %k128 = constant <i32: 128> : tile<64x1xi32>
    %k32 = constant <i32: 32> : tile<i32>
    %rows, %t0 = load_view_tko weak %pi[%z] : partition_view<tile=(64), tensor_view<64xi32, strides=[1]>>, tile<i32> -> tile<64xi32>, token
    %r2 = reshape %rows : tile<64xi32> -> tile<64x1xi32>
    %rowoff = muli %r2, %k128 : tile<64x1xi32>
    %rowb = broadcast %rowoff : tile<64x1xi32> -> tile<64x32xi32>
    %j = iota : tile<32xi32>
    %j2 = reshape %j : tile<32xi32> -> tile<1x32xi32>
    %jb = broadcast %j2 : tile<1x32xi32> -> tile<64x32xi32>
    %base = addi %rowb, %jb : tile<64x32xi32>
    %ra = reshape %a : tile<ptr<f16>> -> tile<1x1xptr<f16>>
    %pa = broadcast %ra : tile<1x1xptr<f16>> -> tile<64x32xptr<f16>>
    %acc0 = constant <f32: 0.0> : tile<64x64xf32>
    %res = for %k in (%z to %four, step %one) : tile<i32> iter_values(%acc = %acc0) -> (tile<64x64xf32>) {
      %kk = muli %k, %k32 : tile<i32>
      %kr = reshape %kk : tile<i32> -> tile<1x1xi32>
      %kb = broadcast %kr : tile<1x1xi32> -> tile<64x32xi32>
      %off = addi %base, %kb : tile<64x32xi32>
      %ptrs = offset %pa, %off : tile<64x32xptr<f16>>, tile<64x32xi32> -> tile<64x32xptr<f16>>
      %at, %t1 = load_ptr_tko weak %ptrs : tile<64x32xptr<f16>> -> tile<64x32xf16>, token
      %bt, %t2 = load_view_tko weak %pb[%k, %z] : partition_view<tile=(32x64), tensor_view<128x64xf16, strides=[64,1]>>, tile<i32> -> tile<32x64xf16>, token
      %n = mmaf %at, %bt, %acc : tile<64x32xf16>, tile<32x64xf16>, tile<64x64xf32>
      continue %n : tile<64x64xf32>
    }
    %t3 = store_view_tko weak %res, %pc[%z, %z] : tile<64x64xf32>, partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>, tile<i32> -> token
    return
  }
}
"""


@pytest.mark.parametrize("arch", ARCHES)
def test_gathered_operand_keeps_the_loop_pipelined(arch):
    """A K loop whose A rows are gathered through a tile of pointers (MoE's
    routed tokens) pipelines both operands: B, and the gather, a read a dot
    takes in a loop that writes nothing (tests/test_staged_gathers.py).
    Simulated against the interpreter and numpy."""
    import numpy as np
    from tilec.codegen.ptx import compile_text
    from tilec.interp import launch as interp_launch, parse_module
    import subprocess
    import sys
    ir = subprocess.run([sys.executable, "-m", "tilec.cli", "opt", "-", f"--lower-to-tileas=arch={arch}",
                         f"--schedule=arch={arch}"], input=_GATHER_MM, capture_output=True, text=True, timeout=300)
    assert ir.returncode == 0, ir.stderr
    assert ir.stdout.count("create_pipeline") == 2
    ptx = compile_text(_GATHER_MM, arch)
    rng = np.random.default_rng(9)
    a = rng.standard_normal((128, 128)).astype(np.float16)
    idx = rng.permutation(128)[:64].astype(np.int32)
    b = rng.standard_normal((128, 64)).astype(np.float16)
    want = np.zeros((64, 64), np.float32)
    interp_launch(parse_module(_GATHER_MM, "g.mlir"), None, (1, 1, 1), [a.copy(), idx.copy(), b.copy(), want])
    got = np.zeros((64, 64), np.float32)
    ptxsim.run_ptx(ptx, "gather_mm", (1, 1, 1), [a, idx, b, got])
    exact = a[idx].astype(np.float64) @ b.astype(np.float64)
    scale = np.abs(a[idx].astype(np.float64)) @ np.abs(b.astype(np.float64))
    assert np.all(np.abs(got - exact) <= 1e-5 * scale + 1e-6) and np.all(np.abs(want - exact) <= 1e-5 * scale + 1e-6)


_ATAN2 = """cuda_tile.module @m {
  entry @k(%x: tile<ptr<ET>>, %y: tile<ptr<ET>>, %o: tile<ptr<ET>>) {
    %i = iota : tile<512xi32>
    %rx = reshape %x : tile<ptr<ET>> -> tile<1xptr<ET>>
    %ry = reshape %y : tile<ptr<ET>> -> tile<1xptr<ET>>
    %ro = reshape %o : tile<ptr<ET>> -> tile<1xptr<ET>>
    %px = broadcast %rx : tile<1xptr<ET>> -> tile<512xptr<ET>>
    %py = broadcast %ry : tile<1xptr<ET>> -> tile<512xptr<ET>>
    %po = broadcast %ro : tile<1xptr<ET>> -> tile<512xptr<ET>>
    %ax = offset %px, %i : tile<512xptr<ET>>, tile<512xi32> -> tile<512xptr<ET>>
    %ay = offset %py, %i : tile<512xptr<ET>>, tile<512xi32> -> tile<512xptr<ET>>
    %ao = offset %po, %i : tile<512xptr<ET>>, tile<512xi32> -> tile<512xptr<ET>>
    %a, %t0 = load_ptr_tko weak %ax : tile<512xptr<ET>> -> tile<512xET>, token
    %b, %t1 = load_ptr_tko weak %ay : tile<512xptr<ET>> -> tile<512xET>, token
    %r = atan2 %a, %b : tile<512xET>
    %t2 = store_ptr_tko weak %ao, %r : tile<512xptr<ET>>, tile<512xET> -> token
    return
  }
}
"""


@pytest.mark.parametrize("elt,ulps", [("f32", 2), ("f64", 4), ("f16", 1)])
def test_atan2_matches_the_interpreter(elt, ulps):
    """atan2 (no PTX instruction: tilec's f64 sequence) on every pair of IEEE
    special values and on random operands, within a few ulp of NumPy's."""
    import itertools
    import numpy as np
    from tilec.codegen.ptx import compile_text
    from tilec.interp import launch as interp_launch, parse_module
    dt = {"f32": np.float32, "f64": np.float64, "f16": np.float16}[elt]
    text = _ATAN2.replace("ET", elt)
    rng = np.random.default_rng(0)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-4, 3.0]
    pairs = list(itertools.product(special, special))
    n = 512 - len(pairs)
    x = np.concatenate([[p[0] for p in pairs], rng.standard_normal(n) * 10 ** rng.uniform(-3, 3, n)]).astype(dt)
    y = np.concatenate([[p[1] for p in pairs], rng.standard_normal(n)]).astype(dt)
    want, got = np.zeros(512, dt), np.zeros(512, dt)
    interp_launch(parse_module(text, "atan2.mlir"), None, (1,), [x.copy(), y.copy(), want])
    ptxsim.run_ptx(compile_text(text, "sm_80"), "k", (1, 1, 1), [x.copy(), y.copy(), got])
    both_nan = np.isnan(got) & np.isnan(want)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ints = np.dtype(f"i{np.dtype(dt).itemsize}")
    ulp = np.abs(got.view(ints).astype(np.int64) - want.view(ints).astype(np.int64))
    assert np.all(both_nan | (ulp <= ulps)), np.max(np.where(both_nan, 0, ulp))
    assert np.array_equal(np.signbit(got[:len(pairs)]), np.signbit(want[:len(pairs)]))


@pytest.mark.parametrize("elt", ["f32", "f64", "f16"])
def test_pow_matches_the_interpreter(elt):
    """pow through exp2/log2 of |x| with C's cases: negative bases with
    integral exponents (signed by oddness), NaN for non-integral ones, the
    operands that force 1, zeros and infinities; random operands close to NumPy's."""
    import itertools
    import numpy as np
    from tilec.codegen.ptx import compile_text
    from tilec.interp import launch as interp_launch, parse_module
    dt = {"f32": np.float32, "f64": np.float64, "f16": np.float16}[elt]
    text = _ATAN2.replace("atan2", "pow").replace("ET", elt)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 2.5]
    pairs = list(itertools.product(special, special))
    rng = np.random.default_rng(1)
    n = 512 - len(pairs)
    x = np.concatenate([[p[0] for p in pairs], rng.uniform(0.1, 4, n) * rng.choice([-1, 1], n)]).astype(dt)
    y = np.concatenate([[p[1] for p in pairs], rng.integers(-6, 7, n).astype(np.float64)
                        + np.where(rng.random(n) < 0.5, 0.0, rng.uniform(0, 1, n))]).astype(dt)
    want, got = np.zeros(512, dt), np.zeros(512, dt)
    with np.errstate(all="ignore"):
        interp_launch(parse_module(text, "pow.mlir"), None, (1,), [x.copy(), y.copy(), want])
    ptxsim.run_ptx(compile_text(text, "sm_80"), "k", (1, 1, 1), [x.copy(), y.copy(), got])
    k = len(pairs)
    assert np.array_equal(np.isnan(got), np.isnan(want)), [(x[i], y[i], got[i], want[i])
                                                           for i in np.flatnonzero(np.isnan(got) != np.isnan(want))]
    exact = ~np.isfinite(want[:k]) | (want[:k] == 0) | (np.abs(want[:k]) == 1)
    assert np.array_equal(got[:k][exact], want[:k][exact], equal_nan=True)
    num = ~np.isnan(want[:k])             # NaN's sign is not pow's business
    assert np.array_equal(np.signbit(got[:k][num]), np.signbit(want[:k][num]))
    assert (want[k:] < 0).any() and np.isnan(want[k:]).any()   # both kinds of negative base occur
    fin = np.isfinite(want)
    rtol = {"f32": 1e-5, "f64": 1e-13, "f16": 1e-3}[elt]
    assert np.allclose(got[fin], want[fin], rtol=rtol, atol=0)


_PRINT_WIDE = """cuda_tile.module @m {
  entry @k(%x: tile<ptr<f32>>) {
    %i = iota : tile<128xi32>
    %rx = reshape %x : tile<ptr<f32>> -> tile<1xptr<f32>>
    %px = broadcast %rx : tile<1xptr<f32>> -> tile<128xptr<f32>>
    %ax = offset %px, %i : tile<128xptr<f32>>, tile<128xi32> -> tile<128xptr<f32>>
    %a, %t0 = load_ptr_tko weak %ax : tile<128xptr<f32>> -> tile<128xf32>, token
    %m = reshape %a : tile<128xf32> -> tile<4x32xf32>
    %w = exti %i signed : tile<128xi32> -> tile<128xi64>
    %t1 = print_tko "rows %.2f | ids %lld 100%%\\n", %m, %w : tile<4x32xf32>, tile<128xi64> -> token
    return
  }
}
"""


def test_print_of_more_than_32_elements_is_split_into_calls():
    """CUDA's printf takes 32 arguments per call and prints later specifiers as
    text (the simulator does the same), so a 256-element print takes 8 calls
    whose output joins up to the interpreter's."""
    import numpy as np
    from tilec.codegen.ptx import compile_text
    from tilec.interp import launch as interp_launch, parse_module
    x = np.arange(128, dtype=np.float32) / 4
    ptx = compile_text(_PRINT_WIDE, "sm_90a")
    assert ptx.count("call.uni (vret), vprintf") == 8
    import io
    printed = io.StringIO()
    interp_launch(parse_module(_PRINT_WIDE, "p.mlir"), None, (1,), [x.copy()], stdout=printed)
    res = ptxsim.run_ptx(ptx, "k", (1, 1, 1), [x.copy()])
    assert res.printed == printed.getvalue() and "31.75], [" not in res.printed[:10]
    assert res.printed.startswith("rows [[0.00, 0.25,") and res.printed.endswith("126, 127] 100%\n")


_POINTERS = """cuda_tile.module @m {
  entry @k(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %flag: tile<ptr<i32>>, %o: tile<ptr<f32>>, %ob: tile<ptr<i1>>) {
    %s, %t0 = load_ptr_tko weak %a : tile<ptr<f32>> -> tile<f32>, token
    %f, %t1 = load_ptr_tko acquire device %flag : tile<ptr<i32>> -> tile<i32>, token
    %i = iota : tile<64xi32>
    %ra = reshape %a : tile<ptr<f32>> -> tile<1xptr<f32>>
    %rb = reshape %b : tile<ptr<f32>> -> tile<1xptr<f32>>
    %pa = broadcast %ra : tile<1xptr<f32>> -> tile<64xptr<f32>>
    %pb = broadcast %rb : tile<1xptr<f32>> -> tile<64xptr<f32>>
    %c32 = constant <i32: 32> : tile<64xi32>
    %lo = cmpi less_than %i, %c32, signed : tile<64xi32> -> tile<64xi1>
    %sel = select %lo, %pa, %pb : tile<64xi1>, tile<64xptr<f32>>
    %p = offset %sel, %i : tile<64xptr<f32>>, tile<64xi32> -> tile<64xptr<f32>>
    %c48 = constant <i32: 48> : tile<64xi32>
    %m = cmpi less_than %i, %c48, signed : tile<64xi32> -> tile<64xi1>
    %pad = constant <f32: -1.0> : tile<64xf32>
    %v, %t2 = load_ptr_tko relaxed device %p, %m, %pad : tile<64xptr<f32>>, tile<64xi1>, tile<64xf32> -> tile<64xf32>, token
    %rs = reshape %s : tile<f32> -> tile<1xf32>
    %bs = broadcast %rs : tile<1xf32> -> tile<64xf32>
    %ff = itof %f signed : tile<i32> -> tile<f32>
    %rf = reshape %ff : tile<f32> -> tile<1xf32>
    %bf = broadcast %rf : tile<1xf32> -> tile<64xf32>
    %w0 = addf %v, %bs : tile<64xf32>
    %w = addf %w0, %bf : tile<64xf32>
    %ro = reshape %o : tile<ptr<f32>> -> tile<1xptr<f32>>
    %po0 = broadcast %ro : tile<1xptr<f32>> -> tile<64xptr<f32>>
    %po = offset %po0, %i : tile<64xptr<f32>>, tile<64xi32> -> tile<64xptr<f32>>
    %c16 = constant <i32: 16> : tile<64xi32>
    %hi = cmpi greater_than_or_equal %i, %c16, signed : tile<64xi32> -> tile<64xi1>
    %t3 = store_ptr_tko release device %po, %w, %hi : tile<64xptr<f32>>, tile<64xf32>, tile<64xi1> -> token
    %rob = reshape %ob : tile<ptr<i1>> -> tile<1xptr<i1>>
    %pob0 = broadcast %rob : tile<1xptr<i1>> -> tile<64xptr<i1>>
    %pob = offset %pob0, %i : tile<64xptr<i1>>, tile<64xi32> -> tile<64xptr<i1>>
    %t4 = store_ptr_tko relaxed tl_blk %pob, %m : tile<64xptr<i1>>, tile<64xi1> -> token
    return
  }
}
"""


def test_pointer_loads_and_stores_the_lowering_keeps():
    """load_ptr_tko / store_ptr_tko that stay cuda_tile (ordered, a kernel
    argument loaded directly, pointers picked by select): ld.acquire /
    ld.relaxed with a mask and a padding tile, st.release after the group's
    barrier, i1 elements as bytes; the simulated kernel matches the interpreter."""
    import numpy as np
    from tilec.codegen.ptx import compile_text
    from tilec.interp import launch as interp_launch, parse_module
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(64).astype(np.float32), rng.standard_normal(64).astype(np.float32)

    def args():
        return [a.copy(), b.copy(), np.array([7], np.int32), np.zeros(64, np.float32), np.zeros(64, np.bool_)]
    want = args()
    interp_launch(parse_module(_POINTERS, "p.mlir"), None, (1,), want)
    assert want[3][50] == np.float32(-1.0 + a[0] + 7) and want[3][40] == np.float32(b[40] + a[0] + 7)
    for arch in ARCHES:
        ptx = compile_text(_POINTERS, arch)
        for needle in ("ld.acquire.gpu.global.b32", "ld.relaxed.gpu.global.f32", "st.release.gpu.global.f32",
                       "st.relaxed.cta.global.u8"):
            assert needle in ptx, needle
        rel = ptx.index("st.release")
        assert "bar.sync" in ptx[:rel]
        if shutil.which("ptxas"):
            import subprocess
            import tempfile
            with tempfile.TemporaryDirectory() as d:
                src = f"{d}/k.ptx"
                open(src, "w").write(ptx)
                r = subprocess.run(["ptxas", f"-arch={arch}", src, "-o", f"{d}/k.cubin"], capture_output=True,
                                   text=True, timeout=300)
                assert r.returncode == 0, r.stderr
        got = args()
        ptxsim.run_ptx(ptx, "k", (1, 1, 1), got)
        assert np.array_equal(got[3], want[3]) and np.array_equal(got[4], want[4]), arch


_I1_OPS = """cuda_tile.module @m {
  entry @k(%x: tile<ptr<i1>>, %y: tile<ptr<i1>>, %o: tile<ptr<i1>>) {
    %i = iota : tile<32xi32>
    %rx = reshape %x : tile<ptr<i1>> -> tile<1xptr<i1>>
    %ry = reshape %y : tile<ptr<i1>> -> tile<1xptr<i1>>
    %ro = reshape %o : tile<ptr<i1>> -> tile<1xptr<i1>>
    %px = broadcast %rx : tile<1xptr<i1>> -> tile<32xptr<i1>>
    %py = broadcast %ry : tile<1xptr<i1>> -> tile<32xptr<i1>>
    %po = broadcast %ro : tile<1xptr<i1>> -> tile<32xptr<i1>>
    %ax = offset %px, %i : tile<32xptr<i1>>, tile<32xi32> -> tile<32xptr<i1>>
    %ay = offset %py, %i : tile<32xptr<i1>>, tile<32xi32> -> tile<32xptr<i1>>
    %a, %t0 = load_ptr_tko weak %ax : tile<32xptr<i1>> -> tile<32xi1>, token
    %b, %t1 = load_ptr_tko weak %ay : tile<32xptr<i1>> -> tile<32xi1>, token
    %one = constant <i1: true> : tile<32xi1>
    %zero = constant <i1: false> : tile<32xi1>
    %r0 = OP : tile<32xi1>
    %t2 = store_ptr_tko weak %po, %r0 : tile<32xptr<i1>>, tile<32xi1> -> token
    return
  }
}
"""


@pytest.mark.parametrize("op", ["divi %a, %one signed", "divi %a, %one unsigned", "remi %a, %one signed",
                                "maxi %a, %b signed", "maxi %a, %b unsigned", "mini %a, %b signed",
                                "mini %a, %b unsigned", "shli %a, %zero", "shri %a, %zero unsigned"])
def test_i1_integer_ops_match_the_interpreter(op):
    """i1 is 0/1 unsigned and 0/-1 signed: max/min swap and/or with the
    signedness, division by the only valid divisor (true) is the identity."""
    import numpy as np
    from tilec.codegen.ptx import compile_text
    from tilec.interp import launch as interp_launch, parse_module
    text = _I1_OPS.replace("OP", op)
    rng = np.random.default_rng(2)
    x, y = rng.random(32) < 0.5, rng.random(32) < 0.5
    want, got = np.zeros(32, np.bool_), np.zeros(32, np.bool_)
    interp_launch(parse_module(text, "i1.mlir"), None, (1,), [x.copy(), y.copy(), want])
    ptxsim.run_ptx(compile_text(text, "sm_80"), "k", (1, 1, 1), [x.copy(), y.copy(), got])
    assert np.array_equal(got, want), (x, y, got, want)


@pytest.mark.parametrize("name,wgmma", [("matmul_f16_tiled", False), ("matmul_f16_tiled", True),
                                         ("cutile_flash_attention_f16", False), ("cutile_matmul_i8_masked", False),
                                         ("cutile_bmm_f16", False)])
def test_two_consumer_warpgroups_on_sm_90a(name, wgmma):
    """--num-warps 8 on sm_90a: the agent_switch gets num_agents_per_group = 2, so
    the consumer region runs on two warpgroups next to the producer's one (384
    threads, not a power of two: CTA-wide layouts leave a warpgroup holding
    copies), and the result is still the interpreter's."""
    from tilec.codegen.ptx import compile_text
    case = cases.BY_NAME[name]
    ptx = compile_text(case.text(), arch="sm_90a", num_warps=8, wgmma=wgmma)
    assert ".reqntid 384, 1, 1" in ptx
    assert ("wgmma.mma_async" in ptx) == wgmma
    want, _, _ = interpreter_result(case)
    got, _, _, launch = run_in_sim(case, ptx)
    cases.compare(case, launch, got, want)


@pytest.mark.parametrize("name,arch", [("cutile_matmul_fp8", "sm_89"), ("cutile_flash_attention_f16", "sm_90"),
                                       ("cutile_matmul_gelu_f16", "sm_86")])
def test_other_targets_match_the_interpreter(name, arch):
    """sm_89 (fp8 on sm_80's code), sm_90 (sm_90a's code without wgmma) and
    sm_86 (sm_80's code in 99 KiB of shared memory) compute what the
    interpreter computes."""
    from tilec.codegen.ptx import compile_text
    case = cases.BY_NAME[name]
    ptx = compile_text(case.text(), arch=arch)
    assert f".target {arch}\n" in ptx
    want, _, _ = interpreter_result(case)
    got, _, _, launch = run_in_sim(case, ptx)
    cases.compare(case, launch, got, want)


# Other CTA shapes: one warp (every layout replicated least, reductions within a warp),
# sixteen (tiles spread thin, replicas), and sm_90a with two consumer warpgroups and two
# stages. The emitter's layouts, reductions and pipelines must give the interpreter's
# results at every warp count, not only at the default.
OTHER_SHAPES = [("sm_80", 1, None), ("sm_80", 16, None), ("sm_90a", 8, 2)]


@pytest.mark.parametrize("arch,warps,stages", OTHER_SHAPES, ids=[f"{a}-w{w}-s{s}" for a, w, s in OTHER_SHAPES])
@pytest.mark.parametrize("name", [c.name for c in cases.CASES])
def test_sim_matches_interpreter_at_other_warp_counts(name, arch, warps, stages):
    from tilec.codegen.ptx import compile_text
    from tilec.compiler import CompileFailed
    case = cases.BY_NAME[name]
    try:
        ptx = compile_text(case.text(), arch=arch, num_warps=warps, num_stages=stages)
    except CompileFailed as e:
        if any(text in str(e) for text in case.unsupported.get(arch, ())):
            return
        raise
    want, _, _ = interpreter_result(case)
    got, _, _, launch = run_in_sim(case, ptx)
    cases.compare(case, launch, got, want)


def test_sim_chunked_agent_join(monkeypatch):
    """The agents' results reach the whole CTA through shared memory. One that fits
    neither over the stage buffers nor in what the target has left goes a block of
    rows at a time through one buffer (a 128x512 f32 accumulator on sm_90a); here
    the target's shared memory is shrunk so a small matmul takes that path (with its
    epilogue left outside the consumer agent, where sink-epilogue would put it)."""
    from tilec.ir.record import evolve
    from tilec.codegen.ptx import compile_text
    from tilec.conversion import target as T
    from tilec.schedule import schedule_pass
    monkeypatch.setitem(T.TARGETS, "sm_90a", evolve(T.TARGETS["sm_90a"], smem_bytes=16 * 1024))
    monkeypatch.setitem(schedule_pass.Schedule.OPTIONS, "sink-epilogue", (bool, False))
    case = cases.BY_NAME["cutile_matmul_f16"]
    ptx = compile_text(case.text(), arch="sm_90a", num_stages=1)
    assert ptx.count("join_skip") >= 4       # two blocks of rows: a branch and its label each
    want, _, _ = interpreter_result(case)
    got, _, _, launch = run_in_sim(case, ptx)
    cases.compare(case, launch, got, want)


def _shared_bytes(ptx):
    import re
    m = re.search(r"\.shared \.align \d+ \.b8 \w+\[(\d+)\]", ptx) or re.search(r"dynamic_shared_bytes \w+ (\d+)", ptx)
    return int(m.group(1)) if m else 0


def test_sequential_pipelines_share_stage_bytes(monkeypatch):
    """Loop splitting leaves causal attention two pipelined K loops, one after the
    other: their stage buffers are never live together and share bytes (the phase
    that first writes reused bytes starts with a barrier). The result stays the
    interpreter's."""
    from tilec.codegen.ptx import compile_text
    from tilec.codegen.ptx.builder import KernelBuilder
    case = cases.BY_NAME["cutile_attention_causal_f16"]
    shared = compile_text(case.text(), arch="sm_80")
    monkeypatch.setattr(KernelBuilder, "_live_phases", lambda self, lines: {})   # every buffer its own bytes
    separate = compile_text(case.text(), arch="sm_80")
    assert _shared_bytes(shared) < _shared_bytes(separate)
    want, _, _ = interpreter_result(case)
    got, _, _, launch = run_in_sim(case, shared)
    cases.compare(case, launch, got, want)


@pytest.mark.parametrize("arch", ARCHES)
def test_sim_layout_changes_by_rows(arch, monkeypatch):
    """When a kernel's shared memory is short, layout changes go through a small
    scratch buffer a block of rows at a time (compile_ops' first fallback). Forced
    here with a 512-byte buffer on the batched matmul, whose rank-3 accumulator
    moves into the mma layout of each batch (the attentions no longer move big
    tiles: their row statistics stay in slices of the accumulator and their
    causal masks are made in its layout); the result stays the interpreter's."""
    import tilec.codegen.ptx as P
    from tilec.codegen.ptx import compile_text
    case = cases.BY_NAME["cutile_bmm_f16"]
    whole = compile_text(case.text(), arch=arch)
    emit = P.emit_ptx
    monkeypatch.setattr(P, "emit_ptx", lambda *a, **k: emit(*a, **dict(k, scratch_limit=512)))
    by_rows = compile_text(case.text(), arch=arch)
    assert _shared_bytes(by_rows) <= _shared_bytes(whole)
    assert by_rows.count("bar.sync") > whole.count("bar.sync")     # two per block of rows
    want, _, _ = interpreter_result(case)
    got, _, _, launch = run_in_sim(case, by_rows)
    cases.compare(case, launch, got, want)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_layout_changes_by_rows_predicate_only_where_threads_differ(arch, monkeypatch):
    """A block of rows is written and read without predicates where every
    thread's slot falls in it (or in none: then nothing is emitted): the span
    of the threads' first rows decides it (Emitter._block_predicates). With a
    2 KB scratch the batched matmul's stores need none (32 before); the result
    stays the interpreter's."""
    import re
    import tilec.codegen.ptx as P
    from tilec.codegen.ptx import compile_text
    case = cases.BY_NAME["cutile_bmm_f16"]
    emit = P.emit_ptx
    monkeypatch.setattr(P, "emit_ptx", lambda *a, **k: emit(*a, **dict(k, scratch_limit=2048)))
    ptx = compile_text(case.text(), arch=arch)
    assert re.search(r"^\s*st\.shared", ptx, re.M) and not re.search(r"^\s*@%p\d+ st\.shared", ptx, re.M)
    want, _, _ = interpreter_result(case)
    got, _, _, launch = run_in_sim(case, ptx)
    cases.compare(case, launch, got, want)


def test_sim_dot_stages_k_blocks(monkeypatch):
    """A dot whose operand copies do not fit a short scratch (compile_ops'
    fallback) stages A's columns and B's rows a K block at a time: one k loop per
    block (forced here with a 2 KB limit on the tf32 matmul, whose operands are
    register tiles cast from f32; its tensor-core loop is `mma_k`); the result
    stays the interpreter's."""
    import tilec.codegen.ptx as P
    from tilec.codegen.ptx import compile_text
    case = cases.BY_NAME["cutile_matmul_tf32_cast"]
    whole = compile_text(case.text(), arch="sm_80")
    emit = P.emit_ptx
    monkeypatch.setattr(P, "emit_ptx", lambda *a, **k: emit(*a, **dict(k, scratch_limit=2048)))
    blocks = compile_text(case.text(), arch="sm_80")
    assert blocks.count("$L_mma_k") > whole.count("$L_mma_k") >= 1
    want, _, _ = interpreter_result(case)
    got, _, _, launch = run_in_sim(case, blocks)
    cases.compare(case, launch, got, want)


def test_overflow_compiles_again_with_fewer_stages(monkeypatch):
    """The scheduler fits stages against the stage buffers alone; when the code
    generator's own buffers then overflow the target, compile_ops compiles again
    with fewer stages and says so in a warning (cuTile configurations that
    tileiras compiles must compile). Simulated against the interpreter."""
    from tilec.ir.record import evolve
    from tilec.compiler import parse_and_compile
    from tilec.conversion import target as T
    case = cases.BY_NAME["cutile_matmul_f16"]
    two = _shared_bytes(parse_and_compile(case.text(), arch="sm_80"))
    one = _shared_bytes(parse_and_compile(case.text(), arch="sm_80", num_stages=1))
    assert one < two
    # room for two stages' buffers (the scheduler keeps 2), not for the barriers beside them
    monkeypatch.setitem(T.TARGETS, "sm_80", evolve(T.TARGETS["sm_80"], smem_bytes=two - 8))
    warnings = []
    ptx = parse_and_compile(case.text(), arch="sm_80", on_warnings=warnings.append)
    assert _shared_bytes(ptx) == one
    assert "compiled with 1 pipeline stage" in "".join(warnings)
    with pytest.raises(Exception, match="shared memory"):        # asked for: no fallback
        parse_and_compile(case.text(), arch="sm_80", num_stages=2)
    want, _, _ = interpreter_result(case)
    got, _, _, launch = run_in_sim(case, ptx)
    cases.compare(case, launch, got, want)


def test_agents_redo_broadcasts_instead_of_receiving_them(monkeypatch):
    """A broadcast defined before a warp-specialized loop and used inside it (cuTile
    hoists such tiles) is redone by the consumer agent from its small operand; only
    the operand goes through shared memory, and the producer agent receives nothing
    it does not use. Checked on causal attention with its row broadcast hoisted, the
    rematerialization of values free of layout turned off (it would make the mask,
    and this broadcast with it, inside the loop in the scores' layout)."""
    from tilec.codegen.ptx import compile_text
    from tilec.schedule import propagate_layouts
    monkeypatch.setattr(propagate_layouts, "plan", lambda *a, **k: None)
    case = cases.BY_NAME["cutile_attention_causal_f16"]
    lines = case.text().split("\n")
    i = next(k for k, ln in enumerate(lines) if "%bcast_59 = broadcast %reshape_32" in ln)
    j = next(k for k, ln in enumerate(lines) if ln.lstrip().startswith("%for_46:3 = for"))
    hoisted = "\n".join(lines[:j] + [lines[i]] + lines[j:i] + lines[i + 1:])
    ptx = compile_text(hoisted, arch="sm_90a")
    from tilec.dialects.nv_tileas.ops import pipeline as pipeline_ops
    with monkeypatch.context() as m:
        m.setattr(pipeline_ops, "AGENT_REMADE", ())         # hand off the 64x32 broadcast itself
        received = compile_text(hoisted, arch="sm_90a")
    assert _shared_bytes(ptx) < _shared_bytes(received)
    class Moved(cases.Case):
        def text(self):
            return hoisted
    moved = Moved(case.name, case.path, case.build)
    want, _, _ = interpreter_result(case)
    got, _, _, launch = run_in_sim(moved, ptx)
    cases.compare(case, launch, got, want)


@pytest.mark.parametrize("arch", ARCHES)
def test_sim_static_shared_memory_for_cutile(arch):
    """tilec-tileiras's PTX (cuTile passes no dynamic shared memory): every byte static,
    over 48 KiB on the arch-specific sm_90+ targets (ptxas takes it there), within
    48 KiB on sm_80 (fewer stages); the simulated kernel still computes what the
    interpreter does."""
    from tilec.compiler import compile_ops
    from tilec.frontend import parse_and_verify
    from tilec.ir.diagnostics import DiagnosticEngine
    case = cases.BY_NAME["cutile_matmul_gelu_f16"]
    engine = DiagnosticEngine()
    ops = parse_and_verify(case.text(), case.path, engine)
    ptx = compile_ops(ops, engine, arch, static_shared=True,
                      reload=lambda: parse_and_verify(case.text(), case.path, DiagnosticEngine()))
    assert ptx is not None, engine.render()
    assert ".extern .shared" not in ptx and "dynamic_shared_bytes" not in ptx
    size = _shared_bytes(ptx)
    assert (size > 48 * 1024) if arch != "sm_80" else (0 < size <= 48 * 1024)
    want, _, _ = interpreter_result(case)
    got, _, _, launch = run_in_sim(case, ptx)
    cases.compare(case, launch, got, want)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_a_cut_down_launch_runs_its_first_tile_blocks_in_both(arch):
    """tilegym_sim --cut: the interpreter's `blocks` and the simulator's `clusters`
    run the same first tile blocks of a launch, x fastest; the rest of the output
    keeps its initial contents in both."""
    from tilec.interp import launch as interp_launch
    from tilec.runtime import convert_scalars
    case = cases.BY_NAME["cutile_vector_add_f32"]      # 3 tile blocks of 256
    text, ptx = case.text(), ptx_or_fail(case, arch)
    a, b = (np.arange(768, dtype=np.float32) * k for k in (1, 2))
    want, got = np.full(768, -1, np.float32), np.full(768, -1, np.float32)
    args = [a, 768, 1, b, 768, 1]
    interp_launch(text, None, (3,), args + [want, 768, 1], blocks=2)
    ptxsim.run_ptx(ptx, entry_symbol(case), (3,), convert_scalars(text, args + [got, 768, 1]), clusters=2)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(want[:512], a[:512] + b[:512])
    assert (want[512:] == -1).all()
