// RUN: tilec opt %s --split-input-file --verify-diagnostics
// Parse errors: unknown ops and types, bad SSA uses, type mismatches between
// uses of one value, malformed custom forms and dense literals.

cuda_tile.module @syn_unknown_custom {
  testing$func @f(%a: tile<4xf32>) {
    // expected-error @below {{custom op 'frobnicate' is unknown}}
    %r = frobnicate %a : tile<4xf32>
    return
  }
}

// -----

cuda_tile.module @syn_unknown_generic {
  testing$func @f(%a: tile<4xf32>) {
    // expected-error @below {{unregistered operation 'cuda_tile.frobnicate' found in dialect ('cuda_tile') that does not allow unknown operations}}
    %r = "cuda_tile.frobnicate"(%a) : (tile<4xf32>) -> tile<4xf32>
    return
  }
}

// -----

cuda_tile.module @syn_unregistered_dialect {
  testing$func @f(%a: tile<4xf32>) {
    // expected-error @below {{operation being parsed with an unregistered dialect. If this is intended, please use -allow-unregistered-dialect with the MLIR tool used}}
    %r = "acme.widget"(%a) : (tile<4xf32>) -> tile<4xf32>
    return
  }
}

// -----

cuda_tile.module @syn_undeclared {
  testing$func @f(%a: tile<4xf32>) {
    // expected-error @below {{use of undeclared SSA value name}}
    %r = addf %a, %missing : tile<4xf32>
    return
  }
}

// -----

cuda_tile.module @syn_undeclared_generic {
  testing$func @f(%a: tile<4xf32>) {
    // expected-error @below {{use of undeclared SSA value name}}
    %r = "cuda_tile.negf"(%ghost) : (tile<4xf32>) -> tile<4xf32>
    return
  }
}

// -----

cuda_tile.module @syn_out_of_scope {
  testing$func @f(%a: tile<4xf32>, %c: tile<i1>) {
    %r = if %c -> (tile<4xf32>) {
      %inner = addf %a, %a : tile<4xf32>
      yield %inner : tile<4xf32>
    } else {
      yield %a : tile<4xf32>
    }
    // expected-error @below {{use of undeclared SSA value name}}
    %s = addf %inner, %a : tile<4xf32>
    return
  }
}

// -----

cuda_tile.module @syn_use_type {
  testing$func @f(%a: tile<4xf32>) {
    // expected-note @below {{prior use here}}
    %x = addf %a, %a : tile<4xf32>
    // expected-error @below {{use of value '%x' expects different type than prior uses: '!cuda_tile.tile<4xf16>' vs '!cuda_tile.tile<4xf32>'}}
    %y = addf %x, %x : tile<4xf16>
    return
  }
}

// -----

cuda_tile.module @syn_arg_use_type {
  // expected-note @below {{prior use here}}
  testing$func @f(%a: tile<8xi32>) {
    // expected-error @below {{use of value '%a' expects different type than prior uses: '!cuda_tile.tile<8xi64>' vs '!cuda_tile.tile<8xi32>'}}
    %y = addi %a, %a : tile<8xi64>
    return
  }
}

// -----

cuda_tile.module @syn_dominance {
  testing$func @f(%a: tile<4xf32>) {
    // expected-error @below {{'cuda_tile.addf' op operand #1 does not dominate this use}}
    %r = addf %a, %later : tile<4xf32>
    // expected-note @below {{operand defined here (op in the same block)}}
    %later = subf %a, %a : tile<4xf32>
    return
  }
}

// -----

cuda_tile.module @syn_result_count {
  testing$func @f(%a: tile<4xf32>) {
    // expected-error @below {{operation defines 1 results but was provided 2 to bind}}
    %r, %s = addf %a, %a : tile<4xf32>
    return
  }
}

// -----

cuda_tile.module @syn_duplicate_arg {
  // expected-error @below {{redefinition of SSA value '%a'}}
  testing$func @f(%a: tile<4xf32>, %a: tile<4xf32>) {
    return
  }
}

// -----

cuda_tile.module @syn_unknown_type {
  testing$func @f(%a: tile<4xf32>) {
    // expected-error @below {{unknown type 'bogus'}}
    %r = addf %a, %a : tile<4xbogus>
    return
  }
}

// -----

cuda_tile.module @syn_unknown_dialect_type {
  testing$func @f(%a: tile<4xf32>) {
    // expected-error @below {{unknown type 'widget' in dialect 'cuda_tile'}}
    %r = addf %a, %a : !cuda_tile.widget<4>
    return
  }
}

// -----

cuda_tile.module @syn_missing_colon {
  testing$func @f(%a: tile<4xf32>) {
    // expected-error @below {{custom op 'cuda_tile.addf' expected ':' or '{', got 'tile<4xf32>'}}
    %r = addf %a, %a tile<4xf32>
    return
  }
}

// -----

cuda_tile.module @syn_dense_shape {
  testing$func @f() {
    // expected-error @below {{inferred shape of elements literal ([2]) does not match type ([4])}}
    %d = constant <f32: [1.0, 2.0]> : tile<4xf32>
    return
  }
}

// -----

cuda_tile.module @syn_dense_kind {
  testing$func @f() {
    // expected-error @below {{expected integer elements, but parsed floating-point}}
    %d = constant <i32: 2.5> : tile<i32>
    return
  }
}

// -----

cuda_tile.module @syn_dense_elt {
  testing$func @f() {
    // expected-error @below {{mismatch between the element type: 'f32' and the tile element type 'i32'}}
    %d = constant <f32: 1.0> : tile<4xi32>
    return
  }
}


// -----

// MLIR names the default dialect it also tried.
cuda_tile.module @div_unknown_custom {
  testing$func @f(%a: tile<4xf32>) {
    // expected-error @below {{custom op 'frobnicate' is unknown (tried 'cuda_tile.frobnicate' as well)}}
    %r = frobnicate %a : tile<4xf32>
    return
  }
}

// -----

// A name defined twice in one block.
cuda_tile.module @div_ssa_redefinition {
  testing$func @f(%a: tile<4xf32>) {
    // expected-note @below {{previously defined here}}
    %r = addf %a, %a : tile<4xf32>
    // expected-error @below {{redefinition of SSA value '%r'}}
    %r = subf %a, %a : tile<4xf32>
    return
  }
}

// -----

// A forward reference whose definition has another type is reported at the
// definition, with the use as a note.
cuda_tile.module @div_forward_ref_type {
  testing$func @f(%a: tile<4xf32>, %b: tile<4xi32>) {
    // expected-note @below {{previously used here with type '!cuda_tile.tile<4xf32>'}}
    %r = "cuda_tile.addf"(%a, %later) <{rounding_mode = #cuda_tile.rounding<nearest_even>}> : (tile<4xf32>, tile<4xf32>) -> tile<4xf32>
    // expected-error @below {{definition of SSA value '%later#0' has type '!cuda_tile.tile<4xi32>'}}
    %later = negi %b : tile<4xi32>
    return
  }
}

// -----

// A result number past the end of a defined value.
cuda_tile.module @div_result_number {
  testing$func @f(%a: tile<4xf32>) {
    // expected-error @below {{reference to invalid result number}}
    %r = addf %a#1, %a : tile<4xf32>
    return
  }
}
