// RUN: tilec opt %s --canonicalize --split-input-file | filecheck %s
// cuda_tile.if canonicalizations. A branch may leave the enclosing block
// (return/continue/break); the patterns must keep that control flow.

// A false condition with no else erases the if; a true one inlines its branch,
// and a `continue` in it ends the loop body there.
// CHECK-LABEL: @static_branches
// CHECK: %[[Z:.*]] = constant <i32: 5>
// CHECK: for
// CHECK-NEXT: continue %[[Z]]
// CHECK-NEXT: }
// CHECK-NOT: print
cuda_tile.module @m {
  testing$func @static_branches(%x: tile<i32>) -> tile<i32> {
    %f = constant <i1: 0> : tile<i1>
    %t = constant <i1: 1> : tile<i1>
    %lo = constant <i64: 0> : tile<i64>
    %hi = constant <i64: 8> : tile<i64>
    %one = constant <i64: 1> : tile<i64>
    if %f {
      print_tko "never" -> token
    }
    %r = for %i in (%lo to %hi, step %one) : tile<i64> iter_values(%acc = %x) -> (tile<i32>) {
      %five = constant <i32: 5> : tile<i32>
      if %t {
        continue %five : tile<i32>
      }
      print_tko "unreachable" -> token
      continue %acc : tile<i32>
    }
    return %r : tile<i32>
  }
}

// -----

// Results yielded from outside both branches of a shaped if become selects on a
// broadcast condition; a result computed inside a branch stays with the if.
// CHECK-LABEL: @shaped_select
// CHECK: %[[R:.*]] = reshape %{{.*}} : tile<i1> -> tile<1x1xi1>
// CHECK-NEXT: %[[B:.*]] = broadcast %[[R]] : tile<1x1xi1> -> tile<2x2xi1>
// CHECK-NEXT: %[[S:.*]] = select %[[B]], %arg1, %arg2 : tile<2x2xi1>, tile<2x2xf32>
// CHECK-NEXT: %[[IF:.*]] = if %arg0 -> (tile<2x2xf32>)
// CHECK: return %[[S]], %[[IF]]
cuda_tile.module @m {
  testing$func @shaped_select(%c: tile<i1>, %a: tile<2x2xf32>, %b: tile<2x2xf32>) -> (tile<2x2xf32>, tile<2x2xf32>) {
    %r:2 = if %c -> (tile<2x2xf32>, tile<2x2xf32>) {
      %s = addf %a, %b : tile<2x2xf32>
      yield %a, %s : tile<2x2xf32>, tile<2x2xf32>
    } else {
      yield %b, %b : tile<2x2xf32>, tile<2x2xf32>
    }
    return %r#0, %r#1 : tile<2x2xf32>, tile<2x2xf32>
  }
}

// -----

// An if on `not c` followed by an if on `c` merges into one if on `c`, with the
// branches matched up; a use of the first if's result inside the second
// becomes the value the matching branch yielded.
// CHECK-LABEL: @combine_negated
// CHECK-NOT: xori
// CHECK: %[[IF:.*]]:2 = if %arg0
// CHECK-NEXT: %[[M:.*]] = muli %arg1, %arg1
// CHECK-NEXT: %[[M2:.*]] = muli %[[M]], %arg1
// CHECK-NEXT: yield %[[M]], %[[M2]]
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[A:.*]] = addi %arg1, %arg1
// CHECK-NEXT: %[[A2:.*]] = addi %[[A]], %arg1
// CHECK-NEXT: yield %[[A]], %[[A2]]
// CHECK-NOT: if
cuda_tile.module @m {
  testing$func @combine_negated(%c: tile<i1>, %x: tile<i32>) -> (tile<i32>, tile<i32>) {
    %t = constant <i1: 1> : tile<i1>
    %n = xori %c, %t : tile<i1>
    %a = if %n -> (tile<i32>) {
      %s = addi %x, %x : tile<i32>
      yield %s : tile<i32>
    } else {
      %p = muli %x, %x : tile<i32>
      yield %p : tile<i32>
    }
    %b = if %c -> (tile<i32>) {
      %q = muli %a, %x : tile<i32>
      yield %q : tile<i32>
    } else {
      %u = addi %a, %x : tile<i32>
      yield %u : tile<i32>
    }
    return %a, %b : tile<i32>, tile<i32>
  }
}

// -----

// Negative: an outer if whose else does work is not folded into an andi; a
// token result is never turned into a select.
// CHECK-LABEL: @no_combine
// CHECK-NOT: andi
// CHECK: if %arg0
// CHECK: if %arg1
// CHECK: } else {
// CHECK: print_tko "else"
// CHECK: %[[T:.*]] = if %arg0 -> (token)
// CHECK-NOT: select
cuda_tile.module @m {
  testing$func @no_combine(%c: tile<i1>, %d: tile<i1>) -> token {
    if %c {
      if %d {
        print_tko "inner" -> token
      }
    } else {
      print_tko "else" -> token
    }
    %t0 = make_token : token
    %t1 = make_token : token
    %t = if %c -> (token) {
      yield %t0 : token
    } else {
      yield %t1 : token
    }
    return %t : token
  }
}
