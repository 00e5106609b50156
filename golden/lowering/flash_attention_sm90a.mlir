// tilec opt golden/lowering/flash_attention_f16.mlir --lower-to-tileas=arch=sm_90a --schedule | filecheck %s
// The key loop of flash attention: K and V tiles stream through two 3-stage pipelines;
// the consumer agent keeps the three loop-carried tiles (row max, row sum, accumulator)
// in registers and runs both dots and the online softmax inside the consume regions.
// The Q tile is loaded once, before the loop; K and V tiles arrive by TMA.
// CHECK: entry @flash_attention_f16
// CHECK: "nv_tileas.tiled_load"
// CHECK: create_pipeline {{.*}}numStages = 3 : i32
// CHECK: create_pipeline {{.*}}numStages = 3 : i32
// CHECK: "nv_tileas.async.pipeline.agent_switch"()
// CHECK: produce_one
// CHECK: nv_tileas.async.tiled_tma_load
// CHECK: produce_one
// CHECK: nv_tileas.async.tiled_tma_load
// CHECK: }, {
// CHECK: scf.for
// CHECK-COUNT-3: tiled_view<{{.*}}RMEM>
// CHECK: consume_one
// CHECK: consume_one
// CHECK: nv_tileas.dot {{.*}}mma_wgmma_f16_f16_f32
// CHECK: reduce
// CHECK: exp
// CHECK: nv_tileas.dot {{.*}}mma_wgmma_f16_f16_f32
// CHECK-COUNT-3: "nv_tileas.store"
// The epilogue (normalize, store) runs in the consumer agent after its loop.
// CHECK: divf
// CHECK: "nv_tileas.tiled_store"
// CHECK: }) : () -> (!cuda_tile.tile<64xf32>, !cuda_tile.tile<64xf32>, !cuda_tile.tile<64x64xf32>)
// CHECK-NEXT: return
