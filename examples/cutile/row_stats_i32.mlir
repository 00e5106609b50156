cuda_tile.module @row_stats_i32 {
  entry @row_stats_i32(%arg0: tile<ptr<i32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<i32>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<ptr<i32>>, %arg9: tile<i32>, %arg10: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<i32>>
    %assume_0 = assume div_by<16>, %arg5 : tile<ptr<i32>>
    %assume_1 = assume div_by<16>, %arg8 : tile<ptr<i32>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_2 = constant <i32: 1> : tile<i32>
    %cst_1_i32_3 = constant <i32: 1> : tile<i32>
    %assume_4 = assume bounded<0, ?>, %arg1 : tile<i32>
    %assume_5 = assume bounded<0, ?>, %arg2 : tile<i32>
    %assume_6 = assume bounded<0, ?>, %arg3 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_4, %assume_5], strides = [%assume_6, 1] : tile<i32> -> tensor_view<?x?xi32, strides=[?,1]>
    %assume_7 = assume bounded<0, ?>, %arg6 : tile<i32>
    %tview_8 = make_tensor_view %assume_0, shape = [%assume_7], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %assume_9 = assume bounded<0, ?>, %arg9 : tile<i32>
    %tview_10 = make_tensor_view %assume_1, shape = [%assume_9], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %pview = make_partition_view %tview : partition_view<tile=(8x64), tensor_view<?x?xi32, strides=[?,1]>>
    %tile, %result_token = load_view_tko weak %pview[%blockId_x, %cst_0_i32] token = %0 : partition_view<tile=(8x64), tensor_view<?x?xi32, strides=[?,1]>>, tile<i32> -> tile<8x64xi32>, token
    %reduce = reduce %tile dim=1 identities=[0 : i32] : tile<8x64xi32> -> tile<8xi32> 
    (%reduce_lhs: tile<i32>, %reduce_rhs: tile<i32>) {
      %3 = addi %reduce_lhs, %reduce_rhs : tile<i32>
      yield %3 : tile<i32>
    }
    %pview_11 = make_partition_view %tview_8 : partition_view<tile=(8), tensor_view<?xi32, strides=[1]>>
    %1 = store_view_tko weak %reduce, %pview_11[%blockId_x] token = %0 : tile<8xi32>, partition_view<tile=(8), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
    %reduce_12 = reduce %tile dim=1 identities=[2147483647 : i32] : tile<8x64xi32> -> tile<8xi32> 
    (%reduce_lhs: tile<i32>, %reduce_rhs: tile<i32>) {
      %3 = mini %reduce_lhs, %reduce_rhs signed : tile<i32>
      yield %3 : tile<i32>
    }
    %pview_13 = make_partition_view %tview_10 : partition_view<tile=(8), tensor_view<?xi32, strides=[1]>>
    %2 = store_view_tko weak %reduce_12, %pview_13[%blockId_x] token = %0 : tile<8xi32>, partition_view<tile=(8), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}
