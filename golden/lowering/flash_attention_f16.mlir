// Input kernel (not a golden): one head of flash attention, O = softmax(Q Kt) V,
// for 64 query rows per tile block, walking the keys in blocks of 64 with the
// online-softmax recurrence (running row max m, row sum l, f32 accumulator).
// Q: n x 64, Kt: 64 x n (keys pre-transposed), V: n x 64, O: n x 64, all f16.
cuda_tile.module @attention {
  entry @flash_attention_f16(%q: tile<ptr<f16>>, %kt: tile<ptr<f16>>, %v: tile<ptr<f16>>, %o: tile<ptr<f16>>, %n: tile<i32>) {
    %tok = make_token : token
    %c0 = constant dense<0> : tile<i32>
    %c1 = constant dense<1> : tile<i32>
    %c64 = constant dense<64> : tile<i32>
    %ninf = constant dense<0xFF800000> : tile<64xf32>
    %zrow = constant dense<0.0> : tile<64xf32>
    %zacc = constant dense<0.0> : tile<64x64xf32>
    %vq = make_tensor_view %q, shape = [%n, %c64], strides = [%c64, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %vk = make_tensor_view %kt, shape = [%c64, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %vv = make_tensor_view %v, shape = [%n, %c64], strides = [%c64, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %vo = make_tensor_view %o, shape = [%n, %c64], strides = [%c64, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %pq = make_partition_view %vq : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pk = make_partition_view %vk : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pv = make_partition_view %vv : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %po = make_partition_view %vo : partition_view<tile=(64x64), tensor_view<?x?xf16, strides=[?,1]>>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %tq, %t0 = load_view_tko weak %pq[%bx, %c0] token = %tok : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x64xf16>, token
    %kb:2 = get_index_space_shape %pk : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>> -> tile<i32>
    %res:3 = for %j in (%c0 to %kb#1, step %c1) : tile<i32> iter_values(%m = %ninf, %l = %zrow, %acc = %zacc) -> (tile<64xf32>, tile<64xf32>, tile<64x64xf32>) {
      %tk, %t1 = load_view_tko weak %pk[%c0, %j] token = %tok : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x64xf16>, token
      %tv, %t2 = load_view_tko weak %pv[%j, %c0] token = %tok : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x64xf16>, token
      %s = mmaf %tq, %tk, %zacc : tile<64x64xf16>, tile<64x64xf16>, tile<64x64xf32>
      %mrow = reduce %s dim=1 identities=[0xFF800000 : f32] : tile<64x64xf32> -> tile<64xf32>
      (%a: tile<f32>, %b: tile<f32>) {
        %mx = maxf %a, %b : tile<f32>
        yield %mx : tile<f32>
      }
      %mnew = maxf %m, %mrow : tile<64xf32>
      %mnew2 = reshape %mnew : tile<64xf32> -> tile<64x1xf32>
      %mnewb = broadcast %mnew2 : tile<64x1xf32> -> tile<64x64xf32>
      %sd = subf %s, %mnewb : tile<64x64xf32>
      %p = exp %sd : tile<64x64xf32>
      %md = subf %m, %mnew : tile<64xf32>
      %alpha = exp %md : tile<64xf32>
      %psum = reduce %p dim=1 identities=[0.000000e+00 : f32] : tile<64x64xf32> -> tile<64xf32>
      (%a: tile<f32>, %b: tile<f32>) {
        %sm = addf %a, %b : tile<f32>
        yield %sm : tile<f32>
      }
      %ls = mulf %l, %alpha : tile<64xf32>
      %lnew = addf %ls, %psum : tile<64xf32>
      %alpha2 = reshape %alpha : tile<64xf32> -> tile<64x1xf32>
      %alphab = broadcast %alpha2 : tile<64x1xf32> -> tile<64x64xf32>
      %accs = mulf %acc, %alphab : tile<64x64xf32>
      %ph = ftof %p : tile<64x64xf32> -> tile<64x64xf16>
      %accn = mmaf %ph, %tv, %accs : tile<64x64xf16>, tile<64x64xf16>, tile<64x64xf32>
      continue %mnew, %lnew, %accn : tile<64xf32>, tile<64xf32>, tile<64x64xf32>
    }
    %l2 = reshape %res#1 : tile<64xf32> -> tile<64x1xf32>
    %lb = broadcast %l2 : tile<64x1xf32> -> tile<64x64xf32>
    %out = divf %res#2, %lb : tile<64x64xf32>
    %oh = ftof %out : tile<64x64xf32> -> tile<64x64xf16>
    %t3 = store_view_tko weak %oh, %po[%bx, %c0] token = %tok : tile<64x64xf16>, partition_view<tile=(64x64), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
