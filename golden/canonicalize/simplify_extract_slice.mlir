// RUN: tilec opt %s --canonicalize --split-input-file --allow-unregistered-dialect | filecheck %s
// Pattern "simplify extract slice": constant offset/size/stride operands
// collapse into the static form; the result type bakes in the sizes.

// CHECK-LABEL: label = "spec-pair"
// CHECK: %[[SRC:.*]] = nv_tileas.alloc_tensor : tensor<128x128xf32>
// CHECK-NEXT: %[[S:.*]] = nv_tileas.extract_slice %[[SRC]][0, 0][64, 64][1, 1] : tensor<128x128xf32> to tensor<64x64xf32>
// CHECK-NEXT: "use"(%[[S]]) : (tensor<64x64xf32>) -> ()
// CHECK-NOT: arith.constant
// CHECK: // -----
"test.marker"() {label = "spec-pair"} : () -> ()
%c0 = arith.constant 0 : index
%c64 = arith.constant 64 : index
%c1 = arith.constant 1 : index
%src = nv_tileas.alloc_tensor : tensor<128x128xf32>
%slice = nv_tileas.extract_slice %src[%c0, %c0][%c64, %c64][%c1, %c1] : tensor<128x128xf32> to tensor<?x?xf32>
"use"(%slice) : (tensor<?x?xf32>) -> ()

// -----

// Negative: one operand is not a constant, so nothing changes (the spec asks
// for every operand to resolve to a constant).
// CHECK-LABEL: label = "partly-dynamic"
// CHECK: nv_tileas.extract_slice %{{.*}}[%{{.*}}, %{{.*}}][%{{.*}}, %{{.*}}][%{{.*}}, %{{.*}}] : tensor<128x128xf32> to tensor<?x?xf32>
"test.marker"() {label = "partly-dynamic"} : () -> ()
%c0 = arith.constant 0 : index
%c64 = arith.constant 64 : index
%c1 = arith.constant 1 : index
%n = "get_index"() : () -> index
%src = nv_tileas.alloc_tensor : tensor<128x128xf32>
%slice = nv_tileas.extract_slice %src[%c0, %n][%c64, %c64][%c1, %c1] : tensor<128x128xf32> to tensor<?x?xf32>
"use"(%slice) : (tensor<?x?xf32>) -> ()

// -----

// Negative: a negative constant offset is not folded.
// CHECK-LABEL: label = "negative-constant"
// CHECK: nv_tileas.extract_slice %{{.*}}[%{{.*}}, %{{.*}}][%{{.*}}, %{{.*}}][%{{.*}}, %{{.*}}] : tensor<128x128xf32> to tensor<?x?xf32>
"test.marker"() {label = "negative-constant"} : () -> ()
%cm1 = arith.constant -1 : index
%c64 = arith.constant 64 : index
%c1 = arith.constant 1 : index
%src = nv_tileas.alloc_tensor : tensor<128x128xf32>
%slice = nv_tileas.extract_slice %src[%cm1, %cm1][%c64, %c64][%c1, %c1] : tensor<128x128xf32> to tensor<?x?xf32>
"use"(%slice) : (tensor<?x?xf32>) -> ()

// -----

// Dead slices of a pure allocation are erased by dead-code removal.
// CHECK-LABEL: label = "dead"
// CHECK-NOT: nv_tileas
"test.marker"() {label = "dead"} : () -> ()
%c0 = arith.constant 0 : index
%src = nv_tileas.alloc_tensor : tensor<128x128xf32>
%slice = nv_tileas.extract_slice %src[%c0, %c0][64, 64][1, 1] : tensor<128x128xf32> to tensor<?x?xf32>
