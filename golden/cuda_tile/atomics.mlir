// RUN: tilec opt %s --split-input-file --verify-diagnostics
// atomic_cas_tko, atomic_rmw_tko, atomic_red_view_tko: element types per
// mode, shapes, masks, orderings and scopes.

cuda_tile.module @atom_cas_pointee {
  testing$func @cas_pointee(%p: tile<8xptr<f32>>, %v: tile<8xi32>) {
    // expected-error @below {{'cuda_tile.atomic_cas_tko' op expected pointee type ('f32') to match element type of 'val' ('i32')}}
    %r, %t = atomic_cas_tko relaxed device %p, %v, %v : tile<8xptr<f32>>, tile<8xi32> -> tile<8xi32>, token
    return
  }
}

// -----

cuda_tile.module @atom_cas_width {
  testing$func @cas_f16(%p: tile<8xptr<f16>>, %v: tile<8xf16>) {
    // expected-error @below {{'cuda_tile.atomic_cas_tko' op expect only float or integer types with 32 or 64 bit}}
    %r, %t = atomic_cas_tko acquire sys %p, %v, %v : tile<8xptr<f16>>, tile<8xf16> -> tile<8xf16>, token
    return
  }
}

// -----

cuda_tile.module @atom_cas_mask {
  testing$func @cas_mask(%p: tile<8xptr<i64>>, %v: tile<8xi64>, %m: tile<4xi1>) {
    // expected-error @below {{'cuda_tile.atomic_cas_tko' op failed to verify that all of {pointers, val, cmp and mask} have same shape}}
    %r, %t = atomic_cas_tko acq_rel device %p, %v, %v, %m : tile<8xptr<i64>>, tile<8xi64>, tile<4xi1> -> tile<8xi64>, token
    return
  }
}

// -----

cuda_tile.module @atom_cas_shape {
  testing$func @cas_shape(%p: tile<8xptr<i64>>, %v: tile<4xi64>) {
    // expected-error @below {{'cuda_tile.atomic_cas_tko' op failed to verify that all of {pointers, cmp, val, result} have same shape}}
    %r, %t = atomic_cas_tko relaxed device %p, %v, %v : tile<8xptr<i64>>, tile<4xi64> -> tile<4xi64>, token
    return
  }
}

// -----

cuda_tile.module @atom_cas_weak {
  testing$func @cas_weak(%p: tile<8xptr<i32>>, %v: tile<8xi32>) {
    // expected-error @below {{'cuda_tile.atomic_cas_tko' op memory ordering semantics must be one of: relaxed, acquire, release, acq_rel}}
    %r, %t = "cuda_tile.atomic_cas_tko"(%p, %v, %v) <{memory_ordering_semantics = 0 : i32, memory_scope = 1 : i32, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (tile<8xptr<i32>>, tile<8xi32>, tile<8xi32>) -> (tile<8xi32>, token)
    return
  }
}

// -----

cuda_tile.module @atom_cas_cmp {
  testing$func @cas_cmp_type(%p: tile<8xptr<i32>>, %c: tile<8xi64>, %v: tile<8xi32>) {
    // expected-error @below {{'cuda_tile.atomic_cas_tko' op failed to verify that all of {cmp, val, result} have same type}}
    %r, %t = "cuda_tile.atomic_cas_tko"(%p, %c, %v) <{memory_ordering_semantics = 1 : i32, memory_scope = 1 : i32, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (tile<8xptr<i32>>, tile<8xi64>, tile<8xi32>) -> (tile<8xi32>, token)
    return
  }
}

// -----

cuda_tile.module @atom_rmw_add_float {
  testing$func @rmw_add_f32(%p: tile<8xptr<f32>>, %v: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.atomic_rmw_tko' op 'add' works only with integers i32 and i64}}
    %r, %t = atomic_rmw_tko relaxed device %p, add, %v : tile<8xptr<f32>>, tile<8xf32> -> tile<8xf32>, token
    return
  }
}

// -----

cuda_tile.module @atom_rmw_umin_i16 {
  testing$func @rmw_umin_i16(%p: tile<8xptr<i16>>, %v: tile<8xi16>) {
    // expected-error @below {{'cuda_tile.atomic_rmw_tko' op 'umin' works only with integers i32 and i64}}
    %r, %t = atomic_rmw_tko relaxed device %p, umin, %v : tile<8xptr<i16>>, tile<8xi16> -> tile<8xi16>, token
    return
  }
}

// -----

cuda_tile.module @atom_rmw_addf_int {
  testing$func @rmw_addf_i32(%p: tile<8xptr<i32>>, %v: tile<8xi32>) {
    // expected-error @below {{'cuda_tile.atomic_rmw_tko' op 'addf' works only with floats f16, bf16, f32, and f64}}
    %r, %t = atomic_rmw_tko release tl_blk %p, addf, %v : tile<8xptr<i32>>, tile<8xi32> -> tile<8xi32>, token
    return
  }
}

// -----

cuda_tile.module @atom_rmw_xchg_f16 {
  testing$func @rmw_xchg_f16(%p: tile<8xptr<f16>>, %v: tile<8xf16>) {
    // expected-error @below {{'cuda_tile.atomic_rmw_tko' op 'xchg' works only with integers or float of 32 or 64 bitwidth}}
    %r, %t = atomic_rmw_tko acq_rel sys %p, xchg, %v : tile<8xptr<f16>>, tile<8xf16> -> tile<8xf16>, token
    return
  }
}

// -----

cuda_tile.module @atom_rmw_pointee {
  testing$func @rmw_pointee(%p: tile<8xptr<i64>>, %v: tile<8xi32>) {
    // expected-error @below {{'cuda_tile.atomic_rmw_tko' op expected pointee type ('i64') to match element type of 'arg' ('i32')}}
    %r, %t = atomic_rmw_tko relaxed device %p, max, %v : tile<8xptr<i64>>, tile<8xi32> -> tile<8xi32>, token
    return
  }
}

// -----

cuda_tile.module @atom_rmw_mask {
  testing$func @rmw_mask(%p: tile<8xptr<i32>>, %v: tile<8xi32>, %m: tile<16xi1>) {
    // expected-error @below {{'cuda_tile.atomic_rmw_tko' op failed to verify that all of {pointers, arg, mask} have same shape}}
    %r, %t = atomic_rmw_tko relaxed device %p, or, %v, %m : tile<8xptr<i32>>, tile<8xi32>, tile<16xi1> -> tile<8xi32>, token
    return
  }
}

// -----

cuda_tile.module @atom_rmw_shape {
  testing$func @rmw_shape(%p: tile<8xptr<i32>>, %v: tile<2x4xi32>) {
    // expected-error @below {{'cuda_tile.atomic_rmw_tko' op failed to verify that all of {pointers, arg, result} have same shape}}
    %r, %t = atomic_rmw_tko relaxed device %p, xor, %v : tile<8xptr<i32>>, tile<2x4xi32> -> tile<2x4xi32>, token
    return
  }
}

// -----

cuda_tile.module @atom_rmw_weak {
  testing$func @rmw_weak(%p: tile<8xptr<i32>>, %v: tile<8xi32>) {
    // expected-error @below {{'cuda_tile.atomic_rmw_tko' op memory ordering semantics must be one of: relaxed, acquire, release, acq_rel}}
    %r, %t = "cuda_tile.atomic_rmw_tko"(%p, %v) <{memory_ordering_semantics = 0 : i32, memory_scope = 1 : i32, mode = 3 : i32, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (tile<8xptr<i32>>, tile<8xi32>) -> (tile<8xi32>, token)
    return
  }
}

// -----

cuda_tile.module @atom_red_gather {
  testing$func @red_gather(%gv: gather_scatter_view<tile=(4x4), tensor_view<64x4xi32, strides=[4,1]>, sparse_dim=0>, %v: tile<4x4xi32>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.atomic_red_view_tko' op gather_scatter_view is not supported; use partition_view instead}}
    %t = atomic_red_view_tko relaxed device %gv[%i, %i], add, %v : tile<4x4xi32>, gather_scatter_view<tile=(4x4), tensor_view<64x4xi32, strides=[4,1]>, sparse_dim=0>, tile<i32> -> token
    return
  }
}

// -----

cuda_tile.module @atom_red_padding {
  testing$func @red_padded(%pv: partition_view<tile=(8), padding_value = zero, tensor_view<64xf32, strides=[1]>>, %v: tile<8xf32>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.atomic_red_view_tko' op views with padding_value are not supported for atomic reductions}}
    %t = atomic_red_view_tko relaxed device %pv[%i], addf, %v : tile<8xf32>, partition_view<tile=(8), padding_value = zero, tensor_view<64xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}

// -----

cuda_tile.module @atom_red_elt {
  testing$func @red_elt(%pv: partition_view<tile=(8), tensor_view<64xi64, strides=[1]>>, %v: tile<8xi32>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.atomic_red_view_tko' op view element type ('i64') must match value element type ('i32')}}
    %t = atomic_red_view_tko relaxed device %pv[%i], add, %v : tile<8xi32>, partition_view<tile=(8), tensor_view<64xi64, strides=[1]>>, tile<i32> -> token
    return
  }
}

// -----

cuda_tile.module @atom_red_shape {
  testing$func @red_shape(%pv: partition_view<tile=(8x8), tensor_view<64x64xi32, strides=[64,1]>>, %v: tile<8x4xi32>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.atomic_red_view_tko' op view tile shape 8, 8 must match value shape 8, 4 for element-wise atomic operations}}
    %t = atomic_red_view_tko relaxed device %pv[%i, %i], min, %v : tile<8x4xi32>, partition_view<tile=(8x8), tensor_view<64x64xi32, strides=[64,1]>>, tile<i32> -> token
    return
  }
}

// -----

cuda_tile.module @atom_red_xchg {
  testing$func @red_xchg(%pv: partition_view<tile=(8), tensor_view<64xi32, strides=[1]>>, %v: tile<8xi32>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.atomic_red_view_tko' op atomic_red_view_tko op cannot use xchg operation}}
    %t = atomic_red_view_tko relaxed device %pv[%i], xchg, %v : tile<8xi32>, partition_view<tile=(8), tensor_view<64xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}

// -----

cuda_tile.module @atom_red_addf_int {
  testing$func @red_addf_int(%pv: partition_view<tile=(8), tensor_view<64xi64, strides=[1]>>, %v: tile<8xi64>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.atomic_red_view_tko' op 'addf' works only with floats f16, bf16, f32, and f64}}
    %t = atomic_red_view_tko relaxed device %pv[%i], addf, %v : tile<8xi64>, partition_view<tile=(8), tensor_view<64xi64, strides=[1]>>, tile<i32> -> token
    return
  }
}

// -----

cuda_tile.module @atom_red_ordering {
  testing$func @red_release(%pv: partition_view<tile=(8), tensor_view<64xi32, strides=[1]>>, %v: tile<8xi32>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.atomic_red_view_tko' op only 'relaxed' memory ordering is supported for view-based atomic reductions}}
    %t = atomic_red_view_tko release device %pv[%i], add, %v : tile<8xi32>, partition_view<tile=(8), tensor_view<64xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}

// -----

cuda_tile.module @atom_red_sys {
  testing$func @red_sys(%pv: partition_view<tile=(8), tensor_view<64xi32, strides=[1]>>, %v: tile<8xi32>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.atomic_red_view_tko' op memory scope 'sys' is not supported for view-based atomic reductions; use 'tl_blk' or 'device' for TMA compatibility}}
    %t = atomic_red_view_tko relaxed sys %pv[%i], umax, %v : tile<8xi32>, partition_view<tile=(8), tensor_view<64xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}

// -----

cuda_tile.module @atom_red_index_count {
  testing$func @red_indices(%pv: partition_view<tile=(8), tensor_view<64xi32, strides=[1]>>, %v: tile<8xi32>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.atomic_red_view_tko' op expected 1 index operand(s) for view with tile rank 1, got 2}}
    %t = atomic_red_view_tko relaxed device %pv[%i, %i], and, %v : tile<8xi32>, partition_view<tile=(8), tensor_view<64xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}

// -----

cuda_tile.module @atom_red_mode {
  testing$func @red_nand(%pv: partition_view<tile=(8), tensor_view<64xi32, strides=[1]>>, %v: tile<8xi32>, %i: tile<i32>) {
    // expected-error @below {{unknown atomic RMW mode: 'nand'; expected one of: and, or, xor, add, addf, max, min, umax, umin}}
    %t = atomic_red_view_tko relaxed device %pv[%i], nand, %v : tile<8xi32>, partition_view<tile=(8), tensor_view<64xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}
