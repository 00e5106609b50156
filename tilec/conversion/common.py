"""Small helpers the conversion patterns share: index coordinates, constants
and memory-semantics translation."""
from __future__ import annotations

from ..dialects.arith import ops as arith
from ..dialects.nv_tileas.attributes import MemoryScopeAttr, MemorySemanticAttr
from ..dialects.nv_tileas.ops.casts import IndexCastOp
from ..ir import attributes as A
from ..ir.core import OpResult
from ..ir.types import IndexType

INDEX = IndexType()


def to_index(rw, value, location):
    """`value` (a 0-d integer tile) as an index, through arith.index_cast; a
    value that is itself a cast from index gives back that index."""
    if isinstance(value.type, IndexType):
        return value
    if isinstance(value, OpResult) and value.op.name == IndexCastOp.name and \
            isinstance(value.op.operands[0].type, IndexType):
        return value.op.operands[0]
    return rw.create(IndexCastOp, location=location, input=value, result=INDEX).result


def index_constant(rw, n: int, location):
    return rw.create(arith.ConstantOp, location=location, value=A.IntegerAttr(n, INDEX), result=INDEX).result


_SCOPES = {"tl_blk": "tl_blk", "device": "gpu", "sys": "sys"}
_SEMANTICS = {"weak": None, "relaxed": "relaxed", "acquire": "acquire", "release": "release",
              "acq_rel": "acquire_release"}


_SEMANTIC_ORDER = ("weak", "relaxed", "acquire", "release", "acq_rel")
_SCOPE_ORDER = ("tl_blk", "device", "sys")


def _enum_word(attr, order, default):
    """cuda_tile stores these enums as i32 attributes (or enum attrs): the word."""
    v = getattr(attr, "value", None)
    if isinstance(v, int) and not isinstance(v, bool):
        return order[v] if 0 <= v < len(order) else default
    return v if isinstance(v, str) else default


def semantic_word(op) -> str:
    return _enum_word(op.attributes.get("memory_ordering_semantics"), _SEMANTIC_ORDER, "weak")


def memory_attrs(op) -> dict:
    """nv_tileas mem_semantic / mem_scope for a cuda_tile memory op (weak: none),
    and UNORDERED where no token orders the op against any other."""
    sem = _SEMANTICS.get(semantic_word(op))
    out = {}
    if sem is not None:
        out["mem_semantic"] = MemorySemanticAttr(sem)
        scope = _enum_word(op.attributes.get("memory_scope"), _SCOPE_ORDER, "device")
        out["mem_scope"] = MemoryScopeAttr(_SCOPES.get(scope, "gpu"))
    elif unordered(op):
        out[UNORDERED] = A.UnitAttr()
    return out


# Tokens do not travel into nv_tileas (forward_token): program order stands in for them. A
# weak memory op whose token is fresh (none, or make_token's) and whose result token nothing
# uses is connected by tokens to no other op, and the spec leaves the order of two memory ops
# undefined unless tokens connect them: the schedule may move loads of later iterations past
# such an op (schedule/analysis.py). The attribute keeps that fact after the tokens are gone.
UNORDERED = "nv_tileas.unordered"


def unordered(op) -> bool:
    token = getattr(op, "token", None)
    d = getattr(token, "op", None)
    if token is not None and (d is None or d.name != "cuda_tile.make_token"):
        return False
    from ..dialects.cuda_tile.types import TokenType
    return all(not r.uses for r in op.results if isinstance(r.type, TokenType))


def forward_token(rw, op, result_token, token_in):
    """Tokens do not travel into nv_tileas tiled memops: program order carries
    the ordering, so users of the old result token take the incoming token
    (or a fresh one when the op had none)."""
    if not result_token.uses:
        return
    if token_in is None:
        from ..dialects.cuda_tile.ops.core import MakeTokenOp
        token_in = rw.create(MakeTokenOp, location=op.location, result=result_token.type).result
    rw.replace_all_uses_with(result_token, token_in)
