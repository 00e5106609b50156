// RUN: tilec opt %s --split-input-file --verify-diagnostics
// The region-op verifier template and the consumer_idx, branch-arm and
// agent_switch checks, each diagnostic verbatim (typos are contract).

%buf = nv_tileas.create_none : !nv_tileaa.tiled_view<2x64x64xf16, SMEM>
%p, %c = nv_tileas.async.pipeline.create_pipeline %buf {numStages = 2 : i32, producerGroupId = 0 : i8, consumerGroupId = 1 : i8} : !nv_tileaa.tiled_view<2x64x64xf16, SMEM> -> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
%it = nv_tileas.async.pipeline.create_iterator %p : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.iterator<tile<64x64xf16>>
// no terminator at all: the pseudocode's text
// expected-error@+1 {{'nv_tileas.async.pipeline.produce_one' op pipeline regions must end with 'nv_tileas.async.pipeline.yield'}}
%p2 = nv_tileas.async.pipeline.produce_one %p, %it {producer_types = [tile<64x64xf16>]} : (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<tile<64x64xf16>>) -> !nv_tileas.async.pipeline.producer_token {
^bb0(%x: tile<64x64xf16>):
  %n = nv_tileas.create_none : tile<64x64xf16>
}

// -----

// a terminator of the wrong op kind: the table's text
%buf = nv_tileas.create_none : !nv_tileaa.tiled_view<2x64x64xf16, SMEM>
%p, %c = nv_tileas.async.pipeline.create_pipeline %buf {numStages = 2 : i32, producerGroupId = 0 : i8, consumerGroupId = 1 : i8} : !nv_tileaa.tiled_view<2x64x64xf16, SMEM> -> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
%it = nv_tileas.async.pipeline.create_iterator %c : !nv_tileas.async.pipeline.consumer_token -> !nv_tileas.async.pipeline.iterator<tile<64x64xf16>>
// expected-error@+1 {{'nv_tileas.async.pipeline.consume_one' op expects regions to end with 'nv_tileas.async.pipeline.yield'}}
%c2 = nv_tileas.async.pipeline.consume_one %c, %it {consumer_idx = 0 : i32, consumer_types = [tile<64x64xf16>]} : (!nv_tileas.async.pipeline.consumer_token, !nv_tileas.async.pipeline.iterator<tile<64x64xf16>>) -> !nv_tileas.async.pipeline.consumer_token {
^bb0(%x: tile<64x64xf16>):
  nv_tileas.yield %x : tile<64x64xf16>
}

// -----

%buf = nv_tileas.create_none : !nv_tileaa.tiled_view<2x64x64xf16, SMEM>
%p, %c = nv_tileas.async.pipeline.create_pipeline %buf {numStages = 2 : i32, producerGroupId = 0 : i8, consumerGroupId = 1 : i8} : !nv_tileaa.tiled_view<2x64x64xf16, SMEM> -> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
%it = nv_tileas.async.pipeline.create_iterator %p : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.iterator<tile<64x64xf16>>
// expected-error@+1 {{'nv_tileas.async.pipeline.produce_one' op expects region arguement types to match with producer types [!cuda_tile.tile<64x64xf16>], but got: [!cuda_tile.tile<64x64xf32>]}}
%p2 = nv_tileas.async.pipeline.produce_one %p, %it {producer_types = [tile<64x64xf16>]} : (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<tile<64x64xf16>>) -> !nv_tileas.async.pipeline.producer_token {
^bb0(%x: tile<64x64xf32>):
  nv_tileas.async.pipeline.yield %x : tile<64x64xf32>
}

// -----

// arity: two block arguments against one producer type
%buf = nv_tileas.create_none : !nv_tileaa.tiled_view<2x64x64xf16, SMEM>
%p, %c = nv_tileas.async.pipeline.create_pipeline %buf {numStages = 2 : i32, producerGroupId = 0 : i8, consumerGroupId = 1 : i8} : !nv_tileaa.tiled_view<2x64x64xf16, SMEM> -> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
%it = nv_tileas.async.pipeline.create_iterator %c : !nv_tileas.async.pipeline.consumer_token -> !nv_tileas.async.pipeline.iterator<tile<64x64xf16>>
// expected-error@+1 {{'nv_tileas.async.pipeline.consume_one' op expects region arguement types to match with producer types [!cuda_tile.tile<64x64xf16>], but got: [!cuda_tile.tile<64x64xf16>, index]}}
%c2 = nv_tileas.async.pipeline.consume_one %c, %it {consumer_idx = 0 : i32, consumer_types = [tile<64x64xf16>]} : (!nv_tileas.async.pipeline.consumer_token, !nv_tileas.async.pipeline.iterator<tile<64x64xf16>>) -> !nv_tileas.async.pipeline.consumer_token {
^bb0(%x: tile<64x64xf16>, %i: index):
  nv_tileas.async.pipeline.yield %x : tile<64x64xf16>
}

// -----

// the iterator is unwrapped on the block-argument side: an iterator argument
// over the producer type matches; the yield then disagrees with the contract
%buf = nv_tileas.create_none : !nv_tileaa.tiled_view<2x64x64xf16, SMEM>
%p, %c = nv_tileas.async.pipeline.create_pipeline %buf {numStages = 2 : i32, producerGroupId = 0 : i8, consumerGroupId = 1 : i8} : !nv_tileaa.tiled_view<2x64x64xf16, SMEM> -> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
%it = nv_tileas.async.pipeline.create_iterator %p : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.iterator<tile<64x64xf16>>
// expected-error@+1 {{'nv_tileas.async.pipeline.produce_one_async' op expects region result types to be match with operation result types [!cuda_tile.tile<64x64xf16>], but got: [!nv_tileas.async.pipeline.iterator<tile<64x64xf16>>]}}
%p2, %done = nv_tileas.async.pipeline.produce_one_async %p, %it {producer_types = [tile<64x64xf16>]} : (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<tile<64x64xf16>>) -> !nv_tileas.async.pipeline.producer_token, !async.token {
^bb0(%x: !nv_tileas.async.pipeline.iterator<tile<64x64xf16>>):
  nv_tileas.async.pipeline.yield %x : !nv_tileas.async.pipeline.iterator<tile<64x64xf16>>
}

// -----

// an agent region's yield must produce the agent_switch's results
%v = nv_tileas.create_none : tile<64x64xf16>
// expected-error@+3 {{'nv_tileas.async.pipeline.yield' op expects region yield types to match with result types [!cuda_tile.tile<64x64xf32>], but got: [!cuda_tile.tile<64x64xf16>]}}
%r = "nv_tileas.async.pipeline.agent_switch"() <{num_agents_per_group = 1 : i32, max_regs = array<i32: 232>}> ({
^bb0:
  "nv_tileas.async.pipeline.yield"(%v) : (tile<64x64xf16>) -> ()
}) : () -> tile<64x64xf32>

// -----

%buf = nv_tileas.create_none : !nv_tileaa.tiled_view<2x64x64xf16, SMEM>
%c = nv_tileas.create_none : !nv_tileas.async.pipeline.consumer_token<consumers = 2>
%it = nv_tileas.async.pipeline.create_iterator %c : !nv_tileas.async.pipeline.consumer_token<consumers = 2> -> !nv_tileas.async.pipeline.iterator<tile<64x64xf16>>
// expected-error@+1 {{'nv_tileas.async.pipeline.consumer_wait' op expected 'consumer_idx' less than the number of consumer }}
%w = nv_tileas.async.pipeline.consumer_wait %c, %it {consumer_idx = 2 : i32} : !nv_tileas.async.pipeline.consumer_token<consumers = 2>, !nv_tileas.async.pipeline.iterator<tile<64x64xf16>> -> !nv_tileas.async.pipeline.consumer_token<consumers = 2>

// -----

%c = nv_tileas.create_none : !nv_tileas.async.pipeline.consumer_token<consumers = 2, idx = 1>
%it = nv_tileas.async.pipeline.create_iterator %c : !nv_tileas.async.pipeline.consumer_token<consumers = 2, idx = 1> -> !nv_tileas.async.pipeline.iterator<tile<64x64xf16>>
// expected-error@+1 {{'nv_tileas.async.pipeline.consumer_read' op expected 'consumer_idx' in token to be the same as 'consumer_idx' attribute of this operation }}
%x = nv_tileas.async.pipeline.consumer_read %c, %it {consumer_idx = 0 : i32} : !nv_tileas.async.pipeline.consumer_token<consumers = 2, idx = 1>, !nv_tileas.async.pipeline.iterator<tile<64x64xf16>> -> tile<64x64xf16>

// -----

%c = nv_tileas.create_none : !nv_tileas.async.pipeline.consumer_token<consumers = 1>
%it = nv_tileas.async.pipeline.create_iterator %c : !nv_tileas.async.pipeline.consumer_token<consumers = 1> -> !nv_tileas.async.pipeline.iterator<tile<64x64xf16>>
// expected-error@+1 {{'nv_tileas.async.pipeline.consume_one' op expected 'consumer_idx' less than the number of consumer (1), but got 3}}
%c2 = nv_tileas.async.pipeline.consume_one %c, %it {consumer_idx = 3 : i32, consumer_types = [tile<64x64xf16>]} : (!nv_tileas.async.pipeline.consumer_token<consumers = 1>, !nv_tileas.async.pipeline.iterator<tile<64x64xf16>>) -> !nv_tileas.async.pipeline.consumer_token<consumers = 1> {
^bb0(%x: tile<64x64xf16>):
  nv_tileas.async.pipeline.yield %x : tile<64x64xf16>
}

// -----

%cond = arith.constant 1 : i1
%a = nv_tileas.create_none : !nv_tileas.async.pipeline.iterator<tile<64x64xf16>>
%b = nv_tileas.create_none : !nv_tileas.async.pipeline.iterator<tile<64x64xf32>>
// expected-error@+1 {{'scf.if' op branch arms must yield matching pipeline iterator types}}
%r = scf.if %cond -> (!nv_tileas.async.pipeline.iterator<tile<64x64xf16>>) {
  scf.yield %a : !nv_tileas.async.pipeline.iterator<tile<64x64xf16>>
} else {
  scf.yield %b : !nv_tileas.async.pipeline.iterator<tile<64x64xf32>>
}

// -----

// expected-error@+1 {{'nv_tileas.async.pipeline.agent_switch' op agent regions disagree on warp count}}
"nv_tileas.async.pipeline.agent_switch"() <{num_agents_per_group = 2 : i32, max_regs = array<i32: 232, 40>, num_warps = array<i32: 4, 8>}> ({
  "nv_tileas.async.pipeline.yield"() : () -> ()
}, {
  "nv_tileas.async.pipeline.yield"() : () -> ()
}) : () -> ()

// -----

// expected-error@+1 {{'nv_tileas.async.pipeline.agent_switch' op agent warp count exceeds module budget}}
"nv_tileas.async.pipeline.agent_switch"() <{num_agents_per_group = 2 : i32, max_regs = array<i32: 232, 40, 40>, num_warps = array<i32: 16, 0, 16>}> ({
  "nv_tileas.async.pipeline.yield"() : () -> ()
}, {
  "nv_tileas.async.pipeline.yield"() : () -> ()
}, {
  "nv_tileas.async.pipeline.yield"() : () -> ()
}) : () -> ()
