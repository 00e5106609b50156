"""Compiles a kernel's blocks into lists of step closures and runs them.

Compilation happens once per launch: every op gets its handler looked up and
built (attributes decoded, dtypes chosen), so the hot loop is a plain walk over
closures that read and write an environment dict keyed by IR Values.
"""
from __future__ import annotations

import numpy as np

from ..ir.core import Value
from . import registry as R
from .errors import InterpError


class Program:
    """A compiled block: its steps and, in parallel, the ops they came from."""
    __slots__ = ("steps", "ops", "arguments")

    def __init__(self, steps, ops, arguments):
        self.steps, self.ops, self.arguments = steps, ops, arguments


def run_block(prog: Program, env: dict):
    """Run a compiled block; return the signal its terminator (or a nested
    control-flow op) ended it with."""
    i = 0
    try:
        for step in prog.steps:
            sig = step(env)
            if sig is not None:
                return sig
            i += 1
    except InterpError:
        raise
    except RecursionError:
        raise
    except Exception as e:  # a handler met something it cannot compute: name the op
        raise InterpError(prog.ops[i], f"cannot be interpreted: {type(e).__name__}: {e}") from e
    return (R.YIELD, ())


class Compiler:
    """Builds Programs for the blocks of one kernel, for one launch (`machine`)."""

    def __init__(self, machine):
        self.machine = machine

    def block(self, block) -> Program:
        steps, ops = [], []
        for op in block.ops:
            steps.append(self.op(op))
            ops.append(op)
        return Program(steps, ops, block.arguments)

    def op(self, op):
        name = op.name
        builder = R.STRUCTURAL.get(name)
        if builder is not None:
            return builder(op, self)
        builder = R.COMPUTE.get(name)
        if builder is None:
            raise InterpError(op, "is not supported by the interpreter")
        fn = builder(op, self)
        return make_step(fn, op.operands, op.results)

    # -- helpers for handlers --------------------------------------------------
    @staticmethod
    def operand_slots(op) -> list:
        """Per declared operand: its flat index (single/optional; None when absent)
        or a range of flat indices (variadic)."""
        out, pos = [], 0
        for g in op.operand_groups():
            if g is None:
                out.append(None)
            elif isinstance(g, Value):
                out.append(pos)
                pos += 1
            else:
                out.append(range(pos, pos + len(g)))
                pos += len(g)
        return out


def make_step(fn, ins, outs):
    ins, outs = list(ins), list(outs)
    n = len(ins)
    if len(outs) <= 1:
        o = outs[0] if outs else None
        if n == 0:
            def step(env):
                env[o] = fn()
        elif n == 1:
            a, = ins

            def step(env):
                env[o] = fn(env[a])
        elif n == 2:
            a, b = ins

            def step(env):
                env[o] = fn(env[a], env[b])
        elif n == 3:
            a, b, c = ins

            def step(env):
                env[o] = fn(env[a], env[b], env[c])
        else:
            def step(env):
                env[o] = fn(*[env[v] for v in ins])
        return step

    def step(env):
        for k, v in zip(outs, fn(*[env[v] for v in ins])):
            env[k] = v
    return step


def as_array(x) -> np.ndarray:
    return x if isinstance(x, np.ndarray) else np.asarray(x)
