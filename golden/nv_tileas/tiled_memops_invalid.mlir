// RUN: tilec opt %s --split-input-file --verify-diagnostics
// Tiled memop diagnostics: segments, tokens, coordinates, tile shape and size,
// memory semantics and scope, padding, view provenance.

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf32, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xf32, GMEM> -> !nv_tileaa.tiled_view<64x64xf32, GMEM>
// expected-error@+1 {{'nv_tileas.tiled_load' op operandSegmentSizes does not match the op schema}}
%t = "nv_tileas.tiled_load"(%v, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, index, index) -> tile<64x64xf32>

// -----

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf32, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xf32, GMEM> -> !nv_tileaa.tiled_view<64x64xf32, GMEM>
%k = nv_tileas.create_none : !nv_tileaa.mem_token
// expected-error@+1 {{'nv_tileas.tiled_load' op tiled memop token segment must hold zero or one value}}
%t, %tk = "nv_tileas.tiled_load"(%v, %c0, %c0, %k, %k) <{atom = #nv_tileas<atom copy_default>, operandSegmentSizes = array<i32: 1, 2, 0, 2>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, index, index, !nv_tileaa.mem_token, !nv_tileaa.mem_token) -> (tile<64x64xf32>, !nv_tileaa.mem_token)

// -----

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf32, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xf32, GMEM> -> !nv_tileaa.tiled_view<64x64xf32, GMEM>
// expected-error@+1 {{'nv_tileas.tiled_load' op tiled memop coordinate count does not match the view rank}}
%t = "nv_tileas.tiled_load"(%v, %c0) <{atom = #nv_tileas<atom copy_default>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, index) -> tile<64x64xf32>

// -----

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf32, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xf32, GMEM> -> !nv_tileaa.tiled_view<64x64xf32, GMEM>
%i = arith.constant 0 : i32
// expected-error@+1 {{'nv_tileas.tiled_load' op tiled memop coordinates must be index-typed}}
%t = "nv_tileas.tiled_load"(%v, %i, %i) <{atom = #nv_tileas<atom copy_default>, operandSegmentSizes = array<i32: 1, 2, 0, 0>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, i32, i32) -> tile<64x64xf32>

// -----

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf32, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xf32, GMEM> -> !nv_tileaa.tiled_view<64x64xf32, GMEM>
// expected-error@+1 {{'nv_tileas.tiled_load' op tile shape must match tensor shape}}
%t = "nv_tileas.tiled_load"(%v, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, operandSegmentSizes = array<i32: 1, 2, 0, 0>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, index, index) -> tile<32x64xf32>

// -----

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf32, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xf32, GMEM> -> !nv_tileaa.tiled_view<64x64xf32, GMEM>
// expected-error@+1 {{'nv_tileas.tiled_load' op tile element type must match view element type}}
%t = "nv_tileas.tiled_load"(%v, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, operandSegmentSizes = array<i32: 1, 2, 0, 0>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, index, index) -> tile<64x64xf16>

// -----

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf32, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xf32, GMEM> -> !nv_tileaa.tiled_view<48x64xf32, GMEM>
// expected-error@+1 {{'nv_tileas.tiled_load' op tile dimensions must be positive powers of two}}
%t = "nv_tileas.tiled_load"(%v, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, operandSegmentSizes = array<i32: 1, 2, 0, 0>}> : (!nv_tileaa.tiled_view<48x64xf32, GMEM>, index, index) -> tensor<48x64xf32>

// -----

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<16384x16384xf32, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<16384x16384xf32, GMEM> -> !nv_tileaa.tiled_view<8192x4096xf32, GMEM>
// expected-error@+1 {{'nv_tileas.tiled_load' op tile total element count exceeds the implementation limit}}
%t = "nv_tileas.tiled_load"(%v, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, operandSegmentSizes = array<i32: 1, 2, 0, 0>}> : (!nv_tileaa.tiled_view<8192x4096xf32, GMEM>, index, index) -> tensor<8192x4096xf32>

// -----

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf32, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xf32, GMEM> -> !nv_tileaa.tiled_view<64x64xf32, GMEM>
// expected-error@+1 {{'nv_tileas.tiled_load' op tiled_load rejects acquire_release semantic}}
%t = "nv_tileas.tiled_load"(%v, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, mem_semantic = #nv_tileas.mem_semantic<acquire_release>, mem_scope = #nv_tileas.mem_scope<gpu>, operandSegmentSizes = array<i32: 1, 2, 0, 0>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, index, index) -> tile<64x64xf32>

// -----

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf32, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xf32, GMEM> -> !nv_tileaa.tiled_view<64x64xf32, GMEM>
// expected-error@+1 {{'nv_tileas.tiled_load' op memory scope is required when the memory semantic is stronger than weak (acquire)}}
%t = "nv_tileas.tiled_load"(%v, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, mem_semantic = #nv_tileas.mem_semantic<acquire>, operandSegmentSizes = array<i32: 1, 2, 0, 0>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, index, index) -> tile<64x64xf32>

// -----

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf32, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xf32, GMEM> -> !nv_tileaa.tiled_view<64x64xf32, GMEM>
// expected-error@+1 {{'nv_tileas.tiled_load' op weak memory semantic must not carry a memory scope}}
%t = "nv_tileas.tiled_load"(%v, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, mem_scope = #nv_tileas.mem_scope<sys>, operandSegmentSizes = array<i32: 1, 2, 0, 0>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, index, index) -> tile<64x64xf32>

// -----

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf32, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xf32, GMEM> -> !nv_tileaa.tiled_view<64x64xf32, GMEM>
// expected-error@+1 {{'nv_tileas.tiled_load' op padding_value is allowed only when in_bounds is false}}
%t = "nv_tileas.tiled_load"(%v, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, in_bounds = array<i1: true, true>, padding_value = 0.0 : f32, operandSegmentSizes = array<i32: 1, 2, 0, 0>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, index, index) -> tile<64x64xf32>

// -----

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xi32, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xi32, GMEM> -> !nv_tileaa.tiled_view<64x64xi32, GMEM>
// expected-error@+1 {{'nv_tileas.tiled_load' op NaN, infinity and negative zero padding values are valid only for floating-point elements}}
%t = "nv_tileas.tiled_load"(%v, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, padding_value = #nv_tileas.padding<neg_inf>, operandSegmentSizes = array<i32: 1, 2, 0, 0>}> : (!nv_tileaa.tiled_view<64x64xi32, GMEM>, index, index) -> tile<64x64xi32>

// -----

%g = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf32, GMEM>
%c0 = arith.constant 0 : index
// expected-error@+1 {{'nv_tileas.tiled_load' op tiled_load's tiled_view type must be produced by block_tile directly}}
%t = "nv_tileas.tiled_load"(%g, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, operandSegmentSizes = array<i32: 1, 2, 0, 0>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, index, index) -> tile<64x64xf32>

// -----

%g = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf32, GMEM>
%x = nv_tileas.create_none : tile<64x64xf32>
%c0 = arith.constant 0 : index
// expected-error@+1 {{'nv_tileas.tiled_store' op tiled_store's tiled_view type must be produced by block_tile directly}}
"nv_tileas.tiled_store"(%g, %x, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 0>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, tile<64x64xf32>, index, index) -> ()

// -----

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf32, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xf32, GMEM> -> !nv_tileaa.tiled_view<64x64xf32, GMEM>
%x = nv_tileas.create_none : tile<64x64xf32>
// expected-error@+1 {{'nv_tileas.tiled_store' op tiled_store rejects acquire semantic}}
"nv_tileas.tiled_store"(%v, %x, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, mem_semantic = #nv_tileas.mem_semantic<acquire>, mem_scope = #nv_tileas.mem_scope<gpu>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 0>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, tile<64x64xf32>, index, index) -> ()

// -----

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf32, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xf32, GMEM> -> !nv_tileaa.tiled_view<64x64xf32, GMEM>
%x = nv_tileas.create_none : tile<64x64xf32>
// expected-error@+1 {{'nv_tileas.tiled_store' op tiled_store rejects acquire_release semantic}}
"nv_tileas.tiled_store"(%v, %x, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, mem_semantic = #nv_tileas.mem_semantic<acquire_release>, mem_scope = #nv_tileas.mem_scope<gpu>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 0>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, tile<64x64xf32>, index, index) -> ()

// -----

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf32, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xf32, GMEM> -> !nv_tileaa.tiled_view<64x64xf32, GMEM>
%x = nv_tileas.create_none : tile<32x64xf32>
// expected-error@+1 {{'nv_tileas.tiled_store' op tile shape must match tensor shape}}
"nv_tileas.tiled_store"(%v, %x, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 0>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, tile<32x64xf32>, index, index) -> ()
