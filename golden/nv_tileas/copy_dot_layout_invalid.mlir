// RUN: tilec opt %s --split-input-file --verify-diagnostics
// Copy memory-space pairs, dot, convert_layout, slices, tokens and trait checks.

%a = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf32, SMEM>
%b = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf32, SMEM>
// expected-error@+1 {{'nv_tileas.copy' op expects a legal source/destination memory-space pair, but got SMEM -> SMEM}}
"nv_tileas.copy"(%a, %b) <{atom = #nv_tileas<atom copy_default>}> : (!nv_tileaa.tiled_view<64x64xf32, SMEM>, !nv_tileaa.tiled_view<64x64xf32, SMEM>) -> ()

// -----

// residency is read from the tag on the type: both views print as tiled_view<64x64xf32>
%a = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf32, TMEM>
%b = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf32, GMEM>
// expected-error@+1 {{'nv_tileas.async.copy' op expects a legal source/destination memory-space pair, but got TMEM -> GMEM}}
%t = "nv_tileas.async.copy"(%a, %b) <{atom = #nv_tileas<atom copy_default>}> : (!nv_tileaa.tiled_view<64x64xf32, TMEM>, !nv_tileaa.tiled_view<64x64xf32, GMEM>) -> !async.token

// -----

%a = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf32, SMEM>
%b = nv_tileas.create_none : !nv_tileaa.tiled_view<64x64xf32, GMEM>
// expected-error@+1 {{'nv_tileas.copy' op requires attribute 'atom'}}
"nv_tileas.copy"(%a, %b) : (!nv_tileaa.tiled_view<64x64xf32, SMEM>, !nv_tileaa.tiled_view<64x64xf32, GMEM>) -> ()

// -----

%a = nv_tileas.create_none : tile<64x32xf16>
%b = nv_tileas.create_none : tile<32x64xf16>
%c = nv_tileas.create_none : tile<64x64xf16>
// expected-error@+1 {{'nv_tileas.dot' op expects a Float32 accumulator for floating-point MMA}}
%d = nv_tileas.dot %a, %b, %c {atom = #nv_tileas<atom mma_f16_f16_f16>} : tile<64x32xf16>, tile<32x64xf16>, tile<64x64xf16> -> tile<64x64xf16>

// -----

%a = nv_tileas.create_none : tile<64x32xf16>
%b = nv_tileas.create_none : tile<32x64xbf16>
%c = nv_tileas.create_none : tile<64x64xf32>
// expected-error@+1 {{'nv_tileas.dot' op expects compatible A and B element types, but got f16 and bf16}}
%d = nv_tileas.dot %a, %b, %c {atom = #nv_tileas<atom mma_f16_f16_f32>} : tile<64x32xf16>, tile<32x64xbf16>, tile<64x64xf32> -> tile<64x64xf32>

// -----

%a = nv_tileas.create_none : tile<64x32xi8>
%b = nv_tileas.create_none : tile<32x64xi8>
%c = nv_tileas.create_none : tile<64x64xi32>
// expected-error@+1 {{'nv_tileas.dot' op integer MMA requires 'signedness_a' and 'signedness_b'}}
%d = nv_tileas.dot %a, %b, %c {atom = #nv_tileas<atom mma_s8_s8_s32>, signedness_a = #nv_tileas.signedness<signed>} : tile<64x32xi8>, tile<32x64xi8>, tile<64x64xi32> -> tile<64x64xi32>

// -----

%a = nv_tileas.create_none : tile<64x32xf16>
%c = nv_tileas.create_none : tile<64x64xf32>
// expected-error@+1 {{'nv_tileas.async.dot' op expects an MMA atom, but got #nv_tileas<atom tma_load_2d>}}
%d = nv_tileas.async.dot %a, %a, %c {atom = #nv_tileas<atom tma_load_2d>} : tile<64x32xf16>, tile<64x32xf16>, tile<64x64xf32> -> !async.value<tile<64x64xf32>>

// -----

%x = nv_tileas.create_none : tensor<64x64xf32, #nv_tileas<atom copy_blocked>>
// expected-error@+1 {{'nv_tileas.convert_layout' op expects source and result to have the same element type}}
%y = nv_tileas.convert_layout %x : tensor<64x64xf32, #nv_tileas<atom copy_blocked>> -> tensor<64x64xf16, #nv_tileas<atom copy_blocked>>

// -----

%x = nv_tileas.create_none : tensor<64x64xf32, #nv_tileas<atom copy_blocked>>
// expected-error@+1 {{'nv_tileas.convert_layout' op expects source and result to have the same number of elements}}
%y = nv_tileas.convert_layout %x : tensor<64x64xf32, #nv_tileas<atom copy_blocked>> -> tensor<64x32xf32, #nv_tileas<atom copy_blocked>>

// -----

%x = nv_tileas.create_none : tensor<64x64xf32>
// expected-error@+1 {{'nv_tileas.convert_layout' op expects tensor types to carry a layout, but got 'tensor<64x64xf32>'}}
%y = nv_tileas.convert_layout %x : tensor<64x64xf32> -> tensor<64x64xf32, #nv_tileas<atom copy_blocked>>

// -----

%src = nv_tileas.alloc_tensor : tensor<128x128xf32>
// expected-error@+1 {{'nv_tileas.extract_slice' op expects the slice shape to agree with the static sizes, but got tensor<64x32xf32>}}
%s = nv_tileas.extract_slice %src[0, 0][64, 64][1, 1] : tensor<128x128xf32> to tensor<64x32xf32>

// -----

%src = nv_tileas.alloc_tensor : tensor<128x128xf32>
// expected-error@+1 {{'nv_tileas.extract_slice' op expected 2 sizes values, but got 1}}
%s = nv_tileas.extract_slice %src[0, 0][64][1, 1] : tensor<128x128xf32> to tensor<64x64xf32>

// -----

%x = nv_tileas.create_none : tile<16xf32>
%fv = nv_tileas.async.to_async %x : tile<16xf32> -> !async.value<tile<16xf32>>
// expected-error@+1 {{'nv_tileas.async.future_wait' op expects the result type to be the future's value type '!cuda_tile.tile<16xf32>'}}
%y = nv_tileas.async.future_wait %fv : !async.value<tile<16xf32>> -> tile<16xi32>

// -----

// the queue (first) operand of a pipeline handshake may not alias another operand
%c = nv_tileas.create_none : !nv_tileas.async.pipeline.producer_token
%it = nv_tileas.create_none : !nv_tileas.async.pipeline.iterator<!nv_tileas.async.pipeline.producer_token>
// expected-error@+1 {{'nv_tileas.async.pipeline.producer_write' op expects the queue operand not to alias any other operand}}
%w = nv_tileas.async.pipeline.producer_write %c, %it, %c : !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<!nv_tileas.async.pipeline.producer_token>, !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.producer_token

// -----

%g = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf16, GMEM>
%c64 = arith.constant 64 : index
// expected-error@+1 {{'nv_tileas.make_tiled_tma_desc' op expects the result descriptor atom #nv_tileas<atom tma_store_2d> to be the operation's atom #nv_tileas<atom tma_load_2d>}}
%d = nv_tileas.make_tiled_tma_desc %g box [%c64, %c64] {atom = #nv_tileas<atom tma_load_2d>} : !nv_tileaa.tiled_view<1024x1024xf16, GMEM> -> !nv_tileas.tma_desc<#nv_tileas<atom tma_store_2d>>

// -----

%t = nv_tileas.create_none : tile<64x32xf32>
// expected-error@+1 {{'nv_tileas.view' op tiled_view shape must match the tensor shape on the same axes}}
%vw = nv_tileas.view %t : tile<64x32xf32> -> !nv_tileaa.tiled_view<32x64xf32, RMEM>
