// tilec opt examples/cutile/bmm_tt_f16_aligned.mlir --lower-to-tileas --schedule | filecheck %s
// Batched matmul with both operands transposed (cuTile's rank-3 tiles, 16-aligned): TMA fills
// rank-3 slots; in the consumer the slot tiles lose their unit dimension, then are permuted
// (SinkUnitReshape puts the reshape first) and stay shared throughout (views, not copies), so
// the dot reads both in place; the accumulator is in the wgmma layout from the loop's carried
// registers to the epilogue, whose reshape back to rank 3 is a slice of it (a unit dimension in
// front: the same registers).
// CHECK: constant <f32: 0.000000e+00> : tile<64x64xf32> {nv_tileas.layouts = [#nv_tileas<layout splat>]}
// CHECK: "nv_tileas.async.pipeline.agent_switch"()
// CHECK: nv_tileas.async.tiled_tma_load {{.*}}atom = #nv_tileas<atom tma_load_3d>
// CHECK: "nv_tileas.load"(%{{.*}}) {nv_tileas.layouts = [#nv_tileas<layout shared>]} : (!nv_tileaa.tiled_view<1x64x64xf16, SMEM>)
// CHECK: }, {
// CHECK: scf.for
// CHECK: "nv_tileas.load"(%{{.*}}) {nv_tileas.layouts = [#nv_tileas<layout wgmma>]} : (!nv_tileaa.tiled_view<64x64xf32, RMEM>)
// CHECK-NEXT: %[[RA:.*]] = reshape %{{.*}} {nv_tileas.layouts = [#nv_tileas<layout shared>]} : tile<1x64x64xf16> -> tile<64x64xf16>
// CHECK-NEXT: %[[A:.*]] = nv_tileas.shuffle %[[RA]] {nv_tileas.layouts = [#nv_tileas<layout shared>], permutation = array<i32: 1, 0>}
// CHECK-NEXT: %[[RB:.*]] = reshape %{{.*}} {nv_tileas.layouts = [#nv_tileas<layout shared>]} : tile<1x64x64xf16> -> tile<64x64xf16>
// CHECK-NEXT: %[[B:.*]] = nv_tileas.shuffle %[[RB]] {nv_tileas.layouts = [#nv_tileas<layout shared>], permutation = array<i32: 1, 0>}
// CHECK-NEXT: %[[C:.*]] = nv_tileas.convert_layout %{{.*}} {layout = #nv_tileas<layout wgmma>, nv_tileas.layouts = [#nv_tileas<layout wgmma>]}
// CHECK-NEXT: nv_tileas.dot %[[A]], %[[B]], %[[C]] {atom = #nv_tileas<atom mma_wgmma_f16_f16_f32>, nv_tileas.layouts = [#nv_tileas<layout wgmma>]}
// CHECK: } {nv_tileas.layouts = [#nv_tileas<layout wgmma>, #nv_tileas<layout none>, #nv_tileas<layout none>]}
// CHECK-NEXT: ftof {{.*}}nv_tileas.layouts = [#nv_tileas<layout wgmma>]
// CHECK-NEXT: reshape {{.*}}nv_tileas.layouts = [#nv_tileas<layout slice, axes = [-1, 0, 1], parent = [64, 64] wgmma>]} : tile<64x64xf16> -> tile<1x64x64xf16>
// CHECK: nv_tileas.alloc_tensor {nv_tileas.staging_buffer = 0 : i32} : tensor<1x64x64xf16>
// CHECK: nv_tileas.async.tiled_tma_store {{.*}}atom = #nv_tileas<atom tma_store_3d>
