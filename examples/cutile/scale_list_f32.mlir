// cuTile passes a list of arrays as a table of (address, shape, strides) rows and its
// length (TileGym's group GEMM): each tile block doubles its 16 elements of every array.
cuda_tile.module @lists {
  entry @scale_list(%tab: tile<ptr<i64>>, %n: tile<i32>) {
    %tok = make_token : token
    %tv = make_tensor_view %tab, shape = [%n, 3], strides = [3, 1] : tile<i32> -> tensor_view<?x3xi64, strides=[3,1]>
    %pv = make_partition_view %tv : partition_view<tile=(1x4), tensor_view<?x3xi64, strides=[3,1]>>
    %zero = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %bid, %by, %bz = get_tile_block_id : tile<i32>
    %two = constant <f32: 2.000000e+00> : tile<16xf32>
    %r = for %i in (%zero to %n, step %one) : tile<i32> iter_values(%t0 = %tok) -> (token) {
      %row, %t1 = load_view_tko weak %pv[%i, %zero] token = %t0 : partition_view<tile=(1x4), tensor_view<?x3xi64, strides=[3,1]>>, tile<i32> -> tile<1x4xi64>, token
      %a1 = extract %row[%zero, %zero] : tile<1x4xi64> -> tile<1x1xi64>
      %a = reshape %a1 : tile<1x1xi64> -> tile<i64>
      %l1 = extract %row[%zero, %one] : tile<1x4xi64> -> tile<1x1xi64>
      %l64 = reshape %l1 : tile<1x1xi64> -> tile<i64>
      %len = trunci %l64 : tile<i64> -> tile<i32>
      %p = int_to_ptr %a : tile<i64> -> tile<ptr<f32>>
      %v = make_tensor_view %p, shape = [%len], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
      %pv2 = make_partition_view %v : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
      %x, %t2 = load_view_tko weak %pv2[%bid] token = %t1 : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<16xf32>, token
      %y = mulf %x, %two : tile<16xf32>
      %t3 = store_view_tko weak %y, %pv2[%bid] token = %t2 : tile<16xf32>, partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
      continue %t3 : token
    }
    return
  }
}
