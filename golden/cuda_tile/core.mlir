// RUN: tilec opt %s --split-input-file --verify-diagnostics
// Core ops: constant, iota, broadcast, reshape, permute, cat, extract, select,
// offset, global/get_global, tile-block queries.

cuda_tile.module @core_constant_type {
  testing$func @splat_too_small() {
    // expected-error @below {{'cuda_tile.constant' op value type '!cuda_tile.tile<8xi16>' does not match result type '!cuda_tile.tile<16xi16>'}}
    %k = "cuda_tile.constant"() <{value = dense<7> : tile<8xi16>}> : () -> tile<16xi16>
    return
  }
}

// -----

cuda_tile.module @core_constant_elt {
  testing$func @elt_differs() {
    // expected-error @below {{value type '!cuda_tile.tile<4xf32>' does not match result type '!cuda_tile.tile<4xf16>'}}
    %k = "cuda_tile.constant"() <{value = dense<0.5> : tile<4xf32>}> : () -> tile<4xf16>
    return
  }
}

// -----

cuda_tile.module @core_constant_ptr {
  testing$func @pointer_constant() {
    // expected-error @below {{'cuda_tile.constant' op result #0 must be tile of i1 or i8 or i16 or i32 or i64 or f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN values, but got '!cuda_tile.tile<2xptr<f32>>'}}
    %k = "cuda_tile.constant"() <{value = dense<0> : tile<2xi64>}> : () -> tile<2xptr<f32>>
    return
  }
}

// -----

cuda_tile.module @core_iota_rank {
  testing$func @iota_2d() {
    // expected-error @below {{'cuda_tile.iota' op expects result type to be 1-d tile}}
    %r = iota : tile<8x8xi32>
    return
  }
}

// -----

cuda_tile.module @core_iota_scalar {
  testing$func @iota_0d() {
    // expected-error @below {{expects result type to be 1-d tile}}
    %r = iota : tile<i64>
    return
  }
}

// -----

cuda_tile.module @core_iota_overflow {
  testing$func @iota_i8_too_long() {
    // expected-error @below {{'cuda_tile.iota' op the number of elements 1024 exceeds the maximum value of element type 'i8'}}
    %r = iota : tile<1024xi8>
    return
  }
}

// -----

cuda_tile.module @core_iota_i1 {
  testing$func @iota_i1() {
    // expected-error @below {{the number of elements 4 exceeds the maximum value of element type 'i1'}}
    %r = iota : tile<4xi1>
    return
  }
}

// -----

cuda_tile.module @core_iota_float {
  testing$func @iota_float() {
    // expected-error @below {{'cuda_tile.iota' op result #0 must be tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<32xf32>'}}
    %r = iota : tile<32xf32>
    return
  }
}

// -----

cuda_tile.module @core_broadcast_rank {
  testing$func @grow_rank(%v: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.broadcast' op failed to verify that all of {source, result} have same rank}}
    %b = broadcast %v : tile<8xf32> -> tile<4x8xf32>
    return
  }
}

// -----

cuda_tile.module @core_broadcast_shape {
  testing$func @non_unit_dim(%v: tile<2x16xi32>) {
    // expected-error @below {{'cuda_tile.broadcast' op expects the shape of source tile to be compatible with that of the result tile, but got: 2, 16 and 4, 16}}
    %b = broadcast %v : tile<2x16xi32> -> tile<4x16xi32>
    return
  }
}

// -----

cuda_tile.module @core_broadcast_elt {
  testing$func @elt_changes(%v: tile<1x4xf32>) {
    // expected-error @below {{'cuda_tile.broadcast' op requires the same element type for all operands and results}}
    %b = broadcast %v : tile<1x4xf32> -> tile<8x4xf16>
    return
  }
}

// -----

cuda_tile.module @core_reshape_count {
  testing$func @lose_elements(%v: tile<4x8xf16>) {
    // expected-error @below {{'cuda_tile.reshape' op expected source tile and result tile to have the same number of elements}}
    %r = reshape %v : tile<4x8xf16> -> tile<16xf16>
    return
  }
}

// -----

cuda_tile.module @core_reshape_elt {
  testing$func @reshape_retype(%v: tile<4x8xi32>) {
    // expected-error @below {{'cuda_tile.reshape' op requires the same element type for all operands and results}}
    %r = reshape %v : tile<4x8xi32> -> tile<32xf32>
    return
  }
}

// -----

cuda_tile.module @core_permute_elt {
  testing$func @permute_retype(%v: tile<2x4xf32>) {
    // expected-error @below {{'cuda_tile.permute' op failed to verify that all of {source, result} have the same element type}}
    %p = permute %v [1, 0] : tile<2x4xf32> -> tile<4x2xi32>
    return
  }
}

// -----

cuda_tile.module @core_permute_rank {
  testing$func @permute_rank(%v: tile<2x4xf32>) {
    // expected-error @below {{'cuda_tile.permute' op failed to verify that all of {source, result} have same rank}}
    %p = permute %v [1, 0] : tile<2x4xf32> -> tile<8xf32>
    return
  }
}

// -----

cuda_tile.module @core_permute_rank1 {
  testing$func @permute_1d(%v: tile<16xi8>) {
    // expected-error @below {{'cuda_tile.permute' op expects at least rank 2, but got: 1}}
    %p = permute %v [0] : tile<16xi8> -> tile<16xi8>
    return
  }
}

// -----

cuda_tile.module @core_permute_size {
  testing$func @short_permutation(%v: tile<2x4x8xf32>) {
    // expected-error @below {{'cuda_tile.permute' op expect permutation size (2) to equal the rank of the source (3)}}
    %p = permute %v [1, 0] : tile<2x4x8xf32> -> tile<4x2x8xf32>
    return
  }
}

// -----

cuda_tile.module @core_permute_unique {
  testing$func @repeated_dim(%v: tile<4x4xf32>) {
    // expected-error @below {{'cuda_tile.permute' op expect permutation elements to be unique}}
    %p = permute %v [1, 1] : tile<4x4xf32> -> tile<4x4xf32>
    return
  }
}

// -----

cuda_tile.module @core_permute_bound {
  testing$func @dim_out_of_range(%v: tile<4x4xf32>) {
    // expected-error @below {{'cuda_tile.permute' op permutation element at index 1 (2) is out of bound [0, 2)}}
    %p = permute %v [0, 2] : tile<4x4xf32> -> tile<4x4xf32>
    return
  }
}

// -----

cuda_tile.module @core_permute_shape {
  testing$func @wrong_result_shape(%v: tile<2x8xf32>) {
    // expected-error @below {{'cuda_tile.permute' op result shape invalid at index 0, expected: 8, but got: 2}}
    %p = permute %v [1, 0] : tile<2x8xf32> -> tile<2x8xf32>
    return
  }
}

// -----

cuda_tile.module @core_cat_rank {
  testing$func @cat_rank(%a: tile<4xf32>, %b: tile<1x4xf32>) {
    // expected-error @below {{'cuda_tile.cat' op failed to verify that all of {lhs, rhs, result} have same rank}}
    %c = cat %a, %b dim = 0 : tile<4xf32>, tile<1x4xf32> -> tile<8xf32>
    return
  }
}

// -----

cuda_tile.module @core_cat_elt {
  testing$func @cat_elt(%a: tile<4xf32>, %b: tile<4xi32>) {
    // expected-error @below {{'cuda_tile.cat' op failed to verify that all of {lhs, rhs, result} have the same element type}}
    %c = cat %a, %b dim = 0 : tile<4xf32>, tile<4xi32> -> tile<8xf32>
    return
  }
}

// -----

cuda_tile.module @core_cat_dim {
  testing$func @cat_dim(%a: tile<2x4xf32>) {
    // expected-error @below {{'cuda_tile.cat' op expect dim to be [0, 2), but got: 2}}
    %c = cat %a, %a dim = 2 : tile<2x4xf32>, tile<2x4xf32> -> tile<2x8xf32>
    return
  }
}

// -----

cuda_tile.module @core_cat_extent {
  testing$func @cat_extent(%a: tile<2x4xf32>) {
    // expected-error @below {{'cuda_tile.cat' op invalid concat at position 1, expected: 8 but got: 16}}
    %c = cat %a, %a dim = 1 : tile<2x4xf32>, tile<2x4xf32> -> tile<2x16xf32>
    return
  }
}

// -----

cuda_tile.module @core_cat_operands {
  testing$func @cat_lhs_rhs(%a: tile<2x4xi16>, %b: tile<4x4xi16>) {
    // expected-error @below {{'cuda_tile.cat' op expect lhs and rhs shapes to match at non-concat position 0, expected: 2 but got: 4}}
    %c = cat %a, %b dim = 1 : tile<2x4xi16>, tile<4x4xi16> -> tile<2x8xi16>
    return
  }
}

// -----

cuda_tile.module @core_cat_result {
  testing$func @cat_lhs_result(%a: tile<2x4xi16>) {
    // expected-error @below {{'cuda_tile.cat' op expect lhs and result shapes to match at non-concat position 1, expected: 4 but got: 8}}
    %c = cat %a, %a dim = 0 : tile<2x4xi16>, tile<2x4xi16> -> tile<4x8xi16>
    return
  }
}

// -----

cuda_tile.module @core_extract_rank {
  testing$func @extract_rank(%v: tile<4x4xf32>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.extract' op failed to verify that all of {source, result} have same rank}}
    %e = extract %v[%i, %i] : tile<4x4xf32> -> tile<4xf32>
    return
  }
}

// -----

cuda_tile.module @core_extract_elt {
  testing$func @extract_elt(%v: tile<4x4xf32>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.extract' op source and result element type do not match}}
    %e = extract %v[%i, %i] : tile<4x4xf32> -> tile<2x2xf16>
    return
  }
}

// -----

cuda_tile.module @core_extract_divisible {
  testing$func @extract_bigger(%v: tile<4x4xf32>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.extract' op source dimension 1 size (4) must be evenly divisible by result dimension 1 size (8)}}
    %e = extract %v[%i, %i] : tile<4x4xf32> -> tile<2x8xf32>
    return
  }
}

// -----

cuda_tile.module @core_extract_count {
  testing$func @extract_indices(%v: tile<4x4xf32>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.extract' op expected 2 indices, but got 1}}
    %e = extract %v[%i] : tile<4x4xf32> -> tile<2x2xf32>
    return
  }
}

// -----

cuda_tile.module @core_extract_index_type {
  testing$func @extract_i64_index(%v: tile<8xf32>, %i: tile<i64>) {
    // expected-error @below {{'cuda_tile.extract' op operand #1 must be variadic of 0D tile of i32 values, but got '!cuda_tile.tile<i64>'}}
    %e = "cuda_tile.extract"(%v, %i) : (tile<8xf32>, tile<i64>) -> tile<4xf32>
    return
  }
}

// -----

cuda_tile.module @core_extract_oob {
  testing$func @extract_constant_oob(%v: tile<8xf32>) {
    %big = constant <i32: 5> : tile<i32>
    // expected-warning @below {{extract index 0 value 5 may be out of bounds (max valid index: 1)}}
    %e = extract %v[%big] : tile<8xf32> -> tile<4xf32>
    return
  }
}

// -----

cuda_tile.module @core_extract_negative {
  testing$func @extract_constant_negative(%v: tile<8xf32>) {
    %neg = constant <i32: -3> : tile<i32>
    // expected-warning @below {{extract index 0 has negative value -3, which may cause undefined behavior}}
    %e = extract %v[%neg] : tile<8xf32> -> tile<2xf32>
    return
  }
}

// -----

cuda_tile.module @core_select_shape {
  testing$func @select_shapes(%c: tile<4xi1>, %x: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.select' op failed to verify that all of {cond, val_if_true, val_if_false, result} have same shape}}
    %s = select %c, %x, %x : tile<4xi1>, tile<8xf32>
    return
  }
}

// -----

cuda_tile.module @core_select_cond {
  testing$func @select_int_cond(%c: tile<4xi8>, %x: tile<4xf32>) {
    // expected-error @below {{'cuda_tile.select' op operand #0 must be tile of i1 values, but got '!cuda_tile.tile<4xi8>'}}
    %s = select %c, %x, %x : tile<4xi8>, tile<4xf32>
    return
  }
}

// -----

cuda_tile.module @core_select_types {
  testing$func @select_mixed(%c: tile<4xi1>, %x: tile<4xf32>, %y: tile<4xf16>) {
    // expected-error @below {{'cuda_tile.select' op failed to verify that all of {val_if_true, val_if_false, result} have same type}}
    %s = "cuda_tile.select"(%c, %x, %y) : (tile<4xi1>, tile<4xf32>, tile<4xf16>) -> tile<4xf32>
    return
  }
}

// -----

cuda_tile.module @core_select_f4 {
  testing$func @select_f4(%c: tile<4xi1>, %x: tile<4xf4E2M1FN>) {
    // expected-error @below {{'cuda_tile.select' op cannot operate on sub-byte type F4E2M1FN}}
    %s = select %c, %x, %x : tile<4xi1>, tile<4xf4E2M1FN>
    return
  }
}

// -----

cuda_tile.module @core_offset_shape {
  testing$func @offset_shapes(%p: tile<8xptr<f32>>, %o: tile<4xi32>) {
    // expected-error @below {{'cuda_tile.offset' op requires the same shape for all operands and results}}
    %q = offset %p, %o : tile<8xptr<f32>>, tile<4xi32> -> tile<8xptr<f32>>
    return
  }
}

// -----

cuda_tile.module @core_offset_result {
  testing$func @offset_retype(%p: tile<8xptr<f32>>, %o: tile<8xi32>) {
    // expected-error @below {{'cuda_tile.offset' op failed to verify that all of {result, ptr} have same type}}
    %q = offset %p, %o : tile<8xptr<f32>>, tile<8xi32> -> tile<8xptr<f16>>
    return
  }
}

// -----

cuda_tile.module @core_offset_float {
  testing$func @offset_float(%p: tile<8xptr<f32>>, %o: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.offset' op operand #1 must be tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<8xf32>'}}
    %q = offset %p, %o : tile<8xptr<f32>>, tile<8xf32> -> tile<8xptr<f32>>
    return
  }
}

// -----

cuda_tile.module @core_global_rank {
  // expected-error @below {{'cuda_tile.global' op type must have rank 1}}
  global @table dense<1.0> : tile<2x2xf32>
}

// -----

cuda_tile.module @core_get_global_missing {
  global @weights dense<[1, 2, 3, 4]> : tile<4xi32>
  testing$func @lookup() {
    // expected-error @below {{'cuda_tile.get_global' op 'bias' does not reference a valid global}}
    %p = get_global @bias : tile<ptr<i32>>
    return
  }
}

// -----

cuda_tile.module @core_get_global_pointee {
  global @weights dense<[1, 2, 3, 4]> : tile<4xi32>
  testing$func @lookup() {
    // expected-error @below {{'cuda_tile.get_global' op pointee type of result type '!cuda_tile.ptr<i64>' does not match type 'i32' of the global @weights}}
    %p = get_global @weights : tile<ptr<i64>>
    return
  }
}

// -----

cuda_tile.module @core_get_global_shape {
  global @weights dense<[1, 2, 3, 4]> : tile<4xi32>
  testing$func @lookup() {
    // expected-error @below {{'cuda_tile.get_global' op result #0 must be 0D tile of Pointer type values, but got '!cuda_tile.tile<4xptr<i32>>'}}
    %p = get_global @weights : tile<4xptr<i32>>
    return
  }
}

// -----

cuda_tile.module @core_block_id {
  testing$func @block_id_i64() {
    // expected-error @below {{'cuda_tile.get_tile_block_id' op result #0 must be 0D tile of i32 values, but got '!cuda_tile.tile<i64>'}}
    %x, %y, %z = get_tile_block_id : tile<i64>
    return
  }
}

// -----

cuda_tile.module @core_num_blocks {
  testing$func @num_blocks_vector() {
    // expected-error @below {{'cuda_tile.get_num_tile_blocks' op result #0 must be 0D tile of i32 values, but got '!cuda_tile.tile<4xi32>'}}
    %x, %y, %z = get_num_tile_blocks : tile<4xi32>
    return
  }
}
