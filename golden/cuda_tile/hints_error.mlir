// RUN: tilec opt %s --split-input-file --verify-diagnostics -Werr-hints
// optimization_hints with -Werr-hints: each problem is still a warning, and
// the op then fails verification.

cuda_tile.module @err_entry {
  // expected-warning @below {{expected power-of-two ≤ 16 for sm_90.num_cta_in_cga}}
  // expected-error @below {{'cuda_tile.entry' op Optimization hints verification failed}}
  entry @kernel() optimization_hints=<sm_90 = {num_cta_in_cga = 32}> {
    return
  }
}

// -----

cuda_tile.module @err_load {
  testing$func @load(%p: tile<8xptr<f32>>) {
    // expected-warning @below {{integer value in the range [1, 10] is expected for sm_100.latency}}
    // expected-error @below {{'cuda_tile.load_ptr_tko' op Optimization hints verification failed}}
    %v, %t = load_ptr_tko weak %p optimization_hints = <sm_100 = {latency = 0}> : tile<8xptr<f32>> -> tile<8xf32>, token
    return
  }
}

// -----

cuda_tile.module @err_store_view {
  testing$func @store(%pv: partition_view<tile=(8), tensor_view<64xf32, strides=[1]>>, %x: tile<8xf32>, %i: tile<i32>) {
    // expected-warning @below {{occupancy is not known hint for current Operation}}
    // expected-error @below {{'cuda_tile.store_view_tko' op Optimization hints verification failed}}
    %t = store_view_tko weak %x, %pv[%i] optimization_hints = <sm_90 = {occupancy = 4}> : tile<8xf32>, partition_view<tile=(8), tensor_view<64xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}

// -----

cuda_tile.module @err_entry_target {
  // expected-warning @below {{unknown hint key gfx90a}}
  // expected-error @below {{Optimization hints verification failed}}
  entry @kernel() optimization_hints=<gfx90a = {num_cta_in_cga = 1}> {
    return
  }
}
