"""Where a CTA's time goes: %globaltimer stamps (`tilec compile --stamps`).

Thread 0 of the CTA (for `first_data`, the first thread of the consuming group)
writes the GPU's global nanosecond timer into `__tilec_stamps_<kernel>`, a
global array of SLOTS words per CTA (CTAs past MAX_CTAS share the last row),
at the points below (`exit` after a CTA barrier: when every thread is done).
A point a kernel does not pass (no tensor maps, no
pipeline) stays as the launch left it: tilec.runtime.stamps clears the array
before a launch and reads it after. The timer ticks in steps of some hundred
nanoseconds on current GPUs, so the stamps place phases of a few microseconds,
not single instructions. Without the option nothing is emitted."""
from __future__ import annotations

from .ptxtypes import B32, B64, PRED

POINTS = ("entry", "maps_ready", "first_data", "exit", "claimed", "keys")
SLOTS = 8                 # words per CTA: POINTS and room for more
MAX_CTAS = 4096


def symbol(kernel: str) -> str:
    return f"__tilec_stamps_{kernel}"


def stamp(em, point: str, once: bool = False):
    """Emit a stamp of `point` by the current group's first thread; `once`: only the
    first time that thread passes here (a point inside a loop)."""
    if not em.stamps:
        return
    kb = em.kb
    sym = symbol(kb.name)
    line = f".global .align 8 .u64 {sym}[{MAX_CTAS * SLOTS}];"
    if line not in em.module.module_lines:
        em.module.module_lines.append(line)
    lead = em.leader()
    if once:
        first = em.group_value(("stamp_once", point), PRED, lambda p: kb.emit(f"setp.eq.u32 \t{p}, 0, 0"))
        both = kb.reg(PRED)
        kb.emit(f"and.pred \t{both}, {lead}, {first}")
        lead = both
    cta, n, t, a, off = kb.reg(B32), kb.reg(B32), kb.reg(B64), kb.reg(B64), kb.reg(B64)
    kb.emit(f"mov.u32 \t{cta}, %ctaid.z")
    kb.emit(f"mov.u32 \t{n}, %nctaid.y")
    kb.emit(f"mul.lo.u32 \t{cta}, {cta}, {n}")
    kb.emit(f"mov.u32 \t{n}, %ctaid.y")
    kb.emit(f"add.u32 \t{cta}, {cta}, {n}")
    kb.emit(f"mov.u32 \t{n}, %nctaid.x")
    kb.emit(f"mul.lo.u32 \t{cta}, {cta}, {n}")
    kb.emit(f"mov.u32 \t{n}, %ctaid.x")
    kb.emit(f"add.u32 \t{cta}, {cta}, {n}")
    kb.emit(f"min.u32 \t{cta}, {cta}, {MAX_CTAS - 1}")
    kb.emit(f"mad.lo.u32 \t{cta}, {cta}, {SLOTS}, {POINTS.index(point)}")
    kb.emit(f"mul.wide.u32 \t{off}, {cta}, 8")
    kb.emit(f"mov.u64 \t{a}, {sym}")
    kb.emit(f"add.s64 \t{a}, {a}, {off}")
    kb.emit(f"mov.u64 \t{t}, %globaltimer")
    kb.emit(f"@{lead} st.global.u64 \t[{a}], {t}")
    if once:
        kb.emit(f"setp.ne.u32 \t{first}, 0, 0")
