// RUN: tilec opt %s --split-input-file --verify-diagnostics
// Control flow: entry/testing$func/return, module symbols, if/yield,
// for/loop/continue/break, assert.

cuda_tile.module @cf_entry_results {
  // expected-error @below {{'cuda_tile.entry' op entry op must not return values}}
  entry @kernel(%n: tile<i32>) -> tile<i32> {
    return %n : tile<i32>
  }
}

// -----

cuda_tile.module @cf_entry_args {
  // expected-error @below {{'cuda_tile.entry' op entry op must have scalar types (rank 0 !cuda_tile.tile)}}
  entry @kernel(%v: tile<16xf32>) {
    return
  }
}

// -----

cuda_tile.module @cf_entry_return_value {
  entry @kernel(%n: tile<i32>) {
    // expected-error @below {{'cuda_tile.return' op has 1 operands, but enclosing function (@kernel) returns 0}}
    return %n : tile<i32>
  }
}

// -----

cuda_tile.module @cf_func_return_count {
  testing$func @two(%a: tile<4xf32>) -> (tile<4xf32>, tile<4xf32>) {
    // expected-error @below {{'cuda_tile.return' op has 1 operands, but enclosing function (@two) returns 2}}
    return %a : tile<4xf32>
  }
}

// -----

cuda_tile.module @cf_func_return_type {
  testing$func @widen(%a: tile<4xf16>) -> tile<4xf32> {
    // expected-error @below {{type of return operand 0 ('!cuda_tile.tile<4xf16>') doesn't match function result type ('!cuda_tile.tile<4xf32>') in function @widen}}
    return %a : tile<4xf16>
  }
}

// -----

cuda_tile.module @cf_return_in_loop {
  testing$func @early(%n: tile<i32>) {
    for %i in (%n to %n, step %n) : tile<i32> {
      // expected-error @below {{'cuda_tile.return' op expects parent op to be one of 'cuda_tile.entry, cuda_tile.if, cuda_tile.testing$func'}}
      return
    }
    return
  }
}

// -----

cuda_tile.module @cf_if_condition {
  testing$func @vector_cond(%c: tile<4xi1>) {
    // expected-error @below {{'cuda_tile.if' op operand #0 must be 0D tile of i1 values, but got '!cuda_tile.tile<4xi1>'}}
    "cuda_tile.if"(%c) ({
      yield
    }, {
    }) : (tile<4xi1>) -> ()
    return
  }
}

// -----

cuda_tile.module @cf_if_no_else {
  testing$func @missing_else(%c: tile<i1>, %x: tile<f32>) {
    // expected-error @below {{'cuda_tile.if' op has non-empty return type, must define else branch}}
    %r = if %c -> (tile<f32>) {
      yield %x : tile<f32>
    }
    return
  }
}

// -----

cuda_tile.module @cf_if_then_empty {
  testing$func @then_yields_nothing(%c: tile<i1>, %x: tile<f32>) {
    // expected-error @below {{'cuda_tile.if' op has return type of '!cuda_tile.tile<f32>' but then branch does not yield anything}}
    %r = if %c -> (tile<f32>) {
      yield
    } else {
      yield %x : tile<f32>
    }
    return
  }
}

// -----

cuda_tile.module @cf_if_else_empty {
  testing$func @else_yields_nothing(%c: tile<i1>, %x: tile<f32>) {
    // expected-error @below {{'cuda_tile.if' op has return type of '!cuda_tile.tile<f32>' but else branch does not yield anything}}
    %r = if %c -> (tile<f32>) {
      yield %x : tile<f32>
    } else {
      yield
    }
    return
  }
}

// -----

cuda_tile.module @cf_if_no_results {
  testing$func @stray_yield(%c: tile<i1>, %x: tile<i32>) {
    // expected-error @below {{'cuda_tile.if' op does not return a value, but then branch yields '!cuda_tile.tile<i32>'}}
    if %c {
      yield %x : tile<i32>
    }
    return
  }
}

// -----

cuda_tile.module @cf_if_yield_type {
  testing$func @mismatched(%c: tile<i1>, %x: tile<i32>, %y: tile<i64>) {
    // expected-error @below {{'cuda_tile.if' op type does not match yield type, else branch yields '!cuda_tile.tile<i64>' but op result type is '!cuda_tile.tile<i32>'}}
    %r = if %c -> (tile<i32>) {
      yield %x : tile<i32>
    } else {
      yield %y : tile<i64>
    }
    return
  }
}

// -----

cuda_tile.module @cf_if_result_view {
  testing$func @view_result(%c: tile<i1>, %t: tensor_view<8xf32, strides=[1]>) {
    // expected-error @below {{'cuda_tile.if' op result type 0 is a tensor_view, which is not supported}}
    %r = if %c -> (tensor_view<8xf32, strides=[1]>) {
      yield %t : tensor_view<8xf32, strides=[1]>
    } else {
      yield %t : tensor_view<8xf32, strides=[1]>
    }
    return
  }
}

// -----

cuda_tile.module @cf_yield_parent {
  testing$func @loose_yield(%n: tile<i32>) {
    for %i in (%n to %n, step %n) : tile<i32> {
      // expected-error @below {{'cuda_tile.yield' op expects parent op to be one of 'cuda_tile.if, cuda_tile.reduce, cuda_tile.scan'}}
      yield
    }
    return
  }
}

// -----

cuda_tile.module @cf_for_bounds {
  testing$func @mixed_bounds(%lo: tile<i32>, %hi: tile<i64>) {
    // expected-error @below {{'cuda_tile.for' op failed to verify that all of {lowerBound, upperBound, step} have same type}}
    "cuda_tile.for"(%lo, %hi, %lo) ({
    ^bb0(%i: tile<i32>):
      continue
    }) : (tile<i32>, tile<i64>, tile<i32>) -> ()
    return
  }
}

// -----

cuda_tile.module @cf_for_float_bound {
  testing$func @float_bounds(%lo: tile<f32>) {
    // expected-error @below {{'cuda_tile.for' op operand #0 must be 0D tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<f32>'}}
    for %i in (%lo to %lo, step %lo) : tile<f32> {
    }
    return
  }
}

// -----

cuda_tile.module @cf_for_iv_type {
  testing$func @iv_type(%lo: tile<i32>) {
    // expected-error @below {{'cuda_tile.for' op expected induction variable to be same type as bounds and step: '!cuda_tile.tile<i64>' vs '!cuda_tile.tile<i32>'}}
    "cuda_tile.for"(%lo, %lo, %lo) ({
    ^bb0(%i: tile<i64>):
      continue
    }) : (tile<i32>, tile<i32>, tile<i32>) -> ()
    return
  }
}

// -----

cuda_tile.module @cf_for_no_iv {
  testing$func @no_iv(%lo: tile<i32>) {
    // expected-error @below {{'cuda_tile.for' op expected at least one block argument for induction variable}}
    "cuda_tile.for"(%lo, %lo, %lo) ({
      continue
    }) : (tile<i32>, tile<i32>, tile<i32>) -> ()
    return
  }
}

// -----

cuda_tile.module @cf_for_iter_count {
  testing$func @iter_count(%lo: tile<i32>, %x: tile<f32>) {
    // expected-error @below {{'cuda_tile.for' op mismatch in number of region iterator values and loop iterator inits: 0 vs 1}}
    %r = "cuda_tile.for"(%lo, %lo, %lo, %x) ({
    ^bb0(%i: tile<i32>):
      continue %x : tile<f32>
    }) : (tile<i32>, tile<i32>, tile<i32>, tile<f32>) -> tile<f32>
    return
  }
}

// -----

cuda_tile.module @cf_for_iter_type {
  testing$func @iter_type(%lo: tile<i32>, %x: tile<f32>) {
    // expected-error @below {{'cuda_tile.for' op init value 0 and region iter_value 0 have different type: '!cuda_tile.tile<f32>' != '!cuda_tile.tile<f16>'}}
    %r = "cuda_tile.for"(%lo, %lo, %lo, %x) ({
    ^bb0(%i: tile<i32>, %acc: tile<f16>):
      continue %x : tile<f32>
    }) : (tile<i32>, tile<i32>, tile<i32>, tile<f32>) -> tile<f32>
    return
  }
}

// -----

cuda_tile.module @cf_for_result_type {
  testing$func @result_type(%lo: tile<i32>, %x: tile<f32>) {
    // expected-error @below {{'cuda_tile.for' op failed to verify that all of {initValues, resultValues} have same type}}
    %r = "cuda_tile.for"(%lo, %lo, %lo, %x) ({
    ^bb0(%i: tile<i32>, %acc: tile<f32>):
      continue %acc : tile<f32>
    }) : (tile<i32>, tile<i32>, tile<i32>, tile<f32>) -> tile<f64>
    return
  }
}

// -----

cuda_tile.module @cf_for_carried_view {
  testing$func @carried_view(%lo: tile<i32>, %t: tensor_view<8xf32, strides=[1]>) {
    // expected-error @below {{'cuda_tile.for' op loop-carried value 0 is a tensor_view, which is not supported}}
    %r = for %i in (%lo to %lo, step %lo) : tile<i32> iter_values(%v = %t) -> (tensor_view<8xf32, strides=[1]>) {
      continue %v : tensor_view<8xf32, strides=[1]>
    }
    return
  }
}

// -----

cuda_tile.module @cf_for_continue_types {
  testing$func @continue_types(%lo: tile<i32>, %x: tile<f32>, %y: tile<f16>) {
    %r = for %i in (%lo to %lo, step %lo) : tile<i32> iter_values(%acc = %x) -> (tile<f32>) {
      // expected-error @below {{`for` is missing a valid terminator. `continue` op should have operand types that match the parent loop return types: ('!cuda_tile.tile<f32>'), but found: ('!cuda_tile.tile<f16>')}}
      continue %y : tile<f16>
    }
    return
  }
}

// -----

cuda_tile.module @cf_loop_continue_types {
  testing$func @loop_continue(%x: tile<i32>) {
    %r = loop iter_values(%a = %x) : tile<i32> -> tile<i32> {
      // expected-error @below {{`loop` is missing a valid terminator. `continue` op should have operand types that match the parent loop iter_values: ('!cuda_tile.tile<i32>'), but found: ()}}
      continue
    }
    return
  }
}

// -----

cuda_tile.module @cf_loop_break_types {
  testing$func @loop_break(%x: tile<i32>, %c: tile<i1>) {
    %r = loop iter_values(%a = %x) : tile<i32> -> tile<i32> {
      if %c {
        // expected-error @below {{'cuda_tile.break' op operand types must correspond to the parent loop result types: () vs ('!cuda_tile.tile<i32>')}}
        break
      }
      continue %a : tile<i32>
    }
    return
  }
}

// -----

cuda_tile.module @cf_loop_iter_type {
  testing$func @loop_iter(%x: tile<i32>) {
    // expected-error @below {{'cuda_tile.loop' op init value 0 and region iter_value 0 have different type: '!cuda_tile.tile<i32>' != '!cuda_tile.tile<i8>'}}
    %r = "cuda_tile.loop"(%x) ({
    ^bb0(%a: tile<i8>):
      break %x : tile<i32>
    }) : (tile<i32>) -> tile<i32>
    return
  }
}

// -----

cuda_tile.module @cf_break_in_for {
  testing$func @break_for(%n: tile<i32>) {
    for %i in (%n to %n, step %n) : tile<i32> {
      // expected-error @below {{'cuda_tile.break' op expects parent op to be one of 'cuda_tile.if, cuda_tile.loop'}}
      break
    }
    return
  }
}

// -----

cuda_tile.module @cf_break_outside_loop {
  // expected-note @below {{see unexpected ancestor operation}}
  testing$func @break_if(%c: tile<i1>) {
    if %c {
      // expected-error @below {{'cuda_tile.break' op can only be nested within a ancestor chain of 'cuda_tile.loop', 'cuda_tile.if' operations}}
      break
    }
    return
  }
}

// -----

cuda_tile.module @cf_continue_outside_loop {
  // expected-note @below {{see unexpected ancestor operation}}
  testing$func @continue_if(%c: tile<i1>) {
    if %c {
      // expected-error @below {{'cuda_tile.continue' op can only be nested within a ancestor chain of 'cuda_tile.for', 'cuda_tile.loop', 'cuda_tile.if' operations}}
      continue
    }
    return
  }
}

// -----

cuda_tile.module @cf_assert_cond {
  testing$func @assert_int(%c: tile<i32>) {
    // expected-error @below {{'cuda_tile.assert' op operand #0 must be tile of i1 values, but got '!cuda_tile.tile<i32>'}}
    assert %c, "never" : tile<i32>
    return
  }
}

// -----

cuda_tile.module @cf_redefinition {
  // expected-note @below {{see existing symbol definition here}}
  entry @kernel() {
    return
  }
  // expected-error @below {{redefinition of symbol named 'kernel'}}
  entry @kernel() {
    return
  }
}
