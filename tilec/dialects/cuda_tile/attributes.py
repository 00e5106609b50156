"""cuda_tile attributes: the enums (rounding, signedness, overflow, comparison,
memory ordering and scope, atomic modes, padding, visibility, multimem reductions)."""
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


class FullTextEnumAttr(EnumAttr):
    """An enum NVIDIA's printer spells in full (`#cuda_tile.x<v>`) inside an
    attribute dictionary too."""
    __slots__ = ()

    def text(self, short=False):
        return super().text(False)


def _enum(name, mnemonic, values, bracketed=True, description=None, base=EnumAttr):
    cls = type(name, (base,), {"mnemonic": mnemonic, "values": tuple(values), "bracketed": bracketed,
                                  "description": description or mnemonic.replace("_", " "),
                                  "__slots__": ()})
    return registry.register_attr(cls)


SignednessAttr = _enum("SignednessAttr", "signedness", ("unsigned", "signed"), False)
IntegerOverflowAttr = _enum("IntegerOverflowAttr", "overflow",
                            ("none", "no_signed_wrap", "no_unsigned_wrap", "no_wrap"))
RoundingModeAttr = _enum("RoundingModeAttr", "rounding",
                         ("nearest_even", "zero", "negative_inf", "positive_inf", "approx", "full",
                          "nearest_int_to_zero"))
ComparisonOrderingAttr = _enum("ComparisonOrderingAttr", "comparison_ordering", ("unordered", "ordered"), False)
ComparisonPredicateAttr = _enum("ComparisonPredicateAttr", "comparison_predicate",
                                ("equal", "not_equal", "less_than", "less_than_or_equal", "greater_than",
                                 "greater_than_or_equal"), False)
# memory ordering, scope and atomic mode are plain i32 enums (see I32EnumAttr below)
PaddingValueAttr = _enum("PaddingValueAttr", "padding_value", ("zero", "neg_zero", "nan", "pos_inf", "neg_inf"),
                         False)
SymbolVisibilityAttr = _enum("SymbolVisibilityAttr", "symbol_visibility", ("public", "private"), False)
# 13.5; the cases in bytecode order
MultimemReductionKindAttr = _enum("MultimemReductionKindAttr", "multimem_reduction_kind",
                                  ("add", "min", "max", "and", "or", "xor", "umin", "umax"),
                                  description="reduction operator for multimem load-reduce and multimem atomic "
                                              "reduce", base=FullTextEnumAttr)


# ---- i32-backed enums ---------------------------------------------------------

class _I32EnumMeta(type):
    """`isinstance(attr, Kind)` holds for an i32 IntegerAttr naming one of Kind's cases."""

    def __instancecheck__(cls, v):
        from ...ir.attributes import IntegerAttr
        from ...ir.types import IntegerType
        return (isinstance(v, IntegerAttr) and v.type == IntegerType(32)
                and 0 <= v.value < len(cls.values))


class I32EnumAttr(metaclass=_I32EnumMeta):
    """An enum kept as an i32 IntegerAttr (MLIR's I32EnumAttr, no dialect
    attribute of its own): the generic form writes the case number (`1 : i32`),
    custom forms write the case's keyword. `Kind("device")` builds the attribute;
    `Kind.name_of(attr)` reads the keyword back."""
    values: tuple = ()
    description = ""
    attr_name = ""  # the inherent attribute it is used as, for parse diagnostics

    def __new__(cls, word: str):
        from ...ir.attributes import IntegerAttr
        from ...ir.types import IntegerType
        return IntegerAttr(cls.values.index(word), IntegerType(32))

    @classmethod
    def name_of(cls, attr) -> str:
        return cls.values[attr.value]

    @classmethod
    def custom_syntax(cls):
        from ...syntax.format import AttrSyntax, BuildError
        from ...syntax.reader import unquote

        def convert(tok):
            s = str(tok)
            if tok.type == "STRING":
                s = unquote(s)
                if s not in cls.values:
                    raise BuildError(f'invalid {cls.attr_name} attribute specification: "{s}"', tok, custom_op=True)
            elif s not in cls.values:
                raise BuildError(f"expected string or keyword containing one of the following enum values "
                                 f"for attribute '{cls.attr_name}' [{', '.join(cls.values)}]", tok, custom_op=True)
            return cls(s)
        return AttrSyntax("BARE_ID | STRING", convert, lambda a: cls.name_of(a))


def _i32_enum(name, attr_name, values, description=""):
    if not description:
        description = "allowed 32-bit signless integer cases: " + ", ".join(str(i) for i in range(len(values)))
    return _I32EnumMeta(name, (I32EnumAttr,), {"values": tuple(values), "description": description,
                                               "attr_name": attr_name})


AtomicRMWModeAttr = _i32_enum("AtomicRMWModeAttr", "mode",
                              ("and", "or", "xor", "add", "addf", "max", "min", "umax", "umin", "xchg"))
MemoryScopeAttr = _i32_enum("MemoryScopeAttr", "memory_scope", ("tl_blk", "device", "sys"), "memory scope")
MemoryOrderingSemanticsAttr = _i32_enum("MemoryOrderingSemanticsAttr", "memory_ordering_semantics",
                                        ("weak", "relaxed", "acquire", "release", "acq_rel"),
                                        "memory ordering semantics")


