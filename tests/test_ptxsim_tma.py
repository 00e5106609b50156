"""The simulator's Hopper TMA with tensor maps built on the device (tests/ptxsim/tma.py):

    tensormap.replace.tile.<field>.shared::cta.b1024.{b32,b64} [map], [ord,] value;
    tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [g], [s], 128;
    fence.proxy.tensormap::generic.acquire.gpu [g], 128;
    mbarrier.arrive.expect_tx.shared::cta.b64 _, [mbar], bytes;
    cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [g, {c0, ..}], [mbar];

and the per-CTA slot pool around them (%smid, ld.relaxed, atom.or/and, bfind,
elect.sync, bar.warp.sync). Hand-written kernels: one warp zero-fills a map in
shared memory, lane 0 sets its fields, the warp copies it into a slot of a
module .global pool, and lane 0 loads a box (partly out of bounds) into a
shared slot; after waiting on the mbarrier the warp copies the slot out as it
is, and the test undoes the swizzle and compares with NumPy (zero fill out of
bounds). Misuse is reported: a read that does not wait sees the 0xFF fill, a
map with an unset or invalid field names it. Every kernel assembles with
ptxas for sm_90a (skipped without ptxas).
"""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from conftest import edit_ptx

try:
    import ptxsim
except ImportError:                    # pragma: no cover
    from tests import ptxsim

PTXAS = shutil.which("ptxas")

HEAD = """.version 8.3
.target sm_90a
.address_size 64

.global .align 128 .b8 __tilec_tmaps_k[2097152];
.global .align 4 .b32 __tilec_tmap_busy_k[256];
"""

ELEMTYPE = {np.dtype(np.float16): 6, np.dtype(np.float32): 7, np.dtype(np.uint8): 0}
SWIZZLE = {0: 0, 32: 1, 64: 2, 128: 3}


def tma_kernel(dtype, box, swizzle, wait=True, build="shared"):
    """PTX of `k(src, out, gdim0.., gstride0.., c0..)`: one warp builds a rank-len(box)
    map of `src` in shared memory and copies it to slot %smid of the pool (or, with
    build="global", builds it in the slot with tensormap.replace on global memory),
    loads the box at (c0, ..) into `slot` and copies the slot's bytes to `out` (before
    waiting on the mbarrier when not `wait`)."""
    rank = len(box)
    esize = np.dtype(dtype).itemsize
    nbytes = int(np.prod(box)) * esize
    params = [".param .u64 src", ".param .u64 out"]
    params += [f".param .u32 gdim{d}" for d in range(rank)]
    params += [f".param .u64 gstride{d}" for d in range(rank - 1)]
    params += [f".param .u32 c{d}" for d in range(rank)]
    fields = [f"@%p1 tensormap.replace.tile.rank.shared::cta.b1024.b32 [%r1], {rank - 1};"]
    for d in range(rank):
        fields += [f"ld.param.u32 %r{30 + d}, [gdim{d}];",
                   f"@%p1 tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%r1], {d}, {box[d]};",
                   f"@%p1 tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%r1], {d}, %r{30 + d};",
                   f"@%p1 tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%r1], {d}, 1;"]
    for d in range(rank - 1):
        fields += [f"ld.param.u64 %rd{20 + d}, [gstride{d}];",
                   f"@%p1 tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%r1], {d}, %rd{20 + d};"]
    fields += [f"@%p1 tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%r1], {ELEMTYPE[np.dtype(dtype)]};",
               "@%p1 tensormap.replace.tile.interleave_layout.shared::cta.b1024.b32 [%r1], 0;",
               f"@%p1 tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%r1], {SWIZZLE[swizzle]};",
               "@%p1 tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [%r1], 0;"]
    coords = ", ".join(f"%r{40 + d}" for d in range(rank))
    loads = "\n  ".join(f"ld.param.u32 %r{40 + d}, [c{d}];" for d in range(rank))
    wait_loop = """$wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r6], 0;
  @!%p2 bra $wait;"""
    copy_out = f"""  mov.u32 %r8, %r0;
$copy:
  shl.b32 %r9, %r8, 2;
  add.u32 %r11, %r7, %r9;
  ld.shared.u32 %r12, [%r11];
  mul.wide.u32 %rd6, %r8, 4;
  add.s64 %rd7, %rd2, %rd6;
  st.global.u32 [%rd7], %r12;
  add.u32 %r8, %r8, 32;
  setp.lt.u32 %p3, %r8, {nbytes // 4};
  @%p3 bra $copy;"""
    field_lines = "\n  ".join(fields)
    address = "@%p1 tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%r1], %rd1;"
    field_lines = address + "\n  " + field_lines
    if build == "shared":
        zero = "st.shared.u32 [%r3], 0;"
        publish = """tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd5], [%r1], 128;"""
    else:
        zero = "mul.wide.u32 %rd8, %r0, 4;\n  add.s64 %rd9, %rd5, %rd8;\n  st.global.u32 [%rd9], 0;"
        publish = "fence.proxy.tensormap::generic.release.gpu;"
        field_lines = field_lines.replace(".shared::cta.b1024", ".global.b1024").replace("[%r1]", "[%rd5]")
    return HEAD + f"""
.visible .entry k({", ".join(params)})
.reqntid 32, 1, 1
{{
  .reg .pred %p<8>;
  .reg .b32 %r<64>;
  .reg .b64 %rd<32>;
  .shared .align 1024 .b8 slot[{max(nbytes, 1024)}];
  .shared .align 128 .b8 tmsm[128];
  .shared .align 8 .b64 mbar;

  setmaxnreg.inc.sync.aligned.u32 232;
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd2, [out];
  mov.u32 %r0, %laneid;
  mov.u32 %r5, %smid;
  mul.wide.u32 %rd3, %r5, 128;
  mov.u64 %rd4, __tilec_tmaps_k;
  cvta.global.u64 %rd4, %rd4;
  add.s64 %rd5, %rd4, %rd3;
  mov.u32 %r1, tmsm;
  shl.b32 %r2, %r0, 2;
  add.u32 %r3, %r1, %r2;
  {zero}
  bar.warp.sync -1;
  elect.sync %r4|%p1, -1;
  {field_lines}
  bar.warp.sync -1;
  {publish}
  fence.proxy.tensormap::generic.acquire.gpu [%rd5], 128;
  mov.u32 %r6, mbar;
  @%p1 mbarrier.init.shared::cta.b64 [%r6], 1;
  fence.mbarrier_init.release.cluster;
  fence.proxy.async.shared::cta;
  bar.warp.sync -1;
  mov.u32 %r7, slot;
  {loads}
  @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r6], {nbytes};
  @%p1 cp.async.bulk.tensor.{rank}d.shared::cluster.global.mbarrier::complete_tx::bytes [%r7], [%rd5, {{{coords}}}], [%r6];
{wait_loop if wait else copy_out}
{copy_out if wait else wait_loop}
  ret;
}}
"""


def run_tma(ptx, phys, gdim, coords, box, grid=1):
    """Run tma_kernel's PTX on `phys` (the physical array; gdim[d] elements of
    dimension d, innermost first); the slot's bytes as uint8."""
    rank = len(box)
    strides = [phys.strides[rank - 2 - d] for d in range(rank - 1)]     # byte stride of dimension d + 1
    nbytes = int(np.prod(box)) * phys.dtype.itemsize
    out = np.zeros(nbytes, np.uint8)
    args = [phys, out] + list(gdim) + strides + list(coords)
    res = ptxsim.run_ptx(ptx, "k", grid, args)
    return out, res


def expected_box(logical, coords, box):
    """The box at `coords` (innermost first) of `logical` (NumPy axis order: outermost
    first), zero outside; shape = box reversed."""
    rank = len(box)
    idx, ok = [], np.ones(tuple(reversed(box)), bool)
    for d in range(rank):
        r = coords[d] + np.arange(box[d])
        valid = (r >= 0) & (r < logical.shape[rank - 1 - d])
        idx.append(np.clip(r, 0, logical.shape[rank - 1 - d] - 1))
        shape = [1] * rank
        shape[rank - 1 - d] = box[d]
        ok &= valid.reshape(shape)
    got = logical[np.ix_(*reversed(idx))]
    return np.where(ok, got, np.zeros((), logical.dtype))


def unswizzle(raw, span, dtype, shape):
    """The dense box from the slot's bytes (slot 1024-byte aligned)."""
    off = np.arange(raw.size)
    if span:
        off = off ^ (((off >> 7) & (span // 16 - 1)) << 4)
    return raw[off].view(dtype).reshape(shape)


def _f16_rows(rows, cols, pad, seed):
    rng = np.random.default_rng(seed)
    phys = rng.standard_normal((rows, cols + pad)).astype(np.float16)
    return phys, phys[:, :cols]


@pytest.mark.parametrize("coords", [(60, -5), (0, 0), (-24, 30), (100, 0)])
def test_2d_f16_box_with_128b_swizzle(coords):
    """box 64 columns x 16 rows of f16 (128-byte rows, 128B swizzle) from a 40 x 100
    tensor whose rows are 104 elements apart; partly (or wholly) out of bounds."""
    phys, logical = _f16_rows(40, 100, 4, 1)
    box = (64, 16)
    out, res = run_tma(tma_kernel(np.float16, box, 128), phys, (100, 40), coords, box)
    got = unswizzle(out, 128, np.float16, (16, 64))
    np.testing.assert_array_equal(got.view(np.uint16), expected_box(logical, coords, box).view(np.uint16))
    assert res.stats["tma_loads"] == 1
    assert not np.array_equal(out.view(np.float16).reshape(16, 64), got) or not got.any()   # the swizzle moved data
    pool = res.globals["__tilec_tmaps_k"]
    assert pool.size == 2097152 and not pool[128:].any() and pool[:128].any()     # %smid 0's slot only


@pytest.mark.parametrize("coords", [(6, 8, -1), (0, 0, 0), (-3, -2, 2)])
def test_3d_f32_box_without_swizzle(coords):
    """rank 3, box 8 x 4 x 2 of f32 (32-byte rows, no swizzle) from a 3 x 10 x 12
    tensor, partly out of bounds in every dimension."""
    rng = np.random.default_rng(2)
    phys = rng.standard_normal((3, 10, 12)).astype(np.float32)
    box = (8, 4, 2)
    out, _ = run_tma(tma_kernel(np.float32, box, 0), phys, (12, 10, 3), coords, box)
    got = out.view(np.float32).reshape(2, 4, 8)
    np.testing.assert_array_equal(got, expected_box(phys, coords, box))


def test_map_built_in_global_memory():
    """tensormap.replace on the map in its global slot (no shared copy, no cp_fenceproxy)."""
    phys, logical = _f16_rows(40, 100, 4, 1)
    box = (64, 16)
    ptx = tma_kernel(np.float16, box, 128, build="global")
    assert "tensormap.replace.tile.box_dim.global.b1024.b32 [%rd5], 1, 16;" in ptx and "cp_fenceproxy" not in ptx
    out, _ = run_tma(ptx, phys, (100, 40), (60, -5), box)
    np.testing.assert_array_equal(unswizzle(out, 128, np.float16, (16, 64)).view(np.uint16),
                                  expected_box(logical, (60, -5), box).view(np.uint16))


@pytest.mark.parametrize("span", [32, 64])
def test_2d_u8_box_with_narrower_swizzles(span):
    """u8 rows of 32 / 64 bytes with the 32B / 64B swizzle, several CTAs (each its %smid slot)."""
    rng = np.random.default_rng(3)
    phys = rng.integers(0, 255, (20, 96), dtype=np.uint8)
    box = (span, 8)
    out, res = run_tma(tma_kernel(np.uint8, box, span), phys, (90, 20), (70, 15), box, grid=3)
    got = unswizzle(out, span, np.uint8, (8, span))
    np.testing.assert_array_equal(got, expected_box(phys[:, :90], (70, 15), box))
    assert res.stats["tma_loads"] == 3
    pool = res.globals["__tilec_tmaps_k"]
    assert pool[:3 * 128].reshape(3, 128).any(axis=1).all() and not pool[3 * 128:].any()


EXPECT_FORMS = {
    "register count and state": "mov.u32 %r50, 2048;\n  @%p1 mbarrier.arrive.expect_tx.shared.b64 %rd10, [%r6], %r50;",
    # the copy first, then expect_tx and a plain arrive (the transaction count is negative meanwhile)
    "copy before expect_tx": "@%p1 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
                             "[%r7], [%rd5, {%r40, %r41}], [%r6];\n"
                             "  @%p1 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r6], 2048;\n"
                             "  @%p1 mbarrier.arrive.shared::cta.b64 %rd11, [%r6];",
}


def expect_form_kernel(form):
    ptx = edit_ptx(tma_kernel(np.float16, (64, 16), 128), _EXPECT, EXPECT_FORMS[form])
    if form == "copy before expect_tx":
        ptx = edit_ptx(ptx, "\n  " + _TMA)
    return ptx


@pytest.mark.parametrize("form", list(EXPECT_FORMS))
def test_expect_tx_forms(form):
    phys, logical = _f16_rows(40, 100, 4, 1)
    box = (64, 16)
    out, _ = run_tma(expect_form_kernel(form), phys, (100, 40), (60, -5), box)
    np.testing.assert_array_equal(unswizzle(out, 128, np.float16, (16, 64)).view(np.uint16),
                                  expected_box(logical, (60, -5), box).view(np.uint16))


def test_a_read_that_does_not_wait_sees_the_fill():
    """The copy lands when its mbarrier phase completes (when nothing else can run):
    reading the slot before waiting gives shared memory's 0xFF fill."""
    phys, _ = _f16_rows(40, 100, 4, 1)
    box = (64, 16)
    out, _ = run_tma(tma_kernel(np.float16, box, 128, wait=False), phys, (100, 40), (0, 0), box)
    assert (out == 0xFF).all()


_BOX1 = "@%p1 tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%r1], 1, 16;"
_ESTRIDE0 = "@%p1 tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%r1], 0, 1;"
_FENCE = "fence.proxy.tensormap::generic.acquire.gpu [%rd5], 128;"
_CPFP = "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd5], [%r1], 128;"
_EXPECT = "@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r6], 2048;"
_TMA = "@%p1 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r7], [%rd5, {%r40, %r41}], [%r6];"
_WAIT = "$wait:\n  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r6], 0;\n  @!%p2 bra $wait;"

MISUSE = {
    "unset box_dim": (lambda p: edit_ptx(p, _BOX1), ptxsim.PTXRuntimeError, r"box_dim\[1\] is unset"),
    "element_stride 2": (lambda p: edit_ptx(p, _ESTRIDE0, _ESTRIDE0.replace(", 1;", ", 2;")), ptxsim.PTXRuntimeError,
                         r"element_stride\[0\] = 2 is not simulated"),
    "box_dim 0": (lambda p: edit_ptx(p, _BOX1, _BOX1.replace("16;", "0;")), ptxsim.PTXRuntimeError,
                  r"box_dim\[1\] = 0 is invalid \(1..256\)"),
    "rank 3 for .2d": (lambda p: edit_ptx(p, "b32 [%r1], 1;\n", "b32 [%r1], 2;\n"), ptxsim.PTXRuntimeError,
                       r"rank = 2 is invalid \(rank 3, but the instruction is .2d\)"),
    "no acquire fence": (lambda p: edit_ptx(p, _FENCE), ptxsim.PTXRuntimeError,
                         r"no fence.proxy.tensormap::generic.acquire"),
    "map never copied out": (lambda p: edit_ptx(p, _CPFP), ptxsim.PTXRuntimeError, r"no tensormap.cp_fenceproxy"),
    "expect_tx too small": (lambda p: edit_ptx(p, _EXPECT, _EXPECT.replace("2048", "1024")), ptxsim.PTXRuntimeError,
                            r"bring 2048 bytes, more than the 1024 expect_tx announced"),
    "expect_tx too large": (lambda p: edit_ptx(p, _EXPECT, _EXPECT.replace("2048", "4096")), ptxsim.Deadlock,
                            r"4096 transaction bytes expected, 2048 in flight"),
    "two copies into one slot": (lambda p: edit_ptx(p, _TMA, _TMA + "\n  " + _TMA), ptxsim.PTXRuntimeError,
                                 r"overlap a copy still in flight"),
    "no wait at all": (lambda p: edit_ptx(p, _WAIT), ptxsim.PTXRuntimeError,
                       r"ended with 1 cp.async.bulk.tensor copies in flight"),
    "misaligned destination": (lambda p: edit_ptx(p, "mov.u32 %r7, slot;", "mov.u32 %r7, slot+64;"),
                               ptxsim.PTXRuntimeError, r"destination .* is not 128-byte aligned"),
    "map in shared memory": (lambda p: edit_ptx(p, "[%rd5, {", "[tmsm, {"), ptxsim.PTXRuntimeError,
                             r"tensor map in shared memory"),
}


@pytest.mark.parametrize("name", list(MISUSE))
def test_misuse_is_reported(name):
    edit, exc, match = MISUSE[name]
    phys, _ = _f16_rows(40, 100, 4, 1)
    box = (64, 16)
    ptx = edit(tma_kernel(np.float16, box, 128))
    with pytest.raises(exc, match=match):
        run_tma(ptx, phys, (100, 40), (60, -5), box)


@pytest.mark.parametrize("gdim, stride, match", [
    ((100, 40), 200, r"global_stride\[0\] = 200 is invalid \(bytes: a multiple of 16"),
    ((100, 41), 208, r"cp.async.bulk.tensor reads global bytes .* past its end"),
])
def test_bad_global_layout_is_reported(gdim, stride, match):
    """A row stride that is no multiple of 16 bytes, and a tensor reaching past its array."""
    phys = np.zeros((40, 104), np.float16)
    box = (64, 16)
    out = np.zeros(2048, np.uint8)
    with pytest.raises(ptxsim.PTXRuntimeError, match=match):
        ptxsim.run_ptx(tma_kernel(np.float16, box, 128), "k", 1, [phys, out, *gdim, stride, 60, 30])


def test_box_narrower_than_its_swizzle_span_is_not_simulated():
    phys, _ = _f16_rows(40, 100, 4, 1)
    box = (32, 16)                       # 64-byte rows with the 128B swizzle
    with pytest.raises(ptxsim.PTXRuntimeError, match=r"narrower than the 128-byte swizzle span"):
        run_tma(tma_kernel(np.float16, box, 128), phys, (100, 40), (0, 0), box)


POOL = HEAD + """
.visible .entry pool(.param .u64 out)
.reqntid 64, 1, 1
{
  .reg .pred %p<8>;
  .reg .b32 %r<32>;
  .reg .b64 %rd<16>;

  ld.param.u64 %rd1, [out];
  mov.u32 %r0, %tid.x;
  shr.u32 %r1, %r0, 5;
  mov.u32 %r2, %smid;
  mov.u32 %r3, %nsmid;
  mov.u64 %rd2, __tilec_tmap_busy_k;
  cvta.global.u64 %rd2, %rd2;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd2, %rd3;
  elect.sync %r4|%p1, -1;
  mov.u32 %r9, 0;
  mov.u32 %r11, 0;
  mov.u32 %r20, 1;
$acquire:
  ld.relaxed.gpu.global.u32 %r5, [%rd4];
  not.b32 %r6, %r5;
  neg.s32 %r7, %r6;
  and.b32 %r7, %r6, %r7;
  bfind.u32 %r8, %r7;
  bar.warp.sync -1;
  add.u32 %r9, %r9, 1;
  shl.b32 %r10, %r20, %r8;
  @%p1 atom.acquire.gpu.global.or.b32 %r11, [%rd4], %r10;
  shfl.sync.idx.b32 %r11, %r11, %r4, 0x1f, -1;
  and.b32 %r12, %r11, %r10;
  setp.ne.u32 %p2, %r12, 0;
  @%p2 bra $acquire;
  bar.sync 0;
  ld.acquire.gpu.global.u32 %r13, [%rd4];
  mov.u32 %r14, %ctaid.x;
  mad.lo.u32 %r15, %r14, 2, %r1;
  mul.wide.u32 %rd5, %r15, 24;
  add.s64 %rd6, %rd1, %rd5;
  @%p1 st.global.u32 [%rd6], %r8;
  @%p1 st.global.u32 [%rd6+4], %r9;
  @%p1 st.global.u32 [%rd6+8], %r13;
  @%p1 st.global.u32 [%rd6+12], %r2;
  @%p1 st.global.u32 [%rd6+16], %r3;
  @%p1 st.global.u32 [%rd6+20], %r4;
  bar.sync 0;
  not.b32 %r16, %r10;
  @%p1 atom.release.gpu.global.and.b32 %r17, [%rd4], %r16;
  setmaxnreg.dec.sync.aligned.u32 40;
  ret;
}
"""


def test_slot_pool_bits_are_taken_and_given_back():
    """Two warps per CTA take a bit of their SM's busy word (atom.or, retrying when the
    other warp took it first), see both bits set, and give them back (atom.and). CTAs
    0 and 4 share %smid 0's word; every word ends 0."""
    out = np.zeros((6, 2, 6), np.uint32)
    res = ptxsim.run_ptx(POOL, "pool", 6, [out])
    slot, tries, word, smid, nsmid, leader = out.transpose(2, 0, 1)
    assert (np.sort(slot, axis=1) == [0, 1]).all()
    assert (np.sort(tries, axis=1) == [1, 2]).all()        # the second warp found the bit taken and retried
    assert (word == 3).all()
    assert (smid == (np.arange(6) % 4)[:, None]).all() and (nsmid == 4).all() and (leader == 0).all()
    assert not res.globals["__tilec_tmap_busy_k"].any()


def test_bfind():
    ptx = HEAD + """
.visible .entry b(.param .u64 out)
.reqntid 1, 1, 1
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  bfind.u32 %r1, 0;
  bfind.u32 %r2, 0x80000001;
  bfind.s32 %r3, -1;
  bfind.s32 %r4, -2;
  bfind.shiftamt.u32 %r5, 1;
  mov.u64 %rd2, 0x10000000000;
  bfind.u64 %r6, %rd2;
  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
  st.global.v2.u32 [%rd1+16], {%r5, %r6};
  ret;
}
"""
    out = np.zeros(6, np.uint32)
    ptxsim.run_ptx(ptx, "b", 1, [out])
    assert out.tolist() == [0xFFFFFFFF, 31, 0xFFFFFFFF, 0, 31, 40]


WARP_SYNC = HEAD + """
.visible .entry w(.param .u64 out)
.reqntid 32, 1, 1
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r0, %laneid;
  setp.ge.u32 %p0, %r0, 16;
  @%p0 bra $high;
  bar.warp.sync 0xffff;
  elect.sync %r1|%p1, 0xffff;
  selp.u32 %r2, 1, 0, %p1;
  mad.lo.u32 %r3, %r1, 100, %r2;
  mul.wide.u32 %rd2, %r0, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
$high:
  MASKED
  ret;
}
"""


def test_warp_sync_and_elect_over_part_of_a_warp():
    """bar.warp.sync / elect.sync with membermask 0xffff: lanes 0-15 meet, lane 0 is elected;
    a membermask that names lanes which never arrive deadlocks, and the report says so."""
    out = np.zeros(32, np.uint32)
    ptxsim.run_ptx(WARP_SYNC.replace("MASKED", ""), "w", 1, [out])
    assert out.tolist() == [1] + [0] * 15 + [0] * 16
    with pytest.raises(ptxsim.Deadlock, match=r"bar.warp.sync of warp 0 \(membermask 0xffffffff\): 16 of 32"):
        ptxsim.run_ptx(WARP_SYNC.replace("MASKED", "").replace("bar.warp.sync 0xffff;", "bar.warp.sync -1;"),
                       "w", 1, [out])
    with pytest.raises(ptxsim.PTXRuntimeError, match=r"membermask 0xffff leaves out the executing lane 16"):
        ptxsim.run_ptx(WARP_SYNC.replace("MASKED", "bar.warp.sync 0xffff;"), "w", 1, [out])


def test_bad_setmaxnreg_is_unsupported():
    bad = POOL.replace("setmaxnreg.dec.sync.aligned.u32 40;", "setmaxnreg.dec.sync.aligned.u32 44;")
    with pytest.raises(ptxsim.UnsupportedPTX, match="multiple of 8"):
        ptxsim.run_ptx(bad, "pool", 1, [np.zeros((1, 2, 6), np.uint32)])


@pytest.mark.parametrize("which", ["tma2d", "tma3d", "global", "expect_tx", "expect_tx2", "pool", "misuse", "warpsync"])
def test_kernels_assemble(which, tmp_path):
    """Every hand-written kernel is PTX that ptxas accepts for sm_90a."""
    if PTXAS is None:
        pytest.skip("ptxas not on PATH")
    ptx = {"tma2d": lambda: tma_kernel(np.float16, (64, 16), 128),
           "tma3d": lambda: tma_kernel(np.float32, (8, 4, 2), 0),
           "global": lambda: tma_kernel(np.float16, (64, 16), 128, build="global"),
           "expect_tx": lambda: expect_form_kernel("register count and state"),
           "expect_tx2": lambda: expect_form_kernel("copy before expect_tx"),
           "pool": lambda: POOL,
           "warpsync": lambda: WARP_SYNC.replace("MASKED", ""),
           "misuse": lambda: tma_kernel(np.float16, (64, 16), 128, wait=False)}[which]()
    src = tmp_path / "k.ptx"
    src.write_text(ptx)
    r = subprocess.run([PTXAS, "-arch=sm_90a", str(src), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
