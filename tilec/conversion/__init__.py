"""cuda_tile -> nv_tileas lowering: one module per op family (views, mma,
control, layout), the target table, the legality check and the pass."""
