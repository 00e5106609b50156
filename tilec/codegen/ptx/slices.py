"""Layout changes that move no data between threads: slice layouts.

A reduce over a linear layout leaves its result in the SliceLayout of its
operand's layout (layouts.py): each thread keeps the values of the coordinates
it held. Reshapes that insert or remove unit dimensions relabel a layout
(layouts.relabel), broadcasting a slice back to the shape of its parent (or
of any layout whose slice it is) copies registers, and element-wise ops run in
a layout every operand reaches that way. Which moves are free is derived from
the linear maps (linear_layout.register_moves): a layout change is a register
relabel when every thread already holds each element the target gives it.
Everything else goes through shared memory (Emitter.remap).
"""
from __future__ import annotations

from ...dialects.nv_tileas.layouts import SliceLayout, broadcast_axes, broadcast_candidates
from ...dialects.nv_tileas.linear_layout import register_moves, slice_layout
from .values import Tile


def _picked(tile: Tile, shape, layout, moves, origin=None) -> Tile:
    return Tile(tile.etype, shape, layout, [tile.regs[m] for m in moves], tile.home if origin is None else None,
                origin)


def moved(em, tile: Tile, layout) -> Tile | None:
    """`tile` in `layout` without shared memory (a broadcast: its source into the
    slice of `layout`, which may go through a buffer of the source's size), or None."""
    if tile.origin is not None:
        got = broadcast_into(em, tile.origin, tile.shape, layout)
        if got is not None:
            return got
    if tile.layout is None or layout is None:
        return None
    moves = register_moves(tile.layout, layout)
    return None if moves is None else _picked(tile, tile.shape, layout, moves)


def broadcast_into(em, src: Tile, shape, layout, convert: bool = True) -> Tile | None:
    """The broadcast of `src` (same rank, unit dimensions stretched to `shape`)
    in `layout`: register copies when each thread holds the source elements
    its slots need; with `convert`, else the source moved first into the slice
    of `layout` that holds them (a buffer of the source's size, not the
    result's). None when neither works (a layout that is not linear)."""
    shape = tuple(shape)
    if layout is None or layout.threads != em.group.threads or tuple(layout.shape) != shape:
        return None
    if src.splat:
        return Tile(src.etype, shape, layout, [src.reg] * layout.nslots, None, src)
    src_of = broadcast_axes(src.shape, shape)
    origin = src
    moves = register_moves(src.layout, layout, src_of) if src.regs is not None else None
    if moves is None and src.backed:
        # in shared memory: read into the slice (the origin, read again for another layout)
        part = slice_layout(layout, src_of, src.shape)
        src = em.load_in(src, part) if part is not None else em.regs_of(src)
    moves = register_moves(src.layout, layout, src_of)
    if moves is not None:
        return _picked(src, shape, layout, moves, origin)
    if not convert:
        return None
    part = slice_layout(layout, src_of, src.shape)
    if part is None:
        return None
    near = em.in_layout(src, part)
    moves = register_moves(part, layout, src_of)
    return None if moves is None else _picked(near, shape, layout, moves, origin)


def reaches(tile: Tile, layout) -> bool:
    """Whether `tile` is available in `layout` without moving data between threads."""
    if tile.splat or tile.layout == layout:
        return True
    if tile.origin is not None:
        o = tile.origin
        if o.splat or register_moves(o.layout, layout, broadcast_axes(o.shape, tile.shape)) is not None:
            return True
    return register_moves(tile.layout, layout) is not None


def common_layout(tiles):
    """The layout element-wise ops over `tiles` run in: the first operand layout
    that every operand reaches without moving data, else the first slice layout
    (where a reduce left its result: it broadcasts back for free), else the
    first one."""
    layouts = []
    for t in tiles:
        if not t.splat and t.layout not in layouts:
            layouts.append(t.layout)
    if len(layouts) < 2:
        return layouts[0] if layouts else None
    for lay in layouts:
        if all(reaches(t, lay) for t in tiles):
            return lay
    return next((lay for lay in layouts if isinstance(lay, SliceLayout)), layouts[0])


def _user_layouts(em, op, shape):
    """Layouts of the operands, already emitted, of the element-wise users of `op`'s result."""
    out = []
    res = op.results[0]
    for use in res.uses:
        user = use.owner
        if len(user.results) != 1 or tuple(getattr(user.results[0].type, "shape", ())) != shape:
            continue
        for v in user.operands:
            if v is res:
                continue
            t = em.env.get(v)
            if (isinstance(t, Tile) and not t.splat and t.regs is not None and t.shape == shape
                    and t.layout.threads == em.group.threads and t.layout not in out):
                out.append(t.layout)
    return out


def broadcast(em, op, src: Tile, shape) -> Tile | None:
    """cuda_tile.broadcast of a distributed `src` without moving the result
    through shared memory: in the layout of the operands its users combine it
    with (copies, or the source moved into their slice), else in the layout
    whose slice the source is (its parent, or the parent's kind for this
    shape) when that is copies only. None: no such layout."""
    users = _user_layouts(em, op, shape)
    cands = broadcast_candidates(users, src.layout, shape, em.group.threads)
    for c in cands:
        got = broadcast_into(em, src, shape, c, convert=False)
        if got is not None:
            return got
    for c in users:
        got = broadcast_into(em, src, shape, c)
        if got is not None:
            return got
    return None
