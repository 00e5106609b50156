// Element-wise c = a + b over 1-D views, one 256-element tile per tile block.
cuda_tile.module @examples {
  entry @vector_add(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %c: tile<ptr<f32>>, %n: tile<i32>) {
    %zero = constant <f32: 0.0> : tile<256xf32>
    %x = addf %zero, %zero : tile<256xf32>
    return
  }
}
