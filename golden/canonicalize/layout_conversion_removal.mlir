// RUN: tilec opt %s --layout-conversion-removal --split-input-file --allow-unregistered-dialect | filecheck %s
// The layout-conversion removal pass (not canonicalize: no local fold trims
// convert_layout chains).

// Round trip register -> shared -> register with the same register layout:
// identity, replaced by the source.
// CHECK-LABEL: label = "round-trip"
// CHECK: %[[X:.*]] = "get"()
// CHECK-NEXT: "use"(%[[X]])
// CHECK-NOT: nv_tileas.convert_layout
"test.marker"() {label = "round-trip"} : () -> ()
%x = "get"() : () -> tensor<64x64xf32, #nv_tileas<atom copy_blocked>>
%s = nv_tileas.convert_layout %x : tensor<64x64xf32, #nv_tileas<atom copy_blocked>> -> tensor<64x64xf32, #nv_tileas<atom copy_swizzled>>
%y = nv_tileas.convert_layout %s : tensor<64x64xf32, #nv_tileas<atom copy_swizzled>> -> tensor<64x64xf32, #nv_tileas<atom copy_blocked>>
"use"(%y) : (tensor<64x64xf32, #nv_tileas<atom copy_blocked>>) -> ()

// -----

// Negative: register -> shared -> a different register layout; materializing
// the shared layout is what makes the change legal, so the chain stays.
// CHECK-LABEL: label = "different-register-layouts"
// CHECK: nv_tileas.convert_layout
// CHECK: nv_tileas.convert_layout
"test.marker"() {label = "different-register-layouts"} : () -> ()
%x = "get"() : () -> tensor<64x64xf32, #nv_tileas<atom copy_blocked>>
%s = nv_tileas.convert_layout %x : tensor<64x64xf32, #nv_tileas<atom copy_blocked>> -> tensor<64x64xf32, #nv_tileas<atom copy_swizzled>>
%y = nv_tileas.convert_layout %s : tensor<64x64xf32, #nv_tileas<atom copy_swizzled>> -> tensor<64x64xf32, #nv_tileas<atom copy_vec4>>
"use"(%y) : (tensor<64x64xf32, #nv_tileas<atom copy_vec4>>) -> ()

// -----

// Register -> register -> register: one direct register conversion remains.
// CHECK-LABEL: label = "register-chain"
// CHECK: %[[X:.*]] = "get"()
// CHECK-NEXT: %[[Y:.*]] = nv_tileas.convert_layout %[[X]] : tensor<64x64xf32, #nv_tileas<atom copy_blocked>> -> tensor<64x64xf32, #nv_tileas<atom copy_vec4>>
// CHECK-NEXT: "use"(%[[Y]])
"test.marker"() {label = "register-chain"} : () -> ()
%x = "get"() : () -> tensor<64x64xf32, #nv_tileas<atom copy_blocked>>
%s = nv_tileas.convert_layout %x : tensor<64x64xf32, #nv_tileas<atom copy_blocked>> -> tensor<64x64xf32, #nv_tileas<atom copy_vec2>>
%y = nv_tileas.convert_layout %s : tensor<64x64xf32, #nv_tileas<atom copy_vec2>> -> tensor<64x64xf32, #nv_tileas<atom copy_vec4>>
"use"(%y) : (tensor<64x64xf32, #nv_tileas<atom copy_vec4>>) -> ()

// -----

// Negative: the chain ends in another storage class (register -> shared ->
// tensor memory is not a register round trip).
// CHECK-LABEL: label = "storage-class-change"
// CHECK: nv_tileas.convert_layout
// CHECK: nv_tileas.convert_layout
"test.marker"() {label = "storage-class-change"} : () -> ()
%x = "get"() : () -> tensor<64x64xf32, #nv_tileas<atom copy_blocked>>
%s = nv_tileas.convert_layout %x : tensor<64x64xf32, #nv_tileas<atom copy_blocked>> -> tensor<64x64xf32, #nv_tileas<atom copy_swizzled>>
%y = nv_tileas.convert_layout %s : tensor<64x64xf32, #nv_tileas<atom copy_swizzled>> -> tensor<64x64xf32, #nv_tileas<atom copy_tmem>>
"use"(%y) : (tensor<64x64xf32, #nv_tileas<atom copy_tmem>>) -> ()

// -----

// Negative: a tensor-memory round trip on sm_90a, whose atom catalog has no
// tensor-memory atoms.
// CHECK-LABEL: label = "no-direct-atom"
// CHECK: nv_tileas.convert_layout
// CHECK: nv_tileas.convert_layout
"test.marker"() {label = "no-direct-atom"} : () -> ()
%x = "get"() : () -> tensor<64x64xf32, #nv_tileas<atom copy_tmem_a>>
%s = nv_tileas.convert_layout %x : tensor<64x64xf32, #nv_tileas<atom copy_tmem_a>> -> tensor<64x64xf32, #nv_tileas<atom copy_blocked>>
%y = nv_tileas.convert_layout %s : tensor<64x64xf32, #nv_tileas<atom copy_blocked>> -> tensor<64x64xf32, #nv_tileas<atom copy_tmem_a>>
"use"(%y) : (tensor<64x64xf32, #nv_tileas<atom copy_tmem_a>>) -> ()

// -----

// Negative: canonicalize-style folding never touches the chain; the pass does
// not run DCE on other convert_layouts either.
// CHECK-LABEL: label = "single"
// CHECK: nv_tileas.convert_layout
"test.marker"() {label = "single"} : () -> ()
%x = "get"() : () -> tensor<64x64xf32, #nv_tileas<atom copy_blocked>>
%y = nv_tileas.convert_layout %x : tensor<64x64xf32, #nv_tileas<atom copy_blocked>> -> tensor<64x64xf32, #nv_tileas<atom copy_swizzled>>
"use"(%y) : (tensor<64x64xf32, #nv_tileas<atom copy_swizzled>>) -> ()
