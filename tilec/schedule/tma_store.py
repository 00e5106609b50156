"""TMA stores for the epilogue of a warp-specialized TMA loop (sm_90a).

A tensor-core accumulator is spread over the threads in pairs of adjacent
columns: stored straight from registers, each thread writes 4 bytes per
instruction, each under its own bounds test (an epilogue of 64 predicated
stores and about 140 compares and moves per thread for a 128x128 f16 tile).
tileiras instead writes the tile to shared memory and lets the TMA unit copy
it out, clipping at the tensor's edge. So does this:

    %buf = nv_tileas.alloc_tensor {nv_tileas.staging_buffer = i}
    %sv  = nv_tileas.view %buf                    (SMEM, swizzled like the map)
    nv_tileas.store %sv, %value                   (registers -> shared)
    %tok = nv_tileas.async.tiled_tma_store %desc, %sv[row0, col0]
    nv_tileas.async.wait %tok

Which stores: a `tiled_store` after the loop, in the loop's block, of a value
computed from the loop's results, through a partition view a TMA load could
read (tma.tma_view: identity dims, unit last stride, 2-5 dims, a box of at
most 256 per dim and whole 16-byte rows, alignment proved), with no extra
coordinates, offsets, tokens or memory-ordering semantics. Only where every
load of the loop already arrives by TMA, so the kernel builds tensor maps
anyway and the store's map joins their batch (one more key in the same round
trip). The staging buffer is counted in the stage fit (schedule_loop): the
stores are planned only when the loop keeps two stages beside it.
"""
from __future__ import annotations

from ..dialects.nv_tileas.attributes import AtomAttr
from ..dialects.nv_tileas.builders import Builder, build_constant, build_muli
from ..dialects.nv_tileas.operands import swizzle_fits
from ..dialects.nv_tileas.ops import layout, memops, slices, tokens
from ..dialects.nv_tileas.ops.tma import AsyncTiledTmaStoreOp
from ..dialects.nv_tileas.types import AsyncTokenType, TiledViewType, element_width
from ..ir import attributes as A
from ..ir.types import IndexType, IntegerType, RankedTensorType

STAGING_ATTR = "nv_tileas.staging_buffer"
STAGING_ALIGN = 1024        # the swizzle pattern follows absolute address bits 7-9


class TmaStorePlan:
    def __init__(self, store, block_tile, tensor_view, box):
        self.store, self.block_tile, self.tensor_view, self.box = store, block_tile, tensor_view, box
        self.desc = None
        self.atom = AtomAttr(f"tma_store_{len(box)}d")

    @property
    def nbytes(self) -> int:
        n = element_width(self.tensor_view.type.element_type) // 8
        for d in self.box:
            n *= d
        return -(-n // STAGING_ALIGN) * STAGING_ALIGN

    @property
    def swizzle(self) -> str:
        """The map's swizzle: the widest the staged rows take, the box's rows
        flattened (wider rows are stored as 128-byte panels, one copy each)."""
        pitch = self.box[-1] * element_width(self.tensor_view.type.element_type) // 8
        rows = 1
        for d in self.box[:-1]:
            rows *= d
        if not swizzle_fits(pitch, rows):
            return "none"
        return {32: "32B", 64: "64B"}.get(pitch, "128B")


def _from_results(value, results, block) -> bool:
    """Whether `value` is computed, within `block`, from one of `results`."""
    seen, work = set(), [value]
    while work:
        v = work.pop()
        if v in results:
            return True
        d = getattr(v, "op", None)
        if d is None or d.parent is not block or id(d) in seen:
            continue
        seen.add(id(d))
        work.extend(d.operands)
    return False


def _constant_zero(v) -> bool:
    from ..dialects.cuda_tile.divisibility import int_constant
    d = getattr(v, "op", None)
    return d is not None and int_constant(d) == 0


def plan_tma_stores(loop) -> list[TmaStorePlan]:
    """The stores after `loop` that can go out through TMA (module docstring)."""
    from .tma import tma_view
    block = loop.parent
    results = set(loop.results)
    out = []
    after = False
    for op in block.ops:
        if op is loop:
            after = True
            continue
        if not after or op.name != "nv_tileas.tiled_store":
            continue
        if (op.offsets or op.token or op.result_token is not None or op.mem_semantic is not None
                or op.mem_scope is not None or not all(_constant_zero(c) for c in op.coords)):
            continue
        if not _from_results(op.value, results, block):
            continue
        found = tma_view(op.view, loop)
        if found is not None and len(found[2]) == len(op.value.type.shape):
            out.append(TmaStorePlan(op, *found))
    return out


def build_store_descriptor(b, plan, loc):
    from .tma import build_descriptor
    build_descriptor(b, plan, loc, plan.swizzle)


def stage_through_shared(plan, index):
    """Replace `plan.store` by the staging sequence (module docstring)."""
    store = plan.store
    if store.parent is None:
        return
    loc = store.location
    b = Builder(store.parent, before=store, location=loc)
    etype = plan.tensor_view.type.element_type
    buf = b.create(slices.AllocTensorOp, loc, result=RankedTensorType(plan.box, etype),
                   attributes={STAGING_ATTR: A.IntegerAttr(index, IntegerType(32))}).result
    sview = b.create(layout.ViewOp, loc, source=buf, indices=[],
                     result=TiledViewType(plan.box, etype, "SMEM")).result
    b.create(memops.StoreOp, loc, view=sview, value=store.value)
    idx = plan.block_tile.operands[1:]
    coords = [build_muli(b, i, build_constant(b, n, IndexType())) for i, n in zip(idx, plan.box)]
    tok = b.create(AsyncTiledTmaStoreOp, loc, desc=plan.desc, source=sview, coords=coords, atom=plan.atom,
                   result=AsyncTokenType()).result
    b.create(tokens.AsyncWaitOp, loc, tokens=[tok])
    store.erase()
