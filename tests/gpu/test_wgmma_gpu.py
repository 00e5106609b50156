"""The opt-in `--wgmma` path on a real Hopper GPU (skipped without one; the
conftest skips every test here when there is no CUDA GPU, and these also skip
on a GPU that is not sm_90). These cases read their swizzled pipeline slots in
place (64-byte and 128-byte swizzles, K-major A, MN-major B with one and two
panels); all matched the interpreter on an H100 on 2026-11-24."""
import pytest

from . import cases
from .test_examples_gpu import KERNEL_TIMEOUT_S, entry_symbol, interpreter_result

WGMMA_CASES = ["cutile_matmul_f16", "matmul_f16_tiled", "cutile_matmul_bf16_relu", "cutile_matmul_gelu_f16"]


@pytest.mark.parametrize("name", WGMMA_CASES)
def test_wgmma_matches_interpreter_on_the_gpu(name):
    from tilec.codegen.ptx import compile_text
    from tilec.runtime import convert_scalars, device_info, entry_arg_types, load_ptx
    if tuple(device_info()["cc"]) != (9, 0):
        pytest.skip(f"wgmma needs an sm_90 GPU, this is sm_{device_info()['cc'][0]}{device_info()['cc'][1]}")
    case = cases.BY_NAME[name]
    ptx = compile_text(case.text(), arch="sm_90a", wgmma=True)
    assert "wgmma.mma_async" in ptx
    want, _, _ = interpreter_result(case)
    launch = case.build(case.rng())
    args, memo = cases.copy_args(launch.args)
    kernel = load_ptx(ptx).kernel(entry_symbol(case))
    kernel.launch(launch.grid, convert_scalars(case.text(), args), arg_dtypes=entry_arg_types(case.text()),
                  timeout=KERNEL_TIMEOUT_S)
    cases.compare(case, launch, cases.outputs_of(launch, memo), want)
