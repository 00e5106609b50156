"""The verifier walk: per op, the declaration's structural checks, then every
trait's hook, then the op's own verify_op; then its regions; then, once all
nested ops verified, the op's verify_regions (MLIR's region verifier)."""
from __future__ import annotations

from .core import OpResult, Operation
from .diagnostics import DiagnosticEngine, using_engine
from .registry import ATTR_VERIFIERS
from .traits import IsolatedFromAbove


def verify(root: Operation, engine: DiagnosticEngine) -> bool:
    """True when `root` and everything nested in it verifies. Stops at the first
    failing op, as MLIR's verifier does."""
    with using_engine(engine):
        return _verify(root)


def _verify(root) -> bool:
    positions: dict = {}
    stack = [root]
    while stack:
        op = stack.pop()
        if type(op) is _AfterRegions:
            if not op.op.verify_regions():
                return False
            continue
        if not _verify_one(op, positions):
            return False
        if op.regions and getattr(op, "verify_regions", None) is not None:
            stack.append(_AfterRegions(op))
        for r in reversed(op.regions):
            for b in reversed(r.blocks):
                stack.extend(b.ops_reversed())
    return True


class _AfterRegions:
    """A stack mark: run `op`'s region verifier here, after its nested ops."""
    __slots__ = ("op",)

    def __init__(self, op):
        self.op = op


def _verify_one(op, positions) -> bool:
    if ATTR_VERIFIERS and op.attributes:
        for name, attr in op.attributes.items():
            check = ATTR_VERIFIERS.get(name)
            if check is not None and not check(op, attr):
                return False
    if not hasattr(op, "verify_structure"):
        return _verify_dominance(op, positions)  # unregistered: only SSA rules apply
    if not op.verify_structure():
        return False
    for trait in type(op).traits:
        if not trait.verify(op):
            return False
    if not _verify_dominance(op, positions):
        return False
    return op.verify_op()


def _position(op, positions) -> int:
    pos = positions.get(op)
    if pos is None:
        for i, o in enumerate(op.parent.ops):
            positions[o] = i
        pos = positions[op]
    return pos


def _verify_dominance(op, positions) -> bool:
    """A use must be dominated by its definition: earlier in the same block, or in
    an enclosing block, never across an isolated-from-above op."""
    here = op.parent
    for i, use in enumerate(op._operands):
        v = use.value
        if type(v) is OpResult:
            home = v.op.parent
            if home is here and here is not None:  # the common case: defined earlier in this block
                if _position(v.op, positions) >= _position(op, positions):
                    break
                continue
        else:
            home = v.owner_block()
            if home is here:
                continue
        block = here
        crossed_isolated = None
        while block is not None and block is not home:
            owner = block.parent_op
            if owner is not None and owner.has_trait(IsolatedFromAbove) and crossed_isolated is None:
                crossed_isolated = owner
            block = owner.parent if owner is not None else None
        if block is None:
            op.emit_error(f"operand #{i} does not dominate this use")
            return False
        if crossed_isolated is not None:
            op.emit_error("using value defined outside the region").attach_note(
                "required by region isolation constraints", crossed_isolated.location)
            return False
    else:
        return True
    op.emit_error(f"operand #{i} does not dominate this use").attach_note(
        "operand defined here (op in the same block)", v.op.location)
    return False
