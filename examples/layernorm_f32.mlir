// Layer norm over rows of 128 f32: y = (x - mean) * rsqrt(var + eps) * w + b.
// Each tile block normalizes 4 rows; mean and variance are reduce regions.
cuda_tile.module @layernorm {
  entry @layernorm_f32(%x: tile<ptr<f32>>, %w: tile<ptr<f32>>, %b: tile<ptr<f32>>, %y: tile<ptr<f32>>, %rows: tile<i32>, %eps: tile<f32>) {
    %vx = make_tensor_view %x, shape = [%rows, 128], strides = [128, 1] : tile<i32> -> tensor_view<?x128xf32, strides=[128,1]>
    %vy = make_tensor_view %y, shape = [%rows, 128], strides = [128, 1] : tile<i32> -> tensor_view<?x128xf32, strides=[128,1]>
    %vw = make_tensor_view %w, shape = [128], strides = [1] : tensor_view<128xf32, strides=[1]>
    %vb = make_tensor_view %b, shape = [128], strides = [1] : tensor_view<128xf32, strides=[1]>
    %px = make_partition_view %vx : partition_view<tile=(4x128), tensor_view<?x128xf32, strides=[128,1]>>
    %py = make_partition_view %vy : partition_view<tile=(4x128), tensor_view<?x128xf32, strides=[128,1]>>
    %pw = make_partition_view %vw : partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>
    %pb = make_partition_view %vb : partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %c0 = constant <i32: 0> : tile<i32>
    %t, %t0 = load_view_tko weak %px[%bx, %c0] : partition_view<tile=(4x128), tensor_view<?x128xf32, strides=[128,1]>>, tile<i32> -> tile<4x128xf32>, token
    %wt, %t1 = load_view_tko weak %pw[%c0] : partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %bt, %t2 = load_view_tko weak %pb[%c0] : partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %sum = reduce %t dim=1 identities=[0.000000e+00 : f32] : tile<4x128xf32> -> tile<4xf32>
    (%e0: tile<f32>, %a0: tile<f32>) {
      %s0 = addf %e0, %a0 : tile<f32>
      yield %s0 : tile<f32>
    }
    %n = constant <f32: 128.0> : tile<4xf32>
    %mean = divf %sum, %n : tile<4xf32>
    %mean2 = reshape %mean : tile<4xf32> -> tile<4x1xf32>
    %meanb = broadcast %mean2 : tile<4x1xf32> -> tile<4x128xf32>
    %d = subf %t, %meanb : tile<4x128xf32>
    %d2 = mulf %d, %d : tile<4x128xf32>
    %ss = reduce %d2 dim=1 identities=[0.000000e+00 : f32] : tile<4x128xf32> -> tile<4xf32>
    (%e1: tile<f32>, %a1: tile<f32>) {
      %s1 = addf %e1, %a1 : tile<f32>
      yield %s1 : tile<f32>
    }
    %var = divf %ss, %n : tile<4xf32>
    %epsr = reshape %eps : tile<f32> -> tile<1xf32>
    %epsb = broadcast %epsr : tile<1xf32> -> tile<4xf32>
    %ve = addf %var, %epsb : tile<4xf32>
    %rstd = rsqrt %ve : tile<4xf32>
    %rstd2 = reshape %rstd : tile<4xf32> -> tile<4x1xf32>
    %rstdb = broadcast %rstd2 : tile<4x1xf32> -> tile<4x128xf32>
    %xn = mulf %d, %rstdb : tile<4x128xf32>
    %w2 = reshape %wt : tile<128xf32> -> tile<1x128xf32>
    %wb = broadcast %w2 : tile<1x128xf32> -> tile<4x128xf32>
    %b2 = reshape %bt : tile<128xf32> -> tile<1x128xf32>
    %bb = broadcast %b2 : tile<1x128xf32> -> tile<4x128xf32>
    %yv = fma %xn, %wb, %bb : tile<4x128xf32>
    %t3 = store_view_tko weak %yv, %py[%bx, %c0] : tile<4x128xf32>, partition_view<tile=(4x128), tensor_view<?x128xf32, strides=[128,1]>>, tile<i32> -> token
    return
  }
}
