// RUN: tilec opt %s --split-input-file --verify-diagnostics
// Pointer loads and stores (types, masks, padding, orderings and scopes),
// alloca, pack/unpack.

cuda_tile.module @mem_load_pointee {
  testing$func @load_pointee(%p: tile<8xptr<f32>>) {
    // expected-error @below {{'cuda_tile.load_ptr_tko' op failed to verify that `source` type is expected a pointer type of `result` type}}
    %v, %t = load_ptr_tko weak %p : tile<8xptr<f32>> -> tile<8xf16>, token
    return
  }
}

// -----

cuda_tile.module @mem_load_shape {
  testing$func @load_shape(%p: tile<8xptr<f32>>) {
    // expected-error @below {{failed to verify that `source` type is expected a pointer type of `result` type}}
    %v, %t = load_ptr_tko weak %p : tile<8xptr<f32>> -> tile<16xf32>, token
    return
  }
}

// -----

cuda_tile.module @mem_load_mask {
  testing$func @load_mask(%p: tile<8xptr<f32>>, %m: tile<4xi1>) {
    // expected-error @below {{'cuda_tile.load_ptr_tko' op failed to verify that shape of 'mask' must match the shape of 'source'}}
    %v, %t = load_ptr_tko weak %p, %m : tile<8xptr<f32>>, tile<4xi1> -> tile<8xf32>, token
    return
  }
}

// -----

cuda_tile.module @mem_load_mask_type {
  testing$func @load_int_mask(%p: tile<8xptr<f32>>, %m: tile<8xi8>) {
    // expected-error @below {{'cuda_tile.load_ptr_tko' op operand #1 must be tile of i1 values, but got '!cuda_tile.tile<8xi8>'}}
    %v, %t = load_ptr_tko weak %p, %m : tile<8xptr<f32>>, tile<8xi8> -> tile<8xf32>, token
    return
  }
}

// -----

cuda_tile.module @mem_load_padding {
  testing$func @load_padding(%p: tile<8xptr<f32>>, %m: tile<8xi1>, %pad: tile<8xf16>) {
    // expected-error @below {{'cuda_tile.load_ptr_tko' op failed to verify that type of 'paddingValue' must match the type of 'result'}}
    %v, %t = load_ptr_tko weak %p, %m, %pad : tile<8xptr<f32>>, tile<8xi1>, tile<8xf16> -> tile<8xf32>, token
    return
  }
}

// -----

cuda_tile.module @mem_load_release {
  testing$func @load_release(%p: tile<8xptr<f32>>) {
    // expected-error @below {{'cuda_tile.load_ptr_tko' op expect one of: weak, relaxed, or acquire, but got: release}}
    %v, %t = load_ptr_tko release device %p : tile<8xptr<f32>> -> tile<8xf32>, token
    return
  }
}

// -----

cuda_tile.module @mem_load_acq_rel {
  testing$func @load_acq_rel(%p: tile<8xptr<f32>>) {
    // expected-error @below {{'cuda_tile.load_ptr_tko' op expect one of: weak, relaxed, or acquire, but got: acq_rel}}
    %v, %t = load_ptr_tko acq_rel sys %p : tile<8xptr<f32>> -> tile<8xf32>, token
    return
  }
}

// -----

cuda_tile.module @mem_load_weak_scope {
  testing$func @load_weak_scoped(%p: tile<8xptr<f32>>) {
    // expected-error @below {{'cuda_tile.load_ptr_tko' op weak load must not have memory scope}}
    %v, %t = load_ptr_tko weak tl_blk %p : tile<8xptr<f32>> -> tile<8xf32>, token
    return
  }
}

// -----

cuda_tile.module @mem_load_needs_scope {
  testing$func @load_acquire_unscoped(%p: tile<8xptr<f32>>) {
    // expected-error @below {{'cuda_tile.load_ptr_tko' op memory scope is required for acquire load}}
    %v, %t = load_ptr_tko acquire %p : tile<8xptr<f32>> -> tile<8xf32>, token
    return
  }
}

// -----

cuda_tile.module @mem_load_relaxed_scope {
  testing$func @load_relaxed_unscoped(%p: tile<ptr<i32>>) {
    // expected-error @below {{memory scope is required for relaxed load}}
    %v, %t = load_ptr_tko relaxed %p : tile<ptr<i32>> -> tile<i32>, token
    return
  }
}

// -----

cuda_tile.module @mem_load_not_ptr {
  testing$func @load_from_ints(%p: tile<8xi64>) {
    // expected-error @below {{'cuda_tile.load_ptr_tko' op operand #0 must be tile of Pointer type values, but got '!cuda_tile.tile<8xi64>'}}
    %v, %t = load_ptr_tko weak %p : tile<8xi64> -> tile<8xi64>, token
    return
  }
}

// -----

cuda_tile.module @mem_store_pointee {
  testing$func @store_pointee(%p: tile<4xptr<i32>>, %v: tile<4xi64>) {
    // expected-error @below {{'cuda_tile.store_ptr_tko' op failed to verify that `destination` type is expected a pointer type of `value` type}}
    %t = store_ptr_tko weak %p, %v : tile<4xptr<i32>>, tile<4xi64> -> token
    return
  }
}

// -----

cuda_tile.module @mem_store_mask {
  testing$func @store_mask(%p: tile<4xptr<i32>>, %v: tile<4xi32>, %m: tile<2xi1>) {
    // expected-error @below {{'cuda_tile.store_ptr_tko' op failed to verify that shape of 'destination' must match the shape of 'mask'}}
    %t = store_ptr_tko weak %p, %v, %m : tile<4xptr<i32>>, tile<4xi32>, tile<2xi1> -> token
    return
  }
}

// -----

cuda_tile.module @mem_store_acquire {
  testing$func @store_acquire(%p: tile<4xptr<i32>>, %v: tile<4xi32>) {
    // expected-error @below {{'cuda_tile.store_ptr_tko' op expect one of: weak, relaxed, or release, but got: acquire}}
    %t = store_ptr_tko acquire device %p, %v : tile<4xptr<i32>>, tile<4xi32> -> token
    return
  }
}

// -----

cuda_tile.module @mem_store_weak_scope {
  testing$func @store_weak_scoped(%p: tile<4xptr<i32>>, %v: tile<4xi32>) {
    // expected-error @below {{'cuda_tile.store_ptr_tko' op weak store must not have memory scope}}
    %t = store_ptr_tko weak sys %p, %v : tile<4xptr<i32>>, tile<4xi32> -> token
    return
  }
}

// -----

cuda_tile.module @mem_store_needs_scope {
  testing$func @store_release_unscoped(%p: tile<4xptr<i32>>, %v: tile<4xi32>) {
    // expected-error @below {{'cuda_tile.store_ptr_tko' op memory scope is required for release store}}
    %t = store_ptr_tko release %p, %v : tile<4xptr<i32>>, tile<4xi32> -> token
    return
  }
}

// -----

cuda_tile.module @mem_alloca_align_pow2 {
  testing$func @alloca_align3() {
    // expected-error @below {{'cuda_tile.alloca' op 'alignment' must be power of two}}
    %p = alloca num_elem = 8, alignment = 12 : tile<ptr<f32>>
    return
  }
}

// -----

cuda_tile.module @mem_alloca_align_zero {
  testing$func @alloca_align0() {
    // expected-error @below {{'cuda_tile.alloca' op 'alignment' must be power of two}}
    %p = alloca num_elem = 8, alignment = 0 : tile<ptr<i8>>
    return
  }
}

// -----

cuda_tile.module @mem_alloca_align_small {
  testing$func @alloca_under_aligned() {
    // expected-error @below {{'cuda_tile.alloca' op 'alignment' (4) must be at least the natural size (8 bytes) for element type 'f64'}}
    %p = alloca num_elem = 2, alignment = 4 : tile<ptr<f64>>
    return
  }
}

// -----

cuda_tile.module @mem_alloca_result {
  testing$func @alloca_vector() {
    // expected-error @below {{'cuda_tile.alloca' op result #0 must be 0D tile of Pointer type values, but got '!cuda_tile.tile<2xptr<f32>>'}}
    %p = alloca num_elem = 2, alignment = 8 : tile<2xptr<f32>>
    return
  }
}

// -----

cuda_tile.module @mem_pack_rank {
  testing$func @pack_2d(%v: tile<2x4xf16>) {
    // expected-error @below {{'cuda_tile.pack' op expects source and result to be rank-1 tiles}}
    %r = pack %v : tile<2x4xf16> -> tile<2x8xi8>
    return
  }
}

// -----

cuda_tile.module @mem_pack_same_width {
  testing$func @pack_bytes(%v: tile<16xi8>) {
    // expected-error @below {{'cuda_tile.pack' op expects source and result to have different element type widths}}
    %r = pack %v : tile<16xi8> -> tile<16xi8>
    return
  }
}

// -----

cuda_tile.module @mem_pack_size {
  testing$func @pack_size(%v: tile<8xf16>) {
    // expected-error @below {{'cuda_tile.pack' op expects source and result to have the same size in bytes, but got source tile size 16 bytes and result tile size 8 bytes}}
    %r = pack %v : tile<8xf16> -> tile<8xi8>
    return
  }
}

// -----

cuda_tile.module @mem_pack_unaligned {
  testing$func @pack_four_bits(%v: tile<4xi1>) {
    // expected-error @below {{'cuda_tile.pack' op expects source tile to be byte-aligned}}
    %r = pack %v : tile<4xi1> -> tile<1xi8>
    return
  }
}

// -----

cuda_tile.module @mem_pack_result {
  testing$func @pack_into_i16(%v: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.pack' op result #0 must be tile of i8 values, but got '!cuda_tile.tile<16xi16>'}}
    %r = pack %v : tile<8xf32> -> tile<16xi16>
    return
  }
}

// -----

cuda_tile.module @mem_unpack_size {
  testing$func @unpack_size(%v: tile<16xi8>) {
    // expected-error @below {{'cuda_tile.unpack' op expects source and result to have the same size in bytes, but got source tile size 16 bytes and result tile size 32 bytes}}
    %r = unpack %v : tile<16xi8> -> tile<8xf32>
    return
  }
}

// -----

cuda_tile.module @mem_unpack_unaligned {
  testing$func @unpack_two_bits(%v: tile<1xi8>) {
    // expected-error @below {{'cuda_tile.unpack' op expects result tile to be byte-aligned}}
    %r = unpack %v : tile<1xi8> -> tile<2xi1>
    return
  }
}

// -----

cuda_tile.module @mem_unpack_source {
  testing$func @unpack_from_f16(%v: tile<16xf16>) {
    // expected-error @below {{'cuda_tile.unpack' op operand #0 must be tile of i8 values, but got '!cuda_tile.tile<16xf16>'}}
    %r = unpack %v : tile<16xf16> -> tile<8xf32>
    return
  }
}
