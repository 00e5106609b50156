// RUN: tilec opt %s --canonicalize --split-input-file --allow-unregistered-dialect | filecheck %s
// Pattern "decompose loop iter args": an iter-arg whose init and yielded
// value both reach one alloc_tensor through pure insert_slice chains is
// dropped; the allocation (with its init insertion chain) is re-emitted at
// the start of the body. The body's own insertion, now unused and pure, is
// then erased by dead-code removal.

// CHECK-LABEL: label = "spec-pair"
// CHECK: %[[SEED:.*]] = "get_seed"() : () -> tensor<?x?xf32>
// CHECK-NOT: iter_args
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[BUF0:.*]] = nv_tileas.alloc_tensor : tensor<128x128xf32>
// CHECK-NEXT: %[[BUF:.*]] = nv_tileas.insert_slice %[[SEED]] into %[[BUF0]]
// CHECK-NEXT: "produce_tile"(%[[BUF]], %[[K]]) : (tensor<128x128xf32>, index) -> tensor<?x?xf32>
// CHECK-NEXT: }
// CHECK-NOT: nv_tileas
"test.marker"() {label = "spec-pair"} : () -> ()
%k0, %k1, %k_step, %i0, %j0, %m, %n = "get_indices"() : () -> (index, index, index, index, index, index, index)
%seed = "get_seed"() : () -> tensor<?x?xf32>
%init = nv_tileas.alloc_tensor : tensor<128x128xf32>
%init_v = nv_tileas.insert_slice %seed into %init[%i0, %j0][%m, %n][1, 1] : tensor<?x?xf32> into tensor<128x128xf32>
%out = scf.for %k = %k0 to %k1 step %k_step iter_args(%buf = %init_v) -> (tensor<128x128xf32>) {
  %step_v = "produce_tile"(%buf, %k) : (tensor<128x128xf32>, index) -> tensor<?x?xf32>
  %next = nv_tileas.insert_slice %step_v into %buf[%k, %j0][%m, %n][1, 1] : tensor<?x?xf32> into tensor<128x128xf32>
  scf.yield %next : tensor<128x128xf32>
}

// -----

// Negative: the loop result is used after the loop (legality 4).
// CHECK-LABEL: label = "result-used"
// CHECK: %[[OUT:.*]] = scf.for {{.*}} iter_args
// CHECK: "use"(%[[OUT]])
"test.marker"() {label = "result-used"} : () -> ()
%k0, %k1, %s = "get_indices"() : () -> (index, index, index)
%x = "get_tile"() : () -> tensor<16x16xf32>
%init = nv_tileas.alloc_tensor : tensor<64x64xf32>
%out = scf.for %k = %k0 to %k1 step %s iter_args(%buf = %init) -> (tensor<64x64xf32>) {
  %next = nv_tileas.insert_slice %x into %buf[%k, 0][16, 16][1, 1] : tensor<16x16xf32> into tensor<64x64xf32>
  scf.yield %next : tensor<64x64xf32>
}
"use"(%out) : (tensor<64x64xf32>) -> ()

// -----

// Negative: the init chain passes through a memory-consistency op
// (nv_tileas.tiled_load), so the match aborts there (legality 1 and 3).
// CHECK-LABEL: label = "memory-consistency-in-chain"
// CHECK: "nv_tileas.tiled_load"{{.*}}mem_scope = #nv_tileas.mem_scope<gpu>, mem_semantic = #nv_tileas.mem_semantic<acquire>
// CHECK: scf.for {{.*}} iter_args
"test.marker"() {label = "memory-consistency-in-chain"} : () -> ()
%src = nv_tileas.create_none : !nv_tileaa.tiled_view<1024x1024xf32, GMEM>
%c0 = arith.constant 0 : index
%c4 = arith.constant 4 : index
%c1 = arith.constant 1 : index
%v = nv_tileaa.block_tile %src[%c0, %c0] : !nv_tileaa.tiled_view<1024x1024xf32, GMEM> -> !nv_tileaa.tiled_view<64x64xf32, GMEM>
%tok = nv_tileas.create_none : !nv_tileaa.mem_token
%t, %tok2 = "nv_tileas.tiled_load"(%v, %c0, %c0, %c0, %c0, %tok) <{atom = #nv_tileas<atom copy_default>, mem_semantic = #nv_tileas.mem_semantic<acquire>, mem_scope = #nv_tileas.mem_scope<gpu>, operandSegmentSizes = array<i32: 1, 2, 2, 1>}> : (!nv_tileaa.tiled_view<64x64xf32, GMEM>, index, index, index, index, !nv_tileaa.mem_token) -> (tile<64x64xf32>, !nv_tileaa.mem_token)
%x = "get_tile"() : () -> tile<16x16xf32>
%init_v = nv_tileas.insert_slice %x into %t[0, 0][16, 16][1, 1] : tile<16x16xf32> into tile<64x64xf32>
%out = scf.for %k = %c0 to %c4 step %c1 iter_args(%buf = %init_v) -> (tile<64x64xf32>) {
  "read"(%buf) : (tile<64x64xf32>) -> ()
  %next = nv_tileas.insert_slice %x into %buf[%k, 0][16, 16][1, 1] : tile<16x16xf32> into tile<64x64xf32>
  scf.yield %next : tile<64x64xf32>
}

// -----

// Negative: the yielded value does not come from the carried buffer (it is
// a fresh allocation), so the two chains are not parallel (legality 2).
// CHECK-LABEL: label = "yield-not-carried"
// CHECK: scf.for {{.*}} iter_args
"test.marker"() {label = "yield-not-carried"} : () -> ()
%k0, %k1, %s = "get_indices"() : () -> (index, index, index)
%x = "get_tile"() : () -> tensor<16x16xf32>
%init = nv_tileas.alloc_tensor : tensor<64x64xf32>
%out = scf.for %k = %k0 to %k1 step %s iter_args(%buf = %init) -> (tensor<64x64xf32>) {
  "read"(%buf) : (tensor<64x64xf32>) -> ()
  %fresh = nv_tileas.alloc_tensor : tensor<64x64xf32>
  %next = nv_tileas.insert_slice %x into %fresh[%k, 0][16, 16][1, 1] : tensor<16x16xf32> into tensor<64x64xf32>
  scf.yield %next : tensor<64x64xf32>
}

// -----

// Negative: the yielded chain passes through a non-pure op.
// CHECK-LABEL: label = "non-pure-in-chain"
// CHECK: scf.for {{.*}} iter_args
"test.marker"() {label = "non-pure-in-chain"} : () -> ()
%k0, %k1, %s = "get_indices"() : () -> (index, index, index)
%x = "get_tile"() : () -> tensor<16x16xf32>
%init = nv_tileas.alloc_tensor : tensor<64x64xf32>
%out = scf.for %k = %k0 to %k1 step %s iter_args(%buf = %init) -> (tensor<64x64xf32>) {
  %w = "opaque"(%buf) : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %next = nv_tileas.insert_slice %x into %w[%k, 0][16, 16][1, 1] : tensor<16x16xf32> into tensor<64x64xf32>
  scf.yield %next : tensor<64x64xf32>
}
