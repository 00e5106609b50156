cuda_tile.module @argmax_rows_f64 {
  global  @print_mutex <i32: 1> : tile<1xi32>
  entry @argmax_rows_f64(%arg0: tile<ptr<f64>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<i32>>, %arg6: tile<i32>, %arg7: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f64>>
    %assume_0 = assume div_by<16>, %arg5 : tile<ptr<i32>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_1 = constant <i32: 1> : tile<i32>
    %assume_2 = assume bounded<0, ?>, %arg1 : tile<i32>
    %assume_3 = assume bounded<0, ?>, %arg2 : tile<i32>
    %assume_4 = assume bounded<0, ?>, %arg3 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_2, %assume_3], strides = [%assume_4, 1] : tile<i32> -> tensor_view<?x?xf64, strides=[?,1]>
    %assume_5 = assume bounded<0, ?>, %arg6 : tile<i32>
    %tview_6 = make_tensor_view %assume_0, shape = [%assume_5], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %pview = make_partition_view %tview : partition_view<tile=(4x64), tensor_view<?x?xf64, strides=[?,1]>>
    %tile, %result_token = load_view_tko weak %pview[%blockId_x, %cst_0_i32] token = %0 : partition_view<tile=(4x64), tensor_view<?x?xf64, strides=[?,1]>>, tile<i32> -> tile<4x64xf64>, token
    %1 = join_tokens %0, %result_token : token
    %2 = absf %tile : tile<4x64xf64>
    %cst_1_f64 = constant <f64: 1.000000e+00> : tile<f64>
    %reshape = reshape %cst_1_f64 : tile<f64> -> tile<1x1xf64>
    %bcast = broadcast %reshape : tile<1x1xf64> -> tile<4x64xf64>
    %3 = addf %2, %bcast  : tile<4x64xf64>
    %4 = log %3 : tile<4x64xf64>
    %5 = iota : tile<64xi32>
    %reshape_7 = reshape %5 : tile<64xi32> -> tile<1x64xi32>
    %bcast_8 = broadcast %reshape_7 : tile<1x64xi32> -> tile<4x64xi32>
    %reduce:2 = reduce %4, %bcast_8 dim=1 identities=[0x7FF0000000000000 : f64, 0 : i32] : tile<4x64xf64>, tile<4x64xi32> -> tile<4xf64>, tile<4xi32> 
    (%reduce_lhs0: tile<f64>, %reduce_rhs0: tile<f64>, %reduce_lhs1: tile<i32>, %reduce_rhs1: tile<i32>) {
      %10 = cmpf greater_than ordered %reduce_lhs0, %reduce_rhs0 : tile<f64> -> tile<i1>
      %11 = cmpf equal ordered %reduce_lhs0, %reduce_rhs0 : tile<f64> -> tile<i1>
      %12 = cmpf not_equal unordered %reduce_lhs0, %reduce_lhs0 : tile<f64> -> tile<i1>
      %13 = cmpf not_equal unordered %reduce_rhs0, %reduce_rhs0 : tile<f64> -> tile<i1>
      %14 = cmpf equal ordered %reduce_lhs0, %reduce_lhs0 : tile<f64> -> tile<i1>
      %15 = andi %14, %13 : tile<i1>
      %16 = ori %10, %15 : tile<i1>
      %17 = andi %12, %13 : tile<i1>
      %18 = ori %11, %17 : tile<i1>
      %19 = cmpi less_than %reduce_lhs1, %reduce_rhs1, signed : tile<i32> -> tile<i1>
      %20 = andi %18, %19 : tile<i1>
      %21 = ori %16, %20 : tile<i1>
      %22 = select %21, %reduce_lhs0, %reduce_rhs0 : tile<i1>, tile<f64>
      %23 = select %21, %reduce_lhs1, %reduce_rhs1 : tile<i1>, tile<i32>
      yield %22, %23 : tile<f64>, tile<i32>
    }
    %cst_0_i32_9 = constant <i32: 0> : tile<i32>
    %6 = cmpi equal %blockId_x, %cst_0_i32_9, signed : tile<i32> -> tile<i1>
    %7 = if %6 -> (token) {
      %cst_0_i32_11 = constant <i32: 0> : tile<i32>
      %10 = extract %reduce#1[%cst_0_i32_11] : tile<4xi32> -> tile<1xi32>
      %11 = join_tokens %0, %1 : token
      %12 = get_global @print_mutex : tile<ptr<i32>>
      %cst_0_i32_12 = constant <i32: 0> : tile<i32>
      %cst_1_i32_13 = constant <i32: 1> : tile<i32>
      loop {
        %result_15, %result_token_16 = atomic_cas_tko acq_rel device %12, %cst_1_i32_13, %cst_0_i32_12 : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
        %15 = cmpi equal %result_15, %cst_1_i32_13, unsigned : tile<i32> -> tile<i1>
        if %15 {
          break
        } else {
        }
      }
      %13 = print_tko "first block argmax %d\0A", %10 : tile<1xi32> -> token
      %14 = make_token : token
      %result, %result_token_14 = atomic_rmw_tko acq_rel device %12, xchg, %cst_1_i32_13 : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
      yield %14 : token
    } else {
      yield %0 : token
    }
    %pview_10 = make_partition_view %tview_6 : partition_view<tile=(4), tensor_view<?xi32, strides=[1]>>
    %8 = join_tokens %0, %7 : token
    %9 = store_view_tko weak %reduce#1, %pview_10[%blockId_x] token = %8 : tile<4xi32>, partition_view<tile=(4), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}
