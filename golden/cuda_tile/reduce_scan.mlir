// RUN: tilec opt %s --split-input-file --verify-diagnostics
// reduce and scan: dim, identities, inferred result types, the combining
// region's signature, its terminator and purity.

cuda_tile.module @red_dim_oob {
  testing$func @reduce_dim1(%x: tile<16xf32>) {
    // expected-error @below {{'cuda_tile.reduce' op dimension (1) is out of bound [0, 1)}}
    %r = reduce %x dim=1 identities=[0.0 : f32] : tile<16xf32> -> tile<f32>
    (%acc: tile<f32>, %e: tile<f32>) {
      %s = addf %acc, %e : tile<f32>
      yield %s : tile<f32>
    }
    return
  }
}

// -----

cuda_tile.module @red_dim_negative {
  testing$func @reduce_negative(%x: tile<16xf32>) {
    // expected-error @below {{'cuda_tile.reduce' op attribute 'dim' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
    %r = reduce %x dim=-1 identities=[0.0 : f32] : tile<16xf32> -> tile<f32>
    (%acc: tile<f32>, %e: tile<f32>) {
      %s = addf %acc, %e : tile<f32>
      yield %s : tile<f32>
    }
    return
  }
}

// -----

cuda_tile.module @red_identity_count {
  testing$func @reduce_two_identities(%x: tile<16xi32>) {
    // expected-error @below {{'cuda_tile.reduce' op expect identities to match the number of operands but got: 1 operands and 2 identities}}
    %r = reduce %x dim=0 identities=[0 : i32, 1 : i32] : tile<16xi32> -> tile<i32>
    (%acc: tile<i32>, %e: tile<i32>) {
      %s = addi %acc, %e : tile<i32>
      yield %s : tile<i32>
    }
    return
  }
}

// -----

cuda_tile.module @red_identity_type {
  testing$func @reduce_identity_i64(%x: tile<16xi32>) {
    // expected-error @below {{'cuda_tile.reduce' op expect same type for operand at index: 0 and identity at index: 0 but got: 'i32' and 'i64'}}
    %r = reduce %x dim=0 identities=[0 : i64] : tile<16xi32> -> tile<i32>
    (%acc: tile<i32>, %e: tile<i32>) {
      %s = maxi %acc, %e signed : tile<i32>
      yield %s : tile<i32>
    }
    return
  }
}

// -----

cuda_tile.module @red_inferred {
  testing$func @reduce_keeps_dim(%x: tile<8x4xf32>) {
    // expected-error @below {{'cuda_tile.reduce' op inferred type(s) '!cuda_tile.tile<4xf32>' are incompatible with return type(s) of operation '!cuda_tile.tile<8xf32>'}}
    // expected-error @below {{'cuda_tile.reduce' op failed to infer returned types}}
    %r = reduce %x dim=0 identities=[0.0 : f32] : tile<8x4xf32> -> tile<8xf32>
    (%acc: tile<f32>, %e: tile<f32>) {
      %s = addf %acc, %e : tile<f32>
      yield %s : tile<f32>
    }
    return
  }
}

// -----

cuda_tile.module @red_operand_shapes {
  testing$func @reduce_two_shapes(%x: tile<8xf32>, %y: tile<16xi32>) {
    // expected-error @below {{'cuda_tile.reduce' op requires the same shape for all operands}}
    %r:2 = reduce %x, %y dim=0 identities=[0.0 : f32, 0 : i32] : tile<8xf32>, tile<16xi32> -> tile<f32>, tile<i32>
    (%a0: tile<f32>, %b0: tile<f32>, %a1: tile<i32>, %b1: tile<i32>) {
      yield %a0, %a1 : tile<f32>, tile<i32>
    }
    return
  }
}

// -----

cuda_tile.module @red_block_args {
  testing$func @reduce_three_args(%x: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.reduce' op expect 2 block arguments but got: 3}}
    %r = reduce %x dim=0 identities=[0.0 : f32] : tile<8xf32> -> tile<f32>
    (%a: tile<f32>, %b: tile<f32>, %c: tile<f32>) {
      yield %a : tile<f32>
    }
    return
  }
}

// -----

cuda_tile.module @red_block_rank {
  testing$func @reduce_vector_arg(%x: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.reduce' op expect 0-rank tile type at index: 1 but got: '!cuda_tile.tile<8xf32>'}}
    %r = reduce %x dim=0 identities=[0.0 : f32] : tile<8xf32> -> tile<f32>
    (%a: tile<f32>, %b: tile<8xf32>) {
      yield %a : tile<f32>
    }
    return
  }
}

// -----

cuda_tile.module @red_block_pair {
  testing$func @reduce_pair_types(%x: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.reduce' op expect same element type for block argument at index: 0 and 1 but got: 'f32' and 'f16'}}
    %r = reduce %x dim=0 identities=[0.0 : f32] : tile<8xf32> -> tile<f32>
    (%a: tile<f32>, %b: tile<f16>) {
      yield %a : tile<f32>
    }
    return
  }
}

// -----

cuda_tile.module @red_block_operand {
  testing$func @reduce_arg_vs_operand(%x: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.reduce' op expect same type for operand at index: 0 and block argument at index: 0 but got: 'f32' and 'f64'}}
    %r = reduce %x dim=0 identities=[0.0 : f32] : tile<8xf32> -> tile<f32>
    (%a: tile<f64>, %b: tile<f64>) {
      %s = addf %a, %b : tile<f64>
      yield %s : tile<f64>
    }
    return
  }
}

// -----

cuda_tile.module @red_yield_count {
  testing$func @reduce_yield_nothing(%x: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.reduce' op expect number of terminators operands (0) to match number of operands (1)}}
    %r = reduce %x dim=0 identities=[0.0 : f32] : tile<8xf32> -> tile<f32>
    (%a: tile<f32>, %b: tile<f32>) {
      yield
    }
    return
  }
}

// -----

cuda_tile.module @red_yield_type {
  testing$func @reduce_yield_int(%x: tile<8xf32>, %k: tile<i32>) {
    // expected-error @below {{'cuda_tile.reduce' op expect same type for operand at index: 0 and terminator argument at index: 0 but got: 'f32' and 'i32'}}
    %r = reduce %x dim=0 identities=[0.0 : f32] : tile<8xf32> -> tile<f32>
    (%a: tile<f32>, %b: tile<f32>) {
      %c = constant <i32: 1> : tile<i32>
      yield %c : tile<i32>
    }
    return
  }
}

// -----

cuda_tile.module @red_empty_body {
  testing$func @reduce_empty(%x: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.reduce' op expect non-empty block}}
    %r = reduce %x dim=0 identities=[0.0 : f32] : tile<8xf32> -> tile<f32>
    (%a: tile<f32>, %b: tile<f32>) {
    }
    return
  }
}

// -----

cuda_tile.module @red_impure {
  testing$func @reduce_prints(%x: tile<8xf32>) {
    %r = reduce %x dim=0 identities=[0.0 : f32] : tile<8xf32> -> tile<f32>
    (%a: tile<f32>, %b: tile<f32>) {
      // expected-error @below {{'cuda_tile.print' op only pure operations are allowed inside 'cuda_tile.reduce'}}
      print "partial %f", %a : tile<f32>
      %s = addf %a, %b : tile<f32>
      yield %s : tile<f32>
    }
    return
  }
}

// -----

cuda_tile.module @red_no_operands {
  testing$func @reduce_nothing() {
    // expected-error @below {{'cuda_tile.reduce' op expect at least 1 operand}}
    "cuda_tile.reduce"() <{dim = 0 : i32, identities = []}> ({
    ^bb0:
      "cuda_tile.yield"() : () -> ()
    }) : () -> ()
    return
  }
}

// -----

cuda_tile.module @red_result_count {
  testing$func @reduce_extra_result(%x: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.reduce' op expect same number of operands and results}}
    %r:2 = "cuda_tile.reduce"(%x) <{dim = 0 : i32, identities = [0.0 : f32]}> ({
    ^bb0(%a: tile<f32>, %b: tile<f32>):
      "cuda_tile.yield"(%a) : (tile<f32>) -> ()
    }) : (tile<8xf32>) -> (tile<f32>, tile<f32>)
    return
  }
}

// -----

cuda_tile.module @scan_result {
  testing$func @scan_reduces(%x: tile<4x8xi32>) {
    // expected-error @below {{'cuda_tile.scan' op expect same type for operand at index: 0 and result at index: 0}}
    %r = scan %x dim=1 reverse=false identities=[0 : i32] : tile<4x8xi32> -> tile<4xi32>
    (%acc: tile<i32>, %e: tile<i32>) {
      %s = addi %acc, %e : tile<i32>
      yield %s : tile<i32>
    }
    return
  }
}

// -----

cuda_tile.module @scan_dim_oob {
  testing$func @scan_dim2(%x: tile<4x8xi32>) {
    // expected-error @below {{'cuda_tile.scan' op dimension (2) is out of bound [0, 2)}}
    %r = scan %x dim=2 reverse=true identities=[0 : i32] : tile<4x8xi32> -> tile<4x8xi32>
    (%acc: tile<i32>, %e: tile<i32>) {
      %s = addi %acc, %e : tile<i32>
      yield %s : tile<i32>
    }
    return
  }
}

// -----

cuda_tile.module @scan_identity {
  testing$func @scan_identity_float(%x: tile<16xi64>) {
    // expected-error @below {{'cuda_tile.scan' op expect same type for operand at index: 0 and identity at index: 0 but got: 'i64' and 'f32'}}
    %r = scan %x dim=0 reverse=false identities=[1.0 : f32] : tile<16xi64> -> tile<16xi64>
    (%acc: tile<i64>, %e: tile<i64>) {
      %s = muli %acc, %e : tile<i64>
      yield %s : tile<i64>
    }
    return
  }
}

// -----

cuda_tile.module @scan_impure {
  testing$func @scan_alloca(%x: tile<16xi64>) {
    %r = scan %x dim=0 reverse=false identities=[0 : i64] : tile<16xi64> -> tile<16xi64>
    (%acc: tile<i64>, %e: tile<i64>) {
      // expected-error @below {{'cuda_tile.alloca' op only pure operations are allowed inside 'cuda_tile.scan'}}
      %p = alloca num_elem = 1, alignment = 8 : tile<ptr<i64>>
      %s = addi %acc, %e : tile<i64>
      yield %s : tile<i64>
    }
    return
  }
}
