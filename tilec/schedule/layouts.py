"""Layout assignment: every tensor-core `nv_tileas.dot` gets its accumulator
through an explicit `nv_tileas.convert_layout` into the layout it computes in,
chosen for the thread group that runs the dot (its agent's warps under
agent_switch, the CTA's otherwise): `#nv_tileas<layout wgmma>` on sm_90a for
a dot that wgmma runs (operands.wgmma_fits, B read in place), else the
mma.sync accumulator layout `#nv_tileas<layout mma, warps = [wm, wn]>`.

A dot operand that is the same on every iteration of the loop around the dot
(flash attention's Q) is moved once into `#nv_tileas<layout shared>` right
where it is defined: the tensor cores then read it in place on every
iteration (wgmma descriptors, ldmatrix) instead of staging a copy each time.
Operands that come from pipeline slots are in shared memory already; the other
operands are staged by the emitter, or given to the tensor cores in registers.
When one dot's result becomes another's A (attention's P), both dots' warps
split the rows only: each warp then holds whole rows of the first result,
which are exactly its A fragments of the second dot (no data moves), and the
row reductions between them stay inside warps.

A loop-carried accumulator is kept in the mma layout by the emitter, so the
conversion inside a K loop moves nothing at run time; the IR states the layout
the dot requires, not a data movement per iteration. The emitter reads the
layout from this op (ops_dot.mma_layout)."""
from __future__ import annotations

from ..dialects.nv_tileas.layout_attr import LayoutAttr
from ..dialects.nv_tileas.layouts import tensor_core_acc
from ..dialects.nv_tileas.operands import tcgen05_fits, wgmma_chosen
from ..dialects.nv_tileas.types import element_width, num_elements
from ..dialects.nv_tileas.ops.layout import ConvertLayoutOp
from ..dialects.nv_tileas.ops.pipeline import agent_warps

DOT = "nv_tileas.dot"
LOOPS = ("scf.for", "scf.while", "cuda_tile.for", "cuda_tile.loop")
SHARED = LayoutAttr("shared")
WGMMA = LayoutAttr("wgmma")
TMEM = LayoutAttr("tmem")
TCGEN05_ARCHES = ("sm_100a", "sm_103a")
AGENT_SWITCH = "nv_tileas.async.pipeline.agent_switch"


def cta_threads(entry, num_warps: int) -> int:
    """Threads of the CTA: all agents' warps when the entry is warp-specialized."""
    for op in entry.walk():
        if op.name == AGENT_SWITCH:
            return 32 * sum(agent_warps(op))
    return 32 * num_warps


def group_threads(op, cta: int) -> int:
    """Threads of the group that runs `op`: its agent's, or the CTA's."""
    child, p = op, op.parent_op
    while p is not None:
        if p.name == AGENT_SWITCH:
            for i, r in enumerate(p.regions):
                if child.parent in r.blocks:
                    return 32 * agent_warps(p)[i]
        child, p = p, p.parent_op
    return cta


def _innermost_loop(op):
    return next((p for p in op.ancestors() if p.name in LOOPS), None)


def _defined_outside(v, loop) -> bool:
    d = getattr(v, "op", None)
    if d is None:
        owner = getattr(getattr(v, "block", None), "parent_op", None)
        return owner is not None and owner is not loop and loop not in owner.ancestors()
    return d is not loop and loop not in d.ancestors()


# shared bytes left to the code generator's own buffers (layout-change scratch by
# rows, joins, barriers) when shared-layout operands are placed beside the stages
SCRATCH_RESERVE = 16 * 1024


def _tile_bytes(t) -> int:
    return num_elements(t.shape) * (((element_width(t.element_type) or 8) + 7) // 8)


def _movable(v, loop) -> bool:
    """A dot operand that may move into the shared layout: a 16-bit rank-2 tile
    defined by an op outside `loop`."""
    return loop is not None and getattr(v, "op", None) is not None and _defined_outside(v, loop) \
        and len(getattr(v.type, "shape", ())) == 2 and element_width(v.type.element_type) == 16


def invariant_operand_bytes(loop) -> int:
    """Shared bytes the invariant operands of the tensor-core dots in `loop`
    will take in the shared layout (each value once)."""
    seen = {}
    for op in loop.walk():
        if op.name == DOT and len(op.operands) >= 3:
            for v in op.operands[:2]:
                if _movable(v, loop):
                    seen[v] = _tile_bytes(v.type)
    return sum(seen.values())


def _invariant_operand(op, index: int, made: dict, room: list) -> int:
    """Move dot `op`'s operand `index` into shared memory where it is defined
    when it is a 16-bit rank-2 tile the same on every iteration of the loop
    around the dot (one conversion per value, shared by its dots), and when
    it fits in `room` (a one-element list of the bytes left: the budget rule)."""
    v = op.operands[index]
    loop = _innermost_loop(op)
    if not _movable(v, loop):
        return 0
    d = v.op
    if d.name == ConvertLayoutOp.name and d.attributes.get("layout") == SHARED:
        return 0
    conv = made.get(v)
    n = 0
    if conv is None:
        if _tile_bytes(v.type) > room[0]:
            return 0
        room[0] -= _tile_bytes(v.type)
        conv = made[v] = ConvertLayoutOp.create(source=v, layout=SHARED, result_types=[v.type],
                                                location=op.location)
        d.parent.insert_after(conv, d)
        n = 1
    op.set_operand(index, conv.results[0])
    return n


def _chained_dots(entry) -> set:
    """Dots whose result reaches another dot's A through ops that keep its
    shape (the scale, exp2 and conversion between attention's two dots), with
    those dots: both get a warp grid that splits rows only."""
    out = set()
    for op in entry.walk():
        if op.name != DOT:
            continue
        shape = tuple(op.results[0].type.shape)
        work, seen = [op.results[0]], set()
        while work:
            for use in work.pop().uses:
                user = use.owner
                if id(user) in seen:
                    continue
                seen.add(id(user))
                if user.name == DOT:
                    if use.index == 0:
                        out.update((op, user))
                    continue
                work.extend(r for r in user.results if tuple(getattr(r.type, "shape", ())) == shape)
    return out


def _accumulator_layout(op, a, b, c, threads: int, arch: str, chained: set, wgmma: str, copies: bool = True):
    """The LayoutAttr of dot `op`'s accumulator, or None (CUDA cores).
    `copies`: whether a tcgen05 or wgmma dot may copy operands to shared memory."""
    if arch == "sm_90a" and wgmma_chosen(op, threads, wgmma, copies=copies):
        return WGMMA
    if arch in TCGEN05_ARCHES and wgmma != "none" and tcgen05_fits(op, threads, copies=copies):
        return TMEM
    acc = tensor_core_acc(a.type, b.type, c.type, threads, rows_only=op in chained)
    return None if acc is None else LayoutAttr.of(acc)


def assign_layouts(entry, num_warps: int, smem_bytes: int | None = None, arch: str = "",
                   wgmma: str = "auto", operand_copies: bool = True) -> int:
    """Insert the accumulator conversions, and the shared-memory conversions
    of loop-invariant operands, in `entry`; how many were inserted.
    `arch`: sm_90a names the accumulators of dots that run on wgmma
    `#nv_tileas<layout wgmma>` (operands.wgmma_chosen under `wgmma`: by
    default where B is read in place or computed in registers).
    `smem_bytes`: the kernel's shared-memory budget. Shared-layout operands
    take what the stage buffers (all of them, as if live together) and
    SCRATCH_RESERVE leave; None: no limit. `operand_copies` False: only dots
    that copy no operand run on wgmma or tcgen05 (the code generator's rule
    when the kernel is short of shared memory)."""
    threads = cta_threads(entry, num_warps)
    n = 0
    made = {}
    stages = sum(_tile_bytes(op.results[0].type) for op in entry.walk() if op.name == "nv_tileas.alloc_tensor")
    room = [float("inf") if smem_bytes is None else smem_bytes - stages - SCRATCH_RESERVE]
    chained = _chained_dots(entry)
    for op in list(entry.walk()):
        if op.name != DOT or len(op.operands) < 3:
            continue
        a, b, c = op.operands[:3]
        want = _accumulator_layout(op, a, b, c, group_threads(op, threads), arch, chained, wgmma, operand_copies)
        if want is None:
            continue
        n += _invariant_operand(op, 0, made, room) + _invariant_operand(op, 1, made, room)
        src = getattr(c, "op", None)
        if src is not None and src.name == ConvertLayoutOp.name and src.attributes.get("layout") == want:
            continue
        conv = ConvertLayoutOp.create(source=c, layout=want, result_types=[c.type], location=op.location)
        op.parent.insert_before(conv, op)
        op.set_operand(2, conv.results[0])
        n += 1
    return n
