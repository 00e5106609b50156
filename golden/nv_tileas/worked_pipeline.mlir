// RUN: tilec opt %s --verify-diagnostics
// The roster spec's two-stage producer/consumer pipeline. Repairs (docs/decisions.md,
// "nv_tileas"): the values the spec leaves free are defined up front; the TMA load
// writes an SMEM view (not the tile block argument), takes one coordinate per box
// dim and its mem_token barrier.
%buf_view = nv_tileas.create_none : !nv_tileaa.tiled_view<2x128x128xf16, SMEM>
%tma_desc = nv_tileas.create_none : !cute_nvgpu.tma_descriptor_tiled
%stage_view = nv_tileas.create_none : !nv_tileaa.tiled_view<128x128xf16, SMEM>
%bar = nv_tileas.create_none : !nv_tileaa.mem_token
%b_tile = nv_tileas.create_none : tile<128x128xf16>
%acc = nv_tileas.create_none : tile<128x128xf32>
%k_outer = arith.constant 0 : index
%c0 = arith.constant 0 : index

// Build the pipeline. numStages=2, one producer, one consumer.
%prod_tok, %cons_tok = nv_tileas.async.pipeline.create_pipeline %buf_view
{ numStages = 2 : i32,
producerGroupId = 0 : i8,
consumerGroupId = 1 : i8,
sharedMem = true,
dynamic = false }
: !nv_tileaa.tiled_view<2x128x128xf16, SMEM>
-> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
// Stage iterator
%iter = nv_tileas.async.pipeline.create_iterator %prod_tok
: !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.iterator<tile<128x128xf16>>
// Producer region — TMA loads, one per stage
%prod_tok2 = nv_tileas.async.pipeline.produce_one %prod_tok, %iter
{ producer_types = [tile<128x128xf16>] } : (
!nv_tileas.async.pipeline.producer_token,
!nv_tileas.async.pipeline.iterator<tile<128x128xf16>>
) -> !nv_tileas.async.pipeline.producer_token {
^bb0(%stage_buf : tile<128x128xf16>):
%async_tok = nv_tileas.async.tiled_tma_load
%tma_desc, %stage_view[%k_outer, %c0], %bar
{ atom = #nv_tileas<atom tma_load_2d>,
operandSegmentSizes = array<i32: 1, 1, 2, 1> }
: !cute_nvgpu.tma_descriptor_tiled, !nv_tileaa.tiled_view<128x128xf16, SMEM>,
index, index, !nv_tileaa.mem_token
-> !async.value<tile<128x128xf16>>
nv_tileas.async.pipeline.yield %stage_buf : tile<128x128xf16>
}
// Consumer region — wait for stage, dot, release
%cons_tok2 = nv_tileas.async.pipeline.consume_one %cons_tok, %iter
{ consumer_idx = 0 : i32,
consumer_types = [tile<128x128xf16>] } : (
!nv_tileas.async.pipeline.consumer_token,
!nv_tileas.async.pipeline.iterator<tile<128x128xf16>>
) -> !nv_tileas.async.pipeline.consumer_token {
^bb0(%a_tile : tile<128x128xf16>):
%waited = nv_tileas.async.pipeline.consumer_wait %cons_tok, %iter
{ consumer_idx = 0 : i32 }
: !nv_tileas.async.pipeline.consumer_token,
!nv_tileas.async.pipeline.iterator<tile<128x128xf16>>
-> !nv_tileas.async.pipeline.consumer_token
%d = nv_tileas.dot %a_tile, %b_tile, %acc
{ atom = #nv_tileas<atom mma_f16_f16_f32> }
: tile<128x128xf16>, tile<128x128xf16>, tile<128x128xf32>
-> tile<128x128xf32>
%released = nv_tileas.async.pipeline.consumer_release %waited
: !nv_tileas.async.pipeline.consumer_token
-> !nv_tileas.async.pipeline.consumer_token
nv_tileas.async.pipeline.yield %a_tile : tile<128x128xf16>
}
