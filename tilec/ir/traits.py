"""Generic op traits (MLIR's OpTrait equivalents). A trait is a mixin class with
a `verify(op) -> bool` classmethod that emits its own diagnostic on failure.
Dialects add their own traits the same way."""
from __future__ import annotations


class Trait:
    @classmethod
    def verify(cls, op) -> bool:
        return True


class Pure(Trait):
    """No side effects; dead instances may be erased."""


class ConstantLike(Trait):
    pass


class Terminator(Trait):
    @classmethod
    def verify(cls, op):
        if op.parent is not None and op.parent.last_op is not op:
            op.emit_error("must be the last operation in the parent block")
            return False
        return True


class ReturnLike(Trait):
    pass


class NoTerminator(Trait):
    pass


class SingleBlock(Trait):
    @classmethod
    def verify(cls, op):
        for i, r in enumerate(op.regions):
            if len(r.blocks) > 1:
                op.emit_error(f"expects region #{i} to have 0 or 1 blocks")
                return False
        return True


class IsolatedFromAbove(Trait):
    """Regions may not use values defined outside the op."""


class SymbolTable(Trait):
    pass


class Symbol(Trait):
    pass


class RecursiveMemoryEffects(Trait):
    pass


class SameOperandsAndResultType(Trait):
    @classmethod
    def verify(cls, op):
        types = [v.type for v in op.operands] + [r.type for r in op.results]
        if any(t != types[0] for t in types[1:]):
            op.emit_error("requires the same type for all operands and results")
            return False
        return True


class SameTypeOperands(Trait):
    @classmethod
    def verify(cls, op):
        types = [v.type for v in op.operands]
        if any(t != types[0] for t in types[1:]):
            op.emit_error("requires all operands to have the same type")
            return False
        return True


class SameOperandsAndResultShape(Trait):
    @classmethod
    def verify(cls, op):
        shapes = [getattr(v.type, "shape", None) for v in list(op.operands) + list(op.results)]
        if any(s != shapes[0] for s in shapes[1:]):
            op.emit_error("requires the same shape for all operands and results")
            return False
        return True


class SameOperandsAndResultElementType(Trait):
    @classmethod
    def verify(cls, op):
        elts = [getattr(v.type, "element_type", v.type) for v in list(op.operands) + list(op.results)]
        if any(e != elts[0] for e in elts[1:]):
            op.emit_error("requires the same element type for all operands and results")
            return False
        return True


class HasParent(Trait):
    """Subclass with `parents = ("dialect.op", ...)`; see has_parent()."""
    parents: tuple = ()

    @classmethod
    def verify(cls, op):
        parent = op.parent_op
        if parent is None or parent.name not in cls.parents:
            names = ", ".join(f"'{p}'" for p in cls.parents)
            op.emit_error(f"expects parent op {'to be one of ' if len(cls.parents) > 1 else ''}{names}")
            return False
        return True


def has_parent(*names):
    return type("HasParent_" + "_".join(n.replace(".", "_") for n in names), (HasParent,),
                {"parents": tuple(names)})
