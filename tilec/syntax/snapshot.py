"""An on-disk snapshot of a built Lark LALR parser, loaded in a hundredth of
the time Lark's own cache takes.

Lark's cache stores a portable serialization: loading it rebuilds every
parse-table entry in Python (~0.5 s for tilec's ~3,800 states) and the
contextual lexer then compiles one scanner regex per lexer state on first
use (~0.3 s more for a typical kernel). Both dominate `tilec compile` of a
small kernel. The snapshot holds the ready parser instead: every scanner is
built before saving, and each compiled regex is stored as its compiled
program so loading skips Python's regex compiler. Parse-table rows, the
lexer states' scanners, rules and their callbacks are stored apart and made
on first use (see "save and load" below): a kernel touches few of them.

The snapshot is a cache, never a source of truth: its key covers what the
grammar is made from (tilec/syntax/parser.py's _grammar_sources: the files
that make the grammar text, by size and modification time, and anything
registered from outside them), the Lark and Python versions and the regex
engine's format, and any failure to read it falls back to building the
parser from Lark."""
from __future__ import annotations

import array
import importlib
import io
import marshal
import mmap
import os
import pickle
import re
import struct
import sys
import tempfile
import types
import zlib

FORMAT = 5  # bump when what is stored changes shape (3: BARE_ID in every lexer state, keyword tables;
# 4: marshalled tables made into Lark objects on first use; 5: the identity it was saved under, Lark's
# version, and the lexers as plain tables for tilec's own runtime, lalr.py)


def _shift_reduce():
    """Lark's parse-table actions (Lark is imported only where a Lark parser is saved or loaded)."""
    from lark.parsers.lalr_analysis import Reduce, Shift
    return Shift, Reduce


def cache_dir() -> str:
    """Where snapshots live: $TILEC_CACHE_DIR, else the user's cache folder
    (never a world-writable one: a snapshot is unpickled)."""
    explicit = os.environ.get("TILEC_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tilec")


def ident(grammar: str) -> str:
    """What a snapshot of a parser for `grammar` (its text, or what it is
    made from) must have been saved under to be used: it is stored in the
    snapshot and compared on loading, so the file name needs no strong hash."""
    try:
        import _sre
        magic = _sre.MAGIC
    except (ImportError, AttributeError):  # another Python: regexes are stored as text
        magic = None
    return f"{FORMAT}|{sys.version}|{magic}|{grammar}"


def key(grammar: str) -> str:
    data = ident(grammar).encode()
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}{len(data):x}"


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
#
# The file: an 8-byte length, then a marshal of plain tables (rules, parse-table
# rows, each lexer state's BasicLexer as its own small pickle), then a pickle
# of the Lark object in which the parse table's states, the contextual lexer's
# per-state lexers and the rules are references into those tables. Loading
# unpickles only that skeleton; a parse state's row, a lexer state's scanner, a
# rule and its callback are made on first use (a small kernel touches a few
# hundred of ~3,800 states), so a load costs milliseconds, not the ~60 ms of
# unpickling the whole parser.

_RULE, _TERM = "rule", "term"


class _Pickler(pickle.Pickler):
    """Pickles a Lark object, leaving out what belongs to the process: the
    transformer (tilec's IR builder), the callbacks made from it, and
    modules (Lark keeps the `re` module in its lexer configuration); and what
    the tables hold (`refs`: object id -> persistent id)."""

    def __init__(self, f, transformer, callbacks, refs=None):
        super().__init__(f, protocol=pickle.HIGHEST_PROTOCOL)
        self.transformer, self.callbacks = transformer, callbacks
        self.refs = refs or {}
        self.shift, self.reduce = _shift_reduce()

    def persistent_id(self, obj):
        if obj is self.transformer:
            return "transformer"
        if obj is self.callbacks:
            return "callbacks"
        if isinstance(obj, types.ModuleType):
            return ("module", obj.__name__)
        if obj is self.shift or obj is self.reduce:  # the parser compares actions by identity
            return ("action", obj.name)
        return self.refs.get(id(obj))

    def reducer_override(self, obj):
        if type(obj) is re.Pattern:
            parts = _program(obj)
            if parts is not None:
                return restore_pattern, parts
        return NotImplemented


class _Unpickler(pickle.Unpickler):
    def __init__(self, f, transformer, callbacks, tables=None):
        super().__init__(f)
        self.transformer, self.callbacks = transformer, callbacks
        self.tables = tables

    def persistent_load(self, pid):
        if self.tables is not None:  # references into the tables first: nearly all of them
            found = self.tables.resolve(pid)
            if found is not None:
                return found
        if pid == "transformer":
            return self.transformer
        if pid == "callbacks":
            return self.callbacks
        if isinstance(pid, tuple) and pid[0] == "module":
            return importlib.import_module(pid[1])
        if pid == ("action", "Shift"):
            return _shift_reduce()[0]
        if pid == ("action", "Reduce"):
            return _shift_reduce()[1]
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


def _plain_rule(rule):
    o = rule.options
    return (str(rule.origin.name),
            tuple((str(s.name), s.is_term, bool(getattr(s, "filter_out", False))) for s in rule.expansion),
            rule.order, rule.alias,
            (o.keep_all_tokens, o.expand1, o.priority, o.template_source, tuple(o.empty_indices)))


def _plain_lexers(parser, table, state_lexers_, keyword_table):
    """The tables lalr.py runs (see FastParser): start and end states, the
    terminal names, and per state lexer (in blob order) its scanner's regex
    programs, keyword tables, ignored and newline-holding terminals; None where
    the parser has something lalr.py does not model."""
    if keyword_table is None:
        return None
    lexers = []
    for state_lexer in state_lexers_:
        mres = getattr(state_lexer.scanner, "_mres", None)
        programs = [_program(m) for m in mres or ()]
        keywords = {}
        for name, cb in state_lexer.callback.items():
            found = keyword_table(cb)
            if found is None:
                return None
            keywords[name] = dict(found)
        if not programs or any(p is None for p in programs) or state_lexer.use_bytes:
            return None
        lexers.append((programs, keywords, sorted(state_lexer.ignore_types), sorted(state_lexer.newline_types)))
    return (dict(table.start_states), dict(table.end_states), [t.name for t in parser.terminals]), lexers


def save(parser, path: str, grammar: str | None = None, keyword_table=None) -> None:
    """Write `parser` (a built Lark LALR parser with a contextual lexer) to
    `path`, atomically; a cache that cannot be written is not an error.
    `grammar`: what path_for was given (loading checks it); `keyword_table(cb)`:
    the {word: terminal} table of a lexer callback that retypes keywords, or
    None (a lexer with any other callback leaves lalr.py no tables).

    The file: the size of the header, the header (marshalled: format,
    `ident(grammar)`, Lark's version, the symbol names, each state's row
    number, each lexer state's lexer number, lalr.py's start/end states and
    terminal names, and where each section's items lie), then the sections:
    lists of byte strings, each read (from the mapped file) when first used:
    `rules` and `rows` (marshalled), `blobs` (each state lexer's pickle),
    `lexers` (each state lexer for lalr.py, marshalled) and `skeleton` (the
    pickled Lark object)."""
    import lark
    Shift, _ = _shift_reduce()
    frontend = parser.parser
    for state_lexer in state_lexers(parser):
        state_lexer.scanner  # built now so that loading never compiles one
    table = frontend.parser.parser.parse_table
    states = table.states
    if sorted(states) != list(range(len(states))):
        return  # not Lark's IntParseTable: nothing this format can hold
    rules = list(parser.rules)
    rule_index = {id(r): i for i, r in enumerate(rules)}
    refs = {id(r): (_RULE, i) for i, r in enumerate(rules)}
    symbols: dict = {}  # symbol name -> its number in the header's list
    rows: dict = {}
    state_rows = []
    for state in range(len(states)):
        actions = states[state]
        names = tuple(symbols.setdefault(str(k), len(symbols)) for k in actions)
        codes = []
        for act, arg in actions.values():
            if act is Shift:
                codes.append(arg)
            elif id(arg) in rule_index:
                codes.append(~rule_index[id(arg)])
            else:
                return  # a reduce by a rule Lark does not list: keep no snapshot
        state_rows.append(rows.setdefault(marshal.dumps((names, tuple(codes))), len(rows)))
    lexer = contextual_lexer(parser)
    terms = {t.name: t for t in parser.terminals}
    term_refs = {id(t): (_TERM, name) for name, t in terms.items()}
    term_refs[id(lexer.root_lexer.terminals_by_name)] = "terminals_by_name"
    blobs: dict = {}  # id(state lexer) -> (state lexer, (its number, its pickle))
    lexer_states, lexer_of = [], []
    for state, state_lexer in lexer.lexers.items():
        if id(state_lexer) not in blobs:
            buf = io.BytesIO()
            _Pickler(buf, parser.options.transformer, parser._callbacks, term_refs).dump(state_lexer)
            blobs[id(state_lexer)] = (state_lexer, (len(blobs), buf.getvalue()))
        lexer_states.append(state)
        lexer_of.append(blobs[id(state_lexer)][1][0])
    fast = _plain_lexers(parser, table, [x for x, _ in sorted(blobs.values(), key=lambda b: b[1][0])],
                         keyword_table)
    refs[id(states)] = "states"
    refs[id(lexer.lexers)] = "lexers"
    for owner in (parser, frontend.parser_conf, getattr(frontend.parser, "parser_conf", None)):
        listed = getattr(owner, "rules", None)
        if isinstance(listed, list) and len(listed) == len(rules) and all(a is b for a, b in zip(listed, rules)):
            refs[id(listed)] = "rules"  # Lark's lists of every rule: made only if walked
    if getattr(parser, "_parse_tree_builder", None) is not None:
        refs[id(parser._parse_tree_builder)] = "tree_builder"
    buf = io.BytesIO()
    _Pickler(buf, parser.options.transformer, parser._callbacks, refs).dump(parser)
    sections = {"rules": [marshal.dumps(_plain_rule(r)) for r in rules], "rows": list(rows),
                "blobs": [blob for _, (_, blob) in blobs.values()], "skeleton": [buf.getvalue()]}
    if fast is not None:
        sections["lexers"] = [marshal.dumps(x) for x in fast[1]]
    index, chunks, pos = {}, [], 0
    for name, items in sections.items():
        offsets = array.array("q", [pos])
        for item in items:
            chunks.append(item)
            pos += len(item)
            offsets.append(pos)
        index[name] = offsets.tobytes()
    header = marshal.dumps((FORMAT, ident(grammar) if grammar is not None else None, lark.__version__,
                            list(symbols), state_rows, lexer_states, lexer_of,
                            fast[0] if fast is not None else None, index))
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".parser-")
        with os.fdopen(fd, "wb") as f:
            f.write(struct.pack("<Q", len(header)))
            f.write(header)
            f.writelines(chunks)
        os.replace(tmp, path)
    except OSError:
        pass


class _Section:
    """A list of byte strings stored one after another in a snapshot file."""
    __slots__ = ("data", "base", "offsets")

    def __init__(self, data, base, offsets):
        self.data, self.base = data, base
        self.offsets = array.array("q")
        self.offsets.frombytes(offsets)

    def __len__(self):
        return len(self.offsets) - 1

    def __getitem__(self, i):
        offsets = self.offsets
        return self.data[self.base + offsets[i]:self.base + offsets[i + 1]]


class _Tables:
    """The marshalled tables of a snapshot, turned into Lark objects on demand."""

    def __init__(self, header, sections, transformer, callbacks):
        _fmt, _ident, _lark_version, self.symbols, self.state_rows, lexer_states, lexer_of, _fast, _index = header
        self.plain_rules, self.rows, self.blobs = sections["rules"], sections["rows"], sections["blobs"]
        self.transformer, self.callbacks = transformer, callbacks
        self.rules = [None] * len(self.plain_rules)
        self.decoded_rows: dict = {}
        self.lexer_of = dict(zip(lexer_states, lexer_of))
        self.decoded_lexers: dict = {}
        self.terms = self.terms_by_name = None  # name -> TerminalDef, once the skeleton is loaded
        self.states = _LazyDict(range(len(self.state_rows)), self._row)
        self.lexers = _LazyDict(frozenset(lexer_states), self._lexer)
        self.rule_list = _LazyRules(self)
        self.actions = _Actions(self.rule, *_shift_reduce())

    def resolve(self, pid):
        if type(pid) is tuple:
            if pid[0] == _TERM:
                return self.terms.get(pid[1]) if self.terms is not None else None
            return self.rule(pid[1]) if pid[0] == _RULE else None
        if pid == "states":
            return self.states
        if pid == "lexers":
            return self.lexers
        if pid == "rules":
            return self.rule_list
        if pid == "tree_builder":  # replaced by the callbacks' own once loaded
            return _LazyCallbacks
        if pid == "terminals_by_name":
            return self.terms_by_name
        return None

    def rule(self, i):
        rule = self.rules[i]
        if rule is None:
            from lark.grammar import NonTerminal, Rule, RuleOptions, Terminal
            origin, expansion, order, alias, options = marshal.loads(self.plain_rules[i])
            symbols = [Terminal(name, filter_out) if is_term else NonTerminal(name)
                       for name, is_term, filter_out in expansion]
            keep, expand1, priority, template, empty = options
            rule = self.rules[i] = Rule(NonTerminal(origin), symbols, order, alias,
                                        RuleOptions(keep, expand1, priority, template, empty))
        return rule

    def _row(self, state):
        index = self.state_rows[state]
        row = self.decoded_rows.get(index)
        if row is None:
            names, codes = marshal.loads(self.rows[index])
            row = self.decoded_rows[index] = dict(zip(map(self.symbols.__getitem__, names),
                                                      map(self.actions.__getitem__, codes)))
        return row

    def _lexer(self, state):
        index = self.lexer_of[state]
        found = self.decoded_lexers.get(index)
        if found is None:
            found = self.decoded_lexers[index] = _Unpickler(
                io.BytesIO(self.blobs[index]), self.transformer, self.callbacks, self).load()
        return found


class _Actions(dict):
    """A parse-table action by its code in the marshalled rows (a state to
    shift to, or ~rule to reduce by), made once and shared by every row."""

    def __init__(self, rule, shift, reduce):
        super().__init__()
        self.rule, self.shift, self.reduce = rule, shift, reduce

    def __missing__(self, code):
        action = self[code] = (self.shift, code) if code >= 0 else (self.reduce, self.rule(~code))
        return action


class _LazyDict(dict):
    """A dict whose values for a known set of keys are made on first lookup.
    Lookups by key (what the parser and lexer do per token) stay plain dict
    lookups once made; anything that walks the whole dict makes every value."""

    def __init__(self, keys, make):
        super().__init__()
        self._keys, self._make = keys, make

    def __missing__(self, key):
        if key not in self._keys:
            raise KeyError(key)
        value = self._make(key)
        dict.__setitem__(self, key, value)
        return value

    def _fill(self):
        if dict.__len__(self) < len(self._keys):
            for key in self._keys:
                if not dict.__contains__(self, key):
                    self[key]
        return self

    def __contains__(self, key):
        return dict.__contains__(self, key) or key in self._keys

    def get(self, key, default=None):
        return self[key] if key in self else default

    def __len__(self):
        return len(self._keys)

    def __bool__(self):
        return bool(self._keys)

    def __iter__(self):
        return dict.__iter__(self._fill())

    def keys(self):
        return dict.keys(self._fill())

    def values(self):
        return dict.values(self._fill())

    def items(self):
        return dict.items(self._fill())

    def copy(self):
        return dict(self.items())

    def __eq__(self, other):
        return dict.__eq__(self._fill(), other)

    __hash__ = None

    def __reduce__(self):
        return dict, (dict(self.items()),)


class _LazyRules(list):
    """Lark's rule list, made in full only when something walks it."""

    def __init__(self, tables):
        super().__init__()
        self._tables = tables

    def _fill(self):
        if not list.__len__(self) and self._tables.rules:
            list.extend(self, [self._tables.rule(i) for i in range(len(self._tables.rules))])
        return self

    def __iter__(self):
        return list.__iter__(self._fill())

    def __len__(self):
        return list.__len__(self._fill())

    def __getitem__(self, i):
        return list.__getitem__(self._fill(), i)

    def __reduce__(self):
        return list, (list(self),)


class _LazyCallbacks(dict):
    """The parser's callbacks: the lexer's (by terminal name) made at once,
    each rule's the first time the parser reduces by it, as Lark's
    ParseTreeBuilder would have made it."""

    def __init__(self, transformer):
        super().__init__()
        self.transformer = transformer
        self.tree_builder = None

    def setup(self, parser):
        from lark.lark import _get_lexer_callbacks
        from lark.parse_tree_builder import ParseTreeBuilder
        from lark.tree import Tree
        o = parser.options
        if o.ambiguity == "forest":
            raise ValueError("no callbacks for a forest")
        self.tree_builder = ParseTreeBuilder([], o.tree_class or Tree, o.propagate_positions,
                                             o.parser != "lalr" and o.ambiguity == "explicit",
                                             o.maybe_placeholders)
        self.update(_get_lexer_callbacks(o.transformer, parser.terminals))

    def __missing__(self, rule):
        from lark.grammar import Rule
        if not isinstance(rule, Rule) or self.tree_builder is None:
            raise KeyError(rule)
        builder = self.tree_builder
        builder.rule_builders = list(builder._init_builders([rule]))
        made = builder.create_callback(self.transformer)
        builder.rule_builders = []
        callback = made[rule]
        dict.__setitem__(self, rule, callback)
        return callback

    def __bool__(self):
        return True


def _open(path: str, grammar):
    """(header, {section name: _Section}) of the snapshot at `path`, or None
    when there is none of this format saved under `grammar` (if given)."""
    try:
        with open(path, "rb") as f:
            try:  # mapped: a parse reads a few of its items
                data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            except (OSError, ValueError):
                data = f.read()
        (size,) = struct.unpack_from("<Q", data)
        header = marshal.loads(data[8:8 + size])
    except (OSError, ValueError, EOFError, TypeError, struct.error):
        return None
    if not isinstance(header, tuple) or len(header) != 9 or header[0] != FORMAT:
        return None
    if grammar is not None and header[1] != ident(grammar):
        return None
    try:
        sections = {name: _Section(data, 8 + size, offsets) for name, offsets in header[8].items()}
        if any(s.offsets[-1] + 8 + size > len(data) for s in sections.values()):
            return None  # cut short
    except (AttributeError, TypeError, ValueError, IndexError):
        return None
    return header, sections


def load_fast(path: str, builder, grammar: str):
    """tilec's own runtime (lalr.FastParser) over the snapshot at `path`, with
    `builder` as its transformer; None when there is none to use."""
    found = _open(path, grammar)
    if found is None or found[0][7] is None or "lexers" not in found[1]:
        return None
    (_fmt, _ident, _version, symbols, state_rows, lexer_states, lexer_of, fast, _index), sections = found
    from .lalr import FastParser
    try:
        return FastParser(symbols, sections["rules"], sections["rows"], state_rows, dict(zip(lexer_states, lexer_of)),
                          fast, sections["lexers"], builder, restore_pattern)
    except Exception:  # noqa: BLE001 -- a damaged cache is rebuilt
        return None


def load(path: str, transformer, grammar: str | None = None):
    """The parser saved at `path` (under `grammar`, when given), with
    `transformer` as its transformer, or None when there is no usable
    snapshot there."""
    found = _open(path, grammar)
    if found is None:
        return None
    header, sections = found
    try:
        import lark
        if header[2] != lark.__version__:
            return None
        callbacks = _LazyCallbacks(transformer)
        tables = _Tables(header, sections, transformer, callbacks)
        parser = _Unpickler(io.BytesIO(sections["skeleton"][0]), transformer, callbacks, tables).load()
        tables.terms = {t.name: t for t in parser.terminals}
        tables.terms_by_name = contextual_lexer(parser).root_lexer.terminals_by_name
        callbacks.setup(parser)
        parser._callbacks = callbacks
        parser._parse_tree_builder = callbacks.tree_builder
    except Exception:  # noqa: BLE001 -- a stale or damaged cache is rebuilt
        return None
    return parser
