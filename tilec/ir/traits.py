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


class NoMemoryEffect(Trait):
    """MLIR's NoMemoryEffect without Pure: the op reads and writes no memory, but
    it may trap or assert a fact (an integer division, an assume), so it is not
    speculated past a condition nor erased as dead."""


class ConstantLike(Trait):
    pass


class Elementwise(Trait):
    """The op computes each result element from the operands' elements at the same
    position (MLIR's OpTrait::Elementwise): its tile operands and results have
    one shape, and it may run on any sub-tile or broadcast source alike."""


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
            names = ", ".join(cls.parents)  # MLIR quotes the whole list: 'a, b'
            op.emit_error(f"expects parent op {'to be one of ' if len(cls.parents) > 1 else ''}'{names}'")
            return False
        return True


def has_parent(*names):
    return type("HasParent_" + "_".join(n.replace(".", "_") for n in names), (HasParent,),
                {"parents": tuple(names)})


# ---- ODS-style relations between named operands/results ---------------------

class _NamedRelation(Trait):
    """Base of AllTypesMatch & co.: a property shared by the named operands and
    results. `key(type)` extracts the property; `summary` is what ODS prints
    after "failed to verify that"."""
    names: tuple = ()
    summary = ""

    @staticmethod
    def key(t):
        return t

    @classmethod
    def types(cls, op):
        out = []
        for n in cls.names:
            v = getattr(op, n, None)
            for x in (v if isinstance(v, list) else ([] if v is None else [v])):
                if x.type is not None:
                    out.append(x.type)
        return out

    @classmethod
    def group_keys(cls, op):
        """One key per named member; a variadic member's key is the tuple of its
        values' keys, so (as in ODS, which compares type ranges) variadic
        `initValues` and `resultValues` match when they agree position by position."""
        out = []
        for n in cls.names:
            v = getattr(op, n, None)
            if isinstance(v, list):
                if any(x.type is None for x in v):
                    continue
                out.append(tuple(cls.key(x.type) for x in v))
            elif v is not None and v.type is not None:
                out.append(cls.key(v.type))
        return out

    @classmethod
    def verify(cls, op):
        keys = cls.group_keys(op)
        if any(k != keys[0] for k in keys[1:]):
            op.emit_error(f"failed to verify that {cls.summary}")
            return False
        return True


class AllTypesMatch(_NamedRelation):
    """Also lets a custom form name one type for all: the parser gives every
    unnamed member the type it read for another (MLIR's type inference)."""

    @classmethod
    def fill_parse_types(cls, op_cls, state):
        known = None
        for n in cls.names:
            ts = state.result_types.get(n) or state.operand_types.get(n)
            if ts:
                known = ts[0]
                break
        if known is None:
            return
        result_names = {d.name for d in op_cls.result_defs}
        for n in cls.names:
            if n in result_names:
                state.result_types.setdefault(n, [known])
            elif n not in state.operand_types:
                state.operand_types[n] = [known] * len(state.operands.get(n, []))


class AllShapesMatch(_NamedRelation):
    @staticmethod
    def key(t):
        return getattr(t, "shape", None)


class AllElementTypesMatch(_NamedRelation):
    @staticmethod
    def key(t):
        return getattr(t, "element_type", t)


class AllRanksMatch(_NamedRelation):
    @staticmethod
    def key(t):
        shape = getattr(t, "shape", None)
        return None if shape is None else len(shape)


def _relation(base, what, names, summary=None):
    """`names` are field names; a trailing `_` (`from_`, a Python keyword) is not shown."""
    listed = "{" + ", ".join(n.rstrip("_") for n in names) + "}"
    return type(f"{base.__name__}_" + "_".join(names), (base,),
                {"names": tuple(names), "summary": summary or f"all of {listed} have same {what}"})


def all_types_match(*names):
    return _relation(AllTypesMatch, "type", names)


def all_shapes_match(*names):
    return _relation(AllShapesMatch, "shape", names)


def all_element_types_match(*names):
    return _relation(AllElementTypesMatch, "element type", names,
                     "all of {" + ", ".join(n.rstrip("_") for n in names) + "} have the same element type")


def all_ranks_match(*names):
    return _relation(AllRanksMatch, "rank", names)
