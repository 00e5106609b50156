cuda_tile.module @atomics_f32 {
  entry @atomics_f32(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<f32>>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<ptr<i32>>, %arg7: tile<i32>, %arg8: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
    %assume_0 = assume div_by<16>, %arg3 : tile<ptr<f32>>
    %assume_1 = assume div_by<16>, %arg6 : tile<ptr<i32>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i64 = constant <i64: 1> : tile<128xi64>
    %cst_1_i64_2 = constant <i64: 1> : tile<128xi64>
    %assume_3 = assume bounded<0, ?>, %arg1 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_3], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %assume_4 = assume bounded<0, ?>, %arg4 : tile<i32>
    %assume_5 = assume bounded<0, ?>, %arg7 : tile<i32>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %pview = make_partition_view %tview : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
    %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %1 = join_tokens %0, %result_token : token
    %2 = iota : tile<128xi32>
    %3 = exti %2 signed : tile<128xi32> -> tile<128xi64>
    %4 = exti %assume_4 signed : tile<i32> -> tile<i64>
    %reshape = reshape %4 : tile<i64> -> tile<1xi64>
    %bcast = broadcast %reshape : tile<1xi64> -> tile<128xi64>
    %5 = cmpi less_than %3, %bcast, unsigned : tile<128xi64> -> tile<128xi1>
    %6 = muli %3, %cst_1_i64 : tile<128xi64>
    %reshape_6 = reshape %assume_0 : tile<ptr<f32>> -> tile<1xptr<f32>>
    %bcast_7 = broadcast %reshape_6 : tile<1xptr<f32>> -> tile<128xptr<f32>>
    %7 = offset %bcast_7, %6 : tile<128xptr<f32>>, tile<128xi64> -> tile<128xptr<f32>>
    %8 = join_tokens %0, %1 : token
    %result, %result_token_8 = atomic_rmw_tko acq_rel device %7, addf, %tile, %5 token=%8 : tile<128xptr<f32>>, tile<128xf32>, tile<128xi1> -> tile<128xf32>, token
    %cst_0_i32 = constant <i32: 0> : tile<128xi32>
    %cst_100_f32 = constant <f32: 1.000000e+02> : tile<f32>
    %reshape_9 = reshape %cst_100_f32 : tile<f32> -> tile<1xf32>
    %bcast_10 = broadcast %reshape_9 : tile<1xf32> -> tile<128xf32>
    %9 = mulf %tile, %bcast_10  : tile<128xf32>
    %10 = ftoi %9 signed  : tile<128xf32> -> tile<128xi32>
    %11 = exti %cst_0_i32 signed : tile<128xi32> -> tile<128xi64>
    %12 = exti %assume_5 signed : tile<i32> -> tile<i64>
    %reshape_11 = reshape %12 : tile<i64> -> tile<1xi64>
    %bcast_12 = broadcast %reshape_11 : tile<1xi64> -> tile<128xi64>
    %13 = cmpi less_than %11, %bcast_12, unsigned : tile<128xi64> -> tile<128xi1>
    %14 = muli %11, %cst_1_i64_2 : tile<128xi64>
    %reshape_13 = reshape %assume_1 : tile<ptr<i32>> -> tile<1xptr<i32>>
    %bcast_14 = broadcast %reshape_13 : tile<1xptr<i32>> -> tile<128xptr<i32>>
    %15 = offset %bcast_14, %14 : tile<128xptr<i32>>, tile<128xi64> -> tile<128xptr<i32>>
    %16 = join_tokens %0, %1, %result_token_8 : token
    %result_15, %result_token_16 = atomic_rmw_tko acq_rel device %15, max, %10, %13 token=%16 : tile<128xptr<i32>>, tile<128xi32>, tile<128xi1> -> tile<128xi32>, token
    return
  }
}
