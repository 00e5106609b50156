"""Scheduling: the analysis, the budgets, and semantics. The NumPy evaluator of
scheduled nv_tileas (tilec.schedule.evaluator, on top of the cuda_tile
interpreter) runs the lowered+scheduled kernels; their results must equal the
interpreter's on the cuda_tile input, on random data, for both targets."""
import ml_dtypes
import numpy as np
import pytest

import tilec.schedule.evaluator  # noqa: F401  (nv_tileas handlers for the interpreter)
from test_lowering_util import FLASH, errors, lower, read, text_of
from tilec.conversion.lower_to_tileas import lower_blocks
from tilec.conversion.target import TARGETS, mma_atom_name
from tilec.interp import launch, parse_module
from tilec.ir.diagnostics import DiagnosticEngine, using_engine
from tilec.ir.types import FloatType, IntegerType
from tilec.schedule.analysis import analyze
from tilec.schedule.budget import estimate_registers, fit_stages
from tilec.schedule.materialize import MaterializeOptions, materialize_schedule
from tilec.schedule.stages import build_stages

BF16 = ml_dtypes.bfloat16
ARCHES = ("sm_80", "sm_90a")


def arr(a):
    return [a, *a.shape, *[s // a.itemsize for s in a.strides]]


def both(path, grid, make_args, arch, **opts):
    """(reference outputs, scheduled outputs): the same inputs through the
    interpreter on the source and through the evaluator on the scheduled IR."""
    src = read(path)
    ok, ops, engine = lower(src, arch, **opts)
    assert ok, errors(engine)
    scheduled = parse_module(text_of(ops))
    ref_args, got_args = make_args(), make_args()
    launch(parse_module(src), None, grid, ref_args)
    launch(scheduled, None, grid, got_args)
    outs = [(r, g) for r, g in zip(ref_args, got_args) if isinstance(r, np.ndarray)]
    return outs


def same(outs, rtol=0.0, atol=0.0):
    for r, g in outs:
        if rtol or atol:
            np.testing.assert_allclose(g.astype(np.float64), r.astype(np.float64), rtol=rtol, atol=atol)
        else:
            assert np.array_equal(r, g, equal_nan=True)


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("k", [32, 80, 96, 224])   # fewer K tiles than stages, partial tiles, many
def test_matmul_f16_matches_interpreter(arch, k):
    rng = np.random.default_rng(k)
    a = rng.standard_normal((128, k)).astype(np.float16)
    b = rng.standard_normal((k, 128)).astype(np.float16)

    def args():
        return arr(a) + arr(b) + arr(np.zeros((128, 128), np.float16))
    same(both("examples/cutile/matmul_f16.mlir", (2, 2), args, arch))


@pytest.mark.parametrize("arch", ARCHES)
def test_matmul_with_empty_k_loop(arch):
    a = np.zeros((64, 0), np.float16)
    b = np.zeros((0, 64), np.float16)

    def args():
        c = np.full((64, 64), 3.0, np.float16)
        return [a, 64, 0, 0, 1, b, 0, 64, 64, 1, c, 64, 64, 64, 1]
    same(both("examples/cutile/matmul_f16.mlir", (1, 1), args, arch))


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("stages", [1, 2, 4])
def test_matmul_bf16_relu_any_stage_count(arch, stages):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((128, 128)).astype(BF16)
    b = rng.standard_normal((128, 256)).astype(BF16)

    def args():
        return arr(a) + arr(b) + arr(np.zeros((128, 256), np.float32))
    same(both("examples/cutile/matmul_bf16_relu.mlir", (2, 2), args, arch, num_stages=stages))


@pytest.mark.parametrize("arch", ARCHES)
def test_matmul_i8_exact(arch):
    rng = np.random.default_rng(3)
    a = rng.integers(-128, 128, (128, 96)).astype(np.int8)
    b = rng.integers(-128, 128, (96, 128)).astype(np.int8)

    def args():
        return arr(a) + arr(b) + arr(np.zeros((128, 128), np.int32)) + [50]
    same(both("examples/cutile/matmul_i8_masked.mlir", (2, 2), args, arch))


@pytest.mark.parametrize("arch", ARCHES)
def test_tiled_matmul_edge_tiles(arch):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((200, 136)).astype(np.float16)
    b = rng.standard_normal((136, 150)).astype(np.float16)

    def args():
        return [a, b, np.zeros((200, 150), np.float16), 200, 150, 136]
    same(both("examples/matmul_f16_tiled.mlir", (2, 2), args, arch))


@pytest.mark.parametrize("arch", ARCHES)
def test_row_softmax_matches_interpreter(arch):
    rng = np.random.default_rng(11)
    x = (rng.standard_normal((16, 128)) * 4).astype(np.float32)

    def args():
        return arr(x) + arr(np.zeros_like(x))
    outs = both("examples/cutile/row_softmax_f32.mlir", (4,), args, arch)
    same(outs)
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(outs[-1][1], e / e.sum(1, keepdims=True), rtol=1e-5)


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("n", [200, 256])
def test_flash_attention_matches_interpreter(arch, n):
    rng = np.random.default_rng(n)
    q = (rng.standard_normal((n, 64)) * 0.3).astype(np.float16)
    k = (rng.standard_normal((n, 64)) * 0.3).astype(np.float16)
    v = rng.standard_normal((n, 64)).astype(np.float16)
    kt = np.ascontiguousarray(k.T)

    def args():
        return [q, kt, v, np.zeros((n, 64), np.float16), n]
    outs = both(FLASH, (n // 64 + (n % 64 > 0),), args, arch)
    same(outs)
    if n % 64 == 0:   # (the kernel does not mask padded keys)
        s = q.astype(np.float32) @ k.astype(np.float32).T
        p = np.exp(s - s.max(1, keepdims=True))
        ref = (p / p.sum(1, keepdims=True)) @ v.astype(np.float32)
        np.testing.assert_allclose(outs[-1][1].astype(np.float32), ref, atol=2e-2)


@pytest.mark.parametrize("path,grid,make", [
    ("examples/cutile/vector_add_f32.mlir", (3,),
     lambda r: arr(np.ones(768, np.float32)) + arr(np.arange(768, dtype=np.float32))
     + arr(np.zeros(768, np.float32))),
    ("examples/transpose_f32.mlir", (3, 2),
     lambda r: [r.standard_normal((70, 45)).astype(np.float32), np.zeros((45, 70), np.float32), 70, 45]),
    ("examples/layernorm_f32.mlir", (3,),
     lambda r: [r.standard_normal((10, 128)).astype(np.float32), r.standard_normal(128).astype(np.float32),
                r.standard_normal(128).astype(np.float32), np.zeros((10, 128), np.float32), 10, 1e-5]),
])
def test_elementwise_and_view_kernels_match(path, grid, make):
    for arch in ARCHES:
        data = make(np.random.default_rng(0))
        same(both(path, grid, lambda: [x.copy() if isinstance(x, np.ndarray) else x for x in data], arch))


# ---- analysis, stages, budgets ----------------------------------------------------------

def _analyses(path, arch="sm_90a"):
    ops = parse_module(read(path))
    block = ops[0].parent
    with using_engine(DiagnosticEngine()):
        assert lower_blocks([block], TARGETS[arch], None)
    return analyze([block])


def test_analysis_finds_loads_feeding_the_dot():
    (a,) = _analyses("examples/cutile/matmul_f16.mlir")
    assert a.pipelinable and len(a.loads) == 2 and len(a.computes) == 1
    assert all(a.feeds[l] == a.computes for l in a.loads)
    assert all(a.varying[l] for l in a.loads)
    mat = materialize_schedule(a, MaterializeOptions(TARGETS["sm_90a"], 3))
    assert mat.pending_loads == a.loads and not mat.resident_loads and mat.pending_async == a.loads
    st = build_stages(a, mat, 3)
    assert [p.stage_bytes for p in st.pairs] == [64 * 32 * 2, 32 * 64 * 2]
    assert st.distance == 2 and st.smem_bytes() == 3 * 8192


def test_loops_without_mma_are_not_candidates():
    for path in ("examples/gcd_loop_i32.mlir", "examples/cutile/grid_stride_i32.mlir",
                 "examples/layernorm_f32.mlir"):
        assert not any(a.pipelinable for a in _analyses(path)), path


def test_budgets():
    (a,) = _analyses("examples/matmul_f16_tiled.mlir")
    mat = materialize_schedule(a, MaterializeOptions(TARGETS["sm_90a"], 3))
    st = build_stages(a, mat, 3)
    assert st.bytes_per_stage == 2 * 128 * 64 * 2
    assert fit_stages(st, TARGETS["sm_90a"], 8) == 7     # 7 * 32 KiB <= 227 KiB < 8 * 32 KiB
    assert fit_stages(st, TARGETS["sm_80"], 8) == 5      # 163 KiB
    r = estimate_registers(a, TARGETS["sm_90a"], 8)
    assert (r.producer_budget, r.consumer_budget, r.consumer_agents) == (40, 232, 2)
    # the 128x128 f32 accumulator over 256 threads beside the overhead: the two operand tiles
    # stay in their slots (wgmma reads them there)
    assert r.consumer == 32 + 64
    assert 128 * (r.producer_budget + r.consumer_agents * r.consumer_budget) <= 65536


def test_num_warps_8_gives_two_consumer_agents():
    ok, ops, engine = lower(read("examples/matmul_f16_tiled.mlir"), "sm_90a", num_warps=8)
    assert ok, errors(engine)
    text = text_of(ops)
    assert "max_regs = array<i32: 40, 232>, num_agents_per_group = 2 : i32" in text


def test_atom_table():
    f16, f32, i8, i32 = FloatType("f16"), FloatType("f32"), IntegerType(8), IntegerType(32)
    f8 = FloatType("f8E4M3FN")
    assert mma_atom_name(TARGETS["sm_80"], f16, f16, f32) == "mma_f16_f16_f32"
    assert mma_atom_name(TARGETS["sm_90a"], f32, f32, f32) == "mma_wgmma_tf32_tf32_f32"
    assert mma_atom_name(TARGETS["sm_80"], i8, i8, i32) == "mma_s8_s8_s32"
    assert mma_atom_name(TARGETS["sm_80"], f8, f8, f32) is None
    assert mma_atom_name(TARGETS["sm_90a"], f8, f8, f32) == "mma_wgmma_f8_f8_f32"
    assert mma_atom_name(TARGETS["sm_90a"], FloatType("f64"), FloatType("f64"), FloatType("f64")) is None


def test_flash_attention_lowers_and_schedules_fast():
    import time
    src = read(FLASH)
    lower(src, "sm_90a")                   # warm imports
    t0 = time.perf_counter()
    ok, _, _ = lower(src, "sm_90a")
    dt = time.perf_counter() - t0
    assert ok and dt < 0.3 * 3, dt         # parse + lower + schedule + verify (generous on a loaded box)


@pytest.mark.parametrize("arch", ARCHES)
def test_gather_reverse_through_gather_load_and_scatter_store(arch):
    ok, ops, _ = lower(read("examples/cutile/gather_reverse_f32.mlir"), arch)
    text = text_of(ops)
    assert '"nv_tileas.gather_load"' in text and '"nv_tileas.scatter_store"' in text
    assert "load_ptr_tko" not in text and "store_ptr_tko" not in text
    x = np.random.default_rng(2).standard_normal(300).astype(np.float32)
    outs = both("examples/cutile/gather_reverse_f32.mlir", (3,),
                lambda: arr(x.copy()) + arr(np.zeros(300, np.float32)) + [300], arch)
    same(outs)
    assert np.array_equal(outs[1][1], x[::-1])


@pytest.mark.parametrize("path,grid,make", [
    ("examples/cutile/grid_stride_i32.mlir", (2,),
     lambda: arr(np.arange(256 * 5, dtype=np.int32)) + arr(np.zeros(256 * 5, np.int32)) + [5]),
    ("examples/gcd_loop_i32.mlir", (12,),
     lambda: [np.arange(1, 13, dtype=np.int32) * 7, np.arange(12, dtype=np.int32) * 3 + 1,
              np.zeros(12, np.int32)]),
    ("examples/cutile/branchy_scale.mlir", (3,),
     lambda: arr(np.linspace(-3, 3, 300).astype(np.float32)) + arr(np.zeros(300, np.float32)) + [300]),
    ("examples/cutile/cumsum_f32.mlir", (2,),
     lambda: arr(np.linspace(0.5, 1.5, 256).astype(np.float32)) + arr(np.zeros(256, np.float32))
     + arr(np.zeros(256, np.float32))),
])
def test_pointer_and_control_flow_kernels_match(path, grid, make):
    for arch in ARCHES:
        same(both(path, grid, make, arch))


@pytest.mark.parametrize("path,grid,make", [
    ("examples/vector_add.mlir", (4,),
     lambda: [np.arange(1000, dtype=np.float32), np.ones(1000, np.float32), np.zeros(1000, np.float32), 1000]),
    ("examples/cutile/saxpy_bf16.mlir", (3,),
     lambda: arr(np.linspace(-2, 2, 384).astype(BF16)) + arr(np.linspace(1, 3, 384).astype(BF16))
     + arr(np.zeros(384, BF16)) + [0.7]),
    ("examples/cutile/row_stats_i32.mlir", (3,),
     lambda: arr((np.arange(24 * 64, dtype=np.int64) * 2654435761 % 2**31 - 2**30).astype(np.int32)
                 .reshape(24, 64)) + arr(np.zeros(24, np.int32)) + arr(np.zeros(24, np.int32))),
    ("examples/cutile/clamp_where_f16.mlir", (2,),
     lambda: arr(np.linspace(-4, 4, 1024).astype(np.float16).reshape(32, 32))
     + arr(np.zeros((32, 32), np.float16)) + [-1.0, 20.0]),
    ("examples/cutile/histogram_i32.mlir", (2,),
     lambda: arr((np.arange(256, dtype=np.int32) * 37 % 1000 - 500).astype(np.int32))
     + arr(np.zeros(64, np.int32)) + arr(np.full(64, -2**31, np.int32)) + arr(np.zeros(64, np.float32))
     + arr(np.linspace(-1, 1, 256).astype(np.float32)) + arr(np.zeros(64, np.int32))),
    ("examples/ticket_lock_i32.mlir", (10,),
     lambda: [np.zeros(4, np.int32), np.zeros(10, np.int32), np.zeros(10, np.int32)]),
])
def test_remaining_examples_match(path, grid, make):
    for arch in ARCHES:
        same(both(path, grid, make, arch))


@pytest.mark.parametrize("arch", ARCHES)
def test_argmax_rows_with_print(arch, capsys):
    import io
    x = np.random.default_rng(4).standard_normal((16, 64))
    src = read("examples/cutile/argmax_rows_f64.mlir")
    ok, ops, engine = lower(src, arch)
    assert ok, errors(engine)
    outs = []
    for mod in (parse_module(src), parse_module(text_of(ops))):
        idx, buf = np.zeros(16, np.int32), io.StringIO()
        launch(mod, None, (4,), arr(x) + arr(idx), stdout=buf)
        outs.append((idx, buf.getvalue()))
    assert np.array_equal(outs[0][0], outs[1][0]) and outs[0][1] == outs[1][1]


@pytest.mark.parametrize("k", [32, 80])
def test_matmul_sm90a_without_tma_matches(k):
    rng = np.random.default_rng(k)
    a = rng.standard_normal((128, k)).astype(np.float16)
    b = rng.standard_normal((k, 128)).astype(np.float16)

    def args():
        return arr(a) + arr(b) + arr(np.zeros((128, 128), np.float16))
    same(both("examples/cutile/matmul_f16.mlir", (2, 2), args, "sm_90a", tma="false"))


def test_tma_only_where_shapes_and_alignment_allow():
    from tilec.schedule.tma import plan_tma
    # strides with no `div_by` fact: a tensor map could fault, so no TMA
    for path in ("examples/cutile/matmul_i8_masked.mlir", "examples/cutile/matmul_f16.mlir"):
        (a,) = [x for x in _analyses(path) if x.pipelinable]
        assert all(plan_tma(load, a.loop) is None for load in a.loads), path
    # cuTile's 16-aligned specialization: both loads; a 4-wide f16 box (8 bytes) is refused
    aligned = "examples/cutile/matmul_f16_aligned.mlir"
    (a,) = [x for x in _analyses(aligned) if x.pipelinable]
    assert all(plan_tma(load, a.loop) is not None for load in a.loads)
    src = read(aligned).replace("128x64", "128x4").replace("64x128", "4x128")
    ok, ops, engine = lower(src, "sm_90a")
    assert ok, errors(engine)
    assert text_of(ops).count("make_tiled_tma_desc") == 1     # only the 4x128 B tile qualifies
    # B's row stride without its `div_by` facts: B loses its TMA
    src = read(aligned)
    assert src.count("strides = [%assume_assume_assume_22, 1]") == 1
    ok, ops, engine = lower(src.replace("strides = [%assume_assume_assume_22, 1]", "strides = [%arg8, 1]"), "sm_90a")
    assert ok, errors(engine)
    assert text_of(ops).count("make_tiled_tma_desc") == 1


ATOMIC_RED = """cuda_tile.module @m {
  entry @accumulate(%p: tile<ptr<f32>>, %n: tile<i32>) {
    %c0 = constant dense<0> : tile<i32>
    %one = constant dense<1.5> : tile<16x16xf32>
    %tv = make_tensor_view %p, shape = [%n, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pv = make_partition_view %tv : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %t = atomic_red_view_tko relaxed device %pv[%bx, %c0], addf, %one : tile<16x16xf32>, partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    %t2 = atomic_red_view_tko relaxed device %pv[%c0, %c0], addf, %one : tile<16x16xf32>, partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
"""


@pytest.mark.parametrize("arch", ARCHES)
def test_atomic_reduction_through_a_view(arch):
    ok, ops, engine = lower(ATOMIC_RED, arch)
    assert ok, errors(engine)
    text = text_of(ops)
    assert text.count('"nv_tileas.tiled_atomic_rmw"') == 2 and "rmw_mode = #nv_tileas.rmw_mode<add>" in text
    assert "mem_semantic = #nv_tileas.mem_semantic<relaxed>" in text and "mem_scope = #nv_tileas.mem_scope<gpu>" in text
    outs = []
    for mod in (parse_module(ATOMIC_RED), parse_module(text)):
        buf = np.arange(20 * 20, dtype=np.float32).reshape(20, 20)
        launch(mod, None, (2,), [buf, 20])
        outs.append(buf)
    assert np.array_equal(outs[0], outs[1])


@pytest.mark.parametrize("arch", ARCHES)
def test_loop_invariant_load_is_hoisted_not_pipelined(arch):
    src = read("examples/cutile/matmul_f16.mlir").replace("%pview_20[%blockId_x, %loopIdx]",
                                                          "%pview_20[%blockId_x, %cst_0_i32]")
    assert src != read("examples/cutile/matmul_f16.mlir")
    ok, ops, engine = lower(src, arch)
    assert ok, errors(engine)
    text = text_of(ops)
    assert text.count("create_pipeline") == 1          # only B streams; A is loaded once
    rng = np.random.default_rng(9)
    a = rng.standard_normal((128, 96)).astype(np.float16)
    b = rng.standard_normal((96, 128)).astype(np.float16)
    outs = []
    for mod in (parse_module(src), parse_module(text)):
        c = np.zeros((128, 128), np.float16)
        launch(mod, None, (2, 2), arr(a) + arr(b) + arr(c))
        outs.append(c)
    assert np.array_equal(outs[0], outs[1])


def test_loop_with_a_token_ordered_store_is_not_pipelined():
    # the matmul K loop also stores each partial product, ordered after its A load by the
    # load's token: the loads must not be reordered past it (tests/test_unordered_stores.py
    # has the loop whose tokens order nothing, which is pipelined)
    src = read("examples/cutile/matmul_f16.mlir").replace(
        "      continue %4 : tile<64x64xf32>",
        "      %h4 = ftof %4 : tile<64x64xf32> -> tile<64x64xf16>\n"
        "      %pst = make_partition_view %tview_14 : partition_view<tile=(64x64), tensor_view<?x?xf16, strides=[?,1]>>\n"
        "      %st = store_view_tko weak %h4, %pst[%blockId_x, %blockId_y_16] token = %result_token : tile<64x64xf16>, "
        "partition_view<tile=(64x64), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> token\n"
        "      continue %4 : tile<64x64xf32>")
    assert "%st = store_view_tko" in src
    block = parse_module(src)[0].parent
    with using_engine(DiagnosticEngine()):
        assert lower_blocks([block], TARGETS["sm_90a"], None)
    (a,) = analyze([block])
    assert not a.pipelinable and "side effects" in a.reason
    ok, out, engine = lower(src, "sm_90a")
    assert ok and "create_pipeline" not in text_of(out)


# --- `tilec opt --arch / --num-stages / --num-warps` (issue 7) --------------
MATMUL = "examples/cutile/matmul_f16.mlir"


def _opt(run_cli, *flags, path=MATMUL):
    from conftest import ROOT
    import os
    rc, out, err = run_cli("opt", os.path.join(ROOT, path), *flags)
    assert rc == 0 and "Traceback" not in err, err
    return out


def _stages(text):
    import re
    return sorted(set(int(n) for n in re.findall(r"numStages = (\d+)", text)))


def test_cli_arch_sm80_sets_both_passes(run_cli):
    out = _opt(run_cli, "--lower-to-tileas", "--schedule", "--arch", "sm_80")
    assert _stages(out) == [2] and "agent_switch" not in out
    assert 'nv_tileas.target = "sm_80"' in out and "sm_90a" not in out
    assert "mma_wgmma" not in out


def test_cli_default_and_sm90a(run_cli):
    for flags in ((), ("--arch", "sm_90a"), ("-arch=sm_90a",)):
        out = _opt(run_cli, "--lower-to-tileas", "--schedule", *flags)
        assert _stages(out) == [3] and "agent_switch" in out and 'nv_tileas.target = "sm_90a"' in out


def test_cli_num_stages(run_cli):
    out = _opt(run_cli, "--lower-to-tileas", "--schedule", "--arch", "sm_90a", "--num-stages", "4")
    assert _stages(out) == [4] and "agent_switch" in out
    out = _opt(run_cli, "--lower-to-tileas", "--schedule", "--arch=sm_80", "--num-stages=3")
    assert _stages(out) == [3] and "agent_switch" not in out


def test_cli_num_warps(run_cli):
    out = _opt(run_cli, "--lower-to-tileas", "--schedule", "--num-warps", "8", path="examples/matmul_f16_tiled.mlir")
    assert "max_regs = array<i32: 40, 232>, num_agents_per_group = 2 : i32" in out


def test_cli_explicit_pass_options_win(run_cli):
    out = _opt(run_cli, "--lower-to-tileas", "--schedule=num-stages=2", "--num-stages", "4")
    assert _stages(out) == [2]
    out = _opt(run_cli, "--pass-pipeline=builtin.module(lower-to-tileas{arch=sm_80},schedule{num-stages=1})",
               "--arch", "sm_90a", "--num-stages", "4")
    # lower-to-tileas keeps its sm_80; schedule takes --arch but keeps num-stages=1
    assert 'nv_tileas.target = "sm_80"' in out and _stages(out) == [1] and "agent_switch" in out


def test_cli_target_flags_set_pass_options():
    import argparse
    from tilec.passes.cli import build_pipeline
    from tilec.passes.pipeline import Nest

    def passes(**kw):
        args = argparse.Namespace(pass_pipeline=kw.pop("pipeline", None), pass_flags=kw.pop("flags", []), **kw)
        out = []

        def walk(n):
            for i in n.items:
                walk(i) if isinstance(i, Nest) else out.append((i.name, dict(i.options)))
        walk(build_pipeline(args))
        return out
    got = passes(flags=[("lower-to-tileas", None), ("canonicalize", None), ("schedule", "num-warps=8")],
                 arch="sm_80", num_stages=5, num_warps=4)
    assert got[0] == ("lower-to-tileas", {"arch": "sm_80"})
    assert got[1][0] == "canonicalize"
    rest = {"tma": True, "merge-agents": True, "sink-epilogue": True, "fork-once": True, "smem-budget": 0,
            "wgmma": "auto", "occupancy": 0, "tma-store": True, "operand-copies": True, "pipeline": True,
            "auto-warps": False}
    assert got[2] == ("schedule", {"arch": "sm_80", "num-stages": 5, "num-warps": 8, **rest})
    nested = passes(pipeline="builtin.module(cuda_tile.module(schedule))", arch="sm_90a", num_stages=None,
                    num_warps=None)
    assert nested == [("schedule", {"arch": "sm_90a", "num-stages": 0, "num-warps": 4, **rest})]
    # without the flags the passes keep their own defaults
    assert passes(flags=[("schedule", None)])[0][1] == {"arch": "", "num-stages": 0, "num-warps": 4, **rest}


@pytest.mark.parametrize("flags,msg", [(("--arch", "sm_70"), "unknown target 'sm_70'"),
                                       (("--num-stages", "0"), "--num-stages must be at least 1"),
                                       (("--num-warps", "-4"), "--num-warps must be at least 1")])
def test_cli_bad_target_flags(run_cli, flags, msg):
    from conftest import ROOT
    import os
    rc, out, err = run_cli("opt", os.path.join(ROOT, MATMUL), "--lower-to-tileas", "--schedule", *flags)
    assert rc != 0 and msg in err and "Traceback" not in err


CAUSAL = "examples/cutile/attention_causal_f16.mlir"


def _causal_args():
    rng = np.random.default_rng(3)
    q = rng.standard_normal((2, 128, 64)).astype(np.float16)
    k = rng.standard_normal((2, 100, 64)).astype(np.float16)
    v = rng.standard_normal((2, 100, 64)).astype(np.float16)
    return arr(q) + arr(k) + arr(v) + arr(np.zeros_like(q)) + [np.float32(0.18)]


@pytest.mark.parametrize("merge", [True, False])
def test_consecutive_k_loops_share_one_agent_switch(merge):
    """cuTile splits a causal attention loop in two; on sm_90a both halves run in one
    agent_switch (the accumulators stay in the consumer agent between them) unless
    merge-agents=false; merged, the second half continues the first half's K and V
    pipelines (one ring of stage buffers each, its iterators starting where the first
    loops' ended). Either way the scheduled IR computes what the source does."""
    ok, ops, engine = lower(read(CAUSAL), "sm_90a", merge_agents=str(merge).lower())
    assert ok, errors(engine)
    text = text_of(ops)
    assert text.count("agent_switch") == (1 if merge else 2)
    assert text.count("create_pipeline") == (2 if merge else 4)
    assert text.count("alloc_tensor") == (2 if merge else 4)
    same(both(CAUSAL, (2, 2), _causal_args, "sm_90a", merge_agents=str(merge).lower()), rtol=2e-2, atol=2e-2)


def test_loops_merge_across_a_division_between_them(tmp_path):
    """An integer division between the two loops (gemma attention computes its
    second loop's bounds so) has no memory effects: it moves before the first
    agent_switch like pure ops, though it is not speculatable, and the loops
    still share one switch. The scheduled IR computes what the source does."""
    src = read(CAUSAL)
    old = "%for_46:3 = for %loopIdx in (%14 to %12,"
    assert old in src
    src = src.replace(old, "%lb2 = divi %14, %cst_1_i32_38 signed rounding<negative_inf> : tile<i32>\n    "
                           "%for_46:3 = for %loopIdx in (%lb2 to %12,")
    path = tmp_path / "causal_divi.mlir"
    path.write_text(src)
    ok, ops, engine = lower(src, "sm_90a")
    assert ok, errors(engine)
    assert text_of(ops).count("agent_switch") == 1
    same(both(str(path), (2, 2), _causal_args, "sm_90a"), rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("arch", ARCHES)
def test_a_gathered_operand_is_staged_by_the_pipeline(arch):
    """The gathered A of a MoE-style K loop goes through the pipeline like B
    (tests/test_staged_gathers.py has the rest); the scheduled IR still computes
    what the source does (the evaluator against the interpreter)."""
    src = read("examples/gather_matmul_f16.mlir")
    ok, ops, engine = lower(src, arch)
    assert ok, errors(engine)
    produced = text_of(ops).split("nv_tileas.async.pipeline.produce_one")[1:]
    assert any("nv_tileas.gather_load" in p.split("pipeline.yield")[0] for p in produced)

    def make():
        r = np.random.default_rng(3)
        return [r.standard_normal((128, 128)).astype(np.float16), r.permutation(128)[:64].astype(np.int32),
                r.standard_normal((128, 64)).astype(np.float16), np.zeros((64, 64), np.float32)]
    same(both("examples/gather_matmul_f16.mlir", (1, 1, 1), make, arch), rtol=1e-5, atol=1e-5)
