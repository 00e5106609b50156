"""Loads and stores through a partition view whose dim_map is not the identity
(cuTile's `order=`): tile dimension i runs along tensor dimension dim_map[i].

Such an access is the access of the identity view whose tile is permuted to
the tensor's order, and a permute between that tile and the program's:
- load: `permute(load(view', index'), dim_map)`;
- store: `store(permute(tile, inverse(dim_map)), view', index')`;
where view' tiles the same tensor view with tile'[dim_map[i]] = tile[i] and
index'[dim_map[i]] = index[i]. The accesses then read and write memory in its
own order (vector accesses, TMA boxes), and the permute is a layout the
consumer resolves (a transposed wgmma operand reads the slot as it is).

A reshape that only drops or inserts unit dimensions of a permute's result
moves before the permute (`SinkUnitReshape`), so that a 3-D load with a
leading 1 meets its consumer as a 2-D permute, as a 2-D load would."""
from __future__ import annotations

from ..dialects.cuda_tile.ops.core import PermuteOp, ReshapeOp
from ..dialects.cuda_tile.types import PartitionViewType
from ..ir import attributes as A
from ..ir.types import IntegerType
from ..rewrite.pattern import RewritePattern


def _permuted(dim_map) -> bool:
    return tuple(dim_map) != tuple(range(len(dim_map)))


def _perm_attr(perm):
    return A.DenseArrayAttr(IntegerType(32), tuple(int(p) for p in perm))


def identity_view(rw, view):
    """The identity-dim_map partition view of `view`'s tensor view with its tile
    in tensor order, made next to `view`'s make_partition_view; None when `view`
    is not such a view."""
    mk = getattr(view, "op", None)
    vt = view.type
    if mk is None or mk.name != "cuda_tile.make_partition_view" or not isinstance(vt, PartitionViewType):
        return None
    m = tuple(vt.dim_map)
    nt = PartitionViewType(tuple(_tensor_order(m, vt.tile_shape)), vt.tensor_view, tuple(range(len(m))),
                           vt.padding_value)
    with rw.insertion_point():
        rw.set_insertion_point_after(mk)
        new = rw.create(type(mk), location=mk.location, tensor_view=mk.operands[0], result=nt)
    for k, attr in mk.attributes.items():
        new.attributes.setdefault(k, attr)
    return new.result


def _tensor_order(m, items):
    """`items` (one per tile dimension) rearranged to the tensor's order."""
    out = [None] * len(m)
    for i, d in enumerate(m):
        out[d] = items[i]
    return out


def _tile_type(t, shape):
    return type(t)(tuple(shape), t.element_type)


def _through_identity(op, rw):
    """(dim_map, the identity view) for a load/store `op` through a permuted
    partition view that make_partition_view made; None otherwise."""
    vt = op.view.type
    if not isinstance(vt, PartitionViewType) or not _permuted(vt.dim_map):
        return None
    view = identity_view(rw, op.view)
    return None if view is None else (tuple(vt.dim_map), view)


def _same_attrs(new, op):
    for k, attr in op.attributes.items():
        new.attributes.setdefault(k, attr)
    return new


def rewrite_load(op, rw) -> bool:
    got = _through_identity(op, rw)
    if got is None:
        return False
    m, view = got
    t = op.tile.type
    new = _same_attrs(rw.create(type(op), location=op.location, view=view, index=_tensor_order(m, list(op.index)),
                                token=op.token, tile=_tile_type(t, _tensor_order(m, t.shape)),
                                result_token=op.results[1].type), op)
    perm = rw.create(PermuteOp, location=op.location, source=new.results[0], permutation=_perm_attr(m), result=t)
    rw.replace_op(op, [perm.result, new.results[1]])
    return True


def rewrite_store(op, rw) -> bool:
    got = _through_identity(op, rw)
    if got is None:
        return False
    m, view = got
    t = op.tile.type
    perm = rw.create(PermuteOp, location=op.location, source=op.tile,
                     permutation=_perm_attr(_tensor_order(m, range(len(m)))),
                     result=_tile_type(t, _tensor_order(m, t.shape)))
    new = _same_attrs(rw.create(type(op), location=op.location, tile=perm.result, view=view,
                                index=_tensor_order(m, list(op.index)), token=op.token,
                                result_token=op.results[0].type), op)
    rw.replace_op(op, [new.results[0]])
    return True


class SinkUnitReshape(RewritePattern):
    """reshape(permute(x, p)) -> [reshape](permute(reshape(x), p')) (or the
    nv_tileas.shuffle PermuteToShuffle made of the permute) when the
    reshape only drops or inserts unit dimensions: x loses its unit dimensions
    first, p' orders the rest as p did."""
    root = "cuda_tile.reshape"

    def match_and_rewrite(self, op, rw) -> bool:
        src = op.operands[0]
        d = getattr(src, "op", None)
        if d is None or d.name not in ("cuda_tile.permute", "nv_tileas.shuffle") or len(src.uses) != 1:
            return False
        x = d.operands[0]
        p = list(d.permutation.values)
        xs, ys, rs = tuple(x.type.shape), tuple(src.type.shape), tuple(op.results[0].type.shape)
        keep = [i for i in range(len(ys)) if ys[i] != 1]
        if [ys[i] for i in keep] != [n for n in rs if n != 1] or len(xs) == len(keep):
            return False          # not unit dimensions only; or x has none to lose
        kept = sorted(p[i] for i in keep)
        x2 = rw.create(ReshapeOp, location=op.location, source=x,
                       result=_tile_type(x.type, [xs[k] for k in kept])).result
        p2 = [kept.index(p[i]) for i in keep]
        out = x2
        if p2 != sorted(p2):
            out = rw.create(type(d), location=d.location, source=x2, permutation=_perm_attr(p2),
                            result=_tile_type(x.type, [ys[i] for i in keep])).result
        if tuple(out.type.shape) != rs:
            out = rw.create(ReshapeOp, location=op.location, source=out, result=op.results[0].type).result
        rw.replace_op(op, [out])
        return True
