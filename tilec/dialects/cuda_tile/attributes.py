"""cuda_tile attributes: the enums (rounding, signedness, overflow, comparison,
memory ordering and scope, atomic modes, padding, visibility)."""
from __future__ import annotations

from ...ir import registry
from ...ir.attributes import DialectAttr

DIALECT = "cuda_tile"


class EnumAttr(DialectAttr):
    """An enum value. Generic form `#cuda_tile.<mnemonic><value>`; inside custom
    forms either bracketed `<value>` or a bare keyword (`bracketed`)."""
    __slots__ = ("value",)
    dialect = DIALECT
    values: tuple = ()
    bracketed = True
    description = "enum"

    def __init__(self, value: str):
        object.__setattr__(self, "value", value)

    def __eq__(self, other):
        return type(other) is type(self) and other.value == self.value

    def __hash__(self):
        return hash((type(self).__name__, self.value))

    def body(self):
        return self.value

    @classmethod
    def parse_body(cls, r):
        if r is None:
            raise_missing(cls)
        word = r.keyword()
        if word not in cls.values:
            r.error(f"expected {cls.description} to be one of: {', '.join(cls.values)}")
        return cls(word)

    @classmethod
    def custom_syntax(cls):
        from ...syntax.format import AttrSyntax, BuildError
        def convert(tok):
            s = str(tok)
            if s not in cls.values:
                raise BuildError(f"expected {cls.description} to be one of: {', '.join(cls.values)}", tok)
            return cls(s)
        if cls.bracketed:
            return AttrSyntax('"<" BARE_ID ">"', convert, lambda a: f"<{a.value}>")
        return AttrSyntax("BARE_ID", convert, lambda a: a.value)


def raise_missing(cls):
    from ...syntax.reader import BodyError
    raise BodyError(f"expected '<' after '{cls.mnemonic}'")


def _enum(name, mnemonic, values, bracketed=True, description=None):
    cls = type(name, (EnumAttr,), {"mnemonic": mnemonic, "values": tuple(values), "bracketed": bracketed,
                                  "description": description or mnemonic.replace("_", " "),
                                  "__slots__": ()})
    return registry.register_attr(cls)


SignednessAttr = _enum("SignednessAttr", "signedness", ("unsigned", "signed"), False)
IntegerOverflowAttr = _enum("IntegerOverflowAttr", "overflow", ("none", "nsw", "nuw", "nw"))
RoundingModeAttr = _enum("RoundingModeAttr", "rounding",
                         ("nearest_even", "zero", "negative_inf", "positive_inf", "approx", "full",
                          "nearest_int_to_zero"))
ComparisonOrderingAttr = _enum("ComparisonOrderingAttr", "comparison_ordering", ("unordered", "ordered"), False)
ComparisonPredicateAttr = _enum("ComparisonPredicateAttr", "comparison_predicate",
                                ("equal", "not_equal", "less_than", "less_than_or_equal", "greater_than",
                                 "greater_than_or_equal"), False)
AtomicRMWModeAttr = _enum("AtomicRMWModeAttr", "atomic_rmw_mode",
                          ("and", "or", "xor", "add", "addf", "max", "min", "umax", "umin", "xchg"), False)
MemoryScopeAttr = _enum("MemoryScopeAttr", "memory_scope", ("tl_blk", "device", "sys"), False)
MemoryOrderingSemanticsAttr = _enum("MemoryOrderingSemanticsAttr", "memory_ordering_semantics",
                                    ("weak", "relaxed", "acquire", "release", "acq_rel"), False)
PaddingValueAttr = _enum("PaddingValueAttr", "padding_value", ("zero", "neg_zero", "nan", "pos_inf", "neg_inf"),
                         False)
SymbolVisibilityAttr = _enum("SymbolVisibilityAttr", "symbol_visibility", ("public", "private"), False)
