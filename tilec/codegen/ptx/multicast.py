"""TMA multicast among the CTAs of a cluster (sm_90a).

split-tile-blocks runs each tile block of an entry that asks for a CGA on a
cluster of C CTAs, each computing 1/C of the tile along one axis of its dot
(`.blocksareclusters`: the cluster is the tile block, along x). The slots of
the other operand are then filled from the same coordinates in every CTA of
the cluster, and loading them C times costs C times the L2 traffic. tileiras
loads them once per cluster; so does tilec:

- CTA r of the cluster copies rows [r R/C, (r+1) R/C) of the slot's R rows,
  with `.multicast::cluster`, into the slot of every CTA; each CTA's `full`
  barrier expects the whole slot's bytes, as without multicast, and the slices
  complete on it wherever they were issued.
- A slot may be refilled only when the consumers of every CTA are done with
  it: its `empty` barrier counts C times the consumer warps, and a consumer
  warp releases the slot in every CTA of the cluster (mapa, then a remote
  arrive with cluster-scope release).
- A cluster barrier after the barrier inits keeps copies and arrivals from
  reaching a CTA before its barriers exist, and one before the exit keeps them
  from reaching a CTA that has left.

A slot qualifies when its coordinates provably do not depend on the CTA's
rank (`_uniform`), its rows split into C slices of whole swizzle periods
(8 rows), and its pipeline is created at the kernel's top level with the
producer and the consumers in agents of their own."""
from __future__ import annotations

from .ptxtypes import B32, B64

LOAD = "nv_tileas.async.tiled_tma_load"
# not Pure (division may trap; an assumption is a fact), but a value of their operands alone
VALUE_OF_OPERANDS = ("cuda_tile.assume", "cuda_tile.divi", "cuda_tile.remi")


def pipeline_ctas(em, op) -> int:
    """The CTAs pipeline `op`'s slots are multicast to: C when every fill is a
    TMA load through a descriptor multicast_ctas gives C, else 1."""
    from ...dialects.nv_tileas.ops.pipeline import slot_fill
    fills = [slot_fill(u.regions[0].blocks[0]) for u in op.results[0].users if u.name.endswith("produce_one")]
    descs = {getattr(f.desc, "op", None) for f in fills if f is not None}
    if not fills or None in fills or None in descs:
        return 1
    counts = {multicast_ctas(em, d) for d in descs}
    return counts.pop() if len(counts) == 1 else 1


def before_inits(em, op, drained: bool):
    """Before a multicast pipeline's barrier inits: the inits' publication becomes a
    cluster barrier. Where its producer agent drains it (ops_pipeline.drain: every
    CTA's remote arrivals on this CTA's barriers have landed when the agent ends),
    that is all; else a pipeline created again (a persistent kernel's next tile)
    waits for the other CTAs' last remote arrivals on its barriers, and the CTAs
    meet again before the exit, at release cluster barriers."""
    if not drained:
        if op.parent_op.name != "cuda_tile.entry":
            cluster_sync(em)
        em.cluster_synced = True
    em.cluster_pending = True


def publish_inits(em) -> bool:
    """After barrier inits: a cluster barrier when a multicast pipeline's are among
    them (the other CTAs' copies and arrivals may reach them next); False when
    the group's own barrier is enough."""
    if not em.cluster_pending:
        return False
    em.cluster_pending = False
    # fence.mbarrier_init.release.cluster (before this) already releases the inits at
    # cluster scope: the arrive itself can be relaxed, where a release arrive is a
    # MEMBAR.ALL.GPU in ptxas's SASS (waiting for every memory access in flight)
    cluster_sync(em, relaxed=True)
    return True


def multicast_ctas(em, desc_op) -> int:
    """C when every load through TMA descriptor `desc_op` fills a pipeline
    slot that all C CTAs of the cluster fill alike (see the module's rules),
    else 1. Read off the IR, so the pipelines' barriers and the descriptor's
    box agree before either is emitted."""
    got = em.multicast_of.get(desc_op)
    if got is None:
        got = em.multicast_of[desc_op] = _multicast_ctas(em, desc_op)
    return got


def _multicast_ctas(em, desc_op) -> int:
    from .tensormap import desc_box
    c = em.cluster
    if c <= 1 or not em.target.hopper:
        return 1
    box = desc_box(desc_op)
    if box is None or len(box) < 2 or any(d != 1 for d in box[:-2]) or box[-2] % (8 * c):
        return 1
    users = list(desc_op.results[0].users)
    creates = [_agent_slot_pipeline(u) for u in users]
    if not users or None in creates:
        return 1
    memo = {}
    if not all(_uniform(v, c, memo) for u in users for v in u.coords):
        return 1
    if not all(_everywhere(p, c, memo) for p in creates):
        return 1
    return c


def _agent_slot_pipeline(load):
    """The create_pipeline op when `load` is the TMA fill of a produce_one slot
    inside an agent, else None."""
    from ...dialects.nv_tileas.ops.pipeline import slot_fill
    if load.name != LOAD:
        return None
    produce = load.parent_op
    if produce is None or not produce.name.endswith("produce_one") or slot_fill(load.parent) is not load:
        return None
    if not any(a.name == "nv_tileas.async.pipeline.agent_switch" for a in produce.ancestors()):
        return None
    tok = getattr(produce.operands[0], "op", None)
    return tok if tok is not None and tok.name.endswith("create_pipeline") else None


def _everywhere(op, c, memo) -> bool:
    """Whether every thread of every CTA of the cluster reaches `op` as often:
    only counted loops with uniform bounds and ifs on uniform conditions lie
    between it and the entry (the cluster barriers around its inits must be
    met by all)."""
    for a in op.ancestors():
        if a.name == "cuda_tile.entry":
            return True
        if a.name in ("scf.for", "cuda_tile.for"):
            if not all(_uniform(x, c, memo) for x in a.operands[:3]):
                return False
        elif a.name in ("scf.if", "cuda_tile.if"):
            if not _uniform(a.operands[0], c, memo):
                return False
        else:
            return False
    return False


def _uniform(v, c, memo) -> bool:
    """Whether scalar `v` is the same in every CTA of a cluster of `c` along x:
    built from constants, kernel arguments, the tile block's y and z, x
    divided by a multiple of c (split-tile-blocks' tile-block index), and loop
    counters over such bounds, by pure ops. Anything else (the rank, a load, a
    loop-carried value) counts as varying."""
    got = memo.get(v)
    if got is not None:
        return got
    memo[v] = False                      # a cycle through loop-carried values: varying
    memo[v] = got = _uniform_def(v, c, memo)
    return got


def _uniform_def(v, c, memo) -> bool:
    from ...dialects.cuda_tile.divisibility import int_constant
    from ...ir.traits import NoMemoryEffect, Pure
    d = getattr(v, "op", None)
    if d is None:                        # a block argument
        block = getattr(v, "block", None)
        return _uniform_block_arg(v, block.parent_op if block is not None else None, c, memo)
    if d.name == "cuda_tile.get_tile_block_id":
        return v is not d.results[0]
    if d.name == "cuda_tile.divi" and getattr(d.operands[0], "op", None) is not None \
            and d.operands[0].op.name == "cuda_tile.get_tile_block_id" and d.operands[0] is d.operands[0].op.results[0]:
        k = int_constant(d.operands[1].op) if getattr(d.operands[1], "op", None) is not None else None
        return k is not None and k > 0 and k % c == 0
    if d.regions or not (d.has_trait(Pure) or d.has_trait(NoMemoryEffect) or d.name in VALUE_OF_OPERANDS):
        return False                     # (views' metadata reads no memory)
    return all(_uniform(x, c, memo) for x in d.operands)


def _uniform_block_arg(v, owner, c, memo) -> bool:
    """An entry argument, or the counter of a loop whose bounds are uniform."""
    if owner is None:
        return False
    if owner.name == "cuda_tile.entry":
        return True
    if owner.name in ("scf.for", "cuda_tile.for"):
        block = owner.regions[0].blocks[0]
        if block.arguments and v is block.arguments[0]:
            return all(_uniform(x, c, memo) for x in owner.operands[:3])
    return False


def rank(em) -> str:
    """%cluster_ctarank, read once in the group's prologue."""
    return em.group_value("cluster_rank", B32, lambda r: em.kb.emit(f"mov.u32 \t{r}, %cluster_ctarank"))


def slice_box(box, c):
    """The box one CTA copies of a slot multicast to `c` CTAs: 1/c of its rows."""
    return tuple(box[:-2]) + (box[-2] // c, box[-1])


def issue(em, lead, m, addr, swz, base, coords, shape, esize, bar, c):
    """CTA r's slice of the slot at `base`, multicast to the cluster's c CTAs
    through map `m` at `addr`: per panel of `swz` (or the whole row), rows
    r R/c on, `R/c` rows."""
    kb = em.kb
    rows = shape[-2] // c
    row_bytes = swz.row_bytes if swz is not None else shape[-1] * esize
    r = rank(em)
    at, row = kb.reg(B32), kb.reg(B32)
    kb.emit(f"mad.lo.u32 \t{at}, {r}, {rows * row_bytes}, {base}")
    kb.emit(f"mad.lo.u32 \t{row}, {r}, {rows}, {coords[1]}")
    mask = (1 << c) - 1
    for dst, where in m.panels(em, swz, at, [coords[0], row] + coords[2:], shape[-1]):
        kb.emit(f"@{lead} cp.async.bulk.tensor.{len(coords)}d.shared::cluster.global.mbarrier::complete_tx::bytes"
                f".multicast::cluster \t[{dst}], [{addr}, {{{where}}}], [{bar}], {mask}")


def arrive_empty(em, pred, addr, ctas=1, count=1):
    """Arrive (where `pred`) on a slot's `empty` barrier at `addr`: in every CTA
    of the cluster when the slot is multicast to `ctas` of them; `count`
    arrivals at once (one thread for several warps)."""
    kb = em.kb
    more = f", {count}" if count > 1 else ""
    if ctas == 1:
        st = kb.reg(B64)
        kb.emit(f"@{pred} mbarrier.arrive.shared.b64 \t{st}, [{addr}]{more}")
        return
    # this CTA included. The arrive keeps its default semantics (release, CTA
    # scope): every read of the slot it releases is complete when it issues (the
    # value used, or wgmma.wait_group). A cluster-scope release costs ptxas's
    # MEMBAR.ALL.GPU per arrive, which made a 2-CTA matmul 3.1x slower on an H100.
    for k in range(ctas):
        ra = kb.reg(B32)
        kb.emit(f"mapa.shared::cluster.u32 \t{ra}, {addr}, {k}")
        kb.emit(f"@{pred} mbarrier.arrive.shared::cluster.b64 \t_, [{ra}]{more}")


def cluster_sync(em, relaxed: bool = False):
    """Every thread of every CTA of the cluster meets here; `relaxed`: the arrive
    orders none of the thread's earlier memory accesses (a fence before it does)."""
    em.kb.emit(f"barrier.cluster.arrive.{'relaxed' if relaxed else 'release'}")
    em.kb.emit("barrier.cluster.wait.acquire")
