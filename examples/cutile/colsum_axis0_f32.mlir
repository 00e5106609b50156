cuda_tile.module @colsum_axis0_f32 {
  entry @colsum_axis0_f32(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f32>>, %arg6: tile<i32>, %arg7: tile<i32>) optimization_hints=<sm_90 = {}> {
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
    %tview_6 = make_tensor_view %assume_0, shape = [%assume_5], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %pview = make_partition_view %tview : partition_view<tile=(64x32), tensor_view<?x?xf32, strides=[?,1]>>
    %tile, %result_token = load_view_tko weak %pview[%cst_0_i32, %blockId_x] token = %0 : partition_view<tile=(64x32), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<64x32xf32>, token
    %reduce = reduce %tile dim=0 identities=[0.000000e+00 : f32] : tile<64x32xf32> -> tile<32xf32> 
    (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
      %3 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
      yield %3 : tile<f32>
    }
    %reduce_7 = reduce %tile dim=0 identities=[0x7F800000 : f32] : tile<64x32xf32> -> tile<32xf32> 
    (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
      %3 = minf %reduce_lhs, %reduce_rhs : tile<f32>
      yield %3 : tile<f32>
    }
    %1 = addf %reduce, %reduce_7  : tile<32xf32>
    %pview_8 = make_partition_view %tview_6 : partition_view<tile=(32), tensor_view<?xf32, strides=[1]>>
    %2 = store_view_tko weak %1, %pview_8[%blockId_x] token = %0 : tile<32xf32>, partition_view<tile=(32), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
