"""A K loop's other work beside its dot: pipelined, and given the warps its registers need.

Two kernels of our own (examples/export_cutile.py, 44 and 45), shaped like TileGym's
mHC split GEMM and w8a8 block-scaled fp8 GEMM:

- matmul_blockscale_f16_aligned scales each K step's product by gathered scales
  whose column is an integer division of the K offset, one of them a scalar read
  through an `assume div_by<4>` pointer. The division (which may trap, so is not
  Pure) and the assume kept the loop from being pipelined at all, and the scalar
  read stayed a side-effecting cuda_tile.load_ptr_tko. Its two 128x128 f32 tiles
  (the accumulator and the step's product) then need two consumer warpgroups.
- matmul_rowsq_bf16_aligned squares its A tile and sums the rows beside the dot:
  the squares stream into the sums, so one consumer warpgroup holds the loop.

A kernel without dots (example 47, RMS norm backward, shaped like TileGym's) gets
8 warps where its loop's tiles would not fit a thread's registers on 4.
"""
from __future__ import annotations

import os
import re

import pytest
from conftest import ROOT, ptxas_stderr
from test_lowering_util import lower, read, text_of

SCALED = "examples/cutile/matmul_blockscale_f16_aligned.mlir"
ROWSQ = "examples/cutile/matmul_rowsq_bf16_aligned.mlir"


def _loop_analysis(path):
    from tilec.schedule.analysis import analyze_loop, candidate_loops
    ok, ops, engine = lower(read(path), "sm_90a", schedule=False)
    assert ok, [d.message for d in engine.diagnostics]
    blocks = [b for top in ops for r in top.regions for b in r.blocks]
    loops = [analyze_loop(loop) for loop in candidate_loops(blocks)]
    assert len(loops) == 1
    return loops[0]


def test_a_scalar_read_through_an_assumed_pointer_is_a_gather():
    ok, ops, engine = lower(read(SCALED), "sm_90a", schedule=False)
    assert ok
    text = text_of(ops)
    assert "load_ptr_tko" not in text
    gathers = re.findall(r'"nv_tileas.gather_load".* -> !cuda_tile.tile<([^>]*)>', text)
    assert sorted(gathers) == ["128xf32", "f32"], gathers


def test_an_integer_division_and_an_assume_do_not_stop_the_pipeline():
    a = _loop_analysis(SCALED)
    body = [op.name for op in a.body.ops]
    assert "cuda_tile.divi" in body and "cuda_tile.assume" in body
    assert a.pipelinable, a.reason


def _compile(path, num_warps=None):
    """(PTX for sm_90a, the rendered warnings)."""
    from tilec.compiler import parse_and_compile
    warnings = []
    ptx = parse_and_compile(read(path), path, "sm_90a", num_warps, on_warnings=warnings.append)
    return ptx, "".join(warnings)


def _threads(ptx):
    return int(re.search(r"\.reqntid (\d+)", ptx).group(1))


def test_two_consumer_warpgroups_where_one_cannot_hold_the_loop(tmp_path):
    ptx, _ = _compile(SCALED)
    assert _threads(ptx) == 384                  # a TMA producer warpgroup and two consumers
    assert "cp.async.bulk.tensor" in ptx and "setmaxnreg.inc.sync.aligned.u32" in ptx
    log = ptxas_stderr(ptx, tmp_path)
    assert " 0 bytes spill stores" in log, log


def test_warps_asked_for_are_kept():
    ptx, _ = _compile(SCALED, num_warps=4)
    assert _threads(ptx) == 256


def test_squares_streamed_into_row_sums_leave_one_consumer_warpgroup(tmp_path):
    from tilec.conversion.target import target_for
    from tilec.schedule.budget import estimate_registers, streamed
    a = _loop_analysis(ROWSQ)
    made = {op.name: op.results[0] for op in a.body.ops if op.results}
    assert streamed(made["cuda_tile.ftof"]) and streamed(made["cuda_tile.mulf"])
    assert not streamed(made["nv_tileas.dot"])
    regs = estimate_registers(a, target_for("sm_90a"), 4)
    assert regs.consumer <= regs.consumer_budget, regs
    ptx, warnings = _compile(ROWSQ)
    assert "registers per thread" not in warnings, warnings
    assert _threads(ptx) == 256
    log = ptxas_stderr(ptx, tmp_path)
    assert " 0 bytes spill stores" in log, log


def test_opt_schedules_with_the_warps_compile_picks(run_cli):
    rc, out, err = run_cli("opt", os.path.join(ROOT, SCALED), "--lower-to-tileas", "--schedule")
    assert rc == 0, err
    assert re.search(r"agent_switch.*num_agents_per_group = 2", out)
    rc, out, err = run_cli("opt", os.path.join(ROOT, SCALED), "--lower-to-tileas", "--schedule", "--num-warps", "4")
    assert rc == 0, err
    assert re.search(r"agent_switch.*num_agents_per_group = 1", out)


NORM_BWD = "examples/cutile/rms_norm_bwd_bf16.mlir"


def _spilled(ptx, tmp_path, arch):
    log = ptxas_stderr(ptx, tmp_path, arch)
    return sum(int(n) for n in re.findall(r"(\d+) bytes spill stores", log))


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_a_dotless_loop_of_wide_tiles_gets_eight_warps(tmp_path, arch):
    """RMS norm backward's dx (example 47) holds two 4x4096 f32 tiles through its
    persistent loop: 256 registers a thread on 4 warps, 128 on 8."""
    from tilec.compiler import parse_and_compile
    text = read(NORM_BWD)
    auto = parse_and_compile(text, NORM_BWD, arch, None)
    four = parse_and_compile(text, NORM_BWD, arch, 4)
    assert (_threads(auto), _threads(four)) == (256, 128)
    assert _spilled(auto, tmp_path, arch) * 10 < _spilled(four, tmp_path, arch)


def test_a_dotless_kernel_of_narrow_tiles_keeps_four_warps():
    from tilec.compiler import parse_and_compile
    path = "examples/cutile/layernorm_rows_f32.mlir"
    assert _threads(parse_and_compile(read(path), path, "sm_90a", None)) == 128
