cuda_tile.module @bits_i32 {
  entry @bits_i32(%arg0: tile<ptr<i32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<i32>>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<ptr<i32>>, %arg7: tile<i32>, %arg8: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<i32>>
    %assume_0 = assume div_by<16>, %arg3 : tile<ptr<i32>>
    %assume_1 = assume div_by<16>, %arg6 : tile<ptr<i32>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_2 = constant <i32: 1> : tile<i32>
    %cst_1_i32_3 = constant <i32: 1> : tile<i32>
    %cst_2_i32 = constant <i32: 2> : tile<256xi32>
    %cst_1_i32_4 = constant <i32: 1> : tile<256xi32>
    %cst_1000_i32 = constant <i32: 1000> : tile<256xi32>
    %assume_5 = assume bounded<0, ?>, %arg1 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_5], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %assume_6 = assume bounded<0, ?>, %arg4 : tile<i32>
    %tview_7 = make_tensor_view %assume_0, shape = [%assume_6], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %assume_8 = assume bounded<0, ?>, %arg7 : tile<i32>
    %tview_9 = make_tensor_view %assume_1, shape = [%assume_8], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %pview = make_partition_view %tview : partition_view<tile=(256), tensor_view<?xi32, strides=[1]>>
    %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(256), tensor_view<?xi32, strides=[1]>>, tile<i32> -> tile<256xi32>, token
    %pview_10 = make_partition_view %tview_7 : partition_view<tile=(256), tensor_view<?xi32, strides=[1]>>
    %tile_11, %result_token_12 = load_view_tko weak %pview_10[%blockId_x] token = %0 : partition_view<tile=(256), tensor_view<?xi32, strides=[1]>>, tile<i32> -> tile<256xi32>, token
    %1 = cmpi greater_than %tile, %tile_11, signed : tile<256xi32> -> tile<256xi1>
    %2 = xori %tile, %tile_11 : tile<256xi32>
    %3 = shli %2, %cst_2_i32 : tile<256xi32>
    %4 = andi %tile, %tile_11 : tile<256xi32>
    %5 = shri %tile_11, %cst_1_i32_4 signed : tile<256xi32>
    %6 = ori %4, %5 : tile<256xi32>
    %7 = select %1, %3, %6 : tile<256xi1>, tile<256xi32>
    %8 = remi %7, %cst_1000_i32 signed : tile<256xi32>
    %cst_0_i32 = constant <i32: 0> : tile<256xi32>
    %9 = cmpi less_than %8, %cst_0_i32, signed : tile<256xi32> -> tile<256xi1>
    %10 = cmpi less_than %cst_1000_i32, %cst_0_i32, signed : tile<256xi32> -> tile<256xi1>
    %11 = xori %9, %10 : tile<256xi1>
    %12 = cmpi not_equal %8, %cst_0_i32, signed : tile<256xi32> -> tile<256xi1>
    %13 = andi %11, %12 : tile<256xi1>
    %14 = addi %8, %cst_1000_i32 : tile<256xi32>
    %15 = select %13, %14, %8 : tile<256xi1>, tile<256xi32>
    %16 = subi %tile, %tile_11 : tile<256xi32>
    %17 = absi %16 : tile<256xi32>
    %18 = addi %15, %17 : tile<256xi32>
    %pview_13 = make_partition_view %tview_9 : partition_view<tile=(256), tensor_view<?xi32, strides=[1]>>
    %19 = store_view_tko weak %18, %pview_13[%blockId_x] token = %0 : tile<256xi32>, partition_view<tile=(256), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}
