"""What the IR proves about the alignment of integers and pointers.

`known_divisor(v)` is the largest power of two that provably divides the
scalar `v`: the `assume div_by<N>` facts cuTile attaches to kernel arguments,
constants, and the integer arithmetic between them (a pointer's divisor is its
byte alignment). Hopper's TMA needs 16-byte aligned bases and strides, which
only these facts can show at compile time."""
from __future__ import annotations

ZERO = 1 << 62      # the divisor of the constant 0: divisible by anything
_DEPTH = 32         # walks stop here (chains of casts and assumes are short)


def _pow2(n: int) -> int:
    n = abs(int(n))
    return ZERO if n == 0 else n & -n


def int_constant(op):
    """The integer a scalar constant holds, or None."""
    attr = op.attributes.get("value")
    v = getattr(attr, "value", None)
    values = getattr(attr, "values", None)
    if v is None and values is not None and len(values) == 1:
        v = values[0]
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def splat_scalar(v):
    """The one value every element of tile `v` holds when `v` is a constant seen
    through reshape/broadcast (an int, float or bool), else None."""
    op = getattr(v, "op", None)
    while op is not None and op.name in ("cuda_tile.reshape", "cuda_tile.broadcast"):
        op = getattr(op.operands[0], "op", None)
    if op is None or op.name != "cuda_tile.constant":
        return None
    attr = op.attributes.get("value")
    x = getattr(attr, "value", None)
    values = getattr(attr, "values", None)
    if x is None and values:
        x = values[0]
        if any(y != x or repr(y) != repr(x) for y in values[1:]):
            return None
    return x if isinstance(x, (int, float)) else None


def known_divisor(v, depth: int = 0) -> int:
    """The largest power of two known to divide `v` (1 when nothing is known)."""
    op = getattr(v, "op", None)
    if op is None or depth > _DEPTH:
        return 1
    name = op.name
    if name == "cuda_tile.assume":
        from .attributes_core import DivByAttr
        got = known_divisor(op.operands[0], depth + 1)
        pred = op.attributes.get("predicate")
        if isinstance(pred, DivByAttr) and pred.every is None:
            got = max(got, _pow2(pred.divisor))
        return got
    if name in ("cuda_tile.constant", "arith.constant"):
        c = int_constant(op)
        return 1 if c is None else _pow2(c)
    if name in ("arith.index_cast", "arith.index_castui", "cuda_tile.exti", "cuda_tile.trunci",
                "cuda_tile.bitcast", "arith.extsi", "arith.extui", "arith.trunci"):
        return known_divisor(op.operands[0], depth + 1)
    if name in ("cuda_tile.muli", "arith.muli"):
        return min(ZERO, known_divisor(op.operands[0], depth + 1) * known_divisor(op.operands[1], depth + 1))
    if name in ("cuda_tile.addi", "cuda_tile.subi", "arith.addi", "arith.subi"):
        return min(known_divisor(op.operands[0], depth + 1), known_divisor(op.operands[1], depth + 1))
    return 1


def tensor_view_parts(tv):
    """(base value, [shape entries], [stride entries]) of a
    cuda_tile.make_tensor_view result: ints for static entries, values for
    dynamic ones. None for any other value."""
    op = getattr(tv, "op", None)
    if op is None or op.name != "cuda_tile.make_tensor_view":
        return None
    t = tv.type
    dyn_shape, dyn_strides = iter(op.dynamicShape), iter(op.dynamicStrides)
    shape = [next(dyn_shape) if not isinstance(d, int) or d < 0 else d for d in t.shape]
    strides = [next(dyn_strides) if not isinstance(d, int) or d < 0 else d for d in t.strides]
    return op.base, shape, strides


def entry_divisor(x) -> int:
    """known_divisor of a static (int) or dynamic (value) entry."""
    return _pow2(x) if isinstance(x, int) else known_divisor(x)


def tma_aligned(tv, width_bits) -> bool:
    """Whether tensor view `tv` (a make_tensor_view result) is provably what a
    tensor map needs: base 16-byte aligned, every stride but the last (1) a
    multiple of 16 bytes."""
    parts = tensor_view_parts(tv)
    if parts is None or not width_bits or width_bits % 8:
        return False
    base, _, strides = parts
    es = width_bits // 8
    if known_divisor(base) < 16 or strides[-1] != 1:
        return False
    return all(entry_divisor(s) * es % 16 == 0 for s in strides[:-1])


def returns_early(op) -> bool:
    """Whether the kernel holding `op` may return before the end of its body
    (a `cuda_tile.return` nested in control flow)."""
    entry = next((a for a in op.ancestors() if a.name == "cuda_tile.entry"), None)
    return entry is None or any(x.name == "cuda_tile.return" and x.parent_op is not entry for x in entry.walk())
