// RUN: tilec opt %s --split-input-file --verify-diagnostics
// Math functions: operand classes, same types, approx/full rounding and
// flush_to_zero restricted to f32.

cuda_tile.module @math_exp_int {
  testing$func @exp_ints(%a: tile<8xi32>) {
    // expected-error @below {{'cuda_tile.exp' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<8xi32>'}}
    %r = exp %a : tile<8xi32>
    return
  }
}

// -----

cuda_tile.module @math_exp_approx {
  testing$func @exp_approx_f16(%a: tile<8xf16>) {
    // expected-error @below {{'cuda_tile.exp' op approx modifier only supported for f32 data type, but got: 'f16'}}
    %r = exp %a rounding<approx> : tile<8xf16>
    return
  }
}

// -----

cuda_tile.module @math_exp_zero {
  testing$func @exp_zero(%a: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.exp' op invalid rounding mode specified, expect one of [approx, full]}}
    %r = "cuda_tile.exp"(%a) <{rounding_mode = #cuda_tile.rounding<zero>}> : (tile<8xf32>) -> tile<8xf32>
    return
  }
}

// -----

cuda_tile.module @math_tanh_approx {
  testing$func @tanh_approx_f64(%a: tile<8xf64>) {
    // expected-error @below {{'cuda_tile.tanh' op approx modifier only supported for f32 data type, but got: 'f64'}}
    %r = tanh %a rounding<approx> : tile<8xf64>
    return
  }
}

// -----

cuda_tile.module @math_tanh_mode {
  testing$func @tanh_positive_inf(%a: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.tanh' op invalid rounding mode specified, expect one of [approx, full]}}
    %r = "cuda_tile.tanh"(%a) <{rounding_mode = #cuda_tile.rounding<positive_inf>}> : (tile<8xf32>) -> tile<8xf32>
    return
  }
}

// -----

cuda_tile.module @math_sqrt_approx {
  testing$func @sqrt_approx_bf16(%a: tile<8xbf16>) {
    // expected-error @below {{'cuda_tile.sqrt' op approx modifier only supported for f32 data type, but got: 'bf16'}}
    %r = sqrt %a rounding<approx> : tile<8xbf16>
    return
  }
}

// -----

cuda_tile.module @math_sqrt_ftz {
  testing$func @sqrt_ftz_f16(%a: tile<8xf16>) {
    // expected-error @below {{'cuda_tile.sqrt' op flush_to_zero modifier only supported for f32 data type, but got: 'f16'}}
    %r = sqrt %a flush_to_zero : tile<8xf16>
    return
  }
}

// -----

cuda_tile.module @math_sqrt_full {
  testing$func @sqrt_full(%a: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.sqrt' op invalid rounding mode specified, expect one of [nearest_even, zero, negative_inf, positive_inf, approx]}}
    %r = "cuda_tile.sqrt"(%a) <{rounding_mode = #cuda_tile.rounding<full>}> : (tile<8xf32>) -> tile<8xf32>
    return
  }
}

// -----

cuda_tile.module @math_exp2_ftz {
  testing$func @exp2_ftz_f64(%a: tile<8xf64>) {
    // expected-error @below {{'cuda_tile.exp2' op flush_to_zero modifier only supported for f32 data type, but got: 'f64'}}
    %r = exp2 %a flush_to_zero : tile<8xf64>
    return
  }
}

// -----

cuda_tile.module @math_rsqrt_ftz {
  testing$func @rsqrt_ftz_bf16(%a: tile<8xbf16>) {
    // expected-error @below {{'cuda_tile.rsqrt' op flush_to_zero modifier only supported for f32 data type, but got: 'bf16'}}
    %r = rsqrt %a flush_to_zero : tile<8xbf16>
    return
  }
}

// -----

cuda_tile.module @math_pow_types {
  testing$func @pow_mixed(%a: tile<8xf32>, %b: tile<8xf16>) {
    // expected-error @below {{'cuda_tile.pow' op failed to verify that all of {result, source, exponent} have same type}}
    %r = "cuda_tile.pow"(%a, %b) : (tile<8xf32>, tile<8xf16>) -> tile<8xf32>
    return
  }
}

// -----

cuda_tile.module @math_atan2_types {
  testing$func @atan2_shapes(%a: tile<8xf32>, %b: tile<4xf32>) {
    // expected-error @below {{'cuda_tile.atan2' op failed to verify that all of {x, y, result} have same type}}
    %r = "cuda_tile.atan2"(%a, %b) : (tile<8xf32>, tile<4xf32>) -> tile<8xf32>
    return
  }
}

// -----

cuda_tile.module @math_sin_f8 {
  testing$func @sin_f8(%a: tile<8xf8E5M2>) {
    // expected-error @below {{'cuda_tile.sin' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<8xf8E5M2>'}}
    %r = sin %a : tile<8xf8E5M2>
    return
  }
}

// -----

cuda_tile.module @math_log_result {
  testing$func @log_retype(%a: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.log' op failed to verify that all of {source, result} have same type}}
    %r = "cuda_tile.log"(%a) : (tile<8xf32>) -> tile<8xf64>
    return
  }
}

// -----

cuda_tile.module @math_ceil_ptr {
  testing$func @ceil_ptr(%a: tile<8xptr<f32>>) {
    // expected-error @below {{'cuda_tile.ceil' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<8xptr<f32>>'}}
    %r = ceil %a : tile<8xptr<f32>>
    return
  }
}

// -----

cuda_tile.module @math_cosh_result {
  testing$func @cosh_result_int(%a: tile<4xf32>) {
    // expected-error @below {{'cuda_tile.cosh' op result #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<4xi32>'}}
    %r = "cuda_tile.cosh"(%a) : (tile<4xf32>) -> tile<4xi32>
    return
  }
}
