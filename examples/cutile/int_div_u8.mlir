cuda_tile.module @int_div_u8 {
  entry @int_div_u8(%arg0: tile<ptr<i8>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<i8>>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<ptr<i8>>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<ptr<i16>>, %arg10: tile<i32>, %arg11: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<i8>>
    %assume_0 = assume div_by<16>, %arg3 : tile<ptr<i8>>
    %assume_1 = assume div_by<16>, %arg6 : tile<ptr<i8>>
    %assume_2 = assume div_by<16>, %arg9 : tile<ptr<i16>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_3 = constant <i32: 1> : tile<i32>
    %cst_1_i32_4 = constant <i32: 1> : tile<i32>
    %cst_1_i32_5 = constant <i32: 1> : tile<i32>
    %cst_1_i32_6 = constant <i32: 1> : tile<256xi32>
    %cst_100_i32 = constant <i32: 100> : tile<256xi32>
    %assume_7 = assume bounded<0, ?>, %arg1 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_7], strides = [1] : tile<i32> -> tensor_view<?xi8, strides=[1]>
    %assume_8 = assume bounded<0, ?>, %arg4 : tile<i32>
    %tview_9 = make_tensor_view %assume_0, shape = [%assume_8], strides = [1] : tile<i32> -> tensor_view<?xi8, strides=[1]>
    %assume_10 = assume bounded<0, ?>, %arg7 : tile<i32>
    %tview_11 = make_tensor_view %assume_1, shape = [%assume_10], strides = [1] : tile<i32> -> tensor_view<?xi8, strides=[1]>
    %assume_12 = assume bounded<0, ?>, %arg10 : tile<i32>
    %tview_13 = make_tensor_view %assume_2, shape = [%assume_12], strides = [1] : tile<i32> -> tensor_view<?xi16, strides=[1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %pview = make_partition_view %tview : partition_view<tile=(256), tensor_view<?xi8, strides=[1]>>
    %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(256), tensor_view<?xi8, strides=[1]>>, tile<i32> -> tile<256xi8>, token
    %1 = exti %tile unsigned : tile<256xi8> -> tile<256xi32>
    %pview_14 = make_partition_view %tview_9 : partition_view<tile=(256), tensor_view<?xi8, strides=[1]>>
    %tile_15, %result_token_16 = load_view_tko weak %pview_14[%blockId_x] token = %0 : partition_view<tile=(256), tensor_view<?xi8, strides=[1]>>, tile<i32> -> tile<256xi8>, token
    %2 = exti %tile_15 unsigned : tile<256xi8> -> tile<256xi32>
    %3 = addi %2, %cst_1_i32_6 : tile<256xi32>
    %4 = divi %1, %3 signed rounding<negative_inf> : tile<256xi32>
    %5 = trunci %4 : tile<256xi32> -> tile<256xi8>
    %pview_17 = make_partition_view %tview_11 : partition_view<tile=(256), tensor_view<?xi8, strides=[1]>>
    %6 = store_view_tko weak %5, %pview_17[%blockId_x] token = %0 : tile<256xi8>, partition_view<tile=(256), tensor_view<?xi8, strides=[1]>>, tile<i32> -> token
    %7 = subi %1, %cst_100_i32 : tile<256xi32>
    %8 = remi %7, %3 signed : tile<256xi32>
    %cst_0_i32 = constant <i32: 0> : tile<256xi32>
    %9 = cmpi less_than %8, %cst_0_i32, signed : tile<256xi32> -> tile<256xi1>
    %10 = cmpi less_than %3, %cst_0_i32, signed : tile<256xi32> -> tile<256xi1>
    %11 = xori %9, %10 : tile<256xi1>
    %12 = cmpi not_equal %8, %cst_0_i32, signed : tile<256xi32> -> tile<256xi1>
    %13 = andi %11, %12 : tile<256xi1>
    %14 = addi %8, %3 : tile<256xi32>
    %15 = select %13, %14, %8 : tile<256xi1>, tile<256xi32>
    %16 = trunci %15 : tile<256xi32> -> tile<256xi16>
    %pview_18 = make_partition_view %tview_13 : partition_view<tile=(256), tensor_view<?xi16, strides=[1]>>
    %17 = store_view_tko weak %16, %pview_18[%blockId_x] token = %0 : tile<256xi16>, partition_view<tile=(256), tensor_view<?xi16, strides=[1]>>, tile<i32> -> token
    return
  }
}
