cuda_tile.module @persistent_bmm_f16 {
  entry @persistent_bmm_f16(%arg0: tile<ptr<f16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<i32>, %arg7: tile<ptr<f16>>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<i32>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<ptr<f16>>, %arg15: tile<i32>, %arg16: tile<i32>, %arg17: tile<i32>, %arg18: tile<i32>, %arg19: tile<i32>, %arg20: tile<i32>, %arg21: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f16>>
    %assume_0 = assume div_by<16>, %arg7 : tile<ptr<f16>>
    %assume_1 = assume div_by<16>, %arg14 : tile<ptr<f16>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_2 = constant <i32: 1> : tile<i32>
    %cst_1_i32_3 = constant <i32: 1> : tile<i32>
    %assume_4 = assume bounded<0, ?>, %arg1 : tile<i32>
    %assume_5 = assume bounded<0, ?>, %arg2 : tile<i32>
    %assume_6 = assume bounded<0, ?>, %arg3 : tile<i32>
    %assume_7 = assume bounded<0, ?>, %arg4 : tile<i32>
    %assume_8 = assume bounded<0, ?>, %arg5 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_4, %assume_5, %assume_6], strides = [%assume_7, %assume_8, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %assume_9 = assume bounded<0, ?>, %arg8 : tile<i32>
    %assume_10 = assume bounded<0, ?>, %arg9 : tile<i32>
    %assume_11 = assume bounded<0, ?>, %arg10 : tile<i32>
    %assume_12 = assume bounded<0, ?>, %arg11 : tile<i32>
    %assume_13 = assume bounded<0, ?>, %arg12 : tile<i32>
    %tview_14 = make_tensor_view %assume_0, shape = [%assume_9, %assume_10, %assume_11], strides = [%assume_12, %assume_13, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %assume_15 = assume bounded<0, ?>, %arg15 : tile<i32>
    %assume_16 = assume bounded<0, ?>, %arg16 : tile<i32>
    %assume_17 = assume bounded<0, ?>, %arg17 : tile<i32>
    %assume_18 = assume bounded<0, ?>, %arg18 : tile<i32>
    %assume_19 = assume bounded<0, ?>, %arg19 : tile<i32>
    %tview_20 = make_tensor_view %assume_1, shape = [%assume_15, %assume_16, %assume_17], strides = [%assume_18, %assume_19, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %cst_2_i32 = constant <i32: 2> : tile<i32>
    %cst_3_i32 = constant <i32: 3> : tile<i32>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %cst_6_i32 = constant <i32: 6> : tile<i32>
    %1 = muli %cst_6_i32, %arg21 : tile<i32>
    %gridSize_x, %gridSize_y, %gridSize_z = get_num_tile_blocks : tile<i32>
    %cst_6_i32_21 = constant <i32: 6> : tile<i32>
    %cst_6_i32_22 = constant <i32: 6> : tile<i32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %false = constant <i1: false> : tile<i1>
    %cst_4_i32 = constant <i32: 4> : tile<i32>
    %cst_0_i32_23 = constant <i32: 0> : tile<i32>
    %cst_4_i32_24 = constant <i32: 4> : tile<i32>
    %cst_0_i32_25 = constant <i32: 0> : tile<i32>
    %false_26 = constant <i1: false> : tile<i1>
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<32x32xf32>
    %cst_3_i32_27 = constant <i32: 3> : tile<i32>
    %cst_0_i32_28 = constant <i32: 0> : tile<i32>
    %cst_1_i32_29 = constant <i32: 1> : tile<i32>
    %for = for %loopIdx in (%blockId_x to %1, step %gridSize_x) : tile<i32> iter_values(%iterArg0 = %0) -> (token) {
      %2 = divi %loopIdx, %cst_6_i32_21 signed rounding<negative_inf> : tile<i32>
      %3 = remi %loopIdx, %cst_6_i32_22 signed : tile<i32>
      %4 = cmpi less_than %3, %cst_0_i32, signed : tile<i32> -> tile<i1>
      %5 = xori %4, %false : tile<i1>
      %6 = cmpi not_equal %3, %cst_0_i32, signed : tile<i32> -> tile<i1>
      %7 = andi %5, %6 : tile<i1>
      %8 = addi %3, %cst_6_i32_22 : tile<i32>
      %9 = select %7, %8, %3 : tile<i1>, tile<i32>
      %10 = divi %9, %cst_4_i32 signed rounding<negative_inf> : tile<i32>
      %11 = muli %10, %cst_2_i32 : tile<i32>
      %12 = subi %cst_3_i32, %11 : tile<i32>
      %13 = mini %12, %cst_2_i32 signed : tile<i32>
      %14 = remi %9, %13 signed : tile<i32>
      %15 = cmpi less_than %14, %cst_0_i32_23, signed : tile<i32> -> tile<i1>
      %16 = cmpi less_than %13, %cst_0_i32_23, signed : tile<i32> -> tile<i1>
      %17 = xori %15, %16 : tile<i1>
      %18 = cmpi not_equal %14, %cst_0_i32_23, signed : tile<i32> -> tile<i1>
      %19 = andi %17, %18 : tile<i1>
      %20 = addi %14, %13 : tile<i32>
      %21 = select %19, %20, %14 : tile<i1>, tile<i32>
      %22 = addi %11, %21 : tile<i32>
      %23 = remi %9, %cst_4_i32_24 signed : tile<i32>
      %24 = cmpi less_than %23, %cst_0_i32_25, signed : tile<i32> -> tile<i1>
      %25 = xori %24, %false_26 : tile<i1>
      %26 = cmpi not_equal %23, %cst_0_i32_25, signed : tile<i32> -> tile<i1>
      %27 = andi %25, %26 : tile<i1>
      %28 = addi %23, %cst_4_i32_24 : tile<i32>
      %29 = select %27, %28, %23 : tile<i1>, tile<i32>
      %30 = divi %29, %13 signed rounding<negative_inf> : tile<i32>
      %for_30 = for %loopIdx_31 in (%cst_0_i32_28 to %cst_3_i32_27, step %cst_1_i32_29) : tile<i32> iter_values(%iterArg0_32 = %cst_0_f32) -> (tile<32x32xf32>) {
        %pview_33 = make_partition_view %tview : partition_view<tile=(1x32x16), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>
        %tile, %result_token = load_view_tko weak %pview_33[%2, %22, %loopIdx_31] token = %0 optimization_hints = <sm_90 = {latency = 3}> : partition_view<tile=(1x32x16), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x32x16xf16>, token
        %pview_34 = make_partition_view %tview_14 : partition_view<tile=(1x32x16), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>
        %tile_35, %result_token_36 = load_view_tko weak %pview_34[%2, %30, %loopIdx_31] token = %0 : partition_view<tile=(1x32x16), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x32x16xf16>, token
        %33 = permute %tile_35 [0, 2, 1] : tile<1x32x16xf16> -> tile<1x16x32xf16>
        %reshape_37 = reshape %tile : tile<1x32x16xf16> -> tile<32x16xf16>
        %reshape_38 = reshape %33 : tile<1x16x32xf16> -> tile<16x32xf16>
        %34 = mmaf %reshape_37, %reshape_38, %iterArg0_32 : tile<32x16xf16>, tile<16x32xf16>, tile<32x32xf32>
        continue %34 : tile<32x32xf32>
      }
      %31 = ftof %for_30  : tile<32x32xf32> -> tile<32x32xf16>
      %reshape = reshape %31 : tile<32x32xf16> -> tile<1x32x32xf16>
      %pview = make_partition_view %tview_20 : partition_view<tile=(1x32x32), tensor_view<?x?x?xf16, strides=[?,?,1]>>
      %32 = store_view_tko weak %reshape, %pview[%2, %22, %30] token = %iterArg0 : tile<1x32x32xf16>, partition_view<tile=(1x32x32), tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> token
      continue %32 : token
    }
    return
  }
}
