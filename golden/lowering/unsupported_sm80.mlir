// tilec opt %s --lower-to-tileas=arch=sm_80   (exit 1, the diagnostic below on stderr)
// An fp8 MMA has no sm_80 atom: the lowering names the op and the target.
// DIAG: unsupported_sm80.mlir:9:5: error: 'cuda_tile.mmaf' op is not supported on sm_80 (this MMA operand/accumulator type combination)
cuda_tile.module @m {
  entry @k(%a: tile<ptr<f32>>, %n: tile<i32>) {
    %x = constant dense<0.0> : tile<16x32xf8E4M3FN>
    %y = constant dense<0.0> : tile<32x16xf8E4M3FN>
    %z = constant dense<0.0> : tile<16x16xf32>
    %r = mmaf %x, %y, %z : tile<16x32xf8E4M3FN>, tile<32x16xf8E4M3FN>, tile<16x16xf32>
    %c0 = constant dense<0> : tile<i32>
    %tv = make_tensor_view %a, shape = [%n, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pv = make_partition_view %tv : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>
    %t = store_view_tko weak %r, %pv[%c0, %c0] : tile<16x16xf32>, partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
