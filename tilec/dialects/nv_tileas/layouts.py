"""Distributed layouts: which thread of a group holds which tile element, and
the attribute that names them in the IR (`#nv_tileas<layout blocked>`,
`#nv_tileas<layout mma, warps = [2, 2]>`) on nv_tileas.convert_layout.

A layout maps (thread, slot) to tile coordinates as `base(thread) + offset(slot)`
per dimension, so addresses and bounds are a per-thread base plus per-slot
constants. Every tile of one shape in one thread group shares the same blocked
layout (it depends on the shape and the group size only), so element-wise ops
never convert; ops that move elements between threads go through shared memory.
"""
from __future__ import annotations

from math import gcd

from ...ir.record import frozen


MAX_VEC = 4


def _prod(xs):
    n = 1
    for x in xs:
        n *= x
    return n


@frozen
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
        return -(-self.threads // self.used_threads)

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


def blocked(shape, threads: int, max_vec: int = MAX_VEC) -> Blocked:
    shape = tuple(shape)
    n = _prod(shape)
    # a group of 3 warpgroups (producer + two consumers) is not a power of two:
    # the layout uses the largest power of two of its threads, the rest hold copies
    threads_pow2 = 1 << (threads.bit_length() - 1)
    vec = 1
    while vec * 2 <= min(max_vec, shape[-1], max(1, n // threads_pow2)):
        vec *= 2
    remaining = threads_pow2
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


@frozen
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


@frozen
class WgmmaAcc:
    """The f32 accumulator of wgmma.mma_async.m64nNk16 over `threads / 128`
    warpgroups (sm_90a). The warpgroups split M first, in bands of whole
    64-row chunks (`row_groups` of them: as many as the chunks allow), and the
    rest split N (`col_groups`: an M of 64 on two warpgroups gives each half
    the columns, the instruction's N). Warpgroup g = band b * col_groups + c
    holds rows [b M / row_groups, (b + 1) M / row_groups) in chunks of 64 (one
    instruction each, `tiles_m` per warpgroup) and columns [c n_per, (c + 1)
    n_per). Inside a chunk, warp w of the warpgroup holds rows 16 w + lane / 4
    (+ 8) and, per 8-column block j, columns 8 j + 2 (lane % 4) (+ 1) of its
    own: register i of the instruction's n_per / 2 is row + 8 ((i >> 1) & 1),
    column 8 (i >> 2) + 2 (lane % 4) + (i & 1) (the PTX ISA's figure for the
    m64nNk16 D fragment). Slots run chunk-major, then in the instruction's
    register order."""
    shape: tuple
    threads: int
    rank = 2
    replicas = 1
    vec = 2        # slots 2i, 2i+1 are adjacent columns

    @property
    def used_threads(self) -> int:
        return self.threads

    @property
    def warpgroups(self) -> int:
        return self.threads // 128

    @property
    def row_groups(self) -> int:
        return gcd(self.warpgroups, self.shape[0] // 64)

    @property
    def col_groups(self) -> int:
        return self.warpgroups // self.row_groups

    @property
    def n_per(self) -> int:
        """Columns per warpgroup: one instruction's N."""
        return self.shape[1] // self.col_groups

    @property
    def tiles_m(self) -> int:
        return self.shape[0] // (64 * self.row_groups)

    @property
    def regs_per_tile(self) -> int:
        return self.n_per // 2

    @property
    def nslots(self) -> int:
        return self.tiles_m * self.regs_per_tile

    def offsets(self, slot: int) -> tuple:
        i, r = divmod(slot, self.regs_per_tile)
        return (i * 64 + 8 * ((r >> 1) & 1), 8 * (r >> 2) + (r & 1))


def wgmma_acc(shape, threads: int):
    """The WgmmaAcc layout of an (M, N) f32 accumulator, or None when wgmma's
    shapes do not fit: whole warpgroups, M a multiple of 64, N a multiple of 8
    up to 256; when the 64-row chunks cannot give every warpgroup the same
    number, a power of two of warpgroups and a share of N per warpgroup that
    is a multiple of 8 too."""
    if len(shape) != 2 or threads <= 0 or threads % 128:
        return None
    m, n = shape
    wgs = threads // 128
    if m % 64 or n % 8 or not 8 <= n <= 256:
        return None
    cols = wgs // gcd(wgs, m // 64)
    if cols > 1 and (wgs & (wgs - 1) or n % (8 * cols)):
        return None
    return WgmmaAcc(tuple(shape), threads)


@frozen
class TmemAcc:
    """The accumulator of tcgen05.mma (sm_100a, cta_group::1) as tcgen05.ld's
    32x32b shape brings it from tensor memory: a warp reads the 32 lanes of
    its quarter (warp % 4), each thread one lane, consecutive columns into
    consecutive registers. Row block b (rows 128 b ..) of the M x N tile is
    one M = 128 MMA's D at columns [b N, (b + 1) N). The group's warpgroups
    split the row blocks first (`row_groups` of them, warpgroup g takes blocks
    g % row_groups + row_groups i) and the columns after that (warpgroup g
    takes the (g // row_groups)-th of `col_groups` equal column ranges).
    Slots run over a thread's row blocks, then its columns in order.
    M = 64 (`half`): two M = 64 MMAs share the columns, B's first N/2 columns
    in lanes 0-15 of each quarter and the rest in lanes 16-31 (the ISA's M = 64
    data path puts row r in lane 32 (r / 16) + r % 16 of the half it is given),
    so lane l of warp w holds row 16 (w % 4) + l % 16 and columns from
    (l / 16) N/2."""
    shape: tuple
    threads: int
    rank = 2
    replicas = 1
    vec = 4       # slots 4i .. 4i+3 are adjacent columns

    @property
    def used_threads(self) -> int:
        return self.threads

    @property
    def half(self) -> bool:
        return self.shape[0] == 64

    @property
    def row_groups(self) -> int:
        return max(1, min(self.threads // 128, self.shape[0] // 128))

    @property
    def col_groups(self) -> int:
        return self.threads // 128 // self.row_groups

    @property
    def cols(self) -> int:
        """Columns per thread and row block."""
        return self.shape[1] // self.col_groups // (2 if self.half else 1)

    @property
    def blocks(self) -> int:
        """Row blocks per thread."""
        return max(1, self.shape[0] // (128 * self.row_groups))

    @property
    def nslots(self) -> int:
        return self.blocks * self.cols

    def offsets(self, slot: int) -> tuple:
        i, j = divmod(slot, self.cols)
        return (128 * self.row_groups * i, j)


def tmem_acc(shape, threads: int):
    """The TmemAcc layout of an (M, N) accumulator, or None: whole warpgroups
    (a power of two of them), M a multiple of 128 with the warpgroups splitting
    its row blocks and then N (each share a multiple of 16 columns, N at most
    256), and the row blocks' N columns each within tensor memory's 512."""
    if len(shape) != 2 or threads <= 0 or threads % 128:
        return None
    m, n = shape
    g = threads // 128
    if m == 64:      # two M = 64 MMAs of N/2 columns each (TmemAcc.half)
        if g & (g - 1) or n % 16 or n > 512 or (n // 2 // g) % 4:
            return None
        return TmemAcc(tuple(shape), threads)
    if g & (g - 1) or m % 128 or n % 16 or not 16 <= n <= 256 or (m // 128) * n > 512:
        return None
    rows = min(g, m // 128)
    if (m // 128) % rows or n % (16 * (g // rows)):
        return None
    return TmemAcc(tuple(shape), threads)


@frozen
class SliceLayout:
    """A tile whose elements are some of a `parent` layout's, each thread keeping
    the values at the coordinates it held there: the result of reducing parent
    dimensions (every thread that held an element of row r then holds the row's
    value; the threads that differed along the reduced dimension hold copies),
    or a relabel that inserts or removes unit dimensions (a reshape).

    `axes[i]` is the parent dimension of this tile's dimension i (-1: a unit
    dimension the parent does not have). Parent dimensions missing from `axes`
    are dropped: the slots are the parent's slots at coordinate 0 along them
    (`slots`, in the parent's order), and the element of slot k in this thread
    is the parent element of `slots[k]` projected on `axes`. The thread bits
    whose parent basis moves only along dropped dimensions become copies
    (linear_layout.to_linear gives the map, linear_layout.slice_layout makes
    one; the parent must be linear).
    `vec`: runs of that many slots are adjacent elements of the last dimension."""
    parent: object
    axes: tuple
    shape: tuple
    slots: tuple
    vec: int
    replicas: int
    copy_mask: int    # thread-index bits that only select copies

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def threads(self) -> int:
        return self.parent.threads

    @property
    def used_threads(self) -> int:
        return self.threads // self.replicas

    @property
    def nslots(self) -> int:
        return len(self.slots)

    def offsets(self, slot: int) -> tuple:
        po = self.parent.offsets(self.slots[slot])
        return tuple(po[a] if a >= 0 else 0 for a in self.axes)


MMA_OPERAND_TYPES = ("f16", "bf16")
MMA_FP8 = ("f8E4M3FN", "f8E5M2")


def float_kind(t) -> str:
    """The float element type's name of tile type `t` ("f16", ...), or "" for others."""
    e = getattr(t, "element_type", None)
    return e.name if type(e).__name__ == "FloatType" else ""


# accumulator registers per thread up to which chained dots split rows only: past
# it the kernel spills anyway, and ptxas (CUDA 13.0, sm_80) allocates a 256x128
# accumulator over 8 warps of whole rows in 32 registers, spilling 40 KB
ROWS_ONLY_ACC_REGS = 64


def _int_width(t):
    e = getattr(t, "element_type", None)
    return e.width if type(e).__name__ == "IntegerType" else None


def tensor_core_acc(a_type, b_type, c_type, threads: int, rows_only: bool = False):
    """The MmaAcc layout of a dot's (M, N) accumulator when the dot runs on
    tensor cores (mma.sync m16n8k16: f16/bf16 operands of one type, an f32 or
    f16 accumulator, K a multiple of 16, rank 2; m16n8k8: tf32 operands, an f32
    accumulator, K a multiple of 8; m16n8k32: 8-bit integer operands, an i32
    accumulator, or e4m3/e5m2 operands (sm_89 on: fp8 never reaches an
    earlier target) and an f32 one, K a multiple of 32), else None. `rows_only`: the
    warps split the rows only, when they can (a dot whose result becomes
    another dot's A: each warp then holds whole rows, which are its A
    fragments of the next dot, and row reductions stay inside warps), within
    ROWS_ONLY_ACC_REGS."""
    kind = float_kind(a_type)
    if not kind and _int_width(a_type) == 8 and _int_width(b_type) == 8:     # m16n8k32 s8/u8 -> s32
        if _int_width(c_type) != 32 or len(c_type.shape) != 2 or len(a_type.shape) != 2 or a_type.shape[1] % 32:
            return None
        return mma_acc(tuple(c_type.shape), threads)
    if kind in MMA_FP8 and float_kind(b_type) in MMA_FP8:      # m16n8k32 e4m3/e5m2 -> f32 (sm_89 on)
        if float_kind(c_type) != "f32" or len(c_type.shape) != 2 or len(a_type.shape) != 2 or a_type.shape[1] % 32:
            return None
        return mma_acc(tuple(c_type.shape), threads)
    if kind not in MMA_OPERAND_TYPES + ("tf32",) or kind != float_kind(b_type):
        return None
    if float_kind(c_type) not in ("f32", "f16") or len(c_type.shape) != 2 or len(a_type.shape) != 2:
        return None
    if kind == "tf32" and float_kind(c_type) != "f32":
        return None
    if a_type.shape[1] % (8 if kind == "tf32" else 16):    # m16n8k8 for tf32, m16n8k16 otherwise
        return None
    warps = threads // 32
    m, n = c_type.shape
    if rows_only and threads % 32 == 0 and m % (16 * warps) == 0 and n % 8 == 0 \
            and m * n <= ROWS_ONLY_ACC_REGS * threads:
        return MmaAcc(tuple(c_type.shape), threads, warps, 1)
    return mma_acc(tuple(c_type.shape), threads)


def broadcast_axes(src_shape, shape):
    """Per source dimension of a broadcast to `shape`: itself, or -1 where a unit
    dimension is stretched (the `src_of` of linear_layout.register_moves)."""
    return tuple(-1 if n == 1 and m != 1 else i for i, (n, m) in enumerate(zip(src_shape, shape)))


def same_layout_kind(layout, shape, threads):
    """`layout`'s kind for another shape (the same warp grid), or None: where a
    broadcast of a slice of `layout` may land."""
    if isinstance(layout, MmaAcc):
        if len(shape) == 2 and shape[0] % (16 * layout.wm) == 0 and shape[1] % (8 * layout.wn) == 0:
            return MmaAcc(tuple(shape), threads, layout.wm, layout.wn)
        return None
    if isinstance(layout, WgmmaAcc):
        return wgmma_acc(shape, threads)
    if isinstance(layout, TmemAcc):
        return tmem_acc(shape, threads)
    if isinstance(layout, Blocked):
        return blocked(shape, threads)
    return None


def same_distribution(a, b) -> bool:
    """Two blocked layouts that put every linear element on the same (thread, slot):
    a reshape between them moves nothing."""
    if not isinstance(a, Blocked) or not isinstance(b, Blocked):
        return False
    def strip(shape):
        return tuple(d for d in shape if d != 1)
    return strip(a.shape) == strip(b.shape) and a.shape[-1] == b.shape[-1] and a.threads == b.threads


def broadcast_candidates(users, src_layout, shape, threads) -> list:
    """The layouts a broadcast of a tile in `src_layout` to `shape` tries, in
    order: its element-wise users' (`users`), the parent of a slice (or the
    parent's kind for this shape), the group's blocked layout."""
    cands = list(users)
    if isinstance(src_layout, SliceLayout):
        par = src_layout.parent
        if tuple(par.shape) == tuple(shape):
            cands.append(par)
        r = same_layout_kind(par, shape, threads)
        if r is not None:
            cands.append(r)
    cands.append(blocked(tuple(shape), threads))
    return cands
