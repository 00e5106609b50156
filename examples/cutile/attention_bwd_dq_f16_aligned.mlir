cuda_tile.module @attention_bwd_dq_f16_aligned {
  entry @attention_bwd_dq_f16_aligned(%arg0: tile<ptr<f16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<i32>, %arg7: tile<ptr<f16>>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<i32>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<ptr<f16>>, %arg15: tile<i32>, %arg16: tile<i32>, %arg17: tile<i32>, %arg18: tile<i32>, %arg19: tile<i32>, %arg20: tile<i32>, %arg21: tile<ptr<f16>>, %arg22: tile<i32>, %arg23: tile<i32>, %arg24: tile<i32>, %arg25: tile<i32>, %arg26: tile<i32>, %arg27: tile<i32>, %arg28: tile<ptr<f32>>, %arg29: tile<i32>, %arg30: tile<i32>, %arg31: tile<i32>, %arg32: tile<i32>, %arg33: tile<ptr<f32>>, %arg34: tile<i32>, %arg35: tile<i32>, %arg36: tile<i32>, %arg37: tile<i32>, %arg38: tile<ptr<f16>>, %arg39: tile<i32>, %arg40: tile<i32>, %arg41: tile<i32>, %arg42: tile<i32>, %arg43: tile<i32>, %arg44: tile<i32>, %arg45: tile<f32>) optimization_hints=<sm_90 = {}> {
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
    %assume_19 = assume div_by<16>, %arg28 : tile<ptr<f32>>
    %assume_20 = assume div_by<16>, %arg33 : tile<ptr<f32>>
    %assume_21 = assume div_by<16>, %arg38 : tile<ptr<f16>>
    %assume_22 = assume div_by<16>, %arg40 : tile<i32>
    %assume_23 = assume div_by<16>, %arg41 : tile<i32>
    %assume_24 = assume div_by<16>, %arg42 : tile<i32>
    %assume_25 = assume div_by<16>, %arg43 : tile<i32>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_26 = constant <i32: 1> : tile<i32>
    %cst_1_i32_27 = constant <i32: 1> : tile<i32>
    %cst_1_i32_28 = constant <i32: 1> : tile<i32>
    %cst_1_i32_29 = constant <i32: 1> : tile<i32>
    %cst_1_i32_30 = constant <i32: 1> : tile<i32>
    %cst_1_i32_31 = constant <i32: 1> : tile<i32>
    %assume_32 = assume bounded<0, ?>, %arg1 : tile<i32>
    %assume_assume = assume bounded<0, ?>, %assume_0 : tile<i32>
    %assume_assume_assume = assume div_by<16>, %assume_assume : tile<i32>
    %assume_assume_33 = assume bounded<0, ?>, %assume_1 : tile<i32>
    %assume_assume_assume_34 = assume div_by<16>, %assume_assume_33 : tile<i32>
    %assume_assume_35 = assume bounded<0, ?>, %assume_2 : tile<i32>
    %assume_assume_assume_36 = assume div_by<16>, %assume_assume_35 : tile<i32>
    %assume_assume_37 = assume bounded<0, ?>, %assume_3 : tile<i32>
    %assume_assume_assume_38 = assume div_by<16>, %assume_assume_37 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_32, %assume_assume_assume, %assume_assume_assume_34], strides = [%assume_assume_assume_36, %assume_assume_assume_38, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %assume_39 = assume bounded<0, ?>, %arg8 : tile<i32>
    %assume_assume_40 = assume bounded<0, ?>, %assume_5 : tile<i32>
    %assume_assume_assume_41 = assume div_by<16>, %assume_assume_40 : tile<i32>
    %assume_assume_42 = assume bounded<0, ?>, %assume_6 : tile<i32>
    %assume_assume_assume_43 = assume div_by<16>, %assume_assume_42 : tile<i32>
    %assume_assume_44 = assume bounded<0, ?>, %assume_7 : tile<i32>
    %assume_assume_assume_45 = assume div_by<16>, %assume_assume_44 : tile<i32>
    %assume_assume_46 = assume bounded<0, ?>, %assume_8 : tile<i32>
    %assume_assume_assume_47 = assume div_by<16>, %assume_assume_46 : tile<i32>
    %tview_48 = make_tensor_view %assume_4, shape = [%assume_39, %assume_assume_assume_41, %assume_assume_assume_43], strides = [%assume_assume_assume_45, %assume_assume_assume_47, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %assume_49 = assume bounded<0, ?>, %arg15 : tile<i32>
    %assume_assume_50 = assume bounded<0, ?>, %assume_10 : tile<i32>
    %assume_assume_assume_51 = assume div_by<16>, %assume_assume_50 : tile<i32>
    %assume_assume_52 = assume bounded<0, ?>, %assume_11 : tile<i32>
    %assume_assume_assume_53 = assume div_by<16>, %assume_assume_52 : tile<i32>
    %assume_assume_54 = assume bounded<0, ?>, %assume_12 : tile<i32>
    %assume_assume_assume_55 = assume div_by<16>, %assume_assume_54 : tile<i32>
    %assume_assume_56 = assume bounded<0, ?>, %assume_13 : tile<i32>
    %assume_assume_assume_57 = assume div_by<16>, %assume_assume_56 : tile<i32>
    %tview_58 = make_tensor_view %assume_9, shape = [%assume_49, %assume_assume_assume_51, %assume_assume_assume_53], strides = [%assume_assume_assume_55, %assume_assume_assume_57, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %assume_59 = assume bounded<0, ?>, %arg22 : tile<i32>
    %assume_assume_60 = assume bounded<0, ?>, %assume_15 : tile<i32>
    %assume_assume_assume_61 = assume div_by<16>, %assume_assume_60 : tile<i32>
    %assume_assume_62 = assume bounded<0, ?>, %assume_16 : tile<i32>
    %assume_assume_assume_63 = assume div_by<16>, %assume_assume_62 : tile<i32>
    %assume_assume_64 = assume bounded<0, ?>, %assume_17 : tile<i32>
    %assume_assume_assume_65 = assume div_by<16>, %assume_assume_64 : tile<i32>
    %assume_assume_66 = assume bounded<0, ?>, %assume_18 : tile<i32>
    %assume_assume_assume_67 = assume div_by<16>, %assume_assume_66 : tile<i32>
    %tview_68 = make_tensor_view %assume_14, shape = [%assume_59, %assume_assume_assume_61, %assume_assume_assume_63], strides = [%assume_assume_assume_65, %assume_assume_assume_67, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %assume_69 = assume bounded<0, ?>, %arg29 : tile<i32>
    %assume_70 = assume bounded<0, ?>, %arg30 : tile<i32>
    %assume_71 = assume bounded<0, ?>, %arg31 : tile<i32>
    %tview_72 = make_tensor_view %assume_19, shape = [%assume_69, %assume_70], strides = [%assume_71, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %assume_73 = assume bounded<0, ?>, %arg34 : tile<i32>
    %assume_74 = assume bounded<0, ?>, %arg35 : tile<i32>
    %assume_75 = assume bounded<0, ?>, %arg36 : tile<i32>
    %tview_76 = make_tensor_view %assume_20, shape = [%assume_73, %assume_74], strides = [%assume_75, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %assume_77 = assume bounded<0, ?>, %arg39 : tile<i32>
    %assume_assume_78 = assume bounded<0, ?>, %assume_22 : tile<i32>
    %assume_assume_assume_79 = assume div_by<16>, %assume_assume_78 : tile<i32>
    %assume_assume_80 = assume bounded<0, ?>, %assume_23 : tile<i32>
    %assume_assume_assume_81 = assume div_by<16>, %assume_assume_80 : tile<i32>
    %assume_assume_82 = assume bounded<0, ?>, %assume_24 : tile<i32>
    %assume_assume_assume_83 = assume div_by<16>, %assume_assume_82 : tile<i32>
    %assume_assume_84 = assume bounded<0, ?>, %assume_25 : tile<i32>
    %assume_assume_assume_85 = assume div_by<16>, %assume_assume_84 : tile<i32>
    %tview_86 = make_tensor_view %assume_21, shape = [%assume_77, %assume_assume_assume_79, %assume_assume_assume_81], strides = [%assume_assume_assume_83, %assume_assume_assume_85, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %cst_128_i32 = constant <i32: 128> : tile<i32>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %blockId_x_87, %blockId_y_88, %blockId_z_89 = get_tile_block_id : tile<i32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %pview = make_partition_view %tview : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>
    %tile, %result_token = load_view_tko weak %pview[%blockId_y_88, %blockId_x, %cst_0_i32] token = %0 : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x64x64xf16>, token
    %reshape = reshape %tile : tile<1x64x64xf16> -> tile<64x64xf16>
    %cst_0_i32_90 = constant <i32: 0> : tile<i32>
    %pview_91 = make_partition_view %tview_68 : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>
    %tile_92, %result_token_93 = load_view_tko weak %pview_91[%blockId_y_88, %blockId_x, %cst_0_i32_90] token = %0 : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x64x64xf16>, token
    %reshape_94 = reshape %tile_92 : tile<1x64x64xf16> -> tile<64x64xf16>
    %pview_95 = make_partition_view %tview_72 : partition_view<tile=(1x64), tensor_view<?x?xf32, strides=[?,1]>>
    %tile_96, %result_token_97 = load_view_tko weak %pview_95[%blockId_y_88, %blockId_x] token = %0 : partition_view<tile=(1x64), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<1x64xf32>, token
    %reshape_98 = reshape %tile_96 : tile<1x64xf32> -> tile<64x1xf32>
    %pview_99 = make_partition_view %tview_76 : partition_view<tile=(1x64), tensor_view<?x?xf32, strides=[?,1]>>
    %tile_100, %result_token_101 = load_view_tko weak %pview_99[%blockId_y_88, %blockId_x] token = %0 : partition_view<tile=(1x64), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<1x64xf32>, token
    %reshape_102 = reshape %tile_100 : tile<1x64xf32> -> tile<64x1xf32>
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<64x64xf32>
    %1 = divi %assume_assume_assume_41, %cst_128_i32 signed rounding<negative_inf> : tile<i32>
    %cst_0_i32_103 = constant <i32: 0> : tile<i32>
    %cst_1_i32_104 = constant <i32: 1> : tile<i32>
    %cst_0_i32_105 = constant <i32: 0> : tile<i32>
    %cst_0_i32_106 = constant <i32: 0> : tile<i32>
    %cst_0_f32_107 = constant <f32: 0.000000e+00> : tile<64x128xf32>
    %cst_f32 = constant <f32: 1.44269502> : tile<f32>
    %2 = mulf %arg45, %cst_f32  : tile<f32>
    %reshape_108 = reshape %2 : tile<f32> -> tile<1x1xf32>
    %bcast = broadcast %reshape_108 : tile<1x1xf32> -> tile<64x128xf32>
    %bcast_109 = broadcast %reshape_98 : tile<64x1xf32> -> tile<64x128xf32>
    %3 = negf %bcast_109 : tile<64x128xf32>
    %cst_0_f32_110 = constant <f32: 0.000000e+00> : tile<64x128xf32>
    %bcast_111 = broadcast %reshape_102 : tile<64x1xf32> -> tile<64x128xf32>
    %for = for %loopIdx in (%cst_0_i32_103 to %1, step %cst_1_i32_104) : tile<i32> iter_values(%iterArg0 = %cst_0_f32) -> (tile<64x64xf32>) {
      %pview_117 = make_partition_view %tview_48 : partition_view<tile=(1x128x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>
      %tile_118, %result_token_119 = load_view_tko weak %pview_117[%blockId_y_88, %loopIdx, %cst_0_i32_105] token = %0 optimization_hints = <sm_90 = {latency = 2}> : partition_view<tile=(1x128x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x128x64xf16>, token
      %reshape_120 = reshape %tile_118 : tile<1x128x64xf16> -> tile<128x64xf16>
      %pview_121 = make_partition_view %tview_58 : partition_view<tile=(1x128x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>
      %tile_122, %result_token_123 = load_view_tko weak %pview_121[%blockId_y_88, %loopIdx, %cst_0_i32_106] token = %0 optimization_hints = <sm_90 = {latency = 4}> : partition_view<tile=(1x128x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x128x64xf16>, token
      %reshape_124 = reshape %tile_122 : tile<1x128x64xf16> -> tile<128x64xf16>
      %7 = permute %reshape_120 [1, 0] : tile<128x64xf16> -> tile<64x128xf16>
      %8 = mmaf %reshape, %7, %cst_0_f32_107 : tile<64x64xf16>, tile<64x128xf16>, tile<64x128xf32>
      %9 = fma %8, %bcast, %3  : tile<64x128xf32>
      %10 = exp2 %9 flush_to_zero : tile<64x128xf32>
      %11 = permute %reshape_124 [1, 0] : tile<128x64xf16> -> tile<64x128xf16>
      %12 = mmaf %reshape_94, %11, %cst_0_f32_110 : tile<64x64xf16>, tile<64x128xf16>, tile<64x128xf32>
      %13 = subf %12, %bcast_111  : tile<64x128xf32>
      %14 = mulf %10, %13  : tile<64x128xf32>
      %15 = ftof %14  : tile<64x128xf32> -> tile<64x128xf16>
      %16 = mmaf %15, %reshape_120, %iterArg0 : tile<64x128xf16>, tile<128x64xf16>, tile<64x64xf32>
      continue %16 : tile<64x64xf32>
    }
    %cst_0_i32_112 = constant <i32: 0> : tile<i32>
    %reshape_113 = reshape %arg45 : tile<f32> -> tile<1x1xf32>
    %bcast_114 = broadcast %reshape_113 : tile<1x1xf32> -> tile<64x64xf32>
    %4 = mulf %for, %bcast_114  : tile<64x64xf32>
    %reshape_115 = reshape %4 : tile<64x64xf32> -> tile<1x64x64xf32>
    %5 = ftof %reshape_115  : tile<1x64x64xf32> -> tile<1x64x64xf16>
    %pview_116 = make_partition_view %tview_86 : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>
    %6 = store_view_tko weak %5, %pview_116[%blockId_y_88, %blockId_x, %cst_0_i32_112] token = %0 : tile<1x64x64xf16>, partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> token
    return
  }
}
