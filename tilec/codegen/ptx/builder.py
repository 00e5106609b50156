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
    def shared_buffer(self, size: int, align: int = 16, hint: str = "smem", reuse_stages=False) -> str:
        sym = f"__tilec_smem_{len(self.shared)}_{hint}"
        self.shared.append([sym, max(size, 1), align, hint, reuse_stages])
        return sym

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

    def shared_layout(self):
        """({symbol: byte offset}, total bytes)."""
        offsets, pos = {}, 0
        ordered = [e for e in self.shared if e[3] == "stage"] + [e for e in self.shared if e[3] != "stage"]
        stage_end, cursor = 0, 0
        for sym, size, align, hint, reuse in ordered:
            start = (cursor + align - 1) // align * align
            if reuse and start + size <= stage_end:   # overlays stages, not other overlays
                offsets[sym] = start
                cursor = start + size
                continue
            pos = (pos + align - 1) // align * align
            offsets[sym] = pos
            pos += size
            if hint == "stage":
                stage_end = pos
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
