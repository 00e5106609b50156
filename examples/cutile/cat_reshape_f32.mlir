cuda_tile.module @cat_reshape_f32 {
  entry @cat_reshape_f32(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f32>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>) optimization_hints=<sm_90 = {}> {
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
    %pview = make_partition_view %tview : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>
    %tile, %result_token = load_view_tko weak %pview[%blockId_x, %cst_0_i32] token = %0 : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<16x16xf32>, token
    %cst_2_f32 = constant <f32: 2.000000e+00> : tile<f32>
    %reshape = reshape %cst_2_f32 : tile<f32> -> tile<1x1xf32>
    %bcast = broadcast %reshape : tile<1x1xf32> -> tile<16x16xf32>
    %1 = mulf %tile, %bcast  : tile<16x16xf32>
    %2 = cat %tile, %1 dim = 1 : tile<16x16xf32>, tile<16x16xf32> -> tile<16x32xf32>
    %reshape_9 = reshape %2 : tile<16x32xf32> -> tile<32x16xf32>
    %cst_0_i32_10 = constant <i32: 0> : tile<i32>
    %3 = exp2 %reshape_9 : tile<32x16xf32>
    %reduce = reduce %reshape_9 dim=0 identities=[0xFF800000 : f32] : tile<32x16xf32> -> tile<16xf32> 
    (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
      %6 = maxf %reduce_lhs, %reduce_rhs : tile<f32>
      yield %6 : tile<f32>
    }
    %reshape_11 = reshape %reduce : tile<16xf32> -> tile<1x16xf32>
    %bcast_12 = broadcast %reshape_11 : tile<1x16xf32> -> tile<32x16xf32>
    %4 = addf %3, %bcast_12  : tile<32x16xf32>
    %pview_13 = make_partition_view %tview_8 : partition_view<tile=(32x16), tensor_view<?x?xf32, strides=[?,1]>>
    %5 = store_view_tko weak %4, %pview_13[%blockId_x, %cst_0_i32_10] token = %0 : tile<32x16xf32>, partition_view<tile=(32x16), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
