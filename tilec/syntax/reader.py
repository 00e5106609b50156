"""A small reader for the inside of `<...>` bodies of dialect types and
attributes, for whole type spellings, and for `loc(...)` locations.

The Lark grammar lexes a type, a dialect attribute or a location as one token
(cheap, and types repeat, so their parse is memoized); the pieces inside are
read here with a tiny tokenizer."""
from __future__ import annotations

import re

from ..ir import registry
from ..ir.location import CallSiteLoc, FileLineColLoc, FusedLoc, NameLoc, UNKNOWN
from ..ir.types import (FLOAT_KINDS, FloatType, FunctionType, IndexType, IntegerType, NoneType,
                        OpaqueType, RankedTensorType, DYNAMIC)


def char_text(c: str) -> str:
    """`c` as a diagnostic shows it: an unprintable character escaped, not written raw."""
    return c if c.isprintable() else ascii(c)[1:-1]


class BodyError(Exception):
    def __init__(self, message: str, offset: int = 0):
        super().__init__(message)
        self.message, self.offset = message, offset


_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<arrow>->)
  | (?P<float>[-+]?(?:\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+))
  | (?P<int>[-+]?(?:0x[0-9A-Fa-f]+|\d+))
  | (?P<ident>[A-Za-z_][A-Za-z0-9_$.]*)
  | (?P<sigil>[!#@%^][A-Za-z0-9_$.\-]*)
  | (?P<punct>[<>\[\](){},:=?*|])
""", re.X)


class Reader:
    """Cursor over a body string. `base` is the offset of the text in its source."""

    def __init__(self, text: str, base: int = 0):
        self.text, self.base = text, base
        self.toks = []
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m:
                raise BodyError(f"unexpected character '{char_text(text[pos])}'", base + pos)
            if m.lastgroup != "ws":
                self.toks.append((m.lastgroup, m.group(), pos))
            pos = m.end()
        self.i = 0

    # -- primitives -------------------------------------------------------
    def at_end(self) -> bool:
        return self.i >= len(self.toks)

    def peek(self, k: int = 0):
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else ("eof", "", len(self.text))

    def offset(self) -> int:
        return self.base + self.peek()[2]

    def error(self, message: str):
        raise BodyError(message, self.offset())

    def accept(self, text: str) -> bool:
        if self.peek()[1] == text:
            self.i += 1
            return True
        return False

    def expect(self, text: str):
        if not self.accept(text):
            got = self.peek()[1] or "end of input"
            self.error(f"expected '{text}', got '{got}'")

    def next(self):
        tok = self.peek()
        if tok[0] == "eof":
            self.error("unexpected end of input")
        self.i += 1
        return tok

    def keyword(self) -> str:
        kind, text, _ = self.peek()
        if kind != "ident":
            self.error(f"expected keyword, got '{text or 'end of input'}'")
        self.i += 1
        return text

    def integer(self) -> int:
        kind, text, _ = self.peek()
        if kind != "int":
            self.error(f"expected integer value, got '{text or 'end of input'}'")
        self.i += 1
        return int(text, 0) if not text.lstrip("+-").startswith("0x") else int(text, 16)

    def string(self) -> str:
        kind, text, _ = self.peek()
        if kind != "string":
            self.error(f"expected string, got '{text or 'end of input'}'")
        self.i += 1
        return unquote(text)

    def chunk(self, stops=",>]})") -> str:
        """The raw text of the next item, up to a top-level stop character."""
        start = self.peek()[2]
        depth = 0
        while not self.at_end():
            kind, text, _ = self.peek()
            if depth == 0 and text in stops and kind in ("punct",):
                break
            if text in ("<", "[", "(", "{"):
                depth += 1
            elif text in (">", "]", ")", "}"):
                depth -= 1
            self.i += 1
        end = self.peek()[2] if not self.at_end() else len(self.text)
        return self.text[start:end].strip()

    def type(self):
        off = self.offset()
        text = self.chunk(",>])}=")
        if not text:
            self.error("expected type")
        try:
            return parse_type(text)
        except BodyError as e:
            raise BodyError(e.message, off + e.offset)

    def attribute(self):
        off = self.offset()
        text = self.chunk(",>])}")
        from .parser import parse_attribute_text
        return parse_attribute_text(text, off)

    _DIMS = re.compile(r"(?:(?:\d+|\?)x)*")

    def shape_and_element(self, allow_dynamic=True):
        """`2x?x4xf32` -> ((2, None, 4), element type)."""
        pos = self.peek()[2]
        m = self._DIMS.match(self.text, pos)
        dims = []
        for d in m.group().split("x")[:-1]:
            if d == "?" and not allow_dynamic:
                raise BodyError("expected static shape", self.base + pos)
            dims.append(DYNAMIC if d == "?" else int(d))
            pos += len(d) + 1
        self.skip_to(m.end())
        if self.peek()[1].startswith("-"):
            self.error("expected valid keyword")
        return tuple(dims), self.type()

    def skip_to(self, pos: int):
        """Re-tokenize from raw offset `pos` (used after reading raw text)."""
        rest = Reader(self.text[pos:], 0)
        self.toks = self.toks[:self.i] + [(k, t, p + pos) for k, t, p in rest.toks]

    def int_list(self, open_="[", close="]", allow_dynamic=False):
        self.expect(open_)
        out = []
        if not self.accept(close):
            while True:
                if allow_dynamic and self.accept("?"):
                    out.append(DYNAMIC)
                else:
                    out.append(self.integer())
                if self.accept(close):
                    break
                self.expect(",")
        return tuple(out)

    def done(self):
        if not self.at_end():
            self.error(f"unexpected '{self.peek()[1]}'")


def unquote(text: str) -> str:
    body = text[1:-1]
    if "\\" not in body:
        return body
    out, i = bytearray(), 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            n = body[i + 1]
            simple = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}
            if n in simple:
                out += simple[n].encode()
                i += 2
                continue
            if re.match(r"[0-9A-Fa-f]{2}", body[i + 1:i + 3]):
                out.append(int(body[i + 1:i + 3], 16))
                i += 3
                continue
        out += c.encode()
        i += 1
    return out.decode("utf-8", errors="replace")


# ---- types -------------------------------------------------------------------
_INT_RE = re.compile(r"[isu]([1-9][0-9]*)$")
_TYPE_CACHE: dict = {}
TYPE_ALIASES: dict = {}


def parse_type(text: str):
    """Parse a full type spelling (memoized). Raises BodyError."""
    t = _TYPE_CACHE.get(text)
    if t is None:
        t = _parse_type_uncached(text.strip())
        if len(_TYPE_CACHE) < 100000:
            _TYPE_CACHE[text] = t
    return t


_KEYWORD_GAP = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)[ \t]+<")


def _parse_type_uncached(text: str):
    text = _KEYWORD_GAP.sub(r"\1<", text)   # `tile <i32>`: MLIR allows blanks before the `<`
    if text in FLOAT_KINDS:
        return FloatType(text)
    m = _INT_RE.match(text)
    if m:
        if text[0] != "i":
            raise BodyError(f"signed/unsigned integer types are not supported: '{text}'")
        return IntegerType(int(m.group(1)))
    if text == "index":
        return IndexType()
    if text == "none":
        return NoneType()
    if text.startswith("("):
        return _function_type(text)
    if text.startswith("!"):
        head, body = _split_head(text[1:])
        if "." not in head:
            if head in TYPE_ALIASES:
                return TYPE_ALIASES[head]
            raise BodyError(f"undefined symbol alias id '{head}'")
        dialect, mnemonic = head.split(".", 1)
        cls = registry.TYPES.get((dialect, mnemonic))
        if cls is None:
            if any(d == dialect for d, _ in registry.TYPES):
                raise BodyError(f"unknown type '{mnemonic}' in dialect '{dialect}'")
            return OpaqueType(dialect, text[len(dialect) + 2:])
        return _dialect_type(cls, body, len(head) + 2)
    head, body = _split_head(text)
    if head == "tensor" and body is not None:
        r = Reader(body)
        shape, elt = r.shape_and_element()
        enc = None
        if r.accept(","):
            enc = r.attribute()
        r.done()
        return RankedTensorType(shape, elt, enc)
    for dialect in registry.SHORT_TYPE_DIALECTS:
        cls = registry.TYPES.get((dialect, head))
        if cls is not None:
            return _dialect_type(cls, body, len(head) + 1)
    raise BodyError(f"unknown type '{text}'")


def _split_head(text):
    lt = text.find("<")
    if lt < 0:
        return text, None
    if not text.endswith(">"):
        raise BodyError("expected '>' to close the type parameters", len(text))
    return text[:lt], text[lt + 1:-1]


def _dialect_type(cls, body, base):
    if body is None:
        if getattr(cls, "parse_body", None) is None or cls.takes_no_body():
            return cls.parse_body(None) if hasattr(cls, "parse_body") else cls()
        raise BodyError(f"expected '<' after '{cls.mnemonic}'")
    r = Reader(body, base)
    t = cls.parse_body(r)
    r.done()
    return t


def _function_type(text):
    r = Reader(text)
    r.expect("(")
    ins = []
    if not r.accept(")"):
        while True:
            ins.append(r.type())
            if r.accept(")"):
                break
            r.expect(",")
    r.expect("->")
    outs = []
    if r.accept("("):
        if not r.accept(")"):
            while True:
                outs.append(r.type())
                if r.accept(")"):
                    break
                r.expect(",")
    else:
        outs.append(parse_type(r.chunk("")))
    r.done()
    return FunctionType(tuple(ins), tuple(outs))


# ---- locations -------------------------------------------------------------
LOC_ALIASES: dict = {}


def parse_location(text: str, aliases=None):
    """`loc(...)` -> Location. Raises BodyError."""
    inner = text[text.index("(") + 1:-1] if text.startswith("loc") else text
    r = Reader(inner, 4)
    loc = _loc(r, aliases if aliases is not None else LOC_ALIASES)
    r.done()
    return loc


def _loc(r: Reader, aliases):
    kind, text, _ = r.peek()
    if text == "unknown":
        r.next()
        return UNKNOWN
    if kind == "sigil" and text.startswith("#") and "." in text:
        return _dialect_loc(r)
    if kind == "sigil" and text.startswith("#"):
        r.next()
        if text[1:] not in aliases:
            r.error(f"undefined symbol alias id '{text[1:]}'")
        return aliases[text[1:]]
    if text == "callsite":
        r.next()
        r.expect("(")
        callee = _loc(r, aliases)
        if r.keyword() != "at":
            r.error("expected 'at' in callsite location")
        caller = _loc(r, aliases)
        r.expect(")")
        return CallSiteLoc(callee, caller)
    if text == "fused":
        r.next()
        meta = None
        if r.accept("<"):
            meta = r.chunk(">")
            r.expect(">")
        r.expect("[")
        locs = []
        if not r.accept("]"):
            while True:
                locs.append(_loc(r, aliases))
                if r.accept("]"):
                    break
                r.expect(",")
        return FusedLoc(tuple(locs), meta)
    if kind == "string":
        name = r.string()
        if r.accept(":"):
            line = r.integer()
            r.expect(":")
            col = r.integer()
            if r.accept("to"):  # a range: keep its start
                r.integer(); r.expect(":"); r.integer()
            return FileLineColLoc(name, line, col)
        if r.accept("("):
            child = _loc(r, aliases)
            r.expect(")")
            return NameLoc(name, child)
        return NameLoc(name)
    r.error(f"expected location, got '{text or 'end of input'}'")


def _dialect_loc(r: Reader):
    """A dialect location attribute (`#dialect.name<...>`) inside `loc(...)`."""
    off, start = r.offset(), r.peek()[2]
    r.next()
    end = r.peek()[2] if not r.at_end() else len(r.text)
    if r.accept("<"):
        depth = 1
        while depth:
            tok = r.next()
            depth += {"<": 1, ">": -1}.get(tok[1], 0)
        end = tok[2] + 1
    from ..ir.location import Location
    from .parser import parse_attribute_text
    value = parse_attribute_text(r.text[start:end], off)
    if not isinstance(value, Location):
        raise BodyError("expected location attribute", off)
    return value
