"""Thread-block clusters in the simulator (tests/ptxsim): the CTAs of a cluster run
together and reach each other's shared memory, as on sm_90a.

    .reqnctapercluster X, Y, Z [.blocksareclusters]
    mov.u32 %r, %cluster_ctarank (and the other cluster special registers)
    mapa.shared::cluster.u32 d, a, rank;  ld/st.shared::cluster
    mbarrier.arrive{.expect_tx}.release.cluster.shared::cluster.b64 _, [addr]{, tx};
    barrier.cluster.arrive{.release,.relaxed}.aligned;  barrier.cluster.wait{.acquire}.aligned;
    fence.mbarrier_init.release.cluster;
    cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster
        [dst], [map, {c0, c1}], [mbar], ctaMask;

Hand-written kernels; each result is checked, and so is the report of each misuse
(a CTA reached after it exited, a multicast into one, an mbarrier init the cluster
may not see, a deadlock across CTAs). Every kernel assembles with ptxas for sm_90a
(skipped without ptxas)."""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from conftest import edit_ptx, map_fill_2d

try:
    import ptxsim
except ImportError:                    # pragma: no cover
    from tests import ptxsim

PTXAS = shutil.which("ptxas")

HEAD = """.version 9.0
.target sm_90a
.address_size 64
"""

SYNC = "barrier.cluster.arrive.release.aligned;\n  barrier.cluster.wait.acquire.aligned;"
EXIT_SYNC = "barrier.cluster.arrive.aligned;\n  barrier.cluster.wait.aligned;"


# ---- distributed shared memory: each CTA reads its peer's rank --------------------------------------

PEER = HEAD + """
.visible .entry peer(.param .u64 out)
.reqntid 32, 1, 1
.reqnctapercluster 2, 1, 1
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b32 val[32];

  ld.param.u64 %rd1, [out];
  mov.u32 %r0, %tid.x;
  mov.u32 %r1, %cluster_ctarank;
  mov.u32 %r2, val;
  shl.b32 %r3, %r0, 2;
  add.u32 %r4, %r2, %r3;
  add.u32 %r5, %r1, 100;
  st.shared.u32 [%r4], %r5;
  SYNC
  xor.b32 %r6, %r1, 1;
  mapa.shared::cluster.u32 %r7, %r4, %r6;
  ld.shared::cluster.u32 %r8, [%r7];
  ld.shared::cluster.u32 %r9, [%r4];
  mov.u32 %r10, %ctaid.x;
  mad.lo.u32 %r11, %r10, 64, %r0;
  mul.wide.u32 %rd2, %r11, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r8;
  st.global.u32 [%rd3+128], %r9;
  EXIT_SYNC
  ret;
}
"""


def peer_kernel(sync=True, exit_sync=True):
    ptx = PEER.replace("EXIT_SYNC", EXIT_SYNC if exit_sync else "")
    return ptx.replace("  SYNC\n", "  " + SYNC + "\n" if sync else "")


@pytest.mark.parametrize("order", ["forward", "reverse"])
def test_each_cta_reads_its_peers_shared_memory(order):
    """Two clusters of two CTAs: after barrier.cluster each thread reads, through mapa and
    ld.shared::cluster, the value its peer stored (and its own through its shared::cta address)."""
    out = np.zeros((4, 64), np.uint32)
    res = ptxsim.run_ptx(peer_kernel(), "peer", 4, [out], thread_order=order)
    rank = np.arange(4) % 2
    np.testing.assert_array_equal(out[:, :32], (100 + (rank ^ 1))[:, None].repeat(32, 1))
    np.testing.assert_array_equal(out[:, 32:], (100 + rank)[:, None].repeat(32, 1))
    assert res.stats["ctas"] == 4 and res.stats["clusters"] == 2


def test_a_read_before_the_peer_stored_sees_the_fill():
    """Without the barrier.cluster between the stores and the loads, rank 0 (run first) reads
    its peer's shared memory before the peer ran: the 0xFF fill."""
    out = np.zeros((2, 64), np.uint32)
    ptxsim.run_ptx(peer_kernel(sync=False), "peer", 2, [out])
    assert (out[0, :32] == 0xFFFFFFFF).all() and (out[1, :32] == 100).all()


@pytest.mark.parametrize("order, first, second, off", [("forward", 0, 1, 0), ("reverse", 1, 0, 124)])
def test_reading_a_peer_that_exited_is_an_error(order, first, second, off):
    """With no barrier.cluster at all, the CTA that runs first (rank 0; with thread_order="reverse",
    rank 1) runs to its exit before the other reads its shared memory."""
    out = np.zeros((2, 64), np.uint32)
    with pytest.raises(ptxsim.PTXRuntimeError, match=rf"ld.shared::cluster by CTA \({second}, 0, 0\) \(rank {second}\) "
                       rf"reaches shared offset {off} of CTA \({first}, 0, 0\) \(rank {first}\), whose threads have all "
                       rf"exited.*PTX line \d+: ld.shared::cluster.u32 %r8"):
        ptxsim.run_ptx(peer_kernel(sync=False, exit_sync=False), "peer", 2, [out], thread_order=order)


def test_bad_cluster_addresses_fault():
    """mapa to a rank outside the cluster, and a shared::cluster access past the CTA's shared memory."""
    out = np.zeros((2, 64), np.uint32)
    with pytest.raises(ptxsim.MemoryFault, match=r"mapa to rank [23]: the cluster has 2 CTAs \(ranks 0..1\)"):
        ptxsim.run_ptx(edit_ptx(peer_kernel(), "xor.b32 %r6, %r1, 1;", "add.u32 %r6, %r1, 2;"), "peer", 2, [out])
    with pytest.raises(ptxsim.MemoryFault, match=r"ld.shared::cluster of 0x20000080: offset 128 of rank 0, "
                       r"outside the CTA's 128 shared bytes, in CTA \(1, 0, 0\)"):
        ptxsim.run_ptx(edit_ptx(peer_kernel(), "ld.shared::cluster.u32 %r8, [%r7];", "ld.shared::cluster.u32 %r8, "
                             "[%r7+128];"), "peer", 2, [out])


DSMEM = HEAD + """
.visible .entry dsmem(.param .u64 out)
.reqntid 32, 1, 1
.reqnctapercluster 2, 1, 1
{
  .reg .b32 %r<24>;
  .reg .b64 %rd<12>;
  .shared .align 8 .b32 val[32];

  ld.param.u64 %rd1, [out];
  mov.u32 %r0, %tid.x;
  mov.u32 %r1, %cluster_ctarank;
  xor.b32 %r2, %r1, 1;
  mov.u32 %r3, val;
  shl.b32 %r4, %r0, 2;
  add.u32 %r5, %r3, %r4;
  mad.lo.u32 %r6, %r1, 1000, %r0;
  st.shared.u32 [%r5], %r6;
  SYNC
  cvta.shared.u64 %rd2, val;
  mul.wide.u32 %rd3, %r0, 4;
  add.s64 %rd4, %rd2, %rd3;
  mapa.u64 %rd5, %rd4, %r2;
  ld.u32 %r7, [%rd5];
  getctarank.u64 %r8, %rd5;
  mapa.shared::cluster.u32 %r9, val+8, %r2;
  getctarank.shared::cluster.u32 %r10, %r9;
  getctarank.shared::cluster.u32 %r11, %r5;
  ld.shared::cluster.v2.u32 {%r12, %r13}, [%r9];
  mapa.shared::cluster.u64 %rd6, %rd4, %r1;
  ld.shared::cluster.u32 %r14, [%rd6];
  mov.u32 %r15, %ctaid.x;
  mad.lo.u32 %r16, %r15, 32, %r0;
  mul.wide.u32 %rd7, %r16, 32;
  add.s64 %rd8, %rd1, %rd7;
  st.global.v4.u32 [%rd8], {%r7, %r8, %r10, %r11};
  st.global.v4.u32 [%rd8+16], {%r12, %r13, %r14, %r1};
  EXIT_SYNC
  ret;
}
""".replace("EXIT_SYNC", EXIT_SYNC).replace("  SYNC\n", "  " + SYNC + "\n")


def test_generic_mapa_getctarank_and_vector_loads():
    """mapa.u64 of a generic shared address and a generic load through it; getctarank of a mapa
    result and of the CTA's own shared::cta address; ld.shared::cluster.v2 at a peer's
    val[2..3]; mapa.shared::cluster.u64 to the CTA's own rank (its own memory)."""
    out = np.zeros((2, 32, 8), np.uint32)
    ptxsim.run_ptx(DSMEM, "dsmem", 2, [out])
    t = np.arange(32)
    for rank in range(2):
        peer = rank ^ 1
        np.testing.assert_array_equal(out[rank], np.stack(
            [peer * 1000 + t, np.full(32, peer), np.full(32, peer), np.full(32, rank), np.full(32, peer * 1000 + 2),
             np.full(32, peer * 1000 + 3), rank * 1000 + t, np.full(32, rank)], axis=1))


# ---- a remote mbarrier arrive completes the peer's phase ----------------------------------------------

REMOTE_ARRIVE = HEAD + """
.visible .entry remote(.param .u64 out)
.reqntid 64, 1, 1
.reqnctapercluster 2, 1, 1
.blocksareclusters
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b64 mbar;
  .shared .align 4 .b32 box[64];

  ld.param.u64 %rd1, [out];
  mov.u32 %r0, %tid.x;
  mov.u32 %r1, %cluster_ctarank;
  mov.u32 %r2, mbar;
  setp.eq.u32 %p1, %r0, 0;
  @%p1 mbarrier.init.shared::cta.b64 [%r2], 64;
  fence.mbarrier_init.release.cluster;
  barrier.cluster.arrive.relaxed.aligned;
  barrier.cluster.wait.aligned;
  xor.b32 %r3, %r1, 1;
  mov.u32 %r4, box;
  shl.b32 %r5, %r0, 2;
  add.u32 %r6, %r4, %r5;
  mapa.shared::cluster.u32 %r7, %r6, %r3;
  mad.lo.u32 %r8, %r1, 1000, %r0;
  st.shared::cluster.u32 [%r7], %r8;
  mapa.shared::cluster.u32 %r9, %r2, %r3;
  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r9];
$wait:
  mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p2, [%r2], 0;
  @!%p2 bra $wait;
  ld.shared.u32 %r10, [%r6];
  mov.u32 %r11, %ctaid.x;
  mad.lo.u32 %r12, %r11, 64, %r0;
  mul.wide.u32 %rd2, %r12, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r10;
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  ret;
}
"""


def test_a_remote_arrive_completes_the_peers_phase():
    """Each thread stores into the peer's shared memory and arrives (release, cluster scope) on
    the peer's mbarrier; each CTA waits on its own, completed by the peer's 64 arrivals alone,
    and then sees the peer's stores. The grid counts clusters (.blocksareclusters)."""
    out = np.zeros((2, 64), np.uint32)
    ptxsim.run_ptx(REMOTE_ARRIVE, "remote", 1, [out])
    t = np.arange(64)
    np.testing.assert_array_equal(out, np.stack([1000 + t, t]))


REMOTE_MISUSE = {
    # the peer's mbarrier.init, with no release after it, may not be visible to this CTA
    "no fence.mbarrier_init": (lambda p: edit_ptx(p, "fence.mbarrier_init.release.cluster;"), ptxsim.PTXRuntimeError,
                               r"mbarrier.arrive by CTA \(1, 0, 0\) \(rank 1\) on the mbarrier at shared offset 0 of "
                               r"CTA \(0, 0, 0\) \(rank 0\), whose mbarrier.init \(PTX line \d+: @%p1 mbarrier.init"
                               r".*\) no fence.mbarrier_init.release.cluster"),
    # barrier.cluster.arrive without .relaxed releases the init as well
    "release arrive instead": (lambda p: edit_ptx(p, "fence.mbarrier_init.release.cluster;\n  barrier.cluster.arrive"
                                              ".relaxed.aligned;", "barrier.cluster.arrive.aligned;"), None, None),
    # without the cluster barrier rank 0 arrives on rank 1's mbarrier before rank 1 ran its init
    "no cluster barrier after the init": (lambda p: edit_ptx(p, "barrier.cluster.arrive.relaxed.aligned;\n  barrier."
                                                         "cluster.wait.aligned;"), ptxsim.PTXRuntimeError,
                                          r"which no mbarrier.init initialized.*\[mbarrier.arrive by CTA \(0, 0, 0\) "
                                          r"\(rank 0\) on CTA \(1, 0, 0\) \(rank 1\) of its cluster\]"),
    # rank 0 leaves without the final cluster barrier: rank 1's arrive reaches a CTA that is gone
    "no cluster barrier before the exit": (lambda p: edit_ptx(p, "  barrier.cluster.arrive.aligned;\n  barrier.cluster."
                                                          "wait.aligned;\n  ret;", "  ret;"), None, None),
    "an arrival too many": (lambda p: edit_ptx(p, "[%r2], 64;", "[%r2], 65;"), ptxsim.Deadlock,
                            r"mbarrier at shared offset 0: 64 threads waiting .* 64 of 65 arrivals"),
}


@pytest.mark.parametrize("name", list(REMOTE_MISUSE))
def test_remote_arrive_misuse(name):
    edit, exc, match = REMOTE_MISUSE[name]
    out = np.zeros((2, 64), np.uint32)
    ptx = edit(REMOTE_ARRIVE)
    if exc is None:
        ptxsim.run_ptx(ptx, "remote", 1, [out])
        np.testing.assert_array_equal(out, np.stack([1000 + np.arange(64), np.arange(64)]))
        return
    with pytest.raises(exc, match=match):
        ptxsim.run_ptx(ptx, "remote", 1, [out])


def test_exiting_before_the_peer_is_done_is_an_error():
    """No cluster barrier before the exit, and rank 1 stores into rank 0 once more after its
    own wait: rank 0, whose phase rank 1's arrivals completed, has left by then."""
    out = np.zeros((2, 64), np.uint32)
    ptx = edit_ptx(REMOTE_ARRIVE, "  barrier.cluster.arrive.aligned;\n  barrier.cluster.wait.aligned;\n  ret;",
                "  @%p3 st.shared::cluster.u32 [%r7], 7;\n  ret;")
    ptx = edit_ptx(ptx, "ld.shared.u32 %r10, [%r6];", "ld.shared.u32 %r10, [%r6];\n  setp.eq.u32 %p3, %r1, 1;")
    with pytest.raises(ptxsim.PTXRuntimeError, match=r"st.shared::cluster by CTA \(1, 0, 0\) \(rank 1\) reaches "
                       r"shared offset \d+ of CTA \(0, 0, 0\) \(rank 0\), whose threads have all exited"):
        ptxsim.run_ptx(ptx, "remote", 1, [out])


# ---- barrier.cluster ------------------------------------------------------------------------------

CBAR_DEADLOCK = HEAD + """
.visible .entry cbar(.param .u64 out)
.reqntid 32, 1, 1
.reqnctapercluster 2, 1, 1
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .shared .align 8 .b64 mbar;

  mov.u32 %r1, %cluster_ctarank;
  mov.u32 %r2, mbar;
  mov.u32 %r0, %tid.x;
  setp.eq.u32 %p1, %r0, 0;
  @%p1 mbarrier.init.shared::cta.b64 [%r2], 1;
  bar.sync 0;
  setp.eq.u32 %p3, %r1, 1;
  @%p3 bra $wait;
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  ret;
$wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;
  @!%p2 bra $wait;
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  ret;
}
"""


def test_a_cluster_deadlock_names_every_cta():
    """Rank 0 waits at barrier.cluster for rank 1, which waits on an mbarrier nobody arrives at."""
    with pytest.raises(ptxsim.Deadlock) as e:
        ptxsim.run_ptx(CBAR_DEADLOCK, "cbar", 2, [np.zeros(1, np.uint32)])
    msg = str(e.value)
    assert "deadlock in the cluster of CTAs (0, 0, 0) (rank 0), (1, 0, 0) (rank 1)" in msg, msg
    assert "barrier.cluster phase 0: 32 of 64 non-exited threads of the cluster arrived" in msg, msg
    assert "not arrived: CTA (1, 0, 0) (rank 1) tids 0-31" in msg, msg
    assert "CTA (0, 0, 0) (rank 0): 32 of 32 threads blocked" in msg, msg
    assert "barrier.cluster.wait: 32 threads waiting (tids 0-31)" in msg, msg
    assert "CTA (1, 0, 0) (rank 1): 32 of 32 threads blocked" in msg, msg
    assert "mbarrier at shared offset 0: 32 threads waiting (tids 0-31); phase 0, 0 of 1 arrivals" in msg, msg


def test_exited_threads_do_not_hold_up_barrier_cluster():
    """Rank 1's threads exit without arriving: rank 0's barrier.cluster completes without them."""
    ptx = edit_ptx(CBAR_DEADLOCK, "@%p3 bra $wait;", "@%p3 ret;")
    ptxsim.run_ptx(ptx, "cbar", 2, [np.zeros(1, np.uint32)])


def test_barrier_cluster_misuse():
    twice = edit_ptx(CBAR_DEADLOCK, "@%p3 bra $wait;\n  barrier.cluster.arrive.aligned;",
                  "@%p3 ret;\n  barrier.cluster.arrive.aligned;\n  barrier.cluster.arrive.aligned;")
    with pytest.raises(ptxsim.PTXRuntimeError, match=r"barrier.cluster.arrive again with no barrier.cluster.wait"):
        ptxsim.run_ptx(twice, "cbar", 2, [np.zeros(1, np.uint32)])
    lone = edit_ptx(CBAR_DEADLOCK, "@%p3 bra $wait;\n  barrier.cluster.arrive.aligned;", "@%p3 ret;")
    with pytest.raises(ptxsim.PTXRuntimeError, match=r"barrier.cluster.wait with no barrier.cluster.arrive"):
        ptxsim.run_ptx(lone, "cbar", 2, [np.zeros(1, np.uint32)])


ALIGNED = HEAD + """
.visible .entry al(.param .u64 out)
.reqntid 32, 1, 1
.reqnctapercluster 2, 1, 1
{
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  mov.u32 %r0, %tid.x;
  setp.lt.u32 %p1, %r0, 16;
  BRANCH
  barrier.cluster.arrive.aligned;
  bra $w;
$a:
  barrier.cluster.arrive.aligned;
$w:
  barrier.cluster.wait.aligned;
  ret;
}
"""


@pytest.mark.parametrize("branch, exc, match", [
    ("", None, None),
    ("@%p1 ret;", ptxsim.PTXRuntimeError, r"CTA \([01], 0, 0\): threads 0-15 of warp 0 exited without the \.aligned "
                                          r"barrier.cluster \(PTX line \d+: barrier.cluster.arrive.aligned\)"),
    ("@%p1 bra $a;", ptxsim.PTXRuntimeError, r"lane \d+ of warp 0 executes this .aligned barrier.cluster where another "
                                             r"lane of its warp executed PTX line \d+"),
])
def test_aligned_barrier_cluster_needs_the_whole_warp(branch, exc, match):
    """.aligned: every lane of a warp at the same barrier.cluster instruction. Lanes that exit
    first do not hold the barrier up (non-exited threads only), but leave their warp unaligned;
    without .aligned the same is allowed."""
    ptx = ALIGNED.replace("BRANCH", branch)
    if exc is None:
        ptxsim.run_ptx(ptx, "al", 2, [np.zeros(1, np.uint32)])
        return
    with pytest.raises(exc, match=match):
        ptxsim.run_ptx(ptx, "al", 2, [np.zeros(1, np.uint32)])
    ptxsim.run_ptx(ptx.replace(".aligned", ""), "al", 2, [np.zeros(1, np.uint32)])


# ---- special registers and launch shapes ------------------------------------------------------------

SREGS = ["%cluster_ctarank", "%cluster_nctarank", "%clusterid.x", "%clusterid.y", "%clusterid.z",
         "%nclusterid.x", "%nclusterid.y", "%nclusterid.z", "%cluster_ctaid.x", "%cluster_ctaid.y",
         "%cluster_ctaid.z", "%cluster_nctaid.x", "%cluster_nctaid.y", "%cluster_nctaid.z", "%ctaid.x",
         "%ctaid.y", "%ctaid.z", "%nctaid.x", "%nctaid.y", "%nctaid.z"]


def sregs_kernel(directives):
    body = []
    for i, s in enumerate(SREGS):
        body += [f"mov.u32 %r1, {s};", f"st.global.u32 [%rd3+{4 * i}], %r1;"]
    body += ["mov.pred %p1, %is_explicit_cluster;", "selp.u32 %r1, 1, 0, %p1;",
             f"st.global.u32 [%rd3+{4 * len(SREGS)}], %r1;"]
    lines = "\n  ".join(body)
    return HEAD + f"""
.visible .entry sregs(.param .u64 out)
.reqntid 32, 1, 1
{directives}
{{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  mov.u32 %r0, %tid.x;
  setp.ne.u32 %p0, %r0, 0;
  @%p0 ret;
  ld.param.u64 %rd1, [out];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ctaid.y;
  mov.u32 %r4, %nctaid.x;
  mad.lo.u32 %r5, %r3, %r4, %r2;
  mul.wide.u32 %rd2, %r5, {4 * (len(SREGS) + 1)};
  add.s64 %rd3, %rd1, %rd2;
  {lines}
  ret;
}}
"""


def expected_sregs(grid, cl, explicit):
    rows = []
    for y in range(grid[1]):
        for x in range(grid[0]):
            c = (x, y, 0)
            cid = [c[d] // cl[d] for d in range(3)]
            cc = [c[d] % cl[d] for d in range(3)]
            rows.append([cc[0] + cl[0] * (cc[1] + cl[1] * cc[2]), cl[0] * cl[1] * cl[2]] + cid +
                        [grid[d] // cl[d] for d in range(3)] + cc + list(cl) + list(c) + list(grid) + [explicit])
    return np.array(rows, np.uint32)


@pytest.mark.parametrize("directives, launch, grid, cl", [
    (".reqnctapercluster 2, 1, 1", (4, 2, 1), (4, 2, 1), (2, 1, 1)),
    (".reqnctapercluster 2, 2, 1\n.blocksareclusters", (2, 1, 1), (4, 2, 1), (2, 2, 1)),
    (".reqnctapercluster 2, 2, 1", (2, 4, 1), (2, 4, 1), (2, 2, 1)),
    ("", (3, 2, 1), (3, 2, 1), (1, 1, 1)),
])
def test_cluster_special_registers(directives, launch, grid, cl):
    out = np.zeros((grid[0] * grid[1], len(SREGS) + 1), np.uint32)
    res = ptxsim.run_ptx(sregs_kernel(directives), "sregs", launch, [out])
    np.testing.assert_array_equal(out, expected_sregs(grid, cl, int(bool(directives))))
    assert res.stats["clusters"] == grid[0] * grid[1] // (cl[0] * cl[1])


def test_a_grid_of_part_clusters_is_refused():
    """.reqnctapercluster without .blocksareclusters: the grid counts CTAs, and the driver refuses
    one that is no whole number of clusters."""
    with pytest.raises(ptxsim.PTXSimError, match=r"grid \(3, 1, 1\) is not a whole number of clusters of "
                       r"\(2, 1, 1\) CTAs"):
        ptxsim.run_ptx(sregs_kernel(".reqnctapercluster 2, 1, 1"), "sregs", 3, [np.zeros((3, 21), np.uint32)])


# ---- TMA multicast ------------------------------------------------------------------------------

MC_HEAD = HEAD + """
.global .align 128 .b8 maps[2048];
"""


def multicast_kernel(mode="full", wait="all", cluster_sync=True, exit_sync=True):
    """PTX of `mc(src, out, gdim0, gdim1, gstride0, c0, c1)` for a cluster of two CTAs of one warp:
    each builds a map of the 2-D f16 tensor `src` (128B swizzle) in slot %smid of `maps`, and
    inits its `full` mbarrier expecting the whole 64 x 16 box (2048 bytes). mode "full": rank 0
    loads the box with ctaMask 0b11; "half": each rank loads its 8 rows (box 64 x 8) into its
    half of the slot with ctaMask 0b11; "peer" (no multicast): each rank loads the box into the
    other's slot, completing on the other's mbarrier (mapa of both). Each CTA then waits on its mbarrier (wait="rank 0": rank 0
    only) and copies its slot to out[rank]."""
    rows = 8 if mode == "half" else 16
    issue = {"full": "setp.eq.u32 %p4, %r60, 0;\n  and.pred %p5, %p1, %p4;",
             "half": "mov.pred %p5, %p1;\n  shl.b32 %r61, %r60, 3;\n  add.u32 %r41, %r41, %r61;\n"
                     "  shl.b32 %r62, %r60, 10;\n  add.u32 %r7, %r7, %r62;",
             "peer": "mov.pred %p5, %p1;\n  xor.b32 %r61, %r60, 1;\n  mapa.shared::cluster.u32 %r7, %r7, %r61;\n"
                     "  mapa.shared::cluster.u32 %r63, %r6, %r61;"}[mode]
    tail = "[%r63];" if mode == "peer" else ".multicast::cluster [%r6], %h1;"
    tma = (f"@%p5 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r7], "
           f"[%rd5, {{%r40, %r41}}], {tail}").replace("bytes [%r7], [%rd5, {%r40, %r41}], .multicast::cluster",
                                                    "bytes.multicast::cluster [%r7], [%rd5, {%r40, %r41}],")
    return MC_HEAD + f"""
.visible .entry mc(.param .u64 src, .param .u64 out, .param .u32 gdim0, .param .u32 gdim1,
                   .param .u64 gstride0, .param .u32 c0, .param .u32 c1)
.reqntid 32, 1, 1
.reqnctapercluster 2, 1, 1
{{
  .reg .pred %p<8>;
  .reg .b32 %r<64>;
  .reg .b64 %rd<32>;
  .reg .b16 %h<2>;
  .shared .align 1024 .b8 slot[2048];
  .shared .align 128 .b8 tmsm[128];
  .shared .align 8 .b64 mbar;

  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd2, [out];
  mov.u32 %r0, %laneid;
  mov.u32 %r60, %cluster_ctarank;
  mov.u32 %r5, %smid;
  mul.wide.u32 %rd3, %r5, 128;
  mov.u64 %rd4, maps;
  cvta.global.u64 %rd4, %rd4;
  add.s64 %rd5, %rd4, %rd3;
  mov.u32 %r1, tmsm;
  shl.b32 %r2, %r0, 2;
  add.u32 %r3, %r1, %r2;
  st.shared.u32 [%r3], 0;
  bar.warp.sync -1;
  elect.sync %r4|%p1, -1;
  ld.param.u32 %r30, [gdim0];
  ld.param.u32 %r31, [gdim1];
  ld.param.u64 %rd20, [gstride0];
{map_fill_2d(64, rows)}
  bar.warp.sync -1;
  tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd5], [%r1], 128;
  fence.proxy.tensormap::generic.acquire.gpu [%rd5], 128;
  mov.u32 %r6, mbar;
  @%p1 mbarrier.init.shared::cta.b64 [%r6], 1;
  bar.warp.sync -1;
  fence.mbarrier_init.release.cluster;
  fence.proxy.async.shared::cta;
  {"barrier.cluster.arrive.relaxed.aligned;" if cluster_sync else ""}
  {"barrier.cluster.wait.aligned;" if cluster_sync else ""}
  mov.u32 %r7, slot;
  ld.param.u32 %r40, [c0];
  ld.param.u32 %r41, [c1];
  @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r6], 2048;
  {issue}
  mov.b16 %h1, 3;
  {tma}
  mov.u32 %r7, slot;
  {"setp.eq.u32 %p6, %r60, 1;" if wait == "rank 0" else ""}
  {"@%p6 bra $waited;" if wait == "rank 0" else ""}
$wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r6], 0;
  @!%p2 bra $wait;
$waited:
  mul.wide.u32 %rd6, %r60, 2048;
  add.s64 %rd8, %rd2, %rd6;
  mov.u32 %r8, %r0;
$copy:
  shl.b32 %r9, %r8, 2;
  add.u32 %r11, %r7, %r9;
  ld.shared.u32 %r12, [%r11];
  mul.wide.u32 %rd9, %r8, 4;
  add.s64 %rd7, %rd8, %rd9;
  st.global.u32 [%rd7], %r12;
  add.u32 %r8, %r8, 32;
  setp.lt.u32 %p3, %r8, 512;
  @%p3 bra $copy;
  {"barrier.cluster.arrive.aligned;" if exit_sync else ""}
  {"barrier.cluster.wait.aligned;" if exit_sync else ""}
  ret;
}}
"""


def expected_box(logical, coords, box):
    """The box at coords (innermost first) of 2-D `logical`, zero outside, shape box reversed."""
    r = coords[1] + np.arange(box[1])
    c = coords[0] + np.arange(box[0])
    got = logical[np.clip(r, 0, logical.shape[0] - 1)][:, np.clip(c, 0, logical.shape[1] - 1)]
    ok = ((r >= 0) & (r < logical.shape[0]))[:, None] & ((c >= 0) & (c < logical.shape[1]))[None, :]
    return np.where(ok, got, np.zeros((), logical.dtype))


def unswizzle(raw):
    off = np.arange(raw.size)
    return raw[off ^ (((off >> 7) & 7) << 4)].view(np.float16).reshape(16, 64)


def run_multicast(ptx, coords=(30, -3), **kw):
    rng = np.random.default_rng(7)
    phys = rng.standard_normal((40, 104)).astype(np.float16)
    logical = phys[:, :100]
    out = np.zeros((2, 2048), np.uint8)
    res = ptxsim.run_ptx(ptx, "mc", 2, [phys, out, 100, 40, phys.strides[0], *coords], **kw)
    return out, expected_box(logical, coords, (64, 16)), res


@pytest.mark.parametrize("mode", ["full", "half", "peer"])
@pytest.mark.parametrize("timing", ["late", "eager"])
def test_multicast_fills_the_slot_of_every_cta(mode, timing):
    """Rank 0 loads the whole box into both CTAs ("full"), or each rank its half of the rows
    ("half"); each CTA's mbarrier expects the whole box and completes on the copies that
    land in its CTA, wherever they were issued: both CTAs see the whole box. ("peer": each rank
    loads the box into the other one, without multicast.)"""
    out, want, res = run_multicast(multicast_kernel(mode), copy_timing=timing)
    for rank in range(2):
        np.testing.assert_array_equal(unswizzle(out[rank]).view(np.uint16), want.view(np.uint16))
    assert res.stats["tma_loads"] == (1 if mode == "full" else 2)


def test_a_copy_into_one_cta_completing_in_another_is_an_error():
    ptx = edit_ptx(multicast_kernel("peer"), "[%r63];", "[%r6];")
    with pytest.raises(ptxsim.PTXRuntimeError, match=r"cp.async.bulk.tensor writes shared memory of CTA \(0, 0, 0\) "
                       r"\(rank 0\) but completes on an mbarrier of CTA \(1, 0, 0\) \(rank 1\): both must be in the "
                       r"destination CTA"):
        run_multicast(ptx)


MC_MISUSE = {
    # rank 1 does not wait for its slot: it leaves (after the cluster barrier) with rank 0's
    # multicast still in flight into it
    "a CTA exits with a multicast in flight into it": (
        dict(wait="rank 0"), ptxsim.PTXRuntimeError,
        r"CTA \(1, 0, 0\) ended with 1 cp.async.bulk.tensor copies in flight .*a multicast issued by CTA "
        r"\(0, 0, 0\) \(rank 0\)"),
    # no cluster barrier after the inits: rank 0 copies into rank 1 before rank 1's mbarrier exists
    "a multicast before the peer's mbarrier.init": (
        dict(cluster_sync=False), ptxsim.PTXRuntimeError,
        r"cp.async.bulk.tensor on 0x\w+ \(shared offset \d+\), which no mbarrier.init initialized.*"
        r"\[cp.async.bulk.tensor by CTA \(0, 0, 0\) \(rank 0\) on CTA \(1, 0, 0\) \(rank 1\) of its cluster\]"),
}


@pytest.mark.parametrize("name", list(MC_MISUSE))
def test_multicast_misuse(name):
    kw, exc, match = MC_MISUSE[name]
    with pytest.raises(exc, match=match):
        run_multicast(multicast_kernel("full", **kw))


def test_a_multicast_into_an_exited_cta_is_an_error():
    """Rank 1 leaves right after the cluster barrier; rank 0 then multicasts into it."""
    ptx = edit_ptx(multicast_kernel("full"), "  mov.u32 %r7, slot;\n  ld.param",
                "  setp.eq.u32 %p6, %r60, 1;\n  @%p6 ret;\n  mov.u32 %r7, slot;\n  ld.param")
    with pytest.raises(ptxsim.PTXRuntimeError, match=r"cp.async.bulk.tensor.multicast::cluster by CTA \(0, 0, 0\) "
                       r"\(rank 0\) writes into CTA \(1, 0, 0\) \(rank 1; ctaMask 0x3\), whose threads have all exited"):
        run_multicast(ptx)


def test_a_multicast_mask_outside_the_cluster_is_an_error():
    ptx = edit_ptx(multicast_kernel("full"), "mov.b16 %h1, 3;", "mov.b16 %h1, 5;")
    with pytest.raises(ptxsim.PTXRuntimeError, match=r"ctaMask 0x5: the cluster has 2 CTAs"):
        run_multicast(ptx)


# ---- the race check across the CTAs of a cluster (hb.py) ---------------------------------------------

CROSS_READ = (r"thread (\d+) \(of the CTA of rank (\d)\) reads it \(PTX line \d+: {load}\) after thread \1 \(of "
              r"the CTA of rank (?!\2)\d\) wrote it \(PTX line \d+: {store}\)")


@pytest.mark.parametrize("order", ["forward", "reverse"])
def test_barrier_cluster_orders_the_peers_stores(order):
    """barrier.cluster.arrive (release) and .wait (acquire) order each CTA's stores before its
    peer's ld.shared::cluster of them: the race check passes."""
    out = np.zeros((4, 64), np.uint32)
    res = ptxsim.run_ptx(peer_kernel(), "peer", 4, [out], thread_order=order, check_races=True)
    assert res.stats["race_checked"] and (out[:, :32] >= 100).all()


@pytest.mark.parametrize("order", ["forward", "reverse"])
def test_a_relaxed_barrier_cluster_orders_no_data(order):
    """barrier.cluster.arrive.relaxed: the wait still waits for the peer, and the simulation reads
    the right values, but nothing orders the peer's stores before the reads."""
    ptx = edit_ptx(peer_kernel(), "barrier.cluster.arrive.release.aligned", "barrier.cluster.arrive.relaxed.aligned")
    with pytest.raises(ptxsim.DataRace, match=CROSS_READ.format(load=r"ld\.shared::cluster\.u32 %r8, \[%r7\]",
                                                                store=r"st\.shared\.u32 \[%r4\], %r5")):
        ptxsim.run_ptx(ptx, "peer", 2, [np.zeros((2, 64), np.uint32)], thread_order=order, check_races=True)


def test_a_remote_arrive_releases_the_stores_before_it():
    """Each thread's st.shared::cluster into the peer comes before its arrival on the peer's
    mbarrier, whose waiters then read the values ordered; stored after the arrival, they race."""
    out = np.zeros((2, 64), np.uint32)
    assert ptxsim.run_ptx(REMOTE_ARRIVE, "remote", 1, [out], check_races=True).stats["race_checked"]
    store = "  st.shared::cluster.u32 [%r7], %r8;\n"
    arrive = "  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r9];\n"
    late = edit_ptx(REMOTE_ARRIVE, store + "  mapa.shared::cluster.u32 %r9, %r2, %r3;\n" + arrive,
                    "  mapa.shared::cluster.u32 %r9, %r2, %r3;\n" + arrive + store)
    with pytest.raises(ptxsim.DataRace, match=CROSS_READ.format(load=r"ld\.shared\.u32 %r10, \[%r6\]",
                                                                store=r"st\.shared::cluster\.u32 \[%r7\], %r8")):
        ptxsim.run_ptx(late, "remote", 1, [out], check_races=True)


@pytest.mark.parametrize("mode", ["full", "half", "peer"])
@pytest.mark.parametrize("timing", ["late", "eager"])
def test_copies_into_a_peer_are_race_checked(mode, timing):
    """A multicast (or a copy into the peer) is a copy of the destination CTA's mbarrier phase:
    each CTA's reads after its wait are ordered. Rank 1 reading its slot without the wait races
    with rank 0's copy into it (copied at the issue; landing late, the copy is still in flight
    when rank 1 exits: MC_MISUSE)."""
    out, want, res = run_multicast(multicast_kernel(mode), copy_timing=timing, check_races=True)
    assert res.stats["race_checked"]
    np.testing.assert_array_equal(unswizzle(out[1]).view(np.uint16), want.view(np.uint16))
    if mode != "full" or timing != "eager":
        return
    with pytest.raises(ptxsim.DataRace, match=r"a copy completing on the mbarrier at shared offset \d+ \(of the CTA of "
                                              r"rank 1\).*thread \d+ \(of the CTA of rank 1\)"):
        run_multicast(multicast_kernel(mode, wait="rank 0"), copy_timing=timing, check_races=True)


# ---- every kernel is PTX ptxas accepts --------------------------------------------------------------

KERNELS = {
    "peer": lambda: peer_kernel(),
    "peer without barriers": lambda: peer_kernel(sync=False, exit_sync=False),
    "dsmem": lambda: DSMEM,
    "remote arrive": lambda: REMOTE_ARRIVE,
    "cluster deadlock": lambda: CBAR_DEADLOCK,
    "aligned": lambda: ALIGNED.replace("BRANCH", "@%p1 bra $a;"),
    "sregs": lambda: sregs_kernel(".reqnctapercluster 2, 2, 1\n.blocksareclusters"),
    "multicast full": lambda: multicast_kernel("full"),
    "multicast half": lambda: multicast_kernel("half"),
    "tma into the peer": lambda: multicast_kernel("peer"),
}


@pytest.mark.parametrize("which", list(KERNELS))
def test_kernels_assemble(which, tmp_path):
    if PTXAS is None:
        pytest.skip("ptxas not on PATH")
    src = tmp_path / "k.ptx"
    src.write_text(KERNELS[which]())
    r = subprocess.run([PTXAS, "-arch=sm_90a", str(src), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr


# ---- forms ptxas refuses are refused at decode time too --------------------------------------------

REFUSED = {
    "a remote arrive returning state": "mbarrier.arrive.release.cluster.shared::cluster.b64 %rd1, [%r1];",
    "a 32-bit ctaMask": "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                        ".multicast::cluster [%r1], [%rd1, {%r1, %r1}], [%r1], %r2;",
    "a multicast into shared::cta": "cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes"
                                    ".multicast::cluster [%r1], [%rd1, {%r1, %r1}], [%r1], %h1;",
    "%is_explicit_cluster as a number": "mov.u32 %r1, %is_explicit_cluster;",
    "a relaxed cluster wait": "barrier.cluster.wait.relaxed;",
    "mapa of a 64-bit address into 32 bits": "mapa.shared::cluster.u32 %r1, %rd1, 1;",
    "a waited remote mbarrier": "mbarrier.try_wait.parity.shared::cluster.b64 %p1, [%r1], 0;",
}


def refused_kernel(line):
    return HEAD + f"""
.visible .entry r(.param .u64 p)
.reqntid 32, 1, 1
.reqnctapercluster 2, 1, 1
{{
  .reg .pred %p<2>;
  .reg .b16 %h<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, 0;
  mov.u32 %r2, 3;
  mov.b16 %h1, 3;
  {line}
  ret;
}}
"""


@pytest.mark.parametrize("name", list(REFUSED))
def test_forms_ptxas_refuses_are_unsupported(name, tmp_path):
    ptx = refused_kernel(REFUSED[name])
    with pytest.raises(ptxsim.UnsupportedPTX):
        ptxsim.run_ptx(ptx, "r", 2, [np.zeros(1, np.uint32)])
    if PTXAS is not None:
        src = tmp_path / "k.ptx"
        src.write_text(ptx)
        r = subprocess.run([PTXAS, "-arch=sm_90a", str(src), "-o", str(tmp_path / "k.cubin")],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode != 0 and "error" in r.stderr
