// tilec opt examples/cutile/cumsum_f32.mlir --lower-to-tileas --schedule | filecheck %s
// Scans lower to nv_tileas.scan; `reverse` carries over, the identity (0 for
// addition, 1 for multiplication) becomes an attribute.
// CHECK: "nv_tileas.scan"(%{{.*}}) <{dim = 0, identities = [0.000000e+00 : f32]}>
// CHECK: arith.addf
// CHECK: "nv_tileas.scan"(%{{.*}}) <{dim = 0, identities = [1.000000e+00 : f32], reverse = true}>
// CHECK: arith.mulf
