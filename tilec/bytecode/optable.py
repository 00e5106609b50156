"""The per-op bytecode layout table: opcode, the version that introduced the
op, and how its results, optional-field flags, attributes, operands and
regions are laid out.

The layout of every op follows one generic scheme (NVIDIA derives it from the
op's ODS declaration; tilec writes it down here once):

    opcode          varint
    results         result type indices; prefixed by their count when the op
                    has a Variadic operand or result ("var")
    flags           one varint of presence bits, when the op has optional
                    fields: unit attributes, optional attributes and
                    optional operands, earliest version first
    attributes      in declaration order, unit attributes excluded
    operands        "plain": indices only; "counted": count + indices;
                    "segmented" (AttrSizedOperandSegments): per operand group,
                    a single index, an optional index when its flag is set,
                    or count + indices for a variadic group
    regions         region count, then per region its blocks

A field introduced after the op itself is present only in files of that
version or later; an older file gives the attribute its default.

Everything here is data; tilec.bytecode.opcodec interprets it."""
from __future__ import annotations

V = {"13.1": (13, 1), "13.2": (13, 2), "13.3": (13, 3), "13.4": (13, 4), "13.5": (13, 5)}


class AttrSpec:
    """`name:encoding[=default][@since][?]` — `?` marks an optional (flagged)
    attribute; `default` is the enum keyword (or value) an absent or
    pre-`since` attribute stands for."""
    __slots__ = ("name", "enc", "default", "since", "optional")

    def __init__(self, text: str):
        self.optional = text.endswith("?")
        text = text.rstrip("?")
        text, _, since = text.partition("@")
        self.since = V[since] if since else None
        text, _, default = text.partition("=")
        self.name, _, self.enc = text.partition(":")
        self.default = default or None


class OpSpec:
    __slots__ = ("name", "opcode", "since", "results", "flags", "attrs", "operands", "regions",
                 "flags_since", "extra")

    def __init__(self, name, opcode, since="13.1", results="fixed", flags=(), attrs=(), operands="plain",
                 regions=0):
        self.name, self.opcode, self.since = "cuda_tile." + name, opcode, V[since]
        self.results, self.operands, self.regions = results, operands, regions
        self.attrs = tuple(AttrSpec(a) for a in attrs)
        for a in self.attrs:
            if a.since is None:
                a.since = self.since
        # flags: ("name", since) in bit order
        self.flags = tuple((f.partition("@")[0], V[f.partition("@")[2]] if "@" in f else self.since)
                           for f in flags)
        # the flags varint exists from the earliest version any flagged field exists
        self.flags_since = min((s for _, s in self.flags), default=None)


def _ops():
    O = OpSpec
    ftz = ("flush_to_zero",)
    rnd = ("rounding_mode:rounding",)
    sgn = ("signedness:signedness",)
    ovf = ("overflow:overflow=none",)
    mem = ("memory_ordering_semantics:ordering",)
    return [
        O("absf", 0x00), O("absi", 0x01),
        O("addf", 0x02, flags=ftz, attrs=rnd), O("addi", 0x03, attrs=ovf),
        O("andi", 0x04),
        O("assert", 0x05, attrs=("message:str",)),
        O("assume", 0x06, attrs=("predicate:tagged",)),
        O("atomic_cas_tko", 0x07, flags=("mask", "token"), attrs=mem + ("memory_scope:scope",),
          operands="segmented"),
        O("atomic_rmw_tko", 0x08, flags=("mask", "token"),
          attrs=mem + ("memory_scope:scope", "mode:atomic_mode"), operands="segmented"),
        O("bitcast", 0x09),
        O("break", 0x0A, results="var", operands="counted"),
        O("broadcast", 0x0B),
        O("cat", 0x0C, attrs=("dim:i64",)),
        O("ceil", 0x0D),
        O("cmpf", 0x0E, attrs=("comparison_predicate:cmp_pred", "comparison_ordering:cmp_order")),
        O("cmpi", 0x0F, attrs=("comparison_predicate:cmp_pred",) + sgn),
        O("constant", 0x10, attrs=("value:dense",)),
        O("continue", 0x11, results="var", operands="counted"),
        O("cos", 0x12), O("cosh", 0x13),
        O("divf", 0x14, flags=ftz, attrs=rnd),
        O("divi", 0x15, attrs=sgn + ("rounding:rounding=zero",)),
        O("exp", 0x17, attrs=("rounding_mode:rounding=full@13.3",)),
        O("exp2", 0x18, flags=ftz),
        O("exti", 0x25, attrs=sgn),
        O("extract", 0x26, results="var", operands="counted"),
        O("floor", 0x27),
        O("fma", 0x28, flags=ftz, attrs=rnd),
        O("for", 0x29, results="var", flags=("unsignedCmp@13.2",), operands="counted", regions=1),
        O("ftof", 0x2A, attrs=("rounding_mode:rounding=nearest_even",)),
        O("ftoi", 0x2B, flags=("saturating@13.4",), attrs=sgn + rnd),
        O("get_global", 0x2C, attrs=("name:symref",)),
        O("get_index_space_shape", 0x2D, results="var"),
        O("get_num_tile_blocks", 0x2E),
        O("get_tensor_shape", 0x2F, results="var"),
        O("get_tile_block_id", 0x30),
        O("if", 0x32, results="var", regions=2),
        O("int_to_ptr", 0x33),
        O("iota", 0x3A),
        O("itof", 0x3B, attrs=sgn + rnd),
        O("join_tokens", 0x3C, results="var", operands="counted"),
        O("load_ptr_tko", 0x3D, flags=("memory_scope", "optimization_hints", "mask", "paddingValue", "token"),
          attrs=mem + ("memory_scope:scope?", "optimization_hints:hints?"), operands="segmented"),
        O("load_view_tko", 0x3E, results="var", flags=("memory_scope", "optimization_hints", "token"),
          attrs=mem + ("memory_scope:scope?", "optimization_hints:hints?", "inbounds:boolarray@13.4"),
          operands="segmented"),
        O("log", 0x3F), O("log2", 0x40),
        O("loop", 0x41, results="var", operands="counted", regions=1),
        O("make_partition_view", 0x42),
        O("make_tensor_view", 0x43, results="var", operands="segmented"),
        O("make_token", 0x44),
        O("maxf", 0x45, flags=("propagate_nan", "flush_to_zero")),
        O("maxi", 0x46, attrs=sgn),
        O("minf", 0x47, flags=("propagate_nan", "flush_to_zero")),
        O("mini", 0x48, attrs=sgn),
        O("mmaf", 0x49, flags=("fast_acc@13.3",)),
        O("mmai", 0x4A, attrs=("signedness_lhs:signedness", "signedness_rhs:signedness")),
        O("mulf", 0x4C, flags=ftz, attrs=rnd),
        O("mulhii", 0x4D),
        O("muli", 0x4E, attrs=ovf),
        O("negf", 0x4F),
        O("negi", 0x50, attrs=("overflow:overflow=none@13.2",)),
        O("offset", 0x51), O("ori", 0x52),
        O("permute", 0x53, attrs=("permutation:i32array",)),
        O("pow", 0x54),       # NVIDIA's current reader's name (13.x tileirdisasm printed `fpowf`)
        O("print_tko", 0x55, results="var", flags=("token@13.2",), attrs=("str:str",), operands="segmented"),
        O("ptr_to_int", 0x56), O("ptr_to_ptr", 0x57),
        O("reduce", 0x58, results="var", attrs=("dim:i32", "identities:array"), operands="counted", regions=1),
        O("remf", 0x59), O("remi", 0x5A, attrs=sgn),
        O("reshape", 0x5B),
        O("return", 0x5C, results="var", operands="counted"),
        O("rsqrt", 0x5D, flags=ftz),
        O("scan", 0x5E, results="var", attrs=("dim:i32", "reverse:bool", "identities:array"),
          operands="counted", regions=1),
        O("select", 0x5F),
        O("shli", 0x60, attrs=ovf), O("shri", 0x61, attrs=sgn),
        O("sin", 0x62), O("sinh", 0x63),
        O("sqrt", 0x64, flags=ftz, attrs=rnd),
        O("store_ptr_tko", 0x65, flags=("memory_scope", "optimization_hints", "mask", "token"),
          attrs=mem + ("memory_scope:scope?", "optimization_hints:hints?"), operands="segmented"),
        O("store_view_tko", 0x66, results="var", flags=("memory_scope", "optimization_hints", "token"),
          attrs=mem + ("memory_scope:scope?", "optimization_hints:hints?", "inbounds:boolarray@13.4"),
          operands="segmented"),
        O("subf", 0x67, flags=ftz, attrs=rnd), O("subi", 0x68, attrs=ovf),
        O("tan", 0x69),
        O("tanh", 0x6A, attrs=("rounding_mode:rounding=full@13.2",)),
        O("trunci", 0x6B, attrs=ovf),
        O("xori", 0x6C),
        O("yield", 0x6D, results="var", operands="counted"),
        O("atan2", 0x6E, "13.2"),
        O("pack", 0x6F, "13.3"), O("unpack", 0x70, "13.3"),
        O("alloca", 0x71, "13.3", flags=("global",), attrs=("num_elem:i64", "alignment:i64")),
        O("mmaf_scaled", 0x72, "13.3"),
        O("make_gather_scatter_view", 0x73, "13.3"),
        O("make_strided_view", 0x74, "13.3"),
        O("atomic_red_view_tko", 0x75, "13.3", results="var", flags=("token",),
          attrs=mem + ("memory_scope:scope", "mode:atomic_mode", "inbounds:boolarray@13.5"),
          operands="segmented"),
        O("insert", 0x76, "13.4", results="var", operands="counted"),
        O("gdc_launch_dependents_tko", 0x77, "13.4", flags=("token",), operands="segmented"),
        O("gdc_wait_tko", 0x78, "13.4", flags=("token",), operands="segmented"),
        O("fpowi", 0x79, "13.4"),
        O("memory_fence_alias_tko", 0x7A, "13.4"),
        O("multimem_load_reduce_view_tko", 0x7B, "13.5", results="var", flags=("memory_scope", "token"),
          attrs=mem + ("memory_scope:scope?", "reduction:multimem_red", "inbounds:boolarray"),
          operands="segmented"),
        O("multimem_reduce_view_tko", 0x7C, "13.5", results="var", flags=("token",),
          attrs=mem + ("memory_scope:scope", "reduction:multimem_red", "inbounds:boolarray"),
          operands="segmented"),
        O("multimem_store_view_tko", 0x7D, "13.5", results="var", flags=("memory_scope", "token"),
          attrs=mem + ("memory_scope:scope?", "inbounds:boolarray"), operands="segmented"),
    ]


OPS = _ops()
BY_OPCODE = {s.opcode: s for s in OPS}
BY_NAME = {s.name: s for s in OPS}

# Functions and globals are not instructions: they live in the function table
# and the global section. Their opcodes are still reserved.
RESERVED = {0x16: "entry", 0x31: "global", 0x4B: "module"}

# tilec's `print` (the 13.1 spelling, no token) is written as print_tko.
ALIASES = {"cuda_tile.print": "cuda_tile.print_tko"}
