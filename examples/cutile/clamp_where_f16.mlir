cuda_tile.module @clamp_where_f16 {
  entry @clamp_where_f16(%arg0: tile<ptr<f16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f16>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<f32>, %arg11: tile<f32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f16>>
    %assume_0 = assume div_by<16>, %arg5 : tile<ptr<f16>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_1 = constant <i32: 1> : tile<i32>
    %assume_2 = assume bounded<0, ?>, %arg1 : tile<i32>
    %assume_3 = assume bounded<0, ?>, %arg2 : tile<i32>
    %assume_4 = assume bounded<0, ?>, %arg3 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_2, %assume_3], strides = [%assume_4, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %assume_5 = assume bounded<0, ?>, %arg6 : tile<i32>
    %assume_6 = assume bounded<0, ?>, %arg7 : tile<i32>
    %assume_7 = assume bounded<0, ?>, %arg8 : tile<i32>
    %tview_8 = make_tensor_view %assume_0, shape = [%assume_5, %assume_6], strides = [%assume_7, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %pview = make_partition_view %tview : partition_view<tile=(16x32), tensor_view<?x?xf16, strides=[?,1]>>
    %tile, %result_token = load_view_tko weak %pview[%blockId_x, %cst_0_i32] token = %0 : partition_view<tile=(16x32), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<16x32xf16>, token
    %1 = iota : tile<32xi32>
    %2 = itof %1 signed  : tile<32xi32> -> tile<32xf16>
    %reshape = reshape %2 : tile<32xf16> -> tile<1x32xf16>
    %3 = ftof %tile  : tile<16x32xf16> -> tile<16x32xf32>
    %reshape_9 = reshape %arg10 : tile<f32> -> tile<1x1xf32>
    %bcast = broadcast %reshape_9 : tile<1x1xf32> -> tile<16x32xf32>
    %4 = cmpf less_than ordered %3, %bcast : tile<16x32xf32> -> tile<16x32xi1>
    %5 = ftof %arg10  : tile<f32> -> tile<f16>
    %reshape_10 = reshape %5 : tile<f16> -> tile<1x1xf16>
    %bcast_11 = broadcast %reshape_10 : tile<1x1xf16> -> tile<16x32xf16>
    %6 = select %4, %bcast_11, %tile : tile<16x32xi1>, tile<16x32xf16>
    %bcast_12 = broadcast %reshape : tile<1x32xf16> -> tile<16x32xf16>
    %7 = addf %6, %bcast_12  : tile<16x32xf16>
    %8 = ftof %arg11  : tile<f32> -> tile<f16>
    %reshape_13 = reshape %8 : tile<f16> -> tile<1x1xf16>
    %bcast_14 = broadcast %reshape_13 : tile<1x1xf16> -> tile<16x32xf16>
    %9 = minf %7, %bcast_14 : tile<16x32xf16>
    %cst_0_i32_15 = constant <i32: 0> : tile<i32>
    %10 = absf %9 : tile<16x32xf16>
    %11 = sqrt %10  : tile<16x32xf16>
    %12 = permute %11 [1, 0] : tile<16x32xf16> -> tile<32x16xf16>
    %13 = permute %12 [1, 0] : tile<32x16xf16> -> tile<16x32xf16>
    %pview_16 = make_partition_view %tview_8 : partition_view<tile=(16x32), tensor_view<?x?xf16, strides=[?,1]>>
    %14 = store_view_tko weak %13, %pview_16[%blockId_x, %cst_0_i32_15] token = %0 : tile<16x32xf16>, partition_view<tile=(16x32), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
