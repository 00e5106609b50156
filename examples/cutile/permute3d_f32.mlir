cuda_tile.module @permute3d_f32 {
  entry @permute3d_f32(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<i32>, %arg7: tile<ptr<f32>>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<i32>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
    %assume_0 = assume div_by<16>, %arg7 : tile<ptr<f32>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_1 = constant <i32: 1> : tile<i32>
    %assume_2 = assume bounded<0, ?>, %arg1 : tile<i32>
    %assume_3 = assume bounded<0, ?>, %arg2 : tile<i32>
    %assume_4 = assume bounded<0, ?>, %arg3 : tile<i32>
    %assume_5 = assume bounded<0, ?>, %arg4 : tile<i32>
    %assume_6 = assume bounded<0, ?>, %arg5 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_2, %assume_3, %assume_4], strides = [%assume_5, %assume_6, 1] : tile<i32> -> tensor_view<?x?x?xf32, strides=[?,?,1]>
    %assume_7 = assume bounded<0, ?>, %arg8 : tile<i32>
    %assume_8 = assume bounded<0, ?>, %arg9 : tile<i32>
    %assume_9 = assume bounded<0, ?>, %arg10 : tile<i32>
    %assume_10 = assume bounded<0, ?>, %arg11 : tile<i32>
    %assume_11 = assume bounded<0, ?>, %arg12 : tile<i32>
    %tview_12 = make_tensor_view %assume_0, shape = [%assume_7, %assume_8, %assume_9], strides = [%assume_10, %assume_11, 1] : tile<i32> -> tensor_view<?x?x?xf32, strides=[?,?,1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %cst_0_i32_13 = constant <i32: 0> : tile<i32>
    %pview = make_partition_view %tview : partition_view<tile=(4x8x16), tensor_view<?x?x?xf32, strides=[?,?,1]>>
    %tile, %result_token = load_view_tko weak %pview[%blockId_x, %cst_0_i32, %cst_0_i32_13] token = %0 : partition_view<tile=(4x8x16), tensor_view<?x?x?xf32, strides=[?,?,1]>>, tile<i32> -> tile<4x8x16xf32>, token
    %cst_0_i32_14 = constant <i32: 0> : tile<i32>
    %cst_0_i32_15 = constant <i32: 0> : tile<i32>
    %1 = permute %tile [2, 1, 0] : tile<4x8x16xf32> -> tile<16x8x4xf32>
    %pview_16 = make_partition_view %tview_12 : partition_view<tile=(16x8x4), tensor_view<?x?x?xf32, strides=[?,?,1]>>
    %2 = store_view_tko weak %1, %pview_16[%cst_0_i32_14, %cst_0_i32_15, %blockId_x] token = %0 : tile<16x8x4xf32>, partition_view<tile=(16x8x4), tensor_view<?x?x?xf32, strides=[?,?,1]>>, tile<i32> -> token
    return
  }
}
