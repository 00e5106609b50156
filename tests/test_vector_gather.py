"""Gathers and scatters through `offset(base, indices)` whose indices are
consecutive along the last dimension move as vector accesses
(codegen/ptx/vector_gather.py, dialects/cuda_tile/runs.py).

- runs(): what the IR proves about the indices and masks;
- the PTX: one ld/st.global.v4 per run, with no run-time test where the IR
  proves the alignment and the mask, and with one (and the element-wise code
  beside it) where it does not;
- the PTX simulator against the interpreter, on rows whose offsets are
  misaligned and on bounds that cut runs: a vector access there would fault
  in the simulator (it checks each access's alignment) or read past the end.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

from tilec.compiler import compile_text
from tilec.frontend import parse_and_verify
from tilec.dialects.cuda_tile.runs import runs
from tilec.interp import launch, parse_module
from tilec.ir.diagnostics import DiagnosticEngine

try:
    import ptxsim
except ImportError:
    from tests import ptxsim

# out[i, j] = a[i * rs + j + s0] where i * rs + j + s0 < n, else 0; then scattered back
# to b[i * 64 + j] (masked the same way). ASSUME is replaced by assumes on a, b, rs, n.
KERNEL = """cuda_tile.module @m {
  entry @g(%a0: tile<ptr<f16>>, %b0: tile<ptr<f16>>, %rs0: tile<i32>, %n0: tile<i32>, %s0: tile<i32>) {
    ASSUME
    %i = iota : tile<32xi32>
    %ir = reshape %i : tile<32xi32> -> tile<32x1xi32>
    %rsr = reshape %rs : tile<i32> -> tile<1x1xi32>
    %rsb = broadcast %rsr : tile<1x1xi32> -> tile<32x1xi32>
    %row = muli %ir, %rsb : tile<32x1xi32>
    %rowb = broadcast %row : tile<32x1xi32> -> tile<32x64xi32>
    %j = iota : tile<64xi32>
    %sr = reshape %s0 : tile<i32> -> tile<1xi32>
    %sb = broadcast %sr : tile<1xi32> -> tile<64xi32>
    %js = addi %j, %sb : tile<64xi32>
    %jr = reshape %js : tile<64xi32> -> tile<1x64xi32>
    %jb = broadcast %jr : tile<1x64xi32> -> tile<32x64xi32>
    %idx = addi %rowb, %jb : tile<32x64xi32>
    %nr = reshape %n : tile<i32> -> tile<1x1xi32>
    %nb = broadcast %nr : tile<1x1xi32> -> tile<32x64xi32>
    %m = cmpi less_than %idx, %nb, signed : tile<32x64xi32> -> tile<32x64xi1>
    %ar = reshape %a : tile<ptr<f16>> -> tile<1x1xptr<f16>>
    %ab = broadcast %ar : tile<1x1xptr<f16>> -> tile<32x64xptr<f16>>
    %pa = offset %ab, %idx : tile<32x64xptr<f16>>, tile<32x64xi32> -> tile<32x64xptr<f16>>
    %pad = constant <f16: 0.0> : tile<32x64xf16>
    %v, %t0 = load_ptr_tko weak %pa, %m, %pad : tile<32x64xptr<f16>>, tile<32x64xi1>, tile<32x64xf16> -> tile<32x64xf16>, token
    %k64 = constant <i32: 64> : tile<32x1xi32>
    %orow = muli %ir, %k64 : tile<32x1xi32>
    %orowb = broadcast %orow : tile<32x1xi32> -> tile<32x64xi32>
    %jr0 = reshape %j : tile<64xi32> -> tile<1x64xi32>
    %jb0 = broadcast %jr0 : tile<1x64xi32> -> tile<32x64xi32>
    %oidx = addi %orowb, %jb0 : tile<32x64xi32>
    %br = reshape %b : tile<ptr<f16>> -> tile<1x1xptr<f16>>
    %bb = broadcast %br : tile<1x1xptr<f16>> -> tile<32x64xptr<f16>>
    %pb = offset %bb, %oidx : tile<32x64xptr<f16>>, tile<32x64xi32> -> tile<32x64xptr<f16>>
    %t1 = store_ptr_tko weak %pb, %v, %m : tile<32x64xptr<f16>>, tile<32x64xf16>, tile<32x64xi1> -> token
    return
  }
}
"""

PLAIN = """%a = assume div_by<1>, %a0 : tile<ptr<f16>>
    %b = assume div_by<1>, %b0 : tile<ptr<f16>>
    %rs = assume div_by<1>, %rs0 : tile<i32>
    %n = assume div_by<1>, %n0 : tile<i32>"""
ALIGNED = """%a = assume div_by<16>, %a0 : tile<ptr<f16>>
    %b = assume div_by<16>, %b0 : tile<ptr<f16>>
    %rs = assume div_by<16>, %rs0 : tile<i32>
    %n = assume div_by<16>, %n0 : tile<i32>"""


def text(assume, shift=False):
    t = KERNEL.replace("ASSUME", assume)
    if not shift:      # no s0 term: the columns start at 0
        t = t.replace("%js = addi %j, %sb : tile<64xi32>", "%js = addi %j, %j0 : tile<64xi32>").replace(
            "%sb = broadcast %sr : tile<1xi32> -> tile<64xi32>",
            "%sb = broadcast %sr : tile<1xi32> -> tile<64xi32>\n    %j0 = constant <i32: 0> : tile<64xi32>")
    return t


def ops_of(src):
    return parse_and_verify(src, "g.mlir", DiagnosticEngine())


def _facts(src, name):
    """runs() of the value the text names %name (the parser keeps the name as a hint)."""
    for top in ops_of(src):
        for op in top.walk():
            for r in op.results:
                if r.name_hint == "%" + name:
                    return runs(r)
    raise KeyError(name)


def test_runs_of_row_plus_column_indices():
    r = _facts(text(ALIGNED), "idx")
    assert (r.contig, r.div) == (64, 16)           # rows i * rs, rs a multiple of 16
    m = _facts(text(ALIGNED), "m")
    assert m.prefix == 64 and m.uniform == 16      # n a multiple of 16: whole 16-runs in or out
    r = _facts(text(PLAIN), "idx")
    assert (r.contig, r.div) == (64, 1)
    m = _facts(text(PLAIN), "m")
    assert m.prefix == 64 and m.uniform == 1
    o = _facts(text(PLAIN), "oidx")
    assert (o.contig, o.div) == (64, 64)


def test_runs_refuse_what_is_not_consecutive():
    src = text(ALIGNED)
    # a reversed column (63 - j), twice the column, a difference of two columns, <= bounds
    src = src.replace("%idx = addi %rowb, %jb : tile<32x64xi32>",
                      "%k63 = constant <i32: 63> : tile<32x64xi32>\n"
                      "    %rev = subi %k63, %jb : tile<32x64xi32>\n"
                      "    %two = addi %jb, %jb : tile<32x64xi32>\n"
                      "    %le = cmpi less_than_or_equal %jb, %k63, signed : tile<32x64xi32> -> tile<32x64xi1>\n"
                      "    %idx = addi %rowb, %jb : tile<32x64xi32>")
    assert _facts(src, "rev").contig == 1
    assert _facts(src, "two").contig == 1
    le = _facts(src, "le")
    assert le.prefix == 64 and le.uniform == 1


def test_a_mask_anded_with_a_true_splat_keeps_its_runs():
    src = text(ALIGNED).replace(
        "%m = cmpi less_than %idx, %nb, signed : tile<32x64xi32> -> tile<32x64xi1>",
        "%m0 = cmpi less_than %idx, %nb, signed : tile<32x64xi32> -> tile<32x64xi1>\n"
        "    %tt = constant <i1: true> : tile<32x64xi1>\n"
        "    %m = andi %m0, %tt : tile<32x64xi1>")
    assert _facts(src, "tt").uniform == 64
    m = _facts(src, "m")
    assert (m.prefix, m.uniform) == (64, 16)


# ---- the PTX -------------------------------------------------------------------------

def test_aligned_gather_and_scatter_are_vector_accesses_without_tests():
    ptx = compile_text(text(ALIGNED), arch="sm_90a")
    assert ptx.count("ld.global.v4.b16") == 4 and "ld.global.b16" not in ptx
    assert ptx.count("st.global.v4.b16") == 4 and "st.global.b16" not in ptx
    assert "run_done" not in ptx


def test_unproven_alignment_and_bounds_are_tested_at_run_time():
    ptx = compile_text(text(PLAIN), arch="sm_90a")
    assert ptx.count("ld.global.v4.b16") == 4 and ptx.count("st.global.v4.b16") == 4
    # each run: a vector access under the test, else its four elements
    assert ptx.count("ld.global.b16") == 16 and ptx.count("st.global.b16") == 16
    assert len(re.findall(r"and\.b64 \t%rd\d+, %rd\d+, 7;", ptx)) == 8


def test_a_permuted_gather_stays_element_wise():
    src = text(ALIGNED).replace("%idx = addi %rowb, %jb : tile<32x64xi32>",
                                "%k63 = constant <i32: 63> : tile<32x64xi32>\n"
                                "    %rev = subi %k63, %jb : tile<32x64xi32>\n"
                                "    %idx = addi %rowb, %rev : tile<32x64xi32>")
    ptx = compile_text(src, arch="sm_90a")
    assert "ld.global.v4.b16" not in ptx and ptx.count("ld.global.b16") == 16


# ---- the simulator against the interpreter --------------------------------------------

def _run_both(src, a, rs, n, s0, arch):
    b_sim = np.full((32 * 64,), -1, np.float16)
    b_int = b_sim.copy()
    launch(parse_module(src, "g.mlir"), grid=(1, 1, 1), args=[a.copy(), b_int, rs, n, s0])
    ptx = compile_text(src, arch=arch)
    ptxsim.run_ptx(ptx, "g", (1, 1, 1), [a.copy(), b_sim, rs, n, s0])
    return b_sim, b_int


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80"])
@pytest.mark.parametrize("rs,n,s0", [
    (64, 32 * 64, 0),          # every run aligned and in bounds
    (67, 32 * 67 - 5, 0),      # odd rows: most runs misaligned; the bound cuts a run
    (72, 1000, 3),             # rows aligned, columns shifted by 3: every run misaligned
    (64, 777, 0),              # aligned rows, a bound in the middle of a run
])
def test_simulated_gathers_match_the_interpreter(arch, rs, n, s0):
    src = text(PLAIN, shift=True)
    rng = np.random.default_rng(rs * 1000 + n)
    a = rng.standard_normal(32 * rs + 64 + s0).astype(np.float16)
    got, want = _run_both(src, a, rs, n, s0, arch)
    np.testing.assert_array_equal(got, want)
    # and numpy's own reading of the kernel
    i, j = np.meshgrid(np.arange(32), np.arange(64), indexing="ij")
    idx = i * rs + j + s0
    exp = np.where(idx < n, a[np.minimum(idx, len(a) - 1)], np.float16(-1)).reshape(-1)
    np.testing.assert_array_equal(want, exp)


def test_aligned_kernel_simulates_equal():
    src = text(ALIGNED)
    a = np.random.default_rng(1).standard_normal(32 * 64 + 64).astype(np.float16)
    got, want = _run_both(src, a, 64, 32 * 48, 0, "sm_90a")
    np.testing.assert_array_equal(got, want)


def test_vector_accesses_without_their_tests_fault(monkeypatch):
    """Mutation: the same plan without its run-time tests makes misaligned vector
    accesses, which the simulator reports."""
    from tilec.codegen.ptx import vector_gather
    real = vector_gather.plan

    def untested(em, op, idx, etype):
        p = real(em, op, idx, etype)
        if p is not None:
            p.test_align = p.test_mask = False
        return p
    monkeypatch.setattr(vector_gather, "plan", untested)
    a = np.random.default_rng(3).standard_normal(32 * 67 + 64).astype(np.float16)
    with pytest.raises(Exception, match="misaligned"):
        _run_both(text(PLAIN, shift=True), a, 67, 32 * 67 - 5, 0, "sm_90a")


@pytest.mark.parametrize("pad,selects", [("0.0", 0), ("-0.0", 16), ("-1.5", 16)])
def test_a_zero_padding_needs_no_select(pad, selects):
    """A gather padded with +0 reads its masked-off lanes as 0 (padding_value =
    zero) with no select after it; -0 and other values keep the select."""
    src = text(ALIGNED).replace("%pad = constant <f16: 0.0>", f"%pad = constant <f16: {pad}>")
    # every element stored, so the padded lanes show
    src = src.replace("%t1 = store_ptr_tko weak %pb, %v, %m : tile<32x64xptr<f16>>, tile<32x64xf16>, "
                      "tile<32x64xi1> -> token",
                      "%t1 = store_ptr_tko weak %pb, %v : tile<32x64xptr<f16>>, tile<32x64xf16> -> token")
    assert "store_ptr_tko weak %pb, %v :" in src
    assert compile_text(src, arch="sm_90a").count("selp") == selects
    a = np.random.default_rng(5).standard_normal(32 * 64 + 64).astype(np.float16)
    got, want = _run_both(src, a, 64, 32 * 40, 0, "sm_90a")
    np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))      # -0.0 too
    assert (want[32 * 40:] == np.float16(pad)).all() and np.signbit(want[32 * 40:]).all() == pad.startswith("-")
