cuda_tile.module @grid_stride_i32 {
  entry @grid_stride_i32(%arg0: tile<ptr<i32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<i32>>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<i32>>
    %assume_0 = assume div_by<16>, %arg3 : tile<ptr<i32>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_1 = constant <i32: 1> : tile<i32>
    %cst_1_i32_2 = constant <i32: 1> : tile<256xi32>
    %cst_255_i32 = constant <i32: 255> : tile<256xi32>
    %assume_3 = assume bounded<0, ?>, %arg1 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_3], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %assume_4 = assume bounded<0, ?>, %arg4 : tile<i32>
    %tview_5 = make_tensor_view %assume_0, shape = [%assume_4], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %gridSize_x, %gridSize_y, %gridSize_z = get_num_tile_blocks : tile<i32>
    %1:2 = loop iter_values(%arg7 = %blockId_x, %arg8 = %0) : tile<i32>, token -> tile<i32>, token {
      %2 = cmpi less_than %arg7, %arg6, signed : tile<i32> -> tile<i1>
      if %2 {
      } else {
        break %arg7, %arg8 : tile<i32>, token
      }
      %pview = make_partition_view %tview : partition_view<tile=(256), tensor_view<?xi32, strides=[1]>>
      %tile, %result_token = load_view_tko weak %pview[%arg7] token = %0 : partition_view<tile=(256), tensor_view<?xi32, strides=[1]>>, tile<i32> -> tile<256xi32>, token
      %3 = shli %tile, %cst_1_i32_2 : tile<256xi32>
      %4 = andi %tile, %cst_255_i32 : tile<256xi32>
      %5 = xori %3, %4 : tile<256xi32>
      %pview_6 = make_partition_view %tview_5 : partition_view<tile=(256), tensor_view<?xi32, strides=[1]>>
      %6 = store_view_tko weak %5, %pview_6[%arg7] token = %arg8 : tile<256xi32>, partition_view<tile=(256), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
      %7 = addi %arg7, %gridSize_x : tile<i32>
      continue %7, %6 : tile<i32>, token
    }
    return
  }
}
