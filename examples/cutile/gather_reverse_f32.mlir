cuda_tile.module @gather_reverse_f32 {
  entry @gather_reverse_f32(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<f32>>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
    %assume_0 = assume div_by<16>, %arg3 : tile<ptr<f32>>
    %cst_1_i64 = constant <i64: 1> : tile<128xi64>
    %cst_1_i64_1 = constant <i64: 1> : tile<128xi64>
    %assume_2 = assume bounded<0, ?>, %arg1 : tile<i32>
    %assume_3 = assume bounded<0, ?>, %arg4 : tile<i32>
    %cst_128_i32 = constant <i32: 128> : tile<i32>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %1 = muli %blockId_x, %cst_128_i32 : tile<i32>
    %2 = iota : tile<128xi32>
    %reshape = reshape %1 : tile<i32> -> tile<1xi32>
    %bcast = broadcast %reshape : tile<1xi32> -> tile<128xi32>
    %3 = addi %bcast, %2 : tile<128xi32>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %4 = subi %arg6, %cst_1_i32 : tile<i32>
    %reshape_4 = reshape %4 : tile<i32> -> tile<1xi32>
    %bcast_5 = broadcast %reshape_4 : tile<1xi32> -> tile<128xi32>
    %5 = subi %bcast_5, %3 : tile<128xi32>
    %reshape_6 = reshape %arg6 : tile<i32> -> tile<1xi32>
    %bcast_7 = broadcast %reshape_6 : tile<1xi32> -> tile<128xi32>
    %6 = cmpi less_than %3, %bcast_7, signed : tile<128xi32> -> tile<128xi1>
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<f32>
    %7 = exti %5 signed : tile<128xi32> -> tile<128xi64>
    %8 = exti %assume_2 signed : tile<i32> -> tile<i64>
    %reshape_8 = reshape %8 : tile<i64> -> tile<1xi64>
    %bcast_9 = broadcast %reshape_8 : tile<1xi64> -> tile<128xi64>
    %9 = cmpi less_than %7, %bcast_9, unsigned : tile<128xi64> -> tile<128xi1>
    %10 = muli %7, %cst_1_i64 : tile<128xi64>
    %reshape_10 = reshape %assume : tile<ptr<f32>> -> tile<1xptr<f32>>
    %bcast_11 = broadcast %reshape_10 : tile<1xptr<f32>> -> tile<128xptr<f32>>
    %11 = offset %bcast_11, %10 : tile<128xptr<f32>>, tile<128xi64> -> tile<128xptr<f32>>
    %12 = andi %9, %6 : tile<128xi1>
    %reshape_12 = reshape %cst_0_f32 : tile<f32> -> tile<1xf32>
    %bcast_13 = broadcast %reshape_12 : tile<1xf32> -> tile<128xf32>
    %result, %result_token = load_ptr_tko weak %11, %12, %bcast_13 token=%0 : tile<128xptr<f32>>, tile<128xi1>, tile<128xf32> -> tile<128xf32>, token
    %13 = exti %3 signed : tile<128xi32> -> tile<128xi64>
    %14 = exti %assume_3 signed : tile<i32> -> tile<i64>
    %reshape_14 = reshape %14 : tile<i64> -> tile<1xi64>
    %bcast_15 = broadcast %reshape_14 : tile<1xi64> -> tile<128xi64>
    %15 = cmpi less_than %13, %bcast_15, unsigned : tile<128xi64> -> tile<128xi1>
    %16 = muli %13, %cst_1_i64_1 : tile<128xi64>
    %reshape_16 = reshape %assume_0 : tile<ptr<f32>> -> tile<1xptr<f32>>
    %bcast_17 = broadcast %reshape_16 : tile<1xptr<f32>> -> tile<128xptr<f32>>
    %17 = offset %bcast_17, %16 : tile<128xptr<f32>>, tile<128xi64> -> tile<128xptr<f32>>
    %18 = store_ptr_tko weak %17, %result, %15 token=%0 : tile<128xptr<f32>>, tile<128xf32>, tile<128xi1> -> token
    return
  }
}
