// RUN: tilec opt %s --canonicalize --split-input-file --allow-unregistered-dialect | filecheck %s
// Pattern "swap view and extract slice": extract_slice(view(x)) ->
// view(extract_slice(x)) when the view commutes with slicing (no view
// indices, no explicit strides, same shape: a pure residency retag).

// CHECK-LABEL: label = "swap"
// CHECK: %[[X:.*]] = "get_tensor"() : () -> tensor<128x128xf32>
// CHECK-NEXT: %[[S:.*]] = nv_tileas.extract_slice %[[X]][0, 64][64, 64][1, 1] : tensor<128x128xf32> to tensor<64x64xf32>
// CHECK-NEXT: %[[V:.*]] = nv_tileas.view %[[S]] : tensor<64x64xf32> -> !nv_tileaa.tiled_view<64x64xf32, SMEM>
// CHECK-NEXT: "use"(%[[V]])
"test.marker"() {label = "swap"} : () -> ()
%x = "get_tensor"() : () -> tensor<128x128xf32>
%v = nv_tileas.view %x : tensor<128x128xf32> -> !nv_tileaa.tiled_view<128x128xf32, SMEM>
%s = nv_tileas.extract_slice %v[0, 64][64, 64][1, 1] : !nv_tileaa.tiled_view<128x128xf32, SMEM> to !nv_tileaa.tiled_view<64x64xf32, SMEM>
"use"(%s) : (!nv_tileaa.tiled_view<64x64xf32, SMEM>) -> ()

// -----

// Negative: the view carries explicit strides; slicing does not commute.
// CHECK-LABEL: label = "strided-view"
// CHECK: %[[V:.*]] = nv_tileas.view
// CHECK-NEXT: nv_tileas.extract_slice %[[V]]
"test.marker"() {label = "strided-view"} : () -> ()
%x = "get_tensor"() : () -> tensor<128x128xf32>
%v = nv_tileas.view %x : tensor<128x128xf32> -> !nv_tileaa.tiled_view<128x128xf32, SMEM, strides = [1, 128]>
%s = nv_tileas.extract_slice %v[0, 64][64, 64][1, 1] : !nv_tileaa.tiled_view<128x128xf32, SMEM, strides = [1, 128]> to !nv_tileaa.tiled_view<64x64xf32, SMEM>
"use"(%s) : (!nv_tileaa.tiled_view<64x64xf32, SMEM>) -> ()

// -----

// Negative: a view at indices (an offset window) is not swapped.
// CHECK-LABEL: label = "indexed-view"
// CHECK: %[[V:.*]] = nv_tileas.view %{{.*}}[%{{.*}}]
// CHECK-NEXT: nv_tileas.extract_slice %[[V]]
"test.marker"() {label = "indexed-view"} : () -> ()
%x = "get_tensor"() : () -> tensor<128x128xf32>
%i = "get_index"() : () -> index
%v = nv_tileas.view %x[%i] : tensor<128x128xf32> -> !nv_tileaa.tiled_view<128x128xf32, SMEM>
%s = nv_tileas.extract_slice %v[0, 64][64, 64][1, 1] : !nv_tileaa.tiled_view<128x128xf32, SMEM> to !nv_tileaa.tiled_view<64x64xf32, SMEM>
"use"(%s) : (!nv_tileaa.tiled_view<64x64xf32, SMEM>) -> ()
