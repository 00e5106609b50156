#!/usr/bin/env python3
"""cuTile Python's own f16 matmul, exported as cuTile would launch it on 4096^3
torch tensors (shapes and strides divisible by 16, 16-byte aligned bases): the
Tile IR text (for tilec) and NVIDIA's tileiras cubin of the same bytecode, so
benchmarks/matmul_gpu.py --kernel/--tileiras-cubin compare the two compilers on
a kernel annotated the way NVIDIA's front end annotates it.

Run with the reference toolchain's python (shared/tools/reference-toolchain.sh):
    $TILEIR_REF/bin/python benchmarks/export_cutile_matmul.py OUTDIR [[bf16:|fp8:]BMxBNxBK ...]
Writes OUTDIR/cutile_matmul_[<type>_]<tile>.{tilebc,mlir,sm_90.cubin}: f16 by default,
bf16 (bf16 out), or fp8 e4m3 with B given N x K and f16 out (examples/export_cutile.py's
matmul_fp8_bt)."""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))

import cuda.tile as ct  # noqa: E402
from cuda.tile.compilation import (ArrayConstraint, CallingConvention, KernelSignature,  # noqa: E402
                                   export_kernel)
from export_cutile import matmul_f16, matmul_fp8_bt  # noqa: E402  (the example kernels)


def array2d(dtype=ct.float16):
    return ArrayConstraint(dtype=dtype, ndim=2, index_dtype=ct.int32, stride_lower_bound_incl=0,
                           alias_groups=(), may_alias_internally=False, stride_constant=(None, 1),
                           shape_divisible_by=16, stride_divisible_by=(16, 1), base_addr_divisible_by=16)


# spec prefix -> (kernel, operand type, output type); fp8 takes B as N x K (torch._scaled_mm's layout)
KINDS = {"": (matmul_f16, ct.float16, ct.float16), "bf16": (matmul_f16, ct.bfloat16, ct.bfloat16),
         "fp8": (matmul_fp8_bt, ct.float8_e4m3fn, ct.float16)}


def export(tile, out, kind=""):
    kernel, dtype, out_t = KINDS[kind]
    name = f"cutile_matmul_{kind + '_' if kind else ''}{tile[0]}x{tile[1]}x{tile[2]}"
    sig = KernelSignature([array2d(dtype)] * 2 + [array2d(out_t)] + list(tile),
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
