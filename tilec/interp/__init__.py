"""A NumPy reference interpreter for cuda_tile kernels (the semantic oracle).

    from tilec.interp import launch
    launch(module, "vector_add", grid=(4,), args=[a, b, c, n])

Tiles are whole NumPy arrays; pointer arguments are host arrays placed in a
simulated global memory. See launch.launch for the details.
"""
from .errors import InterpError, LaunchError
from .launch import LaunchResult, find_kernel, launch, param_names, parse_module

__all__ = ["launch", "LaunchError", "InterpError", "LaunchResult", "parse_module", "find_kernel", "param_names"]
