"""XOR-swizzled shared-memory tiles.

A row-major tile whose rows are P bytes is read by ldmatrix eight rows at a
time, 16 bytes per row. With P a multiple of 128 those eight rows start in the
same four banks: an eight-way conflict on every load. A swizzled tile moves
16-byte chunks so that any eight consecutive rows' copies of one logical chunk
sit in eight different chunks of the 128-byte bank line:

* P = 32, 64 or 128: byte offset x of the row-major tile is stored at
  x ^ (((x >> 7) & m) << 4), m = 1, 3, 7: Hopper's 32-, 64- and 128-byte
  swizzles of a K-major (P = 2K) or MN-major tile.
* P = 256, 512, ...: the tile is cut into 128-byte-wide column panels stored
  one after another (panel p, row r, byte c at p R 128 + r 128 + c for R rows),
  each with the 128-byte swizzle: the layout wgmma reads as an MN-major (or
  K-major) operand whose panels are `panel_bytes` apart.

Only bits 4-6 of an offset within a panel change, so 16-byte chunks stay whole
and every vector access of up to 16 aligned bytes stays contiguous. The
hardware swizzles absolute addresses: a tile read by wgmma starts 1024-aligned.
"""
from __future__ import annotations

from ...ir.record import frozen

from .ptxtypes import B32, byte_size

LINE = 128       # bytes: one bank line, the widest swizzle


@frozen
class Swizzle:
    pitch: int      # bytes per row of the row-major tile
    rows: int       # rows of the tile (the panel height when pitch > LINE)

    @classmethod
    def for_rows(cls, pitch: int, rows: int) -> "Swizzle | None":
        """The swizzle for `rows` rows of `pitch` bytes, or None (pitches below 32
        bytes or not a power of two: nothing to gain or not expressible)."""
        from ...dialects.nv_tileas.operands import swizzle_fits
        return cls(pitch, rows) if swizzle_fits(pitch, rows) else None

    @property
    def panels(self) -> int:
        return max(1, self.pitch // LINE)

    @property
    def panel_bytes(self) -> int:
        return self.rows * LINE

    @property
    def row_bytes(self) -> int:
        """Bytes between a row and the next within a panel."""
        return min(self.pitch, LINE)

    @property
    def mask(self) -> int:
        return min(self.pitch, LINE) // 16 - 1

    @property
    def mode(self) -> int:
        """wgmma's matrix-descriptor swizzle field: 1, 2, 3 = 128-, 64-, 32-byte."""
        return {LINE: 1, 64: 2, 32: 3}[min(self.pitch, LINE)]

    @property
    def period(self) -> int:
        """Row-major byte distance that moves the stored offset by `stored(period)`
        without changing the XOR term: eight rows (1024 bytes when rows are 128
        bytes or shorter)."""
        return 8 * self.pitch if self.pitch >= LINE else 1024

    def stored(self, delta: int) -> int:
        """The stored distance of a row-major distance that is a multiple of `period`."""
        return delta // self.pitch * LINE if self.pitch > LINE else delta

    def apply(self, x: int) -> int:
        """The stored byte offset of row-major byte offset `x` (host side: tests, simulators)."""
        if self.pitch > LINE:
            row, c = divmod(x, self.pitch)
            x = (c // LINE) * self.panel_bytes + row * LINE + c % LINE
        return x ^ (((x >> 7) & self.mask) << 4)

    def row_term(self, kb, row: str) -> str:
        """A register with the XOR term of every byte of row `row` (a register)."""
        t = kb.reg(B32)
        if self.pitch >= LINE:
            kb.emit(f"and.b32 \t{t}, {row}, 7")
        else:
            kb.emit(f"shr.u32 \t{t}, {row}, {LINE.bit_length() - 1 - (self.pitch.bit_length() - 1)}")
            kb.emit(f"and.b32 \t{t}, {t}, {self.mask}")
        kb.emit(f"shl.b32 \t{t}, {t}, 4")
        return t

    def column(self, kb, col: str, term: str) -> str:
        """A register with the stored offset, from its row's start, of byte column
        `col` (a register) of a row whose XOR term is `term`."""
        c = kb.reg(B32)
        if self.pitch > LINE:
            p = kb.reg(B32)
            kb.emit(f"shr.u32 \t{p}, {col}, 7")
            kb.emit(f"and.b32 \t{c}, {col}, {LINE - 1}")
            kb.emit(f"xor.b32 \t{c}, {c}, {term}")
            kb.emit(f"mad.lo.u32 \t{c}, {p}, {self.panel_bytes}, {c}")
        else:
            kb.emit(f"xor.b32 \t{c}, {col}, {term}")
        return c

    def addresses(self, kb, base: str, xb: str, col_bits: int | None = None):
        """off -> PTX address of row-major byte offset xb + off (xb a register,
        off an immediate) of the tile at `base`. Offsets that differ by a
        multiple of `period` share one register.

        `col_bits`, when given, masks the bits that xb's offset within its row
        may have set, and `base` is 128-byte aligned. A column offset c of no
        such bit then adds without a carry: its in-line bits XOR into the
        address of the row's offset (the swizzle is an XOR of bits 4-6 too)
        and its panel is an immediate, one instruction a column."""
        cache = {}
        shift = self.pitch.bit_length() - 1

        def where(off: int) -> str:
            rem = off % self.period
            col = rem % self.pitch
            if col_bits is not None and col and not col & col_bits and col_bits < min(self.pitch, LINE):
                row_at = where(off - col)[1:-1].split("+")
                if not col % LINE:
                    return f"[{row_at[0]}+{int(row_at[1]) + col // LINE * self.panel_bytes}]"
                key = ("xor", row_at[0], col % LINE)
                reg = cache.get(key)
                if reg is None:
                    reg = kb.reg(B32)
                    kb.emit(f"xor.b32 \t{reg}, {row_at[0]}, {col % LINE}")
                    cache[key] = reg
                return f"[{reg}+{int(row_at[1]) + col // LINE * self.panel_bytes}]"
            reg = cache.get(rem)
            if reg is None:
                x = kb.reg(B32)
                kb.emit(f"add.u32 \t{x}, {xb}, {rem}")
                row, col = kb.reg(B32), kb.reg(B32)
                kb.emit(f"shr.u32 \t{row}, {x}, {shift}")
                kb.emit(f"and.b32 \t{col}, {x}, {self.pitch - 1}")
                reg = self.column(kb, col, self.row_term(kb, row))
                kb.emit(f"mad.lo.u32 \t{reg}, {row}, {self.row_bytes}, {reg}")
                kb.emit(f"add.u32 \t{reg}, {reg}, {base}")
                cache[rem] = reg
            imm = self.stored(off - rem)
            return f"[{reg}+{imm}]"
        return where


def staging_swizzle(op):
    """The Swizzle of staging buffer `op` (an alloc_tensor that a TMA store reads
    through a view): that of the store's map, over the tile's rows flattened
    (a box is dense, innermost first); None when unswizzled or not staging."""
    from .tensormap import SWIZZLE_SPAN
    for view in op.results[0].users:
        for u in view.results[0].users if view.name == "nv_tileas.view" else ():
            if u.name != "nv_tileas.async.tiled_tma_store" or u.operands[1] is not view.results[0]:
                continue
            mode = getattr(u.operands[0].op.attributes.get("swizzle_mode"), "value", "none")
            span = SWIZZLE_SPAN.get(mode)
            if span is None:
                return None
            shape = op.results[0].type.shape
            rows = 1
            for d in shape[:-1]:
                rows *= d
            swz = Swizzle.for_rows(shape[-1] * byte_size(op.results[0].type.element_type), rows)
            return swz if swz is not None and swz.row_bytes == span else None
    return None
