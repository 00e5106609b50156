// RUN: tilec opt %s --split-input-file --verify-diagnostics
// Atomic RMW diagnostics, sync and async.

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf32, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xf32, GMEM> -> !nv_tileaa.tiled_view<64x64xf32, GMEM>
%g = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf32, GMEM>
%x = nv_tileas.create_none : tile<64x64xf32>
// expected-error@+1 {{'nv_tileas.tiled_atomic_rmw' op requires attribute 'rmw_mode'}}
%o = "nv_tileas.tiled_atomic_rmw"(%v, %x, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, operandSegmentSizes = array<i32: 1, 1, 2, 0>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, tile<64x64xf32>, index, index) -> tile<64x64xf32>

// -----

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xi8, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xi8, GMEM> -> !nv_tileaa.tiled_view<64x64xi8, GMEM>
%g = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xi8, GMEM>
%x = nv_tileas.create_none : tile<64x64xi8>
// expected-error@+1 {{'nv_tileas.tiled_atomic_rmw' op tiled_atomic_rmw not supported for 8-bit types}}
%o = "nv_tileas.tiled_atomic_rmw"(%v, %x, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, rmw_mode = #nv_tileas.rmw_mode<add>, operandSegmentSizes = array<i32: 1, 1, 2, 0>}> : (!nv_tileaa.tiled_view<64x64xi8, GMEM>, tile<64x64xi8>, index, index) -> tile<64x64xi8>

// -----

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf8E4M3FN, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xf8E4M3FN, GMEM> -> !nv_tileaa.tiled_view<64x64xf8E4M3FN, GMEM>
%g = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf8E4M3FN, GMEM>
%x = nv_tileas.create_none : tile<64x64xf8E4M3FN>
// expected-error@+1 {{'nv_tileas.async.tiled_atomic_rmw' op async_tiled_atomic_rmw not supported for 8-bit types}}
%o = "nv_tileas.async.tiled_atomic_rmw"(%v, %x, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, rmw_mode = #nv_tileas.rmw_mode<add>, operandSegmentSizes = array<i32: 1, 1, 2, 0>}> : (!nv_tileaa.tiled_view<64x64xf8E4M3FN, GMEM>, tile<64x64xf8E4M3FN>, index, index) -> !async.value<tile<64x64xf8E4M3FN>>

// -----

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xi16, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xi16, GMEM> -> !nv_tileaa.tiled_view<64x64xi16, GMEM>
%g = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xi16, GMEM>
%x = nv_tileas.create_none : tile<64x64xi16>
// expected-error@+1 {{'nv_tileas.tiled_atomic_rmw' op tiled_atomic_rmw not supported for 16-bit integer}}
%o = "nv_tileas.tiled_atomic_rmw"(%v, %x, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, rmw_mode = #nv_tileas.rmw_mode<add>, operandSegmentSizes = array<i32: 1, 1, 2, 0>}> : (!nv_tileaa.tiled_view<64x64xi16, GMEM>, tile<64x64xi16>, index, index) -> tile<64x64xi16>

// -----

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xi16, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xi16, GMEM> -> !nv_tileaa.tiled_view<64x64xi16, GMEM>
%g = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xi16, GMEM>
%x = nv_tileas.create_none : tile<64x64xi16>
// expected-error@+1 {{'nv_tileas.async.tiled_atomic_rmw' op async_tiled_atomic_rmw not supported for 16-bit integer}}
%o = "nv_tileas.async.tiled_atomic_rmw"(%v, %x, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, rmw_mode = #nv_tileas.rmw_mode<add>, operandSegmentSizes = array<i32: 1, 1, 2, 0>}> : (!nv_tileaa.tiled_view<64x64xi16, GMEM>, tile<64x64xi16>, index, index) -> !async.value<tile<64x64xi16>>

// -----

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf16, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xf16, GMEM> -> !nv_tileaa.tiled_view<64x64xf16, GMEM>
%g = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf16, GMEM>
%x = nv_tileas.create_none : tile<64x64xf16>
// expected-error@+1 {{'nv_tileas.tiled_atomic_rmw' op tiled_atomic_rmw for 16-bit float only supports add, max, min operations}}
%o = "nv_tileas.tiled_atomic_rmw"(%v, %x, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, rmw_mode = #nv_tileas.rmw_mode<xchg>, operandSegmentSizes = array<i32: 1, 1, 2, 0>}> : (!nv_tileaa.tiled_view<64x64xf16, GMEM>, tile<64x64xf16>, index, index) -> tile<64x64xf16>

// -----

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xbf16, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xbf16, GMEM> -> !nv_tileaa.tiled_view<64x64xbf16, GMEM>
%g = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xbf16, GMEM>
%x = nv_tileas.create_none : tile<64x64xbf16>
// expected-error@+1 {{'nv_tileas.async.tiled_atomic_rmw' op async_tiled_atomic_rmw for 16-bit float only supports add, max, min operations}}
%o = "nv_tileas.async.tiled_atomic_rmw"(%v, %x, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, rmw_mode = #nv_tileas.rmw_mode<addf>, operandSegmentSizes = array<i32: 1, 1, 2, 0>}> : (!nv_tileaa.tiled_view<64x64xbf16, GMEM>, tile<64x64xbf16>, index, index) -> !async.value<tile<64x64xbf16>>

// -----

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf32, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xf32, GMEM> -> !nv_tileaa.tiled_view<64x64xf32, GMEM>
%g = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf32, GMEM>
%x = nv_tileas.create_none : tile<64x64xf32>
// expected-error@+1 {{'nv_tileas.tiled_atomic_rmw' op tiled_atomic_rmw op cannot use fadd operation, please use add instead for both int and float types}}
%o = "nv_tileas.tiled_atomic_rmw"(%v, %x, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, rmw_mode = #nv_tileas.rmw_mode<addf>, operandSegmentSizes = array<i32: 1, 1, 2, 0>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, tile<64x64xf32>, index, index) -> tile<64x64xf32>

// -----

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xi32, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xi32, GMEM> -> !nv_tileaa.tiled_view<64x64xi32, GMEM>
%g = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xi32, GMEM>
%x = nv_tileas.create_none : tile<64x64xi32>
// expected-error@+1 {{'nv_tileas.tiled_atomic_rmw' op tiled_atomic_rmw op cannot use xchg operation}}
%o = "nv_tileas.tiled_atomic_rmw"(%v, %x, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, rmw_mode = #nv_tileas.rmw_mode<xchg>, operandSegmentSizes = array<i32: 1, 1, 2, 0>}> : (!nv_tileaa.tiled_view<64x64xi32, GMEM>, tile<64x64xi32>, index, index) -> tile<64x64xi32>

// -----

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf32, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xf32, GMEM> -> !nv_tileaa.tiled_view<64x64xf32, GMEM>
%g = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf32, GMEM>
%x = nv_tileas.create_none : tile<64x64xf32>
// expected-error@+1 {{'nv_tileas.tiled_atomic_rmw' op tiled_atomic_rmw's tiled_view type must be produced by block_tile directly}}
%o = "nv_tileas.tiled_atomic_rmw"(%g, %x, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, rmw_mode = #nv_tileas.rmw_mode<add>, operandSegmentSizes = array<i32: 1, 1, 2, 0>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, tile<64x64xf32>, index, index) -> tile<64x64xf32>

// -----

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf32, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xf32, GMEM> -> !nv_tileaa.tiled_view<64x64xf32, GMEM>
%g = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf32, GMEM>
%x = nv_tileas.create_none : tile<64x64xf32>
// expected-error@+1 {{'nv_tileas.async.tiled_atomic_rmw' op expected a TMA reduce atom}}
%o = "nv_tileas.async.tiled_atomic_rmw"(%v, %x, %c0, %c0) <{atom = #nv_tileas<atom tma_load_2d>, rmw_mode = #nv_tileas.rmw_mode<add>, operandSegmentSizes = array<i32: 1, 1, 2, 0>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, tile<64x64xf32>, index, index) -> !async.value<tile<64x64xf32>>

// -----

%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf32, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xf32, GMEM> -> !nv_tileaa.tiled_view<64x64xf32, GMEM>
%g = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf32, GMEM>
%x = nv_tileas.create_none : tile<64x64xf32>
// expected-error@+1 {{'nv_tileas.tiled_atomic_rmw' op memory scope is required when the memory semantic is stronger than weak (acquire_release)}}
%o = "nv_tileas.tiled_atomic_rmw"(%v, %x, %c0, %c0) <{atom = #nv_tileas<atom copy_default>, rmw_mode = #nv_tileas.rmw_mode<add>, mem_semantic = #nv_tileas.mem_semantic<acquire_release>, operandSegmentSizes = array<i32: 1, 1, 2, 0>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, tile<64x64xf32>, index, index) -> tile<64x64xf32>
