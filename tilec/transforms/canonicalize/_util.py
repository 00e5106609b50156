"""Helpers shared by canonicalization patterns: constant lookup, mixed
static/dynamic slice lists, the safe-rewrite chain walk, region moves."""
from __future__ import annotations

from ...ir import registry
from ...ir.attributes import DenseArrayAttr, IntegerAttr
from ...ir.core import Region
from ...ir.traits import ConstantLike, Pure
from ...ir.types import IndexType, IntegerType
from ...rewrite.effects import is_memory_consistency_op

DYNAMIC = -(2 ** 63)   # MLIR's ShapedType::kDynamic, as nv_tileas stores it
SLICE_LISTS = ("offsets", "sizes", "strides")


def op_cls(name):
    registry.load_all()
    return registry.OPS[name]


def const_int(v):
    """The integer a value is, when an arith/cuda_tile constant defines it."""
    if isinstance(v, int):
        return v
    op = getattr(v, "op", None)
    if op is None or not op.has_trait(ConstantLike):
        return None
    a = op.attributes.get("value")
    if isinstance(a, IntegerAttr):
        return a.value
    return None


def index_constant(rewriter, value: int, type_=None):
    cls = op_cls("arith.constant")
    t = type_ or IndexType()
    return rewriter.create(cls, value=IntegerAttr(value, t), result=t).result


def mixed(op, kind):
    static = op.attributes[f"static_{kind}"].values
    dyn = iter(getattr(op, kind))
    return [next(dyn) if s == DYNAMIC else s for s in static]


def same_entry(a, b) -> bool:
    """Equal as SSA values, or as constants after fold-aware comparison."""
    if a is b:
        return True
    ca, cb = const_int(a), const_int(b)
    return ca is not None and ca == cb


def same_lists(x, y) -> bool:
    return len(x) == len(y) and all(same_entry(a, b) for a, b in zip(x, y))


def slice_fields(lists):
    """create() fields for offsets/sizes/strides given mixed lists."""
    fields = {}
    for kind, lst in zip(SLICE_LISTS, lists):
        fields[kind] = [v for v in lst if not isinstance(v, int)]
        fields[f"static_{kind}"] = DenseArrayAttr(IntegerType(64), tuple(v if isinstance(v, int) else DYNAMIC
                                                                       for v in lst))
    return fields


def is_tile_structure(op) -> bool:
    """The pure tile-shaping ops match chains may include (plus constants)."""
    return op.name in ("nv_tileas.alloc_tensor", "nv_tileas.insert_slice", "nv_tileas.extract_slice",
                       "nv_tileas.view") or op.has_trait(ConstantLike)


def chain_to_sink(value, sinks, stop_block=None):
    """Walk the destination lineage of `value` (insert_slice -> dest) until a
    sink: a value in `sinks` or an alloc_tensor. Returns (chain ops, sink) or
    None. Aborts at the first memory-consistency op, at any op that is neither
    pure tile structure nor a constant, and at a block boundary."""
    chain = []
    v = value
    while True:
        if v in sinks:
            return chain, v
        op = getattr(v, "op", None)
        if op is None:
            return None                      # block boundary
        if is_memory_consistency_op(op) or not op.has_trait(Pure) or not is_tile_structure(op):
            return None
        if stop_block is not None and op.parent is not stop_block:
            return None
        if op.name == "nv_tileas.alloc_tensor":
            return chain + [op], op.result
        if op.name != "nv_tileas.insert_slice":
            return None
        chain.append(op)
        v = op.dest


def defined_outside(v, op) -> bool:
    """`v` is visible at `op` without being defined inside it."""
    d = getattr(v, "op", None)
    owner = d if d is not None else v.block.parent_op
    while owner is not None:
        if owner is op:
            return False
        owner = owner.parent_op
    return True


def move_regions(src_op, dst_op):
    for rs, rd in zip(src_op.regions, dst_op.regions):
        blocks = list(rs.blocks)
        rs.blocks = []
        for b in blocks:
            rd.add_block(b)


def new_region_like():
    return Region()
