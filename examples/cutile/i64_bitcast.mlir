cuda_tile.module @i64_bitcast {
  entry @i64_bitcast(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<i64>>, %arg4: tile<i32>, %arg5: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
    %assume_0 = assume div_by<16>, %arg3 : tile<ptr<i64>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_1 = constant <i32: 1> : tile<i32>
    %cst_3_i64 = constant <i64: 3> : tile<128xi64>
    %cst_7_i64 = constant <i64: 7> : tile<128xi64>
    %assume_2 = assume bounded<0, ?>, %arg1 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_2], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %assume_3 = assume bounded<0, ?>, %arg4 : tile<i32>
    %tview_4 = make_tensor_view %assume_0, shape = [%assume_3], strides = [1] : tile<i32> -> tensor_view<?xi64, strides=[1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %pview = make_partition_view %tview : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
    %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %1 = bitcast %tile : tile<128xf32> -> tile<128xi32>
    %2 = exti %1 signed : tile<128xi32> -> tile<128xi64>
    %3 = muli %2, %cst_3_i64 : tile<128xi64>
    %4 = exti %1 signed : tile<128xi32> -> tile<128xi64>
    %5 = shri %4, %cst_7_i64 signed : tile<128xi64>
    %6 = addi %3, %5 : tile<128xi64>
    %pview_5 = make_partition_view %tview_4 : partition_view<tile=(128), tensor_view<?xi64, strides=[1]>>
    %7 = store_view_tko weak %6, %pview_5[%blockId_x] token = %0 : tile<128xi64>, partition_view<tile=(128), tensor_view<?xi64, strides=[1]>>, tile<i32> -> token
    return
  }
}
