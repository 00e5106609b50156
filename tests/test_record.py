"""tilec.ir.record: the immutable value classes of types, attributes and
layouts (what attrs.frozen gave them before issue 22) and the mutable ones of
the scheduler (what dataclasses gave them)."""
from __future__ import annotations

import copy
import pickle

import pytest

from tilec.ir.record import FrozenInstanceError, evolve, factory, fields, frozen, mutable


class Base:
    __slots__ = ()


@frozen(cache_hash=True, repr=False)
class Pair(Base):
    a: int
    b: object = None

    def __repr__(self):
        return f"<{self.a}, {self.b}>"


@frozen(cache_hash=True, repr=False)
class Triple(Pair):
    c: str = "x"


@frozen
class Plain:
    shape: tuple
    n: int


@frozen(repr=False, eq=False)
class Keyed:
    key: object

    def __eq__(self, other):
        return isinstance(other, Keyed) and self.key == other.key

    def __hash__(self):
        return hash(self.key)


def test_fields_init_and_defaults():
    p = Pair(1)
    assert (p.a, p.b) == (1, None)
    assert Pair(1, 2).b == 2 and Pair(a=1, b=3).b == 3
    assert fields(Triple) == ("a", "b", "c") and Triple.__match_args__ == ("a", "b", "c")
    t = Triple(1, 2, "y")
    assert (t.a, t.b, t.c) == (1, 2, "y")
    with pytest.raises(TypeError):
        Pair()
    with pytest.raises(TypeError):
        Pair(1, 2, 3)


def test_equality_is_by_class_and_fields():
    assert Pair(1, 2) == Pair(1, 2) and Pair(1, 2) != Pair(1, 3)
    assert Pair(1, None) != Triple(1, None)          # same fields, another class
    assert hash(Pair(1, 2)) == hash(Pair(1, 2))
    assert len({Pair(1, 2), Pair(1, 2), Pair(2, 1)}) == 2
    nan = float("nan")
    assert Pair(nan) == Pair(nan)                     # fields compare as a tuple: identity first
    assert Keyed(1) == Keyed(1) and hash(Keyed(1)) == hash(1)


def test_frozen_and_slotted():
    p = Pair(1)
    with pytest.raises(FrozenInstanceError):
        p.a = 2
    with pytest.raises(AttributeError):
        del p.a
    assert not hasattr(p, "__dict__")
    assert repr(p) == "<1, None>"
    assert repr(Plain((4,), 2)) == "Plain(shape=(4,), n=2)"


def test_copies():
    t = Triple(1, (2, 3), "z")
    for other in (evolve(t), copy.copy(t), copy.deepcopy(t), pickle.loads(pickle.dumps(t))):
        assert other == t and hash(other) == hash(t) and other is not t
    assert evolve(t, c="w") == Triple(1, (2, 3), "w")
    with pytest.raises(TypeError):
        evolve(t, d=1)


def test_a_mandatory_field_may_not_follow_a_default():
    with pytest.raises(ValueError):
        @frozen
        class Bad:
            a: int = 0
            b: int


def test_zero_argument_super_sees_the_slotted_class():
    @frozen
    class Child(Base):
        x: int

        def base_repr(self):
            return super().__repr__()   # a stale cell: TypeError (obj must be an instance of type)

    assert "Child object" in Child(1).base_repr()


@mutable
class Schedule:
    """A docstring of its own."""
    loop: object
    loads: list = factory(list)
    reason: str | None = None

    @property
    def ok(self):
        return self.reason is None


def test_mutable_records():
    a, b = Schedule("L"), Schedule("L")
    assert a.loads == [] and a.loads is not b.loads and a.reason is None and a.ok
    assert a == b and Schedule("L", [1]) != a
    a.loads.append(1)
    a.reason = "no"
    a.extra = 3                      # instances keep a __dict__, as a dataclass's
    assert (a.loads, a.reason, a.ok) == ([1], "no", False)
    assert repr(b) == "Schedule(loop='L', loads=[], reason=None)"
    assert Schedule.__hash__ is None and fields(Schedule) == ("loop", "loads", "reason")
    assert Schedule.__doc__ == "A docstring of its own."
    assert Schedule(loop=1, reason="r").loads == []
    assert evolve(b, reason="x") == Schedule("L", [], "x")
    assert "loads" not in Schedule.__dict__    # the factory marker is not left on the class
