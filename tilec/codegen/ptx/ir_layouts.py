"""The layouts the IR names (schedule/propagate_layouts.py), as the emitter
reads them: every op's results, and the registers a loop carries.

The emitter makes each value in its IR layout: loop-carried registers are
created in it, element-wise ops and broadcasts compute in it, and where a
handler produced another layout the value is converted after the op
(`follow`, counted in `Emitter.layout_repairs`: the rules agree, so this is a
safety net, not a path any example takes)."""
from __future__ import annotations

from ...dialects.nv_tileas.layout_attr import CARRIED_LAYOUTS as WHILE_CARRIED, LAYOUTS as ATTR, LayoutAttr
from .values import Tile


def attr_of(v):
    """The LayoutAttr the IR gives value `v` (an op result, or the block
    argument of a loop's carried registers), or None."""
    op = getattr(v, "op", None)
    if op is not None:
        arr = op.attributes.get(ATTR)
        idx = next(i for i, r in enumerate(op.results) if r is v)
    else:
        block = getattr(v, "block", None)
        owner = getattr(block, "parent_op", None)
        if owner is None:
            return None
        idx = next(i for i, a in enumerate(block.arguments) if a is v)
        if owner.name in ("scf.for", "cuda_tile.for") and block is owner.regions[0].blocks[0]:
            arr, idx = owner.attributes.get(ATTR), idx - 1
        elif owner.name == "scf.while" and block is owner.regions[0].blocks[0]:
            arr = owner.attributes.get(WHILE_CARRIED)
        else:
            return None
    vals = getattr(arr, "elements", None)
    if vals is None or not 0 <= idx < len(vals) or not isinstance(vals[idx], LayoutAttr):
        return None
    return vals[idx]


def layout_of(em, v, shape):
    """The concrete register layout the IR gives `v` in the current group, or
    None (no layout named, not a register layout, or not one for this group)."""
    a = attr_of(v)
    if a is None or not a.distributed or not shape:
        return None
    if "wgmma" in (a.kind, getattr(a.parent, "kind", None)) and not em.wgmma:
        return None     # IR scheduled for wgmma, emitted without it
    got = a.layout_for(tuple(shape), em.group.threads)
    if got is None or got.threads != em.group.threads or tuple(got.shape) != tuple(shape):
        return None
    return got


def follow(em, op):
    """After `op`'s handler: each result that is a register tile in another
    layout than the IR's is converted into it."""
    for r in op.results:
        t = em.env.get(r)
        if not isinstance(t, Tile) or t.splat or t.regs is None or not t.shape:
            continue
        want = layout_of(em, r, t.shape)
        if want is None or want == t.layout:
            continue
        em.layout_repairs.append((op.name, type(t.layout).__name__, type(want).__name__))
        em.bind(r, em.in_layout(t, want))
