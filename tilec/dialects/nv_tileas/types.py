"""nv_tileas types (and the nv_tileaa / async types its ops carry): pipeline
tokens and iterators, tiled views with their residency tag, memory and async
tokens, async values, TMA descriptors, and the NVFP4 element type."""
from __future__ import annotations

from ...ir.record import frozen

from ...ir import registry
from ...ir.opdef import Constraint
from ...ir.types import DYNAMIC, BodilessType, DialectType, FloatType, IndexType, RankedTensorType, Type, shape_text

RESIDENCIES = ("RMEM", "SMEM", "TMEM", "GMEM")
SWIZZLE_MODES = ("none", "32B", "64B", "128B")  # the values of #nv_tileas.swizzle_mode


class LongType(DialectType):
    """Dialect types that always print with their `!dialect.` prefix (these
    dialects have no short spelling, so the prefix is needed to read them back)."""
    __slots__ = ()

    def text(self, short=False):
        return super().text(False)


class _Bare(BodilessType, LongType):
    __slots__ = ()


# ---- async pipeline ---------------------------------------------------------

@registry.register_type
@frozen(cache_hash=True, repr=False)
class PipelineProducerTokenType(_Bare):
    dialect, mnemonic = "nv_tileas", "async.pipeline.producer_token"


@registry.register_type
@frozen(cache_hash=True, repr=False)
class PipelineConsumerTokenType(LongType):
    """`consumer_token`, optionally `<consumers = N[, idx = I]>`: the size of the
    consumer group and the consumer this token was handed to."""
    consumers: int | None = None
    idx: int | None = None
    dialect, mnemonic = "nv_tileas", "async.pipeline.consumer_token"

    @classmethod
    def takes_no_body(cls):
        return True

    def body(self):
        parts = []
        if self.consumers is not None:
            parts.append(f"consumers = {self.consumers}")
        if self.idx is not None:
            parts.append(f"idx = {self.idx}")
        return ", ".join(parts) if parts else None

    @classmethod
    def parse_body(cls, r):
        if r is None:
            return cls()
        vals = {}
        while True:
            key = r.keyword()
            if key not in ("consumers", "idx") or key in vals:
                r.error(f"unexpected consumer_token parameter '{key}'")
            r.expect("=")
            vals[key] = r.integer()
            if not r.accept(","):
                break
        return cls(vals.get("consumers"), vals.get("idx"))


@registry.register_type
@frozen(cache_hash=True, repr=False)
class PipelineIteratorType(LongType):
    payload: Type
    dialect, mnemonic = "nv_tileas", "async.pipeline.iterator"

    def body(self):
        return self.payload.text(True)

    @classmethod
    def parse_body(cls, r):
        return cls(r.type())


def unwrap_iterator(t):
    """A block argument's type as the region-op template compares it: the
    payload of a pipeline iterator, anything else unchanged."""
    return t.payload if isinstance(t, PipelineIteratorType) else t


# ---- views and memory tokens ------------------------------------------------

def _residency_text(r):
    return r


@frozen(cache_hash=True, repr=False)
class TiledViewType(LongType):
    """`tiled_view<SHAPExELT[, RESIDENCY][, strides = [..]][, swizzle = MODE]>`. The
    residency (RMEM/SMEM/TMEM/GMEM) is a tag on the type, not part of its name;
    absent means not yet decided. `swizzle` (none/32B/64B/128B) is the
    shared-memory layout the TMA checks compare with their descriptor; absent
    means the layout is not decided yet (and passes)."""
    shape: tuple
    element_type: Type
    residency: str | None = None
    strides: tuple | None = None
    swizzle: str | None = None
    dialect, mnemonic = "nv_tileaa", "tiled_view"

    @property
    def rank(self):
        return len(self.shape)

    @property
    def element_stride(self):
        return self.strides[-1] if self.strides else 1

    def body(self):
        s = shape_text(self.shape) + self.element_type.text(True)
        if self.residency is not None:
            s += f", {self.residency}"
        if self.strides is not None:
            s += ", strides = [" + ", ".join("?" if d is DYNAMIC else str(d) for d in self.strides) + "]"
        if self.swizzle is not None:
            s += f", swizzle = {self.swizzle}"
        return s

    @classmethod
    def parse_body(cls, r):
        shape, elt = r.shape_and_element()
        residency = strides = swizzle = None
        while r.accept(","):
            kind, word, _ = r.peek()
            if word in RESIDENCIES and residency is None:
                r.next()
                residency = word
            elif word.startswith("#nv_tileaa.residency") and residency is None:
                r.next()
                r.expect("<")
                residency = r.keyword()
                if residency not in RESIDENCIES:
                    r.error("expected one of RMEM, SMEM, TMEM, GMEM")
                r.expect(">")
            elif word == "strides" and strides is None:
                r.next()
                r.expect("=")
                strides = r.int_list(allow_dynamic=True)
                if len(strides) != len(shape):
                    r.error("expected one stride per dimension")
            elif word == "swizzle" and swizzle is None:
                r.next()
                r.expect("=")
                swizzle = r.chunk(",>")
                if swizzle not in SWIZZLE_MODES:
                    r.error(f"expected swizzle to be one of: {', '.join(SWIZZLE_MODES)}")
            else:
                r.error(f"expected residency (RMEM, SMEM, TMEM, GMEM), 'strides' or 'swizzle', got '{word}'")
        return cls(tuple(shape), elt, residency, strides, swizzle)

    def with_residency(self, residency):
        return type(self)(self.shape, self.element_type, residency, self.strides, self.swizzle)


registry.register_type(TiledViewType)


@registry.register_type
@frozen(cache_hash=True, repr=False)
class TileasTiledViewType(TiledViewType):
    """The same view spelled `!nv_tileas.tiled_view<...>`."""
    dialect, mnemonic = "nv_tileas", "tiled_view"


@registry.register_type
@frozen(cache_hash=True, repr=False)
class MemTokenType(_Bare):
    dialect, mnemonic = "nv_tileaa", "mem_token"


@registry.register_type
@frozen(cache_hash=True, repr=False)
class AsyncTokenType(_Bare):
    dialect, mnemonic = "async", "token"


@registry.register_type
@frozen(cache_hash=True, repr=False)
class AsyncValueType(LongType):
    value_type: Type
    dialect, mnemonic = "async", "value"

    def body(self):
        return self.value_type.text(True)

    @classmethod
    def parse_body(cls, r):
        return cls(r.type())


@registry.register_type
@frozen(cache_hash=True, repr=False)
class TmaDescType(LongType):
    """`tma_desc`, optionally `<#nv_tileas<atom ...>>`: the atom it was made for."""
    atom: object = None
    dialect, mnemonic = "nv_tileas", "tma_desc"

    @classmethod
    def takes_no_body(cls):
        return True

    def body(self):
        return None if self.atom is None else self.atom.text()

    @classmethod
    def parse_body(cls, r):
        if r is None:
            return cls()
        from .attributes import AtomAttr
        a = r.attribute()
        if not isinstance(a, AtomAttr):
            r.error("expected an atom attribute")
        return cls(a)


@registry.register_type
@frozen(cache_hash=True, repr=False)
class NV4E0M3FType(_Bare):
    """FloatNV4E0M3F, the NVFP4 element type (4 bits). It has no builtin
    spelling, so it is written `!nv_tileas.fnv4E0M3F`."""
    dialect, mnemonic = "nv_tileas", "fnv4E0M3F"
    width = 4


# ---- predicates and constraints --------------------------------------------

def is_tiled_view(t):
    return isinstance(t, TiledViewType)


def is_tma_desc(t):
    from ...ir.types import OpaqueType
    return isinstance(t, TmaDescType) or (isinstance(t, OpaqueType) and t.dialect == "cute_nvgpu"
                                           and t.spelling.startswith("tma_descriptor"))


def is_shaped(t):
    return hasattr(t, "shape") and hasattr(t, "element_type") and not isinstance(t, TiledViewType)


def payload(t):
    """The value an async value carries; other types unchanged."""
    return t.value_type if isinstance(t, AsyncValueType) else t


def element_width(t) -> int | None:
    if isinstance(t, FloatType):
        return t.width
    return getattr(t, "width", None)


def num_elements(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


PRODUCER_TOKEN = Constraint("pipeline producer token", lambda t: isinstance(t, PipelineProducerTokenType))
CONSUMER_TOKEN = Constraint("pipeline consumer token", lambda t: isinstance(t, PipelineConsumerTokenType))
ITERATOR = Constraint("pipeline iterator", lambda t: isinstance(t, PipelineIteratorType))
TILED_VIEW = Constraint("tiled_view", is_tiled_view)
MEM_TOKEN = Constraint("mem_token", lambda t: isinstance(t, MemTokenType))
ASYNC_TOKEN = Constraint("async token", lambda t: isinstance(t, AsyncTokenType))
ASYNC_VALUE = Constraint("async value", lambda t: isinstance(t, AsyncValueType))
ANY_TOKEN = MEM_TOKEN | ASYNC_TOKEN
ASYNC_RESULT = ASYNC_TOKEN | ASYNC_VALUE
TMA_DESC = Constraint("tma descriptor", is_tma_desc)
INDEX = Constraint("index", lambda t: isinstance(t, IndexType))
SHAPED = Constraint("tile or tensor", is_shaped)
TENSOR = Constraint("ranked tensor", lambda t: isinstance(t, RankedTensorType))
