"""Builder helpers for nv_tileas IR, named as in the spec: the pipeline family
(driven by the PipelineOp dispatch table), the view-plus-tiled-memop
composites, the zero-accumulator dot, and thin arith wrappers that add no
overflow flags unless asked."""
from __future__ import annotations

from ...ir.record import factory, mutable
from typing import Callable, Sequence

from ...ir import attributes as A
from ...ir.core import Block, Operation, Region, Value
from ...ir.location import UNKNOWN, Location
from ...ir.types import FloatType, IndexType, IntegerType, RankedTensorType
from ..arith import ops as arith
from .attributes import AtomAttr, MemoryScopeAttr, MemorySemanticAttr
from .ops import compute, memops, pipeline, slices
from .ops.layout import ViewOp
from .ops.pipeline import PIPELINE_DISPATCH, PipelineOp
from .types import PipelineIteratorType


class Builder:
    """An insertion point: ops are inserted at the end of `block`, or before
    `before` when given."""

    def __init__(self, block: Block, before: Operation | None = None, location: Location = UNKNOWN):
        self.block, self.before, self.location = block, before, location

    def insert(self, op: Operation) -> Operation:
        self.block.insert_before(op, self.before)
        return op

    def create(self, cls, location: Location | None = None, **fields):
        return self.insert(cls.create(location=location or self.location, **fields))


RegionBuilder = Callable[[Builder, list], None]


# ---- the pipeline family ---------------------------------------------------

def build_pipeline_op(b: Builder, entry: int, location: Location | None = None, **fields):
    """Create the op of PipelineOp `entry` through the dispatch table."""
    entry = PipelineOp(entry)
    slot = PIPELINE_DISPATCH[entry]
    if slot is None:
        raise ValueError(f"PipelineOp entry {int(entry)} is reserved")
    cls, _shape = slot
    return b.create(cls, location, **fields)


def _named_operand(name: str, value):
    """The named-operand helper: a Python value becomes the typed attribute
    its name calls for (numStages i32, group ids 8-bit, flags bool)."""
    if value is None or isinstance(value, A.Attribute):
        return value
    if name == "numStages":
        return A.IntegerAttr(int(value), IntegerType(32))
    if name in ("producerGroupId", "consumerGroupId"):
        return A.IntegerAttr(int(value), IntegerType(8))
    return A.BoolAttr(bool(value))


def create_pipeline(b: Builder, bufferView: Value, *, numStages, producerGroupId, consumerGroupId,
                    sharedMem=None, dynamic=None, location: Location | None = None):
    """Entry 0: the six named operands, kept by name on the op."""
    from .types import PipelineConsumerTokenType, PipelineProducerTokenType
    named = {n: _named_operand(n, v) for n, v in (("numStages", numStages), ("producerGroupId", producerGroupId),
                                                  ("consumerGroupId", consumerGroupId), ("sharedMem", sharedMem),
                                                  ("dynamic", dynamic))}
    return build_pipeline_op(b, PipelineOp.CREATE_PIPELINE, location, bufferView=bufferView,
                             producer=PipelineProducerTokenType(), consumer=PipelineConsumerTokenType(), **named)


def ensure_pipeline_yield(block: Block):
    """Ends `block` with nv_tileas.async.pipeline.yield: when the body built
    none, the stage payload (the block arguments) is yielded."""
    last = block.last_op
    if last is not None and last.name == pipeline.PipelineYieldOp.name:
        return last
    return block.append(pipeline.PipelineYieldOp.create(values=list(block.arguments)))


def _payload_types(iterator: Value, types):
    if types is not None:
        return list(types)
    t = iterator.type
    return [t.payload] if isinstance(t, PipelineIteratorType) else []


def _region_op(b, entry, location, token, iterator, result_types, body, contract_name, contract, extra):
    block = Block(contract)
    attrs = {contract_name: A.ArrayAttr(tuple(A.TypeAttr(t) for t in contract)), **extra}
    op = build_pipeline_op(b, entry, location, token=token, iterator=iterator, result_types=list(result_types),
                           regions=[Region([block])], attributes=attrs)
    if body is not None:
        body(Builder(block, location=location or b.location), list(block.arguments))
    ensure_pipeline_yield(block)
    return op


def build_produce_one(b: Builder, location, token: Value, iterator: Value, result_types: Sequence,
                      body: RegionBuilder | None, producer_types=None, is_async: bool = False):
    entry = PipelineOp.PRODUCE_ONE_ASYNC if is_async else PipelineOp.PRODUCE_ONE
    return _region_op(b, entry, location, token, iterator, result_types, body, "producer_types",
                      _payload_types(iterator, producer_types), {})


def build_consume_one(b: Builder, location, token: Value, iterator: Value, consumer_idx: int,
                      result_types: Sequence, body: RegionBuilder | None, consumer_types=None,
                      is_async: bool = False):
    entry = PipelineOp.CONSUME_ONE_ASYNC if is_async else PipelineOp.CONSUME_ONE
    return _region_op(b, entry, location, token, iterator, result_types, body, "consumer_types",
                      _payload_types(iterator, consumer_types),
                      {"consumer_idx": A.IntegerAttr(consumer_idx, IntegerType(32))})


def agent_switch(b: Builder, location, bodies: Sequence[RegionBuilder], *, num_agents_per_group: int,
                 max_regs: Sequence[int], isolated: bool = False, num_warps: Sequence[int] | None = None,
                 result_types: Sequence = (), operands: Sequence[Value] = ()):
    """Entry 14: one region per agent body, with the group count, the per-agent
    register budgets and the isolation flag kept together on the op."""
    regions = []
    for body in bodies:
        block = Block()
        regions.append(Region([block]))
        body(Builder(block, location=location or b.location), [])
        if block.last_op is None or block.last_op.name != pipeline.PipelineYieldOp.name:
            block.append(pipeline.PipelineYieldOp.create())
    attrs = {"num_agents_per_group": A.IntegerAttr(num_agents_per_group, IntegerType(32)),
             "max_regs": A.DenseArrayAttr(IntegerType(32), tuple(max_regs))}
    if isolated:
        attrs["isolated"] = A.BoolAttr(True)
    if num_warps is not None:
        attrs["num_warps"] = A.DenseArrayAttr(IntegerType(32), tuple(num_warps))
    return build_pipeline_op(b, PipelineOp.AGENT_SWITCH, location, operands_=list(operands),
                             result_types=list(result_types), regions=regions, attributes=attrs)


# ---- view + tiled memory op -------------------------------------------------

@mutable
class TileViewSpec:
    type: object
    indices: list = factory(list)


@mutable
class TiledMemAttrs:
    atom: AtomAttr
    coords: list
    offsets: list = factory(list)
    token: Value | None = None
    mem_semantic: str | None = None
    mem_scope: str | None = None
    in_bounds: Sequence[bool] | None = None
    padding_value: A.Attribute | None = None
    result_types: list | None = None  # loads: [tile] or [tile, token]

    def semantic_attrs(self) -> dict:
        out = {"atom": self.atom}
        if self.mem_semantic is not None:
            out["mem_semantic"] = MemorySemanticAttr(self.mem_semantic)
        if self.mem_scope is not None:
            out["mem_scope"] = MemoryScopeAttr(self.mem_scope)
        if self.in_bounds is not None:
            out["in_bounds"] = A.DenseArrayAttr(IntegerType(1), tuple(bool(x) for x in self.in_bounds))
        if self.padding_value is not None:
            out["padding_value"] = self.padding_value
        return out


TiledLoadAttrs = TiledStoreAttrs = TiledMemAttrs


def _index(b, v):
    """Coordinates are normalized to index: ints become constants, integers are cast-free passed through."""
    if isinstance(v, int):
        return build_constant(b, v, IndexType())
    return v


def build_view_then_tiled_load(b: Builder, location, source: Value, view: TileViewSpec, attrs: TiledLoadAttrs):
    tile_view = b.create(ViewOp, location, source=source, indices=[_index(b, i) for i in view.indices],
                         result=view.type).result
    tokens = [] if attrs.token is None else [attrs.token]
    results = attrs.result_types
    if results is None:
        results = [RankedTensorType(tuple(view.type.shape), view.type.element_type)]
    if tokens and len(results) == 1:
        results = results + [attrs.token.type]
    return b.create(memops.TiledLoadOp, location, view=tile_view, coords=[_index(b, c) for c in attrs.coords],
                    offsets=[_index(b, o) for o in attrs.offsets], token=tokens, result_types=list(results),
                    attributes=attrs.semantic_attrs())


def build_view_then_tiled_store(b: Builder, location, value: Value, destination: Value, view: TileViewSpec,
                                attrs: TiledStoreAttrs):
    tile_view = b.create(ViewOp, location, source=destination, indices=[_index(b, i) for i in view.indices],
                         result=view.type).result
    tokens = [] if attrs.token is None else [attrs.token]
    return b.create(memops.TiledStoreOp, location, view=tile_view, value=value,
                    coords=[_index(b, c) for c in attrs.coords], offsets=[_index(b, o) for o in attrs.offsets],
                    token=tokens, result_types=[attrs.token.type] if tokens else [],
                    attributes=attrs.semantic_attrs())


# ---- dot -----------------------------------------------------------------------

@mutable
class DotInputs:
    a: Value
    b: Value


def zero_attr(t):
    from ...ir.attributes import DenseElementsAttr
    elt = t.element_type
    return DenseElementsAttr(t, (0.0 if isinstance(elt, FloatType) else 0,), True)


def initialize_accumulator(b: Builder, acc: Value, zero: Value, location=None) -> Value:
    """The accumulator storage filled with `zero`: a whole-tile insert_slice."""
    shape = acc.type.shape
    return b.create(slices.InsertSliceOp, location, source=zero, dest=acc, result=acc.type,
                    static_offsets=A.DenseArrayAttr(IntegerType(64), (0,) * len(shape)),
                    static_sizes=A.DenseArrayAttr(IntegerType(64), tuple(shape)),
                    static_strides=A.DenseArrayAttr(IntegerType(64), (1,) * len(shape))).result


def build_zero_accumulator_dot(b: Builder, location, inputs: DotInputs, acc_type, atom: AtomAttr,
                               signedness_a=None, signedness_b=None) -> Value:
    acc = b.create(slices.AllocTensorOp, location, result=acc_type).result
    zero = b.create(arith.ConstantOp, location, value=zero_attr(acc_type), result=acc_type).result
    acc = initialize_accumulator(b, acc, zero, location)
    from .attributes import SignednessAttr
    extra = {}
    if signedness_a is not None:
        extra["signedness_a"] = SignednessAttr(signedness_a)
    if signedness_b is not None:
        extra["signedness_b"] = SignednessAttr(signedness_b)
    return b.create(compute.DotOp, location, a=inputs.a, b=inputs.b, c=acc, atom=atom, result=acc_type,
                    attributes=extra).result


# ---- arith helpers ---------------------------------------------------------------

def build_constant(b: Builder, value, type, location=None) -> Value:
    if isinstance(value, A.Attribute):
        attr = value
    elif isinstance(type, FloatType):
        attr = A.FloatAttr(float(value), type)
    else:
        attr = A.IntegerAttr(int(value), type)
    return b.create(arith.ConstantOp, location, value=attr, result=type).result


def _binary(cls, b, lhs, rhs, overflow, location):
    attrs = {}
    if overflow:  # only when the caller asks: defaults belong to the arith op
        attrs["overflowFlags"] = arith.IntegerOverflowFlagsAttr(tuple(overflow))
    return b.create(cls, location, lhs=lhs, rhs=rhs, result=lhs.type, attributes=attrs).result


def build_addi(b, lhs, rhs, overflow=None, location=None):
    return _binary(arith.AddIOp, b, lhs, rhs, overflow, location)


def build_subi(b, lhs, rhs, overflow=None, location=None):
    return _binary(arith.SubIOp, b, lhs, rhs, overflow, location)


def build_muli(b, lhs, rhs, overflow=None, location=None):
    return _binary(arith.MulIOp, b, lhs, rhs, overflow, location)


def build_divsi(b, lhs, rhs, location=None):
    return _binary(arith.DivSIOp, b, lhs, rhs, None, location)


def build_remsi(b, lhs, rhs, location=None):
    return _binary(arith.RemSIOp, b, lhs, rhs, None, location)


def build_maxsi(b, lhs, rhs, location=None):
    return _binary(arith.MaxSIOp, b, lhs, rhs, None, location)


def build_select(b, condition, true_value, false_value, location=None):
    return b.create(arith.SelectOp, location, condition=condition, true_value=true_value,
                    false_value=false_value, result=true_value.type).result


def build_index_expr(b: Builder, base: Value, lane: Value, stride: Value) -> Value:
    """base + lane * stride."""
    return build_addi(b, base, build_muli(b, lane, stride))
