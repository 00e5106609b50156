"""The Pass base class and the target a pass runs on.

A pass runs on one anchor: an Operation, or the implicit top-level module (a
TopLevel wrapping the parser's parentless block). `self.options` holds the
parsed `{key=value ...}` options, converted by the class's OPTIONS table."""
from __future__ import annotations

from ..ir.core import Block, Operation
from ..ir.location import UNKNOWN


class PassError(Exception):
    """Bad pipeline text or pass options (reported as a diagnostic, not a traceback)."""


class TopLevel:
    """The implicit `builtin.module` around top-level ops."""
    name = "builtin.module"

    def __init__(self, block: Block):
        self.block = block
        self.location = block.first_op.location if block.first_op is not None else UNKNOWN

    @property
    def regions(self):
        return [_FakeRegion(self.block)]

    def walk(self):
        for op in list(self.block.ops):
            yield from op.walk()


class _FakeRegion:
    def __init__(self, block):
        self.blocks = [block]


def target_blocks(target):
    if isinstance(target, TopLevel):
        return [target.block]
    return [b for r in target.regions for b in r.blocks]


def _to_bool(s):
    if s in (None, "", "true", "1", "True"):
        return True
    if s in ("false", "0", "False"):
        return False
    raise ValueError(f"'{s}' is not a boolean")


class Pass:
    name = ""
    argument = ""            # display name in timing / IR dumps (defaults to the class name)
    OPTIONS: dict = {}       # option name -> (converter, default)

    def __init__(self, options=None):
        self.options = {k: v[1] for k, v in self.OPTIONS.items()}
        self.explicit_options = frozenset(options or ())   # written by the user (pipeline text or flag)
        for k, raw in (options or {}).items():
            if k not in self.OPTIONS:
                raise PassError(f"'{self.name}' does not have an option named '{k}'"
                                + (f" (known: {', '.join(sorted(self.OPTIONS))})" if self.OPTIONS else ""))
            conv = self.OPTIONS[k][0]
            if raw is None and conv is not bool:   # `{max-iterations}`: only a flag may go bare
                raise PassError(f"option '{k}' of pass '{self.name}' needs a value ({k}=...)")
            try:
                self.options[k] = _to_bool(raw) if conv is bool else conv(raw)
            except (ValueError, TypeError):
                # Python's own text ("invalid literal for int() with base 10") means nothing to a user
                what = {int: "an integer", float: "a number", bool: "true or false"}.get(conv, "a valid value")
                raise PassError(f"invalid value '{raw}' for option '{k}' of pass '{self.name}': "
                                f"expected {what}") from None

    @property
    def display_name(self):
        return self.argument or type(self).__name__

    def run(self, target) -> bool:
        """Transform `target` in place; report problems through current_engine()
        and return False on failure."""
        raise NotImplementedError


def is_operation(x):
    return isinstance(x, Operation)
