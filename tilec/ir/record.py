"""Value classes from annotated fields, without attrs or dataclasses.

`@frozen` makes a class's annotated attributes its fields and gives it
`__slots__`, an `__init__` taking them in order (class-level values are
defaults), field-wise `__eq__` between instances of the same class, a
`__hash__` (cached with `cache_hash=True`), a field-listing `__repr__` (unless
`repr=False`), and assignment that raises FrozenInstanceError; `evolve(obj,
**changes)` copies one with some fields replaced. It is the part of
`attrs.frozen` tilec used, with the same semantics: fields of decorated base
classes come first; a method the class body defines itself is kept (so
`eq=False` with an own `__eq__`/`__hash__` keeps both).

`@mutable` is dataclasses' `@dataclass` as tilec used it: the same `__init__`
(a `factory(list)` default makes a fresh value per instance), `__eq__` and
`__repr__`, assignable fields, instances with a `__dict__`, and no hash.

Importing attrs and dataclasses (which imports inspect) and building their
generated methods was a quarter of a `tilec compile` of a small kernel. The
methods here are compiled once per kind and number of fields, then renamed
for each class, so decorating a class compiles nothing in the common case."""
from __future__ import annotations

import types as _types

_setattr = object.__setattr__
_MISSING = object()
_FACTORY = object()  # the __init__ default of a factory() field: make a value
_HASH_SLOT = "_record_hash"
_CODE: dict = {}  # (method, field names) -> code object


class FrozenInstanceError(AttributeError):
    """Assignment to a field of a frozen instance."""
    msg = "can't set attribute"

    def __init__(self):
        super().__init__(self.msg)


def _frozen_setattr(self, name, value):
    raise FrozenInstanceError()


def _frozen_delattr(self, name):
    raise FrozenInstanceError()


def _getstate(self):
    return {name: getattr(self, name) for name in self.__record_fields__}


def _setstate(self, state):
    for name, value in state.items():
        _setattr(self, name, value)
    if _has_slot(self.__class__, _HASH_SLOT):
        _setattr(self, _HASH_SLOT, None)


def _source(kind: str, names: tuple) -> str:
    mine = "".join(f"self.{n}, " for n in names)
    if kind.startswith("mutable_init:"):  # then one 0/1 per field: 1 for a factory() field
        made = kind.split(":")[1]
        body = "".join(f"\n    self.{n} = self.__record_factories__[{n!r}]() if {n} is _FACTORY else {n}"
                       if f == "1" else f"\n    self.{n} = {n}" for n, f in zip(names, made))
        return f"def __init__(self, {', '.join(names)}):{body or chr(10) + '    pass'}"
    if kind in ("__init__", "cached_init"):
        body = "".join(f"\n    _setattr(self, {n!r}, {n})" for n in names)
        if kind == "cached_init":
            body += f"\n    _setattr(self, {_HASH_SLOT!r}, None)"
        return f"def __init__(self, {', '.join(names)}):{body or chr(10) + '    pass'}"
    if kind == "__eq__":
        theirs = "".join(f"other.{n}, " for n in names)
        return ("def __eq__(self, other):\n    if other.__class__ is not self.__class__:\n"
                f"        return NotImplemented\n    return ({mine}) == ({theirs})")
    if kind == "__hash__":
        return f"def __hash__(self):\n    return hash((self.__class__, {mine}))"
    assert kind == "cached_hash"
    return (f"def __hash__(self):\n    h = self.{_HASH_SLOT}\n    if h is None:\n"
            f"        h = hash((self.__class__, {mine}))\n        _setattr(self, {_HASH_SLOT!r}, h)\n"
            f"    return h")


def _code(kind: str, names: tuple):
    """The code of method `kind` over fields `names`: compiled once per kind and
    field count over placeholder names, which are then renamed (a code object
    names its locals, attributes and constants in tables of its own)."""
    key = (kind, names)
    code = _CODE.get(key)
    if code is None:
        holders = tuple(f"_field{i}_" for i in range(len(names)))
        template = _CODE.get((kind, holders))
        if template is None:
            scope: dict = {}
            exec(_source(kind, holders), globals(), scope)  # noqa: S102  (made from placeholders)
            template = _CODE[(kind, holders)] = next(iter(scope.values())).__code__
        ren = dict(zip(holders, names))
        code = _CODE[key] = template.replace(
            co_names=tuple(ren.get(n, n) for n in template.co_names),
            co_varnames=tuple(ren.get(n, n) for n in template.co_varnames),
            co_consts=tuple(ren.get(c, c) if type(c) is str else c for c in template.co_consts))
    return code


def _method(cls, kind: str, names: tuple, defaults=None):
    code = _code(kind, names)
    fn = _types.FunctionType(code, globals(), code.co_name, defaults)
    fn.__qualname__ = f"{cls.__qualname__}.{fn.__name__}"
    fn.__module__ = cls.__module__
    return fn


def _repr_of(cls, names: tuple):
    def __repr__(self):
        return f"{self.__class__.__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in names)})"
    __repr__.__qualname__ = f"{cls.__qualname__}.__repr__"
    return __repr__


class _Factory:
    __slots__ = ("make",)

    def __init__(self, make):
        self.make = make


def factory(make):
    """A `@mutable` field's default made afresh for each instance by `make()`
    (dataclasses' `field(default_factory=make)`)."""
    return _Factory(make)


def _fields(cls) -> tuple:
    """(names, {name: default}) of `cls`: its decorated bases' fields, then its own."""
    names, defaults = [], {}
    for base in reversed(cls.__mro__[1:]):
        for name in base.__dict__.get("__record_fields__", ()):
            if name not in defaults:
                names.append(name)
            defaults[name] = base.__record_defaults__.get(name, _MISSING)
    own = cls.__dict__.get("__annotations__", {})
    names = [n for n in names if n not in own] + list(own)
    for name in own:
        defaults[name] = cls.__dict__.get(name, _MISSING)
    if "self" in names:
        raise ValueError(f"{cls.__qualname__}: a field may not be named 'self'")
    seen_default = False
    for name in names:
        if defaults[name] is not _MISSING:
            seen_default = True
        elif seen_default:
            raise ValueError(f"{cls.__qualname__}: field {name!r} without a default follows one with a default")
    return tuple(names), {n: d for n, d in defaults.items() if d is not _MISSING}


def _has_slot(cls, name: str) -> bool:
    return any(name in getattr(b, "__slots__", ()) for b in cls.__mro__)


def _build(cls, cache_hash: bool, repr: bool, eq: bool):
    names, defaults = _fields(cls)
    own = cls.__dict__
    own_fields = tuple(own.get("__annotations__", {}))
    slots = tuple(n for n in own_fields if not _has_slot(cls, n))
    if cache_hash and not _has_slot(cls, _HASH_SLOT):
        slots += (_HASH_SLOT,)
    ns = {k: v for k, v in own.items() if k not in own_fields and k not in ("__dict__", "__weakref__")}
    ns["__slots__"] = slots
    ns["__record_fields__"] = names
    ns["__record_defaults__"] = defaults
    ns["__match_args__"] = names
    if cache_hash and "__init__" in own:
        raise TypeError(f"{cls.__qualname__}: cache_hash needs the generated __init__")
    if "__init__" not in own:
        given = tuple(defaults[n] for n in names if n in defaults)
        ns["__init__"] = _method(cls, "cached_init" if cache_hash else "__init__", names, given or None)
    if eq and "__eq__" not in own:
        ns["__eq__"] = _method(cls, "__eq__", names)
        if "__hash__" not in own or own["__hash__"] is None:
            ns["__hash__"] = _method(cls, "cached_hash" if cache_hash else "__hash__", names)
    if repr and "__repr__" not in own:
        ns["__repr__"] = _repr_of(cls, names)
    ns["__setattr__"], ns["__delattr__"] = _frozen_setattr, _frozen_delattr
    ns["__getstate__"], ns["__setstate__"] = _getstate, _setstate
    new = type(cls)(cls.__name__, cls.__bases__, ns)
    _retarget_cells(new, cls)
    return new


def _retarget_cells(new, old):
    """Zero-argument `super()` in a method closes over the class it was defined
    in; the slotted class replaces that one, so point those cells at it."""
    for value in new.__dict__.values():
        if isinstance(value, (classmethod, staticmethod)):
            value = value.__func__
        fns = (value.fget, value.fset, value.fdel) if isinstance(value, property) else (value,)
        for fn in fns:
            for cell in getattr(fn, "__closure__", None) or ():
                try:
                    if cell.cell_contents is old:
                        cell.cell_contents = new
                except ValueError:  # an empty cell
                    pass


def _build_mutable(cls, repr: bool, eq: bool):
    names, defaults = _fields(cls)
    own = cls.__dict__
    factories = {n: d.make for n, d in defaults.items() if isinstance(d, _Factory)}
    for name in own.get("__annotations__", {}):
        if name in factories:
            delattr(cls, name)
    cls.__record_fields__ = cls.__match_args__ = names
    cls.__record_defaults__ = defaults
    cls.__record_factories__ = factories
    if "__init__" not in own:
        made = "".join("1" if n in factories else "0" for n in names)
        given = tuple(_FACTORY if n in factories else defaults[n] for n in names if n in defaults)
        cls.__init__ = _method(cls, f"mutable_init:{made}", names, given or None)
    if eq and "__eq__" not in own:
        cls.__eq__ = _method(cls, "__eq__", names)
        if "__hash__" not in own or own["__hash__"] is None:
            cls.__hash__ = None
    if repr and "__repr__" not in own:
        cls.__repr__ = _repr_of(cls, names)
    return cls


def mutable(cls=None, *, repr: bool = True, eq: bool = True):
    """`@mutable` or `@mutable(repr=..., eq=...)`; see the module."""
    def wrap(c):
        return _build_mutable(c, repr, eq)
    return wrap if cls is None else wrap(cls)


def frozen(cls=None, *, cache_hash: bool = False, repr: bool = True, eq: bool = True):
    """`@frozen` or `@frozen(cache_hash=..., repr=..., eq=...)`; see the module."""
    def wrap(c):
        return _build(c, cache_hash, repr, eq)
    return wrap if cls is None else wrap(cls)


def evolve(obj, **changes):
    """A copy of `obj` (of a `@frozen` or `@mutable` class) with the named fields replaced."""
    cls = obj.__class__
    for name in cls.__record_fields__:
        if name not in changes:
            changes[name] = getattr(obj, name)
    return cls(**changes)


def fields(cls) -> tuple:
    """The field names of a `@frozen` or `@mutable` class, in `__init__` order."""
    return cls.__record_fields__
