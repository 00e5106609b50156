"""Custom syntax pieces of the arithmetic, math and conversion ops: enum
keywords (signedness, comparison predicate/ordering), the per-op `rounding<...>`
modifiers, and the flag list of maxf/minf.

Errors follow the custom-op parser's wording: `custom op '<op>' expected ...`."""
from __future__ import annotations

from ...ir.attributes import UnitAttr
from ...syntax.format import BuildError, Directive, directive
from .attributes import (ComparisonOrderingAttr, ComparisonPredicateAttr, RoundingModeAttr,
                         SignednessAttr)


def _fail(state, message, tok=None, *more):
    """Raise a parse error naming the op; `more` are further messages reported
    at the same place (MLIR emits e.g. 'expected valid keyword' first)."""
    prefix = f"custom op '{state.op_cls.name}' "
    err = BuildError(prefix + message, tok)
    err.extra = [prefix + m for m in more]
    raise err


def _one_of(values, braces=False) -> str:
    text = ", ".join(f"'{v}'" for v in values)
    return "{" + text + "}" if braces else text


# ---------------------------------------------------------------------------
# enum keywords

class _EnumKeyword(Directive):
    """A bare keyword naming an enum value (`signed`, `less_than`, ...). The
    grammar accepts any keyword, or none, so a wrong or missing one gets the
    op's own diagnostic rather than a syntax error. Two of them side by side
    (cmpf, mmai) are a shift/reduce choice that Lark settles by shifting: a
    keyword is taken by the first directive that can take it, as MLIR's
    parseOptionalKeyword does."""
    attr_cls = None
    label = ""          # how the message names the enum
    order: tuple = ()   # value order used in the message

    def grammar(self, args):
        return "[BARE_ID]"

    @classmethod
    def check(cls, tok, state):
        expected = f"expected {cls.label} to be one of: {_one_of(cls.order, braces=True)}"
        if tok is None:
            _fail(state, "expected valid keyword", None, expected)
        if str(tok) not in cls.attr_cls.values:
            _fail(state, expected, tok)
        return cls.attr_cls(str(tok))

    def parse(self, children, args, state):
        (tok,) = children
        state.attrs[args[0].name] = self.check(tok, state)

    def print(self, op, args, p):
        v = op.attributes.get(args[0].name)
        return None if v is None else v.value


@directive("Signedness")
class Signedness(_EnumKeyword):
    attr_cls = SignednessAttr
    label = "signedness"
    order = ("signed", "unsigned")


@directive("ComparisonPredicate")
class ComparisonPredicate(_EnumKeyword):
    attr_cls = ComparisonPredicateAttr
    label = "'comparison_predicate'"
    order = ("equal", "not_equal", "less_than", "less_than_or_equal", "greater_than", "greater_than_or_equal")


@directive("ComparisonOrdering")
class ComparisonOrdering(_EnumKeyword):
    attr_cls = ComparisonOrderingAttr
    label = "'comparison_ordering'"
    order = ("ordered", "unordered")


# ---------------------------------------------------------------------------
# rounding modifiers

IEEE_MODES = ("nearest_even", "zero", "negative_inf", "positive_inf")


class _RoundingModifier(Directive):
    """An optional `rounding<mode>`. `allowed` lists what the op's parser takes,
    `default` is what an absent modifier means (stored when `store_default`,
    the attribute being required) and is never printed. A `lenient` parser
    takes any known mode and leaves the op's verifier to reject the others
    (`allowed` then only words the message for an unknown one)."""
    allowed: tuple = IEEE_MODES
    default = "nearest_even"
    store_default = True
    lenient = False

    def grammar(self, args):
        return '["rounding" "<" BARE_ID ">"]'

    def parse(self, children, args, state):
        (tok,) = children
        if tok is None:
            if self.store_default:
                state.attrs[args[0].name] = RoundingModeAttr(self.default)
            return
        if str(tok) not in (RoundingModeAttr.values if self.lenient else self.allowed):
            _fail(state, f"expected rounding mode to be one of: {_one_of(self.allowed)}, got: '{tok}'", tok)
        state.attrs[args[0].name] = RoundingModeAttr(str(tok))

    def print(self, op, args, p):
        v = op.attributes.get(args[0].name)
        if v is None or v.value == self.default:
            return None
        return f"rounding<{v.value}>"


@directive("DivFOpRoundingMode")
class DivFOpRoundingMode(_RoundingModifier):
    allowed = IEEE_MODES + ("approx", "full")
    lenient = True


@directive("SqrtOpRoundingMode")
class SqrtOpRoundingMode(_RoundingModifier):
    allowed = IEEE_MODES + ("approx",)
    lenient = True


@directive("ExpOpRoundingMode")
class ExpOpRoundingMode(_RoundingModifier):
    allowed = ("approx", "full")
    default = "full"
    store_default = False
    lenient = True


@directive("TanHOpRoundingMode")
class TanHOpRoundingMode(ExpOpRoundingMode):
    pass


@directive("IntegerRoundingMode")
class IntegerRoundingMode(_RoundingModifier):
    allowed = ("nearest_int_to_zero",)
    default = "nearest_int_to_zero"


# ---------------------------------------------------------------------------
# maxf/minf: `oilist(`flush_to_zero` $flush_to_zero | `propagate_nan` $propagate_nan)`

@directive("UnitFlags")
class UnitFlags(Directive):
    """Unit attributes written as their own names, in any order, each at most
    once; printed in declaration order."""

    def grammar(self, args):
        return "BARE_ID*"

    def parse(self, children, args, state):
        names = {a.name for a in args}
        for tok in children:
            word = str(tok)
            if word not in names:  # not a flag: what follows the list is the `:` before the type
                _fail(state, "expected ':'", tok)
            if word in state.attrs:
                _fail(state, f"'{word}' may appear only once", tok)
            state.attrs[word] = UnitAttr()

    def print(self, op, args, p):
        return " ".join(a.name for a in args if a.name in op.attributes) or None

