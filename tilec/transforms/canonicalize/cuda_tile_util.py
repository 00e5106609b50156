"""Small queries and builders shared by the cuda_tile canonicalizations and
transforms: constant booleans/integers, terminator kinds, region moves and
the select/not builders that respect the tile shapes."""
from __future__ import annotations

from ...ir.attributes import DenseElementsAttr
from ...ir.types import IntegerType
from ._util import op_cls

I1 = IntegerType(1)
EXITS = ("cuda_tile.return", "cuda_tile.continue", "cuda_tile.break")


def tile_type(shape, elt):
    from ...dialects.cuda_tile.types import TileType
    return TileType(tuple(shape), elt)


def is_tile(t) -> bool:
    from ...dialects.cuda_tile.types import TileType
    return isinstance(t, TileType)


def defining(v, name):
    op = getattr(v, "op", None)
    return op if op is not None and op.name == name else None


def dense_of(v):
    """The DenseElementsAttr of a value a cuda_tile.constant defines, or None."""
    op = defining(v, "cuda_tile.constant")
    if op is None:
        return None
    a = op.attributes.get("value")
    return a if isinstance(a, DenseElementsAttr) else None


def uniform_int(v):
    """The integer of a splat (or one-element) integer constant, else None."""
    a = dense_of(v)
    if a is None or not isinstance(a.element_type, IntegerType):
        return None
    if a.splat or len(a.values) == 1:
        return int(a.values[0])
    return None


def const_bool(v):
    """True/False for a uniform i1 constant, None otherwise."""
    a = dense_of(v)
    if a is None or a.element_type != I1:
        return None
    if a.splat or len(a.values) == 1:
        return bool(a.values[0])
    return None


def is_not_of(v):
    """`p` when v is `xori p, true` (the dialect's spelling of not), else None."""
    x = defining(v, "cuda_tile.xori")
    if x is not None and const_bool(x.rhs) is True:
        return x.lhs
    return None


def is_exit(term) -> bool:
    """A terminator after which nothing of the enclosing block runs."""
    return term is not None and term.name in EXITS


def is_yield(term) -> bool:
    return term is not None and term.name == "cuda_tile.yield"


def then_block(ifop):
    return ifop.regions[0].blocks[0]


def else_block(ifop):
    r = ifop.regions[1]
    return r.blocks[0] if r.blocks else None


def parent_region(v):
    op = getattr(v, "op", None)
    block = op.parent if op is not None else getattr(v, "block", None)
    return block.parent if block is not None else None


def take_block(block, region):
    """Move `block` (detached from its region) to the end of `region`."""
    old = block.parent
    if old is not None:
        old.blocks.remove(block)
    region.add_block(block)


def new_if(condition, result_types, location):
    return op_cls("cuda_tile.if").create(condition=condition, results=list(result_types), location=location)


def set_yield(rw, term, values):
    with rw.modify_in_place(term):
        term.set_operands(list(values))


def true_like(rw, cond, location):
    """A fresh `true` constant of cond's shape (the folder dedups it later)."""
    t = tile_type(cond.type.shape, I1)
    attr = DenseElementsAttr(t, (1,), True)
    return rw.create(op_cls("cuda_tile.constant"), value=attr, result=t, location=location).result


def make_not(rw, cond, location, true_value=None):
    if true_value is None:
        true_value = true_like(rw, cond, location)
    return rw.create(op_cls("cuda_tile.xori"), lhs=cond, rhs=true_value, result=cond.type,
                     location=location).result


def make_select(rw, cond, t, f, location):
    """select(cond, t, f) where cond is a 0-d i1 tile and t/f may be shaped:
    the condition is reshaped to rank 1s and broadcast to their shape."""
    shape = tuple(t.type.shape)
    if shape and tuple(cond.type.shape) != shape:
        ones = tile_type((1,) * len(shape), I1)
        r = rw.create(op_cls("cuda_tile.reshape"), source=cond, result=ones, location=location).result
        cond = rw.create(op_cls("cuda_tile.broadcast"), source=r, result=tile_type(shape, I1),
                         location=location).result
    return rw.create(op_cls("cuda_tile.select"), cond=cond, val_if_true=t, val_if_false=f, result=t.type,
                     location=location).result


def erase_from(rw, op):
    """Erase `op` and every op after it in its block (they are unreachable)."""
    block = op.parent
    doomed = []
    cur = op
    while cur is not None:
        doomed.append(cur)
        cur = cur.next_op
    for o in reversed(doomed):      # later ops first: their uses go before their operands' defs
        rw.erase_op(o)
    return block
