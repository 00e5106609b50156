// A K loop whose A rows are gathered through a tile of pointers (a mixture of
// experts' routed tokens) beside a B loaded through a view: both are pipelined,
// the gather's runs copied into its stage slots (docs/decisions.md, "A gather a
// dot reads is staged"). C (64 x 64, f32) = A[idx] (64 x 128, f16) @ B (128 x 64, f16).
cuda_tile.module @m {
  entry @gather_matmul_f16(%a: tile<ptr<f16>>, %idx: tile<ptr<i32>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>) {
    %ti = make_tensor_view %idx, shape = [64], strides = [1] : tensor_view<64xi32, strides=[1]>
    %pi = make_partition_view %ti : partition_view<tile=(64), tensor_view<64xi32, strides=[1]>>
    %tb = make_tensor_view %b, shape = [128, 64], strides = [64, 1] : tensor_view<128x64xf16, strides=[64,1]>
    %pb = make_partition_view %tb : partition_view<tile=(32x64), tensor_view<128x64xf16, strides=[64,1]>>
    %tc = make_tensor_view %c, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xf32, strides=[64,1]>
    %pc = make_partition_view %tc : partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>
    %z = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %four = constant <i32: 4> : tile<i32>
    %k128 = constant <i32: 128> : tile<64x1xi32>
    %k32 = constant <i32: 32> : tile<i32>
    %rows, %t0 = load_view_tko weak %pi[%z] : partition_view<tile=(64), tensor_view<64xi32, strides=[1]>>, tile<i32> -> tile<64xi32>, token
    %r2 = reshape %rows : tile<64xi32> -> tile<64x1xi32>
    %rowoff = muli %r2, %k128 : tile<64x1xi32>
    %rowb = broadcast %rowoff : tile<64x1xi32> -> tile<64x32xi32>
    %j = iota : tile<32xi32>
    %j2 = reshape %j : tile<32xi32> -> tile<1x32xi32>
    %jb = broadcast %j2 : tile<1x32xi32> -> tile<64x32xi32>
    %base = addi %rowb, %jb : tile<64x32xi32>
    %ra = reshape %a : tile<ptr<f16>> -> tile<1x1xptr<f16>>
    %pa = broadcast %ra : tile<1x1xptr<f16>> -> tile<64x32xptr<f16>>
    %acc0 = constant <f32: 0.0> : tile<64x64xf32>
    %res = for %k in (%z to %four, step %one) : tile<i32> iter_values(%acc = %acc0) -> (tile<64x64xf32>) {
      %kk = muli %k, %k32 : tile<i32>
      %kr = reshape %kk : tile<i32> -> tile<1x1xi32>
      %kb = broadcast %kr : tile<1x1xi32> -> tile<64x32xi32>
      %off = addi %base, %kb : tile<64x32xi32>
      %ptrs = offset %pa, %off : tile<64x32xptr<f16>>, tile<64x32xi32> -> tile<64x32xptr<f16>>
      %at, %t1 = load_ptr_tko weak %ptrs : tile<64x32xptr<f16>> -> tile<64x32xf16>, token
      %bt, %t2 = load_view_tko weak %pb[%k, %z] : partition_view<tile=(32x64), tensor_view<128x64xf16, strides=[64,1]>>, tile<i32> -> tile<32x64xf16>, token
      %n = mmaf %at, %bt, %acc : tile<64x32xf16>, tile<32x64xf16>, tile<64x64xf32>
      continue %n : tile<64x64xf32>
    }
    %t3 = store_view_tko weak %res, %pc[%z, %z] : tile<64x64xf32>, partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>, tile<i32> -> token
    return
  }
}
