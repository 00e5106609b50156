// RUN: tilec opt %s --split-input-file --verify-diagnostics -Wunsupported-hints
// optimization_hints with -Wunsupported-hints: every problem is a warning at
// the op, and the op still verifies.

cuda_tile.module @warn_unknown_target {
  // expected-warning @below {{unknown hint key sm_42}}
  entry @kernel() optimization_hints=<sm_42 = {occupancy = 2}> {
    return
  }
}

// -----

cuda_tile.module @warn_unknown_param {
  // expected-warning @below {{latency is not known hint for current Operation}}
  entry @kernel() optimization_hints=<sm_90 = {latency = 2}> {
    return
  }
}

// -----

cuda_tile.module @warn_cta_pow2 {
  // expected-warning @below {{expected power-of-two ≤ 16 for sm_100.num_cta_in_cga}}
  entry @kernel() optimization_hints=<sm_100 = {num_cta_in_cga = 6}> {
    return
  }
}

// -----

cuda_tile.module @warn_cta_ampere {
  // expected-warning @below {{expected 1 for sm_80.num_cta_in_cga}}
  entry @kernel() optimization_hints=<sm_80 = {num_cta_in_cga = 2}> {
    return
  }
}

// -----

cuda_tile.module @warn_warps {
  // expected-warning @below {{expected power-of-two ≤ 32 for sm_90.num_worker_warps_per_cta}}
  entry @kernel() optimization_hints=<sm_90 = {num_worker_warps_per_cta = 64}> {
    return
  }
}

// -----

cuda_tile.module @warn_occupancy {
  // expected-warning @below {{integer value in the range [1, 32] is expected for sm_120.occupancy}}
  entry @kernel() optimization_hints=<sm_120 = {occupancy = 0}> {
    return
  }
}

// -----

cuda_tile.module @warn_two_problems {
  // expected-warning @below {{unknown hint key sm_7}}
  // expected-warning @below {{integer value expected for sm_90.occupancy}}
  entry @kernel() optimization_hints=<sm_7 = {}, sm_90 = {occupancy = "high"}> {
    return
  }
}

// -----

cuda_tile.module @warn_load_latency {
  testing$func @load(%p: tile<8xptr<f32>>) {
    // expected-warning @below {{integer value in the range [1, 10] is expected for sm_90.latency}}
    %v, %t = load_ptr_tko weak %p optimization_hints = <sm_90 = {latency = 11}> : tile<8xptr<f32>> -> tile<8xf32>, token
    return
  }
}

// -----

cuda_tile.module @warn_store_tma {
  testing$func @store(%p: tile<8xptr<f32>>, %v: tile<8xf32>) {
    // expected-warning @below {{allow_tma is not known hint for current Operation}}
    %t = store_ptr_tko weak %p, %v optimization_hints = <sm_100 = {allow_tma = true}> : tile<8xptr<f32>>, tile<8xf32> -> token
    return
  }
}

// -----

cuda_tile.module @warn_view_tma {
  testing$func @load(%pv: partition_view<tile=(8), tensor_view<64xf32, strides=[1]>>, %i: tile<i32>) {
    // expected-warning @below {{boolean value expected for sm_90.allow_tma}}
    %v, %t = load_view_tko weak %pv[%i] optimization_hints = <sm_90 = {allow_tma = 1}> : partition_view<tile=(8), tensor_view<64xf32, strides=[1]>>, tile<i32> -> tile<8xf32>, token
    return
  }
}
