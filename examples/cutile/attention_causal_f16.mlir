cuda_tile.module @attention_causal_f16 {
  entry @attention_causal_f16(%arg0: tile<ptr<f16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<i32>, %arg7: tile<ptr<f16>>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<i32>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<ptr<f16>>, %arg15: tile<i32>, %arg16: tile<i32>, %arg17: tile<i32>, %arg18: tile<i32>, %arg19: tile<i32>, %arg20: tile<i32>, %arg21: tile<ptr<f16>>, %arg22: tile<i32>, %arg23: tile<i32>, %arg24: tile<i32>, %arg25: tile<i32>, %arg26: tile<i32>, %arg27: tile<i32>, %arg28: tile<f32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f16>>
    %assume_0 = assume div_by<16>, %arg7 : tile<ptr<f16>>
    %assume_1 = assume div_by<16>, %arg14 : tile<ptr<f16>>
    %assume_2 = assume div_by<16>, %arg21 : tile<ptr<f16>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_3 = constant <i32: 1> : tile<i32>
    %cst_1_i32_4 = constant <i32: 1> : tile<i32>
    %cst_1_i32_5 = constant <i32: 1> : tile<i32>
    %assume_6 = assume bounded<0, ?>, %arg1 : tile<i32>
    %assume_7 = assume bounded<0, ?>, %arg2 : tile<i32>
    %assume_8 = assume bounded<0, ?>, %arg3 : tile<i32>
    %assume_9 = assume bounded<0, ?>, %arg4 : tile<i32>
    %assume_10 = assume bounded<0, ?>, %arg5 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_6, %assume_7, %assume_8], strides = [%assume_9, %assume_10, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %assume_11 = assume bounded<0, ?>, %arg8 : tile<i32>
    %assume_12 = assume bounded<0, ?>, %arg9 : tile<i32>
    %assume_13 = assume bounded<0, ?>, %arg10 : tile<i32>
    %assume_14 = assume bounded<0, ?>, %arg11 : tile<i32>
    %assume_15 = assume bounded<0, ?>, %arg12 : tile<i32>
    %tview_16 = make_tensor_view %assume_0, shape = [%assume_11, %assume_12, %assume_13], strides = [%assume_14, %assume_15, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %assume_17 = assume bounded<0, ?>, %arg15 : tile<i32>
    %assume_18 = assume bounded<0, ?>, %arg16 : tile<i32>
    %assume_19 = assume bounded<0, ?>, %arg17 : tile<i32>
    %assume_20 = assume bounded<0, ?>, %arg18 : tile<i32>
    %assume_21 = assume bounded<0, ?>, %arg19 : tile<i32>
    %tview_22 = make_tensor_view %assume_1, shape = [%assume_17, %assume_18, %assume_19], strides = [%assume_20, %assume_21, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %assume_23 = assume bounded<0, ?>, %arg22 : tile<i32>
    %assume_24 = assume bounded<0, ?>, %arg23 : tile<i32>
    %assume_25 = assume bounded<0, ?>, %arg24 : tile<i32>
    %assume_26 = assume bounded<0, ?>, %arg25 : tile<i32>
    %assume_27 = assume bounded<0, ?>, %arg26 : tile<i32>
    %tview_28 = make_tensor_view %assume_2, shape = [%assume_23, %assume_24, %assume_25], strides = [%assume_26, %assume_27, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %cst_64_i32 = constant <i32: 64> : tile<i32>
    %cst_32_i32 = constant <i32: 32> : tile<i32>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %blockId_x_29, %blockId_y_30, %blockId_z_31 = get_tile_block_id : tile<i32>
    %1 = muli %blockId_x, %cst_64_i32 : tile<i32>
    %2 = iota : tile<64xi32>
    %reshape = reshape %1 : tile<i32> -> tile<1xi32>
    %bcast = broadcast %reshape : tile<1xi32> -> tile<64xi32>
    %3 = addi %bcast, %2 : tile<64xi32>
    %reshape_32 = reshape %3 : tile<64xi32> -> tile<64x1xi32>
    %4 = iota : tile<32xi32>
    %reshape_33 = reshape %4 : tile<32xi32> -> tile<1x32xi32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %pview = make_partition_view %tview : partition_view<tile=(1x64x64), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>
    %tile, %result_token = load_view_tko weak %pview[%blockId_y_30, %blockId_x, %cst_0_i32] token = %0 : partition_view<tile=(1x64x64), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x64x64xf16>, token
    %reshape_34 = reshape %tile : tile<1x64x64xf16> -> tile<64x64xf16>
    %5 = muli %blockId_x, %cst_64_i32 : tile<i32>
    %6 = divi %5, %cst_32_i32 signed rounding<negative_inf> : tile<i32>
    %7 = divi %assume_12, %cst_32_i32 signed rounding<negative_inf> : tile<i32>
    %8 = mini %6, %7 signed : tile<i32>
    %cst_f32 = constant <f32: 0xFF800000> : tile<64x1xf32>
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<64x1xf32>
    %cst_0_f32_35 = constant <f32: 0.000000e+00> : tile<64x64xf32>
    %cst_1_i32_36 = constant <i32: 1> : tile<i32>
    %9 = addi %blockId_x, %cst_1_i32_36 : tile<i32>
    %10 = muli %9, %cst_64_i32 : tile<i32>
    %11 = mini %10, %assume_12 signed : tile<i32>
    %12 = divi %11, %cst_32_i32 signed rounding<positive_inf> : tile<i32>
    %cst_0_i32_37 = constant <i32: 0> : tile<i32>
    %cst_1_i32_38 = constant <i32: 1> : tile<i32>
    %cst_0_i32_39 = constant <i32: 0> : tile<i32>
    %cst_0_f32_40 = constant <f32: 0.000000e+00> : tile<64x32xf32>
    %reshape_41 = reshape %arg28 : tile<f32> -> tile<1x1xf32>
    %bcast_42 = broadcast %reshape_41 : tile<1x1xf32> -> tile<64x1xf32>
    %reshape_43 = reshape %arg28 : tile<f32> -> tile<1x1xf32>
    %bcast_44 = broadcast %reshape_43 : tile<1x1xf32> -> tile<64x32xf32>
    %cst_0_i32_45 = constant <i32: 0> : tile<i32>
    %13 = mini %12, %8 signed : tile<i32>
    %14 = maxi %cst_0_i32_37, %8 signed : tile<i32>
    %for:3 = for %loopIdx in (%cst_0_i32_37 to %13, step %cst_1_i32_38) : tile<i32> iter_values(%iterArg0 = %cst_0_f32_35, %iterArg1 = %cst_0_f32, %iterArg2 = %cst_f32) -> (tile<64x64xf32>, tile<64x1xf32>, tile<64x1xf32>) {
      %pview_51 = make_partition_view %tview_16 : partition_view<tile=(1x64x32), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>, dim_map=[0, 2, 1]>
      %tile_52, %result_token_53 = load_view_tko weak %pview_51[%blockId_y_30, %cst_0_i32_39, %loopIdx] token = %0 optimization_hints = <sm_90 = {latency = 2}> : partition_view<tile=(1x64x32), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>, dim_map=[0, 2, 1]>, tile<i32> -> tile<1x64x32xf16>, token
      %reshape_54 = reshape %tile_52 : tile<1x64x32xf16> -> tile<64x32xf16>
      %18 = mmaf %reshape_34, %reshape_54, %cst_0_f32_40 : tile<64x64xf16>, tile<64x32xf16>, tile<64x32xf32>
      %reduce = reduce %18 dim=1 identities=[0xFF800000 : f32] : tile<64x32xf32> -> tile<64xf32> 
      (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
        %30 = maxf %reduce_lhs, %reduce_rhs : tile<f32>
        yield %30 : tile<f32>
      }
      %reshape_55 = reshape %reduce : tile<64xf32> -> tile<64x1xf32>
      %19 = mulf %reshape_55, %bcast_42  : tile<64x1xf32>
      %20 = maxf %iterArg2, %19 : tile<64x1xf32>
      %bcast_56 = broadcast %20 : tile<64x1xf32> -> tile<64x32xf32>
      %21 = negf %bcast_56 : tile<64x32xf32>
      %22 = fma %18, %bcast_44, %21  : tile<64x32xf32>
      %23 = exp2 %22 flush_to_zero : tile<64x32xf32>
      %24 = subf %iterArg2, %20  : tile<64x1xf32>
      %25 = exp2 %24 flush_to_zero : tile<64x1xf32>
      %reduce_57 = reduce %23 dim=1 identities=[0.000000e+00 : f32] : tile<64x32xf32> -> tile<64xf32> 
      (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
        %30 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
        yield %30 : tile<f32>
      }
      %reshape_58 = reshape %reduce_57 : tile<64xf32> -> tile<64x1xf32>
      %26 = fma %iterArg1, %25, %reshape_58  : tile<64x1xf32>
      %pview_59 = make_partition_view %tview_22 : partition_view<tile=(1x32x64), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>
      %tile_60, %result_token_61 = load_view_tko weak %pview_59[%blockId_y_30, %loopIdx, %cst_0_i32_45] token = %0 optimization_hints = <sm_90 = {latency = 4}> : partition_view<tile=(1x32x64), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x32x64xf16>, token
      %reshape_62 = reshape %tile_60 : tile<1x32x64xf16> -> tile<32x64xf16>
      %27 = ftof %23  : tile<64x32xf32> -> tile<64x32xf16>
      %bcast_63 = broadcast %25 : tile<64x1xf32> -> tile<64x64xf32>
      %28 = mulf %iterArg0, %bcast_63  : tile<64x64xf32>
      %29 = mmaf %27, %reshape_62, %28 : tile<64x32xf16>, tile<32x64xf16>, tile<64x64xf32>
      continue %29, %26, %20 : tile<64x64xf32>, tile<64x1xf32>, tile<64x1xf32>
    }
    %for_46:3 = for %loopIdx in (%14 to %12, step %cst_1_i32_38) : tile<i32> iter_values(%iterArg0 = %for#0, %iterArg1 = %for#1, %iterArg2 = %for#2) -> (tile<64x64xf32>, tile<64x1xf32>, tile<64x1xf32>) {
      %pview_51 = make_partition_view %tview_16 : partition_view<tile=(1x64x32), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>, dim_map=[0, 2, 1]>
      %tile_52, %result_token_53 = load_view_tko weak %pview_51[%blockId_y_30, %cst_0_i32_39, %loopIdx] token = %0 optimization_hints = <sm_90 = {latency = 2}> : partition_view<tile=(1x64x32), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>, dim_map=[0, 2, 1]>, tile<i32> -> tile<1x64x32xf16>, token
      %reshape_54 = reshape %tile_52 : tile<1x64x32xf16> -> tile<64x32xf16>
      %18 = mmaf %reshape_34, %reshape_54, %cst_0_f32_40 : tile<64x64xf16>, tile<64x32xf16>, tile<64x32xf32>
      %19 = muli %loopIdx, %cst_32_i32 : tile<i32>
      %reshape_55 = reshape %19 : tile<i32> -> tile<1x1xi32>
      %bcast_56 = broadcast %reshape_55 : tile<1x1xi32> -> tile<1x32xi32>
      %20 = addi %bcast_56, %reshape_33 : tile<1x32xi32>
      %reshape_57 = reshape %assume_12 : tile<i32> -> tile<1x1xi32>
      %bcast_58 = broadcast %reshape_57 : tile<1x1xi32> -> tile<1x32xi32>
      %21 = cmpi less_than %20, %bcast_58, signed : tile<1x32xi32> -> tile<1x32xi1>
      %bcast_59 = broadcast %reshape_32 : tile<64x1xi32> -> tile<64x32xi32>
      %bcast_60 = broadcast %20 : tile<1x32xi32> -> tile<64x32xi32>
      %22 = cmpi greater_than_or_equal %bcast_59, %bcast_60, signed : tile<64x32xi32> -> tile<64x32xi1>
      %bcast_61 = broadcast %21 : tile<1x32xi1> -> tile<64x32xi1>
      %23 = andi %bcast_61, %22 : tile<64x32xi1>
      %cst_0_f32_62 = constant <f32: 0.000000e+00> : tile<f32>
      %cst_f32_63 = constant <f32: 0xFF800000> : tile<f32>
      %reshape_64 = reshape %cst_0_f32_62 : tile<f32> -> tile<1x1xf32>
      %bcast_65 = broadcast %reshape_64 : tile<1x1xf32> -> tile<64x32xf32>
      %reshape_66 = reshape %cst_f32_63 : tile<f32> -> tile<1x1xf32>
      %bcast_67 = broadcast %reshape_66 : tile<1x1xf32> -> tile<64x32xf32>
      %24 = select %23, %bcast_65, %bcast_67 : tile<64x32xi1>, tile<64x32xf32>
      %25 = addf %18, %24  : tile<64x32xf32>
      %reduce = reduce %25 dim=1 identities=[0xFF800000 : f32] : tile<64x32xf32> -> tile<64xf32> 
      (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
        %37 = maxf %reduce_lhs, %reduce_rhs : tile<f32>
        yield %37 : tile<f32>
      }
      %reshape_68 = reshape %reduce : tile<64xf32> -> tile<64x1xf32>
      %26 = mulf %reshape_68, %bcast_42  : tile<64x1xf32>
      %27 = maxf %iterArg2, %26 : tile<64x1xf32>
      %bcast_69 = broadcast %27 : tile<64x1xf32> -> tile<64x32xf32>
      %28 = negf %bcast_69 : tile<64x32xf32>
      %29 = fma %25, %bcast_44, %28  : tile<64x32xf32>
      %30 = exp2 %29 flush_to_zero : tile<64x32xf32>
      %31 = subf %iterArg2, %27  : tile<64x1xf32>
      %32 = exp2 %31 flush_to_zero : tile<64x1xf32>
      %reduce_70 = reduce %30 dim=1 identities=[0.000000e+00 : f32] : tile<64x32xf32> -> tile<64xf32> 
      (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
        %37 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
        yield %37 : tile<f32>
      }
      %reshape_71 = reshape %reduce_70 : tile<64xf32> -> tile<64x1xf32>
      %33 = fma %iterArg1, %32, %reshape_71  : tile<64x1xf32>
      %pview_72 = make_partition_view %tview_22 : partition_view<tile=(1x32x64), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>
      %tile_73, %result_token_74 = load_view_tko weak %pview_72[%blockId_y_30, %loopIdx, %cst_0_i32_45] token = %0 optimization_hints = <sm_90 = {latency = 4}> : partition_view<tile=(1x32x64), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x32x64xf16>, token
      %reshape_75 = reshape %tile_73 : tile<1x32x64xf16> -> tile<32x64xf16>
      %34 = ftof %30  : tile<64x32xf32> -> tile<64x32xf16>
      %bcast_76 = broadcast %32 : tile<64x1xf32> -> tile<64x64xf32>
      %35 = mulf %iterArg0, %bcast_76  : tile<64x64xf32>
      %36 = mmaf %34, %reshape_75, %35 : tile<64x32xf16>, tile<32x64xf16>, tile<64x64xf32>
      continue %36, %33, %27 : tile<64x64xf32>, tile<64x1xf32>, tile<64x1xf32>
    }
    %bcast_47 = broadcast %for_46#1 : tile<64x1xf32> -> tile<64x64xf32>
    %15 = divf %for_46#0, %bcast_47 rounding<approx> flush_to_zero : tile<64x64xf32>
    %cst_0_i32_48 = constant <i32: 0> : tile<i32>
    %reshape_49 = reshape %15 : tile<64x64xf32> -> tile<1x64x64xf32>
    %16 = ftof %reshape_49  : tile<1x64x64xf32> -> tile<1x64x64xf16>
    %pview_50 = make_partition_view %tview_28 : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>
    %17 = store_view_tko weak %16, %pview_50[%blockId_y_30, %blockId_x, %cst_0_i32_48] token = %0 : tile<1x64x64xf16>, partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> token
    return
  }
}
