"""What may remain of cuda_tile after lowering, and the diagnostic for what
may not. The emitter consumes cuda_tile's scalar/elementwise ops, constants,
shape ops, pointer arithmetic, atomics, control flow and reduce/scan directly
(nv_tileas has no counterpart with tile-typed bodies; docs/decisions.md).
Everything in MUST_LOWER has an nv_tileas form; one left over means the
target cannot run it, and the diagnostic names the op and the target."""
from __future__ import annotations

MUST_LOWER = {
    "cuda_tile.load_view_tko": "loads through this view kind",
    "cuda_tile.store_view_tko": "stores through this view kind",
    "cuda_tile.atomic_red_view_tko": "atomic reductions through views",
    "cuda_tile.mmaf": "this MMA operand/accumulator type combination",
    "cuda_tile.mmai": "this integer MMA type combination",
    "cuda_tile.mmaf_scaled": "block-scaled MMA: rank 2 on sm_100a, sm_103a, sm_120a and sm_121a",
    "cuda_tile.permute": "this permutation",
}


def check_legal(root_ops, target, engine) -> bool:
    ok = True
    for top in root_ops:
        for op in top.walk():
            what = MUST_LOWER.get(op.name)
            if what is not None:
                engine.error(op.location, f"'{op.name}' op is not supported on {target.arch} ({what})")
                ok = False
    return ok
