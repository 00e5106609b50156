"""nv_tileas.dot on sm_100a's tcgen05.mma with the accumulator in tensor memory
(codegen/ptx/ops_tcgen05.py; issue 23). No Blackwell GPU is lent here: the
simulator's tcgen05 model (tests/ptxsim/tcgen05.py, written from the PTX ISA
apart from the emitter) and ptxas are the checks.

- single dots of every kind tcgen05 has (f16, bf16, tf32, e4m3 x e5m2, s8/u8)
  with one and two warpgroups (rows or columns split), equal the interpreter and
  exact arithmetic;
- the shapes that do not fit stay on mma.sync;
- a K loop keeps its accumulator in tensor memory (no tcgen05.ld/st inside the
  loop) and one commit in flight (the leader waits for the previous
  iteration's and releases its slots for the group), a zero accumulator
  constant is never stored, and every allocation is freed (the simulator
  reports a CTA that exits holding columns);
- the layout attribute `#nv_tileas<layout tmem>` prints, parses and is named
  only on the tcgen05 targets.
The examples themselves run on sm_100a in tests/test_ptx_sim.py."""
from __future__ import annotations

import os
import re
import shutil
import subprocess

import ml_dtypes
import numpy as np
import pytest

from test_ptx_sim import _I8_BODY, _MMAF_BODY, _TF32_BODY, _loaded_dot, assert_near_exact, dot_runs

from tilec.codegen.ptx import compile_text

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PTXAS = shutil.which("ptxas")
NP = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32,
      "f8E4M3FN": ml_dtypes.float8_e4m3fn, "f8E5M2": ml_dtypes.float8_e5m2}


def assemble(ptx, tmp_path, spills_ok=False):
    """ptxas -arch=sm_100a takes `ptx` (without spilling, unless `spills_ok`)."""
    if PTXAS is None:
        return
    f = tmp_path / "k.ptx"
    f.write_text(ptx)
    r = subprocess.run([PTXAS, "-arch=sm_100a", "-v", str(f), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert spills_ok or " 0 bytes spill stores" in r.stderr


# Q stands for the fp8 type until the shape letters are substituted (mmaf takes one type)
_FP8_BODY = _MMAF_BODY.replace("ET", "Q").replace("CT", "f32")


@pytest.mark.parametrize("m,k,n,et,warps", [
    (128, 64, 64, "f16", 4),        # one warpgroup, four 16-wide K steps
    (128, 32, 256, "bf16", 8),      # the widest N, each warpgroup reading 128 columns of it
    (256, 32, 64, "f16", 8),        # two warpgroups split the two 128-row blocks
    (128, 64, 128, "f16", 8),       # two warpgroups split the columns of one row block
    (128, 32, 32, "f32", 4),        # tf32 (kind::tf32): 8-wide K steps
    (64, 32, 64, "f16", 4),         # M = 64: two MMAs, B's column halves in lanes 0-15 and 16-31
    (64, 64, 128, "bf16", 8),       # M = 64 over two warpgroups (each a quarter of the columns)
], ids=["f16", "bf16-n256", "2wg-rows", "2wg-cols", "tf32", "m64", "m64-2wg"])
def test_single_dot_matches_the_interpreter(m, k, n, et, warps, tmp_path):
    body = _TF32_BODY if et == "f32" else _MMAF_BODY
    text = _loaded_dot(et, "f32", body, m, k, n)
    ptx = compile_text(text, "sm_100a", num_warps=warps)
    kind = "tf32" if et == "f32" else "f16"
    steps = k * (4 if et == "f32" else 2) // 32
    assert ptx.count(f"tcgen05.mma.cta_group::1.kind::{kind}") == steps * (m // 128 if m >= 128 else 2)
    assert "mma.sync" not in ptx and ptx.count("tcgen05.alloc") == ptx.count("tcgen05.dealloc") == 1
    rng = np.random.default_rng(3)
    a = rng.standard_normal((m, k)).astype(NP[et])
    b = rng.standard_normal((k, n)).astype(NP[et])
    got, want = dot_runs(text, ptx, a, b, np.float32)
    # tf32 keeps 10 mantissa bits of each operand: the interpreter's rounding and the
    # tensor core's truncation differ by an operand ulp
    assert_near_exact(a, b, (got, want), tol=2.0 ** -9 if et == "f32" else 1e-6)
    assemble(ptx, tmp_path)


@pytest.mark.parametrize("et,code", [("f8E4M3FN", 0), ("f8E5M2", 1)])
def test_fp8_dot(et, code, tmp_path):
    """kind::f8f6f4: the A and B type fields of the instruction descriptor
    (bits 7-9, 10-12) say e4m3 (0) or e5m2 (1); D is f32 (bits 4-5)."""
    m, k, n = 128, 64, 32
    text = _loaded_dot("Q", "f32", _FP8_BODY, m, k, n).replace("Q", et)
    ptx = compile_text(text, "sm_100a")
    idesc = int(re.search(r"tcgen05\.mma\.cta_group::1\.kind::f8f6f4 \t\[%r\d+\], %rd\d+, %rd\d+, (\d+)", ptx)[1])
    assert (idesc >> 7) & 7 == code and (idesc >> 10) & 7 == code and (idesc >> 4) & 3 == 1
    assert (idesc >> 17) & 63 == n >> 3 and (idesc >> 24) & 31 == m >> 4
    rng = np.random.default_rng(5)
    a = rng.standard_normal((m, k)).astype(NP[et])
    b = rng.standard_normal((k, n)).astype(NP[et])
    assert_near_exact(a, b, dot_runs(text, ptx, a, b, np.float32))
    assemble(ptx, tmp_path, spills_ok=True)       # the 8-bit operand loads (as test_int8_dot)


@pytest.mark.parametrize("signs", [("signed", "signed"), ("unsigned", "signed")])
def test_int8_dot(signs, tmp_path):
    m, k, n = 128, 64, 32
    text = _loaded_dot("i8", "i32", _I8_BODY.replace("SA", signs[0]).replace("SB", signs[1]), m, k, n)
    ptx = compile_text(text, "sm_100a")
    assert "tcgen05.mma.cta_group::1.kind::i8" in ptx
    rng = np.random.default_rng(9)
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    b = rng.integers(-128, 128, (k, n)).astype(np.int8)
    got, want = dot_runs(text, ptx, a, b, np.int32)
    assert np.array_equal(got, want)
    # the 8-bit operand loads spill a few words on every target (sm_80 too): not tcgen05's
    assemble(ptx, tmp_path, spills_ok=True)


@pytest.mark.parametrize("m,k,n,warps", [
    (32, 32, 64, 4),        # M = 32: no tcgen05 shape
    (128, 32, 8, 4),        # N = 8: tcgen05 takes N in 16s here
    (128, 32, 512, 4),      # N over 256
    (128, 256, 128, 4),     # operand copies over the staging limit
], ids=["m64", "n8", "n512", "staging-limit"])
def test_dots_that_do_not_fit_stay_on_mma_sync(m, k, n, warps):
    ptx = compile_text(_loaded_dot("f16", "f32", _MMAF_BODY, m, k, n), "sm_100a", num_warps=warps)
    assert "tcgen05" not in ptx and "mma.sync" in ptx


def _example(rel):
    with open(os.path.join(ROOT, "examples", rel)) as fh:
        return fh.read()


def _loop_body(ptx):
    """The consumer's K loop: from the last for_head label that the tcgen05.mma follows to its end."""
    at = ptx.index("tcgen05.mma")
    head = ptx.rindex("$L_for_head", 0, at)
    end = re.search(r"bra \t(\$L_for_end_\d+);", ptx[head:])[1]      # the loop's exit test
    return ptx[head:ptx.index(end + ":", head)]


def test_a_k_loop_keeps_its_accumulator_in_tensor_memory(tmp_path):
    ptx = compile_text(_example("cutile/matmul_f16_aligned.mlir"), "sm_100a")
    body = _loop_body(ptx)
    assert body.count("tcgen05.mma") == 4 and "tcgen05.commit" in body
    for absent in ("tcgen05.ld", "tcgen05.st", "tcgen05.alloc", "tcgen05.dealloc", "bar.sync"):
        assert absent not in body, absent
    # one commit in flight: the leader releases the previous iteration's A and B slots for
    # the group's 4 warps once that iteration's commit is done (the slot waits, then this)
    assert len(re.findall(r"mbarrier\.arrive\.shared\.b64 \t%rd\d+, \[%r\d+\], 4;", body)) == 2
    # (plus, for the A and B slots the producer's other warps copied at the entry, the
    # first round's wait on their `landed` barriers: first_fills.py)
    assert body.count("mbarrier.try_wait") == 3 + 2 and body.count("fence.proxy.async") == 2
    # in before the loop, out after it, once each; the A and B slots are read in place
    assert ptx.count("tcgen05.alloc") == ptx.count("tcgen05.dealloc") == 1
    assert "tcgen05" in ptx[:ptx.index(body)] and "tcgen05.ld" in ptx[ptx.index(body) + len(body):]
    assemble(ptx, tmp_path)


def test_a_zero_accumulator_is_not_stored():
    ptx = compile_text(_example("cutile/attention_m128_f16_aligned.mlir"), "sm_100a")
    # S = Q K^T starts from zero (enable-input-d false); O += P V goes in with tcgen05.st
    assert ptx.count("tcgen05.alloc") == 2 and "tcgen05.st" in ptx
    first = ptx[ptx.index("tcgen05.alloc"):ptx.index("tcgen05.dealloc")]
    assert "tcgen05.st" not in first and "not.pred" in first


def test_the_layout_attribute():
    from tilec.dialects.nv_tileas.layout_attr import LayoutAttr
    from tilec.dialects.nv_tileas.layouts import TmemAcc, tmem_acc
    lay = tmem_acc((256, 64), 256)
    assert isinstance(lay, TmemAcc) and LayoutAttr.of(lay).text() == "#nv_tileas<layout tmem>"
    assert LayoutAttr("tmem").layout_for((128, 128), 256).col_groups == 2
    assert tmem_acc((32, 64), 128) is None and tmem_acc((128, 64), 384) is None
    from tilec.frontend import parse_and_verify
    from tilec.ir.diagnostics import DiagnosticEngine
    ptx90 = compile_text(_example("cutile/matmul_f16_aligned.mlir"), "sm_90a")
    assert "tcgen05" not in ptx90 and "wgmma" in ptx90
    src = """cuda_tile.module @m {
  entry @k() {
    %c = constant <f32: 0.0> : tile<128x64xf32>
    %d = nv_tileas.convert_layout %c {layout = #nv_tileas<layout tmem>} : tile<128x64xf32> -> tile<128x64xf32>
    return
  }
}
"""
    engine = DiagnosticEngine()
    assert parse_and_verify(src, "t.mlir", engine) is not None, engine.render() if hasattr(engine, "render") else ""


_TWO_DOTS = """cuda_tile.module @m {
  entry @k(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>) {
    %ta = make_tensor_view %a, shape = [128, 32], strides = [32, 1] : tensor_view<128x32xf16, strides=[32,1]>
    %tb = make_tensor_view %b, shape = [32, 32], strides = [32, 1] : tensor_view<32x32xf16, strides=[32,1]>
    %tc = make_tensor_view %c, shape = [128, 128], strides = [128, 1] : tensor_view<128x128xf32, strides=[128,1]>
    %pa = make_partition_view %ta : partition_view<tile=(128x32), tensor_view<128x32xf16, strides=[32,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(32x32), tensor_view<32x32xf16, strides=[32,1]>>
    %pc = make_partition_view %tc : partition_view<tile=(128x128), tensor_view<128x128xf32, strides=[128,1]>>
    %z = constant <i32: 0> : tile<i32>
    %x, %t0 = load_view_tko weak %pa[%z, %z] : partition_view<tile=(128x32), tensor_view<128x32xf16, strides=[32,1]>>, tile<i32> -> tile<128x32xf16>, token
    %y, %t1 = load_view_tko weak %pb[%z, %z] : partition_view<tile=(32x32), tensor_view<32x32xf16, strides=[32,1]>>, tile<i32> -> tile<32x32xf16>, token
    %zero = constant <f32: 0.0> : tile<128x32xf32>
    %s = mmaf %x, %y, %zero : tile<128x32xf16>, tile<32x32xf16>, tile<128x32xf32>
    %h = ftof %s : tile<128x32xf32> -> tile<128x32xf16>
    %ht = permute %h [1, 0] : tile<128x32xf16> -> tile<32x128xf16>
    %acc = constant <f32: 0.0> : tile<128x128xf32>
    %r = mmaf %x, %ht, %acc : tile<128x32xf16>, tile<32x128xf16>, tile<128x128xf32>
    %t2 = store_view_tko weak %r, %pc[%z, %z] : tile<128x128xf32>, partition_view<tile=(128x128), tensor_view<128x128xf32, strides=[128,1]>>, tile<i32> -> token
    return
  }
}
"""


def test_every_allocation_takes_the_groups_most_columns(tmp_path):
    """The PTX ISA: the columns a CTA allocates must not grow from one tcgen05.alloc
    to the next. A 128x32 dot before a 128x128 one allocates 128 columns too."""
    ptx = compile_text(_TWO_DOTS, "sm_100a")
    allocs = re.findall(r"tcgen05\.alloc\.cta_group::1\.sync\.aligned\.shared::cta\.b32 \t\[[^\]]+\], (\d+);", ptx)
    assert allocs == ["128", "128"]
    rng = np.random.default_rng(2)
    a = (rng.standard_normal((128, 32)) / 4).astype(np.float16)
    b = (rng.standard_normal((32, 32)) / 4).astype(np.float16)
    c = np.zeros((128, 128), np.float32)
    want = c.copy()
    from tilec.interp import launch, parse_module
    launch(parse_module(_TWO_DOTS, "two.mlir"), None, (1, 1, 1), [a.copy(), b.copy(), want])
    import ptxsim
    ptxsim.run_ptx(ptx, "k", (1, 1, 1), [a, b, c])
    assert np.allclose(c, want, rtol=1e-5, atol=1e-5)
    assemble(ptx, tmp_path)


def test_no_wgmma_keeps_every_dot_on_mma_sync(tmp_path):
    """`tilec compile --no-wgmma` means mma.sync only: no tcgen05 on sm_100a either."""
    ptx = compile_text(_example("cutile/matmul_f16_aligned.mlir"), "sm_100a", wgmma=False)
    assert "tcgen05" not in ptx and "mma.sync" in ptx
    assemble(ptx, tmp_path, spills_ok=True)     # 12 bytes, as sm_90a's --no-wgmma build of it
