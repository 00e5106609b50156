"""Types: immutable, hashable values. The builtin ones live here; dialects add theirs."""
from __future__ import annotations

from .record import frozen

DYNAMIC = None  # a `?` extent in a shape


class Type:
    """Base class of all types. `text(short)` is the type's spelling; `short` drops the
    `!dialect.` prefix of dialect types (the form cuda_tile ops print)."""
    __slots__ = ()

    def text(self, short: bool = False) -> str:
        raise NotImplementedError

    def __str__(self):
        return self.text()


@frozen(cache_hash=True, repr=False)
class IntegerType(Type):
    width: int

    def text(self, short=False):
        return f"i{self.width}"

    __repr__ = text


# name -> (bit width, mantissa bits) of every float element type tilec knows
FLOAT_KINDS = {
    "f16": (16, 10), "bf16": (16, 7), "f32": (32, 23), "f64": (64, 52), "tf32": (32, 10),
    "f8E4M3FN": (8, 3), "f8E5M2": (8, 2), "f8E8M0FNU": (8, 0), "f4E2M1FN": (4, 1),
    "fnv8E5M3FNU": (8, 3),
}


@frozen(cache_hash=True, repr=False)
class FloatType(Type):
    name: str

    @property
    def width(self) -> int:
        return FLOAT_KINDS[self.name][0]

    def text(self, short=False):
        return self.name

    __repr__ = text


@frozen(cache_hash=True, repr=False)
class IndexType(Type):
    def text(self, short=False):
        return "index"

    __repr__ = text


@frozen(cache_hash=True, repr=False)
class NoneType(Type):
    def text(self, short=False):
        return "none"

    __repr__ = text


def shape_text(shape) -> str:
    return "".join(("?" if d is DYNAMIC else str(d)) + "x" for d in shape)


@frozen(cache_hash=True, repr=False)
class RankedTensorType(Type):
    shape: tuple
    element_type: Type
    encoding: object = None

    def text(self, short=False):
        enc = f", {self.encoding}" if self.encoding is not None else ""
        return f"tensor<{shape_text(self.shape)}{self.element_type.text(short)}{enc}>"

    __repr__ = text


@frozen(cache_hash=True, repr=False)
class FunctionType(Type):
    inputs: tuple
    results: tuple

    def text(self, short=False):
        ins = ", ".join(t.text(short) for t in self.inputs)
        if len(self.results) == 1 and not isinstance(self.results[0], FunctionType):
            outs = self.results[0].text(short)
        else:
            outs = "(" + ", ".join(t.text(short) for t in self.results) + ")"
        return f"({ins}) -> {outs}"

    __repr__ = text


class DialectType(Type):
    """A type owned by a dialect: `!dialect.mnemonic<body>`. Subclasses give
    `dialect`, `mnemonic`, `body()` (None when there are no parameters) and a
    classmethod `parse_body(reader)`."""
    __slots__ = ()
    dialect = ""
    mnemonic = ""

    def body(self) -> str | None:
        return None

    @classmethod
    def takes_no_body(cls) -> bool:
        """True for parameterless types (`!cuda_tile.token`)."""
        return False

    def text(self, short=False):
        # printing spells the same few types once per use: memoized (types are
        # immutable, hashed once, and equal types spell the same)
        key = (self, short)
        out = _TEXTS.get(key)
        if out is None:
            body = self.body()
            head = self.mnemonic if short else f"!{self.dialect}.{self.mnemonic}"
            out = head if body is None else f"{head}<{body}>"
            if len(_TEXTS) >= _TEXTS_MAX:  # a long-lived caller meeting ever new types
                _TEXTS.clear()
            _TEXTS[key] = out
        return out

    def __repr__(self):
        return self.text()


_TEXTS: dict = {}  # (dialect type, short) -> its spelling
_TEXTS_MAX = 1 << 16


class BodilessType(DialectType):
    """A parameterless dialect type (`!cuda_tile.token`): written without `<...>`."""
    __slots__ = ()

    @classmethod
    def takes_no_body(cls) -> bool:
        return True

    @classmethod
    def parse_body(cls, r):
        return cls()


@frozen(cache_hash=True, repr=False)
class OpaqueType(Type):
    """A type of an unregistered dialect, kept as its text."""
    dialect: str
    spelling: str  # everything after `!dialect.`

    def text(self, short=False):
        return f"!{self.dialect}.{self.spelling}"

    __repr__ = text


def i(width: int) -> IntegerType:
    return IntegerType(width)


def f(name: str) -> FloatType:
    return FloatType(name)
