"""tilec's own runtime for the LALR parser that Lark builds: it runs a parser
snapshot's parse table, contextual lexer and rule callbacks exactly as Lark's
LALR parser does, without importing Lark (~20 ms of each process that parses
text).

It does what tilec's configuration of Lark does (parser="lalr",
lexer="contextual", an embedded transformer, maybe_placeholders=True, no
position propagation, a post-lexer that passes tokens on): per token, the
lexer of the parser's current state matches its terminals' alternation at the
current position (ignored terminals skipped, keyword tables retyping BARE_ID,
lines counted in terminals that may hold a newline); the parser shifts or
reduces by its table; a reduction runs the rule's callback chain as Lark's
ParseTreeBuilder makes it (child filter with placeholders, then single-child
expansion, then the transformer's method or its `__default__`). Input it
cannot lex or parse raises NoParse: the caller then parses it again with Lark,
which reports the error as it always has, so diagnostics come from Lark alone."""
from __future__ import annotations

import marshal

from .token import Token


class NoParse(Exception):
    """The text is not in the language (or the snapshot has no tables for it)."""


class _StateLexer:
    __slots__ = ("mres", "keywords", "ignore", "newline")

    def __init__(self, mres, keywords, ignore, newline):
        self.mres, self.keywords, self.ignore, self.newline = mres, keywords, ignore, newline


def _child_filter(expansion, keep_all_tokens, empty_indices):
    """Lark's maybe_create_child_filter (LALR, no ambiguity): (to_include,
    nones to append), or None when the children pass unchanged."""
    if empty_indices:
        s = "".join(str(int(b)) for b in empty_indices)
        counts = [len(ones) for ones in s.split("0")]
    else:
        counts = [0] * (len(expansion) + 1)
    to_include, nones = [], 0
    for i, (name, is_term, filter_out) in enumerate(expansion):
        nones += counts[i]
        if keep_all_tokens or not (is_term and filter_out):
            to_include.append((i, not is_term and name.startswith("_"), nones))
            nones = 0
    nones += counts[len(expansion)]
    if empty_indices or len(to_include) < len(expansion) or any(expand for _, expand, _ in to_include):
        return to_include, nones
    return None


def _filtered(to_include, append_none, node_builder):
    def call(children):  # Lark's ChildFilterLALR
        filtered = []
        for i, to_expand, add_none in to_include:
            if add_none:
                filtered += [None] * add_none
            if to_expand:
                if filtered:
                    filtered += children[i].children
                else:  # (Lark's optimization for left recursion: the child's own list)
                    filtered = children[i].children
            else:
                filtered.append(children[i])
        if append_none:
            filtered += [None] * append_none
        return node_builder(filtered)
    return call


def _expand_single(node_builder):
    def call(children):  # Lark's ExpandSingleChild
        return children[0] if len(children) == 1 else node_builder(children)
    return call


class FastParser:
    """Parses text with a snapshot's tables (see snapshot.load_fast) and
    `builder`'s callbacks."""

    def __init__(self, symbols, plain_rules, rows, state_rows, lexer_of, fast, lexers, builder, restore_pattern):
        start_states, end_states, terminals = fast
        self.symbols, self.plain_rules, self.rows, self.state_rows = symbols, plain_rules, rows, state_rows
        self.start_states, self.end_states = start_states, end_states
        self.lexer_of, self.lexer_data = lexer_of, lexers
        self.builder, self.restore_pattern = builder, restore_pattern
        self.states: dict = {}    # parser state -> {symbol: code}: >= 0 shift to that state, < 0 reduce by rule ~code
        self.row_cache: dict = {}
        self.lexers: dict = {}    # parser state -> _StateLexer
        self.lexer_cache: dict = {}
        self.rules: dict = {}     # rule index -> (origin, size, callback)
        self.token_callbacks = {}
        for name in terminals:    # as Lark's _get_lexer_callbacks: a transformer method named as a terminal
            if name in builder.__dict__ or hasattr(type(builder), name):
                self.token_callbacks[name] = getattr(builder, name)

    # -- tables, made on first use ------------------------------------------
    def _row(self, state):
        index = self.state_rows[state]
        row = self.row_cache.get(index)
        if row is None:
            names, codes = marshal.loads(self.rows[index])
            row = self.row_cache[index] = dict(zip(map(self.symbols.__getitem__, names), codes))
        self.states[state] = row
        return row

    def _lexer(self, state):
        index = self.lexer_of.get(state)
        if index is None:
            raise NoParse(f"no lexer for state {state}")
        lexer = self.lexer_cache.get(index)
        if lexer is None:
            programs, keywords, ignore, newline = marshal.loads(self.lexer_data[index])
            lexer = self.lexer_cache[index] = _StateLexer(
                [self.restore_pattern(*p) for p in programs], keywords, frozenset(ignore), frozenset(newline))
        self.lexers[state] = lexer
        return lexer

    def _rule(self, index):
        origin, expansion, _order, alias, options = marshal.loads(self.plain_rules[index])
        keep_all_tokens, expand1, _priority, template_source, empty_indices = options
        name = alias or template_source or origin
        builder = self.builder
        fn = getattr(builder, name, None)
        if fn is None:
            default = builder.__default__

            def fn(children, _name=name):
                return default(_name, children, None)
        elif getattr(fn, "visit_wrapper", None) is not None:
            raise NoParse("a v_args callback")  # Lark wraps these; tilec's builder has none
        if expand1 and not alias:
            fn = _expand_single(fn)
        child_filter = _child_filter(expansion, keep_all_tokens, empty_indices)
        if child_filter is not None:
            fn = _filtered(child_filter[0], child_filter[1], fn)
        rule = self.rules[index] = (origin, len(expansion), fn)
        return rule

    # -- parsing -----------------------------------------------------------
    def parse(self, text: str, start: str):
        state_stack = [self.start_states[start]]
        value_stack = []
        end_state = self.end_states[start]
        states, lexers, rules = self.states, self.lexers, self.rules
        token_callbacks = self.token_callbacks
        pos, line, line_start, end = 0, 1, 0, len(text)
        token = None
        while True:
            state = state_stack[-1]
            lexer = lexers.get(state)
            if lexer is None:
                lexer = self._lexer(state)
            tok = None
            while pos < end:                       # Lark's BasicLexer.next_token
                for mre in lexer.mres:
                    m = mre.match(text, pos)
                    if m:
                        break
                else:
                    raise NoParse(f"no token at {pos}")
                value, kind = m.group(0), m.lastgroup
                ignored = kind in lexer.ignore
                keywords = lexer.keywords.get(kind)
                t = None
                if not ignored or keywords is not None:
                    t = Token(kind, value, pos, line, pos - line_start + 1)
                if kind in lexer.newline:
                    newlines = value.count("\n")
                    if newlines:
                        line += newlines
                        line_start = pos + value.rindex("\n") + 1
                pos += len(value)
                if t is not None:
                    t.end_line, t.end_column, t.end_pos = line, pos - line_start + 1, pos
                    if keywords is not None:
                        keyword = keywords.get(t)
                        if keyword is not None:
                            t.type = keyword
                    if not ignored:
                        tok = t
                        break
            if tok is None:
                break
            token = tok
            self._feed(tok, state_stack, value_stack, states, rules, token_callbacks, end_state, False)
        if token is not None:
            end_token = Token("$END", "", token.start_pos, token.line, token.column, token.end_line,
                              token.end_column, token.end_pos)
        else:
            end_token = Token("$END", "", 0, 1, 1)
        return self._feed(end_token, state_stack, value_stack, states, rules, token_callbacks, end_state, True)

    def _feed(self, token, state_stack, value_stack, states, rules, token_callbacks, end_state, is_end):
        """Lark's ParserState.feed_token."""
        while True:
            state = state_stack[-1]
            row = states.get(state)
            if row is None:
                row = self._row(state)
            code = row.get(token.type)
            if code is None:
                raise NoParse(f"unexpected {token.type}")
            if code >= 0:
                if is_end:
                    raise NoParse("shift at the end")
                state_stack.append(code)
                cb = token_callbacks.get(token.type)
                value_stack.append(token if cb is None else cb(token))
                return None
            rule = rules.get(~code)
            if rule is None:
                rule = self._rule(~code)
            origin, size, callback = rule
            if size:
                children = value_stack[-size:]
                del state_stack[-size:]
                del value_stack[-size:]
            else:
                children = []
            value = callback(children)
            state = state_stack[-1]
            row = states.get(state)
            if row is None:
                row = self._row(state)
            goto = row.get(origin)
            if goto is None or goto < 0:
                raise NoParse("no goto")
            state_stack.append(goto)
            value_stack.append(value)
            if is_end and goto == end_state:
                return value
