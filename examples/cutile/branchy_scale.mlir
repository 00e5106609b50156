cuda_tile.module @branchy_scale {
  entry @branchy_scale(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<f32>>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
    %assume_0 = assume div_by<16>, %arg3 : tile<ptr<f32>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_1 = constant <i32: 1> : tile<i32>
    %assume_2 = assume bounded<0, ?>, %arg1 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_2], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %assume_3 = assume bounded<0, ?>, %arg4 : tile<i32>
    %tview_4 = make_tensor_view %assume_0, shape = [%assume_3], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %cst_128_i32 = constant <i32: 128> : tile<i32>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %pview = make_partition_view %tview : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
    %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %1 = muli %blockId_x, %cst_128_i32 : tile<i32>
    %2 = addi %1, %cst_128_i32 : tile<i32>
    %3 = cmpi less_than_or_equal %2, %arg6, signed : tile<i32> -> tile<i1>
    %4 = if %3 -> (tile<128xf32>) {
      %cst_2_f32 = constant <f32: 2.000000e+00> : tile<f32>
      %reshape = reshape %cst_2_f32 : tile<f32> -> tile<1xf32>
      %bcast = broadcast %reshape : tile<1xf32> -> tile<128xf32>
      %6 = mulf %tile, %bcast  : tile<128xf32>
      yield %6 : tile<128xf32>
    } else {
      %cst_1_f32 = constant <f32: 1.000000e+00> : tile<f32>
      %reshape = reshape %cst_1_f32 : tile<f32> -> tile<1xf32>
      %bcast = broadcast %reshape : tile<1xf32> -> tile<128xf32>
      %6 = subf %tile, %bcast  : tile<128xf32>
      yield %6 : tile<128xf32>
    }
    %pview_5 = make_partition_view %tview_4 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
    %5 = store_view_tko weak %4, %pview_5[%blockId_x] token = %0 : tile<128xf32>, partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
