cuda_tile.module @bmm_tt_f16_aligned {
  entry @bmm_tt_f16_aligned(%arg0: tile<ptr<f16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<i32>, %arg7: tile<ptr<f16>>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<i32>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<ptr<f16>>, %arg15: tile<i32>, %arg16: tile<i32>, %arg17: tile<i32>, %arg18: tile<i32>, %arg19: tile<i32>, %arg20: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f16>>
    %assume_0 = assume div_by<16>, %arg2 : tile<i32>
    %assume_1 = assume div_by<16>, %arg3 : tile<i32>
    %assume_2 = assume div_by<16>, %arg4 : tile<i32>
    %assume_3 = assume div_by<16>, %arg5 : tile<i32>
    %assume_4 = assume div_by<16>, %arg7 : tile<ptr<f16>>
    %assume_5 = assume div_by<16>, %arg9 : tile<i32>
    %assume_6 = assume div_by<16>, %arg10 : tile<i32>
    %assume_7 = assume div_by<16>, %arg11 : tile<i32>
    %assume_8 = assume div_by<16>, %arg12 : tile<i32>
    %assume_9 = assume div_by<16>, %arg14 : tile<ptr<f16>>
    %assume_10 = assume div_by<16>, %arg16 : tile<i32>
    %assume_11 = assume div_by<16>, %arg17 : tile<i32>
    %assume_12 = assume div_by<16>, %arg18 : tile<i32>
    %assume_13 = assume div_by<16>, %arg19 : tile<i32>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_14 = constant <i32: 1> : tile<i32>
    %cst_1_i32_15 = constant <i32: 1> : tile<i32>
    %assume_16 = assume bounded<0, ?>, %arg1 : tile<i32>
    %assume_assume = assume bounded<0, ?>, %assume_0 : tile<i32>
    %assume_assume_assume = assume div_by<16>, %assume_assume : tile<i32>
    %assume_assume_17 = assume bounded<0, ?>, %assume_1 : tile<i32>
    %assume_assume_assume_18 = assume div_by<16>, %assume_assume_17 : tile<i32>
    %assume_assume_19 = assume bounded<0, ?>, %assume_2 : tile<i32>
    %assume_assume_assume_20 = assume div_by<16>, %assume_assume_19 : tile<i32>
    %assume_assume_21 = assume bounded<0, ?>, %assume_3 : tile<i32>
    %assume_assume_assume_22 = assume div_by<16>, %assume_assume_21 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_16, %assume_assume_assume, %assume_assume_assume_18], strides = [%assume_assume_assume_20, %assume_assume_assume_22, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %assume_23 = assume bounded<0, ?>, %arg8 : tile<i32>
    %assume_assume_24 = assume bounded<0, ?>, %assume_5 : tile<i32>
    %assume_assume_assume_25 = assume div_by<16>, %assume_assume_24 : tile<i32>
    %assume_assume_26 = assume bounded<0, ?>, %assume_6 : tile<i32>
    %assume_assume_assume_27 = assume div_by<16>, %assume_assume_26 : tile<i32>
    %assume_assume_28 = assume bounded<0, ?>, %assume_7 : tile<i32>
    %assume_assume_assume_29 = assume div_by<16>, %assume_assume_28 : tile<i32>
    %assume_assume_30 = assume bounded<0, ?>, %assume_8 : tile<i32>
    %assume_assume_assume_31 = assume div_by<16>, %assume_assume_30 : tile<i32>
    %tview_32 = make_tensor_view %assume_4, shape = [%assume_23, %assume_assume_assume_25, %assume_assume_assume_27], strides = [%assume_assume_assume_29, %assume_assume_assume_31, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %assume_33 = assume bounded<0, ?>, %arg15 : tile<i32>
    %assume_assume_34 = assume bounded<0, ?>, %assume_10 : tile<i32>
    %assume_assume_assume_35 = assume div_by<16>, %assume_assume_34 : tile<i32>
    %assume_assume_36 = assume bounded<0, ?>, %assume_11 : tile<i32>
    %assume_assume_assume_37 = assume div_by<16>, %assume_assume_36 : tile<i32>
    %assume_assume_38 = assume bounded<0, ?>, %assume_12 : tile<i32>
    %assume_assume_assume_39 = assume div_by<16>, %assume_assume_38 : tile<i32>
    %assume_assume_40 = assume bounded<0, ?>, %assume_13 : tile<i32>
    %assume_assume_assume_41 = assume div_by<16>, %assume_assume_40 : tile<i32>
    %tview_42 = make_tensor_view %assume_9, shape = [%assume_33, %assume_assume_assume_35, %assume_assume_assume_37], strides = [%assume_assume_assume_39, %assume_assume_assume_41, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %blockId_x_43, %blockId_y_44, %blockId_z_45 = get_tile_block_id : tile<i32>
    %blockId_x_46, %blockId_y_47, %blockId_z_48 = get_tile_block_id : tile<i32>
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<64x64xf32>
    %pview = make_partition_view %tview : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>
    %1:3 = get_index_space_shape %pview : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>> -> tile<i32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %cst_1_i32_49 = constant <i32: 1> : tile<i32>
    %for = for %loopIdx in (%cst_0_i32 to %1#1, step %cst_1_i32_49) : tile<i32> iter_values(%iterArg0 = %cst_0_f32) -> (tile<64x64xf32>) {
      %pview_51 = make_partition_view %tview : partition_view<tile=(1x64x64), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>
      %tile, %result_token = load_view_tko weak %pview_51[%blockId_z_48, %loopIdx, %blockId_x] token = %0 : partition_view<tile=(1x64x64), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x64x64xf16>, token
      %pview_52 = make_partition_view %tview_32 : partition_view<tile=(1x64x64), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>
      %tile_53, %result_token_54 = load_view_tko weak %pview_52[%blockId_z_48, %blockId_y_44, %loopIdx] token = %0 : partition_view<tile=(1x64x64), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x64x64xf16>, token
      %4 = permute %tile [0, 2, 1] : tile<1x64x64xf16> -> tile<1x64x64xf16>
      %reshape_55 = reshape %4 : tile<1x64x64xf16> -> tile<64x64xf16>
      %5 = permute %tile_53 [0, 2, 1] : tile<1x64x64xf16> -> tile<1x64x64xf16>
      %reshape_56 = reshape %5 : tile<1x64x64xf16> -> tile<64x64xf16>
      %6 = mmaf %reshape_55, %reshape_56, %iterArg0 : tile<64x64xf16>, tile<64x64xf16>, tile<64x64xf32>
      continue %6 : tile<64x64xf32>
    }
    %2 = ftof %for  : tile<64x64xf32> -> tile<64x64xf16>
    %reshape = reshape %2 : tile<64x64xf16> -> tile<1x64x64xf16>
    %pview_50 = make_partition_view %tview_42 : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>
    %3 = store_view_tko weak %reshape, %pview_50[%blockId_z_48, %blockId_x, %blockId_y_44] token = %0 : tile<1x64x64xf16>, partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> token
    return
  }
}
