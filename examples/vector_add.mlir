// c[i] = a[i] + b[i] for n elements, one 256-element tile per tile block.
// Out-of-bounds lanes of the last tile are masked by the partition view.
cuda_tile.module @examples {
  entry @vector_add(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %c: tile<ptr<f32>>, %n: tile<i32>) {
    %tok = make_token : token
    %va = make_tensor_view %a, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %vb = make_tensor_view %b, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %vc = make_tensor_view %c, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pa = make_partition_view %va : partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>
    %pb = make_partition_view %vb : partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>
    %pc = make_partition_view %vc : partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %x, %t0 = load_view_tko weak %pa[%bx] token = %tok : partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<256xf32>, token
    %y, %t1 = load_view_tko weak %pb[%bx] token = %tok : partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<256xf32>, token
    %sum = addf %x, %y : tile<256xf32>
    %t2 = store_view_tko weak %sum, %pc[%bx] token = %tok : tile<256xf32>, partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
