"""CTAs that read the same operand tiles start their loads in step
(codegen/ptx/start_phase.py): where device tensor maps feed tensor-core dots,
every thread waits, once the maps are ready, for the next START_PERIOD_NS
boundary of %globaltimer, in launches of more CTAs than the GPU has SMs."""
from __future__ import annotations

import re

import numpy as np
import pytest

try:
    import ptxsim
    from gpu import cases
except ImportError:                    # pragma: no cover
    from tests import ptxsim
    from tests.gpu import cases

from tilec.codegen.ptx import compile_text
from tilec.codegen.ptx.start_phase import START_PERIOD_NS


@pytest.fixture(scope="module")
def matmul():
    """The aligned matmul as it starts without first fills (first_fills.py, which
    requests the first slots at the entry instead, and so does not wait)."""
    case = cases.BY_NAME["cutile_matmul_f16_aligned"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TILEC_FIRST_FILLS", "0")
        return case, compile_text(case.text(), arch="sm_90a")


def test_first_fills_take_the_waits_place(matmul):
    case, _ = matmul
    ptx = compile_text(case.text(), arch="sm_90a")
    assert "%globaltimer" not in ptx and "cp.async.cg.shared.global" in ptx


def test_the_wait_comes_between_the_maps_and_the_first_load(matmul):
    _, ptx = matmul
    reads = [m.start() for m in re.finditer(r"%globaltimer", ptx)]
    assert len(reads) == 2                       # the goal, and the spin's read
    maps = ptx.index("$L_tmap_built")
    grid = ptx.index("%nsmid")
    first_load = ptx.index("cp.async.bulk.tensor")
    assert maps < grid < reads[0] < reads[1] < first_load
    # a launch of at most one CTA per SM skips it; the goal is the next multiple of the period
    assert re.search(r"setp\.le\.u32 \t(%p\d+), %r\d+, %r\d+;\n\t@\1 bra \t\$L_in_step_\d+;", ptx)
    # the maps' CTA barrier comes right after: warp 0, last there, sets when the CTA goes
    assert re.search(r"\n\$L_in_step_\d+:\n\tbar\.sync \t0;\n\tsetp", ptx)
    assert "add.u64 \t%rd" in ptx and re.search(rf"and\.b64 \t%rd\d+, %rd\d+, {-START_PERIOD_NS};", ptx)


def test_no_wait_without_device_maps(matmul):
    case, _ = matmul
    assert "%globaltimer" not in compile_text(case.text(), arch="sm_80")


def _run(case, ptx, grid):
    from tilec.interp import find_kernel, parse_module
    from tilec.runtime import convert_scalars
    entry, _ = find_kernel(parse_module(case.text(), case.full_path))
    launch = case.build(case.rng())
    out = launch.outputs[0][1]
    res = ptxsim.run_ptx(ptx, entry.sym_name.value, grid, convert_scalars(case.text(), launch.args),
                         check_races=True)
    return launch, out, res


def test_only_a_launch_of_several_waves_waits(matmul):
    """The simulator has ptxsim.runtime.NSMID SMs: the case's 2x2 grid fits them and
    never reads the timer; a third row of tile blocks (past the array's rows: zero
    fill, clipped stores) makes six CTAs, which wait, race-free, with the same result."""
    case, ptx = matmul
    results = []
    for grid in ((2, 2), (3, 2)):
        launch, out, res = _run(case, ptx, grid)
        waits = res.stats["globaltimer_reads"]
        assert res.stats["race_checked"]
        assert (waits == 0) == (grid[0] * grid[1] <= ptxsim.runtime.NSMID), (grid, waits)
        results.append(out.copy())
    a, b = [np.asarray(v, np.float32) for v in launch.args if isinstance(v, np.ndarray)][:2]
    np.testing.assert_allclose(results[0].astype(np.float32), a @ b, rtol=2e-2, atol=0.25)
    np.testing.assert_array_equal(results[0], results[1])
