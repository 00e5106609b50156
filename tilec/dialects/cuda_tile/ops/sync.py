"""Token-ordered synchronization ops of bytecode 13.4: programmatic dependent
launch (gdc_wait_tko, gdc_launch_dependents_tko) and the alias-proxy fence
(memory_fence_alias_tko). Each threads a token and has a side effect, so none
is Pure."""
from __future__ import annotations

from ....ir.opdef import OptOperand, Operand, Result
from ..types import TOKEN_TYPE, TokenType
from .base import CudaTileOp

_GDC_FORMAT = "(`token` `=` $token^)? attr-dict `->` custom<CudaTileType>(type($result_token))"


class GdcWaitTkoOp(CudaTileOp):
    """Wait until the grid this one depends on (PDL) has completed and its
    stores are visible; a no-op below sm_90 or without PDL."""
    name = "cuda_tile.gdc_wait_tko"
    token = OptOperand(TOKEN_TYPE)
    result_token = Result(TOKEN_TYPE)
    assembly_format = _GDC_FORMAT


class GdcLaunchDependentsTkoOp(CudaTileOp):
    """Allow the dependent grid (PDL) to start launching; a no-op below sm_90."""
    name = "cuda_tile.gdc_launch_dependents_tko"
    token = OptOperand(TOKEN_TYPE)
    result_token = Result(TOKEN_TYPE)
    assembly_format = _GDC_FORMAT


class MemoryFenceAliasTkoOp(CudaTileOp):
    """Along the token chain, earlier accesses through another virtual alias of
    the same physical memory complete before later ones (a proxy fence)."""
    name = "cuda_tile.memory_fence_alias_tko"
    token = Operand(TOKEN_TYPE)
    result_token = Result(TOKEN_TYPE)
    assembly_format = "$token attr-dict"

    def infer_result_types(self):
        return [TokenType()]
