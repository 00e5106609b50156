"""Every example kernel as a launch case: inputs, grid, which arrays it writes and
how a GPU result is compared with the interpreter's.

The inputs, sizes and grids are those of tests/test_interp_examples.py (that
file builds them inline in each test, so they are restated here, one builder
per kernel). Comparisons are GPU against interpreter on the same inputs:
integers and element-wise float results must be equal (bit for bit where the
interpreter test checks bits); reductions, scans, MMAs and float atomics, whose
summation order is the implementation's, get the interpreter test's tolerance
doubled: that tolerance bounds each side's distance from the exact result, so
two correct implementations may be twice as far from each other.

Pure NumPy: importable without a GPU (`python -m tests.gpu.cases` runs the
interpreter on every case and compares it with itself, a check of this file).
"""
from __future__ import annotations

import io
import os
import zlib
from dataclasses import dataclass, field
from typing import Callable

import ml_dtypes
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples")
BF16 = ml_dtypes.bfloat16
F8 = ml_dtypes.float8_e4m3fn


def arr(a):
    """cuTile's calling convention for an array: pointer, shape..., strides (elements)...
    (the same helper as tests/test_interp_examples.py)."""
    return [a, *a.shape, *[s // a.itemsize for s in a.strides]]


# ---- comparisons ---------------------------------------------------------------------

class Mismatch(AssertionError):
    pass


def _report(label, got, want, bad, extra=""):
    idx = np.argwhere(bad)
    first = ", ".join(f"{tuple(int(v) for v in i)}: gpu {got[tuple(i)]!r} interp {want[tuple(i)]!r}"
                      for i in idx[:5])
    return (f"{label}: {int(bad.sum())} of {bad.size} elements differ{extra}; first: {first}")


@dataclass
class Equal:
    """Equal values (NaN equals NaN); `bits`: equal bit patterns."""
    bits: bool = False

    def __call__(self, label, got, want):
        if got.shape != want.shape:
            raise Mismatch(f"{label}: shape {got.shape} vs {want.shape}")
        if self.bits:
            u = np.dtype(f"u{got.dtype.itemsize}")
            bad = got.view(u) != want.view(u)
        elif got.dtype.kind in "fc" or got.dtype in (BF16, F8):
            g, w = got.astype(np.float64), want.astype(np.float64)
            bad = ~((g == w) | (np.isnan(g) & np.isnan(w)))
        else:
            bad = got != want
        if bad.any():
            raise Mismatch(_report(label, got, want, bad, " (exact comparison)"))


@dataclass
class Close:
    """|gpu - interp| <= 2 * (rtol * |interp| + atol): the interpreter test's
    np.allclose bound against an exact reference, doubled."""
    rtol: float
    atol: float = 1e-8

    def __call__(self, label, got, want):
        g, w = got.astype(np.float64), want.astype(np.float64)
        allowed = 2 * (self.rtol * np.abs(w) + self.atol)
        bad = ~(np.abs(g - w) <= allowed) & ~(np.isnan(g) & np.isnan(w))
        if bad.any():
            raise Mismatch(_report(label, got, want, bad,
                                   f" (rtol {self.rtol}, atol {self.atol}, x2; max |diff| "
                                   f"{np.nanmax(np.abs(g - w)):.3g})"))


@dataclass
class Scaled:
    """|gpu - interp| <= 2 * (rtol * scale + atol), `scale` the sum of |a_i b_i|
    of each result (an MMA's error bound in any summation order), doubled."""
    rtol: float
    scale: Callable[[], np.ndarray]
    atol: float = 1e-6

    def __call__(self, label, got, want):
        g, w = got.astype(np.float64), want.astype(np.float64)
        allowed = 2 * (self.rtol * self.scale() + self.atol)
        bad = ~(np.abs(g - w) <= allowed)
        if bad.any():
            ratio = np.nanmax(np.abs(g - w) / allowed)
            raise Mismatch(_report(label, got, want, bad,
                                   f" (|diff| <= 2*({self.rtol}*sum|a*b| + {self.atol}); worst at "
                                   f"{ratio:.3g}x the bound)"))


def _mm_scale(a, b):
    return lambda: np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))


# ---- cases ---------------------------------------------------------------------------------

@dataclass
class Case:
    name: str
    path: str                          # under examples/
    build: Callable                    # rng -> Launch
    unsupported: dict = field(default_factory=dict)   # arch -> texts, one of which its compile error contains
    prints: bool = False               # the kernel prints (compared in a test of its own)

    @property
    def full_path(self):
        return os.path.join(EXAMPLES, self.path)

    def text(self):
        with open(self.full_path) as fh:
            return fh.read()

    def rng(self):
        return np.random.default_rng(zlib.crc32(self.name.encode()))


@dataclass
class Launch:
    grid: tuple
    args: list
    outputs: list                      # (label, array object in args, comparator or None)
    check: Callable | None = None      # (arrays by label, globals by name) -> None: a racy kernel's invariants
    globals_: dict = field(default_factory=dict)   # global name -> dtype, read back after the launch


def _vector_add(rng):
    n = 1000   # not a multiple of the 256-element tile
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    c = np.full(n + 8, -7.0, np.float32)   # the tail must stay untouched: pass the whole array
    return Launch((4,), [a, b, (c, 0), n], [("c", c, Equal())])


def _cutile_vector_add(rng):
    a, b = rng.standard_normal(768).astype(np.float32), rng.standard_normal(768).astype(np.float32)
    c = np.zeros_like(a)
    return Launch((3,), arr(a) + arr(b) + arr(c), [("c", c, Equal(bits=True))])


def _saxpy(rng):
    x, y = rng.standard_normal(384).astype(BF16), rng.standard_normal(384).astype(BF16)
    out = np.zeros(384, BF16)
    return Launch((3,), arr(x) + arr(y) + arr(out) + [0.7], [("out", out, Equal(bits=True))])


def _row_softmax(rng):
    x = (rng.standard_normal((16, 128)) * 5).astype(np.float32)
    out = np.zeros_like(x)
    return Launch((4,), arr(x) + arr(out), [("out", out, Close(1e-5, 1e-7))])


def _row_stats(rng):
    x = rng.integers(-2**31, 2**31, (24, 64), dtype=np.int64).astype(np.int32)
    sums, mins = np.zeros(24, np.int32), np.zeros(24, np.int32)
    return Launch((3,), arr(x) + arr(sums) + arr(mins), [("sums", sums, Equal()), ("mins", mins, Equal())])


def _cumsum(rng):
    x = rng.uniform(0.5, 1.5, 256).astype(np.float32)
    fwd, rev = np.zeros_like(x), np.zeros_like(x)
    return Launch((2,), arr(x) + arr(fwd) + arr(rev), [("fwd", fwd, Close(1e-5)), ("rev", rev, Close(1e-5))])


def _mm_2x2(rng, m, k, n, dtype, rtol):
    """A 2x2 grid of tile blocks over random A (m x k), B (k x n) of `dtype` and
    a zero C of `dtype`, checked within `rtol` of the sum of |a_i b_i|."""
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    c = np.zeros((m, n), dtype)
    return Launch((2, 2), arr(a) + arr(b) + arr(c), [("c", c, Scaled(rtol, _mm_scale(a, b)))])


def _matmul_rowsq(rng):
    """C = A B and the rows' sums of squares of A, over 3 K tiles of 128 (the
    last ragged); each column block stores its own copy of the sums."""
    m, k, n = 144, 272, 160
    a = rng.standard_normal((m, k)).astype(BF16)
    b = rng.standard_normal((k, n)).astype(BF16)
    c = np.zeros((m, n), BF16)
    sq = np.zeros((2, m), np.float32)
    return Launch((2, 2), arr(a) + arr(b) + arr(c) + arr(sq),
                  [("c", c, Scaled(1e-2, _mm_scale(a, b))), ("sq", sq, Close(1e-4, 1e-4))])


def _matmul_blockscale(rng):
    """Block-scaled C over 5 K steps of 64 in 3 scale groups of 128: the rows'
    scales gathered (rows past M masked to 0), one scale per column block."""
    m, k, n = 144, 320, 160
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float16)
    sa = rng.uniform(0.5, 1.5, (m, 3)).astype(np.float32)
    sb = rng.uniform(0.5, 1.5, (2, 3)).astype(np.float32)
    scale = _mm_scale(a, b)
    return Launch((2, 2), arr(a) + arr(b) + arr(c) + arr(sa) + arr(sb),
                  [("c", c, Scaled(2e-3, lambda: 2.25 * scale()))])


def _matmul_paged(rng):
    """C = sum over 5 K steps of A's K block times the 64-row page of B the table
    names (a permutation of 8 pages; A's last K block is ragged, zero-padded)."""
    m, k, n, pages = 144, 304, 160, 8
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((pages * 64, n)).astype(np.float16)
    table = rng.permutation(pages)[:5].astype(np.int32)
    c = np.zeros((m, n), np.float16)
    gathered = np.concatenate([b[p * 64:(p + 1) * 64] for p in table])[:k]
    return Launch((2, 2), arr(a) + arr(b) + arr(table) + arr(c), [("c", c, Scaled(2e-3, _mm_scale(a, gathered)))])


def _rms_norm_bwd(rng):
    """Three 4-row tiles of 4096 columns over two persistent blocks (block 0 takes
    tiles 0 and 2): dx per row."""
    rows, cols = 12, 4096
    dy, x = (rng.standard_normal((rows, cols)).astype(BF16) for _ in range(2))
    w = rng.standard_normal(cols).astype(BF16)
    rstd = rng.uniform(0.5, 2.0, rows).astype(np.float32)
    dx = np.zeros((rows, cols), BF16)
    return Launch((2,), arr(dy) + arr(x) + arr(w) + arr(rstd) + arr(dx), [("dx", dx, Close(1e-2, 1e-2))])


def _matmul_f16(rng):
    a = rng.standard_normal((128, 80)).astype(np.float16)   # K = 80: a padded last K tile
    b = rng.standard_normal((80, 128)).astype(np.float16)
    c = np.zeros((128, 128), np.float16)
    return Launch((2, 2), arr(a) + arr(b) + arr(c), [("c", c, Scaled(2e-3, _mm_scale(a, b)))])


def _matmul_f16_aligned(rng):
    # shapes divisible by 16 as the kernel assumes, but not by the 128x128x64 tiles:
    # the TMA boxes of the last row, column and K tiles run past the arrays (zero fill)
    # K = 12.25 tiles: the (6-stage) ring of slots wraps twice, the last K tile is ragged
    return _mm_2x2(rng, 144, 784, 160, np.float16, 2e-3)


def _matmul_cluster_aligned(rng):
    # 256x128 tile blocks on clusters of two CTAs; M = 400: the second tile block's second
    # CTA starts past the array's end (its boxes are all zero fill, its stores clipped)
    return _mm_2x2(rng, 400, 784, 160, np.float16, 2e-3)


def _bmm_tt_aligned(rng):
    # the last two extents divisible by 16, as the kernel assumes; K = 9.5 tiles (8 stages: the ring wraps)
    return _tt_launch(rng, 2, 64, 128, 608)


def _matmul_bf16_relu(rng):
    a = rng.standard_normal((128, 128)).astype(BF16)
    b = rng.standard_normal((128, 256)).astype(BF16)
    c = np.zeros((128, 256), np.float32)
    return Launch((2, 2), arr(a) + arr(b) + arr(c), [("c", c, Scaled(1e-6, _mm_scale(a, b)))])


def _matmul_i8(rng):
    a = rng.integers(-128, 128, (128, 96)).astype(np.int8)
    b = rng.integers(-128, 128, (96, 128)).astype(np.int8)
    c = np.zeros((128, 128), np.int32)
    return Launch((2, 2), arr(a) + arr(b) + arr(c) + [2], [("c", c, Equal())])


def _branchy(rng):
    x = rng.standard_normal(300).astype(np.float32)
    out = np.zeros_like(x)
    return Launch((3,), arr(x) + arr(out) + [300], [("out", out, Equal(bits=True))])


def _grid_stride(rng):
    x = rng.integers(-2**31, 2**31, 256 * 5, dtype=np.int64).astype(np.int32)
    out = np.zeros_like(x)
    return Launch((2,), arr(x) + arr(out) + [5], [("out", out, Equal())])


def _gather_reverse(rng):
    x = rng.standard_normal(300).astype(np.float32)
    out = np.zeros_like(x)
    return Launch((3,), arr(x) + arr(out) + [300], [("out", out, Equal(bits=True))])


def _scale_list(rng):
    from tilec.runtime import PointerTable
    xs = [rng.standard_normal(n).astype(np.float32) for n in (48, 40, 64)]
    return Launch((3,), [PointerTable(xs), len(xs)], [(f"x{i}", x, Equal(bits=True)) for i, x in enumerate(xs)])


def _histogram(rng):
    keys = rng.integers(-500, 500, 256).astype(np.int32)
    vals = rng.standard_normal(256).astype(np.float32)
    hist, best = np.zeros(64, np.int32), np.full(64, -2**31, np.int32)
    wsum, flags = np.zeros(64, np.float32), np.zeros(64, np.int32)
    # the float atomic adds land in any order: up to 8 values of |v| < 4 per bin
    return Launch((2,), arr(keys) + arr(hist) + arr(best) + arr(wsum) + arr(vals) + arr(flags),
                  [("hist", hist, Equal()), ("best", best, Equal()), ("wsum", wsum, Close(1e-5, 1e-5)),
                   ("flags", flags, Equal())])


def _argmax(rng):
    x = rng.standard_normal((16, 64))
    x[3, 10] = x[3, 20] = 50.0   # a tie: the lower index wins
    idx = np.zeros(16, np.int32)
    return Launch((4,), arr(x) + arr(idx), [("idx", idx, Equal())])


def _clamp_where(rng):
    x = (rng.standard_normal((32, 32)) * 4).astype(np.float16)
    out = np.zeros_like(x)
    return Launch((2,), arr(x) + arr(out) + [-1.0, 20.0], [("out", out, Equal(bits=True))])


def _transpose(rng):
    x = rng.standard_normal((70, 45)).astype(np.float32)
    out = np.zeros((45, 70), np.float32)
    return Launch((3, 2), [x, out, 70, 45], [("out", out, Equal(bits=True))])


def _gcd(rng):
    a = rng.integers(-10**6, 10**6, 12).astype(np.int32)
    b = rng.integers(0, 10**4, 12).astype(np.int32)
    b[0] = 0
    out = np.zeros(12, np.int32)
    return Launch((12,), [a, b, out], [("out", out, Equal())])


def check_ticket_lock(res, globals_):
    """The outcome of any block order: tickets a permutation of 0..9; per slot j one
    winner among blocks j, j+4, j+8 that saw 0 and whose id+1 the slot holds, the
    others saw that value; the counter ends at 10."""
    owner, tickets, seen = res["owner"], res["tickets"], res["seen"]
    if sorted(tickets.tolist()) != list(range(10)):
        raise Mismatch(f"tickets {tickets.tolist()} are not a permutation of 0..9")
    for j in range(4):
        blocks = [b for b in range(10) if b % 4 == j]
        winners = [b for b in blocks if seen[b] == 0]
        if len(winners) != 1 or owner[j] != winners[0] + 1:
            raise Mismatch(f"slot {j}: owner {owner[j]}, blocks {blocks} saw {[int(seen[b]) for b in blocks]}")
        if any(seen[b] != owner[j] for b in blocks if b != winners[0]):
            raise Mismatch(f"slot {j}: losers saw {[int(seen[b]) for b in blocks]}, owner is {owner[j]}")
    counter = globals_.get("counter")
    if counter is not None and counter.tolist()[:1] != [10]:
        raise Mismatch(f"global @counter ends at {counter.tolist()}, expected [10]")


def _ticket_lock(rng):
    owner, tickets, seen = np.zeros(4, np.int32), np.zeros(10, np.int32), np.zeros(10, np.int32)
    # blocks run in any order on a GPU: the outcome is checked, not compared
    return Launch((10,), [owner, tickets, seen], [("owner", owner, None), ("tickets", tickets, None),
                                                  ("seen", seen, None)],
                  check=check_ticket_lock, globals_={"counter": np.int32})


def _tiled_matmul(rng):
    a = rng.standard_normal((200, 136)).astype(np.float16)
    b = rng.standard_normal((136, 150)).astype(np.float16)
    c = np.zeros((200, 150), np.float16)
    return Launch((2, 2), [a, b, c, 200, 150, 136], [("c", c, Scaled(2e-3, _mm_scale(a, b)))])


def _gather_matmul(rng):
    a = rng.standard_normal((128, 128)).astype(np.float16)
    idx = rng.permutation(128)[:64].astype(np.int32)
    b = rng.standard_normal((128, 64)).astype(np.float16)
    c = np.zeros((64, 64), np.float32)
    return Launch((1,), [a, idx, b, c], [("c", c, Scaled(2e-3, _mm_scale(a[idx], b)))])


def _matmul_bt_order(rng):
    m, n, k = 128, 128, 192
    a = rng.integers(-3, 4, (m, k)).astype(np.float16)
    bt = rng.integers(-3, 4, (n, k)).astype(np.float16)     # B stored transposed
    c = np.zeros((m, n), np.float32)
    return Launch((2, 2), [a, bt, c, m, n, k], [("c", c, Scaled(2e-3, _mm_scale(a, bt.T)))])


def _layernorm(rng):
    rows = 10   # three blocks of 4 rows, the last one half empty
    x = (rng.standard_normal((rows, 128)) * 3 + 1).astype(np.float32)
    w, b = rng.standard_normal(128).astype(np.float32), rng.standard_normal(128).astype(np.float32)
    y = np.zeros_like(x)
    return Launch((3,), [x, w, b, y, rows, 1e-5], [("y", y, Close(1e-5, 1e-5))])


def _attention_launch(rng, h, s, d, rows):
    """Flash attention over (h, s, d) f16 Q, K, V, `rows` query rows per tile block."""
    q = (rng.standard_normal((h, s, d)) * 2).astype(np.float16)
    k = rng.standard_normal((h, s, d)).astype(np.float16)
    v = rng.standard_normal((h, s, d)).astype(np.float16)
    o = np.zeros_like(q)
    return Launch((s // rows, h), arr(q) + arr(k) + arr(v) + arr(o) + [1 / np.sqrt(d)],
                  [("o", o, Close(5e-3, 5e-3))])


def _attention_bwd_dq(rng):
    """dQ of flash attention's backward pass: two 64-row query blocks, five 128-key
    blocks (the ring wraps), the rows' log-sum-exp of the scores in log2 units."""
    h, s, n_keys, d = 1, 128, 640, 64
    scale = 1 / np.sqrt(d)
    q, k, v, do = ((rng.standard_normal((h, n, d)) * 0.5).astype(np.float16) for n in (s, n_keys, n_keys, s))
    scores = q.astype(np.float32) @ k.astype(np.float32).transpose(0, 2, 1) * (scale * 1.4426950408889634)
    lse = np.log2(np.exp2(scores).sum(-1)).astype(np.float32)
    delta = (rng.standard_normal((h, s)) * 0.1).astype(np.float32)
    dq = np.zeros_like(q)
    return Launch((s // 64, h), arr(q) + arr(k) + arr(v) + arr(do) + arr(lse) + arr(delta) + arr(dq) + [scale],
                  [("dq", dq, Close(1e-2, 1e-2))])


def _flash_attention(rng):
    return _attention_launch(rng, 2, 128, 64, 32)


def _matmul_tt(rng):
    return _tt_launch(rng, 2, 128, 192, 160)      # K = 2.5 tiles: the last K tile is ragged (zero padding)


def _tt_launch(rng, q, m, n, k):
    """C = A^T B^T per batch, A stored K x M and B N x K, 64x64 output tiles."""
    a = rng.standard_normal((q, k, m)).astype(np.float16)     # A^T: K x M
    b = rng.standard_normal((q, n, k)).astype(np.float16)     # B^T: N x K
    c = np.zeros((q, m, n), np.float16)
    a64, b64 = np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64))
    scale = lambda: np.transpose(a64, (0, 2, 1)) @ np.transpose(b64, (0, 2, 1))   # noqa: E731
    return Launch((m // 64, n // 64, q), arr(a) + arr(b) + arr(c), [("c", c, Scaled(2e-3, scale))])


def _attention_m128(rng):
    return _attention_launch(rng, 2, 256, 64, 128)      # two 128-row query blocks per head, four key tiles


def _attention_aligned(rng):
    return _attention_launch(rng, 1, 640, 64, 128)      # ten key tiles: the 8-stage ring wraps


def _attention_causal(rng):
    h, s, n_keys, d = 2, 128, 100, 64     # 100 keys: the last key tile is ragged
    q = rng.standard_normal((h, s, d)).astype(np.float16)
    k = rng.standard_normal((h, n_keys, d)).astype(np.float16)
    v = rng.standard_normal((h, n_keys, d)).astype(np.float16)
    o = np.zeros_like(q)
    scale = 1.4426950408889634 / np.sqrt(d)   # the kernel works in exp2
    return Launch((s // 64, h), arr(q) + arr(k) + arr(v) + arr(o) + [scale],
                  [("o", o, Close(5e-3, 5e-3))])


def _matmul_fp8(rng):
    a = np.clip(rng.standard_normal((128, 96)) * 40, -448, 448).astype(F8)
    b = np.clip(rng.standard_normal((96, 128)), -448, 448).astype(F8)
    c = np.zeros((128, 128), np.float32)
    # the interpreter test's rigorous bound: K * 2**-24 * sum|a_i b_i|
    return Launch((2, 2), arr(a) + arr(b) + arr(c), [("c", c, Scaled(96 * 2.0**-24, _mm_scale(a, b), 0.0))])


def _matmul_fp8_bt(rng):
    # torch._scaled_mm's layout: B given as N x K; extents divisible by 16 (the kernel
    # assumes it) but not by the 128x128x128 tiles, so the last tiles' TMA boxes run
    # past the arrays (zero fill)
    a = np.clip(rng.standard_normal((144, 1040)) * 40, -448, 448).astype(F8)     # K: 8.1 tiles (6 stages)
    bt = np.clip(rng.standard_normal((176, 1040)), -448, 448).astype(F8)
    c = np.zeros((144, 176), np.float16)
    b = bt.T
    # f32 accumulation, then one f16 rounding each side: within an f16 ulp of the scale
    return Launch((2, 2), arr(a) + arr(bt) + arr(c), [("c", c, Scaled(2.0**-10, _mm_scale(a, b)))])


def _layernorm_rows(rng):
    x = rng.standard_normal((16, 128)).astype(np.float32)
    w = rng.uniform(0.5, 1.5, 128).astype(np.float32)
    out = np.zeros_like(x)
    return Launch((4,), arr(x) + arr(w) + arr(out), [("out", out, Close(1e-5, 1e-6))])


def _transpose_tile(rng):
    x = rng.standard_normal((64, 96)).astype(np.float32)
    out = np.zeros((96, 64), np.float32)
    return Launch((2, 3), arr(x) + arr(out), [("out", out, Equal(bits=True))])


def _bmm(rng):
    a = rng.standard_normal((2, 64, 80)).astype(np.float16)   # K = 80: a padded last K tile
    b = rng.standard_normal((2, 80, 32)).astype(np.float16)
    c = np.zeros((2, 64, 32), np.float32)
    scale = lambda: np.einsum("bmk,bkn->bmn", np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64)))  # noqa: E731
    return Launch((2,), arr(a) + arr(b) + arr(c), [("c", c, Scaled(2e-3, scale))])


def _matmul_tf32(rng):
    # f32 operands may run as tf32 (10-bit mantissa) on one side and not the other
    return _mm_2x2(rng, 128, 96, 128, np.float32, 2e-3)


def _matmul_tf32_cast(rng):
    a = rng.standard_normal((64, 32)).astype(np.float32)
    b = rng.standard_normal((32, 32)).astype(np.float32)
    c, d = np.zeros((64, 32), np.float32), np.zeros((64, 32), np.float32)
    # tf32 products are exact in f32; the bf16 matmul of the rounded product is compared loosely
    return Launch((2,), arr(a) + arr(b) + arr(c) + arr(d),
                  [("c", c, Scaled(2e-3, _mm_scale(a, b))), ("d", d, Close(2e-2, 1e-1))])


def _delta_rule_state(rng):
    """Per block (head): S = 0; for each 64-row chunk K_c, V_c (bf16): O_c = K_c bf16(S);
    S += tf32(K_c^T) tf32(V_c - O_c) (examples/cutile/delta_rule_state.mlir). Small K keeps
    the update a contraction; both sides round the same operands (ftof), so they differ only
    in summation order, which the feedback through S amplifies a little."""
    heads, chunks, d = 2, 3, 128
    k = (rng.standard_normal((heads * chunks * 64, d)) / 16).astype(BF16)
    v = rng.standard_normal((heads * chunks * 64, d)).astype(BF16)
    o = np.zeros((heads * chunks * 64, d), np.float32)
    s = np.zeros((heads * d, d), np.float32)
    return Launch((heads,), arr(k) + arr(v) + arr(o) + arr(s) + [chunks],
                  [("o", o, Close(2e-3, 2e-3)), ("s", s, Close(2e-3, 2e-3))])


def _persistent_bmm(rng):
    q, m, n, k = 3, 80, 64, 48        # M = 80: a ragged last row tile; 18 tiles over 5 blocks
    a = rng.standard_normal((q, m, k)).astype(np.float16)
    bt = rng.standard_normal((q, n, k)).astype(np.float16)   # B stored transposed
    c = np.zeros((q, m, n), np.float16)
    scale = lambda: np.abs(a.astype(np.float64)) @ np.abs(bt.astype(np.float64)).transpose(0, 2, 1)
    return Launch((5,), arr(a) + arr(bt) + arr(c) + [q], [("c", c, Scaled(2e-3, scale))])


def _persistent_bmm_aligned(rng):
    # 2 batches of 128x128 outputs in 64x64 tiles (K = 448: 7 tiles, B as K x N): 8 tiles
    # over 3 blocks, so each block's loop over output tiles reuses its tensor maps
    q, m, n, k = 2, 128, 128, 448
    a = rng.standard_normal((q, m, k)).astype(np.float16)
    b = rng.standard_normal((q, k, n)).astype(np.float16)
    c = np.zeros((q, m, n), np.float16)
    scale = lambda: np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))    # noqa: E731
    return Launch((3,), arr(a) + arr(b) + arr(c) + [q], [("c", c, Scaled(2e-3, scale))])


def _bits(rng):
    x = rng.integers(-10**6, 10**6, 1000).astype(np.int32)
    y = rng.integers(-10**6, 10**6, 1000).astype(np.int32)
    out = np.zeros(1000, np.int32)
    return Launch((4,), arr(x) + arr(y) + arr(out), [("out", out, Equal())])


def _atomics(rng):
    x = rng.standard_normal(512).astype(np.float32)
    acc = np.zeros(128, np.float32)
    mx = np.full(4, -2**31, np.int32)
    # four blocks add into each acc element in any order
    return Launch((4,), arr(x) + arr(acc) + arr(mx), [("acc", acc, Close(1e-5, 1e-5)), ("mx", mx, Equal())])


def _cat_reshape(rng):
    x = rng.uniform(-4, 4, (48, 16)).astype(np.float32)
    out = np.zeros((96, 16), np.float32)
    return Launch((3,), arr(x) + arr(out), [("out", out, Close(1e-6, 1e-6))])


def _grid2d(rng):
    x = rng.standard_normal((64, 64)).astype(BF16)
    out = np.zeros((64, 64), BF16)
    # tanh/sin are approximate on the GPU: one bf16 rounding step apart at most
    return Launch((2, 2), arr(x) + arr(out), [("out", out, Close(4e-3, 1e-2))])


def _scatter_perm(rng):
    x = rng.standard_normal(512).astype(np.float32)
    idx = rng.permutation(512).astype(np.int32)
    out = np.zeros(512, np.float32)
    return Launch((4,), arr(x) + arr(idx) + arr(out) + [512], [("out", out, Equal(bits=True))])


def _argmin_rows(rng):
    x = rng.standard_normal((32, 64)).astype(np.float32)
    x[5, 7] = x[5, 40] = -50.0   # a tie: the lower index wins
    idx = np.zeros(32, np.int32)
    return Launch((4,), arr(x) + arr(idx), [("idx", idx, Equal())])


def _masked_softmax(rng):
    x = rng.standard_normal((8, 100)).astype(np.float16)   # 100 of 128 columns: -inf padding
    out = np.zeros_like(x)
    return Launch((2,), arr(x) + arr(out) + [100], [("out", out, Close(2e-3, 1e-4))])


def _math_f64(rng):
    x = rng.standard_normal(256) * 3
    out = np.zeros(256)
    # PTX has no f64 exp/log/pow: tilec's own sequences are a few ulp from the interpreter's
    return Launch((2,), arr(x) + arr(out), [("out", out, Close(1e-13, 1e-13))])


def _int_div(rng):
    x = rng.integers(0, 256, 512).astype(np.uint8)
    y = rng.integers(0, 256, 512).astype(np.uint8)
    q, r = np.zeros(512, np.uint8), np.zeros(512, np.int16)
    return Launch((2,), arr(x) + arr(y) + arr(q) + arr(r), [("q", q, Equal()), ("r", r, Equal())])


def _colsum(rng):
    x = rng.standard_normal((64, 96)).astype(np.float32)
    out = np.zeros(96, np.float32)
    return Launch((3,), arr(x) + arr(out), [("out", out, Close(1e-5, 1e-6))])


def _permute3d(rng):
    x = rng.standard_normal((8, 8, 16)).astype(np.float32)
    out = np.zeros((16, 8, 8), np.float32)
    return Launch((2,), arr(x) + arr(out), [("out", out, Equal(bits=True))])


def _matmul_gelu(rng):
    a = rng.standard_normal((256, 128)).astype(np.float16)
    b = rng.standard_normal((128, 256)).astype(np.float16)
    c = np.zeros((256, 256), np.float16)
    # tanh is approximate on the GPU; the result is rounded to f16
    return Launch((2, 2), arr(a) + arr(b) + arr(c), [("c", c, Scaled(4e-3, _mm_scale(a, b), 2e-2))])


def _collatz(rng):
    x = rng.integers(1, 1000, 256).astype(np.int32)
    out = np.zeros(256, np.int32)
    return Launch((2,), arr(x) + arr(out), [("out", out, Equal())])


def _loop_break(rng):
    x = np.abs(rng.standard_normal(1024)).astype(np.float32)
    x[5 * 128:6 * 128] = 5.0     # tile 5 sums past 100: the loop breaks there
    out = np.zeros(256, np.float32)
    return Launch((2,), arr(x) + arr(out) + [8], [("out", out, Close(1e-6, 1e-6))])


def _i64_bitcast(rng):
    x = rng.standard_normal(256).astype(np.float32)
    out = np.zeros(256, np.int64)
    return Launch((2,), arr(x) + arr(out), [("out", out, Equal())])


def _argmax_axis0(rng):
    x = rng.standard_normal((64, 96)).astype(np.float32)
    x[10, 3] = x[40, 3] = 9.0   # a tie: the lower index wins
    out = np.zeros(96, np.int32)
    return Launch((3,), arr(x) + arr(out), [("out", out, Equal())])


def _prod_scan_rev(rng):
    x = rng.uniform(0.9, 1.1, 128).astype(np.float32)
    out = np.zeros(128, np.float32)
    return Launch((2,), arr(x) + arr(out), [("out", out, Close(1e-5))])


def _bcast_3way(rng):
    a, b = rng.standard_normal((32, 1)).astype(np.float32), rng.standard_normal((1, 32)).astype(np.float32)
    c = rng.standard_normal((32, 32)).astype(np.float32)
    out = np.zeros((32, 32), np.float32)
    return Launch((2,), arr(a) + arr(b) + arr(c) + arr(out), [("out", out, Equal(bits=True))])


CASES = [
    Case("vector_add", "vector_add.mlir", _vector_add),
    Case("gcd_loop_i32", "gcd_loop_i32.mlir", _gcd),
    Case("layernorm_f32", "layernorm_f32.mlir", _layernorm),
    Case("matmul_f16_tiled", "matmul_f16_tiled.mlir", _tiled_matmul),
    Case("gather_matmul_f16", "gather_matmul_f16.mlir", _gather_matmul),
    Case("ticket_lock_i32", "ticket_lock_i32.mlir", _ticket_lock),
    Case("transpose_f32", "transpose_f32.mlir", _transpose),
    Case("cutile_argmax_rows_f64", "cutile/argmax_rows_f64.mlir", _argmax, prints=True),
    Case("cutile_branchy_scale", "cutile/branchy_scale.mlir", _branchy),
    Case("cutile_clamp_where_f16", "cutile/clamp_where_f16.mlir", _clamp_where),
    Case("cutile_cumsum_f32", "cutile/cumsum_f32.mlir", _cumsum),
    Case("cutile_flash_attention_f16", "cutile/flash_attention_f16.mlir", _flash_attention),
    Case("cutile_attention_causal_f16", "cutile/attention_causal_f16.mlir", _attention_causal),
    Case("cutile_attention_m128_f16", "cutile/attention_m128_f16.mlir", _attention_m128),
    Case("cutile_matmul_tt_f16", "cutile/matmul_tt_f16.mlir", _matmul_tt),
    Case("cutile_matmul_f16_aligned", "cutile/matmul_f16_aligned.mlir", _matmul_f16_aligned),
    Case("cutile_matmul_cluster_f16_aligned", "cutile/matmul_cluster_f16_aligned.mlir", _matmul_cluster_aligned),
    Case("cutile_matmul_bt_order_f16_aligned", "cutile/matmul_bt_order_f16_aligned.mlir", _matmul_bt_order),
    Case("cutile_attention_m128_f16_aligned", "cutile/attention_m128_f16_aligned.mlir", _attention_aligned),
    Case("cutile_attention_bwd_dq_f16_aligned", "cutile/attention_bwd_dq_f16_aligned.mlir", _attention_bwd_dq),
    # a loop's register tiles beside its dot: the squares stream into row sums (one consumer
    # warpgroup holds them), the scaled products do not (two consumer warpgroups on sm_90a)
    Case("cutile_matmul_rowsq_bf16_aligned", "cutile/matmul_rowsq_bf16_aligned.mlir", _matmul_rowsq),
    Case("cutile_matmul_blockscale_f16_aligned", "cutile/matmul_blockscale_f16_aligned.mlir", _matmul_blockscale),
    # the producer reads each K step's page of B from a table before it copies the page
    Case("cutile_matmul_paged_f16_aligned", "cutile/matmul_paged_f16_aligned.mlir", _matmul_paged),
    # a persistent loop holding two 4x4096 f32 tiles: 8 warps (compile's choice for its registers)
    Case("cutile_rms_norm_bwd_bf16", "cutile/rms_norm_bwd_bf16.mlir", _rms_norm_bwd),
    Case("cutile_bmm_tt_f16_aligned", "cutile/bmm_tt_f16_aligned.mlir", _bmm_tt_aligned),
    Case("cutile_gather_reverse_f32", "cutile/gather_reverse_f32.mlir", _gather_reverse),
    Case("cutile_grid_stride_i32", "cutile/grid_stride_i32.mlir", _grid_stride),
    Case("cutile_histogram_i32", "cutile/histogram_i32.mlir", _histogram),
    Case("cutile_scale_list_f32", "cutile/scale_list_f32.mlir", _scale_list),
    Case("cutile_matmul_bf16_relu", "cutile/matmul_bf16_relu.mlir", _matmul_bf16_relu),
    Case("cutile_matmul_f16", "cutile/matmul_f16.mlir", _matmul_f16),
    Case("cutile_matmul_tf32_cast", "cutile/matmul_tf32_cast.mlir", _matmul_tf32_cast),
    # sm_90a: a bf16 dot split by columns over two warpgroups and a tf32 one, both with B copied
    Case("cutile_delta_rule_state", "cutile/delta_rule_state.mlir", _delta_rule_state),
    Case("cutile_persistent_bmm_f16", "cutile/persistent_bmm_f16.mlir", _persistent_bmm),
    Case("cutile_persistent_bmm_f16_aligned", "cutile/persistent_bmm_f16_aligned.mlir", _persistent_bmm_aligned),
    # docs/decisions.md (lowering): fp8 MMA only on sm_90a, reported on sm_80 (by the lowering,
    # or by the emitter's fp8 type check)
    Case("cutile_matmul_fp8", "cutile/matmul_fp8.mlir", _matmul_fp8,
         unsupported={"sm_80": ("not supported on sm_80", "needs sm_89")}),
    Case("cutile_matmul_fp8_bt_aligned", "cutile/matmul_fp8_bt_aligned.mlir", _matmul_fp8_bt,
         unsupported={"sm_80": ("not supported on sm_80", "needs sm_89")}),
    Case("cutile_matmul_i8_masked", "cutile/matmul_i8_masked.mlir", _matmul_i8),
    Case("cutile_row_softmax_f32", "cutile/row_softmax_f32.mlir", _row_softmax),
    Case("cutile_row_stats_i32", "cutile/row_stats_i32.mlir", _row_stats),
    Case("cutile_saxpy_bf16", "cutile/saxpy_bf16.mlir", _saxpy),
    Case("cutile_vector_add_f32", "cutile/vector_add_f32.mlir", _cutile_vector_add),
    Case("cutile_layernorm_rows_f32", "cutile/layernorm_rows_f32.mlir", _layernorm_rows),
    Case("cutile_transpose_tile_f32", "cutile/transpose_tile_f32.mlir", _transpose_tile),
    Case("cutile_bmm_f16", "cutile/bmm_f16.mlir", _bmm),
    Case("cutile_matmul_tf32", "cutile/matmul_tf32.mlir", _matmul_tf32),
    Case("cutile_bits_i32", "cutile/bits_i32.mlir", _bits),
    Case("cutile_atomics_f32", "cutile/atomics_f32.mlir", _atomics),
    Case("cutile_cat_reshape_f32", "cutile/cat_reshape_f32.mlir", _cat_reshape),
    Case("cutile_grid2d_bf16", "cutile/grid2d_bf16.mlir", _grid2d),
    Case("cutile_scatter_perm_f32", "cutile/scatter_perm_f32.mlir", _scatter_perm),
    Case("cutile_argmin_rows_f32", "cutile/argmin_rows_f32.mlir", _argmin_rows),
    Case("cutile_masked_softmax_f16", "cutile/masked_softmax_f16.mlir", _masked_softmax),
    Case("cutile_math_f64", "cutile/math_f64.mlir", _math_f64),
    Case("cutile_int_div_u8", "cutile/int_div_u8.mlir", _int_div),
    Case("cutile_colsum_axis0_f32", "cutile/colsum_axis0_f32.mlir", _colsum),
    Case("cutile_permute3d_f32", "cutile/permute3d_f32.mlir", _permute3d),
    Case("cutile_matmul_gelu_f16", "cutile/matmul_gelu_f16.mlir", _matmul_gelu),
    Case("cutile_while_collatz_i32", "cutile/while_collatz_i32.mlir", _collatz),
    Case("cutile_loop_break_f32", "cutile/loop_break_f32.mlir", _loop_break),
    Case("cutile_i64_bitcast", "cutile/i64_bitcast.mlir", _i64_bitcast),
    Case("cutile_argmax_axis0_f32", "cutile/argmax_axis0_f32.mlir", _argmax_axis0),
    Case("cutile_prod_scan_rev_f32", "cutile/prod_scan_rev_f32.mlir", _prod_scan_rev),
    Case("cutile_bcast_3way_f32", "cutile/bcast_3way_f32.mlir", _bcast_3way),
]
BY_NAME = {c.name: c for c in CASES}


def example_files():
    """Every .mlir under examples/ (relative paths), to check CASES covers them all."""
    out = []
    for sub in ("", "cutile"):
        d = os.path.join(EXAMPLES, sub)
        out += sorted(os.path.join(sub, f) if sub else f for f in os.listdir(d) if f.endswith(".mlir"))
    return out


# ---- running one side ------------------------------------------------------------------------

def copy_args(args):
    """A deep copy of a launch's arguments; an array passed twice stays one array.
    Returns (copy, mapping id(original array) -> its copy)."""
    memo = {}

    def cp(a):
        if isinstance(a, np.ndarray):
            if id(a) not in memo:
                memo[id(a)] = a.copy()
            return memo[id(a)]
        if isinstance(a, tuple) and len(a) == 2 and isinstance(a[0], np.ndarray):
            return (cp(a[0]), a[1])
        return a

    def cp_table(a):       # a list's table (tilec.runtime.PointerTable): one over copies of its arrays
        if getattr(a, "pointees", None):
            return type(a)([cp(p) for p in a.pointees])
        return cp(a)
    return [cp_table(a) for a in args], memo


def outputs_of(launch, memo):
    """label -> the copy of each output array."""
    return {label: memo[id(a)] for label, a, _ in launch.outputs}


def run_interpreter(case, launch):
    """Run the interpreter on a copy of the inputs: (arrays by label, globals, printed text)."""
    from tilec.interp import launch as interp_launch, parse_module
    args, memo = copy_args(launch.args)
    out = io.StringIO()
    result = interp_launch(parse_module(case.text(), case.full_path), None, launch.grid, args, stdout=out)
    return outputs_of(launch, memo), result.globals, out.getvalue()


def compare(case, launch, got, want):
    """Raise Mismatch if the GPU's arrays `got` differ from the interpreter's `want`."""
    for label, _a, cmp in launch.outputs:
        if cmp is not None:
            cmp(f"{case.name}: output {label}", got[label], want[label])


if __name__ == "__main__":   # check this file against the interpreter alone (no GPU)
    import sys
    import time
    sys.path.insert(0, ROOT)
    missing = set(example_files()) - {c.path for c in CASES}
    print("examples without a case:", sorted(missing) or "none")
    for case in CASES:
        t = time.perf_counter()
        launch = case.build(case.rng())
        got, globals_, _ = run_interpreter(case, launch)
        want, _, _ = run_interpreter(case, case.build(case.rng()))
        compare(case, launch, got, want)
        if launch.check:
            launch.check(got, globals_)
        print(f"{case.name}: ok ({time.perf_counter() - t:.1f} s)")
