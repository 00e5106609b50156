"""Byte-level reading and writing: LEB128 varints, zigzag signed varints,
little-endian fixed-width integers and alignment padding.

Every read is bounds-checked and failures raise BytecodeError carrying the
absolute byte offset in the file, so the reader can report
`file: error: at byte 0x1a: ...` for any malformed input."""
from __future__ import annotations

import struct

PAD_BYTE = 0xCB  # what NVIDIA's writers put in alignment padding


class BytecodeError(Exception):
    """Malformed or unsupported bytecode at `offset` (absolute, in bytes).
    Raised inside the reader and writer only; the public entry points turn it
    into a diagnostic."""

    def __init__(self, offset: int, message: str):
        super().__init__(message)
        self.offset, self.message = offset, message


class Reader:
    """A cursor over `data[start:end]`; offsets reported are absolute."""
    __slots__ = ("data", "pos", "end", "what")

    def __init__(self, data, start: int = 0, end: int | None = None, what: str = "data"):
        self.data = data
        self.pos = start
        self.end = len(data) if end is None else end
        self.what = what  # named in "truncated ..." messages

    def error(self, message: str, offset: int | None = None):
        raise BytecodeError(self.pos if offset is None else offset, message)

    def truncated(self, need: str):
        raise BytecodeError(self.pos, f"truncated {self.what}: expected {need}")

    @property
    def remaining(self) -> int:
        return self.end - self.pos

    def at_end(self) -> bool:
        return self.pos >= self.end

    def byte(self) -> int:
        pos = self.pos
        if pos >= self.end:
            self.truncated("a byte")
        self.pos = pos + 1
        return self.data[pos]

    def varint(self) -> int:
        data, pos, end = self.data, self.pos, self.end
        if pos < end:
            b = data[pos]
            if b < 0x80:  # the common one-byte case
                self.pos = pos + 1
                return b
        result = shift = 0
        start = pos
        while True:
            if pos >= end:
                self.pos = start
                self.truncated("a varint")
            b = data[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                break
            shift += 7
            if shift > 63:
                raise BytecodeError(start, "varint is longer than 10 bytes")
        self.pos = pos
        # bits beyond 64 are dropped, as NVIDIA's reader does (cuTile Python
        # writes 65-bit zigzag varints for negative f64 identities)
        return result & 0xFFFFFFFFFFFFFFFF

    def signed_varint(self) -> int:
        pos = self.pos
        if pos < self.end:
            v = self.data[pos]
            if v < 0x80:  # one byte
                self.pos = pos + 1
                return (v >> 1) ^ -(v & 1)
        v = self.varint()
        return (v >> 1) ^ -(v & 1)

    def count(self, what: str, min_bytes_each: int = 1) -> int:
        """A varint element count, checked against the bytes left so a corrupt
        count cannot make the reader loop or allocate without bound."""
        at = self.pos
        n = self.varint()
        if n * min_bytes_each > self.remaining:
            raise BytecodeError(at, f"{what} count {n} exceeds the {self.remaining} bytes left in the {self.what}")
        return n

    def le(self, size: int) -> int:
        pos = self.pos
        if pos + size > self.end:
            self.truncated(f"{size} bytes")
        self.pos = pos + size
        return int.from_bytes(self.data[pos:pos + size], "little")

    def bytes(self, size: int) -> bytes:
        pos = self.pos
        if size < 0 or pos + size > self.end:
            self.truncated(f"{size} bytes")
        self.pos = pos + size
        return bytes(self.data[pos:pos + size])

    def le_array(self, width: int, signed: bool = True) -> tuple:
        """A varint count followed by that many little-endian integers."""
        n = self.count("array element", width)
        pos = self.pos
        self.pos = pos + n * width
        fmt = {1: "b", 2: "h", 4: "i", 8: "q"}[width]
        if not signed:
            fmt = fmt.upper()
        return struct.unpack_from(f"<{n}{fmt}", self.data, pos)

    def align(self, alignment: int):
        """Skip padding up to a multiple of `alignment` (absolute offsets)."""
        if alignment > 1:
            pad = -self.pos % alignment
            if self.pos + pad > self.end:
                self.truncated("alignment padding")
            self.pos += pad

    def sub(self, size: int, what: str) -> "Reader":
        """A reader over the next `size` bytes; this one skips past them."""
        if size < 0 or self.pos + size > self.end:
            raise BytecodeError(self.pos, f"{what} length {size} exceeds the {self.remaining} bytes left "
                                          f"in the {self.what}")
        r = Reader(self.data, self.pos, self.pos + size, what)
        self.pos += size
        return r


class Writer:
    """An append-only byte buffer with the encodings above."""
    __slots__ = ("buf",)

    def __init__(self):
        self.buf = bytearray()

    def __len__(self):
        return len(self.buf)

    def byte(self, b: int):
        self.buf.append(b & 0xFF)

    def varint(self, v: int):
        if v < 0:
            v &= (1 << 64) - 1
        buf = self.buf
        while v >= 0x80:
            buf.append((v & 0x7F) | 0x80)
            v >>= 7
        buf.append(v)

    def signed_varint(self, v: int):
        self.varint((v << 1) ^ (v >> 63) if -(1 << 63) <= v < (1 << 63) else 0)

    def le(self, v: int, size: int):
        self.buf += (v & ((1 << (8 * size)) - 1)).to_bytes(size, "little")

    def le_array(self, values, width: int):
        self.varint(len(values))
        for v in values:
            self.le(v, width)

    def raw(self, data):
        self.buf += data

    def align(self, alignment: int, base: int = 0):
        """Pad with PAD_BYTE so that `base + len(self)` is a multiple of `alignment`."""
        if alignment > 1:
            self.buf += bytes([PAD_BYTE]) * (-(base + len(self.buf)) % alignment)

    def getvalue(self) -> bytes:
        return bytes(self.buf)
