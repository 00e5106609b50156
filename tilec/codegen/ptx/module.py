"""A scheduled module to PTX text: the header, module-scope globals and one
`.entry` per cuda_tile entry.

Kernel ABI (as NVIDIA's tileiras): one `.param` per entry argument in order,
pointers `.u64`, scalars at their width; `.reqntid` is the CTA size (the
agents' warps when the kernel is warp-specialized, else --num-warps)."""
from __future__ import annotations


from ...schedule.layouts import cta_threads
from .builder import KernelBuilder
from .emitter import Emitter
from .ptxtypes import B32, B64, is_pointer, param_type, reg_class
from .target import Target
from .values import CodegenError, SharedMemoryOverflow, Tile


def _kernels(ops):
    for op in ops:
        if op.name == "cuda_tile.module" or op.name == "builtin.module":
            for region in op.regions:
                for block in region.blocks:
                    yield from _kernels(list(block.ops))
        elif op.name == "cuda_tile.entry":
            yield op


def _globals(ops):
    for op in ops:
        if op.name in ("cuda_tile.module", "builtin.module"):
            for region in op.regions:
                for block in region.blocks:
                    yield from _globals(list(block.ops))
        elif op.name == "cuda_tile.global":
            yield op


STATIC_SHARED_LIMIT = 48 * 1024


def big_static_shared(target: Target) -> bool:
    """ptxas takes static shared memory beyond 48 KiB on the architecture-specific
    sm_90+ targets only (checked for sm_80 .. sm_120a)."""
    return target.hopper and target.arch_specific



def _bytes_directive(data: bytes) -> str:
    return "{" + ", ".join(str(b) for b in data) + "}"


class ModuleEmitter:
    def __init__(self, target: Target, num_warps: int, wgmma: bool = False, scratch_limit: int | None = None,
                 static_shared: bool = False, mma_sync_only: bool = False, copies: bool = True,
                 stamps: bool = False, pingpong: bool = True):
        self.target, self.num_warps, self.wgmma = target, num_warps, wgmma
        self.pingpong = pingpong               # wgmma copies into two buffers in turn (canonical._copy_buffer)
        self.stamps = stamps                   # --stamps: %globaltimer at phase boundaries (stamps.py)
        self.copies = copies                   # tensor-core operand copies into buffers of their own
        self.mma_sync_only = mma_sync_only     # --no-wgmma: neither wgmma nor tcgen05
        self.scratch_limit, self.static_shared = scratch_limit, static_shared
        self.module_lines: list[str] = []
        self.global_names: dict[str, str] = {}
        self.declarations: list[str] = []
        self.counter = 0

    def declare_globals(self, ops):
        for g in _globals(ops):
            import numpy as np
            from ...interp.ops_core import dense_array
            t = g.attributes["value"].type
            arr = np.ascontiguousarray(dense_array(g.attributes["value"], t.element_type, t.shape))
            name = g.attributes["sym_name"].value
            sym = "g_" + "".join(c if c.isalnum() or c == "_" else "_" for c in name)
            if name in self.global_names or sym in self.global_names.values():
                raise CodegenError(g, _ONE_NAMESPACE.format(name=name))
            align = max(int(getattr(g.attributes.get("alignment"), "value", 0) or 0), arr.dtype.itemsize, 1)
            data = arr.tobytes()
            self.module_lines.append(f".global .align {align} .b8 {sym}[{len(data)}] = {_bytes_directive(data)};")
            self.global_names[name] = sym

    def declare(self, text: str):
        if text not in self.declarations:
            self.declarations.append(text)

    def bytes_global(self, kernel: str, data: bytes, hint: str) -> str:
        self.counter += 1
        sym = f"{kernel}_{hint}_{self.counter}"
        self.module_lines.append(f".global .align 1 .b8 {sym}[{len(data)}] = {_bytes_directive(data)};")
        return sym

    def const_table(self, kernel: str, arr) -> str:
        self.counter += 1
        sym = f"{kernel}_cst_{self.counter}"
        data = arr.tobytes(order="C")
        self.module_lines.append(f".global .align 16 .b8 {sym}[{len(data)}] = {_bytes_directive(data)};")
        return sym

    def kernel(self, entry) -> list[str]:
        from .ir_layouts import ATTR
        if not any(ATTR in op.attributes for op in entry.walk()):
            # scheduled IR that names no layouts (built by hand, or by an older
            # tilec): propagate them first, so the emitter has one source of truth
            from ...schedule.propagate_layouts import propagate_layouts
            propagate_layouts(entry, self.num_warps)
        em, kb, params, name, threads = self._emit(entry)
        return self._finish(entry, em, kb, params, name, threads)

    def _emit(self, entry):
        name = entry.attributes["sym_name"].value
        kb = KernelBuilder(name)
        threads = cta_threads(entry, self.num_warps)
        em = Emitter(kb, self.target, threads)
        em.cluster = cluster_ctas(entry) or 1
        em.module = self
        em.wgmma = self.wgmma
        em.mma_sync_only = self.mma_sync_only
        em.scratch_limit = self.scratch_limit
        em.copies = self.copies
        em.pingpong = self.pingpong
        em.shared_limit = self._shared_limit()
        em.stamps = self.stamps
        block = entry.regions[0].blocks[0]
        params = []
        for i, arg in enumerate(block.arguments):
            t = arg.type
            if getattr(t, "shape", None) != () or not hasattr(t, "element_type"):
                # the kernel ABI has scalars and pointers only (tileiras refuses the same)
                raise CodegenError(entry, f"entry argument #{i} has type '{t.text()}', but a kernel parameter "
                                          f"must be a rank-0 tile")
            elt = t.element_type
            pname = f"{name}_param_{i}"
            params.append(f"\t.param {param_type(elt)} {pname}")
            r = kb.reg(reg_class(elt))
            if is_pointer(elt):
                raw = kb.reg(B64)
                kb.emit(f"ld.param.u64 \t{raw}, [{pname}]")
                kb.emit(f"cvta.to.global.u64 \t{r}, {raw}")
            elif reg_class(elt) == "pred":
                b = kb.reg(B32)
                kb.emit(f"ld.param.u8 \t{b}, [{pname}]")
                kb.emit(f"setp.ne.u32 \t{r}, {b}, 0")
            else:
                ptype = param_type(elt)
                if ptype in (".u8", ".u16"):
                    ptype = ".s" + ptype[2:]
                kb.emit(f"ld.param{ptype} \t{r}, [{pname}]")
            em.bind(arg, Tile(elt, tuple(t.shape), None, [r]))
        tid = kb.reg(B32)
        kb.emit(f"mov.u32 \t{tid}, %tid.x")
        em.enter_group(tid, threads, 0)
        from .stamps import stamp
        stamp(em, "entry")
        from .ops_tma import device_map_mode
        em.device_maps = {op for op in block.ops if op.name == "nv_tileas.make_tiled_tma_desc"
                          and device_map_mode(self.target, op) is not None}
        if em.device_maps:
            from .tensormap import start_claim
            start_claim(em)
            from .start_phase import wants_phase
            em.phase_align = wants_phase(entry)
        for i, op in enumerate(block.ops):    # phases: shared buffers live in disjoint ones share bytes
            kb.mark_phase(i)
            em.emit_op(op)
        kb.place(em.exit_label)
        if em.cluster_synced:      # no multicast copy or remote arrival may reach a CTA that has left
            from .multicast import cluster_sync
            cluster_sync(em)
        from .tensormap import release_slot
        release_slot(em)
        if em.stamps:
            kb.emit("bar.sync \t0")     # every thread done: the CTA's end, not thread 0's
        stamp(em, "exit")
        kb.emit("ret")
        return em, kb, params, name, threads

    def _shared_limit(self):
        """The shared bytes a CTA of this module may use (None: the target does not say)."""
        limit = _shared_limit(self.target.arch)
        if self.static_shared and not big_static_shared(self.target) and limit is not None:
            limit = min(limit, STATIC_SHARED_LIMIT)     # ptxas takes no more as static memory there
        return limit

    def _finish(self, entry, em, kb, params, name, threads) -> list[str]:
        out = []
        smem = kb.shared_layout()[1]
        limit = self._shared_limit()
        if limit is not None and smem > limit:
            # IR scheduled for a bigger target (or asked for more stages) would fail at launch
            raise SharedMemoryOverflow(entry, f"needs {smem} bytes of shared memory, more than the {limit} bytes "
                                              f"a block may use on {self.target.arch}", smem, limit)
        if smem > STATIC_SHARED_LIMIT and not self.static_shared:
            # over the static limit: the launcher passes `smem` bytes of dynamic
            # shared memory (and raises the kernel's dynamic-shared-memory cap)
            out.append(f"// tilec.dynamic_shared_bytes {name} {smem}")
            out.append(f".extern .shared .align {kb.shared_alignment()} .b8 {kb.shared_symbol}[];")
        elif smem:
            out.append(f".shared .align {kb.shared_alignment()} .b8 {kb.shared_symbol}[{smem}];")
        out += [f".visible .entry {name}(", ",\n".join(params), ")", f".reqntid {threads}, 1, 1"]
        maxnreg = em.maxnreg if em.maxnreg is not None else register_cap(self.target, threads, em.widest, smem)
        if maxnreg is not None:
            out.append(f".maxnreg {maxnreg}")
        ctas = cluster_ctas(entry)
        if ctas:
            # split-tile-blocks cut each tile block over `ctas` CTAs: the launch's grid counts clusters
            out += [f".reqnctapercluster {ctas}, 1, 1", ".blocksareclusters"]
            self.needs_ptx_90 = True
        out.append("{")
        out += kb.declarations()
        if kb.local_bytes:
            out.append(f"\t.local .align 8 .b8 \t{name}_depot[{kb.local_bytes}];")
        out.append("")
        out += kb.body_lines()
        out.append("}")
        return out


def register_cap(target: Target, threads: int, widest: int, smem: int = 0) -> int | None:
    """The `.maxnreg` of a kernel whose registers setmaxnreg does not
    rebalance: the SM's register file for one CTA (at most 255, a multiple of
    8), stated only when one register tile (`widest`: a thread's registers of
    it) takes half of that or more, or when the kernel's shared memory
    (`smem` bytes) leaves room for no second CTA on an SM. Left to itself,
    ptxas gives such a kernel, whose values cannot all live in registers, as
    few as 32 and spills the rest (TileGym's softmax over 32,768-column rows:
    3.7 KB of spills at 32 registers, 1 KB at 255), or aims at CTAs per SM
    its shared memory rules out (the sm_100a chunked recurrence `__10`: 56
    registers, as for three CTAs of 384 threads, and 6,080 B of spills; 168
    and 1,832 B when stated). Otherwise None: ptxas's own choice, which weighs
    occupancy. An `occupancy` hint is not turned into a smaller limit here:
    tilec's CTAs are not tileiras's (its cubins of hinted TileGym kernels use
    more registers than the hint's share of tilec's threads would allow, and
    that share spilled up to 3.4 KB where tilec spilled nothing)."""
    from ...conversion.target import target_for
    t = target_for(target.arch)
    per = t.regs_per_sm // threads
    cap = max(24, min(t.max_regs_per_thread, per // 8 * 8))
    return cap if 2 * widest >= cap or 2 * smem > t.smem_per_sm else None


# `.blocksareclusters` came with PTX ISA 9.0 (CUDA 13.0)
CLUSTER_PTX_VERSION = "9.0"


def cluster_ctas(entry) -> int | None:
    """The CTAs each tile block of `entry` runs on (split-tile-blocks), or None."""
    from ...dialects.nv_tileas.attributes import BLOCKS_ARE_CLUSTERS
    a = entry.attributes.get(BLOCKS_ARE_CLUSTERS)
    return a.value if a is not None and a.value > 1 else None


# every cuda_tile.module is its own symbol table; a PTX module has one
_ONE_NAMESPACE = ("defines '@{name}', which an earlier cuda_tile.module of this input also defines: their PTX "
                  "symbols would collide (compile each module separately)")


WGMMA_NEEDS_SM90A = "wgmma needs sm_90a (the target is {arch})"


def _shared_limit(arch):
    from ...conversion.target import target_for
    t = target_for(arch)
    return t.smem_bytes if t is not None else None


def emit_ptx(ops, arch: str = "sm_90a", num_warps: int = 4, wgmma: bool | None = None,
             scratch_limit: int | None = None, static_shared: bool = False, copies: bool = True,
             stamps: bool = False, pingpong: bool = True) -> str:
    """PTX for every entry of the (lowered, scheduled, verified) top-level `ops`.
    Raises CodegenError for an op the emitter cannot translate. `wgmma` (sm_90a,
    ops_wgmma.py): None, the default, runs on wgmma.mma_async the tensor-core dots
    that read B in place from a swizzled pipeline slot or compute it in
    registers (the ones layout assignment names `#nv_tileas<layout wgmma>`);
    True every dot that fits;
    False none. The other dots run on mma.sync.

    `scratch_limit`: layout changes of bigger tiles go through scratch a block
    of rows at a time. `copies` False: no dot copies operands into a buffer of
    its own for wgmma or tcgen05 (a kernel short of shared memory; they run on
    mma.sync, as the schedule was told). `static_shared`: all shared memory static, for launchers
    that pass no dynamic shared memory (cuTile's): any size on sm_90a (ptxas
    takes it there), at most 48 KiB elsewhere (SharedMemoryOverflow beyond). `stamps`: thread 0
    writes %globaltimer at phase boundaries (stamps.py). `pingpong` False: a
    group's wgmma operand copies share one buffer (canonical._copy_buffer)."""
    target = Target.parse(arch)
    if wgmma is True and not target.wgmma:
        raise CodegenError(None, WGMMA_NEEDS_SM90A.format(arch=target.arch))
    mma_sync_only = wgmma is False
    if wgmma is None:
        from .ops_wgmma import AUTO
        wgmma = AUTO if target.wgmma else False
    me = ModuleEmitter(target, num_warps, wgmma, scratch_limit, static_shared, mma_sync_only, copies, stamps,
                       pingpong)
    me.declare_globals(ops)
    kernels, names = [], set()
    for entry in _kernels(ops):
        name = entry.attributes["sym_name"].value
        if name in names:
            raise CodegenError(entry, _ONE_NAMESPACE.format(name=name))
        names.add(name)
        kernels.append("\n".join(me.kernel(entry)))
    if not kernels:
        raise CodegenError(ops[0] if ops else None, "the module has no entry to compile")
    version = CLUSTER_PTX_VERSION if getattr(me, "needs_ptx_90", False) else target.ptx_version
    head = [f"// Generated by tilec for {target.arch}", f".version {version}",
            f".target {target.arch}", ".address_size 64", ""]
    return "\n".join(head + me.declarations + me.module_lines + [""] + ["\n\n".join(kernels)]) + "\n"
