"""`tilec compile`: parse, verify, lower to nv_tileas, schedule, emit PTX.

Every failure is a diagnostic (rendered text in CompileFailed), never a
traceback; the CLI writes the output file only after emission succeeded."""
from __future__ import annotations


class CompileFailed(Exception):
    """Compilation stopped; `str(e)` is the rendered diagnostics."""


def lower_and_schedule(ops, engine, arch: str, num_warps: int, num_stages: int | None, merge_agents=True,
                       smem_budget: int | None = None, wgmma: bool | None = None, operand_copies: bool = True,
                       pipeline: bool = True, warps_out: list | None = None):
    """Run lower-to-tileas and schedule on verified `ops`; the new ops or None.
    `smem_budget`: the shared bytes the kernel may use when less than the target's.
    `wgmma`: see compile_ops (the accumulator layouts the schedule names).
    `operand_copies` False: the kernel is short of shared memory (compile_ops'
    fallback), so no wgmma or tcgen05 dot copies operands into a buffer of its own.
    `pipeline` False: no loop is pipelined (compile_ops' last fallback).
    `warps_out`, a list: `num_warps` is default_num_warps' choice, which the
    schedule may raise for its loops' registers (warps_for_registers); the warps
    it used are appended."""
    from .passes.manager import PassManager
    from .passes.pipeline import Nest, make_pass
    sched = {"arch": arch, "num-warps": str(num_warps)}
    if num_stages is not None:
        sched["num-stages"] = str(num_stages)
    if not merge_agents:
        sched["merge-agents"] = "false"
    if smem_budget:
        sched["smem-budget"] = str(smem_budget)
    if wgmma is not None:
        sched["wgmma"] = "all" if wgmma else "none"
    if not operand_copies:
        sched["operand-copies"] = "false"
    if not pipeline:
        sched["pipeline"] = "false"
    if warps_out is not None:
        sched["auto-warps"] = "true"
    schedule = make_pass("schedule", sched)
    root = Nest("builtin.module", [make_pass("lower-to-tileas", {"arch": arch}), schedule])
    pm = PassManager(root, verify_each=True)
    if not pm.run(ops, engine):
        return None
    if warps_out is not None:
        warps_out.append(getattr(schedule, "chosen_warps", num_warps))
    return pm.result_ops


# accumulator registers per thread (at 4 warps) past which a CTA gets 8 warps:
# one instruction stream (sm_80 family) / per consumer thread of a warp-specialized loop
ACC_REGS_PER_THREAD = 64
ACC_REGS_PER_CONSUMER_THREAD = 128
# ... unless a dot's M would not split over two warpgroups: then up to this many on one
ONE_GROUP_WGMMA_REGS = 200


def default_num_warps(ops, arch: str) -> int:
    """The warp count when none is asked for: 4, or 8 where the tensor-core
    accumulators live at once would otherwise take too many registers per
    thread. On sm_80 past 64 (a 128x128 f32 tile on 4 warps needs 128 of the
    255, and the staged operands then spill); on warp-specialized targets,
    where 4 warps is the consumer warpgroup beside the producer's, past 128
    (128x128 fits one warpgroup; 128x256 spilled 1228 bytes on one and 64 on
    two). The dots of one block count together, and a dot whose A is another
    dot's result (attention's P) adds that operand's registers: flash
    attention with 128 query rows (S, P and O) gets two consumer warpgroups
    on sm_90a, as tileiras runs it on 256 threads. A dot that accumulates
    onto another's result (MLA's S = Q K^T + Q_pe K_pe^T) adds nothing: its
    result takes that accumulator's registers. In a block of several dots
    their other operands count too: they are register tiles there, where a
    lone K-loop dot reads its own from pipeline slots (TileGym's MLA decode,
    two 128x512 f16 operands beside its accumulators, spilled 2360 bytes on
    4 warps and none on 8). On sm_90a two consumer warpgroups split a
    wgmma's M, so a block of wgmma candidates with a dot of fewer than 128
    rows keeps one warpgroup up to ONE_GROUP_WGMMA_REGS a thread: on two they
    would split its N instead, each reading all of A for half the columns
    (TileGym's prefill MLA at 64 query rows). Where a loop is pipelined on a
    warp-specialized target, only its dots count: the rest of the kernel runs
    on the whole CTA, producer warpgroup included, whose layouts span 256
    threads either way, and a CTA of 12 warps has no tensor-core layout at all
    (TileGym's intra_chunk_prepare ran its CTA-level dots on CUDA cores). An
    operand such a loop computes in registers counts there too, unless dots
    outside the loop would lose their tensor cores to 8 consumer warps. The
    schedule may raise the count for a loop's other tiles (its register
    estimate: schedule_pass.warps_for_registers)."""
    from .conversion.target import target_for
    target = target_for(arch)
    if target is None:
        return 4
    worst = unsplit = 0
    for top in ops:
        dots = {}
        for op in top.walk():
            if op.name in ("cuda_tile.mmaf", "cuda_tile.mmai"):
                dots.setdefault(id(op.parent), []).append(op)
        piped = _pipelined_loops(top) if target.warp_specialized else set()
        computed = False
        if piped:
            # the CTA gets a producer warpgroup: code outside the pipelined loops runs on every
            # warp, in layouts over the largest power of two of them (256 threads beside one
            # or two consumer warpgroups alike), and 12 warps have no tensor-core layout; only
            # the consumer agents' dots choose the warps. Their operands computed in registers
            # count too, unless dots outside would lose their tensor cores to a 12-warp CTA
            # (TileGym's intra_chunk_prepare ran 1.28x faster on 4 consumer warps, spilling,
            # than on 8 with its CTA-level dots on CUDA cores)
            inside = {k: block for k, block in dots.items() if id(_loop_of(block[0])) in piped}
            computed = len(inside) == len(dots)
            dots = inside
        for block in dots.values():
            regs = 0
            for op in block:
                if not _from_dot(op.operands[2]):       # else it accumulates in that dot's registers
                    regs += _regs(op.results[0].type)
                if _from_dot(op.operands[0]):
                    regs += _regs(op.operands[0].type)
                elif computed:
                    # an operand the loop computes from its loads (V * beta) is a register tile
                    # beside the accumulator, where a loaded one is read from its pipeline slot
                    regs += sum(_regs(v.type) for v in op.operands[:2] if _computed_in(v, op.parent))
            if len(block) > 1:
                # several dots in one block: the operands it loads itself, other than by the
                # loop's induction variable (those become pipeline slots), are register tiles
                seen = set()
                for op in block:
                    for v in op.operands[:2]:
                        if id(v) not in seen and _loaded_in_place(v, op.parent):
                            seen.add(id(v))
                            regs += _regs(v.type)
            worst = max(worst, regs)
            if target.warp_specialized and any(_rows(op) % 128 for op in block) \
                    and all(_wgmma_candidate(op) for op in block):
                unsplit = max(unsplit, regs)
    limit = ACC_REGS_PER_CONSUMER_THREAD if target.warp_specialized else ACC_REGS_PER_THREAD
    if worst <= limit * 4 * 32:
        return 4
    # two consumer warpgroups split a wgmma's M in halves of 64 rows or more: a dot of 64
    # rows (TileGym's MLA prefill at 64 query rows) would have them split N, each reading
    # all of A, so its block keeps one warpgroup where wgmma's accumulators fit one
    # (setmaxnreg 240)
    return 4 if 0 < unsplit == worst <= ONE_GROUP_WGMMA_REGS * 4 * 32 else 8


def _rows(dot) -> int:
    """M of a dot (the accumulator's rows; a batched dot's too)."""
    shape = tuple(dot.results[0].type.shape)
    return shape[-2] if len(shape) >= 2 else 1


def _regs(t) -> float:
    """32-bit registers (over the whole CTA) of a tile of type `t`."""
    n = 1
    for d in t.shape:
        n *= d
    return n * t.element_type.width / 32


def _block_load(v, block, depth: int = 8):
    """(the load in `block` dot operand `v` comes from, through ops that keep its
    elements: reshape, permute, conversions; whether its indices follow the
    enclosing loop's induction variable), or None."""
    for _ in range(depth):
        d = getattr(v, "op", None)
        if d is None or d.parent is not block:
            return None
        if d.name.startswith("cuda_tile.load_"):
            loop = block.parent_op
            iv = block.arguments[0] if loop is not None and loop.name == "cuda_tile.for" else None
            return d, iv is not None and any(_depends_on(x, iv) for x in d.operands[1:])
        if d.name not in ("cuda_tile.reshape", "cuda_tile.permute", "cuda_tile.ftof", "cuda_tile.itof",
                          "cuda_tile.bitcast") or not d.operands:
            return None
        v = d.operands[0]
    return None


def _loaded_in_place(v, block) -> bool:
    """Whether dot operand `v` is a load in `block` whose indices do not follow the
    loop's induction variable: the schedule leaves such a load in registers, where
    it pipelines one indexed by the induction variable."""
    got = _block_load(v, block)
    return got is not None and not got[1]


def _wgmma_candidate(dot) -> bool:
    """A dot of wgmma's input types into f32 whose B the loop loads by its
    induction variable: a pipeline slot that wgmma reads in place on sm_90a."""
    from .dialects.nv_tileas.operands import WGMMA_TYPES, float_kind
    a, b, c = (o.type for o in dot.operands[:3])
    if float_kind(a) not in WGMMA_TYPES or float_kind(b) != float_kind(a) or float_kind(c) != "f32":
        return False
    got = _block_load(dot.operands[1], dot.parent)
    return got is not None and got[1]


def _loop_of(op):
    """The innermost cuda_tile.for around `op`, or None."""
    return next((p for p in op.ancestors() if p.name == "cuda_tile.for"), None)


def _pipelined_loops(top) -> set:
    """ids of the loops of `top` that load by their induction variable: the
    schedule makes them producer/consumer pipelines (unless they run at most once)."""
    from .schedule.trip_count import runs_at_most_once
    out = set()
    for op in top.walk():
        if op.name.startswith("cuda_tile.load_"):
            loop = _loop_of(op)
            if loop is None or runs_at_most_once(loop):
                continue
            if any(_depends_on(x, loop.regions[0].blocks[0].arguments[0]) for x in op.operands[1:]):
                out.add(id(loop))
    return out


def _computed_in(v, block) -> bool:
    """Whether dot operand `v` is computed in `block` by an op other than a load
    or a view of one (nor another dot's result, counted as such)."""
    d = getattr(v, "op", None)
    return d is not None and d.parent is block and _block_load(v, block) is None and not _from_dot(v)


def _depends_on(v, target, depth: int = 6) -> bool:
    if v is target:
        return True
    d = getattr(v, "op", None)
    if d is None or depth == 0:
        return False
    return any(_depends_on(x, target, depth - 1) for x in d.operands)


def _from_dot(v, depth: int = 8) -> bool:
    """Whether `v` is made from a dot's result by ops that keep its shape (the
    scale, exp and conversion that turn attention's S into P)."""
    shape = tuple(getattr(v.type, "shape", ()))
    for _ in range(depth):
        d = getattr(v, "op", None)
        if d is None:
            return False
        if d.name in ("cuda_tile.mmaf", "cuda_tile.mmai"):
            return True
        ins = [u for u in d.operands if tuple(getattr(u.type, "shape", ())) == shape]
        if not ins:
            return False
        v = ins[0]
    return False


WGMMA_NEEDS_SM90A = "wgmma needs sm_90a (the target is {arch}); drop --wgmma or use --arch sm_90a"


def compile_ops(ops, engine, arch="sm_90a", num_warps=None, num_stages=None, wgmma=None,
                reload=None, static_shared=False, stamps=False) -> str | None:
    """PTX text for verified cuda_tile `ops`, or None after reporting to
    `engine`. `num_warps` None: default_num_warps. `wgmma`: None (the default:
    on sm_90a, wgmma for the dots that read B in place from a pipeline slot or
    compute it in registers), True
    (wgmma for every dot that fits; sm_90a only, others are an error), False
    (mma.sync only).

    `reload`, when given, returns the same verified ops afresh (lowering
    rewrites them in place). A kernel whose shared memory (stage buffers plus
    the code generator's own buffers) overflows the target is then compiled
    again with fewer pipeline stages, unless `num_stages` was asked for: the
    stage fit in the scheduler sees only the stage buffers. `static_shared`:
    see emit_ptx (tilec-tileiras: cuTile launches with no dynamic shared memory). `stamps`:
    %globaltimer stamps at phase boundaries (codegen/ptx/stamps.py, `tilec compile --stamps`)."""
    from .codegen.ptx import CodegenError, SharedMemoryOverflow, emit_ptx
    from .conversion.target import target_for
    if wgmma is True and arch != "sm_90a":
        engine.error(None, WGMMA_NEEDS_SM90A.format(arch=arch))
        return None
    split_tile_blocks(ops, arch, engine)
    auto = num_warps is None
    if auto:
        num_warps = default_num_warps(ops, arch)
    start = len(engine.diagnostics)
    target = target_for(arch)
    # after an overflow, (stages, scratch limit, merge agent switches, chunk dots, pipelined,
    # operand copies): layout changes through a small buffer by rows (they sit mostly outside
    # the K loop: an epilogue's accumulator), first with the tensor-core operand copies (wgmma,
    # tcgen05) kept, then without; then one stage fewer, and so on down to one; then
    # consecutive loops in agent switches of their own, whose stage buffers need not be live
    # together; then dots whose loaded operands are too big cut into K blocks
    # (transforms/chunk_dots), retried alike; at the very last, unless stages were asked for,
    # no loop pipelined (its loads synchronous, as tileiras compiles such kernels), the copies
    # given up before the whole-tile layout changes are. Past the first pair an attempt with
    # the whole scratch keeps the copies and one by rows gives them up.
    fallbacks = []
    if reload is not None:
        fewer = [] if num_stages is not None else list(range((target.default_stages if target else 1) - 1, 0, -1))
        least = fewer[-1] if fewer else num_stages
        rows = SCRATCH_ROWS_BYTES
        fallbacks = [(num_stages, rows, True, False, True, True)]
        plan = [(num_stages, rows, True, False)]
        for n in fewer:
            plan += [(n, None, True, False), (n, rows, True, False)]
        plan += [(least, rows, False, False), (num_stages, None, True, True), (num_stages, rows, True, True),
                 (least, rows, False, True)]
        fallbacks += [f + (True, f[1] is None) for f in plan]
        if num_stages is None:          # stages asked for are not given up
            fallbacks += [(least, None, False, False, False, True), (least, None, False, False, False, False),
                          (least, rows, False, False, False, False)]
        from .schedule.layouts import TCGEN05_ARCHES
        if not (target and (target.has_wgmma or arch in TCGEN05_ARCHES)):
            # no dot copies operands here: an attempt that differs only in the copies repeats one
            fallbacks = [f for i, f in enumerate(fallbacks) if f[:5] not in {g[:5] for g in fallbacks[:i]}]
    first = best = None
    scratch_limit, merge, chunked, pipelined, copies = None, True, 0, True, True
    while True:
        chosen = [] if auto else None
        lowered = lower_and_schedule(ops, engine, arch, num_warps, num_stages, merge,
                                     static_shared_budget(arch) if static_shared else None, wgmma,
                                     operand_copies=copies, pipeline=pipelined, warps_out=chosen)
        if lowered is None:
            return None
        warps = chosen[0] if chosen else num_warps
        try:
            try:
                ptx = emit_ptx(lowered, arch, warps, wgmma=wgmma, scratch_limit=scratch_limit,
                               static_shared=static_shared, copies=copies, stamps=stamps)
            except SharedMemoryOverflow:
                # the second buffer of the wgmma copies goes first (emission leaves the IR as it was)
                ptx = emit_ptx(lowered, arch, warps, wgmma=wgmma, scratch_limit=scratch_limit,
                               static_shared=static_shared, copies=copies, stamps=stamps, pingpong=False)
        except SharedMemoryOverflow as e:
            first = first or e
            best = e if best is None or e.needed < best.needed else best
            while True:
                if not fallbacks:
                    return _codegen_error(engine, best, arch)      # the attempt that came closest
                num_stages, scratch_limit, merge, chunk, pipelined, copies = fallbacks.pop(0)
                ops = reload()
                split_tile_blocks(ops, arch)
                chunked = _chunk_dots(ops) if chunk else 0
                if not chunk or chunked:
                    break               # (no dot to cut: the attempt would repeat an earlier one)
            del engine.diagnostics[start:]      # the next attempt reports afresh
            continue
        except CodegenError as e:
            return _codegen_error(engine, e, arch)
        if first is not None:
            how = [] if num_stages is None or not pipelined else \
                [f"{num_stages} pipeline stage{'s' if num_stages > 1 else ''}"]
            if not pipelined:
                how.append("no loop pipelined")
            if scratch_limit:
                how.append(f"layout changes through {scratch_limit} bytes at a time")
            if not merge and pipelined:
                how.append("one agent_switch per pipelined loop")
            if chunked:
                how.append(f"{chunked} dot{'s' if chunked > 1 else ''} cut into K blocks")
            engine.warning(getattr(first.op, "location", None),
                           f"'{first.op.name}' op needs {first.needed} bytes of shared memory as first compiled, "
                           f"more than the {first.limit} bytes of {arch}; compiled with {' and '.join(how)}")
        return ptx


def _chunk_dots(ops) -> int:
    """Dots cut into K blocks in `ops` (transforms/chunk_dots)."""
    from .transforms.chunk_dots import chunk_dots
    return sum(chunk_dots(top) for top in ops)


def split_tile_blocks(ops, arch: str, engine=None):
    """Entries that ask for a CGA (`num_cta_in_cga`) run each tile block on a
    cluster of CTAs where transforms.split_tile_blocks can cut them; before
    the warp count is chosen, which follows the cut tiles. With `engine` (the
    first compile, not a reload's) an entry left whole is a warning."""
    from .transforms.split_tile_blocks import split_entries, warn_kept
    for top in ops:
        kept = split_entries(top, arch)
        if engine is not None:
            warn_kept(engine, kept)


def static_shared_budget(arch: str) -> int | None:
    """The shared bytes a kernel whose shared memory is all static may use on
    `arch`, when less than the target's (ptxas's static limit off sm_90a)."""
    from .codegen.ptx.module import STATIC_SHARED_LIMIT, big_static_shared
    from .codegen.ptx.target import Target
    return None if big_static_shared(Target.parse(arch)) else STATIC_SHARED_LIMIT


# the scratch buffer of a layout change, when the kernel's shared memory is short
SCRATCH_ROWS_BYTES = 16 * 1024


def _codegen_error(engine, e, arch):
    loc = getattr(e.op, "location", None)
    engine.error(loc, f"{e.message}" if e.op is None else f"'{e.op.name}' op {_strip(e.op.name, e.message)}"
                 f" (PTX emission for {arch})")
    return None


def _strip(name, message):
    prefix = f"'{name}' "
    return message[len(prefix):] if message.startswith(prefix) else message


def parse_and_compile(text, filename="<input>", arch="sm_90a", num_warps=None, num_stages=None, wgmma=None,
                      on_warnings=None, stamps=False) -> str:
    """PTX for `text` (cuda_tile text, or Tile IR bytecode as bytes), or
    CompileFailed with the rendered diagnostics. On success,
    `on_warnings(text)` receives the rendered warnings, if any (a stage count
    cut to fit shared memory, an expected spill). `stamps`: as compile_ops."""
    from .frontend import parse_and_verify
    from .ir.diagnostics import DiagnosticEngine
    engine = DiagnosticEngine()
    ops = parse_and_verify(text, filename, engine)
    ptx = compile_ops(ops, engine, arch, num_warps, num_stages, wgmma,
                      reload=lambda: parse_and_verify(text, filename, DiagnosticEngine()), stamps=stamps) \
        if ops is not None else None
    if ptx is None:
        raise CompileFailed(engine.render())
    if engine.diagnostics and on_warnings is not None:
        on_warnings(engine.render() + "\n")
    return ptx


def compile_text(text, arch: str = "sm_90a", num_warps: int | None = None, num_stages: int | None = None,
                 filename: str = "<input>", wgmma: bool | None = None, stamps: bool = False) -> str:
    """cuda_tile text (or bytecode) to PTX; raises CompileFailed carrying the
    rendered diagnostics. `wgmma`: None (default), True or False, and `stamps`,
    as in compile_ops. (Also importable as tilec.codegen.ptx.compile_text.)"""
    return parse_and_compile(text, filename, arch, num_warps, num_stages, wgmma=wgmma, stamps=stamps)


def compile_many(jobs, arch: str = "sm_90a", num_warps: int | None = None, num_stages: int | None = None,
                 wgmma: bool | None = None):
    """Compile many kernels in this process, for autotuners: the parser, the
    dialects and the code generator load once, not once per configuration.

    `jobs` is an iterable of sources (cuda_tile text, or Tile IR bytecode as
    bytes) or of dicts {"source": ..., and any of "arch", "num_warps",
    "num_stages", "wgmma", "filename"} overriding the defaults given here.
    Yields, in order, one (ptx, diagnostics) pair per job: `ptx` is the PTX
    text or None when that job failed, `diagnostics` the rendered diagnostics
    (errors of a failed job; warnings of a good one; "" when there are none).
    One failing configuration does not stop the others."""
    for i, job in enumerate(jobs):
        opts = dict(job) if isinstance(job, dict) else {"source": job}
        got: list = []
        try:
            ptx = parse_and_compile(opts["source"], opts.get("filename", f"<job {i}>"), opts.get("arch", arch),
                                    opts.get("num_warps", num_warps), opts.get("num_stages", num_stages),
                                    opts.get("wgmma", wgmma), on_warnings=got.append)
        except CompileFailed as e:
            yield None, str(e)
            continue
        yield ptx, "".join(got).rstrip("\n")
