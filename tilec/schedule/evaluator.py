"""A NumPy evaluator for the scheduled nv_tileas IR this project's lowering
and scheduler produce, built on the cuda_tile interpreter: importing this
module adds handlers for the nv_tileas / scf / arith ops to the interpreter's
dispatch table (cuda_tile ops keep theirs), so `tilec.interp.launch` runs a
lowered-and-scheduled module.

Pipelines are modelled as rings of numStages slots. produce_one waits until
its stage is free (every earlier use of that slot consumed), runs its region
and stores the yielded tile in the slot; consume_one waits until its stage was
produced, runs its region on the slot's payload and then frees the slot. An
agent_switch runs each agent region in its own thread, so the producer agent
really runs at most numStages ahead of the consumer; a schedule that would
deadlock or read a stage before it is written is reported, not hidden.
Tiled loads may address tiles wholly or partly outside the tensor (a
producer running ahead does): those elements read the padding value."""
from __future__ import annotations

import threading

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..interp import launch as _launch  # noqa: F401,E501  (registers the cuda_tile handlers)
from ..interp.engine import run_block
from ..interp.errors import InterpError
from ..interp.numerics import BOOL, F32, F64, dtype_of, unsigned
from ..interp.registry import COMPUTE, STRUCTURAL, TOKEN, YIELD, compute, structural
from ..interp.ops_view import _PADDING
from ..ir.types import IndexType

DEADLOCK_SECONDS = 20.0


def _is_index(t):
    return isinstance(t, IndexType)


# ---- arith / casts ---------------------------------------------------------------

@compute("arith.constant")
def _constant(op, cc):
    a = op.attributes["value"]
    t = op.result.type
    if _is_index(t):
        v = int(a.value)
        return lambda: v
    v = np.array(a.value, dtype_of(t))
    return lambda: v


def _int_binary(name, fn):
    @compute(name)
    def build(op, cc):
        return lambda a, b: fn(int(a), int(b))
    return build


_int_binary("arith.addi", lambda a, b: a + b)
_int_binary("arith.subi", lambda a, b: a - b)
_int_binary("arith.muli", lambda a, b: a * b)
_int_binary("arith.maxsi", max)


@compute("arith.index_cast")
def _index_cast(op, cc):
    t = op.result.type
    if _is_index(t):
        return lambda x: int(x)
    dt = dtype_of(t.element_type)
    return lambda x: np.array(x, dt)


# ---- scf ------------------------------------------------------------------------

@structural("scf.yield", "nv_tileas.async.pipeline.yield", "nv_tileas.yield")
def _yield(op, cc):
    ins = list(op.operands)
    return lambda env: (YIELD, [env[v] for v in ins])


@structural("scf.for")
def _for(op, cc):
    lb, ub, st = op.operands[:3]
    inits = list(op.operands[3:])
    body = cc.block(op.regions[0].blocks[0])
    iv, *iters = body.arguments
    results = list(op.results)
    index_iv = _is_index(iv.type)
    dt = None if index_iv else dtype_of(iv.type)

    def step(env):
        lo, hi, s = int(env[lb]), int(env[ub]), int(env[st])
        vals = [env[v] for v in inits]
        if lo < hi and s <= 0:
            raise InterpError(op, f"step must be positive, got {s}")
        i = lo
        while i < hi:
            env[iv] = i if index_iv else np.array(i, dt)
            for a, v in zip(iters, vals):
                env[a] = v
            sig = run_block(body, env)
            if sig[0] != YIELD:
                return sig
            vals = list(sig[1])
            i += s
        for r, v in zip(results, vals):
            env[r] = v
        return None
    return step


# ---- views and tiled memory ops -------------------------------------------------------

class TileRef:
    """nv_tileaa.block_tile: tile `index` of a partition view."""
    __slots__ = ("view", "index")

    def __init__(self, view, index):
        self.view, self.index = view, index


class Cell:
    """A register-resident (RMEM) or stage-buffer view: mutable storage."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = None if value is None else np.array(value, copy=True)


@compute("nv_tileaa.block_tile")
def _block_tile(op, cc):
    return lambda view, *idx: TileRef(view, tuple(int(i) for i in idx))


class GlobalView:
    """A GMEM view of a scalar pointer: element i lives at base + i * itemsize."""
    __slots__ = ("base", "dtype")

    def __init__(self, base, dtype):
        self.base, self.dtype = base, dtype

    def addresses(self, indices):
        return np.int64(self.base) + np.asarray(indices).astype(np.int64) * (
            1 if self.dtype == BOOL else self.dtype.itemsize)


@compute("nv_tileas.view")
def _view(op, cc):
    rt = op.result.type
    if rt.residency == "GMEM" and hasattr(getattr(op.operands[0].type, "element_type", None), "pointee"):
        dt = dtype_of(rt.element_type)
        return lambda src, *idx: GlobalView(int(src), dt)
    if rt.residency == "GMEM" and type(op.operands[0].type).__name__ == "TensorViewType":
        return lambda src, *idx: src          # the tensor view itself (a TMA descriptor's source)
    return lambda src, *idx: Cell(src if isinstance(src, np.ndarray) else None)


class TmaDescriptor:
    __slots__ = ("tv", "box")

    def __init__(self, tv, box):
        self.tv, self.box = tv, box


@compute("nv_tileas.make_tiled_tma_desc")
def _make_tma_desc(op, cc):
    n = len(op.box_dims)
    return lambda tv, *box: TmaDescriptor(tv, tuple(int(b) for b in box[:n]))


@compute("nv_tileas.async.tiled_tma_load")
def _tma_load(op, cc):
    mem = cc.machine.memory
    dt = dtype_of(op.dest.type.element_type)
    rank = len(op.coords)

    def fn(desc, cell, *rest):
        coords = [int(c) for c in rest[:rank]]
        tv, box = desc.tv, desc.box
        out = np.zeros(box, dt)                  # oob_mode zero
        extent = [max(0, min(n, tv.shape[d] - c)) if c >= 0 else 0 for d, (c, n) in enumerate(zip(coords, box))]
        if 0 not in extent:
            item = tv.dtype.itemsize
            off = sum(c * s for c, s in zip(coords, tv.strides))
            hi = off + sum((e - 1) * s for e, s in zip(extent, tv.strides))
            alloc = mem.region(op, tv.base, off * item, (hi + 1) * item, "read")
            flat = alloc.typed(tv.dtype)
            start = (tv.base - alloc.base) // item + off
            win = as_strided(flat[start:], shape=tuple(extent), strides=tuple(s * item for s in tv.strides))
            out[tuple(slice(0, e) for e in extent)] = win
        cell.value = out
        return TOKEN
    return fn


@compute("nv_tileas.async.wait")
def _async_wait(op, cc):
    return lambda *toks: None


@compute("nv_tileas.gather_load")
def _gather_load(op, cc):
    mem = cc.machine.memory
    has_mask = op.mask is not None
    dt = dtype_of(op.result.type.element_type)

    def fn(view, idx, *rest):
        mask = np.asarray(rest[0]) if has_mask else None
        return mem.gather(op, view.addresses(idx), dt, mask)
    return fn


@compute("nv_tileas.scatter_store")
def _scatter_store(op, cc):
    mem = cc.machine.memory
    has_mask = op.mask is not None

    def fn(view, idx, value, *rest):
        mem.scatter(op, view.addresses(idx), value, np.asarray(rest[0]) if has_mask else None)
    return fn


@compute("nv_tileas.alloc_tensor", "nv_tileas.create_none")
def _placeholder(op, cc):
    return lambda: None


def _window(op, mem, ref, coords, shape, what):
    """(strided NumPy window of the in-bounds part, extents); out-of-range
    tiles and elements are allowed (extent 0 / partial)."""
    view = ref.view
    tv = view.tv
    off, strides, extent = 0, [], []
    for i, n in enumerate(shape):
        d, s = view.dim_map[i], view.steps[i]
        start = ref.index[i] * s + coords[i]
        off += start * tv.strides[d]
        strides.append(tv.strides[d])
        extent.append(max(0, min(n, tv.shape[d] - start)) if start >= 0 else 0)
    if 0 in extent:
        return None, extent
    itemsize = 1 if tv.dtype == BOOL else tv.dtype.itemsize
    lo = off + sum(min(0, (e - 1) * s) for e, s in zip(extent, strides))
    hi = off + sum(max(0, (e - 1) * s) for e, s in zip(extent, strides))
    alloc = mem.region(op, tv.base, lo * itemsize, (hi + 1) * itemsize, what)
    flat = alloc.typed(tv.dtype)
    start = (tv.base - alloc.base) // itemsize + off
    return as_strided(flat[start:], shape=tuple(extent), strides=tuple(s * itemsize for s in strides)), extent


def _pad_of(op, dtype):
    pad = op.attributes.get("padding_value")
    if pad is None or dtype.kind in "iub":
        return 0
    v = getattr(pad, "value", 0)
    return _PADDING.get(v, v) if isinstance(v, str) else float(v)


@compute("nv_tileas.tiled_load")
def _tiled_load(op, cc):
    t = op.results[0].type
    dtype, shape = dtype_of(t.element_type), tuple(t.shape)
    mem = cc.machine.memory
    rank = len(shape)
    pad = _pad_of(op, dtype)

    def fn(ref, *rest):
        win, extent = _window(op, mem, ref, [int(c) for c in rest[:rank]], shape, "read")
        out = np.full(shape, pad, dtype=dtype)
        if win is not None:
            out[tuple(slice(0, e) for e in extent)] = (win != 0) if dtype == BOOL else win
        return out
    return fn


@compute("nv_tileas.tiled_store")
def _tiled_store(op, cc):
    mem = cc.machine.memory
    shape = tuple(op.value.type.shape)
    rank = len(shape)

    def fn(ref, value, *rest):
        win, extent = _window(op, mem, ref, [int(c) for c in rest[:rank]], shape, "write")
        if win is not None:
            src = np.asarray(value)[tuple(slice(0, e) for e in extent)]
            win[...] = src.astype(np.uint8) if ref.view.tv.dtype == BOOL else src
        return None
    return fn


@compute("nv_tileas.tiled_atomic_rmw")
def _tiled_atomic_rmw(op, cc):
    from ..interp.numerics import to_float
    from ..interp.ops_memory import _rmw_function
    mem = cc.machine.memory
    t = op.value.type
    shape, elt = tuple(t.shape), t.element_type
    dtype = dtype_of(elt)
    f = _rmw_function(op.attributes["rmw_mode"].value, dtype)
    if dtype.kind not in "iub" and dtype.itemsize < 4:   # f16/bf16: combine in f64, round once
        g = f
        f = lambda old, v: to_float(g(np.asarray(old).astype(F64), np.asarray(v).astype(F64)), elt)  # noqa: E731
    rank = len(shape)

    def fn(ref, value, *rest):
        win, extent = _window(op, mem, ref, [int(c) for c in rest[:rank]], shape, "access")
        old = np.zeros(shape, dtype)
        if win is not None:
            sl = tuple(slice(0, e) for e in extent)
            old[sl] = win
            win[...] = np.asarray(f(np.array(win), np.asarray(value)[sl])).astype(win.dtype)
        return old
    return fn


@compute("nv_tileas.load")
def _load(op, cc):
    def fn(cell, *tok):
        if cell.value is None:
            raise InterpError(op, "reads a view that holds no value")
        return np.array(cell.value, copy=True)
    return fn


@compute("nv_tileas.store")
def _store(op, cc):
    def fn(cell, value, *tok):
        cell.value = np.array(value, copy=True)
    return fn


# ---- compute ------------------------------------------------------------------------------

@compute("nv_tileas.dot")
def _dot(op, cc):
    acc_dtype = dtype_of(op.results[0].type.element_type)
    if acc_dtype.kind == "f":
        work = F64 if acc_dtype == F64 else F32

        def fn(a, b, c):
            r = np.matmul(np.asarray(a).astype(work), np.asarray(b).astype(work))
            r += np.asarray(c).astype(work)
            return r.astype(acc_dtype)
        return fn
    sa = getattr(op.attributes.get("signedness_a"), "value", "signed") == "signed"
    sb = getattr(op.attributes.get("signedness_b"), "value", "signed") == "signed"

    def ifn(a, b, c):
        x = (np.asarray(a) if sa else unsigned(a)).astype(F64)
        y = (np.asarray(b) if sb else unsigned(b)).astype(F64)
        return (np.asarray(c).astype(np.int64) + np.matmul(x, y).astype(np.int64)).astype(acc_dtype)
    return ifn


@compute("nv_tileas.shuffle")
def _shuffle(op, cc):
    perm = tuple(op.attributes["permutation"].values)
    return lambda x: np.ascontiguousarray(np.transpose(np.asarray(x), perm))


# ---- pipelines ------------------------------------------------------------------------------

class Pipeline:
    def __init__(self, stages):
        self.stages = stages
        self.slots = [None] * stages
        self.produced = 0      # stages written so far (positions < produced are filled)
        self.released = 0      # stages consumed and freed
        self.cond = threading.Condition()

    def wait_for(self, op, pred, what):
        with self.cond:
            if not self.cond.wait_for(pred, timeout=DEADLOCK_SECONDS if threading.current_thread()
                                      is not threading.main_thread() else 0):
                raise InterpError(op, f"pipeline deadlock: {what}")


class PipeToken:
    __slots__ = ("pipe", "side")

    def __init__(self, pipe, side):
        self.pipe, self.side = pipe, side


class Iter:
    __slots__ = ("pipe", "pos")

    def __init__(self, pipe, pos):
        self.pipe, self.pos = pipe, pos


@compute("nv_tileas.async.pipeline.create_pipeline")
def _create_pipeline(op, cc):
    n = op.attributes["numStages"].value

    def fn(_buf):
        p = Pipeline(n)
        return PipeToken(p, "producer"), PipeToken(p, "consumer")
    return fn


@compute("nv_tileas.async.pipeline.create_iterator")
def _create_iterator(op, cc):
    return lambda tok: Iter(tok.pipe, 0)


@compute("nv_tileas.async.pipeline.inc_iter")
def _inc_iter(op, cc):
    return lambda it: Iter(it.pipe, it.pos + 1)


@compute("nv_tileas.async.pipeline.consumer_wait")
def _consumer_wait(op, cc):
    def fn(tok, it):
        if it.pos >= it.pipe.produced:
            raise InterpError(op, f"waits on stage {it.pos}, which was never produced")
        return tok
    return fn


@compute("nv_tileas.async.pipeline.consumer_release")
def _consumer_release(op, cc):
    return lambda tok: tok


@structural("nv_tileas.async.pipeline.produce_one")
def _produce_one(op, cc):
    tok_v, it_v = op.operands[:2]
    body = cc.block(op.regions[0].blocks[0])
    res = op.results[0]

    def step(env):
        it = env[it_v]
        p = it.pipe
        p.wait_for(op, lambda: it.pos - p.released < p.stages and it.pos == p.produced,
                   f"stage {it.pos} cannot be written (produced {p.produced}, released {p.released}, "
                   f"{p.stages} stages)")
        env[body.arguments[0]] = p.slots[it.pos % p.stages]
        sig = run_block(body, env)
        with p.cond:
            p.slots[it.pos % p.stages] = sig[1][0]
            p.produced = it.pos + 1
            p.cond.notify_all()
        env[res] = env[tok_v]
        return None
    return step


@structural("nv_tileas.async.pipeline.consume_one")
def _consume_one(op, cc):
    tok_v, it_v = op.operands[:2]
    body = cc.block(op.regions[0].blocks[0])
    res = op.results[0]

    def step(env):
        it = env[it_v]
        p = it.pipe
        p.wait_for(op, lambda: it.pos < p.produced and it.pos == p.released,
                   f"stage {it.pos} is not ready (produced {p.produced}, released {p.released})")
        env[body.arguments[0]] = p.slots[it.pos % p.stages]
        sig = run_block(body, env)
        if sig[0] != YIELD:
            return sig
        with p.cond:
            p.released = it.pos + 1
            p.cond.notify_all()
        env[res] = env[tok_v]
        return None
    return step


@structural("nv_tileas.async.pipeline.agent_switch")
def _agent_switch(op, cc):
    progs = [cc.block(r.blocks[0]) for r in op.regions]
    results = list(op.results)

    def step(env):
        outcome = [None] * len(progs)
        errors = []

        def run(i):
            try:
                outcome[i] = run_block(progs[i], dict(env))
            except BaseException as e:  # reported in the launching thread
                errors.append(e)
        threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(progs))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(DEADLOCK_SECONDS * 2)
        if errors:
            raise errors[0]
        if any(t.is_alive() for t in threads):
            raise InterpError(op, "agents did not finish (pipeline deadlock)")
        sig = outcome[-1]   # the consumer agent's values are the results
        for r, v in zip(results, sig[1]):
            env[r] = v
        return None
    return step


def handled_ops():
    return sorted(n for n in set(COMPUTE) | set(STRUCTURAL) if n.startswith(("nv_tileas", "nv_tileaa", "scf.",
                                                                                "arith.")))
