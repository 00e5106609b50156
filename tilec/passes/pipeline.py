"""Textual pass pipelines as mlir-opt writes them:

    builtin.module(cuda_tile.module(cuda_tile.entry(loop-split)), canonicalize{max-iterations=3})

An element followed by `(...)` is an op anchor whose nested pipeline runs on
every op of that name directly inside the current anchor (`any` matches every
op); otherwise it names a pass, optionally with `{key=value ...}` options."""
from __future__ import annotations

from .base import PassError
from . import registry

_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.$")


class Nest:
    """An anchor op name and the items (Pass instances or Nests) run on it."""

    def __init__(self, anchor: str, items=None):
        self.anchor, self.items = anchor, list(items or [])

    def text(self):
        inner = ",".join(i.text() if isinstance(i, Nest) else i.name for i in self.items)
        return f"{self.anchor}({inner})"


class _Reader:
    def __init__(self, text):
        self.text, self.pos = text, 0

    def skip(self):
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self):
        self.skip()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def name(self):
        self.skip()
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] in _NAME_CHARS:
            self.pos += 1
        if start == self.pos:
            raise PassError(f"expected a pass or op name at position {start} of '{self.text}'"
                            if start < len(self.text) else f"unexpected end of pipeline '{self.text}'")
        return self.text[start:self.pos]

    def braced(self):
        """Raw text between balanced braces (the opening brace already seen)."""
        depth, start = 1, self.pos
        while self.pos < len(self.text):
            c = self.text[self.pos]
            self.pos += 1
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    return self.text[start:self.pos - 1]
        raise PassError(f"missing '}}' in pipeline '{self.text}'")


def parse_options(text: str) -> dict:
    """`a=1 b="x y" c` -> {"a": "1", "b": "x y", "c": None}."""
    out, i, n = {}, 0, len(text)
    while i < n:
        while i < n and (text[i].isspace() or text[i] == ","):
            i += 1
        if i >= n:
            break
        j = i
        while j < n and text[j] not in "= \t,":
            j += 1
        key = text[i:j]
        if j < n and text[j] == "=":
            j += 1
            if j < n and text[j] in "\"'":
                q = text[j]
                k = text.index(q, j + 1) if q in text[j + 1:] else n
                val, j = text[j + 1:k], k + 1
            elif j < n and text[j] == "{":
                depth, k = 1, j + 1
                while k < n and depth:
                    depth += {"{": 1, "}": -1}.get(text[k], 0)
                    k += 1
                val, j = text[j + 1:k - 1], k
            else:
                k = j
                while k < n and not text[k].isspace():
                    k += 1
                val, j = text[j:k], k
            out[key] = val
        else:
            out[key] = None
        i = j
    return out


def make_pass(name: str, options: dict | None = None):
    cls = registry.lookup(name)
    if cls is None:
        raise PassError(f"'{name}' does not refer to a registered pass or pass pipeline")
    return cls(options or {})


def _items(r: _Reader, closing: str):
    items = []
    if r.peek() == closing:
        return items
    while True:
        name = r.name()
        opts = None
        if r.peek() == "{":
            r.pos += 1
            opts = parse_options(r.braced())
        if r.peek() == "(":
            if opts:
                raise PassError(f"op anchor '{name}' takes no options")
            r.pos += 1
            nest = Nest(name, _items(r, ")"))
            if r.peek() != ")":
                raise PassError(f"expected ')' in pipeline '{r.text}'")
            r.pos += 1
            items.append(nest)
        else:
            items.append(make_pass(name, opts))
        c = r.peek()
        if c == ",":
            r.pos += 1
            continue
        return items


def parse_pipeline(text: str) -> Nest:
    """The root Nest (anchored on builtin.module). A pipeline without an anchor
    is taken to run on the top-level module."""
    r = _Reader(text.strip().strip("'\""))
    items = _items(r, "")
    if r.peek():
        raise PassError(f"unexpected '{r.peek()}' at position {r.pos} of pipeline '{r.text}'")
    if len(items) == 1 and isinstance(items[0], Nest) and items[0].anchor in ("builtin.module", "any"):
        root = items[0]
        root.anchor = "builtin.module"
        return root
    return Nest("builtin.module", items)
