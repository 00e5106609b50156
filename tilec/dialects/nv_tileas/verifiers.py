"""Shared nv_tileas verifier routines. Every diagnostic text quoted by the
verifiers spec is emitted here byte for byte (typos included: downstream log
scrapers match them)."""
from __future__ import annotations

from ...ir.attributes import ArrayAttr, FloatAttr, IntegerAttr, TypeAttr
from ...ir.core import OpResult
from ...ir.traits import Terminator
from ...ir.types import FloatType, IntegerType
from .attributes import PaddingAttr, semantic_of
from .types import NV4E0M3FType, PipelineConsumerTokenType, element_width, payload, unwrap_iterator

PIPELINE_YIELD = "nv_tileas.async.pipeline.yield"


def types_text(types) -> str:
    return ", ".join(t.text() for t in types)


# ---- async pipeline ---------------------------------------------------------

def contract_types(op, attr_name):
    attr = op.attributes.get(attr_name)
    if not isinstance(attr, ArrayAttr) or not all(isinstance(e, TypeAttr) for e in attr.elements):
        return None
    return [e.value for e in attr.elements]


def verify_pipeline_region_op(op, attr_name: str) -> bool:
    """The region-op template of produce_one(_async) / consume_one(_async):
    terminator kind, block arguments (iterator payloads unwrapped, on the
    block-argument side only) against the producer-type list, then the yield
    against the op's result contract."""
    region = op.regions[0] if op.regions else None
    block = region.blocks[0] if region is not None and region.blocks else None
    term = block.last_op if block is not None else None
    if term is None or not term.has_trait(Terminator):
        # no terminator at all: the pseudocode's check (the shared "pipeline terminators" rule)
        op.emit_error(f"pipeline regions must end with '{PIPELINE_YIELD}'")
        return False
    if term.name != PIPELINE_YIELD:
        # a terminator of the wrong op kind: the binary's table text
        op.emit_error(f"expects regions to end with '{PIPELINE_YIELD}'")
        return False
    producers = contract_types(op, attr_name)
    if producers is None:
        op.emit_error(f"expects '{attr_name}' to be an array of types")
        return False
    arg_types = [a.type for a in block.arguments]
    if len(arg_types) != len(producers) or any(unwrap_iterator(a) != p for a, p in zip(arg_types, producers)):
        op.emit_error("expects region arguement types to match with producer types [" + types_text(producers)
                      + "], but got: [" + types_text(arg_types) + "]")
        return False
    term_types = [v.type for v in term.operands]
    if term_types != producers:
        op.emit_error("expects region result types to be match with operation result types ["
                      + types_text(producers) + "], but got: [" + types_text(term_types) + "]")
        return False
    return True


def verify_yield_against_parent(op) -> bool:
    """The yield's own instance of the template: inside a region op the parent
    has already compared it; elsewhere (agent_switch) its operands must be the
    parent's result types."""
    parent = op.parent_op
    if parent is None or getattr(parent, "pipeline_contract", None) is not None:
        return True
    want = [r.type for r in parent.results]
    got = [v.type for v in op.operands]
    if want != got:
        op.emit_error("expects region yield types to match with result types [" + types_text(want)
                      + "], but got: [" + types_text(got) + "]")
        return False
    return True


def check_consumer_idx(op, token) -> bool:
    idx = op.attributes.get("consumer_idx")
    t = token.type if token is not None else None
    if not isinstance(idx, IntegerAttr) or not isinstance(t, PipelineConsumerTokenType):
        return True
    i = idx.value
    if i < 0 or (t.consumers is not None and i >= t.consumers):
        op.emit_error("expected 'consumer_idx' less than the number of consumer "
                      f"({t.consumers if t.consumers is not None else 'unknown'}), but got {i}")
        return False
    if t.idx is not None and t.idx != i:
        op.emit_error("expected 'consumer_idx' in token to be the same as 'consumer_idx' attribute of this operation "
                      f"({t.idx} vs {i})")
        return False
    return True


def warp_budget(op) -> int:
    """Warps available to the kernel: the `nv_tileas.num_warps` integer of the
    nearest enclosing op that sets one, else 32 (1024 threads per CTA)."""
    anc = op.parent_op
    while anc is not None:
        a = anc.attributes.get("nv_tileas.num_warps")
        if isinstance(a, IntegerAttr):
            return a.value
        anc = anc.parent_op
    return 32


def verify_agent_switch(op) -> bool:
    attr = op.attributes.get("num_warps")
    counts = list(attr.values) if attr is not None else []
    if not counts:
        return True
    explicit = [c for c in counts if c]  # 0: inherits the group's count
    if any(c != explicit[0] for c in explicit[1:]):
        op.emit_error("agent regions disagree on warp count")
        return False
    from .ops.pipeline import agent_warps
    if explicit and sum(agent_warps(op)) > warp_budget(op):
        op.emit_error("agent warp count exceeds module budget")
        return False
    return True


# ---- memory contract ---------------------------------------------------------

def verify_memory_semantics(op, kind: str, rejected: tuple) -> bool:
    sem = semantic_of(op)
    if sem in rejected:
        op.emit_error(f"{kind} rejects {sem} semantic")
        return False
    scope = op.attributes.get("mem_scope")
    if sem != "weak" and scope is None:
        op.emit_error(f"memory scope is required when the memory semantic is stronger than weak ({sem})")
        return False
    if sem == "weak" and scope is not None:
        op.emit_error("weak memory semantic must not carry a memory scope")
        return False
    return True


VIEW_PRODUCERS = ("nv_tileaa.block_tile", "nv_tileas.view")


def verify_view_provenance(op, kind: str) -> bool:
    """The tiled_view operand comes straight from block_tile (or from the view
    op the composite builders emit); a block argument is taken as given."""
    v = op.view_value()
    if isinstance(v, OpResult) and v.op.name not in VIEW_PRODUCERS:
        op.emit_error(f"{kind}'s tiled_view type must be produced by block_tile directly")
        return False
    return True


def verify_atomic_rmw(op, kind: str) -> bool:
    """Element-type and mode rules of (async_)tiled_atomic_rmw."""
    elt = op.view_value().type.element_type
    width = element_width(elt)
    mode = op.attributes["rmw_mode"].value
    if width == 8:
        op.emit_error(f"{kind} not supported for 8-bit types")
        return False
    if width == 16 and isinstance(elt, IntegerType):
        op.emit_error(f"{kind} not supported for 16-bit integer")
        return False
    if width == 16 and isinstance(elt, FloatType) and mode not in ("add", "max", "min"):
        op.emit_error(f"{kind} for 16-bit float only supports add, max, min operations")
        return False
    if mode == "addf":
        op.emit_error("tiled_atomic_rmw op cannot use fadd operation, please use add instead for both int and "
                      "float types")
        return False
    if mode == "xchg":
        op.emit_error("tiled_atomic_rmw op cannot use xchg operation")
        return False
    return verify_view_provenance(op, "tiled_atomic_rmw")


LEGAL_COPY_PAIRS = frozenset({("GMEM", "RMEM"), ("GMEM", "SMEM"), ("RMEM", "GMEM"), ("RMEM", "SMEM"),
                              ("RMEM", "TMEM"), ("SMEM", "GMEM"), ("SMEM", "RMEM"), ("SMEM", "TMEM"),
                              ("TMEM", "RMEM")})


def verify_copy_pair(op, src, dst) -> bool:
    s, d = getattr(src.type, "residency", None), getattr(dst.type, "residency", None)
    if s is not None and d is not None and (s, d) not in LEGAL_COPY_PAIRS:
        op.emit_error(f"expects a legal source/destination memory-space pair, but got {s} -> {d}")
        return False
    return True


# ---- TMA ---------------------------------------------------------------------

def constant_index(v):
    """The integer an `arith.constant` index/integer operand holds, else None."""
    if isinstance(v, OpResult) and v.op.name == "arith.constant":
        a = v.op.attributes.get("value")
        if isinstance(a, IntegerAttr):
            return a.value
    return None


def is_zero_padding(pad) -> bool:
    import math
    if isinstance(pad, PaddingAttr):
        return pad.value == "zero"
    if isinstance(pad, FloatAttr):
        return pad.value == 0.0 and math.copysign(1.0, pad.value) > 0
    if isinstance(pad, IntegerAttr):
        return pad.value == 0
    return False


def defined_under_scf(v) -> bool:
    block = v.owner_block()
    op = block.parent_op if block is not None else None
    while op is not None:
        if op.name.startswith("scf."):
            return True
        op = op.parent_op
    return False


TMA_LOWERED_MARK = "nv_tileas.tma_lowered"


def tma_lowered_point(op) -> bool:
    anc = op.parent_op
    while anc is not None:
        if TMA_LOWERED_MARK in anc.attributes:
            return True
        anc = anc.parent_op
    return False


# ---- dot and block-scaled MMA -----------------------------------------------

FP8 = (FloatType("f8E5M2"), FloatType("f8E4M3FN"))
E8M0, E4M3 = FloatType("f8E8M0FNU"), FloatType("f8E4M3FN")
F4E2M1 = FloatType("f4E2M1FN")


def is_fp4(t) -> bool:
    """The shared FP4 slot: OCP MX-FP4 (f4E2M1FN) and NVFP4 resolve alike."""
    return t == F4E2M1 or isinstance(t, NV4E0M3FType)


def _elt(t):
    return getattr(payload(t), "element_type", payload(t)) if t is not None else None


def _k_extent(t, axis):
    shape = getattr(payload(t), "shape", None)
    return shape[axis] if shape and len(shape) >= 2 else None


def _vec(k, sf_k):
    return k // sf_k if k and sf_k else 0


def verify_block_scaled_mma(op, a, b, c, sfa, sfb, atom, dst, two_cta: bool,
                            compute_capability: int = 100) -> int:
    """The block-scaled MMA gate. `a`..`dst` are the operand tile types (sfa,
    sfb None when absent). Phases: presence, agreement, accumulator, K-extent,
    catalog. Returns (atom_K << 32) | vecSize, or 0 with the diagnostic on `op`."""
    ea, eb, ec = _elt(a), _elt(b), _elt(c)
    esfa, esfb = _elt(sfa), _elt(sfb)
    fp4, fp8 = is_fp4(ea), ea in FP8
    if fp4 and (sfa is None or sfb is None):  # phase 1
        op.emit_error("fp4 mma should expect scaling factors")
        return 0
    if sfa is not None and sfb is not None and esfa != esfb:  # phase 2 (the table's and worked example's words)
        # One check, two texts in the spec: the error is the table's (and worked
        # example's) phase-2 wording; the pseudocode's wording names the pair in a note.
        op.emit_error("expects sfa/sfb element types to be the same").attach_note(
            f"sfa and sfb element type mismatch: {esfa.text(True)} vs {esfb.text(True)}")
        return 0
    if ec != FloatType("f32"):  # phase 3
        op.emit_error("expects c type to be Float32")
        return 0
    width = element_width(ea) or 0
    atom_k = 256 // width if width in (4, 8) else 0  # one 256-bit K slice per MMA atom
    # A is M x K, B is K x N; sfa is M x K/vec, sfb is K/vec x N
    k_a = _vec(_k_extent(a, -1), _k_extent(sfa, -1)) if sfa is not None else 0
    k_b = _vec(_k_extent(b, 0), _k_extent(sfb, 0)) if sfb is not None else 0
    if k_a != k_b:  # phase 4: both extents on the same line
        op.emit_error(f"Scale factor vector size mismatch: {k_a}, {k_b}")
        return 0
    vec = k_a
    # phase 5: the catalog
    if compute_capability < 100:
        op.emit_error("mma block scale is not supported by compute capability < sm100")
        return 0
    if not (fp4 or fp8):
        op.emit_error("Block scale not supported for f16, tf32, f8f6f4 and int8 types" if two_cta else
                      "Block scale is not supported for f16, tf32, f8f6f4, and i8 types")
        return 0
    if fp8:
        if vec != 32:
            op.emit_error(f"invalid block scale vector size. Expecting 32, but got {vec}")
            return 0
        if eb not in FP8 or esfa != E8M0:
            op.emit_error("expects A/B element types to be Float8E5M2Type or Float8E4M3FNType and sfa/sfb "
                          "element types to be Float8E8M0FNUType when (atom_K=32 && vecSize=32)")
            return 0
        return (32 << 32) | 32
    if vec == 16:
        if not is_fp4(eb):
            op.emit_error("expects A and B element types are valid 4bit types, such asFloat4E2M1FNType or "
                          "FloatNV4E0M3FType , when (atom_K=64 && vecSize=16)")
            return 0
        if esfa not in (E8M0, E4M3):
            op.emit_error("expects sfa/sfb element types to be Float8E8M0FNUType or Float8E4M3FNType when "
                          "(atom_K=64 && vecSize=16)")
            return 0
        return (atom_k << 32) | 16
    if vec == 32:
        if ea != F4E2M1 or eb != F4E2M1 or esfa != E8M0:
            op.emit_error("expects A/B element types to be Float4E2M1FNType and sfa/sfb element types to be "
                          "Float8E8M0FNUType when (atom_K=64 && vecSize=32)")
            return 0
        if two_cta:
            op.emit_error("mxf4nvf4 block scale has no 2-CTA atom (atom_K=64 && vecSize=32)")
            return 0
        return (atom_k << 32) | 32
    op.emit_error(f"invalid block scale vector size. Expecting 32, but got {vec}")
    return 0
