cuda_tile.module @delta_rule_state {
  entry @delta_rule_state(%arg0: tile<ptr<bf16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<bf16>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<ptr<f32>>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<i32>, %arg15: tile<ptr<f32>>, %arg16: tile<i32>, %arg17: tile<i32>, %arg18: tile<i32>, %arg19: tile<i32>, %arg20: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<bf16>>
    %assume_0 = assume div_by<16>, %arg5 : tile<ptr<bf16>>
    %assume_1 = assume div_by<16>, %arg10 : tile<ptr<f32>>
    %assume_2 = assume div_by<16>, %arg15 : tile<ptr<f32>>
    %assume_3 = assume bounded<0, ?>, %arg1 : tile<i32>
    %assume_4 = assume bounded<0, ?>, %arg2 : tile<i32>
    %assume_k = assume div_by<8>, %arg3 : tile<i32>
    %assume_5 = assume bounded<0, ?>, %assume_k : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_3, %assume_4], strides = [%assume_5, 1] : tile<i32> -> tensor_view<?x?xbf16, strides=[?,1]>
    %assume_6 = assume bounded<0, ?>, %arg6 : tile<i32>
    %assume_7 = assume bounded<0, ?>, %arg7 : tile<i32>
    %assume_v = assume div_by<8>, %arg8 : tile<i32>
    %assume_8 = assume bounded<0, ?>, %assume_v : tile<i32>
    %tview_9 = make_tensor_view %assume_0, shape = [%assume_6, %assume_7], strides = [%assume_8, 1] : tile<i32> -> tensor_view<?x?xbf16, strides=[?,1]>
    %assume_10 = assume bounded<0, ?>, %arg11 : tile<i32>
    %assume_11 = assume bounded<0, ?>, %arg12 : tile<i32>
    %assume_o = assume div_by<4>, %arg13 : tile<i32>
    %assume_12 = assume bounded<0, ?>, %assume_o : tile<i32>
    %tview_13 = make_tensor_view %assume_1, shape = [%assume_10, %assume_11], strides = [%assume_12, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %assume_14 = assume bounded<0, ?>, %arg16 : tile<i32>
    %assume_15 = assume bounded<0, ?>, %arg17 : tile<i32>
    %assume_s = assume div_by<4>, %arg18 : tile<i32>
    %assume_16 = assume bounded<0, ?>, %assume_s : tile<i32>
    %tview_17 = make_tensor_view %assume_2, shape = [%assume_14, %assume_15], strides = [%assume_16, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %pview = make_partition_view %tview : partition_view<tile=(64x128), padding_value = zero, tensor_view<?x?xbf16, strides=[?,1]>>
    %pview_18 = make_partition_view %tview_9 : partition_view<tile=(64x128), padding_value = zero, tensor_view<?x?xbf16, strides=[?,1]>>
    %pview_19 = make_partition_view %tview_13 : partition_view<tile=(64x128), tensor_view<?x?xf32, strides=[?,1]>>
    %pview_20 = make_partition_view %tview_17 : partition_view<tile=(128x128), tensor_view<?x?xf32, strides=[?,1]>>
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<128x128xf32>
    %cst_0_f32_21 = constant <f32: 0.000000e+00> : tile<64x128xf32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %1 = muli %blockId_x, %arg20 : tile<i32>
    %for = for %loopIdx in (%cst_0_i32 to %arg20, step %cst_1_i32) : tile<i32> iter_values(%iterArg0 = %cst_0_f32) -> (tile<128x128xf32>) {
      %2 = addi %1, %loopIdx : tile<i32>
      %tile, %result_token = load_view_tko weak %pview[%2, %cst_0_i32] token = %0 : partition_view<tile=(64x128), padding_value = zero, tensor_view<?x?xbf16, strides=[?,1]>>, tile<i32> -> tile<64x128xbf16>, token
      %tile_22, %result_token_23 = load_view_tko weak %pview_18[%2, %cst_0_i32] token = %0 : partition_view<tile=(64x128), padding_value = zero, tensor_view<?x?xbf16, strides=[?,1]>>, tile<i32> -> tile<64x128xbf16>, token
      %3 = ftof %iterArg0 : tile<128x128xf32> -> tile<128x128xbf16>
      %4 = ftof %tile_22 : tile<64x128xbf16> -> tile<64x128xf32>
      %5 = mmaf %tile, %3, %cst_0_f32_21 : tile<64x128xbf16>, tile<128x128xbf16>, tile<64x128xf32>
      %6 = store_view_tko weak %5, %pview_19[%2, %cst_0_i32] token = %0 : tile<64x128xf32>, partition_view<tile=(64x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
      %7 = subf %4, %5 : tile<64x128xf32>
      %k32 = ftof %tile : tile<64x128xbf16> -> tile<64x128xf32>
      %8 = permute %k32 [1, 0] : tile<64x128xf32> -> tile<128x64xf32>
      %9 = ftof %8 : tile<128x64xf32> -> tile<128x64xtf32>
      %10 = ftof %7 : tile<64x128xf32> -> tile<64x128xtf32>
      %11 = mmaf %9, %10, %iterArg0 : tile<128x64xtf32>, tile<64x128xtf32>, tile<128x128xf32>
      continue %11 : tile<128x128xf32>
    }
    %12 = store_view_tko weak %for, %pview_20[%blockId_x, %cst_0_i32] token = %0 : tile<128x128xf32>, partition_view<tile=(128x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
