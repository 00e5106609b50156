cuda_tile.module @matmul_tf32_cast {
  entry @matmul_tf32_cast(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f32>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<ptr<f32>>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<i32>, %arg15: tile<ptr<f32>>, %arg16: tile<i32>, %arg17: tile<i32>, %arg18: tile<i32>, %arg19: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
    %assume_0 = assume div_by<16>, %arg5 : tile<ptr<f32>>
    %assume_1 = assume div_by<16>, %arg10 : tile<ptr<f32>>
    %assume_2 = assume div_by<16>, %arg15 : tile<ptr<f32>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_3 = constant <i32: 1> : tile<i32>
    %cst_1_i32_4 = constant <i32: 1> : tile<i32>
    %cst_1_i32_5 = constant <i32: 1> : tile<i32>
    %assume_6 = assume bounded<0, ?>, %arg1 : tile<i32>
    %assume_7 = assume bounded<0, ?>, %arg2 : tile<i32>
    %assume_8 = assume bounded<0, ?>, %arg3 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_6, %assume_7], strides = [%assume_8, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %assume_9 = assume bounded<0, ?>, %arg6 : tile<i32>
    %assume_10 = assume bounded<0, ?>, %arg7 : tile<i32>
    %assume_11 = assume bounded<0, ?>, %arg8 : tile<i32>
    %tview_12 = make_tensor_view %assume_0, shape = [%assume_9, %assume_10], strides = [%assume_11, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %assume_13 = assume bounded<0, ?>, %arg11 : tile<i32>
    %assume_14 = assume bounded<0, ?>, %arg12 : tile<i32>
    %assume_15 = assume bounded<0, ?>, %arg13 : tile<i32>
    %tview_16 = make_tensor_view %assume_1, shape = [%assume_13, %assume_14], strides = [%assume_15, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %assume_17 = assume bounded<0, ?>, %arg16 : tile<i32>
    %assume_18 = assume bounded<0, ?>, %arg17 : tile<i32>
    %assume_19 = assume bounded<0, ?>, %arg18 : tile<i32>
    %tview_20 = make_tensor_view %assume_2, shape = [%assume_17, %assume_18], strides = [%assume_19, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %pview = make_partition_view %tview : partition_view<tile=(32x32), tensor_view<?x?xf32, strides=[?,1]>>
    %tile, %result_token = load_view_tko weak %pview[%blockId_x, %cst_0_i32] token = %0 : partition_view<tile=(32x32), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<32x32xf32>, token
    %cst_0_i32_21 = constant <i32: 0> : tile<i32>
    %cst_0_i32_22 = constant <i32: 0> : tile<i32>
    %pview_23 = make_partition_view %tview_12 : partition_view<tile=(32x32), tensor_view<?x?xf32, strides=[?,1]>>
    %tile_24, %result_token_25 = load_view_tko weak %pview_23[%cst_0_i32_21, %cst_0_i32_22] token = %0 : partition_view<tile=(32x32), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<32x32xf32>, token
    %1 = ftof %tile  : tile<32x32xf32> -> tile<32x32xtf32>
    %2 = ftof %tile_24  : tile<32x32xf32> -> tile<32x32xtf32>
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<32x32xf32>
    %3 = mmaf %1, %2, %cst_0_f32 : tile<32x32xtf32>, tile<32x32xtf32>, tile<32x32xf32>
    %4 = ftof %3  : tile<32x32xf32> -> tile<32x32xtf32>
    %5 = ftof %4  : tile<32x32xtf32> -> tile<32x32xf32>
    %cst_0_i32_26 = constant <i32: 0> : tile<i32>
    %pview_27 = make_partition_view %tview_16 : partition_view<tile=(32x32), tensor_view<?x?xf32, strides=[?,1]>>
    %6 = store_view_tko weak %5, %pview_27[%blockId_x, %cst_0_i32_26] token = %0 : tile<32x32xf32>, partition_view<tile=(32x32), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    %cst_0_i32_28 = constant <i32: 0> : tile<i32>
    %7 = ftof %5  : tile<32x32xf32> -> tile<32x32xbf16>
    %8 = ftof %tile_24  : tile<32x32xf32> -> tile<32x32xbf16>
    %cst_0_f32_29 = constant <f32: 0.000000e+00> : tile<32x32xf32>
    %9 = mmaf %7, %8, %cst_0_f32_29 : tile<32x32xbf16>, tile<32x32xbf16>, tile<32x32xf32>
    %10 = ftof %9  : tile<32x32xf32> -> tile<32x32xbf16>
    %11 = ftof %10  : tile<32x32xbf16> -> tile<32x32xf32>
    %pview_30 = make_partition_view %tview_20 : partition_view<tile=(32x32), tensor_view<?x?xf32, strides=[?,1]>>
    %12 = store_view_tko weak %11, %pview_30[%blockId_x, %cst_0_i32_28] token = %0 : tile<32x32xf32>, partition_view<tile=(32x32), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
