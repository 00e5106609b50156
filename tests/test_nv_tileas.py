"""nv_tileas: golden diagnostics, round trips, the spec's worked examples,
the block-scaled MMA return values, builders, traits and the interface set."""
import glob
import os
import re

import pytest

from tilec.ir import attributes as A
from tilec.ir.core import Block
from tilec.ir.diagnostics import DiagnosticEngine
from tilec.ir.types import FloatType, IndexType, IntegerType, RankedTensorType
from tilec.ir.verifier import verify
from tilec.syntax.parser import parse_text
from tilec.syntax.printer import print_ops
from tilec.syntax.reader import parse_type

from conftest import ROOT, SHARED, diagnostics_of, parse_verified

GOLDEN = os.path.join(ROOT, "golden", "nv_tileas")
GOLDEN_FILES = sorted(glob.glob(os.path.join(GOLDEN, "*.mlir")))


_parse = parse_verified
_diagnostics = diagnostics_of


# ---- golden files -----------------------------------------------------------------

@pytest.mark.parametrize("path", GOLDEN_FILES, ids=os.path.basename)
def test_golden_file(run_cli, path):
    rc, out, err = run_cli("opt", path, "--split-input-file", "--verify-diagnostics")
    assert rc == 0, err


# Every diagnostic the verifiers spec quotes verbatim, as a golden expectation must carry it.
VERBATIM = [
    "pipeline regions must end with 'nv_tileas.async.pipeline.yield'",
    "expects regions to end with '",
    "expects region arguement types to match with producer types [",
    "expects region result types to be match with operation result types [",
    "expects region yield types to match with result types [",
    "expected 'consumer_idx' less than the number of consumer ",
    "expected 'consumer_idx' in token to be the same as 'consumer_idx' attribute of this operation ",
    "branch arms must yield matching pipeline iterator types",
    "agent regions disagree on warp count",
    "agent warp count exceeds module budget",
    "expected a TMA load atom",
    "TMA descriptors require unit element stride",
    "TMA box dimensions do not match atom box dimensions",
    "shared-memory layout is not TMA-compatible",
    "tma box-dim and copy atom box-dim mismatch",
    "tma leading box-dim bit-width is not 16 bytes aligned",
    "TmaLoad only support zero padding now",
    "expected MakeTiledTMADescOp not depends on scf",
    "expect lower MakeTiledTMADescOp",
    "operandSegmentSizes does not match the op schema",
    "tiled memop token segment must hold zero or one value",
    "tiled memop coordinate count does not match the view rank",
    "tiled memop coordinates must be index-typed",
    "tile shape must match tensor shape",
    "tile element type must match view element type",
    "tile dimensions must be positive powers of two",
    "tile total element count exceeds the implementation limit",
    "tiled_load rejects acquire_release semantic",
    "requires attribute 'rmw_mode'",
    "tiled_atomic_rmw not supported for 8-bit types",
    "async_tiled_atomic_rmw not supported for 8-bit types",
    "tiled_atomic_rmw not supported for 16-bit integer",
    "async_tiled_atomic_rmw not supported for 16-bit integer",
    "tiled_atomic_rmw for 16-bit float only supports add, max, min operations",
    "async_tiled_atomic_rmw for 16-bit float only supports add, max, min operations",
    "tiled_atomic_rmw op cannot use fadd operation, please use add instead for both int and float types",
    "tiled_atomic_rmw op cannot use xchg operation",
    "tiled_atomic_rmw's tiled_view type must be produced by block_tile directly",
    "tiled_load's tiled_view type must be produced by block_tile directly",
    "tiled_store's tiled_view type must be produced by block_tile directly",
    "fp4 mma should expect scaling factors",
    "expects sfa/sfb element types to be the same",
    "sfa and sfb element type mismatch",
    "expects c type to be Float32",
    "Scale factor vector size mismatch:",
    "expects A and B element types are valid 4bit types, such asFloat4E2M1FNType or FloatNV4E0M3FType , when "
    "(atom_K=64 && vecSize=16)",
    "expects sfa/sfb element types to be Float8E8M0FNUType or Float8E4M3FNType when (atom_K=64 && vecSize=16)",
    "expects A/B element types to be Float4E2M1FNType and sfa/sfb element types to be Float8E8M0FNUType when "
    "(atom_K=64 && vecSize=32)",
    "invalid block scale vector size. Expecting 32, but got ",
    "mma block scale is not supported by compute capability < sm100",
    "Block scale is not supported for f16, tf32, f8f6f4, and i8 types",
    "Block scale not supported for f16, tf32, f8f6f4 and int8 types",
]


def _expectations():
    out = []
    for path in GOLDEN_FILES:
        out += re.findall(r"expected-(?:error|note)(?:@[^ ]+)? \{\{(.*)\}\}", open(path).read())
    return out


@pytest.mark.parametrize("text", VERBATIM)
def test_every_verbatim_diagnostic_has_a_golden_case(text):
    assert any(text in e for e in _expectations()), text


# Quoted text in the verifiers spec that is not a diagnostic: an op name, the
# attribute the template reads, fragments of the printed type list, words picked
# out of longer diagnostics, and a phrase about the packed return value.
NOT_DIAGNOSTICS = {
    "nv_tileas.async.pipeline.yield", "producer_types", "], but got: [", "]", ", ", "arguement",
    "result types to be match", "region arguement types to match", "region result types to be match with",
    "verification rejected",
}


def test_every_quoted_spec_diagnostic_has_a_golden_case():
    spec = os.path.join(SHARED, "spec", "nv_tileas-verifiers.md")
    if not os.path.exists(spec):
        pytest.skip("shared spec not present")
    quoted = dict.fromkeys(re.findall(r'"([^"\n]+)"', open(spec).read()))
    expectations = _expectations()
    missing = [q for q in quoted if q not in NOT_DIAGNOSTICS and not any(q.rstrip() in e for e in expectations)]
    assert not missing, missing
    assert len([q for q in quoted if q not in NOT_DIAGNOSTICS]) >= 50


def test_verbatim_list_matches_spec():
    specs = [os.path.join(SHARED, "spec", f"nv_tileas-{n}.md") for n in ("verifiers", "operation-roster-and-builders")]
    if not all(os.path.exists(s) for s in specs):
        pytest.skip("shared spec not present")
    body = "".join(open(s).read() for s in specs)
    for text in VERBATIM:
        assert text.rstrip() in body, text


# ---- round trips -------------------------------------------------------------------

def _chunks(path):
    return [c for c in open(path).read().split("// -----") if "expected-error" not in c]


ROUND_TRIP = [(os.path.basename(p), i, c) for p in (os.path.join(GOLDEN, "families_valid.mlir"),
                                                   os.path.join(GOLDEN, "worked_pipeline.mlir"))
              for i, c in enumerate(_chunks(p))]


@pytest.mark.parametrize("name,i,text", ROUND_TRIP, ids=[f"{n}-{i}" for n, i, _ in ROUND_TRIP])
def test_round_trip(name, i, text):
    printed = print_ops(_parse(text))
    assert print_ops(_parse(printed)) == printed
    generic = print_ops(_parse(printed), generic=True)
    assert print_ops(_parse(generic)) == printed
    assert print_ops(_parse(generic), generic=True) == generic


def test_custom_forms_print_as_written():
    text = ("%a = nv_tileas.create_none : tile<128x64xf4E2M1FN>\n%b = nv_tileas.create_none : tile<64x128xf4E2M1FN>\n"
            "%c = nv_tileas.create_none : tile<128x128xf32>\n%s = nv_tileas.create_none : tile<128x4xf8E8M0FNU>\n"
            "%t = nv_tileas.create_none : tile<4x128xf8E8M0FNU>\n"
            "%d = nv_tileas.block_scaled_mma %a, %b, %c, %s, %t {atom = #nv_tileas<atom mxf4>} : tile<128x64xf4E2M1FN>, "
            "tile<64x128xf4E2M1FN>, tile<128x128xf32>, tile<128x4xf8E8M0FNU>, tile<4x128xf8E8M0FNU> -> tile<128x128xf32>\n")
    out = print_ops(_parse(text))
    assert "nv_tileas.block_scaled_mma %0, %1, %2, %3, %4 {atom = #nv_tileas<atom mxf4>} : tile<128x64xf4E2M1FN>" in out
    generic = print_ops(_parse(text), generic=True)
    assert "operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>" in generic


def test_explicit_segment_sizes_place_a_lone_sfb():
    text = ("%a = nv_tileas.create_none : tile<128x64xf4E2M1FN>\n%c = nv_tileas.create_none : tile<128x128xf32>\n"
            "%t = nv_tileas.create_none : tile<4x128xf8E8M0FNU>\n"
            "%d = nv_tileas.block_scaled_mma %a, %a, %c, %t {atom = #nv_tileas<atom mxf4>, operandSegmentSizes = "
            "array<i32: 1, 1, 1, 0, 1>} : tile<128x64xf4E2M1FN>, tile<128x64xf4E2M1FN>, tile<128x128xf32>, "
            "tile<4x128xf8E8M0FNU> -> tile<128x128xf32>\n")
    engine = DiagnosticEngine()
    ops = parse_text(text, engine, "in.mlir")
    mma = ops[-1]
    assert mma.sfa is None and mma.sfb is not None


def test_lone_sfb_prints_its_segment_sizes_and_round_trips():
    text = ("%0 = nv_tileas.create_none : tile<128x64xf8E4M3FN>\n%1 = nv_tileas.create_none : tile<128x128xf32>\n"
            "%2 = nv_tileas.create_none : tile<2x128xf8E8M0FNU>\n"
            "%3 = nv_tileas.block_scaled_mma %0, %0, %1, %2 {atom = #nv_tileas<atom mxf8f6f4>, operandSegmentSizes = "
            "array<i32: 1, 1, 1, 0, 1>} : tile<128x64xf8E4M3FN>, tile<128x64xf8E4M3FN>, tile<128x128xf32>, "
            "tile<2x128xf8E8M0FNU> -> tile<128x128xf32>\n")
    engine = DiagnosticEngine()
    ops = parse_text(text, engine, "in.mlir")
    assert ops[-1].sfa is None and ops[-1].sfb is not None
    printed = print_ops(ops)
    assert printed == text  # the segment sizes are printed: positionally one scale factor reads as sfa
    again = parse_text(printed, engine, "in.mlir")
    assert again[-1].sfa is None and again[-1].sfb is not None and print_ops(again) == printed
    generic = print_ops(ops, generic=True)
    from_generic = parse_text(generic, engine, "in.mlir")
    assert from_generic[-1].sfa is None and print_ops(from_generic) == printed
    # with sfa alone (or both, or neither) the positional form says it all: no segment sizes
    lone_sfa = text.replace(", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>", "")
    out = print_ops(parse_text(lone_sfa, engine, "in.mlir"))
    assert out == lone_sfa and "operandSegmentSizes" not in out


def test_slice_custom_form_round_trips_exactly():
    text = ("%0 = nv_tileas.alloc_tensor : tensor<128x128xf32>\n"
            "%1 = arith.constant 0 : index\n"
            "%2 = nv_tileas.extract_slice %0[%1, 0][64, 64][1, 1] : tensor<128x128xf32> to tensor<?x64xf32>\n"
            "%3 = nv_tileas.insert_slice %2 into %0[%1, 0][64, 64][1, 1] : tensor<?x64xf32> into tensor<128x128xf32>\n")
    assert print_ops(_parse(text)) == text


def test_scf_and_arith_round_trip_exactly():
    text = ("%0 = arith.constant 0 : index\n%1 = arith.constant 4 : index\n%2 = arith.constant 1 : index\n"
            "%3 = scf.for %arg0 = %0 to %1 step %2 iter_args(%arg1 = %0) -> (index) {\n"
            "  %4 = arith.muli %arg0, %1 : index\n  %5 = arith.addi %arg1, %4 : index\n  scf.yield %5 : index\n}\n")
    assert print_ops(_parse(text)) == text


# ---- types and attributes ------------------------------------------------------------

@pytest.mark.parametrize("spelling", [
    "!nv_tileas.async.pipeline.producer_token",
    "!nv_tileas.async.pipeline.consumer_token",
    "!nv_tileas.async.pipeline.consumer_token<consumers = 2, idx = 1>",
    "!nv_tileas.async.pipeline.iterator<tile<128x128xf16>>",
    "!nv_tileaa.tiled_view<128x128xf16>",
    "!nv_tileaa.tiled_view<128x128xf16, SMEM>",
    "!nv_tileaa.tiled_view<64x64xf32, GMEM, strides = [64, 1]>",
    "!nv_tileas.tiled_view<64xf32, TMEM>",
    "!nv_tileaa.tiled_view<64x64xf16, SMEM, swizzle = 128B>",
    "!nv_tileaa.tiled_view<64x64xf16, SMEM, strides = [64, 1], swizzle = none>",
    "!nv_tileaa.mem_token",
    "!async.token",
    "!async.value<tile<128x128xf16>>",
    "!nv_tileas.tma_desc",
    "!nv_tileas.tma_desc<#nv_tileas<atom tma_load_3d, box = [8, 64, 64]>>",
    "!nv_tileas.fnv4E0M3F",
])
def test_type_spellings_round_trip(spelling):
    t = parse_type(spelling)
    assert t.text() == spelling
    assert parse_type(t.text()) == t


def test_residency_is_a_tag_on_the_type():
    from tilec.dialects.nv_tileas.types import TiledViewType
    s = parse_type("!nv_tileaa.tiled_view<128x128xf16, SMEM>")
    g = parse_type("!nv_tileaa.tiled_view<128x128xf16, #nv_tileaa.residency<GMEM>>")
    assert type(s) is type(g) is TiledViewType and s.mnemonic == g.mnemonic == "tiled_view"
    assert (s.residency, g.residency) == ("SMEM", "GMEM") and s.shape == g.shape and s != g


def test_atoms():
    from tilec.dialects.nv_tileas.attributes import AtomAttr
    engine = DiagnosticEngine()
    ops = parse_text('%0 = nv_tileas.create_none {a = #nv_tileas<atom tma_store_2d, box = [64, 32]>, '
                     'b = #nv_tileas<atom mma_f16_f16_f32>, c = #nv_tileas<atom copy_default>, '
                     'd = #nv_tileas<atom tma_reduce_1d>, e = #nv_tileas.swizzle_mode<128B>} : index\n',
                     engine, "x")
    at = ops[0].attributes
    a = at["a"]
    assert isinstance(a, AtomAttr) and a.is_tma_store() and a.box_rank == 2 and a.box == (64, 32)
    assert at["b"].is_mma() and at["c"].is_copy() and at["d"].is_tma_reduce()
    assert at["e"].value == "128B"
    engine = DiagnosticEngine()
    assert parse_text('%0 = nv_tileas.create_none {a = #nv_tileas<atom tma_load_2d, box = [64]>} : index\n',
                      engine, "x") is None
    assert "box rank 2" in engine.render()


# ---- block-scaled MMA ------------------------------------------------------------------

def _mma(a, b, sfa, sfb, c="tile<128x128xf32>", attrs=""):
    vals = [("a", a), ("b", b), ("c", c)] + [(n, t) for n, t in (("sfa", sfa), ("sfb", sfb)) if t]
    text = "".join(f"%{n} = nv_tileas.create_none : {t}\n" for n, t in vals)
    text += (f"%d = nv_tileas.block_scaled_mma {', '.join('%' + n for n, _ in vals)} "
             f"{{atom = #nv_tileas<atom mxf4>{attrs}}} : {', '.join(t for _, t in vals)} -> {c}\n")
    engine = DiagnosticEngine()
    ops = parse_text(text, engine, "in.mlir")
    assert ops is not None, engine.render()
    return ops[-1]


def _packed(op):
    from tilec.ir.diagnostics import using_engine
    engine = DiagnosticEngine()
    with using_engine(engine):
        value = op.verify_shape()
    return value, engine.render()


@pytest.mark.parametrize("a,b,sfa,sfb,attrs,want", [
    ("tile<128x64xf8E4M3FN>", "tile<64x128xf8E5M2>", "tile<128x2xf8E8M0FNU>", "tile<2x128xf8E8M0FNU>", "",
     0x2000000020),
    ("tile<128x64xf4E2M1FN>", "tile<64x128xf4E2M1FN>", "tile<128x4xf8E4M3FN>", "tile<4x128xf8E4M3FN>", "",
     0x4000000010),
    ("tile<128x64xf4E2M1FN>", "tensor<64x128x!nv_tileas.fnv4E0M3F>", "tile<128x4xf8E8M0FNU>",
     "tile<4x128xf8E8M0FNU>", ", two_cta", 0x4000000010),
    ("tile<128x64xf4E2M1FN>", "tile<64x128xf4E2M1FN>", "tile<128x2xf8E8M0FNU>", "tile<2x128xf8E8M0FNU>", "",
     0x4000000020),
])
def test_block_scaled_catalog_rows(a, b, sfa, sfb, attrs, want):
    value, diags = _packed(_mma(a, b, sfa, sfb, attrs=attrs))
    assert value == want and diags == ""
    assert value >> 32 in (32, 64) and value & 0xFFFFFFFF in (16, 32)


FP4 = ("tile<128x64xf4E2M1FN>", "tile<64x128xf4E2M1FN>")


@pytest.mark.parametrize("args,message", [
    ((*FP4, "tile<128x4xf8E8M0FNU>", None, "tile<128x128xf32>"), "fp4 mma should expect scaling factors"),
    ((*FP4, "tile<128x4xf8E8M0FNU>", "tile<4x128xf8E4M3FN>", "tile<128x128xf32>"),
     "expects sfa/sfb element types to be the same"),
    ((*FP4, "tile<128x4xf8E8M0FNU>", "tile<4x128xf8E8M0FNU>", "tile<128x128xf16>"), "expects c type to be Float32"),
    ((*FP4, "tile<128x4xf8E8M0FNU>", "tile<2x128xf8E8M0FNU>", "tile<128x128xf32>"),
     "Scale factor vector size mismatch: 16, 32"),
    ((*FP4, "tile<128x8xf8E8M0FNU>", "tile<8x128xf8E8M0FNU>", "tile<128x128xf32>"),
     "invalid block scale vector size. Expecting 32, but got 8"),
])
def test_block_scaled_failing_phases_return_zero(args, message):
    a, b, sfa, sfb, c = args
    value, diags = _packed(_mma(a, b, sfa, sfb, c=c))
    assert value == 0
    assert diags.count("error:") == 1 and message in diags


def test_phase_order_presence_before_accumulator():
    # two phases wrong at once: presence (phase 1) wins over the accumulator (phase 3)
    value, diags = _packed(_mma(*FP4, "tile<128x4xf8E8M0FNU>", None, c="tile<128x128xf16>"))
    assert value == 0 and "fp4 mma should expect scaling factors" in diags and "Float32" not in diags


def test_two_cta_rejects_only_the_nvfp4_row():
    ok, _ = _packed(_mma(*FP4, "tile<128x4xf8E8M0FNU>", "tile<4x128xf8E8M0FNU>", attrs=", two_cta"))
    bad, diags = _packed(_mma(*FP4, "tile<128x2xf8E8M0FNU>", "tile<2x128xf8E8M0FNU>", attrs=", two_cta"))
    assert ok == 0x4000000010 and bad == 0 and "2-CTA" in diags


def test_worked_block_scaled_failure_yields_exactly_its_diagnostic():
    text = open(os.path.join(GOLDEN, "block_scaled_mma_invalid.mlir")).read().split("// -----")[0]
    text = "\n".join(l for l in text.splitlines() if "expected-error" not in l)
    engine = _diagnostics(text)
    out = engine.render()
    assert out.count("error:") == 1
    assert "'nv_tileas.block_scaled_mma' op expects sfa/sfb element types to be the same" in out


def test_worked_pipeline_verifies():
    ops = _parse(open(os.path.join(GOLDEN, "worked_pipeline.mlir")).read())
    names = [op.name for top in ops for op in top.walk()]
    for n in ("create_pipeline", "create_iterator", "produce_one", "consume_one", "consumer_wait",
              "consumer_release", "yield"):
        assert "nv_tileas.async.pipeline." + n in names
    assert "nv_tileas.async.tiled_tma_load" in names and "nv_tileas.dot" in names


# ---- dispatch table, traits, interface ----------------------------------------------------

def test_pipeline_dispatch_table():
    from tilec.dialects.nv_tileas.ops.pipeline import PIPELINE_DISPATCH, PipelineOp
    assert len(PipelineOp) == 16 and PIPELINE_DISPATCH[15] is None
    names = [slot[0].name.rsplit(".", 1)[1] for slot in PIPELINE_DISPATCH[:15]]
    assert names == ["create_pipeline", "produce_one", "produce_one_async", "consume_one", "consume_one_async",
                     "consumer_read", "producer_write", "producer_acquire", "producer_commit", "consumer_wait",
                     "consumer_release", "yield", "inc_iter", "create_iterator", "agent_switch"]
    from tilec.dialects.nv_tileas.builders import Builder, build_pipeline_op
    with pytest.raises(ValueError):
        build_pipeline_op(Builder(Block()), 15)


ROSTER = {
    "async pipeline": ["async.pipeline." + n for n in (
        "create_pipeline", "create_iterator", "inc_iter", "produce_one", "produce_one_async", "consume_one",
        "consume_one_async", "producer_acquire", "producer_write", "producer_commit", "consumer_wait",
        "consumer_read", "consumer_release", "agent_switch", "yield")],
    "async tokens": ["async.wait", "async.future_wait", "async.to_async", "async.token_to_async", "create_none"],
    "tiled memops": ["tiled_load", "tiled_store", "tiled_atomic_rmw", "async.tiled_load", "async.copy",
                     "async.load", "async.store", "copy", "load", "store", "gather_load", "scatter_store"],
    "tensor slices": ["alloc_tensor", "extract_slice", "insert_slice", "async.extract_slice",
                      "async.insert_slice"],
    "layout": ["convert_layout", "view", "expand_dims", "reinterpret", "shuffle", "generate"],
    "TMA": ["make_tiled_tma_desc", "async.tiled_tma_load", "async.tiled_tma_store", "async.gather_tma_load",
            "async.scatter_tma_store"],
    "compute": ["dot", "async.dot", "reduce", "scan", "block_scaled_mma"],
    "control and metadata": ["yield", "pragma", "cancel_next_program_id", "async.cancel_next_program_id"],
}


def test_every_roster_op_is_registered():
    from tilec.ir import registry
    for family, names in ROSTER.items():
        for n in names:
            assert "nv_tileas." + n in registry.OPS, (family, n)
    for n in ("arith.constant", "arith.addi", "arith.muli", "arith.divsi", "arith.remsi", "arith.select",
              "scf.for", "scf.if", "scf.yield"):
        assert n in registry.OPS


def test_twenty_three_traits():
    from tilec.dialects.nv_tileas import traits
    assert len(traits.ALL_TRAITS) == len(set(traits.ALL_TRAITS)) == 23
    spec = os.path.join(SHARED, "spec", "nv_tileas-verifiers.md")
    if os.path.exists(spec):
        body = open(spec).read()
        for t in traits.ALL_TRAITS:
            assert t.__name__ in body


MEMORY_CONSISTENCY = {
    "async.load", "async.store", "async.copy", "async.tiled_load", "async.dot", "async.wait",
    "async.tiled_tma_load", "async.tiled_tma_store", "async.gather_tma_load", "async.scatter_tma_store",
    "async.tiled_atomic_rmw", "copy", "make_tiled_tma_desc", "reduce", "scan"}


def test_memory_consistency_interface_set():
    from tilec.ir import registry
    from tilec.dialects.nv_tileas.traits import MemoryConsistencyOpInterface
    have = {n[len("nv_tileas."):] for n, cls in registry.OPS.items()
            if n.startswith("nv_tileas.") and MemoryConsistencyOpInterface in cls.traits_all}
    assert have == MEMORY_CONSISTENCY
    for pure in ("alloc_tensor", "insert_slice", "extract_slice", "view", "async.future_wait"):
        assert pure not in have
    assert not any(n.startswith("async.pipeline.") for n in have)


# ---- builders --------------------------------------------------------------------------

def _verified(ops):
    engine = DiagnosticEngine()
    for op in ops:
        assert verify(op, engine), engine.render() + "\n" + print_ops(ops)
    text = print_ops(ops)
    assert print_ops(_parse(text)) == text  # what the builders make prints and reads back
    return text


def _top():
    from tilec.dialects.nv_tileas.builders import Builder
    block = Block()
    return block, Builder(block)


def _none(b, t):
    from tilec.dialects.nv_tileas.ops.tokens import CreateNoneOp
    return b.create(CreateNoneOp, result=parse_type(t)).result


def test_pipeline_builders():
    from tilec.dialects.nv_tileas import builders as B
    from tilec.dialects.nv_tileas.ops.pipeline import CreateIteratorOp
    block, b = _top()
    buf = _none(b, "!nv_tileaa.tiled_view<2x64x64xf16, SMEM>")
    cp = B.create_pipeline(b, buf, numStages=2, producerGroupId=0, consumerGroupId=1, sharedMem=True, dynamic=False)
    assert cp.attributes["numStages"] == A.IntegerAttr(2, IntegerType(32))
    assert cp.attributes["producerGroupId"] == A.IntegerAttr(0, IntegerType(8))
    prod, cons = cp.results
    it = b.create(CreateIteratorOp, pipeline=prod,
                  result=parse_type("!nv_tileas.async.pipeline.iterator<tile<64x64xf16>>")).result
    seen = []

    def body(inner, args):
        seen.append(args)
        _none(inner, "index")

    po = B.build_produce_one(b, None, prod, it, [prod.type], body)
    co = B.build_consume_one(b, None, cons, it, 0, [cons.type], None)
    coa = B.build_consume_one(b, None, cons, it, 0, [cons.type, parse_type("!async.token")], None, is_async=True)
    for op in (po, co, coa):  # the yield was ensured
        assert op.regions[0].blocks[0].last_op.name == "nv_tileas.async.pipeline.yield"
    assert [a.type for a in seen[0]] == [parse_type("tile<64x64xf16>")]
    assert co.attributes["consumer_idx"] == A.IntegerAttr(0, IntegerType(32))
    text = _verified(list(block.ops))
    assert "numStages = 2 : i32" in text and "producerGroupId = 0 : i8" in text and "sharedMem = true" in text


def test_agent_switch_builder():
    from tilec.dialects.nv_tileas import builders as B
    block, b = _top()
    bodies = [lambda inner, args: _none(inner, "index"), lambda inner, args: None]
    op = B.agent_switch(b, None, bodies, num_agents_per_group=1, max_regs=[232, 40], isolated=True,
                        num_warps=[4, 4])
    assert len(op.regions) == 2 and op.attributes["max_regs"].values == (232, 40)
    assert op.attributes["isolated"] == A.BoolAttr(True)
    _verified(list(block.ops))
    # an isolated agent may not capture outer values
    outer = _none(b, "index")
    from tilec.dialects.nv_tileas.ops.tokens import AsyncWaitOp  # noqa: F401
    from tilec.dialects.arith.ops import AddIOp
    B.agent_switch(b, None, [lambda inner, args: inner.create(AddIOp, lhs=outer, rhs=outer, result=outer.type)],
                   num_agents_per_group=1, max_regs=[100], isolated=True)
    engine = DiagnosticEngine()
    assert not all(verify(op, engine) for op in block.ops)
    assert "isolated agent regions" in engine.render()


def test_view_then_tiled_load_and_store():
    from tilec.dialects.nv_tileas import builders as B
    from tilec.dialects.nv_tileas.attributes import AtomAttr
    block, b = _top()
    src = _none(b, "tensor<64x64xf32>")
    tok = _none(b, "!nv_tileaa.mem_token")
    view = B.TileViewSpec(parse_type("!nv_tileaa.tiled_view<64x64xf32, GMEM>"), [])
    attrs = B.TiledLoadAttrs(AtomAttr("copy_default"), coords=[0, 0], token=tok, mem_semantic="acquire",
                             mem_scope="gpu")
    ld = B.build_view_then_tiled_load(b, None, src, view, attrs)
    assert ld.name == "nv_tileas.tiled_load" and ld.view.op.name == "nv_tileas.view"
    assert ld.attributes["operandSegmentSizes"].values == (1, 2, 0, 1)
    assert ld.attributes["mem_semantic"].value == "acquire"
    st_attrs = B.TiledStoreAttrs(AtomAttr("copy_default"), coords=[0, 0], token=ld.results[1])
    st = B.build_view_then_tiled_store(b, None, ld.results[0], src, view, st_attrs)
    assert st.name == "nv_tileas.tiled_store" and st.attributes["operandSegmentSizes"].values == (1, 1, 2, 0, 1)
    _verified(list(block.ops))


def test_zero_accumulator_dot():
    from tilec.dialects.nv_tileas import builders as B
    from tilec.dialects.nv_tileas.attributes import AtomAttr
    block, b = _top()
    x = _none(b, "tensor<64x32xf16>")
    y = _none(b, "tensor<32x64xf16>")
    acc_t = RankedTensorType((64, 64), FloatType("f32"))
    d = B.build_zero_accumulator_dot(b, None, B.DotInputs(x, y), acc_t, AtomAttr("mma_f16_f16_f32"))
    assert d.op.name == "nv_tileas.dot" and d.op.attributes["atom"] == AtomAttr("mma_f16_f16_f32")
    chain = [op.name for op in block.ops]
    assert chain[-4:] == ["nv_tileas.alloc_tensor", "arith.constant", "nv_tileas.insert_slice", "nv_tileas.dot"]
    text = _verified(list(block.ops))
    assert "dense<0.000000e+00> : tensor<64x64xf32>" in text


def test_arith_helpers_add_no_flags_unless_asked():
    from tilec.dialects.nv_tileas import builders as B
    block, b = _top()
    base = B.build_constant(b, 0, IndexType())
    lane = B.build_constant(b, 3, IndexType())
    stride = B.build_constant(b, 16, IndexType())
    e = B.build_index_expr(b, base, lane, stride)
    assert e.op.name == "arith.addi" and e.op.operands[1].op.name == "arith.muli"
    assert "overflowFlags" not in e.op.attributes and "overflowFlags" not in e.op.operands[1].op.attributes
    f = B.build_addi(b, base, lane, overflow=("nsw",))
    assert f.op.attributes["overflowFlags"].flags == ("nsw",)
    m = B.build_maxsi(b, B.build_subi(b, lane, base), B.build_divsi(b, stride, lane))
    cond = B.build_constant(b, A.BoolAttr(True), IntegerType(1))
    s = B.build_select(b, cond, m, B.build_remsi(b, stride, lane))
    assert s.op.name == "arith.select"
    text = _verified(list(block.ops))
    assert re.search(r"arith.addi %0, %1 \{overflowFlags = #arith.overflow<nsw>\} : index", text), text


# ---- the folds spec's example IR parses in its own spelling ------------------------------
# (The spec's "decompose loop iter args" output binds `%out =` to a loop left with no
# results, which MLIR rejects: "cannot name an operation with no results"; it is written
# unbound here.)

FOLDS_EXAMPLES = [
    """%src = nv_tileas.alloc_tensor : tensor<128x128xf32>
%c0 = arith.constant 0 : index
%c64 = arith.constant 64 : index
%c1 = arith.constant 1 : index
%slice = nv_tileas.extract_slice %src[%c0, %c0][%c64, %c64][%c1, %c1]
    : tensor<128x128xf32> to tensor<?x?xf32>
%slice2 = nv_tileas.extract_slice %src[0, 0][64, 64][1, 1]
    : tensor<128x128xf32> to tensor<64x64xf32>
""",
    """%seed = nv_tileas.create_none : tensor<?x?xf32>
%i0 = arith.constant 0 : index
%m = arith.constant 16 : index
%k0 = arith.constant 0 : index
%k1 = arith.constant 4 : index
%k_step = arith.constant 1 : index
%init = nv_tileas.alloc_tensor : tensor<128x128xf32>
%init_v = nv_tileas.insert_slice %seed into %init[%i0, %i0][%m, %m][1, 1]
    : tensor<?x?xf32> into tensor<128x128xf32>

%out = scf.for %k = %k0 to %k1 step %k_step
    iter_args(%buf = %init_v) -> tensor<128x128xf32> {
    %step_v = "produce_tile"(%buf, %k) : (tensor<128x128xf32>, index) -> tensor<?x?xf32>
    %next = nv_tileas.insert_slice %step_v into %buf[%i0, %i0][%m, %m][1, 1]
        : tensor<?x?xf32> into tensor<128x128xf32>
    scf.yield %next : tensor<128x128xf32>
}
scf.for %k = %k0 to %k1 step %k_step iter_args() {
    %buf = nv_tileas.alloc_tensor : tensor<128x128xf32>
    %step_v = "produce_tile"(%buf, %k) : (tensor<128x128xf32>, index) -> tensor<?x?xf32>
    nv_tileas.insert_slice %step_v into %buf[%i0, %i0][%m, %m][1, 1]
        : tensor<?x?xf32> into tensor<128x128xf32>
    scf.yield
}
""",
    """%cond = arith.constant true
%seed = nv_tileas.create_none : tensor<?x?xf32>
%a = nv_tileas.create_none : tensor<?x?xf32>
%b = nv_tileas.create_none : tensor<?x?xf32>
%i = arith.constant 0 : index
%j = arith.constant 0 : index
%m = arith.constant 8 : index
%n = arith.constant 8 : index
%init = nv_tileas.alloc_tensor : tensor<64x64xf32>
%init_v = nv_tileas.insert_slice %seed into %init[0, 0][%m, %n][1, 1]
    : tensor<?x?xf32> into tensor<64x64xf32>
%r = scf.if %cond -> tensor<64x64xf32> {
    %v = nv_tileas.insert_slice %a into %init_v[%i, %j][%m, %n][1, 1]
        : tensor<?x?xf32> into tensor<64x64xf32>
    scf.yield %v : tensor<64x64xf32>
} else {
    %v = nv_tileas.insert_slice %b into %init_v[%i, %j][%m, %n][1, 1]
        : tensor<?x?xf32> into tensor<64x64xf32>
    scf.yield %v : tensor<64x64xf32>
}
%t = nv_tileas.insert_slice %a into %init[%i, %j][%m, %n][1, 1]
    : tensor<?x?xf32> into tensor<64x64xf32>
%y = nv_tileas.extract_slice %t[%i, %j][%m, %n][1, 1]
    : tensor<64x64xf32> to tensor<?x?xf32>
""",
]


@pytest.mark.parametrize("text", FOLDS_EXAMPLES)
def test_folds_spec_examples_parse_verify_and_round_trip(text):
    engine = DiagnosticEngine()
    ops = parse_text(text, engine, "in.mlir", allow_unregistered=True)
    assert ops is not None, engine.render()
    assert all(verify(op, engine) for op in ops), engine.render()
    printed = print_ops(ops)
    again = parse_text(printed, engine, "in.mlir", allow_unregistered=True)
    assert again is not None and print_ops(again) == printed
