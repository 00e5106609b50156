"""Rewrite patterns: a pattern names the op it is rooted on (or None for any
op), a benefit (higher is tried first) and `match_and_rewrite(op, rewriter)`,
which returns True after it changed the IR through the rewriter."""
from __future__ import annotations


class RewritePattern:
    root: str | None = None   # "dialect.op", or None to match any op
    benefit: int = 1
    name: str = ""

    def __init__(self, root=None, benefit=None, name=None):
        if root is not None:
            self.root = root
        if benefit is not None:
            self.benefit = benefit
        self.name = name or self.name or type(self).__name__

    def match_and_rewrite(self, op, rewriter) -> bool:
        raise NotImplementedError

    def __repr__(self):
        return f"<pattern {self.name} on {self.root or '*'}>"


class FunctionPattern(RewritePattern):
    """A pattern made from a plain function `fn(op, rewriter) -> bool`."""

    def __init__(self, fn, root=None, benefit=1, name=None):
        super().__init__(root, benefit, name or fn.__name__)
        self.fn = fn

    def match_and_rewrite(self, op, rewriter) -> bool:
        return bool(self.fn(op, rewriter))


def pattern(root=None, benefit=1, name=None):
    """Decorator: `@pattern("scf.for") def coalesce(op, rewriter): ...`."""
    def wrap(fn):
        return FunctionPattern(fn, root, benefit, name)
    return wrap


class PatternSet:
    """Patterns indexed by root name; any-op patterns apply to every op. Per
    name the candidate list is sorted once by decreasing benefit (stable)."""

    def __init__(self, patterns=()):
        self.patterns: list[RewritePattern] = []
        self._cache: dict = {}
        self.add(*patterns)

    def add(self, *patterns):
        for p in patterns:
            if isinstance(p, (list, tuple, PatternSet)):
                self.add(*p)
            else:
                self.patterns.append(p)
        self._cache.clear()
        return self

    def __iter__(self):
        return iter(self.patterns)

    def __len__(self):
        return len(self.patterns)

    def for_op(self, name: str) -> list:
        got = self._cache.get(name)
        if got is None:
            got = [p for p in self.patterns if p.root is None or p.root == name]
            got.sort(key=lambda p: -p.benefit)
            self._cache[name] = got
        return got
