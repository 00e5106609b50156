"""What the lowering and the scheduler need to know about a target: its name,
shared-memory and register budgets, whether it has TMA, wgmma and warp
specialization, and which MMA atom serves which operand/accumulator types."""
from __future__ import annotations

from ..ir.record import frozen

from ..ir.types import FloatType, IntegerType

# the code generator's targets (codegen/ptx/target.py says which instructions each has)
ARCHES = ("sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100a", "sm_103a", "sm_120a", "sm_121a")


@frozen
class Target:
    arch: str
    smem_bytes: int          # dynamic shared memory one CTA may use
    smem_per_sm: int         # shared memory of one SM, shared by its resident CTAs
    regs_per_sm: int         # 32-bit registers in one SM's register file
    max_regs_per_thread: int
    has_tma: bool
    has_wgmma: bool
    warp_specialized: bool   # producer/consumer agents with setmaxnreg budgets
    default_stages: int

    @property
    def family(self) -> str:
        return "wgmma" if self.has_wgmma else "mma"


# sm_86/sm_89 are sm_80's code with their smaller shared memory (99 KiB per
# block). sm_90 is sm_90a's without the architecture-specific features: no
# wgmma, and no TMA either, since tilec builds its tensor maps on the device
# (tensormap.replace is sm_90a's). sm_100a/sm_103a (B200, GB300) have TMA and
# tcgen05, not wgmma; sm_120a/sm_121a (RTX 50, DGX Spark) TMA and mma.sync with
# sm_86's shared memory.
_BIG, _SMALL = (227 * 1024, 228 * 1024), (99 * 1024, 100 * 1024)
TARGETS = {
    "sm_80": Target("sm_80", 163 * 1024, 164 * 1024, 65536, 255, False, False, False, 2),
    "sm_86": Target("sm_86", *_SMALL, 65536, 255, False, False, False, 2),
    "sm_89": Target("sm_89", *_SMALL, 65536, 255, False, False, False, 2),
    "sm_90": Target("sm_90", *_BIG, 65536, 255, False, False, True, 3),
    "sm_90a": Target("sm_90a", *_BIG, 65536, 255, True, True, True, 3),
    "sm_100a": Target("sm_100a", *_BIG, 65536, 255, True, False, True, 3),
    "sm_103a": Target("sm_103a", *_BIG, 65536, 255, True, False, True, 3),
    "sm_120a": Target("sm_120a", *_SMALL, 65536, 255, True, False, True, 2),
    "sm_121a": Target("sm_121a", *_SMALL, 65536, 255, True, False, True, 2),
}


def target_for(arch: str | None) -> Target | None:
    return TARGETS.get(arch or "sm_90a")


CTA_RESERVED_SMEM = 1024     # the system's shared memory per resident CTA


def smem_per_cta(target: Target, occupancy: int) -> int:
    """The dynamic shared memory each of `occupancy` CTAs resident on one SM may use."""
    if occupancy <= 1:
        return target.smem_bytes
    return min(target.smem_bytes, target.smem_per_sm // occupancy - CTA_RESERVED_SMEM)


def _ename(t) -> str:
    if isinstance(t, IntegerType):
        return f"i{t.width}"
    return t.text() if hasattr(t, "text") else str(t)


# operand element -> (atom operand tag, targets that have an MMA for it)
_FLOAT_MMA = {
    "f16": ("f16", ARCHES),
    "bf16": ("bf16", ARCHES),
    "f32": ("tf32", ARCHES),        # f32 operands run as tf32
    "tf32": ("tf32", ARCHES),
    "f8E4M3FN": ("f8", ARCHES[2:]),   # fp8 needs sm_89+
    "f8E5M2": ("f8", ARCHES[2:]),
}


def mma_atom_name(target: Target, a_elt, b_elt, acc_elt) -> str | None:
    """The MMA atom for these element types on `target`, or None when the
    target has no MMA for them (the caller reports it)."""
    if isinstance(a_elt, IntegerType):
        if a_elt.width != 8 or not isinstance(acc_elt, IntegerType) or acc_elt.width != 32:
            return None
        tag = "s8_s8_s32"
    else:
        ea, eb = _ename(a_elt), _ename(b_elt)
        if ea not in _FLOAT_MMA or eb not in _FLOAT_MMA:
            return None
        (ta, arches_a), (tb, arches_b) = _FLOAT_MMA[ea], _FLOAT_MMA[eb]
        if ta != tb or target.arch not in arches_a or target.arch not in arches_b:
            return None
        if not isinstance(acc_elt, FloatType) or _ename(acc_elt) not in ("f32", "f16"):
            return None
        tag = f"{ta}_{ta}_f32"
    return f"mma_{target.family}_{tag}" if target.has_wgmma else f"mma_{tag}"


# Block-scaled MMA (cuda_tile.mmaf_scaled -> nv_tileas.block_scaled_mma): the targets
# whose code generator has it. sm_120a/sm_121a run it as warp-level mma.sync
# ... .block_scale (ptxas 13.0 accepts those forms for them alone); sm_100a/sm_103a
# as tcgen05.mma ... .block_scale with the scale factors in tensor memory.
BLOCK_SCALED_ARCHES = ("sm_100a", "sm_103a", "sm_120a", "sm_121a")


def block_scaled_atom_name(target: Target, elt, scale_elt, block: int) -> str | None:
    """The block-scaled MMA kind for operands of type `elt`, scales of type
    `scale_elt` and `block` elements per scale along K (the PTX ISA's kinds:
    mxf8f6f4 for fp8 with e8m0 scales over 32; mxf4 for fp4 with e8m0 scales
    over 32; mxf4nvf4 for fp4 over 16), or None when `target` has none."""
    if target.arch not in BLOCK_SCALED_ARCHES:
        return None
    ea, es = _ename(elt), _ename(scale_elt)
    if ea in ("f8E4M3FN", "f8E5M2") and es == "f8E8M0FNU" and block == 32:
        return "mxf8f6f4"
    if ea == "f4E2M1FN" and es == "f8E8M0FNU" and block == 32:
        return "mxf4"
    if ea == "f4E2M1FN" and es in ("f8E8M0FNU", "f8E4M3FN") and block == 16:
        return "mxf4nvf4"
    return None
