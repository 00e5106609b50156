cuda_tile.module @row_softmax_f32 {
  entry @row_softmax_f32(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f32>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
    %assume_0 = assume div_by<16>, %arg5 : tile<ptr<f32>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_1 = constant <i32: 1> : tile<i32>
    %assume_2 = assume bounded<0, ?>, %arg1 : tile<i32>
    %assume_3 = assume bounded<0, ?>, %arg2 : tile<i32>
    %assume_4 = assume bounded<0, ?>, %arg3 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_2, %assume_3], strides = [%assume_4, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %assume_5 = assume bounded<0, ?>, %arg6 : tile<i32>
    %assume_6 = assume bounded<0, ?>, %arg7 : tile<i32>
    %assume_7 = assume bounded<0, ?>, %arg8 : tile<i32>
    %tview_8 = make_tensor_view %assume_0, shape = [%assume_5, %assume_6], strides = [%assume_7, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %pview = make_partition_view %tview : partition_view<tile=(4x128), tensor_view<?x?xf32, strides=[?,1]>>
    %tile, %result_token = load_view_tko weak %pview[%blockId_x, %cst_0_i32] token = %0 : partition_view<tile=(4x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<4x128xf32>, token
    %reduce = reduce %tile dim=1 identities=[0xFF800000 : f32] : tile<4x128xf32> -> tile<4xf32> 
    (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
      %5 = maxf %reduce_lhs, %reduce_rhs : tile<f32>
      yield %5 : tile<f32>
    }
    %reshape = reshape %reduce : tile<4xf32> -> tile<4x1xf32>
    %bcast = broadcast %reshape : tile<4x1xf32> -> tile<4x128xf32>
    %1 = subf %tile, %bcast  : tile<4x128xf32>
    %2 = exp %1  : tile<4x128xf32>
    %reduce_9 = reduce %2 dim=1 identities=[0.000000e+00 : f32] : tile<4x128xf32> -> tile<4xf32> 
    (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
      %5 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
      yield %5 : tile<f32>
    }
    %reshape_10 = reshape %reduce_9 : tile<4xf32> -> tile<4x1xf32>
    %cst_0_i32_11 = constant <i32: 0> : tile<i32>
    %bcast_12 = broadcast %reshape_10 : tile<4x1xf32> -> tile<4x128xf32>
    %3 = divf %2, %bcast_12  : tile<4x128xf32>
    %pview_13 = make_partition_view %tview_8 : partition_view<tile=(4x128), tensor_view<?x?xf32, strides=[?,1]>>
    %4 = store_view_tko weak %3, %pview_13[%blockId_x, %cst_0_i32_11] token = %0 : tile<4x128xf32>, partition_view<tile=(4x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
