"""Tensor maps built on the device (sm_90a TMA).

cuTile's calling convention passes a tensor as pointer, shape and strides, so
no host-built CUtensorMap exists: each CTA writes its own maps. A map lives in
global memory (TMA reads it there) in a slot of a per-kernel pool:

* Thread 0 claims a slot: one bit of a busy bitmap (`__tilec_tmap_busy_K`,
  256 words), trying the word of its SM first (%smid: no contention between
  SMs) and the next words when all 32 bits are taken. The claim is an
  acquire atom; the CTA gives the slot back (a release `red.and`) at its exit,
  after a CTA barrier, once no TMA of it can read the map any more. Slots are
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

Each map has its own pool (`__tilec_tmaps_K_i`, SLOTS x 128 bytes), so the
slot index alone addresses every map of a CTA."""
from __future__ import annotations

from .ptxtypes import B32, B64, PRED, byte_size

SLOTS = 8192             # 256 busy words of 32 bits: more CTAs than any GPU holds at once
MAP_BYTES = 128
_ELEMTYPE = {1: 0, 2: 1, 4: 2, 8: 4}     # tensormap elemtype by element bytes: u8, u16, u32, u64
SWIZZLE_CODE = {"none": 0, "32B": 1, "64B": 2, "128B": 3}
SWIZZLE_SPAN = {"none": None, "32B": 32, "64B": 64, "128B": 128}


class TensorMap:
    """A built map: its generic address register, and how the copies use it."""

    def __init__(self, addr, etype, box, swizzle):
        self.addr, self.etype, self.box, self.swizzle = addr, etype, tuple(box), swizzle

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
        self.maps = 0


def _pool(em):
    pool = em.tma_pool
    if pool is None:
        pool = em.tma_pool = _Pool(em.kb.name)
    return pool


def _busy_symbol(kernel):
    return f"__tilec_tmap_busy_{kernel}"


def _acquire(em, pool):
    """Thread 0 claims a slot and publishes it in shared memory."""
    kb = em.kb
    busy = _busy_symbol(pool.kernel)
    em.module.module_lines.append(f".global .align 4 .b32 {busy}[{SLOTS // 32}];")
    pool.slot_var = kb.shared_buffer(4, 4, "tmap_slot")
    done, again, nxt = kb.label("tmap_got"), kb.label("tmap_try"), kb.label("tmap_next")
    em.kb.emit(f"@!{em.leader()} bra \t{done}")
    w, a, base, off, old, free, bit = (kb.reg(B32), kb.reg(B64), kb.reg(B64), kb.reg(B64),
                                       kb.reg(B32), kb.reg(B32), kb.reg(B32))
    p = kb.reg(PRED)
    kb.emit(f"mov.u32 \t{w}, %smid")
    kb.emit(f"and.b32 \t{w}, {w}, {SLOTS // 32 - 1}")
    kb.emit(f"mov.u64 \t{base}, {busy}")
    kb.place(again)
    kb.emit(f"mul.wide.u32 \t{off}, {w}, 4")
    kb.emit(f"add.s64 \t{a}, {base}, {off}")
    kb.emit(f"ld.relaxed.gpu.global.u32 \t{old}, [{a}]")
    kb.emit(f"not.b32 \t{free}, {old}")
    kb.emit(f"setp.eq.u32 \t{p}, {free}, 0")
    kb.emit(f"@{p} bra \t{nxt}")
    kb.emit(f"neg.s32 \t{bit}, {free}")
    kb.emit(f"and.b32 \t{bit}, {bit}, {free}")          # the lowest free bit
    kb.emit(f"atom.acquire.gpu.global.or.b32 \t{old}, [{a}], {bit}")
    kb.emit(f"and.b32 \t{old}, {old}, {bit}")
    kb.emit(f"setp.ne.u32 \t{p}, {old}, 0")
    kb.emit(f"@{p} bra \t{again}")                      # another CTA took it first
    kb.emit(f"bfind.u32 \t{bit}, {bit}")
    kb.emit(f"mad.lo.u32 \t{w}, {w}, 32, {bit}")
    kb.emit(f"st.shared.u32 \t[{pool.slot_var}], {w}")
    kb.emit(f"bra.uni \t{done}")
    kb.place(nxt)
    kb.emit(f"add.u32 \t{w}, {w}, 1")
    kb.emit(f"and.b32 \t{w}, {w}, {SLOTS // 32 - 1}")
    kb.emit(f"bra.uni \t{again}")
    kb.place(done)
    kb.emit("bar.sync \t0")


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


def build_map(em, tv, box, swizzle) -> TensorMap:
    """Emit (at the top level of the kernel, every thread present) the claim of
    the CTA's slot if this is its first map, and the build of a map of tensor
    view `tv` (TensorView: base, shape and stride registers or ints) with `box`
    (outermost first) and `swizzle` ("none", "32B", "64B", "128B")."""
    kb = em.kb
    pool = _pool(em)
    if pool.slot_var is None:
        _acquire(em, pool)
    sym = f"__tilec_tmaps_{pool.kernel}_{pool.maps}"
    pool.maps += 1
    em.module.module_lines.append(f".global .align {MAP_BYTES} .b8 {sym}[{SLOTS * MAP_BYTES}];")
    es = byte_size(tv.etype)
    slot, g, off, gen = kb.reg(B32), kb.reg(B64), kb.reg(B64), kb.reg(B64)
    kb.emit(f"ld.shared.u32 \t{slot}, [{pool.slot_var}]")
    kb.emit(f"mov.u64 \t{g}, {sym}")
    kb.emit(f"mul.wide.u32 \t{off}, {slot}, {MAP_BYTES}")
    kb.emit(f"add.s64 \t{g}, {g}, {off}")
    kb.emit(f"cvta.global.u64 \t{gen}, {g}")
    rank = len(box)
    # operands in the map's order: dimension 0 is the innermost
    dims = [as_b32(em, d) for d in reversed(tv.shape)]
    strides = [_stride_bytes(em, s, es) for s in reversed(tv.strides[:-1])]
    stage = kb.shared_buffer(MAP_BYTES, MAP_BYTES, "tmap")
    skip, keep = kb.label("tmap_built"), kb.label("tmap_kept")
    warp0, lane0 = kb.reg(PRED), kb.reg(PRED)
    tid = em.group.tid
    kb.emit(f"setp.lt.u32 \t{warp0}, {tid}, 32")
    kb.emit(f"@!{warp0} bra \t{skip}")
    key = _key(em, pool, slot, tv.base, dims, strides)
    kb.emit(f"@{key.same} bra \t{keep}")       # the slot holds this very map already
    s, z = kb.reg(B32), kb.reg(B32)
    kb.emit(f"mov.u32 \t{s}, {stage}")
    kb.emit(f"mad.lo.u32 \t{z}, {tid}, 4, {s}")
    kb.emit(f"st.shared.u32 \t[{z}], 0")
    kb.emit("bar.warp.sync \t-1")
    kb.emit(f"setp.eq.u32 \t{lane0}, {tid}, 0")
    put = f"@{lane0} tensormap.replace.tile"
    space = "shared::cta.b1024"
    kb.emit(f"{put}.global_address.{space}.b64 \t[{s}], {tv.base}")
    kb.emit(f"{put}.rank.{space}.b32 \t[{s}], {rank - 1}")
    tmap = TensorMap(gen, tv.etype, box, swizzle)
    for d, n in enumerate(reversed(box[:-1] + (tmap.panel_elems,))):
        kb.emit(f"{put}.box_dim.{space}.b32 \t[{s}], {d}, {n}")
    for d in range(rank):
        kb.emit(f"{put}.global_dim.{space}.b32 \t[{s}], {d}, {dims[d]}")
    for d in range(rank - 1):
        kb.emit(f"{put}.global_stride.{space}.b64 \t[{s}], {d}, {strides[d]}")
    for d in range(rank):
        kb.emit(f"{put}.element_stride.{space}.b32 \t[{s}], {d}, 1")
    kb.emit(f"{put}.elemtype.{space}.b32 \t[{s}], {_ELEMTYPE[es]}")
    kb.emit(f"{put}.interleave_layout.{space}.b32 \t[{s}], 0")
    kb.emit(f"{put}.swizzle_mode.{space}.b32 \t[{s}], {SWIZZLE_CODE[swizzle]}")
    kb.emit(f"{put}.fill_mode.{space}.b32 \t[{s}], 0")
    kb.emit("bar.warp.sync \t-1")
    kb.emit(f"tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned "
            f"\t[{g}], [{s}], {MAP_BYTES}")
    key.record(em, lane0)
    kb.place(keep)
    kb.emit(f"fence.proxy.tensormap::generic.acquire.gpu \t[{gen}], {MAP_BYTES}")
    kb.place(skip)
    kb.emit("bar.sync \t0")
    return tmap


KEY_BYTES = 64     # per slot and map: valid word, 5 dims (u32), base (u64 at 24), 4 strides (u64 at 32)


class _Key:
    """What the map in a slot was built from. A CTA that finds its own tensor's
    key there (the CTA before it on this SM, same launch) skips the build; the
    key is read and written only while the slot is held, so the busy word's
    acquire/release orders it with the map."""

    def __init__(self, addr, same, values):
        self.addr, self.same, self.values = addr, same, values

    def record(self, em, lane0):
        for off, cls, v in self.values:
            em.kb.emit(f"@{lane0} st.global.{'u64' if cls == B64 else 'u32'} \t[{self.addr}+{off}], {v}")


def _key(em, pool, slot, base, dims, strides) -> _Key:
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
    same = kb.reg(PRED)
    kb.emit(f"setp.eq.u32 \t{same}, 1, 1")
    for off_, cls, v in values:
        t = kb.reg(cls)
        ty = "u64" if cls == B64 else "u32"
        kb.emit(f"ld.global.{ty} \t{t}, [{addr}+{off_}]")
        kb.emit(f"setp.eq.and.{ty} \t{same}, {t}, {v}, {same}")
    return _Key(addr, same, values)


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
    kb.emit(f"red.release.gpu.global.and.b32 \t[{a}], {bit}")
    kb.place(skip)
