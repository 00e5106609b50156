"""Register-level conversions shared by the op families: narrow floats to and
from f32, narrow integers to their canonical (sign-extended) or unsigned form."""
from __future__ import annotations

from .ptxtypes import B16, B32, B64, F32, F64, PRED, Unsupported, bits, reg_class


def float_name(t) -> str:
    return t.name if type(t).__name__ == "FloatType" else ""


def compute_type(t) -> str:
    """The PTX type float arithmetic on `t` runs in."""
    return "f64" if float_name(t) == "f64" else "f32"


def _need_fp8(em, t):
    if em.target.sm < 89:
        raise Unsupported(f"on {em.target.arch}: {t.text(True)} needs sm_89 or newer")


def to_f32(em, reg: str, t) -> str:
    """An f32 register holding the value of `reg` (element type `t`)."""
    kb = em.kb
    name = float_name(t)
    if name in ("f32", "tf32"):
        return reg
    out = kb.reg(F32)
    if name == "f16":
        kb.emit(f"cvt.f32.f16 \t{out}, {reg}")
    elif name == "bf16":
        w = kb.reg(B32)
        kb.emit(f"cvt.u32.u16 \t{w}, {reg}")
        kb.emit(f"shl.b32 \t{w}, {w}, 16")
        kb.emit(f"mov.b32 \t{out}, {w}")
    elif name == "f64":
        kb.emit(f"cvt.rn.f32.f64 \t{out}, {reg}")
    elif name in ("f8E4M3FN", "f8E5M2"):
        _need_fp8(em, t)
        pair, lo, hi = kb.reg(B32), kb.reg(B16), kb.reg(B16)
        kind = "e4m3x2" if name == "f8E4M3FN" else "e5m2x2"
        kb.emit(f"cvt.rn.f16x2.{kind} \t{pair}, {reg}")
        kb.emit(f"mov.b32 \t{{{lo}, {hi}}}, {pair}")
        kb.emit(f"cvt.f32.f16 \t{out}, {lo}")
    else:
        raise Unsupported(f"cannot compute on {t.text(True)}")
    return out


def from_f32(em, dst: str, f: str, t, rounding: str = ".rn"):
    """Round f32 register `f` into `dst` of float type `t`."""
    kb = em.kb
    name = float_name(t)
    if name == "f32":
        kb.emit(f"mov.f32 \t{dst}, {f}")
    elif name == "tf32":
        # to nearest, ties away (the interpreter's rounding); the tensor cores would truncate
        w = kb.reg(B32)
        kb.emit(f"cvt.rna.tf32.f32 \t{w}, {f}")
        kb.emit(f"mov.b32 \t{dst}, {w}")
    elif name == "f16":
        kb.emit(f"cvt{rounding}.f16.f32 \t{dst}, {f}")
    elif name == "bf16":
        kb.emit(f"cvt{rounding}.bf16.f32 \t{dst}, {f}")
    elif name == "f64":
        kb.emit(f"cvt.f64.f32 \t{dst}, {f}")
    elif name in ("f8E4M3FN", "f8E5M2"):
        _need_fp8(em, t)
        kind = "e4m3x2" if name == "f8E4M3FN" else "e5m2x2"
        z = kb.reg(F32)
        kb.emit(f"mov.f32 \t{z}, 0f00000000")
        kb.emit(f"cvt.rn.satfinite.{kind}.f32 \t{dst}, {z}, {f}")
    else:
        raise Unsupported(f"cannot compute on {t.text(True)}")


def canonical_int(em, dst: str, src: str, t):
    """Sign-extend the low bits of `src` into `dst` for narrow integer types."""
    w = bits(t)
    if w in (8, 16):
        em.kb.emit(f"cvt.s32.s{w} \t{dst}, {src}")
    elif dst != src:
        em.kb.emit(f"mov.b{64 if w == 64 else 32} \t{dst}, {src}")


def unsigned_view(em, reg: str, t) -> str:
    """`reg` with the bits above the type's width cleared (narrow types only)."""
    w = bits(t)
    if w not in (8, 16):
        return reg
    out = em.kb.reg(B32)
    em.kb.emit(f"and.b32 \t{out}, {reg}, {(1 << w) - 1}")
    return out


def pred_to_int(em, reg: str, t) -> str:
    cls = reg_class(t)
    out = em.kb.reg(cls)
    em.kb.emit(f"selp.{'u64' if cls == B64 else 'u32'} \t{out}, 1, 0, {reg}")
    return out


def select(em, dst: str, cond: str, a: str, b: str, t):
    """dst = cond ? a : b for one element of type `t`."""
    kb = em.kb
    cls = reg_class(t)
    if cls == PRED:
        x, y = kb.reg(PRED), kb.reg(PRED)
        kb.emit(f"and.pred \t{x}, {cond}, {a}")
        kb.emit(f"not.pred \t{y}, {cond}")
        kb.emit(f"and.pred \t{y}, {y}, {b}")
        kb.emit(f"or.pred \t{dst}, {x}, {y}")
    else:
        kb.emit(f"selp.b{width_suffix(t)} \t{dst}, {a}, {b}, {cond}")


def width_suffix(t) -> int:
    return 64 if reg_class(t) in (B64, F64) else 16 if reg_class(t) == B16 else 32


__all__ = ["to_f32", "from_f32", "canonical_int", "unsigned_view", "compute_type", "float_name",
           "pred_to_int", "width_suffix", "PRED"]
