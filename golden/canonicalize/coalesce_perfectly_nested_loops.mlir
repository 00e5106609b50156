// RUN: tilec opt %s --canonicalize --split-input-file --allow-unregistered-dialect | filecheck %s
// Pattern "coalesce perfectly nested loops": an outer scf.for whose body is
// only an inner scf.for (constant bounds, no iter-args on either) becomes one
// loop over the product of the trip counts; the induction variables are
// re-derived with arith.divsi / arith.remsi.

// Constants are hoisted to the top of the block, so they precede the marker.
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: label = "spec-pair"
// CHECK: scf.for %[[K:.*]] = %[[C0]] to %[[C32]] step %[[C1]] {
// CHECK-NEXT: %[[Q:.*]] = arith.divsi %[[K]], %[[C8]] : index
// CHECK-NEXT: %[[R:.*]] = arith.remsi %[[K]], %[[C8]] : index
// CHECK-NEXT: %[[J:.*]] = arith.muli %[[R]], %[[C4]] : index
// CHECK-NEXT: "body"(%[[Q]], %[[J]]) : (index, index) -> ()
// CHECK-NEXT: }
// CHECK-NOT: scf.for
// CHECK: // -----
"test.marker"() {label = "spec-pair"} : () -> ()
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c4 = arith.constant 4 : index
%c32 = arith.constant 32 : index
scf.for %i = %c0 to %c4 step %c1 {
  scf.for %j = %c0 to %c32 step %c4 {
    "body"(%i, %j) : (index, index) -> ()
  }
}

// -----

// Dynamic outer bounds: the trip count is computed before the loop.
// CHECK-LABEL: label = "dynamic-outer"
// CHECK: arith.divsi
// CHECK: %[[N:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK-NOT: scf.for
"test.marker"() {label = "dynamic-outer"} : () -> ()
%lb, %ub, %st = "get_bounds"() : () -> (index, index, index)
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c4 = arith.constant 4 : index
scf.for %i = %lb to %ub step %st {
  scf.for %j = %c0 to %c4 step %c1 {
    "body"(%i, %j) : (index, index) -> ()
  }
}

// -----

// Negative: an extra op in the outer body.
// CHECK-LABEL: label = "extra-op"
// CHECK: scf.for
// CHECK: "outer_work"
// CHECK: scf.for
"test.marker"() {label = "extra-op"} : () -> ()
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c4 = arith.constant 4 : index
scf.for %i = %c0 to %c4 step %c1 {
  "outer_work"(%i) : (index) -> ()
  scf.for %j = %c0 to %c4 step %c1 {
    "body"(%i, %j) : (index, index) -> ()
  }
}

// -----

// Negative: the inner loop's bounds are not constant.
// CHECK-LABEL: label = "non-constant-inner"
// CHECK: scf.for
// CHECK: scf.for
"test.marker"() {label = "non-constant-inner"} : () -> ()
%n = "get_index"() : () -> index
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c4 = arith.constant 4 : index
scf.for %i = %c0 to %c4 step %c1 {
  scf.for %j = %c0 to %n step %c1 {
    "body"(%i, %j) : (index, index) -> ()
  }
}

// -----

// Negative: the inner loop carries an iter-arg.
// CHECK-LABEL: label = "iter-args"
// CHECK: scf.for
// CHECK: scf.for {{.*}} iter_args
"test.marker"() {label = "iter-args"} : () -> ()
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c4 = arith.constant 4 : index
scf.for %i = %c0 to %c4 step %c1 {
  %s = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %c0) -> (index) {
    %n = arith.addi %acc, %j : index
    scf.yield %n : index
  }
  "use"(%s) : (index) -> ()
}
