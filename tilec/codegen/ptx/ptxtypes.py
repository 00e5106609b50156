"""How cuda_tile element types live in PTX registers and memory.

Integers narrower than 32 bits are held in 32-bit registers, sign-extended
(arithmetic stays in one register class; ops that read them unsigned mask
first). f16, bf16 and the fp8 formats are held as raw bits in 16-bit registers
and computed on in f32: for +, -, *, / and sqrt the f32 result rounded once to
the narrow format is the correctly rounded narrow result (24 >= 2p + 2 bits).
"""
from __future__ import annotations

import struct

from ...ir.types import FloatType, IndexType, IntegerType

PRED, B16, B32, B64, F32, F64 = "pred", "b16", "b32", "b64", "f32", "f64"

# register class -> (declaration type, name prefix)
REG_CLASSES = {PRED: (".pred", "%p"), B16: (".b16", "%h"), B32: (".b32", "%r"), B64: (".b64", "%rd"),
               F32: (".f32", "%f"), F64: (".f64", "%fd")}

# floats held as bit patterns in .b16 registers (f4E2M1FN: its 4-bit code in the low bits; in
# global memory packed two to a byte, see fp4.py)
NARROW_FLOATS = ("f16", "bf16", "f8E4M3FN", "f8E5M2", "f8E8M0FNU", "f4E2M1FN")


class Unsupported(Exception):
    """An element type or form the emitter cannot represent (reported at the op)."""


def is_pointer(t) -> bool:
    return hasattr(t, "pointee")


def reg_class(t) -> str:
    """The register class holding one element of type `t`."""
    if isinstance(t, IntegerType):
        if t.width == 1:
            return PRED
        return B64 if t.width == 64 else B32
    if isinstance(t, IndexType):
        return B32
    if isinstance(t, FloatType):
        if t.name in ("f32", "tf32"):
            return F32
        if t.name == "f64":
            return F64
        if t.name in NARROW_FLOATS:
            return B16
    if is_pointer(t):
        return B64
    raise Unsupported(f"element type {t.text(True)} is not supported by the PTX emitter")


def bits(t) -> int:
    if isinstance(t, IndexType):
        return 32
    if is_pointer(t):
        return 64
    return t.width


def byte_size(t) -> int:
    """Bytes one element takes in memory (i1 as a byte)."""
    return max(1, bits(t) // 8)


def vector_element(t) -> bool:
    """Whether elements of type `t` may move as vector accesses: 2, 4 or 8 bytes
    held at their own width in registers (16-bit floats in b16; not i1, not
    16-bit integers, which registers hold in 32 bits)."""
    es = byte_size(t)
    return es in (2, 4, 8) and reg_class(t) != PRED and (es > 2 or reg_class(t) == B16)


def vector_element_for(t, registers: bool = True) -> bool:
    """vector_element for accesses through registers; for a copy that bypasses
    them (cp.async), any whole-byte type but i1."""
    return vector_element(t) if registers else reg_class(t) != PRED and byte_size(t) in (1, 2, 4, 8)


def int_type(t, signed=True) -> str:
    """`.s32`-style suffix for an integer held at its register width."""
    w = 64 if bits(t) == 64 else 32
    return f".{'s' if signed else 'u'}{w}"


def mem_type(t) -> str:
    """The ld/st type for one element in memory."""
    if isinstance(t, FloatType):
        if t.name in ("f32", "tf32"):
            return ".f32"
        if t.name == "f64":
            return ".f64"
        return ".b16" if t.width == 16 else ".b8"
    if is_pointer(t):
        return ".u64"
    w = bits(t)
    return ".u8" if w == 1 else f".s{w}" if w < 32 else f".b{w}"


def param_type(t) -> str:
    """The `.param` type of an entry argument of element type `t`."""
    if is_pointer(t):
        return ".u64"
    if isinstance(t, FloatType):
        return {"f32": ".f32", "f64": ".f64"}.get(t.name, ".b16" if t.width == 16 else ".b8")
    w = bits(t)
    return ".u8" if w <= 8 else f".u{w}"


def float_imm(value: float, t) -> str:
    """A PTX immediate holding `value` in the register class of float type `t`."""
    name = t.name
    if name == "f64":
        return "0d%016X" % struct.unpack("<Q", struct.pack("<d", value))[0]
    try:  # struct rounds to nearest even, as a conversion does; it refuses what overflows
        if name in ("f32", "tf32"):
            return "0f%08X" % struct.unpack("<I", struct.pack("<f", value))[0]
        if name == "f16":
            return "0x%04X" % struct.unpack("<H", struct.pack("<e", value))[0]
    except OverflowError:
        pass
    import numpy as np
    from ...interp.numerics import dtype_of
    raw = np.array([value], dtype=dtype_of(t)).view(np.uint16 if t.width == 16 else np.uint8)[0]
    return "0x%04X" % int(raw)


def int_imm(value: int, t) -> str:
    """An integer immediate, normalized to the sign-extended register form."""
    w = bits(t)
    if w == 1:
        return "1" if value & 1 else "0"
    value &= (1 << w) - 1
    if value >= 1 << (w - 1):
        value -= 1 << w
    return str(value)
