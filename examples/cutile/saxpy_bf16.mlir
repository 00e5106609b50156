cuda_tile.module @saxpy_bf16 {
  entry @saxpy_bf16(%arg0: tile<ptr<bf16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<bf16>>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<ptr<bf16>>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<f32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<bf16>>
    %assume_0 = assume div_by<16>, %arg3 : tile<ptr<bf16>>
    %assume_1 = assume div_by<16>, %arg6 : tile<ptr<bf16>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_2 = constant <i32: 1> : tile<i32>
    %cst_1_i32_3 = constant <i32: 1> : tile<i32>
    %assume_4 = assume bounded<0, ?>, %arg1 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_4], strides = [1] : tile<i32> -> tensor_view<?xbf16, strides=[1]>
    %assume_5 = assume bounded<0, ?>, %arg4 : tile<i32>
    %tview_6 = make_tensor_view %assume_0, shape = [%assume_5], strides = [1] : tile<i32> -> tensor_view<?xbf16, strides=[1]>
    %assume_7 = assume bounded<0, ?>, %arg7 : tile<i32>
    %tview_8 = make_tensor_view %assume_1, shape = [%assume_7], strides = [1] : tile<i32> -> tensor_view<?xbf16, strides=[1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %pview = make_partition_view %tview : partition_view<tile=(128), tensor_view<?xbf16, strides=[1]>>
    %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(128), tensor_view<?xbf16, strides=[1]>>, tile<i32> -> tile<128xbf16>, token
    %1 = ftof %tile  : tile<128xbf16> -> tile<128xf32>
    %pview_9 = make_partition_view %tview_6 : partition_view<tile=(128), tensor_view<?xbf16, strides=[1]>>
    %tile_10, %result_token_11 = load_view_tko weak %pview_9[%blockId_x] token = %0 : partition_view<tile=(128), tensor_view<?xbf16, strides=[1]>>, tile<i32> -> tile<128xbf16>, token
    %2 = ftof %tile_10  : tile<128xbf16> -> tile<128xf32>
    %reshape = reshape %arg9 : tile<f32> -> tile<1xf32>
    %bcast = broadcast %reshape : tile<1xf32> -> tile<128xf32>
    %3 = fma %bcast, %1, %2  : tile<128xf32>
    %4 = ftof %3  : tile<128xf32> -> tile<128xbf16>
    %pview_12 = make_partition_view %tview_8 : partition_view<tile=(128), tensor_view<?xbf16, strides=[1]>>
    %5 = store_view_tko weak %4, %pview_12[%blockId_x] token = %0 : tile<128xbf16>, partition_view<tile=(128), tensor_view<?xbf16, strides=[1]>>, tile<i32> -> token
    return
  }
}
