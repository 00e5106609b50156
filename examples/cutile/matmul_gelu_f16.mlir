cuda_tile.module @matmul_gelu_f16 {
  entry @matmul_gelu_f16(%arg0: tile<ptr<f16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f16>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<ptr<f16>>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<i32>) optimization_hints=<sm_90 = {}> {
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
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<128x128xf32>
    %pview = make_partition_view %tview : partition_view<tile=(128x64), tensor_view<?x?xf16, strides=[?,1]>>
    %1:2 = get_index_space_shape %pview : partition_view<tile=(128x64), tensor_view<?x?xf16, strides=[?,1]>> -> tile<i32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %cst_1_i32_18 = constant <i32: 1> : tile<i32>
    %for = for %loopIdx in (%cst_0_i32 to %1#1, step %cst_1_i32_18) : tile<i32> iter_values(%iterArg0 = %cst_0_f32) -> (tile<128x128xf32>) {
      %pview_25 = make_partition_view %tview : partition_view<tile=(128x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
      %tile, %result_token = load_view_tko weak %pview_25[%blockId_x, %loopIdx] token = %0 : partition_view<tile=(128x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<128x64xf16>, token
      %pview_26 = make_partition_view %tview_10 : partition_view<tile=(64x128), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
      %tile_27, %result_token_28 = load_view_tko weak %pview_26[%loopIdx, %blockId_y_16] token = %0 : partition_view<tile=(64x128), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x128xf16>, token
      %9 = mmaf %tile, %tile_27, %iterArg0 : tile<128x64xf16>, tile<64x128xf16>, tile<128x128xf32>
      continue %9 : tile<128x128xf32>
    }
    %cst_f32 = constant <f32: 5.000000e-01> : tile<f32>
    %reshape = reshape %cst_f32 : tile<f32> -> tile<1x1xf32>
    %bcast = broadcast %reshape : tile<1x1xf32> -> tile<128x128xf32>
    %2 = mulf %for, %bcast  : tile<128x128xf32>
    %cst_1_f32 = constant <f32: 1.000000e+00> : tile<f32>
    %cst_f32_19 = constant <f32: 0.797884583> : tile<f32>
    %reshape_20 = reshape %cst_f32_19 : tile<f32> -> tile<1x1xf32>
    %bcast_21 = broadcast %reshape_20 : tile<1x1xf32> -> tile<128x128xf32>
    %3 = mulf %for, %bcast_21  : tile<128x128xf32>
    %4 = tanh %3  : tile<128x128xf32>
    %reshape_22 = reshape %cst_1_f32 : tile<f32> -> tile<1x1xf32>
    %bcast_23 = broadcast %reshape_22 : tile<1x1xf32> -> tile<128x128xf32>
    %5 = addf %bcast_23, %4  : tile<128x128xf32>
    %6 = mulf %2, %5  : tile<128x128xf32>
    %7 = ftof %6  : tile<128x128xf32> -> tile<128x128xf16>
    %pview_24 = make_partition_view %tview_14 : partition_view<tile=(128x128), tensor_view<?x?xf16, strides=[?,1]>>
    %8 = store_view_tko weak %7, %pview_24[%blockId_x, %blockId_y_16] token = %0 : tile<128x128xf16>, partition_view<tile=(128x128), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
