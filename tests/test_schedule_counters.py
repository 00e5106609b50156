"""Counters carried through a loop become functions of its induction variable
(tilec/schedule/induction.py), so a loop whose loads are indexed by one is
software-pipelined. The kernel is the tiled matmul with its K tile index kept
in a counter of its own (kc = 0, 1, ...) beside a range variable that starts
at 2 and steps by 3, as cuTile kernels that walk K with `kv += 1` do."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from test_ptx_sim import interpreter_result

try:
    from gpu import cases
except ImportError:                    # pragma: no cover
    from tests.gpu import cases
try:
    import ptxsim
except ImportError:                    # pragma: no cover
    from tests import ptxsim

KERNEL = """\
cuda_tile.module @matmul_counter_f16 {
  entry @matmul_counter_f16(%arg0: tile<ptr<f16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f16>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<ptr<f16>>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f16>>
    %assume_0 = assume div_by<16>, %arg5 : tile<ptr<f16>>
    %assume_1 = assume div_by<16>, %arg10 : tile<ptr<f16>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_2 = constant <i32: 1> : tile<i32>
    %cst_1_i32_3 = constant <i32: 1> : tile<i32>
    %assume_4 = assume bounded<0, ?>, %arg1 : tile<i32>
    %assume_5 = assume bounded<0, ?>, %arg2 : tile<i32>
    %assume_6 = assume bounded<0, ?>, %arg3 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_4, %assume_5], strides = [%assume_6, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %assume_7 = assume bounded<0, ?>, %arg6 : tile<i32>
    %assume_8 = assume bounded<0, ?>, %arg7 : tile<i32>
    %assume_9 = assume bounded<0, ?>, %arg8 : tile<i32>
    %tview_10 = make_tensor_view %assume_0, shape = [%assume_7, %assume_8], strides = [%assume_9, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %assume_11 = assume bounded<0, ?>, %arg11 : tile<i32>
    %assume_12 = assume bounded<0, ?>, %arg12 : tile<i32>
    %assume_13 = assume bounded<0, ?>, %arg13 : tile<i32>
    %tview_14 = make_tensor_view %assume_1, shape = [%assume_11, %assume_12], strides = [%assume_13, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %blockId_x_15, %blockId_y_16, %blockId_z_17 = get_tile_block_id : tile<i32>
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<64x64xf32>
    %pview = make_partition_view %tview : partition_view<tile=(64x32), tensor_view<?x?xf16, strides=[?,1]>>
    %1:2 = get_index_space_shape %pview : partition_view<tile=(64x32), tensor_view<?x?xf16, strides=[?,1]>> -> tile<i32>
    %cst_1_i32_18 = constant <i32: 1> : tile<i32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %cst_2_i32 = constant <i32: 2> : tile<i32>
    %cst_3_i32 = constant <i32: 3> : tile<i32>
    %span = muli %1#1, %cst_3_i32 : tile<i32>
    %end = addi %span, %cst_2_i32 : tile<i32>
    %for:2 = for %i in (%cst_2_i32 to %end, step %cst_3_i32) : tile<i32> iter_values(%iterArg0 = %cst_0_f32, %kc = %cst_0_i32) -> (tile<64x64xf32>, tile<i32>) {
      %pview_20 = make_partition_view %tview : partition_view<tile=(64x32), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
      %tile, %result_token = load_view_tko weak %pview_20[%blockId_x, %kc] token = %0 : partition_view<tile=(64x32), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x32xf16>, token
      %pview_21 = make_partition_view %tview_10 : partition_view<tile=(32x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
      %tile_22, %result_token_23 = load_view_tko weak %pview_21[%kc, %blockId_y_16] token = %0 : partition_view<tile=(32x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<32x64xf16>, token
      %4 = mmaf %tile, %tile_22, %iterArg0 : tile<64x32xf16>, tile<32x64xf16>, tile<64x64xf32>
      %next = addi %kc, %cst_1_i32_18 : tile<i32>
      continue %4, %next : tile<64x64xf32>, tile<i32>
    }
    %2 = ftof %for#0  : tile<64x64xf32> -> tile<64x64xf16>
    %pview_19 = make_partition_view %tview_14 : partition_view<tile=(64x64), tensor_view<?x?xf16, strides=[?,1]>>
    %3 = store_view_tko weak %2, %pview_19[%blockId_x, %blockId_y_16] token = %0 : tile<64x64xf16>, partition_view<tile=(64x64), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
"""


@dataclass
class _Inline(cases.Case):
    source: str = ""

    def text(self):
        return self.source


def _launch(rng):
    a = rng.standard_normal((128, 80)).astype(np.float16)      # K = 80: three K tiles, the last padded
    b = rng.standard_normal((80, 128)).astype(np.float16)
    c = np.zeros((128, 128), np.float16)
    return cases.Launch((2, 2), cases.arr(a) + cases.arr(b) + cases.arr(c),
                        [("c", c, cases.Scaled(2e-3, cases._mm_scale(a, b)))])


CASE = _Inline("matmul_counter_f16", "cutile/matmul_counter_f16.mlir", _launch, source=KERNEL)


def _scheduled(run_cli):
    rc, out, err = run_cli("opt", "-", "--lower-to-tileas", "--schedule", stdin=KERNEL)
    assert rc == 0, err
    return out


def test_a_counter_indexed_loop_is_pipelined(run_cli, monkeypatch):
    ir = _scheduled(run_cli)
    assert "consume_one" in ir and "produce_one" in ir
    assert "arith.divsi" in ir          # the counter's uses read (iv - lb) / step * 1 + 0
    import tilec.schedule.induction as induction
    monkeypatch.setattr(induction, "rewrite_counters", lambda loop: 0)
    assert "consume_one" not in _scheduled(run_cli)


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80"])
def test_the_pipelined_counter_loop_matches_the_interpreter(arch):
    from tilec.codegen.ptx import compile_text
    from tilec.runtime import convert_scalars
    ptx = compile_text(KERNEL, arch=arch)
    want, _, _ = interpreter_result(CASE)
    launch = CASE.build(CASE.rng())
    args, memo = cases.copy_args(launch.args)
    ptxsim.run_ptx(ptx, "matmul_counter_f16", launch.grid, convert_scalars(KERNEL, args))
    cases.compare(CASE, launch, cases.outputs_of(launch, memo), want)
