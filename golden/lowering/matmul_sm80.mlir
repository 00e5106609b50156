// tilec opt examples/cutile/matmul_f16.mlir --lower-to-tileas=arch=sm_80 --schedule | filecheck %s
// sm_80: no agents; two 2-stage pipelines, a prologue filling stage 0, and one loop that
// produces iteration k+1 while it consumes iteration k.
// CHECK: entry @matmul_f16
// CHECK-NOT: agent_switch
// CHECK: create_pipeline {{.*}}numStages = 2 : i32
// CHECK: create_pipeline {{.*}}numStages = 2 : i32
// prologue
// CHECK: nv_tileas.async.pipeline.produce_one
// CHECK: "nv_tileas.tiled_load"
// CHECK: nv_tileas.async.pipeline.produce_one
// CHECK: "nv_tileas.tiled_load"
// the steady-state loop carries the accumulator and four iterators
// CHECK: scf.for %{{.*}} iter_args({{.*}}) -> (tile<64x64xf32>, !nv_tileas.async.pipeline.iterator<tile<64x32xf16>>, !nv_tileas.async.pipeline.iterator<tile<32x64xf16>>, !nv_tileas.async.pipeline.iterator<tile<64x32xf16>>, !nv_tileas.async.pipeline.iterator<tile<32x64xf16>>)
// CHECK: %[[AHEAD:.*]] = arith.addi
// CHECK: produce_one
// CHECK: nv_tileaa.block_tile %{{.*}}[%{{.*}}, %[[AHEAD]]]
// CHECK: produce_one
// CHECK: nv_tileaa.block_tile %{{.*}}[%[[AHEAD]], %{{.*}}]
// CHECK: consume_one
// CHECK: consume_one
// CHECK: %[[MMA:.*]] = nv_tileas.convert_layout %{{.*}} {layout = #nv_tileas<layout mma, warps = [2, 2]>, nv_tileas.layouts = [#nv_tileas<layout mma, warps = [2, 2]>]}
// CHECK-NEXT: nv_tileas.dot %{{.*}}, %{{.*}}, %[[MMA]] {atom = #nv_tileas<atom mma_f16_f16_f32>, nv_tileas.layouts = [#nv_tileas<layout mma, warps = [2, 2]>]}
// CHECK: scf.yield
// CHECK-NOT: agent_switch
