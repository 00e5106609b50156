"""The debug-info section: per function a run of debug-attribute indices
(the function's own location first, then one per op in pre-order), and a
table of debug attributes that refer to each other and to strings.

    section   numFunctions[varint] pad4 firstIndex[u32 per function]
              numIndices[varint]   pad8 index[u64...]
              numAttrs[varint]     pad4 offset[u32 per attr] data
    DIFile          name[str] directory[str]
    DICompileUnit   file[di]
    DILexicalBlock  scope[di] file[di] line column
    DILoc           scope[di] filename[str] line column
    DISubprogram    file[di] line name[str] linkageName[str] unit[di] scopeLine
                    [flags, 13.5+]
    CallSite        callee[di] caller[di]
Index 0 is reserved for loc(unknown); attribute k is stored at index k+1."""
from __future__ import annotations

from ..dialects.cuda_tile.debuginfo import (DICompileUnitAttr, DIFileAttr, DILexicalBlockAttr, DILocAttr,
                                            DISubprogramAttr)
from ..ir.location import UNKNOWN, CallSiteLoc, FileLineColLoc, UnknownLoc
from . import format as F
from .stream import BytecodeError, Reader, Writer
from .types import table_section

_SCOPES = (DISubprogramAttr, DILexicalBlockAttr)


class DebugInfo:
    """Decoded lazily: `locations(function_index)` yields the function's
    locations in order."""

    def __init__(self, data=None, starts=(), indices=(), offsets=(), base=0, end=0, strings=(), version=(13, 1),
                 index_at=0):
        self.data, self.starts, self.indices = data, starts, indices
        self.offsets, self.base, self.end, self.strings, self.version = offsets, base, end, strings, version
        self.index_at = index_at
        self.cache = [None] * len(offsets)
        self.busy = set()

    def cursor(self, fn_index: int, at: int):
        return _Cursor(self, fn_index, at)

    def attr(self, index: int, at: int, kinds=None, what="debug attribute"):
        if index == F.DI_UNKNOWN_INDEX:
            a = UNKNOWN
        else:
            k = index - F.DI_RESERVED
            if k >= len(self.cache):
                raise BytecodeError(at, f"debug info index {index} out of range")
            a = self.cache[k]
            if a is None:
                if k in self.busy:
                    raise BytecodeError(at, f"debug attribute {index} refers to itself")
                start = self.base + self.offsets[k]
                stop = self.base + self.offsets[k + 1] if k + 1 < len(self.offsets) else self.end
                if not (self.base <= start <= stop <= self.end):
                    raise BytecodeError(at, f"debug attribute {index} has an invalid offset")
                self.busy.add(k)
                try:
                    a = self._decode(Reader(self.data, start, stop, f"debug attribute {index}"))
                finally:
                    self.busy.discard(k)
                self.cache[k] = a
        if kinds is not None and not isinstance(a, kinds):
            raise BytecodeError(at, f"expected {what}, got debug attribute {index}")
        return a

    def _ref(self, r, kinds, what):
        at = r.pos
        return self.attr(r.varint(), at, kinds, what)

    def _string(self, r):
        at = r.pos
        i = r.varint()
        if i >= len(self.strings):
            raise BytecodeError(at, f"string index {i} out of range (the string table has {len(self.strings)})")
        return self.strings[i]

    def _decode(self, r: Reader):
        tag = r.varint()
        if tag == F.D_FILE:
            return DIFileAttr(self._string(r), self._string(r))
        if tag == F.D_COMPILE_UNIT:
            return DICompileUnitAttr(self._ref(r, DIFileAttr, "a di_file"))
        if tag == F.D_LEXICAL_BLOCK:
            scope = self._ref(r, _SCOPES, "a local scope")
            file = self._ref(r, DIFileAttr, "a di_file")
            return DILexicalBlockAttr(scope, file, r.varint(), r.varint())
        if tag == F.D_LOC:
            scope = self._ref(r, _SCOPES, "a local scope")
            name = self._string(r)
            return DILocAttr(FileLineColLoc(name, r.varint(), r.varint()), scope)
        if tag == F.D_SUBPROGRAM:
            file = self._ref(r, DIFileAttr, "a di_file")
            line = r.varint()
            name, linkage = self._string(r), self._string(r)
            unit = self._ref(r, DICompileUnitAttr, "a di_compile_unit")
            scope_line = r.varint()
            if self.version >= F.V13_5:
                r.varint()  # subprogram flags: no bits defined yet
            return DISubprogramAttr(file, line, name, linkage, unit, scope_line)
        if tag == F.D_CALL_SITE:
            callee = self._ref(r, _LOCATIONS, "a location")
            caller = self._ref(r, _LOCATIONS, "a location")
            return CallSiteLoc(callee, caller)
        return UNKNOWN


_LOCATIONS = (DILocAttr, CallSiteLoc, UnknownLoc)


class _Cursor:
    """Hands out one function's locations in order (function first)."""
    __slots__ = ("di", "pos", "stop", "at")

    def __init__(self, di: DebugInfo, fn_index: int, at: int):
        self.di, self.at = di, at
        if fn_index == F.DI_UNKNOWN_INDEX:
            self.pos = self.stop = -1
            return
        k = fn_index - F.DI_RESERVED
        if k >= len(di.starts):
            raise BytecodeError(at, f"function debug info index {fn_index} out of range")
        self.pos = di.starts[k]
        self.stop = di.starts[k + 1] if k + 1 < len(di.starts) else len(di.indices)
        if self.pos > self.stop:
            raise BytecodeError(at, f"function debug info index {fn_index} has an invalid range")

    def next(self, at: int):
        if self.pos < 0:
            return UNKNOWN
        if self.pos >= self.stop:
            raise BytecodeError(at, "missing debug info location for an operation")
        i = self.di.indices[self.pos]
        self.pos += 1
        return self.di.attr(i, self.di.index_at, _LOCATIONS, "a location")


def parse_debug_section(r: Reader, strings, version) -> DebugInfo:
    n_fn = r.count("debug function", 4)
    r.align(4)
    starts = [r.le(4) for _ in range(n_fn)]
    n_idx = r.varint()
    r.align(8)
    if n_idx * 8 > r.remaining:
        r.error(f"debug index count {n_idx} exceeds the {r.remaining} bytes left in the {r.what}")
    index_at = r.pos
    indices = [r.le(8) for _ in range(n_idx)]
    n_attr = r.count("debug attribute", 4)
    r.align(4)
    offsets = [r.le(4) for _ in range(n_attr)]
    if any(s > n_idx for s in starts):
        raise BytecodeError(index_at, "debug info function range exceeds the index table")
    return DebugInfo(r.data, starts, indices, offsets, r.pos, r.end, strings, version, index_at)


class DebugWriter:
    """Collects debug attributes and the per-function index runs."""

    def __init__(self, attr_writer, version):
        self.aw = attr_writer  # for the string table
        self.version = version
        self.index: dict = {}
        self.entries: list[bytes] = []
        self.functions: list[list[int]] = []

    @staticmethod
    def has_debug_info(loc) -> bool:
        return isinstance(loc, (DILocAttr, CallSiteLoc))

    def begin_function(self, loc) -> int:
        """Start a function's run; returns its index for the function table."""
        self.functions.append([])
        self.add(loc)
        return len(self.functions)  # indices are 1-based: 0 means no debug info

    def add(self, loc):
        self.functions[-1].append(self.id(loc))

    def id(self, a) -> int:
        if isinstance(a, (UnknownLoc, FileLineColLoc)) or a is None:
            return F.DI_UNKNOWN_INDEX
        i = self.index.get(a)
        if i is not None:
            return i
        w = Writer()
        s = self.aw.string_id
        if isinstance(a, DIFileAttr):
            w.varint(F.D_FILE)
            w.varint(s(a.name))
            w.varint(s(a.directory))
        elif isinstance(a, DICompileUnitAttr):
            f = self.id(a.file)
            w.varint(F.D_COMPILE_UNIT)
            w.varint(f)
        elif isinstance(a, DILexicalBlockAttr):
            scope, f = self.id(a.scope), self.id(a.file)
            w.varint(F.D_LEXICAL_BLOCK)
            w.varint(scope)
            w.varint(f)
            w.varint(a.line)
            w.varint(a.column)
        elif isinstance(a, DILocAttr):
            scope = self.id(a.scope)
            w.varint(F.D_LOC)
            w.varint(scope)
            w.varint(s(a.source.file))
            w.varint(a.source.line)
            w.varint(a.source.col)
        elif isinstance(a, DISubprogramAttr):
            f, unit = self.id(a.file), self.id(a.compile_unit)
            w.varint(F.D_SUBPROGRAM)
            w.varint(f)
            w.varint(a.line)
            w.varint(s(a.name))
            w.varint(s(a.linkage_name))
            w.varint(unit)
            w.varint(a.scope_line)
            if self.version >= F.V13_5:
                w.varint(0)
        elif isinstance(a, CallSiteLoc):
            callee, caller = self.id(a.callee), self.id(a.caller)
            w.varint(F.D_CALL_SITE)
            w.varint(callee)
            w.varint(caller)
        else:
            return F.DI_UNKNOWN_INDEX
        i = self.index[a] = len(self.entries) + F.DI_RESERVED
        self.entries.append(w.getvalue())
        return i

    def empty(self) -> bool:
        return not self.entries

    def section(self) -> bytes:
        w = Writer()
        w.varint(len(self.functions))
        w.align(4)
        n = 0
        for run in self.functions:
            w.le(n, 4)
            n += len(run)
        w.varint(n)
        w.align(8)
        for run in self.functions:
            for i in run:
                w.le(i, 8)
        base = len(w)
        w.raw(table_section(self.entries, 4, base))
        return w.getvalue()
