"""The PatternRewriter: every IR change a pattern makes goes through it, so a
listener (the greedy driver) hears of each insert, replace, modification and
erase and can re-queue the ops affected."""
from __future__ import annotations

from contextlib import contextmanager

from ..ir.core import Block, Operation
from .clone import clone_op


class Listener:
    def notify_inserted(self, op): pass
    def notify_erased(self, op): pass
    def notify_replaced(self, op, values): pass
    def notify_modified(self, op): pass


class PatternRewriter:
    def __init__(self, listener: Listener | None = None):
        self.listener = listener or Listener()
        self._block: Block | None = None
        self._anchor: Operation | None = None   # insert before this (None: block end)

    # -- insertion point --------------------------------------------------
    def set_insertion_point_before(self, op):
        self._block, self._anchor = op.parent, op

    def set_insertion_point_after(self, op):
        self._block, self._anchor = op.parent, op.next_op

    def set_insertion_point_to_start(self, block):
        self._block, self._anchor = block, block.first_op

    def set_insertion_point_to_end(self, block):
        self._block, self._anchor = block, None

    @contextmanager
    def insertion_point(self):
        saved = (self._block, self._anchor)
        try:
            yield
        finally:
            self._block, self._anchor = saved

    # -- creation ---------------------------------------------------------
    def insert(self, op: Operation) -> Operation:
        assert self._block is not None, "no insertion point"
        self._block.insert_before(op, self._anchor)
        self.listener.notify_inserted(op)
        return op

    def create(self, cls, **fields) -> Operation:
        """`cls.create(**fields)` inserted at the insertion point."""
        return self.insert(cls.create(**fields))

    def clone(self, op, mapping=None) -> Operation:
        return self.insert(clone_op(op, mapping))

    # -- replacement and erasure -----------------------------------------
    def replace_all_uses_with(self, old, new):
        if old is new:
            return
        for use in list(old._uses):
            owner = use.owner
            use.set(new)
            self.listener.notify_modified(owner)

    def replace_op(self, op, values):
        """Replace every result of `op` by `values` (Values or an op's results), then erase it."""
        if isinstance(values, Operation):
            values = values.results
        values = list(values)
        assert len(values) == len(op.results), f"{op.name}: {len(values)} values for {len(op.results)} results"
        self.listener.notify_replaced(op, values)
        for old, new in zip(op.results, values):
            if new is not None:
                self.replace_all_uses_with(old, new)
        self.erase_op(op)

    def replace_op_with_new(self, op, cls, **fields):
        self.set_insertion_point_before(op)
        new = self.create(cls, **fields)
        self.replace_op(op, new.results)
        return new

    def erase_op(self, op):
        """Erase `op` and everything nested in it; results must be unused."""
        for r in op.results:
            assert not r._uses, f"erasing {op.name} whose result is still used"
        for nested in list(op.walk()):
            self.listener.notify_erased(nested)
        op.erase()

    @contextmanager
    def modify_in_place(self, op):
        yield op
        self.listener.notify_modified(op)

    def notify_modified(self, op):
        self.listener.notify_modified(op)

    # -- moving -----------------------------------------------------------
    def move_op_before(self, op, anchor):
        if op.parent is not None:
            op.parent.remove(op)
        anchor.parent.insert_before(op, anchor)
        self.listener.notify_inserted(op)

    def move_op_after(self, op, anchor):
        if op.parent is not None:
            op.parent.remove(op)
        anchor.parent.insert_after(op, anchor)
        self.listener.notify_inserted(op)

    def inline_block_before(self, block: Block, anchor: Operation, args=()):
        """Move all ops of `block` before `anchor`, replacing its arguments by `args`."""
        for a, v in zip(block.arguments, args):
            self.replace_all_uses_with(a, v)
        for op in list(block.ops):
            block.remove(op)
            anchor.parent.insert_before(op, anchor)
            self.listener.notify_inserted(op)

    def inline_block_at_end(self, block: Block, dest: Block, args=()):
        for a, v in zip(block.arguments, args):
            self.replace_all_uses_with(a, v)
        for op in list(block.ops):
            block.remove(op)
            dest.append(op)
            self.listener.notify_inserted(op)
