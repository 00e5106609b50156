"""PTX text for one kernel: virtual registers, instructions, labels, shared memory.

Registers are virtual (ptxas allocates); each class is declared once with a
`<N>` range. Code is a list of lines with *sections*: a section is a nested list
that can be filled later (a thread group's prologue of tid-derived values is
emitted where the group starts, whatever point asked for it first).
"""
from __future__ import annotations

from .ptxtypes import REG_CLASSES


class Section(list):
    """A placeholder in the line list, filled after it was placed."""


class KernelBuilder:
    def __init__(self, name: str):
        self.name = name
        self.counts = {k: 0 for k in REG_CLASSES}
        self.lines: list = []
        self.labels = 0
        self.shared: list[list] = []                   # [symbol, bytes, alignment]
        self.globals: list[str] = []                   # module-scope declarations
        self.out = self.lines                          # where emit() appends

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
    def shared_buffer(self, size: int, align: int = 16, hint: str = "smem") -> str:
        sym = f"{self.name}_{hint}_{len(self.shared)}"
        self.shared.append([sym, max(size, 1), align])
        return sym

    def grow_shared(self, sym: str, size: int):
        for entry in self.shared:
            if entry[0] == sym:
                entry[1] = max(entry[1], size)

    def shared_bytes(self) -> int:
        total = 0
        for _, size, align in self.shared:
            total = (total + align - 1) // align * align + size
        return total

    # ---- output ----------------------------------------------------------------------
    def body_lines(self):
        def flat(items):
            for x in items:
                if isinstance(x, list):
                    yield from flat(x)
                else:
                    yield x
        return list(flat(self.lines))

    def declarations(self):
        out = []
        for cls, (decl, prefix) in REG_CLASSES.items():
            if self.counts[cls]:
                out.append(f"\t.reg {decl} \t{prefix}<{self.counts[cls]}>;")
        return out
