// RUN: tilec opt %s --split-input-file --verify-diagnostics
// optimization_hints under the default policy (no hint flags): malformed hint syntax is an
// error; unsupported targets, keys and values are accepted silently.

cuda_tile.module @hint_duplicate_target {
  // expected-error @below {{duplicate optimization_hints key `sm_90`}}
  entry @kernel() optimization_hints=<sm_90 = {occupancy = 2}, sm_90 = {occupancy = 4}> {
    return
  }
}

// -----

cuda_tile.module @hint_not_dictionary {
  // expected-error @below {{expected dictionary attribute for optimization_hints entry `sm_100`}}
  entry @kernel() optimization_hints=<sm_100 = 8> {
    return
  }
}

// -----

cuda_tile.module @hint_load_not_dictionary {
  testing$func @load(%p: tile<8xptr<f32>>) {
    // expected-error @below {{expected dictionary attribute for optimization_hints entry `sm_90`}}
    %v, %t = load_ptr_tko weak %p optimization_hints = <sm_90 = 3> : tile<8xptr<f32>> -> tile<8xf32>, token
    return
  }
}

// -----

// Without the hint flags an unknown target, key or value is not reported.
cuda_tile.module @hint_silent_by_default {
  entry @kernel() optimization_hints=<sm_42 = {occupancy = 99}, sm_90 = {num_cta_in_cga = 3, colour = 1}> {
    return
  }
}
