"""The simulator's copy_timing="eager" (tests/ptxsim/__init__.py): cp.async and
cp.async.bulk.tensor write shared memory when they are issued (the earliest a GPU
may), threads released by an mbarrier phase run next, and a copy landing on shared
bytes that a wgmma.mma_async still in flight reads is reported.

The default timing lands copies as late as possible, which catches a consumer
that reads a slot before waiting for it but not a consumer that releases a slot
too early: tilec keeps a wgmma group in flight across K-loop iterations and
defers the release of the slots it reads by one iteration
(tilec/codegen/ptx/wgmma_inflight.py). With that deferral switched off
(deferred_release monkeypatched to "never defer"), the producer may refill a
slot the in-flight group still reads:

- (a) the sm_90a pipelined examples match the interpreter in eager mode;
- (b) with the early release, eager mode reports the overwrite, on the TMA
  kernel (matmul_f16_aligned, whose refill the default timing never lands
  before the wgmma reads it) and on the cp.async one (matmul_f16, with a longer K
  than its GPU case: the case's K = 80 makes three K tiles for three stages, so
  no slot is ever refilled and no schedule can show the bug).
"""
from __future__ import annotations

import numpy as np
import pytest

from test_ptx_sim import _CP_ASYNC_PTX, entry_symbol, interpreter_result
from test_ptxsim_tma import _f16_rows, expected_box, tma_kernel

try:
    from gpu import cases
except ImportError:                    # pragma: no cover
    from tests.gpu import cases
try:
    import ptxsim
except ImportError:                    # pragma: no cover
    from tests import ptxsim


def _matmul_f16_long_k(rng):
    """matmul_f16 (64x64x32 tiles, three stages) with K = 208: seven K tiles, so the
    producer refills every slot at least once (the GPU case's K = 80 never does)."""
    a = rng.standard_normal((128, 208)).astype(np.float16)
    b = rng.standard_normal((208, 128)).astype(np.float16)
    c = np.zeros((128, 128), np.float16)
    return cases.Launch((2, 2), cases.arr(a) + cases.arr(b) + cases.arr(c),
                        [("c", c, cases.Scaled(2e-3, cases._mm_scale(a, b)))])


LONG_K = cases.Case("cutile_matmul_f16_long_k", "cutile/matmul_f16.mlir", _matmul_f16_long_k)
CASES = {c.name: c for c in [cases.BY_NAME[n] for n in (
    "cutile_matmul_f16", "cutile_matmul_f16_aligned", "cutile_bmm_tt_f16_aligned", "cutile_matmul_gelu_f16",
    "cutile_matmul_fp8_bt_aligned", "cutile_persistent_bmm_f16_aligned", "cutile_attention_m128_f16_aligned")]
    + [LONG_K]}
NOT_IN_FLIGHT = {"cutile_attention_m128_f16_aligned"}    # rescaled accumulators: waited for every iteration

_ptx = {}


def compile_sm90a(case):
    from tilec.codegen.ptx import compile_text
    if case.name not in _ptx:
        _ptx[case.name] = compile_text(case.text(), arch="sm_90a")
    return _ptx[case.name]


def run_sim(case, ptx, **kw):
    """Simulate `case` (its GPU launch) with run_ptx options `kw`; raises cases.Mismatch
    when the result differs from the interpreter's."""
    from tilec.runtime import convert_scalars
    want, _, _ = interpreter_result(case)
    launch = case.build(case.rng())
    args, memo = cases.copy_args(launch.args)
    ptxsim.run_ptx(ptx, entry_symbol(case), launch.grid, convert_scalars(case.text(), args), **kw)
    cases.compare(case, launch, cases.outputs_of(launch, memo), want)


@pytest.mark.parametrize("order", ["alternate", "reverse"])
@pytest.mark.parametrize("name", list(CASES))
def test_eager_copies_match_the_interpreter(name, order):
    case = CASES[name]
    ptx = compile_sm90a(case)
    in_flight = "wgmma.wait_group.sync.aligned \t1" in ptx
    assert in_flight != (name in NOT_IN_FLIGHT), "the wgmma group no longer stays in flight (or now does)"
    run_sim(case, ptx, copy_timing="eager", thread_order=order)


def _early_release_ptx(case, monkeypatch):
    """`case` compiled for sm_90a with every consumer release immediate (the bug)."""
    import tilec.codegen.ptx.wgmma_inflight as inflight
    from tilec.codegen.ptx import compile_text
    with monkeypatch.context() as m:
        m.setattr(inflight, "deferred_release", lambda *a, **k: False)
        ptx = compile_text(case.text(), arch="sm_90a")
    assert ptx != compile_sm90a(case)
    return ptx


@pytest.mark.parametrize("order", ["alternate", "reverse"])
@pytest.mark.parametrize("name", ["cutile_matmul_f16_aligned", "cutile_matmul_f16_long_k"])
def test_eager_copies_catch_a_slot_released_too_early(name, order, monkeypatch):
    case = CASES[name]
    ptx = _early_release_ptx(case, monkeypatch)
    copy = "cp.async.bulk.tensor" if "aligned" in name else "cp.async"
    with pytest.raises(ptxsim.PTXRuntimeError, match=rf"^{copy} writes shared offset \d+, which a "
                                                     r"wgmma.mma_async of warpgroup 1 in flight reads"):
        run_sim(case, ptx, copy_timing="eager", thread_order=order)


def test_the_default_timing_misses_the_early_tma_refill(monkeypatch):
    """Why eager mode exists: with copies landing as late as possible, the refill of a
    slot released too early lands after the in-flight wgmma read it (the result is
    right, the kernel is not)."""
    case = CASES["cutile_matmul_f16_aligned"]
    run_sim(case, _early_release_ptx(case, monkeypatch))


# ---- the timing itself, on small kernels --------------------------------------------------------

def test_eager_cp_async_lands_at_issue():
    """The read before the barrier sees the copy (late timing: the old value 7)."""
    src = np.array([11, 12, 13, 14], np.uint32)
    for timing, first in (("late", 7), ("eager", 11)):
        out = np.full(3, 99, np.uint32)
        ptxsim.run_ptx(_CP_ASYNC_PTX, "k", 1, [src, out], block=(32, 1, 1), copy_timing=timing)
        assert out.tolist() == [first, 11, 0]


def test_eager_tma_lands_at_issue():
    """A read of the slot that does not wait sees the box (late timing: the 0xFF fill):
    the words lane 0 copies out after issuing the copy (the others may run first)."""
    phys, logical = _f16_rows(40, 100, 4, 1)
    box = (64, 16)
    ptx = tma_kernel(np.float16, box, 128, wait=False)
    dense = expected_box(logical, (0, 0), box).view(np.uint8).ravel()
    off = np.arange(dense.size)
    slot = dense[off ^ (((off >> 7) & 7) << 4)].view(np.uint32)       # the 128-byte swizzle
    for timing in ("late", "eager"):
        out = np.zeros(64 * 16 * 2, np.uint8)
        res = ptxsim.run_ptx(ptx, "k", 1, [phys, out, 100, 40, phys.strides[0], 0, 0], copy_timing=timing)
        assert res.stats["tma_loads"] == 1
        words = out.view(np.uint32)
        if timing == "late":
            assert (out == 0xFF).all()
        else:
            np.testing.assert_array_equal(words[::32], slot[::32])
            assert not (words[::32] == 0xFFFFFFFF).any()


def test_bad_copy_timing():
    with pytest.raises(ptxsim.PTXSimError, match="copy_timing 'early'"):
        ptxsim.run_ptx(_CP_ASYNC_PTX, "k", 1, [np.zeros(4, np.uint32), np.zeros(3, np.uint32)],
                       block=(32, 1, 1), copy_timing="early")
