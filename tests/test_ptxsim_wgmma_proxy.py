"""The simulator's fence.proxy.async rule for wgmma.mma_async, per shared byte
(tests/ptxsim/wgmma.py, _wgmma_issue): the async proxy (the wgmma) may read a
shared byte whose latest write was a generic-proxy store (st, st through a
generic address, stmatrix, atom/red, cp.async) only if the storing thread, or
every thread of the issuing warpgroup, has executed fence.proxy.async since.
Generic stores to bytes the wgmma does not read need no fence: a scratch
buffer written and read back through the generic proxy (a layout conversion)
before a wgmma whose operands lie elsewhere.

The kernels are test_ptxsim_wgmma_rega.py's (one warpgroup, A in registers, B
m64n64k16 f16 copied to `smem` with the 128-byte swizzle, K-major, SBO 1024,
then fenced) with PTX inserted between the wgmma.fence and the mma_async, and
a second shared buffer `scratch` the wgmma does not read. B element (n, k) is
at (n % 8) 128 + (n / 8) 1024 + 2 k, bits 4-6 XOR bits 7-9: element (9, 3) at
1158 ^ 16 = 1174 (HIT), while byte 64 of `smem` (row 0, past k = 15) is read by
no operand (MISS).
"""
from __future__ import annotations

import numpy as np
import pytest

from test_ptxsim_wgmma_rega import rega_kernel
from test_wgmma import descriptor, ptxas

try:
    import ptxsim
except ImportError:                    # pragma: no cover
    from tests import ptxsim

HIT, MISS = 1174, 64
LINE = r"PTX line \d+: "


def _ptx(code):
    ptx, lay = rega_kernel(64, 16, "f16", "kmajor", scale_d="1", edit={"after_fence": code})
    decl = f".shared .align 1024 .b8 smem[{lay['size']}];\n"
    assert decl in ptx
    return ptx.replace(decl, decl + ".shared .align 16 .b8 scratch[512];\n"
                       ".shared .align 8 .b8 mbar[8];\n"), lay


def run(code, tmp_path=None, **kw):
    """Run the kernel with `code` before the mma_async; (D, numpy's D). With tmp_path the
    kernel is assembled too (ptxas accepts every kernel here)."""
    ptx, lay = _ptx(code)
    if tmp_path is not None:
        rc, err = ptxas(ptx, tmp_path)
        assert rc == 0, err
    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, 16)).astype(np.float16)
    b = rng.standard_normal((16, 64)).astype(np.float16)
    c = rng.standard_normal((64, 64)).astype(np.float32)
    d = np.zeros((64, 64), np.float32)
    ptxsim.run_ptx(ptx, "k", 1, [a, b, c, d, np.uint64(descriptor(0, 16, 1024, swizzle=1)), np.uint32(1)],
                   **kw)
    return d, (a.astype(np.float64) @ b.astype(np.float64) + c).astype(np.float32)


def by(tid, code):
    """`code` executed by thread `tid` only (%p2)."""
    stmts = [s.strip() for s in code.split(";") if s.strip()]
    return f"  setp.eq.u32 %p2, %r0, {tid};\n" + "\n".join(f"  @%p2 {s};" for s in stmts)


REWRITE = f"ld.shared.b16 %h1, [smem+{HIT}]; st.shared.b16 [smem+{HIT}], %h1"   # the same value again
FENCE = "fence.proxy.async.shared::cta"


# ---- (1) generic stores the wgmma does not read need no fence -----------------------------------

def test_scratch_written_through_the_generic_proxy_needs_no_fence(tmp_path):
    """A layout conversion through `scratch` (st.shared, bar.sync, ld.shared of another
    thread's word), atom/red on it, a store through a generic address, and a store to a byte
    of the operand's own buffer that no operand reads: none fenced, the wgmma is accepted."""
    code = f"""
  mov.u32 %r16, scratch;
  mad.lo.u32 %r17, %r0, 4, %r16;
  st.shared.u32 [%r17], %r0;
  bar.sync 0;
  xor.b32 %r18, %r0, 1;
  mad.lo.u32 %r18, %r18, 4, %r16;
  ld.shared.u32 %r19, [%r18];
  atom.shared.add.u32 %r20, [scratch+4], 1;
  red.shared.add.u32 [scratch+8], %r19;
  cvt.u64.u32 %rd15, %r17;
  cvta.shared.u64 %rd15, %rd15;
  st.u32 [%rd15], %r19;
  bar.sync 0;
{by(3, f"st.shared.u32 [smem+{MISS}], %r0")}"""
    got, want = run(code, tmp_path)
    np.testing.assert_array_equal(got, want)


# ---- (2) a store to a byte the B operand reads, no fence ---------------------------------------

def test_unfenced_store_to_an_operand_byte_is_reported(tmp_path):
    with pytest.raises(ptxsim.PTXRuntimeError,
                       match=rf"wgmma.mma_async reads shared offset {HIT}, which thread 5 stored to \({LINE}"
                             rf"@%p2 st.shared.b16 \[smem\+{HIT}\], %h1\) with no fence.proxy.async since: "
                             r"the async proxy may not see the data \(line \d+: wgmma.mma_async"):
        run(by(5, REWRITE), tmp_path)


# ---- (3) the same store, fenced -------------------------------------------------------------------

@pytest.mark.parametrize("fence", [FENCE, "fence.proxy.async", "fence.proxy.async.shared::cluster"])
def test_fenced_store_to_an_operand_byte_is_accepted(fence):
    got, want = run(by(5, f"{REWRITE}; {fence}"))
    np.testing.assert_array_equal(got, want)


def test_the_warpgroups_fence_after_the_barrier_publishes_the_store():
    """A fence on the reader's side of the barrier that orders the store (every thread of the
    warpgroup, as tilec's consumers fence after their mbarrier wait) is on the causality
    path from the store to the wgmma."""
    got, want = run(by(5, REWRITE) + f"\n  bar.sync 0;\n  {FENCE};")
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("order", ["forward", "reverse"])
def test_a_fence_before_the_barrier_does_not_publish_a_later_store(order):
    """Every thread fences, then thread 5 stores, then the barrier: thread 5's store follows
    its own fence, and some threads' fences ran before the store in either order."""
    with pytest.raises(ptxsim.PTXRuntimeError, match=f"reads shared offset {HIT}, which thread 5"):
        run(f"  {FENCE};\n" + by(5, REWRITE) + "\n  bar.sync 0;", thread_order=order)


def test_a_global_proxy_fence_does_not_order_shared_stores():
    with pytest.raises(ptxsim.PTXRuntimeError, match=f"reads shared offset {HIT}, which thread 5"):
        run(by(5, f"{REWRITE}; fence.proxy.async.global"))


def test_another_threads_fence_does_not_publish_the_store():
    """One other thread's fence is not enough: the storing thread's (as for TMA stores,
    tma.py) or the whole warpgroup's."""
    with pytest.raises(ptxsim.PTXRuntimeError, match=f"reads shared offset {HIT}, which thread 5"):
        run(by(5, REWRITE) + "\n" + by(6, FENCE))


# ---- (4) fenced, then overwritten without a fence ----------------------------------------------

@pytest.mark.parametrize("second", [5, 6])
def test_fenced_store_then_unfenced_overwrite_is_reported(second):
    """The latest store counts: thread 5's fenced store of bytes HIT, HIT + 1, then an unfenced
    one of byte HIT + 1 (thread 5's again, or thread 6's after a barrier): that byte is reported,
    HIT (still fenced) is not."""
    code = by(5, f"{REWRITE}; {FENCE}") + "\n  bar.sync 0;\n" + by(second, f"st.shared.b8 [smem+{HIT + 1}], %r0")
    with pytest.raises(ptxsim.PTXRuntimeError,
                       match=rf"reads shared offset {HIT + 1}, which thread {second} stored to \({LINE}"
                             rf"@%p2 st.shared.b8 \[smem\+{HIT + 1}\]"):
        run(code)


# ---- every generic store kind is tracked ------------------------------------------------------------

STORES = {
    "st.v2": f"mov.b16 %h1, 0; st.shared.v2.u16 [smem+{HIT - 2}], {{%h1, %h1}}",
    "generic-st": f"mov.b16 %h1, 0; mov.u32 %r16, smem; add.u32 %r16, %r16, {HIT}; cvt.u64.u32 %rd15, %r16; "
                  "cvta.shared.u64 %rd15, %rd15; st.u16 [%rd15], %h1",
    "atom": f"atom.shared.exch.b32 %r16, [smem+{HIT - 2}], 0",
    "red": f"red.shared.add.u32 [smem+{HIT + 2}], 0",     # offsets HIT+2.. (B element (9, 4))
}


@pytest.mark.parametrize("kind", list(STORES))
def test_every_generic_store_kind_needs_the_fence(kind, tmp_path):
    off = HIT + 2 if kind == "red" else (HIT - 2 if kind in ("st.v2", "atom") else HIT)
    with pytest.raises(ptxsim.PTXRuntimeError, match=f"reads shared offset {off}, which thread 5"):
        run(by(5, STORES[kind]), tmp_path)
    run(by(5, f"{STORES[kind]}; {FENCE}"))


def test_stmatrix_needs_the_fence():
    """stmatrix (warp 0, x1): lane r gives row r's address, rows of 16 bytes from smem + 1152:
    rows 0 and 1 are B's row 9 (1152..1183, HIT among them); the lowest, 1152, thread 0 gave."""
    code = """
  setp.lt.u32 %p3, %r0, 32;
  @!%p3 bra skip;
  and.b32 %r16, %r0, 7;
  mov.u32 %r17, smem;
  add.u32 %r17, %r17, 1152;
  mad.lo.u32 %r17, %r16, 16, %r17;
  stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r17], {%r0};
  FENCE
skip:
  bar.sync 0;"""
    with pytest.raises(ptxsim.PTXRuntimeError, match=f"reads shared offset 1152, which thread 0 stored to "
                                                     f"\\({LINE}stmatrix"):
        run(code.replace("FENCE", ""))
    run(code.replace("FENCE", FENCE + ";"))


ARRIVE = "cp.async.mbarrier.arrive.noinc.shared.b64 [mbar]"


def test_cp_async_needs_a_fence_after_it_lands():
    """cp.async writes through the generic proxy when it lands (here: when the mbarrier phase
    tracking it completes), so its thread's fence must follow the wait, not the issue."""
    def code(early, late):
        return f"""
  setp.eq.u32 %p3, %r0, 0;
  @%p3 mbarrier.init.shared.b64 [mbar], 1;
  bar.sync 0;
{by(5, f"cp.async.ca.shared.global [smem+{HIT - 2}], [%rd2], 4; {early} {ARRIVE}")}
wait:
  mbarrier.try_wait.parity.shared.b64 %p3, [mbar], 0;
  @!%p3 bra wait;
{by(5, late) if late else ""}
  bar.sync 0;"""
    run(code("", FENCE + ";"))
    with pytest.raises(ptxsim.PTXRuntimeError, match=rf"reads shared offset {HIT - 2}, which thread 5 stored to "
                                                     rf"\({LINE}@%p2 cp.async.ca"):
        run(code(FENCE + ";", ""))
    with pytest.raises(ptxsim.PTXRuntimeError, match=rf"reads shared offset {HIT - 2}, which thread 5"):
        run(code("", ""))
