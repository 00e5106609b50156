// C (M x N, f32) = A (M x K, f16) @ B, with B stored transposed (N x K) and read through a
// partition view with dim_map = [1, 0] (cuTile's `order=(1, 0)`), 16-aligned: the lowering
// loads B's tile in the tensor's own order through the identity view (TMA on sm_90a) and
// permutes it, and wgmma reads the slot with its transpose bit (docs/decisions.md, "Loads and
// stores through permuted views"). 64x64x64 tiles.
cuda_tile.module @m {
  entry @matmul_bt_order_f16_aligned(%a: tile<ptr<f16>>, %bt: tile<ptr<f16>>, %c: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>) {
    %tok = make_token : token
    %one = constant <i32: 1> : tile<i32>
    %zero = constant <i32: 0> : tile<i32>
    %a16 = assume div_by<16>, %a : tile<ptr<f16>>
    %b16 = assume div_by<16>, %bt : tile<ptr<f16>>
    %c16 = assume div_by<16>, %c : tile<ptr<f32>>
    %k16 = assume div_by<16>, %k : tile<i32>
    %n16 = assume div_by<16>, %n : tile<i32>
    %m16 = assume div_by<16>, %m : tile<i32>
    %va = make_tensor_view %a16, shape = [%m16, %k16], strides = [%k16, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %pa = make_partition_view %va : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %vb = make_tensor_view %b16, shape = [%n16, %k16], strides = [%k16, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %pb = make_partition_view %vb : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>, dim_map=[1, 0]>
    %vc = make_tensor_view %c16, shape = [%m16, %n16], strides = [%n16, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pc = make_partition_view %vc : partition_view<tile=(64x64), tensor_view<?x?xf32, strides=[?,1]>>
    %nk:2 = get_index_space_shape %pa : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>> -> tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %acc0 = constant <f32: 0.000000e+00> : tile<64x64xf32>
    %acc = for %i in (%zero to %nk#1, step %one) : tile<i32> iter_values(%x = %acc0) -> (tile<64x64xf32>) {
      %ta, %t1 = load_view_tko weak %pa[%bx, %i] token = %tok : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x64xf16>, token
      %tb, %t2 = load_view_tko weak %pb[%i, %by] token = %tok : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>, dim_map=[1, 0]>, tile<i32> -> tile<64x64xf16>, token
      %y = mmaf %ta, %tb, %x : tile<64x64xf16>, tile<64x64xf16>, tile<64x64xf32>
      continue %y : tile<64x64xf32>
    }
    %t4 = store_view_tko weak %acc, %pc[%bx, %by] token = %tok : tile<64x64xf32>, partition_view<tile=(64x64), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
