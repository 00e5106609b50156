// RUN: tilec opt %s --split-input-file --verify-diagnostics
// mmaf, mmai, mmaf_scaled: element-type combinations, ranks, M/N/K/batch
// agreement, scale block sizes.

cuda_tile.module @mma_f16_f64 {
  testing$func @f16_into_f64(%a: tile<16x16xf16>, %c: tile<16x16xf64>) {
    // expected-error @below {{'cuda_tile.mmaf' op unsupported combination of element types. Input type 'f16' expects accumulator/result type to be one of {'f16', 'f32'}, but got 'f64'}}
    %r = mmaf %a, %a, %c : tile<16x16xf16>, tile<16x16xf16>, tile<16x16xf64>
    return
  }
}

// -----

cuda_tile.module @mma_bf16_f16 {
  testing$func @bf16_into_f16(%a: tile<16x16xbf16>, %c: tile<16x16xf16>) {
    // expected-error @below {{'cuda_tile.mmaf' op unsupported combination of element types. Input type 'bf16' expects accumulator/result type to be one of {'f32'}, but got 'f16'}}
    %r = mmaf %a, %a, %c : tile<16x16xbf16>, tile<16x16xbf16>, tile<16x16xf16>
    return
  }
}

// -----

cuda_tile.module @mma_f64_f32 {
  testing$func @f64_into_f32(%a: tile<8x8xf64>, %c: tile<8x8xf32>) {
    // expected-error @below {{Input type 'f64' expects accumulator/result type to be one of {'f64'}, but got 'f32'}}
    %r = mmaf %a, %a, %c : tile<8x8xf64>, tile<8x8xf64>, tile<8x8xf32>
    return
  }
}

// -----

cuda_tile.module @mma_rank1 {
  testing$func @vectors(%a: tile<16xf16>, %c: tile<16xf32>) {
    // expected-error @below {{'cuda_tile.mmaf' op expects lhs, rhs and acc to be 2D or 3D tiles, but got rank 1}}
    %r = mmaf %a, %a, %c : tile<16xf16>, tile<16xf16>, tile<16xf32>
    return
  }
}

// -----

cuda_tile.module @mma_rank_mix {
  testing$func @rank_mix(%a: tile<16x16xf16>, %b: tile<2x16x16xf16>, %c: tile<16x16xf32>) {
    // expected-error @below {{'cuda_tile.mmaf' op failed to verify that all of {lhs, rhs, acc} have same rank}}
    %r = mmaf %a, %b, %c : tile<16x16xf16>, tile<2x16x16xf16>, tile<16x16xf32>
    return
  }
}

// -----

cuda_tile.module @mma_k {
  testing$func @k_mismatch(%a: tile<8x16xf16>, %b: tile<32x8xf16>, %c: tile<8x8xf32>) {
    // expected-error @below {{'cuda_tile.mmaf' op shape error: dim 1 of lhs (16) and dim 0 of rhs (32) must match, but got lhs shape (8, 16) and rhs shape (32, 8)}}
    %r = mmaf %a, %b, %c : tile<8x16xf16>, tile<32x8xf16>, tile<8x8xf32>
    return
  }
}

// -----

cuda_tile.module @mma_m {
  testing$func @m_mismatch(%a: tile<8x16xf16>, %b: tile<16x8xf16>, %c: tile<16x8xf32>) {
    // expected-error @below {{'cuda_tile.mmaf' op shape error: dim 0 of lhs (8) and dim 0 of acc (16) must match, but got lhs shape (8, 16) and acc shape (16, 8)}}
    %r = mmaf %a, %b, %c : tile<8x16xf16>, tile<16x8xf16>, tile<16x8xf32>
    return
  }
}

// -----

cuda_tile.module @mma_n {
  testing$func @n_mismatch(%a: tile<8x16xf16>, %b: tile<16x8xf16>, %c: tile<8x4xf32>) {
    // expected-error @below {{'cuda_tile.mmaf' op shape error: dim 1 of rhs (8) and dim 1 of acc (4) must match, but got rhs shape (16, 8) and acc shape (8, 4)}}
    %r = mmaf %a, %b, %c : tile<8x16xf16>, tile<16x8xf16>, tile<8x4xf32>
    return
  }
}

// -----

cuda_tile.module @mma_batch {
  testing$func @batch_mismatch(%a: tile<2x8x16xf16>, %b: tile<4x16x8xf16>, %c: tile<2x8x8xf32>) {
    // expected-error @below {{'cuda_tile.mmaf' op shape error: dim 0 of lhs (2) and dim 0 of rhs (4) must match, but got lhs shape (2, 8, 16) and rhs shape (4, 16, 8)}}
    %r = mmaf %a, %b, %c : tile<2x8x16xf16>, tile<4x16x8xf16>, tile<2x8x8xf32>
    return
  }
}

// -----

cuda_tile.module @mma_batch_acc {
  testing$func @batch_acc(%a: tile<2x8x16xf16>, %b: tile<2x16x8xf16>, %c: tile<4x8x8xf32>) {
    // expected-error @below {{'cuda_tile.mmaf' op shape error: dim 0 of lhs (2) and dim 0 of acc (4) must match, but got lhs shape (2, 8, 16) and acc shape (4, 8, 8)}}
    %r = mmaf %a, %b, %c : tile<2x8x16xf16>, tile<2x16x8xf16>, tile<4x8x8xf32>
    return
  }
}

// -----

cuda_tile.module @mma_elt_mix {
  testing$func @elt_mix(%a: tile<8x8xf16>, %b: tile<8x8xbf16>, %c: tile<8x8xf32>) {
    // expected-error @below {{'cuda_tile.mmaf' op failed to verify that all of {lhs, rhs} have the same element type}}
    %r = mmaf %a, %b, %c : tile<8x8xf16>, tile<8x8xbf16>, tile<8x8xf32>
    return
  }
}

// -----

cuda_tile.module @mma_int_operand {
  testing$func @mmaf_ints(%a: tile<8x8xi8>, %c: tile<8x8xf32>) {
    // expected-error @below {{'cuda_tile.mmaf' op operand #0 must be mmaf operand tile type of f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 values, but got '!cuda_tile.tile<8x8xi8>'}}
    %r = mmaf %a, %a, %c : tile<8x8xi8>, tile<8x8xi8>, tile<8x8xf32>
    return
  }
}

// -----

cuda_tile.module @mma_bf16_acc {
  testing$func @bf16_acc(%a: tile<8x8xbf16>, %c: tile<8x8xbf16>) {
    // expected-error @below {{'cuda_tile.mmaf' op operand #2 must be mmaf acc/result tile type of f16 or f32 or f64 values, but got '!cuda_tile.tile<8x8xbf16>'}}
    %r = mmaf %a, %a, %c : tile<8x8xbf16>, tile<8x8xbf16>, tile<8x8xbf16>
    return
  }
}

// -----

cuda_tile.module @mmai_float {
  testing$func @mmai_f16(%a: tile<8x8xf16>, %c: tile<8x8xi32>) {
    // expected-error @below {{'cuda_tile.mmai' op operand #0 must be mmai operand tile type of i8 values, but got '!cuda_tile.tile<8x8xf16>'}}
    %r = mmai %a, %a, %c signed unsigned : tile<8x8xf16>, tile<8x8xf16>, tile<8x8xi32>
    return
  }
}

// -----

cuda_tile.module @mmai_acc {
  testing$func @mmai_i16_acc(%a: tile<8x8xi8>, %c: tile<8x8xi16>) {
    // expected-error @below {{'cuda_tile.mmai' op operand #2 must be mmai acc tile type of i32 values, but got '!cuda_tile.tile<8x8xi16>'}}
    %r = mmai %a, %a, %c signed signed : tile<8x8xi8>, tile<8x8xi8>, tile<8x8xi16>
    return
  }
}

// -----

cuda_tile.module @mmai_k {
  testing$func @mmai_k(%a: tile<16x32xi8>, %b: tile<16x16xi8>, %c: tile<16x16xi32>) {
    // expected-error @below {{'cuda_tile.mmai' op shape error: dim 1 of lhs (32) and dim 0 of rhs (16) must match, but got lhs shape (16, 32) and rhs shape (16, 16)}}
    %r = mmai %a, %b, %c unsigned unsigned : tile<16x32xi8>, tile<16x16xi8>, tile<16x16xi32>
    return
  }
}

// -----

cuda_tile.module @mmai_rank4 {
  testing$func @mmai_rank4(%a: tile<2x2x8x8xi8>, %c: tile<2x2x8x8xi32>) {
    // expected-error @below {{'cuda_tile.mmai' op expects lhs, rhs and acc to be 2D or 3D tiles, but got rank 4}}
    %r = mmai %a, %a, %c signed signed : tile<2x2x8x8xi8>, tile<2x2x8x8xi8>, tile<2x2x8x8xi32>
    return
  }
}

// -----

cuda_tile.module @scaled_e4m3_scale {
  testing$func @e4m3_scale_needs_f4(%a: tile<32x64xf8E5M2>, %c: tile<32x32xf32>, %sa: tile<32x2xf8E4M3FN>, %sb: tile<2x32xf8E4M3FN>) {
    // expected-error @below {{'cuda_tile.mmaf_scaled' op unsupported combination of element types. Scale type 'f8E4M3FN' expects lhs and rhs element types to be 'f4E2M1FN', but got 'f8E5M2'}}
    %r = mmaf_scaled %a, %a, %c, %sa, %sb : tile<32x64xf8E5M2>, tile<32x64xf8E5M2>, tile<32x32xf32>, tile<32x2xf8E4M3FN>, tile<2x32xf8E4M3FN>
    return
  }
}

// -----

cuda_tile.module @scaled_f8_block {
  testing$func @f8_block_16(%a: tile<32x64xf8E4M3FN>, %b: tile<64x32xf8E4M3FN>, %c: tile<32x32xf32>, %sa: tile<32x4xf8E8M0FNU>, %sb: tile<4x32xf8E8M0FNU>) {
    // expected-error @below {{'cuda_tile.mmaf_scaled' op shape error: f8 element type requires block scale factor of lhs_scale and rhs_scale to be 32, but got 16}}
    %r = mmaf_scaled %a, %b, %c, %sa, %sb : tile<32x64xf8E4M3FN>, tile<64x32xf8E4M3FN>, tile<32x32xf32>, tile<32x4xf8E8M0FNU>, tile<4x32xf8E8M0FNU>
    return
  }
}

// -----

cuda_tile.module @scaled_f4_block {
  testing$func @f4_e4m3_block_32(%a: tile<32x64xf4E2M1FN>, %b: tile<64x32xf4E2M1FN>, %c: tile<32x32xf32>, %sa: tile<32x2xf8E4M3FN>, %sb: tile<2x32xf8E4M3FN>) {
    // expected-error @below {{'cuda_tile.mmaf_scaled' op shape error: f4E2M1FN element type with f8E4M3FN scales requires block scale factor of lhs_scale and rhs_scale to be 16, but got 32}}
    %r = mmaf_scaled %a, %b, %c, %sa, %sb : tile<32x64xf4E2M1FN>, tile<64x32xf4E2M1FN>, tile<32x32xf32>, tile<32x2xf8E4M3FN>, tile<2x32xf8E4M3FN>
    return
  }
}

// -----

cuda_tile.module @scaled_lhs_scale_rows {
  testing$func @lhs_scale_rows(%a: tile<32x64xf8E4M3FN>, %b: tile<64x32xf8E4M3FN>, %c: tile<32x32xf32>, %sa: tile<16x2xf8E8M0FNU>, %sb: tile<2x32xf8E8M0FNU>) {
    // expected-error @below {{'cuda_tile.mmaf_scaled' op shape error: dim 0 of lhs (32) and dim 0 of lhs_scale (16) must match, but got lhs shape (32, 64) and lhs_scale shape (16, 2)}}
    %r = mmaf_scaled %a, %b, %c, %sa, %sb : tile<32x64xf8E4M3FN>, tile<64x32xf8E4M3FN>, tile<32x32xf32>, tile<16x2xf8E8M0FNU>, tile<2x32xf8E8M0FNU>
    return
  }
}

// -----

cuda_tile.module @scaled_scale_k {
  testing$func @scale_k(%a: tile<32x64xf8E4M3FN>, %b: tile<64x32xf8E4M3FN>, %c: tile<32x32xf32>, %sa: tile<32x2xf8E8M0FNU>, %sb: tile<4x32xf8E8M0FNU>) {
    // expected-error @below {{'cuda_tile.mmaf_scaled' op shape error: dim 1 of lhs_scale (2) and dim 0 of rhs_scale (4) must match, but got lhs_scale shape (32, 2) and rhs_scale shape (4, 32)}}
    %r = mmaf_scaled %a, %b, %c, %sa, %sb : tile<32x64xf8E4M3FN>, tile<64x32xf8E4M3FN>, tile<32x32xf32>, tile<32x2xf8E8M0FNU>, tile<4x32xf8E8M0FNU>
    return
  }
}

// -----

cuda_tile.module @scaled_scale_types {
  testing$func @scale_types(%a: tile<32x64xf4E2M1FN>, %b: tile<64x32xf4E2M1FN>, %c: tile<32x32xf32>, %sa: tile<32x4xf8E8M0FNU>, %sb: tile<4x32xf8E4M3FN>) {
    // expected-error @below {{'cuda_tile.mmaf_scaled' op failed to verify that all of {lhs_scale, rhs_scale} have the same element type}}
    %r = mmaf_scaled %a, %b, %c, %sa, %sb : tile<32x64xf4E2M1FN>, tile<64x32xf4E2M1FN>, tile<32x32xf32>, tile<32x4xf8E8M0FNU>, tile<4x32xf8E4M3FN>
    return
  }
}

// -----

cuda_tile.module @scaled_f16_operand {
  testing$func @scaled_f16(%a: tile<32x64xf16>, %c: tile<32x32xf32>, %sa: tile<32x2xf8E8M0FNU>, %sb: tile<2x32xf8E8M0FNU>) {
    // expected-error @below {{'cuda_tile.mmaf_scaled' op operand #0 must be mmaf_scaled operand tile type of f8E4M3FN or f8E5M2 or f4E2M1FN values, but got '!cuda_tile.tile<32x64xf16>'}}
    %r = mmaf_scaled %a, %a, %c, %sa, %sb : tile<32x64xf16>, tile<32x64xf16>, tile<32x32xf32>, tile<32x2xf8E8M0FNU>, tile<2x32xf8E8M0FNU>
    return
  }
}

// -----

cuda_tile.module @scaled_f16_acc {
  testing$func @scaled_f16_acc(%a: tile<32x64xf8E4M3FN>, %b: tile<64x32xf8E4M3FN>, %c: tile<32x32xf16>, %sa: tile<32x2xf8E8M0FNU>, %sb: tile<2x32xf8E8M0FNU>) {
    // expected-error @below {{'cuda_tile.mmaf_scaled' op operand #2 must be mmaf_scaled result tile type of f32 values, but got '!cuda_tile.tile<32x32xf16>'}}
    %r = mmaf_scaled %a, %b, %c, %sa, %sb : tile<32x64xf8E4M3FN>, tile<64x32xf8E4M3FN>, tile<32x32xf16>, tile<32x2xf8E8M0FNU>, tile<2x32xf8E8M0FNU>
    return
  }
}
