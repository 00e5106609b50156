"""The race check (check_races=True): happens-before by vector clocks.

Two accesses to one shared byte, at least one a write, race unless something
orders them. What orders them here is what the PTX memory model gives a CTA's
threads through the operations the simulator runs:

* bar.sync / bar.red (any id and thread count): each arrival releases, and the
  threads leaving a phase acquire every arrival of it; bar.arrive only releases.
* bar.warp.sync: the lanes of its membermask acquire each other.
* mbarrier: an arrival (arrive, arrive.expect_tx, a landed
  cp.async.mbarrier.arrive.noinc) releases into the barrier's current phase; the
  copies completing on the phase release with it; a wait that sees a completed
  phase acquires every completed phase.
* cp.async and TMA loads write shared memory as an agent of their own: after
  everything their issuing thread did before the issue, before the mbarrier
  phase they complete on (or, for cp.async, the issuing thread's wait_all).
  A copy that lands with its phase is the mbarrier's (its component, the
  phase's number): a wait acquires exactly the copies of the phases it saw.
  One landing earlier (copy_timing="eager", cp.async before its arrive) is its
  thread's, numbered by issue, and an arrival carrying it releases them all.
* wgmma.mma_async reads its descriptor operands as an agent of its warpgroup:
  after what any thread of the warpgroup saw at the issue, until the
  wgmma.wait_group that retires it (the warpgroup's threads acquire it there).
* tcgen05.mma reads its shared-memory operands as the CTA's tcgen05 agent:
  after what its issuing thread saw at the issue, when its commit fires (the
  mmas run in CTA issue order); the commit's arrival on its mbarrier releases
  the mmas it completes, and a wait on that phase acquires them. tcgen05.alloc
  writes the Tensor Memory address as its warp's first thread. Tensor Memory
  itself is checked by tcgen05.py (its ld/st/mma ordering rules).
* A TMA store (cp.async.bulk.tensor to global) reads its shared source as an
  agent of its issuing thread: after what the thread saw at the issue, until
  a cp.async.bulk.wait_group{.read} of the thread retires it (the thread
  acquires it there, and a barrier passes that on to the next writer).
* ldmatrix, stmatrix and tensormap.cp_fenceproxy access shared memory per lane
  (ldmatrix, stmatrix) or for the warp (the map copy); tensormap.replace writes
  the fields it sets.
* Clusters: the clocks span every thread of the cluster, so one CTA's accesses
  are checked against another's. ld/st.shared::cluster (and generic accesses
  through mapa's addresses) access the peer's bytes as the running thread; an
  mbarrier.arrive on a peer's barrier releases what the arriving thread did;
  a TMA load, multicast or not, writes each destination CTA as a copy of that
  CTA's mbarrier phase, after what its issuing thread saw at the issue.
  barrier.cluster.arrive releases (not .relaxed), and the wait acquires every
  release of its phase. Scopes are not told apart: an arrival at the default
  .cta scope on a peer's barrier counts as a release to the cluster.

Clocks: per CTA of rank r (of a cluster of ncl CTAs of n threads, N = ncl * n),
one component per thread (rn + t), one per thread's copies (N + rn + t), one
per thread's TMA stores (2N + rn + t), one per warpgroup's wgmma reads (3N +
r * warpgroups + wg), one for the CTA's tcgen05 mmas, and one per mbarrier's
copies (after those, up to MAX_MBARRIERS a CTA). A CTA keeps its threads' rows
of the clocks and the shadow of its own shared memory. Per shared byte the
latest write is one epoch (clock << COMP_BITS | component), the reads since it
one epoch or, while they are concurrent, a dict of them (FastTrack's
read-shared state); wgmma reads keep a clock per warpgroup, tcgen05 reads the
number of the latest mma, TMA stores the epoch of the latest one. A write of
the value already there does not race with another write (duplicate threads
storing one result), only with reads.

Not modelled: shared atomics are not checked.
"""
from __future__ import annotations

import numpy as np

from .base import DataRace, PTXRuntimeError, PTXSimError, SHARED_BASE

MAX_MBARRIERS = 256   # per CTA
COMP_BITS = 16        # an epoch is (clock << COMP_BITS) | component
COMP_MASK = (1 << COMP_BITS) - 1
EMPTY = -1        # no access recorded
SHARED = -2       # concurrent reads: see HbState.shared_reads


class HbState:
    """One CTA's clocks and shadow memory. Clocks are NumPy rows (joins are vector
    operations); the shadow is Python lists and each thread's clock is read through
    a list copy made when it changes (per-byte checks of small accesses are
    scalar work, faster on lists than on NumPy scalars)."""

    def __init__(self, nthreads, shared_total, rank=0, ncl=1, mb_comps=None):
        n = self.n = nthreads
        self.rank, self.ncl = rank, ncl
        self.nwg = (n + 127) // 128
        nall = n * ncl                 # the cluster's threads: clocks span all of its CTAs
        self.tb = rank * n             # thread t's component: tb + t
        self.cb = nall + rank * n      # its copies' (cp.async, eager TMA): cb + t
        self.sb = 2 * nall + rank * n  # its TMA stores' reads: sb + t
        self.wb = 3 * nall + rank * self.nwg       # warpgroup wg's wgmma reads: wb + wg
        self.tc_comp = 3 * nall + ncl * self.nwg + rank   # the tcgen05 mmas' reads (they run in CTA issue order)
        self.mb_base = 3 * nall + ncl * (self.nwg + 1)
        self.width = self.mb_base + MAX_MBARRIERS * ncl
        if self.width > COMP_MASK:
            raise PTXSimError(f"the race check follows at most {COMP_MASK} clock components; a cluster of {ncl} "
                              f"CTAs of {n} threads needs {self.width} (check_races=False runs the kernel)")
        # (rank, mbarrier address) -> its copies' component; one table for the whole cluster
        self.mb_comps = {} if mb_comps is None else mb_comps
        self.vc = np.zeros((n, self.width), np.int64)
        self.vc[np.arange(n), self.tb + np.arange(n)] = 1
        self.rows = [None] * n         # per thread: vc[t] as a list, None once it changed
        self.copies = [0] * n          # per thread: the copies it issued
        self.stores = [0] * n          # per thread: the TMA stores it issued
        self.wg_ops = [0] * self.nwg   # per warpgroup: the wgmma.mma_async it issued
        self.W = [EMPTY] * shared_total
        self.WL = [0] * shared_total
        self.R = [EMPTY] * shared_total
        self.RL = [0] * shared_total
        self.shared_reads = {}         # offset -> {component: (clock, lid)}
        self.G = [[0] * shared_total for _ in range(self.nwg)]     # wgmma reads: the op's clock
        self.GL = [[0] * shared_total for _ in range(self.nwg)]
        self.g_live = [False] * self.nwg                           # any G entry set
        self.tc_ops = 0                # tcgen05.mma run so far
        self.T = [0] * shared_total    # per byte: the number of the latest tcgen05.mma reading it
        self.TL = [0] * shared_total
        self.t_live = False            # any T entry set
        self.S = [0] * shared_total    # per byte: the latest TMA store reading it (epoch)
        self.SL = [0] * shared_total
        self.s_live = False            # any S entry set

    def row(self, t):
        r = self.rows[t]
        if r is None:
            r = self.rows[t] = self.vc[t].tolist()
        return r

    def describe(self, comp):
        """Component `comp` in words (a CTA of the cluster by its rank, when there are several)."""
        n, ncl = self.n, self.ncl
        nall = n * ncl
        if comp < 3 * nall:
            rank, t = divmod(comp % nall, n)
            what = (f"thread {t}", f"a copy thread {t} issued", f"a TMA store thread {t} issued")[comp // nall]
        elif comp < 3 * nall + ncl * self.nwg:
            rank, wg = divmod(comp - 3 * nall, self.nwg)
            what = f"a wgmma.mma_async of warpgroup {wg}"
        elif comp < self.mb_base:
            rank, what = comp - 3 * nall - ncl * self.nwg, "a tcgen05.mma"
        else:
            rank, addr = next(k for k, c in self.mb_comps.items() if c == comp)
            what = f"a copy completing on the mbarrier at shared offset {addr - SHARED_BASE}"
        return what if ncl == 1 else f"{what} (of the CTA of rank {rank})"


class HbRuntime:
    """Mixed into runtime.Kernel: the race check's accesses and synchronization."""

    # ---- synchronization ------------------------------------------------------------------------
    def _hb_release(self, t):
        """Thread t releases: the clock it publishes (a copy), then its own component moves on."""
        h = self.cta.hb
        row = h.vc[t]
        out = row.copy()
        row[h.tb + t] += 1
        h.rows[t] = None
        return out

    def _hb_acquire(self, t, clock):
        if clock is not None:
            h = self.cta.hb
            row = h.vc[t]
            np.maximum(row, clock, out=row)
            h.rows[t] = None

    def _hb_join_lanes(self, threads):
        """Threads that meet (bar.warp.sync): each acquires the others."""
        h = self.cta.hb
        ix = np.asarray(threads)
        h.vc[ix] = h.vc[ix].max(axis=0)
        h.vc[ix, h.tb + ix] += 1
        for t in threads:
            h.rows[t] = None

    def _hb_bar_arrive(self, bar, t):
        clock = self._hb_release(t)
        bar.hb_acc = clock if bar.hb_acc is None else np.maximum(bar.hb_acc, clock)

    def _hb_mb_arrive(self, mb, clock):
        if mb.hb_acc is None:
            mb.hb_acc = clock
        else:
            np.maximum(mb.hb_acc, clock, out=mb.hb_acc)

    def _hb_mb_comp(self, addr):
        """The clock component of the copies completing on the mbarrier at `addr`."""
        h = self.cta.hb
        key = (h.rank, addr)
        comp = h.mb_comps.get(key)
        if comp is None:
            comp = h.mb_comps[key] = h.mb_base + len(h.mb_comps)
            if comp >= h.width:
                raise PTXRuntimeError(f"the race check follows at most {MAX_MBARRIERS} mbarriers per CTA "
                                      f"(check_races=False runs the kernel)")
        return comp

    def _hb_phase_clock(self, mb, clock):
        """`clock` (a copy's at its issue) as the copy of mb's current phase: (clock, component)."""
        comp = self._hb_mb_comp(mb.addr)
        out = clock.copy()
        out[comp] = mb.phase + 1
        return out, comp

    def _hb_mb_complete(self, mb, clocks):
        """mb's phase completed: its arrivals' clocks and its copies' (`clocks`) join what a wait acquires."""
        for c in [mb.hb_acc] + clocks:
            if c is not None:
                mb.hb_done = c.copy() if mb.hb_done is None else np.maximum(mb.hb_done, c)
        if mb.hb_done is not None:
            comp = self._hb_mb_comp(mb.addr)
            mb.hb_done[comp] = max(mb.hb_done[comp], mb.phase + 1)
        mb.hb_acc = None

    def _hb_copy_clock(self, t):
        """The clock of a copy thread t issues now: all it did so far, and the copy's own component."""
        h = self.cta.hb
        h.copies[t] += 1
        clock = h.vc[t].copy()
        clock[h.cb + t] = h.copies[t]
        return clock

    # ---- accesses -------------------------------------------------------------------------------
    def _hb_access(self, offs, clock, comp, lid, write, same=False):
        """An access to shared offsets `offs` (an iterable of ints) by component `comp` whose
        vector clock is `clock` (a list): DataRace when an earlier conflicting access is not
        ordered before it."""
        h = self.cta.hb
        W, WL, R, RL = h.W, h.WL, h.R, h.RL
        k = clock[comp]
        e = (k << COMP_BITS) | comp
        for i in offs:
            w = W[i]
            if w >= 0:
                c = w & COMP_MASK
                if c != comp and clock[c] < (w >> COMP_BITS) and not (write and same):
                    self._hb_race(i, comp, "writes" if write else "reads", lid, c, "wrote", WL[i])
            r = R[i]
            if not write:
                if r == EMPTY or (r >= 0 and ((r & COMP_MASK) == comp or clock[r & COMP_MASK] >= (r >> COMP_BITS))):
                    R[i] = e               # it supersedes the read before (ordered before it)
                    RL[i] = lid
                elif r >= 0:               # concurrent reads: keep them all
                    h.shared_reads[i] = {r & COMP_MASK: (r >> COMP_BITS, RL[i]), comp: (k, lid)}
                    R[i] = SHARED
                else:
                    h.shared_reads[i][comp] = (k, lid)
                continue
            if r >= 0:
                c = r & COMP_MASK
                if c != comp and clock[c] < (r >> COMP_BITS):
                    self._hb_race(i, comp, "writes", lid, c, "read", RL[i])
            elif r == SHARED:
                for c, (ck, clid) in h.shared_reads.pop(i).items():
                    if c != comp and clock[c] < ck:
                        self._hb_race(i, comp, "writes", lid, c, "read", clid)
            for wg in range(h.nwg):
                if h.g_live[wg]:
                    g = h.G[wg][i]
                    if g:
                        if clock[h.wb + wg] < g:
                            self._hb_race(i, comp, "writes", lid, h.wb + wg, "reads", h.GL[wg][i],
                                          " (issued, not yet retired by a wgmma.wait_group the writer is "
                                          "ordered after)")
                        h.G[wg][i] = 0
            if h.t_live:
                g = h.T[i]
                if g:
                    if clock[h.tc_comp] < g:
                        self._hb_race(i, comp, "writes", lid, h.tc_comp, "reads", h.TL[i],
                                      " (issued, its completion not acquired through its commit's mbarrier)")
                    h.T[i] = 0
            if h.s_live:
                s = h.S[i]
                if s:
                    if clock[s & COMP_MASK] < (s >> COMP_BITS):
                        self._hb_race(i, comp, "writes", lid, s & COMP_MASK, "reads", h.SL[i],
                                      " (issued, not yet retired by a cp.async.bulk.wait_group.read of its "
                                      "thread that the writer is ordered after)")
                    h.S[i] = 0
            W[i] = e
            WL[i] = lid
            R[i] = EMPTY

    def _hb_race(self, off, comp, what, lid, other, what2, lid2, note=""):
        h = self.cta.hb
        raise DataRace(f"data race at shared offset {off}: {h.describe(comp)} {what} it ({self._where(lid)}) "
                       f"after {h.describe(other)} {what2} it ({self._where(lid2)}){note} with nothing ordering "
                       f"them (no barrier, mbarrier or wait between them), in CTA {self.cta.ctaid}")

    # the generated code's calls (a thread's ld/st.shared: `ep` holds the thread's id in its low 12 bits)
    def _rc_ld(self, lid, x, size, ep):
        t = ep & 4095
        o = x - SHARED_BASE
        h = self.cta.hb
        self._hb_access(range(o, o + size), h.row(t), h.tb + t, lid, False)

    def _rc_st(self, lid, x, size, ep, same):
        t = ep & 4095
        o = x - SHARED_BASE
        h = self.cta.hb
        self._hb_access(range(o, o + size), h.row(t), h.tb + t, lid, True, same)

    def _hb_cluster_access(self, lid, cta, a, size, what, write, same=False):
        """The running thread accesses `size` bytes at shared::cta address `a` of `cta` (a CTA of its
        cluster, maybe its own, reached through a shared::cluster address)."""
        h, t = self.cta.hb, self.hb_t
        o = a - SHARED_BASE
        args = (range(o, o + size), h.row(t), h.tb + t, lid, write, same)
        if cta is self.cta:
            self._hb_access(*args)
        else:
            self._on_peer(lid, cta, what, self._hb_access, *args)

    def _hb_copy_lands(self, clock, comp, offs, lid):
        """A copy (cp.async, TMA load) writes shared offsets `offs` (a slice or index array)."""
        if isinstance(offs, slice):
            offs = range(offs.start, offs.stop)
        else:
            offs = np.asarray(offs).tolist()
        self._hb_access(offs, clock.tolist(), comp, lid, True)

    def _hb_wgmma_reads(self, threads, wg, reads, lid):
        """wgmma.mma_async of warpgroup `wg` (its `threads`) issued: it reads `reads` (offset arrays)
        after what any thread of the warpgroup saw (every thread issues it, after its own earlier
        accesses); returns the op's clock in the warpgroup's component."""
        h = self.cta.hb
        h.wg_ops[wg] += 1
        k = h.wg_ops[wg]
        comp = h.wb + wg
        clock = h.vc[threads].max(axis=0)
        G, GL = h.G[wg], h.GL[wg]
        for offs in reads:
            for i in self._hb_async_reads(offs, clock, comp, lid):
                G[i] = k
                GL[i] = lid
        h.g_live[wg] = True
        return k

    def _hb_async_reads(self, offs, clock, comp, lid):
        """An asynchronous reader (component `comp`, vector clock `clock`) reads shared offsets
        `offs`: DataRace unless each byte's latest write is ordered before it. Returns the
        offsets as a list of unique ints."""
        W = self.cta.hb.W
        offs = np.unique(offs)
        w = np.asarray([W[i] for i in offs.tolist()], np.int64)
        live = w >= 0
        if live.any():
            wc = np.where(live, w & COMP_MASK, comp)
            bad = live & (clock[wc] < (w >> COMP_BITS))
            if bad.any():
                i = int(offs[bad].min())
                self._hb_race(i, comp, "reads", lid, W[i] & COMP_MASK, "wrote", self.cta.hb.WL[i])
        return offs.tolist()

    def _hb_tc_reads(self, clock, offs, lid):
        """A tcgen05.mma runs (its commit fired): it reads shared offsets `offs` after `clock`, its
        issuing thread's at the issue. Returns the mma's clock, which its commit's arrival
        releases."""
        h = self.cta.hb
        h.tc_ops += 1
        clock = clock.copy()
        clock[h.tc_comp] = h.tc_ops
        T, TL, k = h.T, h.TL, h.tc_ops
        for i in self._hb_async_reads(offs, clock, h.tc_comp, lid):
            T[i] = k
            TL[i] = lid
        h.t_live = True
        return clock

    def _hb_store_reads(self, t, offs, lid):
        """Thread t issues a TMA store that reads shared offsets `offs` (an array) after what t saw
        now, until a cp.async.bulk.wait_group{.read} of t retires it. Returns the store's number."""
        h = self.cta.hb
        h.stores[t] += 1
        k, comp = h.stores[t], h.sb + t
        clock = h.vc[t].copy()
        clock[comp] = k
        S, SL, e = h.S, h.SL, (k << COMP_BITS) | comp
        for i in self._hb_async_reads(offs, clock, comp, lid):
            S[i] = e
            SL[i] = lid
        h.s_live = True
        return k

    def _hb_stores_retired(self, t, k):
        """Thread t's wait_group retired its TMA stores up to number k: t acquires their reads."""
        h = self.cta.hb
        c = h.sb + t
        if h.vc[t, c] < k:
            h.vc[t, c] = k
            h.rows[t] = None

    def _hb_thread_write(self, t, offs, lid):
        """Thread t writes shared offsets `offs` outside generated code (tcgen05.alloc's address)."""
        h = self.cta.hb
        self._hb_access(offs, h.row(t), h.tb + t, lid, True)

    def _hb_wgmma_retired(self, threads, wg, k):
        """wgmma.wait_group retired the warpgroup's ops up to clock k: its threads acquire them."""
        h = self.cta.hb
        comp = h.wb + wg
        col = h.vc[threads, comp]
        h.vc[threads, comp] = np.maximum(col, k)
        for t in threads:
            h.rows[t] = None
