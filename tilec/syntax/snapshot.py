"""An on-disk snapshot of a built Lark LALR parser, loaded in a tenth of the
time Lark's own cache takes.

Lark's cache stores a portable serialization: loading it rebuilds every
parse-table entry in Python (~0.5 s for tilec's ~3,400 states) and the
contextual lexer then compiles one scanner regex per lexer state on first
use (~0.3 s more for a typical kernel). Both dominate `tilec compile` of a
small kernel. The snapshot is a pickle of the ready parser instead: parse
actions are shared objects, every scanner is built before saving, and each
compiled regex is stored as its compiled program so loading skips Python's
regex compiler.

The snapshot is a cache, never a source of truth: its key covers the
grammar text, the Lark and Python versions and the regex engine's format,
and any failure to read it falls back to building the parser from Lark."""
from __future__ import annotations

import array
import hashlib
import importlib
import io
import os
import pickle
import re
import sys
import tempfile
import types

from lark.parsers.lalr_analysis import Reduce, Shift

FORMAT = 3  # bump when what is pickled changes shape (3: BARE_ID in every lexer state, keyword tables)


def cache_dir() -> str:
    """Where snapshots live: $TILEC_CACHE_DIR, else the user's cache folder
    (never a world-writable one: a snapshot is unpickled)."""
    explicit = os.environ.get("TILEC_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tilec")


def key(grammar: str) -> str:
    import lark
    try:
        import _sre
        magic = _sre.MAGIC
    except (ImportError, AttributeError):  # another Python: regexes are stored as text
        magic = None
    ident = f"{FORMAT}|{lark.__version__}|{sys.version}|{magic}|{grammar}"
    return hashlib.sha1(ident.encode()).hexdigest()[:20]


def path_for(grammar: str) -> str:
    return os.path.join(cache_dir(), f"parser-{key(grammar)}.pickle")


# -- compiled regexes ---------------------------------------------------------

def _program(pattern: re.Pattern):
    """The arguments of CPython's `_sre.compile` for `pattern`, or None
    where this Python's regex internals are not the ones expected."""
    try:
        import _sre
        from re import _compiler, _parser
        tree = _parser.parse(pattern.pattern, pattern.flags)
        code = _compiler._code(tree, pattern.flags)
        index = tree.state.groupdict
        names = [None] * tree.state.groups
        for name, i in index.items():
            names[i] = name
        parts = (pattern.pattern, pattern.flags | tree.state.flags, array.array("I", code).tobytes(),
                 tree.state.groups - 1, dict(index), tuple(names))
        again = restore_pattern(*parts)
        if again.pattern != pattern.pattern or again.groupindex != pattern.groupindex:
            return None
        return parts
    except Exception:  # noqa: BLE001 -- any surprise means: store the text
        return None


def restore_pattern(pattern, flags, code, groups, index, names):
    """A compiled regex from its stored program (see _program)."""
    try:
        import _sre
        return _sre.compile(pattern, flags, array.array("I", code).tolist(), groups, index, names)
    except Exception:  # noqa: BLE001 -- a program this Python rejects: compile the text
        return re.compile(pattern, flags & ~re.UNICODE if isinstance(pattern, bytes) else flags)


# -- save and load ------------------------------------------------------------

class _Pickler(pickle.Pickler):
    """Pickles a Lark object, leaving out what belongs to the process: the
    transformer (tilec's IR builder), the callbacks made from it, and
    modules (Lark keeps the `re` module in its lexer configuration)."""

    def __init__(self, f, transformer, callbacks):
        super().__init__(f, protocol=pickle.HIGHEST_PROTOCOL)
        self.transformer, self.callbacks = transformer, callbacks

    def persistent_id(self, obj):
        if obj is self.transformer:
            return "transformer"
        if obj is self.callbacks:
            return "callbacks"
        if isinstance(obj, types.ModuleType):
            return ("module", obj.__name__)
        if obj is Shift or obj is Reduce:  # the parser compares actions by identity
            return ("action", obj.name)
        return None

    def reducer_override(self, obj):
        if type(obj) is re.Pattern:
            parts = _program(obj)
            if parts is not None:
                return restore_pattern, parts
        return NotImplemented


class _Unpickler(pickle.Unpickler):
    def __init__(self, f, transformer, callbacks):
        super().__init__(f)
        self.transformer, self.callbacks = transformer, callbacks

    def persistent_load(self, pid):
        if pid == "transformer":
            return self.transformer
        if pid == "callbacks":
            return self.callbacks
        if isinstance(pid, tuple) and pid[0] == "module":
            return importlib.import_module(pid[1])
        if pid == ("action", "Shift"):
            return Shift
        if pid == ("action", "Reduce"):
            return Reduce
        raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")


def contextual_lexer(parser):
    """The ContextualLexer of a built Lark LALR parser (inside Lark's
    PostLexConnector when the parser has a post-lexer)."""
    lexer = parser.parser.lexer
    return getattr(lexer, "lexer", lexer)


def state_lexers(parser) -> list:
    """Each of its lexer states' BasicLexer once, and the root lexer."""
    lexer = contextual_lexer(parser)
    return list({id(x): x for x in (*lexer.lexers.values(), lexer.root_lexer)}.values())


def save(parser, path: str) -> None:
    """Write `parser` (a built Lark LALR parser with a contextual lexer) to
    `path`, atomically; a cache that cannot be written is not an error."""
    frontend = parser.parser
    for state_lexer in state_lexers(parser):
        state_lexer.scanner  # built now so that loading never compiles one
    # equal actions become one object, so the pickle stores each once
    shared: dict = {}
    for actions in frontend.parser.parser.parse_table.states.values():
        for token, act in actions.items():
            arg = act[1]  # a state number (shift) or a rule (reduce; rules live as long as the parser)
            actions[token] = shared.setdefault((act[0], arg if isinstance(arg, int) else id(arg)), act)
    buf = io.BytesIO()
    _Pickler(buf, parser.options.transformer, parser._callbacks).dump(parser)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".parser-")
        with os.fdopen(fd, "wb") as f:
            f.write(buf.getvalue())
        os.replace(tmp, path)
    except OSError:
        pass


def load(path: str, transformer):
    """The parser saved at `path`, with `transformer` as its transformer, or
    None when there is no usable snapshot there."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    callbacks: dict = {}
    try:
        parser = _Unpickler(io.BytesIO(data), transformer, callbacks).load()
        # the callbacks are closures over the transformer: made again, as Lark
        # makes them when it loads its own cache, into the dict the parse
        # tables already hold
        parser._prepare_callbacks()
        callbacks.update(parser._callbacks)
        parser._callbacks = callbacks
    except Exception:  # noqa: BLE001 -- a stale or damaged cache is rebuilt
        return None
    return parser
