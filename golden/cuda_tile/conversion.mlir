// RUN: tilec opt %s --split-input-file --verify-diagnostics
// Conversions: bitcast, exti, trunci, ftof, ftoi, itof and the pointer casts.

cuda_tile.module @cvt_bitcast_width {
  testing$func @bitcast_narrow(%a: tile<16xi32>) {
    // expected-error @below {{'cuda_tile.bitcast' op types must be equal width}}
    %r = bitcast %a : tile<16xi32> -> tile<16xf16>
    return
  }
}

// -----

cuda_tile.module @cvt_bitcast_shape {
  testing$func @bitcast_reshape(%a: tile<16xi32>) {
    // expected-error @below {{'cuda_tile.bitcast' op failed to verify that all of {source, result} have same shape}}
    %r = bitcast %a : tile<16xi32> -> tile<4x4xf32>
    return
  }
}

// -----

cuda_tile.module @cvt_bitcast_ptr {
  testing$func @bitcast_pointer(%a: tile<4xptr<i64>>) {
    // expected-error @below {{'cuda_tile.bitcast' op operand #0 must be tile of i1 or i8 or i16 or i32 or i64 or f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN values, but got '!cuda_tile.tile<4xptr<i64>>'}}
    %r = bitcast %a : tile<4xptr<i64>> -> tile<4xi64>
    return
  }
}

// -----

cuda_tile.module @cvt_exti_narrow {
  testing$func @exti_down(%a: tile<8xi32>) {
    // expected-error @below {{'cuda_tile.exti' op extending to smaller or identical integer}}
    %r = exti %a signed : tile<8xi32> -> tile<8xi16>
    return
  }
}

// -----

cuda_tile.module @cvt_exti_same {
  testing$func @exti_same(%a: tile<8xi32>) {
    // expected-error @below {{'cuda_tile.exti' op extending to smaller or identical integer}}
    %r = exti %a unsigned : tile<8xi32> -> tile<8xi32>
    return
  }
}

// -----

cuda_tile.module @cvt_exti_shape {
  testing$func @exti_shape(%a: tile<8xi8>) {
    // expected-error @below {{'cuda_tile.exti' op failed to verify that all of {from, to} have same shape}}
    %r = exti %a signed : tile<8xi8> -> tile<4xi32>
    return
  }
}

// -----

cuda_tile.module @cvt_exti_float {
  testing$func @exti_float(%a: tile<8xf16>) {
    // expected-error @below {{'cuda_tile.exti' op operand #0 must be tile of i1 or i8 or i16 or i32 or i64 or i4 values, but got '!cuda_tile.tile<8xf16>'}}
    %r = exti %a signed : tile<8xf16> -> tile<8xi32>
    return
  }
}

// -----

cuda_tile.module @cvt_trunci_wide {
  testing$func @trunci_up(%a: tile<8xi16>) {
    // expected-error @below {{'cuda_tile.trunci' op truncating to larger or identical integer}}
    %r = trunci %a : tile<8xi16> -> tile<8xi64>
    return
  }
}

// -----

cuda_tile.module @cvt_ftof_noop {
  testing$func @ftof_same(%a: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.ftof' op converting tiles must not be a no-op}}
    %r = ftof %a : tile<8xf32> -> tile<8xf32>
    return
  }
}

// -----

cuda_tile.module @cvt_ftof_rounding {
  testing$func @ftof_zero(%a: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.ftof' op invalid rounding mode specified. Only 'nearest_even' is supported}}
    %r = ftof %a rounding<zero> : tile<8xf32> -> tile<8xf16>
    return
  }
}

// -----

cuda_tile.module @cvt_ftof_e8m0 {
  testing$func @ftof_e8m0_nearest(%a: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.ftof' op invalid rounding mode specified for conversion to f8E8M0FNU. Only 'zero' and 'positive_inf' are supported}}
    %r = ftof %a : tile<8xf32> -> tile<8xf8E8M0FNU>
    return
  }
}

// -----

cuda_tile.module @cvt_ftof_int {
  testing$func @ftof_from_int(%a: tile<8xi32>) {
    // expected-error @below {{'cuda_tile.ftof' op operand #0 must be tile of f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN values, but got '!cuda_tile.tile<8xi32>'}}
    %r = ftof %a : tile<8xi32> -> tile<8xf16>
    return
  }
}

// -----

cuda_tile.module @cvt_ftoi_rounding {
  testing$func @ftoi_nearest(%a: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.ftoi' op invalid rounding mode specified. Only 'nearest_int_to_zero' is supported}}
    %r = "cuda_tile.ftoi"(%a) <{signedness = #cuda_tile.signedness<signed>, rounding_mode = #cuda_tile.rounding<nearest_even>}> : (tile<8xf32>) -> tile<8xi32>
    return
  }
}

// -----

cuda_tile.module @cvt_ftoi_shape {
  testing$func @ftoi_shape(%a: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.ftoi' op failed to verify that all of {from, to} have same shape}}
    %r = ftoi %a signed : tile<8xf32> -> tile<2x4xi32>
    return
  }
}

// -----

cuda_tile.module @cvt_itof_e8m0 {
  testing$func @itof_e8m0(%a: tile<8xi32>) {
    // expected-error @below {{'cuda_tile.itof' op integer to f8E8M0FNU conversion is not supported, please first convert to another float type}}
    %r = itof %a unsigned : tile<8xi32> -> tile<8xf8E8M0FNU>
    return
  }
}

// -----

cuda_tile.module @cvt_itof_rounding {
  testing$func @itof_zero(%a: tile<8xi32>) {
    // expected-error @below {{'cuda_tile.itof' op invalid rounding mode specified. Only 'nearest_even' is supported}}
    %r = itof %a signed rounding<zero> : tile<8xi32> -> tile<8xf32>
    return
  }
}

// -----

cuda_tile.module @cvt_itof_result {
  testing$func @itof_to_int(%a: tile<8xi32>) {
    // expected-error @below {{'cuda_tile.itof' op result #0 must be tile of f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN values, but got '!cuda_tile.tile<8xi64>'}}
    %r = itof %a signed : tile<8xi32> -> tile<8xi64>
    return
  }
}

// -----

cuda_tile.module @cvt_int_to_ptr {
  testing$func @int_to_ptr_i32(%a: tile<4xi32>) {
    // expected-error @below {{'cuda_tile.int_to_ptr' op operand #0 must be tile of i64 values, but got '!cuda_tile.tile<4xi32>'}}
    %r = int_to_ptr %a : tile<4xi32> -> tile<4xptr<f32>>
    return
  }
}

// -----

cuda_tile.module @cvt_ptr_to_int {
  testing$func @ptr_to_int_i32(%a: tile<4xptr<f32>>) {
    // expected-error @below {{'cuda_tile.ptr_to_int' op result #0 must be tile of i64 values, but got '!cuda_tile.tile<4xi32>'}}
    %r = ptr_to_int %a : tile<4xptr<f32>> -> tile<4xi32>
    return
  }
}

// -----

cuda_tile.module @cvt_ptr_to_ptr {
  testing$func @ptr_to_ptr_shape(%a: tile<4xptr<f32>>) {
    // expected-error @below {{'cuda_tile.ptr_to_ptr' op failed to verify that all of {source, result} have same shape}}
    %r = ptr_to_ptr %a : tile<4xptr<f32>> -> tile<8xptr<f16>>
    return
  }
}

// -----

cuda_tile.module @cvt_int_to_ptr_shape {
  testing$func @int_to_ptr_shape(%a: tile<4xi64>) {
    // expected-error @below {{'cuda_tile.int_to_ptr' op failed to verify that all of {source, result} have same shape}}
    %r = int_to_ptr %a : tile<4xi64> -> tile<2x2xptr<i8>>
    return
  }
}
