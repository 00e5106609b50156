"""The 23 OpTrait::nv_tile traits and MemoryConsistencyOpInterface.

Each trait is a mixin with a `verify(op)` hook; the verifier runs every trait
an op carries (in declaration order), then the op's own check. Tag-only traits
(the memory-model and pipeline-boundary markers) verify nothing and are read
by analyses through `op.has_trait(...)`.

Tiled memory ops expose `view_value()`, `coord_values()`, `offset_values()`,
`token_values()`, `tile_type()` (the loaded/stored tile) and
`result_token_values()`; the tiled-memop traits read those."""
from __future__ import annotations

from ...ir.attributes import DenseArrayAttr, FloatAttr
from ...ir.traits import Trait
from ...ir.types import FloatType, IndexType, RankedTensorType
from .attributes import AtomAttr, PaddingAttr
from .types import TiledViewType, TmaDescType, num_elements, payload

MAX_TILE_ELEMENTS = 1 << 24  # the implementation's cap on a tile's total element count


def _values(op):
    return list(op.operands) + list(op.results)


def _encoding(t):
    return getattr(payload(t), "encoding", None)


def _shape(t):
    return getattr(payload(t), "shape", None)


# ---- queue, memory model, pipeline boundaries -------------------------------

class FirstOperandIsNonAliasingQueue(Trait):
    """The queue (first) operand aliases no other input of the op."""

    @classmethod
    def verify(cls, op):
        ops = op.operands
        if ops and any(v is ops[0] for v in ops[1:]):
            op.emit_error("expects the queue operand not to alias any other operand")
            return False
        return True


class MemoryModelReadTrait(Trait):
    """Reads memory (for the memory-effect collector)."""


class MemoryModelWriteTrait(Trait):
    """Writes memory."""


class MemoryModelReadWriteTrait(Trait):
    """Reads and writes memory."""


class PipelineAcquireOpTrait(Trait):
    """A producer-acquire / consumer-wait boundary of a pipeline region."""


class PipelineReleaseOpTrait(Trait):
    """A producer-commit / consumer-release boundary of a pipeline region."""


# ---- layout and encodings ---------------------------------------------------

class MustHaveMemLayoutAmongOperandsAndResult(Trait):
    """Some operand or result carries an explicit memory layout: a tiled_view
    (shape, strides, residency) or a tensor with an encoding."""

    @classmethod
    def verify(cls, op):
        for v in _values(op):
            t = payload(v.type)
            if isinstance(t, TiledViewType) or (isinstance(t, RankedTensorType) and t.encoding is not None):
                return True
        op.emit_error("expects at least one operand or result to carry a memory layout")
        return False


class ResultsAreSharedEncoding(Trait):
    """Every view result lives in shared memory (or has no residency yet)."""

    @classmethod
    def verify(cls, op):
        for r in op.results:
            t = payload(r.type)
            if isinstance(t, TiledViewType) and t.residency not in (None, "SMEM"):
                op.emit_error(f"expects results to have the shared-memory encoding, but result #{r.index} "
                              f"is {t.residency}")
                return False
        return True


def _same(op, values, what, message):
    keys = [what(v.type) for v in values]
    if any(k != keys[0] for k in keys[1:]):
        op.emit_error(message)
        return False
    return True


class SameOperandsAndResultEncoding(Trait):
    @classmethod
    def verify(cls, op):
        return _same(op, _values(op), _encoding, "requires the same encoding for all operands and results")


class SameOperandsEncoding(Trait):
    @classmethod
    def verify(cls, op):
        return _same(op, op.operands, _encoding, "requires the same encoding for all operands")


def _shaped_operands(op):
    return [v for v in op.operands if _shape(v.type) is not None]


class SameLoadStoreOperandsAndResultEncoding(Trait):
    """A tiled load's view, stored value and loaded tile agree on encoding."""

    @classmethod
    def verify(cls, op):
        vals = [op.view_value()] + ([] if op.tile_type() is None else [])
        encs = {_encoding(v.type) for v in vals} | ({_encoding(op.tile_type())} if op.tile_type() else set())
        encs.discard(None)
        if len(encs) > 1:
            op.emit_error("requires the same encoding for the view and the tile")
            return False
        return True


class SameLoadStoreOperandsEncoding(SameLoadStoreOperandsAndResultEncoding):
    """The weaker form for ops without a loaded result (stores)."""


class SameLoadStoreOperandsAndResultShape(Trait):
    """The loaded tile has the tiled_view's shape."""

    @classmethod
    def verify(cls, op):
        tile, view = op.tile_type(), op.view_value().type
        if tile is not None and _shape(tile) is not None and tuple(_shape(tile)) != tuple(view.shape):
            op.emit_error("tile shape must match tensor shape")
            return False
        return True


class SameLoadStoreOperandsShape(SameLoadStoreOperandsAndResultShape):
    """The stored tile has the tiled_view's shape."""


class SameOperandsAndResultsAtom(Trait):
    """Every operand/result type that carries an atom (a TMA descriptor made
    for one) carries the op's atom."""

    @classmethod
    def verify(cls, op):
        atom = op.attributes.get("atom")
        for v in _values(op):
            t = v.type
            if isinstance(t, TmaDescType) and t.atom is not None and isinstance(atom, AtomAttr) and t.atom != atom:
                op.emit_error(f"expects the atom {atom.text()} of the operation to match the atom "
                              f"{t.atom.text()} of its descriptor")
                return False
        return True


class SameOperationAndResultsAtom(Trait):
    """The result descriptor records the op's own atom."""

    @classmethod
    def verify(cls, op):
        atom = op.attributes.get("atom")
        for r in op.results:
            t = r.type
            if isinstance(t, TmaDescType) and t.atom is not None and t.atom != atom:
                op.emit_error(f"expects the result descriptor atom {t.atom.text()} to be the operation's "
                              f"atom {atom.text() if atom is not None else 'none'}")
                return False
        return True


class SameTiledViewAndTensorShapeTrait(Trait):
    """A tiled_view result has the shape of the shaped value it views, axis by axis."""

    @classmethod
    def verify(cls, op):
        shaped = _shaped_operands(op)
        for r in op.results:
            t = r.type
            if isinstance(t, TiledViewType) and shaped:
                src = tuple(_shape(shaped[0].type))
                if len(src) == t.rank and src != tuple(t.shape):
                    op.emit_error("tiled_view shape must match the tensor shape on the same axes")
                    return False
        return True


class TensorSizeTrait(Trait):
    """Tile dimensions are positive powers of two; the total is capped."""

    @classmethod
    def verify(cls, op):
        tiles = [op.tile_type()] if hasattr(op, "tile_type") else [payload(r.type) for r in op.results]
        for t in tiles:
            shape = _shape(t) if t is not None else None
            if shape is None:
                continue
            for d in shape:
                if d is None or d <= 0 or (d & (d - 1)) != 0:
                    op.emit_error("tile dimensions must be positive powers of two")
                    return False
            if num_elements(shape) > MAX_TILE_ELEMENTS:
                op.emit_error("tile total element count exceeds the implementation limit")
                return False
        return True


class TensorTypeHavingLayout(Trait):
    """Every tensor operand and result already carries a layout (encoding)."""

    @classmethod
    def verify(cls, op):
        for v in _values(op):
            t = payload(v.type)
            if isinstance(t, RankedTensorType) and t.encoding is None:
                op.emit_error(f"expects tensor types to carry a layout, but got '{t.text()}'")
                return False
        return True


# ---- tiled memops -----------------------------------------------------------

class TiledLoadStoreOpTrait(Trait):
    """The tiled memop bundle: token arity, coordinate count and type, and a
    result token exactly when a token operand is given."""

    @classmethod
    def verify(cls, op):
        tokens = op.token_values()
        if len(tokens) > 1:
            op.emit_error("tiled memop token segment must hold zero or one value")
            return False
        view = op.view_value().type
        coords = op.coord_values()
        if len(coords) != view.rank + op.descriptor_coord_count:
            op.emit_error("tiled memop coordinate count does not match the view rank")
            return False
        offsets = op.offset_values()
        if offsets and len(offsets) != view.rank:
            op.emit_error("tiled memop coordinate count does not match the view rank")
            return False
        if any(not isinstance(v.type, IndexType) for v in list(coords) + list(offsets)):
            op.emit_error("tiled memop coordinates must be index-typed")
            return False
        if len(op.result_token_values()) != len(tokens):
            op.emit_error("expects a result token exactly when a token operand is given")
            return False
        return True


class TiledLoadStoreOpSameElementTypeTrait(TiledLoadStoreOpTrait):
    """The bundle plus: the tile's element type is the view's."""

    @classmethod
    def verify(cls, op):
        tile = op.tile_type()
        if tile is not None and getattr(tile, "element_type", None) != op.view_value().type.element_type:
            op.emit_error("tile element type must match view element type")
            return False
        return True


def is_special_padding(value) -> bool:
    """NaN, an infinity or negative zero."""
    import math
    if isinstance(value, PaddingAttr):
        return value.value in ("nan", "pos_inf", "neg_inf", "neg_zero")
    if isinstance(value, FloatAttr):
        v = value.value
        return math.isnan(v) or math.isinf(v) or (v == 0.0 and math.copysign(1.0, v) < 0)
    return False


class TiledPaddingValueTrait(Trait):
    """A padding value only when in_bounds is false; NaN, infinities and -0
    only for floating-point elements."""

    @classmethod
    def verify(cls, op):
        pad = op.attributes.get("padding_value")
        if pad is None:
            return True
        in_bounds = op.attributes.get("in_bounds")
        if isinstance(in_bounds, DenseArrayAttr) and in_bounds.values and all(in_bounds.values):
            op.emit_error("padding_value is allowed only when in_bounds is false")
            return False
        elt = getattr(op.view_value().type, "element_type", None)
        if is_special_padding(pad) and not isinstance(elt, FloatType):
            op.emit_error("NaN, infinity and negative zero padding values are valid only for floating-point "
                          "elements")
            return False
        return True


class ValidTileASLoadOperandsAndResultEncoding(Trait):
    """tiled_load (and its async form) yields a tile (or an async value of one)
    whose encoding agrees with the view's."""

    @classmethod
    def verify(cls, op):
        t = op.tile_type()
        if t is None or _shape(t) is None:
            op.emit_error("expects the loaded value to be a tile")
            return False
        return SameLoadStoreOperandsAndResultEncoding.verify(op)


ALL_TRAITS = (FirstOperandIsNonAliasingQueue, MemoryModelReadTrait, MemoryModelWriteTrait,
              MemoryModelReadWriteTrait, MustHaveMemLayoutAmongOperandsAndResult, PipelineAcquireOpTrait,
              PipelineReleaseOpTrait, ResultsAreSharedEncoding, SameLoadStoreOperandsAndResultEncoding,
              SameLoadStoreOperandsAndResultShape, SameLoadStoreOperandsEncoding, SameLoadStoreOperandsShape,
              SameOperandsAndResultEncoding, SameOperandsEncoding, SameOperandsAndResultsAtom,
              SameOperationAndResultsAtom, SameTiledViewAndTensorShapeTrait, TensorSizeTrait,
              TensorTypeHavingLayout, TiledLoadStoreOpTrait, TiledLoadStoreOpSameElementTypeTrait,
              TiledPaddingValueTrait, ValidTileASLoadOperandsAndResultEncoding)


# ---- interface --------------------------------------------------------------

class MemoryConsistencyOpInterface(Trait):
    """Ordering matters: pure tile rewrites must not move, duplicate or erase
    these ops, nor match through them."""


def is_memory_consistency_op(op) -> bool:
    return op.has_trait(MemoryConsistencyOpInterface)
