// RUN: tilec opt %s --split-input-file --verify-diagnostics
// Integer arithmetic and bitwise ops: element-type classes, same-type
// constraints, overflow flags, divi rounding, cmpi results.

cuda_tile.module @int_addi_float {
  testing$func @addi_on_floats(%a: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.addi' op operand #0 must be tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<8xf32>'}}
    %r = addi %a, %a : tile<8xf32>
    return
  }
}

// -----

cuda_tile.module @int_subi_mixed {
  testing$func @subi_mixed(%a: tile<8xi32>, %b: tile<8xi64>) {
    // expected-error @below {{'cuda_tile.subi' op failed to verify that all of {lhs, rhs, result} have same type}}
    %r = "cuda_tile.subi"(%a, %b) : (tile<8xi32>, tile<8xi64>) -> tile<8xi32>
    return
  }
}

// -----

cuda_tile.module @int_muli_shape {
  testing$func @muli_shape(%a: tile<8xi32>, %b: tile<4xi32>) {
    // expected-error @below {{'cuda_tile.muli' op failed to verify that all of {lhs, rhs, result} have same type}}
    %r = "cuda_tile.muli"(%a, %b) : (tile<8xi32>, tile<4xi32>) -> tile<8xi32>
    return
  }
}

// -----

cuda_tile.module @int_i4_operand {
  testing$func @maxi_i4(%a: tile<8xi4>) {
    // expected-error @below {{'cuda_tile.maxi' op operand #0 must be tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<8xi4>'}}
    %r = maxi %a, %a signed : tile<8xi4>
    return
  }
}

// -----

cuda_tile.module @int_ptr_operand {
  testing$func @andi_ptr(%a: tile<4xptr<i32>>) {
    // expected-error @below {{'cuda_tile.andi' op operand #0 must be tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<4xptr<i32>>'}}
    %r = andi %a, %a : tile<4xptr<i32>>
    return
  }
}

// -----

cuda_tile.module @int_negi_nuw {
  testing$func @negi_nuw(%a: tile<16xi16>) {
    // expected-error @below {{'cuda_tile.negi' op 'no_unsigned_wrap' overflow flag is not supported}}
    %r = negi %a overflow<no_unsigned_wrap> : tile<16xi16>
    return
  }
}

// -----

cuda_tile.module @int_negi_float {
  testing$func @negi_float(%a: tile<16xf16>) {
    // expected-error @below {{'cuda_tile.negi' op operand #0 must be tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<16xf16>'}}
    %r = negi %a : tile<16xf16>
    return
  }
}

// -----

cuda_tile.module @int_absi_type {
  testing$func @absi_retype(%a: tile<4xi32>) {
    // expected-error @below {{'cuda_tile.absi' op failed to verify that all of {source, result} have same type}}
    %r = "cuda_tile.absi"(%a) : (tile<4xi32>) -> tile<4xi64>
    return
  }
}

// -----

cuda_tile.module @int_divi_rounding {
  testing$func @divi_nearest(%a: tile<4xi32>) {
    // expected-error @below {{'cuda_tile.divi' op invalid rounding mode specified, expect one of [zero, negative_inf, positive_inf]}}
    %r = divi %a, %a signed rounding<nearest_even> : tile<4xi32>
    return
  }
}

// -----

cuda_tile.module @int_divi_unsigned_floor {
  testing$func @divi_unsigned_floor(%a: tile<4xi64>) {
    // expected-error @below {{'cuda_tile.divi' op rounding mode 'negative_inf' is not allowed with 'unsigned' flag}}
    %r = divi %a, %a unsigned rounding<negative_inf> : tile<4xi64>
    return
  }
}

// -----

cuda_tile.module @int_divi_float {
  testing$func @divi_float(%a: tile<4xf16>) {
    // expected-error @below {{'cuda_tile.divi' op operand #0 must be tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<4xf16>'}}
    %r = divi %a, %a signed : tile<4xf16>
    return
  }
}

// -----

cuda_tile.module @int_remi_types {
  testing$func @remi_mixed(%a: tile<4xi32>, %b: tile<4xi16>) {
    // expected-error @below {{'cuda_tile.remi' op failed to verify that all of {result, lhs, rhs} have same type}}
    %r = "cuda_tile.remi"(%a, %b) <{signedness = #cuda_tile.signedness<signed>}> : (tile<4xi32>, tile<4xi16>) -> tile<4xi32>
    return
  }
}

// -----

cuda_tile.module @int_mulhii_types {
  testing$func @mulhii_mixed(%a: tile<4xi32>, %b: tile<4xi64>) {
    // expected-error @below {{'cuda_tile.mulhii' op failed to verify that all of {x, y, result} have same type}}
    %r = "cuda_tile.mulhii"(%a, %b) : (tile<4xi32>, tile<4xi64>) -> tile<4xi64>
    return
  }
}

// -----

cuda_tile.module @int_cmpi_result {
  testing$func @cmpi_wide_result(%a: tile<4xi32>) {
    // expected-error @below {{'cuda_tile.cmpi' op result #0 must be tile of i1 values, but got '!cuda_tile.tile<4xi32>'}}
    %r = cmpi less_than %a, %a, signed : tile<4xi32> -> tile<4xi32>
    return
  }
}

// -----

cuda_tile.module @int_cmpi_shape {
  testing$func @cmpi_result_shape(%a: tile<4xi32>) {
    // expected-error @below {{'cuda_tile.cmpi' op failed to verify that Result type has i1 element type and same shape as operands}}
    %r = cmpi equal %a, %a, unsigned : tile<4xi32> -> tile<8xi1>
    return
  }
}

// -----

cuda_tile.module @int_cmpi_operands {
  testing$func @cmpi_mixed(%a: tile<4xi32>, %b: tile<4xi8>) {
    // expected-error @below {{'cuda_tile.cmpi' op failed to verify that all of {lhs, rhs} have same type}}
    %r = "cuda_tile.cmpi"(%a, %b) <{comparison_predicate = #cuda_tile.comparison_predicate<equal>, signedness = #cuda_tile.signedness<signed>}> : (tile<4xi32>, tile<4xi8>) -> tile<4xi1>
    return
  }
}

// -----

cuda_tile.module @int_shli_result {
  testing$func @shli_retype(%a: tile<2x2xi8>) {
    // expected-error @below {{'cuda_tile.shli' op failed to verify that all of {lhs, rhs, result} have same type}}
    %r = "cuda_tile.shli"(%a, %a) : (tile<2x2xi8>, tile<2x2xi8>) -> tile<4xi8>
    return
  }
}

// -----

cuda_tile.module @int_xori_f {
  testing$func @xori_bf16(%a: tile<2xbf16>) {
    // expected-error @below {{'cuda_tile.xori' op operand #0 must be tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<2xbf16>'}}
    %r = xori %a, %a : tile<2xbf16>
    return
  }
}
