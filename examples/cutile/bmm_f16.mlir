cuda_tile.module @bmm_f16 {
  entry @bmm_f16(%arg0: tile<ptr<f16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<i32>, %arg7: tile<ptr<f16>>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<i32>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<ptr<f32>>, %arg15: tile<i32>, %arg16: tile<i32>, %arg17: tile<i32>, %arg18: tile<i32>, %arg19: tile<i32>, %arg20: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f16>>
    %assume_0 = assume div_by<16>, %arg7 : tile<ptr<f16>>
    %assume_1 = assume div_by<16>, %arg14 : tile<ptr<f32>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_2 = constant <i32: 1> : tile<i32>
    %cst_1_i32_3 = constant <i32: 1> : tile<i32>
    %assume_4 = assume bounded<0, ?>, %arg1 : tile<i32>
    %assume_5 = assume bounded<0, ?>, %arg2 : tile<i32>
    %assume_6 = assume bounded<0, ?>, %arg3 : tile<i32>
    %assume_7 = assume bounded<0, ?>, %arg4 : tile<i32>
    %assume_8 = assume bounded<0, ?>, %arg5 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_4, %assume_5, %assume_6], strides = [%assume_7, %assume_8, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %assume_9 = assume bounded<0, ?>, %arg8 : tile<i32>
    %assume_10 = assume bounded<0, ?>, %arg9 : tile<i32>
    %assume_11 = assume bounded<0, ?>, %arg10 : tile<i32>
    %assume_12 = assume bounded<0, ?>, %arg11 : tile<i32>
    %assume_13 = assume bounded<0, ?>, %arg12 : tile<i32>
    %tview_14 = make_tensor_view %assume_0, shape = [%assume_9, %assume_10, %assume_11], strides = [%assume_12, %assume_13, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %assume_15 = assume bounded<0, ?>, %arg15 : tile<i32>
    %assume_16 = assume bounded<0, ?>, %arg16 : tile<i32>
    %assume_17 = assume bounded<0, ?>, %arg17 : tile<i32>
    %assume_18 = assume bounded<0, ?>, %arg18 : tile<i32>
    %assume_19 = assume bounded<0, ?>, %arg19 : tile<i32>
    %tview_20 = make_tensor_view %assume_1, shape = [%assume_15, %assume_16, %assume_17], strides = [%assume_18, %assume_19, 1] : tile<i32> -> tensor_view<?x?x?xf32, strides=[?,?,1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<2x32x32xf32>
    %pview = make_partition_view %tview : partition_view<tile=(2x32x32), tensor_view<?x?x?xf16, strides=[?,?,1]>>
    %1:3 = get_index_space_shape %pview : partition_view<tile=(2x32x32), tensor_view<?x?x?xf16, strides=[?,?,1]>> -> tile<i32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %cst_1_i32_21 = constant <i32: 1> : tile<i32>
    %cst_0_i32_22 = constant <i32: 0> : tile<i32>
    %cst_0_i32_23 = constant <i32: 0> : tile<i32>
    %cst_0_i32_24 = constant <i32: 0> : tile<i32>
    %for = for %loopIdx in (%cst_0_i32 to %1#2, step %cst_1_i32_21) : tile<i32> iter_values(%iterArg0 = %cst_0_f32) -> (tile<2x32x32xf32>) {
      %pview_28 = make_partition_view %tview : partition_view<tile=(2x32x32), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>
      %tile, %result_token = load_view_tko weak %pview_28[%cst_0_i32_22, %blockId_x, %loopIdx] token = %0 : partition_view<tile=(2x32x32), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<2x32x32xf16>, token
      %pview_29 = make_partition_view %tview_14 : partition_view<tile=(2x32x32), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>
      %tile_30, %result_token_31 = load_view_tko weak %pview_29[%cst_0_i32_23, %loopIdx, %cst_0_i32_24] token = %0 : partition_view<tile=(2x32x32), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<2x32x32xf16>, token
      %3 = mmaf %tile, %tile_30, %iterArg0 : tile<2x32x32xf16>, tile<2x32x32xf16>, tile<2x32x32xf32>
      continue %3 : tile<2x32x32xf32>
    }
    %cst_0_i32_25 = constant <i32: 0> : tile<i32>
    %cst_0_i32_26 = constant <i32: 0> : tile<i32>
    %pview_27 = make_partition_view %tview_20 : partition_view<tile=(2x32x32), tensor_view<?x?x?xf32, strides=[?,?,1]>>
    %2 = store_view_tko weak %for, %pview_27[%cst_0_i32_25, %blockId_x, %cst_0_i32_26] token = %0 : tile<2x32x32xf32>, partition_view<tile=(2x32x32), tensor_view<?x?x?xf32, strides=[?,?,1]>>, tile<i32> -> token
    return
  }
}
