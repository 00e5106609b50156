"""A loop that runs at most once is not pipelined (schedule/trip_count.py).

Decode attention gives each CTA one block of keys: its K loop makes one trip,
and the producer agent, barriers and tensor maps of a pipeline only delayed
its loads (4.7 us against 3.3 us unpipelined on an H100)."""
import re

import numpy as np
import pytest

from tilec.interp import launch, parse_module
from tilec.schedule.trip_count import runs_at_most_once

_KERNEL = """cuda_tile.module @m {
  entry @k(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>, %n: tile<i32>) {
    %ta = make_tensor_view %a, shape = [64, 256], strides = [256, 1] : tensor_view<64x256xf16, strides=[256,1]>
    %tb = make_tensor_view %b, shape = [256, 64], strides = [64, 1] : tensor_view<256x64xf16, strides=[64,1]>
    %tc = make_tensor_view %c, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xf32, strides=[64,1]>
    %pa = make_partition_view %ta : partition_view<tile=(64x64), tensor_view<64x256xf16, strides=[256,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(64x64), tensor_view<256x64xf16, strides=[64,1]>>
    %pc = make_partition_view %tc : partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>
    %z = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %two = constant <i32: 2> : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %lb = muli %bx, %two : tile<i32>
    %c0 = constant <f32: 0.0> : tile<64x64xf32>
    BOUNDS
    %o = for %i in (LB to UB, step STEP) : tile<i32> iter_values(%x = %c0) -> (tile<64x64xf32>) {
      %va, %t0 = load_view_tko weak %pa[%z, %i] : partition_view<tile=(64x64), tensor_view<64x256xf16, strides=[256,1]>>, tile<i32> -> tile<64x64xf16>, token
      %vb, %t1 = load_view_tko weak %pb[%i, %z] : partition_view<tile=(64x64), tensor_view<256x64xf16, strides=[64,1]>>, tile<i32> -> tile<64x64xf16>, token
      %y = mmaf %va, %vb, %x : tile<64x64xf16>, tile<64x64xf16>, tile<64x64xf32>
      continue %y : tile<64x64xf32>
    }
    %t2 = store_view_tko weak %o, %pc[%z, %z] : tile<64x64xf32>, partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>, tile<i32> -> token
    return
  }
}
"""

# (extra bound ops, lb, ub, step, runs at most once)
_CASES = {
    "constant-one-trip": ("", "%z", "%one", "%one", True),
    "constant-two-trips": ("", "%z", "%two", "%one", False),
    "empty": ("", "%one", "%z", "%one", True),
    "lb-plus-step": ("%ub = addi %lb, %two : tile<i32>", "%lb", "%ub", "%two", True),
    "step-plus-lb": ("%ub = addi %one, %lb : tile<i32>", "%lb", "%ub", "%two", True),
    "lb-plus-two-steps": ("%ub = addi %lb, %two : tile<i32>", "%lb", "%ub", "%one", False),
    "signed-min": ("%e = addi %lb, %two : tile<i32>\n    %ub = mini %e, %n signed : tile<i32>",
                   "%lb", "%ub", "%two", True),
    "unsigned-min": ("%e = addi %lb, %two : tile<i32>\n    %ub = mini %e, %n unsigned : tile<i32>",
                     "%lb", "%ub", "%two", False),
    "dynamic-bound": ("", "%z", "%n", "%one", False),
    "dynamic-step": ("", "%z", "%one", "%n", False),
    "other-base": ("%ub = addi %bx, %one : tile<i32>", "%lb", "%ub", "%two", False),
}


def _text(case):
    extra, lb, ub, step, _ = _CASES[case]
    return _KERNEL.replace("BOUNDS", extra).replace("LB", lb).replace("UB", ub).replace("STEP", step)


def _loop(text):
    top = parse_module(text, "k.mlir")
    tops = top if isinstance(top, list) else [top]
    return next(op for t in tops for op in t.walk() if op.name == "cuda_tile.for")


@pytest.mark.parametrize("case", list(_CASES))
def test_the_bounds_show_at_most_one_trip(case):
    assert runs_at_most_once(_loop(_text(case))) is _CASES[case][-1]


def test_a_lowered_loop_is_judged_the_same():
    """The schedule sees the scf.for the lowering made, its bounds cast to index."""
    from tilec.ir.diagnostics import DiagnosticEngine
    from tilec.passes.manager import PassManager
    from tilec.passes.pipeline import Nest, make_pass
    from tilec.syntax.parser import parse_text
    for case, want in (("lb-plus-step", True), ("signed-min", True), ("lb-plus-two-steps", False)):
        engine = DiagnosticEngine()
        ops = parse_text(_text(case), engine, "k.mlir")
        pm = PassManager(Nest("builtin.module", [make_pass("lower-to-tileas", {"arch": "sm_90a"})]))
        assert pm.run(ops, engine), engine
        loops = [op for top in pm.result_ops for op in top.walk() if op.name == "scf.for"]
        assert len(loops) == 1 and runs_at_most_once(loops[0]) is want, case


@pytest.mark.parametrize("case,pipelined", [("lb-plus-step", False), ("signed-min", False),
                                            ("lb-plus-two-steps", True)])
def test_a_one_trip_loop_has_no_pipeline(case, pipelined):
    """sm_90a: no producer agent and no barrier for a loop of one trip; one of two trips keeps its pipeline. Both compute what the interpreter
    does (the PTX simulator)."""
    from tilec.codegen.ptx import compile_text
    import ptxsim
    text = _text(case)
    ptx = compile_text(text, arch="sm_90a")
    assert bool(re.search(r"mbarrier\.try_wait", ptx)) is pipelined
    assert re.search(r"\.reqntid (\d+)", ptx).group(1) == ("256" if pipelined else "128")   # a producer warpgroup
    rng = np.random.default_rng(7)
    a = rng.standard_normal((64, 256)).astype(np.float16)
    b = rng.standard_normal((256, 64)).astype(np.float16)
    n = np.int32(1)
    want, got = np.zeros((64, 64), np.float32), np.zeros((64, 64), np.float32)
    launch(parse_module(text, "k.mlir"), None, (1, 1, 1), [a, b, want, n])
    ptxsim.run_ptx(ptx, "k", (1, 1, 1), [a, b, got, n])
    assert np.abs(want).sum() > 0
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3)
