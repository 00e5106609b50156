// tilec opt examples/cutile/matmul_f16.mlir --lower-to-tileas --schedule=tma=false | filecheck %s
// With TMA off, the sm_90a producer agent issues synchronous tiled loads instead.
// CHECK-NOT: make_tiled_tma_desc
// CHECK: "nv_tileas.async.pipeline.agent_switch"()
// CHECK: produce_one
// CHECK: nv_tileaa.block_tile
// CHECK: "nv_tileas.tiled_load"
// CHECK-SAME: atom = #nv_tileas<atom copy_g2r>
// CHECK: produce_one
// CHECK: "nv_tileas.tiled_load"
// CHECK-NOT: tiled_tma_load
