// RUN: tilec opt %s --split-input-file --verify-diagnostics
// Block-scaled MMA: phases presence -> agreement -> accumulator -> K-extent -> catalog.

// The verifiers spec's worked failure, verbatim: phase 2 and nothing else.
%a = nv_tileas.create_none : tile<128x64xf4E2M1FN>
%b = nv_tileas.create_none : tile<64x128xf4E2M1FN>
%c = nv_tileas.create_none : tile<128x128xf32>
%sfa = nv_tileas.create_none : tile<128x4xf8E8M0FNU>
%sfb = nv_tileas.create_none : tile<4x128xf8E4M3FN>
// the pseudocode's wording of the same check rides along as a note
// expected-note@+2 {{sfa and sfb element type mismatch: f8E8M0FNU vs f8E4M3FN}}
// expected-error@+1 {{'nv_tileas.block_scaled_mma' op expects sfa/sfb element types to be the same}}
%d = nv_tileas.block_scaled_mma %a, %b, %c, %sfa, %sfb
    { atom = #nv_tileas<atom mxf4>,
      operandSegmentSizes = array<i32: 1, 1, 1, 1, 1> }
    : tile<128x64xf4E2M1FN>, tile<64x128xf4E2M1FN>, tile<128x128xf32>,
      tile<128x4xf8E8M0FNU>, tile<4x128xf8E4M3FN>
    -> tile<128x128xf32>

// -----

%a = nv_tileas.create_none : tile<128x64xf4E2M1FN>
%b = nv_tileas.create_none : tile<64x128xf4E2M1FN>
%c = nv_tileas.create_none : tile<128x128xf32>
%sfa = nv_tileas.create_none : tile<128x4xf8E8M0FNU>
// expected-error@+1 {{'nv_tileas.block_scaled_mma' op fp4 mma should expect scaling factors}}
%d = nv_tileas.block_scaled_mma %a, %b, %c, %sfa {atom = #nv_tileas<atom mxf4>} : tile<128x64xf4E2M1FN>, tile<64x128xf4E2M1FN>, tile<128x128xf32>, tile<128x4xf8E8M0FNU> -> tile<128x128xf32>

// -----

%a = nv_tileas.create_none : tile<128x64xf4E2M1FN>
%b = nv_tileas.create_none : tile<64x128xf4E2M1FN>
%c = nv_tileas.create_none : tile<128x128xf16>
// expected-error@+1 {{'nv_tileas.block_scaled_mma' op fp4 mma should expect scaling factors}}
%d = nv_tileas.block_scaled_mma %a, %b, %c {atom = #nv_tileas<atom mxf4>} : tile<128x64xf4E2M1FN>, tile<64x128xf4E2M1FN>, tile<128x128xf16> -> tile<128x128xf16>

// -----

%a = nv_tileas.create_none : tile<128x64xf4E2M1FN>
%b = nv_tileas.create_none : tile<64x128xf4E2M1FN>
%c = nv_tileas.create_none : tile<128x128xf16>
%sfa = nv_tileas.create_none : tile<128x4xf8E8M0FNU>
%sfb = nv_tileas.create_none : tile<4x128xf8E8M0FNU>
// expected-error@+1 {{'nv_tileas.block_scaled_mma' op expects c type to be Float32}}
%d = nv_tileas.block_scaled_mma %a, %b, %c, %sfa, %sfb {atom = #nv_tileas<atom mxf4>} : tile<128x64xf4E2M1FN>, tile<64x128xf4E2M1FN>, tile<128x128xf16>, tile<128x4xf8E8M0FNU>, tile<4x128xf8E8M0FNU> -> tile<128x128xf16>

// -----

%a = nv_tileas.create_none : tile<128x64xf4E2M1FN>
%b = nv_tileas.create_none : tile<64x128xf4E2M1FN>
%c = nv_tileas.create_none : tile<128x128xf32>
%sfa = nv_tileas.create_none : tile<128x4xf8E8M0FNU>
%sfb = nv_tileas.create_none : tile<2x128xf8E8M0FNU>
// expected-error@+1 {{'nv_tileas.block_scaled_mma' op Scale factor vector size mismatch: 16, 32}}
%d = nv_tileas.block_scaled_mma %a, %b, %c, %sfa, %sfb {atom = #nv_tileas<atom mxf4>} : tile<128x64xf4E2M1FN>, tile<64x128xf4E2M1FN>, tile<128x128xf32>, tile<128x4xf8E8M0FNU>, tile<2x128xf8E8M0FNU> -> tile<128x128xf32>

// -----

%a = nv_tileas.create_none : tile<128x64xf4E2M1FN>
%b = nv_tileas.create_none : tile<64x128xf8E4M3FN>
%c = nv_tileas.create_none : tile<128x128xf32>
%sfa = nv_tileas.create_none : tile<128x4xf8E8M0FNU>
%sfb = nv_tileas.create_none : tile<4x128xf8E8M0FNU>
// expected-error@+1 {{'nv_tileas.block_scaled_mma' op expects A and B element types are valid 4bit types, such asFloat4E2M1FNType or FloatNV4E0M3FType , when (atom_K=64 && vecSize=16)}}
%d = nv_tileas.block_scaled_mma %a, %b, %c, %sfa, %sfb {atom = #nv_tileas<atom mxf4>} : tile<128x64xf4E2M1FN>, tile<64x128xf8E4M3FN>, tile<128x128xf32>, tile<128x4xf8E8M0FNU>, tile<4x128xf8E8M0FNU> -> tile<128x128xf32>

// -----

%a = nv_tileas.create_none : tile<128x64xf4E2M1FN>
%b = nv_tileas.create_none : tile<64x128xf4E2M1FN>
%c = nv_tileas.create_none : tile<128x128xf32>
%sfa = nv_tileas.create_none : tile<128x4xf8E5M2>
%sfb = nv_tileas.create_none : tile<4x128xf8E5M2>
// expected-error@+1 {{'nv_tileas.block_scaled_mma' op expects sfa/sfb element types to be Float8E8M0FNUType or Float8E4M3FNType when (atom_K=64 && vecSize=16)}}
%d = nv_tileas.block_scaled_mma %a, %b, %c, %sfa, %sfb {atom = #nv_tileas<atom mxf4>} : tile<128x64xf4E2M1FN>, tile<64x128xf4E2M1FN>, tile<128x128xf32>, tile<128x4xf8E5M2>, tile<4x128xf8E5M2> -> tile<128x128xf32>

// -----

%a = nv_tileas.create_none : tile<128x64xf4E2M1FN>
%b = nv_tileas.create_none : tile<64x128xf4E2M1FN>
%c = nv_tileas.create_none : tile<128x128xf32>
%sfa = nv_tileas.create_none : tile<128x2xf8E4M3FN>
%sfb = nv_tileas.create_none : tile<2x128xf8E4M3FN>
// expected-error@+1 {{'nv_tileas.block_scaled_mma' op expects A/B element types to be Float4E2M1FNType and sfa/sfb element types to be Float8E8M0FNUType when (atom_K=64 && vecSize=32)}}
%d = nv_tileas.block_scaled_mma %a, %b, %c, %sfa, %sfb {atom = #nv_tileas<atom mxf4nvf4>} : tile<128x64xf4E2M1FN>, tile<64x128xf4E2M1FN>, tile<128x128xf32>, tile<128x2xf8E4M3FN>, tile<2x128xf8E4M3FN> -> tile<128x128xf32>

// -----

%a = nv_tileas.create_none : tile<128x64xf8E4M3FN>
%b = nv_tileas.create_none : tile<64x128xf8E5M2>
%c = nv_tileas.create_none : tile<128x128xf32>
%sfa = nv_tileas.create_none : tile<128x4xf8E8M0FNU>
%sfb = nv_tileas.create_none : tile<4x128xf8E8M0FNU>
// expected-error@+1 {{'nv_tileas.block_scaled_mma' op invalid block scale vector size. Expecting 32, but got 16}}
%d = nv_tileas.block_scaled_mma %a, %b, %c, %sfa, %sfb {atom = #nv_tileas<atom mxf8f6f4>} : tile<128x64xf8E4M3FN>, tile<64x128xf8E5M2>, tile<128x128xf32>, tile<128x4xf8E8M0FNU>, tile<4x128xf8E8M0FNU> -> tile<128x128xf32>

// -----

%a = nv_tileas.create_none : tile<128x64xf4E2M1FN>
%b = nv_tileas.create_none : tile<64x128xf4E2M1FN>
%c = nv_tileas.create_none : tile<128x128xf32>
%sfa = nv_tileas.create_none : tile<128x8xf8E8M0FNU>
%sfb = nv_tileas.create_none : tile<8x128xf8E8M0FNU>
// expected-error@+1 {{'nv_tileas.block_scaled_mma' op invalid block scale vector size. Expecting 32, but got 8}}
%d = nv_tileas.block_scaled_mma %a, %b, %c, %sfa, %sfb {atom = #nv_tileas<atom mxf4>} : tile<128x64xf4E2M1FN>, tile<64x128xf4E2M1FN>, tile<128x128xf32>, tile<128x8xf8E8M0FNU>, tile<8x128xf8E8M0FNU> -> tile<128x128xf32>

// -----

%a = nv_tileas.create_none : tile<128x64xf4E2M1FN>
%b = nv_tileas.create_none : tile<64x128xf4E2M1FN>
%c = nv_tileas.create_none : tile<128x128xf32>
%sfa = nv_tileas.create_none : tile<128x4xf8E8M0FNU>
%sfb = nv_tileas.create_none : tile<4x128xf8E8M0FNU>
// expected-error@+1 {{'nv_tileas.block_scaled_mma' op mma block scale is not supported by compute capability < sm100}}
%d = nv_tileas.block_scaled_mma %a, %b, %c, %sfa, %sfb {atom = #nv_tileas<atom mxf4>, compute_capability = 90 : i32} : tile<128x64xf4E2M1FN>, tile<64x128xf4E2M1FN>, tile<128x128xf32>, tile<128x4xf8E8M0FNU>, tile<4x128xf8E8M0FNU> -> tile<128x128xf32>

// -----

%a = nv_tileas.create_none : tile<128x64xf16>
%b = nv_tileas.create_none : tile<64x128xf16>
%c = nv_tileas.create_none : tile<128x128xf32>
%sfa = nv_tileas.create_none : tile<128x4xf8E8M0FNU>
%sfb = nv_tileas.create_none : tile<4x128xf8E8M0FNU>
// expected-error@+1 {{'nv_tileas.block_scaled_mma' op Block scale is not supported for f16, tf32, f8f6f4, and i8 types}}
%d = nv_tileas.block_scaled_mma %a, %b, %c, %sfa, %sfb {atom = #nv_tileas<atom mxf4>} : tile<128x64xf16>, tile<64x128xf16>, tile<128x128xf32>, tile<128x4xf8E8M0FNU>, tile<4x128xf8E8M0FNU> -> tile<128x128xf32>

// -----

%a = nv_tileas.create_none : tile<128x64xi8>
%b = nv_tileas.create_none : tile<64x128xi8>
%c = nv_tileas.create_none : tile<128x128xf32>
%sfa = nv_tileas.create_none : tile<128x4xf8E8M0FNU>
%sfb = nv_tileas.create_none : tile<4x128xf8E8M0FNU>
// expected-error@+1 {{'nv_tileas.block_scaled_mma' op Block scale not supported for f16, tf32, f8f6f4 and int8 types}}
%d = nv_tileas.block_scaled_mma %a, %b, %c, %sfa, %sfb {atom = #nv_tileas<atom mxf4>, two_cta} : tile<128x64xi8>, tile<64x128xi8>, tile<128x128xf32>, tile<128x4xf8E8M0FNU>, tile<4x128xf8E8M0FNU> -> tile<128x128xf32>

// -----

%a = nv_tileas.create_none : tile<128x64xf4E2M1FN>
%b = nv_tileas.create_none : tile<64x128xf4E2M1FN>
%c = nv_tileas.create_none : tile<128x128xf32>
%sfa = nv_tileas.create_none : tile<128x2xf8E8M0FNU>
%sfb = nv_tileas.create_none : tile<2x128xf8E8M0FNU>
// expected-error@+1 {{'nv_tileas.block_scaled_mma' op mxf4nvf4 block scale has no 2-CTA atom (atom_K=64 && vecSize=32)}}
%d = nv_tileas.block_scaled_mma %a, %b, %c, %sfa, %sfb {atom = #nv_tileas<atom mxf4nvf4>, two_cta} : tile<128x64xf4E2M1FN>, tile<64x128xf4E2M1FN>, tile<128x128xf32>, tile<128x2xf8E8M0FNU>, tile<2x128xf8E8M0FNU> -> tile<128x128xf32>

// -----

%a = nv_tileas.create_none : tile<128x64xf4E2M1FN>
%b = nv_tileas.create_none : tile<64x128xf4E2M1FN>
%c = nv_tileas.create_none : tile<128x128xf32>
%sfa = nv_tileas.create_none : tile<128x4xf8E8M0FNU>
%sfb = nv_tileas.create_none : tile<4x128xf8E8M0FNU>
// expected-error@+1 {{'nv_tileas.block_scaled_mma' op expects an MMA atom, but got #nv_tileas<atom copy_default>}}
%d = nv_tileas.block_scaled_mma %a, %b, %c, %sfa, %sfb {atom = #nv_tileas<atom copy_default>} : tile<128x64xf4E2M1FN>, tile<64x128xf4E2M1FN>, tile<128x128xf32>, tile<128x4xf8E8M0FNU>, tile<4x128xf8E8M0FNU> -> tile<128x128xf32>
