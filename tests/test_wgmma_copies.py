"""Dots whose B is computed in registers run on wgmma by default (sm_90a): B
(and an A that cannot come from registers) is copied into the canonical K-major
layout (codegen/ptx/canonical.py), which mma.sync's path would have moved
through shared memory anyway. tf32 dots run there too (m64nNk8, both operands
copied: wgmma reads tf32 K-major only), and two warpgroups with one 64-row chunk
split N (WgmmaAcc.col_groups). Checked against the interpreter in the PTX
simulator, and by ptxas."""
from __future__ import annotations

import re
import shutil
import subprocess

import ml_dtypes
import numpy as np
import pytest

from test_ptx_sim import _loaded_dot

try:
    import ptxsim
except ImportError:                    # pragma: no cover
    from tests import ptxsim

PTXAS = shutil.which("ptxas")
NP = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32}

# B computed in registers (y + y), then the dot; tf32 operands are f32 tiles rounded by ftof
_COMPUTED_B = """    %y2 = addf %y, %y : tile<KxNxET>
    %acc = constant <f32: 1.5> : tile<MxNxf32>
    %r = mmaf %x, %y2, %acc : tile<MxKxET>, tile<KxNxET>, tile<MxNxf32>"""
_COMPUTED_TF32 = """    %y2 = addf %y, %y : tile<KxNxf32>
    %x32 = ftof %x : tile<MxKxf32> -> tile<MxKxtf32>
    %y32 = ftof %y2 : tile<KxNxf32> -> tile<KxNxtf32>
    %acc = constant <f32: 1.5> : tile<MxNxf32>
    %r = mmaf %x32, %y32, %acc : tile<MxKxtf32>, tile<KxNxtf32>, tile<MxNxf32>"""
# two chained dots (K = N): S = X (Y + Y), P = ftof(S), R = P (Y + Y): the second A is
# the first accumulator, copied from its layout (split by columns on two warpgroups)
_CHAINED = """    %y2 = addf %y, %y : tile<KxNxET>
    %zero = constant <f32: 0.0> : tile<MxNxf32>
    %s = mmaf %x, %y2, %zero : tile<MxKxET>, tile<KxNxET>, tile<MxNxf32>
    %p = ftof %s : tile<MxNxf32> -> tile<MxNxET>
    %acc = constant <f32: 1.5> : tile<MxNxf32>
    %r = mmaf %p, %y2, %acc : tile<MxNxET>, tile<KxNxET>, tile<MxNxf32>"""


def _compile(body, et, m, k, n, warps):
    from tilec.codegen.ptx import compile_text
    text = _loaded_dot(et, "f32", body, m, k, n)
    return text, compile_text(text, "sm_90a", num_warps=warps)


def _run(text, ptx, a, b, m, n):
    from tilec.interp import launch as interp_launch, parse_module
    want = np.zeros((m, n), np.float32)
    interp_launch(parse_module(text, "k.mlir"), None, (1, 1, 1), [a.copy(), b.copy(), want])
    got = np.zeros((m, n), np.float32)
    ptxsim.run_ptx(ptx, "k", (1, 1, 1), [a, b, got])
    return got, want


def _operands(et, m, k, n, seed=3):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((m, k)).astype(NP[et]), rng.standard_normal((k, n)).astype(NP[et])


def _assemble(ptx, tmp_path):
    if PTXAS is None:
        pytest.skip("ptxas not on PATH")
    path = tmp_path / "k.ptx"
    path.write_text(ptx)
    out = subprocess.run([PTXAS, "-arch=sm_90a", "-v", str(path), "-o", str(tmp_path / "k.cubin")],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert not re.search(r"[1-9]\d* bytes spill", out.stderr), out.stderr


@pytest.mark.parametrize("et,m,k,n,warps", [
    ("f16", 64, 32, 64, 4),
    ("bf16", 128, 64, 32, 8),       # two warpgroups split M
    ("f16", 64, 32, 64, 8),         # two warpgroups, one 64-row chunk: they split N
    ("f32", 64, 32, 64, 4),         # tf32: m64nNk8, A copied too
    ("f32", 64, 64, 128, 8),        # tf32 with N split
])
def test_a_computed_b_runs_on_wgmma_by_default(et, m, k, n, warps, tmp_path):
    from tilec.dialects.nv_tileas.layouts import wgmma_acc
    text, ptx = _compile(_COMPUTED_TF32 if et == "f32" else _COMPUTED_B, et, m, k, n, warps)
    acc = wgmma_acc((m, n), 32 * warps)
    kind, kstep = ("tf32", 8) if et == "f32" else (et, 16)
    assert "mma.sync" not in ptx
    assert ptx.count(f"wgmma.mma_async.sync.aligned.m64n{acc.n_per}k{kstep}.f32.{kind}.{kind}") == \
        (k // kstep) * acc.tiles_m
    # the copies reach the async proxy: a proxy fence and a barrier before the first wgmma
    head = ptx[:ptx.index("wgmma.fence")]
    assert "fence.proxy.async.shared::cta" in head
    a, b = _operands(et, m, k, n)
    got, want = _run(text, ptx, a, b, m, n)
    scale = np.abs(a.astype(np.float64)) @ np.abs(2 * b.astype(np.float64)) + 1.5
    assert np.all(np.abs(got.astype(np.float64) - want) <= 1e-5 * scale)
    _assemble(ptx, tmp_path)


def test_tf32_operands_are_rounded_not_f32():
    """The tensor core reads tf32 (the ftof's rounding): far from the f32
    product, equal to the interpreter's tf32 one."""
    text, ptx = _compile(_COMPUTED_TF32, "f32", 64, 32, 64, 4)
    a, b = _operands("f32", 64, 32, 64, seed=9)
    got, want = _run(text, ptx, a, b, 64, 64)
    exact = a.astype(np.float64) @ (2 * b.astype(np.float64)) + 1.5
    scale = np.abs(a.astype(np.float64)) @ np.abs(2 * b.astype(np.float64)) + 1.5
    assert np.all(np.abs(got - want) <= 1e-5 * scale)
    assert np.abs(got - exact).max() > 1e-5 * scale.max()


@pytest.mark.parametrize("warps", [4, 8])
def test_chained_dots_copy_the_accumulator_as_a(warps, tmp_path):
    """P = ftof(X B) feeds the second dot as A: from registers on one
    warpgroup (the fragments match the accumulator), copied into the canonical
    layout straight from the accumulator's registers when two warpgroups split
    N (each holds half of P's columns: half of the second dot's K)."""
    m = k = n = 64
    text, ptx = _compile(_CHAINED, "f16", m, k, n, warps)
    assert "mma.sync" not in ptx and ptx.count("wgmma.commit_group") == 2
    # one warpgroup: the second dot's A is four .b32 registers; two: a descriptor
    reg_a = re.findall(r"wgmma\.mma_async\S+ \t\{[^}]*\}, \{", ptx)
    assert bool(reg_a) == (warps == 4)
    a, b = _operands("f16", m, k, n, seed=4)
    a = (a / 4).astype(np.float16)
    got, want = _run(text, ptx, a, b, m, n)
    p = (a.astype(np.float64) @ (2 * b.astype(np.float64))).astype(np.float16).astype(np.float64)
    scale = np.abs(p) @ np.abs(2 * b.astype(np.float64)) + 1.5
    assert np.all(np.abs(got.astype(np.float64) - want) <= 1e-3 * scale)
    _assemble(ptx, tmp_path)


def test_copies_give_way_when_shared_memory_is_short():
    """compile_ops' fallback past the first attempt: no copies, the dot on mma.sync."""
    from tilec.codegen.ptx.module import emit_ptx
    from tilec.compiler import lower_and_schedule
    from tilec.frontend import parse_and_verify
    from tilec.ir.diagnostics import DiagnosticEngine
    text = _loaded_dot("f16", "f32", _COMPUTED_B, 64, 32, 64)
    ptx = {}
    for copies in (True, False):
        eng = DiagnosticEngine()
        ops = parse_and_verify(text, "k.mlir", eng)
        lowered = lower_and_schedule(ops, eng, "sm_90a", 4, None, operand_copies=copies)
        ptx[copies] = emit_ptx(lowered, "sm_90a", 4, copies=copies)
    assert "wgmma.mma_async" in ptx[True] and "mma.sync" not in ptx[True]
    assert "wgmma" not in ptx[False] and "mma.sync" in ptx[False]


def test_the_schedule_keeps_room_for_the_copies(tmp_path):
    """A pipelined loop whose dots copy operands (examples/cutile/delta_rule_state.mlir:
    a bf16 dot by the loop-carried state, split by columns over two warpgroups, and
    a tf32 state update) leaves the copies' bytes beside its stage buffers
    (Schedule._copy_bytes): it compiles as first scheduled, every dot on wgmma."""
    import os
    from tilec.compiler import parse_and_compile
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "examples", "cutile", "delta_rule_state.mlir")
    warned = []
    ptx = parse_and_compile(open(path).read(), path, "sm_90a", on_warnings=warned.append)
    assert not warned, warned
    assert ptx.count("wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16") == 8      # K 128, N split
    assert ptx.count("wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32") == 8      # K 64, M split
    assert "mma.sync" not in ptx and "cp.async.bulk.tensor" in ptx
    _assemble(ptx, tmp_path)


_THREE_DOTS = """cuda_tile.module @three {
  entry @three(%k: tile<ptr<f16>>, %o: tile<ptr<f32>>) {
    %tk = make_tensor_view %k, shape = [256, 64], strides = [64, 1] : tensor_view<256x64xf16, strides=[64,1]>
    %to = make_tensor_view %o, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xf32, strides=[64,1]>
    %pk = make_partition_view %tk : partition_view<tile=(64x64), tensor_view<256x64xf16, strides=[64,1]>>
    %po = make_partition_view %to : partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>
    %z = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %four = constant <i32: 4> : tile<i32>
    %scale = constant <f32: 0.0078125> : tile<64x64xf32>
    %x0 = constant <f32: 0.25> : tile<64x64xf32>
    %c0 = constant <f32: 0.0> : tile<64x64xf32>
    %h = for %i in (%z to %four, step %one) : tile<i32> iter_values(%x = %x0) -> (tile<64x64xf32>) {
      %kt, %t1 = load_view_tko weak %pk[%i, %z] : partition_view<tile=(64x64), tensor_view<256x64xf16, strides=[64,1]>>, tile<i32> -> tile<64x64xf16>, token
      %xh = ftof %x : tile<64x64xf32> -> tile<64x64xf16>
      %s1 = mmaf %kt, %xh, %c0 : tile<64x64xf16>, tile<64x64xf16>, tile<64x64xf32>
      %p1 = ftof %s1 : tile<64x64xf32> -> tile<64x64xf16>
      %s2 = mmaf %p1, %kt, %c0 : tile<64x64xf16>, tile<64x64xf16>, tile<64x64xf32>
      %p2 = ftof %s2 : tile<64x64xf32> -> tile<64x64xf16>
      %s3 = mmaf %p2, %kt, %c0 : tile<64x64xf16>, tile<64x64xf16>, tile<64x64xf32>
      %y = fma %s3, %scale, %x : tile<64x64xf32>
      continue %y : tile<64x64xf32>
    }
    %t3 = store_view_tko weak %h, %po[%z, %z] : tile<64x64xf32>, partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>, tile<i32> -> token
    return
  }
}
"""


def _loop_barriers(ptx):
    """bar.sync of the consumer loop (the loop whose body issues wgmma)."""
    heads = [m.start() for m in re.finditer(r"\$L_for_head_\d+:", ptx)]
    body = next(ptx[h:ptx.index("bra.uni", h)] for h in reversed(heads) if "wgmma.mma_async" in ptx[h:])
    return body.count("bar.sync")


def test_copies_alternate_between_two_buffers_and_skip_the_barriers_others_gave():
    """Three dots a trip whose operands are copied (a B computed from the carried
    state, two A from the previous accumulator, split by columns over two
    warpgroups): the copies alternate between two buffers, and the third copy
    needs no barrier before writing (the second copy's barrier came after the
    first dot's reads); nor does the second, whose buffer the previous trip's
    second dot read before the previous trip's third copy and its barrier (and
    which nothing wrote before the loop). The first keeps its barrier: the last
    trip's third dot read its buffer after the last barrier. Same values as the
    interpreter, one buffer or two, whichever thread runs first, and no
    shared-memory access that nothing orders (the race check)."""
    from tilec.codegen.ptx.module import emit_ptx
    from tilec.compiler import lower_and_schedule
    from tilec.frontend import parse_and_verify
    from tilec.interp import launch as interp_launch, parse_module
    from tilec.ir.diagnostics import DiagnosticEngine
    ptx = {}
    for pingpong in (True, False):
        eng = DiagnosticEngine()
        lowered = lower_and_schedule(parse_and_verify(_THREE_DOTS, "k.mlir", eng), eng, "sm_90a", 8, None)
        ptx[pingpong] = emit_ptx(lowered, "sm_90a", 8, pingpong=pingpong)
    assert ptx[True].count("wgmma.commit_group") == 3
    assert _loop_barriers(ptx[False]) - _loop_barriers(ptx[True]) == 2
    k = (np.random.default_rng(5).standard_normal((256, 64)) / 4).astype(np.float16)
    want = np.zeros((64, 64), np.float32)
    interp_launch(parse_module(_THREE_DOTS, "k.mlir"), None, (1, 1, 1), [k.copy(), want])
    for text in ptx.values():
        for order in ("forward", "reverse"):
            got = np.zeros((64, 64), np.float32)
            res = ptxsim.run_ptx(text, "three", (1, 1, 1), [k.copy(), got], thread_order=order, check_races=True)
            assert res.stats["race_checked"]          # and no shared-memory access unordered (hb.py)
            np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4)
    # the check sees a copy's barrier go: without the one after the trip's second copy, the
    # second dot reads A rows the other warpgroup wrote with nothing ordering them
    lines = ptx[True].split("\n")
    syncs = [i for i, line in enumerate(lines) if line.strip().startswith("bar.sync \t2, 256")]
    copies = [i for i, line in enumerate(lines) if "st.shared.v2.b16" in line]
    after_second = next(i for i in syncs if i > copies[0])
    text = "\n".join(lines[:after_second] + lines[after_second + 1:])
    with pytest.raises(ptxsim.DataRace, match=r"a wgmma\.mma_async of warpgroup \d reads it .* after thread \d+ "
                                              r"wrote it .*st\.shared"):
        ptxsim.run_ptx(text, "three", (1, 1, 1), [k.copy(), np.zeros((64, 64), np.float32)], check_races=True)


def test_which_copies_keep_their_barrier():
    """canonical._copy_buffer's rule, call by call: within one run of a block the
    buffers alternate, and a copy skips its barrier only where another copy of
    the same run came between it and the last copy into its buffer; a block
    begun again (a loop's body, a peeled trip) or a copy in a nested block
    starts over; tcgen05 keeps one buffer and every barrier."""
    from types import SimpleNamespace
    from tilec.codegen.ptx.canonical import _copy_buffer

    class KB:
        def __init__(self):
            self.n = 0

        def shared_buffer(self, size, align, hint):
            self.n += 1
            return f"buf{self.n}"

    class Block:
        def __init__(self, ops):
            self.ops = ops
    dots = [SimpleNamespace(name="nv_tileas.dot")] * 3
    body, inner, pair = Block(dots), Block(dots), Block(dots[:2] + [SimpleNamespace(name="cuda_tile.addf")])
    em = SimpleNamespace(group=SimpleNamespace(owners={}), kb=KB(), pingpong=True,
                         block_runs={b: 1 for b in (body, inner, pair)})

    def copy(block, tag="wgmma"):
        em.op = SimpleNamespace(parent=block)
        return _copy_buffer(em, tag)
    assert [copy(body) for _ in range(4)] == [("buf1", False), ("buf2", False), ("buf1", True), ("buf2", True)]
    assert copy(inner) == ("buf1", False)          # a nested block: no copy of its own came before
    # buf1 was last written in the nested block, buf2 by the run's last copy: both keep the barrier
    assert copy(body) == ("buf1", False)
    assert [copy(body) for _ in range(2)] == [("buf2", True), ("buf1", True)]
    em.block_runs[body] = 2                         # the block begun again
    assert [copy(body) for _ in range(3)] == [("buf1", False), ("buf2", False), ("buf1", True)]
    assert [copy(pair) for _ in range(2)] == [("buf1", False)] * 2      # two dots: one buffer
    em.pingpong = False
    assert [copy(body, "tcgen05") for _ in range(3)] == [("buf3", False)] * 3


def test_a_trip_starts_where_the_previous_one_ended_only_in_a_plain_for_loop():
    """canonical._trip_body: the cross-trip rule holds for the body of a for loop (or a
    pipeline region at its top level) inside no other loop, left only at its end; not in
    a nested loop (the inner loop's first trip follows the outer trip's later copies) nor
    in one a break or an early continue may leave."""
    from types import SimpleNamespace as NS
    from tilec.codegen.ptx.canonical import _trip_body

    def loop(name="scf.for", inner=(), up=None):
        body = NS(ops=list(inner) + [NS(name="scf.yield")])
        op = NS(name=name, parent_op=up, regions=[NS(blocks=[body])])
        op.walk = lambda: iter(body.ops)
        body.parent_op = op
        return op, body
    _, body = loop()
    assert _trip_body(body) is body
    outer, outer_body = loop()
    _, inner_body = loop(up=outer)
    assert _trip_body(inner_body) is None and _trip_body(outer_body) is outer_body
    _, broken = loop(inner=[NS(name="cuda_tile.break")])
    assert _trip_body(broken) is None
    op, body = loop()
    region = NS(ops=[], parent_op=NS(name="nv_tileas.async.pipeline.consume_one", parent=body))
    assert _trip_body(region) is body
    _, other = loop(name="cuda_tile.loop")
    assert _trip_body(other) is None
