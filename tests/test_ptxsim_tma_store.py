"""The simulator's Hopper epilogue store path (tests/ptxsim/tma.py, codegen.py):

    stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16 [addr], {r0, ..};
    fence.proxy.async.shared::cta;
    cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [map, {c0, c1}], [src];
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group[.read] N;

Hand-written kernels of two warps: warp 0 builds a tensor map of `dst` on the
device (as tests/test_ptxsim_tma.py does) and copies it to the %smid slot of a
module pool; both warps write a tile into a 128B-swizzled shared slot (st.shared
at swizzled addresses, or stmatrix), fence it for the async proxy, and thread 0
stores the box to `dst` at coordinates where part of it is clipped at the
tensor's edge. The test checks that exactly the in-bounds elements changed, in
both copy timings. Misuse is reported by name: no proxy fence, overwriting the
source before wait_group.read, exiting before waiting, a misaligned source.
Every kernel assembles with ptxas for sm_90a (skipped without ptxas).
"""
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

HEAD = """.version 8.3
.target sm_90a
.address_size 64

.global .align 128 .b8 __tilec_tmaps_k[2097152];
.global .align 4 .b32 probe[1];
"""

ROW = 64                                     # f16 elements a box row: 128 bytes, the 128B swizzle span
# %r14 = the 128B swizzle of byte offset %r9 (bits 4-6 ^= bits 7-9)
_SWIZZLE_PTX = """shr.u32 %r13, %r9, 7;
  and.b32 %r13, %r13, 7;
  shl.b32 %r13, %r13, 4;
  xor.b32 %r14, %r9, %r13;"""

# both warps: the 4-byte words of the dense tile (`src`, rows x 64 f16) to their swizzled places
FILL_ST = """mov.u32 %r8, %r0;
$fill:
  shl.b32 %r9, %r8, 2;
  mul.wide.u32 %rd6, %r8, 4;
  add.s64 %rd7, %rd2, %rd6;
  ld.global.u32 %r12, [%rd7];
  {swz}
  add.u32 %r15, %r7, %r14;
  st.shared.u32 [%r15], %r12;
  add.u32 %r8, %r8, 64;
  setp.lt.u32 %p3, %r8, {words};
  @%p3 bra $fill;"""

# warp w: stmatrix.x4 number k = w, w + 2, ..; matrix m = 4 k + lane / 8 is rows 8 (m / 8) ..
# of 16-byte column chunk m % 8; `src` holds the registers, word (4 k + i) * 32 + lane
FILL_STMATRIX = """mov.u32 %r8, %r51;
$fill:
  shr.u32 %r20, %r50, 3;
  and.b32 %r21, %r50, 7;
  shl.b32 %r22, %r8, 2;
  add.u32 %r22, %r22, %r20;
  shr.u32 %r23, %r22, 3;
  shl.b32 %r23, %r23, 3;
  add.u32 %r23, %r23, %r21;
  shl.b32 %r23, %r23, 7;
  and.b32 %r24, %r22, 7;
  shl.b32 %r24, %r24, 4;
  add.u32 %r9, %r23, %r24;
  {swz}
  add.u32 %r15, %r7, %r14;
  shl.b32 %r25, %r8, 9;
  shl.b32 %r26, %r50, 2;
  add.u32 %r25, %r25, %r26;
  cvt.u64.u32 %rd6, %r25;
  add.s64 %rd7, %rd2, %rd6;
  ld.global.u32 %r30, [%rd7];
  ld.global.u32 %r31, [%rd7+128];
  ld.global.u32 %r32, [%rd7+256];
  ld.global.u32 %r33, [%rd7+384];
  stmatrix.sync.aligned.m8n8.x4{trans}.shared.b16 [%r15], {{%r30, %r31, %r32, %r33}};
  add.u32 %r8, %r8, 2;
  setp.lt.u32 %p3, %r8, {count};
  @%p3 bra $fill;"""

STORE = "@%p2 cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd5, {%r40, %r41}], [%r7];"
COMMIT = "@%p2 cp.async.bulk.commit_group;"
WAIT_READ = "@%p2 cp.async.bulk.wait_group.read 0;"
WAIT_ALL = "@%p2 cp.async.bulk.wait_group 0;"
FENCE = "fence.proxy.async.shared::cta;"
# thread 0 after its wait: the first word of dst, as global memory holds it then, to `probe`
PROBE = """@%p2 ld.global.u32 %r60, [%rd1];
  mov.u64 %rd9, probe;
  cvta.global.u64 %rd9, %rd9;
  @%p2 st.global.u32 [%rd9], %r60;"""


def store_kernel(rows, fill="st", trans=False, wait="read"):
    """PTX of `ks(src, dst, gdim0, gdim1, gstride0, c0, c1)`: the tile (rows x 64 f16, 128B
    swizzle) written by `fill` ("st": st.shared of `src`'s words; "stmatrix": stmatrix[.trans]
    of the registers in `src`), stored by thread 0 at (c0, c1) of dst, then
    cp.async.bulk.wait_group.read 0 (wait="read"), wait_group 0 ("all") or both ("both")."""
    nbytes = rows * ROW * 2
    if fill == "st":
        body = FILL_ST.format(swz=_SWIZZLE_PTX, words=nbytes // 4)
    else:
        body = FILL_STMATRIX.format(swz=_SWIZZLE_PTX, trans=".trans" if trans else "", count=nbytes // 512)
    waits = {"read": WAIT_READ, "all": WAIT_ALL, "both": WAIT_READ + "\n  " + PROBE + "\n  " + WAIT_ALL}[wait]
    return HEAD + f"""
.visible .entry ks(.param .u64 src, .param .u64 dst, .param .u32 gdim0, .param .u32 gdim1,
                   .param .u64 gstride0, .param .u32 c0, .param .u32 c1)
.reqntid 64, 1, 1
{{
  .reg .pred %p<8>;
  .reg .b32 %r<64>;
  .reg .b64 %rd<32>;
  .shared .align 1024 .b8 slot[{nbytes}];
  .shared .align 128 .b8 tmsm[128];

  ld.param.u64 %rd1, [dst];
  ld.param.u64 %rd2, [src];
  mov.u32 %r0, %tid.x;
  mov.u32 %r50, %laneid;
  shr.u32 %r51, %r0, 5;
  mov.u32 %r5, %smid;
  mul.wide.u32 %rd3, %r5, 128;
  mov.u64 %rd4, __tilec_tmaps_k;
  cvta.global.u64 %rd4, %rd4;
  add.s64 %rd5, %rd4, %rd3;
  setp.ne.u32 %p0, %r51, 0;
  @%p0 bra $built;
  mov.u32 %r1, tmsm;
  shl.b32 %r2, %r50, 2;
  add.u32 %r3, %r1, %r2;
  st.shared.u32 [%r3], 0;
  bar.warp.sync -1;
  elect.sync %r4|%p1, -1;
  ld.param.u32 %r30, [gdim0];
  ld.param.u32 %r31, [gdim1];
  ld.param.u64 %rd20, [gstride0];
{map_fill_2d(ROW, rows)}
  bar.warp.sync -1;
  tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd5], [%r1], 128;
$built:
  bar.sync 0;
  fence.proxy.tensormap::generic.acquire.gpu [%rd5], 128;
  mov.u32 %r7, slot;
  {body}
  {FENCE}
  bar.sync 0;
  setp.eq.u32 %p2, %r0, 0;
  ld.param.u32 %r40, [c0];
  ld.param.u32 %r41, [c1];
  {STORE}
  {COMMIT}
  {waits}
  ret;
}}
"""


def stmatrix_regs(tile, trans):
    """(K, 4, 32) uint32: the registers of stmatrix.x4 number k that write `tile` (rows x 64
    uint16) as FILL_STMATRIX lays it out, from the PTX ISA's fragment: register i of lane l
    is (row l / 4, columns 2 (l % 4), 2 (l % 4) + 1) of matrix i, low half first; with
    .trans, (rows 2 (l % 4), 2 (l % 4) + 1, column l / 4)."""
    count = tile.size * 2 // 512
    out = np.zeros((count, 4, 32), np.uint32)
    lane = np.arange(32)
    g, q = lane // 4, lane % 4
    for k in range(count):
        for i in range(4):
            m = 4 * k + i
            mat = tile[8 * (m // 8):8 * (m // 8) + 8, 8 * (m % 8):8 * (m % 8) + 8].astype(np.uint32)
            lo, hi = (mat[2 * q, g], mat[2 * q + 1, g]) if trans else (mat[g, 2 * q], mat[g, 2 * q + 1])
            out[k, i] = lo | (hi << 16)
    return out


def run_store(ptx, tile, dst, gdim, coords, fill="st", trans=False, copy_timing="late"):
    """Run store_kernel's PTX storing `tile` (uint16, rows x 64) into `dst` (uint16, its
    leading gdim[1] x gdim[0] part the tensor)."""
    src = tile.copy() if fill == "st" else stmatrix_regs(tile, trans)
    args = [src, dst, gdim[0], gdim[1], dst.strides[0], coords[0], coords[1]]
    return ptxsim.run_ptx(ptx, "ks", 1, args, copy_timing=copy_timing)


def expected_dst(before, tile, gdim, coords):
    """`before` with the in-bounds part of the box at `coords` (innermost first) replaced by `tile`."""
    out = before.copy()
    rows, cols = tile.shape
    for r in range(rows):
        for c in range(cols):
            y, x = coords[1] + r, coords[0] + c
            if 0 <= y < gdim[1] and 0 <= x < gdim[0]:
                out[y, x] = tile[r, c]
    return out


def _case(rows, seed=5):
    """A 20 x 100 f16 tensor in rows 104 elements apart (the 4 pad columns lie past global_dim
    but inside the allocation, and must stay), and a tile of distinct bits."""
    rng = np.random.default_rng(seed)
    dst = rng.integers(0, 1 << 16, (20, 104), dtype=np.uint16)
    tile = (np.arange(rows * ROW, dtype=np.uint16) * 7 + 0x3C00).reshape(rows, ROW)
    return dst, tile, (100, 20)


COORDS = [(60, 15), (-24, -3), (0, 0), (100, 0), (36, 12)]


@pytest.mark.parametrize("timing", ["late", "eager"])
@pytest.mark.parametrize("coords", COORDS)
@pytest.mark.parametrize("wait", ["read", "all"])
def test_store_from_st_shared(coords, timing, wait):
    """st.shared at 128B-swizzled addresses, then the store: the box lands with its
    out-of-bounds part clipped (right edge, top-left corner, whole, none at all)."""
    dst, tile, gdim = _case(8)
    before = dst.copy()
    res = run_store(store_kernel(8, wait=wait), tile, dst, gdim, coords, copy_timing=timing)
    np.testing.assert_array_equal(dst, expected_dst(before, tile, gdim, coords))
    assert res.stats["tma_stores"] == 1 and res.stats["tma_loads"] == 0
    if coords == (60, 15):
        assert (dst != before).sum() == 40 * 5            # 40 columns x 5 rows land, up to the tensor's corner


@pytest.mark.parametrize("timing", ["late", "eager"])
@pytest.mark.parametrize("trans", [False, True])
@pytest.mark.parametrize("rows, coords", [(8, (60, 15)), (16, (-24, 10))])
def test_store_from_stmatrix(rows, coords, trans, timing):
    """stmatrix.x4[.trans] writes the swizzled tile (each 8 x 8 matrix's rows are 16-byte
    chunks the swizzle keeps whole), then the store."""
    dst, tile, gdim = _case(rows)
    before = dst.copy()
    run_store(store_kernel(rows, fill="stmatrix", trans=trans), tile, dst, gdim, coords, fill="stmatrix",
              trans=trans, copy_timing=timing)
    np.testing.assert_array_equal(dst, expected_dst(before, tile, gdim, coords))


@pytest.mark.parametrize("timing, seen", [("late", "before"), ("eager", "tile")])
def test_global_memory_is_written_when_the_store_completes(timing, seen):
    """Late timing writes global memory when wait_group (without .read) retires the store, so
    thread 0 reading dst between wait_group.read and wait_group sees it unchanged; eager timing
    wrote it at issue."""
    dst, tile, gdim = _case(8)
    before = dst.copy()
    res = run_store(store_kernel(8, wait="both"), tile, dst, gdim, (0, 0), copy_timing=timing)
    np.testing.assert_array_equal(dst, expected_dst(before, tile, gdim, (0, 0)))
    probe = res.global_as("probe", np.uint16)
    want = before[0, :2] if seen == "before" else tile[0, :2]
    np.testing.assert_array_equal(probe, want)


@pytest.mark.parametrize("timing", ["late", "eager"])
def test_source_may_be_rewritten_after_wait_group_read(timing):
    """Once wait_group.read retired the store, its source is free: zeroing it (before the
    global write in late timing) changes nothing in dst."""
    dst, tile, gdim = _case(8)
    before = dst.copy()
    ptx = edit_ptx(store_kernel(8), WAIT_READ, WAIT_READ + "\n  @%p2 st.shared.v4.u32 [%r7], {%r0, %r0, %r0, %r0};")
    run_store(ptx, tile, dst, gdim, (60, 15), copy_timing=timing)
    np.testing.assert_array_equal(dst, expected_dst(before, tile, gdim, (60, 15)))


# after the fill, its fence and a bar.sync: thread 63 stores to the slot's first word (and does
# not fence again); after another bar.sync thread 0 rewrites that word with the tile's and fences
OVERWRITTEN = FENCE + """
  bar.sync 0;
  setp.eq.u32 %p5, %r0, 63;
  @%p5 st.shared.u32 [%r7], 0;
  bar.sync 0;
  setp.eq.u32 %p6, %r0, 0;
  @%p6 ld.global.u32 %r12, [%rd2];
  @%p6 st.shared.u32 [%r7], %r12;
  @%p6 fence.proxy.async.shared::cta;"""


@pytest.mark.parametrize("timing", ["late", "eager"])
def test_only_the_latest_store_to_a_byte_needs_a_fence(timing):
    """Thread 63's unfenced store was overwritten by thread 0's fenced one: the store reads
    thread 0's value and is fine. Without thread 0's fence, or without its rewrite, the
    unfenced store is named."""
    dst, tile, gdim = _case(8)
    before = dst.copy()
    ptx = edit_ptx(store_kernel(8), FENCE + "\n  bar.sync 0;", OVERWRITTEN + "\n  bar.sync 0;")
    run_store(ptx, tile, dst, gdim, (60, 15), copy_timing=timing)
    np.testing.assert_array_equal(dst, expected_dst(before, tile, gdim, (60, 15)))
    for edit, line in (("@%p6 fence.proxy.async.shared::cta;", r"@%p6 st.shared.u32 \[%r7\], %r12"),
                       ("@%p6 st.shared.u32 [%r7], %r12;", r"@%p5 st.shared.u32 \[%r7\], 0")):
        who = 0 if "p6" in line else 63
        with pytest.raises(ptxsim.PTXRuntimeError, match=rf"store reads shared offset 0, which thread {who} stored "
                                                         rf"to \(PTX line \d+: {line}\) with no fence.proxy.async"):
            run_store(edit_ptx(ptx, edit), tile, dst, gdim, (60, 15), copy_timing=timing)


_FILL_STORE = "st.shared.u32 [%r15], %r12;"
_OVERWRITE = "overwrites shared memory a bulk store may still be reading"

MISUSE = {
    "no proxy fence": (lambda p: edit_ptx(p, FENCE), ptxsim.PTXRuntimeError,
                       r"store reads shared offset \d+, which thread \d+ stored to \(PTX line \d+: "
                       r"st.shared.u32 \[%r15\], %r12\) with no fence.proxy.async since"),
    "a store after the fence": (lambda p: edit_ptx(p, FENCE, FENCE + "\n  " + _FILL_STORE), ptxsim.PTXRuntimeError,
                                r"with no fence.proxy.async since"),
    "fence of global memory only": (lambda p: edit_ptx(p, FENCE, "fence.proxy.async.global;"),
                                    ptxsim.PTXRuntimeError, r"with no fence.proxy.async since"),
    "st.shared to the source before wait_group.read":
        (lambda p: edit_ptx(p, COMMIT, COMMIT + "\n  @%p2 st.shared.u32 [%r7+512], 0;"), ptxsim.PTXRuntimeError,
         r"store to shared offset 512 " + _OVERWRITE + r" \(PTX line \d+: @%p2 cp.async.bulk.tensor.*issued by "
         r"thread 0.*PTX line \d+: @%p2 st.shared.u32 \[%r7\+512\], 0"),
    "another thread's st.shared before wait_group.read":
        (lambda p: edit_ptx(p, COMMIT, COMMIT + "\n  bar.sync 0;\n  " + _FILL_STORE), ptxsim.PTXRuntimeError,
         r"store to shared offset \d+ " + _OVERWRITE + r".*issued by thread 0"),
    "no wait_group": (lambda p: edit_ptx(p, WAIT_READ), ptxsim.PTXRuntimeError,
                      r"thread 0 exits with a cp.async.bulk.tensor store whose shared-memory read it never waited "
                      r"for \(no cp.async.bulk.wait_group.read or wait_group retired its group"),
    "no commit_group": (lambda p: edit_ptx(p, COMMIT), ptxsim.PTXRuntimeError,
                        r"thread 0 exits .* \(no cp.async.bulk.commit_group put it in a bulk async-group"),
    "wait_group.read 1 leaves the group": (lambda p: edit_ptx(p, WAIT_READ, WAIT_READ.replace(" 0;", " 1;")),
                                           ptxsim.PTXRuntimeError, r"thread 0 exits with a cp.async.bulk.tensor"),
    "misaligned source": (lambda p: edit_ptx(p, "[%r7];", "[%r7+16];"), ptxsim.PTXRuntimeError,
                          r"cp.async.bulk.tensor source 0x[0-9a-f]+ \(shared offset 16\) is not 128-byte aligned"),
    "source in no shared variable": (lambda p: edit_ptx(p, "[%r7];", "[%rd2];"), ptxsim.MemoryFault,
                                     r"cp.async.bulk.tensor source 0x[0-9a-f]+ is not in the CTA's"),
    "source past its variable": (lambda p: edit_ptx(p, "[%r7];", "[tmsm];"), ptxsim.MemoryFault,
                                 r"box of 1024 bytes at shared offset 1024 reaches past the end of tmsm"),
    "map address never set": (lambda p: edit_ptx(p, "[%rd5, {", "[%rd30, {"), ptxsim.PTXRuntimeError,
                              r"through a tensor map address from an uninitialized register"),
    "no acquire of the map": (lambda p: edit_ptx(p, "fence.proxy.tensormap::generic.acquire.gpu [%rd5], 128;"),
                              ptxsim.PTXRuntimeError, r"no fence.proxy.tensormap::generic.acquire"),
}


@pytest.mark.parametrize("timing", ["late", "eager"])
@pytest.mark.parametrize("name", list(MISUSE))
def test_misuse_is_reported(name, timing):
    edit, exc, match = MISUSE[name]
    dst, tile, gdim = _case(8)
    with pytest.raises(exc, match=match):
        run_store(edit(store_kernel(8)), tile, dst, gdim, (60, 15), copy_timing=timing)


def test_unfenced_stmatrix_is_named():
    dst, tile, gdim = _case(8)
    ptx = edit_ptx(store_kernel(8, fill="stmatrix"), FENCE)
    with pytest.raises(ptxsim.PTXRuntimeError, match=r"stored to \(PTX line \d+: stmatrix.sync.aligned.m8n8.x4"
                                                      r".shared.b16 .*\) with no fence.proxy.async since"):
        run_store(ptx, tile, dst, gdim, (60, 15), fill="stmatrix")


def test_stmatrix_onto_an_unread_source_is_reported():
    """A second stmatrix pass (both warps, after a bar.sync) before thread 0's wait_group.read."""
    dst, tile, gdim = _case(8)
    ptx = store_kernel(8, fill="stmatrix")
    ptx = edit_ptx(ptx, COMMIT, COMMIT + "\n  bar.sync 0;\n  stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r15], "
                                      "{%r30, %r31, %r32, %r33};")
    with pytest.raises(ptxsim.PTXRuntimeError, match=_OVERWRITE + r".*PTX line \d+: stmatrix"):
        run_store(ptx, tile, dst, gdim, (60, 15), fill="stmatrix")


def test_bulk_groups_retire_oldest_first():
    """Two stores of the slot in two groups (the second one row lower in dst): wait_group.read 1
    retires only the older group, so overwriting the slot, which the newer store still reads,
    is reported; without the overwrite both land, in issue order."""
    dst, tile, gdim = _case(8)
    two = (STORE + "\n  " + COMMIT + "\n  ld.param.u32 %r41, [c1];\n  add.u32 %r41, %r41, 1;\n  " + STORE
           + "\n  " + COMMIT)
    ptx = edit_ptx(store_kernel(8), STORE + "\n  " + COMMIT, two)
    ptx = edit_ptx(ptx, WAIT_READ, "@%p2 cp.async.bulk.wait_group.read 1;\n  @%p2 st.shared.u32 [%r7], 0;\n  "
                                "@%p2 cp.async.bulk.wait_group.read 0;")
    with pytest.raises(ptxsim.PTXRuntimeError, match=_OVERWRITE):
        run_store(ptx, tile, dst, gdim, (0, 0))
    # the same without the overwrite: both boxes land, the second one row lower, over the first
    ptx = edit_ptx(ptx, "@%p2 st.shared.u32 [%r7], 0;\n  ")
    before = dst.copy()
    res = run_store(ptx, tile, dst, gdim, (0, 0))
    want = expected_dst(expected_dst(before, tile, gdim, (0, 0)), tile, gdim, (0, 1))
    np.testing.assert_array_equal(dst, want)
    assert res.stats["tma_stores"] == 2


# ---- stmatrix / ldmatrix round trips ---------------------------------------------------------------

ROUND_TRIP = HEAD + """
.visible .entry rt(.param .u64 regs, .param .u64 smem_out, .param .u64 regs_out)
.reqntid 32, 1, 1
{
  .reg .pred %p<4>;
  .reg .b32 %r<64>;
  .reg .b64 %rd<16>;
  .shared .align 128 .b8 buf[512];

  ld.param.u64 %rd1, [regs];
  ld.param.u64 %rd2, [smem_out];
  ld.param.u64 %rd3, [regs_out];
  mov.u32 %r0, %laneid;
  shr.u32 %r1, %r0, 3;
  shl.b32 %r1, %r1, 7;
  and.b32 %r2, %r0, 7;
  shl.b32 %r2, %r2, 4;
  mov.u32 %r3, buf;
  add.u32 %r3, %r3, %r1;
  add.u32 %r3, %r3, %r2;
  mul.wide.u32 %rd4, %r0, 4;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.u32 %r10, [%rd5];
  ld.global.u32 %r11, [%rd5+128];
  ld.global.u32 %r12, [%rd5+256];
  ld.global.u32 %r13, [%rd5+384];
  stmatrix.sync.aligned.m8n8.XN_ST.shared::cta.b16 [%r3], {SREGS};
  bar.warp.sync -1;
  ldmatrix.sync.aligned.m8n8.XN_LD.shared.b16 {DREGS}, [%r3];
  add.s64 %rd6, %rd3, %rd4;
  STORES
  mov.u32 %r4, buf;
  mov.u32 %r5, %r0;
$copy:
  shl.b32 %r6, %r5, 2;
  add.u32 %r7, %r4, %r6;
  ld.shared.u32 %r8, [%r7];
  mul.wide.u32 %rd7, %r5, 4;
  add.s64 %rd8, %rd2, %rd7;
  st.global.u32 [%rd8], %r8;
  add.u32 %r5, %r5, 32;
  setp.lt.u32 %p1, %r5, 128;
  @%p1 bra $copy;
  ret;
}
"""


def round_trip_kernel(n, st_trans, ld_trans):
    src = ", ".join(f"%r{10 + i}" for i in range(n))
    dst = ", ".join(f"%r{20 + i}" for i in range(n))
    stores = "\n  ".join(f"st.global.u32 [%rd6+{128 * i}], %r{20 + i};" for i in range(n))
    return (ROUND_TRIP.replace("XN_ST", f"x{n}" + (".trans" if st_trans else ""))
            .replace("XN_LD", f"x{n}" + (".trans" if ld_trans else ""))
            .replace("SREGS", src).replace("DREGS", dst).replace("STORES", stores))


def fragment_to_matrices(regs, trans):
    """(n, 8, 8) uint16 matrices that registers (n, 32) of an m8n8 .b16 fragment describe (PTX ISA)."""
    n = regs.shape[0]
    mats = np.zeros((n, 8, 8), np.uint16)
    for i in range(n):
        for l in range(32):
            g, q = l // 4, l % 4
            lo, hi = regs[i, l] & 0xFFFF, regs[i, l] >> 16
            if trans:
                mats[i, 2 * q, g], mats[i, 2 * q + 1, g] = lo, hi
            else:
                mats[i, g, 2 * q], mats[i, g, 2 * q + 1] = lo, hi
    return mats


def matrices_to_fragment(mats, trans):
    n = mats.shape[0]
    out = np.zeros((n, 32), np.uint32)
    for i in range(n):
        for l in range(32):
            g, q = l // 4, l % 4
            lo, hi = (mats[i, 2 * q, g], mats[i, 2 * q + 1, g]) if trans else (mats[i, g, 2 * q], mats[i, g, 2 * q + 1])
            out[i, l] = int(lo) | (int(hi) << 16)
    return out


@pytest.mark.parametrize("n", [1, 2, 4])
@pytest.mark.parametrize("st_trans, ld_trans", [(False, False), (True, True), (True, False), (False, True)])
def test_stmatrix_ldmatrix_round_trip(n, st_trans, ld_trans):
    """stmatrix.x{n} puts matrix i's rows at the addresses lanes 8i..8i+7 give (here buf + 128 i
    + 16 r); ldmatrix from the same addresses gives back the registers (same .trans) or the
    transposed fragment (one .trans); shared bytes past the n matrices keep their 0xFF fill."""
    rng = np.random.default_rng(n)
    regs = rng.integers(0, 1 << 32, (4, 32), dtype=np.uint32)
    smem = np.zeros(512, np.uint8)
    out = np.zeros((4, 32), np.uint32)
    ptxsim.run_ptx(round_trip_kernel(n, st_trans, ld_trans), "rt", 1, [regs, smem, out])
    mats = fragment_to_matrices(regs[:n], st_trans)
    want = np.full(512, 0xFF, np.uint8)
    want[:128 * n] = mats.reshape(-1).view(np.uint8)
    np.testing.assert_array_equal(smem, want)
    np.testing.assert_array_equal(out[:n], matrices_to_fragment(mats, ld_trans))
    if st_trans == ld_trans:
        np.testing.assert_array_equal(out[:n], regs[:n])


def test_stmatrix_misuse():
    ptx = round_trip_kernel(4, False, False)
    regs, smem, out = np.zeros((4, 32), np.uint32), np.zeros(512, np.uint8), np.zeros((4, 32), np.uint32)
    with pytest.raises(ptxsim.MemoryFault, match=r"stmatrix row address .* \(shared offset 8\) is misaligned"):
        ptxsim.run_ptx(edit_ptx(ptx, "and.b32 %r2, %r0, 7;\n  shl.b32 %r2, %r2, 4;", "mov.u32 %r2, 8;"), "rt", 1,
                       [regs, smem, out])
    with pytest.raises(ptxsim.PTXRuntimeError, match=r"stmatrix stores an uninitialized register"):
        ptxsim.run_ptx(edit_ptx(ptx, "ld.global.u32 %r13, [%rd5+384];"), "rt", 1, [regs, smem, out])
    with pytest.raises(ptxsim.UnsupportedPTX, match=r"stmatrix source vector"):
        ptxsim.run_ptx(edit_ptx(ptx, "{%r10, %r11, %r12, %r13}", "{%r10, %r11}"), "rt", 1, [regs, smem, out])


def test_unsupported_store_forms_fail_at_decode():
    dst, tile, gdim = _case(8)
    reduce = "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add"
    for old, new in ((".bulk_group [", ".bulk_group.L2::cache_hint ["),
                     ("cp.async.bulk.tensor.2d.global.shared::cta", reduce),
                     (".2d.global.shared::cta.", ".2d.global.shared::cluster.")):
        with pytest.raises(ptxsim.UnsupportedPTX):
            run_store(edit_ptx(store_kernel(8), old, new), tile, dst, gdim, (0, 0))


@pytest.mark.parametrize("which", ["st", "stmatrix", "stmatrix_trans", "both", "rt1", "rt2t", "rt4"])
def test_kernels_assemble(which, tmp_path):
    """Every hand-written kernel is PTX that ptxas accepts for sm_90a."""
    if PTXAS is None:
        pytest.skip("ptxas not on PATH")
    ptx = {"st": lambda: store_kernel(8),
           "stmatrix": lambda: store_kernel(16, fill="stmatrix"),
           "stmatrix_trans": lambda: store_kernel(8, fill="stmatrix", trans=True),
           "both": lambda: store_kernel(8, wait="both"),
           "rt1": lambda: round_trip_kernel(1, False, True),
           "rt2t": lambda: round_trip_kernel(2, True, True),
           "rt4": lambda: round_trip_kernel(4, True, False)}[which]()
    src = tmp_path / "k.ptx"
    src.write_text(ptx)
    r = subprocess.run([PTXAS, "-arch=sm_90a", str(src), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
