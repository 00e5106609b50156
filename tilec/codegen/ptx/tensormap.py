"""Tensor maps built on the device (sm_90a TMA).

cuTile's calling convention passes a tensor as pointer, shape and strides, so
no host-built CUtensorMap exists: each CTA writes its own maps. A map lives in
global memory (TMA reads it there) in a slot of a per-kernel pool:

* Thread 0 claims a slot: a 16-bit field of a 64-bit busy word
  (`__tilec_tmap_busy_K`, four slots a word), bit 0 busy and bits 1-15 the
  generation its last writer released it at. It tries its SM's first slot
  (%smid: no contention between SMs), then the word's other free slots, then
  the next words. The claim is an acquire atom that ORs in the busy bit unread
  (one round trip when the CTA before it on the SM has left); the CTA gives
  the slot back at its exit, after a CTA barrier, once no TMA of it can read
  the map any more: where it wrote maps or keys, a release add that also moves
  the field to the next generation (the next holder's acquire then sees them),
  so no fence delays its first copy; else a relaxed `and`. Slots are
  exclusive, so concurrent launches of the kernel with other arguments never
  see each other's maps.
* Warp 0 builds each map in shared memory: 128 zero bytes, then lane 0 sets
  every field with `tensormap.replace` (rank, box, dims, byte strides, element
  type by width, swizzle, zero fill), and the warp copies it to its slot with
  `tensormap.cp_fenceproxy` (a release to the tensor-map proxy) and acquires
  it with `fence.proxy.tensormap::generic`.
* Beside each map, its key: the base, dims and strides it was built from,
  each word stamped with the slot's generation (_Key). The CTAs of a launch
  that follow one another on an SM claim the same slot, find their own key
  there at the generation the claim saw and skip the build (only the acquire
  remains).
* The descriptors a kernel builds together are one batch (ops_tma._batch):
  every key is loaded before any is compared, and one CTA barrier ends it
  (or, where the other threads copy first fills meanwhile, a gate: an
  mbarrier warp 0 arrives on, which a thread outside warp 0 waits for just
  before it first uses a map, so the consumers start on the copied slots
  while the maps are still being built). The first batch loads the keys of
  the slot the first atom asks for while the atom is on its way, so a CTA's
  start-up costs one round trip however many maps it has. A map is built
  once a kernel: a later batch builds only maps of views, boxes and swizzles
  no earlier batch built.

Each map has its own pool (`__tilec_tmaps_K_i`, SLOTS x 128 bytes), so the
slot index alone addresses every map of a CTA."""
from __future__ import annotations

from .ptxtypes import B32, B64, PRED, byte_size

SLOTS = 8192             # more CTAs than any GPU holds at once
SLOTS_PER_WORD = 4       # a 64-bit busy word holds four slots' fields
FIELD_BITS = 16          # a slot's field: bit 0 busy, bits 1-15 its generation
WORDS = SLOTS // SLOTS_PER_WORD
BUSY_BITS = sum(1 << (FIELD_BITS * k) for k in range(SLOTS_PER_WORD))
GEN_MAX = (1 << (FIELD_BITS - 1)) - 1
MAP_BYTES = 128
_ELEMTYPE = {1: 0, 2: 1, 4: 2, 8: 4}     # tensormap elemtype by element bytes: u8, u16, u32, u64
SWIZZLE_CODE = {"none": 0, "32B": 1, "64B": 2, "128B": 3}
SWIZZLE_SPAN = {"none": None, "32B": 32, "64B": 64, "128B": 128}


def desc_box(op):
    """The box of TMA descriptor `op` (its constant operands after the view), or None."""
    from ...dialects.cuda_tile.divisibility import int_constant
    out = []
    for v in op.operands[1:]:
        c = int_constant(v.op) if getattr(v, "op", None) is not None else None
        if c is None:
            return None
        out.append(c)
    return tuple(out)


class TensorMap:
    """A built map: its generic address register, and how the copies use it."""

    def __init__(self, addr, etype, box, swizzle, sym=None, slot_var=None):
        self.addr, self.etype, self.box, self.swizzle = addr, etype, tuple(box), swizzle
        self.sym, self.slot_var = sym, slot_var     # the map's pool and the shared word of the CTA's slot
        self.gate = None      # the mbarrier a thread outside warp 0 waits on first (no CTA barrier after the batch)

    def address(self, em) -> str:
        """The map's generic address in the current group: warp 0 computed it while
        building (`addr`); a group without warp 0 reads the CTA's slot from shared
        memory once, in its prologue."""
        g = em.group
        if g.first_thread == 0:
            return self.addr
        key = ("tensormap", self.sym)
        got = g.owners.get(key)
        if got is None:
            kb = em.kb
            slot, a, off, got = kb.reg(B32), kb.reg(B64), kb.reg(B64), kb.reg(B64)
            with em._prologue():
                kb.emit(f"ld.shared.u32 \t{slot}, [{self.slot_var}]")
                kb.emit(f"mov.u64 \t{a}, {self.sym}")
                kb.emit(f"mul.wide.u32 \t{off}, {slot}, {MAP_BYTES}")
                kb.emit(f"add.s64 \t{a}, {a}, {off}")
                kb.emit(f"cvta.global.u64 \t{got}, {a}")
            g.owners[key] = got
        return got

    def panels(self, em, swz, base, coords, cols):
        """(shared address, coordinate list) of each copy of a tile `cols` wide
        through this map: one per swizzle panel, `swz.panel_bytes` and
        `panel_elems` columns apart (coords innermost first)."""
        kb = em.kb
        for p in range(cols // self.panel_elems):
            at, c0 = base, coords[0]
            if p:
                at, c0 = kb.reg(B32), kb.reg(B32)
                kb.emit(f"add.u32 \t{at}, {base}, {p * swz.panel_bytes}")
                kb.emit(f"add.s32 \t{c0}, {coords[0]}, {p * self.panel_elems}")
            yield at, ", ".join([c0] + coords[1:])

    @property
    def panel_elems(self) -> int:
        """Elements of the innermost dimension one copy moves: the swizzle span
        (wider slots are stored as panels of that width), else the whole row."""
        span = SWIZZLE_SPAN[self.swizzle]
        es = byte_size(self.etype)
        return min(self.box[-1], span // es) if span else self.box[-1]


class _Pool:
    def __init__(self, kernel):
        self.kernel = kernel
        self.slot_var = None     # shared word holding the slot index
        self.gen_var = None      # shared word holding the slot's generation when claimed
        self.wrote = None        # warp 0's predicate: it wrote a map or a key (release_slot)
        self.keys = []           # (key symbol, words) of every map built so far
        self.built = {}          # (id(view), box, swizzle) -> (view, TensorMap): every map built so far
        self.first_try = None    # (word, busy base, bit, atom's old value): the claim's first atom, in flight
        self.maps = 0
        self.in_step = False     # the CTA's start is aligned (start_phase.align_start)
        self.gate = None         # shared mbarrier, initialized with the pipelines' barriers (plan_gate)
        self.gate_taken = False  # a batch ended at the gate (it opens once)


def _pool(em):
    pool = em.tma_pool
    if pool is None:
        pool = em.tma_pool = _Pool(em.kb.name)
    return pool


def plan_gate(em):
    """Where a batch may end without a CTA barrier (first fills: the threads
    outside warp 0 have work before any map use), its gate: an mbarrier warp 0
    arrives on once the maps are acquired. Initialized here, with the pipelines'
    barriers, so their publication covers it; one per kernel (the first batch
    that issues first fills takes it)."""
    pool = _pool(em)
    if pool.gate is None:
        pool.gate = em.kb.shared_buffer(8, 8, "maps_ready", span=em.kb.WHOLE_KERNEL)
        em.kb.emit(f"@{em.leader()} mbarrier.init.shared.b64 \t[{pool.gate}], 1")


def await_map(em, m, lead) -> str:
    """Before the group's leader `lead` (not in warp 0) uses map `m` of a batch
    that ended at its gate: the leader waits for the gate, then reads the CTA's
    slot (thread 0 wrote it while claiming) and acquires the map, here and not
    in the group's prologue, so the group runs until it needs a map. Returns the
    map's address, defined on the leader's path only (a later use waits again)."""
    kb = em.kb
    done = kb.label("tmap_waited")
    kb.emit(f"@!{lead} bra \t{done}")
    em.wait_parity(em.addr_of(m.gate), 0)
    slot, a, off, got = kb.reg(B32), kb.reg(B64), kb.reg(B64), kb.reg(B64)
    kb.emit(f"ld.shared.u32 \t{slot}, [{m.slot_var}]")
    kb.emit(f"mov.u64 \t{a}, {m.sym}")
    kb.emit(f"mul.wide.u32 \t{off}, {slot}, {MAP_BYTES}")
    kb.emit(f"add.s64 \t{a}, {a}, {off}")
    kb.emit(f"cvta.global.u64 \t{got}, {a}")
    kb.emit(f"fence.proxy.tensormap::generic.acquire.gpu \t[{got}], {MAP_BYTES}")
    kb.place(done)
    return got


def _busy_symbol(kernel):
    return f"__tilec_tmap_busy_{kernel}"


def start_claim(em):
    """At the entry of a kernel that builds device maps: thread 0 sends the claim's
    first atom (ORing in the busy bit of its SM's first slot), and the barrier inits
    and whatever else comes before the maps run while it is on its way; build_maps
    reads its answer. Every thread reaches the maps: they are built at the top
    level of a kernel that does not return early (ops_tma.device_map_mode)."""
    kb = em.kb
    pool = _pool(em)
    busy = _busy_symbol(pool.kernel)
    em.module.module_lines.append(f".global .align 8 .b64 {busy}[{WORDS}];")
    w, a, base, off, old, bit = (kb.reg(B32), kb.reg(B64), kb.reg(B64), kb.reg(B64), kb.reg(B64), kb.reg(B64))
    kb.emit(f"mov.u32 \t{w}, %smid")
    kb.emit(f"and.b32 \t{w}, {w}, {WORDS - 1}")
    kb.emit(f"mov.u64 \t{base}, {busy}")
    kb.emit(f"mov.b64 \t{bit}, 1")
    kb.emit(f"mul.wide.u32 \t{off}, {w}, 8")
    kb.emit(f"add.s64 \t{a}, {base}, {off}")
    kb.emit(f"@{em.leader()} atom.acquire.gpu.global.or.b64 \t{old}, [{a}], {bit}")
    pool.first_try = (w, base, bit, old)


def _claim(em, pool, lane0):
    """Lane 0 of warp 0 claims a slot; the warp gets its index and generation by
    shuffle, and lane 0 also publishes both in shared memory (later batches, the
    release). The first attempt ORs in the busy bit of this SM's first slot
    without reading the word first (sent at the kernel's entry: start_claim): one
    round trip where the CTA before it on this SM has left. A taken slot costs one
    more attempt, at the lowest slot of the word the atom showed free; a full
    word, a move to the next word."""
    kb = em.kb
    pool.slot_var = kb.shared_buffer(4, 4, "tmap_slot")
    pool.gen_var = kb.shared_buffer(4, 4, "tmap_gen")
    done, again, check = kb.label("tmap_got"), kb.label("tmap_try"), kb.label("tmap_check")
    a, off, t = kb.reg(B64), kb.reg(B64), kb.reg(B64)
    i, gen = kb.reg(B32), kb.reg(B32)
    # every device map is in the entry block, so the module emitter sent the first atom
    w, base, bit, old = pool.first_try
    p = kb.reg(PRED)
    kb.emit(f"mov.u32 \t{gen}, 0")                     # every lane's, for the shuffle
    kb.emit(f"@!{lane0} bra \t{done}")
    kb.emit(f"bra.uni \t{check}")                      # the first atom is on its way already
    kb.place(again)
    kb.emit(f"mul.wide.u32 \t{off}, {w}, 8")
    kb.emit(f"add.s64 \t{a}, {base}, {off}")
    kb.emit(f"atom.acquire.gpu.global.or.b64 \t{old}, [{a}], {bit}")
    kb.place(check)
    kb.emit(f"and.b64 \t{t}, {old}, {bit}")
    kb.emit(f"setp.eq.u64 \t{p}, {t}, 0")
    got = kb.label("tmap_won")
    kb.emit(f"@{p} bra \t{got}")                        # the slot was free: it is ours
    kb.emit(f"not.b64 \t{t}, {old}")
    kb.emit(f"and.b64 \t{t}, {t}, {BUSY_BITS:#x}")
    kb.emit(f"neg.s64 \t{bit}, {t}")
    kb.emit(f"and.b64 \t{bit}, {bit}, {t}")          # the lowest slot free at the atom
    kb.emit(f"setp.eq.u64 \t{p}, {bit}, 0")
    kb.emit(f"@!{p} bra \t{again}")
    kb.emit(f"add.u32 \t{w}, {w}, 1")                   # a full word: the next SM's
    kb.emit(f"and.b32 \t{w}, {w}, {WORDS - 1}")
    kb.emit(f"mov.b64 \t{bit}, 1")
    kb.emit(f"bra.uni \t{again}")
    kb.place(got)
    kb.emit(f"bfind.u64 \t{i}, {bit}")
    kb.emit(f"shr.b64 \t{t}, {old}, {i}")
    kb.emit(f"cvt.u32.u64 \t{gen}, {t}")
    kb.emit(f"shr.u32 \t{gen}, {gen}, 1")              # the slot's generation, above its busy bit
    kb.emit(f"and.b32 \t{gen}, {gen}, {GEN_MAX}")
    kb.emit(f"shr.u32 \t{i}, {i}, {FIELD_BITS.bit_length() - 1}")
    kb.emit(f"mad.lo.u32 \t{w}, {w}, {SLOTS_PER_WORD}, {i}")
    kb.emit(f"st.shared.u32 \t[{pool.slot_var}], {w}")
    kb.emit(f"st.shared.u32 \t[{pool.gen_var}], {gen}")
    kb.place(done)
    slot, g = kb.reg(B32), kb.reg(B32)
    kb.emit(f"shfl.sync.idx.b32 \t{slot}, {w}, 0, 31, -1")
    kb.emit(f"shfl.sync.idx.b32 \t{g}, {gen}, 0, 31, -1")
    return slot, g


def _next_gen(em, gen):
    """The generation a CTA that writes keys gives its slot: one more, 0 skipped
    (a slot at generation 0 was never written)."""
    kb = em.kb
    g1, p = kb.reg(B32), kb.reg(PRED)
    kb.emit(f"add.u32 \t{g1}, {gen}, 1")
    kb.emit(f"setp.gt.u32 \t{p}, {g1}, {GEN_MAX}")
    kb.emit(f"selp.u32 \t{g1}, 1, {g1}, {p}")
    return g1


def as_b32(em, r):
    """`r` (a register or an int) as a 32-bit operand."""
    if isinstance(r, int):
        return str(r)
    if r.startswith("%rd"):
        n = em.kb.reg(B32)
        em.kb.emit(f"cvt.u32.u64 \t{n}, {r}")
        return n
    return r


def _stride_bytes(em, s, es):
    kb = em.kb
    out = kb.reg(B64)
    if isinstance(s, int):
        kb.emit(f"mov.u64 \t{out}, {s * es}")
    elif s.startswith("%rd"):
        kb.emit(f"mul.lo.s64 \t{out}, {s}, {es}")
    else:
        kb.emit(f"mul.wide.s32 \t{out}, {s}, {es}")
    return out


def build_maps(em, specs, meanwhile=None) -> list[TensorMap]:
    """Emit (at the top level of the kernel, every thread present) the maps of
    `specs`, (tensor view, box outermost first, swizzle "none"/"32B"/...)
    each: warp 0 loads every map's key at once (one round trip for all; in the
    CTA's first batch, from the slot its first claim asks for, while the claim
    is on its way), builds the maps whose key differs, acquires them all, and
    one CTA barrier ends the batch. `meanwhile()`, when given, emits what the
    other threads do while warp 0 builds (first_fills.issue), and says whether
    it emitted anything; where it did, the batch ends at the kernel's gate
    instead (plan_gate), once."""
    pool = _pool(em)
    # a map is built once a kernel: a later batch (before a later pipelined loop)
    # of the same view, box and swizzle takes the map the CTA built and acquired
    new = [sp for sp in specs if _memo_key(sp) not in pool.built]
    if new:
        for sp, tmap in zip(new, _build(em, pool, new, meanwhile)):
            pool.built[_memo_key(sp)] = (sp[0], tmap)      # the view held: its id stays its own
    return [pool.built[_memo_key(sp)][1] for sp in specs]


def _memo_key(spec):
    tv, box, swizzle = spec
    return id(tv), tuple(box), swizzle


def _build(em, pool, specs, meanwhile=None):
    """build_maps for maps the kernel has not built: the batch's code."""
    kb = em.kb
    tid = em.group.tid
    warp0, lane0 = kb.reg(PRED), em.leader()     # at the top level, thread 0 is lane 0 of warp 0
    skip = kb.label("tmap_built")
    if pool.wrote is None:
        pool.wrote = kb.reg(PRED)
        kb.emit(f"setp.ne.u32 \t{pool.wrote}, 0, 0")
    others = kb.label("tmap_others") if meanwhile is not None else skip
    kb.emit(f"setp.lt.u32 \t{warp0}, {tid}, 32")
    kb.emit(f"@!{warp0} bra \t{others}")
    from .stamps import stamp
    keys = []
    for tv, _box, _swizzle in specs:
        es = byte_size(tv.etype)
        # operands in the map's order: dimension 0 is the innermost
        dims = [as_b32(em, d) for d in reversed(tv.shape)]
        strides = [_stride_bytes(em, st, es) for st in reversed(tv.strides[:-1])]
        keys.append(_Key(em, pool, pool.maps + len(keys), tv.base, dims, strides))
    if pool.slot_var is None:
        guess = kb.reg(B32)
        kb.emit(f"mul.lo.u32 \t{guess}, {pool.first_try[0]}, {SLOTS_PER_WORD}")
        for key in keys:
            key.load(em, guess)      # before the claim's answer: checked against its generation
        slot, gen = _claim(em, pool, lane0)
        stamp(em, "claimed")
        p, ok = kb.reg(PRED), kb.label("tmap_keys")
        kb.emit(f"setp.eq.u32 \t{p}, {slot}, {guess}")
        kb.emit(f"@{p} bra \t{ok}")
        for key in keys:             # another slot: its keys, read after the claim's acquire
            key.load(em, slot)
        kb.place(ok)
    else:
        slot, gen = kb.reg(B32), kb.reg(B32)
        kb.emit(f"ld.shared.u32 \t{slot}, [{pool.slot_var}]")
        kb.emit(f"ld.shared.u32 \t{gen}, [{pool.gen_var}]")
        for key in keys:
            key.load(em, slot)
    todo = []
    for (tv, box, swizzle), key in zip(specs, keys):
        sym = f"__tilec_tmaps_{pool.kernel}_{pool.maps}"
        pool.maps += 1
        em.module.module_lines.append(f".global .align {MAP_BYTES} .b8 {sym}[{SLOTS * MAP_BYTES}];")
        g, off, gen_addr = kb.reg(B64), kb.reg(B64), kb.reg(B64)
        kb.emit(f"mov.u64 \t{g}, {sym}")
        kb.emit(f"mul.wide.u32 \t{off}, {slot}, {MAP_BYTES}")
        kb.emit(f"add.s64 \t{g}, {g}, {off}")
        kb.emit(f"cvta.global.u64 \t{gen_addr}, {g}")
        todo.append((TensorMap(gen_addr, tv.etype, box, swizzle, sym, pool.slot_var), g, tv, key))
    for key in keys:                 # the loads above are all in flight by now
        key.compare(em, gen)
    _uniform(em, [key.same for key in keys])
    stamp(em, "keys")
    wrote_before = kb.reg(PRED)
    kb.emit(f"mov.pred \t{wrote_before}, {pool.wrote}")
    stale = kb.reg(PRED)
    for key in keys:
        kb.emit(f"not.pred \t{stale}, {key.same}")
        kb.emit(f"or.pred \t{pool.wrote}, {pool.wrote}, {stale}")
    staged = []
    for tmap, g, tv, key in todo:
        keep = kb.label("tmap_kept")
        kb.emit(f"@{key.same} bra \t{keep}")          # the slot holds this very map already
        staged.append(_write(em, tmap, g, tv, key.dims, key.strides, lane0))
        kb.place(keep)
    _retag(em, pool, keys, slot, gen, wrote_before, lane0)
    for tmap, *_ in todo:
        kb.emit(f"fence.proxy.tensormap::generic.acquire.gpu \t[{tmap.addr}], {MAP_BYTES}")
        # thread 0 (the usual TMA issuer) warms the TMA unit's copy while the CTA sets up
        kb.emit(f"@{lane0} prefetch.tensormap \t[{tmap.addr}]")
    pool.keys += [(key.sym, len(key.values)) for key in keys]
    gated = False
    if meanwhile is not None:
        ready = kb.section()
        kb.emit(f"bra.uni \t{skip}")
        kb.place(others)
        if meanwhile():
            # the first loads left at the entry, as in step as the CTAs' starts: no
            # wait for a common start (start_phase.py) after the maps
            pool.in_step = True
            gated = _open_gate(em, pool, ready, lane0, [t[0] for t in todo], staged)
    kb.place(skip)
    if em.phase_align and not pool.in_step:
        from .start_phase import align_start
        align_start(em)
        pool.in_step = True
    if not gated:
        kb.emit("bar.sync \t0")
    stamp(em, "maps_ready")
    return [t[0] for t in todo]


def _open_gate(em, pool, spot, lane0, maps, staged) -> bool:
    """End the batch at the kernel's gate (plan_gate) instead of a CTA barrier:
    warp 0, its maps acquired, arrives at `spot` (the end of its path); the
    other threads go on (their first fills are in flight, and the consumers
    wait for those, not for the maps), and a thread outside warp 0 waits for
    the gate before it first uses one of `maps` (await_map). False where the
    gate is taken or was never planned."""
    if pool.gate is None or pool.gate_taken:
        return False
    kb = em.kb
    for sym in staged:
        # no barrier orders warp 0's use of its map stages before a later phase's
        # writes: they keep their bytes (128 a map) for the whole kernel
        kb.spans[sym] = kb.WHOLE_KERNEL
    st = kb.reg(B64)
    with kb.into(spot):
        kb.emit("bar.warp.sync \t-1")       # every lane's fence and the map copies before the arrival
        kb.emit(f"@{lane0} mbarrier.arrive.shared.b64 \t{st}, [{pool.gate}]")
    for m in maps:
        m.gate = pool.gate
    pool.gate_taken = True
    return True


def _uniform(em, preds):
    """Lane 0's values of `preds` for the whole warp. Each lane's loads are its
    own, so a lane may read a key word another CTA was rewriting, or one lane 0
    already restamped (_retag), and the builds are warp-collective."""
    kb = em.kb
    for at in range(0, len(preds), 32):
        chunk = preds[at:at + 32]
        mask, bit = kb.reg(B32), kb.reg(B32)
        kb.emit(f"mov.u32 \t{mask}, 0")
        for i, p in enumerate(chunk):
            kb.emit(f"selp.u32 \t{bit}, {1 << i}, 0, {p}")
            kb.emit(f"or.b32 \t{mask}, {mask}, {bit}")
        kb.emit(f"shfl.sync.idx.b32 \t{mask}, {mask}, 0, 31, -1")
        for i, p in enumerate(chunk):
            kb.emit(f"and.b32 \t{bit}, {mask}, {1 << i}")
            kb.emit(f"setp.ne.u32 \t{p}, {bit}, 0")


def _retag(em, pool, keys, slot, gen, wrote_before, lane0):
    """Where the CTA wrote a map, its release gives the slot the next generation,
    and every key in the slot must carry it, or a later CTA would take a key it
    only reused for stale: this batch's keys are stored again from their values,
    and the first batch that writes also restamps the keys earlier batches reused
    (read back: the slot is held, so they are stable)."""
    kb = em.kb
    done = kb.label("tmap_tagged")
    kb.emit(f"@!{pool.wrote} bra \t{done}")
    g1 = _next_gen(em, gen)
    for key in keys:
        key.record(em, g1, lane0)
    if pool.keys:
        kb.emit(f"@{wrote_before} bra \t{done}")
        kb.emit(f"@!{lane0} bra \t{done}")
        a, off, t, tag = kb.reg(B64), kb.reg(B64), kb.reg(B64), kb.reg(B64)
        kb.emit(f"mul.wide.u32 \t{off}, {slot}, {KEY_BYTES}")
        kb.emit(f"cvt.u64.u32 \t{tag}, {g1}")
        kb.emit(f"shl.b64 \t{tag}, {tag}, 32")
        for sym, words in pool.keys:
            kb.emit(f"mov.u64 \t{a}, {sym}")
            kb.emit(f"add.s64 \t{a}, {a}, {off}")
            for k in range(words):
                kb.emit(f"ld.relaxed.gpu.global.u64 \t{t}, [{a}+{8 * k}]")
                kb.emit(f"and.b64 \t{t}, {t}, 0xFFFFFFFF")
                kb.emit(f"or.b64 \t{t}, {t}, {tag}")
                kb.emit(f"st.relaxed.gpu.global.u64 \t[{a}+{8 * k}], {t}")
    kb.place(done)


def _raw_words(tmap):
    """An experiment's hook: TILEC_TMAP_RAW="BYTE:BITS,..." presets 32-bit words of
    every map before its fields are replaced: fields that tensormap.replace cannot
    set, which the driver's encoder fills (benchmarks/tmap_probe.py prints them).
    BITS is a number, or box_bytes / panel_bytes / box_rows of this map's box."""
    import os
    spec = os.environ.get("TILEC_TMAP_RAW", "")
    es = byte_size(tmap.etype)
    rows = 1
    for n in tmap.box[:-1]:
        rows *= n
    named = {"box_bytes": rows * tmap.panel_elems * es, "panel_bytes": tmap.panel_elems * es, "box_rows": rows}
    out = []
    for word in filter(None, spec.split(",")):
        off, _, bits = word.partition(":")
        try:
            out.append((int(off), named[bits] if bits in named else int(bits, 0)))
        except ValueError:
            raise ValueError(f"TILEC_TMAP_RAW: '{word}' is not BYTE:BITS (BITS a number or one of "
                             f"{', '.join(named)})") from None
    return out


def _write(em, tmap, g, tv, dims, strides, lane0) -> str:
    """Warp 0 fills a 128-byte shared stage with the map's fields and copies it
    to the slot at `g` (a release to the tensor-map proxy). Returns the stage."""
    kb = em.kb
    stage = kb.shared_buffer(MAP_BYTES, MAP_BYTES, "tmap")
    s, z = kb.reg(B32), kb.reg(B32)
    kb.emit(f"mov.u32 \t{s}, {stage}")
    kb.emit(f"mad.lo.u32 \t{z}, {em.group.tid}, 4, {s}")
    kb.emit(f"st.shared.u32 \t[{z}], 0")
    kb.emit("bar.warp.sync \t-1")
    for off, bits in _raw_words(tmap):
        kb.emit(f"@{lane0} st.shared.u32 \t[{s}+{off}], {bits:#x}")
    put = f"@{lane0} tensormap.replace.tile"
    space = "shared::cta.b1024"
    box, rank = tmap.box, len(tmap.box)
    kb.emit(f"{put}.global_address.{space}.b64 \t[{s}], {tv.base}")
    kb.emit(f"{put}.rank.{space}.b32 \t[{s}], {rank - 1}")
    for d, n in enumerate(reversed(box[:-1] + (tmap.panel_elems,))):
        kb.emit(f"{put}.box_dim.{space}.b32 \t[{s}], {d}, {n}")
    for d in range(rank):
        kb.emit(f"{put}.global_dim.{space}.b32 \t[{s}], {d}, {dims[d]}")
    for d in range(rank - 1):
        kb.emit(f"{put}.global_stride.{space}.b64 \t[{s}], {d}, {strides[d]}")
    for d in range(rank):
        kb.emit(f"{put}.element_stride.{space}.b32 \t[{s}], {d}, 1")
    kb.emit(f"{put}.elemtype.{space}.b32 \t[{s}], {_ELEMTYPE[byte_size(tv.etype)]}")
    kb.emit(f"{put}.interleave_layout.{space}.b32 \t[{s}], 0")
    kb.emit(f"{put}.swizzle_mode.{space}.b32 \t[{s}], {SWIZZLE_CODE[tmap.swizzle]}")
    kb.emit(f"{put}.fill_mode.{space}.b32 \t[{s}], 0")
    kb.emit("bar.warp.sync \t-1")
    kb.emit(f"tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned "
            f"\t[{g}], [{s}], {MAP_BYTES}")
    return stage


KEY_BYTES = 128    # per slot and map: up to 15 tagged words (base, 5 dims, 4 strides; 64-bit values take two)


class _Key:
    """What the map in a slot was built from: the base, dims and byte strides, as
    64-bit words of a 32-bit half of a value and the slot generation it was
    written at. A CTA that finds its own tensor's key at the generation its
    claim saw skips the build. The words may be read before the claim's acquire
    (build_maps): a single-copy atomic word stamped with the generation of the
    last writer that released the slot can only be that writer's, so a key read
    while it was being rewritten, or from before, fails the test and the map is
    built again; a generation only repeats after 32767 rewrites of the slot."""

    def __init__(self, em, pool, index, base, dims, strides):
        self.sym = f"__tilec_tmapkeys_{pool.kernel}_{index}"
        em.module.module_lines.append(f".global .align 8 .b8 {self.sym}[{SLOTS * KEY_BYTES}];")
        self.dims, self.strides = dims, strides
        kb = em.kb
        self.values = []             # 32-bit halves, word by word
        for v in [base] + strides:
            lo, hi = kb.reg(B32), kb.reg(B32)
            kb.emit(f"mov.b64 \t{{{lo}, {hi}}}, {v}")
            self.values += [lo, hi]
        for d in dims:
            if not str(d).startswith("%"):
                r = kb.reg(B32)
                kb.emit(f"mov.u32 \t{r}, {d}")
                d = r
            self.values.append(d)
        self.addr, self.loaded, self.same = kb.reg(B64), [kb.reg(B64) for _ in self.values], None

    def load(self, em, slot):
        """Issue the loads of the key words in `slot` (one instruction for the warp each)."""
        kb = em.kb
        off = kb.reg(B64)
        kb.emit(f"mov.u64 \t{self.addr}, {self.sym}")
        kb.emit(f"mul.wide.u32 \t{off}, {slot}, {KEY_BYTES}")
        kb.emit(f"add.s64 \t{self.addr}, {self.addr}, {off}")
        for k, t in enumerate(self.loaded):
            kb.emit(f"ld.relaxed.gpu.global.u64 \t{t}, [{self.addr}+{8 * k}]")

    def _words(self, em, gen):
        kb = em.kb
        for v in self.values:
            w = kb.reg(B64)
            kb.emit(f"mov.b64 \t{w}, {{{v}, {gen}}}")
            yield w

    def compare(self, em, gen):
        """`same`: every word holds its value at generation `gen`, which is not 0."""
        kb = em.kb
        self.same = kb.reg(PRED)
        kb.emit(f"setp.ne.u32 \t{self.same}, {gen}, 0")
        for w, t in zip(self._words(em, gen), self.loaded):
            kb.emit(f"setp.eq.and.u64 \t{self.same}, {t}, {w}, {self.same}")

    def record(self, em, gen, lane0):
        for k, w in enumerate(self._words(em, gen)):
            em.kb.emit(f"@{lane0} st.relaxed.gpu.global.u64 \t[{self.addr}+{8 * k}], {w}")


def _synced_on_arrival(kb, label) -> bool:
    """Whether every thread reaching `label`, just placed, comes through the CTA
    barrier just before it: the code ends `bar.sync 0; bra.uni label; label:`
    (an agent_switch's join, then the entry's return) and nothing else branches
    to it. A second barrier there would order nothing more."""
    tail = [x for x in kb.out[-6:] if isinstance(x, list) or not x.startswith(kb.PHASE)][-3:]
    if tail != ["\tbar.sync \t0;", f"\tbra.uni \t{label};", f"{label}:"]:
        return False
    return kb.mentions(label) == 2


def release_slot(em):
    """At the kernel's exit: once every thread is done, thread 0 gives the slot back,
    at the next generation where the CTA wrote a map or a key."""
    pool = em.tma_pool
    if pool is None or pool.slot_var is None:
        return
    kb = em.kb
    if not _synced_on_arrival(kb, em.exit_label):
        kb.emit("bar.sync \t0")
    skip = kb.label("tmap_kept")
    kb.emit(f"@!{em.leader()} bra \t{skip}")
    slot, w, i, gen, a, off, f = (kb.reg(B32), kb.reg(B32), kb.reg(B32), kb.reg(B32), kb.reg(B64), kb.reg(B64),
                                  kb.reg(B64))
    kb.emit(f"ld.shared.u32 \t{slot}, [{pool.slot_var}]")
    kb.emit(f"ld.shared.u32 \t{gen}, [{pool.gen_var}]")
    kb.emit(f"shr.u32 \t{w}, {slot}, {SLOTS_PER_WORD.bit_length() - 1}")
    kb.emit(f"and.b32 \t{i}, {slot}, {SLOTS_PER_WORD - 1}")
    kb.emit(f"mul.lo.u32 \t{i}, {i}, {FIELD_BITS}")
    kb.emit(f"mov.u64 \t{a}, {_busy_symbol(pool.kernel)}")
    kb.emit(f"mul.wide.u32 \t{off}, {w}, 8")
    kb.emit(f"add.s64 \t{a}, {a}, {off}")
    # Only the holder changes its field (a claim's OR of the busy bit it holds
    # changes nothing), so where the CTA wrote, one add takes the field from
    # busy at `gen` (2 gen + 1) to free at the next generation, with no carry out.
    # That is a release: the next holder that acquires the slot must see the maps
    # and keys. Otherwise the busy bit is cleared relaxed, since nothing else the
    # CTA wrote (its results) concerns that holder, and the exit need not wait for it.
    wrote = kb.label("tmap_wrote")
    kb.emit(f"@{pool.wrote} bra \t{wrote}")
    kb.emit(f"mov.b64 \t{f}, 1")
    kb.emit(f"shl.b64 \t{f}, {f}, {i}")
    kb.emit(f"not.b64 \t{f}, {f}")
    kb.emit(f"red.relaxed.gpu.global.and.b64 \t[{a}], {f}")
    kb.emit(f"bra.uni \t{skip}")
    kb.place(wrote)
    g1 = _next_gen(em, gen)
    d = kb.reg(B32)
    kb.emit(f"sub.s32 \t{d}, {g1}, {gen}")
    kb.emit(f"mad.lo.s32 \t{d}, {d}, 2, -1")          # 2 g1 - (2 gen + 1)
    kb.emit(f"cvt.s64.s32 \t{f}, {d}")
    kb.emit(f"shl.b64 \t{f}, {f}, {i}")
    kb.emit(f"red.release.gpu.global.add.u64 \t[{a}], {f}")
    kb.place(skip)
