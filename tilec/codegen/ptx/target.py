"""The PTX target: architecture name, SM number, the ISA version emitted, and
which instruction families it has (PTX ISA, each instruction's "Target ISA
notes"; every claim here is also checked by ptxas in tests/test_targets.py)."""
from __future__ import annotations

from ...conversion.target import ARCHES
from ...ir.record import frozen

# the first PTX ISA version that names each target (8.5 covers sm_80 .. sm_90a),
# but sm_100a's 8.7: tcgen05.mma's kind::mxf4nvf4 (block-scaled MMA) came with it
_PTX_VERSION = {"sm_100a": "8.7", "sm_103a": "8.8", "sm_120a": "8.7", "sm_121a": "8.8"}


@frozen
class Target:
    arch: str
    sm: int
    ptx_version: str = "8.5"

    @classmethod
    def parse(cls, arch: str) -> "Target":
        if arch not in ARCHES:
            raise ValueError(f"unknown target '{arch}' (expected one of {', '.join(ARCHES)})")
        return cls(arch, int(arch[3:].rstrip("a")), _PTX_VERSION.get(arch, "8.5"))

    @property
    def hopper(self) -> bool:
        """sm_90 and newer: mbarrier try_wait, the async proxy, clusters, cp.async.bulk."""
        return self.sm >= 90

    @property
    def arch_specific(self) -> bool:
        """An `a` target: its architecture-specific instructions (wgmma,
        setmaxnreg, tensormap.replace, tcgen05) are available."""
        return self.arch.endswith("a")

    @property
    def setmaxnreg(self) -> bool:
        return self.hopper and self.arch_specific

    @property
    def tensormap_replace(self) -> bool:
        """Tensor maps built on the device (tilec's only source of them: the
        kernel ABI passes no map), so TMA itself."""
        return self.hopper and self.arch_specific

    @property
    def tma_into_cta(self) -> str:
        """The state space a TMA load names for its destination in this CTA's
        own shared memory: `.shared::cta` from PTX ISA 8.6 on. sm_120a needs
        it: ptxas compiles the `.shared::cluster` form there to a call (no
        clusters on those parts), and a kernel with a call has its setmaxnreg
        ignored (ptxas C7506), so every agent runs on the entry count."""
        return "shared::cta" if tuple(map(int, self.ptx_version.split("."))) >= (8, 6) else "shared::cluster"

    @property
    def wgmma(self) -> bool:
        return self.arch == "sm_90a"

    @property
    def tcgen05(self) -> bool:
        """Blackwell datacenter parts: tcgen05.mma with tensor memory."""
        return self.arch in ("sm_100a", "sm_103a")

    @property
    def block_scale_mma_sync(self) -> bool:
        """Warp-level block-scaled MMA (mma.sync ... .kind::mxf8f6f4/mxf4/mxf4nvf4
        .block_scale): ptxas (CUDA 13) takes it for sm_120a and sm_121a alone."""
        return self.arch in ("sm_120a", "sm_121a")
