cuda_tile.module @prod_scan_rev_f32 {
  entry @prod_scan_rev_f32(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<f32>>, %arg4: tile<i32>, %arg5: tile<i32>) optimization_hints=<sm_90 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
    %assume_0 = assume div_by<16>, %arg3 : tile<ptr<f32>>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_1_i32_1 = constant <i32: 1> : tile<i32>
    %assume_2 = assume bounded<0, ?>, %arg1 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_2], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %assume_3 = assume bounded<0, ?>, %arg4 : tile<i32>
    %tview_4 = make_tensor_view %assume_0, shape = [%assume_3], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %pview = make_partition_view %tview : partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>
    %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<64xf32>, token
    %1 = scan %tile dim=0 reverse=false identities=[1.000000e+00 : f32] : tile<64xf32> -> tile<64xf32> 
    (%arg6: tile<f32>, %arg7: tile<f32>) {
      %4 = mulf %arg6, %arg7  : tile<f32>
      yield %4 : tile<f32>
    }
    %2 = scan %1 dim=0 reverse=true identities=[0.000000e+00 : f32] : tile<64xf32> -> tile<64xf32> 
    (%arg6: tile<f32>, %arg7: tile<f32>) {
      %4 = addf %arg6, %arg7  : tile<f32>
      yield %4 : tile<f32>
    }
    %pview_5 = make_partition_view %tview_4 : partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>
    %3 = store_view_tko weak %2, %pview_5[%blockId_x] token = %0 : tile<64xf32>, partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
