"""Layout propagation: every tile value of a scheduled entry gets a layout, and
the IR says which (`nv_tileas.layouts`, one `#nv_tileas<layout ...>` per result).

Anchors are the layouts that assign_layouts (layouts.py) wrote: the
accumulators of tensor-core dots (mma, wgmma) and the operands moved into
shared memory. Loads, iota and non-uniform constants start in the group's
blocked layout; uniform constants are splats (one register, any layout for
free); pipeline slots and their reshapes and permutations are shared. From
there layouts flow forward through the ops that keep them:

- a reduce leaves its result in the slice of its operand's layout, and a reshape
  that inserts or drops unit dimensions relabels a slice or accumulator layout;
- a broadcast takes the layout of the operands its element-wise users combine
  it with when its source reaches it by register copies, else its source's
  parent, else blocked;
- an element-wise op runs in the first operand layout every operand reaches
  without moving data between threads, else the first slice layout;
- registers carried around a loop or out of an if take the layout of the dot
  accumulator they feed, else the layout the body writes into them (a slice
  or accumulator layout: a second sweep gives the carried value that layout,
  so the loop never converts it), else their initial value's; such a loose
  carried value does not choose the layout of the op that updates it.

Tiles in shared memory (pipeline slots) have no register layout: ld.shared
reads them into whichever layout their reader runs in.

Backward, an operand made only from iotas, uniform values and tiles in shared
memory (a causal mask, a slot's vector exponentiated) that does not reach its
element-wise user's layout is made again there, in that layout
(remat_layouts.py); one made from a register load through reshapes and
one-operand element-wise ops has the load load in the layout that gives it
(load_want; global memory reads into any layout alike); any other operand
that would move data gets an explicit nv_tileas.convert_layout before its
user, so the IR shows every data movement between layouts.

The emitter follows what is written: it makes each value in its IR layout, and
converts where an op produced another (Emitter.follow_layout). Values used
inside an agent_switch but defined outside it are handed to each agent in its
own blocked layout (or stay in shared memory); the IR names the layout at the
definition.

The rules depend only on shapes, thread groups and the anchors, so the pass is
deterministic; they are the ones the emitter used to apply on its own, now
stated before emission."""
from __future__ import annotations

from ..dialects.cuda_tile.types import TileType
from ..dialects.nv_tileas.layout_attr import CARRIED_LAYOUTS as WHILE_CARRIED, LAYOUTS as ATTR, LayoutAttr
from ..dialects.nv_tileas.layouts import (Blocked, SliceLayout, blocked, broadcast_axes, broadcast_candidates,
                                          mma_acc, same_distribution, tmem_acc)
from ..dialects.nv_tileas.ops.layout import ConvertLayoutOp
from ..dialects.nv_tileas.ops import pipeline as pipeline_ops
from ..dialects.nv_tileas.linear_layout import reduced_layout, register_moves, relabel, slice_layout, to_linear
from ..ir.attributes import ArrayAttr
from ..rewrite.clone import clone_op
from .layouts import AGENT_SWITCH, cta_threads
from .remat_layouts import is_free, plan, rematerialize

NONE = LayoutAttr("none")
SPLAT_ATTR = LayoutAttr("splat")
SHARED_ATTR = LayoutAttr("shared")
LOOPS = ("scf.for", "cuda_tile.for")
# elements a thread may hold of a transpose kept in registers for a dot: its staging
# stores them one by one, and past this ptxas (CUDA 13) was seen to spill at 72 and 32
# registers on TileGym's decode and MLA kernels (64 and 512 elements a thread)
TRANSPOSE_SLOTS = 32


class State:
    """A value's layout while propagating: `kind` "reg" (`layout` concrete),
    "splat", "shared" (registers in the blocked layout on demand) or None (not
    a distributed tile); `origin` (State, shape) for a broadcast's source."""
    __slots__ = ("kind", "layout", "origin")

    def __init__(self, kind, layout=None, origin=None):
        self.kind, self.layout, self.origin = kind, layout, origin

    @property
    def splat(self):
        """One register for every element (a splat, or a scalar)."""
        return self.kind in ("splat", None)

    def attr(self):
        if self.kind == "reg":
            return LayoutAttr.of(self.layout)
        return {"splat": SPLAT_ATTR, "shared": SHARED_ATTR}.get(self.kind, NONE)


SPLAT = State("splat")
SCALAR = State(None)
NOTHING = State("none")       # a tile result that holds no data (a placeholder, a result nothing reads)
SHARED = State("shared")
CONFLICT = object()           # a load two users want in two layouts (Propagation.load_wants)


def reg(layout, origin=None) -> State:
    return State("reg", layout, origin)


def _shape(v):
    return tuple(getattr(v.type, "shape", ()) or ())


def _is_tile(v) -> bool:
    return isinstance(v.type, TileType)


def _linear_ok(layout) -> bool:
    lin = to_linear(layout)
    return lin is not None and lin.axis_aligned() and not lin.free_bits("reg") and lin.nslots == layout.nslots


HOIST_THROUGH = LOOPS + ("scf.while", pipeline_ops.P + "consume_one")


def _invariant_anchor(user, v):
    """The op before which a value computed from `v` alone is computed once for
    `user`: the outermost loop (or pipeline slot scope) around `user` that does
    not define `v`, within the same agent and branch; else `user`."""
    d = getattr(v, "op", None)
    if d is not None:
        outer = set(d.ancestors())
    else:                               # a block argument: defined inside its block's op
        owner = v.block.parent_op
        outer = {owner, *owner.ancestors()} if owner is not None else set()
    anchor, op = user, user.parent_op
    while op is not None and op.name in HOIST_THROUGH and op not in outer:
        anchor, op = op, op.parent_op
    return anchor


class Propagation:
    def __init__(self, entry, num_warps: int):
        self.entry = entry
        self.cta = cta_threads(entry, num_warps)
        self.hints: dict = {}        # carried value -> layout its body writes (found by a sweep)
        self.found: dict = {}
        self.env: dict = {}
        self.threads = self.cta
        self.out: dict = {}          # op -> [State per result] (first emission in its own group)
        self.carried: dict = {}      # scf.while -> [State per before-region argument]
        self.slots: dict = {}        # carried value -> the State backing it
        self.branch_yields: dict = {}  # scf.if -> [States yielded, per branch]
        self.points: list = []       # (user, operand index, remat_layouts.plan): see rematerialize
        self.sources: list = []      # the same for broadcasts' sources (_remake_source), applied after
        self.forced: dict = {}       # rematerialized clone -> the layout its user needs
        self.moves: list = []        # (user, operand index, layout): see convert_explicitly
        self.loose: set = set()      # carried values whose layout no dot or body write chose
        self.load_hints: dict = {}   # register load -> the layout its users want it in (load_want)
        self.load_wants: dict = {}   # the same, found by the last sweep (CONFLICT: two layouts)

    # ---- driver ------------------------------------------------------------------------
    def run(self):
        for _ in range(4):         # each change to the IR is propagated again
            self.sweeps()
            if self.points and self.rematerialize(self.points):
                continue
            # a broadcast an element-wise user makes again goes with it: only the sources of
            # those that stay are made again in their broadcast's slice
            if self.sources and self.rematerialize(self.sources):
                continue
            if not self.moves or not self.convert_explicitly():
                break
        return self

    def convert_explicitly(self) -> bool:
        """Every operand that an element-wise op reads in another layout, moving
        data, gets an nv_tileas.convert_layout into the op's layout right before
        it: the IR shows each data movement between layouts."""
        for user, index, layout in self.moves:
            v = user.operands[index]
            if self.rebroadcast(user, index, layout):
                continue
            conv = ConvertLayoutOp.create(source=v, layout=LayoutAttr.of(layout), result_types=[v.type],
                                          location=user.location)
            user.parent.insert_before(conv, user)
            user.set_operand(index, conv.results[0])
        return bool(self.moves)

    def rebroadcast(self, user, index, layout) -> bool:
        """A broadcast `user` reads in another layout is made again right before
        it, from its source converted into the slice of `layout` it needs: the
        source has fewer elements to move than the broadcast. Where that source
        is the same on every trip of the loops around the user (a row vector
        loaded before them), the conversion goes before the outermost such loop
        of the user's agent, and the trips read its registers."""
        v = user.operands[index]
        d = getattr(v, "op", None)
        if d is None or d.name != "cuda_tile.broadcast":
            return False
        src = d.operands[0]
        src_shape, shape = _shape(src), _shape(v)
        part = slice_layout(layout, broadcast_axes(src_shape, shape), src_shape) if src_shape else None
        if part is None:
            return False
        conv = ConvertLayoutOp.create(source=src, layout=LayoutAttr.of(part), result_types=[src.type],
                                      location=user.location)
        anchor = _invariant_anchor(user, src)
        anchor.parent.insert_before(conv, anchor)
        again = clone_op(d, {src: conv.results[0]})
        user.parent.insert_before(again, user)
        user.set_operand(index, again.results[0])
        self.forced[again.results[0]] = layout
        return True

    def sweeps(self):
        for last in (False, False, False, True):
            self.env, self.out, self.carried, self.slots, self.found = {}, {}, {}, {}, {}
            self.points, self.sources, self.moves, self.loose = [], [], [], set()
            self.load_wants = {}
            self.threads = self.cta
            self.block(self.entry.regions[0].blocks[0])
            new = {v: lay for v, lay in self.found.items() if self.hints.get(v) != lay}
            loads = {op: lay for op, lay in self.load_wants.items()
                     if lay is not CONFLICT and op not in self.load_hints}
            if last or (not new and not loads):
                break           # (what the IR says is what the last sweep saw)
            self.hints.update(new)
            self.load_hints.update(loads)

    def rematerialize(self, points) -> bool:
        """Clone the layout-free operands the last sweep found in the wrong
        layout right before their users (remat_layouts.py); whether any was."""
        done = False
        for user, index, steps in points:
            if user.operands[index] is steps[-1][0].results[0] and all(o.parent is not None for o, _, _ in steps):
                self.forced.update(rematerialize(user, index, steps))
                done = True
        return done

    def note_remat(self, op, layout, shape):
        """Element-wise `op` runs in `layout`: an operand that does not reach it
        without moving data is noted to be made again in it when it is made from
        iotas and uniform values, else to be converted explicitly."""
        for i, v in enumerate(op.operands):
            s = self.regs(v) if _is_tile(v) and _shape(v) == shape else None
            if s is None or s.splat or self.get(v).kind == "shared" or self.reaches(s, layout, shape):
                continue            # (a tile in shared memory is read in the op's layout)
            steps = plan(v, layout, self.leaf)
            if steps:
                self.points.append((op, i, steps))
            elif s.kind == "reg" and not self.want_load(v, layout):
                self.moves.append((op, i, layout))

    def want_load(self, v, layout) -> bool:
        """Note that the register load `v` is made from (load_want) should load in
        the layout that gives `v` in `layout`; whether there is such a load.
        Global memory reads into any layout for the same instructions (each
        thread its elements' addresses): a vector of a norm's weights or a
        rope's angles loaded in the slice its broadcast needs moves nothing."""
        got = load_want(v, layout)
        if got is None:
            return False
        load, lay = got
        if lay.threads != self.threads:
            return False
        old = self.load_wants.get(load)
        self.load_wants[load] = lay if old is None or old == lay else CONFLICT
        return True

    def uniform(self, v) -> bool:
        return not (_is_tile(v) and _shape(v)) or self.get(v).splat

    def leaf(self, v) -> bool:
        """A value any layout has for the price of reading it: uniform, or a
        tile in shared memory (a pipeline slot), which ld.shared reads in the
        layout its reader runs in as cheaply as in the blocked one."""
        return self.uniform(v) or self.get(v).kind == "shared"

    def follows_carry(self, v) -> bool:
        """`v` is a loose carried value (see carry) or read from its cell: the
        body's writes choose its layout on the next sweep, so it should not
        choose the layout of the op that combines it with others."""
        if v in self.loose:
            return True
        d = getattr(v, "op", None)
        if d is None or d.name != "nv_tileas.load":
            return False
        cell = getattr(d.operands[0], "op", None)
        return cell is not None and cell.name == "nv_tileas.view" and cell.operands[0] in self.loose

    def block(self, block):
        for op in block.ops:
            self.op(op)

    def blk(self, shape) -> State:
        """The group's blocked layout of `shape` (a scalar for rank 0)."""
        return reg(blocked(tuple(shape), self.threads)) if shape else SCALAR

    def get(self, v) -> State:
        s = self.env.get(v)
        if s is None:
            return State("reg", blocked(_shape(v), self.threads)) if _is_tile(v) and _shape(v) else SCALAR
        return s

    def regs(self, v) -> State:
        """The state of `v` once an op reads it in registers (shared: blocked)."""
        return self.regs_state(self.get(v), _shape(v))

    def regs_state(self, s: State, shape) -> State:
        return self.blk(shape) if s.kind == "shared" else s

    def bind(self, op, states):
        # a uniform value with a shape is a splat; anything without one is a scalar
        states = [(SPLAT if s.kind is None else s) if _is_tile(r) and _shape(r) else SCALAR
                  for r, s in zip(op.results, states)]
        for r, s in zip(op.results, states):
            self.env[r] = s
        if op not in self.out:
            self.out[op] = list(states)

    # ---- one op ------------------------------------------------------------------------
    def op(self, op):
        want = self.forced.get(op.results[0]) if len(op.results) == 1 else None
        if want is not None and want.threads == self.threads:
            self.bind(op, [reg(want)])          # a rematerialized clone: the layout its user needs
            return
        rule = RULES.get(op.name)
        if rule is not None:
            rule(self, op)
            return
        if op.regions:
            self.default_regions(op)
            return
        self.bind(op, [self.default(op, r) for r in op.results])

    def default(self, op, r) -> State:
        if not _is_tile(r) or not _shape(r):
            return SCALAR
        shape = _shape(r)
        ins = [v for v in op.operands if _is_tile(v)]
        if len(op.results) == 1 and ins and all(_shape(v) in ((), shape) for v in ins):
            # values free of layout (masks from iotas) are made again in the others' layout:
            # they do not get to choose it
            # so are tiles read from shared memory, and carried values the body's writes
            # choose the layout of (see follows_carry)
            ranked = sorted(ins, key=lambda v: (is_free(v, self.leaf), self.follows_carry(v)))
            shared = [self.get(v).kind == "shared" for v in ranked]
            got = self.common([SPLAT if sh else self.regs(v) for v, sh in zip(ranked, shared)], shape)
            if got.splat and any(shared):
                got = self.blk(shape)
            if got.kind == "reg":
                self.note_remat(op, got.layout, shape)
            return got
        return self.blk(shape)

    def default_regions(self, op):
        for region in op.regions:
            for b in region.blocks:
                self.block(b)
        self.bind(op, [self.default(op, r) if not op.operands else
                       (self.blk(_shape(r)) if _is_tile(r) and _shape(r) else SCALAR)
                       for r in op.results])

    # ---- element-wise ------------------------------------------------------------------
    def reaches(self, s: State, layout, shape) -> bool:
        if s.splat or s.layout == layout:
            return True
        if s.origin is not None:
            o, oshape = s.origin
            if o.splat or o.kind == "shared" or register_moves(o.layout, layout, broadcast_axes(oshape, shape)) is not None:
                return True
        return register_moves(s.layout, layout) is not None

    def common(self, states, shape) -> State:
        layouts = []
        for s in states:
            if not s.splat and s.kind == "reg" and s.layout not in layouts and _ranked(s, shape):
                layouts.append(s.layout)
        if not layouts:
            return SPLAT
        if len(layouts) == 1:
            return reg(layouts[0])
        ranked = [s for s in states if _ranked(s, shape)]
        # an accumulator's slice first: a broadcast of it returns to the accumulator's
        # layout without moving anything, one of a blocked tile does not
        for lay in sorted(layouts, key=lambda x: not isinstance(x, SliceLayout)):
            if all(self.reaches(s, lay, shape) for s in ranked):
                return reg(lay)
        return reg(next((lay for lay in layouts if isinstance(lay, SliceLayout)), layouts[0]))

    # ---- carried registers -------------------------------------------------------------
    def carry(self, init: State, value, shape) -> State:
        """The registers carrying `value` (a block argument), made from `init`."""
        if not shape:
            return SCALAR
        lay = self.preferred(value)
        if lay is None:
            lay = self.hint(value, shape)
        if lay is None:
            lay = init.layout if init.kind == "reg" else blocked(shape, self.threads)
            self.loose.add(value)
        s = reg(lay)
        self.slots[value] = s
        return s

    def hint(self, value, shape):
        lay = self.hints.get(value)
        if lay is None or lay.threads != self.threads or tuple(lay.shape) != tuple(shape):
            return None
        return lay

    def written(self, value, src: State):
        """`src` is written into the registers carrying `value`: a slice or
        accumulator layout there becomes the carried layout on the next sweep."""
        dst = self.slots.get(value)
        if dst is None or src.kind != "reg" or isinstance(src.layout, Blocked) or src.layout == dst.layout:
            return
        self.found[value] = src.layout

    def preferred(self, value):
        """The accumulator layout of the tensor-core dot `value` feeds (directly
        or through a register view), or None."""
        work, seen = [value], set()
        while work:
            v = work.pop()
            if v in seen:
                continue
            seen.add(v)
            for use in v.uses:
                user = use.owner
                if user.name == "nv_tileas.dot" and use.index == 2:
                    return self.acc_layout(user)
                if user.name == BLOCK_SCALED and use.index == 2:
                    got = block_scaled_acc(user, _shape(v), self.threads)
                    if got is not None:
                        return got
                lay = user.attributes.get("layout")
                if user.name == "nv_tileas.convert_layout" and isinstance(lay, LayoutAttr) and lay.kind == "mma":
                    got = lay.layout_for(_shape(v), self.threads)
                    if got is not None:
                        return got
                if user.name == "nv_tileas.view" or (user.name == "nv_tileas.load" and use.index == 0):
                    work.append(user.results[0])
        return None

    def acc_layout(self, dot):
        """The accumulator layout dot `dot` computes in here, or None (CUDA cores)."""
        src = getattr(dot.operands[2], "op", None)
        if src is None or src.name != "nv_tileas.convert_layout":
            return None
        lay = src.attributes.get("layout")
        if not isinstance(lay, LayoutAttr) or lay.kind not in ("mma", "wgmma", "tmem"):
            return None
        return lay.layout_for(_shape(dot.results[0]), self.threads)

    # ---- the IR ------------------------------------------------------------------------
    def write(self):
        for op, states in self.out.items():
            if any(s.kind is not None for s in states) or any(_is_tile(r) and _shape(r) for r in op.results):
                op.attributes[ATTR] = ArrayAttr([s.attr() for s in states])
            else:
                op.attributes.pop(ATTR, None)
        for op, states in self.carried.items():
            op.attributes[WHILE_CARRIED] = ArrayAttr([s.attr() for s in states])


def _ranked(s: State, shape) -> bool:
    return s.kind == "reg" and tuple(s.layout.shape) == tuple(shape)


# ---- rules per op ------------------------------------------------------------------------
RULES: dict = {}


def rule(*names):
    def deco(fn):
        for n in names:
            RULES[n] = fn
        return fn
    return deco


def _uniform(attr) -> bool:
    if getattr(attr, "splat", False):
        return True
    vals = getattr(attr, "values", None)
    return vals is not None and len(vals) > 0 and all(v == vals[0] for v in vals) or vals == []


@rule("cuda_tile.constant", "arith.constant")
def _constant(p, op):
    r = op.results[0]
    if not _is_tile(r) or not _shape(r):
        p.bind(op, [SCALAR])
        return
    p.bind(op, [SPLAT if _uniform(op.attributes.get("value")) else p.blk(_shape(r))])


@rule("nv_tileas.create_none")
def _none(p, op):
    """A placeholder (a producer's yield of nothing): no data, no layout."""
    p.bind(op, [NOTHING] * len(op.results))


@rule("cuda_tile.assume")
def _assume(p, op):
    p.bind(op, [p.get(op.operands[0])] + [SCALAR] * (len(op.results) - 1))


@rule("nv_tileas.convert_layout")
def _convert(p, op):
    lay = op.attributes.get("layout")
    src = p.get(op.operands[0])
    shape = _shape(op.results[0])
    if not isinstance(lay, LayoutAttr) or not shape:
        p.bind(op, [src])
        return
    if lay.kind == "shared":
        p.bind(op, [SPLAT if src.splat else SHARED])
        return
    target = None
    if lay.kind in ("mma", "wgmma", "tmem"):
        for use in op.results[0].uses:
            if use.owner.name == "nv_tileas.dot" and use.index == 2:
                target = p.acc_layout(use.owner)
                break
    if target is None:
        target = lay.layout_for(shape, p.threads)
    p.bind(op, [src if target is None else reg(target)])


@rule("nv_tileas.dot")
def _dot(p, op):
    acc = p.acc_layout(op)
    if acc is None:
        c = p.regs(op.operands[2])
        acc = c.layout if c.kind == "reg" else blocked(_shape(op.results[0]), p.threads)
    p.bind(op, [reg(acc)])


BLOCK_SCALED = "nv_tileas.block_scaled_mma"


def block_scaled_acc(op, shape, threads):
    """The accumulator layout block-scaled MMA `op` computes in: tcgen05's
    TmemAcc on sm_100a/sm_103a (compute_capability 100, 103; ops_tcgen05_scaled),
    else mma.sync's (ops_block_scaled); None where neither tiles `shape`."""
    cc = getattr(op.attributes.get("compute_capability"), "value", 0)
    if cc in (100, 103):
        return tmem_acc(shape, threads) if len(shape) == 2 and shape[0] % 128 == 0 else None
    return mma_acc(shape, threads)


@rule(BLOCK_SCALED)
def _block_scaled_mma(p, op):
    """Block-scaled MMA's result is in the accumulator layout it computes in
    (block_scaled_acc), where that tiles it."""
    shape = _shape(op.results[0])
    acc = block_scaled_acc(op, shape, p.threads)
    p.bind(op, [reg(acc) if acc is not None else p.blk(shape)])


@rule("cuda_tile.reduce", "nv_tileas.reduce")
def _reduce(p, op):
    ins = [p.regs(v) for v in op.operands]
    dim = op.attributes["dim"].value
    rshape = _shape(op.results[0])
    lay = next((s.layout for s in ins if not s.splat), None)
    out = None
    if rshape and lay is not None and lay.threads == p.threads and _linear_ok(lay):
        out = reduced_layout(lay, dim, rshape)
    state = SCALAR if not rshape else reg(out or blocked(rshape, p.threads))
    p.bind(op, [state] * len(op.results))     # the combiner region holds scalars only


@rule("cuda_tile.scan", "nv_tileas.scan")
def _scan(p, op):
    ins = [p.regs(v) for v in op.operands]
    shape = _shape(op.results[0])
    lay = next((s.layout for s in ins if not s.splat), None)
    keep = lay is not None and lay.threads == p.threads and _linear_ok(lay)
    p.bind(op, [reg(lay if keep else blocked(shape, p.threads))] * len(op.results))


def _shared_only(s: State) -> bool:
    return s.kind == "shared"


@rule("cuda_tile.reshape")
def _reshape(p, op):
    shape = _shape(op.results[0])
    s = p.get(op.operands[0])
    if _shared_only(s) or s.splat:
        p.bind(op, [s])
        return
    if not shape:
        p.bind(op, [SCALAR])
        return
    lay = blocked(shape, p.threads)
    if same_distribution(s.layout, lay):
        p.bind(op, [reg(lay)])
        return
    if not isinstance(s.layout, Blocked):
        rel = relabel(s.layout, shape)
        if rel is not None:
            p.bind(op, [reg(rel)])
            return
    p.bind(op, [reg(lay)])


@rule("cuda_tile.permute", "nv_tileas.shuffle")
def _permute(p, op):
    """A permutation read only by dots (perhaps through element-wise ops of it
    alone) moves nothing: each thread keeps its elements and the result's
    layout is the source's with its dimensions permuted (a slice whose axes
    are the permutation); the dot copies its operands to shared memory for the
    tensor cores anyway, and that copy absorbs the transpose (up to
    TRANSPOSE_SLOTS elements a thread). Other permutations go to the blocked
    layout (one move through shared memory, as a coalesced store or an
    element-wise op would need)."""
    s = p.get(op.operands[0])
    shape = _shape(op.results[0])
    if _shared_only(s) or s.splat:
        p.bind(op, [s])
        return
    lay = None
    if s.layout.threads == p.threads and s.layout.nslots <= TRANSPOSE_SLOTS and _read_by_dots(p, op.results[0]):
        lay = slice_layout(s.layout, list(op.attributes["permutation"].values), shape)
    p.bind(op, [reg(lay) if lay is not None else p.blk(shape)])


def _read_by_dots(p, v) -> bool:
    """Whether every use of `v` is a dot's operand, directly or through
    element-wise ops of one tile operand (a conversion to tf32 or f16, a scale
    by a uniform value), which then run in `v`'s layout for free."""
    work, seen = [v], set()
    while work:
        x = work.pop()
        for use in x.uses:
            user = use.owner
            if user.name == "nv_tileas.dot" and use.index < 2:
                continue
            if id(user) in seen:
                continue
            seen.add(id(user))
            ins = [u for u in user.operands if _is_tile(u) and _shape(u)]
            if (user.regions or len(user.results) != 1 or not _is_tile(user.results[0])
                    or _shape(user.results[0]) != _shape(x) or user.name in RULES
                    or any(u is not x and not p.uniform(u) for u in ins)):
                return False
            work.append(user.results[0])
    return True


@rule("cuda_tile.extract")
def _extract(p, op):
    s = p.regs(op.operands[0])
    p.bind(op, [SPLAT if s.splat else p.blk(_shape(op.results[0]))])


@rule("cuda_tile.broadcast")
def _broadcast(p, op):
    src = p.regs(op.operands[0])
    shape = _shape(op.results[0])
    if src.splat:
        p.bind(op, [SPLAT])
        return
    origin = (src, _shape(op.operands[0]))
    users = _user_layouts(p, op, shape)
    if p.get(op.operands[0]).kind == "shared":     # read straight into the slice of any layout
        p.bind(op, [reg(users[0] if users else blocked(shape, p.threads), (SHARED, origin[1]))])
        return
    cands = broadcast_candidates(users, src.layout, shape, p.threads)
    for c in cands:
        if _broadcasts_into(p, src, origin[1], shape, c, convert=False):
            p.bind(op, [reg(c, origin)])
            return
    for c in users:
        if _broadcasts_into(p, src, origin[1], shape, c, convert=True):
            _remake_source(p, op, src, origin[1], shape, c)
            p.bind(op, [reg(c, origin)])
            return
    got = blocked(shape, p.threads)
    _remake_source(p, op, src, origin[1], shape, got)
    p.bind(op, [reg(got, origin)])


def _remake_source(p, op, src: State, src_shape, shape, layout):
    """A broadcast into `layout` whose source would move between threads (into the
    slice of `layout` it needs): a source made from iotas and uniform values (a
    K step's column indices) is made again in that slice instead, right before
    the broadcast, like an element-wise op's operand (remat_layouts.py)."""
    src_of = broadcast_axes(src_shape, shape)
    if register_moves(src.layout, layout, src_of) is not None:
        return
    part = slice_layout(layout, src_of, src_shape)
    steps = plan(op.operands[0], part, p.leaf) if part is not None else None
    if steps:
        p.sources.append((op, 0, steps))
    elif part is not None:
        p.want_load(op.operands[0], part)


def _broadcasts_into(p, src: State, src_shape, shape, layout, convert: bool) -> bool:
    if layout.threads != p.threads or tuple(layout.shape) != tuple(shape):
        return False
    src_of = broadcast_axes(src_shape, shape)
    if register_moves(src.layout, layout, src_of) is not None:
        return True
    if not convert:
        return False
    part = slice_layout(layout, src_of, src_shape)
    return part is not None and register_moves(part, layout, src_of) is not None


def _user_layouts(p, op, shape):
    """Layouts of the operands, already assigned, of the element-wise users of `op`'s result."""
    out = []
    res = op.results[0]
    for use in res.uses:
        user = use.owner
        if len(user.results) != 1 or _shape(user.results[0]) != shape:
            continue
        for v in user.operands:
            if v is res:
                continue
            s = p.env.get(v)
            if s is not None and s.kind == "reg" and tuple(s.layout.shape) == shape \
                    and s.layout.threads == p.threads and s.layout not in out:
                out.append(s.layout)
    return out


@rule("cuda_tile.load_ptr_tko", "cuda_tile.store_ptr_tko")
def _pointer(p, op):
    ins = [p.regs(v) for v in op.operands if _is_tile(v) and _shape(v)]
    lay = next((s.layout for s in ins if not s.splat), None)
    states = []
    for r in op.results:
        if not _is_tile(r) or not _shape(r):
            states.append(SCALAR)
        else:
            states.append(reg(lay) if lay is not None else SPLAT)
    p.bind(op, states)


@rule("nv_tileas.load")
def _load(p, op):
    view = op.operands[0]
    res = getattr(view.type, "residency", "")
    r = op.results[0]
    if res == "RMEM":
        cell = p.env.get(view)
        state = cell if cell is not None else p.blk(_shape(r))
    else:
        state = SHARED if _shape(r) else SCALAR
    p.bind(op, [state] + [SCALAR] * (len(op.results) - 1))


@rule("nv_tileas.view")
def _view(p, op):
    """An RMEM view is registers of its own (a cell), in its source's layout."""
    res = getattr(op.results[0].type, "residency", "")
    src = op.operands[0]
    if res == "RMEM" and _is_tile(src) and _shape(src):
        s = p.regs(src)
        cell = s if s.kind == "reg" else p.blk(_shape(src))
        p.env[op.results[0]] = cell
        p.slots.setdefault(src, cell)
        p.out.setdefault(op, [SCALAR])
        return
    p.bind(op, [SCALAR])


@rule("nv_tileas.store")
def _store(p, op):
    dst = p.env.get(op.operands[0])
    if dst is not None and dst.kind == "reg":
        src = p.regs(op.operands[1])
        view_op = getattr(op.operands[0], "op", None)
        if view_op is not None and view_op.operands:
            p.written(view_op.operands[0], src)
    p.bind(op, [SCALAR] * len(op.results))


@rule("nv_tileas.tiled_load")
def _register_load(p, op):
    """A tile loaded into registers: in the layout its users want (load_hints),
    else blocked."""
    want = p.load_hints.get(op)
    if want is not None and want.threads == p.threads:
        p.bind(op, [reg(want)] + [SCALAR] * (len(op.results) - 1))
        return
    _blocked_result(p, op)


def load_want(v, layout):
    """(tiled_load op, layout) when `v` is a register load's tile seen through
    reshapes and element-wise ops of one tile operand (a conversion, a scale
    by a uniform value), each but `v` used once, and `layout` for `v` is that
    layout for the load's tile; else None."""
    x, w = v, layout
    while w is not None:
        d = getattr(x, "op", None)
        if d is None or (x is not v and len(x.uses) != 1):
            return None
        if d.name == "nv_tileas.tiled_load":
            return (d, w) if x is d.results[0] else None
        ins = [u for u in d.operands if _is_tile(u) and _shape(u)]
        if d.regions or len(d.results) != 1 or len(ins) != 1:
            return None
        if d.name == "cuda_tile.reshape":
            w = relabel(w, _shape(ins[0]))
        elif _shape(ins[0]) != _shape(x) or d.name in RULES:
            return None
        x = ins[0]
    return None


@rule("nv_tileas.gather_load", "cuda_tile.iota")
def _blocked_result(p, op):
    p.bind(op, [p.blk(_shape(r)) if _is_tile(r) and _shape(r) else SCALAR
                for r in op.results])


@rule("nv_tileas.async.pipeline.produce_one", "nv_tileas.async.pipeline.consume_one")
def _slot_region(p, op):
    """The region's arguments are the pipeline slot: shared. So is the tile the
    copy engine loads into it (the producer's tiled_load, gather_load or TMA
    load); a gather's indices and mask keep their registers."""
    from ..dialects.nv_tileas.ops.pipeline import slot_fill
    block = op.regions[0].blocks[0]
    for a in block.arguments:
        p.env[a] = SHARED if _is_tile(a) and _shape(a) else SCALAR
    fill = slot_fill(block) if op.name.endswith("produce_one") else None
    for o in block.ops:
        if o is fill and o.name != "nv_tileas.async.tiled_tma_load":
            p.bind(o, [SHARED] + [SCALAR] * (len(o.results) - 1))
        else:
            p.op(o)
    p.bind(op, [SCALAR] * len(op.results))


# ---- control flow -------------------------------------------------------------------------

@rule("scf.for", "cuda_tile.for")
def _for(p, op):
    body = op.regions[0].blocks[0]
    inits = [p.get(v) for v in op.operands[3:]]
    slots = [p.carry(s, a, _shape(a)) if _is_tile(a) else SCALAR for s, a in zip(inits, body.arguments[1:])]
    for a, s in zip(body.arguments[1:], slots):
        p.env[a] = s
    # carried registers back block arguments and results alike
    for a, r in zip(body.arguments[1:], op.results):
        if a in p.slots:
            p.slots[r] = p.slots[a]
    p.block(body)
    p.bind(op, slots)


@rule("scf.yield", "cuda_tile.yield", "cuda_tile.continue", "cuda_tile.break")
def _yield(p, op):
    parent = op.parent_op
    targets = []
    if parent.name in LOOPS and op.name in ("scf.yield", "cuda_tile.continue"):
        targets = list(parent.regions[0].blocks[0].arguments[1:])
    elif parent.name == "scf.while":
        targets = list(parent.regions[0].blocks[0].arguments)
    elif parent.name in ("scf.if", "cuda_tile.if"):
        p.branch_yields.setdefault(parent, []).append([p.get(v) for v in op.operands])
    for t, v in zip(targets, op.operands):
        p.written(t, p.regs(v))
    p.bind(op, [])


@rule("scf.if", "cuda_tile.if")
def _if(p, op):
    """The results take the layout every branch's value reaches without moving
    data (a splat, or a slice of it, joins a distributed branch for free); when
    the branches disagree, the group's blocked layout."""
    p.branch_yields.pop(op, None)
    for region in op.regions:
        for b in region.blocks:
            p.block(b)
    yields = p.branch_yields.pop(op, [])
    states = []
    for i, r in enumerate(op.results):
        if not _is_tile(r) or not _shape(r):
            states.append(SCALAR)
            continue
        ys = [p.regs_state(y[i], _shape(r)) for y in yields if i < len(y)]
        got = p.common(ys, _shape(r))
        agreed = got.kind == "reg" and all(p.reaches(y, got.layout, _shape(r)) for y in ys)
        states.append(got if agreed else p.blk(_shape(r)))
    p.bind(op, states)


@rule("scf.while")
def _while(p, op):
    before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
    inits = [p.get(v) for v in op.operands]
    slots = [p.carry(s, a, _shape(a)) if _is_tile(a) else SCALAR for s, a in zip(inits, before.arguments)]
    for a, s in zip(before.arguments, slots):
        p.env[a] = s
    p.block(before)
    ops = list(before.ops)
    cond = ops[-1] if ops else None
    forwarded = [p.get(v) for v in cond.operands[1:]] if cond is not None and cond.name == "scf.condition" else []
    for a, s in zip(after.arguments, forwarded):
        p.env[a] = s
    p.block(after)
    p.carried.setdefault(op, slots)
    p.bind(op, forwarded)


@rule("scf.condition")
def _condition(p, op):
    p.bind(op, [])


@rule(AGENT_SWITCH)
def _agent_switch(p, op):
    from ..dialects.nv_tileas.ops.pipeline import agent_warps
    outer, saved = p.threads, dict(p.env)
    inside = {x for r in op.regions for b in r.blocks for o in b.ops for x in o.walk()}
    for region, nw in zip(op.regions, agent_warps(op)):
        p.threads = 32 * nw
        p.env = dict(saved)
        _hand_off(p, region, inside, saved)
        for b in region.blocks:
            p.block(b)
    p.threads, p.env = outer, saved
    # the join: every result something reads is read back in the CTA's blocked layout
    p.bind(op, [reg(blocked(_shape(r), outer)) if r.uses else NOTHING for r in op.results])


def _hand_off(p, region, inside, outer_env):
    """Outer tiles an agent reads: in its blocked layout (or in shared memory);
    broadcasts and reshapes of them are made again inside the agent."""
    seen = set()

    def need(v):
        if v in seen or v not in outer_env:
            return
        seen.add(v)
        d = getattr(v, "op", None)
        if d in inside or (getattr(v, "block", None) is not None and v.block.parent_op in inside):
            return
        s = outer_env[v]
        if s.kind != "reg" and s.kind != "shared":
            return
        if d is not None and d.name in pipeline_ops.AGENT_REMADE:
            for u in d.operands:
                need(u)
            remade.append(d)
            return
        p.env[v] = SHARED if s.kind == "shared" else p.blk(_shape(v))

    remade = []
    for b in region.blocks:
        for o in b.ops:
            for x in o.walk():
                for v in x.operands:
                    need(v)
    for d in remade:
        first = d in p.out
        saved = p.out.get(d)
        RULES[d.name](p, d)
        if first:
            p.out[d] = saved          # the IR names the layout at the definition


def propagate_layouts(entry, num_warps: int) -> Propagation:
    """Give every result of `entry`'s ops its layout (`nv_tileas.layouts`)."""
    p = Propagation(entry, num_warps).run()
    p.write()
    return p
