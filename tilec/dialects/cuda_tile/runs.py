"""What the IR proves about runs along the last dimension of an integer tile.

A gather or scatter through `offset(base, indices)` moves one element per
index. Where consecutive indices along the last dimension are consecutive
integers, aligned groups of them are one contiguous piece of memory that a
vector access can move at once. `runs(v)` answers, for the last dimension of
`v`, in aligned groups of powers of two:

- `contig`: groups of this length hold v0, v0 + 1, ... (1: nothing known);
- `uniform`: groups of this length hold one value;
- `div`: a power of two dividing the first value of every `contig` group
  (of every value, when `contig` is 1);
- `prefix` (i1 tiles): groups of this length are true on a prefix of the
  group, so a group whose first and last elements are true is all true.
  A bounds mask `indices < n` over contiguous indices is such a mask.

Scalars (rank 0) count as uniform everywhere; their divisors come from
`divisibility.known_divisor` (cuTile's `assume div_by` facts)."""
from __future__ import annotations

from .divisibility import ZERO, _pow2, int_constant, known_divisor, splat_scalar

_DEPTH = 48


class Runs:
    __slots__ = ("contig", "uniform", "div", "prefix")

    def __init__(self, contig=1, uniform=1, div=1, prefix=None):
        self.contig, self.uniform, self.div = contig, uniform, div
        self.prefix = uniform if prefix is None else max(prefix, uniform)

    def __repr__(self):
        return f"Runs(contig={self.contig}, uniform={self.uniform}, div={self.div}, prefix={self.prefix})"

    @property
    def each(self) -> int:
        """A power of two dividing every value (not only the groups' first)."""
        return self.div if self.contig == 1 else 1


def _last(v) -> int:
    shape = tuple(getattr(v.type, "shape", ()))
    return shape[-1] if shape else 1


def _pow2_floor(n: int) -> int:
    return 1 << (max(1, n).bit_length() - 1)


def runs(v, cache=None, depth=0) -> Runs:
    """The last-dimension facts of integer (or i1) tile `v`."""
    if cache is None:
        cache = {}
    key = id(v)
    if key in cache:
        return cache[key]
    got = _runs(v, cache, depth)
    cache[key] = got
    return got


def _runs(v, cache, depth) -> Runs:
    op = getattr(v, "op", None)
    n = _last(v)
    if not _is_tile(v):
        return Runs()
    if not tuple(v.type.shape):
        return Runs(1, 1, known_divisor(v))
    if op is None or depth > _DEPTH:
        return Runs()
    name = op.name
    sub = lambda x: runs(x, cache, depth + 1)   # noqa: E731 - one-line helper
    if name == "cuda_tile.constant":
        c = int_constant(op)
        if c is not None:
            return Runs(1, n, _pow2(c))
        # a splat of another kind (an i1 `true`, say)
        return Runs(1, n if splat_scalar(v) is not None else 1, 1)
    if name == "cuda_tile.iota":
        return Runs(_pow2_floor(n), 1, ZERO)
    if name in ("cuda_tile.exti", "nv_tileas.convert_layout", "cuda_tile.assume"):
        got = sub(op.operands[0])
        if name == "cuda_tile.assume":
            from .attributes_core import DivByAttr
            pred = op.attributes.get("predicate")
            if isinstance(pred, DivByAttr) and pred.every is None and got.contig == 1:
                return Runs(1, got.uniform, max(got.div, _pow2(pred.divisor)), got.prefix)
        return got
    if name == "cuda_tile.broadcast":
        src = op.operands[0]
        if _last(src) == n:
            return sub(src)
        s = sub(src)                  # the last dimension is the one broadcast (from 1)
        return Runs(1, n, s.each)
    if name == "cuda_tile.reshape":
        src = op.operands[0]
        s = sub(src)
        m = _last(src)
        if m == n:
            return s
        if m % n == 0:                # the last dimension split: groups stay aligned pieces
            c = min(s.contig, _pow2_floor(n))
            div = s.div if c == s.contig else min(s.div, c)
            return Runs(c, min(s.uniform, _pow2_floor(n)), div, min(s.prefix, _pow2_floor(n)))
        if n % m == 0 and (s.contig == m or m == 1):
            # dims merged into the last: rows of m stay whole groups when the row is one group
            return Runs(s.contig if m > 1 else 1, s.uniform if m > 1 else 1, s.div if m > 1 else s.each)
        return Runs(1, 1, s.each)
    if name in ("cuda_tile.addi", "cuda_tile.subi"):
        a, b = sub(op.operands[0]), sub(op.operands[1])
        if name == "cuda_tile.subi" and b.contig > 1:
            return Runs(1, min(a.uniform, b.uniform), min(a.each, b.each))
        return _sum(a, b)
    if name == "cuda_tile.muli":
        a, b = sub(op.operands[0]), sub(op.operands[1])
        if b.contig == 1 and b.uniform >= n and _is_one(op.operands[1]):
            return a
        if a.contig == 1 and a.uniform >= n and _is_one(op.operands[0]):
            return b
        if a.contig > 1 and b.contig > 1:
            return Runs(1, min(a.uniform, b.uniform), 1)
        return Runs(1, min(a.uniform, b.uniform), min(ZERO, a.each * b.each))
    if name == "cuda_tile.shli":
        a, b = sub(op.operands[0]), sub(op.operands[1])
        k = _constant_of(op.operands[1])
        if k is None or not 0 <= k < 63:
            return Runs(1, min(a.uniform, b.uniform), 1)
        if k == 0:
            return a
        return Runs(1, min(a.uniform, b.uniform), min(ZERO, a.each << k))
    if name == "cuda_tile.cmpi":
        return _compare(op, sub(op.operands[0]), sub(op.operands[1]))
    if name == "cuda_tile.andi":
        a, b = sub(op.operands[0]), sub(op.operands[1])
        return Runs(1, min(a.uniform, b.uniform), 1, min(a.prefix, b.prefix))
    # any other op: uniform where all of its tile operands are (a pure function of them)
    if op.regions or not op.operands or not _pure(op) or not all(_is_tile(x) for x in op.operands):
        return Runs()
    return Runs(1, min(sub(x).uniform if tuple(x.type.shape) else n for x in op.operands), 1)


def _is_tile(v) -> bool:
    shape = getattr(v.type, "shape", None)
    return (shape is not None and hasattr(v.type, "element_type")
            and all(isinstance(d, int) and d > 0 for d in shape))


def _pure(op) -> bool:
    from ...rewrite.effects import is_side_effect_free
    return is_side_effect_free(op)


def _constant_of(v):
    c = splat_scalar(v)
    return c if isinstance(c, int) and not isinstance(c, bool) else None


def _is_one(v) -> bool:
    return _constant_of(v) == 1


def _sum(a: Runs, b: Runs) -> Runs:
    """a + b: contiguous where one is and the other is uniform over its groups."""
    u = min(a.uniform, b.uniform)
    if a.contig > 1 and b.contig > 1:
        return Runs(1, u, 1)
    run, flat = (a, b) if a.contig >= b.contig else (b, a)
    c = min(run.contig, flat.uniform) if run.contig > 1 else 1
    if c == 1:
        return Runs(1, u, min(a.each, b.each))
    start = run.div if c == run.contig else min(run.div, c)
    return Runs(c, u, min(start, flat.each))


def _compare(op, a: Runs, b: Runs) -> Runs:
    """cmpi: uniform where both sides are; `a < b` over contiguous a and a b uniform
    over the group is true on a prefix (all of it when b and the group start
    share the group's alignment)."""
    pred = getattr(op.attributes.get("comparison_predicate"), "value", None)
    u = min(a.uniform, b.uniform)
    if pred not in ("less_than", "less_than_or_equal") or a.contig == 1:
        return Runs(1, u, 1)
    p = min(a.contig, b.uniform)
    # a group [s, s + p) with s and b multiples of p: s < b exactly when s + p - 1 < b
    whole = min(p, a.div, b.each) if pred == "less_than" else 1
    return Runs(1, max(u, whole), 1, p)
