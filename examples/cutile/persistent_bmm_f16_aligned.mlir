cuda_tile.module @persistent_bmm_f16_aligned {
  entry @persistent_bmm_f16_aligned(%arg0: tile<ptr<f16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<i32>, %arg7: tile<ptr<f16>>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<i32>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<ptr<f16>>, %arg15: tile<i32>, %arg16: tile<i32>, %arg17: tile<i32>, %arg18: tile<i32>, %arg19: tile<i32>, %arg20: tile<i32>, %arg21: tile<i32>) optimization_hints=<sm_90 = {}> {
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
    %cst_2_i32 = constant <i32: 2> : tile<i32>
    %cst_2_i32_43 = constant <i32: 2> : tile<i32>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %cst_4_i32 = constant <i32: 4> : tile<i32>
    %1 = muli %cst_4_i32, %arg21 : tile<i32>
    %gridSize_x, %gridSize_y, %gridSize_z = get_num_tile_blocks : tile<i32>
    %cst_4_i32_44 = constant <i32: 4> : tile<i32>
    %cst_4_i32_45 = constant <i32: 4> : tile<i32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %false = constant <i1: false> : tile<i1>
    %cst_4_i32_46 = constant <i32: 4> : tile<i32>
    %cst_0_i32_47 = constant <i32: 0> : tile<i32>
    %cst_4_i32_48 = constant <i32: 4> : tile<i32>
    %cst_0_i32_49 = constant <i32: 0> : tile<i32>
    %false_50 = constant <i1: false> : tile<i1>
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<64x64xf32>
    %cst_7_i32 = constant <i32: 7> : tile<i32>
    %cst_0_i32_51 = constant <i32: 0> : tile<i32>
    %cst_1_i32_52 = constant <i32: 1> : tile<i32>
    %for = for %loopIdx in (%blockId_x to %1, step %gridSize_x) : tile<i32> iter_values(%iterArg0 = %0) -> (token) {
      %2 = divi %loopIdx, %cst_4_i32_44 signed rounding<negative_inf> : tile<i32>
      %3 = remi %loopIdx, %cst_4_i32_45 signed : tile<i32>
      %4 = cmpi less_than %3, %cst_0_i32, signed : tile<i32> -> tile<i1>
      %5 = xori %4, %false : tile<i1>
      %6 = cmpi not_equal %3, %cst_0_i32, signed : tile<i32> -> tile<i1>
      %7 = andi %5, %6 : tile<i1>
      %8 = addi %3, %cst_4_i32_45 : tile<i32>
      %9 = select %7, %8, %3 : tile<i1>, tile<i32>
      %10 = divi %9, %cst_4_i32_46 signed rounding<negative_inf> : tile<i32>
      %11 = muli %10, %cst_2_i32 : tile<i32>
      %12 = subi %cst_2_i32_43, %11 : tile<i32>
      %13 = mini %12, %cst_2_i32 signed : tile<i32>
      %14 = remi %9, %13 signed : tile<i32>
      %15 = cmpi less_than %14, %cst_0_i32_47, signed : tile<i32> -> tile<i1>
      %16 = cmpi less_than %13, %cst_0_i32_47, signed : tile<i32> -> tile<i1>
      %17 = xori %15, %16 : tile<i1>
      %18 = cmpi not_equal %14, %cst_0_i32_47, signed : tile<i32> -> tile<i1>
      %19 = andi %17, %18 : tile<i1>
      %20 = addi %14, %13 : tile<i32>
      %21 = select %19, %20, %14 : tile<i1>, tile<i32>
      %22 = addi %11, %21 : tile<i32>
      %23 = remi %9, %cst_4_i32_48 signed : tile<i32>
      %24 = cmpi less_than %23, %cst_0_i32_49, signed : tile<i32> -> tile<i1>
      %25 = xori %24, %false_50 : tile<i1>
      %26 = cmpi not_equal %23, %cst_0_i32_49, signed : tile<i32> -> tile<i1>
      %27 = andi %25, %26 : tile<i1>
      %28 = addi %23, %cst_4_i32_48 : tile<i32>
      %29 = select %27, %28, %23 : tile<i1>, tile<i32>
      %30 = divi %29, %13 signed rounding<negative_inf> : tile<i32>
      %for_53 = for %loopIdx_54 in (%cst_0_i32_51 to %cst_7_i32, step %cst_1_i32_52) : tile<i32> iter_values(%iterArg0_55 = %cst_0_f32) -> (tile<64x64xf32>) {
        %pview_56 = make_partition_view %tview : partition_view<tile=(1x64x64), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>
        %tile, %result_token = load_view_tko weak %pview_56[%2, %22, %loopIdx_54] token = %0 optimization_hints = <sm_90 = {latency = 3}> : partition_view<tile=(1x64x64), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x64x64xf16>, token
        %pview_57 = make_partition_view %tview_32 : partition_view<tile=(1x64x64), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>
        %tile_58, %result_token_59 = load_view_tko weak %pview_57[%2, %loopIdx_54, %30] token = %0 : partition_view<tile=(1x64x64), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x64x64xf16>, token
        %reshape_60 = reshape %tile : tile<1x64x64xf16> -> tile<64x64xf16>
        %reshape_61 = reshape %tile_58 : tile<1x64x64xf16> -> tile<64x64xf16>
        %33 = mmaf %reshape_60, %reshape_61, %iterArg0_55 : tile<64x64xf16>, tile<64x64xf16>, tile<64x64xf32>
        continue %33 : tile<64x64xf32>
      }
      %31 = ftof %for_53  : tile<64x64xf32> -> tile<64x64xf16>
      %reshape = reshape %31 : tile<64x64xf16> -> tile<1x64x64xf16>
      %pview = make_partition_view %tview_42 : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>
      %32 = store_view_tko weak %reshape, %pview[%2, %22, %30] token = %iterArg0 : tile<1x64x64xf16>, partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> token
      continue %32 : token
    }
    return
  }
}
