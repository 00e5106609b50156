// RUN: tilec opt %s --split-input-file --verify-diagnostics
// A valid counterpart for each op family; every chunk verifies with no diagnostic.

// ---- async pipeline: the scalar handshakes, inc_iter, agent_switch
%buf = nv_tileas.create_none : !nv_tileaa.tiled_view<2x64x64xf16, SMEM>
%p, %c = nv_tileas.async.pipeline.create_pipeline %buf {numStages = 2 : i32, producerGroupId = 0 : i8, consumerGroupId = 1 : i8, sharedMem = true, dynamic = false} : !nv_tileaa.tiled_view<2x64x64xf16, SMEM> -> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
%it = nv_tileas.async.pipeline.create_iterator %p : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.iterator<tile<64x64xf16>>
%it2 = nv_tileas.async.pipeline.inc_iter %it : !nv_tileas.async.pipeline.iterator<tile<64x64xf16>> -> !nv_tileas.async.pipeline.iterator<tile<64x64xf16>>
%x = nv_tileas.create_none : tile<64x64xf16>
%pa = nv_tileas.async.pipeline.producer_acquire %p, %it2 : !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<tile<64x64xf16>> -> !nv_tileas.async.pipeline.producer_token
%pw = nv_tileas.async.pipeline.producer_write %pa, %it2, %x : !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<tile<64x64xf16>>, tile<64x64xf16> -> !nv_tileas.async.pipeline.producer_token
%pc = nv_tileas.async.pipeline.producer_commit %pw : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.producer_token
%cw = nv_tileas.async.pipeline.consumer_wait %c, %it2 {consumer_idx = 0 : i32} : !nv_tileas.async.pipeline.consumer_token, !nv_tileas.async.pipeline.iterator<tile<64x64xf16>> -> !nv_tileas.async.pipeline.consumer_token
%r = nv_tileas.async.pipeline.consumer_read %cw, %it2 {consumer_idx = 0 : i32} : !nv_tileas.async.pipeline.consumer_token, !nv_tileas.async.pipeline.iterator<tile<64x64xf16>> -> tile<64x64xf16>
%cr = nv_tileas.async.pipeline.consumer_release %cw : !nv_tileas.async.pipeline.consumer_token -> !nv_tileas.async.pipeline.consumer_token
%p2, %done = nv_tileas.async.pipeline.produce_one_async %pc, %it2 {producer_types = [tile<64x64xf16>]} : (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<tile<64x64xf16>>) -> !nv_tileas.async.pipeline.producer_token, !async.token {
^bb0(%s: !nv_tileas.async.pipeline.iterator<tile<64x64xf16>>):
  nv_tileas.async.pipeline.yield %x : tile<64x64xf16>
}
%c2, %cdone = nv_tileas.async.pipeline.consume_one_async %cr, %it2 {consumer_idx = 0 : i32, consumer_types = [tile<64x64xf16>]} : (!nv_tileas.async.pipeline.consumer_token, !nv_tileas.async.pipeline.iterator<tile<64x64xf16>>) -> !nv_tileas.async.pipeline.consumer_token, !async.token {
^bb0(%s: tile<64x64xf16>):
  nv_tileas.async.pipeline.yield %s : tile<64x64xf16>
}
%sum = "nv_tileas.async.pipeline.agent_switch"() <{num_agents_per_group = 1 : i32, max_regs = array<i32: 232, 40>, num_warps = array<i32: 4, 0>, isolated = true}> ({
  %a = nv_tileas.create_none : tile<64x64xf16>
  "nv_tileas.async.pipeline.yield"(%a) : (tile<64x64xf16>) -> ()
}, {
  %b = nv_tileas.create_none : tile<64x64xf16>
  "nv_tileas.async.pipeline.yield"(%b) : (tile<64x64xf16>) -> ()
}) : () -> tile<64x64xf16>

// -----

// ---- async tokens
%k = nv_tileas.create_none : !nv_tileaa.mem_token
%at = nv_tileas.async.token_to_async %k : !nv_tileaa.mem_token -> !async.token
%x = nv_tileas.create_none : tile<16xf32>
%fv = nv_tileas.async.to_async %x : tile<16xf32> -> !async.value<tile<16xf32>>
nv_tileas.async.wait %at, %fv : !async.token, !async.value<tile<16xf32>>
%y = nv_tileas.async.future_wait %fv : !async.value<tile<16xf32>> -> tile<16xf32>

// -----

// ---- tiled memops
%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf32, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xf32, GMEM> -> !nv_tileaa.tiled_view<64x64xf32, GMEM>
%k = nv_tileas.create_none : !nv_tileaa.mem_token
%t, %k2 = "nv_tileas.tiled_load"(%v, %c0, %c0, %c0, %c0, %k) <{atom = #nv_tileas<atom copy_default>, mem_semantic = #nv_tileas.mem_semantic<acquire>, mem_scope = #nv_tileas.mem_scope<gpu>, in_bounds = array<i1: false, true>, padding_value = 0x7FC00000 : f32, operandSegmentSizes = array<i32: 1, 2, 2, 1>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, index, index, index, index, !nv_tileaa.mem_token) -> (tile<64x64xf32>, !nv_tileaa.mem_token)
%k3 = "nv_tileas.tiled_store"(%v, %t, %c0, %c0, %k2) <{atom = #nv_tileas<atom copy_default>, mem_semantic = #nv_tileas.mem_semantic<release>, mem_scope = #nv_tileas.mem_scope<cluster>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, tile<64x64xf32>, index, index, !nv_tileaa.mem_token) -> !nv_tileaa.mem_token
%old = "nv_tileas.tiled_atomic_rmw"(%v, %t, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, rmw_mode = #nv_tileas.rmw_mode<add>, operandSegmentSizes = array<i32: 1, 1, 2, 0>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, tile<64x64xf32>, index, index) -> tile<64x64xf32>
%h = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf16, GMEM>
%vh = nv_tileaa.block_tile %h[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xf16, GMEM> -> !nv_tileaa.tiled_view<64x64xf16, GMEM>
%xh = nv_tileas.create_none : tile<64x64xf16>
%oh = "nv_tileas.async.tiled_atomic_rmw"(%vh, %xh, %c0, %c0) <{atom = #nv_tileas<atom tma_reduce_2d>, rmw_mode = #nv_tileas.rmw_mode<max>, operandSegmentSizes = array<i32: 1, 1, 2, 0>}> : (!nv_tileaa.tiled_view<64x64xf16, GMEM>, tile<64x64xf16>, index, index) -> !async.value<tile<64x64xf16>>
%at = "nv_tileas.async.tiled_load"(%v, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, operandSegmentSizes = array<i32: 1, 2, 0, 0>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, index, index) -> !async.value<tile<64x64xf32>>
%sm = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf32, SMEM>
"nv_tileas.copy"(%v, %sm) <{atom = #nv_tileas<atom copy_g2s>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, !nv_tileaa.tiled_view<64x64xf32, SMEM>) -> ()
%ct = "nv_tileas.async.copy"(%sm, %v) <{atom = #nv_tileas<atom copy_s2g>}> : (!nv_tileaa.tiled_view<64x64xf32, SMEM>, !nv_tileaa.tiled_view<64x64xf32, GMEM>) -> !async.token
%l = "nv_tileas.load"(%sm) <{operandSegmentSizes = array<i32: 1, 0>}> : (!nv_tileaa.tiled_view<64x64xf32, SMEM>) -> tile<64x64xf32>
%al = "nv_tileas.async.load"(%sm) : (!nv_tileaa.tiled_view<64x64xf32, SMEM>) -> !async.value<tile<64x64xf32>>
"nv_tileas.store"(%sm, %l) : (!nv_tileaa.tiled_view<64x64xf32, SMEM>, tile<64x64xf32>) -> ()
%as = "nv_tileas.async.store"(%sm, %l) : (!nv_tileaa.tiled_view<64x64xf32, SMEM>, tile<64x64xf32>) -> !async.token
%idx = nv_tileas.create_none : tile<64xi32>
%m = nv_tileas.create_none : tile<64xi1>
%g = "nv_tileas.gather_load"(%sm, %idx, %m) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> : (!nv_tileaa.tiled_view<64x64xf32, SMEM>, tile<64xi32>, tile<64xi1>) -> tile<64xf32>
"nv_tileas.scatter_store"(%sm, %idx, %g) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (!nv_tileaa.tiled_view<64x64xf32, SMEM>, tile<64xi32>, tile<64xf32>) -> ()

// -----

// ---- tensor slices
%c0 = arith.constant 0 : index
%c64 = arith.constant 64 : index
%c1 = arith.constant 1 : index
%src = nv_tileas.alloc_tensor : tensor<128x128xf32>
%slice = nv_tileas.extract_slice %src[%c0, %c0][%c64, %c64][%c1, %c1] : tensor<128x128xf32> to tensor<?x?xf32>
%slice2 = nv_tileas.extract_slice %src[0, 0][64, 64][1, 1] : tensor<128x128xf32> to tensor<64x64xf32>
%t = nv_tileas.insert_slice %slice into %src[%c0, %c64][%c64, %c64][1, 1] : tensor<?x?xf32> into tensor<128x128xf32>
%ax = "nv_tileas.async.extract_slice"(%src) <{static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 64, 64>, static_strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (tensor<128x128xf32>) -> !async.value<tensor<64x64xf32>>
%ai = "nv_tileas.async.insert_slice"(%slice2, %src) <{static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 64, 64>, static_strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>}> : (tensor<64x64xf32>, tensor<128x128xf32>) -> !async.value<tensor<128x128xf32>>

// -----

// ---- layout
%x = nv_tileas.create_none : tensor<64x64xf32, #nv_tileas<atom copy_blocked>>
%y = nv_tileas.convert_layout %x : tensor<64x64xf32, #nv_tileas<atom copy_blocked>> -> tensor<64x64xf32, #nv_tileas<atom copy_swizzled>>
%t = nv_tileas.create_none : tile<64x32xf32>
%e = nv_tileas.expand_dims %t {axis = 1 : i64} : tile<64x32xf32> -> tile<64x1x32xf32>
%ri = nv_tileas.reinterpret %t : tile<64x32xf32> -> tile<64x32xi32>
%sh = nv_tileas.shuffle %t {permutation = array<i32: 1, 0>} : tile<64x32xf32> -> tile<32x64xf32>
%c0 = arith.constant 0 : index
%vw = nv_tileas.view %t[%c0] : tile<64x32xf32> -> !nv_tileaa.tiled_view<64x32xf32, RMEM>
%gen = "nv_tileas.generate"() ({
^bb0(%i: index, %j: index):
  %z = arith.constant 0 : i32
  "nv_tileas.yield"(%z) : (i32) -> ()
}) : () -> tile<8x8xi32>

// -----

// ---- TMA
%g = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf16, GMEM, strides = [1024, 1]>
%c64 = arith.constant 64 : index
%c0 = arith.constant 0 : index
%d = nv_tileas.make_tiled_tma_desc %g box [%c64, %c64] {atom = #nv_tileas<atom tma_load_2d>, swizzle_mode = #nv_tileas.swizzle_mode<128B>, oob_mode = #nv_tileas.oob_mode<zero>} : !nv_tileaa.tiled_view<1024x1024xf16, GMEM, strides = [1024, 1]> -> !nv_tileas.tma_desc<#nv_tileas<atom tma_load_2d>>
%s = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf16, SMEM>
%bar = nv_tileas.create_none : !nv_tileaa.mem_token
%ld = nv_tileas.async.tiled_tma_load %d, %s[%c0, %c64], %bar {atom = #nv_tileas<atom tma_load_2d>, padding_value = 0.0 : f16} : !nv_tileas.tma_desc<#nv_tileas<atom tma_load_2d>>, !nv_tileaa.tiled_view<64x64xf16, SMEM>, index, index, !nv_tileaa.mem_token -> !async.token
%ds = nv_tileas.make_tiled_tma_desc %g box [%c64, %c64] {atom = #nv_tileas<atom tma_store_2d>} : !nv_tileaa.tiled_view<1024x1024xf16, GMEM, strides = [1024, 1]> -> !nv_tileas.tma_desc
%st = nv_tileas.async.tiled_tma_store %ds, %s[%c0, %c0] {atom = #nv_tileas<atom tma_store_2d>} : !nv_tileas.tma_desc, !nv_tileaa.tiled_view<64x64xf16, SMEM>, index, index -> !async.token
%idx = nv_tileas.create_none : tile<64xi32>
%gl = "nv_tileas.async.gather_tma_load"(%d, %s, %c0, %c0, %idx, %bar) <{atom = #nv_tileas<atom tma_load_2d>, padding_value = #nv_tileas.padding<zero>, operandSegmentSizes = array<i32: 1, 1, 2, 1, 1>}> : (!nv_tileas.tma_desc<#nv_tileas<atom tma_load_2d>>, !nv_tileaa.tiled_view<64x64xf16, SMEM>, index, index, tile<64xi32>, !nv_tileaa.mem_token) -> !async.token
%ss = "nv_tileas.async.scatter_tma_store"(%ds, %s, %c0, %c0, %idx) <{atom = #nv_tileas<atom tma_store_2d>, operandSegmentSizes = array<i32: 1, 1, 2, 1>}> : (!nv_tileas.tma_desc, !nv_tileaa.tiled_view<64x64xf16, SMEM>, index, index, tile<64xi32>) -> !async.token
// a decided shared-memory layout: the descriptor's swizzle, dense strides, a row within the span
%sw = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf16, SMEM, strides = [64, 1], swizzle = 128B>
%dw = nv_tileas.make_tiled_tma_desc %g box [%c64, %c64] {atom = #nv_tileas<atom tma_load_2d, box = [64, 64]>, swizzle_mode = #nv_tileas.swizzle_mode<128B>} : !nv_tileaa.tiled_view<1024x1024xf16, GMEM, strides = [1024, 1]> -> !nv_tileas.tma_desc
%lw = nv_tileas.async.tiled_tma_load %dw, %sw[%c0, %c0], %bar {atom = #nv_tileas<atom tma_load_2d, box = [64, 64]>} : !nv_tileas.tma_desc, !nv_tileaa.tiled_view<64x64xf16, SMEM, strides = [64, 1], swizzle = 128B>, index, index, !nv_tileaa.mem_token -> !async.token

// -----

// ---- compute
%a = nv_tileas.create_none : tile<64x32xf8E4M3FN>
%b = nv_tileas.create_none : tile<32x64xf8E5M2>
%acc = nv_tileas.create_none : tile<64x64xf32>
%d = nv_tileas.dot %a, %b, %acc {atom = #nv_tileas<atom mma_f8_f8_f32>} : tile<64x32xf8E4M3FN>, tile<32x64xf8E5M2>, tile<64x64xf32> -> tile<64x64xf32>
%ia = nv_tileas.create_none : tile<64x32xi8>
%ib = nv_tileas.create_none : tile<32x64xi8>
%iacc = nv_tileas.create_none : tile<64x64xi32>
%id = nv_tileas.dot %ia, %ib, %iacc {atom = #nv_tileas<atom mma_s8_s8_s32>, signedness_a = #nv_tileas.signedness<signed>, signedness_b = #nv_tileas.signedness<unsigned>} : tile<64x32xi8>, tile<32x64xi8>, tile<64x64xi32> -> tile<64x64xi32>
%ad = "nv_tileas.async.dot"(%a, %b, %acc) <{atom = #nv_tileas<atom mma_f8_f8_f32>}> : (tile<64x32xf8E4M3FN>, tile<32x64xf8E5M2>, tile<64x64xf32>) -> !async.value<tile<64x64xf32>>
%fa = nv_tileas.create_none : tile<128x64xf4E2M1FN>
%fb = nv_tileas.create_none : tensor<64x128x!nv_tileas.fnv4E0M3F>
%fc = nv_tileas.create_none : tile<128x128xf32>
%sfa = nv_tileas.create_none : tile<128x4xf8E4M3FN>
%sfb = nv_tileas.create_none : tile<4x128xf8E4M3FN>
%bs = nv_tileas.block_scaled_mma %fa, %fb, %fc, %sfa, %sfb {atom = #nv_tileas<atom mxf4>} : tile<128x64xf4E2M1FN>, tensor<64x128x!nv_tileas.fnv4E0M3F>, tile<128x128xf32>, tile<128x4xf8E4M3FN>, tile<4x128xf8E4M3FN> -> tile<128x128xf32>
%red = "nv_tileas.reduce"(%acc) <{dim = 1 : i64}> ({
^bb0(%l: f32, %r: f32):
  "nv_tileas.yield"(%l) : (f32) -> ()
}) : (tile<64x64xf32>) -> tile<64xf32>
%scn = "nv_tileas.scan"(%acc) <{dim = 0 : i64, reverse = true}> ({
^bb0(%l: f32, %r: f32):
  "nv_tileas.yield"(%r) : (f32) -> ()
}) : (tile<64x64xf32>) -> tile<64x64xf32>

// -----

// ---- control and metadata, with the arith and scf subset
nv_tileas.pragma {ocgEnterDirectives = ["unroll"], ocgLeaveDirectives = ["no_unroll"]}
%pid = nv_tileas.cancel_next_program_id : i32
%apid = nv_tileas.async.cancel_next_program_id : !async.value<i32>
%c0 = arith.constant 0 : index
%c4 = arith.constant 4 : index
%c1 = arith.constant 1 : index
%cond = arith.constant true
%out = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %c0) -> (index) {
  %m = arith.muli %i, %c4 : index
  %q = arith.divsi %m, %c4 : index
  %r = arith.remsi %m, %c4 : index
  %s = arith.addi %acc, %q {overflowFlags = #arith.overflow<nsw>} : index
  %sel = arith.select %cond, %s, %r : index
  scf.yield %sel : index
}
%w = scf.if %cond -> (index) {
  scf.yield %c0 : index
} else {
  scf.yield %c1 : index
}
scf.if %cond {
  nv_tileas.pragma
}
