// tilec opt examples/cutile/row_softmax_f32.mlir --lower-to-tileas=arch=sm_80 --schedule | filecheck %s
// Row softmax: no loop, so no pipeline; the load and store become tiled memops, the
// reductions stay cuda_tile.reduce (docs/decisions.md, "Lowering and scheduling").
// CHECK: entry @row_softmax_f32
// CHECK-NOT: pipeline
// CHECK: "nv_tileas.tiled_load"
// CHECK: reduce
// CHECK: exp
// CHECK: reduce
// CHECK: divf
// CHECK: "nv_tileas.tiled_store"
// CHECK: nv_tileas.target = "sm_80"
