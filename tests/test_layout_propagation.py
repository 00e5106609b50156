"""Layouts in scheduled nv_tileas IR (schedule/propagate_layouts.py): every tile
result names its layout in `nv_tileas.layouts`, the IR verifies and round-trips
with them, the propagation rules (IR in, IR out), and the emitter following the
IR (codegen/ptx/ir_layouts.py): the handlers produce exactly the named layouts
on every example, and a layout edited by hand changes the code, not the values."""
import re

import pytest

from conftest import ROOT
from test_lowering_util import EXAMPLES, errors, lower, read, text_of
from tilec.dialects.cuda_tile.types import TileType
from tilec.ir.diagnostics import DiagnosticEngine
from tilec.ir.verifier import verify
from tilec.syntax.parser import parse_text
from tilec.syntax.printer import print_ops

ATTENTION = "examples/cutile/attention_m128_f16.mlir"
SOFTMAX = "examples/cutile/row_softmax_f32.mlir"
IF_JOIN = """cuda_tile.module @if_join {
  entry @if_join(%arg0: tile<ptr<f32>>, %arg1: tile<ptr<f32>>, %arg2: tile<i32>) {
    %0 = make_token : token
    %tv = make_tensor_view %arg0, shape = [4, 128], strides = [128, 1] : tensor_view<4x128xf32, strides=[128,1]>
    %tv1 = make_tensor_view %arg1, shape = [4], strides = [1] : tensor_view<4xf32, strides=[1]>
    %c0 = constant <i32: 0> : tile<i32>
    %pv = make_partition_view %tv : partition_view<tile=(4x128), tensor_view<4x128xf32, strides=[128,1]>>
    %tile, %t0 = load_view_tko weak %pv[%c0, %c0] token = %0 : partition_view<tile=(4x128), tensor_view<4x128xf32, strides=[128,1]>>, tile<i32> -> tile<4x128xf32>, token
    %pv1 = make_partition_view %tv1 : partition_view<tile=(4), tensor_view<4xf32, strides=[1]>>
    %row, %t1 = load_view_tko weak %pv1[%c0] token = %0 : partition_view<tile=(4), tensor_view<4xf32, strides=[1]>>, tile<i32> -> tile<4xf32>, token
    %sum = reduce %tile dim=1 identities=[0.000000e+00 : f32] : tile<4x128xf32> -> tile<4xf32>
    (%lhs: tile<f32>, %rhs: tile<f32>) {
      %s = addf %lhs, %rhs : tile<f32>
      yield %s : tile<f32>
    }
    %c = cmpi greater_than %arg2, %c0, signed : tile<i32> -> tile<i1>
    %same = if %c -> (tile<4xf32>) {
      yield %sum : tile<4xf32>
    } else {
      %z = constant <f32: 0.000000e+00> : tile<4xf32>
      yield %z : tile<4xf32>
    }
    %differ = if %c -> (tile<4xf32>) {
      yield %sum : tile<4xf32>
    } else {
      yield %row : tile<4xf32>
    }
    %out = addf %same, %differ : tile<4xf32>
    %1 = store_view_tko weak %out, %pv1[%c0] token = %0 : tile<4xf32>, partition_view<tile=(4), tensor_view<4xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
"""


def scheduled(text, arch, **opts):
    ok, ops, engine = lower(text, arch, **opts)
    assert ok, errors(engine)
    return ops, text_of(ops)


def layouts_of(text, pattern):
    """The `nv_tileas.layouts` of the first line matching `pattern`."""
    line = next(l for l in text.splitlines() if re.search(pattern, l))
    return re.search(r"nv_tileas\.layouts = \[(.*?>)\][,}]", line).group(1)


def parse(text):
    engine = DiagnosticEngine()
    ops = parse_text(text, engine, "<test>")
    ok = ops is not None and all(verify(op, engine) for op in ops)
    return ops, ok, [d.message for d in engine.diagnostics]


# ---- every tile value has a layout, and the IR keeps it -------------------------------------

@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("path", ["examples/cutile/matmul_f16.mlir", "examples/cutile/bmm_tt_f16_aligned.mlir",
                                  ATTENTION, SOFTMAX, "examples/cutile/layernorm_rows_f32.mlir"])
def test_every_tile_result_names_its_layout_and_round_trips(path, arch):
    ops, text = scheduled(read(path), arch)
    for top in ops:
        for op in top.walk():
            tiles = [r for r in op.results if isinstance(r.type, TileType) and r.type.shape]
            if tiles and op.name != "nv_tileas.create_none":
                assert "nv_tileas.layouts" in op.attributes, f"{op.name} names no layout"
    again, ok, msgs = parse(text)
    assert ok, msgs
    assert print_ops(again) == text


def test_attention_layouts_sm90a():
    """Flash attention on sm_90a: both dots compute in the wgmma accumulator; the
    row max and sum are slices of it (reduce), keep it through the keepdims reshape
    and the element-wise ops between them, and broadcast back into it; the loop
    carries the accumulator and the two statistics in those layouts, so nothing
    is converted around the loop; P (the f16 conversion) stays in the accumulator
    layout, the register A of the second dot."""
    _, text = scheduled(read(ATTENTION), "sm_90a")
    wg = "#nv_tileas<layout wgmma>"
    row = "#nv_tileas<layout slice, axes = [0, -1], parent = [128, 64] wgmma>"
    assert layouts_of(text, r"nv_tileas\.dot ") == wg
    assert layouts_of(text, r"^\s*\}\) \{nv_tileas\.layouts.*-> !cuda_tile\.tile<128xf32>") == \
        "#nv_tileas<layout slice, axes = [0], parent = [128, 64] wgmma>"
    assert layouts_of(text, r"= reshape %\S+ \{.*tile<128xf32> -> tile<128x1xf32>") == row
    assert layouts_of(text, r"= maxf ") == row
    assert layouts_of(text, r"= broadcast .*tile<128x1xf32> -> tile<128x64xf32>") == wg
    assert layouts_of(text, r"= ftof .*tile<128x64xf32> -> tile<128x64xf16>") == wg
    assert layouts_of(text, r"^\s*\} \{nv_tileas\.layouts = \[#nv_tileas<layout wgmma>, #nv_tileas<layout slice") \
        == ", ".join([wg, row, row, "#nv_tileas<layout none>", "#nv_tileas<layout none>"])
    # the K and V tiles are read from their slots: shared, as the views of them
    assert layouts_of(text, r"nv_tileas\.shuffle %reshape") == "#nv_tileas<layout shared>"


def test_softmax_statistics_are_slices_and_cost_no_shared_memory():
    """Row softmax: each reduction leaves a slice of the tile's blocked layout, the
    keepdims reshape relabels it, and broadcasting it back is free: the PTX has no
    shared memory at all."""
    from tilec.codegen.ptx import compile_text
    _, text = scheduled(read(SOFTMAX), "sm_80")
    assert layouts_of(text, r"= reshape %\d+ .*tile<4xf32> -> tile<4x1xf32>") == \
        "#nv_tileas<layout slice, axes = [0, -1], parent = [4, 128] blocked>"
    assert layouts_of(text, r"= broadcast ") == "#nv_tileas<layout blocked>"
    assert layouts_of(text, r"= subf ") == "#nv_tileas<layout blocked>"
    ptx = compile_text(read(SOFTMAX), arch="sm_80")
    assert ".shared" not in ptx and "bar.sync" not in ptx


def test_if_results_join_their_branches():
    """An if's result takes the layout every branch reaches without moving data (a
    splat joins the reduce's slice), and the group's blocked layout when the
    branches disagree; an element-wise op over both runs in the slice."""
    _, text = scheduled(IF_JOIN, "sm_80")
    part = "#nv_tileas<layout slice, axes = [0], parent = [4, 128] blocked>"
    ifs = [l for l in text.splitlines() if re.match(r"\s*\} \{nv_tileas\.layouts", l)]
    assert [re.search(r"\[(.*)\]\}", l).group(1) for l in ifs] == [part, "#nv_tileas<layout blocked>"]
    assert layouts_of(text, r"= addf ") == part
    assert layouts_of(text, r"= constant <f32: 0.000000e\+00> : tile<4xf32>") == "#nv_tileas<layout splat>"


def test_wgmma_mode_names_the_mma_layout():
    """`schedule{wgmma=none}` (tilec compile --no-wgmma) names mma.sync accumulators,
    so the IR says what the emitter will do; an unknown mode is a diagnostic."""
    _, text = scheduled(read(ATTENTION), "sm_90a", wgmma="none")
    assert "layout wgmma" not in text
    assert layouts_of(text, r"nv_tileas\.dot ") == "#nv_tileas<layout mma, warps = [4, 1]>"
    ok, _, engine = lower(read(ATTENTION), "sm_90a", wgmma="sometimes")
    assert not ok and "invalid schedule option: wgmma=sometimes (expected auto, all, none)" in errors(engine)[0]


# ---- the verifier ---------------------------------------------------------------------------

@pytest.mark.parametrize("edit,message", [
    (("nv_tileas.layouts = [#nv_tileas<layout slice, axes = [0, -1], parent = [4, 128] blocked>]",
      "nv_tileas.layouts = [#nv_tileas<layout slice, axes = [1, -1], parent = [4, 128] blocked>]"),
     "'cuda_tile.reshape' op 'nv_tileas.layouts' #0 has shape 4x1, which is not the slice [1, -1] of its "
     "parent's 4x128"),
    (("nv_tileas.layouts = [#nv_tileas<layout blocked>]} : tile<4x128xf32>",
      "nv_tileas.layouts = [#nv_tileas<layout blocked>, #nv_tileas<layout none>]} : tile<4x128xf32>"),
     "'cuda_tile.subf' op 'nv_tileas.layouts' names 2 layouts, but there are 1 values"),
    (("nv_tileas.layouts = [#nv_tileas<layout blocked>]} : tile<4x128xf32>",
      "nv_tileas.layouts = [#nv_tileas<layout mma, warps = [4, 1]>]} : tile<4x128xf32>"),
     "'cuda_tile.subf' op 'nv_tileas.layouts' #0 has shape 4x128, which the mma layout's 4x1 warps do not tile"),
    (("nv_tileas.layouts = [#nv_tileas<layout blocked>]} : tile<4x128xf32>",
      "nv_tileas.layouts = [1 : i32]} : tile<4x128xf32>"),
     "'cuda_tile.subf' op 'nv_tileas.layouts' must be an array of '#nv_tileas<layout ...>' attributes"),
])
def test_bad_layouts_are_diagnostics(edit, message):
    _, text = scheduled(read(SOFTMAX), "sm_80")
    assert edit[0] in text
    _, ok, msgs = parse(text.replace(edit[0], edit[1], 1))
    assert not ok and message in msgs, msgs


# ---- the emitter follows the IR ---------------------------------------------------------------

def _repairs(monkeypatch):
    """Collect the results the emitter had to convert into their IR layout."""
    from tilec.codegen.ptx import emitter, ir_layouts
    got = []

    def follow(em, op):
        n = len(em.layout_repairs)
        ir_layouts.follow(em, op)
        got.extend(em.layout_repairs[n:])
    monkeypatch.setattr(emitter, "follow", follow)
    return got


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("path", EXAMPLES)
def test_handlers_produce_the_named_layouts(path, arch, monkeypatch):
    """Every op's handler leaves its results in the layouts the IR names: the
    rules of the pass and of the emitter agree, so `follow` never converts."""
    from tilec.codegen.ptx import compile_text
    from tilec.compiler import CompileFailed
    got = _repairs(monkeypatch)
    try:
        compile_text(read(path), arch=arch)
    except CompileFailed as e:
        assert "not supported on sm_80" in str(e)     # fp8 MMA needs sm_89+
        return
    assert got == []


def test_a_layout_written_by_hand_changes_the_code_not_the_values(monkeypatch):
    """Row softmax with its first reduction's result named `blocked` instead of the
    slice: the emitter converts it (now through shared memory) and back into the
    slice the next ops name, and the simulated kernel still matches the interpreter."""
    from test_ptx_sim import cases, interpreter_result, run_in_sim
    from tilec.codegen.ptx import emit_ptx
    ops, text = scheduled(read(SOFTMAX), "sm_80")
    slice_ = "nv_tileas.layouts = [#nv_tileas<layout slice, axes = [0], parent = [4, 128] blocked>]"
    assert slice_ in text
    edited, ok, msgs = parse(text.replace(slice_, "nv_tileas.layouts = [#nv_tileas<layout blocked>]", 1))
    assert ok, msgs
    got = _repairs(monkeypatch)
    default, forced = emit_ptx(ops, "sm_80", 4), emit_ptx(edited, "sm_80", 4)
    assert ".shared" not in default and ".shared" in forced
    assert [r[0] for r in got] == ["nv_tileas.reduce", "cuda_tile.reshape"]
    case = cases.BY_NAME["cutile_row_softmax_f32"]
    want = interpreter_result(case)[0]
    res = run_in_sim(case, forced)
    cases.compare(case, res[3], res[0], want)


def test_attention_without_wgmma_matches_the_interpreter():
    """`--no-wgmma` on sm_90a: the schedule names mma.sync layouts (warps split the
    rows: P is the second dot's A), and the simulated PTX matches the interpreter."""
    from test_ptx_sim import cases, interpreter_result, run_in_sim
    from tilec.codegen.ptx import compile_text
    case = cases.BY_NAME["cutile_attention_m128_f16"]
    ptx = compile_text(case.text(), arch="sm_90a", wgmma=False)
    assert "wgmma" not in ptx and "mma.sync" in ptx
    want = interpreter_result(case)[0]
    res = run_in_sim(case, ptx)
    cases.compare(case, res[3], res[0], want)


def test_ptx_of_scheduled_ir_without_layouts_propagates_them():
    """Scheduled IR that names no layouts (written before them, or by hand) gets
    them from the propagation before emission: the same PTX."""
    from tilec.codegen.ptx import emit_ptx
    ops, text = scheduled(read(SOFTMAX), "sm_80")
    bare = re.sub(r" \{nv_tileas\.layouts = \[[^{}]*?\]\}", "", text)
    bare = re.sub(r", nv_tileas\.layouts = \[[^{}]*?\]\}", "}", bare)
    bare = re.sub(r"\{nv_tileas\.layouts = \[[^{}]*?\], ", "{", bare)      # before other attributes
    assert "nv_tileas.layouts" not in bare
    again, ok, msgs = parse(bare)
    assert ok, msgs
    assert emit_ptx(again, "sm_80", 4) == emit_ptx(ops, "sm_80", 4)
    assert ROOT


# ---- warps for the accumulators live at once ---------------------------------------------------

@pytest.mark.parametrize("path,sm90a,sm80", [
    (ATTENTION, 8, 8),                                    # S + P + O: 160 registers a thread on 4 warps
    ("examples/cutile/flash_attention_f16.mlir", 4, 4),   # 32-row tiles: 28
    ("examples/cutile/attention_causal_f16.mlir", 4, 4),  # two loops, each counted alone: 56
    ("examples/cutile/matmul_f16.mlir", 4, 4),            # 64x64: 32
    ("examples/cutile/matmul_f16_aligned.mlir", 4, 8),    # 128x128: 128, one consumer warpgroup holds it
])
def test_warps_follow_the_accumulators_live_at_once(path, sm90a, sm80):
    """The default warp count adds up the dots of one block, with the register A a
    dot's result becomes: attention with 128 query rows gets two consumer
    warpgroups on sm_90a (as tileiras runs it on 256 threads) and 8 warps on
    sm_80 (ptxas's check of the aligned variant: test_hopper_mainloop)."""
    from tilec.compiler import default_num_warps
    ops, ok, msgs = parse(read(path))
    assert ok, msgs
    assert (default_num_warps(ops, "sm_90a"), default_num_warps(ops, "sm_80")) == (sm90a, sm80)


_TWO_DOTS = """cuda_tile.module @m {
  entry @k(%a: tile<ptr<f16>>, %c: tile<ptr<f32>>) {
    %ta = make_tensor_view %a, shape = [512, 512], strides = [512, 1] : tensor_view<512x512xf16, strides=[512,1]>
    %tc = make_tensor_view %c, shape = [512, 16], strides = [16, 1] : tensor_view<512x16xf32, strides=[16,1]>
    %pq = make_partition_view %ta : partition_view<tile=(128xK), tensor_view<512x512xf16, strides=[512,1]>>
    %pk = make_partition_view %ta : partition_view<tile=(Kx16), tensor_view<512x512xf16, strides=[512,1]>>
    %pc = make_partition_view %tc : partition_view<tile=(128x16), tensor_view<512x16xf32, strides=[16,1]>>
    %z = constant <i32: 0> : tile<i32>
    %q, %t0 = load_view_tko weak %pq[%z, %z] : partition_view<tile=(128xK), tensor_view<512x512xf16, strides=[512,1]>>, tile<i32> -> tile<128xKxf16>, token
    %kt, %t1 = load_view_tko weak %pk[%z, %z] : partition_view<tile=(Kx16), tensor_view<512x512xf16, strides=[512,1]>>, tile<i32> -> tile<Kx16xf16>, token
    %acc = constant <f32: 0.0> : tile<128x16xf32>
    %s = mmaf %q, %kt, %acc : tile<128xKxf16>, tile<Kx16xf16>, tile<128x16xf32>
    SECOND
    %t2 = store_view_tko weak %r, %pc[%z, %z] : tile<128x16xf32>, partition_view<tile=(128x16), tensor_view<512x16xf32, strides=[16,1]>>, tile<i32> -> token
    return
  }
}
"""


@pytest.mark.parametrize("k,dots,warps", [(512, 2, 8), (512, 1, 4), (64, 2, 4)])
def test_warps_count_the_register_operands_of_several_dots(k, dots, warps):
    """Several dots in one block hold their operands in registers too (TileGym's
    MLA decode: two 128x512 f16 operands spilled 2360 bytes on 4 warps); a lone
    dot's operands are not counted (a K loop reads them from pipeline slots)."""
    from tilec.compiler import default_num_warps
    second = ("%r = mmaf %q, %kt, %s : tile<128xKxf16>, tile<Kx16xf16>, tile<128x16xf32>" if dots == 2
              else "%r = addf %s, %s : tile<128x16xf32>")
    ops, ok, msgs = parse(_TWO_DOTS.replace("SECOND", second).replace("K", str(k)))
    assert ok, msgs
    assert default_num_warps(ops, "sm_90a") == warps


_CHAINED = """cuda_tile.module @m {
  entry @k(%a: tile<ptr<f16>>, %c: tile<ptr<f32>>) {
    %ta = make_tensor_view %a, shape = [512, 512], strides = [512, 1] : tensor_view<512x512xf16, strides=[512,1]>
    %tc = make_tensor_view %c, shape = [512, 64], strides = [64, 1] : tensor_view<512x64xf32, strides=[64,1]>
    %pq = make_partition_view %ta : partition_view<tile=(128x16), tensor_view<512x512xf16, strides=[512,1]>>
    %pk = make_partition_view %ta : partition_view<tile=(16x64), tensor_view<512x512xf16, strides=[512,1]>>
    %pc = make_partition_view %tc : partition_view<tile=(128x64), tensor_view<512x64xf32, strides=[64,1]>>
    %z = constant <i32: 0> : tile<i32>
    %q, %t0 = load_view_tko weak %pq[%z, %z] : partition_view<tile=(128x16), tensor_view<512x512xf16, strides=[512,1]>>, tile<i32> -> tile<128x16xf16>, token
    %kt, %t1 = load_view_tko weak %pk[%z, %z] : partition_view<tile=(16x64), tensor_view<512x512xf16, strides=[512,1]>>, tile<i32> -> tile<16x64xf16>, token
    %acc = constant <f32: 0.0> : tile<128x64xf32>
    %s = mmaf %q, %kt, %acc : tile<128x16xf16>, tile<16x64xf16>, tile<128x64xf32>
    SECOND
    %t2 = store_view_tko weak %r, %pc[%z, %z] : tile<128x64xf32>, partition_view<tile=(128x64), tensor_view<512x64xf32, strides=[64,1]>>, tile<i32> -> token
    return
  }
}
"""


@pytest.mark.parametrize("second,warps", [
    ("%r = mmaf %q, %kt, %s : tile<128x16xf16>, tile<16x64xf16>, tile<128x64xf32>", 4),
    ("%u = mmaf %q, %kt, %acc : tile<128x16xf16>, tile<16x64xf16>, tile<128x64xf32>\n"
     "    %r = addf %s, %u : tile<128x64xf32>", 8)])
def test_a_dot_accumulating_onto_another_adds_no_registers(second, warps):
    """MLA's S = Q K^T + Q_pe K_pe^T: the second dot accumulates onto the first's
    result and takes its registers. Two separate 128x64 f32 results and the
    operands need 8 warps; one result and the operands fit 4. TileGym's prefill
    MLA then keeps one consumer warpgroup, whose 64-row tiles wgmma can run."""
    from tilec.compiler import default_num_warps
    ops, ok, msgs = parse(_CHAINED.replace("SECOND", second))
    assert ok, msgs
    assert default_num_warps(ops, "sm_90a") == warps


_LOOP_DOTS = """cuda_tile.module @m {
  entry @k(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>, %d: tile<ptr<f32>>) {
    %ta = make_tensor_view %a, shape = [128, 64], strides = [64, 1] : tensor_view<128x64xf16, strides=[64,1]>
    %tb = make_tensor_view %b, shape = [256, 256], strides = [256, 1] : tensor_view<256x256xf16, strides=[256,1]>
    %tc = make_tensor_view %c, shape = [128, 256], strides = [256, 1] : tensor_view<128x256xf32, strides=[256,1]>
    %td = make_tensor_view %d, shape = [128, 64], strides = [64, 1] : tensor_view<128x64xf32, strides=[64,1]>
    %pa = make_partition_view %ta : partition_view<tile=(Mx64), tensor_view<128x64xf16, strides=[64,1]>>
    %p1 = make_partition_view %tb : partition_view<tile=(64x256), tensor_view<256x256xf16, strides=[256,1]>>
    %p2 = make_partition_view %tb : partition_view<tile=(64x64), tensor_view<256x256xf16, strides=[256,1]>>
    %pc = make_partition_view %tc : partition_view<tile=(Mx256), tensor_view<128x256xf32, strides=[256,1]>>
    %pd = make_partition_view %td : partition_view<tile=(Mx64), tensor_view<128x64xf32, strides=[64,1]>>
    %z = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %four = constant <i32: 4> : tile<i32>
    %q, %t0 = load_view_tko weak %pa[%z, %z] : partition_view<tile=(Mx64), tensor_view<128x64xf16, strides=[64,1]>>, tile<i32> -> tile<Mx64xf16>, token
    %c1 = constant <f32: 0.0> : tile<Mx256xf32>
    %c2 = constant <f32: 0.0> : tile<Mx64xf32>
    %r1, %r2 = for %i in (%z to %four, step %one) : tile<i32> iter_values(%x1 = %c1, %x2 = %c2) -> (tile<Mx256xf32>, tile<Mx64xf32>) {
      %b1, %t1 = load_view_tko weak %p1[%i, %z] : partition_view<tile=(64x256), tensor_view<256x256xf16, strides=[256,1]>>, tile<i32> -> tile<64x256xf16>, token
      %b2, %t2 = load_view_tko weak %p2[%i, %z] : partition_view<tile=(64x64), tensor_view<256x256xf16, strides=[256,1]>>, tile<i32> -> tile<64x64xf16>, token
      %y1 = mmaf %q, %b1, %x1 : tile<Mx64xf16>, tile<64x256xf16>, tile<Mx256xf32>
      %y2 = mmaf %q, %b2, %x2 : tile<Mx64xf16>, tile<64x64xf16>, tile<Mx64xf32>
      continue %y1, %y2 : tile<Mx256xf32>, tile<Mx64xf32>
    }
    %t3 = store_view_tko weak %r1, %pc[%z, %z] : tile<Mx256xf32>, partition_view<tile=(Mx256), tensor_view<128x256xf32, strides=[256,1]>>, tile<i32> -> token
    %t4 = store_view_tko weak %r2, %pd[%z, %z] : tile<Mx64xf32>, partition_view<tile=(Mx64), tensor_view<128x64xf32, strides=[64,1]>>, tile<i32> -> token
    return
  }
}
"""


@pytest.mark.parametrize("m,sm90a,sm80", [(64, 4, 8), (128, 8, 8)])
def test_dots_of_64_rows_keep_one_warpgroup_for_wgmma(m, sm90a, sm80):
    """Two consumer warpgroups split a wgmma's M: dots of 64 rows whose B the loop
    stages (wgmma candidates) would run on mma.sync there. At 160 accumulator
    registers a thread on 4 warps they keep one warpgroup on sm_90a (TileGym's
    prefill MLA at 64 query rows: 56 wgmma instead of 48 mma.sync, no spills);
    128 rows split, and sm_80 has no wgmma to keep."""
    from tilec.compiler import default_num_warps
    ops, ok, msgs = parse(_LOOP_DOTS.replace("Mx", f"{m}x"))
    assert ok, msgs
    assert (default_num_warps(ops, "sm_90a"), default_num_warps(ops, "sm_80")) == (sm90a, sm80)


# ---- backward rematerialization of layout-free values -----------------------------------------

CAUSAL = "examples/cutile/attention_causal_f16.mlir"


@pytest.mark.parametrize("arch,acc", [("sm_90a", "wgmma"), ("sm_80", "mma, warps = [4, 1]")])
def test_causal_mask_is_made_in_the_accumulator_layout(arch, acc):
    """The causal mask (iotas compared, a select of 0 and -inf) is added to the
    scores: it is made again inside the loop in the scores' layout (the iotas
    in its slices), so no mask moves through shared memory: the PTX loads
    nothing from it."""
    from tilec.codegen.ptx import compile_text
    _, text = scheduled(read(CAUSAL), arch)
    parent = f"parent = [64, 32] {acc}>"
    iotas = [l for l in text.splitlines() if re.search(r"= iota ", l)]
    assert iotas and all("layout slice" in l and parent in l for l in iotas), iotas
    assert layouts_of(text, r"= select ") == f"#nv_tileas<layout {acc}>"
    assert layouts_of(text, r"= addf %\d+, %\d+ \{.*tile<64x32xf32>") == f"#nv_tileas<layout {acc}>"
    assert "ld.shared" not in compile_text(read(CAUSAL), arch=arch)


def _shared_moves(monkeypatch):
    """The ops whose layout changes go through shared memory (Emitter.remap), as compiled."""
    from tilec.codegen.ptx.emitter import Emitter
    moves, remap = [], Emitter.remap
    monkeypatch.setattr(Emitter, "remap", lambda em, *a, **k: moves.append(em.op.name) or remap(em, *a, **k))
    return moves


def _own_kernel(text, name, ptx, tmp_path, b_shape, dtype="float16"):
    """(A, B, the interpreter's C, the simulator's C) of one of the 32x16 by B
    kernels here, on random inputs of `dtype`."""
    import numpy as np
    from gpu import cases
    from test_ptx_sim import run_in_sim
    path = tmp_path / f"{name}.mlir"
    path.write_text(text)

    def build(rng):
        a = rng.standard_normal((32, 16)).astype(np.dtype(dtype))
        b = rng.standard_normal(b_shape).astype(np.dtype(dtype))
        c = np.zeros((32, 32), np.float32)
        return cases.Launch((1,), [a, b, c], [("c", c, None)])

    case = cases.Case(name, str(path), build)
    launch = build(case.rng())
    a, b = (x.astype(np.float32) for x in launch.args[:2])
    return a, b, cases.run_interpreter(case, launch)[0]["c"], run_in_sim(case, ptx)[0]["c"]


SQUARE = """cuda_tile.module @square_causal {
  entry @square_causal(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>) {
    %0 = make_token : token
    %ta = make_tensor_view %a, shape = [32, 16], strides = [16, 1] : tensor_view<32x16xf16, strides=[16,1]>
    %tb = make_tensor_view %b, shape = [16, 32], strides = [32, 1] : tensor_view<16x32xf16, strides=[32,1]>
    %tc = make_tensor_view %c, shape = [32, 32], strides = [32, 1] : tensor_view<32x32xf32, strides=[32,1]>
    %c0 = constant <i32: 0> : tile<i32>
    %pa = make_partition_view %ta : partition_view<tile=(32x16), tensor_view<32x16xf16, strides=[16,1]>>
    %x, %t1 = load_view_tko weak %pa[%c0, %c0] token = %0 : partition_view<tile=(32x16), tensor_view<32x16xf16, strides=[16,1]>>, tile<i32> -> tile<32x16xf16>, token
    %pb = make_partition_view %tb : partition_view<tile=(16x32), tensor_view<16x32xf16, strides=[32,1]>>
    %y, %t2 = load_view_tko weak %pb[%c0, %c0] token = %0 : partition_view<tile=(16x32), tensor_view<16x32xf16, strides=[32,1]>>, tile<i32> -> tile<16x32xf16>, token
    %zero = constant <f32: 0.000000e+00> : tile<32x32xf32>
    %s = mmaf %x, %y, %zero : tile<32x16xf16>, tile<16x32xf16>, tile<32x32xf32>
    %i = iota : tile<32xi32>
    %ri = reshape %i : tile<32xi32> -> tile<32x1xi32>
    %rb = broadcast %ri : tile<32x1xi32> -> tile<32x32xi32>
    %ci = reshape %i : tile<32xi32> -> tile<1x32xi32>
    %cb = broadcast %ci : tile<1x32xi32> -> tile<32x32xi32>
    %keep = cmpi greater_than_or_equal %rb, %cb, signed : tile<32x32xi32> -> tile<32x32xi1>
    %ninf = constant <f32: 0xFF800000> : tile<32x32xf32>
    %mask = select %keep, %zero, %ninf : tile<32x32xi1>, tile<32x32xf32>
    %out = addf %s, %mask : tile<32x32xf32>
    %pc = make_partition_view %tc : partition_view<tile=(32x32), tensor_view<32x32xf32, strides=[32,1]>>
    %1 = store_view_tko weak %out, %pc[%c0, %c0] token = %0 : tile<32x32xf32>, partition_view<tile=(32x32), tensor_view<32x32xf32, strides=[32,1]>>, tile<i32> -> token
    return
  }
}
"""


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_square_mask_makes_one_iota_twice(arch, tmp_path, monkeypatch):
    """A square causal mask compares one iota as rows with itself as columns: the
    iota is made twice, in the two slices of the scores' mma layout (one value,
    two layouts), no layout change goes through shared memory, the original is gone,
    and the simulated kernel matches the interpreter."""
    import numpy as np
    from tilec.codegen.ptx import compile_text
    _, text = scheduled(SQUARE, arch)
    iotas = [re.search(r"layout slice, axes = \[(\d)\]", l).group(1) for l in text.splitlines() if "= iota " in l]
    assert sorted(iotas) == ["0", "1"]
    moves = _shared_moves(monkeypatch)
    ptx = compile_text(SQUARE, arch=arch)
    assert moves == []              # no layout change through shared memory
    a, b, want, got = _own_kernel(SQUARE, "square_causal", ptx, tmp_path, (16, 32))
    masked = np.triu(np.ones((32, 32), bool), 1)          # above the diagonal: -inf
    for out in (want, got):
        assert np.array_equal(np.isneginf(out), masked)
        assert np.allclose(out[~masked], (a @ b)[~masked], rtol=1e-2, atol=1e-2)


SELECT_FIRST = SQUARE.replace("""    %mask = select %keep, %zero, %ninf : tile<32x32xi1>, tile<32x32xf32>
    %out = addf %s, %mask : tile<32x32xf32>""", """    %out = select %keep, %s, %ninf : tile<32x32xi1>, tile<32x32xf32>""")


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_a_mask_does_not_choose_the_layout(arch, monkeypatch):
    """select(mask, S, -inf) names the mask first: a value free of layout still
    does not choose the op's layout (the scores would move through shared
    memory); the select runs in the scores' mma layout and the mask is made there."""
    from tilec.codegen.ptx import compile_text
    assert SELECT_FIRST != SQUARE
    _, text = scheduled(SELECT_FIRST, arch)
    assert layouts_of(text, r"= select ") == "#nv_tileas<layout mma, warps = [2, 2]>"
    assert text.count("nv_tileas.convert_layout") == 1          # the accumulator's, before the dot
    moves = _shared_moves(monkeypatch)
    compile_text(SELECT_FIRST, arch=arch)
    assert moves == []


def test_only_values_made_from_iotas_and_uniforms_are_made_again():
    """plan: a loaded value is not free (it moves); a broadcast asks its source for
    the slice of the wanted layout, and a layout a reshape cannot relabel into
    refuses the plan; the mask can be planned into any layout."""
    from tilec.dialects.nv_tileas.layouts import blocked, mma_acc
    from tilec.schedule.remat_layouts import plan
    ops, _ = scheduled(read(CAUSAL), "sm_80")
    allops = [o for top in ops for o in top.walk()]
    uniform = lambda v: not getattr(v.type, "shape", ())      # noqa: E731
    select = next(o for o in allops if o.name == "cuda_tile.select")
    acc = mma_acc((64, 32), 128)
    steps = plan(select.results[0], acc, uniform)
    assert steps is not None and steps[-1][0] is select and steps[-1][1] == acc
    assert any(o.name == "cuda_tile.iota" for o, _, _ in steps)
    load = next(o for o in allops if o.name == "nv_tileas.tiled_load")
    assert plan(load.results[0], blocked(tuple(load.results[0].type.shape), 128), uniform) is None
    assert plan(select.results[0], blocked((64, 32), 128), uniform) is not None   # any layout will do


def test_data_movement_between_layouts_is_an_explicit_convert():
    """flash_attention_f16 (32-row tiles): the first dot's warp grid (2x2) and the
    second's (1x4) differ, so the row statistics move between their slices; the
    IR shows each such move as an nv_tileas.convert_layout of the 32x1 statistic
    into the slice of the reader's layout, and the broadcast over the columns is
    made again from it right before the element-wise op that reads it, in that
    op's layout: 32 values move, not the 32x64 broadcast."""
    _, text = scheduled(read("examples/cutile/flash_attention_f16.mlir"), "sm_90a")
    lines = text.splitlines()
    moves = [i for i, l in enumerate(lines) if re.search(r"nv_tileas.convert_layout .*: tile<32x1xf32> ->", l)]
    assert len(moves) >= 2
    for i in moves:
        conv = re.match(r"\s*(%\S+) = ", lines[i]).group(1)
        assert "layout slice, axes = [0, -1], parent = [32, 64] mma, warps = [1, 4]" in lines[i]
        bcast = lines[i + 1]
        assert re.search(rf"= broadcast {conv} .*layout mma, warps = \[1, 4\]>\]\}} : tile<32x1xf32> -> "
                         r"tile<32x64xf32>", bcast), bcast
        name = re.match(r"\s*(%\S+) = ", bcast).group(1)
        user = next(l for l in lines[i + 2:] if name + " " in l or name + "," in l or l.endswith(name))
        assert "nv_tileas.layouts = [#nv_tileas<layout mma, warps = [1, 4]>]" in user
    assert not any(re.search(r"nv_tileas.convert_layout %bcast", l) for l in lines)


@pytest.mark.parametrize("layout,message", [
    ("slice, axes = [1, -1], parent = [4, 128] blocked",
     "expects a result that fits its layout: the result has shape 4x1, which is not the slice [1, -1] of its "
     "parent's 4x128"),
    ("none", "cannot move a tile into layout 'none'"),
])
def test_convert_layout_checks_its_layout(layout, message):
    _, text = scheduled(read(SOFTMAX), "sm_80")
    line = next(l for l in text.splitlines() if re.search(r"= reshape %\d+ .*tile<4xf32> -> tile<4x1xf32>", l))
    name = re.match(r"\s*(%\S+) = ", line).group(1)
    conv = f"    %moved = nv_tileas.convert_layout {name} {{layout = #nv_tileas<layout {layout}>}} : " \
           f"tile<4x1xf32> -> tile<4x1xf32>"
    _, ok, msgs = parse(text.replace(line, line + "\n" + conv, 1))
    assert not ok and any(message in m for m in msgs), msgs


TRANSPOSED_B = SQUARE.replace(
    """    %tb = make_tensor_view %b, shape = [16, 32], strides = [32, 1] : tensor_view<16x32xf16, strides=[32,1]>""",
    """    %tb = make_tensor_view %b, shape = [32, 16], strides = [16, 1] : tensor_view<32x16xf16, strides=[16,1]>""").replace(
    """    %pb = make_partition_view %tb : partition_view<tile=(16x32), tensor_view<16x32xf16, strides=[32,1]>>
    %y, %t2 = load_view_tko weak %pb[%c0, %c0] token = %0 : partition_view<tile=(16x32), tensor_view<16x32xf16, strides=[32,1]>>, tile<i32> -> tile<16x32xf16>, token""",
    """    %pb = make_partition_view %tb : partition_view<tile=(32x16), tensor_view<32x16xf16, strides=[16,1]>>
    %yt, %t2 = load_view_tko weak %pb[%c0, %c0] token = %0 : partition_view<tile=(32x16), tensor_view<32x16xf16, strides=[16,1]>>, tile<i32> -> tile<32x16xf16>, token
    %y = permute %yt [1, 0] : tile<32x16xf16> -> tile<16x32xf16>""")


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_a_transpose_read_by_a_dot_moves_nothing(arch, tmp_path, monkeypatch):
    """B loaded as 32x16 and transposed for the dot: the permute keeps the
    registers (its layout is the load's with the dimensions swapped, a slice
    with axes [1, 0]) and the dot's operand staging absorbs it: no layout
    change through shared memory besides the dot's own staging, and the
    simulated kernel matches the interpreter."""
    import numpy as np
    from tilec.codegen.ptx import compile_text
    assert TRANSPOSED_B != SQUARE
    _, text = scheduled(TRANSPOSED_B, arch)
    assert layouts_of(text, r"= nv_tileas\.shuffle ") == \
        "#nv_tileas<layout slice, axes = [1, 0], parent = [32, 16] blocked>"
    moves = _shared_moves(monkeypatch)
    ptx = compile_text(TRANSPOSED_B, arch=arch)
    assert "nv_tileas.shuffle" not in moves
    a, b, want, got = _own_kernel(TRANSPOSED_B, "transposed_b", ptx, tmp_path, (32, 16))
    masked = np.triu(np.ones((32, 32), bool), 1)
    for out in (want, got):
        assert np.array_equal(np.isneginf(out), masked)
        assert np.allclose(out[~masked], (a @ b.T)[~masked], rtol=1e-2, atol=1e-2)


TRANSPOSED_B_TF32 = TRANSPOSED_B.replace("f16", "f32").replace(
    """    %y = permute %yt [1, 0] : tile<32x16xf32> -> tile<16x32xf32>
""", """    %y32 = permute %yt [1, 0] : tile<32x16xf32> -> tile<16x32xf32>
    %y = ftof %y32 : tile<16x32xf32> -> tile<16x32xtf32>
    %xa = ftof %x : tile<32x16xf32> -> tile<32x16xtf32>
""").replace("%s = mmaf %x, %y, %zero : tile<32x16xf32>, tile<16x32xf32>,",
             "%s = mmaf %xa, %y, %zero : tile<32x16xtf32>, tile<16x32xtf32>,")


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_a_transpose_converted_for_a_dot_moves_nothing(arch, tmp_path, monkeypatch):
    """The same with f32 tiles converted to tf32 between the transpose and the
    dot (TileGym's chunked recurrences): the conversion runs in the permuted
    layout, and the transpose still moves nothing."""
    import numpy as np
    from tilec.codegen.ptx import compile_text
    assert "ftof %y32" in TRANSPOSED_B_TF32 and "xtf32>, tile<16x32xtf32>" in TRANSPOSED_B_TF32
    _, text = scheduled(TRANSPOSED_B_TF32, arch)
    permuted = "#nv_tileas<layout slice, axes = [1, 0], parent = [32, 16] blocked>"
    assert layouts_of(text, r"= nv_tileas\.shuffle ") == permuted
    assert layouts_of(text, r"= ftof .*tile<16x32xf32> -> tile<16x32xtf32>") == permuted
    moves = _shared_moves(monkeypatch)
    ptx = compile_text(TRANSPOSED_B_TF32, arch=arch)
    assert "nv_tileas.shuffle" not in moves and "cuda_tile.ftof" not in moves
    a, b, want, got = _own_kernel(TRANSPOSED_B_TF32, "transposed_b_tf32", ptx, tmp_path, (32, 16), "float32")
    masked = np.triu(np.ones((32, 32), bool), 1)
    for out in (want, got):
        assert np.array_equal(np.isneginf(out), masked)
        assert np.allclose(out[~masked], (a @ b.T)[~masked], rtol=2e-2, atol=2e-2)


def test_opt_schedules_with_the_warps_compile_picks():
    """`tilec opt --schedule` without --num-warps schedules with the warp count
    `tilec compile` picks, so the IR it prints is the one compiled: attention with
    128 query rows gets two consumer agents; an explicit count still wins."""
    import subprocess
    import sys

    def agents(*extra):
        r = subprocess.run([sys.executable, "-m", "tilec.cli", "opt", ATTENTION, "--lower-to-tileas", *extra],
                           capture_output=True, text=True, timeout=300, cwd=ROOT)
        assert r.returncode == 0, r.stderr
        return re.findall(r"num_agents_per_group = (\d+)", r.stdout)
    assert agents("--schedule") == ["2"]
    assert agents("--schedule", "--num-warps", "4") == ["1"]
    assert agents("--schedule=num-warps=4") == ["1"]


COLUMNS = """cuda_tile.module @columns {
  entry @columns(%x: tile<ptr<f32>>, %y: tile<ptr<f32>>) {
    %0 = make_token : token
    %tx = make_tensor_view %x, shape = [32, 64], strides = [64, 1] : tensor_view<32x64xf32, strides=[64,1]>
    %ty = make_tensor_view %y, shape = [32, 64], strides = [64, 1] : tensor_view<32x64xf32, strides=[64,1]>
    %c0 = constant <i32: 0> : tile<i32>
    %px = make_partition_view %tx : partition_view<tile=(32x64), tensor_view<32x64xf32, strides=[64,1]>>
    %v, %t1 = load_view_tko weak %px[%c0, %c0] token = %0 : partition_view<tile=(32x64), tensor_view<32x64xf32, strides=[64,1]>>, tile<i32> -> tile<32x64xf32>, token
    %j = iota : tile<64xi32>
    %seven = constant <i32: 7> : tile<64xi32>
    %j7 = muli %j, %seven : tile<64xi32>
    %jf = itof %j7 signed : tile<64xi32> -> tile<64xf32>
    %jr = reshape %jf : tile<64xf32> -> tile<1x64xf32>
    %jb = broadcast %jr : tile<1x64xf32> -> tile<32x64xf32>
    %out = addf %v, %jb : tile<32x64xf32>
    %py = make_partition_view %ty : partition_view<tile=(32x64), tensor_view<32x64xf32, strides=[64,1]>>
    %1 = store_view_tko weak %out, %py[%c0, %c0] token = %0 : tile<32x64xf32>, partition_view<tile=(32x64), tensor_view<32x64xf32, strides=[64,1]>>, tile<i32> -> token
    return
  }
}
"""


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_a_broadcast_source_made_from_an_iota_is_made_in_its_slice(arch, monkeypatch):
    """A row of column values (an iota scaled) broadcast over a loaded tile's
    rows: the row's own blocked layout spreads 64 elements over the threads one
    by one, while the tile's holds runs of 4 per thread, so broadcasting it would
    move data through shared memory. It is made again in the slice of the
    tile's layout instead (_remake_source), and the kernel computes the same."""
    import numpy as np
    from tilec.codegen.ptx import compile_text
    from tilec.interp import launch, parse_module
    import ptxsim
    _, text = scheduled(COLUMNS, arch)
    assert "layout slice" in layouts_of(text, r"= iota ")
    moves = _shared_moves(monkeypatch)
    ptx = compile_text(COLUMNS, arch=arch)
    assert moves == []
    x = np.random.default_rng(4).standard_normal((32, 64)).astype(np.float32)
    want, got = np.zeros_like(x), np.zeros_like(x)
    launch(parse_module(COLUMNS, "columns.mlir"), None, (1, 1, 1), [x.copy(), want])
    ptxsim.run_ptx(ptx, "columns", (1, 1, 1), [x.copy(), got])
    np.testing.assert_array_equal(want, x + 7 * np.arange(64, dtype=np.float32))
    np.testing.assert_array_equal(got, want)


_CTA_AND_LOOP_DOTS = """cuda_tile.module @m {
  entry @k(%a: tile<ptr<f16>>, %c: tile<ptr<f32>>) {
    %ta = make_tensor_view %a, shape = [512, 512], strides = [512, 1] : tensor_view<512x512xf16, strides=[512,1]>
    %tc = make_tensor_view %c, shape = [512, 512], strides = [512, 1] : tensor_view<512x512xf32, strides=[512,1]>
    %pq = make_partition_view %ta : partition_view<tile=(128x64), tensor_view<512x512xf16, strides=[512,1]>>
    %pk = make_partition_view %ta : partition_view<tile=(64x128), tensor_view<512x512xf16, strides=[512,1]>>
    %pv = make_partition_view %ta : partition_view<tile=(64x256), tensor_view<512x512xf16, strides=[512,1]>>
    %pc = make_partition_view %tc : partition_view<tile=(128x128), tensor_view<512x512xf32, strides=[512,1]>>
    %po = make_partition_view %tc : partition_view<tile=(64x256), tensor_view<512x512xf32, strides=[512,1]>>
    %z = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %four = constant <i32: 4> : tile<i32>
    %q, %t0 = load_view_tko weak %pq[%z, %z] : partition_view<tile=(128x64), tensor_view<512x512xf16, strides=[512,1]>>, tile<i32> -> tile<128x64xf16>, token
    %k, %t1 = load_view_tko weak %pk[%z, %z] : partition_view<tile=(64x128), tensor_view<512x512xf16, strides=[512,1]>>, tile<i32> -> tile<64x128xf16>, token
    TOP
    %a64 = extract %q[%z, %z] : tile<128x64xf16> -> tile<64x64xf16>
    %c0 = constant <f32: 0.0> : tile<64x256xf32>
    %o = for %i in (%z to %four, step %one) : tile<i32> iter_values(%x = %c0) -> (tile<64x256xf32>) {
      %v, %t3 = load_view_tko weak %pv[ROW, %z] : partition_view<tile=(64x256), tensor_view<512x512xf16, strides=[512,1]>>, tile<i32> -> tile<64x256xf16>, token
      B
      %y = mmaf %a64, %b, %x : tile<64x64xf16>, tile<64x256xf16>, tile<64x256xf32>
      continue %y : tile<64x256xf32>
    }
    %t4 = store_view_tko weak %o, %po[%z, %z] : tile<64x256xf32>, partition_view<tile=(64x256), tensor_view<512x512xf32, strides=[512,1]>>, tile<i32> -> token
    return
  }
}
"""


_CTA_DOTS = """%acc = constant <f32: 0.0> : tile<128x128xf32>
    %s1 = mmaf %q, %k, %acc : tile<128x64xf16>, tile<64x128xf16>, tile<128x128xf32>
    %s2 = mmaf %q, %k, %acc : tile<128x64xf16>, tile<64x128xf16>, tile<128x128xf32>
    %s = addf %s1, %s2 : tile<128x128xf32>
    %t2 = store_view_tko weak %s, %pc[%z, %z] : tile<128x128xf32>, partition_view<tile=(128x128), tensor_view<512x512xf32, strides=[512,1]>>, tile<i32> -> token"""
_LOADED_B = "%b = reshape %v : tile<64x256xf16> -> tile<64x256xf16>"
_COMPUTED_B = "%b = addf %v, %v : tile<64x256xf16>"


@pytest.mark.parametrize("top,row,b,sm90a,sm80", [
    (_CTA_DOTS, "%i", _LOADED_B, 4, 8),
    (_CTA_DOTS, "%z", _LOADED_B, 8, 8),
    (_CTA_DOTS, "%i", _COMPUTED_B, 4, 8),
    ("", "%i", _COMPUTED_B, 8, 8),
    ("", "%i", _LOADED_B, 4, 8)], ids=["cta-dots", "unpipelined", "cta-dots-computed-b", "computed-b", "loaded-b"])
def test_warps_follow_the_consumer_agents_dots(top, row, b, sm90a, sm80):
    """Where a loop loads by its induction variable, the CTA gets a producer
    warpgroup on sm_90a and only the pipelined loop's dots choose the consumer
    warps: code outside it runs on every warp in layouts over 256 threads with
    one consumer warpgroup or two, and 12 warps have no tensor-core layout
    (TileGym's intra_chunk_prepare ran its CTA-level dots on CUDA cores, and
    1.25x slower). An operand the loop computes from its load is a register
    tile beside the accumulator, counted where no CTA-level dot would lose its
    tensor cores (the chunked recurrence: 1.07x faster on 8 consumer warps).
    Without a pipelined loop (or on sm_80) every dot counts."""
    from tilec.compiler import default_num_warps
    text = _CTA_AND_LOOP_DOTS.replace("TOP", top).replace("ROW", row).replace("      B\n", f"      {b}\n")
    ops, ok, msgs = parse(text)
    assert ok, msgs
    assert (default_num_warps(ops, "sm_90a"), default_num_warps(ops, "sm_80")) == (sm90a, sm80)


GATED = """cuda_tile.module @gated {
  entry @gated(%k: tile<ptr<f16>>, %g: tile<ptr<f32>>, %o: tile<ptr<f32>>) {
    %tk = make_tensor_view %k, shape = [256, 64], strides = [64, 1] : tensor_view<256x64xf16, strides=[64,1]>
    %tg = make_tensor_view %g, shape = [256], strides = [1] : tensor_view<256xf32, strides=[1]>
    %to = make_tensor_view %o, shape = [64, 32], strides = [32, 1] : tensor_view<64x32xf32, strides=[32,1]>
    %pk = make_partition_view %tk : partition_view<tile=(64x64), tensor_view<256x64xf16, strides=[64,1]>>
    %pg = make_partition_view %tg : partition_view<tile=(64), tensor_view<256xf32, strides=[1]>>
    %po = make_partition_view %to : partition_view<tile=(64x32), tensor_view<64x32xf32, strides=[32,1]>>
    %z = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %four = constant <i32: 4> : tile<i32>
    %half = constant <f32: 0.5> : tile<64x32xf32>
    %h0 = constant <f32: 0.25> : tile<64x32xf32>
    %h = for %i in (%z to %four, step %one) : tile<i32> iter_values(%x = %h0) -> (tile<64x32xf32>) {
      %kt, %t1 = load_view_tko weak %pk[%i, %z] : partition_view<tile=(64x64), tensor_view<256x64xf16, strides=[64,1]>>, tile<i32> -> tile<64x64xf16>, token
      %gt, %t2 = load_view_tko weak %pg[%i] : partition_view<tile=(64), tensor_view<256xf32, strides=[1]>>, tile<i32> -> tile<64xf32>, token
      %e = exp %gt : tile<64xf32>
      %e2 = reshape %e : tile<64xf32> -> tile<64x1xf32>
      %eb = broadcast %e2 : tile<64x1xf32> -> tile<64x64xf32>
      %kf = ftof %kt : tile<64x64xf16> -> tile<64x64xf32>
      %ks = mulf %kf, %eb : tile<64x64xf32>
      %a = ftof %ks : tile<64x64xf32> -> tile<64x64xf16>
      %b = ftof %x : tile<64x32xf32> -> tile<64x32xf16>
      %c0 = constant <f32: 0.0> : tile<64x32xf32>
      %d = mmaf %a, %b, %c0 : tile<64x64xf16>, tile<64x32xf16>, tile<64x32xf32>
      %y = fma %x, %half, %d : tile<64x32xf32>
      continue %y : tile<64x32xf32>
    }
    %t3 = store_view_tko weak %h, %po[%z, %z] : tile<64x32xf32>, partition_view<tile=(64x32), tensor_view<64x32xf32, strides=[32,1]>>, tile<i32> -> token
    return
  }
}
"""


@pytest.mark.parametrize("arch,acc", [("sm_90a", "wgmma"), ("sm_80", "mma, warps = [2, 2]")])
def test_slot_tiles_are_read_in_their_users_layout_and_carried_values_follow_their_writes(arch, acc, monkeypatch):
    """A gated recurrence (TileGym's chunked delta rule in small): each step scales
    a pipelined tile by the exponential of a pipelined vector broadcast over its
    rows, and updates a carried state with a dot's result.

    - The vector sits in a pipeline slot, which reads into any layout for the
      same ld.shared: its exponential is computed in the slice of the scaled
      tile's layout, and neither the reshape nor the broadcast moves data
      (remat_layouts' leaves include tiles in shared memory).
    - The carried state starts as a splat, so nothing but the body's write
      chooses its layout: the update runs in the dot's accumulator layout, and
      the loop carries that (propagate_layouts.follows_carry), where the first
      operand's blocked layout used to win and cost a move on every step.
    The only convert_layout left is the accumulator's zero, and the simulator
    agrees with the interpreter."""
    import numpy as np
    from tilec.codegen.ptx import compile_text
    from tilec.interp import launch, parse_module
    import ptxsim
    _, text = scheduled(GATED, arch)
    assert text.count("nv_tileas.convert_layout") == 1
    assert "layout slice" in layouts_of(text, r"= exp ")
    assert layouts_of(text, r"= fma ") == f"#nv_tileas<layout {acc}>"
    assert layouts_of(text, r"^\s*\} \{nv_tileas.layouts") .startswith(f"#nv_tileas<layout {acc}>")
    moves = _shared_moves(monkeypatch)
    ptx = compile_text(GATED, arch=arch)
    # sm_90a: A, computed in registers, goes into wgmma's register fragments (a dot's own move)
    assert moves == (["nv_tileas.dot"] if arch == "sm_90a" else [])
    rng = np.random.default_rng(1)
    k = (rng.standard_normal((256, 64)) * 0.25).astype(np.float16)
    g = (rng.standard_normal(256) * 0.1).astype(np.float32)
    want, got = np.zeros((64, 32), np.float32), np.zeros((64, 32), np.float32)
    launch(parse_module(GATED, "gated.mlir"), None, (1, 1, 1), [k, g, want])
    ptxsim.run_ptx(ptx, "gated", (1, 1, 1), [k, g, got])
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3)


SCALED_ROWS = """cuda_tile.module @scaled {
  entry @scaled(%x: tile<ptr<f32>>, %w: tile<ptr<f32>>, %b: tile<ptr<f32>>, %y: tile<ptr<f32>>) {
    %tx = make_tensor_view %x, shape = [32, 64], strides = [64, 1] : tensor_view<32x64xf32, strides=[64,1]>
    %tw = make_tensor_view %w, shape = [64], strides = [1] : tensor_view<64xf32, strides=[1]>
    %tb = make_tensor_view %b, shape = [32], strides = [1] : tensor_view<32xf32, strides=[1]>
    %ty = make_tensor_view %y, shape = [32, 64], strides = [64, 1] : tensor_view<32x64xf32, strides=[64,1]>
    %px = make_partition_view %tx : partition_view<tile=(32x64), tensor_view<32x64xf32, strides=[64,1]>>
    %pw = make_partition_view %tw : partition_view<tile=(64), tensor_view<64xf32, strides=[1]>>
    %pb = make_partition_view %tb : partition_view<tile=(32), tensor_view<32xf32, strides=[1]>>
    %py = make_partition_view %ty : partition_view<tile=(32x64), tensor_view<32x64xf32, strides=[64,1]>>
    %z = constant <i32: 0> : tile<i32>
    %xt, %t0 = load_view_tko weak %px[%z, %z] : partition_view<tile=(32x64), tensor_view<32x64xf32, strides=[64,1]>>, tile<i32> -> tile<32x64xf32>, token
    %wt, %t1 = load_view_tko weak %pw[%z] : partition_view<tile=(64), tensor_view<64xf32, strides=[1]>>, tile<i32> -> tile<64xf32>, token
    %bt, %t2 = load_view_tko weak %pb[%z] : partition_view<tile=(32), tensor_view<32xf32, strides=[1]>>, tile<i32> -> tile<32xf32>, token
    %w2 = reshape %wt : tile<64xf32> -> tile<1x64xf32>
    %wb = broadcast %w2 : tile<1x64xf32> -> tile<32x64xf32>
    %be = exp %bt : tile<32xf32>
    %b2 = reshape %be : tile<32xf32> -> tile<32x1xf32>
    %bb = broadcast %b2 : tile<32x1xf32> -> tile<32x64xf32>
    %s = mulf %xt, %wb : tile<32x64xf32>
    %r = addf %s, %bb : tile<32x64xf32>
    %t3 = store_view_tko weak %r, %py[%z, %z] : tile<32x64xf32>, partition_view<tile=(32x64), tensor_view<32x64xf32, strides=[64,1]>>, tile<i32> -> token
    return
  }
}
"""
# the same vector broadcast along rows into one tile and along columns into another:
# two layouts for one load, which then stays blocked and one of them moves
TWO_WAYS = """cuda_tile.module @two {
  entry @two(%x: tile<ptr<f32>>, %w: tile<ptr<f32>>, %y: tile<ptr<f32>>) {
    %tx = make_tensor_view %x, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xf32, strides=[64,1]>
    %tw = make_tensor_view %w, shape = [64], strides = [1] : tensor_view<64xf32, strides=[1]>
    %ty = make_tensor_view %y, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xf32, strides=[64,1]>
    %px = make_partition_view %tx : partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>
    %pw = make_partition_view %tw : partition_view<tile=(64), tensor_view<64xf32, strides=[1]>>
    %py = make_partition_view %ty : partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>
    %z = constant <i32: 0> : tile<i32>
    %xt, %t0 = load_view_tko weak %px[%z, %z] : partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>, tile<i32> -> tile<64x64xf32>, token
    %wt, %t1 = load_view_tko weak %pw[%z] : partition_view<tile=(64), tensor_view<64xf32, strides=[1]>>, tile<i32> -> tile<64xf32>, token
    %wr = reshape %wt : tile<64xf32> -> tile<1x64xf32>
    %wc = reshape %wt : tile<64xf32> -> tile<64x1xf32>
    %br = broadcast %wr : tile<1x64xf32> -> tile<64x64xf32>
    %bc = broadcast %wc : tile<64x1xf32> -> tile<64x64xf32>
    %s = mulf %xt, %br : tile<64x64xf32>
    %r = addf %s, %bc : tile<64x64xf32>
    %t3 = store_view_tko weak %r, %py[%z, %z] : tile<64x64xf32>, partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>, tile<i32> -> token
    return
  }
}
"""


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_a_loaded_vector_is_loaded_in_the_slice_its_broadcast_needs(arch, monkeypatch):
    """A row of weights and a column of (exponentiated) biases, each loaded from
    global memory and broadcast over a tile: global loads read into any layout
    for the same instructions, so each vector is loaded in the slice of the
    tile's layout its broadcast needs (propagate_layouts.load_want, through the
    reshape and the exp), and nothing moves through shared memory: no barrier
    at all. A vector wanted in two layouts (TWO_WAYS: along rows and along
    columns) keeps the blocked one and moves; both compute what the
    interpreter does."""
    import numpy as np
    from tilec.codegen.ptx import compile_text
    from tilec.interp import launch, parse_module
    import ptxsim
    _, text = scheduled(SCALED_ROWS, arch)
    loads = [l for l in text.splitlines() if "nv_tileas.tiled_load" in l]
    assert sum("layout slice" in l for l in loads) == 2
    moves = _shared_moves(monkeypatch)
    ptx = compile_text(SCALED_ROWS, arch=arch)
    assert moves == [] and "bar.sync" not in ptx
    rng = np.random.default_rng(7)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((32, 64), (64,), (32,)))
    want, got = np.zeros((32, 64), np.float32), np.zeros((32, 64), np.float32)
    launch(parse_module(SCALED_ROWS, "s.mlir"), None, (1, 1, 1), [x, w, b, want])
    ptxsim.run_ptx(ptx, "scaled", (1, 1, 1), [x, w, b, got])
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)

    _, text = scheduled(TWO_WAYS, arch)
    assert "layout slice" not in next(l for l in text.splitlines() if "tile<1xf32>" not in l
                                       and "nv_tileas.tiled_load" in l and "tile<64xf32>" in l)
    moves.clear()
    ptx = compile_text(TWO_WAYS, arch=arch)
    assert moves
    x, w = rng.standard_normal((64, 64)).astype(np.float32), rng.standard_normal(64).astype(np.float32)
    want, got = np.zeros((64, 64), np.float32), np.zeros((64, 64), np.float32)
    launch(parse_module(TWO_WAYS, "t.mlir"), None, (1, 1, 1), [x, w, want])
    ptxsim.run_ptx(ptx, "two", (1, 1, 1), [x, w, got])
    np.testing.assert_array_equal(got, want)
