"""PTX emission from scheduled nv_tileas IR (see module.py for the kernel ABI)."""
from __future__ import annotations

from . import (ops_arith, ops_atomic, ops_control, ops_core, ops_dot, ops_elementwise,  # noqa: F401  (handlers)
               ops_memory, ops_pipeline, ops_pointer, ops_print, ops_reduce, ops_sm90_misc, ops_tma)
from .module import emit_ptx
from .values import CodegenError


def compile_text(text, arch: str = "sm_90a", num_warps: int | None = None, num_stages: int | None = None,
                 filename: str = "<input>", wgmma: bool | None = None) -> str:
    """cuda_tile text (or bytecode) to PTX; raises tilec.compiler.CompileFailed
    carrying the rendered diagnostics. `wgmma`: None (default), True or False, as
    in compile_ops."""
    from ...compiler import parse_and_compile
    return parse_and_compile(text, filename, arch, num_warps, num_stages, wgmma=wgmma)


__all__ = ["emit_ptx", "compile_text", "CodegenError"]
