// C = A @ B for row-major f16 matrices A (M x K), B (K x N), C (M x N): each
// tile block computes one 128x128 tile of C, walking K in steps of 64 with an
// f32 accumulator. Partial edge tiles are zero-padded on load, masked on store.
cuda_tile.module @matmul {
  entry @matmul_f16(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f16>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>) {
    %tok = make_token : token
    %c0 = constant dense<0> : tile<i32>
    %c1 = constant dense<1> : tile<i32>
    %zero = constant dense<0.0> : tile<128x128xf32>
    %va = make_tensor_view %a, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %vb = make_tensor_view %b, shape = [%k, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %vc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %pa = make_partition_view %va : partition_view<tile=(128x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pb = make_partition_view %vb : partition_view<tile=(64x128), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pc = make_partition_view %vc : partition_view<tile=(128x128), tensor_view<?x?xf16, strides=[?,1]>>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ktiles:2 = get_index_space_shape %pa : partition_view<tile=(128x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>> -> tile<i32>
    %acc = for %kk in (%c0 to %ktiles#1, step %c1) : tile<i32> iter_values(%acc_in = %zero) -> (tile<128x128xf32>) {
      %ta, %t1 = load_view_tko weak %pa[%bx, %kk] token = %tok : partition_view<tile=(128x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<128x64xf16>, token
      %tb, %t2 = load_view_tko weak %pb[%kk, %by] token = %tok : partition_view<tile=(64x128), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x128xf16>, token
      %r = mmaf %ta, %tb, %acc_in : tile<128x64xf16>, tile<64x128xf16>, tile<128x128xf32>
      continue %r : tile<128x128xf32>
    }
    %h = ftof %acc : tile<128x128xf32> -> tile<128x128xf16>
    %t3 = store_view_tko weak %h, %pc[%bx, %by] token = %tok : tile<128x128xf16>, partition_view<tile=(128x128), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
