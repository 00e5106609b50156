"""Running tilec's PTX on a GPU through the CUDA driver API (cuda-python).

    from tilec.runtime import cuda_available, load_ptx, entry_arg_types
    if cuda_available():
        kernel = load_ptx(ptx_text).kernel("vector_add")
        kernel.launch((4,), [a, b, c, 1000], arg_dtypes=entry_arg_types(mlir_text))

Nothing here imports `cuda.bindings` until a function needs the driver, so this
package imports (and `cuda_available()` answers False) on machines without one.
See cuda.py for the argument conventions (those of `tilec.interp.launch`).
"""
from .cuda import (CudaError, DeviceBuffer, Event, Kernel, Module, PreparedLaunch, cuda_available,
                   device_info, flush_printf, load_cubin, load_ptx, median_ms, reset_context, synchronize, tflops,
                   time_graph_ms, time_ms, unavailable_reason)
from .ptxinfo import CubinKernel, Entry, LaunchInfoError, Param, PtxInfo, cubin_kernels, pack_param, parse_ptx
from .pointer_table import PointerTable
from .signature import convert_scalars, entry_arg_types

__all__ = ["CudaError", "CubinKernel", "DeviceBuffer", "Entry", "Event", "Kernel", "LaunchInfoError", "Module",
           "Param", "PointerTable", "PreparedLaunch", "PtxInfo", "convert_scalars", "cubin_kernels", "cuda_available",
           "device_info", "entry_arg_types", "flush_printf", "load_cubin", "load_ptx", "median_ms",
           "pack_param", "parse_ptx", "reset_context", "synchronize", "tflops", "time_graph_ms", "time_ms",
           "unavailable_reason"]
