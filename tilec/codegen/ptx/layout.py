"""Distributed layouts: which thread of a group holds which tile element.

A layout maps (thread, slot) to tile coordinates as `base(thread) + offset(slot)`
per dimension, so addresses and bounds are a per-thread base plus per-slot
constants. Every tile of one shape in one thread group shares the same blocked
layout (it depends on the shape and the group size only), so element-wise ops
never convert; ops that move elements between threads go through shared memory.
"""
from __future__ import annotations

import attrs

MAX_VEC = 4


def _prod(xs):
    n = 1
    for x in xs:
        n *= x
    return n


@attrs.frozen
class Blocked:
    """Threads tile the shape last-dimension-first, each holding `vec` contiguous
    elements of the last dimension per repetition. When the tile has fewer
    vectors than the group has threads, the extra threads hold copies
    (`replicas` > 1); only replica 0 writes memory."""
    shape: tuple
    threads: int
    vec: int
    tpd: tuple    # threads along each dimension
    reps: tuple   # repetitions along each dimension

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def nslots(self) -> int:
        return _prod(self.reps) * self.vec

    @property
    def used_threads(self) -> int:
        return _prod(self.tpd)

    @property
    def replicas(self) -> int:
        return self.threads // self.used_threads

    def step(self, d: int) -> int:
        """Elements along dimension d covered by one repetition."""
        return self.tpd[d] * (self.vec if d == self.rank - 1 else 1)

    def offsets(self, slot: int) -> tuple:
        k = slot % self.vec
        r = slot // self.vec
        idx = []
        for d in reversed(range(self.rank)):
            idx.append(r % self.reps[d])
            r //= self.reps[d]
        idx.reverse()
        out = [i * self.step(d) for d, i in enumerate(idx)]
        out[-1] += k
        return tuple(out)


def blocked(shape, threads: int) -> Blocked:
    shape = tuple(shape)
    n = _prod(shape)
    vec = 1
    while vec * 2 <= min(MAX_VEC, shape[-1], max(1, n // threads)):
        vec *= 2
    remaining = threads
    tpd = [1] * len(shape)
    for d in reversed(range(len(shape))):
        avail = shape[d] // (vec if d == len(shape) - 1 else 1)
        t = min(avail, remaining)
        tpd[d] = t
        remaining //= t
    reps = tuple(shape[d] // (tpd[d] * (vec if d == len(shape) - 1 else 1)) for d in range(len(shape)))
    return Blocked(shape, threads, vec, tuple(tpd), reps)


def linear_offsets(shape):
    """Row-major strides (in elements) of `shape`."""
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= d
    return tuple(reversed(strides))


@attrs.frozen
class MmaAcc:
    """The accumulator of mma.sync m16n8k*: warps tile the (M, N) tile as a
    wm x wn grid; each warp holds (M/wm/16) x (N/wn/8) fragments of four
    elements: rows lane/4 (+8), columns 2*(lane%4) (+1)."""
    shape: tuple
    threads: int
    wm: int
    wn: int
    rank = 2
    replicas = 1
    vec = 2        # slots 2i, 2i+1 are adjacent columns (vector runs, as in Blocked)

    @property
    def used_threads(self) -> int:
        return self.threads

    @property
    def tiles_m(self) -> int:
        return self.shape[0] // (16 * self.wm)

    @property
    def tiles_n(self) -> int:
        return self.shape[1] // (8 * self.wn)

    @property
    def nslots(self) -> int:
        return self.tiles_m * self.tiles_n * 4

    def offsets(self, slot: int) -> tuple:
        t, e = divmod(slot, 4)
        i, j = divmod(t, self.tiles_n)
        return (i * 16 + (e // 2) * 8, j * 8 + e % 2)


def mma_acc(shape, threads: int):
    """An MmaAcc layout for an (M, N) accumulator, or None when the shape does not tile."""
    if len(shape) != 2 or threads % 32:
        return None
    m, n = shape
    warps = threads // 32
    best = None
    wm = 1
    while wm <= warps:
        wn = warps // wm
        if m % (16 * wm) == 0 and n % (8 * wn) == 0:
            cost = (m // (16 * wm)) * 4 + (n // (8 * wn)) * 2   # fragment loads per k step
            if best is None or cost < best[0]:
                best = (cost, wm, wn)
        wm *= 2
    if best is None:
        return None
    return MmaAcc(tuple(shape), threads, best[1], best[2])
