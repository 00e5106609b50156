"""Lexed tokens. tilec's own LALR runtime (lalr.py) makes `Token`s; Lark, which
reports the parse errors, makes its own. Both are strings with the same
attributes, and the IR builder takes either: `is_token` tells a token of
either kind from the other values a parse builds."""
from __future__ import annotations


class Token(str):
    """The text of a token with its terminal `type` and where it is: as Lark's
    Token (`start_pos`/`end_pos` count characters, `line`/`column` from 1)."""
    __slots__ = ("type", "start_pos", "value", "line", "column", "end_line", "end_column", "end_pos")

    def __new__(cls, type, value, start_pos=None, line=None, column=None, end_line=None, end_column=None,
                end_pos=None):
        inst = super().__new__(cls, value)
        inst.type, inst.value, inst.start_pos = type, value, start_pos
        inst.line, inst.column = line, column
        inst.end_line, inst.end_column, inst.end_pos = end_line, end_column, end_pos
        return inst

    def __repr__(self):
        return f"Token({self.type!r}, {self.value!r})"

    def __eq__(self, other):
        if isinstance(other, Token) and self.type != other.type:
            return False
        return str.__eq__(self, other)

    __hash__ = str.__hash__

    def __reduce__(self):
        return (self.__class__, (self.type, self.value, self.start_pos, self.line, self.column, self.end_line,
                                 self.end_column, self.end_pos))


_KINDS: tuple = (Token,)


def is_token(value) -> bool:
    """Whether `value` is a token (tilec's or, once Lark parsed, Lark's)."""
    return isinstance(value, _KINDS)


def accept(kind) -> None:
    """Let `is_token` take tokens of class `kind` too (Lark's, once loaded)."""
    global _KINDS
    if kind not in _KINDS:
        _KINDS = _KINDS + (kind,)
