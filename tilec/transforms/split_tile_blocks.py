"""split-tile-blocks: run each tile block of an entry that asks for a CGA
(`num_cta_in_cga = C`) on a cluster of C CTAs, each computing 1/C of the
block's tiles along one axis of its largest dot.

A 256x256 f32 accumulator is the whole register file of an SM; TileGym's
Hopper matmul configurations ask for it with `num_cta_in_cga = 2 or 4`, and
tileiras runs each such tile block on a cluster. Here the entry is rewritten
so that every CTA is a tile block of its own with C-times smaller tiles:

    x' = the CTA's block id (the grid now counts CTAs: C per tile block)
    x  = x' / C          (what get_tile_block_id meant: the cluster's index)
    r  = x' % C          (the CTA's rank in its cluster)

and every tile connected to the dot by data flow is cut along the chosen
axis: a load or store through a partition view reads tile `i*C + r` of a
view whose tile is C times smaller there, an iota starts at `r * n/C`, a
splat constant shrinks; operations elementwise along the axis, broadcasts,
reshapes of unit dimensions, permutes, reductions over other axes, loops and
ifs carry the cut through. Scalars (indices, loop bounds) stay as they are:
every CTA of a cluster computes them alike. The entry gets
`nv_tileas.blocks_are_clusters = C`, from which the PTX has
`.reqnctapercluster C, 1, 1` and `.blocksareclusters`: a launch's grid then
still counts tile blocks, as cuTile's launcher passes it, and the driver
runs C CTAs for each.

The hint is advice: an entry this rule cannot cut (a reduction over the cut
axis, a non-splat constant, an atomic, a print, a store of a tile that is
not cut, a cut tile below 64 rows or columns of the dot) keeps one CTA per
tile block, unchanged. No CTA reads another's shared memory; multicast of
the operand the cluster shares is left for later."""
from __future__ import annotations

from ..conversion.target import target_for
from ..dialects.cuda_tile.attributes import RoundingModeAttr, SignednessAttr
from ..dialects.cuda_tile.types import TileType
from ..dialects.nv_tileas.attributes import BLOCKS_ARE_CLUSTERS as ATTR
from ..dialects.nv_tileas.types import num_elements
from ..ir.attributes import DenseElementsAttr, IntegerAttr
from ..ir.core import BlockArgument
from ..ir.types import IntegerType
from ..passes.base import Pass
from .view_tiles import constant, finer_view, insert, unit_reshape_axis

ENTRY = "cuda_tile.entry"
I32 = IntegerType(32)
SCALAR_I32 = TileType((), I32)
UNSIGNED = SignednessAttr("unsigned")
# the most CTAs a cluster may portably hold on Hopper
MAX_CLUSTER = 8
# a cut dot keeps at least this many rows and columns (wgmma's M; the N of a useful tile)
MIN_DOT_EXTENT = 64
# accumulator registers per consumer thread that fit beside the operands (see compiler.default_num_warps)
ACC_REGS = 128

DOTS = ("cuda_tile.mmaf", "cuda_tile.mmai")
ELEMENTWISE = frozenset("cuda_tile." + n for n in (
    "absf absi addf addi andi assume atan2 bitcast ceil cmpf cmpi cos cosh divf divi exp exp2 exti floor fma "
    "fpowi ftof ftoi int_to_ptr itof log log2 maxf maxi minf mini mulf mulhii muli negf negi offset ori pow "
    "ptr_to_int ptr_to_ptr remf remi rsqrt select shli shri sin sinh sqrt subf subi tan tanh trunci xori "
    "load_ptr_tko store_ptr_tko").split())
VIEW_MEMORY = ("cuda_tile.load_view_tko", "cuda_tile.store_view_tko")
TERMINATORS = ("cuda_tile.yield", "cuda_tile.continue", "cuda_tile.break")
# a cluster's C CTAs would each do these once: not cut
REFUSED = ("atomic", "print", "multimem", "alloca", "gdc_")


class _Refused(Exception):
    pass


def _shape(v):
    return tuple(getattr(v.type, "shape", ()) or ())


def _tiles(values):
    return [v for v in values if _shape(v)]


class _Cut:
    """Which axis of each value the cut runs along (`axis`); values absent
    from it are the same in every CTA of a cluster."""

    def __init__(self, ctas):
        self.ctas = ctas
        self.axis: dict = {}
        self.work: list = []

    def put(self, v, a):
        if a is None:
            return
        s = _shape(v)
        if not 0 <= a < len(s) or s[a] % self.ctas or s[a] < self.ctas:
            raise _Refused(f"a {s} tile cannot be cut {self.ctas} ways along axis {a}")
        old = self.axis.get(v)
        if old is None:
            self.axis[v] = a
            self.work.append(v)
        elif old != a:
            raise _Refused("a tile would be cut along two axes")

    def run(self):
        while self.work:
            v = self.work.pop()
            a = self.axis[v]
            d = getattr(v, "op", None)
            if d is not None:
                self.through(d, v, a)
            elif isinstance(v, BlockArgument):
                self.through_block_arg(v, a)
            for use in list(v.uses):
                self.through(use.owner, v, a)

    # -- one op, given that value `v` (an operand or result) is cut along `a`
    def through(self, op, v, a):
        n = op.name
        if n in ELEMENTWISE:
            for u in _tiles(list(op.operands) + list(op.results)):
                if _shape(u) != _shape(v):
                    raise _Refused(f"'{n}' mixes tile shapes")
                self.put(u, a)
        elif n in DOTS:
            self.dot(op, v, a)
        elif n == "cuda_tile.broadcast":
            src, res = op.operands[0], op.results[0]
            if v is res:
                if _shape(src)[a] != 1:
                    self.put(src, a)
            else:
                self.put(res, a)
        elif n == "cuda_tile.reshape":
            src, res = op.operands[0], op.results[0]
            if v is res:
                self.put(src, _map_unit_dims(_shape(res), _shape(src), a))
            else:
                self.put(res, _map_unit_dims(_shape(src), _shape(res), a))
        elif n == "cuda_tile.permute":
            perm = list(op.attributes["permutation"].values)
            self.put(op.results[0] if v is op.operands[0] else op.operands[0],
                     perm.index(a) if v is op.operands[0] else perm[a])
        elif n in ("cuda_tile.reduce", "cuda_tile.scan"):
            k = op.attributes["dim"].value
            ins, outs = _tiles(op.operands), _tiles(op.results)
            if n == "cuda_tile.scan":
                a_in = a
            else:
                a_in = a if any(v is x for x in ins) else a + (a >= k)
            if a_in == k:
                raise _Refused(f"'{n}' runs along the cut axis")
            for u in ins:
                self.put(u, a_in)
            for u in outs:
                self.put(u, a_in if n == "cuda_tile.scan" else a_in - (a_in > k))
        elif n == "cuda_tile.constant":
            if not op.attributes["value"].splat:
                raise _Refused("a constant that is not a splat")
        elif n == "cuda_tile.iota":
            pass
        elif n in VIEW_MEMORY:
            view = op.operands[_view_at(op)]
            vt = view.type
            if getattr(view, "op", None) is None or view.op.name != "cuda_tile.make_partition_view" \
                    or tuple(vt.dim_map) != tuple(range(len(vt.dim_map))) or tuple(vt.tile_shape) != _shape(v):
                raise _Refused(f"'{n}' through a view the cut cannot shrink")
            if op.operands[_view_at(op) + 1].type != SCALAR_I32:
                raise _Refused(f"'{n}' indexed by other than i32")      # i * C + rank is i32
        elif n == "cuda_tile.for":
            i = _index_of(op.operands, v)
            if i is not None:
                if i < 3:
                    raise _Refused("a loop bound is a tile")
                self.loop_value(op, i - 3, a)
            else:
                self.loop_value(op, _index_of(op.results, v), a)
        elif n == "cuda_tile.if":
            self.if_value(op, _index_of(op.results, v), a)
        elif n in TERMINATORS:
            i = _index_of(op.operands, v)
            parent = op.parent.parent_op if n == "cuda_tile.yield" else _enclosing_loop(op)
            if n == "cuda_tile.yield" and parent is not None and parent.name == "cuda_tile.if":
                self.if_value(parent, i, a)
            elif n != "cuda_tile.yield" and parent is not None and parent.name == "cuda_tile.for":
                self.loop_value(parent, i, a)
            else:
                raise _Refused(f"'{n}' of '{getattr(parent, 'name', None)}'")
        else:
            raise _Refused(f"'{n}' on a cut tile")

    def through_block_arg(self, v, a):
        parent = v.owner_block().parent_op
        if parent is None or parent.name != "cuda_tile.for" or v.index == 0:
            raise _Refused("a cut block argument")
        self.loop_value(parent, v.index - 1, a)

    def loop_value(self, loop, i, a):
        body = loop.regions[0].blocks[0]
        self.put(loop.operands[3 + i], a)
        self.put(body.arguments[1 + i], a)
        self.put(loop.results[i], a)
        for op in loop.walk():
            if op.name in ("cuda_tile.continue", "cuda_tile.break") and _enclosing_loop(op) is loop \
                    and op.operands:
                self.put(op.operands[i], a)

    def if_value(self, ifop, i, a):
        self.put(ifop.results[i], a)
        for region in ifop.regions:
            for block in region.blocks:
                t = block.terminator
                if t is not None and t.name == "cuda_tile.yield":
                    self.put(t.operands[i], a)

    def dot(self, op, v, a):
        lhs, rhs, acc = op.operands[:3]
        r = len(_shape(op.results[0]))
        if (v is lhs and a == r - 1) or (v is rhs and a == r - 2):
            raise _Refused("a dot's K is the cut axis")
        if a == r - 2:
            self.put(lhs, a)
        elif a == r - 1:
            self.put(rhs, a)
        else:
            self.put(lhs, a)
            self.put(rhs, a)
        self.put(acc, a)
        self.put(op.results[0], a)


def _view_at(op):
    """The view's operand index: a load's first, a store's second (after the tile)."""
    return 0 if op.name == "cuda_tile.load_view_tko" else 1


def _index_of(values, v):
    for i, x in enumerate(values):
        if x is v:
            return i
    return None


def _enclosing_loop(op):
    p = op.parent_op
    while p is not None and p.name not in ("cuda_tile.for", "cuda_tile.loop"):
        p = p.parent_op
    return p


def _map_unit_dims(src, dst, a):
    """The axis of `dst` that axis `a` of `src` becomes under a reshape that
    only adds or drops unit dimensions; else refused."""
    if src[a] == 1:
        raise _Refused("a cut unit dimension")
    got = unit_reshape_axis(src, dst, a)
    if got is None:
        raise _Refused("a reshape that merges or splits the cut axis")
    return got


def choose_axis(dot, ctas):
    """The axis of `dot`'s result to cut (M or N), or None: each CTA keeps at
    least MIN_DOT_EXTENT rows and columns; a cut whose accumulator fits
    ACC_REGS registers per consumer thread (one warpgroup per 64 rows, at
    most two) comes first, then the squarer tile, then M."""
    shape = _shape(dot.results[0])
    r = len(shape)
    if r < 2:
        return None
    m, n = shape[-2], shape[-1]
    best = None
    for axis, (mm, nn) in ((r - 2, (m // ctas, n)), (r - 1, (m, n // ctas))):
        if shape[axis] % ctas or mm < MIN_DOT_EXTENT or nn < MIN_DOT_EXTENT:
            continue
        regs = mm * nn // (128 * min(max(mm // 64, 1), 2))
        key = (regs > ACC_REGS, -min(mm, nn), axis != r - 2)
        if best is None or key < best[0]:
            best = (key, axis)
    return None if best is None else best[1]


def plan(entry, ctas):
    """The cut of `entry` over `ctas` CTAs ({value: axis}), or a reason (str)
    why it keeps one CTA per tile block."""
    dots = [op for op in entry.walk() if op.name in DOTS]
    if not dots:
        return "it has no dot"
    for op in entry.walk():
        if any(word in op.name for word in REFUSED):
            return f"'{op.name}' would run once per CTA"
    anchor = max(dots, key=lambda d: num_elements(_shape(d.results[0])))
    axis = choose_axis(anchor, ctas)
    if axis is None:
        return f"its {'x'.join(map(str, _shape(anchor.results[0])))} dot is too small to cut {ctas} ways"
    cut = _Cut(ctas)
    try:
        cut.put(anchor.results[0], axis)
        cut.run()
        for op in entry.walk():
            if op.name in ("cuda_tile.store_view_tko", "cuda_tile.store_ptr_tko"):
                tiles = _tiles(op.operands)
                if tiles and not any(u in cut.axis for u in tiles):
                    raise _Refused(f"'{op.name}' stores a tile that is not cut")
    except _Refused as e:
        return str(e)
    return cut.axis


class _Rewriter:
    def __init__(self, entry, ctas, axes):
        self.entry, self.ctas, self.axes = entry, ctas, axes
        self.views: dict = {}
        self.indices: dict = {}

    create = staticmethod(insert)
    const = staticmethod(constant)

    def run(self):
        body = self.entry.regions[0].blocks[0]
        first = next(iter(body.ops))
        ids = self.create("cuda_tile.get_tile_block_id", first, blockId_x=SCALAR_I32, blockId_y=SCALAR_I32,
                          blockId_z=SCALAR_I32)
        self.c = self.const(first, SCALAR_I32, self.ctas)        # C, at the top: it dominates every use
        self.rank = self.create("cuda_tile.remi", first, lhs=ids.results[0], rhs=self.c,
                                signedness=UNSIGNED, result=SCALAR_I32).result
        # the tile block's own ids: the cluster's
        for op in list(self.entry.walk()):
            if op.name in ("cuda_tile.get_tile_block_id", "cuda_tile.get_num_tile_blocks") and op is not ids:
                x = op.results[0]
                q = self.create("cuda_tile.divi", op, before=False, lhs=x, rhs=self.c,
                                signedness=UNSIGNED, rounding=RoundingModeAttr("zero"),
                                result=SCALAR_I32)
                for use in list(x.uses):
                    if use.owner is not q:
                        use.set(q.result)
        for v, a in self.axes.items():
            s = list(_shape(v))
            s[a] //= self.ctas
            v.type = TileType(tuple(s), v.type.element_type)
        for op in list(self.entry.walk()):
            if op.name == "cuda_tile.constant" and op.results[0] in self.axes:
                old = op.attributes["value"]
                op.attributes["value"] = DenseElementsAttr(op.results[0].type, old.values, True)
            elif op.name == "cuda_tile.iota" and op.results[0] in self.axes:
                self.iota(op)
            elif op.name in VIEW_MEMORY:
                data = op.results[0] if op.name == "cuda_tile.load_view_tko" else op.operands[0]
                if data in self.axes:
                    self.view_access(op, self.axes[data])
        self.entry.attributes[ATTR] = IntegerAttr(self.ctas, I32)

    def iota(self, op):
        res = op.results[0]
        n = _shape(res)[0]
        et = res.type.element_type
        start = self.create("cuda_tile.muli", op, before=False, lhs=self.rank,
                            rhs=self.const(op, SCALAR_I32, n), result=SCALAR_I32)
        # rank * n in the iota's element type, as a (n,) tile
        s = start.result
        at = start
        if et.width != 32:
            name = "cuda_tile.exti" if et.width > 32 else "cuda_tile.trunci"
            fields = {"signedness": UNSIGNED} if name == "cuda_tile.exti" else {}
            at = self.create(name, at, before=False, from_=s, to=TileType((), et), **fields)
            s = at.result
        one = self.create("cuda_tile.reshape", at, before=False, source=s, result=TileType((1,), et))
        wide = self.create("cuda_tile.broadcast", one, before=False, source=one.result, result=TileType((n,), et))
        add = self.create("cuda_tile.addi", wide, before=False, lhs=res, rhs=wide.result, result=res.type)
        for use in list(res.uses):
            if use.owner is not add:
                use.set(add.result)

    def view_access(self, op, a):
        at = _view_at(op)
        view = op.operands[at]
        key = (view, a)
        if key not in self.views:
            self.views[key] = finer_view(view, a, self.ctas)
        old_view = view.op
        op.set_operand(at, self.views[key])
        if not old_view.results[0].uses:
            old_view.erase()
        op.set_operand(at + 1 + a, self.sub_index(op.operands[at + 1 + a]))

    def sub_index(self, idx):
        """`idx * C + rank`, next to where `idx` is defined (a loop's body does
        not recompute it), once per index."""
        if idx not in self.indices:
            d = getattr(idx, "op", None)
            if d is not None:
                anchor, before = d, False
            elif idx.owner_block() is self.entry.regions[0].blocks[0]:
                anchor, before = self.rank.op, False
            else:
                anchor, before = next(iter(idx.owner_block().ops)), True
            mul = self.create("cuda_tile.muli", anchor, before=before, lhs=idx, rhs=self.c, result=idx.type)
            add = self.create("cuda_tile.addi", mul, before=False, lhs=mul.result, rhs=self.rank,
                              result=idx.type)
            self.indices[idx] = add.result
        return self.indices[idx]


def split_entry(entry, ctas):
    """Cut `entry` over `ctas` CTAs per tile block; None when done, else the
    reason it was left as it is."""
    axes = plan(entry, ctas)
    if isinstance(axes, str):
        return axes
    _Rewriter(entry, ctas, axes).run()
    return None


def requested_ctas(entry, arch):
    from ..dialects.cuda_tile.hints import hint_value
    n = hint_value(entry, arch, "num_cta_in_cga")
    return n if n and n > 1 else None


def split_entries(target, arch: str, ctas: int = 0):
    """Cut every entry of `target` that asks for a CGA on `arch` (clusters
    share their loads by TMA multicast: a target with TMA), or that `ctas`
    names; [(entry, ctas, reason)] for those left as they were."""
    t = target_for(arch)
    if not (t is not None and t.has_tma) and not ctas:
        return []
    entries = [target] if target.name == ENTRY else [op for op in target.walk() if op.name == ENTRY]
    kept = []
    for entry in entries:
        n = ctas or requested_ctas(entry, arch)
        if not n or n == 1 or ATTR in entry.attributes:
            continue
        why = f"clusters of more than {MAX_CLUSTER} CTAs need the launch to allow them" if n > MAX_CLUSTER \
            else split_entry(entry, n)
        if why is not None:
            kept.append((entry, n, why))
    return kept


def warn_kept(engine, kept):
    """A warning per entry left with one CTA per tile block, as the occupancy
    hint's: the user asked for a cluster and should learn why there is none."""
    for entry, ctas, why in kept:
        engine.warning(entry.location, f"num_cta_in_cga = {ctas} not honoured: {why}; one CTA per tile block")


class SplitTileBlocks(Pass):
    """Option `arch`: the target whose hint counts (clusters need sm_90a);
    `ctas`: the CTAs per tile block, overriding the hint. An entry it cannot
    cut is a warning."""
    name = "split-tile-blocks"
    argument = "SplitTileBlocksPass"
    OPTIONS = {"arch": (str, "sm_90a"), "ctas": (int, 0)}

    def run(self, target) -> bool:
        from ..ir.diagnostics import current_engine
        warn_kept(current_engine(), split_entries(target, self.options["arch"], self.options["ctas"]))
        return True
