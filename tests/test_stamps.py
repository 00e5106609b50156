"""`tilec compile --stamps`: thread 0 of each CTA writes %globaltimer at its phase
boundaries (codegen/ptx/stamps.py), read back by tilec.runtime.stamps. Checked:
nothing changes without the option; with it, the PTX assembles, and a simulated
launch of cuTile's aligned matmul (tensor maps, a TMA pipeline) writes every point
of every CTA in the order the kernel passes them, and computes what it did."""
from __future__ import annotations

import re

import numpy as np
import pytest

from tilec.codegen.ptx import compile_text
from tilec.runtime import stamps

try:
    from gpu import cases
    import ptxsim
except ImportError:
    from tests.gpu import cases
    from tests import ptxsim

MATMUL = "cutile_matmul_f16_aligned"


def _case():
    return cases.BY_NAME[MATMUL]


def test_without_the_option_nothing_is_emitted():
    """No stamp array and no stamp stores, and no read of the timer: the CTA's first
    loads leave at its entry (first_fills.py), so it has no start wait
    (start_phase.py) either."""
    ptx = compile_text(_case().text(), arch="sm_90a")
    stamped = compile_text(_case().text(), arch="sm_90a", stamps=True)
    assert "__tilec_stamps" not in ptx and "__tilec_stamps" in stamped
    assert "%globaltimer" not in ptx and "%globaltimer" in stamped


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80", "sm_100a"])
def test_the_stamped_kernel_assembles(arch):
    from tilec.ptxas import find_ptxas
    import subprocess
    ptx = compile_text(_case().text(), arch=arch, stamps=True)
    assert re.search(r"\.global \.align 8 \.u64 __tilec_stamps_\w+\[32768\];", ptx)
    assert ptx.count("mov.u64 \t%rd") and "%globaltimer" in ptx
    ptxas = find_ptxas()
    if ptxas is None:
        pytest.skip("no ptxas")
    p = subprocess.run([ptxas, f"-arch={arch}", "-", "-o", "/dev/null"], input=ptx, text=True,
                       capture_output=True)
    assert p.returncode == 0, p.stderr


def test_a_simulated_launch_stamps_every_point_in_order():
    from test_ptx_sim import entry_symbol, interpreter_result
    from tilec.runtime import convert_scalars
    case = _case()
    ptx = compile_text(case.text(), arch="sm_90a", stamps=True)
    launch = case.build(case.rng())
    args, memo = cases.copy_args(launch.args)
    name = entry_symbol(case)
    got = ptxsim.run_ptx(ptx, name, launch.grid, convert_scalars(case.text(), args))
    cases.compare(case, launch, cases.outputs_of(launch, memo), interpreter_result(case)[0])
    grid = tuple(launch.grid) + (1, 1)
    ctas = grid[0] * grid[1] * grid[2]
    t = stamps.table(got.global_as(f"__tilec_stamps_{name}", np.uint64), ctas)
    order = ["entry", "claimed", "keys", "maps_ready", "exit"]
    for p in order + ["first_data"]:
        assert not np.isnan(t[p]).any(), p
    for a, b in zip(order, order[1:]):
        assert (t[a] < t[b]).all(), (a, b)
    # the consumers start on the slots first fills copied, whether or not the maps are ready
    assert (t["entry"] < t["first_data"]).all() and (t["first_data"] < t["exit"]).all()
    assert np.nanmin(t["entry"]) == 0
    assert "maps_ready" in stamps.summary(t)


def test_the_table_marks_points_a_cta_did_not_pass():
    raw = np.zeros(3 * 8, np.uint64)
    raw[0], raw[3] = 5_000, 9_000            # CTA 0: entry, exit
    raw[8], raw[11] = 6_000, 8_000           # CTA 1: entry, exit
    t = stamps.table(raw, 3)                 # CTA 2 wrote nothing
    assert list(t["entry"][:2]) == [0.0, 1.0] and np.isnan(t["entry"][2])
    assert list(t["exit"][:2]) == [4.0, 3.0] and np.isnan(t["maps_ready"]).all()


def test_the_cli_takes_the_option(run_cli, tmp_path):
    import os
    from conftest import ROOT
    out = tmp_path / "k.ptx"
    src = os.path.join(ROOT, "examples", "cutile", "matmul_f16_aligned.mlir")
    rc, _, err = run_cli("compile", src, "--stamps", "-o", str(out))
    assert rc == 0, err
    assert "__tilec_stamps_matmul_f16_aligned" in out.read_text()
