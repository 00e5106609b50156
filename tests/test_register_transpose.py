"""A transpose of a tile held in registers that only tensor-core dots read is not
moved between threads: the dot stages the tile as it is and reads it
transposed (ldmatrix.trans for an A, ldmatrix for a B; ops_core._permute binds
an unmoved transpose, ops_dot._mma_dot reads it). Any other use still gets the
moved registers (Emitter.regs_of).

The shape of the failure it fixes is TileGym's naive-absorb MLA decode, where
the value tile V (loaded synchronously, its stage too big to pipeline) feeds
the second dot as V^T: it went to shared memory and came back one 16-bit
element per load, then went to shared memory again for the dot.

Checked: the PTX (no 16-bit shared loads for the transpose, the transposing
ldmatrix), and the PTX simulator against the interpreter on sm_90a and sm_80,
for a transposed A, a transposed B, and a transpose with another user too."""
from __future__ import annotations

import numpy as np
import pytest

from tilec.codegen.ptx import compile_text
from tilec.interp import launch, parse_module

try:
    import ptxsim
except ImportError:
    from tests import ptxsim

# X is R x C, W is S x T (f16, row-major); Y (f32) is what the case's body stores.
KERNEL = """cuda_tile.module @m {
  entry @k(%x: tile<ptr<f16>>, %w: tile<ptr<f16>>, %y: tile<ptr<f32>>) {
    %tok = make_token : token
    %vx = make_tensor_view %x, shape = [$R, $C], strides = [$C, 1] : tensor_view<$Rx$Cxf16, strides=[$C,1]>
    %px = make_partition_view %vx : partition_view<tile=($Rx$C), tensor_view<$Rx$Cxf16, strides=[$C,1]>>
    %vw = make_tensor_view %w, shape = [$S, $T], strides = [$T, 1] : tensor_view<$Sx$Txf16, strides=[$T,1]>
    %pw = make_partition_view %vw : partition_view<tile=($Sx$T), tensor_view<$Sx$Txf16, strides=[$T,1]>>
    %vy = make_tensor_view %y, shape = [$M, $N], strides = [$N, 1] : tensor_view<$Mx$Nxf32, strides=[$N,1]>
    %py = make_partition_view %vy : partition_view<tile=($Mx$N), tensor_view<$Mx$Nxf32, strides=[$N,1]>>
    %zero = constant <i32: 0> : tile<i32>
    %tx, %t1 = load_view_tko weak %px[%zero, %zero] token = %tok : partition_view<tile=($Rx$C), tensor_view<$Rx$Cxf16, strides=[$C,1]>>, tile<i32> -> tile<$Rx$Cxf16>, token
    %tw, %t2 = load_view_tko weak %pw[%zero, %zero] token = %tok : partition_view<tile=($Sx$T), tensor_view<$Sx$Txf16, strides=[$T,1]>>, tile<i32> -> tile<$Sx$Txf16>, token
    %acc0 = constant <f32: 0.000000e+00> : tile<$Mx$Nxf32>
    BODY
    %t3 = store_view_tko weak %out, %py[%zero, %zero] token = %tok : tile<$Mx$Nxf32>, partition_view<tile=($Mx$N), tensor_view<$Mx$Nxf32, strides=[$N,1]>>, tile<i32> -> token
    return
  }
}
"""

# Y = X^T W: X (32 x 64) doubled in registers, transposed to the 64 x 32 A; W the 32 x 16 B
A_BODY = """%x2 = addf %tx, %tx : tile<32x64xf16>
    %xt = permute %x2 [1, 0] : tile<32x64xf16> -> tile<64x32xf16>
    %out = mmaf %xt, %tw, %acc0 : tile<64x32xf16>, tile<32x16xf16>, tile<64x16xf32>"""
# Y = X W^T: X the 16 x 64 A; W (32 x 64) doubled, transposed to the 64 x 32 B
B_BODY = """%w2 = addf %tw, %tw : tile<32x64xf16>
    %wt = permute %w2 [1, 0] : tile<32x64xf16> -> tile<64x32xf16>
    %out = mmaf %tx, %wt, %acc0 : tile<16x64xf16>, tile<64x32xf16>, tile<16x32xf32>"""
# Y = X^T W + X^T: the transpose has a second user, which gets it moved
BOTH_BODY = """%x2 = addf %tx, %tx : tile<32x32xf16>
    %xt = permute %x2 [1, 0] : tile<32x32xf16> -> tile<32x32xf16>
    %d = mmaf %xt, %tw, %acc0 : tile<32x32xf16>, tile<32x32xf16>, tile<32x32xf32>
    %xf = ftof %xt : tile<32x32xf16> -> tile<32x32xf32>
    %out = addf %d, %xf : tile<32x32xf32>"""

CASES = {   # name: (body, R, C, S, T, M, N)
    "a": (A_BODY, 32, 64, 32, 16, 64, 16),
    "b": (B_BODY, 16, 64, 32, 64, 16, 32),
    "second_user": (BOTH_BODY, 32, 32, 32, 32, 32, 32),
}


def kernel(case):
    body, r, c, s, t, m, n = CASES[case]
    text = KERNEL.replace("BODY", body)
    for key, val in (("$R", r), ("$C", c), ("$S", s), ("$T", t), ("$M", m), ("$N", n)):
        text = text.replace(key, str(val))
    return text


def arrays(case, seed=0):
    _, r, c, s, t, m, n = CASES[case]
    rng = np.random.default_rng(seed)
    return (rng.integers(-3, 4, (r, c)).astype(np.float16), rng.integers(-3, 4, (s, t)).astype(np.float16),
            np.zeros((m, n), np.float32))


def exact(case, x, w):
    x, w = x.astype(np.float32), w.astype(np.float32)
    if case == "a":
        return (2 * x).T @ w
    if case == "b":
        return x @ (2 * w).T
    return (2 * x).T @ w + (2 * x).T


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80"])
@pytest.mark.parametrize("case", ["a", "b"])
def test_the_transpose_is_read_by_ldmatrix_not_moved(case, arch):
    import re
    ptx = compile_text(kernel(case), arch)
    # the tile goes to shared memory once, as it is: whole 8-byte runs, none read back into registers
    assert set(re.findall(r"(?:st|ld)\.shared[.a-z0-9]*", ptx)) == {"st.shared.v4.b16"}
    # an A is read with the transposing ldmatrix; a B (the transpose of N x K rows) without it
    assert (".trans.shared.b16" in ptx) == (case == "a")


@pytest.mark.parametrize("arch,wgmma", [("sm_90a", None), ("sm_80", None), ("sm_90a", True)])
@pytest.mark.parametrize("case", list(CASES))
def test_simulated_equal_to_the_interpreter(case, arch, wgmma):
    """wgmma=True: the dots that fit wgmma (case a's 64 rows) run on it, which copies
    its operands: the transpose is made there (Emitter.regs_of)."""
    x, w, want = arrays(case)
    launch(parse_module(kernel(case), "k.mlir"), grid=(1, 1, 1), args=[x, w, want])
    np.testing.assert_array_equal(want, exact(case, x, w))
    got = np.zeros_like(want)
    ptx = compile_text(kernel(case), arch, wgmma=wgmma)
    assert ("wgmma.mma_async" in ptx) == (bool(wgmma) and case == "a")
    ptxsim.run_ptx(ptx, "k", (1, 1, 1), [x, w, got])
    np.testing.assert_array_equal(got, want)
