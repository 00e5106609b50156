// out = in^T for a row-major M x N f32 matrix: tile block (i, j) loads the 32x32
// tile (i, j) of `in`, permutes it and stores it as tile (j, i) of `out`.
// Edge tiles are masked by the partition views.
cuda_tile.module @transpose {
  entry @transpose_f32(%in: tile<ptr<f32>>, %out: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>) {
    %vi = make_tensor_view %in, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %vo = make_tensor_view %out, shape = [%n, %m], strides = [%m, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pi = make_partition_view %vi : partition_view<tile=(32x32), tensor_view<?x?xf32, strides=[?,1]>>
    %po = make_partition_view %vo : partition_view<tile=(32x32), tensor_view<?x?xf32, strides=[?,1]>>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %t, %tok = load_view_tko weak %pi[%bx, %by] : partition_view<tile=(32x32), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<32x32xf32>, token
    %tt = permute %t [1, 0] : tile<32x32xf32> -> tile<32x32xf32>
    %tok2 = store_view_tko weak %tt, %po[%by, %bx] : tile<32x32xf32>, partition_view<tile=(32x32), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
