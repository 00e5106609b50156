"""Attributes: immutable, hashable compile-time values. Builtin kinds live here;
dialects add theirs by subclassing DialectAttr."""
from __future__ import annotations

from .record import frozen

from .printing import format_float, quote, symbol
from .types import FloatType, IntegerType, Type


class Attribute:
    __slots__ = ()

    def text(self, short: bool = False) -> str:
        raise NotImplementedError

    def __str__(self):
        return self.text()

    def __repr__(self):
        return self.text()


@frozen(cache_hash=True, repr=False)
class UnitAttr(Attribute):
    def text(self, short=False):
        return "unit"


@frozen(cache_hash=True, repr=False)
class BoolAttr(Attribute):
    value: bool

    def text(self, short=False):
        return "true" if self.value else "false"


@frozen(cache_hash=True, repr=False)
class IntegerAttr(Attribute):
    value: int
    type: Type = IntegerType(64)

    def text(self, short=False):
        if self.type == IntegerType(64):
            return str(self.value)
        return f"{self.value} : {self.type.text(short)}"


@frozen(cache_hash=True, repr=False)
class FloatAttr(Attribute):
    value: float
    type: Type = FloatType("f64")

    def text(self, short=False):
        from .floats import float_text
        value = float_text(self.value, self.type) if isinstance(self.type, FloatType) else format_float(self.value)
        return f"{value} : {self.type.text(short)}"


@frozen(cache_hash=True, repr=False)
class StringAttr(Attribute):
    value: str

    def text(self, short=False):
        return quote(self.value)


@frozen(cache_hash=True, repr=False)
class SymbolRefAttr(Attribute):
    root: str
    nested: tuple = ()

    def text(self, short=False):
        return symbol(self.root) + "".join("::" + symbol(n) for n in self.nested)


@frozen(cache_hash=True, repr=False)
class TypeAttr(Attribute):
    value: Type

    def text(self, short=False):
        return self.value.text(short)


@frozen(cache_hash=True, repr=False)
class ArrayAttr(Attribute):
    elements: tuple

    def text(self, short=False):
        return "[" + ", ".join(e.text(short) for e in self.elements) + "]"

    def __iter__(self):
        return iter(self.elements)

    def __len__(self):
        return len(self.elements)


@frozen(cache_hash=True, repr=False)
class DenseArrayAttr(Attribute):
    """`array<i32: 1, 2>`: a flat list of scalars of one element type."""
    element_type: Type
    values: tuple

    def text(self, short=False):
        if not self.values:
            return f"array<{self.element_type.text()}>"
        vals = ", ".join(format_float(v) if isinstance(self.element_type, FloatType) else
                         ("true" if v else "false") if self.element_type == IntegerType(1) else str(v)
                         for v in self.values)
        return f"array<{self.element_type.text()}: {vals}>"


@frozen(cache_hash=True, repr=False)
class DictionaryAttr(Attribute):
    entries: tuple  # ((name, Attribute), ...) in source order

    def text(self, short=False):
        return "{" + ", ".join(entry_text(k, v, short) for k, v in self.entries) + "}"

    def get(self, name, default=None):
        for k, v in self.entries:
            if k == name:
                return v
        return default

    def as_dict(self) -> dict:
        return dict(self.entries)


@frozen(cache_hash=True, repr=False)
class OpaqueAttr(Attribute):
    """An attribute of an unregistered dialect, kept as its text: `spelling` is
    what follows the dialect name (`.mnemonic<...>` or `<...>`)."""
    dialect: str
    spelling: str

    def text(self, short=False):
        return f"#{self.dialect}{self.spelling}"


@frozen(repr=False, eq=False)
class LocationAttr(Attribute):
    """A location used as an attribute value (e.g. in fused or debug metadata)."""
    location: object

    def text(self, short=False):
        return f"loc({self.location.body()})"

    def __eq__(self, other):
        return isinstance(other, LocationAttr) and self.location == other.location

    def __hash__(self):
        return hash(self.location)


class DialectAttr(Attribute):
    """`#dialect.mnemonic<body>`. Subclasses give dialect, mnemonic, body() and a
    classmethod parse_body(reader)."""
    __slots__ = ()
    dialect = ""
    mnemonic = ""

    def body(self) -> str | None:
        return None

    def text(self, short=False):
        body = self.body()
        head = self.mnemonic if short else f"#{self.dialect}.{self.mnemonic}"
        return head if body is None else f"{head}<{body}>"


def entry_text(name: str, value: Attribute, short=False) -> str:
    from .printing import _BARE
    key = name if _BARE.match(name) else quote(name)
    if isinstance(value, UnitAttr):
        return key
    return f"{key} = {value.text(short)}"


class DenseElementsAttr(Attribute):
    """A shaped constant: `dense<...> : tensor<...>` in MLIR's builtin spelling.
    `values` is the flat row-major tuple (one entry when `splat`)."""
    __slots__ = ("type", "values", "splat", "_hash")

    def __init__(self, type, values: tuple, splat: bool):
        self.type, self.values, self.splat = type, tuple(values), splat
        first = self.values[0] if self.values else None
        if not splat and len(self.values) > 1 and all(repr(v) == repr(first) for v in self.values):
            self.values, self.splat = (first,), True  # as MLIR: equal elements (bitwise) make a splat
        self._hash = None

    @property
    def shape(self) -> tuple:
        return tuple(getattr(self.type, "shape", ()))

    @property
    def element_type(self):
        return getattr(self.type, "element_type", self.type)

    def __eq__(self, other):
        return (isinstance(other, DenseElementsAttr) and self.type == other.type
                and self.splat == other.splat and self.values == other.values)

    def __hash__(self):
        if self._hash is None:
            self._hash = hash((self.type, self.values, self.splat))
        return self._hash

    def literal(self) -> str:
        """The element list alone: `1.000000e+00` or `[[1, 2], [3, 4]]`."""
        elt = self.element_type
        fmt = _element_formatter(elt)
        if self.splat:
            return fmt(self.values[0])
        shape = self.shape
        if not shape:
            return fmt(self.values[0])
        return _nest(self.values, shape, fmt)

    def text(self, short=False):
        return f"dense<{self.literal()}> : {self.type.text(short)}"


def _element_formatter(elt):
    if isinstance(elt, FloatType):
        from .floats import float_text
        return lambda v: float_text(v, elt)
    if elt == IntegerType(1):
        return lambda v: "true" if v else "false"
    return str


def _nest(flat, shape, fmt):
    if len(shape) == 1:
        return "[" + ", ".join(fmt(v) for v in flat) + "]"
    step = len(flat) // shape[0] if shape[0] else 0
    return "[" + ", ".join(_nest(flat[i * step:(i + 1) * step], shape[1:], fmt)
                           for i in range(shape[0])) + "]"
