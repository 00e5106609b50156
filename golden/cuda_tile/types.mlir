// RUN: tilec opt %s --split-input-file --verify-diagnostics
// Type invariants checked while parsing: tile, ptr, tensor_view,
// partition_view, strided_view, gather_scatter_view.

cuda_tile.module @ty_tile_pow2 {
  // expected-error @below {{all dimensions must be powers of two, got 3, 4}}
  testing$func @odd_dim(%a: tile<3x4xf32>) {
    return
  }
}

// -----

cuda_tile.module @ty_tile_pow2_late {
  // expected-error @below {{all dimensions must be powers of two, got 8, 8, 12}}
  testing$func @odd_last_dim(%a: tile<8x8x12xi16>) {
    return
  }
}

// -----

cuda_tile.module @ty_tile_too_big {
  // expected-error @below {{tile would exceed the maximum of 16777216 elements}}
  testing$func @huge(%a: tile<4096x8192xf32>) {
    return
  }
}

// -----

cuda_tile.module @ty_tile_f4_odd {
  // expected-error @below {{F4E2M1FN tiles must have an even number of elements}}
  testing$func @one_nibble(%a: tile<1xf4E2M1FN>) {
    return
  }
}

// -----

cuda_tile.module @ty_tile_f4_scalar {
  // expected-error @below {{F4E2M1FN tiles must have an even number of elements}}
  testing$func @scalar_nibble(%a: tile<f4E2M1FN>) {
    return
  }
}

// -----

cuda_tile.module @ty_tile_token {
  // expected-error @below {{failed to verify 'elementType': f16 or bf16 or f32 or tf32 or f64 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN or i1 or i8 or i16 or i32 or i64 or Pointer type}}
  testing$func @tile_of_tokens(%a: tile<4xtoken>) {
    return
  }
}

// -----

cuda_tile.module @ty_ptr_ptr {
  // expected-error @below {{failed to verify 'pointeeType': f16 or bf16 or f32 or tf32 or f64 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN or i1 or i8 or i16 or i32 or i64}}
  testing$func @ptr_to_ptr(%a: tile<ptr<ptr<f32>>>) {
    return
  }
}

// -----

cuda_tile.module @ty_tv_stride_rank {
  // expected-error @below {{expected shape and stride to be of same rank but got shape of rank 2 and stride of rank 1}}
  testing$func @tv_short_strides(%t: tensor_view<8x8xf32, strides=[1]>) {
    return
  }
}

// -----

cuda_tile.module @ty_tv_0d_strides {
  // expected-error @below {{strides must not be provided for 0-d tiles}}
  testing$func @tv_scalar_strides(%t: tensor_view<f32, strides=[]>) {
    return
  }
}

// -----

cuda_tile.module @ty_tv_no_strides {
  // expected-error @below {{expected 'strides'}}
  testing$func @tv_without_strides(%t: tensor_view<8xf32>) {
    return
  }
}

// -----

cuda_tile.module @ty_tv_zero_stride {
  // expected-error @below {{expected strictly positive integer, got 0}}
  testing$func @tv_zero_stride(%t: tensor_view<8x8xf32, strides=[8,0]>) {
    return
  }
}

// -----

cuda_tile.module @ty_tv_zero_dim {
  // expected-error @below {{dimensions must have strictly positive constant sizes but got [0, 4]}}
  testing$func @tv_zero_dim(%t: tensor_view<0x4xf32, strides=[4,1]>) {
    return
  }
}

// -----

cuda_tile.module @ty_tv_ptr_elt {
  // expected-error @below {{failed to verify 'elementType': f16 or bf16 or f32 or tf32 or f64 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN or i1 or i8 or i16 or i32 or i64}}
  testing$func @tv_of_ptrs(%t: tensor_view<8xptr<f32>, strides=[1]>) {
    return
  }
}

// -----

cuda_tile.module @ty_pv_rank {
  // expected-error @below {{expected tensor_view rank and tile rank to match, got tensor_view of rank 2 and tiles of rank 1}}
  testing$func @pv_rank(%v: partition_view<tile=(8), tensor_view<64x64xf32, strides=[64,1]>>) {
    return
  }
}

// -----

cuda_tile.module @ty_pv_0d {
  // expected-error @below {{0-dimension tile shape is not supported}}
  testing$func @pv_0d(%v: partition_view<tile=(), tensor_view<f32>>) {
    return
  }
}

// -----

cuda_tile.module @ty_pv_pow2 {
  // expected-error @below {{tile shape dimensions must have power of two length but got [8, 6]}}
  testing$func @pv_pow2(%v: partition_view<tile=(8x6), tensor_view<64x64xf32, strides=[64,1]>>) {
    return
  }
}

// -----

cuda_tile.module @ty_pv_dim_map_len {
  // expected-error @below {{expected dim_map to map exactly all 2 dimensions of the tile, got 1 mappings}}
  testing$func @pv_dim_map_len(%v: partition_view<tile=(8x8), tensor_view<64x64xf32, strides=[64,1]>, dim_map=[0]>) {
    return
  }
}

// -----

cuda_tile.module @ty_pv_dim_map_range {
  // expected-error @below {{target dimension is outside of tensor view dimensions, expected strictly less than 2, got 2}}
  testing$func @pv_dim_map_range(%v: partition_view<tile=(8x8), tensor_view<64x64xf32, strides=[64,1]>, dim_map=[0, 2]>) {
    return
  }
}

// -----

cuda_tile.module @ty_pv_dim_map_twice {
  // expected-error @below {{target dimension 1 mapped at least twice (for tile dimensions 0 and 1)}}
  testing$func @pv_dim_map_twice(%v: partition_view<tile=(8x8), tensor_view<64x64xf32, strides=[64,1]>, dim_map=[1, 1]>) {
    return
  }
}

// -----

cuda_tile.module @ty_pv_dim_map_negative {
  // expected-error @below {{target dimension must not be negative, got -1}}
  testing$func @pv_dim_map_negative(%v: partition_view<tile=(8x8), tensor_view<64x64xf32, strides=[64,1]>, dim_map=[-1, 0]>) {
    return
  }
}

// -----

cuda_tile.module @ty_pv_padding_int {
  // expected-error @below {{padding_value nan can only be used with floating point element types, got i32}}
  testing$func @pv_nan_ints(%v: partition_view<tile=(8), padding_value = nan, tensor_view<64xi32, strides=[1]>>) {
    return
  }
}

// -----

cuda_tile.module @ty_pv_padding_word {
  // expected-error @below {{unknown padding value 'one'}}
  testing$func @pv_padding_one(%v: partition_view<tile=(8), padding_value = one, tensor_view<64xf32, strides=[1]>>) {
    return
  }
}

// -----

cuda_tile.module @ty_pv_not_tv {
  // expected-error @below {{expected 'tensor_view' type, but got '!cuda_tile.tile<64xf32>'}}
  testing$func @pv_over_tile(%v: partition_view<tile=(8), tile<64xf32>>) {
    return
  }
}

// -----

cuda_tile.module @ty_sv_strides {
  // expected-error @below {{expected 2 traversal strides, got 1}}
  testing$func @sv_strides(%v: strided_view<tile=(4x4), traversal_strides=[4], tensor_view<16x16xf32, strides=[16,1]>>) {
    return
  }
}

// -----

cuda_tile.module @ty_sv_zero_stride {
  // expected-error @below {{traversal strides must be strictly positive but got [4, 0]}}
  testing$func @sv_zero(%v: strided_view<tile=(4x4), traversal_strides=[4,0], tensor_view<16x16xf32, strides=[16,1]>>) {
    return
  }
}

// -----

cuda_tile.module @ty_gsv_sparse_dim {
  // expected-error @below {{gather dimension is outside of tensor view dimensions, expected strictly less than 2, got 2}}
  testing$func @gsv_sparse(%v: gather_scatter_view<tile=(4x4), tensor_view<16x16xf32, strides=[16,1]>, sparse_dim=2>) {
    return
  }
}
