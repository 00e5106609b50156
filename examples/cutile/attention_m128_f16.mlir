cuda_tile.module @attention_m128_f16 {
  entry @attention_m128_f16(%arg0: tile<ptr<f16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<i32>, %arg7: tile<ptr<f16>>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<i32>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<ptr<f16>>, %arg15: tile<i32>, %arg16: tile<i32>, %arg17: tile<i32>, %arg18: tile<i32>, %arg19: tile<i32>, %arg20: tile<i32>, %arg21: tile<ptr<f16>>, %arg22: tile<i32>, %arg23: tile<i32>, %arg24: tile<i32>, %arg25: tile<i32>, %arg26: tile<i32>, %arg27: tile<i32>, %arg28: tile<f32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f16>>
    %assume_0 = assume div_by<16>, %arg7 : tile<ptr<f16>>
    %assume_1 = assume div_by<16>, %arg14 : tile<ptr<f16>>
    %assume_2 = assume div_by<16>, %arg21 : tile<ptr<f16>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_3 = constant <i32: 1> : tile<i32>
    %cst_1_i32_4 = constant <i32: 1> : tile<i32>
    %cst_1_i32_5 = constant <i32: 1> : tile<i32>
    %assume_6 = assume bounded<0, ?>, %arg1 : tile<i32>
    %assume_7 = assume bounded<0, ?>, %arg2 : tile<i32>
    %assume_8 = assume bounded<0, ?>, %arg3 : tile<i32>
    %assume_9 = assume bounded<0, ?>, %arg4 : tile<i32>
    %assume_10 = assume bounded<0, ?>, %arg5 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_6, %assume_7, %assume_8], strides = [%assume_9, %assume_10, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %assume_11 = assume bounded<0, ?>, %arg8 : tile<i32>
    %assume_12 = assume bounded<0, ?>, %arg9 : tile<i32>
    %assume_13 = assume bounded<0, ?>, %arg10 : tile<i32>
    %assume_14 = assume bounded<0, ?>, %arg11 : tile<i32>
    %assume_15 = assume bounded<0, ?>, %arg12 : tile<i32>
    %tview_16 = make_tensor_view %assume_0, shape = [%assume_11, %assume_12, %assume_13], strides = [%assume_14, %assume_15, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %assume_17 = assume bounded<0, ?>, %arg15 : tile<i32>
    %assume_18 = assume bounded<0, ?>, %arg16 : tile<i32>
    %assume_19 = assume bounded<0, ?>, %arg17 : tile<i32>
    %assume_20 = assume bounded<0, ?>, %arg18 : tile<i32>
    %assume_21 = assume bounded<0, ?>, %arg19 : tile<i32>
    %tview_22 = make_tensor_view %assume_1, shape = [%assume_17, %assume_18, %assume_19], strides = [%assume_20, %assume_21, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %assume_23 = assume bounded<0, ?>, %arg22 : tile<i32>
    %assume_24 = assume bounded<0, ?>, %arg23 : tile<i32>
    %assume_25 = assume bounded<0, ?>, %arg24 : tile<i32>
    %assume_26 = assume bounded<0, ?>, %arg25 : tile<i32>
    %assume_27 = assume bounded<0, ?>, %arg26 : tile<i32>
    %tview_28 = make_tensor_view %assume_2, shape = [%assume_23, %assume_24, %assume_25], strides = [%assume_26, %assume_27, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %blockId_x_29, %blockId_y_30, %blockId_z_31 = get_tile_block_id : tile<i32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %pview = make_partition_view %tview : partition_view<tile=(1x128x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>
    %tile, %result_token = load_view_tko weak %pview[%blockId_y_30, %blockId_x, %cst_0_i32] token = %0 : partition_view<tile=(1x128x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x128x64xf16>, token
    %reshape = reshape %tile : tile<1x128x64xf16> -> tile<128x64xf16>
    %cst_f32 = constant <f32: 1.44269502> : tile<f32>
    %1 = mulf %arg28, %cst_f32  : tile<f32>
    %cst_f32_32 = constant <f32: 0xFF800000> : tile<128x1xf32>
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<128x1xf32>
    %cst_0_f32_33 = constant <f32: 0.000000e+00> : tile<128x64xf32>
    %pview_34 = make_partition_view %tview_16 : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>
    %2:3 = get_index_space_shape %pview_34 : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>> -> tile<i32>
    %cst_0_i32_35 = constant <i32: 0> : tile<i32>
    %cst_1_i32_36 = constant <i32: 1> : tile<i32>
    %cst_0_i32_37 = constant <i32: 0> : tile<i32>
    %cst_0_f32_38 = constant <f32: 0.000000e+00> : tile<128x64xf32>
    %reshape_39 = reshape %1 : tile<f32> -> tile<1x1xf32>
    %bcast = broadcast %reshape_39 : tile<1x1xf32> -> tile<128x64xf32>
    %cst_0_i32_40 = constant <i32: 0> : tile<i32>
    %for:3 = for %loopIdx in (%cst_0_i32_35 to %2#1, step %cst_1_i32_36) : tile<i32> iter_values(%iterArg0 = %cst_0_f32_33, %iterArg1 = %cst_0_f32, %iterArg2 = %cst_f32_32) -> (tile<128x64xf32>, tile<128x1xf32>, tile<128x1xf32>) {
      %pview_45 = make_partition_view %tview_16 : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>
      %tile_46, %result_token_47 = load_view_tko weak %pview_45[%blockId_y_30, %loopIdx, %cst_0_i32_37] token = %0 : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x64x64xf16>, token
      %reshape_48 = reshape %tile_46 : tile<1x64x64xf16> -> tile<64x64xf16>
      %6 = permute %reshape_48 [1, 0] : tile<64x64xf16> -> tile<64x64xf16>
      %7 = mmaf %reshape, %6, %cst_0_f32_38 : tile<128x64xf16>, tile<64x64xf16>, tile<128x64xf32>
      %8 = mulf %7, %bcast  : tile<128x64xf32>
      %reduce = reduce %8 dim=1 identities=[0xFF800000 : f32] : tile<128x64xf32> -> tile<128xf32> 
      (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
        %18 = maxf %reduce_lhs, %reduce_rhs : tile<f32>
        yield %18 : tile<f32>
      }
      %reshape_49 = reshape %reduce : tile<128xf32> -> tile<128x1xf32>
      %9 = maxf %iterArg2, %reshape_49 : tile<128x1xf32>
      %bcast_50 = broadcast %9 : tile<128x1xf32> -> tile<128x64xf32>
      %10 = subf %8, %bcast_50  : tile<128x64xf32>
      %11 = exp2 %10 : tile<128x64xf32>
      %12 = subf %iterArg2, %9  : tile<128x1xf32>
      %13 = exp2 %12 : tile<128x1xf32>
      %reduce_51 = reduce %11 dim=1 identities=[0.000000e+00 : f32] : tile<128x64xf32> -> tile<128xf32> 
      (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
        %18 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
        yield %18 : tile<f32>
      }
      %reshape_52 = reshape %reduce_51 : tile<128xf32> -> tile<128x1xf32>
      %14 = fma %iterArg1, %13, %reshape_52  : tile<128x1xf32>
      %pview_53 = make_partition_view %tview_22 : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>
      %tile_54, %result_token_55 = load_view_tko weak %pview_53[%blockId_y_30, %loopIdx, %cst_0_i32_40] token = %0 : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x64x64xf16>, token
      %reshape_56 = reshape %tile_54 : tile<1x64x64xf16> -> tile<64x64xf16>
      %15 = ftof %11  : tile<128x64xf32> -> tile<128x64xf16>
      %bcast_57 = broadcast %13 : tile<128x1xf32> -> tile<128x64xf32>
      %16 = mulf %iterArg0, %bcast_57  : tile<128x64xf32>
      %17 = mmaf %15, %reshape_56, %16 : tile<128x64xf16>, tile<64x64xf16>, tile<128x64xf32>
      continue %17, %14, %9 : tile<128x64xf32>, tile<128x1xf32>, tile<128x1xf32>
    }
    %bcast_41 = broadcast %for#1 : tile<128x1xf32> -> tile<128x64xf32>
    %3 = divf %for#0, %bcast_41  : tile<128x64xf32>
    %4 = ftof %3  : tile<128x64xf32> -> tile<128x64xf16>
    %cst_0_i32_42 = constant <i32: 0> : tile<i32>
    %reshape_43 = reshape %4 : tile<128x64xf16> -> tile<1x128x64xf16>
    %pview_44 = make_partition_view %tview_28 : partition_view<tile=(1x128x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>
    %5 = store_view_tko weak %reshape_43, %pview_44[%blockId_y_30, %blockId_x, %cst_0_i32_42] token = %0 : tile<1x128x64xf16>, partition_view<tile=(1x128x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> token
    return
  }
}
