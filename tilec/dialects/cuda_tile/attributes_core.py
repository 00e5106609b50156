"""cuda_tile attributes used by the core ops: the entry's (and memory ops')
`optimization_hints` and the `assume` predicates (div_by, same_elements,
bounded)."""
from __future__ import annotations

from ...ir import attributes as A
from ...ir import registry
from ...ir.attributes import DialectAttr
from ...ir.types import FloatType, IntegerType

DIALECT = "cuda_tile"


class _ValueAttr(DialectAttr):
    """A dialect attribute compared and hashed by its `fields` tuple."""
    __slots__ = ("fields",)
    dialect = DIALECT

    def __init__(self, *fields):
        object.__setattr__(self, "fields", tuple(fields))

    def __setattr__(self, name, value):
        raise AttributeError("attributes are immutable")

    def __eq__(self, other):
        return type(other) is type(self) and other.fields == self.fields

    def __hash__(self):
        return hash((type(self).__name__, self.fields))

    @classmethod
    def _missing_body(cls):
        from ...syntax.reader import BodyError
        raise BodyError(f"expected '<' after '{cls.mnemonic}'")


def value_without_type(a) -> str:
    """An attribute value as MLIR's printAttributeWithoutType spells it."""
    if isinstance(a, A.IntegerAttr):
        if a.type == IntegerType(1):
            return "true" if a.value else "false"
        return str(a.value)
    if isinstance(a, A.FloatAttr):
        from ...ir.floats import float_text
        text = float_text(a.value, a.type) if isinstance(a.type, FloatType) else str(a.value)
        # a hex spelling (inf, nan) without its type would read back as an integer
        return f"{text} : {a.type.text()}" if text.startswith(("0x", "-0x")) else text
    if isinstance(a, A.DenseElementsAttr):
        return f"dense<{a.literal()}>"
    return a.text()


def full_text(a) -> str:
    """An attribute as MLIR prints it on its own (integers with their type)."""
    if isinstance(a, A.IntegerAttr):
        return f"{a.value} : {a.type.text()}"
    return a.text()


@registry.register_attr
class OptimizationHintsAttr(_ValueAttr):
    """`<sm_100 = {num_cta_in_cga = 2}, ...>`: per-architecture hint dictionaries,
    ((arch, DictionaryAttr), ...) in source order. (Registered after, and so in
    place of, any other class for `#cuda_tile.optimization_hints`.)"""
    __slots__ = ()
    mnemonic = "optimization_hints"
    description = "optimization hints"

    def __init__(self, entries=()):
        super().__init__(*entries)

    @property
    def entries(self) -> tuple:
        return self.fields

    def get(self, arch):
        for k, v in self.fields:
            if k == arch:
                return v
        return None

    def body(self):
        from ...ir.printing import _BARE, quote
        parts = []
        for arch, d in self.fields:
            inner = ", ".join(f"{k if _BARE.match(k) else quote(k)} = {value_without_type(v)}"
                              for k, v in d.entries)
            parts.append(f"{arch} = {{{inner}}}")
        return ", ".join(parts)

    @classmethod
    def from_entries(cls, entries, error):
        """Build from [(key, attribute, where)]; `error(message, where)` raises."""
        seen = set()
        out = []
        for key, value, where in entries:
            if key in seen:
                error(f"duplicate optimization_hints key `{key}`", where)
            seen.add(key)
            if not isinstance(value, A.DictionaryAttr):
                error(f"expected dictionary attribute for optimization_hints entry `{key}` "
                      f"got value={full_text(value)}", where)
            out.append((key, value))
        return cls(out)

    @classmethod
    def parse_body(cls, r):
        from ...syntax.reader import BodyError
        if r is None:
            cls._missing_body()
        entries = []
        while not r.at_end():
            off = r.offset()
            kind, text, _ = r.peek()
            key = r.string() if kind == "string" else r.keyword()
            r.expect("=")
            entries.append((key, r.attribute(), off))
            if not r.accept(","):
                break

        def error(message, where):
            raise BodyError(message, where)
        return cls.from_entries(entries, error)


class AssumePredicate(_ValueAttr):
    """Base of the attributes `cuda_tile.assume` accepts as its predicate."""
    __slots__ = ()
    description = "assume predicate"


@registry.register_attr
class DivByAttr(AssumePredicate):
    """`div_by<divisor>` or `div_by<divisor, every N along D>`."""
    __slots__ = ()
    mnemonic = "div_by"

    def __init__(self, divisor: int, every=None, along=None):
        super().__init__(divisor, every, along)

    divisor = property(lambda self: self.fields[0])
    every = property(lambda self: self.fields[1])
    along = property(lambda self: self.fields[2])

    def body(self):
        s = str(self.divisor)
        if self.every is not None:
            s += f", every {self.every} along {self.along}"
        return s

    @classmethod
    def parse_body(cls, r):
        if r is None:
            cls._missing_body()
        kind = r.peek()[0]
        if kind != "int":
            r.error("failed to parse parameter 'divisor' which is expected to be an integer")
        divisor = r.integer()
        if divisor < 0 or divisor >= 1 << 64:
            r.error("failed to parse parameter 'divisor' which is expected to be an integer")
        every = along = None
        if r.accept(","):
            if r.keyword() != "every":
                r.error("expected 'every'")
            every = r.integer()
            if r.keyword() != "along":
                r.error("expected 'along'")
            along = r.integer()
        return cls(divisor, every, along)


@registry.register_attr
class SameElementsAttr(AssumePredicate):
    """`same_elements<[c0, c1, ...]>`: per-dimension group sizes."""
    __slots__ = ()
    mnemonic = "same_elements"

    def __init__(self, values=()):
        super().__init__(tuple(values))

    values = property(lambda self: self.fields[0])

    def body(self):
        return "[" + ", ".join(str(v) for v in self.values) + "]"

    @classmethod
    def parse_body(cls, r):
        if r is None:
            cls._missing_body()
        return cls(r.int_list())


@registry.register_attr
class BoundedAttr(AssumePredicate):
    """`bounded<lb, ub>`, either bound `?` when unknown."""
    __slots__ = ()
    mnemonic = "bounded"

    def __init__(self, lb=None, ub=None):
        super().__init__(lb, ub)

    lb = property(lambda self: self.fields[0])
    ub = property(lambda self: self.fields[1])

    def body(self):
        return ", ".join("?" if v is None else str(v) for v in self.fields)

    @classmethod
    def parse_body(cls, r):
        if r is None:
            cls._missing_body()
        bounds = []
        for i in range(2):
            if i:
                r.expect(",")
            bounds.append(None if r.accept("?") else r.integer())
        return cls(*bounds)
