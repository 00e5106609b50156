#!/usr/bin/env python3
"""cuTile Python's own f16 matmul, exported as cuTile would launch it on 4096^3
torch tensors (shapes and strides divisible by 16, 16-byte aligned bases): the
Tile IR text (for tilec) and NVIDIA's tileiras cubin of the same bytecode, so
benchmarks/matmul_gpu.py --kernel/--tileiras-cubin compare the two compilers on
a kernel annotated the way NVIDIA's front end annotates it.

Run with the reference toolchain's python (shared/tools/reference-toolchain.sh):
    $TILEIR_REF/bin/python benchmarks/export_cutile_matmul.py OUTDIR [[bf16:|fp8:]BMxBNxBK ...]
Writes OUTDIR/cutile_matmul_[<type>_]<tile>.{tilebc,mlir,sm_90.cubin}: f16 by default,
bf16 (bf16 out), fp8 e4m3 with B given N x K and f16 out (examples/export_cutile.py's
matmul_fp8_bt), or `bmm:` a batched f16 matmul (rank-3 arrays, the batch on grid axis 2,
each block loading (1, TM, TK) and (1, TK, TN) tiles and reshaping them for the dot, as
cuTile's batched matmul sample does; matmul_gpu.py --batch times it)."""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))

import cuda.tile as ct  # noqa: E402
from cuda.tile.compilation import (ArrayConstraint, CallingConvention, KernelSignature,  # noqa: E402
                                   export_kernel)
from export_cutile import matmul_f16, matmul_fp8_bt  # noqa: E402  (the example kernels)


@ct.kernel
def bmm_f16(a, b, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    bm, bn, q = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=2, shape=(1, TM, TK))):
        ta = ct.load(a, index=(q, bm, k), shape=(1, TM, TK), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, index=(q, k, bn), shape=(1, TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ct.reshape(ta, (TM, TK)), ct.reshape(tb, (TK, TN)), acc=acc)
    ct.store(c, index=(q, bm, bn), tile=ct.reshape(ct.astype(acc, c.dtype), (1, TM, TN)))


def aligned_array(dtype, ndim):
    """torch tensors with 16-divisible strides and matrix extents, 16-byte aligned bases
    (batch extents free), as cuTile specializes them."""
    return ArrayConstraint(dtype=dtype, ndim=ndim, index_dtype=ct.int32, stride_lower_bound_incl=0,
                           alias_groups=(), may_alias_internally=False,
                           stride_constant=(None,) * (ndim - 1) + (1,),
                           shape_divisible_by=(1,) * (ndim - 2) + (16, 16),
                           stride_divisible_by=(16,) * (ndim - 1) + (1,), base_addr_divisible_by=16)


# spec prefix -> (kernel, operand type, output type, rank); fp8 takes B as N x K (torch._scaled_mm's layout)
KINDS = {"": (matmul_f16, ct.float16, ct.float16, 2), "bf16": (matmul_f16, ct.bfloat16, ct.bfloat16, 2),
         "fp8": (matmul_fp8_bt, ct.float8_e4m3fn, ct.float16, 2), "bmm": (bmm_f16, ct.float16, ct.float16, 3)}


def export(tile, out, kind=""):
    kernel, dtype, out_t, rank = KINDS[kind]
    name = f"cutile_matmul_{kind + '_' if kind else ''}{tile[0]}x{tile[1]}x{tile[2]}"
    sig = KernelSignature([aligned_array(dtype, rank)] * 2 + [aligned_array(out_t, rank)] + list(tile),
                          calling_convention=CallingConvention.cutile_python_v1(), symbol="matmul_f16")
    bc = os.path.join(out, name + ".tilebc")
    export_kernel(kernel, [sig], bc, output_format="tileir_bytecode", bytecode_version="13.1", gpu_code="sm_90")
    text = subprocess.run([shutil.which("tileirdisasm"), bc], capture_output=True, text=True, check=True).stdout
    with open(os.path.join(out, name + ".mlir"), "w") as fh:
        fh.write(text)
    subprocess.run([shutil.which("tileiras"), "--gpu-name=sm_90", bc, "-o", os.path.join(out, name + ".sm_90.cubin")],
                   check=True)
    print(name)


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for spec in sys.argv[2:] or ["128x128x64"]:
        kind, _, tile = spec.rpartition(":")
        export(tuple(int(v) for v in tile.split("x")), out, kind)
