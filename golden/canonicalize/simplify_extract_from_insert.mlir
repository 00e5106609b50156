// RUN: tilec opt %s --canonicalize --split-input-file --allow-unregistered-dialect | filecheck %s
// Pattern "simplify extract from insert": extract_slice(insert_slice(x, dst, P), P) -> x.

// CHECK-LABEL: label = "spec-pair"
// CHECK: %[[X:.*]] = "get_tile"() : () -> tensor<?x?xf32>
// CHECK-NOT: nv_tileas.insert_slice
// CHECK-NOT: nv_tileas.extract_slice
// CHECK: "use"(%[[X]]) : (tensor<?x?xf32>) -> ()
"test.marker"() {label = "spec-pair"} : () -> ()
%i, %j, %m, %n = "get_indices"() : () -> (index, index, index, index)
%x = "get_tile"() : () -> tensor<?x?xf32>
%dst = nv_tileas.alloc_tensor : tensor<64x64xf32>
%t = nv_tileas.insert_slice %x into %dst[%i, %j][%m, %n][1, 1] : tensor<?x?xf32> into tensor<64x64xf32>
%y = nv_tileas.extract_slice %t[%i, %j][%m, %n][1, 1] : tensor<64x64xf32> to tensor<?x?xf32>
"use"(%y) : (tensor<?x?xf32>) -> ()

// -----

// Fold-aware comparison: a constant operand equals the same static entry.
// CHECK-LABEL: label = "constants-equal"
// CHECK: %[[X:.*]] = "get_tile"() : () -> tensor<16x16xf32>
// CHECK-NEXT: "use"(%[[X]])
"test.marker"() {label = "constants-equal"} : () -> ()
%c16 = arith.constant 16 : index
%x = "get_tile"() : () -> tensor<16x16xf32>
%dst = nv_tileas.alloc_tensor : tensor<64x64xf32>
%t = nv_tileas.insert_slice %x into %dst[%c16, 0][16, 16][1, 1] : tensor<16x16xf32> into tensor<64x64xf32>
%y = nv_tileas.extract_slice %t[16, 0][16, 16][1, 1] : tensor<64x64xf32> to tensor<16x16xf32>
"use"(%y) : (tensor<16x16xf32>) -> ()

// -----

// Negative: different offsets.
// CHECK-LABEL: label = "other-offsets"
// CHECK: nv_tileas.insert_slice
// CHECK: nv_tileas.extract_slice
"test.marker"() {label = "other-offsets"} : () -> ()
%x = "get_tile"() : () -> tensor<16x16xf32>
%dst = nv_tileas.alloc_tensor : tensor<64x64xf32>
%t = nv_tileas.insert_slice %x into %dst[0, 0][16, 16][1, 1] : tensor<16x16xf32> into tensor<64x64xf32>
%y = nv_tileas.extract_slice %t[16, 0][16, 16][1, 1] : tensor<64x64xf32> to tensor<16x16xf32>
"use"(%y) : (tensor<16x16xf32>) -> ()

// -----

// Negative: another insertion into the same storage sits between the pair.
// CHECK-LABEL: label = "insert-between"
// CHECK: %[[T:.*]] = nv_tileas.insert_slice %{{.*}} into %{{.*}}[0, 0][16, 16][1, 1]
// CHECK: %[[T2:.*]] = nv_tileas.insert_slice %{{.*}} into %[[T]][8, 8][16, 16][1, 1]
// CHECK: nv_tileas.extract_slice %[[T2]][0, 0][16, 16][1, 1]
"test.marker"() {label = "insert-between"} : () -> ()
%x = "get_tile"() : () -> tensor<16x16xf32>
%z = "get_tile"() : () -> tensor<16x16xf32>
%dst = nv_tileas.alloc_tensor : tensor<64x64xf32>
%t = nv_tileas.insert_slice %x into %dst[0, 0][16, 16][1, 1] : tensor<16x16xf32> into tensor<64x64xf32>
%t2 = nv_tileas.insert_slice %z into %t[8, 8][16, 16][1, 1] : tensor<16x16xf32> into tensor<64x64xf32>
%y = nv_tileas.extract_slice %t2[0, 0][16, 16][1, 1] : tensor<64x64xf32> to tensor<16x16xf32>
"use"(%y) : (tensor<16x16xf32>) -> ()

// -----

// Negative: an async insertion (not a pure tile op) is never looked through.
// CHECK-LABEL: label = "async-insert"
// CHECK: nv_tileas.async.insert_slice
// CHECK: nv_tileas.extract_slice
"test.marker"() {label = "async-insert"} : () -> ()
%x = "get_tile"() : () -> tensor<16x16xf32>
%dst = nv_tileas.alloc_tensor : tensor<64x64xf32>
%a = "nv_tileas.async.insert_slice"(%x, %dst) <{static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 16, 16>, static_strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>}> : (tensor<16x16xf32>, tensor<64x64xf32>) -> !async.value<tensor<64x64xf32>>
%t = nv_tileas.async.future_wait %a : !async.value<tensor<64x64xf32>> -> tensor<64x64xf32>
%y = nv_tileas.extract_slice %t[0, 0][16, 16][1, 1] : tensor<64x64xf32> to tensor<16x16xf32>
"use"(%y) : (tensor<16x16xf32>) -> ()
