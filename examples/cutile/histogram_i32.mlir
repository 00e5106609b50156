cuda_tile.module @histogram_i32 {
  entry @histogram_i32(%arg0: tile<ptr<i32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<i32>>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<ptr<i32>>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<ptr<f32>>, %arg10: tile<i32>, %arg11: tile<i32>, %arg12: tile<ptr<f32>>, %arg13: tile<i32>, %arg14: tile<i32>, %arg15: tile<ptr<i32>>, %arg16: tile<i32>, %arg17: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<i32>>
    %assume_0 = assume div_by<16>, %arg3 : tile<ptr<i32>>
    %assume_1 = assume div_by<16>, %arg6 : tile<ptr<i32>>
    %assume_2 = assume div_by<16>, %arg9 : tile<ptr<f32>>
    %assume_3 = assume div_by<16>, %arg12 : tile<ptr<f32>>
    %assume_4 = assume div_by<16>, %arg15 : tile<ptr<i32>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_5 = constant <i32: 1> : tile<i32>
    %cst_64_i32 = constant <i32: 64> : tile<128xi32>
    %cst_1_i64 = constant <i64: 1> : tile<128xi64>
    %cst_1_i32_6 = constant <i32: 1> : tile<128xi32>
    %cst_1_i64_7 = constant <i64: 1> : tile<128xi64>
    %cst_1_i64_8 = constant <i64: 1> : tile<128xi64>
    %cst_1_i64_9 = constant <i64: 1> : tile<128xi64>
    %cst_0_i32 = constant <i32: 0> : tile<128xi32>
    %cst_1_i32_10 = constant <i32: 1> : tile<128xi32>
    %assume_11 = assume bounded<0, ?>, %arg1 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_11], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %assume_12 = assume bounded<0, ?>, %arg4 : tile<i32>
    %assume_13 = assume bounded<0, ?>, %arg7 : tile<i32>
    %assume_14 = assume bounded<0, ?>, %arg10 : tile<i32>
    %assume_15 = assume bounded<0, ?>, %arg13 : tile<i32>
    %tview_16 = make_tensor_view %assume_3, shape = [%assume_15], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %assume_17 = assume bounded<0, ?>, %arg16 : tile<i32>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %pview = make_partition_view %tview : partition_view<tile=(128), tensor_view<?xi32, strides=[1]>>
    %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(128), tensor_view<?xi32, strides=[1]>>, tile<i32> -> tile<128xi32>, token
    %1 = join_tokens %0, %result_token : token
    %2 = remi %tile, %cst_64_i32 signed : tile<128xi32>
    %cst_0_i32_18 = constant <i32: 0> : tile<128xi32>
    %3 = cmpi less_than %2, %cst_0_i32_18, signed : tile<128xi32> -> tile<128xi1>
    %4 = cmpi less_than %cst_64_i32, %cst_0_i32_18, signed : tile<128xi32> -> tile<128xi1>
    %5 = xori %3, %4 : tile<128xi1>
    %6 = cmpi not_equal %2, %cst_0_i32_18, signed : tile<128xi32> -> tile<128xi1>
    %7 = andi %5, %6 : tile<128xi1>
    %8 = addi %2, %cst_64_i32 : tile<128xi32>
    %9 = select %7, %8, %2 : tile<128xi1>, tile<128xi32>
    %10 = exti %9 signed : tile<128xi32> -> tile<128xi64>
    %11 = exti %assume_12 signed : tile<i32> -> tile<i64>
    %reshape = reshape %11 : tile<i64> -> tile<1xi64>
    %bcast = broadcast %reshape : tile<1xi64> -> tile<128xi64>
    %12 = cmpi less_than %10, %bcast, unsigned : tile<128xi64> -> tile<128xi1>
    %13 = muli %10, %cst_1_i64 : tile<128xi64>
    %reshape_19 = reshape %assume_0 : tile<ptr<i32>> -> tile<1xptr<i32>>
    %bcast_20 = broadcast %reshape_19 : tile<1xptr<i32>> -> tile<128xptr<i32>>
    %14 = offset %bcast_20, %13 : tile<128xptr<i32>>, tile<128xi64> -> tile<128xptr<i32>>
    %15 = join_tokens %0, %1 : token
    %result, %result_token_21 = atomic_rmw_tko acq_rel device %14, add, %cst_1_i32_6, %12 token=%15 : tile<128xptr<i32>>, tile<128xi32>, tile<128xi1> -> tile<128xi32>, token
    %16 = exti %9 signed : tile<128xi32> -> tile<128xi64>
    %17 = exti %assume_13 signed : tile<i32> -> tile<i64>
    %reshape_22 = reshape %17 : tile<i64> -> tile<1xi64>
    %bcast_23 = broadcast %reshape_22 : tile<1xi64> -> tile<128xi64>
    %18 = cmpi less_than %16, %bcast_23, unsigned : tile<128xi64> -> tile<128xi1>
    %19 = muli %16, %cst_1_i64_7 : tile<128xi64>
    %reshape_24 = reshape %assume_1 : tile<ptr<i32>> -> tile<1xptr<i32>>
    %bcast_25 = broadcast %reshape_24 : tile<1xptr<i32>> -> tile<128xptr<i32>>
    %20 = offset %bcast_25, %19 : tile<128xptr<i32>>, tile<128xi64> -> tile<128xptr<i32>>
    %21 = join_tokens %0, %result_token_21 : token
    %result_26, %result_token_27 = atomic_rmw_tko relaxed device %20, max, %tile, %18 token=%21 : tile<128xptr<i32>>, tile<128xi32>, tile<128xi1> -> tile<128xi32>, token
    %pview_28 = make_partition_view %tview_16 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
    %22 = join_tokens %0, %result_token_21 : token
    %tile_29, %result_token_30 = load_view_tko weak %pview_28[%blockId_x] token = %22 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %23 = join_tokens %0, %result_token_30 : token
    %24 = exti %9 signed : tile<128xi32> -> tile<128xi64>
    %25 = exti %assume_14 signed : tile<i32> -> tile<i64>
    %reshape_31 = reshape %25 : tile<i64> -> tile<1xi64>
    %bcast_32 = broadcast %reshape_31 : tile<1xi64> -> tile<128xi64>
    %26 = cmpi less_than %24, %bcast_32, unsigned : tile<128xi64> -> tile<128xi1>
    %27 = muli %24, %cst_1_i64_8 : tile<128xi64>
    %reshape_33 = reshape %assume_2 : tile<ptr<f32>> -> tile<1xptr<f32>>
    %bcast_34 = broadcast %reshape_33 : tile<1xptr<f32>> -> tile<128xptr<f32>>
    %28 = offset %bcast_34, %27 : tile<128xptr<f32>>, tile<128xi64> -> tile<128xptr<f32>>
    %29 = join_tokens %0, %1, %result_token_21, %result_token_27, %23 : token
    %result_35, %result_token_36 = atomic_rmw_tko acq_rel tl_blk %28, addf, %tile_29, %26 token=%29 : tile<128xptr<f32>>, tile<128xf32>, tile<128xi1> -> tile<128xf32>, token
    %30 = exti %9 signed : tile<128xi32> -> tile<128xi64>
    %31 = exti %assume_17 signed : tile<i32> -> tile<i64>
    %reshape_37 = reshape %31 : tile<i64> -> tile<1xi64>
    %bcast_38 = broadcast %reshape_37 : tile<1xi64> -> tile<128xi64>
    %32 = cmpi less_than %30, %bcast_38, unsigned : tile<128xi64> -> tile<128xi1>
    %33 = muli %30, %cst_1_i64_9 : tile<128xi64>
    %reshape_39 = reshape %assume_4 : tile<ptr<i32>> -> tile<1xptr<i32>>
    %bcast_40 = broadcast %reshape_39 : tile<1xptr<i32>> -> tile<128xptr<i32>>
    %34 = offset %bcast_40, %33 : tile<128xptr<i32>>, tile<128xi64> -> tile<128xptr<i32>>
    %35 = join_tokens %0, %1, %result_token_21, %result_token_36, %result_token_27, %23 : token
    %result_41, %result_token_42 = atomic_cas_tko acq_rel device %34, %cst_0_i32, %cst_1_i32_10, %32 token=%35 : tile<128xptr<i32>>, tile<128xi32>, tile<128xi1> -> tile<128xi32>, token
    return
  }
}
