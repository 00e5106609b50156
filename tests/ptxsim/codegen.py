"""Decoding an .entry: basic blocks, each compiled to one Python function over a thread's registers."""
from __future__ import annotations

import linecache
import re

from .base import GLOBAL_BASE, GLOBAL_GAP, GLOBAL_LEAD, LOCAL_BASE, SHARED_BASE
from .numerics import BF16FMT, F16FMT, F32FMT, F64FMT, INF, _f32
from .ptx import (
    Addr, Imm, Instr, Label, Pair, ParamList, Reg, SPECIAL_PER_CTA, Special, Sym, T, TensorRef, TYPES, Vec,
    _unsupported)
from .tma import TM_FIELDS, field_value_bits


# ============================================================================ code generation

BAR, BAR_ARRIVE, BAR_RED, MBWAIT, MMA, LDMATRIX, SHFL = ("bar", "bar.arrive", "bar.red", "mbwait", "mma", "ldmatrix",
                                                         "shfl")
STMATRIX = "stmatrix"
WSYNC, ELECT, TMCP = "bar.warp.sync", "elect.sync", "tensormap.cp_fenceproxy"   # warp-collective too
SETMAXNREG = "setmaxnreg"      # takes registers from, or gives them to, the CTA's pool (may block)
CB_ARRIVE, CB_WAIT = "barrier.cluster.arrive", "barrier.cluster.wait"   # cluster-wide, across CTAs
from .wgmma import FP8_TYPES, WG_COMMIT, WG_WAIT, WGMMA  # noqa: E402  (warpgroup-collective wait kinds)
from .tcgen05 import (  # noqa: E402  (warp-collective tcgen05 wait kinds)
    MMA_KINDS, TC_ALLOC, TC_DEALLOC, TC_LD, TC_RELINQ, TC_ST, TC_WAIT_LD, TC_WAIT_ST)


class WaitOp:
    def __init__(self, kind, instr, guard, nxt):
        self.kind, self.instr, self.guard, self.next = kind, instr, guard, nxt
        self.args = {}


_FMT = {(1, False): "B", (1, True): "b", (2, False): "H", (2, True): "h", (4, False): "I", (4, True): "i",
        (8, False): "Q", (8, True): "q"}
_SHIFT = {1: 0, 2: 1, 4: 2, 8: 3}


class KernelCodegen:
    """Decoding one `.entry` into basic blocks compiled to Python (the runtime half is runtime.Kernel)."""

    def __init__(self, module, entry):
        self.module, self.entry = module, entry
        self.name = entry.name
        self.regs = entry.regs
        self.nslots = len(entry.regs)
        self._layout_shared()
        self._layout_globals()
        self.local_syms, pos = {}, 0
        for d in entry.local:
            pos = (pos + d.align - 1) // d.align * d.align
            self.local_syms[d.name] = (pos, d.size)
            pos += d.size
        self.local_size = pos
        self.param_loads = []          # (var name, memoryview format, offset, bytes) read at launch
        self.waits = []
        self.instrs = []               # every Instr, by id (lid)
        self.uses_mbarrier = any(isinstance(x, Instr) and (x.op == "mbarrier" or x.op == "cp")
                                 for x in entry.body)
        self.uses_wgmma = any(isinstance(x, Instr) and x.op == "wgmma" for x in entry.body)
        # TMA stores (cp.async.bulk.tensor ... .bulk_group): generic shared stores are tracked per byte
        # for fence.proxy.async and for overwriting a store's source before it is read
        self.uses_bulk_store = any(isinstance(x, Instr) and x.op == "cp" and x.mods[:2] == ["async", "bulk"]
                                   and "bulk_group" in x.mods for x in entry.body)
        # both read shared memory through the async proxy: the latest generic store to each shared byte
        # (PXW) and each thread's latest fence.proxy.async (PXF) tell whether the proxy may see it (tma.py)
        # tcgen05 (tcgen05.py): Tensor Memory; tcgen05.mma reads shared memory through the async proxy
        self.uses_tcgen05 = any(isinstance(x, Instr) and x.op == "tcgen05" for x in entry.body)
        self.uses_tc_mma = any(isinstance(x, Instr) and x.op == "tcgen05" and x.mods[:1] == ["mma"]
                               for x in entry.body)
        self.tracks_proxy = self.uses_wgmma or self.uses_bulk_store or self.uses_tc_mma
        # registers any register-A wgmma.mma_async reads: wgmma.fence records their values
        aregs = {x.slot: x for ins in entry.body if isinstance(ins, Instr) and ins.op == "wgmma"
                 and ins.mods[:1] == ["mma_async"] and len(ins.operands) == 7 and isinstance(ins.operands[1], Vec)
                 for x in ins.operands[1].items if isinstance(x, Reg)}
        self.wg_aregs = [aregs[s] for s in sorted(aregs)]
        # thread-block clusters: the size .reqnctapercluster fixes (1 without one)
        cl = entry.cluster or (1, 1, 1)
        self.cl_size = cl[0] * cl[1] * cl[2]
        self.uses_cbar = any(isinstance(x, Instr) and x.op == "barrier" and x.mods[:1] == ["cluster"]
                             for x in entry.body)
        self.ns = self._namespace()
        self._compile()

    # ---- layout ---------------------------------------------------------------------
    def _layout_shared(self):
        self.shared_syms = {}
        pos = 0
        extern = None
        for d in list(self.module.shared) + list(self.entry.shared):
            if d.extern:
                extern = d
                continue
            pos = (pos + d.align - 1) // d.align * d.align
            self.shared_syms[d.name] = (pos, d.size)
            pos += d.size
        self.static_shared = pos
        self.extern_shared = extern
        if extern is not None:
            pos = (pos + max(extern.align, 16) - 1) // max(extern.align, 16) * max(extern.align, 16)
            self.shared_syms[extern.name] = (pos, None)

    def _layout_globals(self):
        self.global_syms = {}
        pos = GLOBAL_LEAD
        for d in self.module.globals:
            a = max(d.align, 16)
            pos = (pos + a - 1) // a * a
            self.global_syms[d.name] = (pos, d.size, d.init)
            pos += d.size + GLOBAL_GAP
        self.globals_end = pos

    # ---- compile ----------------------------------------------------------------------
    def _compile(self):
        body = self.entry.body
        blocks, cur, labels = [], [], {}
        for item in body:
            if isinstance(item, tuple):
                if cur:
                    blocks.append(cur)
                    cur = []
                labels[item[1]] = len(blocks)
                continue
            item.lid = len(self.instrs)
            self.instrs.append(item)
            cur.append(item)
            if item.op in ("bra", "ret", "exit") or self._is_wait(item):
                blocks.append(cur)
                cur = []
        if cur or not blocks:
            blocks.append(cur)
        # labels at the very end point one past the last block: give them an exit block
        self.labels = labels
        nblocks = len(blocks)
        if any(v >= nblocks for v in labels.values()):
            blocks.append([])
        self.block_instrs = blocks
        self.src_lines = []
        self.line_map = {}                 # generated line -> PTX line
        fn_names = []
        for k, ins in enumerate(blocks):
            fn_names.append(self._gen_block(k, ins, len(blocks)))
        filename = f"<ptxsim {self.name} {id(self):x}>"
        source = "\n".join(self.src_lines) + "\n"
        self.source = source
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        self.filename = filename
        exec(compile(source, filename, "exec"), self.ns)
        self.block_fns = [self.ns[f] for f in fn_names]

    def _is_wait(self, ins):
        if ins.op in ("bar", "barrier", "mma", "ldmatrix", "stmatrix", "shfl", "elect", "setmaxnreg"):
            return True
        if ins.op == "tensormap" and ins.mods[:1] == ["cp_fenceproxy"]:
            return True
        if ins.op == "wgmma" and ins.mods[:1] in (["mma_async"], ["commit_group"], ["wait_group"]):
            return True
        if ins.op == "tcgen05" and ins.mods[:1] in (["alloc"], ["dealloc"], ["relinquish_alloc_permit"], ["ld"],
                                                    ["st"], ["wait::ld"], ["wait::st"]):
            return True
        return ins.op == "mbarrier" and ins.mods and ins.mods[0] in ("test_wait", "try_wait")

    # ---- emitting Python ---------------------------------------------------------------------
    def _gen_block(self, k, instrs, nblocks):
        name = f"B{k}"
        out = []
        self._out, self._cur = out, None
        used, written = set(), set()
        self._used = used
        for ins in instrs:
            for o in ins.operands:
                self._collect(o, used)
            if ins.guard:
                used.add(ins.guard[0])
        term = f"return {k + 1 if k + 1 < nblocks else -1}"
        for ins in instrs:
            self._cur = ins
            self._lid = ins.lid
            start = len(out)
            t = self._gen_instr(ins, k, nblocks, written)
            if t is not None:
                term = t
            out[start:] = [(ins.lineno, line) for line in out[start:]]
        lines = [f"def {name}(R):"]
        lines += [f"    {r.var} = R[{r.slot}]" for r in sorted(used, key=lambda r: r.slot)]
        base = len(self.src_lines) + 1           # generated line number of lines[0]
        for pl, line in out:
            self.line_map[base + len(lines)] = pl
            lines.append("    " + line)
        for r in sorted(written, key=lambda r: r.slot):
            lines.append(f"    R[{r.slot}] = {r.var}")
        lines.append(f"    {term}")
        self.src_lines += lines
        return name

    def _collect(self, o, used):
        if isinstance(o, Reg):
            used.add(o)
        elif isinstance(o, Addr) and isinstance(o.base, Reg):
            used.add(o.base)
        elif isinstance(o, Vec):
            for x in o.items:
                self._collect(x, used)
        elif isinstance(o, TensorRef):
            self._collect(o.base, used)
            self._collect(o.coords, used)
        elif isinstance(o, Pair):
            for x in (o.first, o.second):
                if x is not None:
                    self._collect(x, used)

    def _emit(self, line):
        self._out.append(line)

    def _guarded(self, ins, lines):
        if ins.guard:
            r, sense = ins.guard
            self._emit(f"if {'' if sense else 'not '}{r.var}:")
            for l in lines:
                self._emit("    " + l)
        else:
            for l in lines:
                self._emit(l)

    def _fail(self, what=None):
        ins = self._cur
        _unsupported(what, ins.lineno, ins.text)

    # operands ---------------------------------------------------------------------------------
    def rd(self, o, t, signed=None):
        """Python expression reading operand `o` as a value of type `t` (T): an int of
        t.width bits (signed if `signed`, default t.signed for kind i), a float for
        f/d, a bool for p."""
        kind = t.kind if t.kind in ("f", "d", "p") else "i"
        width = t.width
        if signed is None:
            signed = t.signed and t.kind == "i"
        if isinstance(o, Imm):
            if kind == "p":
                return "True" if (o.ival or 0) else "False"
            if kind in ("f", "d"):
                if o.fbits is not None:
                    if kind == "f" and o.fbits == 64:
                        v = _f32(o.fval)
                    elif kind == "d" and o.fbits == 32:
                        v = o.fval
                    else:
                        v = o.fval
                elif o.fval is not None:
                    v = _f32(o.fval) if kind == "f" else o.fval
                else:
                    v = float(o.ival) if kind == "d" else _f32(float(o.ival))
                return self._flit(v)
            if o.ival is None:
                self._fail("a float literal where an integer is wanted")
            v = o.ival & ((1 << width) - 1)
            if signed and v >> (width - 1):
                v -= 1 << width
            return str(v)
        if isinstance(o, Sym):
            return str(self._sym_addr(o.name) + o.off)
        if isinstance(o, Special):
            return SPECIAL_PER_CTA[o.name]
        if not isinstance(o, Reg):
            self._fail("operand form")
        v = o.var
        if kind == "p":
            if o.kind != "p":
                self._fail("a non-predicate register where a predicate is wanted")
            return v
        if o.kind == "p":
            self._fail("a predicate register where a value is wanted")
        if kind == "f":
            if o.kind == "f":
                return v
            if o.kind == "i":
                return f"_u2f({v} & 0xFFFFFFFF)" if o.width > 32 else f"_u2f({v})"
            self._fail("an f64 register read as f32")
        if kind == "d":
            if o.kind == "d":
                return v
            if o.kind == "i" and o.width == 64:
                return f"_u2d({v})"
            self._fail("register class mismatch (f64)")
        # integer
        if o.kind == "f":
            e = f"_f2u({v})"
            ow = 32
        elif o.kind == "d":
            e = f"_d2u({v})"
            ow = 64
        else:
            e, ow = v, o.width
        if ow > width:
            e = f"({e} & {hex((1 << width) - 1)})"
        if signed:
            e = self._sx(e, width)
        return e

    @staticmethod
    def _sx(e, w):
        h = 1 << (w - 1)
        return f"(({e} ^ {hex(h)}) - {hex(h)})"

    @staticmethod
    def _flit(v):
        if v != v:
            return "NAN"
        if v == INF:
            return "INF"
        if v == -INF:
            return "-INF"
        r = repr(v)
        return f"({r})" if r.startswith("-") else r

    def wr(self, d, t, expr, written):
        """Statements writing value `expr` (of type t: int of t.width bits already
        masked, float for f/d, bool for p) into destination register `d`."""
        if not isinstance(d, Reg):
            self._fail("destination must be a register")
        written.add(d)
        kind = t.kind if t.kind in ("f", "d", "p") else "i"
        v = d.var
        if kind == "p" or d.kind == "p":
            if kind != d.kind:
                self._fail("predicate/value register mismatch")
            return [f"{v} = {expr}"]
        if d.kind == kind and (kind != "i" or d.width >= t.width):
            return [f"{v} = {expr}"]
        if d.kind == "i" and kind == "i":
            return [f"{v} = ({expr}) & {hex((1 << d.width) - 1)}"]
        if d.kind == "i" and kind == "f":
            return [f"{v} = _f2u({expr})"]
        if d.kind == "i" and kind == "d":
            return [f"{v} = _d2u({expr})"]
        if d.kind == "f" and kind == "i" and t.width == 32:
            return [f"{v} = _u2f({expr})"]
        if d.kind == "d" and kind == "i" and t.width == 64:
            return [f"{v} = _u2d({expr})"]
        self._fail(f"cannot write a .{t.name} value to {d.name} (.{d.decl})")

    def _sym_addr(self, name):
        if name in self.local_syms:
            return LOCAL_BASE + self.local_syms[name][0]
        if name in self.shared_syms:
            return SHARED_BASE + self.shared_syms[name][0]
        if name in self.global_syms:
            return GLOBAL_BASE + self.global_syms[name][0]
        self._fail(f"unknown symbol {name}")

    def _type(self, name):
        if name not in TYPES:
            self._fail(f"type .{name}")
        return T(name)

    # instructions --------------------------------------------------------------------------------
    def _gen_instr(self, ins, k, nblocks, written):
        op = ins.op
        h = getattr(self, f"_i_{op}", None)
        if h is None:
            self._fail(None)
        return h(ins, written, k, nblocks)

    def _mods(self, ins, allowed):
        bad = [m for m in ins.mods if m not in allowed and m not in TYPES]
        if bad:
            self._fail(f"modifier(s) {', '.join('.' + b for b in bad)}")

    def _types(self, ins, n=1):
        ts = [m for m in ins.mods if m in TYPES]
        if len(ts) != n:
            self._fail("instruction type")
        return [T(x) for x in ts]

    def _nops(self, ins, *ns):
        if len(ins.operands) not in ns:
            self._fail("operand count")

    # control
    def _label_block(self, o):
        if not isinstance(o, (Label, Sym)) or o.name not in self.labels:
            self._fail("branch target")
        return self.labels[o.name]

    def _i_bra(self, ins, written, k, nblocks):
        self._mods(ins, {"uni"})
        self._nops(ins, 1)
        tgt = self._label_block(ins.operands[0])
        nxt = k + 1 if k + 1 < nblocks else -1
        if ins.guard:
            r, sense = ins.guard
            return f"return {tgt} if {r.var} else {nxt}" if sense else f"return {nxt} if {r.var} else {tgt}"
        return f"return {tgt}"

    def _i_ret(self, ins, written, k, nblocks):
        self._mods(ins, {"uni"})
        nxt = k + 1 if k + 1 < nblocks else -1
        if ins.guard:
            r, sense = ins.guard
            return f"return -1 if {r.var} else {nxt}" if sense else f"return {nxt} if {r.var} else -1"
        return "return -1"

    _i_exit = _i_ret

    def _wait(self, ins, kind, k, nblocks):
        w = WaitOp(kind, ins, ins.guard, k + 1 if k + 1 < nblocks else -1)
        self.waits.append(w)
        return w, f"return {-2 - (len(self.waits) - 1)}"

    def _wait_val(self, o):
        """Runner-side accessor for an operand: ('imm', v) or ('reg', slot)."""
        if isinstance(o, Imm) and o.ival is not None:
            return ("imm", o.ival)
        if isinstance(o, Reg) and o.kind == "i":
            return ("reg", o.slot)
        self._fail("operand form")

    def _wait_addr(self, mem):
        """Runner-side accessor for a memory operand: ('reg', slot, offset) or ('imm', address, 0)."""
        if isinstance(mem.base, Reg):
            return ("reg", mem.base.slot, mem.off)
        if isinstance(mem.base, Sym):
            return ("imm", self._sym_addr(mem.base.name) + mem.off, 0)
        return ("imm", mem.off, 0)

    def _i_bar(self, ins, written, k, nblocks):
        if ins.op == "barrier" and ins.mods[:1] == ["cluster"]:
            return self._gen_barrier_cluster(ins, k, nblocks)
        if ins.mods == ["warp", "sync"]:        # bar.warp.sync membermask: the lanes of membermask meet
            self._nops(ins, 1)
            w, term = self._wait(ins, WSYNC, k, nblocks)
            w.args["mask"] = self._wait_val(ins.operands[0])
            return term
        mods = [m for m in ins.mods if m not in ("aligned", "cta")]
        if len(mods) == 3 and mods[0] == "red" and mods[1] in ("and", "or") and mods[2] == "pred":
            self._nops(ins, 3, 4)
            d, src = ins.operands[0], ins.operands[-1]
            if not (isinstance(d, Reg) and d.kind == "p" and isinstance(src, Reg) and src.kind == "p"):
                self._fail("bar.red operands")
            w, term = self._wait(ins, BAR_RED, k, nblocks)
            w.args["id"] = self._wait_val(ins.operands[1])
            w.args["count"] = self._wait_val(ins.operands[2]) if len(ins.operands) == 4 else None
            w.args["op"], w.args["dst"], w.args["src"] = mods[1], d.slot, src.slot
            return term
        if mods not in (["sync"], ["arrive"]):
            self._fail(None)
        self._nops(ins, 1, 2)
        w, term = self._wait(ins, BAR if mods == ["sync"] else BAR_ARRIVE, k, nblocks)
        w.args["id"] = self._wait_val(ins.operands[0])
        w.args["count"] = self._wait_val(ins.operands[1]) if len(ins.operands) > 1 else None
        return term

    _i_barrier = _i_bar

    def _gen_barrier_cluster(self, ins, k, nblocks):
        """barrier.cluster.arrive{.release,.relaxed}{.aligned} and barrier.cluster.wait{.acquire}{.aligned}:
        the runner counts each thread's arrival once per phase (runtime.Kernel._barrier_cluster)."""
        mods = ins.mods[1:-1] if ins.mods[-1] == "aligned" else ins.mods[1:]
        if mods not in (["arrive"], ["arrive", "release"], ["arrive", "relaxed"], ["wait"], ["wait", "acquire"]):
            self._fail("barrier.cluster form (.arrive{.release,.relaxed}{.aligned} or .wait{.acquire}{.aligned})")
        self._nops(ins, 0)
        w, term = self._wait(ins, CB_ARRIVE if mods[0] == "arrive" else CB_WAIT, k, nblocks)
        w.args["release"] = mods != ["arrive", "relaxed"]
        w.args["aligned"] = ins.mods[-1] == "aligned"
        return term

    _CLUSTER_RELEASES = (["mbarrier_init", "release", "cluster"], ["sc", "cluster"], ["acq_rel", "cluster"],
                         ["release", "cluster"], ["sc", "gpu"], ["acq_rel", "gpu"], ["release", "gpu"],
                         ["sc", "sys"], ["acq_rel", "sys"], ["release", "sys"], ["gl"], ["sys"])

    def _i_fence(self, ins, written, k, nblocks):
        if ins.mods[:1] == ["mbarrier_init"] and ins.mods != ["mbarrier_init", "release", "cluster"]:
            self._fail("fence.mbarrier_init form (only .release.cluster)")
        if self.cl_size > 1 and self.uses_mbarrier and ins.mods in self._CLUSTER_RELEASES:
            # a release at cluster scope (or wider) makes the CTA's mbarrier.init visible to the cluster
            self._guarded(ins, [f"_cl_release({self._lid})"])
            return
        if ins.mods[:2] == ["proxy", "tensormap::generic"]:
            sem = [m for m in ins.mods[2:] if m in ("release", "acquire")]
            scope = [m for m in ins.mods[2:] if m in ("cta", "cluster", "gpu", "sys")]
            if len(sem) != 1 or len(scope) != 1 or len(ins.mods) != 4:
                self._fail("fence.proxy.tensormap::generic form (.release.<scope> or .acquire.<scope> [addr], 128)")
            if sem == ["release"]:
                self._nops(ins, 0)
                self._emit("pass")
                return
            self._nops(ins, 2)
            a, size = ins.operands
            if not isinstance(size, Imm) or size.ival is None:
                self._fail("fence.proxy.tensormap::generic.acquire size")
            self._guarded(ins, [f"_tm_acquire({self._lid}, {self._raw_addr(a)}, {size.ival})"])
            return
        if self.tracks_proxy and ins.mods[:2] == ["proxy", "async"]:
            ep = self.regs["%%epkey"]      # the thread's shared stores are now visible to the async proxy
            self._used.add(ep)
            lines = []
            if ins.mods[2:] in ([], ["shared::cta"], ["shared::cluster"]):
                # (.global orders no shared stores)
                lines += ["PXC[0] += 1", f"PXF[{ep.var} & 4095] = PXC[0]"]
            self._guarded(ins, lines or ["pass"])
            return
        self._emit("pass")

    _i_membar = _i_fence
    _i_griddepcontrol = _i_fence   # one grid at a time: dependent-launch control orders nothing

    # moves
    def _i_mov(self, ins, written, k, nblocks):
        (t,) = self._types(ins)
        self._mods(ins, set())
        self._nops(ins, 2)
        d, a = ins.operands
        if isinstance(d, Vec):            # unpack
            n = len(d.items)
            w = t.width // n
            et = T(f"b{w}")
            src = self.rd(a, T(f"b{t.width}"))
            lines = [f"_t = {src}"]
            for i, x in enumerate(d.items):
                lines += self.wr(x, et, f"(_t >> {i * w}) & {hex((1 << w) - 1)}", written)
            self._guarded(ins, lines)
            return
        if isinstance(a, Vec):            # pack
            n = len(a.items)
            w = t.width // n
            et = T(f"b{w}")
            parts = [f"({self.rd(x, et)} << {i * w})" if i else self.rd(x, et) for i, x in enumerate(a.items)]
            self._guarded(ins, self.wr(d, T(f"b{t.width}"), " | ".join(parts), written))
            return
        if isinstance(a, Special) and a.name == "%globaltimer":
            if t.width != 64:
                self._fail("%globaltimer is read by mov.u64")
            self._guarded(ins, self.wr(d, T("u64"), "_gtimer()", written))
            return
        if isinstance(a, Special) and (a.name == "%is_explicit_cluster") != (t.kind == "p"):
            self._fail("%is_explicit_cluster is read by mov.pred, other special registers by mov.u32")
        if t.kind == "p":
            self._guarded(ins, self.wr(d, t, self.rd(a, t), written))
            return
        if isinstance(a, Special):
            self._guarded(ins, self.wr(d, T("u32"), SPECIAL_PER_CTA[a.name], written))
            return
        if isinstance(a, Sym):
            self._guarded(ins, self.wr(d, T(f"u{max(t.width, 32)}"), str(self._sym_addr(a.name) + a.off),
                                       written))
            return
        # a bit copy: keep the destination's storage kind where we can
        if isinstance(d, Reg) and d.kind in ("f", "d") and t.width == d.width:
            st = T("f32" if d.kind == "f" else "f64")
        elif t.kind in ("f", "d"):
            st = t
        else:
            st = T(f"b{t.width}")
        if isinstance(a, Reg) and a.kind in ("f", "d") and st.kind == "i" and isinstance(d, Reg) and \
                d.kind == a.kind:
            st = T("f32" if a.kind == "f" else "f64")
        self._guarded(ins, self.wr(d, st, self.rd(a, st), written))

    def _i_cvta(self, ins, written, k, nblocks):
        (t,) = self._types(ins)
        self._mods(ins, {"to", "global", "shared", "local", "const", "param"})
        if "const" in ins.mods or "param" in ins.mods:
            self._fail(".const/.param address conversion")
        self._nops(ins, 2)
        d, a = ins.operands
        src = self.rd(a, t)
        if "local" in ins.mods:
            if t.width != 64:
                self._fail("32-bit local address conversion")
            loc = self.regs["%%local"]
            self._used.add(loc)
            fn = "_cvta_to_local" if "to" in ins.mods else "_cvta_local"
            src = f"{fn}({loc.var}, {src})"
        self._guarded(ins, self.wr(d, t, src, written))

    # integer / float arithmetic
    def _arith_setup(self, ins, allowed):
        self._mods(ins, allowed)
        (t,) = self._types(ins)
        return t

    def _round_f(self, t, expr, ins, mods):
        """Statements setting _r to expr rounded into type t (f: f32, d: f64)."""
        rnd = [m for m in mods if m in ("rn", "rz", "rm", "rp")]
        mode = rnd[0] if rnd else "rn"
        if t.kind == "f":
            if mode == "rn":
                return [f"_MF[0] = {expr}", "_r = _MF[0]"]
            return [f"_r = _round_exact({expr}, F32FMT, '{mode}')"]
        if mode == "rn":
            return [f"_r = {expr}"]
        return [f"_r = _round_exact({expr}, F64FMT, '{mode}')"]

    def _float_post(self, t, ins, lines):
        if "ftz" in ins.mods and t.kind == "f":
            lines.append("_r = _ftz32(_r)")
        if "sat" in ins.mods:
            lines.append("_r = _sat01(_r)")
        return lines

    def _float_ins(self, t, ins):
        return [f"_ftz32({self.rd(o, t)})" if "ftz" in ins.mods and t.kind == "f" else self.rd(o, t)
                for o in ins.operands[1:]]

    def _binop_float(self, ins, t, pyop, written):
        a, b = self._float_ins(t, ins)
        rnd = [m for m in ins.mods if m in ("rz", "rm", "rp")]
        if rnd:
            lines = [f"_r = _dirround({a}, {b}, '{pyop}', {'F32FMT' if t.kind == 'f' else 'F64FMT'}, "
                     f"'{rnd[0]}')"]
        else:
            lines = self._round_f(t, f"{a} {pyop} {b}", ins, [])
        self._float_post(t, ins, lines)
        self._guarded(ins, lines + self.wr(ins.operands[0], t, "_r", written))

    def _i_add(self, ins, written, k, nblocks):
        t = self._arith_setup(ins, {"rn", "rz", "rm", "rp", "ftz", "sat", "cc"} - {"cc"})
        self._nops(ins, 3)
        if t.is_float:
            if t.kind not in ("f", "d"):
                self._fail("f16/bf16 arithmetic")
            return self._binop_float(ins, t, "+", written)
        a, b = (self.rd(o, t, signed="sat" in ins.mods) for o in ins.operands[1:])
        if "sat" in ins.mods:
            if not t.signed:
                self._fail(".sat on an unsigned add")
            h = 1 << (t.width - 1)
            e = f"_clamp({a} + {b}, {-h}, {h - 1}) & {hex(t.mask)}"
        else:
            e = f"({a} + {b}) & {hex(t.mask)}"
        self._guarded(ins, self.wr(ins.operands[0], t, e, written))

    def _i_sub(self, ins, written, k, nblocks):
        t = self._arith_setup(ins, {"rn", "rz", "rm", "rp", "ftz", "sat"})
        self._nops(ins, 3)
        if t.is_float:
            if t.kind not in ("f", "d"):
                self._fail("f16/bf16 arithmetic")
            return self._binop_float(ins, t, "-", written)
        a, b = (self.rd(o, t, signed="sat" in ins.mods) for o in ins.operands[1:])
        if "sat" in ins.mods:
            h = 1 << (t.width - 1)
            e = f"_clamp({a} - {b}, {-h}, {h - 1}) & {hex(t.mask)}"
        else:
            e = f"({a} - {b}) & {hex(t.mask)}"
        self._guarded(ins, self.wr(ins.operands[0], t, e, written))

    def _i_mul(self, ins, written, k, nblocks):
        t = self._arith_setup(ins, {"rn", "rz", "rm", "rp", "ftz", "sat", "lo", "hi", "wide"})
        self._nops(ins, 3)
        if t.is_float:
            if t.kind not in ("f", "d"):
                self._fail("f16/bf16 arithmetic")
            return self._binop_float(ins, t, "*", written)
        a, b = (self.rd(o, t) for o in ins.operands[1:])
        if "wide" in ins.mods:
            wt = T(f"{'s' if t.signed else 'u'}{2 * t.width}")
            e = f"({a} * {b}) & {hex(wt.mask)}"
            self._guarded(ins, self.wr(ins.operands[0], wt, e, written))
            return
        if "hi" in ins.mods:
            e = f"(({a} * {b}) >> {t.width}) & {hex(t.mask)}"
        elif "lo" in ins.mods:
            a, b = (self.rd(o, t, signed=False) for o in ins.operands[1:])
            e = f"({a} * {b}) & {hex(t.mask)}"
        else:
            self._fail("integer mul without .lo/.hi/.wide")
        self._guarded(ins, self.wr(ins.operands[0], t, e, written))

    def _i_mad(self, ins, written, k, nblocks):
        t = self._arith_setup(ins, {"rn", "rz", "rm", "rp", "ftz", "sat", "lo", "hi", "wide"})
        self._nops(ins, 4)
        if t.is_float:
            return self._fma(ins, t, written)
        a, b = (self.rd(o, t) for o in ins.operands[1:3])
        if "wide" in ins.mods:
            wt = T(f"{'s' if t.signed else 'u'}{2 * t.width}")
            c = self.rd(ins.operands[3], wt)
            e = f"({a} * {b} + {c}) & {hex(wt.mask)}"
            self._guarded(ins, self.wr(ins.operands[0], wt, e, written))
            return
        c = self.rd(ins.operands[3], t)
        if "hi" in ins.mods:
            if "sat" in ins.mods:
                self._fail("mad.hi.sat")
            e = f"((({a} * {b}) >> {t.width}) + {c}) & {hex(t.mask)}"
        elif "lo" in ins.mods:
            a, b, c = (self.rd(o, t, signed=False) for o in ins.operands[1:])
            e = f"({a} * {b} + {c}) & {hex(t.mask)}"
        else:
            self._fail("integer mad without .lo/.hi/.wide")
        self._guarded(ins, self.wr(ins.operands[0], t, e, written))

    def _fma(self, ins, t, written):
        if t.kind not in ("f", "d"):
            self._fail("f16/bf16 fma")
        a, b, c = self._float_ins(t, ins)
        rnd = [m for m in ins.mods if m in ("rz", "rm", "rp")]
        if rnd:
            lines = [f"_r = _fma_dir({a}, {b}, {c}, {'F32FMT' if t.kind == 'f' else 'F64FMT'}, '{rnd[0]}')"]
        elif t.kind == "f":
            lines = [f"_a = {a}", f"_b = {b}", f"_c = {c}",
                     "_p = _a * _b", "_s = _p + _c", "_MF[0] = _s", "_r = _MF[0]",
                     "if abs(_frexp(_s - _r)[0]) == 0.5: _r = _fma32_fix(_p, _c, _s, _r)"]
        else:
            lines = [f"_r = _fma64({a}, {b}, {c})"]
        self._float_post(t, ins, lines)
        self._guarded(ins, lines + self.wr(ins.operands[0], t, "_r", written))

    def _i_fma(self, ins, written, k, nblocks):
        t = self._arith_setup(ins, {"rn", "rz", "rm", "rp", "ftz", "sat"})
        self._nops(ins, 4)
        if not any(m in ins.mods for m in ("rn", "rz", "rm", "rp")):
            self._fail("fma without a rounding modifier")
        return self._fma(ins, t, written)

    def _i_div(self, ins, written, k, nblocks):
        t = self._arith_setup(ins, {"rn", "rz", "rm", "rp", "ftz", "approx", "full"})
        self._nops(ins, 3)
        if t.is_float:
            if t.kind not in ("f", "d"):
                self._fail("f16/bf16 division")
            a, b = self._float_ins(t, ins)
            rnd = [m for m in ins.mods if m in ("rz", "rm", "rp")]
            if rnd:
                lines = [f"_r = _dirround({a}, {b}, '/', {'F32FMT' if t.kind == 'f' else 'F64FMT'}, '{rnd[0]}')"]
            else:
                lines = self._round_f(t, f"_fdiv({a}, {b})", ins, [])
            self._float_post(t, ins, lines)
            self._guarded(ins, lines + self.wr(ins.operands[0], t, "_r", written))
            return
        a, b = (self.rd(o, t) for o in ins.operands[1:])
        e = f"_sdiv({a}, {b}, {t.width})" if t.signed else f"_udiv({a}, {b}, {t.width})"
        self._guarded(ins, self.wr(ins.operands[0], t, e, written))

    def _i_rem(self, ins, written, k, nblocks):
        t = self._arith_setup(ins, set())
        self._nops(ins, 3)
        if t.is_float:
            self._fail("float rem")
        a, b = (self.rd(o, t) for o in ins.operands[1:])
        e = f"_srem({a}, {b}, {t.width})" if t.signed else f"_urem({a}, {b}, {t.width})"
        self._guarded(ins, self.wr(ins.operands[0], t, e, written))

    def _minmax(self, ins, written, which):
        t = self._arith_setup(ins, {"ftz", "NaN"})
        self._nops(ins, 3)
        if t.is_float:
            if t.kind not in ("f", "d"):
                self._fail("f16/bf16 min/max")
            a, b = self._float_ins(t, ins)
            fn = f"_f{which}{'_nan' if 'NaN' in ins.mods else ''}"
            lines = [f"_r = {fn}({a}, {b})"]
            self._float_post(t, ins, lines)
            self._guarded(ins, lines + self.wr(ins.operands[0], t, "_r", written))
            return
        a, b = (self.rd(o, t) for o in ins.operands[1:])
        cmp = "<" if which == "min" else ">"
        lines = [f"_a = {a}", f"_b = {b}", f"_r = _a if _a {cmp} _b else _b"]
        self._guarded(ins, lines + self.wr(ins.operands[0], t, f"_r & {hex(t.mask)}", written))

    def _i_min(self, ins, written, k, nblocks):
        return self._minmax(ins, written, "min")

    def _i_max(self, ins, written, k, nblocks):
        return self._minmax(ins, written, "max")

    def _i_neg(self, ins, written, k, nblocks):
        t = self._arith_setup(ins, {"ftz"})
        self._nops(ins, 2)
        if t.is_float:
            a = self._float_ins(t, ins)[0]
            self._guarded(ins, self.wr(ins.operands[0], t, f"-{a}", written))
            return
        a = self.rd(ins.operands[1], t)
        self._guarded(ins, self.wr(ins.operands[0], t, f"(-{a}) & {hex(t.mask)}", written))

    def _i_abs(self, ins, written, k, nblocks):
        t = self._arith_setup(ins, {"ftz"})
        self._nops(ins, 2)
        if t.is_float:
            a = self._float_ins(t, ins)[0]
            self._guarded(ins, self.wr(ins.operands[0], t, f"abs({a})", written))
            return
        a = self.rd(ins.operands[1], t, signed=True)
        self._guarded(ins, self.wr(ins.operands[0], t, f"abs({a}) & {hex(t.mask)}", written))

    def _bitop(self, ins, written, pyop):
        t = self._arith_setup(ins, set())
        self._nops(ins, 3)
        if t.kind == "p":
            a, b = (self.rd(o, t) for o in ins.operands[1:])
            e = {"&": f"({a} and {b})", "|": f"({a} or {b})", "^": f"({a} != {b})"}[pyop]
            self._guarded(ins, self.wr(ins.operands[0], t, e, written))
            return
        if t.kind != "i":
            self._fail("bit operation type")
        a, b = (self.rd(o, t, signed=False) for o in ins.operands[1:])
        self._guarded(ins, self.wr(ins.operands[0], t, f"{a} {pyop} {b}", written))

    def _i_and(self, ins, written, k, nblocks):
        return self._bitop(ins, written, "&")

    def _i_or(self, ins, written, k, nblocks):
        return self._bitop(ins, written, "|")

    def _i_xor(self, ins, written, k, nblocks):
        return self._bitop(ins, written, "^")

    def _i_not(self, ins, written, k, nblocks):
        t = self._arith_setup(ins, set())
        self._nops(ins, 2)
        if t.kind == "p":
            self._guarded(ins, self.wr(ins.operands[0], t, f"not {self.rd(ins.operands[1], t)}", written))
            return
        a = self.rd(ins.operands[1], t, signed=False)
        self._guarded(ins, self.wr(ins.operands[0], t, f"{a} ^ {hex(t.mask)}", written))

    def _i_shl(self, ins, written, k, nblocks):
        t = self._arith_setup(ins, set())
        self._nops(ins, 3)
        a = self.rd(ins.operands[1], t, signed=False)
        b = self.rd(ins.operands[2], T("u32"))
        e = f"({a} << {b}) & {hex(t.mask)}" if isinstance(ins.operands[2], Imm) else \
            f"(({a} << _b) & {hex(t.mask)} if _b < {t.width} else 0)"
        lines = [] if isinstance(ins.operands[2], Imm) else [f"_b = {b}"]
        self._guarded(ins, lines + self.wr(ins.operands[0], t, e, written))

    def _i_shr(self, ins, written, k, nblocks):
        t = self._arith_setup(ins, set())
        self._nops(ins, 3)
        b = self.rd(ins.operands[2], T("u32"))
        if t.signed:
            a = self.rd(ins.operands[1], t, signed=True)
            e = f"({a} >> min({b}, {t.width - 1})) & {hex(t.mask)}"
        else:
            a = self.rd(ins.operands[1], t, signed=False)
            e = f"{a} >> {b}"
        self._guarded(ins, self.wr(ins.operands[0], t, e, written))

    def _i_selp(self, ins, written, k, nblocks):
        t = self._arith_setup(ins, set())
        self._nops(ins, 4)
        if t.kind in ("h", "bf", "x"):
            t = T(f"b{t.width}")
        a, b = (self.rd(o, t) for o in ins.operands[1:3])
        p = self.rd(ins.operands[3], T("pred"))
        if t.kind == "i":
            a, b = (self.rd(o, t, signed=False) for o in ins.operands[1:3])
        self._guarded(ins, self.wr(ins.operands[0], t, f"{a} if {p} else {b}", written))

    _CMP_INT = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
                "lo": "<", "ls": "<=", "hi": ">", "hs": ">="}

    def _cmp_expr(self, cmp, t, a, b):
        if t.kind in ("f", "d"):
            if cmp in ("eq", "lt", "le", "gt", "ge"):
                return f"({a} {self._CMP_INT[cmp]} {b})"
            if cmp == "ne":
                return f"({a} != {b} and {a} == {a} and {b} == {b})"
            if cmp in ("equ", "ltu", "leu", "gtu", "geu"):
                inv = {"equ": "!=", "ltu": ">=", "leu": ">", "gtu": "<=", "geu": "<"}[cmp]
                if cmp == "equ":
                    return f"({a} == {b} or {a} != {a} or {b} != {b})"
                return f"(not ({a} {inv} {b}))"
            if cmp == "neu":
                return f"({a} != {b})"
            if cmp == "num":
                return f"({a} == {a} and {b} == {b})"
            if cmp == "nan":
                return f"({a} != {a} or {b} != {b})"
            self._fail(f"comparison .{cmp}")
        if cmp not in self._CMP_INT:
            self._fail(f"comparison .{cmp}")
        return f"({a} {self._CMP_INT[cmp]} {b})"

    def _i_setp(self, ins, written, k, nblocks):
        cmps = [m for m in ins.mods if m not in TYPES and m not in ("ftz", "and", "or", "xor")]
        if len(cmps) != 1:
            self._fail("setp form")
        cmp = cmps[0]
        (t,) = self._types(ins)
        bop = [m for m in ins.mods if m in ("and", "or", "xor")]
        if t.kind in ("h", "bf", "x"):
            self._fail("f16/bf16 comparison")
        if t.kind == "i" and cmp in ("lo", "ls", "hi", "hs"):
            t = T(f"u{t.width}")
        if t.kind == "i" and t.name[0] == "b" and cmp not in ("eq", "ne"):
            self._fail(f"setp.{cmp} on a .b type")
        dst = ins.operands[0]
        nsrc = 2 + (1 if bop else 0)
        if len(ins.operands) != 1 + nsrc:
            self._fail("operand count")
        if isinstance(dst, Vec):
            self._fail("setp destination form")
        a, b = (self.rd(o, t) if t.kind != "i" else self.rd(o, t, signed=t.signed) for o in ins.operands[1:3])
        if "ftz" in ins.mods and t.kind == "f":
            a, b = f"_ftz32({a})", f"_ftz32({b})"
        lines = [f"_a = {a}", f"_b = {b}", f"_q = {self._cmp_expr(cmp, t, '_a', '_b')}"]
        if bop:
            c = self.rd(ins.operands[3], T("pred"))
            pe = {"and": f"(_q and {c})", "or": f"(_q or {c})", "xor": f"(_q != {c})"}[bop[0]]
        else:
            pe = "_q"
        lines += self.wr(dst, T("pred"), pe, written)
        self._guarded(ins, lines)

    # special functions
    def _unary_float(self, ins, written, fn, allowed, need):
        t = self._arith_setup(ins, allowed)
        self._nops(ins, 2)
        if t.kind not in need:
            self._fail("operand type")
        a = self._float_ins(t, ins)[0]
        lines = self._round_f(t, f"{fn}({a})", ins, [])
        self._float_post(t, ins, lines)
        self._guarded(ins, lines + self.wr(ins.operands[0], t, "_r", written))

    def _i_sqrt(self, ins, written, k, nblocks):
        if any(m in ins.mods for m in ("rz", "rm", "rp")):
            self._fail("directed-rounding sqrt")
        return self._unary_float(ins, written, "_sqrt", {"rn", "approx", "ftz"}, ("f", "d"))

    def _i_rsqrt(self, ins, written, k, nblocks):
        return self._unary_float(ins, written, "_rsqrt", {"approx", "ftz"}, ("f", "d"))

    def _i_rcp(self, ins, written, k, nblocks):
        if any(m in ins.mods for m in ("rz", "rm", "rp")):
            self._fail("directed-rounding rcp")
        return self._unary_float(ins, written, "_rcp", {"rn", "approx", "ftz"}, ("f", "d"))

    def _i_ex2(self, ins, written, k, nblocks):
        return self._unary_float(ins, written, "_ex2", {"approx", "ftz"}, ("f",))

    def _i_lg2(self, ins, written, k, nblocks):
        return self._unary_float(ins, written, "_lg2", {"approx", "ftz"}, ("f",))

    def _i_sin(self, ins, written, k, nblocks):
        return self._unary_float(ins, written, "_sin", {"approx", "ftz"}, ("f",))

    def _i_cos(self, ins, written, k, nblocks):
        return self._unary_float(ins, written, "_cos", {"approx", "ftz"}, ("f",))

    def _i_tanh(self, ins, written, k, nblocks):
        return self._unary_float(ins, written, "_tanh", {"approx"}, ("f",))

    # conversions
    def _i_cvt(self, ins, written, k, nblocks):
        mods = [m for m in ins.mods if m not in TYPES]
        types = [m for m in ins.mods if m in TYPES]
        if len(types) != 2:
            self._fail("cvt types")
        dt, at = T(types[0]), T(types[1])
        allowed = {"rn", "rz", "rm", "rp", "rna", "rni", "rzi", "rmi", "rpi", "ftz", "sat", "satfinite", "relu"}
        bad = [m for m in mods if m not in allowed]
        if bad:
            self._fail(f"cvt modifier .{bad[0]}")
        irnd = [m for m in mods if m in ("rni", "rzi", "rmi", "rpi")]
        frnd = [m for m in mods if m in ("rn", "rz", "rm", "rp", "rna")]
        sat, satf, relu, ftz = "sat" in mods, "satfinite" in mods, "relu" in mods, "ftz" in mods
        ops = ins.operands
        d = ops[0]
        lines = []
        # --- packed formats
        if dt.kind == "x" or at.kind == "x":
            return self._cvt_packed(ins, dt, at, frnd, satf, relu, written)
        if dt.kind == "p" or at.kind == "p":
            self._fail("cvt with .pred")
        self._nops(ins, 2)
        a = ops[1]
        # --- source value
        if at.kind == "i":
            src = self.rd(a, at, signed=at.signed)
        elif at.kind in ("f", "d"):
            src = self.rd(a, at)
            if ftz and at.kind == "f":
                src = f"_ftz32({src})"
        elif at.kind == "h":
            src = f"_F16F[{self.rd(a, T('b16'))}]"
        elif at.kind == "bf":
            src = f"_BF16F[{self.rd(a, T('b16'))}]"
        else:
            self._fail("cvt source type")
        lines.append(f"_a = {src}")
        # --- int destinations
        if dt.kind == "i":
            lo, hi = (-(1 << (dt.width - 1)), (1 << (dt.width - 1)) - 1) if dt.signed else (0, dt.mask)
            if at.kind == "i":
                if frnd or irnd:
                    self._fail("rounding modifier on an int-to-int cvt")
                v = f"_clamp(_a, {lo}, {hi})" if sat else "_a"
            else:
                if len(irnd) != 1:
                    self._fail("float-to-int cvt needs .rni/.rzi/.rmi/.rpi")
                v = f"_f2i(_a, '{irnd[0]}', {lo}, {hi})"
            lines.append(f"_r = ({v}) & {hex(dt.mask)}")
            # extend to the register width by the destination type's signedness
            if isinstance(d, Reg) and d.kind == "i" and d.width > dt.width and dt.signed:
                lines.append(f"_r = {self._sx('_r', dt.width)} & {hex((1 << d.width) - 1)}")
                lines += self.wr(d, T(f"b{d.width}"), "_r", written)
            else:
                lines += self.wr(d, dt, "_r", written)
            self._guarded(ins, lines)
            return
        # --- float destinations: exact value _a (int or float)
        if irnd and frnd:
            self._fail("two rounding modifiers")
        mode = (frnd or ["rn"])[0]
        if irnd:
            if at.kind == "i":
                self._fail("integer rounding on an int-to-float cvt")
            lines.append(f"_a = _fround_int(_a, '{irnd[0]}')")
        exact_into = {"f": ("f32", F32FMT), "d": ("f64", F64FMT), "h": ("f16", F16FMT), "bf": ("bf16", BF16FMT)}
        dname, dfmt = exact_into[dt.kind]
        widening = (at.kind in ("h", "bf") and dt.kind in ("f", "d")) or (at.kind == "f" and dt.kind == "d") or \
            (at.kind == dt.kind and not irnd)
        if at.kind != "i" and not widening and not frnd and not irnd:
            self._fail("narrowing float cvt needs a rounding modifier")
        if dt.kind in ("f", "d"):
            fmt = "F32FMT" if dt.kind == "f" else "F64FMT"
            if widening or irnd and at.kind == dt.kind:
                lines.append("_r = _a")
            elif mode == "rn" and at.kind == "i" and dt.kind == "f":
                lines += ["_MF[0] = float(_a) if -9007199254740992 <= _a <= 9007199254740992 else "
                          "_round_exact(_a, F32FMT)", "_r = _MF[0]"]
            elif mode == "rn" and at.kind == "i":
                lines.append("_r = float(_a)")
            elif mode == "rn" and dt.kind == "f":
                lines += ["_MF[0] = _a", "_r = _MF[0]"]
            else:
                lines.append(f"_r = _round_exact(_a, {fmt}, '{mode}', {satf}, {relu})")
            if relu:
                lines.append("_r = _r if _r != _r or _r > 0 else 0.0")
            if ftz and dt.kind == "f":
                lines.append("_r = _ftz32(_r)")
            if sat:
                lines.append("_r = _sat01(_r)")
            lines += self.wr(d, dt, "_r", written)
            self._guarded(ins, lines)
            return
        # f16 / bf16 destinations (bits)
        if dt.kind == "h":
            if mode == "rn" and not satf and not relu and at.kind != "i":
                lines.append("_r = _f16_rn(_a)")
            elif mode == "rn" and at.kind == "i" and not satf and not relu:
                lines.append("_r = _f16_rn(float(_a)) if -9007199254740992 <= _a <= 9007199254740992 else "
                             "_f16_rn(_round_exact(_a, F16FMT))")
            else:
                lines.append(f"_v = _round_exact(_a, F16FMT, '{mode}', {satf}, {relu})")
                lines.append("_r = _f16_rn(_v)")
        else:
            if mode == "rn" and not satf and not relu and at.kind == "f":
                lines.append("_r = _bf16_rn_f32(_a)")
            else:
                lines.append(f"_v = _round_exact(_a, BF16FMT, '{mode}', {satf}, {relu})")
                lines.append("_r = 0x7FFF if _v != _v else (_f2u(_v) >> 16)")
        if sat:
            self._fail(".sat to f16/bf16")
        lines += self.wr(d, T("b16"), "_r", written)
        self._guarded(ins, lines)

    def _cvt_packed(self, ins, dt, at, frnd, satf, relu, written):
        d = ins.operands[0]
        lines = []
        if dt.name in ("f16x2", "bf16x2") and at.kind == "f":
            self._nops(ins, 3)
            if frnd != ["rn"]:
                self._fail("f16x2/bf16x2 conversion rounding")
            a, b = (self.rd(o, at) for o in ins.operands[1:])
            fmt = "F16FMT" if dt.name == "f16x2" else "BF16FMT"
            for nm, v in (("_hi", a), ("_lo", b)):
                if dt.name == "f16x2":
                    if satf or relu:
                        lines.append(f"{nm} = _f16_rn(_round_exact({v}, {fmt}, 'rn', {satf}, {relu}))")
                    else:
                        lines.append(f"{nm} = _f16_rn({v})")
                else:
                    if satf or relu:
                        lines.append(f"_v = _round_exact({v}, {fmt}, 'rn', {satf}, {relu})")
                        lines.append(f"{nm} = 0x7FFF if _v != _v else (_f2u(_v) >> 16)")
                    else:
                        lines.append(f"{nm} = _bf16_rn_f32({v})")
            lines += self.wr(d, T("b32"), "(_hi << 16) | _lo", written)
        elif dt.name in ("e4m3x2", "e5m2x2") and at.kind == "f":
            self._nops(ins, 3)
            if frnd != ["rn"] or not satf:
                self._fail("f32 to fp8 conversion needs .rn.satfinite")
            fmt = "E4M3FMT" if dt.name == "e4m3x2" else "E5M2FMT"
            a, b = (self.rd(o, at) for o in ins.operands[1:])
            lines.append(f"_hi = _to_f8({a}, {fmt}, True, {relu})")
            lines.append(f"_lo = _to_f8({b}, {fmt}, True, {relu})")
            lines += self.wr(d, T("b16"), "(_hi << 8) | _lo", written)
        elif dt.name in ("e4m3x2", "e5m2x2") and at.name == "f16x2":
            self._nops(ins, 2)
            if frnd != ["rn"] or not satf:
                self._fail("f16x2 to fp8 conversion needs .rn.satfinite")
            fmt = "E4M3FMT" if dt.name == "e4m3x2" else "E5M2FMT"
            a = self.rd(ins.operands[1], T("b32"))
            lines.append(f"_x = {a}")
            lines.append(f"_hi = _to_f8(_F16F[_x >> 16], {fmt}, True, {relu})")
            lines.append(f"_lo = _to_f8(_F16F[_x & 0xFFFF], {fmt}, True, {relu})")
            lines += self.wr(d, T("b16"), "(_hi << 8) | _lo", written)
        elif dt.name == "f16x2" and at.name in ("e4m3x2", "e5m2x2"):
            self._nops(ins, 2)
            if frnd != ["rn"]:
                self._fail("fp8 to f16x2 conversion needs .rn")
            tab = "_E4M3_H" if at.name == "e4m3x2" else "_E5M2_H"
            a = self.rd(ins.operands[1], T("b16"))
            lines.append(f"_x = {a}")
            lines.append(f"_lo = {tab}[_x & 0xFF]")
            lines.append(f"_hi = {tab}[_x >> 8]")
            if relu:
                lines.append("_lo = 0 if _lo & 0x8000 and (_lo & 0x7FFF) <= 0x7C00 else _lo")
                lines.append("_hi = 0 if _hi & 0x8000 and (_hi & 0x7FFF) <= 0x7C00 else _hi")
            lines += self.wr(d, T("b32"), "(_hi << 16) | _lo", written)
        elif dt.name == "tf32" and at.kind == "f":
            # cvt.rna{.satfinite}.tf32.f32: an f32 pattern with the low 13 mantissa bits zero, the
            # value rounded to nearest, ties away from zero (sm_80's only mode)
            self._nops(ins, 2)
            if frnd != ["rna"] or relu:
                self._fail("f32 to tf32 conversion needs .rna")
            a = self.rd(ins.operands[1], at)
            lines.append(f"_v = _round_exact({a}, TF32FMT, 'rna', {satf}, False)")
            lines += self.wr(d, T("b32"), "_f2u(_v)", written)
        else:
            self._fail(f"conversion .{dt.name}.{at.name}")
        self._guarded(ins, lines)

    # memory
    _SPACES = {"global": "global", "shared": "shared", "shared::cta": "shared", "shared::cluster": "cluster",
               "param": "param", "local": "local", "const": "const", "generic": "generic"}

    def _space(self, ins):
        """The state space of a memory instruction: .shared::cta is .shared; .shared::cluster is
        "cluster" (a shared::cluster address, maybe another CTA's: runtime.Kernel._cl_resolve)."""
        spaces = [self._SPACES[m] for m in ins.mods if m in self._SPACES]
        if len(spaces) > 1:
            self._fail("two state spaces")
        if spaces and spaces[0] == "const":
            self._fail(f".{spaces[0]} state space")
        return spaces[0] if spaces else "generic"

    def _addr(self, o, space, size, store, total=None):
        """(statements, index expression, view prefix) for an access of `size` bytes
        at memory operand `o`; `total` bytes for vector accesses."""
        if not isinstance(o, Addr):
            self._fail("memory operand")
        lid = self._lid
        total = total or size
        if isinstance(o.base, Reg):
            if o.base.kind != "i":
                self._fail("address register class")
            base = o.base.var
            const = None
        elif isinstance(o.base, Sym):
            base = None
            const = self._sym_addr(o.base.name) + o.off
        else:
            base = None
            const = o.off
        lines = []
        if space == "shared":
            expr = str(const) if base is None else (f"{base} + {o.off}" if o.off else base)
            lines.append(f"_x = {expr}")
            checks = [f"not SV{size}[_x]"]
            if total != size:
                checks.append(f"_x & {total - 1}")
                checks += [f"not SV{size}[_x + {j}]" for j in range(size, total, size)]
            lines.append(f"if {' or '.join(checks)}: _fault({lid}, 'shared', _x, {total})")
            if store and self.uses_mbarrier:
                for j in range(0, total, 8):
                    lines.append(f"if ((_x + {j}) & -8) in MBW: _mb_clobber({lid}, _x + {j})")
            if store and self.tracks_proxy:
                # a generic-proxy write (st, atom/red, cp.async): not onto a TMA store's unread source, and
                # unseen by the async proxy (TMA store, wgmma) until this thread's fence.proxy.async
                ep = self.regs["%%epkey"]
                self._used.add(ep)
                if self.uses_bulk_store:
                    lines.append(f"if BSP: _bs_clobber({lid}, _x, {total})")
                lines.append(f"_tq = {ep.var} & 4095")
                lines.append(f"PXW[_x - {SHARED_BASE}:_x - {SHARED_BASE - total}] = "
                             f"(PXC[0] << 32) | {lid << 12} | _tq")
            if not store:
                ep = self.regs["%%epkey"]
                self._used.add(ep)
                lines.append(f"if RC: _rc_ld({lid}, _x, {total}, {ep.var})")
            return lines, f"_x >> {_SHIFT[size]}", "S"
        if space == "global":
            if base is None:
                lines.append(f"_x = {const - GLOBAL_BASE}")
            else:
                lines.append(f"_x = {base} + {o.off - GLOBAL_BASE}")
            checks = ["_x < 0", f"not GV{size}[_x]"]
            if total != size:
                checks.append(f"_x & {total - 1}")
                checks += [f"not GV{size}[_x + {j}]" for j in range(size, total, size)]
            lines.append(f"if {' or '.join(checks)}: _fault({lid}, 'global', _x + {GLOBAL_BASE}, {total})")
            return lines, f"_x >> {_SHIFT[size]}", "G"
        if space in ("generic", "local", "cluster"):
            expr = str(const) if base is None else (f"{base} + {o.off}" if o.off else base)
            lines.append(f"_x = {expr}")
            if space == "local":
                self._used.add(self.regs["%%local"])
                return lines, None, "L"
            return lines, None, "C" if space == "cluster" else None
        self._fail(f"{space} address")

    def _ld_view(self, t, dreg):
        """(memoryview format, value type written) for loading type t into register dreg."""
        if isinstance(dreg, Reg) and dreg.kind == "f" and t.bytes == 4:
            return "f", T("f32")
        if isinstance(dreg, Reg) and dreg.kind == "d" and t.bytes == 8:
            return "d", T("f64")
        if t.kind in ("f", "d") and not (isinstance(dreg, Reg) and dreg.kind == "i"):
            return ("f" if t.kind == "f" else "d"), t
        signed = t.kind == "i" and t.signed
        return _FMT[(t.bytes, signed)], T(f"{'s' if signed else 'u'}{t.width}")

    def _i_ld(self, ins, written, k, nblocks):
        allowed = {"global", "shared", "param", "local", "const", "nc", "ca", "cg", "cs", "lu", "cv", "volatile",
                   "relaxed", "acquire", "weak", "cta", "cluster", "gpu", "sys", "v2", "v4", "L1::evict_last",
                   "shared::cta", "shared::cluster",
                   "L1::no_allocate", "L2::128B", "L2::64B", "L2::256B"}
        self._mods(ins, allowed)
        (t,) = self._types(ins)
        self._nops(ins, 2)
        d, a = ins.operands
        space = self._space(ins)
        vec = [m for m in ins.mods if m in ("v2", "v4")]
        if space == "param":
            return self._ld_param(ins, t, d, a, written)
        dests = d.items if isinstance(d, Vec) else [d]
        if (len(dests) > 1) != bool(vec) or (vec and len(dests) != int(vec[0][1])):
            self._fail("vector load form")
        lines, idx, view = self._addr(a, space, t.bytes, False, t.bytes * len(dests))
        for j, dr in enumerate(dests):
            fmt, vt = self._ld_view(t, dr)
            if view == "L":
                val = f"_ld_local({self._lid}, {self.regs['%%local'].var}, '{fmt}', _x + {j * t.bytes})"
            elif view == "C":       # the first element checks the whole vector's alignment
                val = (f"_ld_cluster({self._lid}, '{fmt}', _x + {j * t.bytes}, "
                       f"{t.bytes * len(dests) if j == 0 else t.bytes})")
            elif view is None:
                val = f"_ld_generic({self._lid}, '{fmt}', _x + {j * t.bytes})"
            else:
                ix = idx if j == 0 else f"(_x >> {_SHIFT[t.bytes]}) + {j}"
                val = f"{view}{fmt}[{ix}]"
            if vt.kind == "i" and isinstance(dr, Reg) and dr.kind == "i" and dr.width > vt.width:
                val = f"{val} & {hex((1 << dr.width) - 1)}" if vt.signed else val
                vt = T(f"b{dr.width}")
            lines += self.wr(dr, vt, val, written)
        self._guarded(ins, lines)

    def _st_call_param(self, ins, t, a, s, written):
        if not isinstance(a, Addr) or not isinstance(a.base, Sym) or a.off or \
                a.base.name not in self.entry.call_params:
            self._fail("st.param to something other than a call parameter")
        p = self.entry.call_params[a.base.name]
        if T(p.decl).bytes != t.bytes:
            self._fail("st.param width differs from the parameter's")
        bt = T(f"b{t.width}") if t.kind == "i" else t
        self._guarded(ins, self.wr(p, bt if p.kind == "i" else T(p.decl), self.rd(s, bt if p.kind == "i"
                                                                                   else T(p.decl)), written))

    def _ld_param(self, ins, t, d, a, written):
        if not isinstance(a, Addr) or not isinstance(a.base, Sym):
            self._fail("param address")
        if a.base.name in self.entry.call_params:
            p = self.entry.call_params[a.base.name]
            self._used.add(p)
            self._guarded(ins, self.wr(d, T(f"b{t.width}"), self.rd(p, T(f"b{t.width}")), written))
            return
        params = {p[0]: p for p in self.entry.params}
        if a.base.name not in params:
            self._fail(f"unknown param {a.base.name}")
        pname, ptype, poff = params[a.base.name]
        var = f"PRM{len(self.param_loads)}"
        fmt, vt = self._ld_view(t, d)
        self.param_loads.append((var, fmt, poff + a.off, t.bytes))
        val = var
        if vt.kind == "i" and isinstance(d, Reg) and d.kind == "i" and d.width > vt.width and vt.signed:
            val = f"{var} & {hex((1 << d.width) - 1)}"
            vt = T(f"b{d.width}")
        self._guarded(ins, self.wr(d, vt, val, written))

    def _i_st(self, ins, written, k, nblocks):
        allowed = {"global", "shared", "local", "param", "wb", "cg", "cs", "wt", "volatile", "relaxed", "release",
                   "weak", "cta", "cluster", "gpu", "sys", "v2", "v4", "L1::evict_last", "L1::no_allocate",
                   "shared::cta", "shared::cluster"}
        self._mods(ins, allowed)
        (t,) = self._types(ins)
        self._nops(ins, 2)
        a, s = ins.operands
        space = self._space(ins)
        if space == "param":
            return self._st_call_param(ins, t, a, s, written)
        srcs = s.items if isinstance(s, Vec) else [s]
        vec = [m for m in ins.mods if m in ("v2", "v4")]
        if (len(srcs) > 1) != bool(vec) or (vec and len(srcs) != int(vec[0][1])):
            self._fail("vector store form")
        lines, idx, view = self._addr(a, space, t.bytes, True, t.bytes * len(srcs))
        for j, sr in enumerate(srcs):
            if isinstance(sr, Reg) and sr.kind == "f" and t.bytes == 4:
                fmt, val = "f", sr.var
            elif isinstance(sr, Reg) and sr.kind == "d" and t.bytes == 8:
                fmt, val = "d", sr.var
            elif t.kind in ("f", "d") and not isinstance(sr, Reg):
                fmt, val = ("f" if t.kind == "f" else "d"), self.rd(sr, t)
            else:
                fmt, val = _FMT[(t.bytes, False)], self.rd(sr, T(f"b{t.width}"), signed=False)
            if view == "L":
                lines.append(f"_st_local({self._lid}, {self.regs['%%local'].var}, '{fmt}', _x + {j * t.bytes}, {val})")
            elif view == "C":
                ep = self.regs["%%epkey"]
                self._used.add(ep)
                lines.append(f"_st_cluster({self._lid}, '{fmt}', _x + {j * t.bytes}, {val}, "
                             f"{t.bytes * len(srcs) if j == 0 else t.bytes}, {ep.var} & 4095)")
            elif view is None:
                tid = ""
                if self.tracks_proxy:
                    ep = self.regs["%%epkey"]
                    self._used.add(ep)
                    tid = f", {ep.var} & 4095"
                lines.append(f"_st_generic({self._lid}, '{fmt}', _x + {j * t.bytes}, {val}{tid})")
            else:
                ix = idx if j == 0 else f"(_x >> {_SHIFT[t.bytes]}) + {j}"
                if view == "S":
                    ep = self.regs["%%epkey"]
                    self._used.add(ep)
                    lines.append(f"if RC: _rc_st({self._lid}, _x + {j * t.bytes}, {t.bytes}, {ep.var}, "
                                 f"_same({view}{fmt}[{ix}], {val}))")
                lines.append(f"{view}{fmt}[{ix}] = {val}")
        self._guarded(ins, lines)

    def _i_atom(self, ins, written, k, nblocks):
        return self._atomic(ins, written, True)

    def _i_red(self, ins, written, k, nblocks):
        return self._atomic(ins, written, False)

    _ATOM_OPS = ("add", "and", "or", "xor", "max", "min", "exch", "cas", "inc", "dec")

    def _atomic(self, ins, written, has_dest):
        sem = {"relaxed", "acquire", "release", "acq_rel", "sys", "gpu", "cta", "cluster", "global", "shared",
               "noftz"}
        ops = [m for m in ins.mods if m in self._ATOM_OPS]
        bad = [m for m in ins.mods if m not in sem and m not in self._ATOM_OPS and m not in TYPES]
        if bad or len(ops) != 1:
            self._fail("atomic form")
        (t,) = self._types(ins)
        if t.kind not in ("i", "f", "d"):
            self._fail("atomic type")
        space = self._space(ins)
        if space not in ("global", "shared"):
            self._fail("atomic on generic memory")
        opn = ops[0]
        nargs = (3 if opn == "cas" else 2) + (1 if has_dest else 0)
        self._nops(ins, nargs)
        ops_ = ins.operands
        d = ops_[0] if has_dest else None
        mem = ops_[1] if has_dest else ops_[0]
        vals = ops_[2:] if has_dest else ops_[1:]
        lines, _idx, _view = self._addr(mem, space, t.bytes, True)
        vt = t if t.kind in ("f", "d") else T(f"{'s' if t.signed else 'u'}{t.width}")
        args = ", ".join(self.rd(v, vt) for v in vals)
        call = f"_atom({self._lid}, '{space}', '{opn}', '{t.name}', _x, {args})"
        if has_dest:
            lines += self.wr(d, vt if vt.kind != "i" else T(f"b{t.width}"), call, written)
        else:
            lines.append(call)
        self._guarded(ins, lines)

    def _i_mbarrier(self, ins, written, k, nblocks):
        mods = [m for m in ins.mods if m not in ("shared", "b64", "release", "acquire", "relaxed", "cta", "cluster",
                                                   "shared::cta", "shared::cluster")]
        what = mods[0] if mods else None
        if "shared::cluster" in ins.mods:
            return self._mbarrier_cluster(ins, what, mods, written)
        if what in ("init", "expect_tx") and len(mods) == 1:
            # init [addr], count / expect_tx [addr], bytes: the barrier and one u32
            self._nops(ins, 2)
            lines, _i, _v = self._addr(ins.operands[0], "shared", 8, False)
            lines.append(f"_mb_{what}({self._lid}, _x, {self.rd(ins.operands[1], T('u32'))})")
            self._guarded(ins, lines)
            return
        if what == "arrive" and mods[1:] in ([], ["expect_tx"]):
            # arrive [, count] or arrive.expect_tx with its transaction bytes (one arrival)
            tx = mods[1:] == ["expect_tx"]
            self._nops(ins, *((3,) if tx else (2, 3)))
            lines, _i, _v = self._addr(ins.operands[1], "shared", 8, False)
            third = self.rd(ins.operands[2], T("u32")) if len(ins.operands) == 3 else None
            call = (f"_mb_arrive({self._lid}, _x, 1, {third})" if tx
                    else f"_mb_arrive({self._lid}, _x, {third or '1'})")
            if isinstance(ins.operands[0], Reg):
                lines += self.wr(ins.operands[0], T("b64"), call, written)
            else:
                lines.append(call)
            self._guarded(ins, lines)
            return
        if what in ("test_wait", "try_wait") and mods[1:] in ([], ["parity"]):
            self._nops(ins, 3, 4)
            dst, mem, par = ins.operands[:3]
            if not isinstance(dst, Reg) or dst.kind != "p" or not isinstance(mem, Addr):
                self._fail("mbarrier wait form")
            w, term = self._wait(ins, MBWAIT, k, nblocks)
            w.args["dst"] = dst.slot
            w.args["addr"] = self._wait_addr(mem)
            w.args["parity"] = mods[1:] == ["parity"]
            w.args["phase"] = self._wait_val(par)
            written.add(dst)
            return term
        self._fail(None)

    def _mbarrier_cluster(self, ins, what, mods, written):
        """mbarrier.arrive{.expect_tx}...shared::cluster.b64 _, [addr]{, count | tx} and
        mbarrier.expect_tx...shared::cluster.b64 [addr], tx: on the mbarrier at a shared::cluster
        address, maybe in another CTA of the cluster (no state comes back: the destination is `_`)."""
        if what == "expect_tx" and len(mods) == 1:
            self._nops(ins, 2)
            self._guarded(ins, [f"_mb_expect_tx_cl({self._lid}, {self._raw_addr(ins.operands[0])}, "
                                f"{self.rd(ins.operands[1], T('u32'))})"])
            return
        if what != "arrive" or mods[1:] not in ([], ["expect_tx"]):
            self._fail("mbarrier form on .shared::cluster (only .arrive{.expect_tx} and .expect_tx)")
        tx = mods[1:] == ["expect_tx"]
        self._nops(ins, *((3,) if tx else (2, 3)))
        sink = ins.operands[0]
        if not (isinstance(sink, Sym) and sink.name == "_" and not sink.off):
            self._fail("mbarrier.arrive on .shared::cluster returns no state: its destination must be _")
        third = self.rd(ins.operands[2], T("u32")) if len(ins.operands) == 3 else None
        addr = self._raw_addr(ins.operands[1])
        call = (f"_mb_arrive_cl({self._lid}, {addr}, 1, {third})" if tx
                else f"_mb_arrive_cl({self._lid}, {addr}, {third or '1'}, 0)")
        self._guarded(ins, [call])

    def _i_mapa(self, ins, written, k, nblocks):
        """mapa{.shared::cluster}.{u32,u64} d, a, rank: the shared::cluster (or generic) address of
        the byte at a (a shared address, symbol or symbol + offset) in the CTA of that rank."""
        if ins.mods not in (["shared::cluster", "u32"], ["shared::cluster", "u64"], ["u64"]):
            self._fail("mapa form (.shared::cluster.{u32,u64} or .u64)")
        self._nops(ins, 3)
        d, a, r = ins.operands
        t = T(ins.mods[-1])
        if isinstance(a, Reg) and (a.kind != "i" or a.width != t.width) or isinstance(a, Imm):
            self._fail(f"mapa source must be a .{t.name} register or a shared variable")
        if isinstance(r, Reg) and (r.kind != "i" or r.width != 32):
            self._fail("mapa rank must be a 32-bit register or an integer")
        self._guarded(ins, self.wr(d, t, f"_mapa({self._lid}, {self.rd(a, t)}, {self.rd(r, T('u32'))})",
                                   written))

    def _i_getctarank(self, ins, written, k, nblocks):
        """getctarank{.shared::cluster}.{u32,u64} d, a: the rank of the CTA whose shared memory holds a."""
        if ins.mods not in (["shared::cluster", "u32"], ["shared::cluster", "u64"], ["u64"]):
            self._fail("getctarank form (.shared::cluster.{u32,u64} or .u64)")
        self._nops(ins, 2)
        d, a = ins.operands
        t = T(ins.mods[-1])
        if isinstance(a, Reg) and (a.kind != "i" or a.width != t.width) or isinstance(a, Imm):
            self._fail(f"getctarank source must be a .{t.name} register or a shared variable")
        self._guarded(ins, self.wr(d, T("u32"), f"_getctarank({self._lid}, {self.rd(a, t)})", written))

    def _i_call(self, ins, written, k, nblocks):
        self._mods(ins, {"uni"})
        ops = ins.operands
        ret = None
        if ops and isinstance(ops[0], ParamList):
            ret, ops = ops[0], ops[1:]
        if not ops or not isinstance(ops[0], Sym) or (len(ops) == 2 and not isinstance(ops[1], ParamList)) or \
                len(ops) > 2:
            self._fail("call form")
        fn = ops[0].name
        args = ops[1].names if len(ops) == 2 else []
        if fn not in self.module.extern_funcs:
            self._fail(f"call of {fn}, which is no declared .extern .func")
        params = []
        for a in args + (ret.names if ret else []):
            if a not in self.entry.call_params:
                self._fail(f"call argument {a} is no call-scope .param")
            params.append(self.entry.call_params[a])
            self._used.add(self.entry.call_params[a])
        argv = ", ".join(p.var for p in params[:len(args)])
        if fn == "vprintf" and len(args) == 2:
            call = f"_vprintf({self._lid}, {argv})"
        elif fn == "__assertfail" and len(args) == 5 and not ret:
            call = f"_assertfail({self._lid}, {argv})"
        else:
            self._fail(f"call of {fn}")
        if ret:
            if len(ret.names) != 1:
                self._fail("call with several return values")
            lines = self.wr(params[-1], T(f"b{params[-1].width}"), call, written)
        else:
            lines = [call]
        self._guarded(ins, lines)

    def _group_count(self, ins, what) -> int:
        """The N of a `what` N (cp.async's and the bulk copies' wait_group): an integer 0..63."""
        self._nops(ins, 1)
        n = ins.operands[0]
        if not isinstance(n, Imm) or n.ival is None or not 0 <= n.ival <= 63:
            self._fail(f"{what} takes an integer constant 0..63")
        return n.ival

    def _i_cp(self, ins, written, k, nblocks):
        """cp.async.{ca,cg}.shared.global [dst], [src], cp-size[, src-size] and
        cp.async.mbarrier.arrive.noinc.shared.b64 [mbar]: the copies complete when the
        mbarrier phase the arrive counts toward completes -- the latest a GPU may
        complete them, so a read that does not wait sees stale shared memory.
        cp.async.bulk.tensor: a TMA load or store (_cp_bulk_tensor); cp.async.bulk.commit_group
        and cp.async.bulk.wait_group[.read] N: the thread's bulk async-groups of TMA stores
        (tma.py); cp.async.wait_all: the thread's untracked copies land; cp.async.commit_group and
        cp.async.wait_group N: its groups of them (all but the newest N land)."""
        ep = self.regs["%%epkey"]
        self._used.add(ep)
        if ins.mods[:3] == ["async", "bulk", "tensor"]:
            return self._cp_bulk_tensor(ins)
        if ins.mods == ["async", "bulk", "commit_group"]:
            self._nops(ins, 0)
            self._guarded(ins, [f"_bs_commit({self._lid}, {ep.var} & 4095)"])
            return
        if ins.mods in (["async", "bulk", "wait_group"], ["async", "bulk", "wait_group", "read"]):
            n = self._group_count(ins, "cp.async.bulk.wait_group")
            self._guarded(ins, [f"_bs_wait({self._lid}, {ep.var} & 4095, {n}, {len(ins.mods) == 4})"])
            return
        if ins.mods == ["async", "wait_all"]:
            self._nops(ins, 0)
            self._guarded(ins, [f"_cp_wait_all({self._lid}, {ep.var})"])
            return
        if ins.mods == ["async", "commit_group"]:
            self._nops(ins, 0)
            self._guarded(ins, [f"_cp_commit({self._lid}, {ep.var})"])
            return
        if ins.mods == ["async", "wait_group"]:
            n = self._group_count(ins, "cp.async.wait_group")
            self._guarded(ins, [f"_cp_wait_group({self._lid}, {ep.var}, {n})"])
            return
        mods = [m if m != "shared::cta" else "shared" for m in ins.mods]
        if mods == ["async", "mbarrier", "arrive", "noinc", "shared", "b64"]:
            self._nops(ins, 1)
            lines, _i, _v = self._addr(ins.operands[0], "shared", 8, False)
            lines.append(f"_cp_arrive({self._lid}, _x, {ep.var})")
            self._guarded(ins, lines)
            return
        if len(mods) != 4 or mods[0] != "async" or mods[1] not in ("ca", "cg") or mods[2:] != ["shared", "global"]:
            self._fail("cp form (only cp.async.{ca,cg}.shared.global and cp.async.mbarrier.arrive.noinc)")
        self._nops(ins, 3, 4)
        dst, src, size = ins.operands[:3]
        if not isinstance(size, Imm) or size.ival not in (4, 8, 16) or (mods[1] == "cg" and size.ival != 16):
            self._fail("cp.async size")
        n = size.ival
        lines, _i, _v = self._addr(dst, "shared", 4, True, total=n)
        lines.append("_d = _x")
        if not isinstance(src, Addr) or not isinstance(src.base, Reg) or src.base.kind != "i":
            self._fail("cp.async source address")
        got = self.rd(ins.operands[3], T("u32")) if len(ins.operands) == 4 else str(n)
        lines.append(f"_cp_async({self._lid}, _d, {src.base.var} + {src.off}, {n}, {got}, {ep.var})")
        self._guarded(ins, lines)

    def _raw_addr(self, o):
        """Python expression of the address a memory operand names (no checks)."""
        if not isinstance(o, Addr):
            self._fail("memory operand")
        if isinstance(o.base, Reg):
            if o.base.kind != "i":
                self._fail("address register class")
            return f"({o.base.var} + {o.off})" if o.off else o.base.var
        if isinstance(o.base, Sym):
            return str(self._sym_addr(o.base.name) + o.off)
        return str(o.off)

    def _cp_bulk_tensor(self, ins):
        """cp.async.bulk.tensor.Nd.shared::cluster.global[.tile].mbarrier::complete_tx::bytes
        [dst], [tensor map, {c0, ..}], [mbar] (a TMA load; with .multicast::cluster and a 16-bit
        ctaMask operand, into every CTA of the cluster whose rank bit is set) and
        cp.async.bulk.tensor.Nd.global.shared::cta[.tile].bulk_group [tensor map, {c0, ..}], [src]
        (a TMA store, completing through the thread's bulk async-groups); tma.py."""
        mods = ins.mods[3:]
        m = re.fullmatch(r"([1-5])d", mods[0]) if mods else None
        if m and mods[1:2] == ["global"]:
            return self._cp_bulk_tensor_store(ins, int(m.group(1)))
        rest = [x for x in mods[1:] if x != "tile"]
        multicast = rest[3:] == ["multicast::cluster"]
        if multicast:
            rest = rest[:3]
        if not m or len(rest) != 3 or rest[0] not in ("shared::cluster", "shared::cta") or rest[1] != "global" or \
                rest[2] != "mbarrier::complete_tx::bytes" or mods[1:].count("tile") > 1 or \
                multicast and rest[0] != "shared::cluster":
            self._fail("cp.async.bulk.tensor form (only .Nd.shared::cluster.global[.tile]"
                       ".mbarrier::complete_tx::bytes[.multicast::cluster]: a load without cache hint)")
        self._nops(ins, 4 if multicast else 3)
        dst, tref, mbar = ins.operands[:3]
        mask = ""
        if multicast:
            cm = ins.operands[3]
            if not (isinstance(cm, Reg) and cm.kind == "i" and cm.width == 16 or isinstance(cm, Imm) and
                    cm.ival is not None):
                self._fail("cp.async.bulk.tensor ctaMask must be a 16-bit register or an integer")
            mask = f", {self.rd(cm, T('u16'))}"
        n = int(m.group(1))
        if not isinstance(dst, Addr) or not isinstance(mbar, Addr) or not isinstance(tref, TensorRef):
            self._fail("cp.async.bulk.tensor operands ([dst], [tensor map, {coordinates}], [mbar])")
        coords = self._tma_coords(tref, n)
        self._guarded(ins, [f"_tma_load({self._lid}, {self._raw_addr(dst)}, {self._raw_addr(tref.base)}, "
                            f"({coords}), {self._raw_addr(mbar)}{mask})"])

    def _tma_coords(self, tref, n):
        """Python tuple body of the coordinates of `tref` (n of them, .b32 registers or integers)."""
        if len(tref.coords.items) != n:
            self._fail(f"cp.async.bulk.tensor.{n}d takes {n} coordinates")
        for c in tref.coords.items:
            if not (isinstance(c, Reg) and c.kind == "i" and c.width == 32) and \
                    not (isinstance(c, Imm) and c.ival is not None):
                self._fail("cp.async.bulk.tensor coordinates must be .b32 registers or integers")
        return "".join(f"{self.rd(c, T('s32'))}, " for c in tref.coords.items)

    def _cp_bulk_tensor_store(self, ins, n):
        """cp.async.bulk.tensor.Nd.global.shared::cta[.tile].bulk_group [tensor map, {c0, ..}], [src]:
        a TMA store in tile mode (no reduction, multicast or cache hint), joining the thread's
        uncommitted bulk operations."""
        if ins.mods[4:] not in (["global", "shared::cta", "bulk_group"],
                                ["global", "shared::cta", "tile", "bulk_group"]):
            self._fail("cp.async.bulk.tensor store form (only .Nd.global.shared::cta[.tile].bulk_group: "
                       "no reduction, im2col or cache hint)")
        self._nops(ins, 2)
        tref, src = ins.operands
        if not isinstance(tref, TensorRef) or not isinstance(src, Addr):
            self._fail("cp.async.bulk.tensor store operands ([tensor map, {coordinates}], [src])")
        coords = self._tma_coords(tref, n)
        ep = self.regs["%%epkey"]
        self._guarded(ins, [f"_tma_store({self._lid}, {self._raw_addr(tref.base)}, ({coords}), "
                            f"{self._raw_addr(src)}, {ep.var} & 4095)"])

    _TM_SPACES = {"shared::cta": "shared", "global": "global"}

    def _i_tensormap(self, ins, written, k, nblocks):
        """tensormap.replace.tile.<field>[.global|.shared::cta].b1024.{b32,b64} [map], [ord,] value
        and tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.<scope>.sync.aligned
        [dst], [src], 128 (tma.py)."""
        mods = ins.mods
        if mods[:1] == ["cp_fenceproxy"]:
            if mods[1:5] != ["global", "shared::cta", "tensormap::generic", "release"] or len(mods) != 8 or \
                    mods[5] not in ("cta", "cluster", "gpu", "sys") or mods[6:] != ["sync", "aligned"]:
                self._fail("tensormap.cp_fenceproxy form (only .global.shared::cta.tensormap::generic.release"
                           ".<scope>.sync.aligned)")
            self._nops(ins, 3)
            dst, src, size = ins.operands
            if not isinstance(dst, Addr) or not isinstance(src, Addr) or not isinstance(size, Imm) or \
                    size.ival != 128:
                self._fail("tensormap.cp_fenceproxy operands ([dst], [src], 128)")
            w, term = self._wait(ins, TMCP, k, nblocks)
            w.args.update(dst=self._wait_addr(dst), src=self._wait_addr(src))
            return term
        if mods[:2] != ["replace", "tile"] or len(mods) not in (5, 6):
            self._fail("tensormap form (only .replace.tile.<field> and .cp_fenceproxy)")
        field = mods[2]
        if field not in TM_FIELDS:
            self._fail(f"tensormap.replace field .{field}")
        space = "generic"
        if len(mods) == 6:
            space = self._TM_SPACES.get(mods[3])
            if space is None:
                self._fail(f"tensormap.replace state space .{mods[3]} (only .global and .shared::cta)")
        want = f"b{field_value_bits(field)}"
        if mods[-2:] != ["b1024", want]:
            self._fail(f"tensormap.replace.tile.{field} takes .b1024.{want}")
        nords = TM_FIELDS[field][2]
        self._nops(ins, 3 if nords else 2)
        ordv = 0
        if nords:
            o = ins.operands[1]
            if not isinstance(o, Imm) or o.ival is None or not 0 <= o.ival < nords:
                self._fail(f"tensormap.replace.tile.{field} ord must be an integer 0..{nords - 1}")
            ordv = o.ival
        val = self.rd(ins.operands[-1], T(f"u{field_value_bits(field)}"))
        self._guarded(ins, [f"_tm_replace({self._lid}, '{space}', {self._raw_addr(ins.operands[0])}, '{field}', "
                            f"{ordv}, {val})"])

    def _i_elect(self, ins, written, k, nblocks):
        """elect.sync d|p, membermask (warp-collective: the lowest lane of membermask is elected)."""
        if ins.mods != ["sync"]:
            self._fail("elect form (only elect.sync d|p, membermask)")
        self._nops(ins, 2)
        dp, mask = ins.operands
        if not isinstance(dp, Pair) or (dp.first is None and dp.second is None):
            self._fail("elect.sync destination d|p")
        d, p = dp.first, dp.second
        if d is not None and not (isinstance(d, Reg) and d.kind == "i" and d.width == 32):
            self._fail("elect.sync d must be a .b32 register or _")
        if p is not None and not (isinstance(p, Reg) and p.kind == "p"):
            self._fail("elect.sync p must be a predicate register or _")
        if ins.guard:
            self._fail("predicated elect.sync")
        w, term = self._wait(ins, ELECT, k, nblocks)
        w.args.update(d=d.slot if d is not None else None, p=p.slot if p is not None else None,
                      mask=self._wait_val(mask))
        return term

    def _i_setmaxnreg(self, ins, written, k, nblocks):
        """setmaxnreg.{inc,dec}.sync.aligned.u32 n: no effect on values; the runner moves
        registers between the thread and its CTA's pool (an .inc waits until the pool holds them)."""
        if len(ins.mods) != 4 or ins.mods[0] not in ("inc", "dec") or ins.mods[1:] != ["sync", "aligned", "u32"]:
            self._fail("setmaxnreg form (only .inc/.dec.sync.aligned.u32)")
        self._nops(ins, 1)
        n = ins.operands[0]
        if not isinstance(n, Imm) or n.ival is None or n.ival % 8 or not 24 <= n.ival <= 256:
            self._fail("setmaxnreg count must be a multiple of 8 in [24, 256]")
        if ins.guard:
            self._fail("predicated setmaxnreg")
        w, term = self._wait(ins, SETMAXNREG, k, nblocks)
        w.args.update(inc=ins.mods[0] == "inc", n=n.ival)
        return term

    def _i_prefetch(self, ins, written, k, nblocks):
        """prefetch.tensormap [a]: warms the TMA unit's copy of a map; no effect on values,
        but the map must be one this CTA acquired (as a copy through it would need)."""
        if ins.mods != ["tensormap"]:
            self._fail("prefetch form (only .tensormap)")
        self._nops(ins, 1)
        self._guarded(ins, [f"_tm_prefetch({self._lid}, {self._raw_addr(ins.operands[0])})"])

    def _i_prmt(self, ins, written, k, nblocks):
        """prmt.b32 d, a, b, c (default mode, c an immediate): byte i of d is byte c[4i+2:4i]
        of {b, a} (a bytes 0-3, b bytes 4-7), its sign replicated when c[4i+3] is set."""
        if ins.mods != ["b32"]:
            self._fail("prmt mode (only prmt.b32)")
        self._nops(ins, 4)
        sel = ins.operands[3]
        if not isinstance(sel, Imm) or sel.ival is None:
            self._fail("prmt selector (immediates only)")
        t = T("b32")
        a, b = (self.rd(o, t, signed=False) for o in ins.operands[1:3])
        parts = []
        for i in range(4):
            c = (sel.ival >> (4 * i)) & 0xF
            if c & 8:
                parts.append(f"(((_x >> {8 * (c & 7) + 7}) & 1) * {0xFF << (8 * i)})")
            else:
                parts.append(f"(((_x >> {8 * (c & 7)}) & 255) << {8 * i})")
        self._guarded(ins, [f"_x = {a} | ({b} << 32)"] + self.wr(ins.operands[0], t, " | ".join(parts), written))

    def _i_bfind(self, ins, written, k, nblocks):
        """bfind[.shiftamt].{u32,u64,s32,s64}: the most significant bit that differs from the
        sign (signed) or is set (unsigned); 0xFFFFFFFF if there is none."""
        t = self._arith_setup(ins, {"shiftamt"})
        if t.name not in ("u32", "u64", "s32", "s64"):
            self._fail("bfind type")
        self._nops(ins, 2)
        lines = [f"_a = {self.rd(ins.operands[1], t, signed=t.signed)}",
                 "_p = (~_a if _a < 0 else _a).bit_length() - 1"]
        res = f"{t.width - 1} - _p" if "shiftamt" in ins.mods else "_p"
        self._guarded(ins, lines + self.wr(ins.operands[0], T("u32"), f"(0xFFFFFFFF if _p < 0 else {res})",
                                           written))

    def _matrix_form(self, ins, op):
        """The operands of `op` (ldmatrix or stmatrix) .sync.aligned.m8n8.x{1,2,4}[.trans]
        .shared{,::cta}.b16: (count n, trans, the n .b32 registers, the shared address)."""
        mods = [m for m in ins.mods if m not in ("shared::cta",)]
        if mods[:3] != ["sync", "aligned", "m8n8"] or mods[-1:] != ["b16"]:
            self._fail(f"{op} form (only .sync.aligned.m8n8.x{{1,2,4}}[.trans].shared.b16)")
        mid = [m for m in mods[3:-1] if m != "shared"]
        trans = "trans" in mid
        nums = [m for m in mid if m in ("x1", "x2", "x4")]
        if len(nums) != 1 or len(mid) != 1 + trans or mods.count("shared") + ins.mods.count("shared::cta") != 1:
            self._fail(f"{op} modifiers")
        n = int(nums[0][1])
        self._nops(ins, 2)
        regs, mem = ins.operands if op == "ldmatrix" else ins.operands[::-1]
        if not isinstance(regs, Vec) or len(regs.items) != n or \
                not all(isinstance(x, Reg) and x.kind == "i" and x.width == 32 for x in regs.items):
            self._fail(f"{op} {'destination' if op == 'ldmatrix' else 'source'} vector (.x{n}: {n} .b32 registers)")
        if not isinstance(mem, Addr):
            self._fail(f"{op} address")
        if ins.guard:
            self._fail(f"predicated {op}")
        return n, trans, regs.items, mem

    def _i_ldmatrix(self, ins, written, k, nblocks):
        """ldmatrix: warp-collective, run by the runner once every lane has given its row address."""
        n, trans, regs, mem = self._matrix_form(ins, "ldmatrix")
        w, term = self._wait(ins, LDMATRIX, k, nblocks)
        w.args["addr"] = self._wait_addr(mem)
        w.args.update(d=[x.slot for x in regs], n=n, trans=trans)
        written.update(regs)
        return term

    def _i_stmatrix(self, ins, written, k, nblocks):
        """stmatrix: warp-collective (the inverse of ldmatrix), run by the runner once every lane
        has given its row address and registers. Its row writes are generic-proxy shared stores."""
        n, trans, regs, mem = self._matrix_form(ins, "stmatrix")
        w, term = self._wait(ins, STMATRIX, k, nblocks)
        w.args["addr"] = self._wait_addr(mem)
        w.args.update(s=[x.slot for x in regs], n=n, trans=trans)
        return term

    def _i_shfl(self, ins, written, k, nblocks):
        """shfl.sync.{bfly,up,down,idx}.b32 d, a, b, c, membermask: warp-collective, run
        by the runner once every lane of the warp has arrived (d|p forms unsupported)."""
        mods = ins.mods
        if len(mods) != 3 or mods[0] != "sync" or mods[1] not in ("bfly", "up", "down", "idx") or mods[2] != "b32":
            self._fail("shfl form (only .sync.{bfly,up,down,idx}.b32)")
        self._nops(ins, 5)
        d, a, b, c, mask = ins.operands
        for x in (d, a):
            if not isinstance(x, Reg) or x.kind not in ("i", "f") or x.width != 32:
                self._fail("shfl d and a must be 32-bit registers")
        if not isinstance(c, Imm) or c.ival is None or not isinstance(mask, Imm) or mask.ival is None:
            self._fail("shfl c and membermask must be constants")
        if ins.guard:
            self._fail("predicated shfl")
        w, term = self._wait(ins, SHFL, k, nblocks)
        w.args.update(mode=mods[1], d=d, a=a, b=self._wait_val(b), c=c.ival & 0xFFFF,
                      mask=mask.ival & 0xFFFFFFFF)
        written.add(d)
        return term

    def _i_mma(self, ins, written, k, nblocks):
        mods = ins.mods
        if "block_scale" in mods:          # mma.sync ... .block_scale (sm_120a): mma_scaled.py
            from .mma_scaled import decode
            return decode(self, ins, k, nblocks, MMA)
        if mods[:1] != ["sync"] or "aligned" not in mods:
            self._fail("mma without .sync.aligned")
        rest = [m for m in mods if m not in ("sync", "aligned")]
        floats = len(rest) == 7 and rest[3] == rest[6] == "f32" and rest[4] == rest[5] and \
            (rest[0], rest[4]) in (("m16n8k16", "f16"), ("m16n8k16", "bf16"), ("m16n8k8", "tf32"))
        ints = len(rest) == 7 and rest[0] == "m16n8k32" and rest[3] == rest[6] == "s32" and \
            rest[4] in ("s8", "u8") and rest[5] in ("s8", "u8")
        if len(rest) == 8 and rest[3] == "kind::f8f6f4":      # sm_120a's spelling of the fp8 form
            rest = rest[:3] + rest[4:]
        fp8 = len(rest) == 7 and rest[0] == "m16n8k32" and rest[3] == rest[6] == "f32" and \
            rest[4] in ("e4m3", "e5m2") and rest[5] in ("e4m3", "e5m2")
        if not (floats or ints or fp8) or rest[1:3] != ["row", "col"]:
            self._fail("mma shape/types (only m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32, "
                       "m16n8k8.row.col.f32.tf32.tf32.f32, m16n8k32.row.col.s32.{s8,u8}.{s8,u8}.s32 and "
                       "m16n8k32.row.col[.kind::f8f6f4].f32.{e4m3,e5m2}.{e4m3,e5m2}.f32)")
        self._nops(ins, 4)
        d, a, b, c = ins.operands
        sizes = (4, 4, 2, 4)         # m16n8k16 f16/bf16 pairs and m16n8k8 tf32 words alike
        for o, n in zip((d, a, b, c), sizes):
            if not isinstance(o, Vec) or len(o.items) != n or not all(isinstance(x, Reg) for x in o.items):
                self._fail("mma operand vectors")
        for x in a.items + b.items:
            if x.kind != "i" or x.width != 32:
                self._fail("mma A/B fragments must be .b32 registers")
        for x in c.items + d.items:
            if x.kind not in ("f", "i") or x.width != 32:
                self._fail("mma C/D fragments must be 32-bit registers")
        if ins.guard:
            self._fail("predicated mma")
        w, term = self._wait(ins, MMA, k, nblocks)
        w.args.update(d=[x for x in d.items], a=[x.slot for x in a.items], b=[x.slot for x in b.items],
                      c=[x for x in c.items], atype=rest[4], btype=rest[5])
        return term

    def _i_wgmma(self, ins, written, k, nblocks):
        """wgmma.fence / .mma_async (f32 += f16/bf16; A from a descriptor or from four
        .b32 registers, B from a descriptor) / .commit_group / .wait_group, all
        .sync.aligned (tests/ptxsim/wgmma.py)."""
        mods = ins.mods
        if len(mods) < 3 or mods[1:3] != ["sync", "aligned"]:
            self._fail("wgmma form (only .fence/.mma_async/.commit_group/.wait_group .sync.aligned)")
        if ins.guard:
            self._fail("predicated wgmma")
        what = mods[0]
        if what == "fence" and len(mods) == 3:
            self._nops(ins, 0)
            ep = self.regs["%%epkey"]
            self._used.add(ep)
            self._used.update(self.wg_aregs)
            avals = "".join(f"{r.var}, " for r in self.wg_aregs)
            self._emit(f"_wg_fence({ep.var} & 4095, ({avals}))")
            return None
        if what == "commit_group" and len(mods) == 3:
            self._nops(ins, 0)
            _, term = self._wait(ins, WG_COMMIT, k, nblocks)
            return term
        if what == "wait_group" and len(mods) == 3:
            self._nops(ins, 1)
            n = ins.operands[0]
            if not isinstance(n, Imm) or n.ival is None or n.ival < 0:
                self._fail("wgmma.wait_group takes an integer constant")
            w, term = self._wait(ins, WG_WAIT, k, nblocks)
            w.args["n"] = n.ival
            return term
        if what != "mma_async":
            self._fail(None)
        rest = mods[3:]
        m = re.fullmatch(r"m64n(\d+)k(8|16|32)", rest[0]) if rest else None
        fp8 = bool(m) and m.group(2) == "32"
        tf32 = bool(m) and m.group(2) == "8"
        if fp8:
            if len(rest) != 4 or rest[1] != "f32" or rest[2] not in FP8_TYPES or rest[3] not in FP8_TYPES:
                self._fail("wgmma.mma_async fp8 shape/types (only .m64nNk32.f32.{e4m3,e5m2}.{e4m3,e5m2})")
        elif tf32:
            if rest[1:] != ["f32", "tf32", "tf32"]:
                self._fail("wgmma.mma_async tf32 shape/types (only .m64nNk8.f32.tf32.tf32)")
        elif not m or len(rest) != 4 or rest[1] != "f32" or rest[2] != rest[3] or rest[2] not in ("f16", "bf16"):
            self._fail("wgmma.mma_async shape/types (only .m64nNk16.f32.{f16,bf16}.{f16,bf16} and "
                       ".m64nNk32.f32.{e4m3,e5m2}.{e4m3,e5m2})")
        n = int(m.group(1))
        if n % 8 or not 8 <= n <= 256:
            self._fail("wgmma.mma_async N")
        ops = ins.operands
        if fp8 or tf32:
            return self._i_wgmma_fp8(ins, ops, n, rest, k, nblocks)
        forms = ("d, a-desc, b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b or "
                 "d, {a0, a1, a2, a3}, b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-b")
        if len(ops) not in (7, 8):
            self._fail(f"wgmma.mma_async operands ({len(ops)}; only {forms})")
        reg_a = isinstance(ops[1], Vec)
        if reg_a and len(ops) != 7:
            self._fail("wgmma.mma_async with A in registers takes 7 operands (no imm-trans-a)")
        if not reg_a and len(ops) != 8:
            self._fail("wgmma.mma_async with 7 operands takes A in registers {a0, a1, a2, a3}")
        if reg_a:
            d, a, b, scale, sa, sb, tb = ops
            ta = None
        else:
            d, a, b, scale, sa, sb, ta, tb = ops
        if not isinstance(d, Vec) or len(d.items) != n // 2 or \
                not all(isinstance(x, Reg) and x.kind in ("f", "i") and x.width == 32 for x in d.items):
            self._fail("wgmma.mma_async D must be N/2 32-bit registers")
        if reg_a:
            if len(a.items) != 4 or not all(isinstance(x, Reg) and x.kind == "i" and x.width == 32
                                            for x in a.items):
                self._fail("wgmma.mma_async register A must be four .b32 registers {a0, a1, a2, a3}")
            if {x.slot for x in a.items} & {x.slot for x in d.items}:
                self._fail("wgmma.mma_async register A overlaps D")
        for x in ((b,) if reg_a else (a, b)):
            if not isinstance(x, Reg) or x.kind != "i" or x.width != 64:
                self._fail("wgmma.mma_async descriptors must be 64-bit registers")
        sk = self._wgmma_scales(scale, sa, sb)
        for x in ((tb,) if reg_a else (ta, tb)):
            if not isinstance(x, Imm) or x.ival not in (0, 1):
                self._fail("wgmma.mma_async imm-trans-a/b (0 or 1)")
        w, term = self._wait(ins, WGMMA, k, nblocks)
        w.args.update(d=list(d.items), a=[x.slot for x in a.items] if reg_a else a.slot, reg_a=reg_a,
                      b=b.slot, scale=sk, scale_a=float(sa.ival), scale_b=float(sb.ival), n=n, atype=rest[2],
                      btype=rest[3], trans_a=None if reg_a else ta.ival, trans_b=tb.ival)
        return term

    def _wgmma_scales(self, scale, sa, sb):
        """("reg", slot) or ("imm", 0/1) of scale-d, after checking it and imm-scale-a/b."""
        if isinstance(scale, Reg) and scale.kind == "p":
            sk = ("reg", scale.slot)
        elif isinstance(scale, Imm) and scale.ival in (0, 1):
            sk = ("imm", scale.ival)
        else:
            self._fail("wgmma.mma_async scale-d (a predicate or 0/1)")
        for x in (sa, sb):
            if not isinstance(x, Imm) or x.ival not in (1, -1):
                self._fail("wgmma.mma_async imm-scale-a/b (1 or -1)")
        return sk

    def _i_wgmma_fp8(self, ins, ops, n, rest, k, nblocks):
        """wgmma.mma_async .m64nNk32.f32.{e4m3,e5m2}.{e4m3,e5m2} and .m64nNk8.f32.tf32.tf32:
        d, a-desc, b-desc, scale-d, imm-scale-a, imm-scale-b (8-bit types and tf32 have no
        transpose immediates: both operands are K-major). A in registers is not simulated."""
        what = "tf32" if rest[2] == "tf32" else "fp8"
        if len(ops) == 6 and isinstance(ops[1], Vec):
            self._fail(f"{what} wgmma.mma_async with A in registers (not simulated)")
        if len(ops) != 6:
            self._fail(f"{what} wgmma.mma_async operands ({len(ops)}; only d, a-desc, b-desc, scale-d, "
                       f"imm-scale-a, imm-scale-b: no imm-trans for 8-bit types and tf32)")
        d, a, b, scale, sa, sb = ops
        if not isinstance(d, Vec) or len(d.items) != n // 2 or \
                not all(isinstance(x, Reg) and x.kind in ("f", "i") and x.width == 32 for x in d.items):
            self._fail("wgmma.mma_async D must be N/2 32-bit registers")
        for x in (a, b):
            if not isinstance(x, Reg) or x.kind != "i" or x.width != 64:
                self._fail("wgmma.mma_async descriptors must be 64-bit registers")
        sk = self._wgmma_scales(scale, sa, sb)
        w, term = self._wait(ins, WGMMA, k, nblocks)
        w.args.update(d=list(d.items), a=a.slot, reg_a=False, b=b.slot, scale=sk, scale_a=float(sa.ival),
                      scale_b=float(sb.ival), n=n, atype=rest[2], btype=rest[3], trans_a=0, trans_b=0)
        return term

    # ---- tcgen05 (sm_100a, tcgen05.py) -------------------------------------------------------------
    _TC_WAITS = {"wait::ld": TC_WAIT_LD, "wait::st": TC_WAIT_ST}

    def _i_tcgen05(self, ins, written, k, nblocks):
        """tcgen05.alloc/dealloc/relinquish_alloc_permit.cta_group::1, tcgen05.ld/st.32x32b.xN.b32 and
        tcgen05.wait::ld/st (warp-collective: the runner joins the warp), tcgen05.mma.cta_group::1
        .kind::{f16,tf32,f8f6f4,i8} with A and B from descriptors, tcgen05.commit.cta_group::1
        .mbarrier::arrive::one{.shared::cluster}.b64 and tcgen05.fence::{before,after}_thread_sync
        (inline: single-thread semantics). Everything else is unsupported."""
        mods = ins.mods
        what = mods[0] if mods else None
        ep = self.regs["%%epkey"]
        if what in ("fence::before_thread_sync", "fence::after_thread_sync") and len(mods) == 1:
            self._nops(ins, 0)
            self._used.add(ep)
            self._guarded(ins, [f"_tc_fence({ep.var} & 4095, {what == 'fence::after_thread_sync'})"])
            return None
        if what in ("alloc", "dealloc", "relinquish_alloc_permit", "mma", "commit") and \
                "cta_group::1" not in mods[1:2]:
            self._fail("tcgen05 form: only .cta_group::1 is simulated")
        if what == "alloc":
            if mods[2:] not in (["sync", "aligned", "shared::cta", "b32"], ["sync", "aligned", "b32"]):
                self._fail("tcgen05.alloc form (.cta_group::1.sync.aligned{.shared::cta}.b32 [dst], nCols)")
            self._nops(ins, 2)
            dst, n = ins.operands
            if not isinstance(dst, Addr):
                self._fail("tcgen05.alloc destination must be a shared memory address [dst]")
            w, term = self._wait(ins, TC_ALLOC, k, nblocks)
            w.args.update(addr=self._wait_addr(dst), ncols=self._tc_u32(n))
            return term
        if what == "dealloc":
            if mods[2:] != ["sync", "aligned", "b32"]:
                self._fail("tcgen05.dealloc form (.cta_group::1.sync.aligned.b32 taddr, nCols)")
            self._nops(ins, 2)
            w, term = self._wait(ins, TC_DEALLOC, k, nblocks)
            w.args.update(taddr=self._tc_u32(ins.operands[0]), ncols=self._tc_u32(ins.operands[1]))
            return term
        if what == "relinquish_alloc_permit":
            if mods[2:] != ["sync", "aligned"]:
                self._fail("tcgen05.relinquish_alloc_permit form (.cta_group::1.sync.aligned)")
            self._nops(ins, 0)
            _, term = self._wait(ins, TC_RELINQ, k, nblocks)
            return term
        if what in self._TC_WAITS:
            if mods[1:] != ["sync", "aligned"]:
                self._fail(f"tcgen05.{what} form (.sync.aligned)")
            self._nops(ins, 0)
            _, term = self._wait(ins, self._TC_WAITS[what], k, nblocks)
            return term
        if what in ("ld", "st"):
            return self._tc_ldst(ins, what, written, k, nblocks)
        if what == "mma":
            return self._tc_mma_decode(ins)
        if what == "commit":
            rest = mods[2:]
            if rest not in (["mbarrier::arrive::one", "b64"], ["mbarrier::arrive::one", "shared::cluster", "b64"]):
                self._fail("tcgen05.commit form (only .cta_group::1.mbarrier::arrive::one{.shared::cluster}.b64 "
                           "[mbar]: no .multicast::cluster)")
            self._nops(ins, 1)
            mb = ins.operands[0]
            if not isinstance(mb, Addr):
                self._fail("tcgen05.commit takes an mbarrier address [mbar]")
            self._used.add(ep)
            self._guarded(ins, [f"_tc_commit({self._lid}, {ep.var} & 4095, {self._raw_addr(mb)})"])
            return None
        self._fail(None)

    def _tc_u32(self, o):
        """Runner-side accessor of a .b32 register or integer operand."""
        if isinstance(o, Reg) and (o.kind != "i" or o.width != 32):
            self._fail("tcgen05 operand must be a 32-bit register or an integer")
        return self._wait_val(o)

    def _tc_ldst(self, ins, what, written, k, nblocks):
        """tcgen05.ld.sync.aligned.32x32b.xN.b32 {r..}, [taddr] / tcgen05.st.sync.aligned.32x32b.xN.b32
        [taddr], {r..}: N .b32 (or .f32) registers a thread."""
        mods = ins.mods
        if mods[1:3] != ["sync", "aligned"] or len(mods) != 6 or mods[-1] != "b32":
            self._fail(f"tcgen05.{what} form (only .sync.aligned.32x32b.xN.b32)")
        if mods[3] != "32x32b":
            self._fail(f"tcgen05.{what} shape .{mods[3]} (only .32x32b is simulated; no .pack/.unpack)")
        m = re.fullmatch(r"x(1|2|4|8|16|32|64|128)", mods[4])
        if not m:
            self._fail(f"tcgen05.{what} .num (.x1, .x2, .x4, .. .x128)")
        n = int(m.group(1))
        self._nops(ins, 2)
        regs, mem = ins.operands if what == "ld" else ins.operands[::-1]
        if not isinstance(regs, Vec) or len(regs.items) != n or \
                not all(isinstance(x, Reg) and x.kind in ("i", "f") and x.width == 32 for x in regs.items):
            self._fail(f"tcgen05.{what}.32x32b.x{n} takes {n} 32-bit registers")
        if what == "ld" and len({x.slot for x in regs.items}) != n:
            self._fail("tcgen05.ld destination registers repeat")
        if not isinstance(mem, Addr) or (isinstance(mem.base, Reg) and (mem.base.kind != "i" or mem.base.width != 32)):
            self._fail(f"tcgen05.{what} takes a TMEM address [taddr] (a .b32 register)")
        w, term = self._wait(ins, TC_LD if what == "ld" else TC_ST, k, nblocks)
        w.args.update(taddr=self._wait_addr(mem), n=n)
        if what == "ld":
            w.args["d"] = list(regs.items)
            written.update(regs.items)
        else:
            w.args["s"] = list(regs.items)
        return term

    def _tc_mma_decode(self, ins):
        """tcgen05.mma.cta_group::1.kind::K [d-tmem], a-desc, b-desc, idesc, {disable-output-lane,}
        enable-input-d {, scale-input-d}."""
        mods = ins.mods
        if "block_scale" in mods:
            return self._tc_mma_scaled_decode(ins)
        kinds = [x[len("kind::"):] for x in mods[2:] if x.startswith("kind::")]
        if len(mods) != 3 or len(kinds) != 1 or kinds[0] not in MMA_KINDS:
            self._fail("tcgen05.mma form (only .cta_group::1.kind::{f16,tf32,f8f6f4,i8} and the .block_scale "
                       "kinds: no .ws, .sp, .collector or .ashift)")
        kind = kinds[0]
        ops = list(ins.operands)
        if len(ops) < 5 or len(ops) > 7:
            self._fail("tcgen05.mma operands ([d-tmem], a-desc, b-desc, idesc, {disable-output-lane,} "
                       "enable-input-d {, scale-input-d})")
        d, a, b, idesc = ops[:4]
        rest = ops[4:]
        mask = "None"
        if isinstance(rest[0], Vec):
            v = rest.pop(0)
            if len(v.items) != 4 or not all(isinstance(x, Reg) and x.kind == "i" and x.width == 32 or
                                            isinstance(x, Imm) and x.ival is not None for x in v.items):
                self._fail("tcgen05.mma.cta_group::1 disable-output-lane is four .b32 values")
            mask = "(" + "".join(f"{self.rd(x, T('b32'))}, " for x in v.items) + ")"
        if not rest or len(rest) > 2:
            self._fail("tcgen05.mma enable-input-d")
        enx = self._tc_enable(rest[0])
        scale = 0
        if len(rest) == 2:
            sc = rest[1]
            if kind not in ("f16", "tf32") or not isinstance(sc, Imm) or sc.ival is None or not 0 <= sc.ival <= 15:
                self._fail("tcgen05.mma scale-input-d (an integer 0..15, .kind::f16 and .kind::tf32 only)")
            scale = sc.ival
        if not isinstance(d, Addr):
            self._fail("tcgen05.mma D must be a TMEM address [d-tmem]")
        self._tc_check_descriptors(a, b, idesc, a_tmem_ok=True)
        self._tc_mma_call(ins, kind, d, a, b, idesc, enx, f"{mask}, {scale}")
        return None

    def _tc_enable(self, en) -> str:
        """The Python expression of tcgen05.mma's enable-input-d (a predicate or 0/1)."""
        if isinstance(en, Reg) and en.kind == "p":
            return en.var
        if isinstance(en, Imm) and en.ival in (0, 1):
            return str(bool(en.ival))
        self._fail("tcgen05.mma enable-input-d must be a predicate or 0/1")

    def _tc_check_descriptors(self, a, b, idesc, a_tmem_ok=False):
        """A from a shared-memory descriptor (64-bit) or, where `a_tmem_ok`, Tensor Memory
        ([a-tmem]); B from a descriptor; the 32-bit instruction descriptor."""
        if isinstance(a, Addr) and not a_tmem_ok:
            self._fail("tcgen05.mma with A in Tensor Memory ([a-tmem]) is not simulated for this kind")
        for x, what in ((b, "b-desc"),) if isinstance(a, Addr) else ((a, "a-desc"), (b, "b-desc")):
            if not (isinstance(x, Reg) and x.kind == "i" and x.width == 64 or isinstance(x, Imm) and x.ival is not None):
                self._fail(f"tcgen05.mma {what} must be a 64-bit register or an integer")
        if not (isinstance(idesc, Reg) and idesc.kind == "i" and idesc.width == 32 or
                isinstance(idesc, Imm) and idesc.ival is not None):
            self._fail("tcgen05.mma idesc must be a 32-bit register or an integer")

    def _tc_mma_call(self, ins, kind, d, a, b, idesc, enx, tail: str):
        """The runtime call of one tcgen05.mma; `tail`: its mask, scale and block-scale arguments."""
        ep = self.regs["%%epkey"]
        self._used.add(ep)
        # A in Tensor Memory: its address, flagged by a_tmem=True
        av, at = (self._raw_addr(a), ", a_tmem=True") if isinstance(a, Addr) else (self.rd(a, T('b64')), "")
        self._guarded(ins, [f"_tc_mma({self._lid}, {ep.var} & 4095, '{kind}', {self._raw_addr(d)}, "
                            f"{av}, {self.rd(b, T('b64'))}, {self.rd(idesc, T('b32'))}, {enx}, "
                            f"{tail}{at})"])

    # .scale_vectorsize -> X per kind, as ptxas takes them (no qualifier: kind::mxf8f6f4 1X,
    # kind::mxf4 .block32 = 2X; kind::mxf4nvf4 must name one)
    _TC_SCALE_VEC = {"mxf8f6f4": {None: 1, "scale_vec::1X": 1, "block32": 1},
                     "mxf4": {None: 2, "scale_vec::2X": 2, "block32": 2},
                     "mxf4nvf4": {"scale_vec::2X": 2, "scale_vec::4X": 4, "block32": 2, "block16": 4}}

    def _tc_mma_scaled_decode(self, ins):
        """tcgen05.mma.cta_group::1.kind::{mxf8f6f4,mxf4,mxf4nvf4}.block_scale{.scale_vectorsize}
        [d-tmem], a-desc, b-desc, idesc, [scale-A-tmem], [scale-B-tmem], enable-input-d."""
        mods = ins.mods
        kinds = [x[len("kind::"):] for x in mods[2:3] if x.startswith("kind::")]
        if len(kinds) != 1 or kinds[0] not in self._TC_SCALE_VEC or mods[3:4] != ["block_scale"] or len(mods) > 5:
            self._fail("tcgen05.mma block-scaled form (only .cta_group::1.kind::{mxf8f6f4,mxf4,mxf4nvf4}"
                       ".block_scale{.scale_vec::NX,.block16,.block32}: no .ws, .sp or .collector)")
        kind = kinds[0]
        vec = mods[4] if len(mods) == 5 else None
        x = self._TC_SCALE_VEC[kind].get(vec)
        if x is None:
            self._fail(f"tcgen05.mma .kind::{kind}.block_scale with {'.' + vec if vec else 'no .scale_vectorsize'} "
                       f"(takes {', '.join('.' + v if v else 'none' for v in self._TC_SCALE_VEC[kind])})")
        ops = list(ins.operands)
        if len(ops) != 7:
            self._fail("tcgen05.mma .block_scale operands ([d-tmem], a-desc, b-desc, idesc, [scale-A-tmem], "
                       "[scale-B-tmem], enable-input-d)")
        d, a, b, idesc, sfa, sfb, en = ops
        for o, what in ((d, "D"), (sfa, "scale-A"), (sfb, "scale-B")):
            if not isinstance(o, Addr) or (isinstance(o.base, Reg) and (o.base.kind != "i" or o.base.width != 32)):
                self._fail(f"tcgen05.mma {what} must be a TMEM address [taddr] (a .b32 register)")
        self._tc_check_descriptors(a, b, idesc)
        enx = self._tc_enable(en)
        self._tc_mma_call(ins, kind, d, a, b, idesc, enx,
                          f"None, 0, ({x}, {self._raw_addr(sfa)}, {self._raw_addr(sfb)})")
        return None
