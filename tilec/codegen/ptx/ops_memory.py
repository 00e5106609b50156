"""Views and memory: tensor/partition views, tiled loads and stores through
them, gathers and scatters through pointer views, register cells, and plain
loads/stores of shared-memory views.

A tiled access computes each thread's first element address once; every slot
adds constant (static strides) or per-op register offsets, and out-of-bounds
elements are predicated off (loads take the padding value)."""
from __future__ import annotations

import math

from ...dialects.nv_tileas.operands import HOME_VIEWS  # views: ops_core makes them without loads
from . import fp4, vector_gather
from .cp_async import cp_async
from .emitter import handles, quiet
from ...dialects.nv_tileas.layouts import MAX_VEC, blocked, linear_offsets
from .numeric import float_name
from .ir_layouts import follow, layout_of
from .operand_loads import EARLY_SHARE, dot_operand_only, issued_with, load_into_shared, maps_ahead, same_bytes
from .ptxtypes import B32, B64, PRED, bits, byte_size, mem_type, reg_class, \
    vector_element_for
from .values import Tile

_PAD = {"zero": 0.0, "neg_zero": -0.0, "nan": math.nan, "pos_inf": math.inf, "neg_inf": -math.inf}
_DYN = None


class TensorView:
    def __init__(self, base, etype, shape, strides, known=None):
        self.base, self.etype, self.shape, self.strides = base, etype, shape, strides
        self.known = known      # Known: what the IR proves about their divisibility, or None


class Known:
    """Powers of two the IR proves divide a tensor view's base (bytes), extents
    and strides (elements), and a tile access's starts: vector accesses skip
    the run-time alignment tests these answer (divisibility.py)."""

    def __init__(self, base, shape, strides, starts=None):
        self.base, self.shape, self.strides, self.starts = base, list(shape), list(strides), starts

    def access(self, starts, dims):
        """The facts of an access whose dim i has start divisor starts[i] and reads view dim dims[i]."""
        return Known(self.base, [self.shape[d] for d in dims], [self.strides[d] for d in dims], list(starts))


class PartitionView:
    def __init__(self, tv, tile, dim_map, pad, steps):
        self.tv, self.tile, self.dim_map, self.pad, self.steps = tv, tile, dim_map, pad, steps


class TileRef:
    def __init__(self, view, index):
        self.view, self.index = view, index


class PointerView:
    def __init__(self, base, etype):
        self.base, self.etype = base, etype


class Cell:
    """A register-resident (RMEM) view: mutable registers; or, when `renamed`,
    an SSA variable: `tile` is whatever was stored last, and loads read it
    without a copy (see _renamed)."""

    def __init__(self, tile, renamed=False):
        self.tile, self.renamed = tile, renamed


class SharedView:
    """A shared-memory view: row-major elements at `addr` (symbol or register)."""

    def __init__(self, addr, etype, shape):
        self.addr, self.etype, self.shape = addr, etype, tuple(shape)


def _is_dynamic(d):
    return not isinstance(d, int) or d < 0


@handles("cuda_tile.make_tensor_view")
def _make_tensor_view(em, op):
    t = op.results[0].type
    base = em.tile(op.operands[0]).reg
    dyn = iter(em.tile(v).reg for v in op.operands[1:])
    shape = [d if isinstance(d, int) and d >= 0 else next(dyn) for d in t.shape]
    strides = [s if isinstance(s, int) and s >= 0 else next(dyn) for s in t.strides]
    from ...dialects.cuda_tile.divisibility import entry_divisor, known_divisor, tensor_view_parts
    parts = tensor_view_parts(op.results[0])
    known = None
    if parts is not None:
        known = Known(known_divisor(parts[0]), [entry_divisor(x) for x in parts[1]],
                      [entry_divisor(x) for x in parts[2]])
    em.bind(op.results[0], TensorView(base, t.element_type, shape, strides, known))


@handles("cuda_tile.make_partition_view", "cuda_tile.make_strided_view")
def _make_partition_view(em, op):
    t = op.results[0].type
    tv = em.get(op.operands[0])
    pad = t.padding_value.value if t.padding_value is not None else None
    steps = tuple(t.traversal_strides) if hasattr(t, "traversal_strides") else tuple(t.tile_shape)
    em.bind(op.results[0], PartitionView(tv, tuple(t.tile_shape), tuple(t.dim_map), pad, steps))


@handles("nv_tileaa.block_tile")
def _block_tile(em, op):
    view = em.get(op.operands[0])
    em.bind(op.results[0], TileRef(view, [em.tile(v).reg for v in op.operands[1:]]))


@handles("cuda_tile.get_tensor_shape")
def _get_tensor_shape(em, op):
    tv = em.get(op.operands[0])
    for r, d in zip(op.results, tv.shape):
        em.bind(r, _scalar_of(em, r.type.element_type, d))


def _scalar_of(em, etype, value):
    if isinstance(value, int):
        return em.splat_const(etype, value)
    out = em.new_tile(etype, ())
    if bits(etype) == 64:
        em.kb.emit(f"cvt.s64.s32 \t{out.reg}, {value}")
    else:
        em.mov(out.reg, value, etype)
    return out


@handles("cuda_tile.get_index_space_shape")
def _get_index_space_shape(em, op):
    pv = em.get(op.operands[0])
    kb = em.kb
    for r, d, s in zip(op.results, pv.dim_map, pv.steps):
        n = pv.tv.shape[d]
        if isinstance(n, int):
            em.bind(r, em.splat_const(r.type.element_type, -(-n // s)))
            continue
        t = kb.reg(B32)
        kb.emit(f"add.s32 \t{t}, {n}, {s - 1}")
        q = kb.reg(B32)
        kb.emit(f"div.s32 \t{q}, {t}, {s}")
        em.bind(r, _scalar_of(em, r.type.element_type, q))


@handles("nv_tileas.view")
def _view(em, op):
    rt = op.results[0].type
    src = em.get(op.operands[0])
    res = getattr(rt, "residency", "")
    if isinstance(src, TensorView):
        em.bind(op.results[0], src)
    elif isinstance(src, SharedView):
        em.bind(op.results[0], src)
    elif isinstance(src, Tile) and res == "GMEM":
        em.bind(op.results[0], PointerView(src.reg, rt.element_type))
    elif isinstance(src, Tile) and res == "SMEM":
        if src.home is None:
            em.fail("views a tile that has no shared-memory home")
        em.bind(op.results[0], SharedView(src.home, src.etype, src.shape))
    elif isinstance(src, Tile) and not src.splat and _aliased(em, op):
        em.bind(op.results[0], Cell(src))     # a loop's accumulator: the view is its registers
    elif isinstance(src, Tile) and _renamed(op):
        em.bind(op.results[0], Cell(src, renamed=True))
    elif isinstance(src, Tile):
        em.bind(op.results[0], Cell(em.fresh_copy(src, src.layout if not src.splat else
                                                  (em.layout_for(src.shape) if src.shape else None))))
    else:
        em.fail(f"cannot view {type(src).__name__}")


def _aliased(em, op):
    """Whether RMEM view `op` holds a loop-carried accumulator only its dot
    touches (wgmma_inflight.view_chain): the view and its loads then use the
    carried registers themselves, so nothing copies the accumulator."""
    from .wgmma_inflight import view_chain
    chain = view_chain(op)
    if chain is None:
        return False
    em.alias_loads.update((chain[1], chain[2]))
    return True


# regions that run exactly once, in every thread, each time the op holding them does
_ONCE = ("nv_tileas.async.pipeline.consume_one", "nv_tileas.async.pipeline.produce_one")


def _renamed(op) -> bool:
    """Whether RMEM view `op` can be an SSA variable rather than registers
    written in place: its only users load from it or store to it, and every
    store runs exactly once each time `op` does (in `op`'s block, or in regions
    that run once, _ONCE). Emitted in program order, a store then just rebinds
    the view to the stored registers and a load reads the registers bound at
    that point, on every path. No register is ever overwritten, so the view,
    its loads and its stores share registers with their sources: none of the
    copies in and out of a loop-carried tile's view is made (ptxas, given
    copies, kept some of them as moves in the loop, and gave a loop's two
    wgmma accumulators one register range)."""
    view = op.results[0]
    for use in view.uses:
        user = use.owner
        if user.name == "nv_tileas.load":
            continue
        if user.name != "nv_tileas.store" or user.operands[0] is not view or user.operands[1] is view:
            return False
        block = user.parent
        while block is not op.parent:
            owner = block.parent_op if block is not None else None
            if owner is None or owner.name not in _ONCE:
                return False
            block = owner.parent
    return True


@handles("nv_tileas.alloc_tensor")
def _alloc_tensor(em, op):
    t = op.results[0].type
    n = 1
    for d in t.shape:
        n *= d
    # a stage buffer that may hold swizzled slots starts where the hardware's
    # swizzle pattern does (wgmma reads such slots in place)
    slot_2d = len(t.shape) >= 3 and all(d == 1 for d in t.shape[1:-2])
    es = byte_size(t.element_type)
    from .swizzle import staging_swizzle
    swz = staging_swizzle(op)
    align = 1024 if swz is not None or (slot_2d and es in (1, 2) and n * es >= 1024) else 128
    sym = em.kb.shared_buffer(n * byte_size(t.element_type), align, "stage", span=live_span(op))
    if swz is not None:         # a TMA store's staging tile: written through the map's swizzle
        sym = em.addr_of(sym)
        em.swizzle_of[sym] = swz
    em.bind(op.results[0], SharedView(sym, t.element_type, t.shape))


def _phase_of(op):
    """(entry block, index of `op`'s top-level ancestor in it): the emitter's phase."""
    for top in (op, *op.ancestors()):
        block = top.parent
        if block is not None and getattr(block.parent_op, "name", None) == "cuda_tile.entry":
            return block, next(i for i, o in enumerate(block.ops) if o is top)
    return None, None


def live_span(op, through_tiles=False, same_bytes=None):
    """(first, last): the phases of `op` and of the last op that uses a value
    derived from `op`'s result through views, pipelines and iterators (tiles
    read out of the buffer are copies and do not extend it, unless
    `through_tiles`: the result is itself a tile that lives in the buffer, and
    its reshapes and permutations are views of it, as are the results of the
    ops `same_bytes(op)` accepts); None when `op` is not inside an entry."""
    from ...dialects.cuda_tile.types import TileType
    block, first = _phase_of(op)
    if block is None:
        return None
    pos = {id(o): i for i, o in enumerate(block.ops)}
    last = first
    work, seen = [op.results[0]], set()
    while work:
        for user in work.pop().users:
            if id(user) in seen:
                continue
            seen.add(id(user))
            top = user
            while top is not None and top.parent is not block:
                top = top.parent_op
            if top is not None:
                last = max(last, pos[id(top)])
            work.extend(r for r in user.results if not isinstance(r.type, TileType)
                        or (through_tiles and (user.name in HOME_VIEWS or (same_bytes and same_bytes(user)))))
    return first, last


@handles("nv_tileas.load")
def _load(em, op):
    src = em.get(op.operands[0])
    t = op.results[0].type
    if isinstance(src, Cell) and (src.renamed or op in em.alias_loads):
        em.bind(op.results[0], src.tile)
    elif isinstance(src, Cell):
        em.bind(op.results[0], em.fresh_copy(src.tile, src.tile.layout))
    elif isinstance(src, SharedView):
        tile = em.home_tile(t.element_type, t.shape, src.addr if src.addr.startswith("%") else
                            em.addr_of(src.addr))
        if needs_registers(op.results[0]):
            em.regs_of(tile)
        em.bind(op.results[0], tile)
    else:
        em.fail("loads from an unsupported view")
    for r in op.results[1:]:
        em.bind(r, None)


@handles("nv_tileas.store")
def _store(em, op):
    dst, value = em.get(op.operands[0]), em.get(op.operands[1])
    if isinstance(dst, Cell) and dst.renamed:
        value = em.regs_of(value)     # a splat view takes the value as it comes
        dst.tile = value if dst.tile.splat else em.in_layout(value, dst.tile.layout)
    elif isinstance(dst, Cell):
        em.copy_into(dst.tile, em.regs_of(value))
    elif isinstance(dst, SharedView):
        if value.home != dst.addr:
            base = dst.addr if dst.addr.startswith("%") else em.addr_of(dst.addr)
            em.store_shared(em.regs_of(value), base, linear_offsets(dst.shape))
    else:
        em.fail("stores to an unsupported view")
    for r in op.results:
        em.bind(r, None)


HOME_AWARE = ("nv_tileas.dot", "nv_tileas.async.pipeline.yield", "nv_tileas.store", "nv_tileas.view")




def needs_registers(value) -> bool:
    """Whether some user of a shared-memory tile (or of a view of it) needs it in registers."""
    return any(u.name not in HOME_AWARE and (u.name not in HOME_VIEWS or needs_registers(u.results[0]))
               for u in value.users)


# ---- global accesses through views ------------------------------------------------------------

def _stride_bytes(em, stride, es, off):
    """(immediate, register) byte offset of `off` elements along a stride."""
    if isinstance(stride, int):
        return off * stride * es, None
    if off == 0:
        return 0, None
    r = em.kb.reg(B64)
    em.kb.emit(f"mul.wide.s32 \t{r}, {stride}, {off * es}")
    return 0, r


def global_slots(em, base, etype, shape, layout, starts, strides, extents, in_bounds=None):
    """Per slot (address register, byte immediate, predicate or None) for the tile
    whose element c sits at base + es * sum (starts_i + c_i) * strides_i and is
    in bounds when 0 <= starts_i + c_i < extents_i."""
    kb = em.kb
    es = byte_size(etype)
    bases = em.bases(layout)
    rank = len(shape)
    firsts = []
    for i in range(rank):
        p = kb.reg(B32)
        kb.emit(f"add.s32 \t{p}, {starts[i]}, {bases[i]}")
        firsts.append(p)
    addr = kb.reg(B64)
    kb.emit(f"mov.b64 \t{addr}, {base}")
    for p, s in zip(firsts, strides):
        t = kb.reg(B64)
        if isinstance(s, int):
            kb.emit(f"mul.wide.s32 \t{t}, {p}, {s * es}")
        else:
            e = kb.reg(B32)
            kb.emit(f"mul.lo.s32 \t{e}, {p}, {s}")
            kb.emit(f"mul.wide.s32 \t{t}, {e}, {es}")
        nxt = kb.reg(B64)
        kb.emit(f"add.s64 \t{nxt}, {addr}, {t}")
        addr = nxt
    offs = [layout.offsets(s) for s in range(layout.nslots)]
    contrib, preds = {}, {}
    for i in range(rank):
        for off in sorted({o[i] for o in offs}):
            contrib[(i, off)] = _stride_bytes(em, strides[i], es, off)
            if in_bounds is not None and in_bounds[i]:
                continue
            q = kb.reg(PRED)
            pos = kb.reg(B32)
            kb.emit(f"add.s32 \t{pos}, {firsts[i]}, {off}")
            kb.emit(f"setp.lt.u32 \t{q}, {pos}, {extents[i]}")
            preds[(i, off)] = q
    combined = {}
    out = []
    for o in offs:
        imm, regs = 0, []
        for i in range(rank):
            ci, cr = contrib[(i, o[i])]
            imm += ci
            if cr is not None:
                regs.append(cr)
        a = addr
        for r in regs:
            nxt = kb.reg(B64)
            kb.emit(f"add.s64 \t{nxt}, {a}, {r}")
            a = nxt
        ps = tuple(preds[(i, o[i])] for i in range(rank) if (i, o[i]) in preds)
        if not ps:
            pred = None
        elif len(ps) == 1:
            pred = ps[0]
        elif ps in combined:
            pred = combined[ps]
        else:
            pred = kb.reg(PRED)
            kb.emit(f"and.pred \t{pred}, {ps[0]}, {ps[1]}")
            for q in ps[2:]:
                kb.emit(f"and.pred \t{pred}, {pred}, {q}")
            combined[ps] = pred
        out.append((a, imm, pred))
    return out


def vector_width(em, etype, layout, strides, extents, in_bounds, first_addr, known=None, registers=True):
    """(vec, predicate or None) when each run of `layout.vec` consecutive slots
    (adjacent elements of the last dimension, in Blocked and MmaAcc layouts)
    may move as one vector access, else None. The run is contiguous when the
    last stride is 1; one instruction serves it when the run's first address is
    vec-aligned (the thread's first address aligned and every other stride a
    multiple of vec) and the run is all in or all out of bounds (the last extent
    a multiple of vec). What is not known statically is tested at run time: the
    predicate (None: always) chooses the vector code, the caller keeps the
    element-wise code for the other case. Only element types held at their own
    width in registers (16/32/64-bit) vectorize, unless the access bypasses
    registers (`registers` False: cp.async, which moves any whole bytes).
    `known` (Known of the access): what the IR proves needs no test (cuTile's
    `assume div_by` facts)."""
    vec = getattr(layout, "vec", 1)
    es = byte_size(etype)
    if vec < 2 or strides[-1] != 1 or not vector_element_for(etype, registers):
        return None
    if vec * es > 16:
        vec = 16 // es
        if vec < 2 or layout.vec % vec:
            return None
    kb = em.kb
    checks = []
    proven = known is not None and known.starts is not None
    for i, st in enumerate(strides[:-1]):
        if isinstance(st, int):
            if st % vec:
                return None
        elif not (proven and known.strides[i] % vec == 0):
            checks.append((st, vec - 1, B32))
    last_ok = in_bounds is not None and in_bounds[-1]
    if not last_ok:
        ext = extents[-1]
        if isinstance(ext, int):
            if ext % vec:
                return None
        elif not (proven and known.shape[-1] % vec == 0):
            checks.append((ext, vec - 1, B32))
    # the first address: the base, every stride but the last and the last dim's start
    # (a run starts at a multiple of vec within the tile) all aligned
    if not (proven and known.base % (vec * es) == 0 and known.starts[-1] % vec == 0
            and all(isinstance(st, int) or known.strides[i] % vec == 0 for i, st in enumerate(strides[:-1]))):
        checks.append((first_addr, vec * es - 1, B64))
    ok = None
    for reg, mask, cls in checks:
        t = kb.reg(cls)
        kb.emit(f"and.b{64 if cls == B64 else 32} \t{t}, {reg}, {mask}")
        q = kb.reg(PRED)
        kb.emit(f"setp.eq.{'u64' if cls == B64 else 'u32'} \t{q}, {t}, 0")
        ok = _and(em, ok, q)
    return vec, ok


def _vector_type(etype, vec):
    t = mem_type(etype)
    return f".v{vec}{t}"


def access_slots(em, regs, etype, slots, layout, plan, emit_one, emit_vector):
    """Emit the accesses of `slots` (from global_slots): through `emit_vector(regs,
    where, pred, vtype)` per run of plan's width when `plan` (vector_width) is
    given -- behind a branch when its predicate is a run-time test, with the
    element-wise `emit_one(reg, where, pred)` code on the other side -- else
    element-wise."""
    kb = em.kb

    def elementwise():
        for r, (a, imm, p) in zip(regs, slots):
            emit_one(r, _where(a, imm), p)

    if plan is None:
        elementwise()
        return
    vec, ok = plan
    slow = done = None
    if ok is not None:
        slow, done = kb.label("scalar_access"), kb.label("access_done")
        kb.emit(f"@!{ok} bra \t{slow}")
    vt = _vector_type(etype, vec)
    for i in range(0, len(slots), vec):
        a, imm, p = slots[i]     # the run's other slots are at imm + k * esize, under the same bounds
        emit_vector(regs[i:i + vec], _where(a, imm), p, vt)
    if ok is not None:
        kb.emit(f"bra.uni \t{done}")
        kb.place(slow)
        elementwise()
        kb.place(done)


def load_slots(em, regs, etype, slots, layout, plan, pad):
    """Global loads of `slots` into `regs` (padding where out of bounds)."""
    kb = em.kb

    def one(r, where, p):
        ld_global(em, r, etype, where, p, pad)

    def vector(rs, where, p, vt):
        if p is not None:
            for r in rs:
                em.mov_imm(r, etype, pad if pad is not None else 0)
        kb.emit(f"{'@' + p + ' ' if p else ''}ld.global{vt} \t{{{', '.join(rs)}}}, {where}")
    access_slots(em, regs, etype, slots, layout, plan, one, vector)


def async_fill(em, base, etype, shape, starts, strides, extents, in_bounds, pad, dst, known=None):
    """Fill the shared tile at `dst` from global memory with cp.async (see
    async_copy; None when it cannot). The copy has a distribution of its own,
    never seen by another op: runs of 16 bytes, half the copies of the usual
    4-element runs of 16-bit data."""
    fp4.refuse_global(etype)
    layout = blocked(shape, em.group.threads, max(MAX_VEC, 16 // byte_size(etype)))
    slots = global_slots(em, base, etype, shape, layout, starts, strides, extents, in_bounds)
    plan = vector_width(em, etype, layout, strides, extents, in_bounds, slots[0][0], known, registers=False)
    # the element-wise branch computes its own addresses: the copy loop then needs
    # only the run starts' (the others' arithmetic is dead there)
    return async_copy(em, slots, etype, layout, plan, pad, dst, shape,
                      lambda: global_slots(em, base, etype, shape, layout, starts, strides, extents, in_bounds))


def async_copy(em, slots, etype, layout, plan, pad, dst, shape, slow_slots=None):
    """Copy the tile of `slots` into the row-major shared tile at `dst` with
    cp.async (runs of plan's width; out-of-bounds runs read nothing and are
    zero-filled), the element-wise register path behind the plan's run-time
    test (with `slow_slots()`'s addresses when given). Returns the predicate
    under which copies were issued (True: always),
    or None when cp.async cannot do it (nothing emitted): no vector plan, a
    nonzero padding value, or a destination not aligned to the run."""
    if plan is None or pad != 0 or (isinstance(pad, float) and math.copysign(1.0, pad) < 0):
        return None
    vec, ok = plan
    es = byte_size(etype)
    coeffs = linear_offsets(shape)
    if vec * es not in (4, 8, 16) or em.shared_run(layout, coeffs, etype, dst, max_elems=16, registers=False) < vec:
        return None
    kb = em.kb
    lin = em.linear_base(layout, coeffs)
    where = em._shared_addresses(dst, lin, es)
    slow = done = None
    if ok is not None:
        slow, done = kb.label("sync_copy"), kb.label("copy_done")
        kb.emit(f"@!{ok} bra \t{slow}")
    owner = em.owner(layout)
    for i in range(0, len(slots), vec):
        a, imm, p = slots[i]
        off = sum(o * c for o, c in zip(layout.offsets(i), coeffs)) * es
        cp_async(em, where(off), _where(a, imm), vec * es, p, owner)
    if ok is None:
        return True
    kb.place(done)
    # the element-wise copy for misaligned views is large and rarely run: kept out
    # of line, so the copy loop stays small in the instruction cache
    with kb.into(kb.cold):
        kb.place(slow)
        tile = em.new_tile(etype, shape, layout)
        load_slots(em, tile.regs, etype, slow_slots() if slow_slots else slots, layout, None, pad)
        em.store_shared(tile, dst, coeffs)
        kb.emit(f"bra.uni \t{done}")
    return ok


def _and(em, a, b):
    return em.pred_and(a, b)


def ld_global(em, dst, etype, where, pred, pad=None, cache=""):
    """dst = pred ? *where : pad."""
    kb = em.kb
    fp4.refuse_global(etype)
    cls = reg_class(etype)
    if cls == PRED:
        b = kb.reg(B32)
        kb.emit(f"mov.u32 \t{b}, 0")
        kb.emit(f"{'@' + pred + ' ' if pred else ''}ld.global{cache}.u8 \t{b}, {where}")
        kb.emit(f"setp.ne.u32 \t{dst}, {b}, 0")
        return
    if pred is not None:
        em.mov_imm(dst, etype, pad if pad is not None else 0)
    kb.emit(f"{'@' + pred + ' ' if pred else ''}ld.global{cache}{mem_type(etype)} \t{dst}, {where}")


def st_global(em, src, etype, where, pred):
    kb = em.kb
    fp4.refuse_global(etype)
    if reg_class(etype) == PRED:
        b = kb.reg(B32)
        kb.emit(f"selp.u32 \t{b}, 1, 0, {src}")
        src, t = b, ".u8"
    else:
        t = mem_type(etype).replace(".s8", ".b8").replace(".s16", ".b16")
    kb.emit(f"{'@' + pred + ' ' if pred else ''}st.global{t} \t{where}, {src}")


def _pad_value(pad, etype):
    if pad is None or float_name(etype) == "":
        return 0
    return _PAD.get(pad, 0.0) if isinstance(pad, str) else float(pad)


def _where(a, imm):
    return f"[{a}+{imm}]" if imm else f"[{a}]"


def _ref_known(ref, coords):
    """Known of a block_tile access: its starts are tile index x step (+ the
    extra coordinate), so they divide by the step's power of two (and the
    coordinate's); None when the view's facts are unknown."""
    from ...dialects.cuda_tile.divisibility import entry_divisor, known_divisor
    pv = ref.view
    if pv.tv.known is None:
        return None
    starts = [entry_divisor(s) for s in pv.steps]
    if coords:
        starts = [min(d, known_divisor(c)) for d, c in zip(starts, coords)]
    return pv.tv.known.access(starts, list(pv.dim_map))


def _ref_geometry(em, op, ref, coords):
    """(starts per tile dim, strides, extents) of a block_tile reference."""
    kb = em.kb
    pv = ref.view
    tv = pv.tv
    starts, strides, extents = [], [], []
    for i, (k, s, d) in enumerate(zip(ref.index, pv.steps, pv.dim_map)):
        st = kb.reg(B32)
        kb.emit(f"mul.lo.s32 \t{st}, {k}, {s}")
        if coords:
            c = em.tile(coords[i]).reg
            nxt = kb.reg(B32)
            kb.emit(f"add.s32 \t{nxt}, {st}, {c}")
            st = nxt
        starts.append(st)
        strides.append(tv.strides[d])
        extents.append(tv.shape[d])
    return starts, strides, extents


def _in_bounds(op):
    a = op.attributes.get("in_bounds")
    return list(a.values) if a is not None else None


@handles("nv_tileas.tiled_load")
def _tiled_load(em, op):
    fill, registers = _load_plan(em, op)
    t = op.results[0].type
    slot = em.async_targets.get(op)     # a pipeline slot this load fills (see ops_pipeline)
    issued = fill(slot) if slot is not None else None
    if issued is not None:
        em.async_issued = issued
        em.bind(op.results[0], em.home_tile(t.element_type, tuple(t.shape), slot))
    elif slot is None and not em.scratch_limit and dot_operand_only(op):   # only tensor cores read it
        later = issued_with(em, op, lambda o: em.async_targets.get(o) is None,
                            (em.shared_limit or 0) // EARLY_SHARE, quiet)
        span = live_span(op, through_tiles=True, same_bytes=same_bytes)
        loads = [(op, fill, registers, span)]
        for o in later:     # filled with `op`: their buffers are live from its phase on
            s = live_span(o, through_tiles=True, same_bytes=same_bytes)
            loads.append((o, *_load_plan(em, o), (span[0], s[1]) if span and s else s))
        def meanwhile():          # the maps' round trips overlap the copies'
            d = maps_ahead(em, loads[-1][0], quiet)
            if d is None:
                return None
            from .first_fills import set_up_ahead
            set_up_ahead(em, loads[-1][0], d, quiet)      # the pipelines, for their first fills
            batch = em.kb.section(), em.inits_published
            em.emit_op(d)         # the descriptor batch (ops_tma._batch): marked early there
            return batch
        for (o, *_), tile in zip(loads, load_into_shared(em, loads, meanwhile)):
            em.bind(o.results[0], tile)
            for r in o.results[1:]:
                em.bind(r, None)
            if o is not op:
                follow(em, o)       # as emit_op does after a handler
                em.early.add(o)
        return
    else:
        em.bind(op.results[0], registers())
    for r in op.results[1:]:
        em.bind(r, None)


def _load_plan(em, op):
    """(fill, registers) of tiled load `op`: `fill(dst)` issues its cp.async copies
    into the shared tile at `dst` (None: it cannot); `registers()` loads the tile
    into registers."""
    ref = em.get(op.view)
    t = op.results[0].type
    shape = tuple(t.shape)
    if not isinstance(ref, TileRef):
        em.fail("loads through an unsupported view")
    starts, strides, extents = _ref_geometry(em, op, ref, list(op.coords))
    pad_attr = op.attributes.get("padding_value")
    pad = _pad_value(getattr(pad_attr, "value", None), t.element_type)
    known = _ref_known(ref, list(op.coords))

    def fill(dst):          # cp.async into the shared tile at `dst` (None: it cannot)
        return async_fill(em, ref.view.tv.base, t.element_type, shape, starts, strides, extents,
                          _in_bounds(op), pad, dst, known)

    def registers():
        # the layout its users want (propagate_layouts' load hints), else blocked
        layout = layout_of(em, op.results[0], shape) or em.layout_for(shape)
        if fp4.is_fp4(t.element_type):       # packed two to a byte: one nibble a slot
            return fp4.load_tile(em, ref.view.tv.base, t.element_type, shape, layout, starts, strides,
                                 extents, _in_bounds(op), pad, global_slots)
        slots = global_slots(em, ref.view.tv.base, t.element_type, shape, layout, starts, strides, extents,
                             _in_bounds(op))
        plan = vector_width(em, t.element_type, layout, strides, extents, _in_bounds(op), slots[0][0], known)
        out = em.new_tile(t.element_type, shape, layout)
        load_slots(em, out.regs, t.element_type, slots, layout, plan, pad)
        return out

    return fill, registers


@handles("nv_tileas.tiled_store")
def _tiled_store(em, op):
    ref = em.get(op.view)
    value = em.tile(op.value)
    shape = tuple(op.value.type.shape)
    starts, strides, extents = _ref_geometry(em, op, ref, list(op.coords))
    layout = value.layout or em.layout_for(shape)
    value = em.in_layout(value, layout)
    owner = em.owner(layout)
    slots = global_slots(em, ref.view.tv.base, value.etype, shape, layout, starts, strides, extents,
                         _in_bounds(op))
    slots = [(a, imm, _and(em, p, owner)) for a, imm, p in slots]
    plan = vector_width(em, value.etype, layout, strides, extents, _in_bounds(op), slots[0][0],
                        _ref_known(ref, list(op.coords)))
    store_slots(em, [value.at(s) for s in range(len(slots))], value.etype, slots, layout, plan)
    for r in op.results:
        em.bind(r, None)


def store_slots(em, regs, etype, slots, layout, plan):
    """Global stores of `regs` to `slots` (from global_slots; out-of-bounds ones skipped)."""
    def one(r, where, p):
        st_global(em, r, etype, where, p)

    def vector(rs, where, p, vt):
        em.kb.emit(f"{'@' + p + ' ' if p else ''}st.global{vt.replace('.s', '.b')} \t{where}, {{{', '.join(rs)}}}")
    access_slots(em, regs, etype, slots, layout, plan, one, vector)


def pointer_slots(em, base, idx: Tile, etype):
    """Per slot address register of base + idx * sizeof(etype)."""
    es = byte_size(etype)
    return [vector_gather.address(em, base, idx, s, es) for s in range(1 if idx.splat else len(idx.regs))]


@handles("nv_tileas.gather_load")
def _gather_load(em, op):
    view = em.get(op.view)
    t = op.results[0].type
    idx = em.tile(op.indices)
    mask = em.tile(op.mask) if op.mask is not None else None
    layout = idx.layout if not idx.splat else (mask.layout if mask is not None and not mask.splat else None)
    idx = em.in_layout(idx, layout)
    if mask is not None:
        mask = em.in_layout(mask, layout)
    pad = _pad_value(getattr(op.attributes.get("padding_value"), "value", None), t.element_type)
    et = t.element_type
    slot = em.async_targets.get(op)     # a pipeline slot this gather fills (see ops_pipeline)
    if slot is not None and layout is not None and vector_gather.async_fill(em, op, view.base, idx, mask, et,
                                                                            pad, slot):
        em.async_issued = True
        em.bind(op.results[0], em.home_tile(et, tuple(t.shape), slot))
        for r in op.results[1:]:
            em.bind(r, None)
        return
    out = em.new_tile(t.element_type, t.shape, layout)
    vp = vector_gather.plan(em, op, idx, et)
    if vp is not None:
        def vector(s, a, p):
            rs = out.regs[s:s + vp.width]
            if p is not None:
                for r in rs:
                    em.mov_imm(r, et, pad if pad is not None else 0)
            em.kb.emit(f"{'@' + p + ' ' if p else ''}ld.global{vector_gather.vtype(et, vp.width)} "
                       f"\t{{{', '.join(rs)}}}, [{a}]")
        vector_gather.each_run(em, vp, view.base, idx, mask, byte_size(et), len(out.regs), vector,
                               lambda s, a, p: ld_global(em, out.regs[s], et, f"[{a}]", p, pad))
        em.bind(op.results[0], out)
        for r in op.results[1:]:
            em.bind(r, None)
        return
    addrs = pointer_slots(em, view.base, idx, t.element_type)
    for s, r in enumerate(out.regs):
        ld_global(em, r, t.element_type, f"[{addrs[0 if idx.splat else s]}]",
                  mask.at(s) if mask is not None else None, pad)
    em.bind(op.results[0], out)
    for r in op.results[1:]:
        em.bind(r, None)


@handles("nv_tileas.scatter_store")
def _scatter_store(em, op):
    view = em.get(op.view)
    idx = em.tile(op.indices)
    value = em.tile(op.value)
    mask = em.tile(op.mask) if op.mask is not None else None
    layout = next((x.layout for x in (idx, value, mask) if x is not None and not x.splat), None)
    idx, value = em.in_layout(idx, layout), em.in_layout(value, layout)
    if mask is not None:
        mask = em.in_layout(mask, layout)
    owner = em.owner(layout)
    vp = vector_gather.plan(em, op, idx, value.etype) if layout is not None else None
    if vp is not None:
        et = value.etype

        def vector(s, a, p):
            vals = [value.at(s + k) for k in range(vp.width)]
            em.kb.emit(f"{'@' + q + ' ' if (q := _and(em, p, owner)) else ''}st.global"
                       f"{vector_gather.vtype(et, vp.width)} \t[{a}], {{{', '.join(vals)}}}")
        vector_gather.each_run(em, vp, view.base, idx, mask, byte_size(et), layout.nslots, vector,
                               lambda s, a, p: st_global(em, value.at(s), et, f"[{a}]", _and(em, p, owner)))
        for r in op.results:
            em.bind(r, None)
        return
    addrs = pointer_slots(em, view.base, idx if layout is not None else idx, value.etype)
    n = 1 if layout is None else layout.nslots
    for s in range(n):
        p = _and(em, mask.at(s) if mask is not None else None, owner)
        st_global(em, value.at(s), value.etype, f"[{addrs[0 if idx.splat else s]}]", p)
    for r in op.results:
        em.bind(r, None)


_ = _DYN
