"""Broadcasts stay small until their reader's layout, and a prefetch must fit.

Flash attention's backward dQ (examples/cutile/attention_bwd_dq_f16_aligned, a
kernel of our own shaped like TileGym's) subtracts the rows' log-sum-exp and
delta, loaded once as 64-element vectors, from two 64x128 dot results on every
key block. Three rules keep that cheap:

- an element-wise op over broadcasts runs on their sources (conversion/broadcasts.py):
  `negf(broadcast(lse))` becomes `broadcast(negf(lse))`;
- a broadcast read in another layout is made again before its reader, from its
  source converted into the slice of that layout, and that conversion goes before
  the loops that do not change the source (propagate_layouts.rebroadcast): 64 values
  move once, not 8192 on every trip;
- a dot is issued one trip ahead only where the agent's registers hold the next
  trip's accumulator beside the trip's live tiles (wgmma_prefetch._room): here they
  do not (S_{j+1}, P_j, dP_j and dQ: 224 of 216), and ptxas spilled and serialized
  every wgmma when it was.
"""
from __future__ import annotations

import re

import pytest
from conftest import ROOT, ptxas_stderr
from test_lowering_util import lower, read, text_of

from tilec.codegen.ptx import compile_text

DQ = "examples/cutile/attention_bwd_dq_f16_aligned.mlir"


def _lowered(text, schedule):
    ok, ops, engine = lower(text, "sm_90a", schedule=schedule)
    assert ok, [d.message for d in engine.diagnostics]
    return text_of(ops)


def test_an_elementwise_op_of_a_broadcast_runs_on_its_source():
    text = _lowered(read(DQ), schedule=False)
    assert re.search(r"= negf %\S+ : tile<64x1xf32>", text)
    assert not re.search(r"= negf .*: tile<64x128xf32>", text)


KERNEL = """cuda_tile.module @m {
  entry @k(%x: tile<ptr<f32>>, %y: tile<ptr<f32>>, %out: tile<ptr<f32>>) {
    %tx = make_tensor_view %x, shape = [8, 1], strides = [1, 1] : tensor_view<8x1xf32, strides=[1,1]>
    %ty = make_tensor_view %y, shape = [1, 1], strides = [1, 1] : tensor_view<1x1xf32, strides=[1,1]>
    %to = make_tensor_view %out, shape = [8, 16], strides = [16, 1] : tensor_view<8x16xf32, strides=[16,1]>
    %px = make_partition_view %tx : partition_view<tile=(8x1), tensor_view<8x1xf32, strides=[1,1]>>
    %py = make_partition_view %ty : partition_view<tile=(1x1), tensor_view<1x1xf32, strides=[1,1]>>
    %po = make_partition_view %to : partition_view<tile=(8x16), tensor_view<8x16xf32, strides=[16,1]>>
    %c0 = constant <i32: 0> : tile<i32>
    %a, %t0 = load_view_tko weak %px[%c0, %c0] : partition_view<tile=(8x1), tensor_view<8x1xf32, strides=[1,1]>>, tile<i32> -> tile<8x1xf32>, token
    %b, %t1 = load_view_tko weak %py[%c0, %c0] : partition_view<tile=(1x1), tensor_view<1x1xf32, strides=[1,1]>>, tile<i32> -> tile<1x1xf32>, token
    %ba = broadcast %a : tile<8x1xf32> -> tile<8x16xf32>
    %bb = broadcast %b : tile<1x1xf32> -> tile<8x16xf32>
    %s = subf %ba, %bb : tile<8x16xf32>
    %e = exp %s : tile<8x16xf32>
    %t2 = store_view_tko weak %e, %po[%c0, %c0] : tile<8x16xf32>, partition_view<tile=(8x16), tensor_view<8x16xf32, strides=[16,1]>>, tile<i32> -> token
    return
  }
}
"""


def test_ops_over_broadcasts_of_different_sources_run_on_the_larger_source():
    """subf(broadcast(8x1), broadcast(1x1)) runs on 8x1 (the 1x1 broadcast to it
    first), and exp follows it: one broadcast to 8x16 is left, after both."""
    text = _lowered(KERNEL, schedule=False)
    assert re.search(r"= subf %\S+, %\S+ : tile<8x1xf32>", text), text
    assert re.search(r"= exp %\S+ : tile<8x1xf32>", text), text
    assert len(re.findall(r"-> tile<8x16xf32>", text)) == 1, text


def test_the_rows_vectors_move_once_before_the_key_loop():
    text = _lowered(read(DQ), schedule=True)
    lines = text.splitlines()
    loop = next(i for i, l in enumerate(lines) if "scf.for" in l and "tile<64x64xf32>" in l)
    small = [i for i, l in enumerate(lines)
             if re.search(r"nv_tileas.convert_layout .*: tile<64x1xf32> -> tile<64x1xf32>", l)]
    assert len(small) == 2 and all(i < loop for i in small), small
    assert all("layout slice, axes = [0, -1], parent = [64, 128] wgmma" in lines[i] for i in small)
    # nothing of the 64x128 shape moves between layouts in the loop but the dots' zero accumulators
    big = [l for l in lines[loop:] if "nv_tileas.convert_layout" in l and "tile<64x128xf32>" in l]
    assert all("%cst" in l for l in big), big


def test_a_prefetch_that_does_not_fit_the_consumer_is_not_made(tmp_path):
    ptx = compile_text(read(DQ), arch="sm_90a")
    assert "prefetch_done" not in ptx
    err = ptxas_stderr(ptx, tmp_path)
    assert " 0 bytes spill stores" in err and "C7512" not in err, err


@pytest.mark.parametrize("example", ["attention_m128_f16_aligned", "attention_causal_f16"])
def test_attention_forward_keeps_its_prefetch(example):
    """Its trips hold O, S and P beside S_{j+1}: that fits, and the prefetch stays."""
    with open(f"{ROOT}/examples/cutile/{example}.mlir") as fh:
        ptx = compile_text(fh.read(), arch="sm_90a")
    assert "prefetch_done" in ptx
