"""print / print_tko through vprintf and assert through __assertfail.

The group's thread 0 prints once per tile block. A tile argument expands its
conversion into the interpreter's nested-list form (`[a, b]`), one vprintf
argument per element, after the tile is gathered in shared memory. Integers
pass as 32 bits (`ll` added for i64), floats as doubles, as C varargs do.
CUDA's printf takes at most 32 arguments per call (it prints the specifiers of
any beyond as text), so a longer print is split into consecutive calls of 32."""
from __future__ import annotations

import re

from .emitter import handles
from ...dialects.nv_tileas.layouts import linear_offsets
from .numeric import float_name, to_f32
from .ptxtypes import B32, B64, F64, PRED, Unsupported, bits, byte_size, reg_class

MAX_PRINTED_ELEMENTS = 1024
MAX_VPRINTF_ARGS = 32
# the conversions _expand writes (flags, width, precision, ll; never `*`) and %%
_C_SPEC = re.compile(r"%%|%[-+ #0]*[0-9]*(?:\.[0-9]+)?(?:ll)?[diouxXcfFeEgGaA]")
DECLS = {
    "vprintf": ".extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, "
               ".param .b64 vprintf_param_1);",
    "__assertfail": ".extern .func __assertfail(.param .b64 __assertfail_param_0, .param .b64 "
                    "__assertfail_param_1, .param .b32 __assertfail_param_2, .param .b64 __assertfail_param_3, "
                    ".param .b64 __assertfail_param_4);",
}


def _spec_regex():
    from ...interp.printf import _SPEC
    return _SPEC


def _nested(spec, shape):
    if not shape:
        return spec
    inner = _nested(spec, shape[1:])
    return "[" + ", ".join([inner] * shape[0]) + "]"


def _expand(fmt, args):
    """(C format with one conversion per element, [(tile, conv)] in order)."""
    out, pos, k, used = [], 0, 0, []
    for m in _spec_regex().finditer(fmt):
        out.append(fmt[pos:m.start()].replace("%", "%%"))
        pos = m.end()
        conv = m.group("conv")
        if conv == "%":
            out.append("%%")
            continue
        if k >= len(args):
            out.append(m.group(0).replace("%", "%%"))
            continue
        t = args[k]
        k += 1
        spec = "%" + (m.group("flags") or "") + (m.group("width") or "").replace("*", "")
        if m.group("prec") not in (None, "*"):
            spec += "." + m.group("prec")
        is_f = bool(float_name(t.etype))
        if conv in "diuxXoc" and not is_f and bits(t.etype) == 64:
            spec += "ll"
        if conv in "diuxXoc" and is_f:
            conv = "d"   # the interpreter prints a float through %d as its integer part
        if conv in "fFeEgGaA" and not is_f:
            raise Unsupported("prints an integer with a float conversion")
        if conv in "sp":
            raise Unsupported(f"conversion '%{conv}' is not supported on the GPU")
        spec += conv
        out.append(_nested(spec, t.shape))
        used.append((t, conv))
    out.append(fmt[pos:].replace("%", "%%"))
    return "".join(out), used


def _string_global(em, text: str) -> str:
    data = text.encode() + b"\0"
    return em.module.bytes_global(em.kb.name, data, "str")


def _elements(em, tile):
    """Registers of every element, row-major, valid in thread 0 of the group."""
    if tile.splat:
        n = 1
        for d in tile.shape:
            n *= d
        return [tile.reg] * n
    n = 1
    for d in tile.shape:
        n *= d
    if n > MAX_PRINTED_ELEMENTS:
        raise Unsupported(f"prints a tile of {n} elements (at most {MAX_PRINTED_ELEMENTS} on the GPU)")
    sym = em.scratch(n * byte_size(tile.etype))
    base = em.addr_of(sym)
    em.sync()
    em.store_shared(tile, base, linear_offsets(tile.shape))
    em.sync()
    out = []
    for i in range(n):
        t = em.new_tile(tile.etype, ())
        em._ld_shared(t.reg, tile.etype, f"[{base}+{i * byte_size(tile.etype)}]")
        out.append(t.reg)
    return out


def _vararg(em, reg, etype, conv):
    """(register, byte size) of one C vararg."""
    kb = em.kb
    if float_name(etype):
        if conv == "d":
            i = kb.reg(B32)
            f = reg if float_name(etype) in ("f32", "f64") else to_f32(em, reg, etype)
            kb.emit(f"cvt.rzi.s32.{'f64' if float_name(etype) == 'f64' else 'f32'} \t{i}, {f}")
            return i, 4
        if float_name(etype) == "f64":
            return reg, 8
        d = kb.reg(F64)
        kb.emit(f"cvt.f64.f32 \t{d}, {to_f32(em, reg, etype)}")
        return d, 8
    if reg_class(etype) == PRED:
        i = kb.reg(B32)
        kb.emit(f"selp.u32 \t{i}, 1, 0, {reg}")
        return i, 4
    if bits(etype) == 64:
        return reg, 8
    if conv in "uxXo" and bits(etype) < 32:
        m = kb.reg(B32)
        kb.emit(f"and.b32 \t{m}, {reg}, {(1 << bits(etype)) - 1}")
        return m, 4
    return reg, 4


def _call_vprintf(em, fmt_sym, values):
    kb = em.kb
    em.module.declare(DECLS["vprintf"])
    lead = em.leader()
    skip = kb.label("print_done")
    kb.emit(f"@!{lead} bra \t{skip}")
    fmt = kb.reg(B64)
    kb.emit(f"cvta.global.u64 \t{fmt}, {fmt_sym}")
    args = kb.reg(B64)
    if values:
        size = 0
        placed = []
        for r, n in values:
            size = (size + n - 1) // n * n
            placed.append((r, n, size))
            size += n
        depot = em.local_buffer(size)
        kb.emit(f"mov.u64 \t{args}, {depot}")
        for r, n, off in placed:
            kb.emit(f"st.local.b{8 * n} \t[{args}+{off}], {r}")
        kb.emit(f"cvta.local.u64 \t{args}, {args}")
    else:
        kb.emit(f"mov.u64 \t{args}, 0")
    kb.out.append("\t{")
    kb.emit(".param .b64 vp0")
    kb.emit(f"st.param.b64 \t[vp0], {fmt}")
    kb.emit(".param .b64 vp1")
    kb.emit(f"st.param.b64 \t[vp1], {args}")
    kb.emit(".param .b32 vret")
    kb.emit("call.uni (vret), vprintf, (vp0, vp1)")
    kb.out.append("\t}")
    kb.place(skip)


def _split(text, values):
    """(format, its values) per vprintf call: at most MAX_VPRINTF_ARGS
    conversions each; the literal text after a call's last conversion stays
    with that call."""
    cuts, k = [], 0
    for m in _C_SPEC.finditer(text):
        if m.group(0) == "%%":
            continue
        if k and k % MAX_VPRINTF_ARGS == 0:
            cuts.append(m.start())
        k += 1
    bounds = [0] + cuts + [len(text)]
    return [(text[a:b], values[i * MAX_VPRINTF_ARGS:(i + 1) * MAX_VPRINTF_ARGS])
            for i, (a, b) in enumerate(zip(bounds, bounds[1:]))]


@handles("cuda_tile.print_tko", "cuda_tile.print")
def _print(em, op):
    tiles = [em.tile(v) for v in op.args]
    text, used = _expand(op.attributes["str"].value, tiles)
    values = []
    for t, conv in used:
        for r in _elements(em, t):
            values.append(_vararg(em, r, t.etype, conv))
    for piece, args in _split(text, values):
        _call_vprintf(em, _string_global(em, piece), args)
    for r in op.results:
        em.bind(r, None)


@handles("cuda_tile.assert")
def _assert(em, op):
    kb = em.kb
    cond = em.tile(op.condition)
    ok = None
    for r in (cond.regs if not cond.splat else [cond.reg]):
        if ok is None:
            ok = kb.reg(PRED)
            kb.emit(f"mov.pred \t{ok}, {r}")
        else:
            kb.emit(f"and.pred \t{ok}, {ok}, {r}")
    all_ok = kb.reg(PRED)
    g = em.group
    bar = "0" if g.barrier_id == 0 else f"{g.barrier_id}, {g.threads}"
    kb.emit(f"bar.red.and.pred \t{all_ok}, {bar}, {ok}")
    em.module.declare(DECLS["__assertfail"])
    done = kb.label("assert_ok")
    lead = em.leader()
    kb.emit(f"@{all_ok} bra \t{done}")
    kb.emit(f"@!{lead} bra \t{done}")
    msg, file_, func = (_string_global(em, s) for s in (op.attributes["message"].value, "<tile kernel>", kb.name))
    regs = []
    for sym in (msg, file_, func):
        r = kb.reg(B64)
        kb.emit(f"cvta.global.u64 \t{r}, {sym}")
        regs.append(r)
    kb.out.append("\t{")
    for i, (kind, val) in enumerate(((".b64", regs[0]), (".b64", regs[1]), (".b32", "0"), (".b64", regs[2]),
                                     (".b64", "1"))):
        kb.emit(f".param {kind} af{i}")
        kb.emit(f"st.param{kind} \t[af{i}], {val}")
    kb.emit("call.uni __assertfail, (af0, af1, af2, af3, af4)")
    kb.out.append("\t}")
    kb.place(done)


_ = B32
