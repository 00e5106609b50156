"""The emitter core: walks a scheduled entry and dispatches each op to its handler.

Handlers live in the ops_* modules, one per op family, registered by name with
`handles`. The core owns what they share: the value environment, thread groups
and their tid-derived prologue values, tile materialization and the
shared-memory moves that every cross-thread op (broadcast, permute, reduce,
layout conversion...) is built from.
"""
from __future__ import annotations

from .builder import KernelBuilder
from ...dialects.nv_tileas.layouts import MmaAcc, SliceLayout, TmemAcc, WgmmaAcc, blocked, linear_offsets
from .ptxtypes import B32, B64, F64, PRED, Unsupported, byte_size, float_imm, int_imm, mem_type, reg_class, \
    vector_element_for
from .values import CodegenError, Group, Tile
from .ir_layouts import follow

HANDLERS: dict = {}


def _defined_in(value, op) -> bool:
    """Whether `value` is defined inside one of `op`'s regions."""
    block = value.owner_block()
    while block is not None:
        p = block.parent_op
        if p is op:
            return True
        block = p.parent if p is not None else None
    return False


def quiet(op, also=()) -> bool:
    """Whether `op` emits no synchronization and nothing that depends on where it
    sits among its neighbours: a view, a pure op on scalars, or one named in
    `also`. Such ops may be emitted ahead of their turn, or looked past."""
    from ...ir.traits import Pure
    if op.name == "nv_tileas.view" or op.name in also:
        return True
    return not op.regions and op.has_trait(Pure) and all(not getattr(r.type, "shape", ()) for r in op.results)


def handles(*names):
    def deco(fn):
        for n in names:
            HANDLERS[n] = fn
        return fn
    return deco


class Emitter:
    def __init__(self, kb: KernelBuilder, target, cta_threads: int):
        self.kb, self.target, self.cta_threads = kb, target, cta_threads
        self.env: dict = {}
        self.group: Group | None = None
        self.exit_label = kb.label("exit")
        self.loops: list = []          # enclosing loop frames (for break/continue)
        self.op = None                 # the op being emitted (for diagnostics)
        self.align_of: dict = {}       # shared-address register -> known byte alignment
        self.swizzle_of: dict = {}     # shared-address register -> Swizzle of the tile stored there
        self.scratch_limit = None      # bytes: layout changes of bigger tiles go through scratch by rows
        self.shared_limit = None       # bytes of shared memory a CTA may use (ModuleEmitter)
        self.device_maps = set()       # the entry block's descriptors that build device tensor maps
        self.stamps = False            # %globaltimer stamps at phase boundaries (stamps.py)
        self.copies = True             # tensor-core operand copies allowed (ModuleEmitter.copies)
        self.pingpong = False          # wgmma copies alternate between two buffers (canonical._copy_buffer)
        self.block_runs: dict = {}     # block -> times emit_block began it
        self.after_block: dict = {}    # (block, run) -> callbacks run once that run is emitted
        self.written: set = set()      # shared buffers written so far (guard_write)
        self.async_targets: dict = {}  # load op -> the pipeline slot it may fill with cp.async
        self.async_issued = None       # set by such a load: predicate of its cp.async path (True: always), or "tma"
        self.async_barrier = None      # the slot's `full` mbarrier, when TMA fills it (ops_tma.tma_fills)
        self.tma_pool = None           # tensormap._Pool: the CTA's tensor-map slot
        self.phase_align = False       # the CTAs start their loads in step (start_phase.py)
        self.first_fills: list = []    # Pipes whose first slots are copied while the maps are built (first_fills.py)
        self.inits_published = 0       # barrier-init publications so far (ops_pipeline._publish_inits)
        self.cluster = 1               # CTAs per cluster (split-tile-blocks), 1: none
        self.multicast_of: dict = {}   # TMA descriptor op -> CTAs its slots are multicast to (multicast.py)
        self.cluster_pending = False   # a multicast pipeline's barrier inits await the cluster barrier
        self.cluster_synced = False    # multicast is used: the CTAs meet again before the exit
        self.maxnreg = None            # registers a thread enters with (setmaxnreg rebalances them)
        self.agent_regs = None         # the running agent's count after setmaxnreg, if it has one
        self.widest = 0                # registers a thread holds of the largest register tile bound
        self.inflight: list = []       # wgmma_inflight.InFlight of the dots kept in flight
        # consume_one op -> (section before, section after) its latest `full` wait (ops_pipeline):
        # a dot whose leader alone reads the slot guards the wait for the leader (ops_tcgen05)
        self.full_waits: dict = {}
        self.alias_loads: set = set()  # loads of a register view that read its registers in place
        self.operand_buffers: dict = {}  # block id -> [[symbol, last reader]]: operand_loads' pool
        self.wgmma = False             # wgmma for tensor-core dots: False, True (every one that fits) or ops_wgmma.AUTO
        self.mma_sync_only = False     # --no-wgmma: tensor-core dots on mma.sync only (no tcgen05 either)
        self.layout_repairs: list = [] # (op, had, wanted): results converted into their IR layout (ir_layouts)
        self.early: set = set()        # ops emitted ahead of their turn (ops_tma._batch): skipped at it
        self.after_op: dict = {}       # op -> callbacks run once it is emitted (wgmma_prefetch)

    # ---- dispatch ---------------------------------------------------------------------
    def emit_block(self, block):
        run = self.block_runs[block] = self.block_runs.get(block, 0) + 1
        for op in block.ops:
            self.emit_op(op)
        for fn in self.after_block.pop((block, run), ()):
            fn(self)

    def emit_op(self, op):
        if op in self.early:
            return
        if op.name not in HANDLERS:
            raise CodegenError(op, f"'{op.name}' is not supported by the PTX emitter")
        self.emit_handler(op, follow_ups=True)

    def can_emit(self, op) -> bool:
        """Whether the emitter has a handler for `op`."""
        return op.name in HANDLERS

    def emit_handler(self, op, follow_ups=False):
        """`op`'s handler; with `follow_ups`, then the layout repair of its results and
        its after-op hooks (emit_op). Without them: a scalar op emitted once more out of
        its turn (first_fills: a persistent kernel's first tile)."""
        saved, self.op = self.op, op
        try:
            HANDLERS[op.name](self, op)
            if follow_ups:
                if op.results:
                    follow(self, op)
                for fn in self.after_op.pop(op, ()):
                    fn(self)
        except Unsupported as e:
            raise CodegenError(op, f"'{op.name}' {e}") from None
        finally:
            self.op = saved

    def fail(self, message: str):
        raise CodegenError(self.op, message)

    # ---- values -----------------------------------------------------------------------
    def get(self, v):
        try:
            return self.env[v]
        except KeyError:
            raise CodegenError(self.op, "uses a value the emitter did not produce") from None

    def bind(self, v, x):
        self.env[v] = x
        if isinstance(x, Tile) and not x.splat and x.regs:
            self.widest = max(self.widest, len(x.regs) * (2 if reg_class(x.etype) in (B64, F64) else 1))

    # ---- thread groups -----------------------------------------------------------------
    def enter_group(self, tid: str, threads: int, barrier_id: int, first_thread: int = 0) -> Group:
        g = Group(tid, threads, barrier_id, self.kb.section())
        g.first_thread = first_thread
        self.group = g
        return g

    def sync(self):
        g = self.group
        if g.barrier_id == 0:
            self.kb.emit("bar.sync \t0")
        else:
            self.kb.emit(f"bar.sync \t{g.barrier_id}, {g.threads}")

    def wait_parity(self, addr, parity):
        """Wait until the phase of parity `parity` of the mbarrier at `addr` completes."""
        kb = self.kb
        again = kb.label("wait")
        p = kb.reg(PRED)
        kb.place(again)
        kind = "try_wait" if self.target.hopper else "test_wait"
        kb.emit(f"mbarrier.{kind}.parity.shared.b64 \t{p}, [{addr}], {parity}")
        kb.emit(f"@!{p} bra \t{again}")

    def _prologue(self):
        return self.kb.into(self.group.prologue)

    def warpgroup_index(self) -> str:
        """tid / 128 in the group prologue, broadcast from lane 0: the same in
        every lane, and ptxas keeps a shuffled value it can prove uniform in a
        uniform register (descriptors built from it then stay out of the
        vector pipe)."""
        g = self.group
        got = g.bases.get("warpgroup")
        if got is None:
            kb = self.kb
            got = kb.reg(B32)
            with self._prologue():
                kb.emit(f"shr.u32 \t{got}, {g.tid}, 7")
                kb.emit(f"shfl.sync.idx.b32 \t{got}, {got}, 0, 31, -1")
            g.bases["warpgroup"] = got
        return got

    def hoist_point(self, values):
        """The loop frame whose preheader may compute a pure function of
        `values` (IR values) for a use at the current point: the outermost
        enclosing loop of this group that all of them are defined outside of,
        or None. A value defined outside a loop keeps its registers for the
        whole loop (only block arguments are reassigned)."""
        best = None
        for f in reversed(self.loops):
            if f.preheader is None:
                continue                          # if / pipeline regions: look further out
            if f.group is not self.group or any(_defined_in(v, f.op) for v in values):
                break
            best = f
        return best

    def bases(self, layout) -> list[str]:
        """Per-dimension coordinate of this thread's first element (group prologue)."""
        g = self.group
        got = g.bases.get(layout)
        if got is not None:
            return got
        kb = self.kb
        out = []
        if isinstance(layout, MmaAcc):
            with self._prologue():
                out = self._mma_bases(layout)
            g.bases[layout] = out
            return out
        if isinstance(layout, WgmmaAcc):
            with self._prologue():
                out = self._wgmma_bases(layout)
            g.bases[layout] = out
            return out
        if isinstance(layout, TmemAcc):
            with self._prologue():
                out = self._tmem_bases(layout)
            g.bases[layout] = out
            return out
        if isinstance(layout, SliceLayout):   # the parent's coordinates of the kept dimensions
            parent = self.bases(layout.parent)
            zero = None
            if -1 in layout.axes:
                zero = kb.reg(B32)
                with self._prologue():
                    kb.emit(f"mov.u32 \t{zero}, 0")
            out = [parent[a] if a >= 0 else zero for a in layout.axes]
            g.bases[layout] = out
            return out
        with self._prologue():
            rest = g.tid
            for d in reversed(range(layout.rank)):
                t = layout.tpd[d]
                r = kb.reg(B32)
                if t == 1:
                    kb.emit(f"mov.u32 \t{r}, 0")
                else:
                    kb.emit(f"and.b32 \t{r}, {rest}, {t - 1}")
                    nxt = kb.reg(B32)
                    kb.emit(f"shr.u32 \t{nxt}, {rest}, {t.bit_length() - 1}")
                    rest = nxt
                if d == layout.rank - 1 and layout.vec > 1:
                    s = kb.reg(B32)
                    kb.emit(f"shl.b32 \t{s}, {r}, {layout.vec.bit_length() - 1}")
                    r = s
                out.append(r)
        out.reverse()
        g.bases[layout] = out
        return out

    def _tmem_bases(self, layout) -> list[str]:
        """Row 128 (g % row_groups) + tid % 128, column (g / row_groups) cols for
        warpgroup g (TmemAcc)."""
        kb, tid = self.kb, self.group.tid
        row, col = kb.reg(B32), kb.reg(B32)
        if layout.half:       # row 16 (warp % 4) + lane % 16; column (lane / 16) N/2 + g cols
            t = kb.reg(B32)
            kb.emit(f"and.b32 \t{row}, {tid}, 15")
            kb.emit(f"shr.u32 \t{t}, {tid}, 1")
            kb.emit(f"and.b32 \t{t}, {t}, 48")
            kb.emit(f"or.b32 \t{row}, {row}, {t}")
            kb.emit(f"shr.u32 \t{col}, {tid}, 4")
            kb.emit(f"and.b32 \t{col}, {col}, 1")
            kb.emit(f"mul.lo.u32 \t{col}, {col}, {layout.shape[1] // 2}")
            if layout.col_groups > 1:
                kb.emit(f"shr.u32 \t{t}, {tid}, 7")
                kb.emit(f"mad.lo.u32 \t{col}, {t}, {layout.cols}, {col}")
            return [row, col]
        kb.emit(f"and.b32 \t{row}, {tid}, {128 * layout.row_groups - 1}")
        if layout.col_groups == 1:
            kb.emit(f"mov.u32 \t{col}, 0")
        else:
            kb.emit(f"shr.u32 \t{col}, {tid}, {7 + layout.row_groups.bit_length() - 1}")
            kb.emit(f"mul.lo.u32 \t{col}, {col}, {layout.cols}")
        return [row, col]

    def _mma_bases(self, layout) -> list[str]:
        kb, tid = self.kb, self.group.tid
        lane, warp = kb.reg(B32), kb.reg(B32)
        kb.emit(f"and.b32 \t{lane}, {tid}, 31")
        kb.emit(f"shr.u32 \t{warp}, {tid}, 5")
        wm_i, wn_i = kb.reg(B32), kb.reg(B32)
        kb.emit(f"div.u32 \t{wm_i}, {warp}, {layout.wn}")
        kb.emit(f"rem.u32 \t{wn_i}, {warp}, {layout.wn}")
        row, col, t = kb.reg(B32), kb.reg(B32), kb.reg(B32)
        kb.emit(f"shr.u32 \t{t}, {lane}, 2")
        kb.emit(f"mad.lo.u32 \t{row}, {wm_i}, {layout.tiles_m * 16}, {t}")
        t2 = kb.reg(B32)
        kb.emit(f"and.b32 \t{t2}, {lane}, 3")
        kb.emit(f"shl.b32 \t{t2}, {t2}, 1")
        kb.emit(f"mad.lo.u32 \t{col}, {wn_i}, {layout.tiles_n * 8}, {t2}")
        return [row, col]

    def _wgmma_bases(self, layout) -> list[str]:
        """Row 16 (warp % 4) + lane / 4 of this thread's warpgroup band, column 2 (lane % 4)
        of its column group."""
        kb, tid = self.kb, self.group.tid
        lane, t, row, col = kb.reg(B32), kb.reg(B32), kb.reg(B32), kb.reg(B32)
        kb.emit(f"and.b32 \t{lane}, {tid}, 31")
        kb.emit(f"shr.u32 \t{t}, {lane}, 2")
        wq = kb.reg(B32)
        kb.emit(f"shr.u32 \t{wq}, {tid}, 5")
        kb.emit(f"and.b32 \t{wq}, {wq}, 3")
        kb.emit(f"mad.lo.u32 \t{t}, {wq}, 16, {t}")
        wg = kb.reg(B32)
        kb.emit(f"shr.u32 \t{wg}, {tid}, 7")
        kb.emit(f"and.b32 \t{col}, {lane}, 3")
        kb.emit(f"shl.b32 \t{col}, {col}, 1")
        cg = layout.col_groups
        if cg > 1:          # warpgroup g = band * cg + column group
            c = kb.reg(B32)
            kb.emit(f"and.b32 \t{c}, {wg}, {cg - 1}")
            kb.emit(f"mad.lo.u32 \t{col}, {c}, {layout.n_per}, {col}")
            kb.emit(f"shr.u32 \t{wg}, {wg}, {cg.bit_length() - 1}")
        kb.emit(f"mad.lo.u32 \t{row}, {wg}, {layout.shape[0] // layout.row_groups}, {t}")
        return [row, col]

    def pred_and(self, a, b):
        """The predicate `a and b`; None stands for true (no new register then)."""
        if a is None or b is None:
            return b if a is None else a
        r = self.kb.reg(PRED)
        self.kb.emit(f"and.pred \t{r}, {a}, {b}")
        return r

    def owner(self, layout) -> str | None:
        """A predicate true in replica 0 of a replicated layout (None: no replicas)."""
        if layout is None:
            return self.leader()
        if layout.replicas == 1:
            return None
        g = self.group
        got = g.owners.get(layout)
        if got is None:
            got = self.kb.reg(PRED)
            with self._prologue():
                if isinstance(layout, SliceLayout):     # copies differ in the copy bits of tid
                    t = self.kb.reg(B32)
                    self.kb.emit(f"and.b32 \t{t}, {g.tid}, {layout.copy_mask}")
                    self.kb.emit(f"setp.eq.u32 \t{got}, {t}, 0")
                else:
                    self.kb.emit(f"setp.lt.u32 \t{got}, {g.tid}, {layout.used_threads}")
            g.owners[layout] = got
        return got

    def group_value(self, key, cls, body) -> str:
        """A register of class `cls` that `body(reg)` sets in the group's prologue,
        once per group (`key` names it)."""
        g = self.group
        got = g.owners.get(key)
        if got is None:
            got = g.owners[key] = self.kb.reg(cls)
            with self._prologue():
                body(got)
        return got

    def lane0(self) -> str:
        """A predicate true in lane 0 of each warp of the group."""
        def body(p):
            t = self.kb.reg(B32)
            self.kb.emit(f"and.b32 \t{t}, {self.group.tid}, 31")
            self.kb.emit(f"setp.eq.u32 \t{p}, {t}, 0")
        return self.group_value("lane0", PRED, body)

    def leader(self) -> str:
        """A predicate true in thread 0 of the group."""
        return self.group_value("leader", PRED, lambda p: self.kb.emit(f"setp.eq.u32 \t{p}, {self.group.tid}, 0"))

    def linear_base(self, layout, coeffs) -> str:
        """sum(base_d * coeffs_d) for this thread, in the group prologue."""
        key = (layout, tuple(coeffs))
        g = self.group
        got = g.bases.get(key)
        if got is not None:
            return got
        kb = self.kb
        bases = self.bases(layout)
        with self._prologue():
            acc = kb.reg(B32)
            kb.emit(f"mov.u32 \t{acc}, 0")
            for b, c in zip(bases, coeffs):
                if c:
                    nxt = kb.reg(B32)
                    kb.emit(f"mad.lo.u32 \t{nxt}, {b}, {c}, {acc}")
                    acc = nxt
        g.bases[key] = acc
        return acc

    # ---- tiles --------------------------------------------------------------------------
    def layout_for(self, shape):
        return blocked(shape, self.group.threads) if len(shape) else None

    def new_tile(self, etype, shape, layout=None) -> Tile:
        n = 1 if layout is None else layout.nslots
        cls = reg_class(etype)
        return Tile(etype, shape, layout, [self.kb.reg(cls) for _ in range(n)])

    def splat_const(self, etype, value) -> Tile:
        """A scalar constant in a fresh register."""
        t = self.new_tile(etype, ())
        self.mov_imm(t.reg, etype, value)
        return t

    def mov_imm(self, reg, etype, value):
        cls = reg_class(etype)
        if cls == PRED:
            self.kb.emit(f"setp.ne.u32 \t{reg}, {1 if int(value) & 1 else 0}, 0")
        elif type(etype).__name__ == "FloatType":
            self.kb.emit(f"mov.b{16 if cls == 'b16' else 32 if cls == 'f32' else 64} \t{reg}, "
                         f"{float_imm(float(value), etype)}")
        else:
            self.kb.emit(f"mov.b{64 if cls == B64 else 32} \t{reg}, {int_imm(int(value), etype)}")

    def mov(self, dst, src, etype):
        cls = reg_class(etype)
        if dst == src:
            return
        if cls == PRED:
            self.kb.emit(f"mov.pred \t{dst}, {src}")
        else:
            w = {"b16": 16, "b32": 32, "b64": 64, "f32": 32, "f64": 64}[cls]
            self.kb.emit(f"mov.b{w} \t{dst}, {src}")

    def in_layout(self, tile: Tile, layout) -> Tile:
        """`tile` with per-slot registers in `layout` (splat: the one register
        repeated; a layout in which every thread holds elements it already has:
        its registers, relabelled (linear_layout.register_moves); a broadcast:
        from its source (slices.broadcast_into); else through shared memory)."""
        if tile.layout == layout:
            return tile
        if tile.splat:
            if layout is None:
                return tile
            # (no home: a splat's shared copy, if any, is one element, not the tile)
            return Tile(tile.etype, tile.shape, layout, [tile.reg] * layout.nslots)
        if layout is None:
            self.fail("cannot use a distributed tile as a scalar")
        if tile.regs is None and tile.backed:
            return self.load_in(tile, layout)
        from . import slices
        got = slices.moved(self, tile, layout)
        if got is not None:
            return got
        return self.remap(tile, tile.shape, layout, linear_offsets(tile.shape))

    def load_in(self, tile: Tile, layout) -> Tile:
        """A tile backed by shared memory (a pipeline slot, a shared-layout tile
        or a view of one), read in `layout`: the same ld.shared in any layout.
        The result keeps the backing, so it can be read again in another."""
        if layout == tile.layout:
            return self.regs_of(tile)
        return Tile(tile.etype, tile.shape, layout, self._read(tile, layout), tile.home, view=tile.view)

    def _read(self, tile: Tile, layout) -> list[str]:
        """Registers of shared-memory tile `tile` (home or view) read in `layout`."""
        base, coeffs = tile.view or (tile.home, linear_offsets(tile.shape))
        return self.load_shared(tile.etype, tile.shape, layout, base, coeffs).regs

    def tile_in(self, v, layout) -> Tile:
        """The tile value of `v` with registers in `layout` (None: as it is):
        a tile still only in shared memory is read in that layout directly."""
        x = self.get(v)
        if not isinstance(x, Tile):
            self.fail("expects a tile operand")
        if layout is None or x.splat:
            return self.regs_of(x)
        if x.backed and x.layout != layout:
            # its shared copy holds while `v` is live: read it again rather than move
            # registers a first reader loaded (consumer_wait's) through scratch
            return self.load_in(x, layout)
        return self.in_layout(self.regs_of(x), layout)

    def copy_into(self, dst: Tile, src: Tile):
        """Move `src`'s elements into the registers of `dst` (same layout after conversion)."""
        src = self.in_layout(src, dst.layout)
        for a, b in zip(dst.regs, src.regs if not src.splat else [src.reg] * len(dst.regs)):
            if a != b:
                self.mov(a, b, dst.etype)

    def fresh_copy(self, tile: Tile, layout=None) -> Tile:
        """A tile in new registers (for loop-carried and branch-merged values)."""
        out = self.new_tile(tile.etype, tile.shape, layout)
        self.copy_into(out, tile)
        return out

    # ---- shared memory --------------------------------------------------------------------
    def guard_write(self, syms):
        """The group's barrier before it writes shared buffers `syms`, so that every
        thread is past their previous readers. Not needed the first time they are
        written, outside any loop: nothing read them before, and bytes a buffer
        of an earlier phase used get the builder's barrier where the phase
        begins (KernelBuilder._phase_barriers)."""
        fresh = not any(f.preheader is not None for f in self.loops) and not self.written.intersection(syms)
        self.written.update(syms)
        if not fresh:
            self.sync()

    def scratch(self, nbytes: int) -> str:
        """This group's shared scratch buffer, grown to at least `nbytes`."""
        g = self.group
        if g.scratch is None:
            g.scratch = self.kb.shared_buffer(nbytes, 16, "scratch")
        else:
            self.kb.grow_shared(g.scratch, nbytes)
        return g.scratch

    def scratch_parts(self, sizes) -> list[str]:
        """Registers addressing consecutive parts of the group scratch, one per
        size in `sizes`, each part 16-byte aligned."""
        sizes = [(s + 15) // 16 * 16 for s in sizes]
        base = self.addr_of(self.scratch(sum(sizes)))
        out, off = [], 0
        for size in sizes:
            r = self.kb.reg(B32)
            self.kb.emit(f"add.u32 \t{r}, {base}, {off}")
            self.align_of[r] = 16
            out.append(r)
            off += size
        return out

    def addr_of(self, sym: str) -> str:
        r = self.kb.reg(B32)
        self.kb.emit(f"mov.u32 \t{r}, {sym}")
        self.align_of[r] = self.kb.alignment(sym)
        return r

    def shared_run(self, layout, coeffs, etype, base: str, extra: int = 0, max_elems: int = 4,
                   registers: bool = True) -> int:
        """How many consecutive slots of `layout` one vector access moves at
        base + esize * (sum c_d * coeffs_d + extra): runs of the blocked layout's
        `vec` elements are contiguous when the last coefficient is 1, and start
        aligned when the other coefficients and `extra` are multiples of the run
        and `base` is known aligned (align_of). 1: element by element. At most
        `max_elems` (ld/st.shared take .v2 and .v4 registers; cp.async, no
        registers (`registers` False), moves 16 bytes of any whole-byte type)."""
        vec = getattr(layout, "vec", 1)
        es = byte_size(etype)
        if vec < 2 or not coeffs or coeffs[-1] != 1 or not vector_element_for(etype, registers):
            return 1
        while vec > 1 and (vec * es > 16 or vec > max_elems or extra % vec or any(c % vec for c in coeffs[:-1])
                           or self.align_of.get(base, 1) % (vec * es)):
            vec //= 2
        return vec

    def store_shared(self, tile: Tile, base: str, coeffs, extra: int = 0):
        """Write `tile`'s elements at base + esize * (sum coords_d * coeffs_d + extra)."""
        kb = self.kb
        layout = tile.layout or blocked(tile.shape or (1,), self.group.threads)
        if not extra and self._stmatrix(tile, layout, base, coeffs):
            return
        if not tile.shape:
            coeffs = (0,)
        es = byte_size(tile.etype)
        lin = self.linear_base(layout, coeffs)
        where = self._shared_addresses(base, lin, es)
        st = mem_type(tile.etype).replace(".s", ".b").replace(".u8", ".b8")
        run = self.shared_run(layout, coeffs, tile.etype, base, extra) if tile.shape else 1
        if run > 1:
            for slot in range(0, layout.nslots, run):
                off = (sum(o * c for o, c in zip(layout.offsets(slot), coeffs)) + extra) * es
                regs = ", ".join(tile.at(slot + k) for k in range(run))
                kb.emit(f"st.shared.v{run}{st} \t{where(off)}, {{{regs}}}")
            return
        for slot in range(layout.nslots):
            off = (sum(o * c for o, c in zip(layout.offsets(slot), coeffs)) + extra) * es
            self._st_shared(tile.at(slot), tile.etype, where(off))

    def _stmatrix_groups(self, tile, layout, base, coeffs):
        """The slot pairs of a 16-bit accumulator-layout tile in fours that one
        stmatrix.x4 writes: pairs at rows (a, a + 8) x columns (b, b + 8) of
        the warp's fragment, lane-matrix order; None when the tile cannot
        take stmatrix (sm_90 and later)."""
        if not (self.target.hopper and isinstance(layout, (MmaAcc, WgmmaAcc)) and len(coeffs) == 2
                and coeffs[1] == 1 and byte_size(tile.etype) == 2 and reg_class(tile.etype) == "b16"
                and (2 * coeffs[0]) % 16 == 0
                and (base in self.swizzle_of or self.align_of.get(base, 1) % 16 == 0)):
            return None
        pair_at = {layout.offsets(2 * p): p for p in range(layout.nslots // 2)}
        groups, used = [], set()
        for p in range(layout.nslots // 2):
            if p in used:
                continue
            a, b = layout.offsets(2 * p)
            four = [pair_at.get(k) for k in ((a, b), (a + 8, b), (a, b + 8), (a + 8, b + 8))]
            if a % 8 or b % 8 or None in four or used.intersection(four):
                return None
            used.update(four)
            groups.append(four)
        return groups

    @staticmethod
    def _unit_relabel(layout, coeffs):
        """(parent, its coefficients) when `layout` only adds unit dimensions to
        its parent's (a reshape to or from a batch of one), else (layout, coeffs)."""
        if (isinstance(layout, SliceLayout) and layout.replicas == 1 and not layout.copy_mask
                and tuple(a for a in layout.axes if a >= 0) == tuple(range(layout.parent.rank))
                and all(d == 1 for a, d in zip(layout.axes, layout.shape) if a < 0)
                and tuple(layout.slots) == tuple(range(layout.parent.nslots))):
            return layout.parent, [c for a, c in zip(layout.axes, coeffs) if a >= 0]
        return layout, coeffs

    @staticmethod
    def _fragment_col_bits(layout) -> int:
        """The bits a warp's first fragment column (in bytes of 16-bit elements) may set."""
        if isinstance(layout, WgmmaAcc):
            if layout.col_groups == 1:
                return 0      # every warp starts at column 0
            bits = 0          # column group g starts 2 n_per g bytes in
            for g in range(layout.col_groups):
                bits |= 2 * layout.n_per * g
            return bits
        if layout.wn == 1:
            return 0
        step = layout.tiles_n * 16
        return (layout.wn * step - 1) & ~(step - 1)

    def _stmatrix(self, tile, layout, base, coeffs) -> bool:
        """Store an accumulator-layout tile with stmatrix.x4: eight rows of 16
        bytes from each of four 8x8 fragments per instruction, a quarter of the
        vector stores, with fewer swizzled addresses to compute. Lane l gives
        the address of row l % 8 of fragment l / 8: fragment i sits 8 (i & 1)
        rows and 8 (i >> 1) columns from the warp's first fragment of the group."""
        layout, coeffs = self._unit_relabel(layout, list(coeffs))
        groups = self._stmatrix_groups(tile, layout, base, coeffs)
        if not groups:
            return False
        kb = self.kb
        key = ("stmatrix", layout, tuple(coeffs))
        g = self.group
        lin = g.bases.get(key)
        if lin is None:
            row, col = self.bases(layout)
            with self._prologue():
                lane, t, r, c = kb.reg(B32), kb.reg(B32), kb.reg(B32), kb.reg(B32)
                kb.emit(f"and.b32 \t{lane}, {g.tid}, 31")
                kb.emit(f"shr.u32 \t{t}, {lane}, 2")
                kb.emit(f"sub.u32 \t{r}, {row}, {t}")              # the warp's first fragment row
                kb.emit(f"and.b32 \t{t}, {lane}, 15")
                kb.emit(f"add.u32 \t{r}, {r}, {t}")                # + (l & 7) + 8 ((l >> 3) & 1)
                kb.emit(f"and.b32 \t{t}, {lane}, 3")
                kb.emit(f"shl.b32 \t{t}, {t}, 1")
                kb.emit(f"sub.u32 \t{c}, {col}, {t}")              # the warp's first fragment column
                kb.emit(f"shr.u32 \t{t}, {lane}, 4")
                kb.emit(f"mad.lo.u32 \t{c}, {t}, 8, {c}")          # + 8 (l >> 4)
                lin = kb.reg(B32)
                kb.emit(f"mad.lo.u32 \t{lin}, {r}, {coeffs[0]}, {c}")
            g.bases[key] = lin
        swz = self.swizzle_of.get(base)
        if swz is not None and self.align_of.get(base, 1) % 128 == 0:
            # a lane's in-row offset is 16 (l >> 4) bytes past its warp's first fragment
            # column, a multiple of 8 columns: group columns XOR into its address
            xb = kb.reg(B32)
            kb.emit(f"shl.b32 \t{xb}, {lin}, 1")
            where = swz.addresses(kb, base, xb, col_bits=16 | self._fragment_col_bits(layout))
        else:
            where = self._shared_addresses(base, lin, 2)
        for four in groups:
            packed = []
            for p in four:
                w = kb.reg(B32)
                kb.emit(f"mov.b32 \t{w}, {{{tile.at(2 * p)}, {tile.at(2 * p + 1)}}}")
                packed.append(w)
            a, b = layout.offsets(2 * four[0])
            kb.emit(f"stmatrix.sync.aligned.m8n8.x4.shared.b16 \t{where((a * coeffs[0] + b) * 2)}, "
                    f"{{{', '.join(packed)}}}")
        return True

    def _st_shared(self, reg, etype, where, pred=None):
        """One element to shared memory (a predicate as a byte), under `pred` if given."""
        kb = self.kb
        st = mem_type(etype).replace(".s", ".b").replace(".u8", ".b8")
        if reg_class(etype) == PRED:
            b = kb.reg(B32)
            kb.emit(f"selp.u32 \t{b}, 1, 0, {reg}")
            reg, st = b, ".b8"
        kb.emit(f"{'@' + pred + ' ' if pred else ''}st.shared{st} \t{where}, {reg}")

    def _shared_addresses(self, base: str, lin: str, es: int):
        """`off` (bytes) -> the PTX address of linear byte offset lin * es + off
        of the tile at `base`, through its swizzle when it has one."""
        kb = self.kb
        swz = self.swizzle_of.get(base)
        if swz is None:
            addr = kb.reg(B32)
            kb.emit(f"mad.lo.u32 \t{addr}, {lin}, {es}, {base}")
            return lambda off: f"[{addr}+{off}]"
        xb = kb.reg(B32)
        kb.emit(f"mul.lo.u32 \t{xb}, {lin}, {es}")
        return swz.addresses(kb, base, xb)

    def load_shared(self, etype, shape, layout, base: str, coeffs, extra_reg: str | None = None) -> Tile:
        """Read a tile in `layout`: element coords c from base + esize * (sum c_d * coeffs_d + extra)."""
        kb = self.kb
        es = byte_size(etype)
        if layout is None:
            out = self.new_tile(etype, shape, None)
            addr = base
            if extra_reg is not None:
                addr = kb.reg(B32)
                kb.emit(f"mad.lo.u32 \t{addr}, {extra_reg}, {es}, {base}")
            self._ld_shared(out.reg, etype, f"[{addr}]")
            return out
        lin = self.linear_base(layout, coeffs)
        if extra_reg is not None:
            t = kb.reg(B32)
            kb.emit(f"add.u32 \t{t}, {lin}, {extra_reg}")
            lin = t
        where = self._shared_addresses(base, lin, es)
        out = self.new_tile(etype, shape, layout)
        run = self.shared_run(layout, coeffs, etype, base) if extra_reg is None else 1
        step = run if run > 1 else 1
        for slot in range(0, layout.nslots, step):
            off = sum(o * c for o, c in zip(layout.offsets(slot), coeffs)) * es
            if run > 1:
                kb.emit(f"ld.shared.v{run}{mem_type(etype)} \t{{{', '.join(out.regs[slot:slot + run])}}}, "
                        f"{where(off)}")
            else:
                self._ld_shared(out.regs[slot], etype, where(off))
        return out

    @staticmethod
    def _base_span(layout, dim: int):
        """The largest coordinate along `dim` of a thread's first element, over
        the layout's threads (a linear, axis-aligned layout: the sum of its lane
        and warp bases there), or None when not known."""
        from ...dialects.nv_tileas.linear_layout import to_linear
        ll = to_linear(layout) if layout is not None else None
        if ll is None or not ll.axis_aligned():
            return None
        return sum(v[dim] for v in ll.lane + ll.warp)

    def _block_predicates(self, layout, dim: int, lo: int, n: int):
        """slot -> is the slot's coordinate along `dim` in [lo, lo + n)? A
        predicate register, or known for every thread (True, False) where the
        span of the threads' first coordinates decides it: a block of rows is
        then written and read without a predicate, and slots outside it not at
        all (the by-rows layout changes' PTX was that many times larger)."""
        kb = self.kb
        span = self._base_span(layout, dim)
        base = None
        by_off, out = {}, []
        for slot in range(layout.nslots):
            off = layout.offsets(slot)[dim]
            if span is not None and (off + span < lo or off >= lo + n):
                out.append(False)
                continue
            if span is not None and off >= lo and off + span < lo + n:
                out.append(True)
                continue
            base = base or self.bases(layout)[dim]
            p = by_off.get(off)
            if p is None:
                d, p = kb.reg(B32), kb.reg(PRED)
                kb.emit(f"add.s32 \t{d}, {base}, {off - lo}")
                kb.emit(f"setp.lt.u32 \t{p}, {d}, {n}")
                by_off[off] = p
            out.append(p)
        return out

    def _block_slots(self, tile: Tile, base: str, dim: int, lo: int, n: int):
        """(slot, predicate, address) for each slot of `tile` against a row-major
        buffer at `base` of the block [lo, lo + n) of `tile` along `dim` (the
        tile's shape with that dimension cut to n)."""
        cut = list(tile.shape)
        cut[dim] = n
        coeffs = linear_offsets(tuple(cut))
        es = byte_size(tile.etype)
        preds = self._block_predicates(tile.layout, dim, lo, n)
        addr = self.kb.reg(B32)
        self.kb.emit(f"mad.lo.u32 \t{addr}, {self.linear_base(tile.layout, coeffs)}, {es}, {base}")
        for slot in range(tile.layout.nslots):
            if preds[slot] is False:
                continue
            off = (sum(o * c for o, c in zip(tile.layout.offsets(slot), coeffs)) - lo * coeffs[dim]) * es
            yield slot, None if preds[slot] is True else preds[slot], f"[{addr}+{off}]"

    def store_block(self, tile: Tile, base: str, dim: int, lo: int, n: int):
        """Write the block [lo, lo + n) of `tile` along `dim` row-major at `base`."""
        for slot, p, where in self._block_slots(tile, base, dim, lo, n):
            self._st_shared(tile.at(slot), tile.etype, where, p)

    def store_rows(self, tile: Tile, base: str, r0: int, nrows: int):
        """Write rows [r0, r0 + nrows) of `tile` row-major at `base` (row r0 first)."""
        self.store_block(tile, base, 0, r0, nrows)

    def load_rows(self, out: Tile, base: str, r0: int, nrows: int):
        """Fill the slots of `out` whose rows are in [r0, r0 + nrows) from `base`
        (written by store_rows)."""
        for slot, p, where in self._block_slots(out, base, 0, r0, nrows):
            self._ld_shared(out.regs[slot], out.etype, where, p)

    def _ld_shared(self, reg, etype, where, pred=None):
        at = f"@{pred} " if pred else ""
        if reg_class(etype) == PRED:
            b = self.kb.reg(B32)
            self.kb.emit(f"{at}ld.shared.u8 \t{b}, {where}")
            self.kb.emit(f"{at}setp.ne.u32 \t{reg}, {b}, 0")
        else:
            self.kb.emit(f"{at}ld.shared{mem_type(etype)} \t{reg}, {where}")

    def remap(self, tile: Tile, shape, layout, coeffs, extra_reg=None, src_coeffs=None) -> Tile:
        """Move elements between threads through shared memory: `tile` is written
        row-major (or with `src_coeffs`), then each element c of the result reads
        the element at sum c_d * coeffs_d (+ extra_reg)."""
        src_coeffs = src_coeffs or linear_offsets(tile.shape)
        n = 1
        for d in tile.shape:
            n *= d
        if (self.scratch_limit and n * byte_size(tile.etype) > self.scratch_limit and extra_reg is None
                and not tile.splat and layout is not None and tuple(shape) == tile.shape
                and list(coeffs) == list(src_coeffs) == list(linear_offsets(shape))):
            return self._remap_by_rows(tile, layout)
        sym = self.scratch(n * byte_size(tile.etype))
        base = self.addr_of(sym)
        self.sync()
        self.store_shared(tile, base, src_coeffs)
        self.sync()
        return self.load_shared(tile.etype, shape, layout, base, coeffs, extra_reg)

    def _remap_by_rows(self, tile: Tile, layout) -> Tile:
        """`tile` in `layout` through a scratch buffer of at most scratch_limit
        bytes, a block of rows at a time (the kernel's shared memory is short)."""
        row_bytes = byte_size(tile.etype)
        for d in tile.shape[1:]:
            row_bytes *= d
        rows = max(1, self.scratch_limit // row_bytes)
        base = self.addr_of(self.scratch(rows * row_bytes))
        out = self.new_tile(tile.etype, tile.shape, layout)
        for r0 in range(0, tile.shape[0], rows):
            n = min(rows, tile.shape[0] - r0)
            self.sync()
            self.store_rows(tile, base, r0, n)
            self.sync()
            self.load_rows(out, base, r0, n)
        return out

    def home_tile(self, etype, shape, addr: str) -> Tile:
        """A tile known to sit row-major at shared address `addr` (registers on demand)."""
        return Tile(etype, shape, self.layout_for(shape), None, addr)

    def regs_of(self, tile: Tile) -> Tile:
        """`tile` with registers (loads a shared-memory-only tile)."""
        if tile.regs is not None:
            return tile
        if tile.transpose_of is not None:
            # a transpose no tensor-core read took in place, made where this use is (not
            # kept: the next use may sit on another control path): the same registers when
            # its layout is the source's with the dimensions swapped, else moved
            from ...dialects.nv_tileas.linear_layout import slice_layout
            src = self.regs_of(tile.transpose_of)
            if src.layout is not None and src.layout.threads == self.group.threads \
                    and slice_layout(src.layout, [1, 0], tile.shape) == tile.layout:
                return Tile(src.etype, tile.shape, tile.layout, src.regs)
            strides = linear_offsets(src.shape)
            return self.remap(src, tile.shape, tile.layout, [strides[1], strides[0]])
        tile.regs = self._read(tile, tile.layout)
        return tile

    def tile(self, v) -> Tile:
        """The tile value of SSA value `v`, with registers."""
        x = self.get(v)
        if not isinstance(x, Tile):
            self.fail("expects a tile operand")
        return self.regs_of(x)

    def local_buffer(self, nbytes: int) -> str:
        """The kernel's per-thread local buffer, grown to `nbytes`."""
        self.kb.local_bytes = max(self.kb.local_bytes, nbytes)
        return f"{self.kb.name}_depot"

    # ---- constants and globals ---------------------------------------------------------
    def const_table(self, arr, t) -> Tile:
        """A non-uniform constant tile, read from a module-scope table."""
        from ...interp.numerics import dtype_of
        sym = self.module.const_table(self.kb.name, arr.astype(dtype_of(t.element_type)))
        shape = tuple(t.shape)
        layout = self.layout_for(shape)
        kb = self.kb
        base = kb.reg(B64)
        kb.emit(f"mov.u64 \t{base}, {sym}")
        lin = self.linear_base(layout, linear_offsets(shape))
        es = byte_size(t.element_type)
        off = kb.reg(B64)
        kb.emit(f"mul.wide.u32 \t{off}, {lin}, {es}")
        addr = kb.reg(B64)
        kb.emit(f"add.s64 \t{addr}, {base}, {off}")
        out = self.new_tile(t.element_type, shape, layout)
        from .ops_memory import ld_global
        for slot, r in enumerate(out.regs):
            o = sum(a * b for a, b in zip(layout.offsets(slot), linear_offsets(shape))) * es
            ld_global(self, r, t.element_type, f"[{addr}+{o}]", None, cache=".nc")
        return out


    def global_symbol(self, name: str) -> str:
        sym = self.module.global_names.get(name)
        if sym is None:
            self.fail(f"refers to unknown global @{name}")
        return sym
