"""PTX emission from scheduled nv_tileas IR (see module.py for the kernel ABI)."""
from __future__ import annotations

from . import (ops_arith, ops_atomic, ops_block_scaled, ops_control, ops_core, ops_dot,  # noqa: F401  (handlers)
               ops_elementwise, ops_memory, ops_pipeline, ops_pointer, ops_print, ops_reduce, ops_sm90_misc,
               ops_tcgen05, ops_tma)
from .module import emit_ptx
from .values import CodegenError, SharedMemoryOverflow


def __getattr__(name):
    """`compile_text` lives in tilec.compiler (the whole pipeline, which sits
    above the code generator); the name is kept here for the callers that
    import it from this package. Resolved on first use, so the code generator
    imports nothing above it."""
    if name == "compile_text":
        import importlib
        return importlib.import_module("tilec.compiler").compile_text
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["emit_ptx", "compile_text", "CodegenError"]
