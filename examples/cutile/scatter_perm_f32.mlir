cuda_tile.module @scatter_perm_f32 {
  entry @scatter_perm_f32(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<i32>>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<ptr<f32>>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
    %assume_0 = assume div_by<16>, %arg3 : tile<ptr<i32>>
    %assume_1 = assume div_by<16>, %arg6 : tile<ptr<f32>>
    %cst_1_i64 = constant <i64: 1> : tile<128xi64>
    %cst_1_i64_2 = constant <i64: 1> : tile<128xi64>
    %cst_0_i32 = constant <i32: 0> : tile<128xi32>
    %cst_1_i64_3 = constant <i64: 1> : tile<128xi64>
    %assume_4 = assume bounded<0, ?>, %arg1 : tile<i32>
    %assume_5 = assume bounded<0, ?>, %arg4 : tile<i32>
    %assume_6 = assume bounded<0, ?>, %arg7 : tile<i32>
    %cst_128_i32 = constant <i32: 128> : tile<i32>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %1 = muli %blockId_x, %cst_128_i32 : tile<i32>
    %2 = iota : tile<128xi32>
    %reshape = reshape %1 : tile<i32> -> tile<1xi32>
    %bcast = broadcast %reshape : tile<1xi32> -> tile<128xi32>
    %3 = addi %bcast, %2 : tile<128xi32>
    %4 = exti %3 signed : tile<128xi32> -> tile<128xi64>
    %5 = exti %assume_4 signed : tile<i32> -> tile<i64>
    %reshape_7 = reshape %5 : tile<i64> -> tile<1xi64>
    %bcast_8 = broadcast %reshape_7 : tile<1xi64> -> tile<128xi64>
    %6 = cmpi less_than %4, %bcast_8, unsigned : tile<128xi64> -> tile<128xi1>
    %7 = muli %4, %cst_1_i64 : tile<128xi64>
    %reshape_9 = reshape %assume : tile<ptr<f32>> -> tile<1xptr<f32>>
    %bcast_10 = broadcast %reshape_9 : tile<1xptr<f32>> -> tile<128xptr<f32>>
    %8 = offset %bcast_10, %7 : tile<128xptr<f32>>, tile<128xi64> -> tile<128xptr<f32>>
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<f32>
    %reshape_11 = reshape %cst_0_f32 : tile<f32> -> tile<1xf32>
    %bcast_12 = broadcast %reshape_11 : tile<1xf32> -> tile<128xf32>
    %result, %result_token = load_ptr_tko weak %8, %6, %bcast_12 token=%0 : tile<128xptr<f32>>, tile<128xi1>, tile<128xf32> -> tile<128xf32>, token
    %9 = exti %3 signed : tile<128xi32> -> tile<128xi64>
    %10 = exti %assume_5 signed : tile<i32> -> tile<i64>
    %reshape_13 = reshape %10 : tile<i64> -> tile<1xi64>
    %bcast_14 = broadcast %reshape_13 : tile<1xi64> -> tile<128xi64>
    %11 = cmpi less_than %9, %bcast_14, unsigned : tile<128xi64> -> tile<128xi1>
    %12 = muli %9, %cst_1_i64_2 : tile<128xi64>
    %reshape_15 = reshape %assume_0 : tile<ptr<i32>> -> tile<1xptr<i32>>
    %bcast_16 = broadcast %reshape_15 : tile<1xptr<i32>> -> tile<128xptr<i32>>
    %13 = offset %bcast_16, %12 : tile<128xptr<i32>>, tile<128xi64> -> tile<128xptr<i32>>
    %result_17, %result_token_18 = load_ptr_tko weak %13, %11, %cst_0_i32 token=%0 : tile<128xptr<i32>>, tile<128xi1>, tile<128xi32> -> tile<128xi32>, token
    %cst_3_f32 = constant <f32: 3.000000e+00> : tile<f32>
    %reshape_19 = reshape %cst_3_f32 : tile<f32> -> tile<1xf32>
    %bcast_20 = broadcast %reshape_19 : tile<1xf32> -> tile<128xf32>
    %14 = mulf %result, %bcast_20  : tile<128xf32>
    %15 = exti %result_17 signed : tile<128xi32> -> tile<128xi64>
    %16 = exti %assume_6 signed : tile<i32> -> tile<i64>
    %reshape_21 = reshape %16 : tile<i64> -> tile<1xi64>
    %bcast_22 = broadcast %reshape_21 : tile<1xi64> -> tile<128xi64>
    %17 = cmpi less_than %15, %bcast_22, unsigned : tile<128xi64> -> tile<128xi1>
    %18 = muli %15, %cst_1_i64_3 : tile<128xi64>
    %reshape_23 = reshape %assume_1 : tile<ptr<f32>> -> tile<1xptr<f32>>
    %bcast_24 = broadcast %reshape_23 : tile<1xptr<f32>> -> tile<128xptr<f32>>
    %19 = offset %bcast_24, %18 : tile<128xptr<f32>>, tile<128xi64> -> tile<128xptr<f32>>
    %20 = store_ptr_tko weak %19, %14, %17 token=%0 : tile<128xptr<f32>>, tile<128xf32>, tile<128xi1> -> token
    return
  }
}
