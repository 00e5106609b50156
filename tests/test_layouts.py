"""Layouts as IR: `#nv_tileas<layout ...>` on nv_tileas.convert_layout, the
accumulator conversions assign-layouts inserts before tensor-core dots (for
the group that runs them), chain trimming that keeps a named layout, and the
emitter reading the layout back."""
import re

import pytest

from test_lowering_util import lower, read, text_of
from tilec.dialects.nv_tileas.layout_attr import LayoutAttr
from tilec.dialects.nv_tileas.layouts import MmaAcc, blocked, mma_acc
from tilec.ir.diagnostics import DiagnosticEngine
from tilec.ir.verifier import verify
from tilec.passes.manager import PassManager
from tilec.passes.pipeline import Nest, make_pass
from tilec.syntax.parser import parse_text
from tilec.syntax.printer import print_ops

KERNEL = """cuda_tile.module @m {
  entry @k(%s: tile<f32>) {
    %r = reshape %s : tile<f32> -> tile<1x1xf32>
    %x = broadcast %r : tile<1x1xf32> -> tile<32x32xf32>
    %a = nv_tileas.convert_layout %x {layout = #nv_tileas<layout blocked>} : tile<32x32xf32> -> tile<32x32xf32>
    %b = nv_tileas.convert_layout %a {layout = #nv_tileas<layout WARPS>} : tile<32x32xf32> -> tile<32x32xf32>
    %t = print_tko "%f\\n", %b : tile<32x32xf32> -> token
    return
  }
}
"""


def _parse(text):
    engine = DiagnosticEngine()
    ops = parse_text(text, engine, "<test>")
    ok = ops is not None and all(verify(op, engine) for op in ops)
    return ops, ok, [d.message for d in engine.diagnostics]


def test_layout_attribute_round_trips():
    text = KERNEL.replace("WARPS", "mma, warps = [2, 2]")
    ops, ok, msgs = _parse(text)
    assert ok, msgs
    printed = print_ops(ops)
    assert "{layout = #nv_tileas<layout blocked>}" in printed
    assert "{layout = #nv_tileas<layout mma, warps = [2, 2]>}" in printed
    again, ok, msgs = _parse(printed)
    assert ok and print_ops(again) == printed, msgs


@pytest.mark.parametrize("layout,message", [
    ("mma, warps = [4, 2]", "expects a rank-2 result whose shape the mma layout's 4x2 warps tile in 16x8 blocks"),
    ("swizzled", "unknown layout 'swizzled' (expected blocked, mma, wgmma, tmem, slice, splat, shared or none)"),
    ("mma", "expected ', warps = [wm, wn]' after 'layout mma'"),
    ("mma, warps = [2]", "expected two positive warp counts in 'warps'"),
])
def test_bad_layouts_are_diagnostics(layout, message):
    _, ok, msgs = _parse(KERNEL.replace("WARPS", layout))
    assert not ok and any(message in m for m in msgs), msgs


def test_chain_trimming_keeps_the_named_layout():
    ops, ok, msgs = _parse(KERNEL.replace("WARPS", "mma, warps = [2, 2]"))
    assert ok, msgs
    pm = PassManager(Nest("builtin.module", [make_pass("layout-conversion-removal", {"target": "sm_80"})]))
    assert pm.run(ops, DiagnosticEngine())
    text = print_ops(pm.result_ops)
    assert text.count("nv_tileas.convert_layout") == 1
    assert re.search(r"convert_layout %bcast \{layout = #nv_tileas<layout mma, warps = \[2, 2\]>[,}]", text)


def test_layout_attr_names_the_emitters_layouts():
    acc = mma_acc((64, 64), 128)
    assert LayoutAttr.of(acc) == LayoutAttr("mma", (acc.wm, acc.wn))
    assert LayoutAttr.of(acc).layout_for((64, 64), 128) == acc
    assert LayoutAttr("mma", (acc.wm, acc.wn)).layout_for((64, 64), 256) is None   # another group's warps
    assert LayoutAttr("blocked").layout_for((8, 128), 128) == blocked((8, 128), 128)


def _dot_layouts(text):
    return [re.search(r"\{layout = (#nv_tileas<[^>]*>)", line).group(1) for line in text.splitlines()
            if "nv_tileas.convert_layout" in line]


@pytest.mark.parametrize("arch,warps,threads", [("sm_80", 4, 128), ("sm_80", 8, 256), ("sm_90a", 4, 128)])
def test_every_tensor_core_dot_gets_its_groups_accumulator_layout(arch, warps, threads):
    """One conversion per dot, into the layout mma_acc picks for the threads
    that run it: the CTA on sm_80, the 4-warp consumer agent on sm_90a (whose
    CTA also has a producer warpgroup). There B sits in a pipeline slot that
    wgmma reads in place: the dot computes in the wgmma layout."""
    ok, ops, engine = lower(read("examples/matmul_f16_tiled.mlir"), arch, num_warps=warps)
    assert ok, [d.message for d in engine.diagnostics]
    text = text_of(ops)
    assert text.count("nv_tileas.dot ") == 1
    want = LayoutAttr.of(mma_acc((128, 128), threads)).text() if arch == "sm_80" else "#nv_tileas<layout wgmma>"
    assert _dot_layouts(text) == [want]
    assert ("agent_switch" in text) == (arch == "sm_90a")


def test_cuda_core_dots_get_no_conversion():
    """f32 operands (computed in f32, on CUDA cores) need no accumulator layout;
    8-bit integer operands run on tensor cores and get the mma one."""
    ok, ops, _ = lower(read("examples/cutile/matmul_tf32.mlir"), "sm_80")
    assert ok
    text = text_of(ops)
    assert "nv_tileas.dot " in text and "convert_layout" not in text
    ok, ops, _ = lower(read("examples/cutile/matmul_i8_masked.mlir"), "sm_80")
    assert ok
    assert "layout = #nv_tileas<layout mma" in text_of(ops)


def test_emitter_follows_the_named_layout():
    """The dot computes in the layout the IR names: a 4x1 warp grid written by
    hand (mma_acc picks 2x2 for 64x64 on 4 warps) changes the PTX, and the
    simulated kernel still matches the interpreter."""
    from test_ptx_sim import cases, interpreter_result, run_in_sim
    from tilec.codegen.ptx import emit_ptx
    acc = mma_acc((64, 64), 128)
    assert isinstance(acc, MmaAcc) and (acc.wm, acc.wn) == (2, 2)
    ok, ops, _ = lower(read("examples/cutile/matmul_f16.mlir"), "sm_80")
    assert ok
    text = text_of(ops).replace("#nv_tileas<layout mma, warps = [2, 2]>", "#nv_tileas<layout mma, warps = [4, 1]>")
    again, ok, msgs = _parse(text)
    assert ok, msgs
    default, forced = emit_ptx(ops, "sm_80", 4), emit_ptx(again, "sm_80", 4)
    assert default != forced
    case = cases.BY_NAME["cutile_matmul_f16"]
    want = interpreter_result(case)[0]
    got = run_in_sim(case, forced)
    cases.compare(case, got[3], got[0], want)
