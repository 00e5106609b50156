cuda_tile.module @matmul_rowsq_bf16_aligned {
  entry @matmul_rowsq_bf16_aligned(%arg0: tile<ptr<bf16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<bf16>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<ptr<bf16>>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<i32>, %arg15: tile<ptr<f32>>, %arg16: tile<i32>, %arg17: tile<i32>, %arg18: tile<i32>, %arg19: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<bf16>>
    %assume_0 = assume div_by<16>, %arg1 : tile<i32>
    %assume_1 = assume div_by<16>, %arg2 : tile<i32>
    %assume_2 = assume div_by<16>, %arg3 : tile<i32>
    %assume_3 = assume div_by<16>, %arg5 : tile<ptr<bf16>>
    %assume_4 = assume div_by<16>, %arg6 : tile<i32>
    %assume_5 = assume div_by<16>, %arg7 : tile<i32>
    %assume_6 = assume div_by<16>, %arg8 : tile<i32>
    %assume_7 = assume div_by<16>, %arg10 : tile<ptr<bf16>>
    %assume_8 = assume div_by<16>, %arg11 : tile<i32>
    %assume_9 = assume div_by<16>, %arg12 : tile<i32>
    %assume_10 = assume div_by<16>, %arg13 : tile<i32>
    %assume_11 = assume div_by<16>, %arg15 : tile<ptr<f32>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_12 = constant <i32: 1> : tile<i32>
    %cst_1_i32_13 = constant <i32: 1> : tile<i32>
    %cst_1_i32_14 = constant <i32: 1> : tile<i32>
    %assume_assume = assume bounded<0, ?>, %assume_0 : tile<i32>
    %assume_assume_assume = assume div_by<16>, %assume_assume : tile<i32>
    %assume_assume_15 = assume bounded<0, ?>, %assume_1 : tile<i32>
    %assume_assume_assume_16 = assume div_by<16>, %assume_assume_15 : tile<i32>
    %assume_assume_17 = assume bounded<0, ?>, %assume_2 : tile<i32>
    %assume_assume_assume_18 = assume div_by<16>, %assume_assume_17 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_assume_assume, %assume_assume_assume_16], strides = [%assume_assume_assume_18, 1] : tile<i32> -> tensor_view<?x?xbf16, strides=[?,1]>
    %assume_assume_19 = assume bounded<0, ?>, %assume_4 : tile<i32>
    %assume_assume_assume_20 = assume div_by<16>, %assume_assume_19 : tile<i32>
    %assume_assume_21 = assume bounded<0, ?>, %assume_5 : tile<i32>
    %assume_assume_assume_22 = assume div_by<16>, %assume_assume_21 : tile<i32>
    %assume_assume_23 = assume bounded<0, ?>, %assume_6 : tile<i32>
    %assume_assume_assume_24 = assume div_by<16>, %assume_assume_23 : tile<i32>
    %tview_25 = make_tensor_view %assume_3, shape = [%assume_assume_assume_20, %assume_assume_assume_22], strides = [%assume_assume_assume_24, 1] : tile<i32> -> tensor_view<?x?xbf16, strides=[?,1]>
    %assume_assume_26 = assume bounded<0, ?>, %assume_8 : tile<i32>
    %assume_assume_assume_27 = assume div_by<16>, %assume_assume_26 : tile<i32>
    %assume_assume_28 = assume bounded<0, ?>, %assume_9 : tile<i32>
    %assume_assume_assume_29 = assume div_by<16>, %assume_assume_28 : tile<i32>
    %assume_assume_30 = assume bounded<0, ?>, %assume_10 : tile<i32>
    %assume_assume_assume_31 = assume div_by<16>, %assume_assume_30 : tile<i32>
    %tview_32 = make_tensor_view %assume_7, shape = [%assume_assume_assume_27, %assume_assume_assume_29], strides = [%assume_assume_assume_31, 1] : tile<i32> -> tensor_view<?x?xbf16, strides=[?,1]>
    %assume_33 = assume bounded<0, ?>, %arg16 : tile<i32>
    %assume_34 = assume bounded<0, ?>, %arg17 : tile<i32>
    %assume_35 = assume bounded<0, ?>, %arg18 : tile<i32>
    %tview_36 = make_tensor_view %assume_11, shape = [%assume_33, %assume_34], strides = [%assume_35, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %blockId_x_37, %blockId_y_38, %blockId_z_39 = get_tile_block_id : tile<i32>
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<128x128xf32>
    %cst_0_f32_40 = constant <f32: 0.000000e+00> : tile<128xf32>
    %pview = make_partition_view %tview : partition_view<tile=(128x128), tensor_view<?x?xbf16, strides=[?,1]>>
    %1:2 = get_index_space_shape %pview : partition_view<tile=(128x128), tensor_view<?x?xbf16, strides=[?,1]>> -> tile<i32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %cst_1_i32_41 = constant <i32: 1> : tile<i32>
    %for:2 = for %loopIdx in (%cst_0_i32 to %1#1, step %cst_1_i32_41) : tile<i32> iter_values(%iterArg0 = %cst_0_f32, %iterArg1 = %cst_0_f32_40) -> (tile<128x128xf32>, tile<128xf32>) {
      %pview_44 = make_partition_view %tview : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xbf16, strides=[?,1]>>
      %tile, %result_token = load_view_tko weak %pview_44[%blockId_x, %loopIdx] token = %0 : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xbf16, strides=[?,1]>>, tile<i32> -> tile<128x128xbf16>, token
      %pview_45 = make_partition_view %tview_25 : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xbf16, strides=[?,1]>>
      %tile_46, %result_token_47 = load_view_tko weak %pview_45[%loopIdx, %blockId_y_38] token = %0 : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xbf16, strides=[?,1]>>, tile<i32> -> tile<128x128xbf16>, token
      %5 = mmaf %tile, %tile_46, %iterArg0 : tile<128x128xbf16>, tile<128x128xbf16>, tile<128x128xf32>
      %6 = ftof %tile  : tile<128x128xbf16> -> tile<128x128xf32>
      %7 = mulf %6, %6  : tile<128x128xf32>
      %reduce = reduce %7 dim=1 identities=[0.000000e+00 : f32] : tile<128x128xf32> -> tile<128xf32> 
      (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
        %9 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
        yield %9 : tile<f32>
      }
      %8 = addf %iterArg1, %reduce  : tile<128xf32>
      continue %5, %8 : tile<128x128xf32>, tile<128xf32>
    }
    %2 = ftof %for#0  : tile<128x128xf32> -> tile<128x128xbf16>
    %pview_42 = make_partition_view %tview_32 : partition_view<tile=(128x128), tensor_view<?x?xbf16, strides=[?,1]>>
    %3 = store_view_tko weak %2, %pview_42[%blockId_x, %blockId_y_38] token = %0 : tile<128x128xbf16>, partition_view<tile=(128x128), tensor_view<?x?xbf16, strides=[?,1]>>, tile<i32> -> token
    %reshape = reshape %for#1 : tile<128xf32> -> tile<1x128xf32>
    %pview_43 = make_partition_view %tview_36 : partition_view<tile=(1x128), tensor_view<?x?xf32, strides=[?,1]>>
    %4 = store_view_tko weak %reshape, %pview_43[%blockId_y_38, %blockId_x] token = %0 : tile<1x128xf32>, partition_view<tile=(1x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
