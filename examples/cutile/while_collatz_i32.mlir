cuda_tile.module @while_collatz_i32 {
  entry @while_collatz_i32(%arg0: tile<ptr<i32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<i32>>, %arg4: tile<i32>, %arg5: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<i32>>
    %assume_0 = assume div_by<16>, %arg3 : tile<ptr<i32>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_1 = constant <i32: 1> : tile<i32>
    %cst_2_i32 = constant <i32: 2> : tile<128xi32>
    %cst_1_i32_2 = constant <i32: 1> : tile<128xi32>
    %cst_1_i32_3 = constant <i32: 1> : tile<128xi32>
    %cst_3_i32 = constant <i32: 3> : tile<128xi32>
    %cst_1_i32_4 = constant <i32: 1> : tile<128xi32>
    %cst_2_i32_5 = constant <i32: 2> : tile<128xi32>
    %cst_1_i32_6 = constant <i32: 1> : tile<128xi32>
    %cst_0_i32 = constant <i32: 0> : tile<128xi32>
    %cst_1_i32_7 = constant <i32: 1> : tile<128xi32>
    %assume_8 = assume bounded<0, ?>, %arg1 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_8], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %assume_9 = assume bounded<0, ?>, %arg4 : tile<i32>
    %tview_10 = make_tensor_view %assume_0, shape = [%assume_9], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %pview = make_partition_view %tview : partition_view<tile=(128), tensor_view<?xi32, strides=[1]>>
    %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(128), tensor_view<?xi32, strides=[1]>>, tile<i32> -> tile<128xi32>, token
    %cst_0_i32_11 = constant <i32: 0> : tile<128xi32>
    %cst_0_i32_12 = constant <i32: 0> : tile<i32>
    %cst_64_i32 = constant <i32: 64> : tile<i32>
    %cst_0_i32_13 = constant <i32: 0> : tile<128xi32>
    %1 = cmpi less_than %cst_2_i32, %cst_0_i32_13, signed : tile<128xi32> -> tile<128xi1>
    %cst_1_i32_14 = constant <i32: 1> : tile<i32>
    %2:3 = loop iter_values(%arg6 = %cst_0_i32_12, %arg7 = %tile, %arg8 = %cst_0_i32_11) : tile<i32>, tile<128xi32>, tile<128xi32> -> tile<i32>, tile<128xi32>, tile<128xi32> {
      %4 = cmpi less_than %arg6, %cst_64_i32, signed : tile<i32> -> tile<i1>
      if %4 {
      } else {
        break %arg6, %arg7, %arg8 : tile<i32>, tile<128xi32>, tile<128xi32>
      }
      %5 = remi %arg7, %cst_2_i32 signed : tile<128xi32>
      %6 = cmpi less_than %5, %cst_0_i32_13, signed : tile<128xi32> -> tile<128xi1>
      %7 = xori %6, %1 : tile<128xi1>
      %8 = cmpi not_equal %5, %cst_0_i32_13, signed : tile<128xi32> -> tile<128xi1>
      %9 = andi %7, %8 : tile<128xi1>
      %10 = addi %5, %cst_2_i32 : tile<128xi32>
      %11 = select %9, %10, %5 : tile<128xi1>, tile<128xi32>
      %12 = cmpi equal %11, %cst_1_i32_2, signed : tile<128xi32> -> tile<128xi1>
      %13 = cmpi equal %arg7, %cst_1_i32_3, signed : tile<128xi32> -> tile<128xi1>
      %14 = muli %cst_3_i32, %arg7 : tile<128xi32>
      %15 = addi %14, %cst_1_i32_4 : tile<128xi32>
      %16 = divi %arg7, %cst_2_i32_5 signed rounding<negative_inf> : tile<128xi32>
      %17 = select %12, %15, %16 : tile<128xi1>, tile<128xi32>
      %18 = select %13, %arg7, %17 : tile<128xi1>, tile<128xi32>
      %19 = cmpi equal %18, %cst_1_i32_6, signed : tile<128xi32> -> tile<128xi1>
      %20 = select %19, %cst_0_i32, %cst_1_i32_7 : tile<128xi1>, tile<128xi32>
      %21 = addi %arg8, %20 : tile<128xi32>
      %22 = addi %arg6, %cst_1_i32_14 : tile<i32>
      continue %22, %18, %21 : tile<i32>, tile<128xi32>, tile<128xi32>
    }
    %pview_15 = make_partition_view %tview_10 : partition_view<tile=(128), tensor_view<?xi32, strides=[1]>>
    %3 = store_view_tko weak %2#2, %pview_15[%blockId_x] token = %0 : tile<128xi32>, partition_view<tile=(128), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}
