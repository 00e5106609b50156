// RUN: tilec opt %s --split-input-file --verify-diagnostics
// assume predicates (div_by, same_elements, bounded), print / print_tko
// format strings, make_token / join_tokens.

cuda_tile.module @asm_div_by_pow2 {
  testing$func @f(%n: tile<i32>) {
    // expected-error @below {{'cuda_tile.assume' op 'cuda_tile.div_by' divisor must be a power of 2}}
    %m = assume div_by<24>, %n : tile<i32>
    return
  }
}

// -----

cuda_tile.module @asm_div_by_large {
  testing$func @f(%n: tile<i64>) {
    // expected-error @below {{'cuda_tile.assume' op 'cuda_tile.div_by' divisor is too large}}
    %m = assume div_by<9223372036854775808>, %n : tile<i64>
    return
  }
}

// -----

cuda_tile.module @asm_div_by_float {
  testing$func @f(%x: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.assume' op 'cuda_tile.div_by' is valid only for tile of integer/pointer or tensor_view values}}
    %m = assume div_by<16>, %x : tile<8xf32>
    return
  }
}

// -----

cuda_tile.module @asm_div_by_view_every {
  testing$func @f(%tv: tensor_view<64xf32, strides=[1]>) {
    // expected-error @below {{'cuda_tile.assume' op 'cuda_tile.div_by' 'every'/'along' cannot be used if the constrained value is a tensor_view}}
    %m = assume div_by<16, every 4 along 0>, %tv : tensor_view<64xf32, strides=[1]>
    return
  }
}

// -----

cuda_tile.module @asm_div_by_scalar_every {
  testing$func @f(%n: tile<i32>) {
    // expected-error @below {{'cuda_tile.assume' op 'cuda_tile.div_by' 'every'/'along' cannot be used if the constrained value is a 0D tile}}
    %m = assume div_by<8, every 1 along 0>, %n : tile<i32>
    return
  }
}

// -----

cuda_tile.module @asm_div_by_along {
  testing$func @f(%v: tile<16xi64>) {
    // expected-error @below {{'cuda_tile.assume' op 'cuda_tile.div_by' every_dim (1) must be >= 0 and < tile rank (1)}}
    %m = assume div_by<8, every 4 along 1>, %v : tile<16xi64>
    return
  }
}

// -----

cuda_tile.module @asm_div_by_every {
  testing$func @f(%v: tile<4x16xi64>) {
    // expected-error @below {{'cuda_tile.assume' op expected 'cuda_tile.div_by' every_dim to be within 0 and the size of the respective dimension (4)}}
    %m = assume div_by<8, every 8 along 0>, %v : tile<4x16xi64>
    return
  }
}

// -----

cuda_tile.module @asm_same_float {
  testing$func @f(%v: tile<4x8xf16>) {
    // expected-error @below {{'cuda_tile.assume' op 'cuda_tile.same_elements' is valid only for tile of integer/pointer values}}
    %m = assume same_elements<[1, 8]>, %v : tile<4x8xf16>
    return
  }
}

// -----

cuda_tile.module @asm_same_rank {
  testing$func @f(%v: tile<4x8xi32>) {
    // expected-error @below {{'cuda_tile.assume' op expected number of values in 'cuda_tile.same_elements' (3) to match rank of constrained tile (2)}}
    %m = assume same_elements<[1, 2, 4]>, %v : tile<4x8xi32>
    return
  }
}

// -----

cuda_tile.module @asm_same_range {
  testing$func @f(%v: tile<4x8xi32>) {
    // expected-error @below {{'cuda_tile.assume' op expected 'cuda_tile.same_elements' value 0 to be within 0 and the size of the respective dimension (4)}}
    %m = assume same_elements<[16, 8]>, %v : tile<4x8xi32>
    return
  }
}

// -----

cuda_tile.module @asm_bounded_float {
  testing$func @f(%x: tile<f64>) {
    // expected-error @below {{'cuda_tile.assume' op 'cuda_tile.bounded' is valid only for tile of integer values}}
    %m = assume bounded<0, 1>, %x : tile<f64>
    return
  }
}

// -----

cuda_tile.module @asm_bounded_lb {
  testing$func @f(%x: tile<8xi8>) {
    // expected-error @below {{'cuda_tile.assume' op 'cuda_tile.bounded' expects lower bound to be within [-128, 127]}}
    %m = assume bounded<-200, ?>, %x : tile<8xi8>
    return
  }
}

// -----

cuda_tile.module @asm_bounded_ub {
  testing$func @f(%x: tile<8xi16>) {
    // expected-error @below {{'cuda_tile.assume' op 'cuda_tile.bounded' expects upper bound to be within [-32768, 32767]}}
    %m = assume bounded<?, 40000>, %x : tile<8xi16>
    return
  }
}

// -----

cuda_tile.module @asm_bounded_order {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{'cuda_tile.assume' op 'cuda_tile.bounded' expects lower bound to be less than or equal to upper bound}}
    %m = assume bounded<10, 2>, %x : tile<i32>
    return
  }
}

// -----

cuda_tile.module @asm_result_type {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{'cuda_tile.assume' op failed to verify that all of {value, result} have same type}}
    %m = "cuda_tile.assume"(%x) <{predicate = #cuda_tile.bounded<0, 4>}> : (tile<i32>) -> tile<i64>
    return
  }
}

// -----

cuda_tile.module @prt_unterminated {
  entry @kernel(%n: tile<i32>) {
    // expected-error @below {{'cuda_tile.print' op found unterminated format expression}}
    print "value %", %n : tile<i32>
    return
  }
}

// -----

cuda_tile.module @prt_too_few {
  entry @kernel(%n: tile<i32>) {
    // expected-error @below {{'cuda_tile.print' op incorrect number of operands: expected 2, found 1}}
    print "%d and %d", %n : tile<i32>
    return
  }
}

// -----

cuda_tile.module @prt_too_many {
  entry @kernel(%n: tile<i32>, %m: tile<i32>) {
    // expected-error @below {{'cuda_tile.print' op incorrect number of operands: expected 0, found 2}}
    print "100%% done", %n, %m : tile<i32>, tile<i32>
    return
  }
}

// -----

cuda_tile.module @prt_tko_count {
  entry @kernel(%x: tile<f32>) {
    // expected-error @below {{'cuda_tile.print_tko' op incorrect number of operands: expected 3, found 1}}
    %t = print_tko "%f %f %f", %x : tile<f32> -> token
    return
  }
}

// -----

cuda_tile.module @tok_join_one {
  entry @kernel() {
    %a = make_token : token
    // expected-error @below {{'cuda_tile.join_tokens' op expect two or more tokens}}
    %j = join_tokens %a : token
    return
  }
}

// -----

cuda_tile.module @tok_join_tile {
  entry @kernel(%n: tile<i32>) {
    %a = make_token : token
    // expected-error @below {{'cuda_tile.join_tokens' op operand #1 must be variadic of cuda tile token type, but got '!cuda_tile.tile<i32>'}}
    %j = "cuda_tile.join_tokens"(%a, %n) : (token, tile<i32>) -> token
    return
  }
}
