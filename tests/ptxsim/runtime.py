"""Running a decoded kernel: memory, CTAs, threads as generators, barriers, mbarriers, mma, vprintf."""
from __future__ import annotations

import math
import re
import struct
from collections import deque
from fractions import Fraction

import ml_dtypes
import numpy as np

from .base import (
    Deadlock, GLOBAL_BASE, GLOBAL_GAP, LOCAL_BASE, LOCAL_GENERIC_BASE, LOCAL_STRIDE,
    MAX_BLOCK_STEPS, MAX_CLUSTER_CTAS, MemoryFault, PTXRuntimeError, PTXSimError, SHARED_BASE,
    SHARED_CLUSTER_BASE, SHARED_CLUSTER_STRIDE, SHARED_FILL)
from .numerics import (
    BF16FMT, E4M3FMT, E5M2FMT, F16FMT, F32FMT, F64FMT, INF, NAN, TF32FMT, _BF16F, _E4M3F, _E4M3_H, _E5M2F,
    _E5M2_H, _F16F, _MD, _MF, _MI, _MQ, _bf16_rn_f32, _clamp, _cos, _d2u, _dirround, _ex2, _f16_rn, _f2i,
    _f2u, _f32, _fdiv, _fma32_fix, _fma64, _fma_dir, _fmax, _fmax_nan, _fmin, _fmin_nan, _fround_int, _ftz32,
    _lg2, _rcp, _rsqrt, _sat01, _sdiv, _sin, _sqrt, _srem, _tanh, _to_f8, _u2d, _u2f, _udiv, _urem,
    round_exact)
from .ptx import SPECIAL_PER_CTA, T
from .codegen import (
    BAR, BAR_ARRIVE, BAR_RED, CB_ARRIVE, CB_WAIT, ELECT, SETMAXNREG, KernelCodegen, LDMATRIX, MBWAIT, MMA, SHFL, STMATRIX, TMCP, WSYNC, _FMT,
    _SHIFT)
from .tcgen05 import TC_KINDS, Tcgen05Runtime
from .hb import HbRuntime, HbState
from .tma import TmaRuntime
from .wgmma import WG_COMMIT, WG_WAIT, WGMMA, WgmmaRuntime


def same_value(old, new) -> bool:
    """Whether a store of `new` leaves the element `old` as it was: a NaN stored
    over a NaN does too (duplicate threads storing one result that is NaN)."""
    return bool(old == new) or (old != old and new != new)

WG_KINDS = (WGMMA, WG_COMMIT, WG_WAIT)


NSMID = 4     # %nsmid; %smid is the linear CTA id modulo it (CTAs run one after another; the CTAs
              # of a cluster, which run together, on distinct SMs: %nsmid is at least their number)
CB_KINDS = (CB_ARRIVE, CB_WAIT)
CB_EXITED = -2    # CTA.cb_arrived of an exited thread


class Kernel(KernelCodegen, WgmmaRuntime, TmaRuntime, Tcgen05Runtime, HbRuntime):
    """One decoded `.entry`: basic blocks compiled to Python (KernelCodegen), run by launch()."""

    def _namespace(self):
        ns = {"_MF": _MF, "_MI": _MI, "_MD": _MD, "_MQ": _MQ, "_f2u": _f2u, "_u2f": _u2f, "_d2u": _d2u,
              "_u2d": _u2d, "INF": INF, "NAN": NAN, "_F16F": _F16F, "_BF16F": _BF16F, "_E4M3F": _E4M3F,
              "_E5M2F": _E5M2F, "_E4M3_H": _E4M3_H, "_E5M2_H": _E5M2_H, "_f16_rn": _f16_rn,
              "_bf16_rn_f32": _bf16_rn_f32, "_fma32_fix": _fma32_fix, "_fma64": _fma64, "_fdiv": _fdiv,
              "_fmin": _fmin, "_fmax": _fmax, "_fmin_nan": _fmin_nan, "_fmax_nan": _fmax_nan, "_sqrt": _sqrt,
              "_rsqrt": _rsqrt, "_rcp": _rcp, "_ex2": _ex2, "_lg2": _lg2, "_sin": _sin, "_cos": _cos,
              "_tanh": _tanh, "_ftz32": _ftz32, "_sat01": _sat01, "_f2i": _f2i, "_fround_int": _fround_int,
              "_sdiv": _sdiv, "_srem": _srem, "_udiv": _udiv, "_urem": _urem, "_clamp": _clamp,
              "_round_exact": round_exact, "_frexp": math.frexp, "_to_f8": _to_f8, "F32FMT": F32FMT,
              "F64FMT": F64FMT, "F16FMT": F16FMT, "BF16FMT": BF16FMT, "E4M3FMT": E4M3FMT, "E5M2FMT": E5M2FMT,
              "TF32FMT": TF32FMT, "Fraction": Fraction, "_fault": self._fault, "_atom": self._atom,
              "_mb_init": self._mb_init, "_mb_arrive": self._mb_arrive, "_mb_clobber": self._mb_clobber,
              "_cp_async": self._cp_async, "_cp_arrive": self._cp_arrive, "_cp_wait_all": self._cp_wait_all,
              "_cp_commit": self._cp_commit, "_cp_wait_group": self._cp_wait_group,
              "_gtimer": self._gtimer,
              "_ld_generic": self._ld_generic, "_st_generic": self._st_generic, "MBW": set(),
              "_dirround": _dirround, "_fma_dir": _fma_dir, "_ld_local": self._ld_local,
              "_st_local": self._st_local, "_cvta_local": _cvta_local, "_cvta_to_local": _cvta_to_local,
              "_vprintf": self._vprintf, "_assertfail": self._assertfail, "RC": False,
              "_rc_ld": self._rc_ld, "_rc_st": self._rc_st, "_same": same_value, "_wg_fence": self._wg_fence,
              "_mb_expect_tx": self._mb_expect_tx, "_tm_replace": self._tm_replace, "_tm_acquire": self._tm_acquire,
              "_tm_prefetch": self._tm_prefetch,
              "_tma_load": self._tma_load, "_tma_store": self._tma_store, "_bs_commit": self._bs_commit,
              "_bs_wait": self._bs_wait, "_bs_clobber": self._bs_clobber, "PXW": None, "PXF": [],
              "PXC": [0],
              "BSP": [], "_ld_cluster": self._ld_cluster, "_st_cluster": self._st_cluster, "_mapa": self._mapa,
              "_getctarank": self._getctarank, "_mb_arrive_cl": self._mb_arrive_cl,
              "_mb_expect_tx_cl": self._mb_expect_tx_cl, "_cl_release": self._cl_release,
              "_tc_mma": self._tc_mma, "_tc_commit": self._tc_commit, "_tc_fence": self._tc_fence}
        for k in SPECIAL_PER_CTA.values():
            ns[k] = 0
        ns["CL_EXPLICIT"] = False
        return ns

    # ---- runtime helpers (called from generated code) -----------------------------------------------
    def _where(self, lid):
        ins = self.instrs[lid]
        text = ins.text.strip()
        if len(text) > 160:          # a wgmma's accumulator list says nothing about where it is
            text = text[:150] + " ..."
        return f"PTX line {ins.lineno}: {text}"

    def _fault(self, lid, space, addr, size):
        cta = self.cta
        raise MemoryFault(f"invalid {space} access of {size} bytes at {addr:#x} "
                          f"({self._describe_addr(space, addr)}) in CTA {cta.ctaid}, {self._where(lid)}")

    def _describe_addr(self, space, addr):
        if space == "local":
            return "outside the thread's local memory"
        if space == "shared":
            off = addr - SHARED_BASE
            if off < 0 or off >= self.launch_shared:
                return f"outside the CTA's {self.launch_shared} shared bytes (offset {off})"
            return f"misaligned, shared offset {off}"
        for name, start, size in self.launch_allocs:
            if start - GLOBAL_GAP <= addr < start + size + GLOBAL_GAP:
                rel = addr - start
                if 0 <= rel < size:
                    return f"misaligned, byte {rel} of {name}"
                if rel >= size:
                    return f"byte {rel} of {name} ({size} bytes): past its end"
                return f"{-rel} bytes before {name} ({size} bytes)"
        return "no allocation"

    def _ld_generic(self, lid, fmt, addr):
        size = struct.calcsize(fmt)
        space, views, off = self._resolve_generic(lid, addr, size)
        if space == "cluster":
            return self._ld_cluster(lid, fmt, addr, size)
        if space == "shared" and self.cta.hb is not None:
            self._rc_ld(lid, addr, size, self.hb_t)
        return views[fmt][off // size]

    def _st_generic(self, lid, fmt, addr, val, tid=None):
        """tid: the storing thread, given in kernels with TMA stores or wgmma (tma.py's generic-store
        tracking)."""
        size = struct.calcsize(fmt)
        space, views, off = self._resolve_generic(lid, addr, size)
        if space == "cluster":
            return self._st_cluster(lid, fmt, addr, val, size, tid)
        if space == "shared" and self.uses_mbarrier and (addr & -8) in self.ns["MBW"]:
            self._mb_clobber(lid, addr)
        if space == "shared" and tid is not None:
            self._bs_generic_store(lid, tid, addr, size)
        if space == "shared" and self.cta.hb is not None:
            self._rc_st(lid, addr, size, self.hb_t, same_value(views[fmt][off // size], val))
        views[fmt][off // size] = val

    def _resolve_generic(self, lid, addr, size):
        if LOCAL_GENERIC_BASE <= addr < LOCAL_GENERIC_BASE + LOCAL_STRIDE * self.cta.nthreads:
            t, off = divmod(addr - LOCAL_GENERIC_BASE, LOCAL_STRIDE)
            loc = self.cta.locals[t]
            if loc is None or off + size > loc.size or off % size:
                self._fault(lid, "local", addr, size)
            return "local", loc.views, off
        if SHARED_BASE <= addr < SHARED_BASE + self.launch_shared + 64:
            if not self.ns[f"SV{size}"][addr]:
                self._fault(lid, "shared", addr, size)
            return "shared", self.sviews, addr
        off = addr - GLOBAL_BASE
        if off < 0 or off >= len(self.ns["GV1"]) or not self.ns[f"GV{size}"][off]:
            if SHARED_CLUSTER_BASE <= addr < SHARED_CLUSTER_BASE + self.cl_size * SHARED_CLUSTER_STRIDE:
                cta, a = self._cl_resolve(lid, addr, size, "generic access")     # mapa.u64's results
                return "cluster", cta.sviews, a
            self._fault(lid, "global", addr, size)
        return "global", self.gviews, off

    # ---- thread-block clusters: another CTA's shared memory ----------------------------------------
    def _enter(self, cta):
        """Make `cta` the current CTA: the helpers' self.cta / self.sviews and the namespace entries
        the generated code reads (its shared memory views, CTA ids, mbarrier set, proxy tracking)."""
        self.cta, self.sviews = cta, cta.sviews
        self.ns.update(cta.nsd)

    def _on_peer(self, lid, cta, what, fn, *args):
        """fn(*args) with `cta` (another CTA of the cluster) current; errors name both CTAs."""
        me = self.cta
        self._enter(cta)
        try:
            return fn(*args)
        except PTXRuntimeError as e:
            raise type(e)(f"{e} [{what} by CTA {me.ctaid} (rank {me.rank}) on CTA {cta.ctaid} (rank "
                          f"{cta.rank}) of its cluster]") from None
        finally:
            self._enter(me)

    def _cl_split(self, addr):
        """(rank, shared offset) of shared::cluster address `addr` (the CTA's own shared::cta
        addresses are its rank's), or None."""
        if addr is None:
            return None
        if SHARED_BASE <= addr < SHARED_BASE + self.launch_shared:
            return self.cta.rank, addr - SHARED_BASE
        if SHARED_CLUSTER_BASE <= addr < SHARED_CLUSTER_BASE + self.cl_size * SHARED_CLUSTER_STRIDE:
            r, off = divmod(addr - SHARED_CLUSTER_BASE, SHARED_CLUSTER_STRIDE)
            if off < self.launch_shared:
                return r, off
        return None

    def _cl_bad(self, lid, addr, what):
        if addr is None:
            return PTXRuntimeError(f"{what} of an address from an uninitialized register, {self._where(lid)}")
        if SHARED_CLUSTER_BASE <= addr < SHARED_CLUSTER_BASE + MAX_CLUSTER_CTAS * SHARED_CLUSTER_STRIDE:
            r, off = divmod(addr - SHARED_CLUSTER_BASE, SHARED_CLUSTER_STRIDE)
            why = (f"rank {r}, but the cluster has {self.cl_size} CTAs" if r >= self.cl_size else
                   f"offset {off} of rank {r}, outside the CTA's {self.launch_shared} shared bytes")
        else:
            why = (f"neither a shared address of this CTA ({self.launch_shared} bytes from {SHARED_BASE:#x}) nor a "
                   f"shared::cluster one from mapa")
        return MemoryFault(f"{what} of {addr:#x}: {why}, in CTA {self.cta.ctaid}, {self._where(lid)}")

    def _cl_resolve(self, lid, addr, size, what):
        """(CTA, its shared::cta address) of an access of `size` bytes at shared::cluster address
        `addr`: in bounds, aligned, and in a CTA whose threads have not all exited."""
        ro = self._cl_split(addr)
        if ro is None:
            raise self._cl_bad(lid, addr, what)
        r, off = ro
        if off % size or off + size > self.launch_shared:
            raise MemoryFault(f"{what} of {size} bytes at {addr:#x} (offset {off} of rank {r}): misaligned or past "
                              f"the CTA's {self.launch_shared} shared bytes, in CTA {self.cta.ctaid}, "
                              f"{self._where(lid)}")
        cta = self.cta.cluster.ctas[r]
        if cta.done:
            me = self.cta
            raise PTXRuntimeError(f"{what} by CTA {me.ctaid} (rank {me.rank}) reaches shared offset {off} of CTA "
                                  f"{cta.ctaid} (rank {cta.rank}), whose threads have all exited: its shared "
                                  f"memory is gone (a CTA must not exit while others of its cluster may still "
                                  f"access it; barrier.cluster before exit), {self._where(lid)}")
        return cta, SHARED_BASE + off

    def _ld_cluster(self, lid, fmt, addr, align):
        """ld.shared::cluster: `align` is the whole (vector) access's size."""
        cta, a = self._cl_resolve(lid, addr, align, "ld.shared::cluster")
        size = struct.calcsize(fmt)
        if cta.hb is not None:
            self._hb_cluster_access(lid, cta, a, size, "ld.shared::cluster", False)
        return cta.sviews[fmt][a // size]

    def _st_cluster(self, lid, fmt, addr, val, align, tid):
        cta, a = self._cl_resolve(lid, addr, align, "st.shared::cluster")
        size = struct.calcsize(fmt)
        if cta.hb is not None:
            self._hb_cluster_access(lid, cta, a, size, "st.shared::cluster", True,
                                    cta.sviews[fmt][a // size] == val)
        if cta is self.cta:
            self._st_shared_checked(lid, fmt, a, val, size, tid)
        else:
            self._on_peer(lid, cta, "st.shared::cluster", self._st_shared_checked, lid, fmt, a, val, size, None)

    def _st_shared_checked(self, lid, fmt, a, val, size, tid):
        """A store to the current CTA's shared memory outside generated code: not onto a live mbarrier
        or a TMA store's unread source; tracked for the async proxy when `tid` (the storing thread
        of this CTA) is given. A peer CTA's store (tid None) is not tracked: a fence of its thread
        cannot be told from one of this CTA's, so the async proxy is taken to see it."""
        if self.uses_mbarrier and (a & -8) in self.ns["MBW"]:
            self._mb_clobber(lid, a)
        if self.tracks_proxy:
            if tid is not None:
                self._bs_generic_store(lid, tid, a, size)
            else:
                if self.cta.bs_unread:
                    self._bs_clobber(lid, a, size)
                self.ns["PXW"][a - SHARED_BASE:a - SHARED_BASE + size] = -1
        self.sviews[fmt][a // size] = val

    def _mapa(self, lid, a, rank):
        """mapa: the shared::cluster address of shared address `a`'s byte in the CTA of `rank`. An
        uninitialized `a` gives an uninitialized result (a mapa whose use a predicate skips)."""
        if a is None:
            return None
        ro = self._cl_split(a)
        if ro is None:
            raise self._cl_bad(lid, a, "mapa")
        if not 0 <= rank < self.cl_size:
            raise MemoryFault(f"mapa to rank {rank}: the cluster has {self.cl_size} CTAs (ranks 0..{self.cl_size - 1}), "
                              f"in CTA {self.cta.ctaid}, {self._where(lid)}")
        return SHARED_CLUSTER_BASE + rank * SHARED_CLUSTER_STRIDE + ro[1]

    def _getctarank(self, lid, a):
        ro = self._cl_split(a)
        if ro is None:
            raise self._cl_bad(lid, a, "getctarank")
        return ro[0]

    def _mb_arrive_cl(self, lid, addr, count, tx):
        """mbarrier.arrive{.expect_tx}.shared::cluster: on the mbarrier at a shared::cluster address."""
        cta, a = self._cl_resolve(lid, addr, 8, "mbarrier.arrive")
        if cta is self.cta:
            self._mb_arrive(lid, a, count, tx)
            return
        self._mb_check_published(lid, cta, a, "mbarrier.arrive")
        # the race check: the arrival releases what the arriving thread (of this CTA) did
        clock = self._hb_release(self.hb_t) if self.cta.hb is not None else None
        self._on_peer(lid, cta, "mbarrier.arrive", self._mb_arrive, lid, a, count, tx, clock)

    def _mb_expect_tx_cl(self, lid, addr, tx):
        cta, a = self._cl_resolve(lid, addr, 8, "mbarrier.expect_tx")
        if cta is self.cta:
            self._mb_expect_tx(lid, a, tx)
            return
        self._mb_check_published(lid, cta, a, "mbarrier.expect_tx")
        self._on_peer(lid, cta, "mbarrier.expect_tx", self._mb_expect_tx, lid, a, tx)

    def _mb_check_published(self, lid, cta, a, what):
        """Another CTA's mbarrier is used: its mbarrier.init must have been followed by a release at
        cluster scope in its CTA (fence.mbarrier_init.release.cluster, barrier.cluster.arrive without
        .relaxed, fence.acq_rel.cluster, ...): without one the cluster need not see the init."""
        init = cta.mb_unpublished.get(a)
        if init is not None:
            me = self.cta
            raise PTXRuntimeError(f"{what} by CTA {me.ctaid} (rank {me.rank}) on the mbarrier at shared offset "
                                  f"{a - SHARED_BASE} of CTA {cta.ctaid} (rank {cta.rank}), whose mbarrier.init "
                                  f"({self._where(init)}) no fence.mbarrier_init.release.cluster (or other release "
                                  f"at cluster scope) of that CTA has followed: the cluster may not see the "
                                  f"initialization, {self._where(lid)}")

    def _cl_release(self, lid):
        """A release at cluster scope: the CTA's mbarrier.init so far are visible to the cluster."""
        if self.cta.mb_unpublished:
            self.cta.mb_unpublished.clear()

    def _ld_local(self, lid, loc, fmt, addr):
        size = struct.calcsize(fmt)
        off = self._local_off(lid, loc, addr, size)
        return loc.views[fmt][off // size]

    def _st_local(self, lid, loc, fmt, addr, val):
        size = struct.calcsize(fmt)
        off = self._local_off(lid, loc, addr, size)
        loc.views[fmt][off // size] = val

    def _local_off(self, lid, loc, addr, size):
        off = addr - LOCAL_BASE
        if loc is None or off < 0 or off + size > loc.size or off % size:
            raise MemoryFault(f"invalid local access of {size} bytes at {addr:#x} (the thread has "
                              f"{loc.size if loc else 0} local bytes), {self._where(lid)}")
        return off

    def _read_generic(self, lid, addr, n):
        """n bytes at generic address addr."""
        out = bytearray()
        for i in range(n):
            space, views, off = self._resolve_generic(lid, addr + i, 1)
            out.append(views["B"][off])
        return bytes(out)

    def _read_cstring(self, lid, addr, limit=1 << 16):
        out = bytearray()
        while len(out) < limit:
            space, views, off = self._resolve_generic(lid, addr + len(out), 1)
            ch = views["B"][off]
            if ch == 0:
                return out.decode("utf-8", "replace")
            out.append(ch)
        raise PTXRuntimeError(f"string at {addr:#x} has no NUL in {limit} bytes, {self._where(lid)}")

    def _vprintf(self, lid, fmt_addr, args_addr):
        fmt = self._read_cstring(lid, fmt_addr)
        out, pos, off = [], 0, 0

        def arg(size):
            nonlocal off
            off = (off + size - 1) // size * size
            raw = int.from_bytes(self._read_generic(lid, args_addr + off, size), "little")
            off += size
            return raw

        used = 0
        for m in _PRINTF_SPEC.finditer(fmt):
            out.append(fmt[pos:m.start()])
            pos = m.end()
            conv, flags, width, prec, length = m.group("conv"), m.group("flags") or "", m.group("width"), \
                m.group("prec"), m.group("len") or ""
            if conv == "%":
                out.append("%")
                continue
            used += 1
            if used > 32:     # CUDA's printf takes 32 arguments; later specifiers print as they are
                out.append(m.group(0))
                continue
            if width == "*":
                width = str(_signed(arg(4), 32))
            if prec == "*":
                prec = str(_signed(arg(4), 32))
            spec = "%" + flags + (width or "") + ("." + prec if prec is not None else "")
            if conv in "diuxXoc":
                size = 8 if length in ("l", "ll", "j", "z", "t", "q") else 4
                v = arg(size)
                bits = {"hh": 8, "h": 16}.get(length, 8 * size)
                v &= (1 << bits) - 1
                if conv in "di":
                    v = _signed(v, bits)
                if conv == "c":
                    out.append((spec + "s") % chr(v & 0xFF))
                else:
                    out.append((spec + ("d" if conv in "iu" else conv)) % v)
            elif conv in "fFeEgG":
                out.append((spec + conv) % _u2d(arg(8)))
            elif conv in "aA":
                t = _u2d(arg(8)).hex()
                out.append(t.upper() if conv == "A" else t)
            elif conv == "s":
                out.append((spec + "s") % self._read_cstring(lid, arg(8)))
            elif conv == "p":
                out.append(hex(arg(8)))
        out.append(fmt[pos:])
        text = "".join(out)
        self.printed.append(text)
        if self.stdout is not None:
            self.stdout.write(text)
        return len(text)

    def _assertfail(self, lid, msg, file_, line, func, size):
        raise PTXRuntimeError(f"__assertfail: {self._read_cstring(lid, msg)!r} ({self._read_cstring(lid, file_)}:"
                              f"{line}, {self._read_cstring(lid, func)}) in CTA {self.cta.ctaid}, "
                              f"{self._where(lid)}")

    def _atom(self, lid, space, opn, tname, x, b, c=None):
        t = T(tname)
        size = t.bytes
        if space == "shared":
            views = self.sviews
        else:
            views = self.gviews
        if t.kind == "f":
            fmt = "f"
        elif t.kind == "d":
            fmt = "d"
        else:
            fmt = _FMT[(size, t.signed)]
        mv = views[fmt]
        i = x >> _SHIFT[size]
        old = mv[i]
        if t.kind in ("f", "d"):
            if opn == "add":
                new = _f32(old + b) if t.kind == "f" else old + b
            elif opn == "exch":
                new = b
            elif opn in ("min", "max"):
                new = (_fmin if opn == "min" else _fmax)(old, b)
            elif opn == "cas":
                new = c if old == b else old
            else:
                self._bad_atom(lid)
            mv[i] = new
            return old
        m = t.mask
        if t.signed:
            b = ((b & m) ^ (1 << (t.width - 1))) - (1 << (t.width - 1))
        if opn == "add":
            new = old + b
        elif opn == "and":
            new = old & b
        elif opn == "or":
            new = old | b
        elif opn == "xor":
            new = old ^ b
        elif opn == "min":
            new = min(old, b)
        elif opn == "max":
            new = max(old, b)
        elif opn == "exch":
            new = b
        elif opn == "cas":
            if t.signed:
                c = ((c & m) ^ (1 << (t.width - 1))) - (1 << (t.width - 1))
            new = c if old == b else old
        elif opn == "inc":
            new = 0 if (old & m) >= (b & m) else old + 1
        elif opn == "dec":
            new = b if (old & m) == 0 or (old & m) > (b & m) else old - 1
        else:
            self._bad_atom(lid)
        new &= m
        if t.signed:
            new = (new ^ (1 << (t.width - 1))) - (1 << (t.width - 1))
        mv[i] = new
        return old & m

    def _bad_atom(self, lid):
        raise PTXRuntimeError(f"unsupported atomic operation, {self._where(lid)}")

    def _mb_init(self, lid, addr, count):
        cta = self.cta
        if count < 1:
            raise PTXRuntimeError(f"mbarrier.init with count {count}, {self._where(lid)}")
        old = cta.mbars.get(addr)
        if old is not None and old.waiters:
            raise PTXRuntimeError(f"mbarrier.init of a barrier threads wait on, {self._where(lid)}")
        if old is not None and old.bulk:
            raise PTXRuntimeError(f"mbarrier.init of a barrier with cp.async.bulk.tensor copies in flight, "
                                  f"{self._where(lid)}")
        if old is not None and old.inflight:
            raise PTXRuntimeError(f"mbarrier.init of a barrier with {len(old.inflight)} cp.async.mbarrier.arrive "
                                  f"arrivals in flight (the first from {self._where(old.inflight[0][0])}): they "
                                  f"land on the new barrier; wait for their phase first, {self._where(lid)}")
        cta.mbars[addr] = MBarrier(addr, count)
        self.ns["MBW"].add(addr)
        if self.cl_size > 1:
            cta.mb_unpublished[addr] = lid

    def _mb_get(self, lid, addr, what):
        mb = self.cta.mbars.get(addr)
        if mb is None:
            raise PTXRuntimeError(f"{what} on {addr:#x} (shared offset {addr - SHARED_BASE}), "
                                  f"which no mbarrier.init initialized, {self._where(lid)}")
        return mb

    def _mb_arrive(self, lid, addr, count, tx=0, clock=None):
        """mbarrier.arrive (count arrivals), and mbarrier.arrive.expect_tx (tx bytes expected,
        then one arrival). `clock`: what the arrival releases (the race check), when it is not
        the running thread's now (a landed cp.async.mbarrier.arrive)."""
        mb = self._mb_get(lid, addr, "mbarrier.arrive")
        self._mb_settle(mb)
        if self.cta.hb is not None:
            self._hb_mb_arrive(mb, self._hb_release(self.hb_t) if clock is None else clock)
        mb.tx += tx
        token = mb.phase
        if count > mb.pending:
            raise PTXRuntimeError(f"mbarrier.arrive of {count} on a barrier expecting {mb.pending} more "
                                  f"arrivals, {self._where(lid)}")
        mb.pending -= count
        if mb.pending == 0:
            self._mb_ready(mb, lid)
        return token & 0xFFFFFFFFFFFFFFFF

    def _mb_expect_tx(self, lid, addr, tx):
        """mbarrier.expect_tx: tx more bytes expected in the current phase (no arrival)."""
        mb = self._mb_get(lid, addr, "mbarrier.expect_tx")
        self._mb_settle(mb)
        mb.tx += tx
        if mb.pending == 0:
            self._mb_ready(mb, lid)

    def _mb_add_bulk(self, lid, mb, copy):
        """A cp.async.bulk.tensor completing on `mb`'s current phase (copy_timing="eager": its
        shared-memory writes land now)."""
        self._mb_settle(mb)
        if copy.hb is not None:            # the race check: the copy of this phase
            copy.hb, copy.hb_comp = self._hb_phase_clock(mb, copy.hb)
        if self.eager:
            if self.cta.wg_reads is not None:
                self._wg_check_copy(lid, "cp.async.bulk.tensor", copy.addrs - SHARED_BASE)
            if copy.hb is not None:
                self._hb_copy_lands(copy.hb, copy.hb_comp, copy.addrs - SHARED_BASE, copy.lid)
            np.asarray(self.sviews["B"])[copy.addrs] = copy.data
            copy.landed = True
            self._px_async_write(copy.addrs)
        mb.bulk.append(copy)
        mb.bulk_bytes += copy.nbytes
        if mb.pending == 0:
            self._mb_ready(mb, lid)

    def _mb_ready(self, mb, lid):
        """Every arrival of the phase is in. With no transaction bytes outstanding it completes
        now; with bulk copies whose bytes equal the expected ones it completes when the CTA has
        nothing else to run (_mb_land_one: the latest a GPU may complete them); with fewer it
        waits for more copies."""
        if mb.bulk_bytes > mb.tx:
            raise PTXRuntimeError(f"mbarrier at shared offset {mb.addr - SHARED_BASE}: the copies completing on "
                                  f"its phase {mb.phase} bring {mb.bulk_bytes} bytes, more than the {mb.tx} "
                                  f"expect_tx announced, {self._where(lid)}")
        if mb.tx == 0:
            self._mb_complete(mb)

    def _mb_settle(self, mb):
        """Before another operation on `mb`: a phase only waiting for its copies to land
        completes first (a GPU may have completed it by then)."""
        if mb.pending == 0 and mb.bulk and mb.bulk_bytes == mb.tx:
            self._mb_complete(mb)

    def _mb_complete(self, mb):
        cta = self.cta
        smem = self.sviews["B"]
        for dst, data, lid, ep, clock in mb.copies:   # the tracked cp.async copies land before the phase completes
            if data is not None:               # (None: landed at issue, copy_timing="eager")
                self._cp_lands(lid, ep, dst, data, clock, mb)
        mb.copies = []
        clocks = []
        if mb.bulk:
            S = np.asarray(smem)
            for c in mb.bulk:
                if not c.landed:
                    if c.hb is not None:
                        self._hb_copy_lands(c.hb, c.hb_comp, c.addrs - SHARED_BASE, c.lid)
                    S[c.addrs] = c.data
                    self._px_async_write(c.addrs)
                if c.hb is not None:
                    clocks.append(c.hb)
                cta.bulk_inflight.remove(c)
            mb.bulk = []
        if cta.hb is not None:
            self._hb_mb_complete(mb, clocks)
        mb.tx = mb.bulk_bytes = 0
        mb.phase += 1
        mb.pending = mb.count
        if mb.waiters:
            if self.eager:      # the released threads (a producer refilling a slot) run next
                cta.runnable.extendleft(reversed(mb.waiters))
            else:
                cta.runnable.extend(mb.waiters)
            mb.waiters = []

    def _mb_land_one(self, cta):
        """Nothing can run: complete the phase (of the oldest copy) whose copies have all their
        arrivals and bytes. False if there is none."""
        flying = [mb for mb in cta.mbars.values() if mb.inflight]
        if flying:
            self._mb_land_inflight(flying[0])
            return True
        ready = [mb for mb in cta.mbars.values() if mb.pending == 0 and mb.bulk and mb.bulk_bytes == mb.tx]
        if not ready:
            return False
        self._mb_complete(min(ready, key=lambda mb: mb.bulk[0].seq))
        return True

    def _gtimer(self):
        """%globaltimer: nanoseconds, rising by 32 at every read in the simulation's order
        (what a kernel may rely on: it never runs backwards)."""
        self.gtimer = getattr(self, "gtimer", 1 << 20) + 32
        self.gtimer_reads += 1
        return self.gtimer

    def _cp_async(self, lid, dst, src, size, got, tid):
        """Queue one cp.async of `size` bytes, `got` of them read (now) from global
        `src`, the rest zero; written to shared `dst` when an mbarrier tracking it
        completes its phase."""
        if got > size:
            raise PTXRuntimeError(f"cp.async reads {got} bytes into a {size}-byte copy, {self._where(lid)}")
        data = bytearray(size)
        if got:
            off = src - GLOBAL_BASE
            gv = self.ns["GV1"]
            if off < 0 or src % size or not all(gv[off + j] for j in range(got)):
                self._fault(lid, "global", src, got)
            data[:got] = self.gviews["B"][off:off + got]
        clock = self._hb_copy_clock(tid & 4095) if self.cta.hb is not None else None
        if self.eager:                   # lands now; the mbarrier accounting is unchanged
            if self.cta.wg_reads is not None:
                o = dst - SHARED_BASE
                self._wg_check_copy(lid, "cp.async", slice(o, o + size))
            if clock is not None:
                o = dst - SHARED_BASE
                self._hb_copy_lands(clock, self.cta.hb.cb + (tid & 4095), slice(o, o + size), lid)
            self.sviews["B"][dst:dst + size] = data
            data = None
        # by thread, not barrier interval: a wait takes every earlier copy of its thread,
        # CTA barriers between them or not
        self.cta.cp_pending.setdefault(tid & 4095, []).append(
            (dst, None if data is None else bytes(data), lid, tid, clock))

    def _cp_lands(self, lid, ep, dst, data, clock, mb=None):
        """A cp.async copy's bytes reach shared memory (its issuing instruction `lid`), with the
        phase of `mb` or at its thread's wait_all (mb None)."""
        if clock is not None:
            o = dst - SHARED_BASE
            comp = self.cta.hb.cb + (ep & 4095)
            if mb is not None:
                clock, comp = self._hb_phase_clock(mb, clock)
            self._hb_copy_lands(clock, comp, slice(o, o + len(data)), lid)
        self.sviews["B"][dst:dst + len(data)] = data
        if self.tracks_proxy:          # a generic-proxy write, made now: a fence must follow it
            self._px_store(lid, ep & 4095, dst, len(data))

    def _cp_wait_all(self, lid, tid):
        """cp.async.wait_all: the thread's own copies no mbarrier arrive took land now (its
        committed groups and the copies not yet in one: wait_all commits them first)."""
        t = tid & 4095
        groups = self.cta.cp_groups.pop(t, [])
        self._cp_land([c for g in groups for c in g] + self.cta.cp_pending.pop(t, []), t, None)

    def _cp_commit(self, lid, tid):
        """cp.async.commit_group: the thread's copies no group or mbarrier arrive took yet
        become its newest cp.async-group."""
        t = tid & 4095
        self.cta.cp_groups.setdefault(t, []).append(self.cta.cp_pending.pop(t, []))

    def _cp_wait_group(self, lid, tid, n):
        """cp.async.wait_group N: the thread's groups but the newest N land (copies issued
        since the last commit_group are in no group and do not)."""
        t = tid & 4095
        groups = self.cta.cp_groups.get(t, [])
        done = groups[:max(0, len(groups) - n)]
        self.cta.cp_groups[t] = groups[len(done):]
        copies = [c for g in done for c in g]
        last = max((c[4][self.cta.hb.cb + t] for c in copies if c[4] is not None), default=None) \
            if self.cta.hb is not None else None
        self._cp_land(copies, t, last)

    def _cp_land(self, copies, t, upto):
        """`copies` of thread `t` land now; its race-check clock takes its copies up to number
        `upto` (None: all it issued)."""
        for dst, data, clid, ep, clock in copies:
            if data is not None:
                self._cp_lands(clid, ep, dst, data, clock)
        h = self.cta.hb
        if h is not None and (upto is None or copies):
            h.vc[t, h.cb + t] = max(h.vc[t, h.cb + t], h.copies[t] if upto is None else upto)
            h.rows[t] = None

    def _px_async_write(self, addrs):
        """A TMA load wrote shared `addrs` through the async proxy: no generic store is the latest
        write to them any more, so the async proxy reads them without a fence.proxy.async."""
        if self.tracks_proxy:
            self.ns["PXW"][addrs - SHARED_BASE] = -1

    def _cp_arrive(self, lid, addr, tid):
        """cp.async.mbarrier.arrive.noinc: one arrival, carrying the thread's copies."""
        mb = self.cta.mbars.get(addr)
        if mb is None:
            raise PTXRuntimeError(f"cp.async.mbarrier.arrive on {addr:#x}, which no mbarrier.init initialized, "
                                  f"{self._where(lid)}")
        # asynchronous: the arrival lands once the copies complete, at the latest when a thread
        # waits on the barrier or nothing else can run (_mb_land_inflight)
        copies = list(self.cta.cp_pending.pop(tid & 4095, ()))
        clock = None
        if self.cta.hb is not None:       # the arrival releases what the thread did and its copies
            clock = self._hb_release(tid & 4095)
            for c in copies:
                if c[1] is None:          # landed at issue (copy_timing="eager"): the thread's copy
                    np.maximum(clock, c[4], out=clock)
        mb.inflight.append((lid, copies, clock))

    def _mb_land_inflight(self, mb):
        """The cp.async.mbarrier.arrive arrivals on `mb` that are still in flight land, with their copies."""
        inflight, mb.inflight = mb.inflight, []
        for lid, copies, clock in inflight:
            mb.copies.extend(copies)
            self._mb_arrive(lid, mb.addr, 1, clock=clock)

    def _mb_clobber(self, lid, addr):
        raise PTXRuntimeError(f"store to shared offset {addr - SHARED_BASE}, which holds a live mbarrier "
                              f"(initialized by mbarrier.init, never invalidated), in CTA {self.cta.ctaid}, "
                              f"{self._where(lid)}")

    # ---- running --------------------------------------------------------------------------------
    def _carried_maps(self, globals_init, gmem):
        """Tensor maps an earlier launch wrote into the globals given in `globals_init`
        (128-byte blocks with fields set: tma.TM_MASK_OFF) count as written before
        this launch: a CTA still has to acquire one before a copy reads it."""
        from .tma import TM_BYTES, TM_MASK_OFF
        for name in globals_init or ():
            off, size, _ = self.global_syms[name]
            for o in range(off + (-off) % TM_BYTES, off + size - TM_BYTES + 1, TM_BYTES):
                if gmem[o + TM_MASK_OFF:o + TM_MASK_OFF + 4] != bytes(4):
                    self._tm_written(GLOBAL_BASE + o, None)

    def launch(self, grid, args, block=None, shared_bytes=None, max_steps=MAX_BLOCK_STEPS, stdout=None,
               thread_order="alternate", check_races=False, copy_timing="late", globals_init=None, clusters=None):
        if thread_order not in ("forward", "reverse", "alternate", "lagging"):
            raise PTXSimError(f"thread_order {thread_order!r}: forward, reverse, alternate or lagging")
        self.lagging = thread_order == "lagging"
        if copy_timing not in ("late", "eager"):
            raise PTXSimError(f"copy_timing {copy_timing!r}: late or eager")
        self.eager = copy_timing == "eager"
        grid = _dims(grid)
        cl = self.entry.cluster or (1, 1, 1)
        if self.entry.blocks_are_clusters:
            if self.entry.cluster is None:
                raise PTXSimError(".blocksareclusters without .reqnctapercluster")
            # the grid counts clusters: each of its blocks runs as a cluster of CTAs
            grid = tuple(g * c for g, c in zip(grid, cl))
        elif any(g % c for g, c in zip(grid, cl)):
            # the grid counts CTAs: the driver refuses one that is no whole number of clusters
            raise PTXSimError(f"grid {grid} is not a whole number of clusters of {cl} CTAs (.reqnctapercluster "
                              f"without .blocksareclusters: the grid counts CTAs)")
        if self.cl_size > MAX_CLUSTER_CTAS:
            raise PTXSimError(f"a cluster of {cl} CTAs: at most {MAX_CLUSTER_CTAS}")
        block = _dims(block if block is not None else (self.entry.reqntid or None), "block")
        if self.entry.reqntid is not None and tuple(block) != tuple(self.entry.reqntid):
            raise PTXSimError(f"block {block} differs from .reqntid {self.entry.reqntid}")
        nthreads = block[0] * block[1] * block[2]
        if nthreads > 1024:
            raise PTXSimError(f"{nthreads} threads per CTA (at most 1024)")
        args = list(args)
        if len(args) != len(self.entry.params):
            raise PTXSimError(f"kernel {self.name} takes {len(self.entry.params)} parameters, got {len(args)}")
        # global memory: the module's variables, then the arrays of the arguments
        allocs = []               # (name, offset, size)
        placements = {}           # id(array) -> (offset, host array, contiguous copy)
        pos = self.globals_end
        for name, (off, size, init) in self.global_syms.items():
            allocs.append((name, off, size))
        arrays = []

        def place(pname, arr):
            nonlocal pos
            if id(arr) in placements:
                return GLOBAL_BASE + placements[id(arr)][0]
            # a table of pointers (cuTile's list of arrays: tilec.runtime.PointerTable): the arrays
            # it points to are placed first and their addresses written into its column 0
            for i, x in enumerate(getattr(arr, "pointees", None) or ()):
                arr[i, 0] = place(f"{pname}[{i}]", x)
            host = np.ascontiguousarray(arr)
            pos = (pos + 255) // 256 * 256
            placements[id(arr)] = (pos, arr, host)
            allocs.append((pname, pos, host.nbytes))
            arrays.append(arr)
            pos += host.nbytes + GLOBAL_GAP
            return GLOBAL_BASE + placements[id(arr)][0]
        for (pname, pt, _), a in zip(self.entry.params, args):
            arr = a[0] if isinstance(a, tuple) and len(a) == 2 and isinstance(a[0], np.ndarray) else a
            if isinstance(arr, np.ndarray):
                place(pname, arr)
        total = (pos + GLOBAL_GAP + 4095) // 4096 * 4096
        gmem = bytearray(total)
        unknown = set(globals_init or ()) - set(self.global_syms)
        if unknown:
            raise PTXSimError(f"globals_init names no .global of the module: {', '.join(sorted(unknown))}")
        for name, (off, size, init) in self.global_syms.items():
            init = (globals_init or {}).get(name, init)
            if init is not None:
                if len(init) > size:
                    raise PTXSimError(f"{len(init)} initial bytes for .global {name} of {size}")
                gmem[off:off + len(init)] = bytes(init)
        for off, arr, host in placements.values():
            gmem[off:off + host.nbytes] = host.tobytes()
        self.launch_allocs = [(n, GLOBAL_BASE + o, s) for n, o, s in allocs]
        gv = _validity(total, [(o, s) for _, o, s in allocs])
        # parameters
        pbuf = bytearray(max(self.entry.param_bytes, 1))
        for (pname, pt, poff), a in zip(self.entry.params, args):
            struct.pack_into(_param_fmt(pt), pbuf, poff, _param_value(pname, pt, a, placements))
        ns = self.ns
        for var, fmt, off, size in self.param_loads:
            ns[var] = struct.unpack_from("<" + fmt, pbuf, off)[0]
        # shared memory
        dyn = shared_bytes
        if dyn is None:
            dyn = self.module.dynamic_shared.get(self.name, 0) if self.extern_shared is not None else 0
        shared_total = self.static_shared
        if self.extern_shared is not None:
            shared_total = self.shared_syms[self.extern_shared.name][0] + dyn
        self.launch_shared = shared_total
        if self.cl_size > 1 and shared_total > SHARED_CLUSTER_STRIDE:
            raise PTXSimError(f"{shared_total} shared bytes a CTA: a cluster's CTAs have at most "
                              f"{SHARED_CLUSTER_STRIDE} in the simulator")
        # one shared memory per rank of a cluster, reused by the clusters that run one after another
        smems = [bytearray(SHARED_BASE + shared_total + 64) for _ in range(self.cl_size)]
        sviews = [_views(m) for m in smems]
        sv = _validity(len(smems[0]), [(SHARED_BASE, shared_total)])
        self.gviews = _views(gmem)
        for fmt, mv in self.gviews.items():
            ns["G" + fmt] = mv
        for size, v in gv.items():
            ns[f"GV{size}"] = v
        for size, v in sv.items():
            ns[f"SV{size}"] = v
        ns["NTID_X"], ns["NTID_Y"], ns["NTID_Z"] = block
        ns["NCTAID_X"], ns["NCTAID_Y"], ns["NCTAID_Z"] = grid
        ns["NWARPID"] = (nthreads + 31) // 32
        nsmid = ns["NSMID"] = max(NSMID, self.cl_size)
        ncl = tuple(g // c for g, c in zip(grid, cl))
        ns["CL_NRANK"] = self.cl_size
        ns["CL_NCTAID_X"], ns["CL_NCTAID_Y"], ns["CL_NCTAID_Z"] = cl
        ns["NCLID_X"], ns["NCLID_Y"], ns["NCLID_Z"] = ncl
        ns["CL_EXPLICIT"] = self.entry.cluster is not None
        self.tm_version, self.tm_seq, self.tma_count, self.tma_store_count = {}, 0, 0, 0
        self._carried_maps(globals_init, gmem)
        self.bulk_seq = 0
        self.gtimer_reads = 0
        fill = bytes([SHARED_FILL]) * shared_total
        self.printed, self.stdout = [], stdout
        ns["RC"] = bool(check_races)
        self.hb_t = 0
        stats = {"ctas": 0, "blocks": 0, "clusters": 0}
        for cz in range(ncl[2]):
            for cy in range(ncl[1]):
                for cx in range(ncl[0]):
                    ctas = []
                    mb_comps = {}             # the race check's mbarrier components, cluster-wide
                    for rank in range(self.cl_size):
                        rx, ry, rz = rank % cl[0], rank // cl[0] % cl[1], rank // (cl[0] * cl[1])
                        smems[rank][SHARED_BASE:SHARED_BASE + shared_total] = fill
                        cta = CTA((cx * cl[0] + rx, cy * cl[1] + ry, cz * cl[2] + rz), nthreads)
                        cta.rank, cta.sviews = rank, sviews[rank]
                        if ns["RC"]:
                            cta.hb = HbState(nthreads, shared_total, rank, self.cl_size, mb_comps)
                        nsd = cta.nsd = {"S" + fmt: mv for fmt, mv in cta.sviews.items()}
                        nsd["MBW"], nsd["BSP"] = set(), cta.bs_unread
                        nsd["CTAID_X"], nsd["CTAID_Y"], nsd["CTAID_Z"] = cta.ctaid
                        nsd["SMID"] = stats["ctas"] % nsmid
                        nsd["CL_RANK"] = rank
                        nsd["CL_CTAID_X"], nsd["CL_CTAID_Y"], nsd["CL_CTAID_Z"] = rx, ry, rz
                        nsd["CLID_X"], nsd["CLID_Y"], nsd["CLID_Z"] = cx, cy, cz
                        if self.tracks_proxy:
                            nsd["PXW"] = np.full(shared_total, -1, np.int64)   # tma.py: the latest generic store
                            nsd["PXF"] = [0] * nthreads        # per thread: the number of its latest proxy fence
                            nsd["PXC"] = [0]                   # proxy fences so far
                        if self.eager and self.uses_wgmma:
                            cta.wg_reads = np.zeros(shared_total, np.int32)
                        if self.uses_cbar:
                            cta.cb_arrived, cta.cb_count = [-1] * nthreads, [0] * nthreads
                        cta.reverse = thread_order == "reverse" or (thread_order == "alternate" and stats["ctas"] % 2)
                        stats["ctas"] += 1
                        ctas.append(cta)
                    # the CTAs of a cluster run in rank order, or the reverse as thread_order says (odd
                    # clusters with "alternate"): a CTA that runs ahead of its peers differs from run to run
                    backwards = thread_order == "reverse" or (thread_order == "alternate" and stats["clusters"] % 2)
                    if clusters is not None and stats["clusters"] >= clusters:
                        continue                  # a cut-down launch: the later clusters do not run
                    self._run_cluster(Cluster(ctas, nthreads), ctas[::-1] if backwards else ctas, block, max_steps)
                    stats["clusters"] += 1
        # copy back
        for off, arr, host in placements.values():
            out = np.frombuffer(bytes(gmem[off:off + host.nbytes]), dtype=host.dtype).reshape(host.shape)
            if arr.flags.writeable:
                arr[...] = out
        globals_ = {name: np.frombuffer(gmem, np.uint8, count=size, offset=off).copy()
                    for name, (off, size, init) in self.global_syms.items()}
        stats["race_checked"] = ns["RC"]
        stats["tma_loads"] = self.tma_count
        stats["tma_stores"] = self.tma_store_count
        stats["globaltimer_reads"] = self.gtimer_reads
        return SimResult(globals_, stats, "".join(self.printed))

    def _run_cluster(self, cluster, order, block, max_steps):
        """Run the CTAs of one cluster together: each CTA's runnable threads run until none is
        left (in `order`, switching the current CTA), again while a peer's operation woke
        some; when none can run, a TMA copy lands (the oldest complete phase, in any CTA).
        A cluster of one CTA takes the same path."""
        ctas = cluster.ctas
        try:
            self._run_ctas(cluster, order, block, max_steps)
        finally:
            for cta in ctas:           # no CTA <-> thread generator cycles left for the collector
                cta.gens = cta.cluster = None

    def _run_ctas(self, cluster, ctas, block, max_steps):
        n = ctas[0].nthreads
        for cta in ctas:
            self._enter(cta)
            cta.gens = self._threads(cta, block, max_steps)
            cta.runnable.extend(range(n - 1, -1, -1) if cta.reverse else range(n))
        while True:
            for cta in ctas:
                runnable = cta.runnable
                if not runnable:
                    continue
                if self.cta is not cta:
                    self._enter(cta)
                gens = cta.gens
                held = []                  # "lagging": warp 0's threads, while others can run
                while runnable or held:
                    if not runnable:
                        runnable.extend(held)
                        held.clear()
                    t = runnable.popleft()
                    if self.lagging and t < 32 and any(u >= 32 for u in runnable):
                        held.append(t)
                        continue
                    self.hb_t = t                  # the thread the generated code's calls run for
                    try:
                        w = next(gens[t])
                    except StopIteration:
                        cta.exited += 1
                        if cta.exited == n:
                            self._cta_end(cta)
                        continue
                    w.waiters.append(t)
            if len(ctas) > 1 and any(cta.runnable for cta in ctas):
                continue                   # a CTA woke threads of one the pass had left
            if all(cta.done for cta in ctas) or not self._land_one(ctas):   # TMA copies land when nothing
                break                                                       # else can run
        blocked = [cta for cta in ctas if not cta.done]
        if blocked:
            if len(ctas) == 1:
                raise Deadlock(self._deadlock_report(blocked[0], n - blocked[0].exited))
            raise Deadlock(self._cluster_deadlock_report(cluster))

    def _threads(self, cta, block, max_steps):
        """The generators of `cta`'s threads (cta current)."""
        n = cta.nthreads
        slots = self.nslots
        tx_s, ty_s, tz_s = (self.regs[s].slot for s in ("%tid.x", "%tid.y", "%tid.z"))
        lane_s, warp_s = self.regs["%laneid"].slot, self.regs["%warpid"].slot
        local_s = self.regs["%%local"].slot
        ep_s = self.regs["%%epkey"].slot
        gens = []
        for t in range(n):
            R = [None] * slots
            R[tx_s] = t % block[0]
            R[ty_s] = (t // block[0]) % block[1]
            R[tz_s] = t // (block[0] * block[1])
            R[lane_s] = t % 32
            R[warp_s] = t // 32
            R[ep_s] = t
            if self.local_size:
                R[local_s] = cta.locals[t] = LocalMem(t, self.local_size)
            gens.append(self._thread(R, t, cta, max_steps))
        return gens

    def _land_one(self, ctas):
        """Nothing in the cluster can run: land the oldest copies that may, else fire the oldest
        tcgen05.commit (tcgen05.py) of a CTA (False if neither)."""
        if self._land_copies(ctas):
            return True
        for cta in ctas:
            if not cta.done and cta.tc is not None and cta.tc.commits:
                self._enter(cta)
                return self._tc_fire_one(cta)
        return False

    def _land_copies(self, ctas):
        if len(ctas) == 1:
            return self._mb_land_one(ctas[0])
        live = [cta for cta in ctas if not cta.done]
        for cta in live:
            if any(mb.inflight for mb in cta.mbars.values()):
                self._enter(cta)
                return self._mb_land_one(cta)
        best = None
        for cta in live:
            for mb in cta.mbars.values():
                if mb.pending == 0 and mb.bulk and mb.bulk_bytes == mb.tx and (
                        best is None or mb.bulk[0].seq < best[1].bulk[0].seq):
                    best = (cta, mb)
        if best is None:
            return False
        self._enter(best[0])
        self._mb_complete(best[1])
        return True

    def _cta_end(self, cta):
        """Every thread of `cta` (the current CTA) has exited: its end-of-CTA checks; from now on
        its shared memory is gone for the rest of its cluster."""
        cta.done = True
        cta.hb = None             # the race check's shadow of a finished CTA is not needed again
        self._bs_cta_end()        # TMA stores no wait_group retired write global memory now, at the latest
        if any(cta.cp_pending.values()) or any(g for gs in cta.cp_groups.values() for g in gs):
            raise PTXRuntimeError(f"CTA {cta.ctaid} ended with cp.async copies no mbarrier arrive or wait tracked")
        flying = [mb for mb in cta.mbars.values() if mb.inflight]
        if flying:
            raise PTXRuntimeError(f"CTA {cta.ctaid} ended with cp.async.mbarrier.arrive arrivals (and their copies) "
                                  f"in flight, the first from {self._where(flying[0].inflight[0][0])}")
        if cta.bulk_inflight:
            c = cta.bulk_inflight[0]
            src = "" if c.src is cta else f", a multicast issued by CTA {c.src.ctaid} (rank {c.src.rank})"
            raise PTXRuntimeError(f"CTA {cta.ctaid} ended with {len(cta.bulk_inflight)} cp.async.bulk.tensor "
                                  f"copies in flight (their mbarrier phase never completed; the first from "
                                  f"{self._where(c.lid)}{src})")
        if self.uses_tcgen05:
            self._tc_cta_end(cta)
        if any(st.uncommitted or any(st.groups) for st in cta.wgs.values()):
            raise PTXRuntimeError(f"CTA {cta.ctaid} ended with wgmma.mma_async operations no "
                                  f"wgmma.wait_group waited for")
        for warp, seq in cta.cb_seq.items():
            lanes = range(warp * 32, min(warp * 32 + 32, cta.nthreads))
            short = [t for t in lanes if cta.cb_count[t] < len(seq)]
            if short:
                k = min(cta.cb_count[t] for t in short)
                raise PTXRuntimeError(f"CTA {cta.ctaid}: threads {_ranges(short)} of warp {warp} exited without the "
                                      f".aligned barrier.cluster ({self._where(seq[k])}) other lanes of their warp "
                                      f"executed: .aligned needs every thread of the warp at it")

    # ---- barrier.cluster ----------------------------------------------------------------------------
    def _barrier_cluster(self, cta, w, t):
        """barrier.cluster.arrive counts thread t once in the cluster barrier's phase; .wait blocks
        until every non-exited thread of every CTA of the cluster has arrived in the phase of the
        thread's arrive (a thread exiting counts as arrived from then on)."""
        cl = cta.cluster
        ph = cta.cb_arrived[t]
        if w.args["aligned"]:
            self._cb_aligned(cta, w, t)
        if w.kind == CB_ARRIVE:
            if ph >= 0:
                raise PTXRuntimeError(f"{w.instr.where()}: barrier.cluster.arrive again with no barrier.cluster.wait "
                                      f"since the thread's arrive in phase {ph}")
            if w.args["release"] and self.cl_size > 1:
                self._cl_release(w.instr.lid)
            if w.args["release"] and cta.hb is not None:
                self._hb_bar_arrive(cl, t)          # as a bar.sync arrival, into the cluster's phase
            cta.cb_arrived[t] = cl.cb_phase
            cl.cb_pending -= 1
            if cl.cb_pending == 0:
                self._cb_complete(cl)
            return
        if ph < 0:
            raise PTXRuntimeError(f"{w.instr.where()}: barrier.cluster.wait with no barrier.cluster.arrive before it")
        while cl.cb_phase == ph:
            cta.waiting_at[t] = w
            yield cta.cbw
        if cta.hb is not None:            # the wait acquires (.acquire is its only semantics)
            self._hb_acquire(t, cl.hb_done.get(ph))
        cta.cb_arrived[t] = -1

    def _cb_aligned(self, cta, w, t):
        """.aligned: every thread of the warp executes the same barrier.cluster instructions: the
        k-th aligned one of each lane must be the same (and no lane may leave before it, _cta_end)."""
        k = cta.cb_count[t]
        seq = cta.cb_seq.setdefault(t >> 5, [])
        if k < len(seq) and seq[k] != w.instr.lid:
            raise PTXRuntimeError(f"{w.instr.where()}: lane {t & 31} of warp {t >> 5} executes this .aligned "
                                  f"barrier.cluster where another lane of its warp executed {self._where(seq[k])}: "
                                  f".aligned needs every thread of the warp at the same instruction")
        if k == len(seq):
            seq.append(w.instr.lid)
        cta.cb_count[t] = k + 1

    def _cb_complete(self, cl):
        cl.hb_done[cl.cb_phase] = cl.hb_acc
        cl.hb_done.pop(cl.cb_phase - 2, None)      # a waiter of an older phase has waited
        cl.hb_acc = None
        cl.cb_phase += 1
        cl.cb_pending = cl.alive
        for c in cl.ctas:
            if c.cbw.waiters:
                c.runnable.extend(c.cbw.waiters)
                c.cbw.waiters = []

    def _cb_exit(self, cta, t):
        cl = cta.cluster
        cl.alive -= 1
        if cta.cb_arrived[t] != cl.cb_phase:       # not arrived in this phase: no longer awaited
            cl.cb_pending -= 1
            if cl.cb_pending == 0 and cl.alive:
                self._cb_complete(cl)
        cta.cb_arrived[t] = CB_EXITED

    def _ldmatrix_compute(self, w, lanes):
        """ldmatrix.m8n8.b16: lanes 8i..8i+7 address the rows of matrix i (16 bytes
        each, 16-byte aligned, in shared memory); lane l receives in register i the
        pair at row l/4, columns 2(l%4) and 2(l%4)+1 of matrix i -- or, with .trans,
        at rows 2(l%4), 2(l%4)+1 of column l/4 (PTX ISA, 'ldmatrix')."""
        if len(lanes) != 32:
            raise PTXRuntimeError(f"ldmatrix in a warp of {len(lanes)} threads ({w.instr.where()})")
        n, trans = w.args["n"], w.args["trans"]
        kind, base, off = w.args["addr"]
        mats = []
        h = self.sviews["H"]
        lo, hi = SHARED_BASE, SHARED_BASE + self.launch_shared
        for i in range(n):
            rows = []
            for r in range(8):
                R = lanes[8 * i + r]
                try:
                    a = (R[base] if kind == "reg" else base) + off
                except TypeError:
                    raise PTXRuntimeError(f"ldmatrix address from an uninitialized register "
                                          f"({w.instr.where()})") from None
                if a % 16 or not lo <= a <= hi - 16:
                    raise MemoryFault(f"ldmatrix row address {a:#x} (shared offset {a - SHARED_BASE}) is "
                                      f"misaligned or outside the {self.launch_shared} shared bytes "
                                      f"({w.instr.where()})")
                rows.append([h[a // 2 + c] for c in range(8)])
                if self.cta.hb is not None:        # each lane reads the row it addresses
                    self._rc_ld(w.instr.lid, a, 16, R[self.regs["%%epkey"].slot])
            mats.append(rows)
        for l in range(32):
            g, q = l >> 2, l & 3
            R = lanes[l]
            for i, slot in enumerate(w.args["d"]):
                m = mats[i]
                x, y = (m[2 * q][g], m[2 * q + 1][g]) if trans else (m[g][2 * q], m[g][2 * q + 1])
                R[slot] = x | (y << 16)

    def _stmatrix_compute(self, w, lanes):
        """stmatrix.m8n8.b16, the inverse of ldmatrix: lanes 8i..8i+7 address the rows of
        matrix i (16 bytes each, 16-byte aligned, in shared memory); register i of lane l
        holds the pair at row l/4, columns 2(l%4) (low half) and 2(l%4)+1 of matrix i -- or,
        with .trans, at rows 2(l%4), 2(l%4)+1 of column l/4 (PTX ISA, 'stmatrix'). Each row
        is a generic-proxy store by the lane that gave its address."""
        where = w.instr.where()
        if len(lanes) != 32:
            raise PTXRuntimeError(f"stmatrix in a warp of {len(lanes)} threads ({where})")
        n, trans = w.args["n"], w.args["trans"]
        kind, base, off = w.args["addr"]
        lo, hi = SHARED_BASE, SHARED_BASE + self.launch_shared
        mats = [[[0] * 8 for _ in range(8)] for _ in range(n)]
        for l in range(32):
            g, q = l >> 2, l & 3
            for i, slot in enumerate(w.args["s"]):
                v = lanes[l][slot]
                if v is None:
                    raise PTXRuntimeError(f"stmatrix stores an uninitialized register (lane {l}, {where})")
                r0, c0, r1, c1 = (2 * q, g, 2 * q + 1, g) if trans else (g, 2 * q, g, 2 * q + 1)
                mats[i][r0][c0], mats[i][r1][c1] = v & 0xFFFF, (v >> 16) & 0xFFFF
        ep = self.regs["%%epkey"].slot
        h = self.sviews["H"]
        rows = []
        for i in range(n):
            for r in range(8):
                R = lanes[8 * i + r]
                try:
                    a = (R[base] if kind == "reg" else base) + off
                except TypeError:
                    raise PTXRuntimeError(f"stmatrix address from an uninitialized register ({where})") from None
                if a % 16 or not lo <= a <= hi - 16:
                    raise MemoryFault(f"stmatrix row address {a:#x} (shared offset {a - SHARED_BASE}) is "
                                      f"misaligned or outside the {self.launch_shared} shared bytes ({where})")
                rows.append((a, R[ep], mats[i][r]))
        lid = w.instr.lid
        for a, key, vals in rows:
            t = key & 4095
            if self.uses_mbarrier:
                for j in (0, 8):
                    if a + j in self.ns["MBW"]:
                        self._mb_clobber(lid, a + j)
            if self.tracks_proxy:
                self._bs_generic_store(lid, t, a, 16)
            if self.ns["RC"]:
                self._rc_st(lid, a, 16, key, [h[a // 2 + c] for c in range(8)] == vals)
            for c in range(8):
                h[a // 2 + c] = vals[c]

    def _elect_compute(self, w, lanes, mask):
        """elect.sync d|p: the lowest lane of membermask is the leader; d = its lane id in every
        lane, p = whether the lane is it (bar.warp.sync: nothing to compute)."""
        if w.kind != ELECT:
            return
        leader = (mask & -mask).bit_length() - 1
        d, p = w.args["d"], w.args["p"]
        for lane, R in lanes.items():
            if d is not None:
                R[d] = leader
            if p is not None:
                R[p] = lane == leader

    def _shfl_compute(self, w, lanes):
        """shfl.sync: lane l reads register a of source lane j (bfly: l ^ b, up: l - b,
        down: l + b, idx: b), or its own when j is outside its segment (c = segmask << 8 |
        clamp; PTX ISA, 'shfl.sync'). Every lane of the warp must be in membermask."""
        n = len(lanes)
        if w.args["mask"] & ((1 << n) - 1) != (1 << n) - 1:
            raise PTXRuntimeError(f"shfl.sync membermask {w.args['mask']:#x} does not name the warp's {n} "
                                  f"lanes ({w.instr.where()})")
        mode, d, a = w.args["mode"], w.args["d"], w.args["a"]
        bk, bv = w.args["b"]
        c = w.args["c"]
        seg, clamp = (c >> 8) & 31, c & 31
        try:
            vals = {l: (_f2u(R[a.slot]) if a.kind == "f" else R[a.slot] & 0xFFFFFFFF) for l, R in lanes.items()}
        except TypeError:
            raise PTXRuntimeError(f"shfl.sync reads an uninitialized register ({w.instr.where()})") from None
        out = {}
        for l, R in lanes.items():
            b = (R[bv] if bk == "reg" else bv) & 31
            lo, hi = l & seg, (l & seg) | (clamp & ~seg & 31)
            j = {"bfly": l ^ b, "up": l - b, "down": l + b, "idx": (b & ~seg) | lo}[mode]
            ok = j >= lo if mode == "up" else j <= hi
            if not ok:
                j = l
            if j not in vals:
                raise PTXRuntimeError(f"shfl.sync lane {l} reads lane {j}, which is not in the warp "
                                      f"({w.instr.where()})")
            out[l] = vals[j]
        for l, R in lanes.items():
            R[d.slot] = _u2f(out[l]) if d.kind == "f" else out[l]

    def _mma_compute(self, w, lanes):
        """D = A B + C of mma.sync.m16n8k16.row.col.f32.{f16,bf16} and m16n8k8 tf32: products
        exact, summed in f64, rounded once to f32 (PTX ISA 'Matrix Fragments for mma.m16n8k16
        with floating point type', '... for mma.m16n8k8')."""
        if "scaled" in w.args:             # mma.sync ... .block_scale: mma_scaled.py
            from .mma_scaled import compute
            return compute(w, lanes)
        if len(lanes) != 32:
            raise PTXRuntimeError(f"mma.sync in a warp of {len(lanes)} threads ({w.instr.where()})")
        a_s, b_s, c_r, d_r = w.args["a"], w.args["b"], w.args["c"], w.args["d"]
        try:
            abits = np.array([[lanes[l][s] for s in a_s] for l in range(32)], dtype=np.uint32)
            bbits = np.array([[lanes[l][s] for s in b_s] for l in range(32)], dtype=np.uint32)
            cvals = np.array([[lanes[l][r.slot] if r.kind == "f" else _u2f(lanes[l][r.slot]) for r in c_r]
                              for l in range(32)], dtype=np.float64)
        except TypeError:
            raise PTXRuntimeError(f"mma.sync reads an uninitialized register ({w.instr.where()})") from None
        if w.args["atype"] in ("s8", "u8"):
            self._mma_int8(w, lanes, abits, bbits)
            return
        if w.args["atype"] in ("e4m3", "e5m2"):
            self._mma_fp8(w, lanes, abits, bbits, cvals)
            return
        C = np.zeros((16, 8))
        if w.args["atype"] == "tf32":
            # m16n8k8: the words are f32 patterns of which the tensor cores read the tf32 part
            # (the low 13 mantissa bits ignored)
            A, B = np.zeros((16, 8)), np.zeros((8, 8))
            A[_TF32_A_ROW, _TF32_A_COL] = (abits & 0xFFFFE000).view(np.float32).astype(np.float64)
            B[_TF32_B_ROW, _TF32_B_COL] = (bbits & 0xFFFFE000).view(np.float32).astype(np.float64)
        else:
            ft = np.float16 if w.args["atype"] == "f16" else ml_dtypes.bfloat16
            ah = np.stack([abits & 0xFFFF, abits >> 16], axis=2).reshape(32, 8).astype(np.uint16)
            bh = np.stack([bbits & 0xFFFF, bbits >> 16], axis=2).reshape(32, 4).astype(np.uint16)
            A = np.zeros((16, 16))
            B = np.zeros((16, 8))
            A[_MMA_A_ROW, _MMA_A_COL] = ah.view(ft).astype(np.float64)
            B[_MMA_B_ROW, _MMA_B_COL] = bh.view(ft).astype(np.float64)
        C[_MMA_C_ROW, _MMA_C_COL] = cvals
        with np.errstate(all="ignore"):
            D = (A @ B + C).astype(np.float32)
        dv = D[_MMA_C_ROW, _MMA_C_COL].astype(np.float64).tolist()
        for l in range(32):
            R = lanes[l]
            for i, r in enumerate(d_r):
                R[r.slot] = dv[l][i] if r.kind == "f" else _f2u(dv[l][i])

    def _mma_fp8(self, w, lanes, abits, bbits, cvals):
        """D = A B + C of mma.sync.m16n8k32.row.col.f32.{e4m3,e5m2}.{e4m3,e5m2}.f32: the
        8-bit fragments of the integer form, values decoded exactly, products exact, summed
        in f64 and rounded once to f32."""
        types = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}

        def values(bits, kind):
            v = np.stack([(bits >> (8 * i)) & 0xFF for i in range(4)], axis=-1).astype(np.uint8)
            return v.view(types[kind]).astype(np.float64)
        A, B, C = np.zeros((16, 32)), np.zeros((32, 8)), np.zeros((16, 8))
        A[_I8_A_ROW, _I8_A_COL] = values(abits, w.args["atype"])
        B[_I8_B_ROW, _I8_B_COL] = values(bbits, w.args["btype"])
        C[_MMA_C_ROW, _MMA_C_COL] = cvals
        with np.errstate(all="ignore"):
            D = (A @ B + C).astype(np.float32)
        dv = D[_MMA_C_ROW, _MMA_C_COL].astype(np.float64).tolist()
        for l in range(32):
            for i, r in enumerate(w.args["d"]):
                lanes[l][r.slot] = dv[l][i] if r.kind == "f" else _f2u(dv[l][i])

    def _mma_int8(self, w, lanes, abits, bbits):
        """D = A B + C of mma.sync.m16n8k32.row.col.s32.{s8,u8}.{s8,u8}.s32, exact and wrapped
        to 32 bits: a word holds four K-consecutive bytes, the lowest first."""
        def bytes_of(bits, kind):
            v = np.stack([(bits >> (8 * i)) & 0xFF for i in range(4)], axis=-1).astype(np.int64)
            return np.where(v >= 128, v - 256, v) if kind == "s8" else v
        av, bv = bytes_of(abits, w.args["atype"]), bytes_of(bbits, w.args["btype"])    # (32, 4, 4), (32, 2, 4)
        A, B, C = np.zeros((16, 32), np.int64), np.zeros((32, 8), np.int64), np.zeros((16, 8), np.int64)
        A[_I8_A_ROW, _I8_A_COL] = av
        B[_I8_B_ROW, _I8_B_COL] = bv
        C[_MMA_C_ROW, _MMA_C_COL] = np.array([[lanes[l][r.slot] for r in w.args["c"]] for l in range(32)],
                                             dtype=np.int64)
        D = (A @ B + C) & 0xFFFFFFFF
        dv = D[_MMA_C_ROW, _MMA_C_COL].tolist()
        for l in range(32):
            for i, r in enumerate(w.args["d"]):
                lanes[l][r.slot] = dv[l][i]

    def _setmaxnreg(self, cta, w, t):
        """Thread t's registers become w's count: a .dec gives the surplus to the CTA's pool
        (waking its waiters), an .inc waits until the pool holds what it takes, as the
        hardware does. A kernel without .maxnreg has no known start: nothing is counted."""
        start = self.entry.maxnreg
        if start is None:
            return
        have, want, pool = cta.nregs.get(t, start), w.args["n"], cta.regpool
        if (want < have) if w.args["inc"] else (want > have):
            raise PTXRuntimeError(f"{w.instr.where()}: setmaxnreg.{'inc' if w.args['inc'] else 'dec'} to {want} "
                                  f"registers, from {have}")
        if want > have:
            while pool.free < want - have:
                cta.waiting_at[t] = w
                yield pool
            pool.free -= want - have
        else:
            pool.free += have - want
            cta.runnable.extend(pool.waiters)
            pool.waiters = []
        cta.nregs[t] = want

    def _deadlock_report(self, cta, blocked, head=None):
        lines = [(head or f"deadlock in CTA {cta.ctaid}: ") + f"{blocked} of {cta.nthreads} threads blocked, "
                 f"{cta.exited} exited" + ("" if head else ", none can run")]
        if cta.cbw.waiters:
            w = cta.waiting_at.get(cta.cbw.waiters[0])
            cl = cta.cluster
            lines.append(f"  barrier.cluster.wait: {len(cta.cbw.waiters)} threads waiting (tids "
                         f"{_ranges(cta.cbw.waiters)}) in phase {cl.cb_phase}, {cl.alive - cl.cb_pending} of "
                         f"{cl.alive} non-exited threads of the cluster arrived"
                         + (f"; first at PTX line {w.instr.lineno}" if w else ""))
        for (bid), bar in sorted(cta.bars.items()):
            if bar.waiters:
                w = cta.waiting_at.get(bar.waiters[0])
                lines.append(f"  bar.sync {bid}: {len(bar.waiters)} threads waiting (tids "
                             f"{_ranges(bar.waiters)}), {bar.arrived} of {bar.expected} arrived"
                             + (f"; first at PTX line {w.instr.lineno}" if w else ""))
        if cta.regpool.waiters:
            w = cta.waiting_at.get(cta.regpool.waiters[0])
            lines.append(f"  setmaxnreg.inc: {len(cta.regpool.waiters)} threads waiting (tids "
                         f"{_ranges(cta.regpool.waiters)}) for registers, {cta.regpool.free} in the CTA's pool"
                         + (f"; first at PTX line {w.instr.lineno}" if w else ""))
        for addr, mb in sorted(cta.mbars.items()):
            if mb.waiters:
                w = cta.waiting_at.get(mb.waiters[0])
                tx = (f", {mb.tx} transaction bytes expected, {mb.bulk_bytes} in flight"
                      if mb.tx or mb.bulk_bytes else "")
                lines.append(f"  mbarrier at shared offset {addr - SHARED_BASE}: {len(mb.waiters)} threads "
                             f"waiting (tids {_ranges(mb.waiters)}); phase {mb.phase}, "
                             f"{mb.count - mb.pending} of {mb.count} arrivals{tx}"
                             + (f"; first at PTX line {w.instr.lineno}" if w else ""))
        for key, coll in cta.colls.items():
            if key[0] == "wg":
                lines.append(f"  warpgroup {key[1]} collective (wgmma) at PTX line {self.instrs[key[2]].lineno}: "
                             f"{len(coll.lanes)} of {coll.expected} threads arrived")
            elif key[0] == "wsync":
                lines.append(f"  bar.warp.sync of warp {key[1]} (membermask {key[2]:#x}): {len(coll.lanes)} of "
                             f"{coll.expected} lanes arrived")
            else:
                lines.append(f"  warp {key[0]} collective at PTX line {self.instrs[key[1]].lineno}: "
                             f"{len(coll.lanes)} of {coll.expected} lanes arrived")
        return "\n".join(lines)

    def _cluster_deadlock_report(self, cl):
        ctas = cl.ctas
        lines = [f"deadlock in the cluster of CTAs {', '.join(f'{c.ctaid} (rank {c.rank})' for c in ctas)}: "
                 f"none of their threads can run"]
        if any(c.cbw.waiters for c in ctas):
            missing = []
            for c in ctas:
                tids = [t for t, ph in enumerate(c.cb_arrived) if ph not in (cl.cb_phase, CB_EXITED)]
                if tids:
                    missing.append(f"CTA {c.ctaid} (rank {c.rank}) tids {_ranges(tids)}")
            lines.append(f"  barrier.cluster phase {cl.cb_phase}: {cl.alive - cl.cb_pending} of {cl.alive} non-exited "
                         f"threads of the cluster arrived; not arrived: {'; '.join(missing)}")
        for c in ctas:
            if c.done:
                lines.append(f"  CTA {c.ctaid} (rank {c.rank}): all {c.nthreads} threads exited")
                continue
            sub = self._deadlock_report(c, c.nthreads - c.exited, f"CTA {c.ctaid} (rank {c.rank}): ")
            lines += ["  " + x for x in sub.splitlines()]
        return "\n".join(lines)

    def _thread(self, R, t, cta, max_steps):
        fns, waits = self.block_fns, self.waits
        hb = cta.hb
        b = 0
        steps = max_steps
        try:
            while True:
                b = fns[b](R)
                steps -= 1
                if b < 0:
                    if b == -1:
                        if self.uses_bulk_store:
                            self._bs_exit(t)
                        if self.uses_cbar:
                            self._cb_exit(cta, t)
                        return
                    w = waits[-2 - b]
                    b = w.next
                    if w.guard is not None and bool(R[w.guard[0].slot]) != w.guard[1]:
                        continue
                    if w.kind == MBWAIT:
                        kind, base, off = w.args["addr"]
                        addr = (R[base] if kind == "reg" else base) + off
                        mb = cta.mbars.get(addr)
                        if mb is None:
                            raise PTXRuntimeError(f"mbarrier wait on {addr:#x} (shared offset "
                                                  f"{addr - SHARED_BASE}), which no mbarrier.init initialized")
                        if mb.inflight:
                            self._mb_land_inflight(mb)
                        pk, pv = w.args["phase"]
                        ph = R[pv] if pk == "reg" else pv
                        if w.args["parity"]:
                            ph &= 1
                            while (mb.phase & 1) == ph:        # the phase with parity ph has not completed
                                cta.waiting_at[t] = w
                                yield mb
                        else:
                            while mb.phase == ph:              # the token's phase has not completed
                                cta.waiting_at[t] = w
                                yield mb
                        if hb is not None:
                            self._hb_acquire(t, mb.hb_done)
                        R[w.args["dst"]] = True
                    elif w.kind in WG_KINDS:
                        wg = t >> 7
                        if (wg + 1) * 128 > cta.nthreads:
                            raise PTXRuntimeError(f"{w.instr.where()}: thread {t} is in no complete warpgroup "
                                                  f"(the CTA has {cta.nthreads} threads)")
                        yield from _join(cta, w, t, ("wg", wg, w.instr.lid), 128, t & 127, R,
                                         lambda lanes, w=w, wg=wg: self._wgmma_collective(w, lanes, wg))
                    elif w.kind in (MMA, LDMATRIX, STMATRIX, SHFL, TMCP):
                        compute = {MMA: self._mma_compute, LDMATRIX: self._ldmatrix_compute,
                                   STMATRIX: self._stmatrix_compute, SHFL: self._shfl_compute,
                                   TMCP: self._tm_cp_compute}[w.kind]
                        yield from _join(cta, w, t, (t >> 5, w.instr.lid), min(32, cta.nthreads - (t & ~31)),
                                         t & 31, R, lambda lanes, w=w, compute=compute: compute(w, lanes))
                    elif w.kind in TC_KINDS:
                        yield from _join(cta, w, t, (t >> 5, w.instr.lid), min(32, cta.nthreads - (t & ~31)),
                                         t & 31, R, lambda lanes, w=w, warp=t >> 5: self._tc_collective(w, lanes, warp))
                    elif w.kind == SETMAXNREG:
                        yield from self._setmaxnreg(cta, w, t)
                    elif w.kind in CB_KINDS:
                        yield from self._barrier_cluster(cta, w, t)
                    elif w.kind in (WSYNC, ELECT):
                        mk, mv = w.args["mask"]
                        mask = (R[mv] if mk == "reg" else mv) & 0xFFFFFFFF
                        lane, present = t & 31, min(32, cta.nthreads - (t & ~31))
                        if not mask >> lane & 1:
                            raise PTXRuntimeError(f"{w.instr.where()}: membermask {mask:#x} leaves out the "
                                                  f"executing lane {lane}")
                        mask &= (1 << present) - 1      # as shfl.sync: lanes past a partial warp's end
                        key = ("wsync", t >> 5, mask) if w.kind == WSYNC else (t >> 5, w.instr.lid, mask)
                        def compute(lanes, w=w, mask=mask, base=t & ~31,
                                    join=hb is not None and w.kind == WSYNC):   # bar.warp.sync orders its lanes
                            if join:
                                self._hb_join_lanes([base + x for x in lanes])
                            self._elect_compute(w, lanes, mask)
                        yield from _join(cta, w, t, key, bin(mask).count("1"), lane, R, compute)
                    else:
                        ik, iv = w.args["id"]
                        bid = R[iv] if ik == "reg" else iv
                        if w.args["count"] is None:
                            count = cta.nthreads
                        else:
                            ck, cv = w.args["count"]
                            count = R[cv] if ck == "reg" else cv
                        bar = cta.bars.get(bid)
                        if bar is None:
                            bar = cta.bars[bid] = Barrier(bid)
                        if bar.arrived == 0:
                            bar.expected = count
                            bar.kind = w.kind if w.kind != BAR_ARRIVE else bar.kind
                            bar.acc = bar.hb_acc = None
                        elif bar.expected != count:
                            raise PTXRuntimeError(f"bar {bid}: thread count {count}, other threads of this "
                                                  f"barrier phase use {bar.expected} ({w.instr.where()})")
                        if w.kind == BAR_RED:
                            v = bool(R[w.args["src"]])
                            if bar.acc is None:
                                bar.acc = v
                            elif w.args["op"] == "and":
                                bar.acc = bar.acc and v
                            else:
                                bar.acc = bar.acc or v
                        gen = bar.gen
                        bar.arrived += 1
                        if hb is not None:
                            self._hb_bar_arrive(bar, t)
                        if bar.arrived >= bar.expected:
                            bar.results[gen] = bar.acc
                            bar.results.pop(gen - 2, None)
                            bar.hb_done[gen] = bar.hb_acc
                            bar.hb_done.pop(gen - 2, None)
                            bar.arrived = 0
                            bar.gen += 1
                            if bar.waiters:
                                cta.runnable.extend(bar.waiters)
                                bar.waiters = []
                        elif w.kind != BAR_ARRIVE:
                            cta.waiting_at[t] = w
                            while bar.gen == gen:
                                yield bar
                        if hb is not None and w.kind != BAR_ARRIVE:
                            self._hb_acquire(t, bar.hb_done[gen])
                        if w.kind == BAR_RED:
                            R[w.args["dst"]] = bool(bar.results[gen])
                if steps < 0:
                    raise PTXRuntimeError(f"thread {t} of CTA {cta.ctaid} ran {max_steps} basic blocks "
                                          f"(an endless loop?)")
        except PTXSimError as e:
            if "thread " in str(e) and "CTA" in str(e):
                raise
            raise type(e)(f"{e} (thread {t} of CTA {cta.ctaid})") from None
        except Exception as e:      # an error inside generated code: name the PTX line
            line = self._ptx_line_of(e.__traceback__)
            note = self._tc_note(cta, t) if self.uses_tcgen05 else ""
            raise PTXRuntimeError(f"{type(e).__name__}: {e} at {line} (thread {t} of CTA {cta.ctaid}); "
                                  f"an uninitialized register reads as None{note}") from e

    def _ptx_line_of(self, tb):
        found = None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.filename:
                found = tb.tb_lineno
            tb = tb.tb_next
        if found is None:
            return "?"
        pl = self.line_map.get(found)
        if pl is None:
            return f"generated line {found}"
        text = next((i.text for i in self.instrs if i.lineno == pl), "")
        return f"PTX line {pl}: {text.strip()}"


_PRINTF_SPEC = re.compile(r"%(?P<flags>[-+ #0]*)(?P<width>\*|\d+)?(?:\.(?P<prec>\*|\d*))?"
                          r"(?P<len>hh|h|ll|l|j|z|t|L|q)?(?P<conv>[diuxXofFeEgGaAcsp%])")


def _signed(v, bits):
    return v - (1 << bits) if v >> (bits - 1) & 1 else v


class LocalMem:
    """One thread's .local memory."""

    def __init__(self, tid, size):
        self.tid, self.size = tid, size
        self.buf = bytearray((size + 7) // 8 * 8)
        self.views = _views(self.buf)


def _cvta_local(loc, a):
    return (LOCAL_GENERIC_BASE + loc.tid * LOCAL_STRIDE + (a - LOCAL_BASE)) & 0xFFFFFFFFFFFFFFFF


def _cvta_to_local(loc, a):
    return (a - LOCAL_GENERIC_BASE - loc.tid * LOCAL_STRIDE + LOCAL_BASE) & 0xFFFFFFFFFFFFFFFF


class Collective:
    """A warp-collective instruction (mma.sync) waiting for its lanes."""

    def __init__(self, expected):
        self.expected, self.lanes, self.done = expected, {}, False
        self.waiters = []


def _join(cta, w, t, key, expected, lane, regs, compute):
    """Thread `t` arrives at the collective `key` with its registers; the last of
    `expected` lanes runs `compute(lanes)` and wakes the others (a generator:
    the waiting threads yield until it is done)."""
    coll = cta.colls.get(key)
    if coll is None:
        coll = cta.colls[key] = Collective(expected)
    coll.lanes[lane] = regs
    if len(coll.lanes) == coll.expected:
        del cta.colls[key]
        compute(coll.lanes)
        coll.done = True
        if coll.waiters:
            cta.runnable.extend(coll.waiters)
            coll.waiters = []
    else:
        cta.waiting_at[t] = w
        while not coll.done:
            yield coll


def _mma_index():
    lane = np.arange(32)[:, None]
    g, tig = lane >> 2, lane % 4
    i8, i4 = np.arange(8)[None, :], np.arange(4)[None, :]
    a_row = g + 8 * (((i8 >> 1) & 1))                      # a0,a1,a4,a5: g; a2,a3,a6,a7: g + 8
    a_col = tig * 2 + (i8 & 1) + 8 * (i8 >= 4)
    b_row = tig * 2 + (i4 & 1) + 8 * (i4 >= 2)
    b_col = np.broadcast_to(g, (32, 4))
    c_row = g + 8 * (i4 >= 2)
    c_col = tig * 2 + (i4 & 1)
    return a_row, a_col, b_row, b_col, c_row, c_col


_MMA_A_ROW, _MMA_A_COL, _MMA_B_ROW, _MMA_B_COL, _MMA_C_ROW, _MMA_C_COL = _mma_index()


def _tf32_index():
    """m16n8k8 tf32 fragments: a0..a3 at rows g, g + 8, g, g + 8 and columns tig, tig,
    tig + 4, tig + 4; b0, b1 at rows tig, tig + 4 and column g (PTX ISA)."""
    lane = np.arange(32)[:, None]
    g, tig = lane >> 2, lane % 4
    i4, i2 = np.arange(4)[None, :], np.arange(2)[None, :]
    return (g + 8 * (i4 & 1), tig + 4 * (i4 >> 1), tig + 4 * i2, np.broadcast_to(g, (32, 2)))


_TF32_A_ROW, _TF32_A_COL, _TF32_B_ROW, _TF32_B_COL = _tf32_index()


def _i8_index():
    """m16n8k32 8-bit fragments, [lane, register, byte]: a0..a3 at rows g, g + 8, g, g + 8 and
    columns 4 tig + byte (+ 16 for a2, a3); b0, b1 at rows 4 tig + byte (+ 16 for b1), column g."""
    lane = np.arange(32)[:, None, None]
    g, tig = lane >> 2, lane % 4
    r4, r2, byte = np.arange(4)[None, :, None], np.arange(2)[None, :, None], np.arange(4)[None, None, :]
    a_row = np.broadcast_to(g + 8 * (r4 & 1), (32, 4, 4))
    a_col = np.broadcast_to(4 * tig + byte + 16 * (r4 >> 1), (32, 4, 4))
    b_row = np.broadcast_to(4 * tig + byte + 16 * r2, (32, 2, 4))
    b_col = np.broadcast_to(g, (32, 2, 4))
    return a_row, a_col, b_row, b_col


_I8_A_ROW, _I8_A_COL, _I8_B_ROW, _I8_B_COL = _i8_index()


class MBarrier:
    def __init__(self, addr, count):
        self.addr, self.count, self.pending, self.phase = addr, count, count, 0
        self.waiters = []
        self.copies = []     # (shared address, bytes, lid, thread key) of cp.async copies tracked by this phase
        self.tx = 0          # transaction bytes expect_tx announced for this phase
        self.bulk = []       # tma.BulkCopy: cp.async.bulk.tensor copies completing on this phase
        self.bulk_bytes = 0
        self.inflight = []   # (instruction, copies, clock) of cp.async.mbarrier.arrive arrivals not yet landed
        self.hb_acc = self.hb_done = None   # the race check: this phase's arrivals, every completed phase


class Barrier:
    def __init__(self, bid):
        self.bid, self.expected, self.arrived, self.gen = bid, 0, 0, 0
        self.kind, self.acc, self.results = BAR, None, {}
        self.hb_acc, self.hb_done = None, {}     # the race check: this phase's arrivals, by phase
        self.waiters = []


class Cluster:
    """The CTAs of one thread-block cluster (by rank) and its barrier.cluster state."""

    def __init__(self, ctas, nthreads):
        self.ctas = ctas
        self.alive = len(ctas) * nthreads   # threads not exited
        self.cb_phase = 0
        self.cb_pending = self.alive        # non-exited threads not arrived in the current phase
        self.hb_acc = None                  # the race check: what the phase's arrivals release
        self.hb_done = {}                   # phase -> what its wait acquires
        for cta in ctas:
            cta.cluster = self


class Waiters:
    def __init__(self):
        self.waiters = []


class CTA:
    def __init__(self, ctaid, nthreads):
        self.ctaid, self.nthreads = ctaid, nthreads
        self.rank, self.cluster = 0, None   # its rank (%cluster_ctarank) in its Cluster
        self.sviews = self.nsd = None   # shared memory views; what Kernel._enter installs
        self.hb = None           # hb.HbState: the race check's clocks and shadow memory (check_races)
        self.done = False        # every thread exited: the cluster can no longer reach its shared memory
        self.cb_arrived = None   # barrier.cluster: per thread, the phase of its outstanding arrive (-1: none)
        self.cb_count = None     # per thread, the .aligned barrier.cluster instructions it executed
        self.cb_seq = {}         # warp -> the .aligned barrier.cluster instructions (lids) its lanes executed
        self.cbw = Waiters()     # its threads blocked in barrier.cluster.wait
        self.mb_unpublished = {}  # mbarrier address -> lid of an mbarrier.init no cluster-scope release followed
        self.runnable = deque()
        self.bars, self.mbars = {}, {}
        self.exited = 0
        self.waiting_at = {}
        self.colls = {}
        self.locals = [None] * nthreads
        self.cp_pending = {}     # thread -> its cp.async copies no mbarrier arrive has taken yet
        self.cp_groups = {}      # thread -> its committed cp.async-groups (lists of copies) no wait has landed
        self.wgs = {}            # warpgroup -> wgmma.Warpgroup (operations in flight, fences)
        self.tm_acq = {}         # tensor-map address -> the write of it this CTA acquired (fence.proxy.tensormap)
        self.bulk_inflight = []  # tma.BulkCopy in flight, by issue
        self.bs_threads = {}     # thread -> tma.BulkGroups: its TMA stores by bulk async-group
        self.bs_unread = []      # tma.BulkStore whose shared-memory read no wait_group[.read] confirmed yet
        self.wg_reads = None     # copy_timing="eager": per shared byte, the wgmma.mma_async in flight reading it
        self.regpool = RegPool()  # registers setmaxnreg.dec gave back and no .inc has taken
        self.nregs = {}          # thread -> its registers after its latest setmaxnreg
        self.tc = None           # tcgen05.TcState: Tensor Memory and tcgen05 operations (made on first use)


class RegPool:
    def __init__(self):
        self.free, self.waiters = 0, []


class SimResult:
    """`globals`: the final bytes (uint8 arrays) of every module `.global`, by PTX name;
    `printed`: what the kernel's vprintf calls printed."""

    def __init__(self, globals_, stats, printed=""):
        self.globals, self.stats, self.printed = globals_, stats, printed

    def global_as(self, name, dtype):
        return self.globals[name].view(dtype)


def _ranges(ids):
    ids = sorted(ids)
    out, start, prev = [], ids[0], ids[0]
    for i in ids[1:] + [None]:
        if i is not None and i == prev + 1:
            prev = i
            continue
        out.append(f"{start}" if start == prev else f"{start}-{prev}")
        if i is not None:
            start = prev = i
    return ", ".join(out)


def _dims(d, what="grid"):
    if d is None:
        raise PTXSimError(f"no {what} size (the kernel states no .reqntid)")
    if isinstance(d, (int, np.integer)):
        d = (int(d),)
    d = tuple(int(x) for x in d)
    if not 1 <= len(d) <= 3 or any(x < 1 for x in d):
        raise PTXSimError(f"invalid {what} {d}")
    return d + (1,) * (3 - len(d))


def _views(buf):
    mv = memoryview(buf)
    n = len(buf)
    out = {}
    for fmt in ("B", "b", "H", "h", "I", "i", "Q", "q", "f", "d"):
        size = struct.calcsize(fmt)
        out[fmt] = mv[:n // size * size].cast(fmt)
    return out


def _validity(total, ranges):
    """{size: bytearray}: 1 at every offset where a naturally aligned access of
    `size` bytes lies inside one of `ranges` ((offset, bytes) pairs)."""
    out = {}
    for size in (1, 2, 4, 8):
        buf = bytearray(total)                 # zeroed; filled in place (multi-MiB .global arrays stay cheap)
        v = np.frombuffer(buf, np.uint8)
        for off, n in ranges:
            first = (off + size - 1) // size * size
            last = off + n - size
            if last >= first:
                v[first:last + 1:size] = 1
        del v
        out[size] = buf
    return out


def _param_fmt(t):
    return "<" + {1: "B", 2: "H", 4: "I", 8: "Q"}[t.bytes]


def _param_value(pname, t, a, placements):
    """The raw bits of argument `a` for parameter type t."""
    if isinstance(a, tuple) and len(a) == 2 and isinstance(a[0], np.ndarray):
        arr, off = a
        if t.bytes != 8:
            raise PTXSimError(f"parameter {pname} (.{t.name}) is no pointer")
        return GLOBAL_BASE + placements[id(arr)][0] + int(off) * arr.dtype.itemsize
    if isinstance(a, np.ndarray) and a.ndim > 0:
        if t.bytes != 8:
            raise PTXSimError(f"parameter {pname} (.{t.name}) is no pointer")
        return GLOBAL_BASE + placements[id(a)][0]
    if isinstance(a, np.ndarray):
        a = a[()]
    if isinstance(a, np.generic) and not isinstance(a, (np.bool_,)):
        if a.dtype.itemsize != t.bytes:
            if a.dtype.kind in "iu":
                return int(a) & t.mask
            if a.dtype.kind == "f" and t.kind in ("f", "d"):
                a = float(a)
            else:
                raise PTXSimError(f"parameter {pname} (.{t.name}) given a {a.dtype} scalar")
        else:
            return int(np.array(a).view(f"u{t.bytes}")[()])
    if isinstance(a, (bool, np.bool_)):
        return int(bool(a))
    if isinstance(a, int):
        return a & t.mask
    if isinstance(a, float):
        if t.kind == "f":
            return _f2u(a)
        if t.kind == "d":
            return _d2u(a)
        raise PTXSimError(f"parameter {pname} is .{t.name}: pass a NumPy scalar of its exact type "
                          f"(e.g. np.float16 or ml_dtypes.bfloat16) for a 16-bit or narrower float")
    raise PTXSimError(f"parameter {pname} (.{t.name}): cannot pass {a!r}")


# ============================================================================ API
