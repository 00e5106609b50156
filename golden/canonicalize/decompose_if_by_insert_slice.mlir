// RUN: tilec opt %s --canonicalize --split-input-file --allow-unregistered-dialect | filecheck %s
// Pattern "decompose if by insert slice": an allocation/insertion chain both
// branches insert into is duplicated into each branch.

// CHECK-LABEL: label = "spec-pair"
// CHECK: %[[SEED:.*]] = "get_seed"()
// CHECK-NOT: nv_tileas.alloc_tensor
// CHECK: %[[R:.*]] = scf.if %{{.*}} -> (tensor<64x64xf32>) {
// CHECK-NEXT: %[[TA:.*]] = nv_tileas.alloc_tensor : tensor<64x64xf32>
// CHECK-NEXT: %[[TAV:.*]] = nv_tileas.insert_slice %[[SEED]] into %[[TA]][0, 0]
// CHECK-NEXT: %[[VA:.*]] = nv_tileas.insert_slice %{{.*}} into %[[TAV]]
// CHECK-NEXT: scf.yield %[[VA]] : tensor<64x64xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[TB:.*]] = nv_tileas.alloc_tensor : tensor<64x64xf32>
// CHECK-NEXT: %[[TBV:.*]] = nv_tileas.insert_slice %[[SEED]] into %[[TB]][0, 0]
// CHECK-NEXT: %[[VB:.*]] = nv_tileas.insert_slice %{{.*}} into %[[TBV]]
// CHECK-NEXT: scf.yield %[[VB]] : tensor<64x64xf32>
// CHECK-NEXT: }
// CHECK-NEXT: "use"(%[[R]])
"test.marker"() {label = "spec-pair"} : () -> ()
%cond = "get_cond"() : () -> i1
%i, %j, %m, %n = "get_indices"() : () -> (index, index, index, index)
%seed = "get_seed"() : () -> tensor<?x?xf32>
%a = "get_a"() : () -> tensor<?x?xf32>
%b = "get_b"() : () -> tensor<?x?xf32>
%init = nv_tileas.alloc_tensor : tensor<64x64xf32>
%init_v = nv_tileas.insert_slice %seed into %init[0, 0][%m, %n][1, 1] : tensor<?x?xf32> into tensor<64x64xf32>
%r = scf.if %cond -> (tensor<64x64xf32>) {
  %v = nv_tileas.insert_slice %a into %init_v[%i, %j][%m, %n][1, 1] : tensor<?x?xf32> into tensor<64x64xf32>
  scf.yield %v : tensor<64x64xf32>
} else {
  %v = nv_tileas.insert_slice %b into %init_v[%i, %j][%m, %n][1, 1] : tensor<?x?xf32> into tensor<64x64xf32>
  scf.yield %v : tensor<64x64xf32>
}
"use"(%r) : (tensor<64x64xf32>) -> ()

// -----

// Negative: the shared tile is also used after the scf.if (a live use outside).
// CHECK-LABEL: label = "live-outside"
// CHECK: %[[INIT:.*]] = nv_tileas.alloc_tensor
// CHECK: scf.if
// CHECK-NOT: nv_tileas.alloc_tensor
// CHECK: "use"(%[[INIT]])
"test.marker"() {label = "live-outside"} : () -> ()
%cond = "get_cond"() : () -> i1
%a = "get_a"() : () -> tensor<16x16xf32>
%b = "get_b"() : () -> tensor<16x16xf32>
%init = nv_tileas.alloc_tensor : tensor<64x64xf32>
%r = scf.if %cond -> (tensor<64x64xf32>) {
  %v = nv_tileas.insert_slice %a into %init[0, 0][16, 16][1, 1] : tensor<16x16xf32> into tensor<64x64xf32>
  scf.yield %v : tensor<64x64xf32>
} else {
  %v = nv_tileas.insert_slice %b into %init[0, 0][16, 16][1, 1] : tensor<16x16xf32> into tensor<64x64xf32>
  scf.yield %v : tensor<64x64xf32>
}
"use"(%r) : (tensor<64x64xf32>) -> ()
"use"(%init) : (tensor<64x64xf32>) -> ()

// -----

// Negative: the branches insert into different allocations.
// CHECK-LABEL: label = "different-allocations"
// CHECK: nv_tileas.alloc_tensor
// CHECK: nv_tileas.alloc_tensor
// CHECK: scf.if
// CHECK-NOT: nv_tileas.alloc_tensor
"test.marker"() {label = "different-allocations"} : () -> ()
%cond = "get_cond"() : () -> i1
%a = "get_a"() : () -> tensor<16x16xf32>
%p = nv_tileas.alloc_tensor : tensor<64x64xf32>
%q = nv_tileas.alloc_tensor : tensor<64x64xf32>
%r = scf.if %cond -> (tensor<64x64xf32>) {
  %v = nv_tileas.insert_slice %a into %p[0, 0][16, 16][1, 1] : tensor<16x16xf32> into tensor<64x64xf32>
  scf.yield %v : tensor<64x64xf32>
} else {
  %v = nv_tileas.insert_slice %a into %q[0, 0][16, 16][1, 1] : tensor<16x16xf32> into tensor<64x64xf32>
  scf.yield %v : tensor<64x64xf32>
}
"use"(%r) : (tensor<64x64xf32>) -> ()

// -----

// Negative: a memory-consistency op (nv_tileas.tiled_load) produces the
// shared tile; the chain walk aborts there and nothing is duplicated.
// CHECK-LABEL: label = "memory-consistency-in-chain"
// CHECK-COUNT-1: "nv_tileas.tiled_load"
// CHECK: scf.if
// CHECK-NOT: nv_tileas.tiled_load
"test.marker"() {label = "memory-consistency-in-chain"} : () -> ()
%cond = "get_cond"() : () -> i1
%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf32, GMEM>
%c0 = arith.constant 0 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xf32, GMEM> -> !nv_tileaa.tiled_view<64x64xf32, GMEM>
%tok = nv_tileas.create_none : !nv_tileaa.mem_token
%t, %tok2 = "nv_tileas.tiled_load"(%v, %c0, %c0, %c0, %c0, %tok) <{atom = #nv_tileas<atom copy_default>, operandSegmentSizes = array<i32: 1, 2, 2, 1>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, index, index, index, index, !nv_tileaa.mem_token) -> (tile<64x64xf32>, !nv_tileaa.mem_token)
%a = "get_a"() : () -> tile<16x16xf32>
%r = scf.if %cond -> (tile<64x64xf32>) {
  %w = nv_tileas.insert_slice %a into %t[0, 0][16, 16][1, 1] : tile<16x16xf32> into tile<64x64xf32>
  scf.yield %w : tile<64x64xf32>
} else {
  %w = nv_tileas.insert_slice %a into %t[16, 0][16, 16][1, 1] : tile<16x16xf32> into tile<64x64xf32>
  scf.yield %w : tile<64x64xf32>
}
"use"(%r) : (tile<64x64xf32>) -> ()
