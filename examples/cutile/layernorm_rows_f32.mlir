cuda_tile.module @layernorm_rows_f32 {
  entry @layernorm_rows_f32(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f32>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<ptr<f32>>, %arg9: tile<i32>, %arg10: tile<i32>, %arg11: tile<i32>, %arg12: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
    %assume_0 = assume div_by<16>, %arg5 : tile<ptr<f32>>
    %assume_1 = assume div_by<16>, %arg8 : tile<ptr<f32>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_2 = constant <i32: 1> : tile<i32>
    %cst_1_i32_3 = constant <i32: 1> : tile<i32>
    %assume_4 = assume bounded<0, ?>, %arg1 : tile<i32>
    %assume_5 = assume bounded<0, ?>, %arg2 : tile<i32>
    %assume_6 = assume bounded<0, ?>, %arg3 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_4, %assume_5], strides = [%assume_6, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %assume_7 = assume bounded<0, ?>, %arg6 : tile<i32>
    %tview_8 = make_tensor_view %assume_0, shape = [%assume_7], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %assume_9 = assume bounded<0, ?>, %arg9 : tile<i32>
    %assume_10 = assume bounded<0, ?>, %arg10 : tile<i32>
    %assume_11 = assume bounded<0, ?>, %arg11 : tile<i32>
    %tview_12 = make_tensor_view %assume_1, shape = [%assume_9, %assume_10], strides = [%assume_11, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %pview = make_partition_view %tview : partition_view<tile=(4x128), tensor_view<?x?xf32, strides=[?,1]>>
    %tile, %result_token = load_view_tko weak %pview[%blockId_x, %cst_0_i32] token = %0 : partition_view<tile=(4x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<4x128xf32>, token
    %reduce = reduce %tile dim=1 identities=[0.000000e+00 : f32] : tile<4x128xf32> -> tile<4xf32> 
    (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
      %10 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
      yield %10 : tile<f32>
    }
    %reshape = reshape %reduce : tile<4xf32> -> tile<4x1xf32>
    %cst_128_f32 = constant <f32: 1.280000e+02> : tile<f32>
    %reshape_13 = reshape %cst_128_f32 : tile<f32> -> tile<1x1xf32>
    %bcast = broadcast %reshape_13 : tile<1x1xf32> -> tile<4x1xf32>
    %1 = divf %reshape, %bcast  : tile<4x1xf32>
    %bcast_14 = broadcast %1 : tile<4x1xf32> -> tile<4x128xf32>
    %2 = subf %tile, %bcast_14  : tile<4x128xf32>
    %3 = mulf %2, %2  : tile<4x128xf32>
    %reduce_15 = reduce %3 dim=1 identities=[0.000000e+00 : f32] : tile<4x128xf32> -> tile<4xf32> 
    (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
      %10 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
      yield %10 : tile<f32>
    }
    %reshape_16 = reshape %reduce_15 : tile<4xf32> -> tile<4x1xf32>
    %cst_128_f32_17 = constant <f32: 1.280000e+02> : tile<f32>
    %reshape_18 = reshape %cst_128_f32_17 : tile<f32> -> tile<1x1xf32>
    %bcast_19 = broadcast %reshape_18 : tile<1x1xf32> -> tile<4x1xf32>
    %4 = divf %reshape_16, %bcast_19  : tile<4x1xf32>
    %cst_0_i32_20 = constant <i32: 0> : tile<i32>
    %pview_21 = make_partition_view %tview_8 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
    %tile_22, %result_token_23 = load_view_tko weak %pview_21[%cst_0_i32_20] token = %0 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %cst_0_i32_24 = constant <i32: 0> : tile<i32>
    %cst_f32 = constant <f32: 9.99999974E-6> : tile<f32>
    %reshape_25 = reshape %cst_f32 : tile<f32> -> tile<1x1xf32>
    %bcast_26 = broadcast %reshape_25 : tile<1x1xf32> -> tile<4x1xf32>
    %5 = addf %4, %bcast_26  : tile<4x1xf32>
    %6 = rsqrt %5 : tile<4x1xf32>
    %bcast_27 = broadcast %6 : tile<4x1xf32> -> tile<4x128xf32>
    %7 = mulf %2, %bcast_27  : tile<4x128xf32>
    %reshape_28 = reshape %tile_22 : tile<128xf32> -> tile<1x128xf32>
    %bcast_29 = broadcast %reshape_28 : tile<1x128xf32> -> tile<4x128xf32>
    %8 = mulf %7, %bcast_29  : tile<4x128xf32>
    %pview_30 = make_partition_view %tview_12 : partition_view<tile=(4x128), tensor_view<?x?xf32, strides=[?,1]>>
    %9 = store_view_tko weak %8, %pview_30[%blockId_x, %cst_0_i32_24] token = %0 : tile<4x128xf32>, partition_view<tile=(4x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
