// tilec opt examples/cutile/branchy_scale.mlir --lower-to-tileas --schedule | filecheck %s
// An if whose branches both yield and that leaves nothing early becomes scf.if.
// CHECK: %[[C:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !cuda_tile.tile<i1> to i1
// CHECK: scf.if %[[C]] -> (tile<128xf32>) {
// CHECK: mulf
// CHECK: scf.yield %{{.*}} : !cuda_tile.tile<128xf32>
// CHECK: } else {
// CHECK: subf
// CHECK: scf.yield
// CHECK-NOT: cuda_tile.if
