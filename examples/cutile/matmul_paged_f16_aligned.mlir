cuda_tile.module @matmul_paged_f16_aligned {
  entry @matmul_paged_f16_aligned(%arg0: tile<ptr<f16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f16>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<ptr<i32>>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<ptr<f16>>, %arg14: tile<i32>, %arg15: tile<i32>, %arg16: tile<i32>, %arg17: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f16>>
    %assume_0 = assume div_by<16>, %arg1 : tile<i32>
    %assume_1 = assume div_by<16>, %arg2 : tile<i32>
    %assume_2 = assume div_by<16>, %arg3 : tile<i32>
    %assume_3 = assume div_by<16>, %arg5 : tile<ptr<f16>>
    %assume_4 = assume div_by<16>, %arg6 : tile<i32>
    %assume_5 = assume div_by<16>, %arg7 : tile<i32>
    %assume_6 = assume div_by<16>, %arg8 : tile<i32>
    %assume_7 = assume div_by<16>, %arg10 : tile<ptr<i32>>
    %assume_8 = assume div_by<16>, %arg13 : tile<ptr<f16>>
    %assume_9 = assume div_by<16>, %arg14 : tile<i32>
    %assume_10 = assume div_by<16>, %arg15 : tile<i32>
    %assume_11 = assume div_by<16>, %arg16 : tile<i32>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_12 = constant <i32: 1> : tile<i32>
    %cst_1_i32_13 = constant <i32: 1> : tile<i32>
    %cst_1_i64 = constant <i64: 1> : tile<i64>
    %assume_assume = assume bounded<0, ?>, %assume_0 : tile<i32>
    %assume_assume_assume = assume div_by<16>, %assume_assume : tile<i32>
    %assume_assume_14 = assume bounded<0, ?>, %assume_1 : tile<i32>
    %assume_assume_assume_15 = assume div_by<16>, %assume_assume_14 : tile<i32>
    %assume_assume_16 = assume bounded<0, ?>, %assume_2 : tile<i32>
    %assume_assume_assume_17 = assume div_by<16>, %assume_assume_16 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_assume_assume, %assume_assume_assume_15], strides = [%assume_assume_assume_17, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %assume_assume_18 = assume bounded<0, ?>, %assume_4 : tile<i32>
    %assume_assume_assume_19 = assume div_by<16>, %assume_assume_18 : tile<i32>
    %assume_assume_20 = assume bounded<0, ?>, %assume_5 : tile<i32>
    %assume_assume_assume_21 = assume div_by<16>, %assume_assume_20 : tile<i32>
    %assume_assume_22 = assume bounded<0, ?>, %assume_6 : tile<i32>
    %assume_assume_assume_23 = assume div_by<16>, %assume_assume_22 : tile<i32>
    %tview_24 = make_tensor_view %assume_3, shape = [%assume_assume_assume_19, %assume_assume_assume_21], strides = [%assume_assume_assume_23, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %assume_25 = assume bounded<0, ?>, %arg11 : tile<i32>
    %assume_assume_26 = assume bounded<0, ?>, %assume_9 : tile<i32>
    %assume_assume_assume_27 = assume div_by<16>, %assume_assume_26 : tile<i32>
    %assume_assume_28 = assume bounded<0, ?>, %assume_10 : tile<i32>
    %assume_assume_assume_29 = assume div_by<16>, %assume_assume_28 : tile<i32>
    %assume_assume_30 = assume bounded<0, ?>, %assume_11 : tile<i32>
    %assume_assume_assume_31 = assume div_by<16>, %assume_assume_30 : tile<i32>
    %tview_32 = make_tensor_view %assume_8, shape = [%assume_assume_assume_27, %assume_assume_assume_29], strides = [%assume_assume_assume_31, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %blockId_x_33, %blockId_y_34, %blockId_z_35 = get_tile_block_id : tile<i32>
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<128x128xf32>
    %pview = make_partition_view %tview : partition_view<tile=(128x64), tensor_view<?x?xf16, strides=[?,1]>>
    %1:2 = get_index_space_shape %pview : partition_view<tile=(128x64), tensor_view<?x?xf16, strides=[?,1]>> -> tile<i32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %cst_1_i32_36 = constant <i32: 1> : tile<i32>
    %cst_0_i32_37 = constant <i32: 0> : tile<i32>
    %2 = exti %assume_25 signed : tile<i32> -> tile<i64>
    %for = for %loopIdx in (%cst_0_i32 to %1#1, step %cst_1_i32_36) : tile<i32> iter_values(%iterArg0 = %cst_0_f32) -> (tile<128x128xf32>) {
      %5 = exti %loopIdx signed : tile<i32> -> tile<i64>
      %6 = cmpi less_than %5, %2, unsigned : tile<i64> -> tile<i1>
      %7 = muli %5, %cst_1_i64 : tile<i64>
      %8 = offset %assume_7, %7 : tile<ptr<i32>>, tile<i64> -> tile<ptr<i32>>
      %assume_39 = assume div_by<4>, %8 : tile<ptr<i32>>
      %result, %result_token = load_ptr_tko weak %assume_39, %6, %cst_0_i32_37 token=%0 : tile<ptr<i32>>, tile<i1>, tile<i32> -> tile<i32>, token
      %pview_40 = make_partition_view %tview : partition_view<tile=(128x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
      %tile, %result_token_41 = load_view_tko weak %pview_40[%blockId_x, %loopIdx] token = %0 : partition_view<tile=(128x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<128x64xf16>, token
      %pview_42 = make_partition_view %tview_24 : partition_view<tile=(64x128), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
      %tile_43, %result_token_44 = load_view_tko weak %pview_42[%result, %blockId_y_34] token = %0 : partition_view<tile=(64x128), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x128xf16>, token
      %9 = mmaf %tile, %tile_43, %iterArg0 : tile<128x64xf16>, tile<64x128xf16>, tile<128x128xf32>
      continue %9 : tile<128x128xf32>
    }
    %3 = ftof %for  : tile<128x128xf32> -> tile<128x128xf16>
    %pview_38 = make_partition_view %tview_32 : partition_view<tile=(128x128), tensor_view<?x?xf16, strides=[?,1]>>
    %4 = store_view_tko weak %3, %pview_38[%blockId_x, %blockId_y_34] token = %0 : tile<128x128xf16>, partition_view<tile=(128x128), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
