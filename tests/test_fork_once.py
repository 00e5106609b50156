"""A persistent kernel forks its agents once (tilec/schedule/fork_once.py): the
pipelines are set up before the loop over output tiles, and each agent runs
its own copy of that loop, carrying its iterators from tile to tile.

The cases (tests/gpu/cases.py) run more tiles than blocks (8 tiles over 3
blocks, 18 over 5) with fewer K trips than stages (7 against 8), so a ring's
rounds straddle tiles: a phase or a slot counted afresh at a tile would show."""
from __future__ import annotations

import re

import pytest

from test_ptx_sim import entry_symbol, interpreter_result
from tilec.codegen.ptx import compile_text
from tilec.runtime import convert_scalars

try:
    from gpu import cases
except ImportError:                    # pragma: no cover
    from tests.gpu import cases
try:
    import ptxsim
except ImportError:                    # pragma: no cover
    from tests import ptxsim

PERSISTENT = ["cutile_persistent_bmm_f16_aligned", "cutile_persistent_bmm_f16"]


def _run(case, ptx, arch="sm_90a"):
    launch = case.build(case.rng())
    args, memo = cases.copy_args(launch.args)
    res = ptxsim.run_ptx(ptx, entry_symbol(case), launch.grid, convert_scalars(case.text(), args),
                         check_races=True)
    assert res.stats["race_checked"]
    cases.compare(case, launch, cases.outputs_of(launch, memo), interpreter_result(case)[0])


@pytest.mark.parametrize("arch", ["sm_90a", "sm_100a"])
@pytest.mark.parametrize("name", PERSISTENT)
def test_the_agents_fork_before_the_tile_loop(name, arch):
    """The barriers are initialized once, before the agents fork; each agent runs
    the tile loop with the K loop inside it; the agents join once, at the end."""
    case = cases.BY_NAME[name]
    ptx = compile_text(case.text(), arch=arch)
    fork = ptx.rindex("bra \t$L_agent0_end", 0, ptx.index("\n$L_agent0_end"))
    assert "mbarrier.init" in ptx[:fork] and ptx[:fork].count("$L_for_head") == 0
    assert len(re.findall(r"\n\$L_agents_join_\d+:", ptx)) == 1
    agents = re.split(r"\n\$L_agent\d_end_\d+:", ptx[fork:])[:2]
    for agent in agents:
        # the tile loop, then the K loop in it; no barrier initialized in either (on sm_100a
        # the consumer initializes its tensor-memory barriers once, before them)
        assert len(re.findall(r"\n\$L_for_head_\d+:", agent)) == 2
        assert "mbarrier.init" not in agent[agent.index("$L_for_head"):]


@pytest.mark.parametrize("arch", ["sm_90a", "sm_100a"])
@pytest.mark.parametrize("name", PERSISTENT)
def test_rings_carried_across_tiles_give_the_interpreters_result(name, arch):
    case = cases.BY_NAME[name]
    _run(case, compile_text(case.text(), arch=arch), arch)


def test_rings_restarted_at_every_tile_are_caught(monkeypatch):
    """A mutation: each agent's tile loop starts every tile from the iterators the
    set-up made (stage 0, phase 0, the ring's first round) while the barriers keep
    their phases: the agents lose step with the barriers. Every tile then takes
    the first slots for the ones copied at the entry (first_fills.py): the
    producer skips their loads and the consumers read the first tile's data
    again, or, without first fills, copies are left in flight when the CTA
    ends."""
    from tilec.schedule import fork_once
    monkeypatch.setattr(fork_once, "_last_value", lambda block, it: it if any(
        it is v for op in block.ops for v in op.operands) else None)
    case = cases.BY_NAME["cutile_persistent_bmm_f16_aligned"]
    ptx = compile_text(case.text(), arch="sm_90a")
    with pytest.raises(cases.Mismatch, match="output c"):
        _run(case, ptx)
    monkeypatch.setenv("TILEC_FIRST_FILLS", "0")
    with pytest.raises(ptxsim.PTXRuntimeError, match="in flight"):
        _run(case, compile_text(case.text(), arch="sm_90a"))


@pytest.mark.parametrize("once", ["true", "false"])
def test_the_schedule_option_keeps_a_fork_per_tile(once, tmp_path):
    """`schedule{fork-once=false}` keeps the pipelines' set-up and the agent_switch
    inside the tile loop; by default both come before it, and the switch's regions
    each hold a tile loop whose iter_args are the iterators."""
    from tilec.cli import main
    case = cases.BY_NAME["cutile_persistent_bmm_f16_aligned"]
    out = tmp_path / "out.mlir"
    pipeline = f"builtin.module(lower-to-tileas{{arch=sm_90a}},schedule{{arch=sm_90a fork-once={once}}})"
    assert main(["opt", case.full_path, f"--pass-pipeline={pipeline}", "-o", str(out)]) == 0
    text = out.read_text()
    first_loop = text.index("scf.for")
    switch = text.index("agent_switch")
    if once == "true":
        assert text.index("create_pipeline") < switch < first_loop
        assert re.search(r"scf\.for %\w+ = [^\n]*iter_args\(%\w+ = %\w+, %\w+ = %\w+\) -> "
                         r"\(!nv_tileas\.async\.pipeline\.iterator", text[switch:])
    else:
        assert first_loop < text.index("create_pipeline") < switch
