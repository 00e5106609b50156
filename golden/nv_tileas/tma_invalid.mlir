// RUN: tilec opt %s --split-input-file --verify-diagnostics
// TMA descriptor and copy diagnostics.

%g = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf16, GMEM>
%c64 = arith.constant 64 : index
// expected-error@+1 {{'nv_tileas.make_tiled_tma_desc' op tma box-dim and copy atom box-dim mismatch}}
%d = nv_tileas.make_tiled_tma_desc %g box [%c64] {atom = #nv_tileas<atom tma_load_2d>} : !nv_tileaa.tiled_view<1024x1024xf16, GMEM> -> !nv_tileas.tma_desc

// -----

// 4 x f16 = 64 bits in the leading (contiguous) box dim
%g = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf16, GMEM>
%c64 = arith.constant 64 : index
%c4 = arith.constant 4 : index
// expected-error@+1 {{'nv_tileas.make_tiled_tma_desc' op tma leading box-dim bit-width is not 16 bytes aligned}}
%d = nv_tileas.make_tiled_tma_desc %g box [%c64, %c4] {atom = #nv_tileas<atom tma_load_2d>} : !nv_tileaa.tiled_view<1024x1024xf16, GMEM> -> !nv_tileas.tma_desc

// -----

%g = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf16, GMEM>
%c64 = arith.constant 64 : index
%c4 = arith.constant 4 : index
// expected-error@+1 {{'nv_tileas.make_tiled_tma_desc' op tma leading box-dim bit-width is not 16 bytes aligned}}
%d = nv_tileas.make_tiled_tma_desc %g box [%c64, %c64] {atom = #nv_tileas<atom tma_load_2d, box = [64, 12]>} : !nv_tileaa.tiled_view<1024x1024xf16, GMEM> -> !nv_tileas.tma_desc

// -----

%g = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf16, GMEM>
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c2 = arith.constant 2 : index
scf.for %i = %c0 to %c2 step %c1 {
  %c64 = arith.constant 64 : index
  // expected-error@+1 {{'nv_tileas.make_tiled_tma_desc' op expected MakeTiledTMADescOp not depends on scf}}
  %d = nv_tileas.make_tiled_tma_desc %g box [%c64, %c64] {atom = #nv_tileas<atom tma_load_2d>} : !nv_tileaa.tiled_view<1024x1024xf16, GMEM> -> !nv_tileas.tma_desc
}

// -----

// past the lowering point (marked on an enclosing op) no descriptor builder may remain
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
"nv_tileas.async.pipeline.agent_switch"() <{num_agents_per_group = 1 : i32, max_regs = array<i32: 232>}> ({
  %g = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf16, GMEM>
  %c64 = arith.constant 64 : index
  // expected-error@+1 {{'nv_tileas.make_tiled_tma_desc' op expect lower MakeTiledTMADescOp}}
  %d = nv_tileas.make_tiled_tma_desc %g box [%c64, %c64] {atom = #nv_tileas<atom tma_load_2d>} : !nv_tileaa.tiled_view<1024x1024xf16, GMEM> -> !nv_tileas.tma_desc
  "nv_tileas.async.pipeline.yield"() : () -> ()
}) {nv_tileas.tma_lowered} : () -> ()

// -----

%g = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf16, GMEM, strides = [2048, 2]>
%c64 = arith.constant 64 : index
// expected-error@+1 {{'nv_tileas.make_tiled_tma_desc' op TMA descriptors require unit element stride}}
%d = nv_tileas.make_tiled_tma_desc %g box [%c64, %c64] {atom = #nv_tileas<atom tma_load_2d>} : !nv_tileaa.tiled_view<1024x1024xf16, GMEM, strides = [2048, 2]> -> !nv_tileas.tma_desc

// -----

%desc = nv_tileas.create_none : !nv_tileas.tma_desc
%s = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf16, SMEM>
%bar = nv_tileas.create_none : !nv_tileaa.mem_token
%c0 = arith.constant 0 : index
// expected-error@+1 {{'nv_tileas.async.tiled_tma_load' op tma box-dim and copy atom box-dim mismatch}}
%t = nv_tileas.async.tiled_tma_load %desc, %s[%c0], %bar {atom = #nv_tileas<atom tma_load_2d>} : !nv_tileas.tma_desc, !nv_tileaa.tiled_view<64x64xf16, SMEM>, index, !nv_tileaa.mem_token -> !async.token

// -----

%desc = nv_tileas.create_none : !nv_tileas.tma_desc
%s = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf16, SMEM>
%bar = nv_tileas.create_none : !nv_tileaa.mem_token
%c0 = arith.constant 0 : index
// expected-error@+1 {{'nv_tileas.async.tiled_tma_load' op TmaLoad only support zero padding now}}
%t = nv_tileas.async.tiled_tma_load %desc, %s[%c0, %c0], %bar {atom = #nv_tileas<atom tma_load_2d>, padding_value = 1.0 : f16} : !nv_tileas.tma_desc, !nv_tileaa.tiled_view<64x64xf16, SMEM>, index, index, !nv_tileaa.mem_token -> !async.token

// -----

%desc = nv_tileas.create_none : !nv_tileas.tma_desc
%s = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf16, SMEM>
%bar = nv_tileas.create_none : !nv_tileaa.mem_token
%c0 = arith.constant 0 : index
%s2 = nv_tileas.create_none : tile<64xi32>
// expected-error@+1 {{'nv_tileas.async.gather_tma_load' op TmaLoad only support zero padding now}}
%t = "nv_tileas.async.gather_tma_load"(%desc, %s, %c0, %c0, %s2, %bar) <{atom = #nv_tileas<atom tma_load_2d>, padding_value = #nv_tileas.padding<nan>, operandSegmentSizes = array<i32: 1, 1, 2, 1, 1>}> : (!nv_tileas.tma_desc, !nv_tileaa.tiled_view<64x64xf16, SMEM>, index, index, tile<64xi32>, !nv_tileaa.mem_token) -> !async.token

// -----

%desc = nv_tileas.create_none : !nv_tileas.tma_desc
%s = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf16, SMEM>
%bar = nv_tileas.create_none : !nv_tileaa.mem_token
%c0 = arith.constant 0 : index
// expected-error@+1 {{'nv_tileas.async.tiled_tma_load' op expected a TMA load atom}}
%t = nv_tileas.async.tiled_tma_load %desc, %s[%c0, %c0], %bar {atom = #nv_tileas<atom tma_store_2d>} : !nv_tileas.tma_desc, !nv_tileaa.tiled_view<64x64xf16, SMEM>, index, index, !nv_tileaa.mem_token -> !async.token

// -----

%desc = nv_tileas.create_none : !nv_tileas.tma_desc<#nv_tileas<atom tma_load_2d>>
%s = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf16, SMEM>
%c0 = arith.constant 0 : index
// expected-error@+1 {{'nv_tileas.async.tiled_tma_store' op expects the atom #nv_tileas<atom tma_store_2d> of the operation to match the atom #nv_tileas<atom tma_load_2d> of its descriptor}}
%t = nv_tileas.async.tiled_tma_store %desc, %s[%c0, %c0] {atom = #nv_tileas<atom tma_store_2d>} : !nv_tileas.tma_desc<#nv_tileas<atom tma_load_2d>>, !nv_tileaa.tiled_view<64x64xf16, SMEM>, index, index -> !async.token

// -----

%desc = nv_tileas.create_none : !nv_tileas.tma_desc
%s = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf16, GMEM>
%c0 = arith.constant 0 : index
// expected-error@+1 {{'nv_tileas.async.tiled_tma_store' op expects a shared-memory (SMEM) view, but got GMEM}}
%t = nv_tileas.async.tiled_tma_store %desc, %s[%c0, %c0] {atom = #nv_tileas<atom tma_store_2d>} : !nv_tileas.tma_desc, !nv_tileaa.tiled_view<64x64xf16, GMEM>, index, index -> !async.token

// -----

%desc = nv_tileas.create_none : !nv_tileas.tma_desc
%s = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf16, SMEM>
%i = nv_tileas.create_none : tile<64xi32>
%c0 = arith.constant 0 : index
// expected-error@+1 {{'nv_tileas.async.scatter_tma_store' op scatter_tma_store does not accept a padding_value}}
%t = "nv_tileas.async.scatter_tma_store"(%desc, %s, %c0, %c0, %i) <{atom = #nv_tileas<atom tma_store_2d>, padding_value = 0.0 : f16, operandSegmentSizes = array<i32: 1, 1, 2, 1>}> : (!nv_tileas.tma_desc, !nv_tileaa.tiled_view<64x64xf16, SMEM>, index, index, tile<64xi32>) -> !async.token

// -----

// the rank agrees (the table's check passes); the listed box is not the view's extents
%desc = nv_tileas.create_none : !nv_tileas.tma_desc
%s = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf16, SMEM>
%bar = nv_tileas.create_none : !nv_tileaa.mem_token
%c0 = arith.constant 0 : index
// expected-error@+1 {{'nv_tileas.async.tiled_tma_load' op TMA box dimensions do not match atom box dimensions: view [64, 64], atom box [64, 32]}}
%t = nv_tileas.async.tiled_tma_load %desc, %s[%c0, %c0], %bar {atom = #nv_tileas<atom tma_load_2d, box = [64, 32]>} : !nv_tileas.tma_desc, !nv_tileaa.tiled_view<64x64xf16, SMEM>, index, index, !nv_tileaa.mem_token -> !async.token

// -----

%desc = nv_tileas.create_none : !nv_tileas.tma_desc
%s = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf16, SMEM>
%c0 = arith.constant 0 : index
// expected-error@+1 {{'nv_tileas.async.tiled_tma_store' op TMA box dimensions do not match atom box dimensions: view [64, 64], atom box [32, 64]}}
%t = nv_tileas.async.tiled_tma_store %desc, %s[%c0, %c0] {atom = #nv_tileas<atom tma_store_2d, box = [32, 64]>} : !nv_tileas.tma_desc, !nv_tileaa.tiled_view<64x64xf16, SMEM>, index, index -> !async.token

// -----

// the shared-memory swizzle differs from the one the descriptor was built with
%g = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf16, GMEM>
%c64 = arith.constant 64 : index
%c0 = arith.constant 0 : index
%d = nv_tileas.make_tiled_tma_desc %g box [%c64, %c64] {atom = #nv_tileas<atom tma_load_2d>, swizzle_mode = #nv_tileas.swizzle_mode<128B>} : !nv_tileaa.tiled_view<1024x1024xf16, GMEM> -> !nv_tileas.tma_desc
%s = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf16, SMEM, swizzle = 64B>
%bar = nv_tileas.create_none : !nv_tileaa.mem_token
// expected-error@+1 {{'nv_tileas.async.tiled_tma_load' op shared-memory layout is not TMA-compatible: the view's swizzle 64B differs from the descriptor's 128B}}
%t = nv_tileas.async.tiled_tma_load %d, %s[%c0, %c0], %bar {atom = #nv_tileas<atom tma_load_2d>} : !nv_tileas.tma_desc, !nv_tileaa.tiled_view<64x64xf16, SMEM, swizzle = 64B>, index, index, !nv_tileaa.mem_token -> !async.token

// -----

// a descriptor built without a swizzle writes an unswizzled (none) layout
%g = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf16, GMEM>
%c64 = arith.constant 64 : index
%c0 = arith.constant 0 : index
%d = nv_tileas.make_tiled_tma_desc %g box [%c64, %c64] {atom = #nv_tileas<atom tma_store_2d>} : !nv_tileaa.tiled_view<1024x1024xf16, GMEM> -> !nv_tileas.tma_desc
%s = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf16, SMEM, swizzle = 128B>
// expected-error@+1 {{'nv_tileas.async.tiled_tma_store' op shared-memory layout is not TMA-compatible: the view's swizzle 128B differs from the descriptor's none}}
%t = nv_tileas.async.tiled_tma_store %d, %s[%c0, %c0] {atom = #nv_tileas<atom tma_store_2d>} : !nv_tileas.tma_desc, !nv_tileaa.tiled_view<64x64xf16, SMEM, swizzle = 128B>, index, index -> !async.token

// -----

// 128 x f16 = 256 bytes per row: wider than the 128-byte swizzle span
%desc = nv_tileas.create_none : !nv_tileas.tma_desc
%s = nv_tileas.create_none : !nv_tileaa.tiled_view<64x128xf16, SMEM, swizzle = 128B>
%bar = nv_tileas.create_none : !nv_tileaa.mem_token
%c0 = arith.constant 0 : index
// expected-error@+1 {{'nv_tileas.async.tiled_tma_load' op shared-memory layout is not TMA-compatible: a 256-byte row exceeds the 128B swizzle span}}
%t = nv_tileas.async.tiled_tma_load %desc, %s[%c0, %c0], %bar {atom = #nv_tileas<atom tma_load_2d>} : !nv_tileas.tma_desc, !nv_tileaa.tiled_view<64x128xf16, SMEM, swizzle = 128B>, index, index, !nv_tileaa.mem_token -> !async.token

// -----

// a padded shared-memory layout (row pitch 72, not 64) is not what TMA writes
%desc = nv_tileas.create_none : !nv_tileas.tma_desc
%s = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf16, SMEM, strides = [72, 1]>
%c0 = arith.constant 0 : index
%i = nv_tileas.create_none : tile<64xi32>
// expected-error@+1 {{'nv_tileas.async.scatter_tma_store' op shared-memory layout is not TMA-compatible: strides [72, 1] are not dense row-major}}
%t = "nv_tileas.async.scatter_tma_store"(%desc, %s, %c0, %c0, %i) <{atom = #nv_tileas<atom tma_store_2d>, operandSegmentSizes = array<i32: 1, 1, 2, 1>}> : (!nv_tileas.tma_desc, !nv_tileaa.tiled_view<64x64xf16, SMEM, strides = [72, 1]>, index, index, tile<64xi32>) -> !async.token
