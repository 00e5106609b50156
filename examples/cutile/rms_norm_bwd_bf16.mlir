cuda_tile.module @rms_norm_bwd_bf16 {
  entry @rms_norm_bwd_bf16(%arg0: tile<ptr<bf16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<bf16>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<ptr<bf16>>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<ptr<f32>>, %arg14: tile<i32>, %arg15: tile<i32>, %arg16: tile<ptr<bf16>>, %arg17: tile<i32>, %arg18: tile<i32>, %arg19: tile<i32>, %arg20: tile<i32>, %arg21: tile<ptr<f32>>, %arg22: tile<i32>, %arg23: tile<i32>, %arg24: tile<i32>, %arg25: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<bf16>>
    %assume_0 = assume div_by<16>, %arg5 : tile<ptr<bf16>>
    %assume_1 = assume div_by<16>, %arg10 : tile<ptr<bf16>>
    %assume_2 = assume div_by<16>, %arg13 : tile<ptr<f32>>
    %assume_3 = assume div_by<16>, %arg16 : tile<ptr<bf16>>
    %assume_4 = assume div_by<16>, %arg21 : tile<ptr<f32>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_5 = constant <i32: 1> : tile<i32>
    %cst_1_i32_6 = constant <i32: 1> : tile<i32>
    %cst_1_i32_7 = constant <i32: 1> : tile<i32>
    %cst_1_i32_8 = constant <i32: 1> : tile<i32>
    %cst_1_i32_9 = constant <i32: 1> : tile<i32>
    %assume_10 = assume bounded<0, ?>, %arg1 : tile<i32>
    %assume_11 = assume bounded<0, ?>, %arg2 : tile<i32>
    %assume_12 = assume bounded<0, ?>, %arg3 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_10, %assume_11], strides = [%assume_12, 1] : tile<i32> -> tensor_view<?x?xbf16, strides=[?,1]>
    %assume_13 = assume bounded<0, ?>, %arg6 : tile<i32>
    %assume_14 = assume bounded<0, ?>, %arg7 : tile<i32>
    %assume_15 = assume bounded<0, ?>, %arg8 : tile<i32>
    %tview_16 = make_tensor_view %assume_0, shape = [%assume_13, %assume_14], strides = [%assume_15, 1] : tile<i32> -> tensor_view<?x?xbf16, strides=[?,1]>
    %assume_17 = assume bounded<0, ?>, %arg11 : tile<i32>
    %tview_18 = make_tensor_view %assume_1, shape = [%assume_17], strides = [1] : tile<i32> -> tensor_view<?xbf16, strides=[1]>
    %assume_19 = assume bounded<0, ?>, %arg14 : tile<i32>
    %tview_20 = make_tensor_view %assume_2, shape = [%assume_19], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %assume_21 = assume bounded<0, ?>, %arg17 : tile<i32>
    %assume_22 = assume bounded<0, ?>, %arg18 : tile<i32>
    %assume_23 = assume bounded<0, ?>, %arg19 : tile<i32>
    %tview_24 = make_tensor_view %assume_3, shape = [%assume_21, %assume_22], strides = [%assume_23, 1] : tile<i32> -> tensor_view<?x?xbf16, strides=[?,1]>
    %assume_25 = assume bounded<0, ?>, %arg22 : tile<i32>
    %assume_26 = assume bounded<0, ?>, %arg23 : tile<i32>
    %assume_27 = assume bounded<0, ?>, %arg24 : tile<i32>
    %tview_28 = make_tensor_view %assume_4, shape = [%assume_25, %assume_26], strides = [%assume_27, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %cst_4_i32 = constant <i32: 4> : tile<i32>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %pview = make_partition_view %tview_18 : partition_view<tile=(4096), tensor_view<?xbf16, strides=[1]>>
    %tile, %result_token = load_view_tko weak %pview[%cst_0_i32] token = %0 : partition_view<tile=(4096), tensor_view<?xbf16, strides=[1]>>, tile<i32> -> tile<4096xbf16>, token
    %1 = ftof %tile  : tile<4096xbf16> -> tile<4096xf32>
    %reshape = reshape %1 : tile<4096xf32> -> tile<1x4096xf32>
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<1x4096xf32>
    %2 = divi %assume_10, %cst_4_i32 signed rounding<positive_inf> : tile<i32>
    %gridSize_x, %gridSize_y, %gridSize_z = get_num_tile_blocks : tile<i32>
    %cst_0_i32_29 = constant <i32: 0> : tile<i32>
    %cst_0_i32_30 = constant <i32: 0> : tile<i32>
    %bcast = broadcast %reshape : tile<1x4096xf32> -> tile<4x4096xf32>
    %cst_f32 = constant <f32: 2.44140625E-4> : tile<f32>
    %reshape_31 = reshape %cst_f32 : tile<f32> -> tile<1x1xf32>
    %bcast_32 = broadcast %reshape_31 : tile<1x1xf32> -> tile<4x1xf32>
    %cst_0_i32_33 = constant <i32: 0> : tile<i32>
    %for = for %loopIdx in (%blockId_x to %2, step %gridSize_x) : tile<i32> iter_values(%iterArg0 = %cst_0_f32) -> (tile<1x4096xf32>) {
      %pview_36 = make_partition_view %tview : partition_view<tile=(4x4096), padding_value = zero, tensor_view<?x?xbf16, strides=[?,1]>>
      %tile_37, %result_token_38 = load_view_tko weak %pview_36[%loopIdx, %cst_0_i32_29] token = %0 : partition_view<tile=(4x4096), padding_value = zero, tensor_view<?x?xbf16, strides=[?,1]>>, tile<i32> -> tile<4x4096xbf16>, token
      %4 = ftof %tile_37  : tile<4x4096xbf16> -> tile<4x4096xf32>
      %pview_39 = make_partition_view %tview_16 : partition_view<tile=(4x4096), padding_value = zero, tensor_view<?x?xbf16, strides=[?,1]>>
      %tile_40, %result_token_41 = load_view_tko weak %pview_39[%loopIdx, %cst_0_i32_30] token = %0 : partition_view<tile=(4x4096), padding_value = zero, tensor_view<?x?xbf16, strides=[?,1]>>, tile<i32> -> tile<4x4096xbf16>, token
      %5 = ftof %tile_40  : tile<4x4096xbf16> -> tile<4x4096xf32>
      %pview_42 = make_partition_view %tview_20 : partition_view<tile=(4), padding_value = zero, tensor_view<?xf32, strides=[1]>>
      %tile_43, %result_token_44 = load_view_tko weak %pview_42[%loopIdx] token = %0 : partition_view<tile=(4), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<4xf32>, token
      %reshape_45 = reshape %tile_43 : tile<4xf32> -> tile<4x1xf32>
      %bcast_46 = broadcast %reshape_45 : tile<4x1xf32> -> tile<4x4096xf32>
      %6 = mulf %5, %bcast_46  : tile<4x4096xf32>
      %7 = mulf %4, %bcast  : tile<4x4096xf32>
      %8 = mulf %6, %7  : tile<4x4096xf32>
      %reduce = reduce %8 dim=1 identities=[0.000000e+00 : f32] : tile<4x4096xf32> -> tile<4xf32> 
      (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
        %17 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
        yield %17 : tile<f32>
      }
      %reshape_47 = reshape %reduce : tile<4xf32> -> tile<4x1xf32>
      %9 = mulf %reshape_47, %bcast_32  : tile<4x1xf32>
      %bcast_48 = broadcast %9 : tile<4x1xf32> -> tile<4x4096xf32>
      %10 = mulf %6, %bcast_48  : tile<4x4096xf32>
      %11 = subf %7, %10  : tile<4x4096xf32>
      %bcast_49 = broadcast %reshape_45 : tile<4x1xf32> -> tile<4x4096xf32>
      %12 = mulf %11, %bcast_49  : tile<4x4096xf32>
      %13 = ftof %12  : tile<4x4096xf32> -> tile<4x4096xbf16>
      %pview_50 = make_partition_view %tview_24 : partition_view<tile=(4x4096), tensor_view<?x?xbf16, strides=[?,1]>>
      %14 = store_view_tko weak %13, %pview_50[%loopIdx, %cst_0_i32_33] token = %0 : tile<4x4096xbf16>, partition_view<tile=(4x4096), tensor_view<?x?xbf16, strides=[?,1]>>, tile<i32> -> token
      %15 = mulf %4, %6  : tile<4x4096xf32>
      %reduce_51 = reduce %15 dim=0 identities=[0.000000e+00 : f32] : tile<4x4096xf32> -> tile<4096xf32> 
      (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
        %17 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
        yield %17 : tile<f32>
      }
      %reshape_52 = reshape %reduce_51 : tile<4096xf32> -> tile<1x4096xf32>
      %16 = addf %iterArg0, %reshape_52  : tile<1x4096xf32>
      continue %16 : tile<1x4096xf32>
    }
    %cst_0_i32_34 = constant <i32: 0> : tile<i32>
    %pview_35 = make_partition_view %tview_28 : partition_view<tile=(1x4096), tensor_view<?x?xf32, strides=[?,1]>>
    %3 = store_view_tko weak %for, %pview_35[%blockId_x, %cst_0_i32_34] token = %0 : tile<1x4096xf32>, partition_view<tile=(1x4096), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
