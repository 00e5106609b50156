"""wgmma (sm_90a warpgroup MMA): wgmma.fence, wgmma.mma_async (m64nNk16, f16/bf16
in, f32 accumulate; B from a shared-memory matrix descriptor, A from one or from
registers; m64nNk32 with e4m3/e5m2 in, both from descriptors), wgmma.commit_group
and wgmma.wait_group.

Written from the PTX ISA ("Asynchronous Warpgroup Level Matrix Multiply-
Accumulate", sections Matrix Descriptor Format, Shared Memory Matrix Layout,
Register Fragments, wgmma.fence, Async Proxy) and meant as a reading of it
independent of tilec's emitter, which it must agree with:

* A descriptor is 64 bits: bits 0-13 start address >> 4, 16-29 leading
  dimension byte offset (LBO) >> 4, 32-45 stride dimension byte offset (SBO)
  >> 4, 49-51 base offset, 62-63 swizzle mode (0: none, 1: 128-byte, 2:
  64-byte, 3: 32-byte). The other bits are reserved; a descriptor with any of
  them set, or a nonzero base offset (the layouts modelled start on a whole
  swizzle pattern), is reported. The encoded address is the shared-window
  address (x & 0x3FFFF) >> 4, so the simulator reads it as SHARED_BASE +
  (field << 4).
* K-major without swizzle, 16-bit elements (T = 8 elements per 16 bytes): the
  canonical layout ((8, m), (T, 2k)) : ((1T, SBO), (1, LBO)) puts element
  (row, col) -- row along M (A) or N (B), col along K -- at byte
  start + (row % 8) * 16 + (row // 8) * SBO + (col % 8) * 2 + (col // 8) * LBO:
  8x8 core matrices of 8 rows x 16 contiguous bytes, SBO between core matrices
  adjacent in M/N, LBO between ones adjacent in K. With imm-trans 0, A (M x K)
  and B (given as N x K) are both K-major.
* Swizzled, W = 128, 64 or 32 bytes (T = W / 2 elements): K-major puts (row,
  col) at start + (row % 8) W + (row // 8) SBO + 2 col (the K step of one
  instruction, 16 elements, lies within a W-byte row); MN-major (imm-trans 1)
  puts element (mn, k) at start + 2 (mn % T) + (k % 8) W + (k // 8) SBO +
  (mn // T) LBO. Then the address is swizzled as the hardware does, on shared
  addresses: bits 4-6 (32-byte: bit 4, 64-byte: bits 4-5) XOR bits 7-9. tilec's
  in-place wgmma (swizzled pipeline slots) matched an H100 on the examples
  (tests/gpu/test_wgmma_gpu.py, 2026-11-24) under this reading.
* 8-bit types (m64nNk32.f32.{e4m3,e5m2}.{e4m3,e5m2}, the two types may differ):
  the form is d, a-desc, b-desc, scale-d, imm-scale-a, imm-scale-b -- no
  transpose immediates, both operands K-major. One K step is 32 elements = 32
  bytes, the byte extent of the 16-bit k16 step, so every layout above holds in
  bytes: a core matrix is 8 rows x 16 bytes (16 elements), (row, col) at byte
  start + (row % 8) 16 + (row // 8) SBO + (col % 16) + (col // 16) LBO without
  swizzle, start + (row % 8) W + (row // 8) SBO + col swizzled. Values are
  decoded from the bit fields (fp8_values): e4m3 bias 7, no infinities,
  S.1111.111 NaN; e5m2 bias 15, IEEE-like. Register A (fp8 in registers) is not
  simulated: unsupported at decode time.
* D (m64nNk16 and m64nNk32, .f32): N/2 registers per thread; warp w of the
  warpgroup holds rows 16 w .. 16 w + 15; register i of lane l is row
  16 w + l / 4 + 8 ((i / 2) % 2),
  column 8 (i / 4) + 2 (l % 4) + (i % 2) (the ISA's figure for the D fragment).
* Register A: the form with 7 operands, d, {a0, a1, a2, a3}, b-desc, scale-d,
  imm-scale-a, imm-scale-b, imm-trans-b (no imm-trans-a: A in registers has one
  layout). Each of the four .b32 registers holds two f16/bf16 elements, a0 in the
  low half of the first. In the ISA's figure for the m64nNk16 A fragment warp w
  holds rows 16 w .. 16 w + 15 and element i (0..7) of lane l is row
  16 w + l / 4 + 8 ((i / 2) % 2), column 8 (i / 4) + 2 (l % 4) + (i % 2): the D
  fragment's layout for 16 columns, with elements in place of registers. The
  descriptor form and the register form must not be mixed: 8 operands with a
  register A, 7 with a descriptor, or another count of A registers is
  unsupported (decode time), as ptxas rejects them.
* Issue and completion: wgmma.mma_async is asynchronous. The simulator records
  the operation when all 128 threads of the warpgroup have issued it (the
  descriptors and scale-d must agree across the warpgroup; register A differs by
  thread) and runs it when a wgmma.wait_group retires its commit group -- the
  latest point a GPU may complete it -- reading B (and a descriptor A) from
  shared memory then. Register A is read at issue. The ISA makes accessing the
  accumulator registers or the registers of A of a wgmma.mma_async before a
  wait_group that covers it undefined, so in between both read as
  uninitialized (None): code that reads them before waiting fails, and writing
  them is reported at the wait. Another register-A wgmma.mma_async may take the
  same registers as its A meanwhile (one A fragment for several N slices); the
  D of one in flight as A, or the reverse, is reported.
* Ordering rules checked: a wgmma.fence by every thread of the warpgroup since
  its last wgmma.wait_group (the ISA asks for one before the first mma_async and
  between register accesses and mma_async; this is that rule for code that
  touches the accumulators only around waits), no register of a register A
  written between the thread's last wgmma.fence and the mma_async (the fence
  records the values of the registers any register-A mma_async of the kernel
  reads, and a different value at issue is reported: rewriting the same value
  goes unnoticed), and, for every shared byte the descriptors A and B name (wgmma
  reads through the async proxy), the latest generic-proxy write to it (st,
  st through a generic address, stmatrix, atom/red, cp.async as it lands) having
  been followed by a fence.proxy.async of the thread that wrote it (the rule
  tma.py applies to TMA stores) or of every thread of the warpgroup (a fence on
  the consumer's side of the barrier or mbarrier wait, as the memory model's
  "proxy fence along the causality path" allows). A TMA load's write, async
  proxy itself, needs none; generic writes to bytes the wgmma does not read
  need no fence.
* Numerics: products exact, summed in f64 with D (unless scale-d is false),
  rounded once to f32; imm-scale-a/-b of -1 negate A/B.
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from .base import MemoryFault, PTXRuntimeError, SHARED_BASE
from .numerics import _f2u, _u2f

WGMMA, WG_COMMIT, WG_WAIT = "wgmma", "wgmma.commit", "wgmma.wait"
RESERVED_BITS = ((1 << 64) - 1) & ~((0x3FFF) | (0x3FFF << 16) | (0x3FFF << 32) | (0x7 << 49) | (0x3 << 62))


def decode_descriptor(desc):
    """(start address, LBO, SBO, base offset, swizzle) of a 64-bit matrix descriptor."""
    return ((desc & 0x3FFF) << 4, ((desc >> 16) & 0x3FFF) << 4, ((desc >> 32) & 0x3FFF) << 4,
            (desc >> 49) & 0x7, (desc >> 62) & 0x3)


def kmajor_offsets(rows, cols, lbo, sbo, esize=2):
    """Byte offsets (rows x cols) of a K-major, no-swizzle matrix of `esize`-byte
    elements: row along M/N, col along K. A core matrix is 8 rows x 16 bytes
    (16 / esize elements)."""
    r = np.arange(rows)[:, None]
    b = np.arange(cols)[None, :] * esize          # byte along K
    return (r % 8) * 16 + (r // 8) * sbo + (b % 16) + (b // 16) * lbo


SWIZZLE_BYTES = {1: 128, 2: 64, 3: 32}
K_STEP_BYTES = 32      # one instruction's K extent: 16 16-bit or 32 8-bit elements


def operand_offsets(rows, desc, mn_major, esize=2):
    """Shared-window byte offsets (rows x K, K = 32 / esize) of an operand: row
    along M/N, col along K (the module docstring's layouts; MN-major only for
    16-bit elements)."""
    start, lbo, sbo, _, mode = decode_descriptor(desc)
    k = K_STEP_BYTES // esize
    if mn_major and esize != 2:
        raise PTXRuntimeError("wgmma: an MN-major 8-bit operand does not exist")
    if mode == 0:
        if mn_major:
            raise PTXRuntimeError("wgmma: an MN-major operand without swizzle is not simulated")
        return start + kmajor_offsets(rows, k, lbo, sbo, esize)
    w = SWIZZLE_BYTES[mode]
    r = np.arange(rows)[:, None]
    c = np.arange(k)[None, :]
    if mn_major:
        t = w // 2
        off = start + 2 * (r % t) + (c % 8) * w + (c // 8) * sbo + (r // t) * lbo
    else:
        off = start + (r % 8) * w + (r // 8) * sbo + esize * c
    mask = w // 16 - 1
    return off ^ (((off >> 7) & mask) << 4)


FP8_TYPES = ("e4m3", "e5m2")


def fp8_values(etype):
    """The 256 values (float64; NaN where the encoding is NaN) of the 8-bit float type
    `etype`, decoded from the bit fields (PTX ISA, "Alternate Floating Point Data
    Formats"): e4m3 -- sign, 4 exponent bits (bias 7), 3 mantissa bits, no
    infinities, S.1111.111 NaN (largest finite 448); e5m2 -- sign, 5 exponent bits
    (bias 15), 2 mantissa bits, as IEEE (exponent all ones: infinity or NaN)."""
    ebits, mbits, bias = (4, 3, 7) if etype == "e4m3" else (5, 2, 15)
    emax = (1 << ebits) - 1
    out = np.empty(256)
    for x in range(256):
        e = (x >> mbits) & emax
        m = x & ((1 << mbits) - 1)
        if etype == "e4m3" and e == emax and m == (1 << mbits) - 1:
            v = float("nan")
        elif etype == "e5m2" and e == emax:
            v = float("inf") if m == 0 else float("nan")
        elif e == 0:
            v = m * 2.0 ** (1 - bias - mbits)
        else:
            v = ((1 << mbits) + m) * 2.0 ** (e - bias - mbits)
        out[x] = math.copysign(v, -1.0 if x >> 7 else 1.0)     # the sign of zeros and NaNs too
    return out


FP8_VALUES = {t: fp8_values(t) for t in FP8_TYPES}


def d_fragment(n):
    """(row, col) arrays (128 threads x N/2 registers) of the m64nNk16 f32 D fragment."""
    t = np.arange(128)[:, None]
    i = np.arange(n // 2)[None, :]
    warp, lane = t // 32, t % 32
    row = 16 * warp + lane // 4 + 8 * ((i // 2) % 2)
    col = 8 * (i // 4) + 2 * (lane % 4) + (i % 2)
    return row, col


class Warpgroup:
    """Per-warpgroup wgmma state of a CTA."""

    def __init__(self):
        self.uncommitted = []    # issued operations not yet in a commit group
        self.groups = []         # committed groups (lists of operations), oldest first
        self.shadow = {}         # thread -> {register slot: value} of registers in flight (D and register A)
        self.fenced = set()      # threads that executed wgmma.fence since their last wait_group
        self.fence_vals = {}     # thread -> {slot: value} of the register-A registers at its last wgmma.fence


class WgmmaOp:
    def __init__(self, w, threads, adesc, bdesc, scale_d):
        self.w, self.threads, self.adesc, self.bdesc, self.scale_d = w, threads, adesc, bdesc, scale_d
        self.slots = [r.slot for r in w.args["d"]]                   # D
        self.aslots = list(w.args["a"]) if w.args["reg_a"] else []   # register A
        self.a_bits = None       # (64, 16) uint16: register A as read at issue
        self.read_bytes = []     # copy_timing="eager": shared offsets its descriptor operands read (counted)
        self.hb_k = 0            # the race check: its clock in its warpgroup's component (hb.py)


class WgmmaRuntime:
    """Mixed into runtime.Kernel: the warpgroup-collective steps the runner calls."""

    def _wg_state(self, wg):
        st = self.cta.wgs.get(wg)
        if st is None:
            st = self.cta.wgs[wg] = Warpgroup()
        return st

    def _wg_fence(self, tid, avals):
        """wgmma.fence by thread `tid`; avals: its registers that register-A wgmma.mma_async
        instructions read (codegen's wg_aregs), recorded to check that none is written
        between the fence and the mma_async."""
        st = self._wg_state(tid >> 7)
        st.fenced.add(tid)
        if avals:
            sh = st.shadow.get(tid, {})
            st.fence_vals[tid] = {r.slot: sh[r.slot] if v is None and r.slot in sh else v
                                  for r, v in zip(self.wg_aregs, avals)}

    def _wgmma_collective(self, w, lanes, wg):
        """All 128 threads of warpgroup `wg` reached `w` (lanes: warpgroup lane -> registers)."""
        if w.kind == WGMMA:
            self._wgmma_issue(w, lanes, wg)
        elif w.kind == WG_COMMIT:
            st = self._wg_state(wg)
            if st.uncommitted:
                st.groups.append(st.uncommitted)
            else:
                st.groups.append([])
            st.uncommitted = []
        else:
            self._wgmma_wait(w, lanes, wg)

    def _wgmma_issue(self, w, lanes, wg):
        st = self._wg_state(wg)
        where = w.instr.where()
        threads = [wg * 128 + l for l in range(128)]
        missing = [t for t in threads if t not in st.fenced]
        if missing:
            raise PTXRuntimeError(f"wgmma.mma_async without a wgmma.fence since the warpgroup's last "
                                  f"wgmma.wait_group (threads {missing[0]}..., {where})")

        def uniform(what, values):
            if any(v is None for v in values):
                raise PTXRuntimeError(f"wgmma.mma_async {what} from an uninitialized register ({where})")
            if len(set(values)) != 1:
                raise PTXRuntimeError(f"wgmma.mma_async {what} differs across the warpgroup ({where})")
            return values[0]
        reg_a = w.args["reg_a"]
        adesc = None if reg_a else uniform("A descriptor", [lanes[l][w.args["a"]] for l in range(128)])
        bdesc = uniform("B descriptor", [lanes[l][w.args["b"]] for l in range(128)])
        sk, sv = w.args["scale"]
        scale_d = bool(sv) if sk == "imm" else uniform("scale-d", [bool(lanes[l][sv]) for l in range(128)])
        for d in ((bdesc,) if reg_a else (adesc, bdesc)):
            if d & RESERVED_BITS:
                raise PTXRuntimeError(f"wgmma matrix descriptor {d:#x} sets reserved bits ({where})")
            if decode_descriptor(d)[3] != 0:
                raise PTXRuntimeError(f"wgmma matrix descriptor {d:#x}: a nonzero base offset is not "
                                      f"simulated ({where})")
        op = WgmmaOp(w, threads, adesc, bdesc, scale_d)
        reads = self._wg_operand_bytes(op)
        self._wg_proxy_check(reads, threads, where)
        if self.cta.hb is not None:
            op.hb_k = self._hb_wgmma_reads(threads, wg, reads, w.instr.lid)
        d_live, a_live = self._wg_live(st)
        if reg_a:
            op.a_bits = self._wgmma_read_a(op, lanes, st, d_live, where)
        for l in range(128):
            R = lanes[l]
            sh = st.shadow.setdefault(threads[l], {})
            for s in op.slots:
                if s in a_live:
                    raise PTXRuntimeError(f"wgmma.mma_async D register is the register A of a "
                                          f"wgmma.mma_async in flight ({where})")
                if s in sh:                       # chained onto an operation in flight
                    if R[s] is not None:
                        raise PTXRuntimeError(f"thread {threads[l]} wrote an accumulator register of a "
                                              f"wgmma.mma_async in flight ({where})")
                    continue
                if scale_d and R[s] is None:
                    raise PTXRuntimeError(f"wgmma.mma_async reads an uninitialized accumulator register "
                                          f"({where})")
                sh[s] = R[s]
                R[s] = None                       # reads before the wait see an uninitialized register
        st.uncommitted.append(op)
        if self.cta.wg_reads is not None:
            op.read_bytes = reads
            self._wg_track(op, 1)

    def _wg_operand_bytes(self, op):
        """The shared offsets (index arrays) that `op`'s descriptor operands read, as _wgmma_run
        reads them. An operand the run will reject (layout not simulated, out of bounds) is left
        out: the run reports it."""
        w, out = op.w, []
        for desc, rows, mn, et in ((op.adesc, 64, w.args["trans_a"], w.args["atype"]),
                                   (op.bdesc, w.args["n"], w.args["trans_b"], w.args["btype"])):
            if desc is None:
                continue
            esize = 1 if et in FP8_TYPES else 4 if et == "tf32" else 2
            try:
                offs = operand_offsets(rows, desc, mn, esize).ravel()
            except PTXRuntimeError:
                continue
            offs = (offs[:, None] + np.arange(esize)).ravel()
            if offs.min() >= 0 and offs.max() < self.launch_shared:
                out.append(offs)
        return out

    def _wg_proxy_check(self, reads, threads, where):
        """Every shared byte the wgmma reads (`reads`, offset arrays) whose latest write was a
        generic-proxy one must have been fenced since (tma.py's PXW/PXF) by the writing thread or
        by every issuing thread (`threads`): the PTX memory model asks for a proxy fence on the
        causality path from the write to the wgmma, and a consumer's fence after the barrier or
        mbarrier wait that ordered the write is on it. (A consumer fence the simulator ran
        after the write but before that wait counts too; running threads in other orders, as
        thread_order does, catches it.)"""
        if not reads:
            return
        offs = np.concatenate(reads)
        pxw = self.ns["PXW"][offs]
        pxf = self.ns["PXF"]
        bad = self._px_unfenced(pxw, min(pxf[t] for t in threads))
        if bad.any():
            i = int(np.argmin(np.where(bad, offs, np.iinfo(np.int64).max)))   # the lowest such offset
            o, v = int(offs[i]), int(pxw[i])
            raise PTXRuntimeError(f"wgmma.mma_async reads shared offset {o}, which thread {v & 4095} stored to "
                                  f"({self._where((v >> 12) & 0xFFFFF)}) with no fence.proxy.async since: the "
                                  f"async proxy may not see the data ({where})")

    def _wgmma_read_a(self, op, lanes, st, d_live, where):
        """Register A of `op` at issue: (64, 16) uint16 bits, thread l's register j
        holding halves 2j (low) and 2j+1 (high) of the A fragment (d_fragment(16)).
        The registers then go in flight like D's (the shadow)."""
        row, col = d_fragment(16)
        bits = np.zeros((64, 16), np.uint16)
        for l, t in enumerate(op.threads):
            R = lanes[l]
            sh = st.shadow.setdefault(t, {})
            fv = st.fence_vals.get(t, {})
            for j, s in enumerate(op.aslots):
                if s in d_live:
                    raise PTXRuntimeError(f"wgmma.mma_async register A is the accumulator of a "
                                          f"wgmma.mma_async in flight ({where})")
                if s in sh:                       # the register A of an operation in flight too
                    if R[s] is not None:
                        raise PTXRuntimeError(f"thread {t} wrote a register A of a wgmma.mma_async in "
                                              f"flight ({where})")
                    v = sh[s]
                else:
                    v = R[s]
                    if v is None:
                        raise PTXRuntimeError(f"wgmma.mma_async register A from an uninitialized register "
                                              f"(thread {t}, {where})")
                if s not in fv or fv[s] != v:
                    raise PTXRuntimeError(f"thread {t} wrote register A {j} after its last wgmma.fence: "
                                          f"the fence must come between the write and the mma_async ({where})")
                bits[row[l, 2 * j], col[l, 2 * j]] = v & 0xFFFF
                bits[row[l, 2 * j + 1], col[l, 2 * j + 1]] = (v >> 16) & 0xFFFF
                sh[s] = v
                R[s] = None                       # accessing it before the wait is reported
        return bits

    @staticmethod
    def _wg_live(st):
        """(D slots, register-A slots) of the warpgroup's operations in flight."""
        d, a = set(), set()
        for g in st.groups + [st.uncommitted]:
            for op in g:
                d.update(op.slots)
                a.update(op.aslots)
        return d, a

    def _wgmma_wait(self, w, lanes, wg):
        st = self._wg_state(wg)
        keep = w.args["n"]
        done = st.groups[:max(0, len(st.groups) - keep)]
        st.groups = st.groups[len(done):]
        for g in done:
            for op in g:
                self._wgmma_run(op, st)
        if self.cta.hb is not None:
            k = max((op.hb_k for g in done for op in g), default=0)
            if k:
                self._hb_wgmma_retired([wg * 128 + l for l in range(128)], wg, k)
        d_live, a_live = self._wg_live(st)
        live = d_live | a_live
        a_done = {s for g in done for op in g for s in op.aslots}
        for l in range(128):
            t = wg * 128 + l
            R = lanes[l]
            sh = st.shadow.get(t, {})
            for s in [s for s in sh if s not in live]:
                if R[s] is not None:
                    what = "a register A" if s in a_done else "an accumulator register"
                    raise PTXRuntimeError(f"thread {t} wrote {what} of a wgmma.mma_async in flight "
                                          f"({w.instr.where()})")
                R[s] = sh.pop(s)
            st.fenced.discard(t)

    def _wg_track(self, op, sign):
        """copy_timing="eager": count (sign 1, at issue) or uncount (-1, when a wait_group
        retires it) the shared bytes `op` reads through its descriptors (op.read_bytes, from
        _wg_operand_bytes), so that a copy landing on them in between is reported
        (_wg_check_copy)."""
        cnt = self.cta.wg_reads
        for offs in op.read_bytes:
            cnt[offs] += sign

    def _wg_check_copy(self, lid, what, offs):
        """copy_timing="eager": a copy landing (now, at issue) on shared offsets `offs` (a slice
        or an index array) that a wgmma.mma_async in flight reads is an error: the wgmma may
        read the new bytes or the old ones."""
        cnt = self.cta.wg_reads
        if not cnt[offs].any():
            return
        hit = set(np.atleast_1d(np.arange(len(cnt))[offs]).tolist())
        for wg, st in sorted(self.cta.wgs.items()):
            for op in [op for g in st.groups for op in g] + st.uncommitted:
                common = sorted(hit & set(np.concatenate(op.read_bytes).tolist())) if op.read_bytes else []
                if common:
                    ins = op.w.instr
                    raise PTXRuntimeError(
                        f"{what} writes shared offset {common[0]}, which a wgmma.mma_async of warpgroup {wg} "
                        f"in flight reads (PTX line {ins.lineno}: {ins.text.split()[0]}; issued, not yet "
                        f"retired by a wgmma.wait_group): the copy may land before the wgmma reads its "
                        f"operands (copy_timing='eager' lands copies at issue), {self._where(lid)}")
        raise PTXRuntimeError(f"{what} writes shared bytes a wgmma.mma_async in flight reads, {self._where(lid)}")

    def _wgmma_run(self, op, st):
        if op.read_bytes:
            self._wg_track(op, -1)
        w = op.w
        n = w.args["n"]
        where = w.instr.where()
        smem = np.asarray(self.sviews["B"])

        def operand(desc, rows, mn_major, etype):
            esize = 1 if etype in FP8_TYPES else 4 if etype == "tf32" else 2
            try:
                addr = SHARED_BASE + operand_offsets(rows, desc, mn_major, esize)
            except PTXRuntimeError as e:
                raise PTXRuntimeError(f"{e} ({where})") from None
            lo, hi = SHARED_BASE, SHARED_BASE + self.launch_shared
            if addr.min() < lo or addr.max() + esize > hi:
                raise MemoryFault(f"wgmma.mma_async operand (descriptor {desc:#x}) reaches outside the "
                                  f"{self.launch_shared} shared bytes ({where})")
            if esize == 1:
                return FP8_VALUES[etype][smem[addr]]
            if esize == 4:      # tf32: the tensor core ignores the 13 low mantissa bits
                bits = sum(smem[addr + i].astype(np.uint32) << (8 * i) for i in range(4))
                return (bits & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)
            bits = smem[addr].astype(np.uint16) | (smem[addr + 1].astype(np.uint16) << 8)
            return bits.view(np.float16 if etype == "f16" else ml_dtypes.bfloat16).astype(np.float64)
        atype, btype = w.args["atype"], w.args["btype"]
        if op.a_bits is not None:                                              # (64, 16): A[m][k]
            ft = np.float16 if atype == "f16" else ml_dtypes.bfloat16
            a = op.a_bits.view(ft).astype(np.float64) * w.args["scale_a"]
        else:
            a = operand(op.adesc, 64, w.args["trans_a"], atype) * w.args["scale_a"]      # (64, K)
        b = operand(op.bdesc, n, w.args["trans_b"], btype).T * w.args["scale_b"]      # (K, N): B[k][n]
        row, col = d_fragment(n)
        c = np.zeros((64, n))
        if op.scale_d:
            for l, t in enumerate(op.threads):
                sh = st.shadow[t]
                for i, s in enumerate(op.slots):
                    v = sh[s]
                    c[row[l, i], col[l, i]] = v if isinstance(v, float) else _u2f(v)
        with np.errstate(all="ignore"):
            d = (a @ b + c).astype(np.float32).astype(np.float64)
        kinds = [r.kind for r in w.args["d"]]
        for l, t in enumerate(op.threads):
            sh = st.shadow[t]
            for i, s in enumerate(op.slots):
                v = float(d[row[l, i], col[l, i]])
                sh[s] = v if kinds[i] == "f" else _f2u(v)
