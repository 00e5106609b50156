cuda_tile.module @grid2d_bf16 {
  entry @grid2d_bf16(%arg0: tile<ptr<bf16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<bf16>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<bf16>>
    %assume_0 = assume div_by<16>, %arg5 : tile<ptr<bf16>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_1 = constant <i32: 1> : tile<i32>
    %assume_2 = assume bounded<0, ?>, %arg1 : tile<i32>
    %assume_3 = assume bounded<0, ?>, %arg2 : tile<i32>
    %assume_4 = assume bounded<0, ?>, %arg3 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_2, %assume_3], strides = [%assume_4, 1] : tile<i32> -> tensor_view<?x?xbf16, strides=[?,1]>
    %assume_5 = assume bounded<0, ?>, %arg6 : tile<i32>
    %assume_6 = assume bounded<0, ?>, %arg7 : tile<i32>
    %assume_7 = assume bounded<0, ?>, %arg8 : tile<i32>
    %tview_8 = make_tensor_view %assume_0, shape = [%assume_5, %assume_6], strides = [%assume_7, 1] : tile<i32> -> tensor_view<?x?xbf16, strides=[?,1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %blockId_x_9, %blockId_y_10, %blockId_z_11 = get_tile_block_id : tile<i32>
    %pview = make_partition_view %tview : partition_view<tile=(32x32), tensor_view<?x?xbf16, strides=[?,1]>>
    %tile, %result_token = load_view_tko weak %pview[%blockId_x, %blockId_y_10] token = %0 : partition_view<tile=(32x32), tensor_view<?x?xbf16, strides=[?,1]>>, tile<i32> -> tile<32x32xbf16>, token
    %1 = ftof %tile  : tile<32x32xbf16> -> tile<32x32xf32>
    %gridSize_x, %gridSize_y, %gridSize_z = get_num_tile_blocks : tile<i32>
    %2 = tanh %1  : tile<32x32xf32>
    %3 = itof %gridSize_x signed  : tile<i32> -> tile<f32>
    %reshape = reshape %3 : tile<f32> -> tile<1x1xf32>
    %bcast = broadcast %reshape : tile<1x1xf32> -> tile<32x32xf32>
    %4 = sin %1 : tile<32x32xf32>
    %5 = fma %2, %bcast, %4  : tile<32x32xf32>
    %6 = floor %1 : tile<32x32xf32>
    %7 = subf %5, %6  : tile<32x32xf32>
    %8 = ftof %7  : tile<32x32xf32> -> tile<32x32xbf16>
    %pview_12 = make_partition_view %tview_8 : partition_view<tile=(32x32), tensor_view<?x?xbf16, strides=[?,1]>>
    %9 = store_view_tko weak %8, %pview_12[%blockId_x, %blockId_y_10] token = %0 : tile<32x32xbf16>, partition_view<tile=(32x32), tensor_view<?x?xbf16, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
