"""A K loop that stores inside its body is pipelined when no token orders its
memory ops (schedule/analysis.py, conversion/common.UNORDERED).

The spec leaves the order of two memory ops undefined unless tokens connect
them. Tokens do not travel into nv_tileas, so the lowering marks each weak op
whose token is fresh and whose result token nothing reads `nv_tileas.unordered`;
a loop whose stores and reads all carry it may load later iterations ahead of
this iteration's stores (TileGym's chunked recurrence writes a tile per chunk).
A store whose token a later load takes keeps the loop unpipelined."""
from __future__ import annotations

import numpy as np
import pytest

import ptxsim
from tilec.codegen.ptx import compile_text
from tilec.compiler import lower_and_schedule
from tilec.frontend import parse_and_verify
from tilec.interp import launch, parse_module
from tilec.ir.diagnostics import DiagnosticEngine
from tilec.syntax.printer import print_ops

# out[k] = (A[:, :32k+32] @ B[:32k+32, :]) as f32, one 64x64 tile per K step; C the last.
KERNEL = """cuda_tile.module @m {
  entry @partial(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %o: tile<ptr<f32>>) {
    %t0 = make_token : token
    %ta = make_tensor_view %a, shape = [64, 128], strides = [128, 1] : tensor_view<64x128xf16, strides=[128,1]>
    %tb = make_tensor_view %b, shape = [128, 64], strides = [64, 1] : tensor_view<128x64xf16, strides=[64,1]>
    %to = make_tensor_view %o, shape = [256, 64], strides = [64, 1] : tensor_view<256x64xf32, strides=[64,1]>
    %pa = make_partition_view %ta : partition_view<tile=(64x32), tensor_view<64x128xf16, strides=[128,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(32x64), tensor_view<128x64xf16, strides=[64,1]>>
    %po = make_partition_view %to : partition_view<tile=(64x64), tensor_view<256x64xf32, strides=[64,1]>>
    %z = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %four = constant <i32: 4> : tile<i32>
    %acc0 = constant <f32: 0.0> : tile<64x64xf32>
    %res = for %k in (%z to %four, step %one) : tile<i32> iter_values(%acc = %acc0) -> (tile<64x64xf32>) {
      %at, %t1 = load_view_tko weak %pa[%z, %k] token = %t0 : partition_view<tile=(64x32), tensor_view<64x128xf16, strides=[128,1]>>, tile<i32> -> tile<64x32xf16>, token
      %bt, %t2 = load_view_tko weak %pb[%k, %z] token = %t0 : partition_view<tile=(32x64), tensor_view<128x64xf16, strides=[64,1]>>, tile<i32> -> tile<32x64xf16>, token
      %d = mmaf %at, %bt, %acc : tile<64x32xf16>, tile<32x64xf16>, tile<64x64xf32>
      %t3 = store_view_tko weak %d, %po[%k, %z] token = %t0 : tile<64x64xf32>, partition_view<tile=(64x64), tensor_view<256x64xf32, strides=[64,1]>>, tile<i32> -> token
      CHAINED
      continue %d : tile<64x64xf32>
    }
    return
  }
}
"""
# a load that takes the store's token: ordered after it, so the loop keeps program order
CHAINED = ("%again, %t4 = load_view_tko weak %pa[%z, %k] token = %t3 : partition_view<tile=(64x32), "
           "tensor_view<64x128xf16, strides=[128,1]>>, tile<i32> -> tile<64x32xf16>, token")


def scheduled(text, arch):
    engine = DiagnosticEngine()
    ops = lower_and_schedule(parse_and_verify(text, "partial.mlir", engine), engine, arch, 4, None)
    assert ops is not None, [d.message for d in engine.diagnostics]
    return print_ops(ops)


def lowered(text):
    from tilec.passes.manager import PassManager
    from tilec.passes.pipeline import Nest, make_pass
    engine = DiagnosticEngine()
    ops = parse_and_verify(text, "partial.mlir", engine)
    pm = PassManager(Nest("builtin.module", [make_pass("lower-to-tileas", {"arch": "sm_90a"})]), verify_each=True)
    assert pm.run(ops, engine), [d.message for d in engine.diagnostics]
    return print_ops(pm.result_ops)


def test_fresh_tokens_mark_the_memory_ops_unordered():
    text = lowered(KERNEL.replace("CHAINED", ""))
    mem = [l for l in text.splitlines() if "nv_tileas.tiled_load" in l or "nv_tileas.tiled_store" in l]
    assert len(mem) == 3 and all("nv_tileas.unordered" in l for l in mem)
    chained = lowered(KERNEL.replace("CHAINED", CHAINED))
    stores = [l for l in chained.splitlines() if "nv_tileas.tiled_store" in l]
    assert stores and not any("nv_tileas.unordered" in l for l in stores)      # its token is read


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_a_loop_with_unordered_stores_is_pipelined(arch):
    text = scheduled(KERNEL.replace("CHAINED", ""), arch)
    assert text.count("create_pipeline") == 2
    consumer = text.split("nv_tileas.async.pipeline.consume_one", 1)[1]
    assert "nv_tileas.tiled_store" in consumer.split("scf.yield")[0]


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_a_store_a_later_load_is_ordered_after_keeps_the_loop(arch):
    assert "create_pipeline" not in scheduled(KERNEL.replace("CHAINED", CHAINED), arch)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a", "sm_100a"])
def test_pipelined_loop_with_stores_simulates_equal(arch):
    src = KERNEL.replace("CHAINED", "")
    rng = np.random.default_rng(11)
    a = rng.integers(-3, 4, (64, 128)).astype(np.float16)
    b = rng.integers(-3, 4, (128, 64)).astype(np.float16)
    want = np.zeros((256, 64), np.float32)
    launch(parse_module(src, "partial.mlir"), None, (1, 1, 1), [a.copy(), b.copy(), want])
    got = np.zeros((256, 64), np.float32)
    ptxsim.run_ptx(compile_text(src, arch), "partial", (1, 1, 1), [a, b, got])
    exact = np.concatenate([a[:, :32 * k + 32].astype(np.float32) @ b[:32 * k + 32].astype(np.float32)
                            for k in range(4)])
    np.testing.assert_array_equal(want, exact)
    np.testing.assert_array_equal(got, want)


def test_a_kernel_no_pipelined_form_fits_compiles_unpipelined(monkeypatch):
    """compile_ops' last fallback: when every pipelined attempt overflows shared
    memory (here: emission refuses any scheduled IR with a pipeline), the loops
    keep their synchronous loads, as tileiras compiles such kernels, with a
    warning that says so. TileGym's chunked recurrence `__6` took that path
    once its loop with stores became pipelinable (316 KB at the least)."""
    import tilec.codegen.ptx as codegen
    from tilec.codegen.ptx import SharedMemoryOverflow
    from tilec.compiler import compile_ops
    from tilec.syntax.printer import print_ops as show
    real = codegen.emit_ptx

    def emit(ops, *args, **kw):
        if "create_pipeline" in show(ops):
            entry = next(op for top in ops for op in top.walk() if op.name == "cuda_tile.entry")
            raise SharedMemoryOverflow(entry, "too much", 300000, 232448)
        return real(ops, *args, **kw)
    monkeypatch.setattr(codegen, "emit_ptx", emit)
    src = KERNEL.replace("CHAINED", "")
    engine = DiagnosticEngine()
    ptx = compile_ops(parse_and_verify(src, "partial.mlir", engine), engine, "sm_90a",
                      reload=lambda: parse_and_verify(src, "partial.mlir", DiagnosticEngine()))
    assert ptx is not None and "mbarrier" not in ptx
    warned = [d.message for d in engine.diagnostics if d.severity == "warning"]
    assert any(w.endswith("compiled with no loop pipelined") for w in warned), warned
