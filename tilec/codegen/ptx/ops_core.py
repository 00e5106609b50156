"""Core ops: constants, iota, block ids, shape ops (broadcast, reshape, permute,
extract, cat), assume, tokens, pointer offsets and globals."""
from __future__ import annotations

from .emitter import handles
from ...dialects.nv_tileas.layouts import Blocked, linear_offsets, same_distribution
from ...dialects.nv_tileas.linear_layout import relabel, slice_layout
from .ptxtypes import B32, B64, PRED, bits, byte_size, reg_class
from .values import Tile


@handles("cuda_tile.constant")
def _constant(em, op):
    t = op.results[0].type
    attr = op.attributes["value"]
    if attr.splat and (isinstance(attr.values[0], int) or t.element_type.name in ("f16", "f32", "f64")):
        # the common case, without NumPy (whose import costs more than emitting a kernel)
        out = em.splat_const(t.element_type, attr.values[0])
        out.shape = tuple(t.shape)
        em.bind(op.results[0], out)
        return
    import numpy as np
    from ...interp.ops_core import dense_array
    arr = dense_array(attr, t.element_type, t.shape)
    flat = arr.reshape(-1)
    if flat.size == 0 or np.all(flat == flat[0]) or (flat.dtype.kind == "f" and np.all(np.isnan(flat))):
        out = em.splat_const(t.element_type, flat[0].item() if flat.size else 0)
        out.shape = tuple(t.shape)
        em.bind(op.results[0], out)
        return
    em.bind(op.results[0], em.const_table(arr, t))


@handles("cuda_tile.iota")
def _iota(em, op):
    t = op.results[0].type
    from .ir_layouts import layout_of
    layout = layout_of(em, op.results[0], t.shape) or em.layout_for(t.shape)   # any layout: coordinates
    base = em.bases(layout)[0]
    out = em.new_tile(t.element_type, t.shape, layout)
    for s, r in enumerate(out.regs):
        off = layout.offsets(s)[0]
        if bits(t.element_type) == 64:
            em.kb.emit(f"cvt.u64.u32 \t{r}, {base}")
            em.kb.emit(f"add.s64 \t{r}, {r}, {off}")
        else:
            em.kb.emit(f"add.s32 \t{r}, {base}, {off}")
    em.bind(op.results[0], out)


@handles("cuda_tile.get_tile_block_id", "cuda_tile.get_num_tile_blocks")
def _block_ids(em, op):
    sreg = "%ctaid" if op.name.endswith("block_id") else "%nctaid"
    for r, axis in zip(op.results, "xyz"):
        t = em.new_tile(r.type.element_type, ())
        em.kb.emit(f"mov.u32 \t{t.reg}, {sreg}.{axis}")
        em.bind(r, t)


@handles("cuda_tile.assume")
def _assume(em, op):
    em.bind(op.results[0], em.get(op.operands[0]))


@handles("cuda_tile.make_token", "cuda_tile.join_tokens", "nv_tileas.create_none")
def _token(em, op):
    for r in op.results:
        em.bind(r, None)


def _reshaped(tile, shape, layout):
    return Tile(tile.etype, shape, layout, tile.regs, tile.home)


@handles("nv_tileas.convert_layout")
def _convert_layout(em, op):
    """Into the named layout when it fits this group (its warp grid may be for
    another agent's group); else the tile stays where it is: a layout never
    changes a value, and every op converts what it needs."""
    from ...dialects.nv_tileas.layout_attr import LayoutAttr
    tile = em.get(op.source)
    lay = op.attributes.get("layout")
    if isinstance(tile, Tile) and isinstance(lay, LayoutAttr) and lay.kind == "shared":
        em.bind(op.results[0], _into_shared(em, op, tile))
        return
    if isinstance(tile, Tile) and isinstance(lay, LayoutAttr) and tile.shape:
        from .ops_dot import named_layout
        target = named_layout(em, op, tile.shape)
        if target is not None:
            tile = em.in_layout(em.regs_of(tile), target)
    em.bind(op.results[0], tile)


def unit_reshape(shape, coeffs, new_shape):
    """The coefficients of `new_shape` when reshaping `shape` (with `coeffs`)
    only drops or inserts unit dimensions, else None."""
    kept = [c for n, c in zip(shape, coeffs) if n != 1]
    if [n for n in shape if n != 1] != [n for n in new_shape if n != 1]:
        return None
    it = iter(kept)
    return [0 if n == 1 else next(it) for n in new_shape]


def _in_shared_only(x) -> bool:
    """A tile that so far sits only in shared memory (a pipeline slot, a tile in
    a shared layout): reshapes and permutations of it are views, not loads."""
    return isinstance(x, Tile) and x.regs is None and (x.home is not None or x.view is not None)


def _into_shared(em, op, tile):
    """The tile in a shared buffer of its own (`#nv_tileas<layout shared>`):
    row-major, swizzled when its rows suit the tensor cores, 1024-aligned (the
    swizzle pattern wgmma reads), live while the result or a view of it is
    used. Written through the generic proxy and fenced for wgmma's async-proxy
    reads; the barrier before the write guards a previous iteration's readers
    (none outside loops: Emitter.guard_write)."""
    from .ops_memory import live_span
    from .swizzle import Swizzle
    if tile.splat or not tile.shape or (tile.regs is None and tile.home is not None and tile.view is None
                                        and tile.home in em.swizzle_of):
        return tile
    n = byte_size(tile.etype)
    for d in tile.shape:
        n *= d
    kb = em.kb
    sym = kb.shared_buffer(n, 1024, "shared_tile", span=live_span(op, through_tiles=True))
    base = em.addr_of(sym)
    if len(tile.shape) == 2 and byte_size(tile.etype) == 2:
        swz = Swizzle.for_rows(2 * tile.shape[1], tile.shape[0])
        if swz is not None:
            em.swizzle_of[base] = swz
    src = em.regs_of(tile)
    em.guard_write([sym])
    em.store_shared(src, base, linear_offsets(tile.shape))
    if em.target.hopper:
        kb.emit("fence.proxy.async.shared::cta")
    em.sync()
    return Tile(tile.etype, tile.shape, em.layout_for(tile.shape), None, base)


@handles("cuda_tile.reshape")
def _reshape(em, op):
    shape = tuple(op.results[0].type.shape)
    x = em.get(op.operands[0])
    if _in_shared_only(x):
        seen = _shared_reshape(x, shape, em.layout_for(shape))
        if seen is not None:
            em.bind(op.results[0], seen)
            return
    src = em.tile(op.operands[0])
    if src.splat:
        em.bind(op.results[0], _reshaped(src, shape, None))
        return
    layout = em.layout_for(shape)
    if same_distribution(src.layout, layout):
        em.bind(op.results[0], _reshaped(src, shape, layout))
        return
    if not isinstance(src.layout, Blocked):      # unit dimensions in or out: the same registers
        rel = relabel(src.layout, shape)
        if rel is not None:
            em.bind(op.results[0], _reshaped(src, shape, rel))
            return
    seen = _shared_reshape(x, shape, layout) if x.backed else None
    if seen is not None:        # read its shared copy again, here, rather than move registers
        em.bind(op.results[0], em.regs_of(seen))
        return
    em.bind(op.results[0], em.remap(src, shape, layout, linear_offsets(shape)))


def _shared_reshape(x, shape, layout):
    """Tile `x`, in shared memory, seen as `shape` (registers not loaded), or
    None for a permuted view whose reshape is more than unit dimensions."""
    if x.home is not None:          # row-major order is the reshape's order
        return Tile(x.etype, shape, layout, None, x.home)
    coeffs = unit_reshape(x.shape, x.view[1], shape)
    return None if coeffs is None else Tile(x.etype, shape, layout, None, view=(x.view[0], coeffs))


@handles("cuda_tile.broadcast")
def _broadcast(em, op):
    shape = tuple(op.results[0].type.shape)
    from .ir_layouts import layout_of
    from .slices import broadcast, broadcast_into
    want = layout_of(em, op.results[0], shape)
    x = em.get(op.operands[0])
    # a source still in shared memory is read straight into the slice `want` needs
    src = x if want is not None and isinstance(x, Tile) and x.backed else em.tile(op.operands[0])
    if src.splat:
        em.bind(op.results[0], _reshaped(src, shape, None))
        return
    got = broadcast_into(em, src, shape, want) if want is not None else broadcast(em, op, src, shape)
    if got is not None:
        em.bind(op.results[0], got)
        return
    strides = linear_offsets(src.shape)
    coeffs = [0 if n == 1 else s for n, s in zip(src.shape, strides)]
    out = em.remap(src, shape, want or em.layout_for(shape), coeffs)
    out.origin = src
    em.bind(op.results[0], out)


def _tensor_core_operand_only(op, src) -> bool:
    """A 16-bit rank-2 transpose whose every use is the A or B of a rank-2 dot:
    the dot stages `src` as it is and reads it transposed (ops_dot._mma_dot), so
    moving it between threads first would be a wasted trip through shared memory."""
    if len(src.shape) != 2 or byte_size(src.etype) != 2 or src.splat:
        return False
    uses = [(u.owner, u.index) for u in op.results[0].uses]
    return bool(uses) and all(o.name == "nv_tileas.dot" and i < 2 and len(o.results[0].type.shape) == 2
                              for o, i in uses)


@handles("cuda_tile.permute", "nv_tileas.shuffle")
def _permute(em, op):
    shape = tuple(op.results[0].type.shape)
    perm = list(op.attributes["permutation"].values)
    x = em.get(op.operands[0])
    if _in_shared_only(x):                            # a view: read through permuted strides when needed
        base, strides = x.view or (x.home, linear_offsets(x.shape))
        em.bind(op.results[0], Tile(x.etype, shape, em.layout_for(shape), None,
                                    view=(base, [strides[p] for p in perm])))
        return
    src = em.tile(op.operands[0])
    if src.splat:
        em.bind(op.results[0], _reshaped(src, shape, None))
        return
    from .ir_layouts import layout_of
    want = layout_of(em, op.results[0], shape)
    if perm == [1, 0] and _tensor_core_operand_only(op, src):
        em.bind(op.results[0], Tile(src.etype, shape, want or em.layout_for(shape), None, transpose_of=src))
        return
    if want is not None and src.layout is not None and src.layout.threads == em.group.threads:
        moved = slice_layout(src.layout, perm, shape)   # the same registers, the dimensions permuted
        if moved is not None and moved == want:
            em.bind(op.results[0], Tile(src.etype, shape, moved, src.regs))
            return
    strides = linear_offsets(src.shape)
    em.bind(op.results[0], em.remap(src, shape, want or em.layout_for(shape), [strides[p] for p in perm]))


@handles("cuda_tile.extract")
def _extract(em, op):
    src = em.tile(op.operands[0])
    shape = tuple(op.results[0].type.shape)
    if src.splat:
        em.bind(op.results[0], _reshaped(src, shape, None))
        return
    kb = em.kb
    strides = linear_offsets(src.shape)
    extra = kb.reg(B32)
    kb.emit(f"mov.u32 \t{extra}, 0")
    for v, n, s in zip(op.operands[1:], shape, strides):
        idx = em.tile(v).reg
        nxt = kb.reg(B32)
        kb.emit(f"mad.lo.u32 \t{nxt}, {idx}, {n * s}, {extra}")
        extra = nxt
    em.bind(op.results[0], em.remap(src, shape, em.layout_for(shape), strides, extra_reg=extra))


@handles("cuda_tile.cat")
def _cat(em, op):
    a, b = em.tile(op.operands[0]), em.tile(op.operands[1])
    shape = tuple(op.results[0].type.shape)
    dim = op.attributes["dim"].value
    strides = linear_offsets(shape)
    n = 1
    for d in shape:
        n *= d
    sym = em.scratch(n * byte_size(a.etype))
    base = em.addr_of(sym)
    em.sync()
    em.store_shared(a, base, strides)
    em.store_shared(b, base, strides, extra=a.shape[dim] * strides[dim])
    em.sync()
    em.bind(op.results[0], em.load_shared(a.etype, shape, em.layout_for(shape), base, strides))


@handles("cuda_tile.offset")
def _offset(em, op):
    from .ops_elementwise import apply
    pointee = op.operands[0].type.element_type.pointee
    size = byte_size(pointee)
    off_t = op.operands[1].type.element_type
    kb = em.kb

    def fn(d, p, o):
        t = kb.reg(B64)
        if reg_class(off_t) == PRED:
            o2 = kb.reg(B32)
            kb.emit(f"selp.s32 \t{o2}, -1, 0, {o}")
            o = o2
        if bits(off_t) == 64:
            kb.emit(f"mul.lo.s64 \t{t}, {o}, {size}")
        else:
            kb.emit(f"mul.wide.s32 \t{t}, {o}, {size}")
        kb.emit(f"add.s64 \t{d}, {p}, {t}")
    apply(em, op, fn)


@handles("cuda_tile.get_global")
def _get_global(em, op):
    name = op.attributes["name"].root
    t = em.new_tile(op.results[0].type.element_type, ())
    em.kb.emit(f"mov.u64 \t{t.reg}, {em.global_symbol(name)}")
    em.bind(op.results[0], t)
