cuda_tile.module @rms_norm_bwd_bf16 {
  entry @rms_norm_bwd_bf16(%arg0: tile<ptr<bf16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<bf16>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<ptr<bf16>>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<ptr<f32>>, %arg14: tile<i32>, %arg15: tile<i32>, %arg16: tile<ptr<bf16>>, %arg17: tile<i32>, %arg18: tile<i32>, %arg19: tile<i32>, %arg20: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<bf16>>
    %assume_0 = assume div_by<16>, %arg5 : tile<ptr<bf16>>
    %assume_1 = assume div_by<16>, %arg10 : tile<ptr<bf16>>
    %assume_2 = assume div_by<16>, %arg13 : tile<ptr<f32>>
    %assume_3 = assume div_by<16>, %arg16 : tile<ptr<bf16>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_4 = constant <i32: 1> : tile<i32>
    %cst_1_i32_5 = constant <i32: 1> : tile<i32>
    %cst_1_i32_6 = constant <i32: 1> : tile<i32>
    %cst_1_i32_7 = constant <i32: 1> : tile<i32>
    %assume_8 = assume bounded<0, ?>, %arg1 : tile<i32>
    %assume_9 = assume bounded<0, ?>, %arg2 : tile<i32>
    %assume_10 = assume bounded<0, ?>, %arg3 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_8, %assume_9], strides = [%assume_10, 1] : tile<i32> -> tensor_view<?x?xbf16, strides=[?,1]>
    %assume_11 = assume bounded<0, ?>, %arg6 : tile<i32>
    %assume_12 = assume bounded<0, ?>, %arg7 : tile<i32>
    %assume_13 = assume bounded<0, ?>, %arg8 : tile<i32>
    %tview_14 = make_tensor_view %assume_0, shape = [%assume_11, %assume_12], strides = [%assume_13, 1] : tile<i32> -> tensor_view<?x?xbf16, strides=[?,1]>
    %assume_15 = assume bounded<0, ?>, %arg11 : tile<i32>
    %tview_16 = make_tensor_view %assume_1, shape = [%assume_15], strides = [1] : tile<i32> -> tensor_view<?xbf16, strides=[1]>
    %assume_17 = assume bounded<0, ?>, %arg14 : tile<i32>
    %tview_18 = make_tensor_view %assume_2, shape = [%assume_17], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %assume_19 = assume bounded<0, ?>, %arg17 : tile<i32>
    %assume_20 = assume bounded<0, ?>, %arg18 : tile<i32>
    %assume_21 = assume bounded<0, ?>, %arg19 : tile<i32>
    %tview_22 = make_tensor_view %assume_3, shape = [%assume_19, %assume_20], strides = [%assume_21, 1] : tile<i32> -> tensor_view<?x?xbf16, strides=[?,1]>
    %cst_4_i32 = constant <i32: 4> : tile<i32>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %pview = make_partition_view %tview_16 : partition_view<tile=(4096), tensor_view<?xbf16, strides=[1]>>
    %tile, %result_token = load_view_tko weak %pview[%cst_0_i32] token = %0 : partition_view<tile=(4096), tensor_view<?xbf16, strides=[1]>>, tile<i32> -> tile<4096xbf16>, token
    %1 = ftof %tile  : tile<4096xbf16> -> tile<4096xf32>
    %reshape = reshape %1 : tile<4096xf32> -> tile<1x4096xf32>
    %2 = divi %assume_8, %cst_4_i32 signed rounding<positive_inf> : tile<i32>
    %gridSize_x, %gridSize_y, %gridSize_z = get_num_tile_blocks : tile<i32>
    %cst_0_i32_23 = constant <i32: 0> : tile<i32>
    %cst_0_i32_24 = constant <i32: 0> : tile<i32>
    %bcast = broadcast %reshape : tile<1x4096xf32> -> tile<4x4096xf32>
    %cst_f32 = constant <f32: 2.44140625E-4> : tile<f32>
    %reshape_25 = reshape %cst_f32 : tile<f32> -> tile<1x1xf32>
    %bcast_26 = broadcast %reshape_25 : tile<1x1xf32> -> tile<4x1xf32>
    %cst_0_i32_27 = constant <i32: 0> : tile<i32>
    for %loopIdx in (%blockId_x to %2, step %gridSize_x) : tile<i32> {
      %pview_28 = make_partition_view %tview : partition_view<tile=(4x4096), padding_value = zero, tensor_view<?x?xbf16, strides=[?,1]>>
      %tile_29, %result_token_30 = load_view_tko weak %pview_28[%loopIdx, %cst_0_i32_23] token = %0 : partition_view<tile=(4x4096), padding_value = zero, tensor_view<?x?xbf16, strides=[?,1]>>, tile<i32> -> tile<4x4096xbf16>, token
      %3 = ftof %tile_29  : tile<4x4096xbf16> -> tile<4x4096xf32>
      %pview_31 = make_partition_view %tview_14 : partition_view<tile=(4x4096), padding_value = zero, tensor_view<?x?xbf16, strides=[?,1]>>
      %tile_32, %result_token_33 = load_view_tko weak %pview_31[%loopIdx, %cst_0_i32_24] token = %0 : partition_view<tile=(4x4096), padding_value = zero, tensor_view<?x?xbf16, strides=[?,1]>>, tile<i32> -> tile<4x4096xbf16>, token
      %4 = ftof %tile_32  : tile<4x4096xbf16> -> tile<4x4096xf32>
      %pview_34 = make_partition_view %tview_18 : partition_view<tile=(4), padding_value = zero, tensor_view<?xf32, strides=[1]>>
      %tile_35, %result_token_36 = load_view_tko weak %pview_34[%loopIdx] token = %0 : partition_view<tile=(4), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<4xf32>, token
      %reshape_37 = reshape %tile_35 : tile<4xf32> -> tile<4x1xf32>
      %bcast_38 = broadcast %reshape_37 : tile<4x1xf32> -> tile<4x4096xf32>
      %5 = mulf %4, %bcast_38  : tile<4x4096xf32>
      %6 = mulf %3, %bcast  : tile<4x4096xf32>
      %7 = mulf %5, %6  : tile<4x4096xf32>
      %reduce = reduce %7 dim=1 identities=[0.000000e+00 : f32] : tile<4x4096xf32> -> tile<4xf32> 
      (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
        %14 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
        yield %14 : tile<f32>
      }
      %reshape_39 = reshape %reduce : tile<4xf32> -> tile<4x1xf32>
      %8 = mulf %reshape_39, %bcast_26  : tile<4x1xf32>
      %bcast_40 = broadcast %8 : tile<4x1xf32> -> tile<4x4096xf32>
      %9 = mulf %5, %bcast_40  : tile<4x4096xf32>
      %10 = subf %6, %9  : tile<4x4096xf32>
      %bcast_41 = broadcast %reshape_37 : tile<4x1xf32> -> tile<4x4096xf32>
      %11 = mulf %10, %bcast_41  : tile<4x4096xf32>
      %12 = ftof %11  : tile<4x4096xf32> -> tile<4x4096xbf16>
      %pview_42 = make_partition_view %tview_22 : partition_view<tile=(4x4096), tensor_view<?x?xbf16, strides=[?,1]>>
      %13 = store_view_tko weak %12, %pview_42[%loopIdx, %cst_0_i32_27] token = %0 : tile<4x4096xbf16>, partition_view<tile=(4x4096), tensor_view<?x?xbf16, strides=[?,1]>>, tile<i32> -> token
    }
    return
  }
}
