// RUN: tilec opt %s --split-input-file --verify-diagnostics
// Floating-point arithmetic: element classes, same-type constraints,
// rounding modes, flush_to_zero, cmpf results.

cuda_tile.module @flt_addf_int {
  testing$func @addf_ints(%a: tile<4xi32>) {
    // expected-error @below {{'cuda_tile.addf' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<4xi32>'}}
    %r = addf %a, %a : tile<4xi32>
    return
  }
}

// -----

cuda_tile.module @flt_addf_f8 {
  testing$func @addf_f8(%a: tile<4xf8E4M3FN>) {
    // expected-error @below {{'cuda_tile.addf' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<4xf8E4M3FN>'}}
    %r = addf %a, %a : tile<4xf8E4M3FN>
    return
  }
}

// -----

cuda_tile.module @flt_subf_mixed {
  testing$func @subf_mixed(%a: tile<4xf32>, %b: tile<4xf64>) {
    // expected-error @below {{'cuda_tile.subf' op failed to verify that all of {lhs, rhs, result} have same type}}
    %r = "cuda_tile.subf"(%a, %b) <{rounding_mode = #cuda_tile.rounding<nearest_even>}> : (tile<4xf32>, tile<4xf64>) -> tile<4xf32>
    return
  }
}

// -----

cuda_tile.module @flt_mulf_approx {
  testing$func @mulf_approx(%a: tile<4xf32>) {
    // expected-error @below {{'cuda_tile.mulf' op invalid rounding mode specified, expect one of [nearest_even, zero, negative_inf, positive_inf]}}
    %r = "cuda_tile.mulf"(%a, %a) <{rounding_mode = #cuda_tile.rounding<approx>}> : (tile<4xf32>, tile<4xf32>) -> tile<4xf32>
    return
  }
}

// -----

cuda_tile.module @flt_addf_ftz {
  testing$func @addf_ftz_f16(%a: tile<4xf16>) {
    // expected-error @below {{'cuda_tile.addf' op flush_to_zero modifier only supported for f32 data type, but got: 'f16'}}
    %r = addf %a, %a flush_to_zero : tile<4xf16>
    return
  }
}

// -----

cuda_tile.module @flt_subf_ftz {
  testing$func @subf_ftz_f64(%a: tile<2x2xf64>) {
    // expected-error @below {{flush_to_zero modifier only supported for f32 data type, but got: 'f64'}}
    %r = subf %a, %a rounding<zero> flush_to_zero : tile<2x2xf64>
    return
  }
}

// -----

cuda_tile.module @flt_divf_approx {
  testing$func @divf_approx_f64(%a: tile<4xf64>) {
    // expected-error @below {{'cuda_tile.divf' op approx modifier only supported for f32 data type, but got: 'f64'}}
    %r = divf %a, %a rounding<approx> : tile<4xf64>
    return
  }
}

// -----

cuda_tile.module @flt_divf_full {
  testing$func @divf_full_bf16(%a: tile<4xbf16>) {
    // expected-error @below {{'cuda_tile.divf' op full modifier only supported for f32 data type, but got: 'bf16'}}
    %r = divf %a, %a rounding<full> : tile<4xbf16>
    return
  }
}

// -----

cuda_tile.module @flt_divf_int_rounding {
  testing$func @divf_bad_mode(%a: tile<4xf32>) {
    // expected-error @below {{'cuda_tile.divf' op invalid rounding mode specified, expect one of [nearest_even, zero, negative_inf, positive_inf, approx, full]}}
    %r = "cuda_tile.divf"(%a, %a) <{rounding_mode = #cuda_tile.rounding<nearest_int_to_zero>}> : (tile<4xf32>, tile<4xf32>) -> tile<4xf32>
    return
  }
}

// -----

cuda_tile.module @flt_maxf_ftz {
  testing$func @maxf_ftz_bf16(%a: tile<8xbf16>) {
    // expected-error @below {{'cuda_tile.maxf' op flush_to_zero modifier only supported for f32 data type, but got: 'bf16'}}
    %r = maxf %a, %a flush_to_zero : tile<8xbf16>
    return
  }
}

// -----

cuda_tile.module @flt_minf_ftz {
  testing$func @minf_ftz_f16(%a: tile<8xf16>) {
    // expected-error @below {{'cuda_tile.minf' op flush_to_zero modifier only supported for f32 data type, but got: 'f16'}}
    %r = minf %a, %a flush_to_zero propagate_nan : tile<8xf16>
    return
  }
}

// -----

cuda_tile.module @flt_fma_acc {
  testing$func @fma_acc_type(%a: tile<4xf32>, %c: tile<4xf16>) {
    // expected-error @below {{'cuda_tile.fma' op failed to verify that all of {lhs, rhs, acc, result} have same type}}
    %r = "cuda_tile.fma"(%a, %a, %c) <{rounding_mode = #cuda_tile.rounding<nearest_even>}> : (tile<4xf32>, tile<4xf32>, tile<4xf16>) -> tile<4xf32>
    return
  }
}

// -----

cuda_tile.module @flt_fma_ftz {
  testing$func @fma_ftz_f16(%a: tile<4xf16>) {
    // expected-error @below {{'cuda_tile.fma' op flush_to_zero modifier only supported for f32 data type, but got: 'f16'}}
    %r = fma %a, %a, %a flush_to_zero : tile<4xf16>
    return
  }
}

// -----

cuda_tile.module @flt_remf_int {
  testing$func @remf_ints(%a: tile<4xi16>) {
    // expected-error @below {{'cuda_tile.remf' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<4xi16>'}}
    %r = remf %a, %a : tile<4xi16>
    return
  }
}

// -----

cuda_tile.module @flt_negf_result {
  testing$func @negf_retype(%a: tile<4xf32>) {
    // expected-error @below {{'cuda_tile.negf' op failed to verify that all of {source, result} have same type}}
    %r = "cuda_tile.negf"(%a) : (tile<4xf32>) -> tile<4xf16>
    return
  }
}

// -----

cuda_tile.module @flt_absf_tf32 {
  testing$func @absf_tf32(%a: tile<4xtf32>) {
    // expected-error @below {{'cuda_tile.absf' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<4xtf32>'}}
    %r = absf %a : tile<4xtf32>
    return
  }
}

// -----

cuda_tile.module @flt_cmpf_result {
  testing$func @cmpf_f32_result(%a: tile<4xf32>) {
    // expected-error @below {{'cuda_tile.cmpf' op result #0 must be tile of i1 values, but got '!cuda_tile.tile<4xf32>'}}
    %r = cmpf less_than ordered %a, %a : tile<4xf32> -> tile<4xf32>
    return
  }
}

// -----

cuda_tile.module @flt_cmpf_shape {
  testing$func @cmpf_shape(%a: tile<2x4xf64>) {
    // expected-error @below {{'cuda_tile.cmpf' op failed to verify that Result type has i1 element type and same shape as operands}}
    %r = cmpf equal unordered %a, %a : tile<2x4xf64> -> tile<4x2xi1>
    return
  }
}

// -----

cuda_tile.module @flt_cmpf_int {
  testing$func @cmpf_ints(%a: tile<4xi32>) {
    // expected-error @below {{'cuda_tile.cmpf' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<4xi32>'}}
    %r = cmpf equal ordered %a, %a : tile<4xi32> -> tile<4xi1>
    return
  }
}
