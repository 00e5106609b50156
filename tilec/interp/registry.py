"""The interpreter's dispatch table: op name -> handler builder.

Two kinds of handlers, both built once per op when a kernel is compiled:

* `compute` builders return `fn(*operand_values)`; the engine wraps it in a step
  that reads the operands from the environment and binds the result(s) (a tuple
  when the op has several results).
* `structural` builders (control flow, terminators) return `step(env)` directly;
  a step returns None to go on, or a signal `(kind, values)` that ends its block.
"""
from __future__ import annotations

COMPUTE: dict = {}
STRUCTURAL: dict = {}

# signal kinds a block can end with
YIELD, CONTINUE, BREAK, RETURN = "yield", "continue", "break", "return"


def compute(*names):
    def deco(builder):
        for n in names:
            COMPUTE[n] = builder
        return builder
    return deco


def structural(*names):
    def deco(builder):
        for n in names:
            STRUCTURAL[n] = builder
        return builder
    return deco


class Token:
    """The runtime value of a `token`: ordering is program order here, so it carries nothing."""
    __slots__ = ()

    def __repr__(self):
        return "token"


TOKEN = Token()
