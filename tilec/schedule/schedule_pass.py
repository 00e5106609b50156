"""The schedule pass: analyse every scf.for, pipeline the K loops (tiled
loads feeding an MMA), with numStages fitted to the target's shared memory
and agents (sm_90a) given register budgets, then the accumulator layouts of
tensor-core dots made explicit (layouts.py). Canonicalization runs before and
after, and the layout-conversion removal after."""
from __future__ import annotations

from ..conversion.lower_to_tileas import TARGET_ATTR, entries
from ..conversion.target import ARCHES, smem_per_cta, target_for
from ..ir.diagnostics import current_engine
from ..passes.base import Pass, target_blocks
from .analysis import LOOP_CARRIED_ADDRESS, READS, analyze_loop, candidate_loops
from .budget import WARPGROUP, estimate_registers, fit_stages, largest_tile_regs
from .materialize import MaterializeOptions, materialize_schedule
from .pipeline import create_pipelines, pipeline_agents, pipeline_single_stream
from .stages import build_stages


def _arch_of(blocks, explicit):
    if explicit:
        return explicit
    for e in entries(blocks):
        a = e.attributes.get(TARGET_ATTR)
        if a is not None:
            return a.value
    return "sm_90a"


def _cleanup(blocks, arch):
    """Canonicalization plus the layout-conversion removal pattern, to a fixed point."""
    from ..conversion.control import FoldIndexCastPair
    from ..rewrite.driver import GreedyDriver
    from ..transforms.canonicalize import all_patterns
    from ..transforms.layout_conversion import ATOM_CATALOG, TrimConvertLayoutChain, target_family
    pats = list(all_patterns()) + [FoldIndexCastPair(), TrimConvertLayoutChain(ATOM_CATALOG[target_family(arch)])]
    GreedyDriver(pats, fold=True, max_iterations=10).run(blocks, None)


PRODUCER_WARPS = 4      # the load-issuing warpgroup of a warp-specialized loop
MAX_CTA_WARPS = 32      # 1024 threads


def hoist_resident(analysis, materialization):
    """Loop-invariant loads (and their address ops) move before the loop."""
    loop = analysis.loop
    for load in materialization.resident_loads:
        for op in analysis.slices[load]:
            if op.parent is analysis.body:
                op.parent.remove(op)
                loop.parent.insert_before(op, loop)


MAX_TMA_STAGES = 8          # deeper than this hides no more TMA latency
SMEM_SPARE = 16 * 1024      # left beside grown stages for barriers, tensor maps, epilogue scratch


def deeper_stages(stages, target, regs, num_warps, reserve, copied, budget, occupancy=1, tma=True) -> int:
    """The stage count for a loop whose every stage arrives by a copy engine
    (`copied`: TMA, or cp.async for a staged gather) into agents whose register
    budgets (`regs`) let no more than `occupancy` CTAs share an SM: the shared
    memory no further CTA can use holds more stages (tileiras fills it the same
    way), up to MAX_TMA_STAGES and SMEM_SPARE short of `budget` (each CTA's
    share of the SM's shared memory, or the schedule's smem-budget). Otherwise
    the count stays as fitted. `tma` False: some producer issues cp.async, so no
    setmaxnreg hands its registers to the consumers (ops_pipeline._register_split)
    and it holds as many as they do."""
    n = stages.num_stages
    if not copied or not target.warp_specialized:
        return n
    producer = regs.producer_budget if tma else regs.consumer_budget
    per_cta = 32 * (PRODUCER_WARPS * producer + num_warps * regs.consumer_budget)
    if target.regs_per_sm // max(per_cta, 1) > occupancy:
        return n
    while n < MAX_TMA_STAGES and stages.smem_bytes(n + 1) + reserve + SMEM_SPARE <= budget:
        n += 1
    return n


def auto_occupancy(analysis, stages, target, num_warps, tma, reserve, smem_budget) -> int:
    """CTAs per SM for a loop whose kernel states no `occupancy`: two where every
    stage arrives by TMA into warp-specialized agents, the loop is the kernel's
    outermost (one output tile per CTA: a persistent kernel keeps one CTA per SM,
    its grid being the SM count), the consumers' estimate fits their half of the
    register file and two stages fit half the shared memory. A second CTA's
    mainloop then hides one's tensor-map set-up, pipeline fill and epilogue
    (measured on an H200: a 64x128 batched GEMM 1.22x, a 128x128 GEMM with the
    hint 1.03x). Else one."""
    loop = analysis.loop
    nested = any(a.name.endswith((".for", ".loop", ".while")) for a in loop.ancestors())
    if not (tma and target.warp_specialized) or nested:
        return 1
    two = estimate_registers(analysis, target, num_warps, 2)
    if two.consumer + largest_tile_regs(analysis, two.consumer_agents) > two.consumer_budget:
        return 1
    half = min(smem_budget, smem_per_cta(target, 2))
    return 2 if fit_stages(stages, target, 2, reserve, half) == 2 else 1


def _fits(regs) -> bool:
    return regs.consumer <= regs.consumer_budget


def _honoured_occupancy(analysis, target, num_warps, occupancy, engine) -> int:
    """The CTAs per SM asked for (`occupancy`, a hint), or 1 when that many leave
    the consumers fewer registers than the dots' accumulators and register
    operands need at once (ptxas can spill other values, not those of a wgmma
    in flight, and refuses the kernel: C7602), or fewer than the loop's tiles
    live at once (budget.live_peak) where one CTA would hold them."""
    from .budget import pinned_registers
    regs = estimate_registers(analysis, target, num_warps, occupancy)
    need = pinned_registers(analysis, num_warps)
    if need > regs.consumer_budget:
        what = f"the {need} its tensor-core tiles hold at once"
    elif not _fits(regs) and _fits(estimate_registers(analysis, target, num_warps, 1)):
        # the loop's tiles would spill at that many CTAs and fit at one (session 25: a hint is
        # advice on occupancy, not a register limit to spill for)
        what = f"the about {regs.consumer} its loop holds at once"
    else:
        return occupancy
    engine.warning(analysis.loop.location,
                   f"occupancy {occupancy} leaves each consumer thread {regs.consumer_budget} registers, fewer than "
                   f"{what}; using 1 CTA per SM")
    return 1


def schedule_loop(analysis, target, num_stages, num_warps, engine, use_tma=True, grow=False,
                  smem_budget=None, occupancy=None, staged=None, decided=None, copies=0) -> bool:
    """Pipeline one loop. `occupancy` CTAs are to share an SM: the stage buffers
    fit their share of its shared memory, the agents their share of its
    registers (the entry's `occupancy` hint, as cuTile names it; None: the
    schedule's choice, auto_occupancy); the CTAs per SM it settles on go into
    `decided` (by entry: the most any of its loops needs). The epilogue stores
    planned to go out through TMA (tma_store.py) are appended to `staged` (None:
    none are), for the pass to rewrite once the epilogue has its final place.
    `copies`: shared bytes the tensor-core operand copies will take beside the
    stage buffers (Schedule._copy_bytes), kept free like the invariant operands."""
    loop = analysis.loop
    loc = loop.location
    asked = occupancy
    mat = materialize_schedule(analysis, MaterializeOptions(target, num_stages))
    if not mat.pending_loads:
        return True
    if target.warp_specialized and num_warps + PRODUCER_WARPS > MAX_CTA_WARPS:
        engine.error(loc, f"num-warps={num_warps} consumer warps and the producer warpgroup make "
                          f"{num_warps + PRODUCER_WARPS} warps, more than the {MAX_CTA_WARPS} (1024 threads) of a "
                          f"CTA on {target.arch}; use at most {MAX_CTA_WARPS - PRODUCER_WARPS}")
        return False
    stages = build_stages(analysis, mat, num_stages)
    from .layouts import invariant_operand_bytes
    reserve = invariant_operand_bytes(loop) + copies
    plans = {}
    if target.has_tma and use_tma:
        from .tma import plan_tma
        plans = {p.load: plan_tma(p.load, loop) for p in stages.pairs}
    tma = bool(plans) and all(plan is not None for plan in plans.values())
    # every stage arrives by a copy engine: TMA, or the cp.async copies of a staged gather
    copied = bool(plans) and all(plan is not None or load.name in READS for load, plan in plans.items())
    store_plans = []
    if tma and target.warp_specialized and staged is not None:
        from .tma_store import plan_tma_stores
        store_plans = plan_tma_stores(loop)
    staging = sum(p.nbytes for p in store_plans)
    if occupancy is None:
        occupancy = auto_occupancy(analysis, stages, target, num_warps, tma, reserve + staging,
                                   smem_budget or target.smem_bytes)
    elif occupancy > 1 and target.warp_specialized:
        occupancy = _honoured_occupancy(analysis, target, num_warps, occupancy, engine)
    budget = min(smem_budget or target.smem_bytes, smem_per_cta(target, occupancy))
    if decided is not None:
        entry = _entry_of(loop)
        decided[entry] = max(decided.get(entry, 1), occupancy)
    if staging:
        kept = max(2, fit_stages(stages, target, num_stages, reserve, budget))
        # beside operand copies, the layout changes' scratch by rows too (else the copies go first)
        spare = SMEM_SPARE if copies else 0
        if stages.smem_bytes(kept) + reserve + staging + spare > budget:
            store_plans, staging = [], 0      # the requested stages need the room more than the epilogue
    reserve += staging
    fitted = fit_stages(stages, target, num_stages, reserve, budget)
    if fitted == 0:
        if any(l.name in READS for l in mat.pending_loads):
            # staged gathers took the room: their reads stay in the consumer's body as before
            plain = analyze_loop(loop, stage_gathers=False)
            if plain.pipelinable:
                return schedule_loop(plain, target, num_stages, num_warps, engine, use_tma, grow, smem_budget,
                                     asked, staged, decided, copies)
        # not even one stage fits: the loop keeps its synchronous loads (tileiras compiles such
        # loops too), and nothing of the schedule has been written into the IR yet
        engine.warning(loc, f"the stage buffers of this loop need {stages.smem_bytes(1)} bytes of shared memory "
                            f"per stage, more than the {budget} bytes of {target.arch}"
                            + (f" each of {occupancy} CTAs may use" if occupancy > 1 else "")
                            + "; the loop is not pipelined")
        return True
    if fitted < num_stages:
        beside = f" less {reserve} for the loop's invariant dot operands" if reserve else ""
        engine.warning(loc, f"{num_stages} pipeline stages need {stages.smem_bytes(num_stages)} bytes of shared "
                            f"memory, over the {budget} bytes of {target.arch}{beside}; using {fitted}")
    stages.num_stages = fitted
    regs = estimate_registers(analysis, target, num_warps, occupancy)
    if regs.consumer > regs.consumer_budget:
        engine.warning(loc, f"the consumer needs about {regs.consumer} registers per thread, over its budget "
                            f"of {regs.consumer_budget} on {target.arch}; expect spills")
    if grow and plans:
        stages.num_stages = deeper_stages(stages, target, regs, num_warps, reserve, copied, budget, occupancy, tma)
    hoist_resident(analysis, mat)
    from ..dialects.nv_tileas.builders import Builder
    infos = create_pipelines(Builder(loop.parent, before=loop, location=loc), stages, loc)
    if plans:
        from .tma import build_descriptor
        top = loop             # descriptors go before the loop nest: built once per CTA
        while top.parent_op is not None and top.parent_op.name != "cuda_tile.entry":
            top = top.parent_op
        b = Builder(top.parent, before=top, location=loc)
        for info in infos:
            plan = plans.get(info.pair.load)
            if plan is not None:
                build_descriptor(b, plan, loc)
                info.tma = plan
        if store_plans:
            from .tma_store import build_store_descriptor
            for plan in store_plans:
                build_store_descriptor(b, plan, loc)
            staged.extend(store_plans)
    if target.warp_specialized:
        results = pipeline_agents(analysis, stages, infos, regs, num_warps, loc)
    else:
        results = pipeline_single_stream(analysis, stages, infos, loc)
    for info in infos:
        if info.tma is not None:
            from .tma import settle_swizzle
            settle_swizzle(info.tma, info.producer.op)
    for old, new in zip(loop.results, results):
        old.replace_all_uses_with(new)
    loop.erase()
    return True


def _entry_of(op):
    return next((a for a in op.ancestors() if a.name == "cuda_tile.entry"), None)


# every tensor-core op the lowering makes (only nv_tileas.dot is pipelined: analysis.COMPUTE)
TENSOR_CORE_OPS = ("nv_tileas.dot", "nv_tileas.async.dot", "nv_tileas.block_scaled_mma")


def warps_for_registers(blocks, target, warps: int) -> int:
    """The warps of a kernel given `warps` by default (a kernel without tensor-core
    dots: _warps_for_streaming_loops). On a warp-specialized target,
    8 (two consumer warpgroups) where one warpgroup's registers cannot hold the
    tiles a pipelinable loop's body holds at once (estimate_registers: over its
    budget) and two would hold them with less over theirs; else `warps`.
    compiler.default_num_warps counts the dots' accumulators and their register
    operands only; the loop's other tiles (TileGym's mHC split GEMM converts its
    A tile to tf32 beside the dot; the w8a8 fp8 GEMM scales each K step's
    product into a second accumulator) spilled 300-650 bytes on one warpgroup
    and none on two, which is what tileiras runs them on. A loop whose stages
    then do not fit shared memory runs synchronously on all the warps, which
    hold the same tiles (TileGym's MLA decode: 3,666 spilled bytes on 4 warps,
    642 on 8). Kept at `warps` where a dot's M is not a multiple of 128 (two
    warpgroups would split its N, each reading all of A) or a dot lies outside
    the pipelinable loops (a CTA of 12 warps has no tensor-core layout for it):
    default_num_warps' own rules."""
    if warps != WARPGROUP:
        return warps
    loops = [analyze_loop(loop) for loop in candidate_loops(blocks)]
    dots = [op for b in blocks for top in b.ops for op in top.walk() if op.name in TENSOR_CORE_OPS]
    if not dots:
        return _warps_for_streaming_loops(loops, target, warps)
    if not target.warp_specialized:
        return warps
    piped = [a for a in loops if a.pipelinable]
    inside = {id(op) for a in piped for op in a.computes}
    if any(id(op) not in inside or tuple(op.results[0].type.shape)[-2] % 128 for op in dots):
        return warps
    for a in piped:
        one = estimate_registers(a, target, WARPGROUP)
        two = estimate_registers(a, target, 2 * WARPGROUP)
        over = one.consumer - one.consumer_budget
        if over > 0 and two.consumer - two.consumer_budget < over:
            return 2 * WARPGROUP
    return warps


def _warps_for_streaming_loops(loops, target, warps: int) -> int:
    """The warps of a kernel without dots: 8 where one of its loops holds more
    registers a thread at `warps` (budget.live_peak of its body, OVERHEAD_REGS
    beside) than a thread may have, and fewer over at 8. Such a loop runs on
    all the CTA's warps, its loaded tiles in registers. TileGym's RMS norm
    backward holds three 4x4096 f32 tiles through its persistent loop (1,274
    spilled bytes on 128 threads, 24 on 256); tileiras runs its looping norms
    and losses with wide tiles on 256 or 384 threads. Code outside loops keeps
    `warps`, as tileiras's 128 threads for a one-shot kernel of any width."""
    loops = [a for a in loops if a.loop.regions and a.loop.regions[0].blocks]

    def over(w):
        regs = [estimate_registers(a, target, w, specialized=False) for a in loops]
        return max((r.consumer - r.consumer_budget for r in regs), default=-1)
    now = over(warps)
    return 2 * warps if now > 0 and over(2 * warps) < now else warps


class Schedule(Pass):
    """software-pipeline K loops: stages, producer/consumer pipelines, agents"""
    name = "schedule"
    argument = "Schedule"
    OPTIONS = {"arch": (str, ""), "num-stages": (int, 0), "num-warps": (int, 4), "tma": (bool, True),
               "merge-agents": (bool, True), "sink-epilogue": (bool, True), "fork-once": (bool, True),
               "smem-budget": (int, 0),
               "wgmma": (str, "auto"), "occupancy": (int, 0),
               "tma-store": (bool, True), "operand-copies": (bool, True), "pipeline": (bool, True),
               "auto-warps": (bool, False)}

    def run(self, target) -> bool:
        engine = current_engine()
        blocks = target_blocks(target)
        arch = _arch_of(blocks, self.options["arch"])
        t = target_for(arch)
        if t is None:
            engine.error(target.location, f"unknown target '{arch}' (known: {', '.join(ARCHES)})")
            return False
        stages = self.options["num-stages"] or t.default_stages
        warps = self.options["num-warps"]
        from ..dialects.nv_tileas.operands import WGMMA_MODES
        if self.options["wgmma"] not in WGMMA_MODES:
            engine.error(target.location, f"invalid schedule option: wgmma={self.options['wgmma']} "
                                          f"(expected {', '.join(WGMMA_MODES)})")
            return False
        if stages < 1 or warps < 1 or (t.warp_specialized and warps % 4) or self.options["occupancy"] < 0:
            engine.error(target.location, f"invalid schedule options: num-stages={stages} num-warps={warps} "
                                          f"occupancy={self.options['occupancy']}"
                                          + (f" ({t.arch} consumers are whole warpgroups: a multiple of 4)"
                                             if t.warp_specialized and warps % 4 else ""))
            return False
        _cleanup(blocks, t.arch)
        if self.options["auto-warps"] and self.options["pipeline"]:
            # num-warps is compiler.default_num_warps' choice, not the user's: the loops' registers may raise it
            warps = warps_for_registers(blocks, t, warps)
        self.chosen_warps = warps
        ok = True
        staged = []
        decided = {}
        for loop in candidate_loops(blocks):
            if loop.parent is None:
                continue
            a = analyze_loop(loop)
            counters = None
            if a.reason == LOOP_CARRIED_ADDRESS and loop.name == "scf.for":
                from .induction import rewrite_counters
                counters = rewrite_counters(loop)
                if counters:
                    a = analyze_loop(loop)
            if a.pipelinable and self.options["pipeline"]:
                ok = schedule_loop(a, t, stages, warps, engine, self.options["tma"],
                                   grow=not self.options["num-stages"],
                                   smem_budget=self.options["smem-budget"] or t.smem_bytes,
                                   occupancy=self._occupancy(_entry_of(loop), t),
                                   staged=staged if self.options["tma-store"] else None,
                                   decided=decided, copies=self._copy_bytes(_entry_of(loop), t, warps)) and ok
            if counters and loop.parent is not None:
                counters.undo()           # not pipelined after all: the loop as it was
        if ok and t.warp_specialized and self.options["merge-agents"]:
            from .merge_agents import merge_agent_switches
            from .share_pipelines import share_pipelines
            if merge_agent_switches(blocks):
                share_pipelines(blocks)
        if ok and t.warp_specialized and self.options["sink-epilogue"]:
            from .sink_epilogue import sink_epilogues
            sink_epilogues(blocks)
        from .tma_store import stage_through_shared
        for i, plan in enumerate(staged):
            stage_through_shared(plan, i)
        if ok and t.warp_specialized and self.options["fork-once"]:
            from .fork_once import fork_once
            fork_once([e.regions[0].blocks[0] for e in entries(blocks)])
        from .layouts import assign_layouts
        for e in entries(blocks):
            # the CTAs per SM the loops settled on (a hint they could not honour is not kept)
            ctas = decided.get(e) or self._occupancy(e, t) or 1
            budget = min(self.options["smem-budget"] or t.smem_bytes, smem_per_cta(t, ctas))
            assign_layouts(e, warps, budget, t.arch, self.options["wgmma"], self.options["operand-copies"])
        _cleanup(blocks, t.arch)
        from .propagate_layouts import propagate_layouts
        for e in entries(blocks):
            propagate_layouts(e, warps)
        return ok

    def _copy_bytes(self, entry, target, warps: int) -> int:
        """The shared bytes the code generator's tensor-core operand copies will
        take beside the stage buffers: one buffer the entry's dots share, as
        large as the largest copy (wgmma on sm_90a, tcgen05 on sm_100a/sm_103a;
        0 where the copies are off)."""
        from .layouts import TCGEN05_ARCHES
        if entry is None or not self.options["operand-copies"] or self.options["wgmma"] == "none":
            return 0
        from ..dialects.nv_tileas.operands import DOT, tcgen05_copy_bytes, wgmma_copy_bytes
        if not (target.has_wgmma or target.arch in TCGEN05_ARCHES):
            return 0
        dots = [op for op in entry.walk() if op.name == DOT and len(op.operands) >= 3]
        return max((wgmma_copy_bytes(op, 32 * warps, self.options["wgmma"]) if target.has_wgmma
                    else tcgen05_copy_bytes(op, 32 * warps) for op in dots), default=0)

    def _occupancy(self, entry, target):
        """CTAs meant to share an SM: the option, else the entry's `occupancy` hint,
        else None (the schedule chooses per loop: auto_occupancy)."""
        if self.options["occupancy"]:
            return self.options["occupancy"]
        from ..dialects.cuda_tile.hints import hint_value
        found = hint_value(entry, target.arch, "occupancy") if entry is not None else None
        return None if found is None else max(1, min(found, 32))
