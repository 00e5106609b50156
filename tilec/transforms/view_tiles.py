"""What the transforms that re-tile partition views share (split_tile_blocks
cuts a tile block over a cluster's CTAs, chunk_dots cuts a dot along K): ops
inserted next to an anchor, constants, and the partition view of the same
tensor view whose tile is n times smaller along one dimension."""
from __future__ import annotations

from ..dialects.cuda_tile.types import PartitionViewType
from ..ir.attributes import DenseElementsAttr
from .canonicalize._util import op_cls


def insert(name, anchor, before=True, **fields):
    """A new `name` op with `fields`, placed just before (or after) `anchor`."""
    op = op_cls(name).create(location=anchor.location, **fields)
    if before:
        anchor.parent.insert_before(op, anchor)
    else:
        anchor.parent.insert_after(op, anchor)
    return op


def constant(anchor, t, value, before=True):
    """A cuda_tile.constant of type `t` holding `value`, next to `anchor`."""
    return insert("cuda_tile.constant", anchor, before, value=DenseElementsAttr(t, (value,), True),
                  result=t).result


def finer_view(view, dim: int, n: int):
    """The partition view of `view`'s tensor view (same dim_map and padding)
    whose tile is n times smaller along tile dimension `dim`, made right after
    `view`'s make_partition_view with its attributes. Tile i of `view` is then
    tiles i * n .. i * n + n - 1 of it along `dim`."""
    vt = view.type
    tile = list(vt.tile_shape)
    tile[dim] //= n
    mk = view.op
    new = insert(mk.name, mk, before=False, tensor_view=mk.operands[0],
                 result=PartitionViewType(tuple(tile), vt.tensor_view, tuple(vt.dim_map), vt.padding_value))
    for k, attr in mk.attributes.items():
        new.attributes.setdefault(k, attr)
    return new.result


def unit_reshape_axis(src, dst, a: int):
    """The axis of shape `dst` that axis `a` of shape `src` becomes under a
    reshape that only adds or drops unit dimensions, or None (the reshape
    merges or splits dimensions, or axis `a` is a unit one)."""
    big_src = [i for i, d in enumerate(src) if d != 1]
    big_dst = [i for i, d in enumerate(dst) if d != 1]
    if [src[i] for i in big_src] != [dst[i] for i in big_dst] or a not in big_src:
        return None
    return big_dst[big_src.index(a)]
