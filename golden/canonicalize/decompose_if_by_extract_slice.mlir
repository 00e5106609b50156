// RUN: tilec opt %s --canonicalize --split-input-file --allow-unregistered-dialect | filecheck %s
// Pattern "decompose if by extract slice": an extraction from an scf.if result
// is sunk into each branch, which then yields the slice.

// CHECK-LABEL: label = "sink-extract"
// CHECK: %[[R:.*]] = scf.if %{{.*}} -> (tensor<16x16xf32>) {
// CHECK-NEXT: %[[TA:.*]] = nv_tileas.alloc_tensor : tensor<64x64xf32>
// CHECK-NEXT: %[[VA:.*]] = nv_tileas.insert_slice %{{.*}} into %[[TA]][0, 0][16, 16][1, 1]
// CHECK-NEXT: %[[EA:.*]] = nv_tileas.extract_slice %[[VA]][%{{.*}}, 0][16, 16][1, 1] : tensor<64x64xf32> to tensor<16x16xf32>
// CHECK-NEXT: scf.yield %[[EA]] : tensor<16x16xf32>
// CHECK-NEXT: } else {
// CHECK: %[[EB:.*]] = nv_tileas.extract_slice %{{.*}}[%{{.*}}, 0][16, 16][1, 1] : tensor<64x64xf32> to tensor<16x16xf32>
// CHECK-NEXT: scf.yield %[[EB]] : tensor<16x16xf32>
// CHECK-NEXT: }
// CHECK-NEXT: "use"(%[[R]]) : (tensor<16x16xf32>) -> ()
"test.marker"() {label = "sink-extract"} : () -> ()
%cond = "get_cond"() : () -> i1
%off = "get_index"() : () -> index
%a = "get_a"() : () -> tensor<16x16xf32>
%b = "get_b"() : () -> tensor<16x16xf32>
%r = scf.if %cond -> (tensor<64x64xf32>) {
  %t = nv_tileas.alloc_tensor : tensor<64x64xf32>
  %v = nv_tileas.insert_slice %a into %t[0, 0][16, 16][1, 1] : tensor<16x16xf32> into tensor<64x64xf32>
  scf.yield %v : tensor<64x64xf32>
} else {
  %t = nv_tileas.alloc_tensor : tensor<64x64xf32>
  %v = nv_tileas.insert_slice %b into %t[16, 0][16, 16][1, 1] : tensor<16x16xf32> into tensor<64x64xf32>
  scf.yield %v : tensor<64x64xf32>
}
%s = nv_tileas.extract_slice %r[%off, 0][16, 16][1, 1] : tensor<64x64xf32> to tensor<16x16xf32>
"use"(%s) : (tensor<16x16xf32>) -> ()

// -----

// Negative: the scf.if result has another use besides the extraction.
// CHECK-LABEL: label = "other-use"
// CHECK: %[[R:.*]] = scf.if %{{.*}} -> (tensor<64x64xf32>)
// CHECK: nv_tileas.extract_slice %[[R]]
"test.marker"() {label = "other-use"} : () -> ()
%cond = "get_cond"() : () -> i1
%a = "get_a"() : () -> tensor<64x64xf32>
%b = "get_b"() : () -> tensor<64x64xf32>
%r = scf.if %cond -> (tensor<64x64xf32>) {
  scf.yield %a : tensor<64x64xf32>
} else {
  scf.yield %b : tensor<64x64xf32>
}
%s = nv_tileas.extract_slice %r[0, 0][16, 16][1, 1] : tensor<64x64xf32> to tensor<16x16xf32>
"use"(%s) : (tensor<16x16xf32>) -> ()
"use"(%r) : (tensor<64x64xf32>) -> ()

// -----

// Negative: the extraction's offset is defined after the scf.if, so it
// cannot move into the branches.
// CHECK-LABEL: label = "offset-after-if"
// CHECK: %[[R:.*]] = scf.if %{{.*}} -> (tensor<64x64xf32>)
// CHECK: nv_tileas.extract_slice %[[R]]
"test.marker"() {label = "offset-after-if"} : () -> ()
%cond = "get_cond"() : () -> i1
%a = "get_a"() : () -> tensor<64x64xf32>
%b = "get_b"() : () -> tensor<64x64xf32>
%r = scf.if %cond -> (tensor<64x64xf32>) {
  scf.yield %a : tensor<64x64xf32>
} else {
  scf.yield %b : tensor<64x64xf32>
}
%off = "get_index"() : () -> index
%s = nv_tileas.extract_slice %r[%off, 0][16, 16][1, 1] : tensor<64x64xf32> to tensor<16x16xf32>
"use"(%s) : (tensor<16x16xf32>) -> ()

// -----

// Negative: a branch yields the result of a memory-consistency op
// (nv_tileas.tiled_load); the extraction is not moved next to it.
// CHECK-LABEL: label = "memory-consistency-in-branch"
// CHECK: %[[R:.*]] = scf.if %{{.*}} -> (tile<64x64xf32>)
// CHECK: "nv_tileas.tiled_load"
// CHECK: nv_tileas.extract_slice %[[R]]
"test.marker"() {label = "memory-consistency-in-branch"} : () -> ()
%cond = "get_cond"() : () -> i1
%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf32, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xf32, GMEM> -> !nv_tileaa.tiled_view<64x64xf32, GMEM>
%tok = nv_tileas.create_none : !nv_tileaa.mem_token
%b = "get_b"() : () -> tile<64x64xf32>
%r = scf.if %cond -> (tile<64x64xf32>) {
  %t, %tok2 = "nv_tileas.tiled_load"(%v, %c0, %c0, %c0, %c0, %tok) <{atom = #nv_tileas<atom copy_default>, operandSegmentSizes = array<i32: 1, 2, 2, 1>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, index, index, index, index, !nv_tileaa.mem_token) -> (tile<64x64xf32>, !nv_tileaa.mem_token)
  scf.yield %t : tile<64x64xf32>
} else {
  scf.yield %b : tile<64x64xf32>
}
%s = nv_tileas.extract_slice %r[0, 0][16, 16][1, 1] : tile<64x64xf32> to tile<16x16xf32>
"use"(%s) : (tile<16x16xf32>) -> ()
