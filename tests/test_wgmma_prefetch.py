"""A loop's independent wgmma dot issued one trip ahead (tilec/codegen/ptx/wgmma_prefetch.py).

Attention's S = Q K^T depends only on Q (loop-invariant, in shared memory) and
the key block's slot, and starts from a zero tile. So each trip of the key loop
issues the next block's S right after reading its own, and the group runs under
the softmax and P V. Checked here in the PTX simulator against the interpreter
with one key block (the group issued before the loop, none in it), with three
(prefetches in the loop, the last trip issuing none) and with no key block at
all (nothing issued); in both copy timings. The simulator makes registers of a
group in flight read as uninitialized, so a trip that read S without waiting
for its group would fail: the mutation test shows it does.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

from test_ptxsim_eager import run_sim

try:
    from gpu import cases
except ImportError:                    # pragma: no cover
    from tests.gpu import cases
try:
    import ptxsim
except ImportError:                    # pragma: no cover
    from tests import ptxsim

ATTENTION = "cutile/attention_m128_f16_aligned.mlir"


def _keys(n_keys):
    """One block of 128 query rows against `n_keys` keys (64 per key block)."""
    def build(rng):
        q = (rng.standard_normal((1, 128, 64)) * 2).astype(np.float16)
        k = rng.standard_normal((1, n_keys, 64)).astype(np.float16)
        v = rng.standard_normal((1, n_keys, 64)).astype(np.float16)
        o = np.zeros_like(q)
        return cases.Launch((1, 1), cases.arr(q) + cases.arr(k) + cases.arr(v) + cases.arr(o) + [0.125],
                            [("o", o, cases.Close(5e-3, 5e-3))])
    return cases.Case(f"attention_aligned_{n_keys}_keys", ATTENTION, build)


_ptx = {}


def _compiled():
    from tilec.codegen.ptx import compile_text
    if "ptx" not in _ptx:
        _ptx["ptx"] = compile_text(_keys(64).text(), arch="sm_90a")
    return _ptx["ptx"]


@pytest.mark.parametrize("timing", ["late", "eager"])
@pytest.mark.parametrize("n_keys", [0, 64, 192])
def test_every_trip_count_matches_the_interpreter(n_keys, timing):
    run_sim(_keys(n_keys), _compiled(), copy_timing=timing)


def test_the_key_loop_issues_the_next_blocks_scores_before_its_softmax():
    """Inside the key loop: the trip waits for its own S group, scales S, and then
    (guarded by `iv + step < ub`) issues the next block's group; no wait follows
    until after the exponentials. One more guarded group sits before the loop."""
    lines = _compiled().splitlines()
    ex2 = next(i for i, x in enumerate(lines) if "ex2.approx" in x)
    head = max(i for i in range(ex2) if lines[i].startswith("$L_for_head"))
    issues = [i for i, x in enumerate(lines) if "wgmma.mma_async" in x and "{%r" not in x]
    before = [i for i in issues if i < head]
    inside = [i for i in issues if head < i < ex2]
    assert before and inside and len(before) == len(inside)
    waits = [i for i, x in enumerate(lines) if "wgmma.wait_group" in x]
    own = next(w for w in waits if w > head)
    assert own < inside[0]
    assert re.match(r"\s*mul\.rn\.f32", lines[own + 1])      # the first read of S follows its wait
    assert not [w for w in waits if inside[-1] < w < ex2]
    guard = max(i for i in range(inside[0]) if "bra" in lines[i] and "prefetch_done" in lines[i])
    assert own < guard and re.match(r"\s*@!%p\d+ bra", lines[guard])


def test_reading_the_scores_without_waiting_fails_in_the_simulator():
    """The mutation: drop the trip's wait for its prefetched group; the simulator
    then reads S as uninitialized (the group is still in flight)."""
    lines = _compiled().splitlines()
    ex2 = next(i for i, x in enumerate(lines) if "ex2.approx" in x)
    head = max(i for i in range(ex2) if lines[i].startswith("$L_for_head"))
    own = next(i for i in range(head, ex2) if "wgmma.wait_group" in lines[i])
    broken = "\n".join(lines[:own] + lines[own + 1:])
    with pytest.raises(ptxsim.PTXRuntimeError):
        run_sim(_keys(192), broken)


@pytest.mark.parametrize("path", ["cutile/matmul_f16_aligned.mlir", "cutile/bmm_tt_f16_aligned.mlir",
                                  "cutile/persistent_bmm_f16_aligned.mlir"])
def test_an_accumulating_dot_is_not_issued_ahead(path):
    """A K loop's dot accumulates into the loop's carried tile: its next trip
    depends on this one, so nothing is prefetched (it stays in flight instead,
    wgmma_inflight)."""
    from tilec.codegen.ptx import compile_text
    ptx = compile_text(cases.Case(path, path, None).text(), arch="sm_90a")
    assert "prefetch_done" not in ptx and "wgmma.wait_group.sync.aligned \t1" in ptx
