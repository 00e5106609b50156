"""Layouts in scheduled nv_tileas IR (schedule/layouts.py, schedule/sink_epilogue.py,
dialects/nv_tileas/operands.py): what `tilec opt --lower-to-tileas --schedule` prints
for the tensor-core kernels, and the rules behind it."""
import re

import pytest

from test_lowering_util import errors, lower, read, text_of
from tilec.dialects.nv_tileas.operands import slot_source, wgmma_in_place
from tilec.schedule.budget import fit_stages

ATTENTION = "examples/cutile/attention_m128_f16.mlir"
MATMUL = "examples/cutile/matmul_f16.mlir"
MATMUL_TT = "examples/cutile/matmul_tt_f16.mlir"


def scheduled(path, arch, **opts):
    ok, ops, engine = lower(read(path), arch, **opts)
    assert ok, errors(engine)
    return ops, text_of(ops)


def layouts(text):
    return re.findall(r"nv_tileas\.convert_layout %\S+ \{layout = #nv_tileas<layout ([^>]*)>[,}]", text)


def dots(ops):
    return [op for top in ops for op in top.walk() if op.name == "nv_tileas.dot"]


@pytest.mark.parametrize("arch,acc", [("sm_80", "mma, warps = [4, 1]"), ("sm_90a", "wgmma")])
def test_attention_names_its_layouts(arch, acc):
    """Q, the same on every iteration, moves once into the shared layout before the
    loop (and the agents); both dots' accumulators name the layout they compute in:
    wgmma on sm_90a (their B, K^T and V, is read in place from its slot), and on
    sm_80 an mma grid of warps that split rows only (P, the first dot's result, is
    the second dot's A: whole rows per warp are its fragments)."""
    ops, text = scheduled(ATTENTION, arch)
    assert layouts(text) == ["shared", acc, acc]
    lines = text.splitlines()
    shared = next(i for i, l in enumerate(lines) if "layout shared" in l)
    loop = next(i for i, l in enumerate(lines) if "scf.for" in l)
    assert shared < loop
    assert re.search(r"convert_layout %reshape \{layout = #nv_tileas<layout shared>[,}]", text)


def test_operand_sources_are_read_through_views():
    """The views between a dot operand and its pipeline slot are replayed from the IR:
    attention's K^T is its slot transposed, V its slot; matmul_tt's A and B are both
    transposed (rank-3 slots permuted, then reshaped)."""
    ops, _ = scheduled(ATTENTION, "sm_90a")
    first, second = dots(ops)
    assert slot_source(first.operands[0]) is None            # Q: the shared-layout tile
    assert slot_source(first.operands[1])[1] is True         # K^T
    assert slot_source(second.operands[0]) is None           # P: registers
    assert slot_source(second.operands[1])[1] is False       # V
    assert wgmma_in_place(first) and wgmma_in_place(second)
    ops, _ = scheduled(MATMUL_TT, "sm_90a")
    (dot,) = dots(ops)
    assert slot_source(dot.operands[0])[1] is True and slot_source(dot.operands[1])[1] is True


def test_epilogue_runs_in_the_consumer_agent():
    """The ops after a warp-specialized loop that use only the consumer's results run
    in the consumer agent (no join of the accumulator through shared memory);
    sink-epilogue=false keeps them after the agent_switch."""
    def store_in_switch(ops):
        (store,) = [op for top in ops for op in top.walk() if op.name == "nv_tileas.tiled_store"]
        return any(p.name == "nv_tileas.async.pipeline.agent_switch" for p in store.ancestors())
    ops, _ = scheduled(MATMUL, "sm_90a")
    assert store_in_switch(ops)
    ops, _ = scheduled(MATMUL, "sm_90a", sink_epilogue="false")
    assert not store_in_switch(ops)


def test_shared_operands_fit_the_budget():
    """The shared layout takes what the stage buffers and a scratch reserve leave of the
    kernel's budget: a budget too small for Q leaves Q to be staged on each iteration."""
    _, text = scheduled(ATTENTION, "sm_80", smem_budget=40 * 1024)
    assert "{layout = #nv_tileas<layout shared>" not in text
    _, text = scheduled(ATTENTION, "sm_80", smem_budget=160 * 1024)
    assert "{layout = #nv_tileas<layout shared>" in text


class _Stages:
    def __init__(self, per_stage):
        self.per_stage = per_stage

    def smem_bytes(self, n):
        return n * self.per_stage


class _Target:
    smem_bytes = 100


@pytest.mark.parametrize("per_stage,reserve,want", [
    (30, 0, 3),      # three stages fit
    (30, 20, 2),     # the invariant operands leave room for two
    (30, 50, 3),     # they would leave one: the reserve is dropped (operands staged), three fit
    (60, 30, 1),     # without the reserve one fits
])
def test_stage_fit_reserves_invariant_operands(per_stage, reserve, want):
    assert fit_stages(_Stages(per_stage), _Target(), 3, reserve) == want
