// tilec opt examples/gcd_loop_i32.mlir --lower-to-tileas=arch=sm_80 --schedule | filecheck %s
// `loop { if %c { break } ...; continue }` becomes scf.while: the before region
// tests the exit condition (negated: scf.condition continues on true), the
// after region runs the rest of the body; the 0-d tile<i1> reaches scf's i1
// through builtin.unrealized_conversion_cast.
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: %[[R:.*]]:2 = scf.while (%[[X:.*]] = %{{.*}}, %[[Y:.*]] = %{{.*}}) : (!cuda_tile.tile<i32>, !cuda_tile.tile<i32>) -> (!cuda_tile.tile<i32>, !cuda_tile.tile<i32>) {
// CHECK-NEXT: %[[DONE:.*]] = cmpi equal %[[Y]]
// CHECK-NEXT: %[[B:.*]] = builtin.unrealized_conversion_cast %[[DONE]] : !cuda_tile.tile<i1> to i1
// CHECK-NEXT: %[[GO:.*]] = arith.xori %[[B]], %[[TRUE]] : i1
// CHECK-NEXT: scf.condition(%[[GO]]) %[[X]], %[[Y]]
// CHECK-NEXT: } do {
// CHECK-NEXT: ^bb0(%[[A:.*]]: !cuda_tile.tile<i32>, %[[D:.*]]: !cuda_tile.tile<i32>):
// CHECK-NEXT: %[[REM:.*]] = remi %[[A]], %[[D]] signed
// CHECK-NEXT: scf.yield %[[D]], %[[REM]]
// CHECK: absi %[[R]]#0
// CHECK-NOT: cuda_tile.loop
