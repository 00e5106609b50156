"""load_ptr_tko / store_ptr_tko that the lowering leaves as they are: ordered
accesses (relaxed, acquire, release) and pointer tiles not built as
`offset(base, offsets)` (a kernel argument loaded directly, pointers chosen
with select, offsets of offsets). One global access per element through its
own pointer, under its mask; a load takes the padding tile's element where the
mask is off (0 without one).

Ordering: `ld.{relaxed|acquire}.{cta|gpu|sys}.global`,
`st.{relaxed|release}.{scope}.global`. The tile block is one agent of the
memory model, but its elements are stored by many threads: before a release
store the group synchronizes, so the writes of every thread happen before the
release that publishes them (bar.sync orders them before the storing thread's
release, which is cumulative)."""
from __future__ import annotations

from .emitter import handles
from .ptxtypes import B32, PRED, mem_type, reg_class

_SCOPE = {"tl_blk": ".cta", "device": ".gpu", "sys": ".sys"}


def _order(op) -> str:
    from ...dialects.cuda_tile.attributes import MemoryOrderingSemanticsAttr, MemoryScopeAttr
    sem = MemoryOrderingSemanticsAttr.name_of(op.attributes["memory_ordering_semantics"])
    if sem == "weak":
        return ""
    scope = op.attributes.get("memory_scope")
    return f".{sem}{_SCOPE[MemoryScopeAttr.name_of(scope) if scope is not None else 'device']}"


def _common_layout(em, tiles):
    tiles = [t for t in tiles if t is not None]
    layout = next((t.layout for t in tiles if not t.splat), None)
    return [em.in_layout(t, layout) for t in tiles], layout


@handles("cuda_tile.load_ptr_tko")
def _load_ptr(em, op):
    kb = em.kb
    t = op.results[0].type
    etype = t.element_type
    ptrs = em.tile(op.source)
    mask = em.tile(op.mask) if op.mask is not None else None
    pad = em.tile(op.paddingValue) if op.paddingValue is not None else None
    (ptrs, *rest), layout = _common_layout(em, [ptrs, mask, pad])
    mask = rest.pop(0) if mask is not None else None
    pad = rest.pop(0) if pad is not None else None
    order = _order(op)
    out = em.new_tile(etype, t.shape, layout)
    for s, r in enumerate(out.regs):
        p = mask.at(s) if mask is not None else None
        guard = f"@{p} " if p else ""
        if reg_class(etype) == PRED:
            b = kb.reg(B32)
            if pad is not None:
                kb.emit(f"selp.u32 \t{b}, 1, 0, {pad.at(s)}")
            else:
                kb.emit(f"mov.u32 \t{b}, 0")
            kb.emit(f"{guard}ld{order}.global.u8 \t{b}, [{ptrs.at(s)}]")
            kb.emit(f"setp.ne.u32 \t{r}, {b}, 0")
            continue
        if p is not None:
            if pad is not None:
                em.mov(r, pad.at(s), etype)
            else:
                em.mov_imm(r, etype, 0)
        kb.emit(f"{guard}ld{order}.global{mem_type(etype)} \t{r}, [{ptrs.at(s)}]")
    em.bind(op.results[0], out)
    for r in op.results[1:]:
        em.bind(r, None)


@handles("cuda_tile.store_ptr_tko")
def _store_ptr(em, op):
    kb = em.kb
    ptrs, value = em.tile(op.destination), em.tile(op.value)
    mask = em.tile(op.mask) if op.mask is not None else None
    (ptrs, value, *rest), layout = _common_layout(em, [ptrs, value, mask])
    mask = rest[0] if rest else None
    order = _order(op)
    if order.startswith(".release"):
        em.sync()
    owner = em.owner(layout)
    n = 1 if layout is None else layout.nslots
    etype = value.etype
    for s in range(n):
        p = mask.at(s) if mask is not None else None
        if owner is not None:
            if p is None:
                p = owner
            else:
                both = kb.reg(PRED)
                kb.emit(f"and.pred \t{both}, {owner}, {p}")
                p = both
        guard = f"@{p} " if p else ""
        src = value.at(s)
        if reg_class(etype) == PRED:
            b = kb.reg(B32)
            kb.emit(f"selp.u32 \t{b}, 1, 0, {src}")
            kb.emit(f"{guard}st{order}.global.u8 \t[{ptrs.at(s)}], {b}")
            continue
        t = mem_type(etype).replace(".s8", ".b8").replace(".s16", ".b16")
        kb.emit(f"{guard}st{order}.global{t} \t[{ptrs.at(s)}], {src}")
    for r in op.results:
        em.bind(r, None)
