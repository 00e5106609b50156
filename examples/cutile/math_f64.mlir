cuda_tile.module @math_f64 {
  entry @math_f64(%arg0: tile<ptr<f64>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<f64>>, %arg4: tile<i32>, %arg5: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f64>>
    %assume_0 = assume div_by<16>, %arg3 : tile<ptr<f64>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_1 = constant <i32: 1> : tile<i32>
    %assume_2 = assume bounded<0, ?>, %arg1 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_2], strides = [1] : tile<i32> -> tensor_view<?xf64, strides=[1]>
    %assume_3 = assume bounded<0, ?>, %arg4 : tile<i32>
    %tview_4 = make_tensor_view %assume_0, shape = [%assume_3], strides = [1] : tile<i32> -> tensor_view<?xf64, strides=[1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %pview = make_partition_view %tview : partition_view<tile=(128), tensor_view<?xf64, strides=[1]>>
    %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(128), tensor_view<?xf64, strides=[1]>>, tile<i32> -> tile<128xf64>, token
    %1 = absf %tile : tile<128xf64>
    %2 = sqrt %1  : tile<128xf64>
    %cst_f64 = constant <f64: 5.000000e-01> : tile<f64>
    %reshape = reshape %cst_f64 : tile<f64> -> tile<1xf64>
    %bcast = broadcast %reshape : tile<1xf64> -> tile<128xf64>
    %3 = mulf %tile, %bcast  : tile<128xf64>
    %4 = exp %3  : tile<128xf64>
    %5 = addf %2, %4  : tile<128xf64>
    %6 = absf %tile : tile<128xf64>
    %cst_1_f64 = constant <f64: 1.000000e+00> : tile<f64>
    %reshape_5 = reshape %cst_1_f64 : tile<f64> -> tile<1xf64>
    %bcast_6 = broadcast %reshape_5 : tile<1xf64> -> tile<128xf64>
    %7 = addf %6, %bcast_6  : tile<128xf64>
    %8 = log %7 : tile<128xf64>
    %9 = subf %5, %8  : tile<128xf64>
    %10 = absf %tile : tile<128xf64>
    %cst_f64_7 = constant <f64: 1.500000e+00> : tile<f64>
    %reshape_8 = reshape %cst_f64_7 : tile<f64> -> tile<1xf64>
    %bcast_9 = broadcast %reshape_8 : tile<1xf64> -> tile<128xf64>
    %11 = fpowf %10, %bcast_9 : tile<128xf64>
    %12 = addf %9, %11  : tile<128xf64>
    %pview_10 = make_partition_view %tview_4 : partition_view<tile=(128), tensor_view<?xf64, strides=[1]>>
    %13 = store_view_tko weak %12, %pview_10[%blockId_x] token = %0 : tile<128xf64>, partition_view<tile=(128), tensor_view<?xf64, strides=[1]>>, tile<i32> -> token
    return
  }
}
