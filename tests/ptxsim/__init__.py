"""A small PTX simulator for the PTX that tilec emits (test-only; no GPU needed).

Modules: base (errors, address map), numerics (exact arithmetic and conversions),
ptx (parsing), codegen (decoding an .entry into Python functions), runtime
(memory, CTAs, threads, barriers), wgmma (sm_90a warpgroup MMA), tma (sm_90a
tensor maps and cp.async.bulk.tensor), tcgen05 (sm_100a tensor cores and Tensor Memory).

    run_ptx(ptx_text, kernel_name, grid, args, block=None) -> SimResult

`args` follow tilec's interpreter conventions: a NumPy array for a pointer
parameter (modified in place), an (array, element offset) pair, or a number /
NumPy scalar for a scalar parameter (16-bit float parameters need a NumPy
scalar, e.g. np.float16 or ml_dtypes.bfloat16, since `.b16` does not say which).
`block` defaults to the kernel's `.reqntid`.

Model
-----
* Memory is a flat byte space: global memory (the arrays of the arguments and
  the module's `.global` variables, each at its own address from GLOBAL_BASE,
  with unmapped guard gaps between them) and per-CTA shared memory (addresses
  from SHARED_BASE, so they fit 32-bit registers). `mov.u32 %r, sym` gives a
  symbol's address. Every access is checked: in bounds of one allocation and
  naturally aligned, or MemoryFault names the PTX line. Shared memory starts
  each CTA filled with 0xFF bytes (NaN as any float), so reading shared memory
  nobody wrote shows up. Module `.global` variables start zeroed (or as their
  initializers say) once per launch and keep their contents from CTA to CTA,
  so multi-MiB pools cost one allocation.
* Clusters run one after another (x fastest, then y, then z); a kernel without
  .reqnctapercluster has clusters of one CTA. The CTAs of a cluster run
  together: the threads of one CTA run until none of them can, then the next
  CTA's (rank order, or the reverse in odd clusters with the default
  `thread_order`, in all with "reverse"), round again while any was woken.
  Inside a CTA every thread is a generator: it runs until it blocks (bar.sync
  not yet reached by all participants, an mbarrier wait not yet satisfied, a
  warp-collective mma.sync its warp's other lanes have not reached), then the
  next runnable thread runs. Threads start in tid order in even CTAs and in
  reverse order in odd ones (`thread_order`), so a missing barrier between a
  shared store and another thread's load reads stale data whichever thread is
  ahead. No runnable thread in the cluster while some are blocked raises
  Deadlock, naming who waits on what in each CTA.
* Thread-block clusters (.reqnctapercluster X, Y, Z; with .blocksareclusters the
  launch grid counts clusters, without it CTAs, a whole number of clusters in
  each dimension). CTA (x, y, z) has rank (x%X) + X*((y%Y) + Y*(z%Z)); the
  %cluster_* / %clusterid / %nclusterid / %is_explicit_cluster registers say so.
  shared::cluster addresses: a CTA's own shared::cta addresses (from
  SHARED_BASE) are also shared::cluster addresses of its own memory; mapa gives
  SHARED_CLUSTER_BASE + rank * SHARED_CLUSTER_STRIDE + offset (any rank, its
  own included; mapa.u64 gives the same numbers as generic addresses).
  ld/st.shared::cluster, mbarrier.arrive{.expect_tx} / expect_tx on
  .shared::cluster and cp.async.bulk.tensor (its destination and mbarrier in one
  CTA, maybe another) reach the CTA an address names; .multicast::cluster
  writes the box into every CTA of ctaMask at dst's offset and completes its
  bytes on the mbarrier at mbar's offset there (each CTA's copy lands late or
  eagerly, as any TMA load). Misuse raises: an address outside the cluster or
  the CTA's shared bytes, a CTA reached after all its threads exited (a CTA
  must not leave while its peers may still reach it), a CTA exiting with copies
  in flight into it, and another CTA's mbarrier used while its mbarrier.init
  has had no release at cluster scope after it in its CTA (fence.mbarrier_init
  .release.cluster, barrier.cluster.arrive without .relaxed, fence.acq_rel
  .cluster, ...). barrier.cluster.arrive counts each thread once per phase and
  .wait waits for every non-exited thread of the cluster (an arrive twice, or a
  wait without one, is an error); .aligned is not checked. A peer's
  st.shared::cluster is not tracked for fence.proxy.async (it counts as
  visible to the async proxy). %smid differs among the CTAs of a cluster.
* Registers hold raw bit patterns per register class: .b16/.b32/.b64 (and the
  integer types) as unsigned Python ints, .pred as bool, .f32/.f64 as Python
  floats whose values are exactly representable in the class (an f32 register
  holds an f32 value); instructions reinterpret as their type says (mov.b32 of an
  .f32 register gives its bits, f16/bf16/fp8 values live as bits in .b16
  registers).
* Arithmetic is IEEE exact: f32 add/sub/mul/div/sqrt computed in double and
  rounded once to f32 (innocuous double rounding, 53 >= 2*24+2), fma with a
  correction for the one double-rounding case; conversions round as their
  modifiers say (exact rational rounding for the rare modes). Approximate
  instructions (ex2/lg2/rsqrt/sin/cos/tanh .approx, div.approx/full) are computed
  exactly and rounded to f32 (NaN results are not canonicalized, and .approx
  error is not modelled).
* check_races=True: two accesses to the same shared byte, at least one a
  write (of a different value, between two writes), that nothing orders raise
  DataRace naming both PTX lines (hb.py: happens-before by vector clocks
  through bar.sync/arrive/red, bar.warp.sync, mbarriers, cp.async waits, TMA
  copies, wgmma issue/wait, tcgen05.mma commits, and across the CTAs of a
  cluster: distributed shared memory, remote arrivals, multicast copies and
  barrier.cluster).
  Such a race may give the right numbers in this schedule and wrong ones on a
  GPU, and the check does not depend on the schedule the simulator ran.
* Warp-level and calls: mma.sync.m16n8k16.row.col (f32 += f16/bf16) is a
  warp-collective blocking op computed when all 32 lanes arrive (fragment
  layout as the PTX ISA's figures, products exact, summed in f64, rounded once);
  ldmatrix.m8n8.x{1,2,4}[.trans].b16 likewise (row addresses checked for
  16-byte alignment and bounds; its reads are not race-checked); shfl.sync.{bfly,up,
  down,idx}.b32 likewise (every lane of the warp in membermask); wgmma.fence /
  mma_async / commit_group / wait_group (sm_90a; m64nNk16 f32 += f16/bf16, B from
  a shared-memory descriptor, A from one or from four registers; m64nNk32 f32 +=
  e4m3/e5m2, the two types may differ, both operands from K-major descriptors, a
  32-byte K step laid out as the 16-bit k16 one in bytes, fp8 decoded exactly from
  its bit fields) are warpgroup-collective and complete at wait_group (wgmma.py);
  fp8 with A in registers is unsupported (decode time); call.uni to
  vprintf prints (SimResult.printed, and `stdout` if given) and to
  __assertfail raises; .local memory is per thread, cvta.local maps it into
  the generic space.
* mbarriers count pending arrivals and transaction bytes: mbarrier.arrive
  .expect_tx / mbarrier.expect_tx add to the phase's expected bytes; a phase
  completes when every arrival is in and the copies completing on it bring
  exactly those bytes (more is an error). cp.async copies tracked by
  cp.async.mbarrier.arrive.noinc land when their phase completes; TMA copies
  (cp.async.bulk.tensor ... mbarrier::complete_tx::bytes, tma.py) read global
  memory at issue, and their phase completes -- and their shared-memory writes
  land -- only when no thread of the CTA can run otherwise (or another
  operation on that mbarrier comes first): the latest a GPU may complete them,
  so a read that does not wait on the mbarrier sees the 0xFF fill. A CTA that
  ends with a TMA copy in flight is an error.
* copy_timing="eager" (default "late", as above) lands every cp.async and
  cp.async.bulk.tensor in shared memory when it is issued, the earliest a GPU
  may; the mbarrier accounting (arrivals, transaction bytes, when a phase
  completes) is unchanged. Threads an mbarrier phase releases run next, ahead
  of those already queued (the releasing thread runs on until it blocks), so a
  producer that a consumer's release frees refills the slot as early as the
  schedule allows, while the consumer warpgroup waits at its wgmma collectives. A
  copy landing on shared bytes that a wgmma.mma_async in flight (issued, not
  yet retired by a wait_group) reads is reported, naming both PTX lines. This
  catches a slot released too early (its release not deferred past the
  wait_group that retires the wgmma reading it), which late landing hides; late
  landing catches a read that does not wait, which eager landing may hide.
* Tensor maps are built on the device: tensormap.replace.tile.<field> writes
  one field of a 128-byte map in shared or global memory (the simulator's own
  encoding, in which a zero-filled map has every field unset),
  tensormap.cp_fenceproxy (warp-collective) copies it to global memory, and
  fence.proxy.tensormap::generic.acquire makes the CTA see its latest write. A
  TMA checks its map (written and acquired, every field it uses set and valid,
  alignments, bounds, no overlap with another copy in flight) and names the
  PTX line and the field. TMA stores (cp.async.bulk.tensor.Nd.global.shared::cta
  .bulk_group, clipped at the tensor's edges) complete through the thread's
  bulk async-groups (cp.async.bulk.commit_group, wait_group[.read]): they read
  shared memory at the retiring wait_group[.read] and write global memory at the
  retiring wait_group (or the CTA's end), or both at issue with
  copy_timing="eager"; writing their source before that, reading bytes not
  fenced for the async proxy (fence.proxy.async), and exiting before waiting
  are reported (tma.py). stmatrix.m8n8.x{1,2,4}[.trans].b16 is warp-collective
  like ldmatrix. %smid is the linear CTA id modulo %nsmid = 4 (CTAs
  that run one after another reuse per-SM slots); bar.warp.sync and elect.sync
  (lowest lane of membermask elected) are warp-collective; setmaxnreg moves
  registers between the thread (from the kernel's .maxnreg) and its CTA's pool:
  an .inc waits until the pool holds what it takes, so a warpgroup that takes
  back its registers before the others have returned theirs deadlocks, as on
  the hardware.
* tcgen05 (sm_100a, .cta_group::1; tcgen05.py): per CTA a Tensor Memory of 128 lanes x 512
  32-bit columns. alloc/dealloc/relinquish_alloc_permit and ld/st.32x32b.xN/wait::{ld,st} are
  warp-collective; alloc takes the lowest size-aligned free columns, fills them with 0xFFFFFFFF
  and writes the address (lane 16 bits, column 16 bits) to shared memory; no room, an alloc
  after relinquish or bigger than the previous one, a dealloc not matching an allocation and a
  CTA ending with TMEM allocated are errors. tcgen05.mma.kind::{f16,tf32,f8f6f4 (e4m3/e5m2),i8}
  and the .block_scale kinds mxf8f6f4 (e4m3/e5m2), mxf4, mxf4nvf4 (scale factors read from
  TMEM, checked duplicated over the lane partitions)
  (one thread; A and B from shared-memory descriptors) decodes its instruction and descriptors
  at issue (bit fields, fixed 0b001 version bits, layouts K-/MN-major in every swizzle mode the
  ISA allows) and is queued; tcgen05.commit...mbarrier::arrive::one fires -- its thread's mmas
  run, then one arrive -- when no thread of the CTA can run otherwise (at issue with
  copy_timing="eager"), so operands overwritten or D read before the mbarrier wait show up.
  D: M = 128 row i in lane i, M = 64 rows in lanes 0-15 (or 16-31) of each 32-lane quarter;
  products exact, summed in f64, rounded once. A warp's ld/st reach its lane quarter only;
  ld destinations read as uninitialized until wait::ld. Reported: an ld of cells a queued mma
  writes, cells an mma wrote read without a later tcgen05.fence::after_thread_sync, cells a
  tcgen05.st wrote consumed without its wait::st (and, across threads, the
  fence::before/after pair), mma/st over an un-waited ld, unfenced generic stores the mma
  reads (fence.proxy.async), a CTA ending with an mma or commit pending.
* Each kernel is decoded once (per PTX text) into basic blocks, each compiled
  to one Python function over the thread's register list; threads share them.
* Anything outside the supported forms fails at decode time with
  "unsupported PTX instruction: ...".
"""
from __future__ import annotations

from .base import (
    GLOBAL_BASE, LOCAL_BASE, MAX_BLOCK_STEPS, SHARED_BASE, DataRace, Deadlock, MemoryFault, PTXRuntimeError,
    PTXSimError, UnsupportedPTX)
from .numerics import round_exact
from .ptx import parse_module
from .runtime import Kernel, SimResult

__all__ = ["run_ptx", "load", "Program", "Kernel", "SimResult", "PTXSimError", "UnsupportedPTX",
           "PTXRuntimeError", "Deadlock", "MemoryFault", "DataRace", "round_exact", "parse_module",
           "GLOBAL_BASE", "SHARED_BASE", "LOCAL_BASE"]


class Program:
    """A parsed PTX module with its kernels decoded on first use."""

    def __init__(self, text):
        self.text = text
        self.module = parse_module(text)
        self.kernels = {}

    def kernel(self, name):
        if name not in self.kernels:
            if name not in self.module.entries:
                raise PTXSimError(f"no .entry {name} (entries: {', '.join(self.module.entries)})")
            self.kernels[name] = Kernel(self.module, self.module.entries[name])
        return self.kernels[name]


_CACHE = {}


def load(ptx_text):
    """The decoded program of `ptx_text` (cached per text)."""
    prog = _CACHE.get(ptx_text)
    if prog is None:
        prog = _CACHE[ptx_text] = Program(ptx_text)
    return prog


def run_ptx(ptx_text, kernel_name, grid, args, block=None, *, shared_bytes=None, max_steps=MAX_BLOCK_STEPS,
            stdout=None, thread_order="alternate", check_races=False, copy_timing="late", globals_init=None,
            clusters=None):
    """Run `.entry kernel_name` of `ptx_text` for `grid` CTAs of `block` threads
    (default: its `.reqntid`). Pointer arguments (NumPy arrays, (array, element
    offset) pairs) are modified in place. `shared_bytes`: dynamic shared memory
    for an `.extern .shared` array (default: tilec's `// tilec.dynamic_shared_bytes`
    note). vprintf output goes to `stdout` (if given) and SimResult.printed.
    `thread_order`: which thread of a CTA runs first ("forward": tid 0, "reverse":
    the last, "alternate": forward in even CTAs, reverse in odd ones; "lagging":
    forward, but warp 0 runs only while no other thread of its CTA can, as if
    its work, a map build say, took long).
    `check_races`: raise DataRace for shared-memory accesses no synchronization
    orders (hb.py; SimResult.stats["race_checked"] says whether the check ran).
    `copy_timing`: "late" (asynchronous copies land as late as possible) or
    "eager" (at issue; see the module docstring).
    `globals_init`: initial bytes of module globals by PTX name (in place of their
    initializers; a shorter one leaves the rest zero), the state an earlier launch
    left (SimResult.globals).
    `clusters`: run only the first that many clusters (CTAs, where the kernel
    has no clusters) in launch order, x fastest: a cut-down launch of a kernel
    whose CTAs do not wait for each other (the interpreter's `blocks`).
    Returns a SimResult with the final contents of the module's globals."""
    return load(ptx_text).kernel(kernel_name).launch(grid, args, block, shared_bytes, max_steps, stdout,
                                                     thread_order, check_races, copy_timing, globals_init,
                                                     clusters)
