"""Control flow (spec 8.5) and the region-carrying combinators reduce and scan.

Terminators end their block with a signal: `yield` (to an if/reduce/scan),
`continue` and `break` (to the innermost loop, passing through any enclosing
`if`), `return` (to the kernel). reduce and scan run their scalar body on whole
slices of the tile at once: a pairwise tree for reduce, a Hillis-Steele doubling
scan for scan, so the body runs log2(n) times, never once per element.
"""
from __future__ import annotations

import numpy as np

from .engine import run_block
from .errors import InterpError
from .numerics import dtype_of, unsigned
from .ops_core import scalar_attr
from .registry import BREAK, CONTINUE, RETURN, YIELD, structural


def _terminator(kind):
    def build(op, cc):
        ins = list(op.operands)
        if not ins:
            sig = (kind, ())
            return lambda env: sig
        return lambda env: (kind, [env[v] for v in ins])
    return build


structural("cuda_tile.yield")(_terminator(YIELD))
structural("cuda_tile.continue")(_terminator(CONTINUE))
structural("cuda_tile.break")(_terminator(BREAK))
structural("cuda_tile.return")(_terminator(RETURN))


@structural("cuda_tile.if")
def if_step(op, cc):
    """The step of an if: the branch taken runs, and its yield sets the results."""
    cond = op.operands[0]
    then = cc.block(op.regions[0].blocks[0])
    other = cc.block(op.regions[1].blocks[0]) if op.regions[1].blocks else None
    results = list(op.results)

    def step(env):
        prog = then if env[cond] else other
        if prog is None:
            return None
        sig = run_block(prog, env)
        if sig[0] is YIELD:
            for r, v in zip(results, sig[1]):
                env[r] = v
            return None
        return sig
    return step


def _loop_signal(op, sig, allowed):
    if sig[0] not in allowed:
        raise InterpError(op, f"body ended with '{sig[0]}', which this loop cannot take")


@structural("cuda_tile.for")
def _for(op, cc):
    lb, ub, st = op.operands[:3]
    inits = list(op.operands[3:])
    body = cc.block(op.regions[0].blocks[0])
    iv, *iters = body.arguments
    results = list(op.results)
    elt = lb.type.element_type
    dtype = dtype_of(elt)
    is_unsigned = "unsignedCmp" in op.attributes
    limit = cc.machine.max_loop_iterations

    def read(v):
        return int(unsigned(v)) if is_unsigned else int(v)

    def make_iv(i):
        if is_unsigned:
            return np.array(i, np.uint64).astype(dtype) if dtype.itemsize < 8 else \
                np.array(i, np.uint64).view(dtype)
        return np.array(i, dtype)

    def step(env):
        lo, hi, s = read(env[lb]), read(env[ub]), read(env[st])
        vals = [env[v] for v in inits]
        if lo < hi and s <= 0:
            raise InterpError(op, f"step must be positive, got {s}")
        i, count = lo, 0
        while i < hi:
            env[iv] = make_iv(i)
            for a, v in zip(iters, vals):
                env[a] = v
            sig = run_block(body, env)
            if sig[0] is RETURN:
                return sig
            _loop_signal(op, sig, (CONTINUE, YIELD))
            if sig[0] is CONTINUE:
                vals = sig[1]
            i += s
            count += 1
            if count > limit:
                raise InterpError(op, f"ran more than {limit} iterations")
        for r, v in zip(results, vals):
            env[r] = v
        return None
    return step


@structural("cuda_tile.loop")
def _loop(op, cc):
    inits = list(op.operands)
    body = cc.block(op.regions[0].blocks[0])
    iters = body.arguments
    results = list(op.results)
    limit = cc.machine.max_loop_iterations

    def step(env):
        vals = [env[v] for v in inits]
        count = 0
        while True:
            for a, v in zip(iters, vals):
                env[a] = v
            sig = run_block(body, env)
            kind = sig[0]
            if kind is BREAK:
                vals = sig[1]
                break
            if kind is RETURN:
                return sig
            _loop_signal(op, sig, (CONTINUE,))
            vals = sig[1]
            count += 1
            if count > limit:
                raise InterpError(op, f"did not terminate after {limit} iterations (sequential tile blocks "
                                      f"cannot wait for a later block)")
        for r, v in zip(results, vals):
            env[r] = v
        return None
    return step


# ---- reduce and scan -------------------------------------------------------------

def _combiner(op, cc):
    body = cc.block(op.regions[0].blocks[0])
    args = body.arguments

    def combine(env, cur, acc):
        for k in range(len(cur)):
            env[args[2 * k]] = cur[k]
            env[args[2 * k + 1]] = acc[k]
        sig = run_block(body, env)
        if sig[0] is not YIELD:
            raise InterpError(op, f"body ended with '{sig[0]}' instead of yield")
        shape = np.shape(cur[0])
        return [np.broadcast_to(v, shape) for v in sig[1]]
    return combine


def _identities(op):
    return [scalar_attr(a, v.type.element_type) for a, v in zip(op.attributes["identities"], op.operands)]


def reduce_step(op, combine, dim, ids, on_missing_identity=None):
    """The step of a tree reduction along `dim` (cuda_tile.reduce's order, which
    the nv_tileas evaluator shares): pad to a power of two with the identities,
    then combine element j with j + m for m = n/2 .. 1. `on_missing_identity(n)`
    raises when padding needs an identity that is None."""
    ins, results = list(op.operands), list(op.results)
    dtypes = [dtype_of(r.type.element_type) for r in results]

    def step(env):
        xs = [np.moveaxis(np.asarray(env[v]), dim, -1) for v in ins]
        n = xs[0].shape[-1]
        m = 1 << max(n - 1, 0).bit_length()
        if m != n:
            if on_missing_identity is not None and any(i is None for i in ids):
                on_missing_identity(n)
            xs = [np.concatenate([x, np.broadcast_to(i, x.shape[:-1] + (m - n,))], axis=-1)
                  for x, i in zip(xs, ids)]
        while m > 1:
            m //= 2
            xs = combine(env, [x[..., :m] for x in xs], [x[..., m:] for x in xs])
        for r, x, dt in zip(results, xs, dtypes):
            env[r] = np.array(x[..., 0], order="C").astype(dt, copy=False)
        return None
    return step


def scan_step(op, combine, dim, reverse, ids, on_missing_identity=None):
    """The step of a Hillis-Steele scan along `dim` (cuda_tile.scan's order),
    the identities standing in below the offset."""
    ins, results = list(op.operands), list(op.results)
    dtypes = [dtype_of(r.type.element_type) for r in results]

    def step(env):
        xs = [np.moveaxis(np.asarray(env[v]), dim, -1) for v in ins]
        if reverse:
            xs = [x[..., ::-1] for x in xs]
        n = xs[0].shape[-1]
        if n > 1 and on_missing_identity is not None and any(i is None for i in ids):
            on_missing_identity(n)
        off = 1
        while off < n:
            prev = [np.concatenate([np.broadcast_to(i, x.shape[:-1] + (off,)), x[..., :n - off]], axis=-1)
                    for x, i in zip(xs, ids)]
            xs = combine(env, xs, prev)
            off *= 2
        for r, x, dt in zip(results, xs, dtypes):
            if reverse:
                x = x[..., ::-1]
            env[r] = np.array(np.moveaxis(x, -1, dim), order="C").astype(dt, copy=False)
        return None
    return step


@structural("cuda_tile.reduce")
def _reduce(op, cc):
    return reduce_step(op, _combiner(op, cc), op.attributes["dim"].value, _identities(op))


@structural("cuda_tile.scan")
def _scan(op, cc):
    return scan_step(op, _combiner(op, cc), op.attributes["dim"].value, op.attributes["reverse"].value,
                     _identities(op))
