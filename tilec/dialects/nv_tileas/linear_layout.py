"""Linear layouts: a distributed layout as a map over GF(2) from the bits of
(register slot, lane, warp) to tile coordinates (Triton's linear layouts).

Each input bit has a basis vector of coordinates (one entry per tile
dimension); the coordinates of an index are the XOR of the basis vectors of its
set bits. A zero basis vector means the bit does not move the element: threads
that differ only in such a bit hold copies (broadcast). Every layout of
layouts.py whose extents are powers of two is linear:

- Blocked: slot bits first walk the `vec` contiguous elements of the last
  dimension, then the repetitions (last dimension fastest); thread-index bits
  walk `tpd` last dimension first; the thread bits above the used threads are
  zero (replicas).
- MmaAcc (mma.sync m16n8 accumulator): slot bit 0 is column 1, bit 1 row 8,
  then the fragment grid (columns, then rows); lane bits 0-1 are columns 2 and
  4, lane bits 2-4 rows 1, 2, 4; warp bits walk the wn columns of warps, then
  the wm rows.
- TmemAcc (tcgen05.ld 32x32b): slot bits walk a row's columns, then the thread's
  row blocks; lane bits rows 1 .. 16, warp bits 0-1 rows 32 and 64, the
  warpgroup bits the row blocks, then the column ranges. At M = 64 lane bit 4
  is column N/2 and warp bits 0-1 rows 16 and 32.
- WgmmaAcc (wgmma m64nN accumulator): slot bit 0 is column 1, bit 1 row 8, the
  next bits the 8-column blocks, then the 64-row chunks; lanes as for mma.sync;
  warp bits 0-1 are rows 16 and 32 (the warp's quarter of a 64-row chunk),
  higher warp bits the warpgroup's band of rows.

Lane = thread index mod 32, warp = thread index / 32 (inside the thread group),
as the emitter's prologue computes them (Emitter.bases). `to_linear` returns
None for a layout that is not linear (extents that are not powers of two,
groups that are not whole warps).
"""
from __future__ import annotations

from ...ir.record import frozen

from .layouts import MAX_VEC as _MAX_VEC, Blocked, MmaAcc, SliceLayout, TmemAcc, WgmmaAcc


def _pow2(n) -> bool:
    return isinstance(n, int) and n >= 1 and n & (n - 1) == 0


def _log2(n: int) -> int:
    return n.bit_length() - 1


def _unit(rank: int, d: int, v: int) -> tuple:
    out = [0] * rank
    out[d] = v
    return tuple(out)


@frozen
class LinearLayout:
    """`reg`, `lane`, `warp`: one basis vector (a coordinate tuple) per input bit."""
    shape: tuple
    reg: tuple
    lane: tuple
    warp: tuple

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def nslots(self) -> int:
        return 1 << len(self.reg)

    @staticmethod
    def _xor(bases, index, acc):
        b = 0
        while index:
            if index & 1:
                acc = [a ^ v for a, v in zip(acc, bases[b])]
            index >>= 1
            b += 1
        return acc

    def coords(self, slot: int, lane: int = 0, warp: int = 0) -> tuple:
        acc = [0] * self.rank
        acc = self._xor(self.reg, slot, acc)
        acc = self._xor(self.lane, lane, acc)
        acc = self._xor(self.warp, warp, acc)
        return tuple(acc)

    def thread_coords(self, slot: int, tid: int) -> tuple:
        return self.coords(slot, tid & 31, tid >> 5)

    def bits_into(self, kind: str, d: int) -> list[int]:
        """The bits of `kind` ('reg', 'lane', 'warp') whose basis moves along dimension d."""
        return [i for i, v in enumerate(getattr(self, kind)) if v[d]]

    def free_bits(self, kind: str) -> list[int]:
        """The bits of `kind` with a zero basis (copies)."""
        return [i for i, v in enumerate(getattr(self, kind)) if not any(v)]

    def axis_aligned(self) -> bool:
        """Every basis vector is zero or one power of two along one dimension, and
        no two share a coordinate bit: coordinates are then sums of bases."""
        seen = set()
        for v in self.reg + self.lane + self.warp:
            nz = [(d, x) for d, x in enumerate(v) if x]
            if not nz:
                continue
            if len(nz) > 1 or not _pow2(nz[0][1]) or nz[0] in seen:
                return False
            seen.add(nz[0])
        return True

    def is_surjective(self) -> bool:
        """Every element of the shape is held by some (slot, lane, warp)."""
        need = sum(_log2(s) for s in self.shape)
        return self.axis_aligned() and sum(1 for v in self.reg + self.lane + self.warp if any(v)) == need


def to_linear(layout, shape=None, threads=None) -> LinearLayout | None:
    """The linear layout of `layout` (a Blocked, MmaAcc or WgmmaAcc of `shape` over
    `threads`, both defaulting to the layout's own), or None when it is not linear."""
    shape = tuple(layout.shape if shape is None else shape)
    threads = layout.threads if threads is None else threads
    if tuple(layout.shape) != shape or layout.threads != threads:
        return None
    if isinstance(layout, SliceLayout):
        return _slice_linear(layout)
    if not shape or not all(_pow2(s) for s in shape) or threads < 32 or threads % 32:
        return None
    tid_bits = (threads - 1).bit_length()
    rank = len(shape)
    if isinstance(layout, Blocked):
        if not (_pow2(layout.vec) and all(_pow2(t) for t in layout.tpd) and all(_pow2(r) for r in layout.reps)):
            return None
        reg = [_unit(rank, rank - 1, 1 << b) for b in range(_log2(layout.vec))]
        for d in reversed(range(rank)):
            reg += [_unit(rank, d, layout.step(d) << b) for b in range(_log2(layout.reps[d]))]
        tid = []
        for d in reversed(range(rank)):
            unit = layout.vec if d == rank - 1 else 1
            tid += [_unit(rank, d, unit << b) for b in range(_log2(layout.tpd[d]))]
        if len(tid) > tid_bits:
            return None
        tid += [(0,) * rank] * (tid_bits - len(tid))
        return LinearLayout(shape, tuple(reg), tuple(tid[:5]), tuple(tid[5:]))
    if rank != 2:
        return None
    lane = ((0, 2), (0, 4), (1, 0), (2, 0), (4, 0))
    if isinstance(layout, MmaAcc):
        wm, wn, tm, tn = layout.wm, layout.wn, layout.tiles_m, layout.tiles_n
        if not all(_pow2(x) for x in (wm, wn, tm, tn)) or 32 * wm * wn != threads:
            return None
        reg = [(0, 1), (8, 0)] + [(0, 8 << b) for b in range(_log2(tn))] + \
            [(16 << b, 0) for b in range(_log2(tm))]
        warp = [(0, tn * 8 << b) for b in range(_log2(wn))] + [(tm * 16 << b, 0) for b in range(_log2(wm))]
        return LinearLayout(shape, tuple(reg), lane, tuple(warp))
    if isinstance(layout, WgmmaAcc):
        wgs, tm, regs = layout.warpgroups, layout.tiles_m, layout.regs_per_tile
        if not all(_pow2(x) for x in (wgs, tm, regs)) or regs < 4:
            return None
        reg = [(0, 1), (8, 0)] + [(0, 8 << b) for b in range(_log2(regs) - 2)] + \
            [(64 << b, 0) for b in range(_log2(tm))]
        band = shape[0] // layout.row_groups
        # warpgroup g = band * col_groups + column group: its low bits pick the columns
        warp = [(16, 0), (32, 0)] + [(0, layout.n_per << b) for b in range(_log2(layout.col_groups))] + \
            [(band << b, 0) for b in range(_log2(layout.row_groups))]
        return LinearLayout(shape, tuple(reg), lane, tuple(warp))
    if isinstance(layout, TmemAcc):
        gr, gc, blocks = layout.row_groups, layout.col_groups, layout.blocks
        if not all(_pow2(x) for x in (gr, gc, blocks, layout.cols)):
            return None
        reg = [(0, 1 << b) for b in range(_log2(layout.cols))] + [(128 * gr << b, 0) for b in range(_log2(blocks))]
        if layout.half:
            lanes = tuple((1 << b, 0) for b in range(4)) + ((0, shape[1] // 2),)
            warp = [(16, 0), (32, 0)]
        else:
            lanes = tuple((1 << b, 0) for b in range(5))
            warp = [(32, 0), (64, 0)]
        warp += [(128 << b, 0) for b in range(_log2(gr) if not layout.half else 0)] + \
            [(0, layout.cols << b) for b in range(_log2(gc))]
        return LinearLayout(shape, tuple(reg), lanes, tuple(warp))
    return None


def _project(v, axes):
    return tuple(v[a] if a >= 0 else 0 for a in axes)


def _slice_linear(layout) -> LinearLayout | None:
    """A SliceLayout's map: the parent's bases projected on `axes`; the slot bits
    moving along dropped dimensions are not slots of the slice (its slots are the
    parent's at coordinate 0 there, in order), thread bits moving only along
    them become copies."""
    p = to_linear(layout.parent)
    if p is None:
        return None
    kept = {a for a in layout.axes if a >= 0}
    dropped = [d for d in range(p.rank) if d not in kept]
    reg = tuple(_project(v, layout.axes) for v in p.reg if not any(v[d] for d in dropped))
    return LinearLayout(tuple(layout.shape), reg, tuple(_project(v, layout.axes) for v in p.lane),
                        tuple(_project(v, layout.axes) for v in p.warp))


_MOVES: dict = {}


def register_moves(src, dst, src_of=None):
    """How a tile in layout `dst` is read from one in layout `src` without
    moving data between threads: a tuple giving, per slot of `dst`, the slot of
    `src` that holds the same element in the same thread; None when some thread
    would need another thread's element (or a layout is not linear).

    `src_of[i]` is the dst dimension whose coordinate is src coordinate i, or
    -1 for a unit src dimension broadcast along dst (coordinate 0); the default
    is the identity (same shape). From the linear maps: every thread bit of
    dst, projected, must equal src's (so each thread's elements agree, copies
    included), and each dst slot's projected coordinates must be a src slot's."""
    key = (src, dst, None if src_of is None else tuple(src_of))
    got = _MOVES.get(key, False)
    if got is not False:
        return got
    _MOVES[key] = out = _register_moves(src, dst, src_of)
    return out


def _register_moves(src, dst, src_of):
    if src.threads != dst.threads:
        return None
    ls, ld = to_linear(src), to_linear(dst)
    if ls is None or ld is None or not ls.axis_aligned() or not ld.axis_aligned():
        return None
    if ls.nslots != src.nslots or ld.nslots != dst.nslots:
        return None
    if src_of is None:
        if tuple(src.shape) != tuple(dst.shape):
            return None
        src_of = tuple(range(len(dst.shape)))
    proj = lambda v: _project(v, src_of)    # noqa: E731 - dst coordinates -> src coordinates
    if len(ls.lane) != len(ld.lane) or len(ls.warp) != len(ld.warp):
        return None
    if any(proj(a) != b for a, b in zip(ld.lane + ld.warp, ls.lane + ls.warp)):
        return None
    where = {}
    for s in range(ls.nslots):
        where.setdefault(ls.coords(s), s)
    out = []
    for s in range(ld.nslots):
        got = where.get(proj(ld.coords(s)))
        if got is None:
            return None
        out.append(got)
    return tuple(out)


# ---- slice layouts (layouts.SliceLayout) ------------------------------------------------------

def _run_length(offsets, nslots: int, rank: int) -> int:
    vec = 1
    while vec < _MAX_VEC and nslots % (vec * 2) == 0:
        v = vec * 2
        ok = all(offsets[s][-1] % v == 0 and all(
            offsets[s + k] == offsets[s][:-1] + (offsets[s][-1] + k,) for k in range(v))
            for s in range(0, nslots, v))
        if not ok:
            break
        vec = v
    return vec if rank else 1


def slice_layout(parent, axes, shape):
    """The SliceLayout of `parent` (Blocked, MmaAcc, WgmmaAcc or a SliceLayout,
    which is flattened into its own parent) seen as a tile of `shape` through
    `axes` (see SliceLayout), or None when the parent is not linear or the
    axes do not fit the shapes."""
    shape, axes = tuple(shape), tuple(axes)
    if isinstance(parent, SliceLayout):
        axes = tuple(parent.axes[a] if a >= 0 else -1 for a in axes)
        parent = parent.parent
    if len(axes) != len(shape) or any(a >= parent.rank for a in axes):
        return None
    kept = [a for a in axes if a >= 0]
    if len(set(kept)) != len(kept):
        return None
    for n, a in zip(shape, axes):
        if (a < 0 and n != 1) or (a >= 0 and n != parent.shape[a]):
            return None
    lin = to_linear(parent)
    if lin is None or not lin.axis_aligned() or lin.nslots != parent.nslots:
        return None
    dropped = [d for d in range(parent.rank) if d not in kept]
    slots = tuple(s for s in range(parent.nslots)
                  if all(parent.offsets(s)[d] == 0 for d in dropped))
    copy_mask = 0
    for i, v in enumerate(lin.lane + lin.warp):
        if not any(v[a] for a in kept):
            copy_mask |= 1 << i
    replicas = 1 << bin(copy_mask & (parent.threads - 1)).count("1")
    offs = [tuple(parent.offsets(s)[a] if a >= 0 else 0 for a in axes) for s in slots]
    return SliceLayout(parent, axes, shape, slots, _run_length(offs, len(slots), len(shape)), replicas, copy_mask)


def reduced_layout(parent, dim: int, shape):
    """The layout of reducing dimension `dim` of a tile in `parent` to a tile of
    `shape` (the parent's shape without `dim`), or None (see slice_layout)."""
    return slice_layout(parent, tuple(a for a in range(parent.rank) if a != dim), shape)


def relabel(layout, shape):
    """`layout` seen as a tile of `shape`, which has the same dimensions but for
    unit ones (a reshape that inserts or removes them), without moving any
    element; None when the shapes differ otherwise or the layout is not linear."""
    shape = tuple(shape)
    old = tuple(layout.shape)
    if [n for n in old if n != 1] != [n for n in shape if n != 1]:
        return None
    src_axes = layout.axes if isinstance(layout, SliceLayout) else tuple(range(layout.rank))
    big = iter(a for a, n in zip(src_axes, old) if n != 1)
    axes = tuple(next(big) if n != 1 else -1 for n in shape)
    return slice_layout(layout.parent if isinstance(layout, SliceLayout) else layout, axes, shape)
