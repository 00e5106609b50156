"""The attribute that names a layout in the IR: `#nv_tileas<layout ...>` (on
nv_tileas.convert_layout, and per result in `nv_tileas.layouts`), and the
concrete layout (layouts.py) it stands for in a thread group."""
from __future__ import annotations

from ...ir.attributes import DialectAttr
from .layouts import MmaAcc, SliceLayout, TmemAcc, WgmmaAcc, blocked, tmem_acc, wgmma_acc
from .linear_layout import slice_layout


class LayoutAttr(DialectAttr):
    """The layout of a tile value in scheduled IR (on nv_tileas.convert_layout,
    and per result in the `nv_tileas.layouts` attribute the layout-propagation
    pass writes):
    `#nv_tileas<layout blocked>`: the group's blocked layout of the tile's
    shape (it depends on nothing else);
    `#nv_tileas<layout mma, warps = [wm, wn]>`: the mma.sync accumulator
    layout over a wm x wn grid of warps;
    `#nv_tileas<layout wgmma>`: the accumulator of wgmma.mma_async (sm_90a),
    64-row chunks per warpgroup (WgmmaAcc: it depends on the shape and the
    group only);
    `#nv_tileas<layout slice, axes = [0, -1], parent = [128, 64] wgmma>`: the
    SliceLayout of that parent layout of that shape (a reduction's result, a
    unit reshape of one): each thread keeps the values of the coordinates it
    held; `axes` names the parent dimension of each dimension (-1: a new unit
    one);
    `#nv_tileas<layout splat>`: every element is the same value, one register
    in every thread (it reads as any layout for free);
    `#nv_tileas<layout shared>`: the tile sits in shared memory, row-major, its
    16-byte chunks XOR-swizzled by the rows' pitch (the swizzle the tensor
    cores read: 32, 64 or 128 bytes, 128-byte panels past that), where a dot
    reads it in place (ldmatrix, wgmma descriptors) however often it runs; a
    pipeline slot and the views of one are shared too;
    `#nv_tileas<layout none>`: a result that is not a distributed tile (a
    scalar, a token, a view).
    Parsed through `#nv_tileas<...>` (AtomAttr.parse_body hands `layout` here)."""
    __slots__ = ("kind", "warps", "axes", "parent", "parent_shape")
    dialect, mnemonic = "nv_tileas", ""
    description = "layout"
    KINDS = ("blocked", "mma", "wgmma", "tmem", "slice", "splat", "shared", "none")
    PARENTS = ("blocked", "mma", "wgmma", "tmem")

    def __init__(self, kind: str, warps: tuple | None = None, axes: tuple | None = None, parent=None,
                 parent_shape: tuple | None = None):
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "warps", None if warps is None else tuple(warps))
        object.__setattr__(self, "axes", None if axes is None else tuple(axes))
        object.__setattr__(self, "parent", parent)
        object.__setattr__(self, "parent_shape", None if parent_shape is None else tuple(parent_shape))

    def _key(self):
        return (self.kind, self.warps, self.axes, self.parent, self.parent_shape)

    def __eq__(self, other):
        return isinstance(other, LayoutAttr) and self._key() == other._key()

    def __hash__(self):
        return hash(("layout",) + self._key())

    @classmethod
    def of(cls, layout):
        """The attribute naming concrete `layout` (Blocked, MmaAcc, WgmmaAcc or SliceLayout)."""
        if isinstance(layout, MmaAcc):
            return cls("mma", (layout.wm, layout.wn))
        if isinstance(layout, WgmmaAcc):
            return cls("wgmma")
        if isinstance(layout, TmemAcc):
            return cls("tmem")
        if isinstance(layout, SliceLayout):
            return cls("slice", axes=layout.axes, parent=cls.of(layout.parent),
                       parent_shape=tuple(layout.parent.shape))
        return cls("blocked")

    @property
    def distributed(self) -> bool:
        """Whether the tile is spread over registers (not splat, shared or none)."""
        return self.kind in ("blocked", "mma", "wgmma", "tmem", "slice")

    def layout_for(self, shape, threads: int):
        """The concrete layout for a tile of `shape` in a group of `threads`, or
        None when this one does not fit them (the warp grid needs other warps)
        or is not a register layout (shared, splat, none)."""
        if self.kind in ("shared", "splat", "none"):
            return None
        if self.kind == "slice":
            parent = self.parent.layout_for(self.parent_shape, threads)
            return None if parent is None else slice_layout(parent, self.axes, shape)
        if self.kind == "wgmma":
            return wgmma_acc(tuple(shape), threads)
        if self.kind == "tmem":
            return tmem_acc(tuple(shape), threads)
        if self.kind == "blocked":
            return blocked(shape, threads)
        wm, wn = self.warps
        m, n = shape
        if len(shape) != 2 or 32 * wm * wn != threads or m % (16 * wm) or n % (8 * wn):
            return None
        return MmaAcc(tuple(shape), threads, wm, wn)

    def _kind_text(self):
        body = self.kind
        if self.warps is not None:
            body += ", warps = [" + ", ".join(map(str, self.warps)) + "]"
        return body

    def text(self, short=False):
        body = "layout "
        if self.kind == "slice":
            body += (f"slice, axes = [{', '.join(map(str, self.axes))}], "
                     f"parent = [{', '.join(map(str, self.parent_shape))}] {self.parent._kind_text()}")
        else:
            body += self._kind_text()
        return f"#nv_tileas<{body}>"

    @classmethod
    def _parse_kind(cls, r, kinds):
        kind = r.keyword()
        if kind not in kinds:
            r.error(f"unknown layout '{kind}' (expected {', '.join(kinds[:-1])} or {kinds[-1]})")
        warps = None
        if kind == "mma":
            if not r.accept(",") or r.keyword() != "warps":
                r.error("expected ', warps = [wm, wn]' after 'layout mma'")
            r.expect("=")
            warps = r.int_list()
            if len(warps) != 2 or min(warps) < 1:
                r.error("expected two positive warp counts in 'warps'")
        return kind, warps

    @classmethod
    def parse_rest(cls, r):
        """After `#nv_tileas<layout`: the kind and, for mma, its warp grid; for
        slice, its axes and parent."""
        kind, warps = cls._parse_kind(r, cls.KINDS)
        if kind != "slice":
            return cls(kind, warps)
        if not r.accept(",") or r.keyword() != "axes":
            r.error("expected ', axes = [...]' after 'layout slice'")
        r.expect("=")
        axes = r.int_list()
        if not r.accept(",") or r.keyword() != "parent":
            r.error("expected ', parent = [shape] kind' after the slice's axes")
        r.expect("=")
        pshape = r.int_list()
        pkind, pwarps = cls._parse_kind(r, cls.PARENTS)
        if any(a < -1 or a >= len(pshape) for a in axes):
            r.error(f"slice axes must name dimensions of the parent's rank-{len(pshape)} shape (or -1)")
        return cls("slice", axes=axes, parent=cls(pkind, pwarps), parent_shape=pshape)


# ---- `nv_tileas.layouts` wherever it appears --------------------------------------------------
LAYOUTS = "nv_tileas.layouts"
CARRIED_LAYOUTS = "nv_tileas.carried_layouts"    # scf.while: its before-region arguments


def layout_fits(e: LayoutAttr, shape) -> str:
    """Why layout `e` cannot be a tile of `shape`'s ("" when it can)."""
    if e.kind == "none":
        return ""
    if not shape:
        return f"is not a tile with a shape, but its layout is '{e.kind}'"
    if e.kind == "mma":
        wm, wn = e.warps
        if len(shape) != 2 or shape[0] % (16 * wm) or shape[1] % (8 * wn):
            return f"has shape {'x'.join(map(str, shape))}, which the mma layout's {wm}x{wn} warps do not tile"
    if e.kind == "wgmma" and (len(shape) != 2 or shape[0] % 64 or shape[1] % 8 or shape[1] > 256):
        return f"has shape {'x'.join(map(str, shape))}, which is not a wgmma accumulator (M a multiple of 64, " \
               f"N a multiple of 8 up to 256)"
    if e.kind == "tmem" and (len(shape) != 2 or (shape[0] % 128 and shape[0] != 64) or shape[1] % 16
                             or shape[1] > (512 if shape[0] == 64 else 256)):
        return f"has shape {'x'.join(map(str, shape))}, which is not a tcgen05 accumulator (M 64 or a multiple " \
               f"of 128, N a multiple of 16 up to 256)"
    if e.kind == "slice":
        kept = [a for a in e.axes if a >= 0]
        ok = len(e.axes) == len(shape) and len(set(kept)) == len(kept) and all(
            (n == 1) if a < 0 else (n == e.parent_shape[a]) for n, a in zip(shape, e.axes))
        if not ok:
            return f"has shape {'x'.join(map(str, shape))}, which is not the slice {list(e.axes)} of its " \
                   f"parent's {'x'.join(map(str, e.parent_shape))}"
        return layout_fits(e.parent, e.parent_shape)
    return ""


def _check_layouts(op, attr, name, values) -> bool:
    from ...ir.diagnostics import current_engine
    elems = getattr(attr, "elements", None)
    problem = ""
    if elems is None or not all(isinstance(e, LayoutAttr) for e in elems):
        problem = f"'{name}' must be an array of '#nv_tileas<layout ...>' attributes"
    elif len(elems) != len(values):
        problem = f"'{name}' names {len(elems)} layouts, but there are {len(values)} values"
    else:
        for i, (e, v) in enumerate(zip(elems, values)):
            why = layout_fits(e, tuple(getattr(v.type, "shape", ()) or ()))
            if why:
                problem = f"'{name}' #{i} " + why
                break
    if problem:
        current_engine().error(op.location, f"'{op.name}' op {problem}")
        return False
    return True


def verify_layouts(op, attr) -> bool:
    """One layout per result, each one a tile of the result's shape may have."""
    return _check_layouts(op, attr, LAYOUTS, op.results)


def verify_carried_layouts(op, attr) -> bool:
    blocks = op.regions[0].blocks if op.regions else []
    return _check_layouts(op, attr, CARRIED_LAYOUTS, blocks[0].arguments if blocks else [])


def _register():
    from ...ir import registry
    registry.register_attr_verifier(LAYOUTS, verify_layouts)
    registry.register_attr_verifier(CARRIED_LAYOUTS, verify_carried_layouts)


_register()
