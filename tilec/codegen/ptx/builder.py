"""PTX text for one kernel: virtual registers, instructions, labels, shared memory.

Registers are virtual (ptxas allocates); each class is declared once with a
`<N>` range. Code is a list of lines with *sections*: a section is a nested list
that can be filled later (a thread group's prologue of tid-derived values is
emitted where the group starts, whatever point asked for it first).
"""
from __future__ import annotations

import re

from .ptxtypes import REG_CLASSES


class Section(list):
    """A placeholder in the line list, filled after it was placed."""


class KernelBuilder:
    def __init__(self, name: str):
        self.name = name
        self.counts = {k: 0 for k in REG_CLASSES}
        self.lines: list = []
        self.labels = 0
        self.shared: list[list] = []   # [symbol, bytes, alignment, hint, reuse_stages]
        self.spans: dict = {}          # stage buffer symbol -> (first, last) phase
        self.globals: list[str] = []                   # module-scope declarations
        self.out = self.lines                          # where emit() appends
        self.local_bytes = 0                           # per-thread .local buffer (vprintf arguments)
        self.cold = Section()                          # rarely run code, placed after the body

    # ---- registers and labels --------------------------------------------------------
    def reg(self, cls: str) -> str:
        n = self.counts[cls]
        self.counts[cls] = n + 1
        return f"{REG_CLASSES[cls][1]}{n}"

    def label(self, hint: str = "L") -> str:
        self.labels += 1
        return f"$L_{hint}_{self.labels}"

    # ---- code ------------------------------------------------------------------------
    def emit(self, text: str):
        self.out.append("\t" + text + ";")

    def place(self, label: str):
        self.out.append(label + ":")

    def comment(self, text: str):
        self.out.append("\t// " + text)

    def section(self) -> Section:
        s = Section()
        self.out.append(s)
        return s

    class _Into:
        def __init__(self, kb, target):
            self.kb, self.target = kb, target

        def __enter__(self):
            self.saved, self.kb.out = self.kb.out, self.target

        def __exit__(self, *exc):
            self.kb.out = self.saved

    def into(self, section: list):
        """`with kb.into(section):` emit into `section` instead of the current point."""
        return KernelBuilder._Into(self, section)

    # ---- shared memory ---------------------------------------------------------------
    # Buffers are byte ranges of one per-kernel array, referred to by placeholder
    # symbols that body_lines() resolves to `<array>+offset`. The entry block's
    # top-level ops are *phases* (mark_phase puts a marker line before each); a
    # buffer is live over the phases whose lines name it (a stage buffer over its
    # pipeline's ops as well: `span`). Buffers whose phases are disjoint share
    # bytes, and a phase that starts writing bytes an earlier phase used begins
    # with a barrier. A buffer marked `reuse_stages` (live only after the
    # pipelines of its phase are drained) may also overlay stage buffers.
    PLACEHOLDER = re.compile(r"__tilec_smem_\d+_\w+?(?=\W|$)")
    PHASE = "\t// __tilec_phase "

    def shared_buffer(self, size: int, align: int = 16, hint: str = "smem", reuse_stages=False,
                      span=None) -> str:
        """`span` (stage buffers): (first, last) phases the buffer is live over,
        whatever lines name it."""
        sym = f"__tilec_smem_{len(self.shared)}_{hint}"
        self.shared.append([sym, max(size, 1), align, hint, reuse_stages])
        if span is not None:
            self.spans[sym] = span
        return sym

    # mbarriers are never invalidated, and the PTX ISA lets their memory serve nothing else
    # until they are: their buffers are live from the first phase to the last
    WHOLE_KERNEL = (-1, 1 << 30)

    def mark_phase(self, index: int):
        self.out.append(f"{self.PHASE}{index}")

    def alignment(self, sym: str) -> int:
        """The byte alignment of shared buffer `sym` (1 for any other symbol)."""
        for entry in self.shared:
            if entry[0] == sym:
                return entry[2]
        return 1

    def shared_alignment(self) -> int:
        """The alignment the CTA's shared block is declared with: 128, or more when a
        buffer needs it (swizzled tiles that wgmma reads start 1024-aligned)."""
        return max([128] + [entry[2] for entry in self.shared])

    def grow_shared(self, sym: str, size: int):
        for entry in self.shared:
            if entry[0] == sym:
                entry[1] = max(entry[1], size)

    def mentions(self, label: str) -> int:
        """How many times `label` (a whole label name) appears in the code so far."""
        pattern = re.compile(re.escape(label) + r"\b")
        return sum(len(pattern.findall(x)) for x in self._flat_lines())

    def _flat_lines(self):
        def flat(items):
            for x in items:
                if isinstance(x, list):
                    yield from flat(x)
                else:
                    yield x
        return list(flat(self.lines + [self.cold]))

    def _live_phases(self, lines) -> dict:
        """symbol -> (first, last) phase; lines before the first marker are phase -1."""
        live = {sym: list(span) for sym, span in self.spans.items()}
        phase = -1
        for ln in lines:
            if ln.startswith(self.PHASE):
                phase = int(ln[len(self.PHASE):])
            elif "__tilec_smem_" in ln:
                for sym in self.PLACEHOLDER.findall(ln):
                    got = live.get(sym)
                    if got is None:
                        live[sym] = [phase, phase]
                    else:
                        got[0], got[1] = min(got[0], phase), max(got[1], phase)
        return live

    def shared_layout(self, lines=None):
        """({symbol: byte offset}, total bytes, {symbol: (first, last) phase}). Stage
        buffers come first, then the rest, each at the lowest offset clear of the
        placed buffers it may be live with."""
        live = self._live_phases(self._flat_lines() if lines is None else lines)
        entries = ([e for e in self.shared if e[3] == "stage"] + [e for e in self.shared if e[3] != "stage"])
        reuse = {e[0] for e in self.shared if e[4]}
        stage = {e[0] for e in self.shared if e[3] == "stage"}

        def together(a, b):
            if (a in reuse and b in stage) or (b in reuse and a in stage):
                return False           # overlays stages once its phase's pipelines are drained
            la, lb = live.get(a), live.get(b)
            if la is None or lb is None:
                return True
            return not (la[1] < lb[0] or lb[1] < la[0])

        offsets, total, sizes = {}, 0, {}
        for sym, size, align, _hint, _reuse in entries:
            busy = [(offsets[o], offsets[o] + sizes[o]) for o in offsets if together(sym, o)]
            for start in sorted({0} | {hi for _, hi in busy}):     # the lowest gap that fits
                start = (start + align - 1) // align * align
                if all(start + size <= lo or hi <= start for lo, hi in busy):
                    break
            offsets[sym], sizes[sym] = start, size
            total = max(total, start + size)
        return offsets, total, live

    def _phase_barriers(self, offsets, live) -> set:
        """Phases that start writing bytes a buffer of an earlier phase used."""
        size = {e[0]: e[1] for e in self.shared}
        out = set()
        for sym, (first, _last) in live.items():
            if sym not in offsets:
                continue
            lo, hi = offsets[sym], offsets[sym] + size[sym]
            for other, (_f, olast) in live.items():
                if other in offsets and olast < first and offsets[other] < hi and lo < offsets[other] + size[other]:
                    out.add(first)
                    break
        return out

    @property
    def shared_symbol(self) -> str:
        return f"{self.name}_smem"

    # ---- output ----------------------------------------------------------------------
    def body_lines(self):
        lines = self._flat_lines()
        if not self.shared:
            return [ln for ln in lines if not ln.startswith(self.PHASE)]
        offsets, _, live = self.shared_layout(lines)
        barriers = self._phase_barriers(offsets, live)
        base = self.shared_symbol

        def sub(m):
            off = offsets[m.group(0)]
            return f"{base}+{off}" if off else base
        out = []
        for ln in lines:
            if ln.startswith(self.PHASE):
                # (a CTA barrier just before, with nothing between, already separates the phases)
                if int(ln[len(self.PHASE):]) in barriers and (not out or out[-1] != "\tbar.sync \t0;"):
                    out.append("\tbar.sync \t0;")
            else:
                out.append(self.PLACEHOLDER.sub(sub, ln) if "__tilec_smem_" in ln else ln)
        return out

    def declarations(self):
        out = []
        for cls, (decl, prefix) in REG_CLASSES.items():
            if self.counts[cls]:
                out.append(f"\t.reg {decl} \t{prefix}<{self.counts[cls]}>;")
        return out
