"""A tcgen05 dot reads an A made from another dot's accumulator from tensor
memory (codegen/ptx/ops_tcgen05.py `a_columns`, `_store_a`): attention's P.

The tile the IR lays out as an accumulator (`#nv_tileas<layout tmem>`) is held
by rows, one per TMEM lane, so its threads write it with tcgen05.st (16-bit
elements two to a 32-bit column, tf32 one) and the MMA names it `[a-tmem]`:
no shared-memory copy. An 8-bit P keeps its copy (more spills, measured). Checked here without a GPU: the PTX's form,
the shared memory it saves, ptxas, and the simulator (tests/ptxsim/tcgen05.py
models A in TMEM from the PTX ISA) against the interpreter."""
from __future__ import annotations

import re
import shutil
import subprocess

import ml_dtypes
import numpy as np
import pytest

import ptxsim
from tilec.codegen.ptx import compile_text
from tilec.interp import launch, parse_module

PTXAS = shutil.which("ptxas")
NP = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f8E4M3FN": ml_dtypes.float8_e4m3fn, "f32": np.float32}
A_TMEM = re.compile(r"tcgen05\.mma\.cta_group::1\.kind::(\w+) \t\[%r\d+\], \[%r\d+\], %rd\d+, (\d+), %p\d+;")

# S = X Y (f32 in tensor memory); P = S in the second dot's type; O = P Z + 1.5.
# D is the first dot's K, K the second's (S's columns), PT the type of P and Z.
_CHAIN = """cuda_tile.module @m {
  entry @k(%x: tile<ptr<ET>>, %y: tile<ptr<ET>>, %z: tile<ptr<PT>>, %o: tile<ptr<f32>>) {
    %tx = make_tensor_view %x, shape = [M, D], strides = [D, 1] : tensor_view<MxDxET, strides=[D,1]>
    %ty = make_tensor_view %y, shape = [D, K], strides = [K, 1] : tensor_view<DxKxET, strides=[K,1]>
    %tz = make_tensor_view %z, shape = [K, N], strides = [N, 1] : tensor_view<KxNxPT, strides=[N,1]>
    %to = make_tensor_view %o, shape = [M, N], strides = [N, 1] : tensor_view<MxNxf32, strides=[N,1]>
    %px = make_partition_view %tx : partition_view<tile=(MxD), tensor_view<MxDxET, strides=[D,1]>>
    %py = make_partition_view %ty : partition_view<tile=(DxK), tensor_view<DxKxET, strides=[K,1]>>
    %pz = make_partition_view %tz : partition_view<tile=(KxN), tensor_view<KxNxPT, strides=[N,1]>>
    %po = make_partition_view %to : partition_view<tile=(MxN), tensor_view<MxNxf32, strides=[N,1]>>
    %c0 = constant <i32: 0> : tile<i32>
    %vx, %t0 = load_view_tko weak %px[%c0, %c0] : partition_view<tile=(MxD), tensor_view<MxDxET, strides=[D,1]>>, tile<i32> -> tile<MxDxET>, token
    %vy, %t1 = load_view_tko weak %py[%c0, %c0] : partition_view<tile=(DxK), tensor_view<DxKxET, strides=[K,1]>>, tile<i32> -> tile<DxKxET>, token
    %vz, %t2 = load_view_tko weak %pz[%c0, %c0] : partition_view<tile=(KxN), tensor_view<KxNxPT, strides=[N,1]>>, tile<i32> -> tile<KxNxPT>, token
    %s0 = constant <f32: 0.0> : tile<MxKxf32>
    %s = mmaf %vx, %vy, %s0 : tile<MxDxET>, tile<DxKxET>, tile<MxKxf32>
    %p = ftof %s : tile<MxKxf32> -> tile<MxKxPT>
    %acc = constant <f32: 1.5> : tile<MxNxf32>
    %r = mmaf %p, %vz, %acc : tile<MxKxPT>, tile<KxNxPT>, tile<MxNxf32>
    %t3 = store_view_tko weak %r, %po[%c0, %c0] : tile<MxNxf32>, partition_view<tile=(MxN), tensor_view<MxNxf32, strides=[N,1]>>, tile<i32> -> token
    return
  }
}
"""


def _chain(et, pt, m, d, k, n, text=_CHAIN):
    for key, val in (("M", m), ("D", d), ("K", k), ("N", n)):
        text = text.replace(key, str(val))
    return text.replace("ET", et).replace("PT", pt)      # after the shapes: f8E4M3FN has capitals


def _shared_bytes(ptx):
    """The kernel's shared memory (ptxas -v), or None without ptxas."""
    if PTXAS is None:
        return None
    return _ptxas(ptx)[1]


def _ptxas(ptx):
    """(ptxas -v's report, the shared bytes it states) of `ptx` on sm_100a."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        f = f"{d}/k.ptx"
        open(f, "w").write(ptx)
        r = subprocess.run([PTXAS, "-arch=sm_100a", "-v", f, "-o", f"{d}/k.cubin"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    smem = re.search(r"(\d+) bytes smem", r.stderr)
    return r.stderr, int(smem[1]) if smem else 0


@pytest.mark.parametrize("et,pt,m,d,k,n,warps", [
    ("f16", "f16", 128, 32, 64, 64, 4),         # one warpgroup: P's 64 columns in 32 TMEM columns
    ("bf16", "bf16", 256, 32, 128, 64, 8),      # two warpgroups, one 128-row block each
    ("f16", "f16", 128, 32, 128, 64, 8),        # two warpgroups split P's columns of one row block
    ("f16", "f32", 128, 16, 32, 32, 4),         # tf32 P (f32 registers into kind::tf32): one to a column
], ids=["f16", "bf16-2wg-rows", "f16-2wg-cols", "tf32"])
def test_p_goes_to_tensor_memory(et, pt, m, d, k, n, warps):
    # tf32: the second dot takes P and Z converted to tf32
    text = _tf32_chain(m, d, k, n) if pt == "f32" else _chain(et, pt, m, d, k, n)
    ptx = compile_text(text, "sm_100a", num_warps=warps)
    es = {"f16": 2, "bf16": 2, "f32": 4}[pt]
    steps = k * es // 32
    forms = A_TMEM.findall(ptx)
    assert len(forms) == steps * (m // 128), ptx.count("tcgen05.mma")
    idesc = int(forms[0][1])
    assert not idesc >> 15 & 1          # an A in tensor memory is K-major
    # S's elements are small integers (exact in f32 however the MMAs round), so P is the
    # same in both runs and only the second dot's summation order may differ
    rng = np.random.default_rng(7)
    x = rng.integers(-1, 2, (m, d)).astype(NP[et])
    y = rng.integers(-1, 2, (d, k)).astype(NP[et])
    z = (rng.standard_normal((k, n)) / 2).astype(NP[pt])
    want = np.zeros((m, n), np.float32)
    launch(parse_module(text, "chain.mlir"), None, (1, 1, 1), [x.copy(), y.copy(), z.copy(), want])
    got = np.zeros((m, n), np.float32)
    ptxsim.run_ptx(ptx, "k", (1, 1, 1), [x, y, z, got])
    scale = np.abs(want).max()
    assert np.allclose(got, want, rtol=1e-5, atol=1e-5 * scale)
    if PTXAS is not None:
        _ptxas(ptx)


_TF32_TAIL = """    %p = ftof %s : tile<MxKxf32> -> tile<MxKxtf32>
    %z32 = ftof %vz : tile<KxNxf32> -> tile<KxNxtf32>
    %acc = constant <f32: 1.5> : tile<MxNxf32>
    %r = mmaf %p, %z32, %acc : tile<MxKxtf32>, tile<KxNxtf32>, tile<MxNxf32>"""


def _tf32_chain(m, d, k, n):
    text = _CHAIN.replace("""    %p = ftof %s : tile<MxKxf32> -> tile<MxKxPT>
    %acc = constant <f32: 1.5> : tile<MxNxf32>
    %r = mmaf %p, %vz, %acc : tile<MxKxPT>, tile<KxNxPT>, tile<MxNxf32>""", _TF32_TAIL)
    return _chain("f16", "f32", m, d, k, n, text)


def test_p_takes_no_shared_memory():
    """The A copy is gone: the chained kernel's shared memory is what the same
    dots take when P is made elsewhere (a load), not P's 16 KB more."""
    text = _chain("f16", "f16", 128, 32, 64, 64)
    ptx = compile_text(text, "sm_100a")
    assert "st.shared" not in ptx.split("tcgen05.commit")[1].split("tcgen05.mma")[0]
    assert len(A_TMEM.findall(ptx)) == 4
    # P's columns follow D's: D 64 + P 32 columns, allocated as 128
    assert set(re.findall(r"tcgen05\.alloc\.cta_group::1\.sync\.aligned\.shared::cta\.b32 \t\[[^\]]+\], (\d+);", ptx)) == {"128"}
    got = _shared_bytes(ptx)
    if got is not None:
        # X, Y, Z copies: 128x32 + 32x64 + 64x64 f16 = 8 + 4 + 8 KB and the small words; no 16 KB P
        assert got < 24 * 1024, got


def test_short_of_shared_memory_the_schedule_and_the_emitter_agree():
    """compile_ops' fallback (layout changes through a small scratch) tells the
    schedule too (`schedule{operand-copies=false}`): a dot that would copy an
    operand (here B, loaded outside any pipeline) is then named an mma.sync
    accumulator in the IR, as the code generator emits it, instead of a tensor
    memory one the emitter would convert away through shared memory."""
    from tilec.compiler import lower_and_schedule
    from tilec.frontend import parse_and_verify
    from tilec.ir.diagnostics import DiagnosticEngine
    from tilec.syntax.printer import print_ops
    text = _chain("f16", "f16", 128, 32, 64, 64)
    named = {}
    for copies in (True, False):
        engine = DiagnosticEngine()
        ops = lower_and_schedule(parse_and_verify(text, "chain.mlir", engine), engine, "sm_100a", 4, None,
                                 operand_copies=copies)
        named[copies] = print_ops(ops).count("#nv_tileas<layout tmem>")
    assert named[True] and not named[False]


def test_an_8_bit_p_is_copied():
    """fp8 P (kind::f8f6f4) goes to shared memory as before: packing four to a
    column kept more registers live (TileGym's fp8 FMHA spilled 1.7 KB more)."""
    text = _chain("f16", "f8E4M3FN", 128, 32, 64, 32)
    ptx = compile_text(text, "sm_100a")
    assert not A_TMEM.findall(ptx) and ptx.count("tcgen05.mma.cta_group::1.kind::f8f6f4") == 2
    rng = np.random.default_rng(7)
    x = rng.integers(-1, 2, (128, 32)).astype(np.float16)
    y = rng.integers(-1, 2, (32, 64)).astype(np.float16)
    z = (rng.standard_normal((64, 32)) / 2).astype(NP["f8E4M3FN"])
    want = np.zeros((128, 32), np.float32)
    launch(parse_module(text, "chain.mlir"), None, (1, 1, 1), [x.copy(), y.copy(), z.copy(), want])
    got = np.zeros((128, 32), np.float32)
    ptxsim.run_ptx(ptx, "k", (1, 1, 1), [x, y, z, got])
    assert np.allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


_CONVERTED_A = """    %x16 = ftof %x : tile<MxKxf32> -> tile<MxKxf16>
    %acc = constant <f32: 1.5> : tile<MxNxf32>
    %r = mmaf %x16, %y, %acc : tile<MxKxf16>, tile<KxNxf16>, tile<MxNxf32>"""


@pytest.mark.parametrize("m,k,n,warps", [(128, 64, 64, 4), (256, 32, 64, 8), (128, 64, 128, 8)])
def test_a_computed_in_another_layout_is_converted_into_rows(m, k, n, warps):
    """An A computed from a load (an f32 tile rounded to f16) is held in the
    load's layout; it is moved into the accumulator layout (a thread per row)
    and then written to tensor memory like P."""
    from test_ptx_sim import _loaded_dot
    text = _loaded_dot("f16", "f32", _CONVERTED_A, m, k, n)
    text = text.replace("%a: tile<ptr<f16>>", "%a: tile<ptr<f32>>").replace(
        f"tensor_view<{m}x{k}xf16", f"tensor_view<{m}x{k}xf32").replace(f"tile<{m}x{k}xf16>, token", f"tile<{m}x{k}xf32>, token")
    ptx = compile_text(text, "sm_100a", num_warps=warps)
    assert len(A_TMEM.findall(ptx)) == k * 2 // 32 * (m // 128)
    rng = np.random.default_rng(1)
    a = rng.integers(-2, 3, (m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float16)
    want = np.zeros((m, n), np.float32)
    launch(parse_module(text, "conv.mlir"), None, (1, 1, 1), [a.copy(), b.copy(), want])
    got = np.zeros((m, n), np.float32)
    ptxsim.run_ptx(ptx, "k", (1, 1, 1), [a, b, got])
    assert np.allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
