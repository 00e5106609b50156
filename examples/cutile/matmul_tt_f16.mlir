cuda_tile.module @matmul_tt_f16 {
  entry @matmul_tt_f16(%arg0: tile<ptr<f16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<i32>, %arg7: tile<ptr<f16>>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<i32>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<ptr<f16>>, %arg15: tile<i32>, %arg16: tile<i32>, %arg17: tile<i32>, %arg18: tile<i32>, %arg19: tile<i32>, %arg20: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f16>>
    %assume_0 = assume div_by<16>, %arg7 : tile<ptr<f16>>
    %assume_1 = assume div_by<16>, %arg14 : tile<ptr<f16>>
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
    %tview_20 = make_tensor_view %assume_1, shape = [%assume_15, %assume_16, %assume_17], strides = [%assume_18, %assume_19, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %blockId_x_21, %blockId_y_22, %blockId_z_23 = get_tile_block_id : tile<i32>
    %blockId_x_24, %blockId_y_25, %blockId_z_26 = get_tile_block_id : tile<i32>
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<64x64xf32>
    %pview = make_partition_view %tview : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>
    %1:3 = get_index_space_shape %pview : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>> -> tile<i32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %cst_1_i32_27 = constant <i32: 1> : tile<i32>
    %for = for %loopIdx in (%cst_0_i32 to %1#1, step %cst_1_i32_27) : tile<i32> iter_values(%iterArg0 = %cst_0_f32) -> (tile<64x64xf32>) {
      %pview_29 = make_partition_view %tview : partition_view<tile=(1x64x64), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>
      %tile, %result_token = load_view_tko weak %pview_29[%blockId_z_26, %loopIdx, %blockId_x] token = %0 : partition_view<tile=(1x64x64), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x64x64xf16>, token
      %pview_30 = make_partition_view %tview_14 : partition_view<tile=(1x64x64), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>
      %tile_31, %result_token_32 = load_view_tko weak %pview_30[%blockId_z_26, %blockId_y_22, %loopIdx] token = %0 : partition_view<tile=(1x64x64), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x64x64xf16>, token
      %4 = permute %tile [0, 2, 1] : tile<1x64x64xf16> -> tile<1x64x64xf16>
      %reshape_33 = reshape %4 : tile<1x64x64xf16> -> tile<64x64xf16>
      %5 = permute %tile_31 [0, 2, 1] : tile<1x64x64xf16> -> tile<1x64x64xf16>
      %reshape_34 = reshape %5 : tile<1x64x64xf16> -> tile<64x64xf16>
      %6 = mmaf %reshape_33, %reshape_34, %iterArg0 : tile<64x64xf16>, tile<64x64xf16>, tile<64x64xf32>
      continue %6 : tile<64x64xf32>
    }
    %2 = ftof %for  : tile<64x64xf32> -> tile<64x64xf16>
    %reshape = reshape %2 : tile<64x64xf16> -> tile<1x64x64xf16>
    %pview_28 = make_partition_view %tview_20 : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>
    %3 = store_view_tko weak %reshape, %pview_28[%blockId_z_26, %blockId_x, %blockId_y_22] token = %0 : tile<1x64x64xf16>, partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> token
    return
  }
}
