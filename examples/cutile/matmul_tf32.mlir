cuda_tile.module @matmul_tf32 {
  entry @matmul_tf32(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f32>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<ptr<f32>>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
    %assume_0 = assume div_by<16>, %arg5 : tile<ptr<f32>>
    %assume_1 = assume div_by<16>, %arg10 : tile<ptr<f32>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_2 = constant <i32: 1> : tile<i32>
    %cst_1_i32_3 = constant <i32: 1> : tile<i32>
    %assume_4 = assume bounded<0, ?>, %arg1 : tile<i32>
    %assume_5 = assume bounded<0, ?>, %arg2 : tile<i32>
    %assume_6 = assume bounded<0, ?>, %arg3 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_4, %assume_5], strides = [%assume_6, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %assume_7 = assume bounded<0, ?>, %arg6 : tile<i32>
    %assume_8 = assume bounded<0, ?>, %arg7 : tile<i32>
    %assume_9 = assume bounded<0, ?>, %arg8 : tile<i32>
    %tview_10 = make_tensor_view %assume_0, shape = [%assume_7, %assume_8], strides = [%assume_9, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %assume_11 = assume bounded<0, ?>, %arg11 : tile<i32>
    %assume_12 = assume bounded<0, ?>, %arg12 : tile<i32>
    %assume_13 = assume bounded<0, ?>, %arg13 : tile<i32>
    %tview_14 = make_tensor_view %assume_1, shape = [%assume_11, %assume_12], strides = [%assume_13, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %blockId_x_15, %blockId_y_16, %blockId_z_17 = get_tile_block_id : tile<i32>
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<64x64xf32>
    %pview = make_partition_view %tview : partition_view<tile=(64x32), tensor_view<?x?xf32, strides=[?,1]>>
    %1:2 = get_index_space_shape %pview : partition_view<tile=(64x32), tensor_view<?x?xf32, strides=[?,1]>> -> tile<i32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %cst_1_i32_18 = constant <i32: 1> : tile<i32>
    %for = for %loopIdx in (%cst_0_i32 to %1#1, step %cst_1_i32_18) : tile<i32> iter_values(%iterArg0 = %cst_0_f32) -> (tile<64x64xf32>) {
      %pview_20 = make_partition_view %tview : partition_view<tile=(64x32), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
      %tile, %result_token = load_view_tko weak %pview_20[%blockId_x, %loopIdx] token = %0 : partition_view<tile=(64x32), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<64x32xf32>, token
      %pview_21 = make_partition_view %tview_10 : partition_view<tile=(32x64), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
      %tile_22, %result_token_23 = load_view_tko weak %pview_21[%loopIdx, %blockId_y_16] token = %0 : partition_view<tile=(32x64), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<32x64xf32>, token
      %3 = mmaf %tile, %tile_22, %iterArg0 : tile<64x32xf32>, tile<32x64xf32>, tile<64x64xf32>
      continue %3 : tile<64x64xf32>
    }
    %pview_19 = make_partition_view %tview_14 : partition_view<tile=(64x64), tensor_view<?x?xf32, strides=[?,1]>>
    %2 = store_view_tko weak %for, %pview_19[%blockId_x, %blockId_y_16] token = %0 : tile<64x64xf32>, partition_view<tile=(64x64), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
