"""The PTX target: architecture name, SM number and the ISA version emitted."""
from __future__ import annotations

from ...ir.record import frozen

ARCHES = ("sm_80", "sm_86", "sm_89", "sm_90", "sm_90a")


@frozen
class Target:
    arch: str
    sm: int
    ptx_version: str = "8.5"

    @classmethod
    def parse(cls, arch: str) -> "Target":
        if arch not in ARCHES:
            raise ValueError(f"unknown target '{arch}' (expected one of {', '.join(ARCHES)})")
        return cls(arch, int(arch[3:5]))

    @property
    def hopper(self) -> bool:
        return self.sm >= 90
