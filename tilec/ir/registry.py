"""Where dialects register their ops, types and attributes. The core only keeps
the tables; it never imports a dialect."""
from __future__ import annotations

OPS: dict = {}            # "dialect.op" -> Op subclass
OP_ALIASES: dict = {}     # an op's old spelling ("cuda_tile.fpowf") -> its Op subclass
TYPES: dict = {}          # ("dialect", "mnemonic") -> DialectType subclass
ATTRS: dict = {}          # ("dialect", "mnemonic") -> DialectAttr subclass
SHORT_TYPE_DIALECTS: list = []  # dialects whose types may be written without `!dialect.`
_loaders: list = []
_loaded = False


def register_op(cls):
    """Register `cls` under its name and under the old spellings it declares in
    its own `aliases` (read as the op, printed as `cls.name`)."""
    OPS[cls.name] = cls
    for alias in cls.__dict__.get("aliases", ()):
        OP_ALIASES[alias] = cls
    return cls


def register_type(cls):
    TYPES[(cls.dialect, cls.mnemonic)] = cls
    return cls


def register_attr(cls):
    ATTRS[(cls.dialect, cls.mnemonic)] = cls
    return cls


def add_loader(fn):
    """A callable that imports a dialect package; run once by load_all()."""
    _loaders.append(fn)


def load_all():
    global _loaded
    if not _loaded:
        _loaded = True
        for fn in _loaders:
            fn()
