"""Synchronous loads whose tile only tensor-core dots read: straight into shared memory.

A tiled_load outside a pipeline (a loop whose stage does not fit shared memory,
a dot outside any loop) would load its tile into registers, and the dot would
store it to shared memory again for ldmatrix or wgmma. When every reader of the
tile, through reshapes, permutations and conversions into the shared layout, is
the A or B of a dot, the tile goes
to a shared buffer of its own by cp.async instead (16-byte copies, out-of-bounds
runs zero-filled: ops_memory.async_fill), swizzled where its rows suit the
tensor cores, and the dots read it in place.

Buffers are pooled per block: a load reuses the buffer of an earlier load of the
same block whose readers all come before it (TileGym's naive-absorb MLA decode
loads K, reads it in the first dot, then loads V into the same bytes). Each fill
is preceded by a CTA barrier (the previous tile's readers are done) and followed
by cp.async.wait_all and another barrier (every thread's copies have landed).

Where the block builds tensor maps after such a load, with nothing but scalar ops,
pipeline set-up and ops that write no memory between, the maps are built while
its copies are in flight (`maps_ahead`): the maps' claim and key loads are round
trips of their own, and TileGym's prefill MLA and gemma FMHA loaded Q first.

Later loads of the block that only tensor cores read are issued with the first
(`issued_with`) where nothing between orders them (no write, no token) and
their addresses need only scalar ops: the copies of all are in flight at once
and wait once, where each would wait for its own round trip. Decode attention
loads K, computes S and P, then loads V: V's copies now overlap K's. Their
buffers are live together, so a batch takes at most 1/EARLY_SHARE of the
kernel's shared memory (the MLA decode's K and V keep sharing their bytes).
"""
from __future__ import annotations

from ...dialects.nv_tileas.layouts import linear_offsets
from ...dialects.nv_tileas.operands import HOME_VIEWS
from ...rewrite.effects import has_no_memory_effect, is_side_effect_free
from ...schedule.analysis import register_only
from .ptxtypes import byte_size
from .swizzle import Swizzle
from .values import Tile

DOT = "nv_tileas.dot"
LOAD = "nv_tileas.tiled_load"
CONVERT = "nv_tileas.convert_layout"
ALIGN = 1024            # the swizzle pattern wgmma reads repeats every 1024 bytes
EARLY_SHARE = 4         # loads issued ahead of their turn take at most this share of shared memory


def same_bytes(op) -> bool:
    """Ops whose result is the tile they take, in the same shared bytes: views, and
    a conversion into the shared layout of a tile already there (ops_core._into_shared
    keeps a swizzled home as it is)."""
    if op.name in HOME_VIEWS:
        return True
    lay = op.attributes.get("layout") if op.name == CONVERT else None
    return getattr(lay, "kind", None) == "shared"


def _readers(value):
    """(op, operand index) of each use of `value`, looking through same_bytes ops."""
    for use in value.uses:
        if same_bytes(use.owner):
            yield from _readers(use.owner.results[0])
        else:
            yield use.owner, use.index


def dot_operand_only(op) -> bool:
    """Whether the tile of load `op` is read only as the A or B of dots, through
    views and conversions into the shared layout: a 16-bit tile of rank 2 or
    more, or an 8-bit rank-2 one read K contiguous (ops_dot._byte_homes:
    as A directly, as B through one transpose)."""
    t = op.results[0].type
    es = byte_size(t.element_type)
    if len(t.shape) < 2 or es not in (1, 2):
        return False
    if es == 1:
        readers = list(_byte_readers(op.results[0])) if len(t.shape) == 2 else []
        return bool(readers) and all(o is not None and o.name == DOT and i == int(flipped) for o, i, flipped
                                     in readers)
    readers = list(_readers(op.results[0]))
    return bool(readers) and all(o.name == DOT and i < 2 for o, i in readers)


def _byte_readers(value, flipped=False):
    """(op, operand index, transposed) of each use of rank-2 `value` through
    transposes and conversions into the shared layout; (None, -1, False) for a
    view of another kind (a reshape, a shuffle)."""
    for use in value.uses:
        o = use.owner
        perm = o.attributes.get("permutation") if o.name in ("cuda_tile.permute", "nv_tileas.shuffle") else None
        if perm is not None and list(perm.values) == [1, 0]:
            yield from _byte_readers(o.results[0], not flipped)
        elif same_bytes(o) and o.name not in HOME_VIEWS:
            yield from _byte_readers(o.results[0], flipped)
        elif same_bytes(o):
            yield None, -1, False
        else:
            yield o, use.index, flipped


def _last_reader(op, block) -> int:
    """The position in `block` of the last op reading `op`'s tile, through
    same_bytes ops (which count as readers themselves)."""
    pos = {id(o): i for i, o in enumerate(block.ops)}
    last, work = pos[id(op)], [op.results[0]]
    while work:
        for user in work.pop().users:
            top = user
            while top is not None and top.parent is not block:
                top = top.parent_op
            if top is not None:
                last = max(last, pos[id(top)])
            if same_bytes(user):
                work.append(user.results[0])
    return last


def _tile_bytes(op) -> int:
    t = op.results[0].type
    n = byte_size(t.element_type)
    for d in t.shape:
        n *= d
    return n


def _writes_nothing(op) -> bool:
    """Whether `op` (and what it holds) writes no memory: a later load may be issued
    before it. Loads read only; layout changes keep to registers (their scratch is
    the emitter's own), as dots and combining ops do (analysis.register_only)."""
    return op.name in (LOAD, CONVERT) or is_side_effect_free(op) or has_no_memory_effect(op) \
        or register_only(op)


def _ready(em, v, block, quiet) -> bool:
    """Whether `v` is emitted, or can be now: made in `block` by quiet ops (views,
    scalar arithmetic) from emitted values. Those ops are emitted here, ahead of
    their turn."""
    if v in em.env:
        return True
    d = getattr(v, "op", None)
    if d is None or d.parent is not block or not quiet(d, ("nv_tileaa.block_tile",)):
        return False
    if not all(_ready(em, x, block, quiet) for x in d.operands):
        return False
    em.emit_op(d)
    em.early.add(d)
    return True


def issued_with(em, op, eligible, budget: int, quiet) -> list:
    """Later tiled loads of `op`'s block that `eligible` accepts, whose tiles only
    tensor cores read and whose copies may start with `op`'s: no op between writes
    memory, they take no token, their addresses are ready (_ready: `quiet` is
    emitter.quiet), and their bytes fit `budget`."""
    out, block = [], op.parent
    nxt = op.next_op
    while nxt is not None:
        n = _tile_bytes(nxt) if nxt.name == LOAD else 0
        if nxt.name == LOAD and nxt not in em.early and eligible(nxt) and dot_operand_only(nxt) \
                and not (nxt.token_values() or nxt.result_token_values()) and n <= budget \
                and all(_ready(em, x, block, quiet) for x in nxt.operands):
            budget -= n
            out.append(nxt)
        elif not _writes_nothing(nxt):
            break
        nxt = nxt.next_op
    return out


SETUP = ("nv_tileas.async.pipeline.create_pipeline", "nv_tileas.async.pipeline.create_iterator")


def maps_ahead(em, op, quiet):
    """The first device tensor-map descriptor after load `op` in its block, when
    its maps may be built while `op`'s copies are in flight: only ops that write
    no memory, scalar ops and pipeline set-up (barriers of their own) come
    between, and its operands are ready (_ready). None otherwise."""
    nxt = op.next_op
    while nxt is not None:
        if nxt in em.device_maps:
            ready = nxt not in em.early and all(_ready(em, x, op.parent, quiet) for x in nxt.operands)
            return nxt if ready else None
        if not (_writes_nothing(nxt) or nxt.name in SETUP):
            return None
        nxt = nxt.next_op
    return None


def _buffer(em, op, nbytes: int, span, at=None) -> str:
    """The shared buffer `op`'s tile goes to: a pooled one whose last tile's readers
    all come before `op` in its block (or before op `at`, where `op` is filled
    with it), grown to fit, its phases widened to `span`; else a new one."""
    kb = em.kb
    block = op.parent
    here = next(i for i, o in enumerate(block.ops) if o is (at or op))
    last = _last_reader(op, block)
    pool = em.operand_buffers.setdefault(id(block), [])
    for entry in pool:
        if entry[1] < here:
            kb.grow_shared(entry[0], nbytes)
            entry[1] = last
            old = kb.spans.get(entry[0])
            if old is not None and span is not None:
                kb.spans[entry[0]] = (min(old[0], span[0]), max(old[1], span[1]))
            return entry[0]
    sym = kb.shared_buffer(nbytes, ALIGN, "operand", span=span)
    pool.append([sym, last])
    return sym


def _first_fills_issued(em) -> int:
    return sum(p.first.issued for p in em.first_fills)


def load_into_shared(em, loads, meanwhile=None) -> list[Tile]:
    """The tiles of `loads` (op, fill, load_registers, span), the first op's turn,
    each in a pooled shared buffer. `fill(dst)` issues an op's cp.async copies
    (None when cp.async cannot: then `load_registers()` gives the tile in
    registers, stored to the buffer). `span`: the phases the tile is read in
    (ops_memory.live_span through same_bytes ops). The copies of all are in
    flight together, and one wait ends them; `meanwhile()` emits what may run
    before that wait (maps_ahead's maps: it returns the section just before their
    batch and the barrier-init publications made by then, or None where it
    emitted none)."""
    kb = em.kb
    head = loads[0][0]
    bases, syms = [], []
    for op, _fill, _regs, span in loads:
        t = op.results[0].type
        shape = tuple(t.shape)
        n = _tile_bytes(op)
        syms.append(_buffer(em, op, n, span, at=head))
        base = em.addr_of(syms[-1])
        swz = Swizzle.for_rows(byte_size(t.element_type) * shape[-1], n // (byte_size(t.element_type) * shape[-1]))
        if swz is not None:
            em.swizzle_of[base] = swz
        bases.append(base)
    em.guard_write(syms)          # the buffers' previous readers are done
    out, copied, stored = [], False, False
    for (op, fill, load_registers, _span), base in zip(loads, bases):
        t = op.results[0].type
        shape = tuple(t.shape)
        regs = None
        if fill(base) is None:
            tile = load_registers()
            em.store_shared(tile, base, linear_offsets(shape))
            regs = tile.regs
            stored = True
        else:
            copied = True
        out.append(Tile(t.element_type, shape, em.layout_for(shape), regs, base))
    if copied and meanwhile is not None:
        spot, before, published = kb.section(), _first_fills_issued(em), em.inits_published
        batch = meanwhile()
        if _first_fills_issued(em) > before:
            from .first_fills import gated
            if not stored and batch is not None and batch[1] > published and gated():
                _landed_on_barrier(em, spot, batch[0])
                return out
            # the copies are one group, so the wait is for them alone and not for the
            # first fills `meanwhile` issued (first_fills.py: a wait_all would take those too)
            with kb.into(spot):
                kb.emit("cp.async.commit_group")
            kb.emit("cp.async.wait_group \t0")
        else:
            kb.emit("cp.async.wait_all")
    elif copied:
        kb.emit("cp.async.wait_all")
    if em.target.hopper:
        kb.emit("fence.proxy.async.shared::cta")     # wgmma reads through the async proxy
    em.sync()                     # every thread's copies have landed
    return out


def _landed_on_barrier(em, spot, batch):
    """Where first fills went out with the maps built ahead: the copies issued
    before (at `spot`) complete on an mbarrier of their own, not at a CTA barrier.
    Each thread arrives on it as they land (cp.async.mbarrier.arrive.noinc, at
    `batch`, the start of the maps' batch: the pipelines' publication between
    covers the init at `spot`; only these copies precede it), and each waits for
    it and fences for the async proxy after the batch. So no thread waits for
    warp 0's maps or the other warps' first fills to read the tiles: the readers
    (the consumers) start once the tiles have landed."""
    kb = em.kb
    bar = kb.shared_buffer(8, 8, "operands_landed", span=kb.WHOLE_KERNEL)
    with kb.into(spot):
        kb.emit(f"@{em.leader()} mbarrier.init.shared.b64 \t[{bar}], {em.group.threads}")
    with kb.into(batch):
        kb.emit(f"cp.async.mbarrier.arrive.noinc.shared.b64 \t[{bar}]")
    em.wait_parity(em.addr_of(bar), 0)
    kb.emit("fence.proxy.async.shared::cta")     # wgmma reads through the async proxy
