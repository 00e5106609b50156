cuda_tile.module @attention_m128_f16_aligned {
  entry @attention_m128_f16_aligned(%arg0: tile<ptr<f16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<i32>, %arg7: tile<ptr<f16>>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<i32>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<ptr<f16>>, %arg15: tile<i32>, %arg16: tile<i32>, %arg17: tile<i32>, %arg18: tile<i32>, %arg19: tile<i32>, %arg20: tile<i32>, %arg21: tile<ptr<f16>>, %arg22: tile<i32>, %arg23: tile<i32>, %arg24: tile<i32>, %arg25: tile<i32>, %arg26: tile<i32>, %arg27: tile<i32>, %arg28: tile<f32>) optimization_hints=<sm_90 = {}> {
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
    %assume_14 = assume div_by<16>, %arg21 : tile<ptr<f16>>
    %assume_15 = assume div_by<16>, %arg23 : tile<i32>
    %assume_16 = assume div_by<16>, %arg24 : tile<i32>
    %assume_17 = assume div_by<16>, %arg25 : tile<i32>
    %assume_18 = assume div_by<16>, %arg26 : tile<i32>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_19 = constant <i32: 1> : tile<i32>
    %cst_1_i32_20 = constant <i32: 1> : tile<i32>
    %cst_1_i32_21 = constant <i32: 1> : tile<i32>
    %assume_22 = assume bounded<0, ?>, %arg1 : tile<i32>
    %assume_assume = assume bounded<0, ?>, %assume_0 : tile<i32>
    %assume_assume_assume = assume div_by<16>, %assume_assume : tile<i32>
    %assume_assume_23 = assume bounded<0, ?>, %assume_1 : tile<i32>
    %assume_assume_assume_24 = assume div_by<16>, %assume_assume_23 : tile<i32>
    %assume_assume_25 = assume bounded<0, ?>, %assume_2 : tile<i32>
    %assume_assume_assume_26 = assume div_by<16>, %assume_assume_25 : tile<i32>
    %assume_assume_27 = assume bounded<0, ?>, %assume_3 : tile<i32>
    %assume_assume_assume_28 = assume div_by<16>, %assume_assume_27 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_22, %assume_assume_assume, %assume_assume_assume_24], strides = [%assume_assume_assume_26, %assume_assume_assume_28, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %assume_29 = assume bounded<0, ?>, %arg8 : tile<i32>
    %assume_assume_30 = assume bounded<0, ?>, %assume_5 : tile<i32>
    %assume_assume_assume_31 = assume div_by<16>, %assume_assume_30 : tile<i32>
    %assume_assume_32 = assume bounded<0, ?>, %assume_6 : tile<i32>
    %assume_assume_assume_33 = assume div_by<16>, %assume_assume_32 : tile<i32>
    %assume_assume_34 = assume bounded<0, ?>, %assume_7 : tile<i32>
    %assume_assume_assume_35 = assume div_by<16>, %assume_assume_34 : tile<i32>
    %assume_assume_36 = assume bounded<0, ?>, %assume_8 : tile<i32>
    %assume_assume_assume_37 = assume div_by<16>, %assume_assume_36 : tile<i32>
    %tview_38 = make_tensor_view %assume_4, shape = [%assume_29, %assume_assume_assume_31, %assume_assume_assume_33], strides = [%assume_assume_assume_35, %assume_assume_assume_37, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %assume_39 = assume bounded<0, ?>, %arg15 : tile<i32>
    %assume_assume_40 = assume bounded<0, ?>, %assume_10 : tile<i32>
    %assume_assume_assume_41 = assume div_by<16>, %assume_assume_40 : tile<i32>
    %assume_assume_42 = assume bounded<0, ?>, %assume_11 : tile<i32>
    %assume_assume_assume_43 = assume div_by<16>, %assume_assume_42 : tile<i32>
    %assume_assume_44 = assume bounded<0, ?>, %assume_12 : tile<i32>
    %assume_assume_assume_45 = assume div_by<16>, %assume_assume_44 : tile<i32>
    %assume_assume_46 = assume bounded<0, ?>, %assume_13 : tile<i32>
    %assume_assume_assume_47 = assume div_by<16>, %assume_assume_46 : tile<i32>
    %tview_48 = make_tensor_view %assume_9, shape = [%assume_39, %assume_assume_assume_41, %assume_assume_assume_43], strides = [%assume_assume_assume_45, %assume_assume_assume_47, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %assume_49 = assume bounded<0, ?>, %arg22 : tile<i32>
    %assume_assume_50 = assume bounded<0, ?>, %assume_15 : tile<i32>
    %assume_assume_assume_51 = assume div_by<16>, %assume_assume_50 : tile<i32>
    %assume_assume_52 = assume bounded<0, ?>, %assume_16 : tile<i32>
    %assume_assume_assume_53 = assume div_by<16>, %assume_assume_52 : tile<i32>
    %assume_assume_54 = assume bounded<0, ?>, %assume_17 : tile<i32>
    %assume_assume_assume_55 = assume div_by<16>, %assume_assume_54 : tile<i32>
    %assume_assume_56 = assume bounded<0, ?>, %assume_18 : tile<i32>
    %assume_assume_assume_57 = assume div_by<16>, %assume_assume_56 : tile<i32>
    %tview_58 = make_tensor_view %assume_14, shape = [%assume_49, %assume_assume_assume_51, %assume_assume_assume_53], strides = [%assume_assume_assume_55, %assume_assume_assume_57, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %blockId_x_59, %blockId_y_60, %blockId_z_61 = get_tile_block_id : tile<i32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %pview = make_partition_view %tview : partition_view<tile=(1x128x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>
    %tile, %result_token = load_view_tko weak %pview[%blockId_y_60, %blockId_x, %cst_0_i32] token = %0 : partition_view<tile=(1x128x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x128x64xf16>, token
    %reshape = reshape %tile : tile<1x128x64xf16> -> tile<128x64xf16>
    %cst_f32 = constant <f32: 1.44269502> : tile<f32>
    %1 = mulf %arg28, %cst_f32  : tile<f32>
    %cst_f32_62 = constant <f32: 0xFF800000> : tile<128x1xf32>
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<128x1xf32>
    %cst_0_f32_63 = constant <f32: 0.000000e+00> : tile<128x64xf32>
    %pview_64 = make_partition_view %tview_38 : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>
    %2:3 = get_index_space_shape %pview_64 : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>> -> tile<i32>
    %cst_0_i32_65 = constant <i32: 0> : tile<i32>
    %cst_1_i32_66 = constant <i32: 1> : tile<i32>
    %cst_0_i32_67 = constant <i32: 0> : tile<i32>
    %cst_0_f32_68 = constant <f32: 0.000000e+00> : tile<128x64xf32>
    %reshape_69 = reshape %1 : tile<f32> -> tile<1x1xf32>
    %bcast = broadcast %reshape_69 : tile<1x1xf32> -> tile<128x64xf32>
    %cst_0_i32_70 = constant <i32: 0> : tile<i32>
    %for:3 = for %loopIdx in (%cst_0_i32_65 to %2#1, step %cst_1_i32_66) : tile<i32> iter_values(%iterArg0 = %cst_0_f32_63, %iterArg1 = %cst_0_f32, %iterArg2 = %cst_f32_62) -> (tile<128x64xf32>, tile<128x1xf32>, tile<128x1xf32>) {
      %pview_75 = make_partition_view %tview_38 : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>
      %tile_76, %result_token_77 = load_view_tko weak %pview_75[%blockId_y_60, %loopIdx, %cst_0_i32_67] token = %0 : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x64x64xf16>, token
      %reshape_78 = reshape %tile_76 : tile<1x64x64xf16> -> tile<64x64xf16>
      %6 = permute %reshape_78 [1, 0] : tile<64x64xf16> -> tile<64x64xf16>
      %7 = mmaf %reshape, %6, %cst_0_f32_68 : tile<128x64xf16>, tile<64x64xf16>, tile<128x64xf32>
      %8 = mulf %7, %bcast  : tile<128x64xf32>
      %reduce = reduce %8 dim=1 identities=[0xFF800000 : f32] : tile<128x64xf32> -> tile<128xf32> 
      (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
        %18 = maxf %reduce_lhs, %reduce_rhs : tile<f32>
        yield %18 : tile<f32>
      }
      %reshape_79 = reshape %reduce : tile<128xf32> -> tile<128x1xf32>
      %9 = maxf %iterArg2, %reshape_79 : tile<128x1xf32>
      %bcast_80 = broadcast %9 : tile<128x1xf32> -> tile<128x64xf32>
      %10 = subf %8, %bcast_80  : tile<128x64xf32>
      %11 = exp2 %10 : tile<128x64xf32>
      %12 = subf %iterArg2, %9  : tile<128x1xf32>
      %13 = exp2 %12 : tile<128x1xf32>
      %reduce_81 = reduce %11 dim=1 identities=[0.000000e+00 : f32] : tile<128x64xf32> -> tile<128xf32> 
      (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
        %18 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
        yield %18 : tile<f32>
      }
      %reshape_82 = reshape %reduce_81 : tile<128xf32> -> tile<128x1xf32>
      %14 = fma %iterArg1, %13, %reshape_82  : tile<128x1xf32>
      %pview_83 = make_partition_view %tview_48 : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>
      %tile_84, %result_token_85 = load_view_tko weak %pview_83[%blockId_y_60, %loopIdx, %cst_0_i32_70] token = %0 : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x64x64xf16>, token
      %reshape_86 = reshape %tile_84 : tile<1x64x64xf16> -> tile<64x64xf16>
      %15 = ftof %11  : tile<128x64xf32> -> tile<128x64xf16>
      %bcast_87 = broadcast %13 : tile<128x1xf32> -> tile<128x64xf32>
      %16 = mulf %iterArg0, %bcast_87  : tile<128x64xf32>
      %17 = mmaf %15, %reshape_86, %16 : tile<128x64xf16>, tile<64x64xf16>, tile<128x64xf32>
      continue %17, %14, %9 : tile<128x64xf32>, tile<128x1xf32>, tile<128x1xf32>
    }
    %bcast_71 = broadcast %for#1 : tile<128x1xf32> -> tile<128x64xf32>
    %3 = divf %for#0, %bcast_71  : tile<128x64xf32>
    %4 = ftof %3  : tile<128x64xf32> -> tile<128x64xf16>
    %cst_0_i32_72 = constant <i32: 0> : tile<i32>
    %reshape_73 = reshape %4 : tile<128x64xf16> -> tile<1x128x64xf16>
    %pview_74 = make_partition_view %tview_58 : partition_view<tile=(1x128x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>
    %5 = store_view_tko weak %reshape_73, %pview_74[%blockId_y_60, %blockId_x, %cst_0_i32_72] token = %0 : tile<1x128x64xf16>, partition_view<tile=(1x128x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> token
    return
  }
}
