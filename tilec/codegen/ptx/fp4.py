"""f4E2M1FN (OCP MX FP4: sign, 2 exponent bits, 1 mantissa bit) in memory and
in registers.

Global memory holds fp4 packed two to a byte, element 2i in the low nibble of
byte i: the order of PTX's `e2m1x2` conversions and of the mma fragments (a
.b32 fragment register is 8 consecutive K elements, the lowest in bits 0-3),
and PyTorch's float4_e2m1fn_x2. A tensor view over fp4 counts its shape,
strides and offsets in elements; element offset e is the nibble e % 2 of byte
base + e / 2 (the base pointer addresses byte 0).

A register tile holds one element per slot, its 4-bit code in the low bits of
a .b16 register (the bits above it zero), as the 8-bit floats are held. The
shared-memory copies the code generator stages for itself (operands of a
block-scaled MMA, layout changes) hold one element a byte, the code in the low
nibble: a thread's stores never share a byte with another thread's, and the
fragment loads pack pairs of bytes into nibbles (ops_block_scaled).

Only tiled loads through tensor views read fp4 from global memory here; stores,
gathers/scatters through pointers and asynchronous copies of fp4 tiles are
reported as unsupported (a store would write half a byte that another thread
may own)."""
from __future__ import annotations

from .ptxtypes import B32, B64, Unsupported


def is_fp4(t) -> bool:
    return type(t).__name__ == "FloatType" and t.name == "f4E2M1FN"


def refuse_global(etype):
    """Raise Unsupported for a global access of fp4 elements other than a tiled load."""
    if is_fp4(etype):
        raise Unsupported("accesses f4E2M1FN elements in global memory other than by a tiled load through a "
                          "tensor view (fp4 is packed two elements to a byte; docs/decisions.md)")


def load_tile(em, base, etype, shape, layout, starts, strides, extents, in_bounds, pad, global_slots):
    """A register tile in `layout` of the packed fp4 elements at element c =
    base-element sum (starts_i + c_i) strides_i, padded where out of bounds.
    `global_slots` (ops_memory's) computes each slot's element address from a
    doubled base, so that address / 2 is the byte and address % 2 the nibble."""
    kb = em.kb
    twice = kb.reg(B64)
    kb.emit(f"shl.b64 \t{twice}, {base}, 1")
    slots = global_slots(em, twice, etype, shape, layout, starts, strides, extents, in_bounds)
    out = em.new_tile(etype, shape, layout)
    for r, (a, imm, p) in zip(out.regs, slots):
        if p is not None:
            em.mov_imm(r, etype, pad if pad is not None else 0)
        at = a
        if imm:
            at = kb.reg(B64)
            kb.emit(f"add.s64 \t{at}, {a}, {imm}")
        byte, shift, word, lo = kb.reg(B64), kb.reg(B32), kb.reg(B32), kb.reg(B32)
        kb.emit(f"shr.u64 \t{byte}, {at}, 1")
        kb.emit(f"cvt.u32.u64 \t{shift}, {at}")
        kb.emit(f"and.b32 \t{shift}, {shift}, 1")
        kb.emit(f"shl.b32 \t{shift}, {shift}, 2")
        guard = f"@{p} " if p is not None else ""
        kb.emit(f"{guard}ld.global.u8 \t{word}, [{byte}]")
        kb.emit(f"{guard}shr.u32 \t{lo}, {word}, {shift}")
        kb.emit(f"{guard}and.b32 \t{lo}, {lo}, 15")
        kb.emit(f"{guard}cvt.u16.u32 \t{r}, {lo}")
    return out


def pack_nibbles(kb, w0: str, w1: str) -> str:
    """A .b32 of 8 fp4 codes in order from two words of 4 one-byte codes each
    (w0 the first four): byte k of a word holds code k in its low nibble."""
    t0, t1, out = kb.reg(B32), kb.reg(B32), kb.reg(B32)
    for t, w in ((t0, w0), (t1, w1)):
        s = kb.reg(B32)
        kb.emit(f"shr.u32 \t{s}, {w}, 4")
        kb.emit(f"or.b32 \t{t}, {w}, {s}")     # bytes 0 and 2: codes (0, 1) and (2, 3) as nibble pairs
    kb.emit(f"prmt.b32 \t{out}, {t0}, {t1}, 0x6420")
    return out

