"""Rewrite one analysed K loop into its pipelined form.

Before the loop: one stage buffer per pending load (alloc_tensor viewed as an
SMEM tiled_view with numStages leading slots), create_pipeline over it and a
producer and a consumer iterator.

Producer side: produce_one regions, each issuing one clone of the load's
producer slice for its stage's induction value (expand_single_tiled_op) and
yielding the tile into the stage; inc_iter advances the producer iterator.

Consumer side: one consume_one per pipeline, nested so that the innermost
region sees every stage payload; it brackets the compute with
consumer_wait / consumer_release. Loop-carried tiles live in registers: the
region reads them through an RMEM view of the iter_arg (nv_tileas.view) and
writes the new values back with nv_tileas.store; after the region the loop
reads them with nv_tileas.load and yields them.

sm_80: one instruction stream; a prologue fills numStages-1 stages and the
loop produces iteration k+numStages-1 while consuming iteration k (loads past
the end are masked tiles that are never consumed).
sm_90a: agent_switch splits the loop into a producer agent (one warpgroup,
few registers) that only loads and consumer agents that only compute; the
pipeline's numStages buffers bound how far the producer runs ahead. The
agent_switch yields the consumer's loop results (the producer agent yields
create_none placeholders of the same types)."""
from __future__ import annotations

from ..dialects.nv_tileas.builders import Builder, build_addi, build_constant, build_muli
from ..dialects.nv_tileas.ops import layout, memops, pipeline as P, slices, tokens
from ..dialects.nv_tileas.types import (PipelineConsumerTokenType, PipelineIteratorType,
                                        PipelineProducerTokenType, TiledViewType)
from ..dialects.scf import ops as scf
from ..ir import attributes as A
from ..ir.core import Block, Region
from ..ir.types import IndexType, IntegerType, RankedTensorType
from ..rewrite.clone import clone_op
from .expand import expand_single_tiled_op

I32 = IntegerType(32)


class PipelineInfo:
    def __init__(self, pair, producer, consumer, p_iter, c_iter):
        self.pair, self.producer, self.consumer = pair, producer, consumer
        self.p_iter, self.c_iter = p_iter, c_iter
        self.tma = None   # a TmaPlan when the producer uses TMA

    @property
    def payload(self):
        return self.pair.tile_type


def create_pipelines(b: Builder, stages, loc):
    out = []
    for pair in stages.pairs:
        t = pair.tile_type
        shape = (stages.num_stages,) + tuple(t.shape)
        buf = b.create(slices.AllocTensorOp, loc, result=RankedTensorType(shape, t.element_type),
                       attributes={"nv_tileas.stage_buffer": A.IntegerAttr(pair.pipeline_index, I32)}).result
        view = b.create(layout.ViewOp, loc, source=buf, indices=[],
                        result=TiledViewType(shape, t.element_type, "SMEM")).result
        cp = b.create(P.CreatePipelineOp, loc, bufferView=view,
                      numStages=A.IntegerAttr(stages.num_stages, I32),
                      producerGroupId=A.IntegerAttr(0, IntegerType(8)),
                      consumerGroupId=A.IntegerAttr(1, IntegerType(8)),
                      sharedMem=A.BoolAttr(True), dynamic=A.BoolAttr(False),
                      producer=PipelineProducerTokenType(), consumer=PipelineConsumerTokenType())
        it_t = PipelineIteratorType(t)
        pi = b.create(P.CreateIteratorOp, loc, pipeline=cp.results[0], result=it_t).result
        ci = b.create(P.CreateIteratorOp, loc, pipeline=cp.results[1], result=it_t).result
        out.append(PipelineInfo(pair, cp.results[0], cp.results[1], pi, ci))
    return out


def _types_attr(types):
    return A.ArrayAttr(tuple(A.TypeAttr(t) for t in types))


def produce_stages(b: Builder, analysis, info: PipelineInfo, iv_values: list, iterator, loc, bound=None):
    """One produce_one per induction value (one per stage), each loading that
    stage's tile; returns the advanced producer iterator. `bound`: the loop's
    upper bound where an induction value may lie outside the loop (a single
    stream's producer runs ahead past its end): a gather's reads are then
    masked to the values inside it."""
    t = info.payload
    blocks = {}
    for stage, _ in enumerate(iv_values):
        block = Block([t])
        b.create(P.ProduceOneOp, loc, token=info.producer, iterator=iterator,
                 producer_types=_types_attr([t]), results=[PipelineProducerTokenType()],
                 regions=[Region([block])])
        iterator = b.create(P.IncIterOp, loc, iterator=iterator, result=iterator.type).result
        blocks[stage] = block
    if getattr(info, "tma", None) is not None:
        from .tma import fill_tma_stage
        for stage, block in blocks.items():
            fill_tma_stage(block, analysis, info.tma, iv_values[stage], loc)
        return iterator
    slice_ops = analysis.slices[info.pair.load]
    seeds = {stage: {analysis.iv: v} for stage, v in enumerate(iv_values)}
    replicas = expand_single_tiled_op(slice_ops, seeds, lambda stage, op: blocks[stage].append(op))
    for stage, block in blocks.items():
        fill = replicas[stage]
        if bound is not None and fill.name == "nv_tileas.gather_load":
            fill = _within(fill, iv_values[stage], bound, loc)
        block.append(P.PipelineYieldOp.create(location=loc, values=[fill.results[0]]))
    return iterator


def _within(gather, iv, bound, loc):
    """`gather` (issued for induction value `iv`) replaced by one whose mask also
    requires iv < bound. A tiled load's view bounds the reads of iterations
    outside the loop; a gather's indices may point anywhere then, and a read the
    program never makes may fault."""
    from ..dialects.cuda_tile.attributes import ComparisonPredicateAttr, SignednessAttr
    from ..dialects.cuda_tile.ops.arith_int import AndIOp, CmpIOp
    from ..dialects.cuda_tile.ops.core import BroadcastOp, ReshapeOp
    from ..dialects.cuda_tile.types import TileType
    from ..dialects.nv_tileas.attributes import PaddingAttr
    from ..dialects.nv_tileas.ops.casts import IndexCastOp
    b = Builder(gather.parent, before=gather, location=loc)
    i64, i1 = TileType((), IntegerType(64)), TileType((), IntegerType(1))
    at = b.create(IndexCastOp, loc, input=iv, result=i64).result
    end = b.create(IndexCastOp, loc, input=bound, result=i64).result
    ok = b.create(CmpIOp, loc, lhs=at, rhs=end, result=i1, comparison_predicate=ComparisonPredicateAttr("less_than"),
                  signedness=SignednessAttr("signed")).result
    shape = tuple(gather.results[0].type.shape)
    ok = b.create(ReshapeOp, loc, source=ok, result=TileType((1,) * len(shape), i1.element_type)).result
    mask_t = TileType(shape, i1.element_type)
    ok = b.create(BroadcastOp, loc, source=ok, result=mask_t).result
    if gather.mask is not None:
        ok = b.create(AndIOp, loc, lhs=gather.mask, rhs=ok, result=mask_t).result
    attrs = dict(gather.attributes)
    attrs.pop("operandSegmentSizes", None)
    attrs.setdefault("padding_value", PaddingAttr("zero"))
    new = b.create(memops.GatherLoadOp, loc, view=gather.view, indices=gather.indices, mask=ok, token=None,
                   result=gather.results[0].type, attributes=attrs)
    gather.results[0].replace_all_uses_with(new.results[0])
    gather.erase()
    return new


def consume_nest(b: Builder, analysis, infos, acc_views, iv, loc):
    """Nested consume_one regions (one per pipeline); the innermost holds the
    loop's compute, with the old induction variable read as `iv` (the new
    loop's). Returns nothing: results leave through the RMEM views."""
    body = analysis.body
    pending = {i.pair.load for i in infos}
    mapping = {analysis.iv: iv}
    early = analysis.early
    for op in body.ops:
        if op in early:
            b.insert(clone_op(op, mapping))

    def level(bb: Builder, k: int):
        info = infos[k]
        t = info.payload
        block = Block([t])
        bb.create(P.ConsumeOneOp, loc, token=info.consumer, iterator=info.c_iter,
                  consumer_idx=A.IntegerAttr(0, I32), consumer_types=_types_attr([t]),
                  results=[PipelineConsumerTokenType()], regions=[Region([block])])
        inner = Builder(block, location=loc)
        waited = inner.create(P.ConsumerWaitOp, loc, token=info.consumer, iterator=info.c_iter,
                              consumer_idx=A.IntegerAttr(0, I32), result=PipelineConsumerTokenType()).result
        mapping[info.pair.load.results[0]] = block.arguments[0]
        if k + 1 < len(infos):
            level(inner, k + 1)
        else:
            compute(inner)
        inner.create(P.ConsumerReleaseOp, loc, token=waited, result=PipelineConsumerTokenType())
        inner.create(P.PipelineYieldOp, loc, values=[block.arguments[0]])

    def compute(cb: Builder):
        for arg, view in zip(body.arguments[1:], acc_views):
            mapping[arg] = cb.create(memops.LoadOp, loc, view=view, token=None, result=arg.type).result
        term = body.last_op
        for op in body.ops:
            if op is term or op in pending or op in early:
                continue
            cb.insert(clone_op(op, mapping))
        for view, v in zip(acc_views, term.operands):
            cb.create(memops.StoreOp, loc, view=view, value=mapping.get(v, v), token=None)

    level(b, 0)


def _acc_views(b: Builder, args, loc):
    return [b.create(layout.ViewOp, loc, source=a, indices=[],
                     result=TiledViewType(tuple(a.type.shape), a.type.element_type, "RMEM")).result
            for a in args]


def _consumer_iteration(b: Builder, analysis, infos, accs, c_iters, iv, loc):
    """The consumer half of iteration `iv`; returns (new accs, new consumer iterators)."""
    for info, it in zip(infos, c_iters):
        info.c_iter = it
    views = _acc_views(b, accs, loc)
    consume_nest(b, analysis, infos, views, iv, loc)
    new_iters = [b.create(P.IncIterOp, loc, iterator=it, result=it.type).result for it in c_iters]
    new_accs = [b.create(memops.LoadOp, loc, view=v, token=None, result=a.type).result
                for v, a in zip(views, accs)]
    return new_accs, new_iters


def _for(b: Builder, lb, ub, st, inits, loc, fill):
    block = Block([IndexType()] + [v.type for v in inits])
    loop = b.create(scf.ForOp, loc, lowerBound=lb, upperBound=ub, step=st, initArgs=list(inits),
                    results=[v.type for v in inits], regions=[Region([block])])
    yielded = fill(Builder(block, location=loc), block.arguments[0], list(block.arguments[1:]))
    block.append(scf.YieldOp.create(location=loc, results_=list(yielded)))
    return loop


def pipeline_single_stream(analysis, stages, infos, loc):
    """sm_80 shape: prologue + one loop producing ahead and consuming."""
    loop = analysis.loop
    b = Builder(loop.parent, before=loop, location=loc)
    lb, ub, st = loop.operands[:3]
    inits = list(loop.operands[3:])
    n_acc, n_p = len(inits), len(infos)
    dist = stages.distance
    p_iters = []
    for info in infos:
        ivs = [lb]
        for s in range(1, dist):
            ivs.append(build_addi(b, lb, build_muli(b, build_constant(b, s, IndexType()), st)))
        p_iters.append(produce_stages(b, analysis, info, ivs, info.p_iter, loc, ub) if dist else info.p_iter)
    c_iters = [i.c_iter for i in infos]

    def fill(fb, iv, args):
        accs, pits, cits = args[:n_acc], args[n_acc:n_acc + n_p], args[n_acc + n_p:]
        ahead = build_addi(fb, iv, build_muli(fb, build_constant(fb, dist, IndexType()), st)) if dist else iv
        new_p = [produce_stages(fb, analysis, info, [ahead], it, loc, ub) for info, it in zip(infos, pits)]
        new_accs, new_c = _consumer_iteration(fb, analysis, infos, accs, cits, iv, loc)
        return new_accs + new_p + new_c

    new = _for(b, lb, ub, st, inits + p_iters + c_iters, loc, fill)
    _drain(Builder(loop.parent, before=loop, location=loc), infos, new.results[n_acc + n_p:], dist, loc)
    return list(new.results[:n_acc])


def _drain(b: Builder, infos, c_iters, dist: int, loc):
    """Wait, after the loop, for the `dist` stages produced ahead and never
    consumed (the prologue's for a loop shorter than `dist`, the last
    iterations' beyond its end). Their copies and the barrier arrivals that
    count them land asynchronously: left pending, they would write into
    shared memory that a later pipeline, or the next CTA, already uses."""
    for info, it in zip(infos, c_iters):
        for _ in range(dist):
            b.create(P.ConsumerWaitOp, loc, token=info.consumer, iterator=it,
                     consumer_idx=A.IntegerAttr(0, I32), result=PipelineConsumerTokenType())
            it = b.create(P.IncIterOp, loc, iterator=it, result=it.type).result


def pipeline_agents(analysis, stages, infos, regs, num_warps, loc):
    """sm_90a shape: agent_switch { producer agent } { consumer agent }."""
    loop = analysis.loop
    b = Builder(loop.parent, before=loop, location=loc)
    lb, ub, st = loop.operands[:3]
    inits = list(loop.operands[3:])
    n_acc = len(inits)
    result_types = [v.type for v in inits]

    def producer(pb: Builder, _args):
        def fill(fb, iv, its):
            return [produce_stages(fb, analysis, info, [iv], it, loc) for info, it in zip(infos, its)]
        _for(pb, lb, ub, st, [i.p_iter for i in infos], loc, fill)
        holes = [pb.create(tokens.CreateNoneOp, loc, result=t).result for t in result_types]
        pb.create(P.PipelineYieldOp, loc, values=holes)

    def consumer(cb: Builder, _args):
        def fill(fb, iv, args):
            accs, cits = args[:n_acc], args[n_acc:]
            new_accs, new_c = _consumer_iteration(fb, analysis, infos, accs, cits, iv, loc)
            return new_accs + new_c
        lp = _for(cb, lb, ub, st, inits + [i.c_iter for i in infos], loc, fill)
        cb.create(P.PipelineYieldOp, loc, values=list(lp.results[:n_acc]))

    from ..dialects.nv_tileas.builders import agent_switch
    # one warpgroup per agent (setmaxnreg works per warpgroup); num_agents_per_group
    # consumer warpgroups share the consumer region
    op = agent_switch(b, loc, [producer, consumer], num_agents_per_group=regs.consumer_agents,
                      max_regs=[regs.producer_budget, regs.consumer_budget], num_warps=[4, 4],
                      result_types=result_types)
    return list(op.results)
