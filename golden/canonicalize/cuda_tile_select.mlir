// RUN: tilec opt %s --canonicalize --split-input-file | filecheck %s
// cuda_tile.select and cuda_tile.assume canonicalizations.

// select on a not swaps the arms; nested selects on the same condition
// collapse; select c, 1, 0 on integers is a zero-extension of c.
// CHECK-LABEL: @select_rules
// CHECK: %[[S:.*]] = select %arg0, %arg2, %arg1 : tile<i1>, tile<i32>
// CHECK-NEXT: %[[S2:.*]] = select %arg0, %arg2, %arg1 : tile<i1>, tile<i32>
// CHECK-NEXT: %[[E:.*]] = exti %arg0 unsigned : tile<i1> -> tile<i32>
// CHECK-NEXT: return %[[S]], %[[S2]], %[[E]]
cuda_tile.module @m {
  testing$func @select_rules(%c: tile<i1>, %a: tile<i32>, %b: tile<i32>) -> (tile<i32>, tile<i32>, tile<i32>) {
    %t = constant <i1: 1> : tile<i1>
    %one = constant <i32: 1> : tile<i32>
    %zero = constant <i32: 0> : tile<i32>
    %n = xori %c, %t : tile<i1>
    %s = select %n, %a, %b : tile<i1>, tile<i32>
    %s2 = select %c, %s, %a : tile<i1>, tile<i32>
    %e = select %c, %one, %zero : tile<i1>, tile<i32>
    return %s, %s2, %e : tile<i32>, tile<i32>, tile<i32>
  }
}

// -----

// Constant folding over a non-uniform condition, floats included; a
// non-constant arm blocks it.
// CHECK-LABEL: @select_consts
// CHECK-DAG: constant <f32: [1.000000e+00, 6.000000e+00]> : tile<2xf32>
// CHECK-DAG: %[[K:.*]] = constant <i1: [true, false]>
// CHECK: select %[[K]], %arg0
cuda_tile.module @m {
  testing$func @select_consts(%v: tile<2xf32>) -> (tile<2xf32>, tile<2xf32>) {
    %k = constant <i1: [1, 0]> : tile<2xi1>
    %a = constant <f32: [1.0, 2.0]> : tile<2xf32>
    %b = constant <f32: [5.0, 6.0]> : tile<2xf32>
    %r = select %k, %a, %b : tile<2xi1>, tile<2xf32>
    %r2 = select %k, %v, %b : tile<2xi1>, tile<2xf32>
    return %r, %r2 : tile<2xf32>, tile<2xf32>
  }
}

// -----

// assume P (assume P x) is assume P x; a different predicate stays.
// CHECK-LABEL: @assume_dedup
// CHECK: %[[A:.*]] = assume div_by<4>, %arg0
// CHECK-NEXT: %[[B:.*]] = assume div_by<8>, %[[A]]
// CHECK-NEXT: return %[[B]]
cuda_tile.module @m {
  testing$func @assume_dedup(%x: tile<i32>) -> tile<i32> {
    %a = assume div_by<4>, %x : tile<i32>
    %b = assume div_by<4>, %a : tile<i32>
    %c = assume div_by<8>, %b : tile<i32>
    %d = assume div_by<8>, %c : tile<i32>
    return %d : tile<i32>
  }
}
