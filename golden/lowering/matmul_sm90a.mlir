// tilec opt examples/cutile/matmul_f16_aligned.mlir --lower-to-tileas --schedule | filecheck %s
// sm_90a (the default): the K loop becomes two 6-stage pipelines (A and B tiles: TMA into
// agents whose registers leave one CTA per SM, so the stages fill its shared memory) and an
// agent_switch: a producer warpgroup (40 registers) issuing TMA loads through descriptors
// built before the loop (the arrays are 16-aligned: cuTile's `assume div_by<16>` facts),
// a consumer warpgroup computing the dot. Every result names its layout (nv_tileas.layouts,
// propagate_layouts.py): the slots' tiles are shared, the accumulator is in the wgmma layout
// from the loop's carried registers through the dot to the f16 conversion of the epilogue.
// CHECK: entry @matmul_f16_aligned
// five stages beside the epilogue's 32 KB staging tile (test_tma_store.py)
// CHECK: nv_tileas.alloc_tensor {nv_tileas.stage_buffer = 0 : i32} : tensor<5x128x64xf16>
// CHECK: nv_tileas.view %{{.*}} -> !nv_tileaa.tiled_view<5x128x64xf16, SMEM>
// CHECK: nv_tileas.async.pipeline.create_pipeline {{.*}}numStages = 5 : i32{{.*}}sharedMem = true
// CHECK: nv_tileas.async.pipeline.create_iterator %producer
// CHECK: nv_tileas.async.pipeline.create_iterator %consumer
// CHECK: tensor<5x64x128xf16>
// CHECK: create_pipeline {{.*}}numStages = 5 : i32
// CHECK: %[[DA:.*]] = nv_tileas.make_tiled_tma_desc %{{.*}} box[%{{.*}}, %{{.*}}] {atom = #nv_tileas<atom tma_load_2d>, oob_mode = #nv_tileas.oob_mode<zero>, swizzle_mode = #nv_tileas.swizzle_mode<128B>} : !nv_tileaa.tiled_view<?x?xf16, GMEM, strides = [?, 1]>
// CHECK: %[[DB:.*]] = nv_tileas.make_tiled_tma_desc
// CHECK: %[[DC:.*]] = nv_tileas.make_tiled_tma_desc {{.*}}atom = #nv_tileas<atom tma_store_2d>{{.*}}swizzle_mode<128B>
// CHECK: "nv_tileas.async.pipeline.agent_switch"() <{max_regs = array<i32: 40, 240>, num_agents_per_group = 1 : i32, num_warps = array<i32: 4, 4>}>
// producer agent: a loop of produce_one regions, each a TMA load into the stage's SMEM
// CHECK: scf.for
// CHECK: nv_tileas.async.pipeline.produce_one %producer
// CHECK-NEXT: ^bb{{[0-9]+}}(%[[SLOT:.*]]: !cuda_tile.tile<128x64xf16>):
// CHECK: %[[SV:.*]] = nv_tileas.view %[[SLOT]] : tile<128x64xf16> -> !nv_tileaa.tiled_view<128x64xf16, SMEM>
// CHECK: %[[BAR:.*]] = nv_tileas.create_none : !nv_tileaa.mem_token
// CHECK: %[[T:.*]] = nv_tileas.async.tiled_tma_load %[[DA]], %[[SV]][%{{.*}}, %{{.*}}], %[[BAR]] {atom = #nv_tileas<atom tma_load_2d>}
// CHECK-NEXT: nv_tileas.async.wait %[[T]] : !async.token
// CHECK-NEXT: "nv_tileas.load"(%[[SV]]) {nv_tileas.layouts = [#nv_tileas<layout shared>]}
// CHECK-NEXT: nv_tileas.async.pipeline.yield %{{.*}} : tile<128x64xf16>
// CHECK: nv_tileas.async.pipeline.inc_iter
// CHECK: produce_one
// CHECK: nv_tileas.async.tiled_tma_load %[[DB]]
// CHECK: nv_tileas.async.pipeline.inc_iter
// CHECK: nv_tileas.create_none {nv_tileas.layouts = [#nv_tileas<layout none>]} : tile<128x128xf32>
// CHECK: nv_tileas.async.pipeline.yield
// CHECK-NEXT: }, {
// consumer agent: the dot sits in the innermost consume_one, bracketed by wait/release
// CHECK: scf.for
// CHECK: nv_tileas.view %{{.*}} : tile<128x128xf32> -> !nv_tileaa.tiled_view<128x128xf32, RMEM>
// CHECK: nv_tileas.async.pipeline.consume_one %consumer
// CHECK: nv_tileas.async.pipeline.consumer_wait
// CHECK: nv_tileas.async.pipeline.consume_one
// CHECK: nv_tileas.async.pipeline.consumer_wait
// the accumulator enters the dot through an explicit conversion into the
// wgmma accumulator layout (B, the 64x128 tile, is read in place from its slot)
// CHECK: %[[ACC:.*]] = "nv_tileas.load"(%{{.*}}) {nv_tileas.layouts = [#nv_tileas<layout wgmma>]}
// CHECK-NEXT: %[[MMA:.*]] = nv_tileas.convert_layout %[[ACC]] {layout = #nv_tileas<layout wgmma>, nv_tileas.layouts = [#nv_tileas<layout wgmma>]}
// CHECK-NEXT: nv_tileas.dot %{{.*}}, %{{.*}}, %[[MMA]] {atom = #nv_tileas<atom mma_wgmma_f16_f16_f32>, nv_tileas.layouts = [#nv_tileas<layout wgmma>]}
// CHECK-NEXT: "nv_tileas.store"
// CHECK-NEXT: nv_tileas.async.pipeline.consumer_release
// CHECK: nv_tileas.async.pipeline.consumer_release
// CHECK: nv_tileas.async.pipeline.inc_iter
// CHECK: scf.yield
// the epilogue runs in the consumer agent, before its yield (sink-epilogue)
// CHECK: } {nv_tileas.layouts = [#nv_tileas<layout wgmma>, #nv_tileas<layout none>, #nv_tileas<layout none>]}
// CHECK-NEXT: %[[C:.*]] = ftof %{{.*}} {nv_tileas.layouts = [#nv_tileas<layout wgmma>]}
// and goes out through a swizzled staging tile and a TMA store
// CHECK: %[[BUF:.*]] = nv_tileas.alloc_tensor {nv_tileas.staging_buffer = 0 : i32} : tensor<128x128xf16>
// CHECK-NEXT: %[[STV:.*]] = nv_tileas.view %[[BUF]] : tensor<128x128xf16> -> !nv_tileaa.tiled_view<128x128xf16, SMEM>
// CHECK-NEXT: "nv_tileas.store"(%[[STV]], %[[C]])
// CHECK: %[[ST:.*]] = nv_tileas.async.tiled_tma_store %[[DC]], %[[STV]][%{{.*}}, %{{.*}}] {atom = #nv_tileas<atom tma_store_2d>}
// CHECK-NEXT: nv_tileas.async.wait %[[ST]] : !async.token
// CHECK: nv_tileas.async.pipeline.yield
// CHECK: }) {nv_tileas.layouts = [#nv_tileas<layout none>]} : () -> !cuda_tile.tile<128x128xf32>
// CHECK-NEXT: return
// CHECK-NOT: load_view_tko
// CHECK-NOT: mmaf
