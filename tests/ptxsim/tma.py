"""Hopper TMA (sm_90a) with tensor maps built on the device.

Tensor maps
-----------
A tensor map is an opaque 128-byte object, 64-byte aligned. The hardware's
encoding is undocumented and nothing but the simulator reads it, so the
simulator uses its own (TM_FIELDS below): every field has a "set" bit in the
word at byte 8, so a zero-filled map has every field unset, and copying the 128
bytes carries the fields. tensormap.replace.tile.<field> writes one field (the
value as given: rank is rank - 1, as in the PTX ISA) into shared or global
memory; tensormap.cp_fenceproxy (warp-collective, every lane with the same
operands) copies a map from shared to global memory; fence.proxy.tensormap::
generic.acquire records, for the CTA, which write of the map at that address it
acquired. Nothing is checked when a field is written: a cp.async.bulk.tensor
checks the map it reads, and reports a field that is unset or invalid by name.

Checked at a TMA: the map was written by tensormap.cp_fenceproxy (or
tensormap.replace on global memory) and this CTA executed the acquire fence on
it since its latest write; rank = the instruction's dimensionality; box_dim
1..256; global_dim >= 1; element_stride 1 (others are not simulated);
interleave_layout 0 and fill_mode 0 (zero fill; NaN fill is not simulated);
global_address 16-byte aligned; global_stride[i] (the byte stride of dimension
i + 1) a multiple of 16 below 2^40; box_dim[0] * element size a multiple of 16
bytes and, with a swizzle, equal to the swizzle span (32, 64 or 128 bytes: a
narrower box's shared-memory layout is not modelled); the destination 128-byte
aligned, inside one shared variable, on no live mbarrier and overlapping no
other copy in flight; every global byte read inside the allocation holding
the first one.

The copy
--------
Box element (b0, b1, ..) (b0 innermost) reads global element (c0 + b0, c1 + b1,
..) at global_address + i0 * esize + sum_d i_d * global_stride[d - 1]; an
element with a coordinate outside [0, global_dim) is not read and lands as
zero. It goes to dst + ((.. b2 * box1 + b1) * box0 + b0) * esize, then the
shared address is swizzled (128B: bits 4-6 ^= bits 7-9; 64B: bits 4-5 ^= 7-8;
32B: bit 4 ^= bit 7). Global memory is read when the copy is issued; its
shared-memory writes land when the mbarrier phase it completes on completes
(runtime.py), and it counts product(box_dim) * esize transaction bytes.

In a cluster (runtime.py) the destination and the mbarrier are shared::cluster
addresses, both in one CTA, perhaps another one (mapa). With .multicast::cluster
and ctaMask the box, read once, goes to every CTA whose rank bit is set, at the
destination's offset in that CTA, and counts its bytes on the mbarrier at the
mbarrier's offset there: each CTA's copy is checked, lands and completes as a
copy of its own would (a CTA whose threads all exited is an error; so is a
peer's mbarrier whose init no cluster-scope release has published).

The store
---------
cp.async.bulk.tensor.Nd.global.shared::cta[.tile].bulk_group [map, {c0, ..}],
[src] (tile mode; no reduction, im2col or cache hint) is the load reversed,
with the same map checks: box element (b0, b1, ..) is read from src + ((.. b2 *
box1 + b1) * box0 + b0) * esize, swizzled as above, and written to global
element (c0 + b0, c1 + b1, ..) unless a coordinate is outside [0, global_dim)
(clipped: nothing is written there). src is 128-byte aligned, in the CTA's
shared memory, and the box inside the shared variable holding it; the global
bytes written lie inside the allocation holding the first one. Checked at
issue: no TMA load still in flight writes the source, and the latest
generic-proxy store to each source byte (st/atom/red/cp.async on shared memory,
cp.async again as it lands, generic st, stmatrix; by any thread) was followed by
its thread's fence.proxy.async (or .shared::{cta,cluster}; .global does not
count) -- the async proxy reads the source (wgmma.mma_async's operands likewise,
or fenced by its whole warpgroup, wgmma.py); a TMA load's write since, async
proxy itself, needs no fence. An earlier store that a later one overwrote needs
no fence of its own: the async proxy cannot read a value coherence-ordered
before one it sees (a tensor-map scratch area reused as a staging tile).

Completion goes through the issuing thread's bulk async-groups:
cp.async.bulk.commit_group closes its uncommitted bulk operations into a group
(perhaps empty), and cp.async.bulk.wait_group[.read] N retires all but its N
most recent groups (uncommitted operations belong to none). With copy_timing=
"eager" a store reads shared memory and writes global memory at issue; with
"late" it reads shared memory when a wait_group.read or wait_group of its thread
retires it and writes global memory when a wait_group without .read does, or
when the CTA ends (stores still unwritten then land in issue order): the latest
a GPU may. In both timings, until a wait_group[.read] of its thread retired it,
a store's source must not be written: a generic store to it (any thread) or a
TMA load into it is an error, and so is a thread exiting before it waited for
the reads of all its stores (the CTA's shared memory could go away under them).
"""
from __future__ import annotations

import numpy as np

from .base import GLOBAL_BASE, MemoryFault, PTXRuntimeError, SHARED_BASE

TM_BYTES = 128
TM_ALIGN = 64
TM_MASK_OFF = 8                 # u32: bit i set = field slot i written
MAX_RANK = 5

# field -> (byte offset of ord 0, bytes per entry, number of ords (0: none), first set bit)
TM_FIELDS = {
    "global_address": (0, 8, 0, 0),
    "rank": (12, 4, 0, 1),
    "elemtype": (16, 4, 0, 2),
    "interleave_layout": (20, 4, 0, 3),
    "swizzle_mode": (24, 4, 0, 4),
    "fill_mode": (28, 4, 0, 5),
    "box_dim": (32, 4, 5, 6),
    "global_dim": (52, 4, 5, 11),
    "element_stride": (72, 4, 5, 16),
    "global_stride": (96, 8, 4, 21),
}

# elemtype -> element bytes (PTX ISA, tensormap.replace: .u8 .u16 .u32 .s32 .u64 .s64 .f16 .f32
# .f32.ftz .f64 .bf16 .tf32 .tf32.ftz)
ELEM_BYTES = {0: 1, 1: 2, 2: 4, 3: 4, 4: 8, 5: 8, 6: 2, 7: 4, 8: 4, 9: 8, 10: 2, 11: 4, 12: 4}
SWIZZLE_SPAN = {0: 0, 1: 32, 2: 64, 3: 128}


def field_value_bits(field):
    return 8 * TM_FIELDS[field][1]


def decode_tensormap(raw):
    """{field: value, or None where unset; a list per ord for the fields with an ord}."""
    mask = int.from_bytes(raw[TM_MASK_OFF:TM_MASK_OFF + 4], "little")
    out = {}
    for name, (off, size, nords, bit) in TM_FIELDS.items():
        vals = []
        for i in range(max(nords, 1)):
            o = off + i * size
            vals.append(int.from_bytes(raw[o:o + size], "little") if mask >> (bit + i) & 1 else None)
        out[name] = vals if nords else vals[0]
    return out


class BulkCopy:
    """One cp.async.bulk.tensor in flight: its shared byte addresses and the bytes that land there."""

    def __init__(self, seq, lid, lo, hi, addrs, data, nbytes, src):
        self.seq, self.lid, self.lo, self.hi = seq, lid, lo, hi
        self.addrs, self.data, self.nbytes = addrs, data, nbytes
        self.src = src           # the issuing CTA (another one of the cluster for a multicast)
        self.landed = False      # its shared-memory writes done (at issue with copy_timing="eager")
        self.hb, self.hb_comp = None, 0   # the race check: the copy's clock and component (hb.py)


class BulkStore:
    """One TMA store: the shared bytes it reads (addrs, box order; lo..hi their span), which box
    elements are in bounds (inb) and their global addresses (gaddrs)."""

    def __init__(self, seq, lid, tid, lo, hi, addrs, inb, gaddrs, esize):
        self.seq, self.lid, self.tid, self.lo, self.hi = seq, lid, tid, lo, hi
        self.addrs, self.inb, self.gaddrs, self.esize = addrs, inb, gaddrs, esize
        self.data = None         # (in-bounds elements, esize) bytes, once read from shared memory
        self.written = False     # global memory written
        self.hb_k = 0            # the race check: its number among its thread's stores (hb.py)


class BulkGroups:
    """One thread's bulk async-groups (of TMA stores)."""

    def __init__(self):
        self.uncommitted = []    # issued, no commit_group yet
        self.groups = []         # committed and not retired by a wait_group (without .read), oldest first


class TmaRuntime:
    """Mixed into runtime.Kernel: tensor maps, TMA loads and stores, bulk async-groups."""

    def _global_alloc(self, addr):
        for name, start, size in self.launch_allocs:
            if start <= addr < start + size:
                return name, start, size
        return None

    def _tm_locate(self, lid, space, addr, what):
        """(byte view, index of the map's first byte, space) of the 128-byte map at `addr`."""
        if space == "generic":
            space = "shared" if SHARED_BASE <= addr < SHARED_BASE + self.launch_shared + 64 else "global"
        if addr % TM_ALIGN:
            raise PTXRuntimeError(f"{what}: tensor map address {addr:#x} is not {TM_ALIGN}-byte aligned, "
                                  f"{self._where(lid)}")
        if space == "shared":
            if addr < SHARED_BASE or addr + TM_BYTES > SHARED_BASE + self.launch_shared:
                self._fault(lid, "shared", addr, TM_BYTES)
            return self.sviews["B"], addr, "shared"
        a = self._global_alloc(addr)
        if a is None or addr + TM_BYTES > a[1] + a[2]:
            self._fault(lid, "global", addr, TM_BYTES)
        return self.gviews["B"], addr - GLOBAL_BASE, "global"

    def _tm_replace(self, lid, space, addr, field, ordv, value):
        """tensormap.replace.tile.<field>: write one field of the map at `addr`."""
        B, i, space = self._tm_locate(lid, space, addr, f"tensormap.replace.tile.{field}")
        if space == "shared" and self.uses_mbarrier:
            mbw = self.ns["MBW"]
            for j in range(0, TM_BYTES, 8):
                if addr + j in mbw:
                    self._mb_clobber(lid, addr + j)
        off, size, nords, bit = TM_FIELDS[field]
        pos = i + off + ordv * size
        if space == "shared" and self.cta.hb is not None:
            self._tm_hb_write(lid, addr, off + ordv * size, size)
            self._tm_hb_write(lid, addr, TM_MASK_OFF, 4)
        B[pos:pos + size] = (value & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
        m = i + TM_MASK_OFF
        mask = int.from_bytes(B[m:m + 4], "little") | (1 << (bit + ordv))
        B[m:m + 4] = mask.to_bytes(4, "little")
        if space == "global":
            self._tm_written(addr, lid)

    def _tm_hb_write(self, lid, addr, off, size):
        """The race check: the running thread writes `size` bytes at `off` of the shared map at `addr`."""
        o = addr - SHARED_BASE + off
        t, h = self.hb_t, self.cta.hb
        self._hb_access(range(o, o + size), h.row(t), h.tb + t, lid, True)

    def _tm_written(self, addr, lid):
        self.tm_seq += 1
        self.tm_version[addr] = (self.tm_seq, lid)

    def _tm_acquire(self, lid, addr, size):
        """fence.proxy.tensormap::generic.acquire [addr], size: this CTA now sees the map's latest write."""
        if addr is None:
            raise PTXRuntimeError(f"fence.proxy.tensormap::generic.acquire of an address from an uninitialized "
                                  f"register, {self._where(lid)}")
        if size != TM_BYTES:
            raise PTXRuntimeError(f"fence.proxy.tensormap::generic.acquire of {size} bytes (a tensor map is "
                                  f"{TM_BYTES}), {self._where(lid)}")
        self.cta.tm_acq[addr] = self.tm_version.get(addr)

    def _tm_prefetch(self, lid, addr):
        """prefetch.tensormap [addr]: only of a map this CTA acquired since its last write."""
        if addr not in self.cta.tm_acq or self.cta.tm_acq[addr] != self.tm_version.get(addr):
            raise PTXRuntimeError(f"prefetch.tensormap of {addr:#x}, a map this CTA has not acquired "
                                  f"since it was last written, {self._where(lid)}")

    def _tm_cp_compute(self, w, lanes):
        """tensormap.cp_fenceproxy: all lanes of the warp arrived; one copy of 128 bytes."""
        lid = w.instr.lid
        seen = set()
        for R in lanes.values():
            try:
                seen.add(tuple((R[b] if k == "reg" else b) + o for k, b, o in (w.args["dst"], w.args["src"])))
            except TypeError:
                raise PTXRuntimeError(f"tensormap.cp_fenceproxy address from an uninitialized register "
                                      f"({w.instr.where()})") from None
        if len(seen) != 1:
            raise PTXRuntimeError(f"tensormap.cp_fenceproxy operands differ across the warp (.sync.aligned: "
                                  f"every lane gives the same addresses; {w.instr.where()})")
        ((dst, src),) = seen
        S, si, _ = self._tm_locate(lid, "shared", src, "tensormap.cp_fenceproxy source")
        h = self.cta.hb
        if h is not None:          # the warp reads the map: what any of its lanes saw orders the read
            ep = self.regs["%%epkey"].slot
            threads = sorted(R[ep] & 4095 for R in lanes.values())
            o = src - SHARED_BASE
            self._hb_access(range(o, o + TM_BYTES), h.vc[threads].max(axis=0).tolist(), h.tb + threads[0], lid,
                             False)
        G, gi, _ = self._tm_locate(lid, "global", dst, "tensormap.cp_fenceproxy destination")
        G[gi:gi + TM_BYTES] = S[si:si + TM_BYTES]
        self._tm_written(dst, lid)

    # ---- the copy ---------------------------------------------------------------------------------
    def _tma_map(self, lid, tmap, rank_instr):
        """The checked map at global `tmap`: (global address, element bytes, box, global dims,
        global strides, swizzle span)."""
        where = self._where(lid)
        if tmap is None:
            raise PTXRuntimeError(f"cp.async.bulk.tensor through a tensor map address from an uninitialized "
                                  f"register, {where}")
        if SHARED_BASE <= tmap < SHARED_BASE + self.launch_shared + 64:
            raise PTXRuntimeError(f"cp.async.bulk.tensor through a tensor map in shared memory ({tmap:#x}); "
                                  f"it reads maps from global memory (tensormap.cp_fenceproxy copies one "
                                  f"there), {where}")
        B, i, _ = self._tm_locate(lid, "global", tmap, "cp.async.bulk.tensor")
        ver = self.tm_version.get(tmap)
        if ver is None:
            raise PTXRuntimeError(f"cp.async.bulk.tensor through the tensor map at {tmap:#x}, which no "
                                  f"tensormap.cp_fenceproxy (or tensormap.replace on global memory) wrote, {where}")
        if self.cta.tm_acq.get(tmap) != ver:
            raise PTXRuntimeError(f"cp.async.bulk.tensor through the tensor map at {tmap:#x} with no "
                                  f"fence.proxy.tensormap::generic.acquire of it in this CTA since its last "
                                  f"write ({self._where(ver[1]) if ver[1] is not None else 'an earlier launch'}), "
                                  f"{where}")
        tm = decode_tensormap(bytes(B[i:i + TM_BYTES]))

        def bad(field, value, rule, unsupported=False):
            what = "is not simulated" if unsupported else "is invalid"
            raise PTXRuntimeError(f"cp.async.bulk.tensor through the tensor map at {tmap:#x}: {field} = {value} "
                                  f"{what} ({rule}), {where}")

        def need(field, ordv=None):
            v = tm[field] if ordv is None else tm[field][ordv]
            if v is None:
                name = field if ordv is None else f"{field}[{ordv}]"
                raise PTXRuntimeError(f"cp.async.bulk.tensor through the tensor map at {tmap:#x}: {name} is "
                                      f"unset (no tensormap.replace.tile.{field} wrote it), {where}")
            return v

        gaddr = need("global_address")
        rank = need("rank") + 1
        if not 1 <= rank <= MAX_RANK:
            bad("rank", rank - 1, f"the field is rank - 1; rank 1..{MAX_RANK}")
        if rank != rank_instr:
            bad("rank", rank - 1, f"rank {rank}, but the instruction is .{rank_instr}d")
        et = need("elemtype")
        if et not in ELEM_BYTES:
            bad("elemtype", et, "0..12", unsupported=True)
        esize = ELEM_BYTES[et]
        il = need("interleave_layout")
        if il != 0:
            bad("interleave_layout", il, "only 0, none", unsupported=True)
        sw = need("swizzle_mode")
        if sw not in SWIZZLE_SPAN:
            bad("swizzle_mode", sw, "0 none, 1 32B, 2 64B, 3 128B", unsupported=True)
        fill = need("fill_mode")
        if fill != 0:
            bad("fill_mode", fill, "only 0, zero fill", unsupported=fill == 1)
        box, gdim, gstride = [], [], []
        for d in range(rank):
            b = need("box_dim", d)
            if not 1 <= b <= 256:
                bad(f"box_dim[{d}]", b, "1..256")
            box.append(b)
            g = need("global_dim", d)
            if g < 1:
                bad(f"global_dim[{d}]", g, "at least 1")
            gdim.append(g)
            es = need("element_stride", d)
            if es != 1:
                bad(f"element_stride[{d}]", es, "only 1", unsupported=1 <= es <= 8)
        for d in range(rank - 1):
            s = need("global_stride", d)
            if s % 16 or s >= 1 << 40:
                bad(f"global_stride[{d}]", s, "bytes: a multiple of 16 below 2^40")
            gstride.append(s)
        if gaddr % 16:
            bad("global_address", hex(gaddr), "16-byte aligned")
        inner = box[0] * esize
        if inner % 16:
            bad("box_dim[0]", box[0], f"{inner} bytes a row; a multiple of 16 bytes")
        span = SWIZZLE_SPAN[sw]
        if span and inner > span:
            bad("box_dim[0]", box[0], f"{inner} bytes a row, more than the {span}-byte swizzle span")
        if span and inner < span:
            bad("box_dim[0]", box[0], f"{inner} bytes a row, narrower than the {span}-byte swizzle span",
                unsupported=True)
        return gaddr, esize, box, gdim, gstride, span

    def _tma_box(self, lid, gaddr, esize, box, gdim, gstride, coords, verb):
        """(n, in-bounds mask, global addresses of the in-bounds elements) of the box at `coords`:
        box element k (dense order, innermost fastest); `verb` ("reads"/"writes") for the fault."""
        rank = len(box)
        b = np.indices(tuple(reversed(box)), dtype=np.int64).reshape(rank, -1)[::-1]
        idx = b + np.array(coords, dtype=np.int64)[:, None]
        inb = np.all((idx >= 0) & (idx < np.array(gdim, dtype=np.int64)[:, None]), axis=0)
        off = idx[0] * esize
        for d in range(1, rank):
            off = off + idx[d] * gstride[d - 1]
        gaddrs = gaddr + off[inb]
        if gaddrs.size:
            lo, hi = int(gaddrs.min()), int(gaddrs.max()) + esize
            a = self._global_alloc(lo)
            if a is None or hi > a[1] + a[2]:
                bad = lo if a is None else a[1] + a[2]
                raise MemoryFault(f"cp.async.bulk.tensor {verb} global bytes {lo:#x}..{hi - 1:#x}: byte {bad:#x} is "
                                  f"{self._describe_addr('global', bad)} (global_address {gaddr:#x}, "
                                  f"coordinates {tuple(coords)}), {self._where(lid)}")
        return idx.shape[1], inb, gaddrs

    @staticmethod
    def _tma_smem_addrs(base, n, esize, span):
        """Shared byte addresses of the n box elements from `base`, swizzled (with span's
        pattern a permutation of base .. base + n * esize - 1, box_dim[0] * esize being the span)."""
        start = base + np.arange(n, dtype=np.int64) * esize
        if span:
            start ^= ((start >> 7) & (span // 16 - 1)) << 4
        return (start[:, None] + np.arange(esize)).ravel()

    def _tma_load(self, lid, dst, tmap, coords, mbar, mask=None):
        """cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes [dst],
        [tmap, {coords}], [mbar]{, ctaMask}: read global memory now; queue the shared-memory writes
        on the mbarrier's current phase. dst and mbar are shared::cluster addresses in one CTA
        (maybe another of the cluster); with .multicast::cluster the box goes to every CTA whose
        rank bit ctaMask sets, at dst's and mbar's offsets in that CTA, each mbarrier counting the
        bytes written into its CTA."""
        where = self._where(lid)
        cta = self.cta
        if mask is None and self._cl_local(dst) and self._cl_local(mbar):
            targets = [(cta, dst, mbar)]
            self._mb_get(lid, mbar, "cp.async.bulk.tensor")     # reported ahead of the map's errors
        else:
            targets = self._tma_targets(lid, dst, mbar, mask)
        gaddr, esize, box, gdim, gstride, span = self._tma_map(lid, tmap, len(coords))
        n, inb, src = self._tma_box(lid, gaddr, esize, box, gdim, gstride, coords, "reads")
        data = np.zeros((n, esize), np.uint8)
        if src.size:
            G = np.asarray(self.gviews["B"])
            data[inb] = G[(src - GLOBAL_BASE)[:, None] + np.arange(esize)]
        data = data.ravel()
        self.tma_count += 1
        for tcta, d, m in targets:
            if tcta is cta:
                self._tma_land_in(lid, where, d, m, n, esize, span, data, cta)
            else:
                self._on_peer(lid, tcta, "cp.async.bulk.tensor", self._tma_land_in, lid, where, d, m, n, esize,
                              span, data, cta)

    def _cl_local(self, addr):
        """Whether `addr` is a shared::cta address of the current CTA (TMA loads' usual operands)."""
        return addr is not None and SHARED_BASE <= addr < SHARED_BASE + self.launch_shared + 64

    def _tma_targets(self, lid, dst, mbar, mask):
        """[(CTA, destination, mbarrier)] (shared::cta addresses in that CTA) of a TMA load whose
        operands are shared::cluster addresses, into the CTAs of `mask` (None: no multicast)."""
        what = "cp.async.bulk.tensor"
        if mask is None:
            tcta, d = self._cl_resolve(lid, dst, 1, f"{what} destination")
            mcta, m = self._cl_resolve(lid, mbar, 8, f"{what} mbarrier")
            if tcta is not mcta:
                raise PTXRuntimeError(f"{what} writes shared memory of CTA {tcta.ctaid} (rank {tcta.rank}) but "
                                      f"completes on an mbarrier of CTA {mcta.ctaid} (rank {mcta.rank}): both must be "
                                      f"in the destination CTA, {self._where(lid)}")
            if tcta is not self.cta:
                self._mb_check_published(lid, tcta, m, what)
            return [(tcta, d, m)]
        nrank = self.cl_size
        if not 0 < mask < 1 << nrank:
            raise PTXRuntimeError(f"{what}.multicast::cluster with ctaMask {mask:#x}: the cluster has {nrank} CTAs "
                                  f"(ranks 0..{nrank - 1}), and at least one must be named, {self._where(lid)}")
        offs = []
        for a, name in ((dst, "destination"), (mbar, "mbarrier")):
            ro = self._cl_split(a)
            if ro is None:
                raise self._cl_bad(lid, a, f"{what} {name}")
            offs.append(SHARED_BASE + ro[1])
        out = []
        for r in range(nrank):
            if mask >> r & 1:
                tcta = self.cta.cluster.ctas[r]
                if tcta.done:
                    me = self.cta
                    raise PTXRuntimeError(f"{what}.multicast::cluster by CTA {me.ctaid} (rank {me.rank}) writes into "
                                          f"CTA {tcta.ctaid} (rank {r}; ctaMask {mask:#x}), whose threads have all "
                                          f"exited: its shared memory is gone, {self._where(lid)}")
                if tcta is not self.cta:
                    self._mb_check_published(lid, tcta, offs[1], what)
                out.append((tcta, offs[0], offs[1]))
        return out

    def _tma_land_in(self, lid, where, dst, mbar, n, esize, span, data, issuer):
        """The shared-memory side of a TMA load in the current CTA: checks, then the copy joins
        the phase of the mbarrier at `mbar` (landing now with copy_timing="eager")."""
        cta = self.cta
        mb = self._mb_get(lid, mbar, "cp.async.bulk.tensor")
        if dst % 128:
            raise PTXRuntimeError(f"cp.async.bulk.tensor destination {dst:#x} (shared offset {dst - SHARED_BASE}) "
                                  f"is not 128-byte aligned, {where}")
        addrs = self._tma_smem_addrs(dst, n, esize, span)
        lo, hi = int(addrs.min()), int(addrs.max()) + 1
        self._tma_check_dst(lid, dst, lo, hi)
        for c in cta.bulk_inflight:
            if lo < c.hi and c.lo < hi:
                raise PTXRuntimeError(f"cp.async.bulk.tensor writes shared offsets {lo - SHARED_BASE}.."
                                      f"{hi - 1 - SHARED_BASE}, which overlap a copy still in flight "
                                      f"({self._where(c.lid)}), {where}")
        if cta.bs_unread:
            self._bs_clobber(lid, lo, hi - lo, "cp.async.bulk.tensor load")
        self.bulk_seq += 1
        copy = BulkCopy(self.bulk_seq, lid, lo, hi, addrs, data, n * esize, issuer)
        if cta.hb is not None:     # the issuing thread's clock; _mb_add_bulk makes it its phase's copy
            copy.hb = issuer.hb.vc[self.hb_t].copy()
        cta.bulk_inflight.append(copy)
        self._mb_add_bulk(lid, mb, copy)

    def _tma_check_dst(self, lid, dst, lo, hi, what="destination"):
        off = dst - SHARED_BASE
        for name, (pos, size) in self.shared_syms.items():
            end = self.launch_shared if size is None else pos + size
            if pos <= off < end:
                if hi - SHARED_BASE > end:
                    raise MemoryFault(f"cp.async.bulk.tensor box of {hi - lo} bytes at shared offset {off} "
                                      f"reaches past the end of {name} (offsets {pos}..{end - 1}), "
                                      f"{self._where(lid)}")
                break
        else:
            raise MemoryFault(f"cp.async.bulk.tensor {what} {dst:#x} (shared offset {off}) is in no shared "
                              f"variable, {self._where(lid)}")
        if self.uses_mbarrier and what == "destination":
            mbw = self.ns["MBW"]
            for a in range(lo & -8, hi, 8):
                if a in mbw:
                    raise PTXRuntimeError(f"cp.async.bulk.tensor writes shared offset {a - SHARED_BASE}, which "
                                          f"holds a live mbarrier, {self._where(lid)}")

    # ---- TMA stores and bulk async-groups ---------------------------------------------------------
    def _tma_store(self, lid, tmap, coords, src, tid):
        """cp.async.bulk.tensor.Nd.global.shared::cta[.tile].bulk_group [tmap, {coords}], [src] by
        thread `tid`: checked now; with copy_timing="eager" it reads shared memory and writes
        global memory now, else when its thread's wait_group[.read] retires it (or the CTA ends)."""
        where = self._where(lid)
        cta = self.cta
        gaddr, esize, box, gdim, gstride, span = self._tma_map(lid, tmap, len(coords))
        n, inb, dst = self._tma_box(lid, gaddr, esize, box, gdim, gstride, coords, "writes")
        if src is None:
            raise PTXRuntimeError(f"cp.async.bulk.tensor source address from an uninitialized register, {where}")
        if not SHARED_BASE <= src < SHARED_BASE + self.launch_shared:
            raise MemoryFault(f"cp.async.bulk.tensor source {src:#x} is not in the CTA's {self.launch_shared} "
                              f"shared bytes, {where}")
        if src % 128:
            raise PTXRuntimeError(f"cp.async.bulk.tensor source {src:#x} (shared offset {src - SHARED_BASE}) "
                                  f"is not 128-byte aligned, {where}")
        addrs = self._tma_smem_addrs(src, n, esize, span)
        lo, hi = int(addrs.min()), int(addrs.max()) + 1
        self._tma_check_dst(lid, src, lo, hi, "source")
        for c in cta.bulk_inflight:
            if lo < c.hi and c.lo < hi:
                raise PTXRuntimeError(f"cp.async.bulk.tensor store reads shared offsets {lo - SHARED_BASE}.."
                                      f"{hi - 1 - SHARED_BASE}, which a TMA load still in flight writes (its "
                                      f"mbarrier phase has not completed; {self._where(c.lid)}), {where}")
        w = self.ns["PXW"][lo - SHARED_BASE:hi - SHARED_BASE]
        bad = np.flatnonzero(self._px_unfenced(w))
        if bad.size:
            o, v = lo - SHARED_BASE + int(bad[0]), int(w[bad[0]])
            raise PTXRuntimeError(f"cp.async.bulk.tensor store reads shared offset {o}, which thread {v & 4095} "
                                  f"stored to ({self._where((v >> 12) & 0xFFFFF)}) with no fence.proxy.async since: "
                                  f"the async proxy may not see the data, {where}")
        self.tma_store_count += 1
        self.bulk_seq += 1
        op = BulkStore(self.bulk_seq, lid, tid, lo, hi, addrs, inb, dst, esize)
        if cta.hb is not None:
            op.hb_k = self._hb_store_reads(tid & 4095, addrs - SHARED_BASE, lid)
        if self.eager:
            self._bs_read(op)
            self._bs_write(op)
        cta.bs_threads.setdefault(tid, BulkGroups()).uncommitted.append(op)
        cta.bs_unread.append(op)

    def _bs_read(self, op):
        if op.data is None:
            op.data = np.asarray(self.sviews["B"])[op.addrs].reshape(-1, op.esize)[op.inb]

    def _bs_write(self, op):
        if not op.written:
            self._bs_read(op)
            G = np.asarray(self.gviews["B"])
            G[(op.gaddrs - GLOBAL_BASE)[:, None] + np.arange(op.esize)] = op.data
            op.written = True

    def _bs_commit(self, lid, tid):
        """cp.async.bulk.commit_group: the thread's uncommitted bulk operations (maybe none) form a group."""
        st = self.cta.bs_threads.setdefault(tid, BulkGroups())
        st.groups.append(st.uncommitted)
        st.uncommitted = []

    def _bs_wait(self, lid, tid, keep, read_only):
        """cp.async.bulk.wait_group[.read] keep: all but the `keep` most recent groups of the thread
        have read their source (.read), or completed (without .read: written global memory)."""
        st = self.cta.bs_threads.get(tid)
        if st is None:
            return
        done = st.groups[:max(0, len(st.groups) - keep)]
        if done and self.cta.hb is not None:
            self._hb_stores_retired(tid & 4095, max((op.hb_k for g in done for op in g), default=0))
        unread = self.cta.bs_unread
        for g in done:
            for op in g:
                self._bs_read(op)
                if op in unread:
                    unread.remove(op)
                if not read_only:
                    self._bs_write(op)
        if not read_only:
            st.groups = st.groups[len(done):]

    def _bs_clobber(self, lid, x, size, what="store"):
        """A write of shared bytes x .. x + size - 1 while TMA stores are unread: not onto their source."""
        for op in self.cta.bs_unread:
            if op.lo < x + size and x < op.hi:
                o = max(x, op.lo) - SHARED_BASE
                raise PTXRuntimeError(f"{what} to shared offset {o} overwrites shared memory a bulk store may "
                                      f"still be reading ({self._where(op.lid)}, issued by thread {op.tid}; no "
                                      f"cp.async.bulk.wait_group.read of that thread has retired it), "
                                      f"{self._where(lid)}")

    def _bs_generic_store(self, lid, tid, x, size):
        """A generic-proxy shared store outside generated code (generic st, stmatrix)."""
        if self.cta.bs_unread:
            self._bs_clobber(lid, x, size)
        self._px_store(lid, tid, x, size)

    def _px_store(self, lid, tid, x, size):
        """Thread `tid` wrote shared bytes x .. x + size - 1 through the generic proxy (the generated
        code inlines the same). PXW holds, per shared byte, the latest such write as (proxy fences
        of the CTA so far, PXC) << 32 | lid << 12 | thread; a fence.proxy.async numbers itself
        (PXC += 1) and becomes its thread's latest (PXF), so a thread has fenced since a write
        when its PXF exceeds the write's count."""
        o = x - SHARED_BASE
        self.ns["PXW"][o:o + size] = (self.ns["PXC"][0] << 32) | (lid << 12) | tid

    def _px_unfenced(self, w, fenced_after=-1):
        """Which of the PXW entries `w` are generic writes their thread has not fenced since (-1:
        none, or a TMA load's write since) and that came no earlier than the fence count
        `fenced_after` (a fence along the way to the reader, wgmma.py)."""
        pxf = np.array(self.ns["PXF"], np.int64)
        seq = w >> 32
        return (w >= 0) & (pxf[np.where(w >= 0, w & 4095, 0)] <= seq) & (seq >= fenced_after)

    def _bs_exit(self, tid):
        """Thread `tid` exits: every TMA store it issued must have been read (its shared memory may go)."""
        st = self.cta.bs_threads.get(tid)
        if st is None:
            return
        for op in st.uncommitted + [op for g in st.groups for op in g]:
            if op in self.cta.bs_unread:
                why = ("no cp.async.bulk.commit_group put it in a bulk async-group" if op in st.uncommitted
                       else "no cp.async.bulk.wait_group.read or wait_group retired its group")
                raise PTXRuntimeError(f"thread {tid} exits with a cp.async.bulk.tensor store whose shared-memory "
                                      f"read it never waited for ({why}; {self._where(op.lid)}): the CTA's shared "
                                      f"memory may be released under the copy")

    def _bs_cta_end(self):
        """The CTA has finished: its TMA stores not yet written write global memory, in issue order."""
        ops = [op for st in self.cta.bs_threads.values() for op in st.uncommitted + [o for g in st.groups for o in g]]
        for op in sorted(ops, key=lambda op: op.seq):
            self._bs_write(op)
