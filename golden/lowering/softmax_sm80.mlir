// tilec opt examples/cutile/row_softmax_f32.mlir --lower-to-tileas=arch=sm_80 --schedule | filecheck %s
// Row softmax: no loop, so no pipeline; the load and store become tiled memops and
// the reductions nv_tileas.reduce, whose combiners are scalar arith ops over
// (lhs..., rhs...) with the identity carried as an attribute (-inf for max).
// CHECK: entry @row_softmax_f32
// CHECK-NOT: pipeline
// CHECK: "nv_tileas.tiled_load"
// CHECK: "nv_tileas.reduce"(%{{.*}}) <{dim = 1, identities = [0xFF800000 : f32]}>
// CHECK-NEXT: ^bb{{[0-9]+}}(%[[L:.*]]: f32, %[[R:.*]]: f32):
// CHECK-NEXT: %[[M:.*]] = arith.maxnumf %[[L]], %[[R]] : f32
// CHECK-NEXT: nv_tileas.yield %[[M]] : f32
// The row max is a slice of the tile's blocked layout: each thread keeps its rows' values
// (butterflies leave them in every lane), the keepdims reshape relabels the slice, and the
// broadcast back into the blocked layout copies registers. No shared memory at all.
// CHECK: }) {nv_tileas.layouts = [#nv_tileas<layout slice, axes = [0], parent = [4, 128] blocked>]}
// CHECK-NEXT: reshape {{.*}}nv_tileas.layouts = [#nv_tileas<layout slice, axes = [0, -1], parent = [4, 128] blocked>]
// CHECK-NEXT: broadcast {{.*}}nv_tileas.layouts = [#nv_tileas<layout blocked>]
// CHECK-NEXT: subf {{.*}}nv_tileas.layouts = [#nv_tileas<layout blocked>]
// CHECK: exp
// CHECK: "nv_tileas.reduce"(%{{.*}}) <{dim = 1, identities = [0.000000e+00 : f32]}>
// CHECK: arith.addf
// CHECK: divf {{.*}}nv_tileas.layouts = [#nv_tileas<layout blocked>]
// CHECK: "nv_tileas.tiled_store"
// CHECK-NOT: cuda_tile.reduce
// CHECK: nv_tileas.target = "sm_80"
