// tilec opt golden/lowering/flash_attention_f16.mlir --lower-to-tileas=arch=sm_90a --schedule | filecheck %s
// The key loop of flash attention: K and V tiles stream through two 3-stage pipelines;
// the consumer agent keeps the three loop-carried tiles (row max, row sum, accumulator)
// in registers and runs both dots and the online softmax inside the consume regions.
// The Q tile is loaded once, before the loop. K and V tiles are loaded by the producer
// (cp.async): nothing in this kernel proves its strides 16-byte aligned, which a TMA
// tensor map needs (the aligned cuTile specialization gets TMA: matmul_sm90a.mlir).
// CHECK: entry @flash_attention_f16
// CHECK: "nv_tileas.tiled_load"
// CHECK: create_pipeline {{.*}}numStages = 3 : i32
// CHECK: create_pipeline {{.*}}numStages = 3 : i32
// CHECK-NOT: make_tiled_tma_desc
// CHECK: "nv_tileas.async.pipeline.agent_switch"()
// CHECK: produce_one
// CHECK: "nv_tileas.tiled_load"
// CHECK: produce_one
// CHECK: "nv_tileas.tiled_load"
// CHECK: }, {
// CHECK: scf.for
// CHECK-COUNT-3: tiled_view<{{.*}}RMEM>
// CHECK: consume_one
// CHECK: consume_one
// Every result names its layout: S = Q K^T computes in the wgmma accumulator, the row max and
// sum are slices of it (no data moves to reduce them or to broadcast them back), P is S's
// f16 conversion in the same layout (the second dot's register A), and the loop carries the
// statistics and the output accumulator in those layouts.
// CHECK: nv_tileas.dot {{.*}}mma_wgmma_f16_f16_f32{{.*}}nv_tileas.layouts = [#nv_tileas<layout wgmma>]
// CHECK: "nv_tileas.reduce"
// CHECK: }) {nv_tileas.layouts = [#nv_tileas<layout slice, axes = [0], parent = [64, 64] wgmma>]}
// CHECK: broadcast {{.*}}nv_tileas.layouts = [#nv_tileas<layout wgmma>]
// CHECK: exp {{.*}}nv_tileas.layouts = [#nv_tileas<layout wgmma>]
// CHECK: ftof {{.*}}nv_tileas.layouts = [#nv_tileas<layout wgmma>]
// CHECK: nv_tileas.dot {{.*}}mma_wgmma_f16_f16_f32{{.*}}nv_tileas.layouts = [#nv_tileas<layout wgmma>]
// CHECK-COUNT-3: "nv_tileas.store"
// CHECK: } {nv_tileas.layouts = [#nv_tileas<layout slice, axes = [0], parent = [64, 64] wgmma>, #nv_tileas<layout slice, axes = [0], parent = [64, 64] wgmma>, #nv_tileas<layout wgmma>, #nv_tileas<layout none>, #nv_tileas<layout none>]}
// The epilogue (normalize, store) runs in the consumer agent after its loop.
// CHECK: divf
// CHECK: "nv_tileas.tiled_store"
// CHECK: }) {nv_tileas.layouts = [#nv_tileas<layout none>, #nv_tileas<layout none>, #nv_tileas<layout none>]} : () -> (!cuda_tile.tile<64xf32>, !cuda_tile.tile<64xf32>, !cuda_tile.tile<64x64xf32>)
// CHECK-NEXT: return
