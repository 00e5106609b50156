// tilec opt examples/cutile/saxpy_bf16.mlir --lower-to-tileas --schedule | filecheck %s
// An elementwise kernel: view loads/stores become tiled memops, the arithmetic stays,
// and nothing is pipelined.
// CHECK: entry @saxpy_bf16
// CHECK-NOT: pipeline
// CHECK: nv_tileaa.block_tile
// CHECK: "nv_tileas.tiled_load"
// CHECK-SAME: atom = #nv_tileas<atom copy_g2r>
// CHECK: fma
// CHECK: "nv_tileas.tiled_store"
// CHECK-SAME: atom = #nv_tileas<atom copy_r2g>
// CHECK-NOT: pipeline
// CHECK: nv_tileas.target = "sm_90a"
