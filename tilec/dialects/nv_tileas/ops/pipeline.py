"""The async pipeline family: the closed 16-entry PipelineOp enumeration
(entries 0..14 active, 15 reserved) and its ops. PIPELINE_DISPATCH maps each
entry to its op class and the shape of its operation state; builders.py drives
the whole family through `build_pipeline_op(entry, ...)`."""
from __future__ import annotations

import enum

from ....ir import attributes as A
from ....ir.opdef import AttrDef, Operand, RegionDef, Result, VarOperand, VarResult, VARIADIC
from ....ir.traits import Pure, SameOperandsAndResultType, Terminator, has_parent
from .. import directives  # noqa: F401
from ..traits import FirstOperandIsNonAliasingQueue, MemoryModelReadTrait, MemoryModelWriteTrait, \
    PipelineAcquireOpTrait, PipelineReleaseOpTrait
from ..types import ASYNC_TOKEN, CONSUMER_TOKEN, ITERATOR, PRODUCER_TOKEN, TILED_VIEW
from ..verifiers import (check_consumer_idx, verify_agent_switch, verify_pipeline_region_op,
                         verify_yield_against_parent)
from .base import NvTileasOp

P = "nv_tileas.async.pipeline."
ANY_PIPELINE_TOKEN = PRODUCER_TOKEN | CONSUMER_TOKEN


class CreatePipelineOp(NvTileasOp):
    """Entry 0. Six named operands: bufferView is an SSA operand, the other
    five ride along as named attributes so they print by name."""
    name = P + "create_pipeline"
    bufferView = Operand(TILED_VIEW)
    numStages = AttrDef(A.IntegerAttr)
    producerGroupId = AttrDef(A.IntegerAttr)
    consumerGroupId = AttrDef(A.IntegerAttr)
    sharedMem = AttrDef(A.BoolAttr, optional=True)
    dynamic = AttrDef(A.BoolAttr, optional=True)
    producer = Result(PRODUCER_TOKEN)
    consumer = Result(CONSUMER_TOKEN)
    assembly_format = ("$bufferView attr-dict `:` custom<NvTypes>(type($bufferView)) `->` "
                       "custom<NvTypes>(type($producer), type($consumer))")

    def verify_op(self):
        if self.numStages.value < 1:
            self.emit_error(f"expects 'numStages' to be at least 1, but got {self.numStages.value}")
            return False
        for n in ("producerGroupId", "consumerGroupId"):
            if not 0 <= self.attributes[n].value <= 255:
                self.emit_error(f"expects '{n}' to fit in 8 unsigned bits")
                return False
        return True


class _RegionOp(NvTileasOp):
    """produce_one / consume_one and their async forms: one region, verified by
    the shared region-op template against `pipeline_contract`."""
    pipeline_contract = ""
    token = Operand()
    iterator = Operand(ITERATOR)
    body = RegionDef()
    assembly_format = ("$token `,` $iterator attr-dict `:` `(` custom<NvTypes>(type($token), type($iterator)) `)` "
                       "`->` custom<NvTypes>(type($results)) custom<EntryRegion>($body)")

    def verify_op(self):
        if not verify_pipeline_region_op(self, self.pipeline_contract):
            return False
        return check_consumer_idx(self, self.token)

    def region_arguments(self):
        return self.regions[0].blocks[0].arguments if self.regions[0].blocks else []


class ProduceOneOp(_RegionOp):
    """Entry 1."""
    name = P + "produce_one"
    traits = (FirstOperandIsNonAliasingQueue,)
    pipeline_contract = "producer_types"
    token = Operand(PRODUCER_TOKEN)
    producer_types = AttrDef(A.ArrayAttr)
    results = VarResult()


class ProduceOneAsyncOp(ProduceOneOp):
    """Entry 2: also returns the completion token of its async work."""
    name = P + "produce_one_async"


class ConsumeOneOp(_RegionOp):
    """Entry 3."""
    name = P + "consume_one"
    traits = (FirstOperandIsNonAliasingQueue,)
    pipeline_contract = "consumer_types"
    token = Operand(CONSUMER_TOKEN)
    consumer_idx = AttrDef(A.IntegerAttr)
    consumer_types = AttrDef(A.ArrayAttr)
    results = VarResult()


class ConsumeOneAsyncOp(ConsumeOneOp):
    """Entry 4."""
    name = P + "consume_one_async"


def _check_results(op, token_constraint, is_async):
    """Region ops return the token (and, async, an async token)."""
    types = [r.type for r in op.results]
    want = 2 if is_async else 1
    if len(types) != want or not token_constraint(types[0]) or (is_async and not ASYNC_TOKEN(types[1])):
        what = f"a {token_constraint.description}" + (" and an async token" if is_async else "")
        op.emit_error(f"expects results to be {what}")
        return False
    return True


for _cls, _tok, _async in ((ProduceOneOp, PRODUCER_TOKEN, False), (ProduceOneAsyncOp, PRODUCER_TOKEN, True),
                           (ConsumeOneOp, CONSUMER_TOKEN, False), (ConsumeOneAsyncOp, CONSUMER_TOKEN, True)):
    def _verify(self, _tok=_tok, _async=_async):
        return _check_results(self, _tok, _async) and _RegionOp.verify_op(self)
    _cls.verify_op = _verify
del _cls, _tok, _async


class ConsumerReadOp(NvTileasOp):
    """Entry 5: reads the stage payload."""
    name = P + "consumer_read"
    traits = (FirstOperandIsNonAliasingQueue, MemoryModelReadTrait)
    token = Operand(CONSUMER_TOKEN)
    iterator = Operand(ITERATOR)
    consumer_idx = AttrDef(A.IntegerAttr)
    result = Result()
    assembly_format = ("$token `,` $iterator attr-dict `:` custom<NvTypes>(type($token), type($iterator)) `->` "
                       "custom<NvTypes>(type($result))")

    def verify_op(self):
        if self.result.type != self.iterator.type.payload:
            self.emit_error("expects the result to be the iterator's payload type")
            return False
        return check_consumer_idx(self, self.token)


class ProducerWriteOp(NvTileasOp):
    """Entry 6: writes the stage payload."""
    name = P + "producer_write"
    traits = (FirstOperandIsNonAliasingQueue, MemoryModelWriteTrait)
    token = Operand(PRODUCER_TOKEN)
    iterator = Operand(ITERATOR)
    value = Operand()
    result = Result(PRODUCER_TOKEN)
    assembly_format = ("$token `,` $iterator `,` $value attr-dict `:` "
                       "custom<NvTypes>(type($token), type($iterator), type($value)) `->` "
                       "custom<NvTypes>(type($result))")

    def verify_op(self):
        if self.value.type != self.iterator.type.payload:
            self.emit_error("expects the written value to be the iterator's payload type")
            return False
        return True


def _scalar(cls_name, mnemonic, token, with_iter, traits, doc, consumer_idx=False):
    fields = {"name": P + mnemonic, "traits": (FirstOperandIsNonAliasingQueue,) + traits, "__doc__": doc,
              "token": Operand(token), "result": Result(token)}
    fmt = "$token "
    types = "type($token)"
    if with_iter:
        fields["iterator"] = Operand(ITERATOR)
        fmt += "`,` $iterator "
        types += ", type($iterator)"
    if consumer_idx:
        fields["consumer_idx"] = AttrDef(A.IntegerAttr)
        fields["verify_op"] = lambda self: check_consumer_idx(self, self.token)
    fields["assembly_format"] = fmt + f"attr-dict `:` custom<NvTypes>({types}) `->` custom<NvTypes>(type($result))"
    return type(cls_name, (NvTileasOp,), fields)


ProducerAcquireOp = _scalar("ProducerAcquireOp", "producer_acquire", PRODUCER_TOKEN, True,
                            (PipelineAcquireOpTrait,), "Entry 7: grants stage ownership.")
ProducerCommitOp = _scalar("ProducerCommitOp", "producer_commit", PRODUCER_TOKEN, False,
                           (PipelineReleaseOpTrait,), "Entry 8: publishes the stage.")
ConsumerWaitOp = _scalar("ConsumerWaitOp", "consumer_wait", CONSUMER_TOKEN, True,
                         (PipelineAcquireOpTrait,), "Entry 9: observes the commit.", consumer_idx=True)
ConsumerReleaseOp = _scalar("ConsumerReleaseOp", "consumer_release", CONSUMER_TOKEN, False,
                            (PipelineReleaseOpTrait,), "Entry 10: returns the stage to the pool.")


class PipelineYieldOp(NvTileasOp):
    """Entry 11: the variadic terminator of pipeline and agent regions."""
    name = P + "yield"
    traits = (Terminator, has_parent(P + "produce_one", P + "produce_one_async", P + "consume_one",
                                     P + "consume_one_async", P + "agent_switch"))
    values = VarOperand()
    assembly_format = "attr-dict ($values^ `:` custom<NvTypes>(type($values)))?"

    def verify_op(self):
        return verify_yield_against_parent(self)


class IncIterOp(NvTileasOp):
    """Entry 12: advances to the next stage."""
    name = P + "inc_iter"
    traits = (Pure, SameOperandsAndResultType)
    iterator = Operand(ITERATOR)
    result = Result(ITERATOR)
    assembly_format = "$iterator attr-dict `:` custom<NvTypes>(type($iterator)) `->` custom<NvTypes>(type($result))"


class CreateIteratorOp(NvTileasOp):
    """Entry 13: an iterator rotating through the pipeline's stages."""
    name = P + "create_iterator"
    pipeline = Operand(ANY_PIPELINE_TOKEN)
    result = Result(ITERATOR)
    assembly_format = ("$pipeline attr-dict `:` custom<NvTypes>(type($pipeline)) `->` "
                       "custom<NvTypes>(type($result))")


class AgentSwitchOp(NvTileasOp):
    """Entry 14: one region per agent; num_agents_per_group, the per-agent
    max_regs budgets, `isolated` (agent regions do not see the enclosing SSA
    scope) and optional per-agent num_warps (0 inherits)."""
    name = P + "agent_switch"
    operands_ = VarOperand()
    num_agents_per_group = AttrDef(A.IntegerAttr)
    max_regs = AttrDef(A.DenseArrayAttr)
    isolated = AttrDef(A.BoolAttr, optional=True)
    num_warps = AttrDef(A.DenseArrayAttr, optional=True)
    results = VarResult()
    agents = RegionDef(VARIADIC)

    def verify_op(self):
        n = len(self.regions)
        if n == 0:
            self.emit_error("expects at least one agent region")
            return False
        if len(self.max_regs.values) != n:
            self.emit_error(f"expects one 'max_regs' entry per agent region ({n}), but got "
                            f"{len(self.max_regs.values)}")
            return False
        if self.num_warps is not None and len(self.num_warps.values) != n:
            self.emit_error(f"expects one 'num_warps' entry per agent region ({n}), but got "
                            f"{len(self.num_warps.values)}")
            return False
        if self.num_agents_per_group.value < 1:
            self.emit_error("expects 'num_agents_per_group' to be positive")
            return False
        if self.isolated is not None and self.isolated.value and not self._isolated_ok():
            return False
        return verify_agent_switch(self)

    def _isolated_ok(self):
        for region in self.regions:
            inner = set()
            for b in region.blocks:
                inner.add(b)
            for b in region.blocks:
                for top in b.ops:
                    for op in top.walk():
                        for r in op.regions:
                            inner.update(r.blocks)
            for b in region.blocks:
                for top in b.ops:
                    for op in top.walk():
                        for v in op.operands:
                            if v.owner_block() not in inner:
                                self.emit_error("isolated agent regions may not use values defined outside")
                                return False
        return True


# ops an agent makes again from their operands instead of receiving the result
# (a broadcast hoisted out of the K loop: a small handoff instead of a big one)
AGENT_REMADE = ("cuda_tile.broadcast", "cuda_tile.reshape")


def agent_warps(op) -> list[int]:
    """Warps running each region of an agent_switch `op`: its `num_warps` entry
    (4 when absent or 0), and for every region after the first (the producer)
    `num_agents_per_group` copies of that agent sharing the region: tilec's
    reading of the count, so consumer warpgroups can grow without the
    per-agent counts disagreeing."""
    attr = op.attributes.get("num_warps")
    counts = list(attr.values) if attr is not None else [0] * len(op.regions)
    group = op.attributes["num_agents_per_group"].value
    return [(c or 4) * (group if i else 1) for i, c in enumerate(counts)]


FILLS = ("nv_tileas.tiled_load", "nv_tileas.gather_load")


def slot_fill(block):
    """The load that fills a produce_one slot, when the region is only that:
    a tiled_load or gather_load whose result is yielded (and used nowhere
    else), or a tiled TMA load into the slot's view. Such a load may use
    cp.async."""
    term = block.last_op
    if term is None or len(term.operands) != 1:
        return None
    v = term.operands[0]
    d = getattr(v, "op", None)
    if d is not None and d.name in FILLS and d.parent is block and len(v.users) == 1:
        return d
    tma = [o for o in block.ops if o.name == "nv_tileas.async.tiled_tma_load"]
    if len(tma) != 1 or not block.arguments:
        return None
    dest = getattr(tma[0].dest, "op", None)
    if dest is None or dest.name != "nv_tileas.view" or dest.operands[0] is not block.arguments[0]:
        return None
    # the slot itself is yielded, or a load of the view the copy filled
    if v is block.arguments[0] or (d is not None and d.name == "nv_tileas.load" and d.operands[0] is tma[0].dest):
        return tma[0]
    return None


class PipelineOp(enum.IntEnum):
    """The closed 16-entry enumeration of nv_tileas.async.pipeline.* ops."""
    CREATE_PIPELINE = 0
    PRODUCE_ONE = 1
    PRODUCE_ONE_ASYNC = 2
    CONSUME_ONE = 3
    CONSUME_ONE_ASYNC = 4
    CONSUMER_READ = 5
    PRODUCER_WRITE = 6
    PRODUCER_ACQUIRE = 7
    PRODUCER_COMMIT = 8
    CONSUMER_WAIT = 9
    CONSUMER_RELEASE = 10
    YIELD = 11
    INC_ITER = 12
    CREATE_ITERATOR = 13
    AGENT_SWITCH = 14
    RESERVED = 15


# entry -> (op class, OperationState shape); entry 15 is reserved (None)
PIPELINE_DISPATCH = (
    (CreatePipelineOp, "named6"),
    (ProduceOneOp, "region"),
    (ProduceOneAsyncOp, "region"),
    (ConsumeOneOp, "region+consumer_idx"),
    (ConsumeOneAsyncOp, "region"),
    (ConsumerReadOp, "scalar+consumer_idx"),
    (ProducerWriteOp, "scalar"),
    (ProducerAcquireOp, "scalar"),
    (ProducerCommitOp, "scalar"),
    (ConsumerWaitOp, "scalar"),
    (ConsumerReleaseOp, "scalar"),
    (PipelineYieldOp, "terminator"),
    (IncIterOp, "scalar"),
    (CreateIteratorOp, "scalar"),
    (AgentSwitchOp, "agents"),
    None,
)
assert len(PIPELINE_DISPATCH) == len(PipelineOp) == 16
