cuda_tile.module @loop_break_f32 {
  entry @loop_break_f32(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<f32>>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
    %assume_0 = assume div_by<16>, %arg3 : tile<ptr<f32>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_1 = constant <i32: 1> : tile<i32>
    %false = constant <i1: false> : tile<i1>
    %true = constant <i1: true> : tile<i1>
    %assume_2 = assume bounded<0, ?>, %arg1 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_2], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %assume_3 = assume bounded<0, ?>, %arg4 : tile<i32>
    %tview_4 = make_tensor_view %assume_0, shape = [%assume_3], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<128xf32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %cst_1_i32_5 = constant <i32: 1> : tile<i32>
    %cst_100_f32 = constant <f32: 1.000000e+02> : tile<f32>
    %cst_2_i32 = constant <i32: 2> : tile<i32>
    %cst_0_i32_6 = constant <i32: 0> : tile<i32>
    %false_7 = constant <i1: false> : tile<i1>
    %cst_1_i32_8 = constant <i32: 1> : tile<i32>
    %for:2 = for %loopIdx in (%cst_0_i32 to %arg6, step %cst_1_i32_5) : tile<i32> iter_values(%iterArg0 = %cst_0_f32, %iterArg1 = %false) -> (tile<128xf32>, tile<i1>) {
      if %iterArg1 {
        continue %iterArg0, %iterArg1 : tile<128xf32>, tile<i1>
      } else {
      }
      %pview_9 = make_partition_view %tview : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
      %tile, %result_token = load_view_tko weak %pview_9[%loopIdx] token = %0 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
      %reduce = reduce %tile dim=0 identities=[0.000000e+00 : f32] : tile<128xf32> -> tile<f32> 
      (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
        %12 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
        yield %12 : tile<f32>
      }
      %2 = cmpf greater_than ordered %reduce, %cst_100_f32 : tile<f32> -> tile<i1>
      if %2 {
        continue %iterArg0, %true : tile<128xf32>, tile<i1>
      } else {
      }
      %3 = remi %loopIdx, %cst_2_i32 signed : tile<i32>
      %4 = cmpi less_than %3, %cst_0_i32_6, signed : tile<i32> -> tile<i1>
      %5 = xori %4, %false_7 : tile<i1>
      %6 = cmpi not_equal %3, %cst_0_i32_6, signed : tile<i32> -> tile<i1>
      %7 = andi %5, %6 : tile<i1>
      %8 = addi %3, %cst_2_i32 : tile<i32>
      %9 = select %7, %8, %3 : tile<i1>, tile<i32>
      %10 = cmpi equal %9, %cst_1_i32_8, signed : tile<i32> -> tile<i1>
      if %10 {
        continue %iterArg0, %iterArg1 : tile<128xf32>, tile<i1>
      } else {
      }
      %11 = addf %iterArg0, %tile  : tile<128xf32>
      continue %11, %iterArg1 : tile<128xf32>, tile<i1>
    }
    %pview = make_partition_view %tview_4 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
    %1 = store_view_tko weak %for#0, %pview[%blockId_x] token = %0 : tile<128xf32>, partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
