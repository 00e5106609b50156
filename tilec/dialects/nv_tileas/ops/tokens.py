"""Async tokens: waiting for completion, bridging values and tokens into the
async world, and placeholder values."""
from __future__ import annotations

from ....ir.opdef import Operand, Result, VarOperand
from ....ir.traits import Pure
from ..traits import MemoryConsistencyOpInterface
from ..types import ANY_TOKEN, ASYNC_TOKEN, ASYNC_VALUE, AsyncValueType
from .base import NvTileasOp

ASYNC_ANY = ASYNC_TOKEN | ASYNC_VALUE


class AsyncWaitOp(NvTileasOp):
    """Blocks until every async token/value operand has completed."""
    name = "nv_tileas.async.wait"
    traits = (MemoryConsistencyOpInterface,)
    tokens = VarOperand(ASYNC_ANY)
    assembly_format = "($tokens^ `:` custom<NvTypes>(type($tokens)))? attr-dict"


class AsyncFutureWaitOp(NvTileasOp):
    """The value an async value carries, once ready (ordering rides on the future)."""
    name = "nv_tileas.async.future_wait"
    future = Operand(ASYNC_VALUE)
    result = Result()
    assembly_format = "$future attr-dict `:` custom<NvTypes>(type($future)) `->` custom<NvTypes>(type($result))"

    def verify_op(self):
        if self.result.type != self.future.type.value_type:
            self.emit_error(f"expects the result type to be the future's value type "
                            f"'{self.future.type.value_type.text()}'")
            return False
        return True


class AsyncToAsyncOp(NvTileasOp):
    """Wraps a ready value as an async value."""
    name = "nv_tileas.async.to_async"
    traits = (Pure,)
    value = Operand()
    result = Result(ASYNC_VALUE)
    assembly_format = "$value attr-dict `:` custom<NvTypes>(type($value)) `->` custom<NvTypes>(type($result))"

    def verify_op(self):
        if self.result.type != AsyncValueType(self.value.type):
            self.emit_error("expects the result to be an async value of the operand's type")
            return False
        return True


class AsyncTokenToAsyncOp(NvTileasOp):
    """Bridges a memory token into an async token."""
    name = "nv_tileas.async.token_to_async"
    traits = (Pure,)
    token = Operand(ANY_TOKEN)
    result = Result(ASYNC_TOKEN)
    assembly_format = "$token attr-dict `:` custom<NvTypes>(type($token)) `->` custom<NvTypes>(type($result))"


class CreateNoneOp(NvTileasOp):
    """A placeholder value of any type (an absent token, mask or operand)."""
    name = "nv_tileas.create_none"
    traits = (Pure,)
    result = Result()
    assembly_format = "attr-dict `:` custom<NvTypes>(type($result))"
