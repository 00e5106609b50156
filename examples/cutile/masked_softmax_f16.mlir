cuda_tile.module @masked_softmax_f16 {
  entry @masked_softmax_f16(%arg0: tile<ptr<f16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f16>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<i32>) optimization_hints=<sm_90 = {}> {
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
    %pview = make_partition_view %tview : partition_view<tile=(4x128), padding_value = neg_inf, tensor_view<?x?xf16, strides=[?,1]>>
    %tile, %result_token = load_view_tko weak %pview[%blockId_x, %cst_0_i32] token = %0 : partition_view<tile=(4x128), padding_value = neg_inf, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<4x128xf16>, token
    %1 = ftof %tile  : tile<4x128xf16> -> tile<4x128xf32>
    %reduce = reduce %1 dim=1 identities=[0xFF800000 : f32] : tile<4x128xf32> -> tile<4xf32> 
    (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
      %7 = maxf %reduce_lhs, %reduce_rhs : tile<f32>
      yield %7 : tile<f32>
    }
    %reshape = reshape %reduce : tile<4xf32> -> tile<4x1xf32>
    %bcast = broadcast %reshape : tile<4x1xf32> -> tile<4x128xf32>
    %2 = subf %1, %bcast  : tile<4x128xf32>
    %3 = exp %2  : tile<4x128xf32>
    %cst_0_i32_9 = constant <i32: 0> : tile<i32>
    %reduce_10 = reduce %3 dim=1 identities=[0.000000e+00 : f32] : tile<4x128xf32> -> tile<4xf32> 
    (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
      %7 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
      yield %7 : tile<f32>
    }
    %reshape_11 = reshape %reduce_10 : tile<4xf32> -> tile<4x1xf32>
    %bcast_12 = broadcast %reshape_11 : tile<4x1xf32> -> tile<4x128xf32>
    %4 = divf %3, %bcast_12  : tile<4x128xf32>
    %5 = ftof %4  : tile<4x128xf32> -> tile<4x128xf16>
    %pview_13 = make_partition_view %tview_8 : partition_view<tile=(4x128), tensor_view<?x?xf16, strides=[?,1]>>
    %6 = store_view_tko weak %5, %pview_13[%blockId_x, %cst_0_i32_9] token = %0 : tile<4x128xf16>, partition_view<tile=(4x128), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
