"""Gathers and scatters through `offset(base, indices)` as vector accesses.

A thread holds runs of `layout.vec` adjacent elements of the last dimension
(Blocked and MmaAcc layouts). Where the IR proves the indices of such a run
consecutive (dialects/cuda_tile/runs.py), the run is one piece of memory: one
ld/st.global.vN moves it instead of N element accesses, and only the run's
first address is computed. What the IR cannot prove is tested per run at run
time, with the element-wise code beside it:
- the mask: a bounds mask `indices < n` is true on a prefix of each run, so
  a run whose first and last elements are in bounds is all in bounds;
- the alignment of the run's first address, when the base's or the indices'
  divisors do not show it."""
from __future__ import annotations

from ...dialects.cuda_tile.divisibility import known_divisor
from ...dialects.cuda_tile.runs import runs
from ...dialects.nv_tileas.layouts import Blocked, MmaAcc
from .cp_async import cp_async
from .ptxtypes import B64, PRED, bits, byte_size, mem_type, vector_element


class Plan:
    """How the runs of one access go: `width` elements per vector access, and
    whether the mask and the alignment need run-time tests."""

    def __init__(self, width, test_mask, test_align):
        self.width, self.test_mask, self.test_align = width, test_mask, test_align


def _base_value(view):
    """The pointer value an nv_tileas.view of a gather or scatter reads."""
    op = getattr(view, "op", None)
    return op.operands[0] if op is not None and op.name == "nv_tileas.view" and op.operands else None


def plan(em, op, idx, etype) -> Plan | None:
    """A vector plan for gather/scatter `op` whose index tile (in its final
    layout) is `idx`, or None: element-wise."""
    layout = idx.layout
    es = byte_size(etype)
    if idx.splat or not isinstance(layout, (Blocked, MmaAcc)) or not vector_element(etype):
        return None
    cache = em.__dict__.setdefault("_runs_cache", {})
    r = runs(op.indices, cache)
    width = min(getattr(layout, "vec", 1), r.contig, 16 // es)
    if width < 2:
        return None
    test_mask = False
    if op.mask is not None:
        m = runs(op.mask, cache)
        if m.prefix < width:
            return None
        test_mask = m.uniform < width
    base = _base_value(op.view)
    align = min(known_divisor(base) if base is not None else 1, r.div * es)
    return Plan(width, test_mask, align < width * es)


def address(em, base, idx, slot, es):
    """base + idx[slot] * es."""
    kb = em.kb
    t = kb.reg(B64)
    r = idx.at(slot)
    if bits(idx.etype) == 64:
        kb.emit(f"mad.lo.s64 \t{t}, {r}, {es}, {base}")
    else:
        w = kb.reg(B64)
        kb.emit(f"mul.wide.s32 \t{w}, {r}, {es}")
        kb.emit(f"add.s64 \t{t}, {base}, {w}")
    return t


def each_run(em, p: Plan, base, idx, mask, es, nslots, vector, element):
    """For every run of `p.width` slots: `vector(first_slot, address, pred)`
    under the run's predicate; where a run-time test may fail, a branch to
    `element(slot, address, pred)` for each slot of the run."""
    kb = em.kb
    w = p.width
    for s in range(0, nslots, w):
        a = address(em, base, idx, s, es)
        last = mask.at(s + w - 1) if p.test_mask else None
        ok = em.pred_and(mask.at(s) if mask is not None else None, last)
        if p.test_align:
            t, q = kb.reg(B64), kb.reg(PRED)
            kb.emit(f"and.b64 \t{t}, {a}, {w * es - 1}")
            kb.emit(f"setp.eq.u64 \t{q}, {t}, 0")
            ok = em.pred_and(ok, q)
        vector(s, a, ok)
        if not (p.test_mask or p.test_align):
            continue
        done = kb.label("run_done")
        kb.emit(f"@{ok} bra \t{done}")
        for k in range(w):
            ak = a if k == 0 else address(em, base, idx, s + k, es)
            element(s + k, ak, mask.at(s + k) if mask is not None else None)
        kb.place(done)


def vtype(etype, width):
    return f".v{width}{mem_type(etype)}".replace(".s8", ".b8").replace(".s16", ".b16")


def async_fill(em, op, base, idx, mask, etype, pad, dst) -> bool:
    """Copy gather `op`'s runs into the row-major (maybe swizzled) shared tile
    at `dst` with cp.async, one copy per run of the indices' layout; a masked-off
    run reads nothing and is zero-filled. True when done, False when cp.async
    cannot do it (nothing emitted): no vector plan, a run 2 bytes long, a
    nonzero padding, a destination not aligned to the run, or a mask or an
    alignment only a run-time test could settle (the element-wise fallback would
    mix synchronous stores into a slot the copies' barrier tracks)."""
    from ...dialects.nv_tileas.layouts import linear_offsets
    p = plan(em, op, idx, etype)
    es = byte_size(etype)
    if p is None or p.test_mask or p.test_align or p.width * es not in (4, 8, 16):
        return False
    if mask is not None and (pad != 0 or str(pad).startswith("-")):
        return False
    shape = tuple(op.results[0].type.shape)
    coeffs = linear_offsets(shape)
    layout = idx.layout
    if em.shared_run(layout, coeffs, etype, dst, max_elems=16, registers=False) < p.width:
        return False
    where = em._shared_addresses(dst, em.linear_base(layout, coeffs), es)
    owner = em.owner(layout)
    for s in range(0, layout.nslots, p.width):
        off = sum(o * c for o, c in zip(layout.offsets(s), coeffs)) * es
        cp_async(em, where(off), f"[{address(em, base, idx, s, es)}]", p.width * es,
                 mask.at(s) if mask is not None else None, owner)
    return True
