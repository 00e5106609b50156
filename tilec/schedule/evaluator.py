"""A NumPy evaluator for the scheduled nv_tileas IR this project's lowering
and scheduler produce, built on the cuda_tile interpreter: importing this
module adds handlers for the nv_tileas / scf / arith ops (and the
builtin.unrealized_conversion_cast the lowering puts before scf conditions)
to the interpreter's dispatch table (cuda_tile ops keep theirs), so
`tilec.interp.launch` runs a lowered-and-scheduled module.

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

from ..interp import launch as _launch  # noqa: F401,E501  (registers the cuda_tile handlers)
from ..interp.engine import run_block
from ..interp.errors import InterpError
from ..interp.numerics import BOOL, F32, F64, dtype_of, signed_value, strided, unsigned, wrap_int
from ..interp.registry import COMPUTE, STRUCTURAL, TOKEN, YIELD, compute, structural
from ..interp.ops_control import if_step, reduce_step, scan_step
from ..interp.ops_view import _PADDING
from ..ir import attributes as A
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


_INDEX_OPS = {"addi": lambda a, b: a + b, "subi": lambda a, b: a - b, "muli": lambda a, b: a * b,
              "maxsi": max, "minsi": min, "maxui": max, "minui": min,
              "divsi": lambda a, b: _trunc_div(a, b)[0], "remsi": lambda a, b: _trunc_div(a, b)[1],
              "divui": lambda a, b: a // b, "remui": lambda a, b: a % b,
              "andi": lambda a, b: a & b, "ori": lambda a, b: a | b, "xori": lambda a, b: a ^ b}


def _trunc_div(a, b):
    q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
    return q, a - q * b


def _int_elementwise(op, kind):
    """arith integer ops on i1..i64 values: two's complement, wrapping (i1 is
    arithmetic modulo 2); the signed/unsigned variants read the bits so."""
    dtype = dtype_of(op.result.type.element_type if hasattr(op.result.type, "element_type")
                     else op.result.type)
    if kind in ("andi", "ori", "xori"):
        f = {"andi": np.bitwise_and, "ori": np.bitwise_or, "xori": np.bitwise_xor}[kind]
        return lambda a, b: f(np.asarray(a), np.asarray(b)).astype(dtype, copy=False)
    if kind in ("addi", "subi", "muli"):
        f = {"addi": np.add, "subi": np.subtract, "muli": np.multiply}[kind]
        if dtype == BOOL:
            g = {"addi": np.bitwise_xor, "subi": np.bitwise_xor, "muli": np.bitwise_and}[kind]
            return lambda a, b: g(np.asarray(a), np.asarray(b))
        return lambda a, b: np.asarray(f(np.asarray(a), np.asarray(b))).astype(dtype, copy=False)
    signed = kind.endswith("si")
    read = signed_value if signed else unsigned
    if kind[:3] in ("max", "min"):
        pick = np.greater_equal if kind.startswith("max") else np.less_equal
        return lambda a, b: np.where(pick(read(a), read(b)), a, b).astype(dtype, copy=False)
    # division and remainder: truncating; zero divisors are reported
    rem = kind.startswith("rem")

    def div(a, b):
        x, y = read(a).astype(object), read(b).astype(object)
        if np.any(y == 0):
            raise InterpError(op, "integer division by zero")
        q, r = np.frompyfunc(_trunc_div, 2, 2)(x, y)
        out = r if rem else q
        return wrap_int(list(np.ravel(out)), dtype).reshape(np.shape(out))
    return div


def _arith_int(kind):
    @compute("arith." + kind)
    def build(op, cc):
        if _is_index(op.result.type):
            fn = _INDEX_OPS[kind]
            return lambda a, b: fn(int(a), int(b))
        return _int_elementwise(op, kind)
    return build


for _k in _INDEX_OPS:
    _arith_int(_k)


def _float_dtype(op):
    t = op.results[0].type
    return dtype_of(getattr(t, "element_type", t))


def _ieee_max(a, b):
    """maximumf: NaN if either is NaN, -0 < +0 (IEEE 754-2019 maximum)."""
    a, b = np.asarray(a), np.asarray(b)
    r = np.maximum(a, b)
    both_zero = (a == 0) & (b == 0)
    return np.where(both_zero, np.where(np.signbit(a), b, a), r)


def _ieee_min(a, b):
    a, b = np.asarray(a), np.asarray(b)
    r = np.minimum(a, b)
    both_zero = (a == 0) & (b == 0)
    return np.where(both_zero, np.where(np.signbit(a), a, b), r)


# the same NumPy operations the interpreter uses for cuda_tile's nearest-even
# addf/subf/mulf/divf and maxf/minf, so a lowered combiner rounds identically
_FLOAT_OPS = {"addf": np.add, "subf": np.subtract, "mulf": np.multiply, "divf": np.divide,
              "maxnumf": np.fmax, "minnumf": np.fmin, "maximumf": _ieee_max, "minimumf": _ieee_min}


def _arith_float(kind):
    f = _FLOAT_OPS[kind]

    @compute("arith." + kind)
    def build(op, cc):
        dtype = _float_dtype(op)
        return lambda a, b: np.asarray(f(a, b)).astype(dtype, copy=False)
    return build


for _k in _FLOAT_OPS:
    _arith_float(_k)


@compute("arith.negf")
def _negf(op, cc):
    return np.negative


_CMPF = {"oeq": np.equal, "ogt": np.greater, "oge": np.greater_equal, "olt": np.less, "ole": np.less_equal,
         "one": np.not_equal}


@compute("arith.cmpf")
def _cmpf(op, cc):
    name = op.predicate_name()

    def fn(a, b):
        a, b = np.asarray(a), np.asarray(b)
        nan = np.isnan(a) | np.isnan(b)
        if name in ("false", "true"):
            return np.full(np.broadcast(a, b).shape, name == "true")
        if name == "ord":
            return ~nan
        if name == "uno":
            return nan
        base = _CMPF[("o" + name[1:]) if name[0] == "u" else name]
        r = base(a, b)
        return (r | nan) if name[0] == "u" else (r & ~nan)
    return fn


_CMPI = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
         "ge": np.greater_equal}


@compute("arith.cmpi")
def _cmpi(op, cc):
    name = op.predicate_name()
    pred = _CMPI[name if name in ("eq", "ne") else name[1:]]
    if _is_index(op.lhs.type):
        return lambda a, b: bool(pred(int(a), int(b)))
    read = unsigned if name[0] == "u" else signed_value
    return lambda a, b: pred(read(a), read(b))


@compute("arith.select")
def _select(op, cc):
    t = op.result.type
    if _is_index(t):
        return lambda c, a, b: a if c else b
    dtype = dtype_of(getattr(t, "element_type", t))
    return lambda c, a, b: np.where(c, a, b).astype(dtype, copy=False)


@compute("builtin.unrealized_conversion_cast")
def _unrealized_cast(op, cc):
    """A 0-d tile and the scalar of its element type are the same 0-d array."""
    if len(op.operands) == 1 and len(op.results) == 1:
        return lambda x: x
    return lambda *xs: tuple(xs)


@compute("nv_tileas.convert_layout")
def _convert_layout(op, cc):
    """Layouts place elements in threads; the values stay what they are."""
    return lambda x: x


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


# scf.if runs as cuda_tile.if does: the branch taken yields the results
structural("scf.if")(if_step)


CONDITION = "condition"   # the signal scf.condition ends scf.while's before region with


@structural("scf.condition")
def _condition(op, cc):
    ins = list(op.operands)
    return lambda env: (CONDITION, [env[v] for v in ins])


@structural("scf.while")
def _while(op, cc):
    inits = list(op.operands)
    before = cc.block(op.regions[0].blocks[0])
    after = cc.block(op.regions[1].blocks[0])
    results = list(op.results)
    limit = cc.machine.max_loop_iterations

    def step(env):
        vals = [env[v] for v in inits]
        count = 0
        while True:
            for a, v in zip(before.arguments, vals):
                env[a] = v
            sig = run_block(before, env)
            if sig[0] != CONDITION:
                return sig
            go, *vals = sig[1]
            if not go:
                break
            for a, v in zip(after.arguments, vals):
                env[a] = v
            sig = run_block(after, env)
            if sig[0] != YIELD:
                return sig
            vals = list(sig[1])
            count += 1
            if count > limit:
                raise InterpError(op, f"did not terminate after {limit} iterations")
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
            win = strided(flat[start:], tuple(extent), tuple(s * item for s in tv.strides))
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
    return strided(flat[start:], tuple(extent), tuple(s * itemsize for s in strides)), extent


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


@compute("nv_tileas.block_scaled_mma")
def _block_scaled_mma(op, cc):
    """cuda_tile.mmaf_scaled's arithmetic; a missing scale factor (fp8 only) is 1."""
    from ..interp.ops_mma import scaled_mma
    has_sfa, has_sfb = op.sfa is not None, op.sfb is not None

    def fn(a, b, c, *scales):
        scales = list(scales)
        sa = scales.pop(0) if has_sfa else None
        sb = scales.pop(0) if has_sfb else None
        return scaled_mma(a, b, c, sa, sb)
    return fn


def _grouped_combiner(op, cc):
    """The body of nv_tileas.reduce / scan on whole slices: arguments
    (lhs_0 .. lhs_n-1, rhs_0 .. rhs_n-1), lhs the combined element, rhs the
    accumulated one (cuda_tile interleaves the same pairs)."""
    body = cc.block(op.regions[0].blocks[0])
    args = body.arguments
    n = len(op.operands)

    def combine(env, cur, acc):
        for k in range(n):
            env[args[k]] = cur[k]
            env[args[n + k]] = acc[k]
        sig = run_block(body, env)
        if sig[0] != YIELD:
            raise InterpError(op, f"body ended with '{sig[0]}' instead of yield")
        shape = np.shape(cur[0])
        return [np.broadcast_to(v, shape) for v in sig[1]]
    return combine


def _identities(op):
    from ..interp.ops_core import scalar_attr
    ids = op.attributes.get("identities")
    if ids is None:
        return [None] * len(op.operands)
    return [np.array(bool(a.value)) if isinstance(a, A.BoolAttr) else scalar_attr(a, v.type.element_type)
            for a, v in zip(ids, op.operands)]


@structural("nv_tileas.reduce")
def _nv_reduce(op, cc):
    """The interpreter's order (cuda_tile.reduce)."""
    def missing(n):
        raise InterpError(op, f"reduces {n} elements (not a power of two) without identities")
    return reduce_step(op, _grouped_combiner(op, cc), op.attributes["dim"].value, _identities(op), missing)


@structural("nv_tileas.scan")
def _nv_scan(op, cc):
    """The interpreter's order (cuda_tile.scan)."""
    def missing(n):
        raise InterpError(op, "scans without identities")
    reverse = bool(getattr(op.attributes.get("reverse"), "value", False))
    return scan_step(op, _grouped_combiner(op, cc), op.attributes["dim"].value, reverse, _identities(op), missing)


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
                                                                                "arith.", "builtin.")))
