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
        self.spans: dict = {}          # stage buffer symbol -> (block, first, last op index)
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
    # symbols that body_lines() resolves to `<array>+offset`. Stage buffers come
    # first; a buffer marked `reuse_stages` (live only after every pipeline is
    # drained) overlays them when it fits.
    def shared_buffer(self, size: int, align: int = 16, hint: str = "smem", reuse_stages=False,
                      span=None) -> str:
        """`span` (stage buffers): (block, first, last) op positions in one block between
        which the buffer is live; stage buffers with disjoint spans share bytes."""
        sym = f"__tilec_smem_{len(self.shared)}_{hint}"
        self.shared.append([sym, max(size, 1), align, hint, reuse_stages])
        if span is not None:
            self.spans[sym] = span
        return sym

    def stage_dead_before(self, span) -> bool:
        """Does some stage buffer allocated so far end before `span` starts (same block)?
        Its bytes may then be reused: the new pipeline synchronizes before its first write."""
        return span is not None and any(other[0] is span[0] and other[2] < span[1]
                                        for other in self.spans.values())

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

    def _overlap(self, a, b) -> bool:
        sa, sb = self.spans.get(a), self.spans.get(b)
        if sa is None or sb is None or sa[0] is not sb[0]:
            return True
        return not (sa[2] < sb[1] or sb[2] < sa[1])

    def shared_layout(self):
        """({symbol: byte offset}, total bytes). Stage buffers come first, each above
        the stage buffers whose live spans overlap its own (the pipelines of
        sequential loops share bytes); the rest follow."""
        offsets, pos = {}, 0
        stages = [e for e in self.shared if e[3] == "stage"]
        for sym, size, align, _hint, _reuse in stages:
            start = 0
            for other, osize, *_ in stages:
                if other in offsets and self._overlap(sym, other):
                    start = max(start, offsets[other] + osize)
            start = (start + align - 1) // align * align
            offsets[sym] = start
            pos = max(pos, start + size)
        stage_end, cursor = pos, 0
        for sym, size, align, hint, reuse in (e for e in self.shared if e[3] != "stage"):
            start = (cursor + align - 1) // align * align
            if reuse and start + size <= stage_end:   # overlays stages, not other overlays
                offsets[sym] = start
                cursor = start + size
                continue
            pos = (pos + align - 1) // align * align
            offsets[sym] = pos
            pos += size
        return offsets, pos

    @property
    def shared_symbol(self) -> str:
        return f"{self.name}_smem"

    # ---- output ----------------------------------------------------------------------
    def body_lines(self):
        def flat(items):
            for x in items:
                if isinstance(x, list):
                    yield from flat(x)
                else:
                    yield x
        lines = list(flat(self.lines + [self.cold]))
        if not self.shared:
            return lines
        offsets, _ = self.shared_layout()
        base = self.shared_symbol
        pattern = re.compile(r"__tilec_smem_\d+_\w+?(?=\W|$)")

        def sub(m):
            off = offsets[m.group(0)]
            return f"{base}+{off}" if off else base
        return [pattern.sub(sub, ln) if "__tilec_smem_" in ln else ln for ln in lines]

    def declarations(self):
        out = []
        for cls, (decl, prefix) in REG_CLASSES.items():
            if self.counts[cls]:
                out.append(f"\t.reg {decl} \t{prefix}<{self.counts[cls]}>;")
        return out
