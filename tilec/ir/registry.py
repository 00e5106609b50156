"""Where dialects register their ops, types and attributes. The core only keeps
the tables; it never imports a dialect.

A dialect may declare ops before defining them (`declare_ops`: op name ->
the module that defines it), so that a process imports only the op modules it
uses: looking a declared op up in OPS or OP_ALIASES imports its module, and
anything that walks either table (iteration, len, keys/items/values) first
imports every declared module, so it sees every op as before."""
from __future__ import annotations

import importlib


class _OpTable(dict):
    """name -> Op subclass, with declared ops defined on first lookup."""

    def __init__(self):
        super().__init__()
        self.pending: dict = {}  # declared name -> the module that defines it, until imported

    def __missing__(self, name):
        module = self.pending.get(name)
        if module is None:
            raise KeyError(name)
        _import(module)
        return dict.__getitem__(self, name)

    def get(self, name, default=None):
        try:
            return self[name]
        except KeyError:
            return default

    def __contains__(self, name):
        return dict.__contains__(self, name) or (name in self.pending and self.get(name) is not None)

    def __iter__(self):
        _import_all()
        return dict.__iter__(self)

    def __len__(self):
        _import_all()
        return dict.__len__(self)

    def keys(self):
        _import_all()
        return dict.keys(self)

    def values(self):
        _import_all()
        return dict.values(self)

    def items(self):
        _import_all()
        return dict.items(self)

    def copy(self):
        return dict(self.items())

    def __reduce__(self):
        return dict, (dict(self.items()),)


OPS: dict = _OpTable()          # "dialect.op" -> Op subclass
OP_ALIASES: dict = _OpTable()   # an op's old spelling ("cuda_tile.fpowf") -> its Op subclass
TYPES: dict = {}          # ("dialect", "mnemonic") -> DialectType subclass
ATTRS: dict = {}          # ("dialect", "mnemonic") -> DialectAttr subclass
SHORT_TYPE_DIALECTS: list = []  # dialects whose types may be written without `!dialect.`
_loaders: list = []
_loaded = False


def _import(module: str) -> None:
    importlib.import_module(module)
    for table in (OPS, OP_ALIASES):
        for name in [n for n, m in table.pending.items() if m == module]:
            del table.pending[name]


def _import_all() -> None:
    for table in (OPS, OP_ALIASES):
        while table.pending:
            _import(next(iter(table.pending.values())))


def declare_ops(modules: dict, aliases: dict = ()) -> None:
    """Declare ops defined in modules not imported yet: `modules` maps a module
    name to the names of the ops it registers, `aliases` to the old spellings
    they declare (see register_op). A name already registered stays as it is."""
    for table, names_of in ((OPS, modules), (OP_ALIASES, dict(aliases))):
        for module, names in names_of.items():
            for name in names:
                if not dict.__contains__(table, name):
                    table.pending[name] = module


def op_names() -> set:
    """Every op name registered or declared, importing nothing."""
    return set(dict.keys(OPS)) | set(OPS.pending)


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


# discardable attributes a dialect checks wherever they appear (MLIR's
# Dialect::verifyOperationAttribute): attribute name -> fn(op, attr) -> bool
ATTR_VERIFIERS: dict = {}


def register_attr_verifier(name: str, fn):
    ATTR_VERIFIERS[name] = fn


def add_loader(fn):
    """A callable that imports a dialect package; run once by load_all()."""
    _loaders.append(fn)


def load_all():
    """Import the dialect packages (their op modules load as OPS is used)."""
    global _loaded
    if not _loaded:
        _loaded = True
        for fn in _loaders:
            fn()
