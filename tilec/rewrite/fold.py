"""Folding: op classes may define `fold(self)` returning None (no fold) or one
entry per result, each an existing Value or an Attribute. Attributes become
constants through the materializer registered for the folding op's dialect.
Returning the op's own results means "updated in place".

The OperationFolder keeps constants unique per isolated region and hoists them
to the start of that region's entry block, as MLIR's folder does."""
from __future__ import annotations

from ..ir.attributes import Attribute
from ..ir.traits import ConstantLike, IsolatedFromAbove

MATERIALIZERS: dict = {}   # dialect name -> fn(attr, type, location) -> detached op or None


def register_materializer(dialect: str, fn):
    MATERIALIZERS[dialect] = fn


def constant_value(value):
    """The attribute of a constant-defined value, or None."""
    op = getattr(value, "op", None)
    if op is not None and op.has_trait(ConstantLike):
        return op.attributes.get("value")
    return None


def is_constant_op(op) -> bool:
    return op.has_trait(ConstantLike) and len(op.results) == 1


def insertion_block(op):
    """The entry block of the closest region that is isolated from above (or
    the top-level block): where constants used by `op` are kept."""
    block = op.parent
    while block is not None:
        owner = block.parent_op
        if owner is None or owner.has_trait(IsolatedFromAbove):
            break
        block = owner.parent
    if block is not None and block.parent is not None:
        return block.parent.blocks[0]
    return block


class OperationFolder:
    def __init__(self, rewriter):
        self.rewriter = rewriter
        self.constants: dict = {}    # (block, dialect, attr, type) -> op
        self.owned: dict = {}        # op -> key

    def _key(self, block, dialect, attr, type_):
        try:
            hash(attr)
        except TypeError:
            return None
        return (id(block), dialect, attr, type_)

    def insert_known_constant(self, op) -> bool:
        """Track a constant op already in the IR. Returns False when it was a
        duplicate and has been replaced by the existing one (and erased)."""
        block = insertion_block(op)
        attr = op.attributes.get("value")
        key = self._key(block, op.dialect, attr, op.results[0].type) if block is not None else None
        if key is None:
            return True
        existing = self.constants.get(key)
        if existing is op:
            return True
        if existing is not None and existing.parent is not None:
            self.rewriter.replace_op(op, existing.results)
            return False
        self.constants[key] = op
        self.owned[op] = key
        if op.parent is not block or (block.first_op is not op and op.prev_op not in self.owned):
            self.rewriter.move_op_before(op, block.first_op)
        return True

    def notify_erased(self, op):
        key = self.owned.pop(op, None)
        if key is not None and self.constants.get(key) is op:
            del self.constants[key]

    def get_or_create_constant(self, near, dialect, attr, type_, location):
        block = insertion_block(near)
        key = self._key(block, dialect, attr, type_)
        if key is not None:
            existing = self.constants.get(key)
            if existing is not None and existing.parent is not None:
                return existing.results[0]
        fn = MATERIALIZERS.get(dialect)
        op = fn(attr, type_, location) if fn is not None else None
        if op is None:
            return None
        with self.rewriter.insertion_point():
            self.rewriter.set_insertion_point_to_start(block)
            self.rewriter.insert(op)
        if key is not None:
            self.constants[key] = op
            self.owned[op] = key
        return op.results[0]

    def try_fold(self, op) -> bool:
        fold = getattr(op, "fold", None)
        if fold is None or is_constant_op(op):
            return False
        got = fold()
        if got is None:
            return False
        got = list(got)
        if len(got) == len(op.results) and all(a is b for a, b in zip(got, op.results)):
            self.rewriter.notify_modified(op)   # folded in place
            return True
        values, created = [], []
        for res, g in zip(op.results, got):
            if isinstance(g, Attribute):
                v = self.get_or_create_constant(op, op.dialect, g, res.type, op.location)
                if v is None:
                    for c in created:
                        if not any(r._uses for r in c.results):
                            self.rewriter.erase_op(c)
                    return False
                created.append(v.op)
                values.append(v)
            else:
                values.append(g)
        self.rewriter.replace_op(op, values)
        return True
