"""chunk-dots: a dot whose loaded operand is too large for shared memory is cut
along K into a sequence of smaller dots.

TileGym's naive-absorb MLA decode loads a 128 x 512 f16 key tile (128 KB) and
a value tile of the same size in every iteration, for two dots. A target with
99 KB of shared memory (sm_86, sm_89, sm_120a) cannot stage either. The
product is a sum over K, so

    dot(A, B, C) = dot(A[:, n-1], B[n-1, :], ... dot(A[:, 0], B[0, :], C))

with A[:, c] the c-th of n column blocks. An operand that is loaded in the
dot's block (through reshapes of unit dimensions and transposes, each used
once) is loaded a block at a time: the same tensor view partitioned with a
tile n times smaller along that dimension, at index `i * n + c`. Any other
operand is cut by `extract`, placed where the operand is defined (a loop's
invariant Q is cut once, before the loop). The blocks are loaded and consumed
in turn, so one block's buffer serves the next (codegen's operand-buffer
pool); the block size is the largest power of two dividing K that keeps each
loaded block within `limit` bytes and K at least one MMA step.

Partitioning is exact: a block of a tile is the tile of the finer view, with
the same padding for elements outside the tensor. Only the order of the K
summation changes, which the dot's semantics leave to the implementation.
The compiler applies this as the last resort of its shared-memory fallbacks
(compiler.compile_ops); `tilec opt --chunk-dots` shows it."""
from __future__ import annotations

from ..dialects.cuda_tile.types import PartitionViewType, TileType
from ..dialects.nv_tileas.types import element_width, num_elements
from ..ir.types import IntegerType
from ..passes.base import Pass
from .view_tiles import constant, finer_view, insert, unit_reshape_axis

DOTS = ("cuda_tile.mmaf", "cuda_tile.mmai")
CHUNK_BYTES = 16384      # a 128 x 64 f16 block: what a 99 KB target stages beside a few more
MIN_K_BYTES = 32         # one MMA K step: 16 halves, 32 bytes, 8 tf32
SCALAR_I32 = TileType((), IntegerType(32))


def _bytes(t) -> int:
    return num_elements(t.shape) * (((element_width(t.element_type) or 32) + 7) // 8)


def _load_chain(value, dim, block):
    """(load, tile dimension, chain) when `value` is a load_view_tko of `block`
    through reshapes of unit dimensions and permutes, each used once, with
    `dim` of `value` along that tile dimension; chain lists the ops from the
    load's result to `value`. None otherwise."""
    chain = []
    while True:
        op = getattr(value, "op", None)
        if op is None or len(value.uses) != 1:
            return None
        if op.name == "cuda_tile.permute":
            dim = list(op.attributes["permutation"].values)[dim]
        elif op.name == "cuda_tile.reshape":
            dim = unit_reshape_axis(tuple(value.type.shape), tuple(op.operands[0].type.shape), dim)
            if dim is None:
                return None
        elif op.name == "cuda_tile.load_view_tko":
            view = op.operands[0]
            if op.parent is not block or op.results[1].uses or not isinstance(view.type, PartitionViewType) \
                    or getattr(view, "op", None) is None or view.op.name != "cuda_tile.make_partition_view":
                return None
            return op, dim, chain[::-1]
        else:
            return None
        chain.append(op)
        value = op.operands[0]


class _Builder:
    """The ops chunk_dot adds, placed before an anchor; finer views made once each."""

    def __init__(self):
        self.views = {}

    @staticmethod
    def before(anchor, name, **fields):
        return insert(name, anchor, **fields)

    @staticmethod
    def const(anchor, value):
        return constant(anchor, SCALAR_I32, value)

    def finer_view(self, view, dim, n):
        key = (view, dim, n)
        if key not in self.views:
            self.views[key] = finer_view(view, dim, n)
        return self.views[key]

    def loaded_block(self, at, load, dim, chain, n, c):
        """Block c of n of the chain's value: the finer view's tile at index
        `i * n + c` along `dim`, through the chain's ops with that dimension cut."""
        view = self.finer_view(load.operands[0], dim, n)
        index = list(load.operands[1:1 + len(load.operands[0].type.tile_shape)])
        scaled = self.before(at, "cuda_tile.muli", lhs=index[dim], rhs=self.const(at, n), result=index[dim].type)
        index[dim] = self.before(at, "cuda_tile.addi", lhs=scaled.result, rhs=self.const(at, c),
                                 result=index[dim].type).result
        token = load.operands[1 + len(index):]
        new = self.before(at, load.name, view=view, index=index, token=token[0] if token else None,
                          tile=_cut(load.results[0].type, dim, n), result_token=load.results[1].type)
        for k, attr in load.attributes.items():
            new.attributes.setdefault(k, attr)
        value, d = new.results[0], dim
        for op in chain:
            if op.name == "cuda_tile.permute":
                perm = list(op.attributes["permutation"].values)
                d = perm.index(d)
                value = self.before(at, op.name, source=value, permutation=op.attributes["permutation"],
                                    result=_cut(op.results[0].type, d, n)).result
            else:
                d = unit_reshape_axis(tuple(op.operands[0].type.shape), tuple(op.results[0].type.shape), d)
                value = self.before(at, op.name, source=value, result=_cut(op.results[0].type, d, n)).result
        return value

    def extracted_blocks(self, value, dim, n):
        """The n blocks of `value` along `dim` by `extract`, made where `value` is
        defined (once for a loop's invariant operand)."""
        op = getattr(value, "op", None)
        block = op.parent if op is not None else value.owner_block()
        ops = list(block.ops)
        at = ops[ops.index(op) + 1] if op is not None else ops[0]
        out = []
        rank = len(value.type.shape)
        for c in range(n):
            idx = [self.const(at, c if i == dim else 0) for i in range(rank)]
            out.append(self.before(at, "cuda_tile.extract", source=value, indices=idx,
                                   result=_cut(value.type, dim, n)).result)
        return out


def _cut(t, dim, n):
    shape = list(t.shape)
    shape[dim] //= n
    return TileType(tuple(shape), t.element_type)


def _blocks(dot, limit: int) -> int:
    """How many K blocks dot `dot` is cut into (1: left whole)."""
    a, b = dot.operands[0], dot.operands[1]
    if len(a.type.shape) != 2:
        return 1
    K = a.type.shape[1]
    loaded = [v.type for v, d in ((a, 1), (b, 0)) if _load_chain(v, d, dot.parent) is not None]
    if not loaded or max(map(_bytes, loaded)) <= limit:
        return 1
    step = max(1, MIN_K_BYTES * 8 // max(1, getattr(a.type.element_type, "width", 16)))
    n = 1
    while K % (2 * n) == 0 and K // (2 * n) >= step and max(map(_bytes, loaded)) // n > limit:
        n *= 2
    return n


def chunk_dot(dot, n: int, builder=None):
    """Cut `dot` into n dots along K (see the module doc)."""
    b = builder or _Builder()
    a_val, b_val, acc = dot.operands[:3]
    chains = [_load_chain(a_val, 1, dot.parent), _load_chain(b_val, 0, dot.parent)]
    blocks = [None if ch is not None else b.extracted_blocks(v, d, n)
              for ch, v, d in zip(chains, (a_val, b_val), (1, 0))]
    for c in range(n):
        ops = []
        for i, (ch, v) in enumerate(zip(chains, (a_val, b_val))):
            ops.append(b.loaded_block(dot, *ch, n, c) if ch is not None else blocks[i][c])
        new = b.before(dot, dot.name, lhs=ops[0], rhs=ops[1], acc=acc, result=dot.results[0].type)
        for k, attr in dot.attributes.items():
            new.attributes.setdefault(k, attr)
        acc = new.results[0]
    for use in list(dot.results[0].uses):
        use.set(acc)
    dead = [dot] + [op for ch in chains if ch is not None for op in ch[2][::-1] + [ch[0]]]
    for op in dead:
        op.erase()


def chunk_dots(target, limit: int = CHUNK_BYTES) -> int:
    """Cut every dot of `target` whose loaded operand exceeds `limit` bytes;
    the number of dots cut."""
    builder, count = _Builder(), 0
    for dot in [op for op in target.walk() if op.name in DOTS]:
        n = _blocks(dot, limit)
        if n > 1:
            chunk_dot(dot, n, builder)
            count += 1
    for view in builder.views:
        old = view[0].op
        if old is not None and not old.results[0].uses:
            old.erase()
    return count


class ChunkDots(Pass):
    """Option `bytes`: the most bytes a loaded operand block may take."""
    name = "chunk-dots"
    argument = "ChunkDotsPass"
    OPTIONS = {"bytes": (int, CHUNK_BYTES)}

    def run(self, target) -> bool:
        chunk_dots(target, self.options["bytes"])
        return True
