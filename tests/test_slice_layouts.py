"""Slice layouts (layouts.SliceLayout, tilec/codegen/ptx/slices.py): a reduce over
a linear layout leaves its result in the slice of its operand's layout, and the
reshape / broadcast / element-wise ops that bring it back to the operand's shape
take registers only.

- A slice's coordinates are its parent's, projected: every thread holds, at
  each slice slot, the parent element of the matching parent slot with the
  reduced dimension dropped; broadcasting back is a register relabel
  (linear_layout.register_moves), and the emitted prologue agrees (ptxsim).
- Reduce -> reshape -> broadcast -> subf/divf of an accumulator has no shared
  memory where warps do not split the reduced dimension, and matches the
  interpreter in the simulator.
- The attention examples' K loops keep their row statistics in registers: no
  tile-sized layout change goes through shared memory inside the loop.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

from tilec.dialects.nv_tileas.layouts import SliceLayout, blocked, mma_acc, wgmma_acc
from tilec.dialects.nv_tileas.linear_layout import reduced_layout, register_moves, relabel, to_linear

from test_reduce_layouts import MMA_ACC_ROWMAX, _run_both, check_emitted_bases


def _parents():
    out = []
    for shape, threads in [((64, 64), 128), ((256, 128), 128), ((32, 32), 128), ((128, 64), 256), ((16, 8), 32)]:
        for make in (mma_acc, wgmma_acc):
            lay = make(shape, threads)
            if lay is not None:
                out.append(lay)
    out += [blocked((4, 128), 128), blocked((64, 8), 128), blocked((8, 8, 16), 256), blocked((2, 512), 128)]
    return out


PARENTS = _parents()


def _name(lay):
    return f"{type(lay).__name__}{'x'.join(map(str, lay.shape))}-t{lay.threads}"


@pytest.mark.parametrize("parent", PARENTS, ids=_name)
def test_slice_holds_the_parents_elements_projected(parent):
    plin = to_linear(parent)
    for dim in range(parent.rank):
        shape = tuple(n for d, n in enumerate(parent.shape) if d != dim)
        s = reduced_layout(parent, dim, shape)
        assert isinstance(s, SliceLayout) and s.nslots * parent.shape[dim] >= parent.nslots
        lin = to_linear(s)
        assert lin is not None and lin.nslots == s.nslots
        for tid in range(parent.threads):
            for k in range(s.nslots):
                want = plin.thread_coords(s.slots[k], tid)
                proj = tuple(c for d, c in enumerate(want) if d != dim)
                base = lin.thread_coords(0, tid)
                assert lin.thread_coords(k, tid) == proj
                assert tuple(b + o for b, o in zip(base, s.offsets(k))) == proj
        # copies: the threads that differ only in the copy bits hold the same elements
        for tid in range(parent.threads):
            twin = tid & ~s.copy_mask
            assert [lin.thread_coords(k, tid) for k in range(s.nslots)] == \
                [lin.thread_coords(k, twin) for k in range(s.nslots)]
        # keepdims (reshape to a unit dimension) and back to the parent's shape: registers only
        kshape = tuple(1 if d == dim else n for d, n in enumerate(parent.shape))
        kept = relabel(s, kshape)
        assert kept is not None and to_linear(kept).nslots == s.nslots
        src_of = tuple(-1 if d == dim else d for d in range(parent.rank))
        moves = register_moves(kept, parent, src_of)
        assert moves is not None and len(moves) == parent.nslots
        for slot in range(parent.nslots):
            o = parent.offsets(slot)
            assert kept.offsets(moves[slot]) == tuple(0 if d == dim else c for d, c in enumerate(o))


def test_register_moves_needs_the_same_threads():
    a, b = mma_acc((32, 32), 128), mma_acc((32, 64), 128)
    assert (a.wm, a.wn, b.wm, b.wn) == (2, 2, 1, 4)
    ra = reduced_layout(a, 1, (32,))
    rb = reduced_layout(b, 1, (32,))
    assert register_moves(ra, rb) is None            # other rows in each warp: shared memory
    assert register_moves(ra, ra) == tuple(range(ra.nslots))
    # the same rows in every thread (wgmma: warps split rows only): free
    wa, wb = wgmma_acc((64, 32), 128), wgmma_acc((64, 64), 128)
    assert register_moves(reduced_layout(wa, 1, (64,)), reduced_layout(wb, 1, (64,))) is not None
    bl = blocked((64,), 128)
    assert register_moves(bl, bl) == tuple(range(bl.nslots))


@pytest.mark.parametrize("layout", [reduced_layout(mma_acc((64, 64), 128), 1, (64,)),
                                    relabel(reduced_layout(mma_acc((64, 64), 128), 0, (64,)), (1, 64)),
                                    reduced_layout(wgmma_acc((128, 64), 256), 1, (128,)),
                                    reduced_layout(blocked((8, 8, 16), 256), 1, (8, 16))],
                         ids=lambda l: f"slice{'x'.join(map(str, l.shape))}-t{l.threads}")
def test_slice_bases_match_the_emitted_prologue(layout):
    check_emitted_bases(layout)


# ---- reduce, reshape, broadcast, element-wise: registers only --------------------------------

MMA_SOFTMAX = """cuda_tile.module @mma_softmax {
  entry @mma_softmax(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %o: tile<ptr<f32>>, %mx: tile<ptr<f32>>) {
""" + MMA_ACC_ROWMAX + """    %vo = make_tensor_view %o, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xf32, strides=[64,1]>
    %vm = make_tensor_view %mx, shape = [64, 1], strides = [1, 1] : tensor_view<64x1xf32, strides=[1,1]>
    %m2 = reshape %rmax : tile<64xf32> -> tile<64x1xf32>
    %mb = broadcast %m2 : tile<64x1xf32> -> tile<64x64xf32>
    %d = subf %acc, %mb : tile<64x64xf32>
    %e = exp2 %d : tile<64x64xf32>
    %sum = reduce %e dim=1 identities=[0.000000e+00 : f32] : tile<64x64xf32> -> tile<64xf32>
    (%l: tile<f32>, %r: tile<f32>) {
      %s = addf %l, %r : tile<f32>
      yield %s : tile<f32>
    }
    %s2 = reshape %sum : tile<64xf32> -> tile<64x1xf32>
    %sb = broadcast %s2 : tile<64x1xf32> -> tile<64x64xf32>
    %p = divf %e, %sb : tile<64x64xf32>
    %po = make_partition_view %vo : partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>
    %s1 = store_view_tko weak %p, %po[%c0, %c0] token = %t : tile<64x64xf32>, partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>, tile<i32> -> token
    %pm = make_partition_view %vm : partition_view<tile=(64x1), tensor_view<64x1xf32, strides=[1,1]>>
    %s3 = store_view_tko weak %m2, %pm[%c0, %c0] token = %t : tile<64x1xf32>, partition_view<tile=(64x1), tensor_view<64x1xf32, strides=[1,1]>>, tile<i32> -> token
    return
  }
}
"""


def _after_dot(ptx):
    """The PTX after the last tensor-core instruction, up to the kernel's return (the
    out-of-line code after it is the loads' element-wise paths for misaligned views)."""
    last = max(ptx.rfind("mma.sync"), ptx.rfind("wgmma.wait_group"))
    tail = ptx[last:]
    end = tail.find("\tret;")
    return tail if end < 0 else tail[:end]


@pytest.mark.parametrize("arch,warps,wgmma,free", [("sm_80", 1, None, True), ("sm_80", 4, None, False),
                                                   ("sm_80", 8, None, False), ("sm_90a", 4, True, True),
                                                   ("sm_90a", 8, None, False)])
def test_accumulator_softmax_stays_in_registers(arch, warps, wgmma, free):
    """Where warps do not split the rows' columns (one warp; wgmma's warpgroups
    split rows only), nothing after the dot touches shared memory; else (8 warps:
    mma.sync, a 64-row tile is too small for two warpgroups) only
    the reductions' (warps x rows) buffers do. The store of the 64x1 row max
    writes each row once (the slice's copies skip it). Simulated against the
    interpreter."""
    rng = np.random.default_rng(warps)
    a = rng.standard_normal((64, 32)).astype(np.float16)
    b = rng.standard_normal((32, 64)).astype(np.float16)
    o, mx = np.zeros((64, 64), np.float32), np.zeros((64, 1), np.float32)
    want, got, ptx = _run_both(MMA_SOFTMAX, [a, b, o, mx], arch=arch, num_warps=warps, wgmma=wgmma)
    tail = _after_dot(ptx)
    if free:
        assert "shared" not in tail and "bar.sync" not in tail
    else:
        assert "st.shared.v" not in tail                      # no tile-sized layout change
        assert len(re.findall(r"st\.shared\.f32", tail)) <= 2 * 2 * (warps // 2 + 1)
    np.testing.assert_allclose(got[3], want[3], rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(got[2], want[2], rtol=1e-4, atol=1e-6)


# ---- the attention examples' K loops ---------------------------------------------------------

def _loop_bodies(ptx):
    """The text of each for loop (head label to end label)."""
    return re.findall(r"^\$L_for_head_\d+:\n(.*?)^\$L_for_end_\d+:", ptx, re.M | re.S)


@pytest.mark.parametrize("example,mask_moves", [("flash_attention_f16", 0), ("attention_causal_f16", 4)])
@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_attention_row_statistics_stay_in_registers(example, mask_moves, arch):
    """The online softmax's row max and sum, their reshape and broadcast, the
    rescale of the output accumulator and the loop-carried statistics: no
    f32 tile crosses shared memory in the K loop (before: the score tile's
    broadcast operands and the accumulator's conversions, 32x32 and 32x64 f32
    per iteration). What is left is the reductions' small cross-warp buffers
    (the 2x2 warp grid splits the columns), one small move between the two
    dots' warp grids, the dots' operand staging (f16), and in causal
    attention's diagonal loop the mask (a select of iota comparisons, made in
    the blocked layout) moved into the accumulator's layout: 4 vector stores."""
    from tilec.codegen.ptx import compile_text
    with open(f"examples/cutile/{example}.mlir") as fh:
        ptx = compile_text(fh.read(), arch=arch)
    bodies = [b for b in _loop_bodies(ptx) if "mma.sync" in b or "wgmma" in b]   # not the producers' loops
    assert bodies
    vector = [len(re.findall(r"st\.shared\.v\d\.f32", b)) for b in bodies]
    assert vector[0] == 0 and max(vector) <= mask_moves, vector
    for body in bodies:
        assert len(re.findall(r"st\.shared\.f32", body)) <= 8
        assert body.count("shfl.sync.bfly") >= 8
