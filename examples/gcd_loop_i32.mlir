// out[i] = gcd(a[i], b[i]) (non-negative), one element per tile block: Euclid's
// algorithm as a while loop (`loop` that breaks once the divisor reaches 0).
cuda_tile.module @gcd {
  entry @gcd_i32(%a: tile<ptr<i32>>, %b: tile<ptr<i32>>, %out: tile<ptr<i32>>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %pa = offset %a, %bx : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %pb = offset %b, %bx : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %po = offset %out, %bx : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %x0, %t0 = load_ptr_tko weak %pa : tile<ptr<i32>> -> tile<i32>, token
    %y0, %t1 = load_ptr_tko weak %pb : tile<ptr<i32>> -> tile<i32>, token
    %zero = constant <i32: 0> : tile<i32>
    %g = loop iter_values(%x = %x0, %y = %y0) : tile<i32>, tile<i32> -> tile<i32> {
      %done = cmpi equal %y, %zero, signed : tile<i32> -> tile<i1>
      if %done {
        break %x : tile<i32>
      }
      %r = remi %x, %y signed : tile<i32>
      continue %y, %r : tile<i32>, tile<i32>
    }
    %ag = absi %g : tile<i32>
    %t2 = store_ptr_tko weak %po, %ag : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}
