"""Tensor maps built on the device (sm_90a TMA).

cuTile's calling convention passes a tensor as pointer, shape and strides, so
no host-built CUtensorMap exists: each CTA writes its own maps. A map lives in
global memory (TMA reads it there) in a slot of a per-kernel pool:

* Thread 0 claims a slot: one bit of a busy bitmap (`__tilec_tmap_busy_K`,
  256 words), trying the word of its SM first (%smid: no contention between
  SMs) and the next words when all 32 bits are taken. The claim is an
  acquire atom that ORs in bit 0 unread (one round trip when the CTA before
  it on the SM has left); the CTA gives the slot back (a `red.and`) at its exit,
  after a CTA barrier, once no TMA of it can read the map any more: a release
  where it wrote maps and keys (the next holder's acquire then sees them), so
  no fence delays its first copy, and relaxed where it only reused them. Slots are
  exclusive, so concurrent launches of the kernel with other arguments never
  see each other's maps.
* Warp 0 builds each map in shared memory: 128 zero bytes, then lane 0 sets
  every field with `tensormap.replace` (rank, box, dims, byte strides, element
  type by width, swizzle, zero fill), and the warp copies it to its slot with
  `tensormap.cp_fenceproxy` (a release to the tensor-map proxy) and acquires
  it with `fence.proxy.tensormap::generic`.
* Beside each map, its key: the base, dims and strides it was built from. The
  CTAs of a launch that follow one another on an SM claim the same slot, find
  their own key there and skip the build (only the acquire remains).
* The descriptors a kernel builds together are one batch (ops_tma._batch):
  every key is loaded before any is compared, and one CTA barrier ends it, so
  a CTA's start-up costs two round trips (the atom, the keys) however many
  maps it has.

Each map has its own pool (`__tilec_tmaps_K_i`, SLOTS x 128 bytes), so the
slot index alone addresses every map of a CTA."""
from __future__ import annotations

from .ptxtypes import B32, B64, PRED, byte_size

SLOTS = 8192             # 256 busy words of 32 bits: more CTAs than any GPU holds at once
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
        self.wrote = None        # thread 0's predicate: it wrote a map and its key (release_slot)
        self.first_try = None    # (word, busy base, bit, atom's old value): the claim's first atom, in flight
        self.maps = 0
        self.in_step = False     # the CTA's start is aligned (start_phase.align_start)


def _pool(em):
    pool = em.tma_pool
    if pool is None:
        pool = em.tma_pool = _Pool(em.kb.name)
    return pool


def _busy_symbol(kernel):
    return f"__tilec_tmap_busy_{kernel}"


def start_claim(em):
    """At the entry of a kernel that builds device maps: thread 0 sends the claim's
    first atom (ORing in bit 0 of its SM's busy word), and the barrier inits and
    whatever else comes before the maps run while it is on its way; build_maps
    reads its answer. Every thread reaches the maps: they are built at the top
    level of a kernel that does not return early (ops_tma.device_map_mode)."""
    kb = em.kb
    pool = _pool(em)
    busy = _busy_symbol(pool.kernel)
    w, a, base, off, old, bit = (kb.reg(B32), kb.reg(B64), kb.reg(B64), kb.reg(B64), kb.reg(B32), kb.reg(B32))
    kb.emit(f"mov.u32 \t{w}, %smid")
    kb.emit(f"and.b32 \t{w}, {w}, {SLOTS // 32 - 1}")
    kb.emit(f"mov.u64 \t{base}, {busy}")
    kb.emit(f"mov.u32 \t{bit}, 1")
    kb.emit(f"mul.wide.u32 \t{off}, {w}, 4")
    kb.emit(f"add.s64 \t{a}, {base}, {off}")
    kb.emit(f"@{em.leader()} atom.acquire.gpu.global.or.b32 \t{old}, [{a}], {bit}")
    pool.first_try = (w, base, bit, old)


def _claim(em, pool, lane0):
    """Lane 0 of warp 0 claims a slot; the warp gets its index by shuffle and
    lane 0 also publishes it in shared memory (later batches, the release).
    The first attempt ORs in bit 0 of this SM's word without reading it first
    (sent at the kernel's entry: start_claim): one round trip where the CTA
    before it on this SM has left. A taken bit costs one more attempt, at the
    lowest bit the atom showed free; a full word, a move to the next word."""
    kb = em.kb
    busy = _busy_symbol(pool.kernel)
    em.module.module_lines.append(f".global .align 4 .b32 {busy}[{SLOTS // 32}];")
    pool.slot_var = kb.shared_buffer(4, 4, "tmap_slot")
    done, again, check = kb.label("tmap_got"), kb.label("tmap_try"), kb.label("tmap_check")
    a, off, free = kb.reg(B64), kb.reg(B64), kb.reg(B32)
    # every device map is in the entry block, so the module emitter sent the first atom
    w, base, bit, old = pool.first_try
    p = kb.reg(PRED)
    kb.emit(f"@!{lane0} bra \t{done}")
    kb.emit(f"bra.uni \t{check}")                      # the first atom is on its way already
    kb.place(again)
    kb.emit(f"mul.wide.u32 \t{off}, {w}, 4")
    kb.emit(f"add.s64 \t{a}, {base}, {off}")
    kb.emit(f"atom.acquire.gpu.global.or.b32 \t{old}, [{a}], {bit}")
    kb.place(check)
    kb.emit(f"and.b32 \t{free}, {old}, {bit}")
    kb.emit(f"setp.eq.u32 \t{p}, {free}, 0")
    got = kb.label("tmap_won")
    kb.emit(f"@{p} bra \t{got}")                        # the bit was free: it is ours
    kb.emit(f"not.b32 \t{free}, {old}")
    kb.emit(f"neg.s32 \t{bit}, {free}")
    kb.emit(f"and.b32 \t{bit}, {bit}, {free}")          # the lowest bit free at the atom
    kb.emit(f"setp.eq.u32 \t{p}, {bit}, 0")
    kb.emit(f"@!{p} bra \t{again}")
    kb.emit(f"add.u32 \t{w}, {w}, 1")                   # a full word: the next SM's
    kb.emit(f"and.b32 \t{w}, {w}, {SLOTS // 32 - 1}")
    kb.emit(f"mov.u32 \t{bit}, 1")
    kb.emit(f"bra.uni \t{again}")
    kb.place(got)
    kb.emit(f"bfind.u32 \t{bit}, {bit}")
    kb.emit(f"mad.lo.u32 \t{w}, {w}, 32, {bit}")
    kb.emit(f"st.shared.u32 \t[{pool.slot_var}], {w}")
    kb.place(done)
    slot = kb.reg(B32)
    kb.emit(f"shfl.sync.idx.b32 \t{slot}, {w}, 0, 31, -1")
    return slot


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


def build_maps(em, specs) -> list[TensorMap]:
    """Emit (at the top level of the kernel, every thread present) the maps of
    `specs`, (tensor view, box outermost first, swizzle "none"/"32B"/...)
    each: warp 0 claims the CTA's slot if it has none yet, loads every map's
    key at once (one round trip for all), builds the maps whose key differs,
    acquires them all, and one CTA barrier ends the batch."""
    kb = em.kb
    pool = _pool(em)
    tid = em.group.tid
    warp0, lane0 = kb.reg(PRED), em.leader()     # at the top level, thread 0 is lane 0 of warp 0
    skip = kb.label("tmap_built")
    if pool.wrote is None:
        pool.wrote = kb.reg(PRED)
        kb.emit(f"setp.ne.u32 \t{pool.wrote}, 0, 0")
    kb.emit(f"setp.lt.u32 \t{warp0}, {tid}, 32")
    kb.emit(f"@!{warp0} bra \t{skip}")
    from .stamps import stamp
    if pool.slot_var is None:
        slot = _claim(em, pool, lane0)
        stamp(em, "claimed")
    else:
        slot = kb.reg(B32)
        kb.emit(f"ld.shared.u32 \t{slot}, [{pool.slot_var}]")
    todo = []
    for tv, box, swizzle in specs:
        sym = f"__tilec_tmaps_{pool.kernel}_{pool.maps}"
        pool.maps += 1
        em.module.module_lines.append(f".global .align {MAP_BYTES} .b8 {sym}[{SLOTS * MAP_BYTES}];")
        es = byte_size(tv.etype)
        g, off, gen = kb.reg(B64), kb.reg(B64), kb.reg(B64)
        kb.emit(f"mov.u64 \t{g}, {sym}")
        kb.emit(f"mul.wide.u32 \t{off}, {slot}, {MAP_BYTES}")
        kb.emit(f"add.s64 \t{g}, {g}, {off}")
        kb.emit(f"cvta.global.u64 \t{gen}, {g}")
        # operands in the map's order: dimension 0 is the innermost
        dims = [as_b32(em, d) for d in reversed(tv.shape)]
        strides = [_stride_bytes(em, st, es) for st in reversed(tv.strides[:-1])]
        tmap = TensorMap(gen, tv.etype, box, swizzle, sym, pool.slot_var)
        todo.append((tmap, g, tv, dims, strides, _key(em, pool, slot, tv.base, dims, strides)))
    for tmap, g, tv, dims, strides, key in todo:      # the loads above are all in flight by now
        key.compare(em)
    stamp(em, "keys")
    for tmap, g, tv, dims, strides, key in todo:
        keep = kb.label("tmap_kept")
        kb.emit(f"@{key.same} bra \t{keep}")          # the slot holds this very map already
        _write(em, tmap, g, tv, dims, strides, lane0)
        key.record(em, lane0)
        # the release at the exit orders the key and map before the slot's next holder
        # (a CTA that only reused the slot wrote nothing: the busy word's atomics alone
        # carry the builder's release on, a chain of read-modify-writes)
        kb.emit(f"setp.eq.u32 \t{pool.wrote}, 1, 1")
        kb.place(keep)
        kb.emit(f"fence.proxy.tensormap::generic.acquire.gpu \t[{tmap.addr}], {MAP_BYTES}")
        # thread 0 (the usual TMA issuer) warms the TMA unit's copy while the CTA sets up
        kb.emit(f"@{lane0} prefetch.tensormap \t[{tmap.addr}]")
    kb.place(skip)
    if em.phase_align and not pool.in_step:
        from .start_phase import align_start
        align_start(em)
        pool.in_step = True
    kb.emit("bar.sync \t0")
    stamp(em, "maps_ready")
    return [t[0] for t in todo]


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


def _write(em, tmap, g, tv, dims, strides, lane0):
    """Warp 0 fills a 128-byte shared stage with the map's fields and copies it
    to the slot at `g` (a release to the tensor-map proxy)."""
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


KEY_BYTES = 64     # per slot and map: valid word, 5 dims (u32), base (u64 at 24), 4 strides (u64 at 32)


class _Key:
    """What the map in a slot was built from. A CTA that finds its own tensor's
    key there (the CTA before it on this SM, same launch) skips the build; the
    key is read and written only while the slot is held, so the busy word's
    acquire and release order it with the map."""

    def __init__(self, addr, values, loaded):
        self.addr, self.values, self.loaded = addr, values, loaded
        self.same = None

    def compare(self, em):
        kb = em.kb
        self.same = kb.reg(PRED)
        kb.emit(f"setp.eq.u32 \t{self.same}, 1, 1")
        for (_off, cls, v), t in zip(self.values, self.loaded):
            ty = "u64" if cls == B64 else "u32"
            kb.emit(f"setp.eq.and.{ty} \t{self.same}, {t}, {v}, {self.same}")

    def record(self, em, lane0):
        for off, cls, v in self.values:
            em.kb.emit(f"@{lane0} st.global.{'u64' if cls == B64 else 'u32'} \t[{self.addr}+{off}], {v}")


def _key(em, pool, slot, base, dims, strides) -> _Key:
    """Issue the loads of the key beside map `pool.maps - 1` in `slot`."""
    kb = em.kb
    sym = f"__tilec_tmapkeys_{pool.kernel}_{pool.maps - 1}"
    em.module.module_lines.append(f".global .align 8 .b8 {sym}[{SLOTS * KEY_BYTES}];")
    addr, off = kb.reg(B64), kb.reg(B64)
    kb.emit(f"mov.u64 \t{addr}, {sym}")
    kb.emit(f"mul.wide.u32 \t{off}, {slot}, {KEY_BYTES}")
    kb.emit(f"add.s64 \t{addr}, {addr}, {off}")
    values = [(0, B32, "1"), (24, B64, base)]
    values += [(4 + 4 * d, B32, v) for d, v in enumerate(dims)]
    values += [(32 + 8 * d, B64, v) for d, v in enumerate(strides)]
    loaded = []
    for off_, cls, _v in values:
        t = kb.reg(cls)
        kb.emit(f"ld.global.{'u64' if cls == B64 else 'u32'} \t{t}, [{addr}+{off_}]")
        loaded.append(t)
    return _Key(addr, values, loaded)


def release_slot(em):
    """At the kernel's exit: once every thread is done, thread 0 gives the slot back."""
    pool = em.tma_pool
    if pool is None or pool.slot_var is None:
        return
    kb = em.kb
    kb.emit("bar.sync \t0")
    skip = kb.label("tmap_kept")
    kb.emit(f"@!{em.leader()} bra \t{skip}")
    slot, w, bit, a, off = kb.reg(B32), kb.reg(B32), kb.reg(B32), kb.reg(B64), kb.reg(B64)
    kb.emit(f"ld.shared.u32 \t{slot}, [{pool.slot_var}]")
    kb.emit(f"shr.u32 \t{w}, {slot}, 5")
    kb.emit(f"and.b32 \t{slot}, {slot}, 31")
    kb.emit(f"shl.b32 \t{bit}, 1, {slot}")
    kb.emit(f"not.b32 \t{bit}, {bit}")
    kb.emit(f"mov.u64 \t{a}, {_busy_symbol(pool.kernel)}")
    kb.emit(f"mul.wide.u32 \t{off}, {w}, 4")
    kb.emit(f"add.s64 \t{a}, {a}, {off}")
    # a release only where this CTA wrote a map and its key: the next holder that
    # acquires the slot must see them; otherwise relaxed, since nothing else the CTA
    # wrote (its results) concerns that holder, and the exit need not wait for it
    kb.emit(f"@{pool.wrote} red.release.gpu.global.and.b32 \t[{a}], {bit}")
    kb.emit(f"@!{pool.wrote} red.relaxed.gpu.global.and.b32 \t[{a}], {bit}")
    kb.place(skip)
