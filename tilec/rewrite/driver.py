"""The greedy pattern driver: folds, erases dead side-effect-free ops and
applies patterns until nothing changes.

Work is proportional to the number of ops plus the number of rewrites: the
worklist is a list with an index map (O(1) push/remove), patterns are looked
up by root name, and a change re-queues only the ops it can affect (the
changed op, users of replaced values, defining ops of dropped operands, the
parent of an inserted or erased op)."""
from __future__ import annotations

from ..ir.core import Block, Operation
from ..ir.diagnostics import current_engine
from .effects import is_trivially_dead
from .fold import OperationFolder, is_constant_op
from .pattern import PatternSet
from .rewriter import Listener, PatternRewriter


class _Worklist:
    __slots__ = ("items", "index")

    def __init__(self):
        self.items: list = []
        self.index: dict = {}

    def push(self, op):
        if op in self.index:
            return
        self.index[op] = len(self.items)
        self.items.append(op)

    def remove(self, op):
        i = self.index.pop(op, None)
        if i is not None:
            self.items[i] = None

    def pop(self):
        items = self.items
        while items:
            op = items.pop()
            if op is not None:
                del self.index[op]
                return op
        return None

    def reverse(self):
        self.items.reverse()
        self.index = {op: i for i, op in enumerate(self.items) if op is not None}


def _post_order(blocks):
    """Ops of `blocks` and everything nested, children before parents (iterative)."""
    out = []
    stack = [(op, False) for b in reversed(blocks) for op in b.ops_reversed()]
    while stack:
        op, done = stack.pop()
        if done or not op.regions:
            out.append(op)
            continue
        stack.append((op, True))
        for r in reversed(op.regions):
            for b in reversed(r.blocks):
                stack.extend((o, False) for o in b.ops_reversed())
    return out


class GreedyDriver(Listener):
    def __init__(self, patterns, fold=True, max_iterations=10, max_rewrites=None):
        self.patterns = patterns if isinstance(patterns, PatternSet) else PatternSet(patterns)
        self.fold = fold
        self.max_iterations = max_iterations
        self.max_rewrites = max_rewrites
        self.rewriter = PatternRewriter(self)
        self.folder = OperationFolder(self.rewriter)
        self.worklist = _Worklist()
        self.num_rewrites = 0
        self.erased: set = set()

    # -- listener ---------------------------------------------------------
    def _push_parent(self, op):
        parent = op.parent_op
        if parent is not None:
            self.worklist.push(parent)

    def notify_inserted(self, op):
        for o in op.walk():
            self.worklist.push(o)
        self._push_parent(op)

    def notify_erased(self, op):
        self.erased.add(op)
        self.worklist.remove(op)
        self.folder.notify_erased(op)
        for v in op.operands:
            d = getattr(v, "op", None)
            if d is not None and len(v._uses) <= 2:  # this use is about to go
                self.worklist.push(d)
        if op.parent is not None:
            self._push_parent(op)

    def notify_replaced(self, op, values):
        for r in op.results:
            for u in r._uses:
                self.worklist.push(u.owner)

    def notify_modified(self, op):
        self.worklist.push(op)
        for r in op.results:
            for u in r._uses:
                self.worklist.push(u.owner)

    # -- driving ----------------------------------------------------------
    def _fill(self, blocks):
        for op in _post_order(blocks):
            if is_constant_op(op) and op.parent is not None:
                if not self.folder.insert_known_constant(op):
                    continue
            if op.parent is not None:
                self.worklist.push(op)
        self.worklist.reverse()

    def _process(self, op) -> bool:
        if op.parent is None or op in self.erased:
            return False
        if is_trivially_dead(op):
            self.rewriter.erase_op(op)
            return True
        if self.fold and self.folder.try_fold(op):
            return True
        for p in self.patterns.for_op(op.name):
            self.rewriter.set_insertion_point_before(op)
            if p.match_and_rewrite(op, self.rewriter):
                return True
        return False

    def run(self, blocks, location=None) -> bool:
        """Rewrite everything nested in `blocks` to a fixed point. True when it
        converged; otherwise a warning is reported and False returned."""
        for it in range(self.max_iterations):
            self.worklist = _Worklist()
            self._fill(blocks)
            cap = self.max_rewrites or (10 * len(self.worklist.items) + 1000)
            changed, count = False, 0
            while True:
                op = self.worklist.pop()
                if op is None:
                    break
                if self._process(op):
                    changed = True
                    count += 1
                    if count > cap:
                        break
            self.num_rewrites += count
            if not changed:
                return True
        if location is not None:
            current_engine().warning(location, f"greedy pattern rewriting did not converge within "
                                               f"{self.max_iterations} iterations")
        return False


def apply_patterns_greedily(root, patterns, *, fold=True, max_iterations=10, max_rewrites=None) -> bool:
    """Apply `patterns` (and folding, and dead-code removal) to everything nested
    in `root`: an Operation (its regions), a Block, or a list of Blocks."""
    if isinstance(root, Operation):
        blocks, loc = [b for r in root.regions for b in r.blocks], root.location
    elif isinstance(root, Block):
        blocks = [root]
        loc = root.first_op.location if root.first_op is not None else None
    else:
        blocks = list(root)
        loc = None
    from ..ir.location import UNKNOWN
    driver = GreedyDriver(patterns, fold, max_iterations, max_rewrites)
    return driver.run(blocks, loc or UNKNOWN)
