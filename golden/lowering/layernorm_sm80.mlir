// tilec opt examples/cutile/layernorm_rows_f32.mlir --lower-to-tileas=arch=sm_80 --schedule | filecheck %s
// Layer norm over rows: both statistics (mean, then variance) are slices of the row tile's
// blocked layout; dividing them by the row length (a splat), adding epsilon and rsqrt run in
// the slice, one register per row and thread; broadcasting them back into the blocked layout
// copies registers. The weight row (128) is broadcast over the tile's rows in the blocked layout.
// CHECK: "nv_tileas.tiled_load"{{.*}}nv_tileas.layouts = [#nv_tileas<layout blocked>]
// CHECK: "nv_tileas.reduce"
// CHECK: }) {nv_tileas.layouts = [#nv_tileas<layout slice, axes = [0], parent = [4, 128] blocked>]}
// CHECK-NEXT: %[[SUM:.*]] = reshape {{.*}}nv_tileas.layouts = [#nv_tileas<layout slice, axes = [0, -1], parent = [4, 128] blocked>]
// CHECK: %[[N:.*]] = broadcast {{.*}}nv_tileas.layouts = [#nv_tileas<layout splat>]} : tile<1x1xf32> -> tile<4x1xf32>
// CHECK-NEXT: %[[MEAN:.*]] = divf %[[SUM]], %[[N]] {nv_tileas.layouts = [#nv_tileas<layout slice, axes = [0, -1], parent = [4, 128] blocked>]}
// CHECK-NEXT: broadcast %[[MEAN]] {nv_tileas.layouts = [#nv_tileas<layout blocked>]} : tile<4x1xf32> -> tile<4x128xf32>
// CHECK: "nv_tileas.reduce"
// CHECK: rsqrt {{.*}}nv_tileas.layouts = [#nv_tileas<layout slice, axes = [0, -1], parent = [4, 128] blocked>]
// CHECK-NEXT: broadcast {{.*}}nv_tileas.layouts = [#nv_tileas<layout blocked>]} : tile<4x1xf32> -> tile<4x128xf32>
// CHECK: broadcast {{.*}}nv_tileas.layouts = [#nv_tileas<layout blocked>]} : tile<1x128xf32> -> tile<4x128xf32>
// CHECK: "nv_tileas.tiled_store"
