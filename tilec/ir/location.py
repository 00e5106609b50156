"""Source locations, immutable and hashable, with MLIR's textual spellings."""
from __future__ import annotations


class Location:
    __slots__ = ()

    def file_line_col(self):
        """The first concrete file:line:col this location refers to, or None."""
        return None

    def describe(self) -> str:
        flc = self.file_line_col()
        return f"{flc[0]}:{flc[1]}:{flc[2]}" if flc else "loc(unknown)"


class UnknownLoc(Location):
    __slots__ = ()

    def __eq__(self, other):
        return isinstance(other, UnknownLoc)

    def __hash__(self):
        return 0x10C

    def __repr__(self):
        return "loc(unknown)"

    def body(self) -> str:
        return "unknown"


class FileLineColLoc(Location):
    __slots__ = ("file", "line", "col")

    def __init__(self, file: str, line: int, col: int):
        self.file, self.line, self.col = file, line, col

    def file_line_col(self):
        return (self.file, self.line, self.col)

    def __eq__(self, other):
        return isinstance(other, FileLineColLoc) and (self.file, self.line, self.col) == (
            other.file, other.line, other.col)

    def __hash__(self):
        return hash((self.file, self.line, self.col))

    def __repr__(self):
        return f"loc({self.body()})"

    def body(self) -> str:
        from .printing import quote
        return f"{quote(self.file)}:{self.line}:{self.col}"


class NameLoc(Location):
    __slots__ = ("name", "child")

    def __init__(self, name: str, child: Location | None = None):
        self.name, self.child = name, child

    def file_line_col(self):
        return self.child.file_line_col() if self.child else None

    def __eq__(self, other):
        return isinstance(other, NameLoc) and (self.name, self.child) == (other.name, other.child)

    def __hash__(self):
        return hash(("name", self.name, self.child))

    def body(self) -> str:
        from .printing import quote
        inner = f"({self.child.body()})" if self.child and not isinstance(self.child, UnknownLoc) else ""
        return f"{quote(self.name)}{inner}"


class CallSiteLoc(Location):
    __slots__ = ("callee", "caller")

    def __init__(self, callee: Location, caller: Location):
        self.callee, self.caller = callee, caller

    def file_line_col(self):
        return self.callee.file_line_col() or self.caller.file_line_col()

    def __eq__(self, other):
        return isinstance(other, CallSiteLoc) and (self.callee, self.caller) == (other.callee, other.caller)

    def __hash__(self):
        return hash(("callsite", self.callee, self.caller))

    def body(self) -> str:
        return f"callsite({self.callee.body()} at {self.caller.body()})"


class FusedLoc(Location):
    __slots__ = ("locations", "metadata")

    def __init__(self, locations: tuple, metadata=None):
        self.locations, self.metadata = tuple(locations), metadata

    def file_line_col(self):
        for loc in self.locations:
            flc = loc.file_line_col()
            if flc:
                return flc
        return None

    def __eq__(self, other):
        return isinstance(other, FusedLoc) and (self.locations, self.metadata) == (
            other.locations, other.metadata)

    def __hash__(self):
        return hash(("fused", self.locations, self.metadata))

    def body(self) -> str:
        meta = f"<{self.metadata}>" if self.metadata is not None else ""
        return f"fused{meta}[{', '.join(l.body() for l in self.locations)}]"


UNKNOWN = UnknownLoc()
