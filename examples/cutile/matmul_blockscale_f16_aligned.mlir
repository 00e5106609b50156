cuda_tile.module @matmul_blockscale_f16_aligned {
  entry @matmul_blockscale_f16_aligned(%arg0: tile<ptr<f16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f16>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<ptr<f16>>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<i32>, %arg15: tile<ptr<f32>>, %arg16: tile<i32>, %arg17: tile<i32>, %arg18: tile<i32>, %arg19: tile<i32>, %arg20: tile<ptr<f32>>, %arg21: tile<i32>, %arg22: tile<i32>, %arg23: tile<i32>, %arg24: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f16>>
    %assume_0 = assume div_by<16>, %arg1 : tile<i32>
    %assume_1 = assume div_by<16>, %arg2 : tile<i32>
    %assume_2 = assume div_by<16>, %arg3 : tile<i32>
    %assume_3 = assume div_by<16>, %arg5 : tile<ptr<f16>>
    %assume_4 = assume div_by<16>, %arg6 : tile<i32>
    %assume_5 = assume div_by<16>, %arg7 : tile<i32>
    %assume_6 = assume div_by<16>, %arg8 : tile<i32>
    %assume_7 = assume div_by<16>, %arg10 : tile<ptr<f16>>
    %assume_8 = assume div_by<16>, %arg11 : tile<i32>
    %assume_9 = assume div_by<16>, %arg12 : tile<i32>
    %assume_10 = assume div_by<16>, %arg13 : tile<i32>
    %assume_11 = assume div_by<16>, %arg15 : tile<ptr<f32>>
    %assume_12 = assume div_by<16>, %arg20 : tile<ptr<f32>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_13 = constant <i32: 1> : tile<i32>
    %cst_1_i32_14 = constant <i32: 1> : tile<i32>
    %cst_1_i64 = constant <i64: 1> : tile<128xi64>
    %cst_1_i64_15 = constant <i64: 1> : tile<i64>
    %assume_assume = assume bounded<0, ?>, %assume_0 : tile<i32>
    %assume_assume_assume = assume div_by<16>, %assume_assume : tile<i32>
    %assume_assume_16 = assume bounded<0, ?>, %assume_1 : tile<i32>
    %assume_assume_assume_17 = assume div_by<16>, %assume_assume_16 : tile<i32>
    %assume_assume_18 = assume bounded<0, ?>, %assume_2 : tile<i32>
    %assume_assume_assume_19 = assume div_by<16>, %assume_assume_18 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_assume_assume, %assume_assume_assume_17], strides = [%assume_assume_assume_19, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %assume_assume_20 = assume bounded<0, ?>, %assume_4 : tile<i32>
    %assume_assume_assume_21 = assume div_by<16>, %assume_assume_20 : tile<i32>
    %assume_assume_22 = assume bounded<0, ?>, %assume_5 : tile<i32>
    %assume_assume_assume_23 = assume div_by<16>, %assume_assume_22 : tile<i32>
    %assume_assume_24 = assume bounded<0, ?>, %assume_6 : tile<i32>
    %assume_assume_assume_25 = assume div_by<16>, %assume_assume_24 : tile<i32>
    %tview_26 = make_tensor_view %assume_3, shape = [%assume_assume_assume_21, %assume_assume_assume_23], strides = [%assume_assume_assume_25, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %assume_assume_27 = assume bounded<0, ?>, %assume_8 : tile<i32>
    %assume_assume_assume_28 = assume div_by<16>, %assume_assume_27 : tile<i32>
    %assume_assume_29 = assume bounded<0, ?>, %assume_9 : tile<i32>
    %assume_assume_assume_30 = assume div_by<16>, %assume_assume_29 : tile<i32>
    %assume_assume_31 = assume bounded<0, ?>, %assume_10 : tile<i32>
    %assume_assume_assume_32 = assume div_by<16>, %assume_assume_31 : tile<i32>
    %tview_33 = make_tensor_view %assume_7, shape = [%assume_assume_assume_28, %assume_assume_assume_30], strides = [%assume_assume_assume_32, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %assume_34 = assume bounded<0, ?>, %arg16 : tile<i32>
    %assume_35 = assume bounded<0, ?>, %arg17 : tile<i32>
    %assume_36 = assume bounded<0, ?>, %arg18 : tile<i32>
    %assume_37 = assume bounded<0, ?>, %arg21 : tile<i32>
    %assume_38 = assume bounded<0, ?>, %arg22 : tile<i32>
    %assume_39 = assume bounded<0, ?>, %arg23 : tile<i32>
    %cst_128_i32 = constant <i32: 128> : tile<i32>
    %cst_64_i32 = constant <i32: 64> : tile<i32>
    %cst_128_i32_40 = constant <i32: 128> : tile<i32>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %blockId_x_41, %blockId_y_42, %blockId_z_43 = get_tile_block_id : tile<i32>
    %1 = muli %blockId_x, %cst_128_i32 : tile<i32>
    %2 = iota : tile<128xi32>
    %reshape = reshape %1 : tile<i32> -> tile<1xi32>
    %bcast = broadcast %reshape : tile<1xi32> -> tile<128xi32>
    %3 = addi %bcast, %2 : tile<128xi32>
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<128x128xf32>
    %pview = make_partition_view %tview : partition_view<tile=(128x64), tensor_view<?x?xf16, strides=[?,1]>>
    %4:2 = get_index_space_shape %pview : partition_view<tile=(128x64), tensor_view<?x?xf16, strides=[?,1]>> -> tile<i32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %cst_1_i32_44 = constant <i32: 1> : tile<i32>
    %cst_0_f32_45 = constant <f32: 0.000000e+00> : tile<f32>
    %5 = exti %3 signed : tile<128xi32> -> tile<128xi64>
    %6 = exti %assume_34 signed : tile<i32> -> tile<i64>
    %reshape_46 = reshape %6 : tile<i64> -> tile<1xi64>
    %bcast_47 = broadcast %reshape_46 : tile<1xi64> -> tile<128xi64>
    %7 = cmpi less_than %5, %bcast_47, unsigned : tile<128xi64> -> tile<128xi1>
    %8 = exti %assume_36 signed : tile<i32> -> tile<i64>
    %reshape_48 = reshape %8 : tile<i64> -> tile<1xi64>
    %bcast_49 = broadcast %reshape_48 : tile<1xi64> -> tile<128xi64>
    %9 = muli %5, %bcast_49 : tile<128xi64>
    %10 = exti %assume_35 signed : tile<i32> -> tile<i64>
    %reshape_50 = reshape %10 : tile<i64> -> tile<1xi64>
    %bcast_51 = broadcast %reshape_50 : tile<1xi64> -> tile<128xi64>
    %reshape_52 = reshape %assume_11 : tile<ptr<f32>> -> tile<1xptr<f32>>
    %bcast_53 = broadcast %reshape_52 : tile<1xptr<f32>> -> tile<128xptr<f32>>
    %reshape_54 = reshape %cst_0_f32_45 : tile<f32> -> tile<1xf32>
    %bcast_55 = broadcast %reshape_54 : tile<1xf32> -> tile<128xf32>
    %cst_0_f32_56 = constant <f32: 0.000000e+00> : tile<f32>
    %11 = exti %blockId_y_42 signed : tile<i32> -> tile<i64>
    %12 = exti %assume_37 signed : tile<i32> -> tile<i64>
    %13 = cmpi less_than %11, %12, unsigned : tile<i64> -> tile<i1>
    %14 = exti %assume_39 signed : tile<i32> -> tile<i64>
    %15 = muli %11, %14 : tile<i64>
    %16 = exti %assume_38 signed : tile<i32> -> tile<i64>
    %cst_0_f32_57 = constant <f32: 0.000000e+00> : tile<128x128xf32>
    %for = for %loopIdx in (%cst_0_i32 to %4#1, step %cst_1_i32_44) : tile<i32> iter_values(%iterArg0 = %cst_0_f32) -> (tile<128x128xf32>) {
      %pview_59 = make_partition_view %tview : partition_view<tile=(128x64), tensor_view<?x?xf16, strides=[?,1]>>
      %tile, %result_token = load_view_tko weak %pview_59[%blockId_x, %loopIdx] token = %0 optimization_hints = <sm_90 = {latency = 3}> : partition_view<tile=(128x64), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<128x64xf16>, token
      %pview_60 = make_partition_view %tview_26 : partition_view<tile=(64x128), tensor_view<?x?xf16, strides=[?,1]>>
      %tile_61, %result_token_62 = load_view_tko weak %pview_60[%loopIdx, %blockId_y_42] token = %0 optimization_hints = <sm_90 = {latency = 3}> : partition_view<tile=(64x128), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x128xf16>, token
      %19 = muli %loopIdx, %cst_64_i32 : tile<i32>
      %20 = divi %19, %cst_128_i32_40 signed rounding<negative_inf> : tile<i32>
      %21 = exti %20 signed : tile<i32> -> tile<i64>
      %reshape_63 = reshape %21 : tile<i64> -> tile<1xi64>
      %bcast_64 = broadcast %reshape_63 : tile<1xi64> -> tile<128xi64>
      %22 = cmpi less_than %bcast_64, %bcast_51, unsigned : tile<128xi64> -> tile<128xi1>
      %23 = andi %7, %22 : tile<128xi1>
      %24 = muli %bcast_64, %cst_1_i64 : tile<128xi64>
      %25 = addi %9, %24 : tile<128xi64>
      %26 = offset %bcast_53, %25 : tile<128xptr<f32>>, tile<128xi64> -> tile<128xptr<f32>>
      %result, %result_token_65 = load_ptr_tko weak %26, %23, %bcast_55 token=%0 : tile<128xptr<f32>>, tile<128xi1>, tile<128xf32> -> tile<128xf32>, token
      %27 = exti %20 signed : tile<i32> -> tile<i64>
      %28 = cmpi less_than %27, %16, unsigned : tile<i64> -> tile<i1>
      %29 = andi %13, %28 : tile<i1>
      %30 = muli %27, %cst_1_i64_15 : tile<i64>
      %31 = addi %15, %30 : tile<i64>
      %32 = offset %assume_12, %31 : tile<ptr<f32>>, tile<i64> -> tile<ptr<f32>>
      %assume_66 = assume div_by<4>, %32 : tile<ptr<f32>>
      %result_67, %result_token_68 = load_ptr_tko weak %assume_66, %29, %cst_0_f32_56 token=%0 : tile<ptr<f32>>, tile<i1>, tile<f32> -> tile<f32>, token
      %33 = mmaf %tile, %tile_61, %cst_0_f32_57 : tile<128x64xf16>, tile<64x128xf16>, tile<128x128xf32>
      %reshape_69 = reshape %result : tile<128xf32> -> tile<128x1xf32>
      %reshape_70 = reshape %result_67 : tile<f32> -> tile<1x1xf32>
      %bcast_71 = broadcast %reshape_70 : tile<1x1xf32> -> tile<128x1xf32>
      %34 = mulf %reshape_69, %bcast_71  : tile<128x1xf32>
      %bcast_72 = broadcast %34 : tile<128x1xf32> -> tile<128x128xf32>
      %35 = fma %33, %bcast_72, %iterArg0  : tile<128x128xf32>
      continue %35 : tile<128x128xf32>
    }
    %17 = ftof %for  : tile<128x128xf32> -> tile<128x128xf16>
    %pview_58 = make_partition_view %tview_33 : partition_view<tile=(128x128), tensor_view<?x?xf16, strides=[?,1]>>
    %18 = store_view_tko weak %17, %pview_58[%blockId_x, %blockId_y_42] token = %0 : tile<128x128xf16>, partition_view<tile=(128x128), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
