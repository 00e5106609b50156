"""Random valid cuda_tile kernels for differential testing: tilec's PTX run in the
PTX simulator (tests/ptxsim) against the reference interpreter (tilec.interp).

    kernel = generate(seed)            # deterministic in `seed`
    kernel.text                        # cuda_tile text (cuTile's calling convention)
    want = kernel.run_interpreter()    # {label: output buffer}
    got = kernel.run_sim(ptx)
    kernel.compare(got, want)          # raises Mismatch

Kernels are cuTile-style: every array is passed as pointer, shape..., strides...
(i32), read through make_tensor_view + make_partition_view (padding_value = zero)
at tile indices made from get_tile_block_id (and loop indices), and written with
store_view_tko. Array extents are usually NOT multiples of the tile (partial edge
tiles); some arrays sit in a buffer with a row pitch wider than the row (the pad
must stay untouched), some are read transposed (permute, or a dim_map view), and some
outputs are written through a dim_map view.

Families (Kernel.family):
- "ew": 1-3-D tiles of f32/f16/bf16/i8/i32/i64 through a random chain of
  elementwise ops, conversions, broadcasts, reshapes, permutes, reductions, scans,
  cat/extract, iota masks, cmp/select; optionally a `for` loop streaming tiles
  along one dimension with loop-carried tiles, loop-invariant values and stores
  inside the loop.
- "dot": mmaf (f16/bf16 -> f32 on tensor cores, small f32 dots, i8 mmai), plain,
  batched (3-D) or in a K loop with a carried accumulator (the pipelined path),
  operands read transposed, operand prologues, a second dot chained on the
  converted result (as attention does), and a random elementwise epilogue.
- "attn": a loop over key blocks with S = Q K^T, P = ftof(S), acc = P V (+ an
  online-softmax variant with running max / sum and exp2).

Numerics. Inputs are small dyadic numbers (multiples of 1/4 in [-2, 2]), so sums
and products are exact in the accumulating type as long as they fit its
mantissa. Every value carries a magnitude bound, its dyadic grid (when known) and
an absolute tolerance: 0 means two correct implementations must agree bit for
bit (elementwise IEEE ops are deterministic; reductions and dots are exact when
every partial sum is representable), else the worst difference two correct
implementations may show (reduction order, approximate exp2). Comparisons on
values with a tolerance are never generated (a tie could flip), so discrete ops
only see exact values. Outputs with tolerance 0 are compared exactly; integers
always are.
"""
from __future__ import annotations

import io
import math
import random
from dataclasses import dataclass, field

import ml_dtypes
import numpy as np

BF16 = ml_dtypes.bfloat16
NP = {"f64": np.float64, "f32": np.float32, "f16": np.float16, "bf16": BF16, "i8": np.int8, "i16": np.int16,
      "i32": np.int32,
      "i64": np.int64}
FLOATS = ("f32", "f16", "bf16", "f64")
INTS = ("i8", "i32", "i64")
MANT = {"f64": 53, "f32": 24, "f16": 11, "bf16": 8}                # significand bits
EPS = {"f64": 2.0 ** -53, "f32": 2.0 ** -24, "f16": 2.0 ** -11, "bf16": 2.0 ** -8}   # unit roundoff
FMAX = {"f64": 1e30, "f32": 1e30, "f16": 30000.0, "bf16": 1e30}      # keep bounds well inside the range
IBITS = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64}
NEG_INF = {"f64": "0xFFF0000000000000", "f32": "0xFF800000", "f16": "0xFC00", "bf16": "0xFF80"}
POS_INF = {"f64": "0x7FF0000000000000", "f32": "0x7F800000", "f16": "0x7C00", "bf16": "0x7F80"}


class Mismatch(AssertionError):
    pass


def prod(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def ttype(shape, dt):
    return "tile<" + "".join(f"{d}x" for d in shape) + dt + ">"


def fnum(x):
    return f"{float(x):.6e}"


@dataclass
class Val:
    name: str
    shape: tuple
    dt: str
    bound: float = 0.0      # |value| <= bound
    tol: float = 0.0        # worst |difference| of two correct implementations (0: bit exact)
    q: int | None = 0       # the value is a multiple of 2**-q (None: unknown)

    @property
    def ty(self):
        return ttype(self.shape, self.dt)

    @property
    def n(self):
        return prod(self.shape)

    @property
    def isfloat(self):
        return self.dt in FLOATS

    @property
    def exact(self):
        return self.tol == 0


def fits(dt, bound, q):
    """A value of `bound` on the 2**-q grid is exactly representable in float `dt`
    (so is every partial sum of such values below `bound`)."""
    if dt not in FLOATS:
        return True
    if q is None or bound > FMAX[dt]:
        return False
    return bound * 2.0 ** q < 2.0 ** MANT[dt]


@dataclass
class Array:
    label: str
    dt: str
    shape: tuple            # logical extents
    strides: tuple          # element strides
    size: int               # buffer elements
    role: str               # "in" | "out"
    aligned_strides: bool = False

    def buffer(self, rng):
        if self.role == "out":
            fill = -3.5 if self.dt in FLOATS else -77
            return np.full(self.size, fill, NP[self.dt])
        if self.dt in FLOATS:
            return (rng.integers(-8, 9, self.size) / 4.0).astype(NP[self.dt])
        lim = {"i8": 20, "i32": 1000, "i64": 1000}[self.dt]
        return rng.integers(-lim, lim + 1, self.size).astype(NP[self.dt])


def transposed(rng, ext):
    """(a permutation other than the identity, the array extents it reads `ext`
    through): stored transposed, tile dim i runs along tensor dim perm[i]."""
    perm = list(range(len(ext)))
    while perm == sorted(perm):
        rng.shuffle(perm)
    tshape = [0] * len(ext)
    for i, d in enumerate(perm):
        tshape[d] = ext[i]
    return perm, tshape


@dataclass
class Output:
    label: str
    dt: str
    tol: float
    bound: float


@dataclass
class Kernel:
    seed: int
    family: str
    text: str
    grid: tuple
    arrays: list
    outputs: list
    features: set = field(default_factory=set)
    name: str = "fuzz"
    num_warps: int | None = None
    slots: list = field(default_factory=list)     # parameters in order: Array, or a scalar value


    def args(self):
        """(launch arguments, {label: buffer}) built from the seed."""
        rng = np.random.default_rng(self.seed)
        args, bufs = [], {}
        for a in self.slots or self.arrays:
            if not isinstance(a, Array):
                args.append(a)
                continue
            buf = a.buffer(rng)
            bufs[a.label] = buf
            args += [buf, *a.shape, *a.strides]
        return args, bufs

    def run_interpreter(self):
        from tilec.interp import launch, parse_module
        args, bufs = self.args()
        launch(parse_module(self.text), None, self.grid, args, stdout=io.StringIO())
        return {o.label: bufs[o.label] for o in self.outputs}

    def compile(self, arch, **kw):
        from tilec.codegen.ptx import compile_text
        from tilec.conversion.target import target_for
        t = target_for(arch)
        # warp-specialized targets take whole warpgroups only
        if self.num_warps is not None and not (t is not None and t.warp_specialized and self.num_warps % 4):
            kw.setdefault("num_warps", self.num_warps)
        return compile_text(self.text, arch=arch, **kw)

    def run_sim(self, ptx, **kw):
        try:
            import ptxsim
        except ImportError:            # pragma: no cover - importlib mode from the repository root
            from tests import ptxsim
        from tilec.runtime import convert_scalars
        args, bufs = self.args()
        ptxsim.run_ptx(ptx, self.name, self.grid, convert_scalars(self.text, args), **kw)
        return {o.label: bufs[o.label] for o in self.outputs}

    def compare(self, got, want):
        for o in self.outputs:
            g, w = got[o.label], want[o.label]
            if o.dt not in FLOATS:
                bad = g != w
                how = "exact"
            else:
                g64, w64 = g.astype(np.float64), w.astype(np.float64)
                same = (g64 == w64) | (np.isnan(g64) & np.isnan(w64))
                if o.tol == 0:
                    bad = ~same
                    how = "exact"
                else:
                    allowed = o.tol + 2 * EPS[o.dt] * np.abs(w64) + 1e-30
                    with np.errstate(invalid="ignore"):
                        bad = ~same & ~(np.abs(g64 - w64) <= allowed)
                    how = f"tol {o.tol:.3g} + 2 ulp"
            if bad.any():
                idx = np.flatnonzero(bad)
                first = ", ".join(f"[{int(i)}] sim {g[i]!r} interp {w[i]!r}" for i in idx[:6])
                raise Mismatch(f"output {o.label}: {len(idx)} of {g.size} elements differ ({how}); "
                               f"first: {first}")


# ---- the generator ------------------------------------------------------------------------

class Gen:
    MAXN = 2048             # elements of an elementwise tile

    def __init__(self, seed, family=None):
        self.seed = seed
        self.r = random.Random(seed)
        # choices added later draw from their own stream: the main one (and with it what
        # every earlier seed generates) stays as it was
        self.r_extra = random.Random(seed * 7919 + 1)
        self.k = 0
        self.body = []          # lines of the entry body after the prologue
        self.prologue = []      # constants, block ids
        self.params = []
        self.arrays = []
        self.outputs = []
        self.consts = {}
        self.features = set()
        self.depth = 1          # indentation inside the entry
        self.family = family
        self.grid = (1, 1, 1)
        self.token = "%tok0"
        self.hints = ""
        self.a_array = None
        self.ptr_of = {}
        self.strides_of = {}      # array label -> its strides' value names (all but the last, 1)
        self.slots = []

    # -- text helpers --
    def fresh(self, hint="v"):
        self.k += 1
        return f"%{hint}{self.k}"

    def emit(self, line):
        self.body.append("  " * (self.depth + 1) + line)

    def const(self, value, dt="i32", shape=()):
        key = (value, dt, shape)
        if key not in self.consts:
            name = self.fresh("c")
            lit = fnum(value) if dt in FLOATS else str(int(value))
            self.prologue.append(f"    {name} = constant <{dt}: {lit}> : {ttype(shape, dt)}")
            self.consts[key] = name
        return self.consts[key]

    def cval(self, value, dt, shape):
        """A splat constant as a Val."""
        q = 0
        while value * 2 ** q != int(value * 2 ** q) and q < 30:
            q += 1
        return Val(self.const(value, dt, shape), shape, dt, abs(value), 0.0, q)

    # -- arrays --
    def add_array(self, dt, shape, role, pitch_pad=None):
        """A kernel parameter group for an array; returns (tensor view name, Array)."""
        i = len(self.arrays)
        label = f"{'x' if role == 'in' else 'y'}{i}"
        rank = len(shape)
        # element strides: row-major, maybe with a padded row pitch; `aligned`: the kernel
        # assumes div_by<16> on the strides (what makes TMA possible on sm_90a)
        strides = [1] * rank
        aligned = False
        inner = shape[-1] if rank else 1
        if rank >= 2:
            mode = pitch_pad or self.r.choice(["none", "none", "contig16", "pad16", "padodd"] +
                                              ["contig16", "pad16"] * (self.family in ("dot", "attn")))
            if mode == "contig16" and shape[-1] % 16 == 0:
                aligned = True
            elif mode == "pad16":
                inner = -(-shape[-1] // 16) * 16 + 16 * self.r.randint(0, 1)
                aligned = True
            elif mode == "padodd":
                inner = shape[-1] + self.r.randint(1, 5)
            if inner != shape[-1]:
                self.features.add("pitch")
            if aligned:
                self.features.add("aligned")
        acc = 1
        for d in range(rank - 1, -1, -1):
            strides[d] = acc
            acc *= inner if d == rank - 1 else shape[d]
        size = strides[0] * shape[0] if rank else 1
        if rank >= 2:
            size = strides[0] * shape[0]
        arr = Array(label, dt, tuple(shape), tuple(strides), size, role, aligned)
        self.arrays.append(arr)
        self.slots.append(arr)
        ptr = f"%{label}"
        shp = [f"%{label}_s{d}" for d in range(rank)]
        std = [f"%{label}_t{d}" for d in range(rank)]
        self.params += [f"{ptr}: tile<ptr<{dt}>>"] + [f"{n}: tile<i32>" for n in shp + std]
        pa = self.fresh("p")
        self.prologue.append(f"    {pa} = assume div_by<16>, {ptr} : tile<ptr<{dt}>>")
        self.ptr_of[label] = pa
        dyn_std = []
        for d in range(rank - 1):
            n = std[d]
            if aligned:
                m = self.fresh("a")
                self.prologue.append(f"    {m} = assume div_by<16>, {n} : tile<i32>")
                n = m
            dyn_std.append(n)
        self.strides_of[label] = dyn_std
        shp2 = []
        for d in range(rank):
            m = self.fresh("a")
            pred = "div_by<16>" if shape[d] % 16 == 0 and self.r.random() < 0.5 else "bounded<0, ?>"
            self.prologue.append(f"    {m} = assume {pred}, {shp[d]} : tile<i32>")
            shp2.append(m)
        tv = self.fresh("tv")
        tvt = self.tvtype(dt, rank)
        self.prologue.append(f"    {tv} = make_tensor_view {pa}, shape = [{', '.join(shp2)}], "
                             f"strides = [{', '.join(dyn_std + ['1'])}] : tile<i32> -> {tvt}")
        return tv, arr

    @staticmethod
    def tvtype(dt, rank):
        return (f"tensor_view<{'x'.join(['?'] * rank)}x{dt}, strides=[{', '.join(['?'] * (rank - 1) + ['1'])}]>")

    def pvtype(self, tv_dt, rank, tile, pad=True, dim_map=None):
        s = f"partition_view<tile=({'x'.join(map(str, tile))}), "
        if pad:
            s += "padding_value = zero, "
        s += self.tvtype(tv_dt, rank)
        if dim_map is not None:
            s += f", dim_map=[{', '.join(map(str, dim_map))}]"
        return s + ">"

    def load(self, tv, arr, tile, index, dim_map=None):
        pvt = self.pvtype(arr.dt, len(arr.shape), tile, True, dim_map)
        pv = self.fresh("pv")
        self.emit(f"{pv} = make_partition_view {tv} : {pvt}")
        t, tok = self.fresh("ld"), self.fresh("tk")
        self.emit(f"{t}, {tok} = load_view_tko weak {pv}[{', '.join(index)}] token = {self.token} : "
                  f"{pvt}, tile<i32> -> {ttype(tile, arr.dt)}, token")
        if arr.dt in FLOATS:
            return Val(t, tuple(tile), arr.dt, 2.0, 0.0, 2)
        return Val(t, tuple(tile), arr.dt, {"i8": 20, "i32": 1000, "i64": 1000}[arr.dt], 0.0, 0)

    def store(self, v, tv, arr, index, dim_map=None):
        pvt = self.pvtype(arr.dt, len(arr.shape), v.shape, False, dim_map)
        pv = self.fresh("pv")
        self.emit(f"{pv} = make_partition_view {tv} : {pvt}")
        tok = self.fresh("tk")
        self.emit(f"{tok} = store_view_tko weak {v.name}, {pv}[{', '.join(index)}] token = {self.token} : "
                  f"{v.ty}, {pvt}, tile<i32> -> token")

    # -- ops: each returns a Val --
    def op(self, text, shape, dt, bound, tol, q, hint="v"):
        name = self.fresh(hint)
        self.emit(f"{name} = {text}")
        return Val(name, tuple(shape), dt, bound, tol, q)

    def binf(self, kind, a, b):
        dt = a.dt
        tol_in = max(a.tol, b.tol)
        if kind in ("addf", "subf"):
            bound = a.bound + b.bound
            q = None if a.q is None or b.q is None else max(a.q, b.q)
            tol = a.tol + b.tol
        elif kind == "mulf":
            bound = a.bound * b.bound
            q = None if a.q is None or b.q is None else a.q + b.q
            tol = a.tol * b.bound + b.tol * a.bound + a.tol * b.tol
        else:   # maxf / minf
            bound = max(a.bound, b.bound)
            q = None if a.q is None or b.q is None else max(a.q, b.q)
            tol = tol_in
        if not fits(dt, bound, q):
            q = None
            if tol:
                tol += 2 * EPS[dt] * bound
        return self.op(f"{kind} {a.name}, {b.name} : {a.ty}", a.shape, dt, bound, tol, q)

    def bini(self, kind, a, b):
        bits = IBITS[a.dt]
        lim = 2.0 ** (bits - 1)
        if kind in ("addi", "subi"):
            bound = a.bound + b.bound
        elif kind == "muli":
            bound = a.bound * b.bound
        elif kind in ("andi", "ori", "xori"):
            bound = lim          # negative operands: anything
        else:
            bound = max(a.bound, b.bound)
        bound = min(bound, lim)
        sign = " signed" if kind in ("maxi", "mini") else ""
        return self.op(f"{kind} {a.name}, {b.name}{sign} : {a.ty}", a.shape, a.dt, bound, 0.0, 0)

    def unary(self, v):
        """A random unary op on v (same shape)."""
        r = self.r
        if v.isfloat:
            choices = ["negf", "absf", "mulc", "addc", "roundtrip"]
            if v.bound <= (6 if v.dt == "f16" else 10):
                choices.append("exp2")
            if v.exact:
                choices += ["floor", "sqrt"]
            choices += ["math"]
            kind = r.choice(choices)
            if kind == "math":
                m = self.math_fn(v)
                if m is not None:
                    return m
                kind = "negf"
            if kind in ("negf", "absf"):
                return self.op(f"{kind} {v.name} : {v.ty}", v.shape, v.dt, v.bound, v.tol, v.q)
            if kind == "mulc":
                c = r.choice([0.5, -2.0, 0.25, 1.5, 3.0, -1.0])
                return self.binf("mulf", v, self.cval(c, v.dt, v.shape))
            if kind == "addc":
                c = r.choice([0.5, -1.0, 0.25, 1.75, -3.0])
                return self.binf("addf", v, self.cval(c, v.dt, v.shape))
            if kind == "exp2":
                self.features.add("exp2")
                b = 2.0 ** v.bound
                exact = v.exact and v.q == 0
                tol = 0.0 if exact else (math.log(2) * b * v.tol + 4 * EPS[v.dt] * b + 4 * EPS["f32"] * b)
                return self.op(f"exp2 {v.name} : {v.ty}", v.shape, v.dt, b, tol, 0 if exact else None)
            if kind == "floor":
                return self.op(f"floor {v.name} : {v.ty}", v.shape, v.dt, v.bound + 1, 0.0, 0)
            if kind == "sqrt":
                a = self.op(f"absf {v.name} : {v.ty}", v.shape, v.dt, v.bound, v.tol, v.q)
                self.features.add("sqrt")
                return self.op(f"sqrt {a.name} : {v.ty}", v.shape, v.dt, math.sqrt(v.bound) + 1, 0.0, None)
            # roundtrip through another float type
            other = r.choice([d for d in FLOATS if d != v.dt])
            if v.bound > FMAX[other]:
                return self.op(f"negf {v.name} : {v.ty}", v.shape, v.dt, v.bound, v.tol, v.q)
            w = self.convert_f(v, other)
            return self.convert_f(w, v.dt)
        choices = ["absi", "negi", "addc", "mulc", "shli", "shri", "andc", "remc", "divc"]
        kind = r.choice(choices)
        if kind in ("absi", "negi"):
            return self.op(f"{kind} {v.name} : {v.ty}", v.shape, v.dt, v.bound, 0.0, 0)
        if kind == "addc":
            return self.bini("addi", v, self.cval(r.choice([1, -3, 7]), v.dt, v.shape))
        if kind == "mulc":
            return self.bini("muli", v, self.cval(r.choice([2, -3, 5]), v.dt, v.shape))
        if kind == "andc":
            return self.op(f"andi {v.name}, {self.const(r.choice([0xF, 0x3C, 0x55]), v.dt, v.shape)} : {v.ty}",
                           v.shape, v.dt, 0x7F, 0.0, 0)
        if kind == "shli":
            c = self.const(r.randint(1, 3), v.dt, v.shape)
            return self.op(f"shli {v.name}, {c} : {v.ty}", v.shape, v.dt, 2.0 ** (IBITS[v.dt] - 1), 0.0, 0)
        if kind == "shri":
            c = self.const(r.randint(1, 3), v.dt, v.shape)
            sg = r.choice(["signed", "unsigned"])
            return self.op(f"shri {v.name}, {c} {sg} : {v.ty}", v.shape, v.dt,
                           v.bound if sg == "signed" else 2.0 ** (IBITS[v.dt] - 1), 0.0, 0)
        c = self.const(r.choice([3, 4, 7]), v.dt, v.shape)
        if kind == "remc":
            return self.op(f"remi {v.name}, {c} signed : {v.ty}", v.shape, v.dt, 7, 0.0, 0)
        return self.op(f"divi {v.name}, {c} signed : {v.ty}", v.shape, v.dt, v.bound, 0.0, 0)

    def math_fn(self, v):
        """exp / log / tanh / sin / cos / rsqrt / divf: results within a tolerance (the
        compiler's formulas and approximations; the simulator computes .approx exactly)."""
        r = self.r
        dt = v.dt
        rel = 2 * EPS[dt] + (2.0 ** -20 if dt != "f64" else 2.0 ** -44)
        kind = r.choice(["exp", "log", "rsqrt", "divf"] + (["tanh", "sin", "cos"] if dt != "f64" else []))
        self.features.add(f"math_{kind}")
        if kind == "exp":
            if v.bound > 8:
                return None
            b = math.exp(v.bound)
            return self.op(f"exp {v.name} : {v.ty}", v.shape, dt, b, b * v.tol + 4 * rel * b, None)
        if kind in ("sin", "cos"):
            if v.bound > 64:
                return None
            return self.op(f"{kind} {v.name} : {v.ty}", v.shape, dt, 1.0, v.tol + 4 * rel * max(1.0, v.bound), None)
        if kind == "tanh":
            return self.op(f"tanh {v.name} : {v.ty}", v.shape, dt, 1.0, v.tol + 4 * rel, None)
        # on |v| + 1 >= 1
        a = self.op(f"absf {v.name} : {v.ty}", v.shape, dt, v.bound, v.tol, v.q)
        a1 = self.binf("addf", a, self.cval(1.0, dt, v.shape))
        if kind == "log":
            b = math.log(a1.bound)
            return self.op(f"log {a1.name} : {v.ty}", v.shape, dt, b + 1, a1.tol + 4 * rel * max(1.0, b), None)
        if kind == "rsqrt":
            return self.op(f"rsqrt {a1.name} : {v.ty}", v.shape, dt, 1.0, a1.tol + 4 * rel, None)
        w = self.partner([], v)
        bound = w.bound
        return self.op(f"divf {w.name}, {a1.name} : {v.ty}", v.shape, dt, bound,
                       w.tol + bound * a1.tol + 4 * rel * bound, None)

    def if_step(self, pool, v):
        """r = if (a condition on the block id or on an exact scalar) {f(pool)} else {g(pool)}: v's type."""
        r = self.r
        gx, gy, _ = self.grid
        if r.random() < 0.6 or not any(w.exact and w.dt in ("i32", "f32") for w in pool):
            which = "%bx" if gx > 1 or r.random() < 0.5 else "%by"
            cond = self.op(f"cmpi equal {which}, {self.const(0)}, signed : tile<i32> -> tile<i1>", (), "i1", 1, 0, 0)
        else:
            w = r.choice([w for w in pool if w.exact and w.dt in ("i32", "f32")])
            while w.shape:
                w = self.reduce(w, 0, "max")
            z = self.cval(0.0 if w.isfloat else 0, w.dt, ())
            pred = r.choice(["greater_than", "less_than_or_equal"])
            cond = self.op((f"cmpf {pred} ordered {w.name}, {z.name} : {w.ty} -> tile<i1>" if w.isfloat else
                            f"cmpi {pred} {w.name}, {z.name}, signed : {w.ty} -> tile<i1>"), (), "i1", 1, 0, 0)
        branches = []
        for _ in range(2):
            saved, self.body = self.body, []
            self.depth += 1
            bpool = list(pool)
            self.steps(bpool, r.randint(0, 3))
            w = self.pick(bpool[len(pool):] or bpool)
            w2 = self.convert(w, v.dt) if w is not None else None
            if w2 is not None:
                w2 = self.coerce(w2, v.shape)
            if w2 is None or w2.shape != v.shape or w2.dt != v.dt:
                w2 = v
            self.emit(f"yield {w2.name} : {w2.ty}")
            body, self.body = self.body, saved
            self.depth -= 1
            branches.append((body, w2))
        res = self.fresh("if")
        self.emit(f"{res} = if {cond.name} -> ({v.ty}) {{")
        self.body += branches[0][0]
        self.emit("} else {")
        self.body += branches[1][0]
        self.emit("}")
        a, b = branches[0][1], branches[1][1]
        self.features.add("if")
        return Val(res, v.shape, v.dt, max(a.bound, b.bound), max(a.tol, b.tol),
                   None if a.q is None or b.q is None else max(a.q, b.q))

    def convert_f(self, v, to):
        """ftof v -> float type `to`."""
        tol = v.tol
        q = v.q if fits(to, v.bound, v.q) else None
        if q is None and to != "f32" and (tol or v.q is None) and MANT[to] < MANT[v.dt]:
            tol = tol + 2 * EPS[to] * v.bound if tol else 0.0
        if tol and MANT[to] < MANT[v.dt]:
            tol += 2 * EPS[to] * v.bound
        return self.op(f"ftof {v.name} : {v.ty} -> {ttype(v.shape, to)}", v.shape, to, v.bound, tol, q)

    def convert(self, v, to):
        """v converted to dtype `to` (any pair this generator uses), or None."""
        if v.dt == to:
            return v
        if v.isfloat and to in FLOATS:
            if v.bound > FMAX[to]:
                return None
            return self.convert_f(v, to)
        if v.isfloat:                        # ftoi: exact inputs only (truncation is discontinuous)
            if not v.exact or v.bound >= 2.0 ** (IBITS[to] - 2) or to == "i8":
                return None
            self.features.add("ftoi")
            return self.op(f"ftoi {v.name} signed : {v.ty} -> {ttype(v.shape, to)}", v.shape, to,
                           v.bound, 0.0, 0)
        if to in FLOATS:                     # itof
            if v.bound > FMAX[to]:
                return None
            self.features.add("itof")
            q = 0 if fits(to, v.bound, 0) else None
            return self.op(f"itof {v.name} signed : {v.ty} -> {ttype(v.shape, to)}", v.shape, to,
                           v.bound, 0.0, q)
        if IBITS[to] > IBITS[v.dt]:
            sg = self.r.choice(["signed", "unsigned"])
            self.features.add("exti")
            return self.op(f"exti {v.name} {sg} : {v.ty} -> {ttype(v.shape, to)}", v.shape, to,
                           v.bound if sg == "signed" else 2.0 ** IBITS[v.dt], 0.0, 0)
        self.features.add("trunci")
        return self.op(f"trunci {v.name} : {v.ty} -> {ttype(v.shape, to)}", v.shape, to,
                       min(v.bound, 2.0 ** (IBITS[to] - 1)), 0.0, 0)

    # layout ops
    def reshape(self, v, shape):
        if tuple(shape) == v.shape:
            return v
        self.features.add("reshape")
        return self.op(f"reshape {v.name} : {v.ty} -> {ttype(shape, v.dt)}", shape, v.dt, v.bound, v.tol, v.q)

    def broadcast(self, v, shape):
        if tuple(shape) == v.shape:
            return v
        self.features.add("broadcast")
        return self.op(f"broadcast {v.name} : {v.ty} -> {ttype(shape, v.dt)}", shape, v.dt, v.bound, v.tol, v.q)

    def permute(self, v, perm):
        shape = tuple(v.shape[p] for p in perm)
        self.features.add("permute")
        return self.op(f"permute {v.name} [{', '.join(map(str, perm))}] : {v.ty} -> {ttype(shape, v.dt)}",
                       shape, v.dt, v.bound, v.tol, v.q)

    def _combiner(self, v, n, kind):
        """(identity, body op, signedness, bound, tol, grid) of a `kind` (sum | max | min)
        combination of `n` elements of `v` along an axis (reduce, scan)."""
        dt = v.dt
        if v.isfloat:
            ident = {"sum": "0.000000e+00", "max": NEG_INF[dt], "min": POS_INF[dt]}[kind]
            body_op = {"sum": "addf", "max": "maxf", "min": "minf"}[kind]
        else:
            bits = IBITS[dt]
            ident = {"sum": "0", "max": str(-2 ** (bits - 1)), "min": str(2 ** (bits - 1) - 1)}[kind]
            body_op = {"sum": "addi", "max": "maxi", "min": "mini"}[kind]
        bound, tol, q = v.bound, v.tol, v.q
        if kind == "sum":
            bound = n * v.bound
            if v.isfloat:
                if v.exact and fits(dt, bound, v.q):
                    tol = 0.0
                else:
                    tol = n * v.tol + 2 * (math.log2(n) + 1) * EPS[dt] * bound
                    q = None
            else:
                bound = min(bound, 2.0 ** (IBITS[dt] - 1))
        sign = " signed" if body_op in ("maxi", "mini") else ""
        return ident, body_op, sign, bound, tol, q

    def _combine_region(self, prefix, dt, body_op, sign):
        a, b, s = self.fresh(prefix + "a"), self.fresh(prefix + "b"), self.fresh(prefix + "s")
        st = ttype((), dt)
        self.emit(f"({a}: {st}, {b}: {st}) {{")
        self.emit(f"  {s} = {body_op} {a}, {b}{sign} : {st}")
        self.emit(f"  yield {s} : {st}")
        self.emit("}")

    def reduce(self, v, axis, kind):
        """kind: sum | max | min."""
        shape = v.shape[:axis] + v.shape[axis + 1:]
        dt = v.dt
        ident, body_op, sign, bound, tol, q = self._combiner(v, v.shape[axis], kind)
        self.features.add(f"reduce_{kind}")
        name = self.fresh("red")
        self.emit(f"{name} = reduce {v.name} dim={axis} identities=[{ident} : {dt}] : {v.ty} -> {ttype(shape, dt)}")
        self._combine_region("r", dt, body_op, sign)
        return Val(name, shape, dt, bound, tol, q)

    def scan(self, v, axis, kind, reverse):
        """kind: sum | max."""
        dt = v.dt
        ident, body_op, sign, bound, tol, q = self._combiner(v, v.shape[axis], kind)
        self.features.add(f"scan_{kind}")
        name = self.fresh("scan")
        self.emit(f"{name} = scan {v.name} dim={axis} reverse={'true' if reverse else 'false'} "
                  f"identities=[{ident} : {dt}] : {v.ty} -> {v.ty}")
        self._combine_region("s", dt, body_op, sign)
        return Val(name, v.shape, dt, bound, tol, q)

    def cat(self, a, b, dim):
        shape = list(a.shape)
        shape[dim] *= 2
        self.features.add("cat")
        return self.op(f"cat {a.name}, {b.name} dim = {dim} : {a.ty}, {b.ty} -> {ttype(shape, a.dt)}", shape, a.dt,
                       max(a.bound, b.bound), max(a.tol, b.tol),
                       None if a.q is None or b.q is None else max(a.q, b.q))

    def extract(self, v, dim, parts):
        shape = list(v.shape)
        shape[dim] //= parts
        idx = [self.const(0)] * len(shape)
        idx[dim] = self.const(self.r.randrange(parts))
        self.features.add("extract")
        return self.op(f"extract {v.name}[{', '.join(idx)}] : {v.ty} -> {ttype(shape, v.dt)}", shape, v.dt,
                       v.bound, v.tol, v.q)

    def iota_along(self, shape, axis, dt="i32"):
        """i32 tile of `shape` whose value is the index along `axis`."""
        n = shape[axis]
        io_ = self.op(f"iota : {ttype((n,), dt)}", (n,), dt, n, 0.0, 0)
        self.features.add("iota")
        unit = tuple(n if d == axis else 1 for d in range(len(shape)))
        return self.broadcast(self.reshape(io_, unit), shape)

    def select(self, cond, a, b):
        return self.op(f"select {cond.name}, {a.name}, {b.name} : {cond.ty}, {a.ty}", a.shape, a.dt,
                       max(a.bound, b.bound), max(a.tol, b.tol),
                       None if a.q is None or b.q is None else max(a.q, b.q))

    def cmp(self, a, b):
        preds = ["equal", "not_equal", "less_than", "less_than_or_equal", "greater_than", "greater_than_or_equal"]
        p = self.r.choice(preds)
        it = ttype(a.shape, "i1")
        if a.isfloat:
            return self.op(f"cmpf {p} {self.r.choice(['ordered', 'unordered'])} {a.name}, {b.name} : {a.ty} -> {it}",
                           a.shape, "i1", 1, 0.0, 0)
        return self.op(f"cmpi {p} {a.name}, {b.name}, {self.r.choice(['signed', 'unsigned'])} : {a.ty} -> {it}",
                       a.shape, "i1", 1, 0.0, 0)

    # -- random steps over a pool of values --
    def pick(self, pool, pred=lambda v: True):
        cands = [v for v in pool if pred(v) and v.dt != "i1"]
        if not cands:
            return None
        recent = cands[-4:]
        return self.r.choice(recent if self.r.random() < 0.7 else cands)

    def partner(self, pool, v, exact=False):
        """Another value of v's shape and dtype (made from v when the pool has none)."""
        cands = [w for w in pool if w.shape == v.shape and w.dt == v.dt and w is not v and (w.exact or not exact)]
        if cands and self.r.random() < 0.8:
            return self.r.choice(cands)
        return self.unary(v) if not exact or v.isfloat is False else self._exact_unary(v)

    def _exact_unary(self, v):
        for _ in range(4):
            w = self.unary(v)
            if w.exact:
                return w
        return self.op(f"negf {v.name} : {v.ty}", v.shape, v.dt, v.bound, v.tol, v.q)

    def new_shape(self, v):
        """A reshape target for v."""
        r = self.r
        s = list(v.shape)
        opts = []
        if len(s) < 4:
            opts.append("unit")
        if 1 in s and len(s) > 1:
            opts.append("drop")
        if len(s) >= 2:
            opts.append("merge")
        if any(d >= 4 for d in s) and len(s) < 4:
            opts.append("split")
        opts.append("any")
        kind = r.choice(opts)
        if kind == "unit":
            s.insert(r.randint(0, len(s)), 1)
        elif kind == "drop":
            s.remove(1)
        elif kind == "merge":
            i = r.randrange(len(s) - 1)
            s[i:i + 2] = [s[i] * s[i + 1]]
        elif kind == "split":
            i = r.choice([d for d in range(len(s)) if s[d] >= 4])
            a = 2 ** r.randint(1, int(math.log2(s[i])) - 1)
            s[i:i + 1] = [a, s[i] // a]
        else:
            n = prod(s)
            rank = r.randint(1, 4)
            e = int(math.log2(n))
            cuts = sorted(r.randint(0, e) for _ in range(rank - 1))
            parts = [b - a for a, b in zip([0] + cuts, cuts + [e])]
            s = [2 ** p for p in parts]
        return tuple(s) if s else (1,)

    def step(self, pool):
        """Append one new value made from the pool; returns it (or None)."""
        r = self.r
        kinds = ["unary"] * 3 + ["binary"] * 4 + ["fma", "select", "convert", "reshape", "permute", "reduce",
                                                   "reduce_bcast", "reduce_bcast", "scan", "cat", "extract",
                                                   "iota_mask", "bcast_vec", "mix", "mix", "mix", "dot", "dot", "if"]
        kind = r.choice(kinds)
        v = self.pick(pool)
        if v is None:
            return None
        if kind == "unary":
            return self.unary(v)
        if kind == "binary":
            w = self.partner(pool, v)
            if v.isfloat:
                op = r.choice(["addf", "subf", "mulf", "maxf", "minf"])
                if op == "mulf" and v.bound * w.bound > FMAX[v.dt]:
                    op = "maxf"
                return self.binf(op, v, w)
            op = r.choice(["addi", "subi", "muli", "maxi", "mini", "andi", "ori", "xori"])
            return self.bini(op, v, w)
        if kind == "fma":
            if not v.isfloat:
                return None
            b, c = self.partner(pool, v), self.partner(pool, v)
            if v.bound * b.bound + c.bound > FMAX[v.dt]:
                return None
            bound = v.bound * b.bound + c.bound
            q = None if None in (v.q, b.q, c.q) else max(v.q + b.q, c.q)
            tol = v.tol * b.bound + b.tol * v.bound + c.tol + v.tol * b.tol
            if not fits(v.dt, bound, q):
                q = None
                tol = tol + 2 * EPS[v.dt] * bound if tol else 0.0
            self.features.add("fma")
            return self.op(f"fma {v.name}, {b.name}, {c.name} : {v.ty}", v.shape, v.dt, bound, tol, q)
        if kind == "select":
            exact = [w for w in pool if w.exact and w.dt != "i1"]
            if not exact:
                return None
            a = r.choice(exact[-4:])
            b = self.partner(pool, a, exact=True)
            cond = self.cmp(a, b)
            c = self.pick(pool, lambda w: w.shape == a.shape) or a
            d = self.partner(pool, c)
            return self.select(cond, c, d)
        if kind == "convert":
            to = r.choice([d for d in FLOATS + INTS if d != v.dt])
            return self.convert(v, to)
        if kind == "reshape":
            return self.reshape(v, self.new_shape(v))
        if kind == "permute":
            if len(v.shape) < 2:
                return None
            perm = list(range(len(v.shape)))
            while perm == sorted(perm):
                r.shuffle(perm)
            return self.permute(v, perm)
        if kind == "reduce":
            if not v.shape or max(v.shape) == 1:
                return None
            axis = r.choice([d for d in range(len(v.shape)) if v.shape[d] > 1])
            red = self.reduce(v, axis, r.choice(["sum", "max", "min"]))
            if not red.shape:
                red = self.reshape(red, (1,))
            return red
        if kind == "reduce_bcast":
            if not v.shape or max(v.shape) == 1:
                return None
            axis = r.choice([d for d in range(len(v.shape)) if v.shape[d] > 1])
            red = self.reduce(v, axis, r.choice(["sum", "max", "min"]))
            keep = tuple(1 if d == axis else n for d, n in enumerate(v.shape))
            b = self.broadcast(self.reshape(red, keep), v.shape)
            if v.isfloat:
                op = "subf" if r.random() < 0.6 else r.choice(["addf", "maxf", "mulf"])
                if op == "mulf" and v.bound * b.bound > FMAX[v.dt]:
                    op = "subf"
                return self.binf(op, v, b)
            return self.bini(r.choice(["subi", "addi", "maxi"]), v, b)
        if kind == "scan":
            if not v.shape:
                return None
            axis = r.randrange(len(v.shape))
            if v.shape[axis] == 1:
                return None
            return self.scan(v, axis, r.choice(["sum", "max"]), r.random() < 0.3)
        if kind == "cat":
            if not v.shape or v.n * 2 > self.MAXN:
                return None
            w = self.partner(pool, v)
            return self.cat(v, w, r.randrange(len(v.shape)))
        if kind == "extract":
            dims = [d for d in range(len(v.shape)) if v.shape[d] >= 2]
            if not dims:
                return None
            d = r.choice(dims)
            return self.extract(v, d, r.choice([p for p in (2, 4) if v.shape[d] % p == 0]))
        if kind == "iota_mask":
            if len(v.shape) < 1:
                return None
            a1 = r.randrange(len(v.shape))
            i1 = self.iota_along(v.shape, a1)
            if len(v.shape) >= 2 and r.random() < 0.7:
                a2 = r.choice([d for d in range(len(v.shape)) if d != a1])
                i2 = self.iota_along(v.shape, a2)
            else:
                i2 = Val(self.const(r.randint(0, v.shape[a1]), "i32", v.shape), v.shape, "i32", 0, 0.0, 0)
            cond = self.cmp(i1, i2)
            zero = self.cval(0.0 if v.isfloat else 0, v.dt, v.shape)
            return self.select(cond, v, zero) if r.random() < 0.5 else self.select(cond, zero, v)
        if kind == "mix":
            return self.mix(pool, v)
        if kind == "if":
            return self.if_step(pool, v)
        if kind == "dot":
            return self.reg_dot(pool, v)
        if kind == "bcast_vec":
            # a 1-D value (or a new reduction) reshaped with unit dims and broadcast along another
            if len(v.shape) == 1 and v.n * 8 <= self.MAXN:
                n = v.shape[0]
                m = 2 ** r.randint(1, 3)
                shape = (n, m) if r.random() < 0.5 else (m, n)
                unit = (n, 1) if shape[0] == n else (1, n)
                return self.broadcast(self.reshape(v, unit), shape)
            if 1 in v.shape:
                shape = tuple(2 ** r.randint(1, 3) if d == 1 else d for d in v.shape)
                if prod(shape) <= self.MAXN:
                    return self.broadcast(v, shape)
            return None
        return None

    def coerce(self, w, shape):
        """w (any shape) made into a tile of `shape` by permute / reshape / reduce / broadcast."""
        r = self.r
        n = prod(shape)
        if w.shape == tuple(shape):
            return w
        if sorted(w.shape) == sorted(shape) and len(shape) >= 2 and r.random() < 0.7:
            perm, used = [], set()
            for d in shape:
                i = next(i for i in range(len(w.shape)) if w.shape[i] == d and i not in used)
                used.add(i)
                perm.append(i)
            return self.permute(w, perm)
        while w.n > n:                                  # reduce the largest dims away
            axes = [d for d in range(len(w.shape)) if w.shape[d] > 1]
            if not axes:
                break
            ax = r.choice(axes)
            if w.n // w.shape[ax] >= n or r.random() < 0.5:
                w = self.reduce(w, ax, r.choice(["sum", "max", "min"]))
            else:
                w = self.extract(w, ax, 2)
            if not w.shape:
                w = self.reshape(w, (1,))
        if w.n == n:
            return self.reshape(w, shape)
        # w.n < n: place w's elements along a suffix/prefix of dims, broadcast the rest
        m = w.n
        unit = [1] * len(shape)
        for d in (range(len(shape) - 1, -1, -1) if r.random() < 0.5 else range(len(shape))):
            if m >= shape[d] and m % shape[d] == 0:
                unit[d] = shape[d]
                m //= shape[d]
        if m != 1:
            return None
        return self.broadcast(self.reshape(w, tuple(unit)), shape)

    def mix(self, pool, v):
        """Combine v with another pool value of any shape (coerced to v's shape and type)."""
        others = [w for w in pool if w is not v and w.dt != "i1" and w.shape != v.shape]
        if not others:
            return None
        w = self.r.choice(others)
        if w.dt != v.dt:
            w = self.convert(w, v.dt)
            if w is None:
                return None
        w = self.coerce(w, v.shape)
        if w is None:
            return None
        self.features.add("mix")
        if v.isfloat:
            op = self.r.choice(["addf", "subf", "maxf", "mulf"])
            if op == "mulf" and v.bound * w.bound > FMAX[v.dt]:
                op = "addf"
            return self.binf(op, v, w)
        return self.bini(self.r.choice(["addi", "xori", "maxi"]), v, w)

    def reg_dot(self, pool, v):
        """A dot on register tiles: v (as M x K) times another value made K x N, f16/bf16 operands."""
        r = self.r
        if not v.isfloat:
            return None
        if len(v.shape) == 2 and min(v.shape) >= 16 and v.n <= 4096:
            M, K = v.shape
        else:
            M, K = r.choice([(16, 16), (16, 32), (32, 16), (32, 32), (64, 16), (16, 64)])
            v = self.coerce(v, (M, K))
            if v is None:
                return None
        N = r.choice([16, 32, 64])
        if M * N > 8192:
            return None
        dt = r.choice(["f16", "bf16"])
        if v.bound > FMAX[dt]:
            return None
        a = self.convert(v, dt)
        w = self.pick(pool, lambda x: x.isfloat and x is not v)
        w = w if w is not None else v
        if r.random() < 0.5 and w.n >= K * N:
            b = self.coerce(w, (N, K) if r.random() < 0.5 else (K, N))
            if b is not None and b.shape == (N, K):
                b = self.permute(b, [1, 0])
        else:
            b = self.coerce(w, (K, N))
        if b is None or b.bound > FMAX[dt]:
            return None
        b = self.convert(b, dt)
        if b is None:
            return None
        acc = self.cval(0.0, "f32", (M, N))
        bound = K * a.bound * b.bound
        q = None if a.q is None or b.q is None else a.q + b.q
        tol = K * (a.tol * b.bound + b.tol * a.bound)
        if not fits("f32", bound, q):
            q = None
            tol += 2 * (math.log2(K) + 1) * EPS["f32"] * bound
        self.features.add("reg_dot")
        return self.op(f"mmaf {a.name}, {b.name}, {acc.name} : {a.ty}, {b.ty}, {acc.ty}", (M, N), "f32", bound, tol,
                       q)

    def steps(self, pool, n):
        for _ in range(n):
            for _try in range(4):
                v = self.step(pool)
                if v is not None:
                    pool.append(v)
                    break

    # -- index helpers --
    def block_ids(self):
        bx, by, bz = "%bx", "%by", "%bz"
        return bx, by, bz

    def finish(self):
        name = "fuzz"
        head = [f"cuda_tile.module @{name} {{",
                f"  entry @{name}({', '.join(self.params)}){self.hints} {{",
                "    %tok0 = make_token : token",
                "    %bx, %by, %bz = get_tile_block_id : tile<i32>"]
        text = "\n".join(head + self.prologue + self.body + ["    return", "  }", "}"]) + "\n"
        return Kernel(self.seed, self.family, text, self.grid, self.arrays, self.outputs, self.features, name,
                      slots=self.slots)

    def scalar_param(self, value, hint="n"):
        """An i32 kernel parameter holding `value`."""
        name = self.fresh(hint)
        self.params.append(f"{name}: tile<i32>")
        self.slots.append(int(value))
        return name

    def loop_range(self, trip, ub=None):
        """(lower, upper, step, index maker) of a loop of `trip` iterations in one of several
        forms; the index maker, called first thing in the body, gives the tile index 0..trip-1
        of the iteration (reversed in the 'reverse' form). `ub`: an upper bound value (the
        plain form's), e.g. an index-space extent."""
        r = self.r
        form = r.choice(["plain"] * 5 + ["offset", "step2", "reverse", "dynamic", "step3"])
        self.features.add(f"loop_{form}")
        c0, c1 = self.const(0), self.const(1)
        if form == "plain":
            return c0, ub or self.const(trip), c1, lambda var: var
        if form == "dynamic":
            return c0, self.scalar_param(trip), c1, lambda var: var
        if form == "offset":
            off = r.randint(1, 5)
            return (self.const(off), self.const(trip + off), c1,
                    lambda var: self.op(f"subi {var}, {self.const(off)} : tile<i32>", (), "i32", 0, 0, 0).name)
        if form in ("step2", "step3"):
            st = 2 if form == "step2" else 3
            # trip iterations: st * trip - r for some 0 <= r < st
            hi = st * trip - r.randint(0, st - 1)
            return (c0, self.const(hi), self.const(st),
                    lambda var: self.op(f"divi {var}, {self.const(st)} signed : tile<i32>", (), "i32", 0, 0, 0).name)
        # reverse
        return c0, ub or self.const(trip), c1, lambda var: self.op(
            f"subi {self.const(trip - 1)}, {var} : tile<i32>", (), "i32", 0, 0, 0).name

    def index_expr(self, terms):
        """sum of (name, multiplier) terms as an i32 value name."""
        acc = None
        for name, mul in terms:
            if mul == 0:
                continue
            t = name
            if mul != 1:
                t = self.fresh("ix")
                self.emit(f"{t} = muli {name}, {self.const(mul)} : tile<i32>")
            if acc is None:
                acc = t
            else:
                s = self.fresh("ix")
                self.emit(f"{s} = addi {acc}, {t} : tile<i32>")
                acc = s
        return acc if acc is not None else self.const(0)

    def output_for(self, v, loop=None):
        """Store v (rank >= 1) into a new output array: tile indices from the block ids
        (and `loop`: (loop var, trip count, dim)) over an array with ragged edges."""
        if not v.shape:
            v = self.reshape(v, (1,))
        if v.dt == "i1":
            return
        gx, gy, _ = self.grid
        rank = len(v.shape)
        counts, index = self.tile_grid(rank, loop)
        shape = []
        for d in range(rank):
            cut = self.r.randint(0, v.shape[d] - 1) if self.r.random() < 0.6 else 0
            shape.append(counts[d] * v.shape[d] - cut)
        perm = None
        if rank >= 2 and self.r_extra.random() < 0.15:
            perm, shape = transposed(self.r_extra, shape)
            self.features.add("dim_map_store")
        tv, arr = self.add_array(v.dt, shape, "out")
        self.store(v, tv, arr, index, perm)
        self.outputs.append(Output(arr.label, v.dt, v.tol, v.bound))

    def tile_grid(self, rank, loop=None):
        """(tile counts per dim, index names) for a tile of `rank` in this block."""
        gx, gy, gz = self.grid
        if rank == 1:
            terms = [("%bx", 1), ("%by", gx), ("%bz", gx * gy)]
            counts = [gx * gy * gz]
            if loop is not None:
                var, trip, _d = loop
                terms = [(n, m * trip) for n, m in terms] + [(var, 1)]
                counts = [counts[0] * trip]
            return counts, [self.index_expr(terms)]
        base = [("%bx", gx), ("%by", gy)] + [(None, 1)] * (rank - 2)
        if gz > 1:
            base[-1] = ("%bz", gz) if rank > 2 else base[-1]
        counts, index = [], []
        for d, (n, c) in enumerate(base):
            terms = [(n, 1)] if n else []
            if loop is not None and loop[2] == d:
                var, trip, _ = loop
                terms = [(t, m * trip) for t, m in terms] + [(var, 1)]
                c *= trip
            counts.append(c)
            index.append(self.index_expr(terms))
        return counts, index

    def input_for(self, shape, dt, loop=None, dim_map_ok=True):
        """Load a tile of `shape` from a new input array (ragged edges)."""
        rank = len(shape)
        counts, index = self.tile_grid(rank, loop)
        ext = []
        for d in range(rank):
            cut = self.r.randint(0, shape[d] - 1) if self.r.random() < 0.6 else 0
            ext.append(counts[d] * shape[d] - cut)
        if rank >= 2 and dim_map_ok and self.r.random() < 0.15:
            perm, tshape = transposed(self.r, ext)
            tv, arr = self.add_array(dt, tshape, "in")
            self.features.add("dim_map")
            return self.load(tv, arr, shape, index, dim_map=perm)
        tv, arr = self.add_array(dt, ext, "in")
        return self.load(tv, arr, shape, index)

    # -- gathers and scatters through tiles of pointers --
    def tile_linear(self, shape, mode):
        """i32 tile of `shape`: a bijection of the row-major element index within the tile.
        mode: identity | reverse | transpose (column-major order) | odd (3 * i mod n)."""
        n = prod(shape)
        rank = len(shape)
        order = list(range(rank))
        if mode == "transpose":
            order = order[::-1]
        lin = None
        mul = 1
        for d in reversed(order):
            t = self.iota_along(shape, d)
            if mul != 1:
                t = self.bini("muli", t, self.cval(mul, "i32", shape))
            lin = t if lin is None else self.bini("addi", lin, t)
            mul *= shape[d]
        if mode == "reverse":
            lin = self.bini("subi", self.cval(n - 1, "i32", shape), lin)
        elif mode == "odd":
            lin = self.bini("muli", lin, self.cval(3, "i32", shape))
            lin = self.op(f"andi {lin.name}, {self.const(n - 1, 'i32', shape)} : {lin.ty}", shape, "i32", n, 0.0, 0)
        return lin

    def block_linear(self):
        gx, gy, gz = self.grid
        return self.index_expr([("%bx", 1), ("%by", gx), ("%bz", gx * gy)])

    def pointer_tile(self, label, dt, shape, lin):
        """base pointer of array `label` offset by the i32 tile `lin` (maybe through i64)."""
        rank = len(shape)
        p = self.ptr_of[label]
        pt = ttype((), f"ptr<{dt}>")
        unit = (1,) * rank
        r1 = self.fresh("pr")
        self.emit(f"{r1} = reshape {p} : {pt} -> {ttype(unit, f'ptr<{dt}>')}")
        b = self.fresh("pb")
        self.emit(f"{b} = broadcast {r1} : {ttype(unit, f'ptr<{dt}>')} -> {ttype(shape, f'ptr<{dt}>')}")
        off = lin
        if self.r.random() < 0.5:
            off = self.op(f"exti {lin.name} signed : {lin.ty} -> {ttype(shape, 'i64')}", shape, "i64", lin.bound,
                          0.0, 0)
        o = self.fresh("ptrs")
        self.emit(f"{o} = offset {b}, {off.name} : {ttype(shape, f'ptr<{dt}>')}, {off.ty} -> "
                  f"{ttype(shape, f'ptr<{dt}>')}")
        return o

    def _permuted_pointers(self, shape, dt, role):
        """A new 1-D array (`role` "in" or "out", cut short at its end now and then)
        and a tile of pointers into it in a permuted order, with the mask of the
        elements inside it: (array, pointer tile, mask)."""
        r = self.r
        n = prod(shape)
        gx, gy, gz = self.grid
        cut = r.randint(0, n - 1) if r.random() < 0.6 else 0
        tv, arr = self.add_array(dt, [gx * gy * gz * n - cut], role)
        lin = self.tile_linear(shape, r.choice(["identity", "reverse", "transpose", "odd"]))
        base = self.op(f"muli {self.block_linear()}, {self.const(n)} : tile<i32>", (), "i32", 0, 0.0, 0)
        bb = self.broadcast(self.reshape(base, (1,) * len(shape)), shape)
        idx = self.bini("addi", lin, bb)
        lim = self.broadcast(self.reshape(Val(f"%{arr.label}_s0", (), "i32"), (1,) * len(shape)), shape)
        mask = self.op(f"cmpi less_than {idx.name}, {lim.name}, signed : {idx.ty} -> {ttype(shape, 'i1')}", shape,
                       "i1", 1, 0.0, 0)
        return arr, self.pointer_tile(arr.label, dt, shape, idx), mask

    def gathered_rows(self, dt, rows, cols, rows_ext, cols_ext, k_loop):
        """A's tile through a tile of pointers, as a mixture of experts gathers its
        routed rows: this block's rows in reverse order, K columns consecutive,
        masked at the array's edges (out of bounds reads 0, like the view's padding)."""
        tv, arr = self.add_array(dt, [rows_ext, cols_ext], "in")
        if self.a_array is None:
            self.a_array = arr
        shape = (rows, cols)
        ri = self.bini("subi", self.cval(rows - 1, "i32", (rows, 1)), self.iota_along((rows, 1), 0))
        rb = self.op(f"muli %bx, {self.const(rows)} : tile<i32>", (), "i32", 0, 0.0, 0)
        row = self.bini("addi", ri, self.broadcast(self.reshape(rb, (1, 1)), (rows, 1)))
        kb = self.op(f"muli {k_loop}, {self.const(cols)} : tile<i32>", (), "i32", 0, 0.0, 0)
        col = self.bini("addi", self.iota_along((1, cols), 1), self.broadcast(self.reshape(kb, (1, 1)), (1, cols)))
        pitch = self.broadcast(self.reshape(Val(self.strides_of[arr.label][0], (), "i32"), (1, 1)), (rows, 1))
        rowb, colb = self.broadcast(row, shape), self.broadcast(col, shape)
        idx = self.bini("addi", self.broadcast(self.bini("muli", row, pitch), shape), colb)
        m_ext = self.broadcast(self.reshape(Val(f"%{arr.label}_s0", (), "i32"), (1, 1)), shape)
        k_ext = self.broadcast(self.reshape(Val(f"%{arr.label}_s1", (), "i32"), (1, 1)), shape)
        in_m = self.op(f"cmpi less_than {rowb.name}, {m_ext.name}, signed : {rowb.ty} -> {ttype(shape, 'i1')}",
                       shape, "i1", 1, 0.0, 0)
        in_k = self.op(f"cmpi less_than {colb.name}, {k_ext.name}, signed : {colb.ty} -> {ttype(shape, 'i1')}",
                       shape, "i1", 1, 0.0, 0)
        mask = self.op(f"andi {in_m.name}, {in_k.name} : {ttype(shape, 'i1')}", shape, "i1", 1, 0.0, 0)
        ptrs = self.pointer_tile(arr.label, dt, shape, idx)
        pad = self.cval(0.0 if dt in FLOATS else 0, dt, shape)
        t, tok = self.fresh("g"), self.fresh("tk")
        self.emit(f"{t}, {tok} = load_ptr_tko weak {ptrs}, {mask.name}, {pad.name} token={self.token} : "
                  f"{ttype(shape, f'ptr<{dt}>')}, {mask.ty}, {pad.ty} -> {ttype(shape, dt)}, token")
        self.features.add("dot_gathered_a")
        if dt in FLOATS:
            return Val(t, shape, dt, 2.0, 0.0, 2)
        return Val(t, shape, dt, {"i8": 20, "i32": 1000, "i64": 1000}[dt], 0.0, 0)

    def gather_input(self, shape, dt):
        """A tile gathered from a 1-D array in a permuted order, masked at the array's end."""
        r = self.r
        arr, ptrs, mask = self._permuted_pointers(shape, dt, "in")
        padv = r.choice([0.0, -1.5]) if dt in FLOATS else r.choice([0, -5])
        pad = self.cval(padv, dt, shape)
        t, tok = self.fresh("g"), self.fresh("tk")
        self.emit(f"{t}, {tok} = load_ptr_tko weak {ptrs}, {mask.name}, {pad.name} token={self.token} : "
                  f"{ttype(shape, f'ptr<{dt}>')}, {mask.ty}, {pad.ty} -> {ttype(shape, dt)}, token")
        self.features.add("gather")
        if dt in FLOATS:
            return Val(t, tuple(shape), dt, 2.0, 0.0, 2)
        return Val(t, tuple(shape), dt, {"i8": 20, "i32": 1000, "i64": 1000}[dt], 0.0, 0)

    def scatter_output(self, v):
        """Store v through a tile of pointers in a permuted order, masked at the array's end."""
        arr, ptrs, mask = self._permuted_pointers(v.shape, v.dt, "out")
        tok = self.fresh("tk")
        self.emit(f"{tok} = store_ptr_tko weak {ptrs}, {v.name}, {mask.name} token={self.token} : "
                  f"{ttype(v.shape, f'ptr<{v.dt}>')}, {v.ty}, {mask.ty} -> token")
        self.features.add("scatter")
        self.outputs.append(Output(arr.label, v.dt, v.tol, v.bound))

    def atomic_output(self, v):
        """Atomically accumulate v into a small array (many lanes and blocks per slot): the final
        contents are order independent (integer ops; float adds that stay exact)."""
        r = self.r
        shape = v.shape
        n = v.n
        gx, gy, gz = self.grid
        cnt = gx * gy * gz
        H = 2 ** r.randint(0, max(0, int(math.log2(n))))
        per = n * cnt // H + 1
        if v.isfloat:
            if v.dt != "f32" or not v.exact or not fits("f32", per * v.bound + 4, v.q if v.q is None else max(v.q, 1)):
                return False
            kind = "addf"
        elif v.dt in ("i32", "i64"):
            kind = r.choice(["add", "max", "min", "and", "or", "xor"])
        else:
            return False
        cut = r.randint(0, H - 1) if H > 1 and r.random() < 0.4 else 0
        tv, arr = self.add_array(v.dt, [H - cut], "out")
        lin = self.tile_linear(shape, r.choice(["identity", "reverse", "odd"]))
        if r.random() < 0.5:
            base = self.op(f"muli {self.block_linear()}, {self.const(7)} : tile<i32>", (), "i32", 0, 0.0, 0)
            lin = self.bini("addi", lin, self.broadcast(self.reshape(base, (1,) * len(shape)), shape))
        idx = self.op(f"andi {lin.name}, {self.const(H - 1, 'i32', shape)} : {lin.ty}", shape, "i32", H, 0.0, 0)
        lim = self.broadcast(self.reshape(Val(f"%{arr.label}_s0", (), "i32"), (1,) * len(shape)), shape)
        ptrs_t = ttype(shape, f'ptr<{v.dt}>')
        res, tok = self.fresh("old"), self.fresh("tk")
        if cut == 0 and r.random() < 0.6:
            ptrs = self.pointer_tile(arr.label, v.dt, shape, idx)
            self.emit(f"{res}, {tok} = atomic_rmw_tko relaxed device {ptrs}, {kind}, {v.name} "
                      f"token={self.token} : {ptrs_t}, {v.ty} -> {v.ty}, token")
        else:
            # masked: see test_differential_fuzz.py::test_minimized_masked_atomic_result
            mask = self.op(f"cmpi less_than {idx.name}, {lim.name}, signed : {idx.ty} -> {ttype(shape, 'i1')}",
                           shape, "i1", 1, 0.0, 0)
            ptrs = self.pointer_tile(arr.label, v.dt, shape, idx)
            self.emit(f"{res}, {tok} = atomic_rmw_tko relaxed device {ptrs}, {kind}, {v.name}, {mask.name} "
                      f"token={self.token} : {ptrs_t}, {v.ty}, {mask.ty} -> {v.ty}, token")
            self.features.add("atomic_masked")
        self.features.add("atomic")
        self.outputs.append(Output(arr.label, v.dt, 0.0, v.bound))
        return True

    # -- families --
    def rand_shape(self, rank, maxn, lo=1, hi=7):
        while True:
            s = tuple(2 ** self.r.randint(lo, hi) for _ in range(rank))
            if prod(s) <= maxn:
                return s

    def gen_ew(self):
        r = self.r
        rank = r.choice([1, 2, 2, 2, 3, 3, 4])
        if r.random() < 0.15:
            self.MAXN = 8192
            self.features.add("big")
        shape = self.rand_shape(rank, r.choice([256, 1024, self.MAXN]))
        self.grid = (r.randint(1, 3), r.randint(1, 2), 1)
        dt = r.choice(["f32", "f32", "f16", "bf16", "i32", "i8", "i64", "f64"])
        pool = []
        for _ in range(r.randint(1, 2)):
            d = dt if r.random() < 0.8 else r.choice(FLOATS + INTS)
            pool.append(self.gather_input(shape, d) if r.random() < 0.15 else self.input_for(shape, d))
        if rank >= 2 and r.random() < 0.3:        # a row/column operand broadcast over the tile
            ax = r.randrange(rank)
            vshape = tuple(1 if i == ax else n for i, n in enumerate(shape))
            v = self.input_for(vshape, dt)
            pool.append(self.broadcast(v, shape))
        self.steps(pool, r.randint(2, 12))
        if r.random() < 0.35:
            pool = (self.ew_loop_recurrent if r.random() < 0.5 else self.ew_loop)(pool, shape, dt)
            self.steps(pool, r.randint(0, 3))
        outs = [pool[-1]]
        if len(pool) > 2 and r.random() < 0.5:
            outs.append(r.choice(pool[:-1]))
        for v in outs:
            if v.dt == "i1":
                continue
            if v.n > 4 * self.MAXN:
                continue
            if r.random() < 0.15 and v.shape:
                self.scatter_output(v)
            elif r.random() < 0.12 and v.shape and self.atomic_output(v):
                pass
            else:
                self.output_for(v)
        if not self.outputs:
            self.output_for(pool[0])

    def ew_loop(self, pool, shape, dt):
        """A for loop streaming tiles along one dim with carried tiles; returns the pool after it."""
        r = self.r
        rank = len(shape)
        trip = r.randint(2, 3)
        ld = r.randrange(rank)
        var = self.fresh("k")
        self.features.add("loop")
        outer = list(pool)
        saved_body, self.body = self.body, []
        self.depth += 1
        l_lo, l_hi, l_st, mk = self.loop_range(trip)
        kidx = mk(var)
        bpool = list(outer)
        x = self.input_for(shape, dt, loop=(kidx, trip, ld))
        bpool.append(x)
        if r.random() < 0.3:       # a loop-invariant load inside the loop
            bpool.append(self.input_for(shape, r.choice([dt, "f32"])))
            self.features.add("invariant_load_in_loop")
        self.steps(bpool, r.randint(1, 4))
        # carried values: tiles of the body's shapes
        carried = []
        cands = [v for v in bpool[len(outer):] if v.dt != "i1" and v.shape and v.n <= self.MAXN]
        for _ in range(r.randint(1, 2)):
            w = r.choice(cands)
            if r.random() < 0.3 and len(w.shape) >= 1 and max(w.shape) > 1:
                axis = r.choice([d for d in range(len(w.shape)) if w.shape[d] > 1])
                w = self.reduce(w, axis, r.choice(["sum", "max"]))
                if not w.shape:
                    w = self.reshape(w, (1,))
            carried.append(w)
        news, args, inits = [], [], []
        for w in carried:
            a = self.fresh("acc")
            zero = 0.0 if w.isfloat else 0
            inits.append(self.const(zero, w.dt, w.shape))
            args.append(a)
            kind = r.choice(["add", "max", "half"] if w.isfloat else ["add", "max"])
            c = Val(a, w.shape, w.dt, 0.0, 0.0, 0)
            if kind == "add":
                bound = trip * w.bound
                q = w.q if w.q is not None and fits(w.dt, bound, w.q) else None
                tol = trip * w.tol + (2 * EPS[w.dt] * bound * trip if (w.tol and w.isfloat) else 0.0)
                opn = "addf" if w.isfloat else "addi"
                if not w.isfloat:
                    bound = min(bound, 2.0 ** (IBITS[w.dt] - 1))
            elif kind == "max":
                bound, q, tol = w.bound, w.q, w.tol
                opn = "maxf" if w.isfloat else "maxi"
            else:
                h = self.cval(0.5, w.dt, w.shape)
                hc = self.op(f"mulf {a}, {h.name} : {w.ty}", w.shape, w.dt, 0, 0, 0)
                c = hc
                bound = 2 * w.bound
                q = w.q + trip if w.q is not None and fits(w.dt, bound, w.q + trip) else None
                tol = 2 * w.tol + (4 * EPS[w.dt] * bound if (w.tol or q is None) and w.tol else 0.0)
                opn = "addf"
            sign = " signed" if opn == "maxi" else ""
            nv = self.op(f"{opn} {c.name}, {w.name}{sign} : {w.ty}", w.shape, w.dt, bound, tol, q)
            news.append(nv)
        if r.random() < 0.4:     # a store inside the loop
            v = r.choice([v for v in bpool[len(outer):] if v.dt != "i1" and v.shape] or [x])
            if len(v.shape) == rank and v.shape == shape:
                self.output_for(v, loop=(kidx, trip, ld))
            else:
                self.output_for_loop_any(v, kidx, trip)
        self.emit(f"continue {', '.join(n.name for n in news)} : {', '.join(n.ty for n in news)}")
        body, self.body = self.body, saved_body
        self.depth -= 1
        res = self.fresh("for")
        lhs = res if len(news) == 1 else f"{res}:{len(news)}"
        iv = ", ".join(f"{a} = {i}" for a, i in zip(args, inits))
        self.emit(f"{lhs} = for {var} in ({l_lo} to {l_hi}, step {l_st}) : tile<i32> "
                  f"iter_values({iv}) -> ({', '.join(n.ty for n in news)}) {{")
        self.body += body
        self.emit("}")
        out = list(outer)
        for i, nv in enumerate(news):
            nm = res if len(news) == 1 else f"{res}#{i}"
            out.append(Val(nm, nv.shape, nv.dt, nv.bound, nv.tol, nv.q))
        return out

    def ew_loop_recurrent(self, pool, shape, dt):
        """A for loop whose carried tile feeds the body's random steps: c' = clamp(f(c, x_k, ...)).
        The clamp keeps the bound; only bit-exact bodies are kept (else the plain loop)."""
        r = self.r
        rank = len(shape)
        trip = r.randint(2, 4)
        ld = r.randrange(rank)
        var = self.fresh("k")
        cdt = dt if dt in FLOATS + ("i32",) else "f32"
        B = 8.0 if cdt in FLOATS else 1000
        saved_body = self.body
        for attempt in range(4):
            self.body = []
            self.depth += 1
            l_lo, l_hi, l_st, mk = self.loop_range(trip)
            kidx = mk(var)
            bpool = list(pool)
            x = self.input_for(shape, dt, loop=(kidx, trip, ld))
            bpool.append(x)
            c = Val(self.fresh("rc"), shape, cdt, B, 0.0, None if cdt in FLOATS else 0)
            bpool.append(c)
            self.steps(bpool, r.randint(2, 6))
            cands = [v for v in bpool if v is not c and v.dt != "i1" and c.name in self._deps_text(v)]
            w = r.choice(cands) if cands else bpool[-1]
            w2 = self.convert(w, cdt)
            if w2 is not None:
                w2 = self.coerce(w2, shape)
            if w2 is not None and w2.dt == cdt and c.name not in self._deps_text(w2):
                w2 = self.binf("addf", w2, c) if cdt in FLOATS else self.bini("addi", w2, c)
            ok = w2 is not None and w2.exact and w2.shape == shape and w2.dt == cdt
            if ok:
                if cdt in FLOATS:
                    lo = self.binf("maxf", w2, self.cval(-B, cdt, shape))
                    nv = self.binf("minf", lo, self.cval(B, cdt, shape))
                else:
                    lo = self.bini("maxi", w2, self.cval(-B, cdt, shape))
                    nv = self.bini("mini", lo, self.cval(B, cdt, shape))
                if r.random() < 0.3:
                    self.output_for(nv, loop=(kidx, trip, ld))
                self.emit(f"continue {nv.name} : {nv.ty}")
            body, self.body = self.body, saved_body
            self.depth -= 1
            if not ok:
                continue
            self.features.add("loop_recurrent")
            init = self.input_for(shape, cdt) if r.random() < 0.3 else self.cval(0.0 if cdt in FLOATS else 0, cdt,
                                                                                    shape)
            if init.bound > B:
                init = self.cval(0.0 if cdt in FLOATS else 0, cdt, shape)
            res = self.fresh("for")
            self.emit(f"{res} = for {var} in ({l_lo} to {l_hi}, step {l_st}) : "
                      f"tile<i32> iter_values({c.name} = {init.name}) -> ({c.ty}) {{")
            self.body += body
            self.emit("}")
            return list(pool) + [Val(res, shape, cdt, B, 0.0, None if cdt in FLOATS else 0)]
        return self.ew_loop(pool, shape, dt)

    def _deps_text(self, v):
        """The body lines up to v's definition (a cheap 'does v depend on c' over-approximation:
        the text of the defining lines of everything in the body so far)."""
        return "\n".join(self.body)

    def output_for_loop_any(self, v, var, trip):
        """Store v every iteration, its dim 0 tile index advanced by the loop."""
        if not v.shape:
            v = self.reshape(v, (1,))
        self.output_for(v, loop=(var, trip, 0))

    # dots
    DOT_SHAPES = [(16, 16, 16), (16, 16, 32), (32, 32, 16), (16, 32, 32), (32, 16, 64), (64, 64, 32),
                  (64, 32, 64), (32, 64, 32), (64, 64, 16), (128, 64, 64), (64, 128, 32), (128, 32, 32),
                  (64, 64, 64)]

    def operand(self, which, rows, cols, dt, k_loop, layout, batch):
        """Load an operand tile (rows x cols) of A (which='a': rows=M tile index bx, cols=K)
        or B ('b': rows=K, cols=N tile index by), stored as is or transposed."""
        gx, gy, gz = self.grid
        if which == "a":
            mcount, kcount = gx, self.ktiles
            mi, ki = "%bx", k_loop
            rows_ext = mcount * rows - self.cutM
            cols_ext = kcount * cols - self.cutK
            idx = [mi, ki]
        else:
            kcount, ncount = self.ktiles, gy
            ki, ni = k_loop, "%by"
            rows_ext = kcount * rows - self.cutK
            cols_ext = ncount * cols - self.cutN
            idx = [ki, ni]
        pre, pre_ext = ([], []) if not batch else (["%bz"], [gz])
        if layout == "rm" and which == "a" and not batch and self.r.random() < 0.2:
            return self.gathered_rows(dt, rows, cols, rows_ext, cols_ext, k_loop)
        if layout == "rm":
            tv, arr = self.add_array(dt, pre_ext + [rows_ext, cols_ext], "in")
            if which == "a" and self.a_array is None:
                self.a_array = arr
            return self.load(tv, arr, tuple([1] * len(pre)) + (rows, cols), pre + idx)
        if layout == "perm":
            self.features.add("dot_operand_permute")
            tv, arr = self.add_array(dt, pre_ext + [cols_ext, rows_ext], "in")
            if which == "a" and self.a_array is None:
                self.a_array = arr
            t = self.load(tv, arr, tuple([1] * len(pre)) + (cols, rows), pre + idx[::-1])
            return self.permute(t, list(range(len(pre))) + [len(pre) + 1, len(pre)])
        self.features.add("dot_operand_dim_map")
        tv, arr = self.add_array(dt, pre_ext + [cols_ext, rows_ext], "in")
        if which == "a" and self.a_array is None:
            self.a_array = arr
        dm = list(range(len(pre))) + [len(pre) + 1, len(pre)]
        return self.load(tv, arr, tuple([1] * len(pre)) + (rows, cols), pre + idx, dim_map=dm)

    def gen_dot(self):
        r = self.r
        M, N, K = r.choice(self.DOT_SHAPES)
        dt = r.choice(["f16"] * 5 + ["bf16"] * 3 + ["f32", "i8"])
        if dt in ("f32", "i8") and M * N * K > 64 * 64 * 32:
            M, N, K = (32, 32, 32)
        batch = r.random() < 0.15
        self.grid = (r.randint(1, 2), r.randint(1, 2), 2 if batch else 1)
        loop = r.random() < 0.6
        self.ktiles = (r.randint(2, 3) if r.random() < 0.75 else r.randint(4, 8)) if loop else 1
        self.entry_hints()
        self.cutM = r.randint(0, M - 1) if r.random() < 0.5 else 0
        self.cutN = r.randint(0, N - 1) if r.random() < 0.5 else 0
        self.cutK = r.randint(0, K - 1) if r.random() < 0.4 else 0
        lay_a = r.choice(["rm"] * 4 + ["perm", "dim_map"])
        lay_b = r.choice(["rm"] * 3 + ["perm", "dim_map"])
        acc_dt = "i32" if dt == "i8" else "f32"
        pre = (1,) if batch else ()
        cshape = pre + (M, N)
        self.features.add(f"dot_{dt}")
        if batch:
            self.features.add("dot_batched")
        zero = self.cval(0 if dt == "i8" else 0.0, acc_dt, cshape)
        init = zero
        if r.random() < 0.25:
            init = self.input_for_c(cshape, acc_dt)
        op_pro = r.random() < 0.3 and dt != "i8"
        split_acc = r.random() < 0.25 and loop
        mm = "mmai" if dt == "i8" else "mmaf"
        sign = " signed signed" if dt == "i8" else ""

        two_stream = r.random() < 0.15 and dt in ("f16", "bf16")

        def one_dot(kidx, acc, want_operands=False):
            a = self.operand("a", M, K, dt, kidx, lay_a, batch)
            b = self.operand("b", K, N, dt, kidx, lay_b, batch)
            if two_stream:
                self.features.add("dot_two_stream")
                a = self.binf("addf", a, self.operand("a", M, K, dt, kidx, r.choice(["rm", "perm"]), batch))
            if op_pro:
                a = self.dot_prologue(a)
            res = one_mma(a, b, acc)
            return (res, a, b) if want_operands else res

        def one_mma(a, b, acc):
            ab = (a.q or 0) + (b.q or 0)
            kb = K * a.bound * b.bound
            bound = kb + acc.bound
            q = None if a.q is None or b.q is None or acc.q is None else max(ab, acc.q)
            tol = K * (a.tol * b.bound + b.tol * a.bound) + acc.tol
            if dt != "i8" and not fits("f32", bound * self.ktiles, q):
                q = None
                tol += 2 * (math.log2(K) + 1) * EPS["f32"] * bound
            if split_acc:
                z = self.cval(0.0, acc_dt, cshape)
                d = self.op(f"{mm} {a.name}, {b.name}, {z.name}{sign} : {a.ty}, {b.ty}, {z.ty}", cshape, acc_dt,
                            kb, tol - acc.tol, q)
                return self.op(f"{'addi' if dt == 'i8' else 'addf'} {acc.name}, {d.name} : {d.ty}", cshape, acc_dt,
                               bound, tol, q)
            return self.op(f"{mm} {a.name}, {b.name}, {acc.name}{sign} : {a.ty}, {b.ty}, {acc.ty}", cshape, acc_dt,
                           bound, tol, q)

        extra_pool = []
        if loop:
            self.features.add("dot_loop")
            var = self.fresh("k")
            acc = self.fresh("acc")
            saved, self.body = self.body, []
            self.depth += 1
            ub = None
            use_isp = r.random() < 0.5   # cuTile's form: the upper bound is the A view's index space along K
            if use_isp:
                isp = self.fresh("isp")
                rank_a = 3 if batch else 2
                ub = f"{isp}#{rank_a - 1 if lay_a == 'rm' else rank_a - 2}"
            l_lo, l_hi, l_st, mk = self.loop_range(self.ktiles, ub)
            kidx = mk(var)
            carried = []        # (block arg, init name, new Val)
            # the accumulator's bound grows each iteration: account for all trips at once
            scale_acc = dt in ("f16", "bf16", "f32") and r.random() < 0.2
            accv = Val(acc, cshape, acc_dt, init.bound + (self.ktiles - 1) * K * 4.0 * 4, init.tol, init.q)
            if scale_acc:
                self.features.add("dot_scaled_acc")
                accv = self.binf("mulf", accv, self.cval(0.5, "f32", cshape))
                if accv.q is not None:
                    accv.q += self.ktiles
            d, a_tile, b_tile = one_dot(kidx, accv, want_operands=True)
            carried.append((acc, init.name, d))
            if r.random() < 0.2 and not batch:          # a second dot sharing A
                self.features.add("dot_second_in_loop")
                N2 = r.choice([16, 32, 64])
                saved_cut, self.cutN = self.cutN, r.randint(0, N2 - 1) if r.random() < 0.5 else 0
                b2 = self.operand("b", K, N2, dt, kidx, r.choice(["rm", "perm", "dim_map"]), batch)
                self.cutN = saved_cut
                acc2 = self.fresh("acc")
                z2 = self.cval(0 if dt == "i8" else 0.0, acc_dt, (M, N2))
                bound = self.ktiles * K * a_tile.bound * b2.bound
                q = None if a_tile.q is None or b2.q is None else a_tile.q + b2.q
                tol = self.ktiles * K * (a_tile.tol * b2.bound)
                if dt != "i8" and not fits("f32", bound, q):
                    q, tol = None, tol + 2 * (math.log2(K) + 1) * EPS["f32"] * bound * self.ktiles
                d2 = self.op(f"{mm} {a_tile.name}, {b2.name}, {acc2}{sign} : {a_tile.ty}, {b2.ty}, {z2.ty}", (M, N2),
                             acc_dt, bound, tol, q)
                carried.append((acc2, z2.name, d2))
            if r.random() < 0.2 and a_tile.isfloat:      # a carried row sum of A
                self.features.add("dot_rowsum_in_loop")
                rs = self.fresh("acc")
                af = self.convert(a_tile, "f32")
                red = self.reduce(af, len(cshape) - 1, "sum")
                z = self.cval(0.0, "f32", red.shape)
                bound = self.ktiles * red.bound
                tol = self.ktiles * red.tol
                q = red.q if red.q is not None and fits("f32", bound, red.q) else None
                if q is None and not tol:
                    tol = 2 * EPS["f32"] * bound * self.ktiles
                nv = self.op(f"addf {rs}, {red.name} : {red.ty}", red.shape, "f32", bound, tol, q)
                carried.append((rs, z.name, nv))
            if r.random() < 0.15 and self.grid[1] == 1 and not batch:   # a store in the loop
                self.features.add("store_in_loop")
                kept = self.convert(a_tile, "f32") if r.random() < 0.5 else a_tile
                self.output_for(kept, loop=(kidx, self.ktiles, 1))
            news = [n for _, _, n in carried]
            self.emit(f"continue {', '.join(n.name for n in news)} : {', '.join(n.ty for n in news)}")
            body, self.body = self.body, saved
            self.depth -= 1
            res = self.fresh("for")
            if use_isp:
                self.kspace_bound(dt, M, K, lay_a, batch, isp)
            lhs = res if len(news) == 1 else f"{res}:{len(news)}"
            iv = ", ".join(f"{a} = {i}" for a, i, _ in carried)
            self.emit(f"{lhs} = for {var} in ({l_lo} to {l_hi}, step {l_st}) : tile<i32> "
                      f"iter_values({iv}) -> ({', '.join(n.ty for n in news)}) {{")
            self.body += body
            self.emit("}")
            outs = [Val(res if len(news) == 1 else f"{res}#{i}", n.shape, n.dt, n.bound, n.tol, n.q)
                    for i, n in enumerate(news)]
            c = outs[0]
            extra_pool = outs[1:]
        else:
            c = one_dot(self.const(0), init)
        pool = [c]
        for e in extra_pool:
            self.output_for(e)
        if r.random() < 0.3 and dt in ("f16", "bf16") and not batch:
            c = self.dot_chain(c, dt, M, N)
            pool.append(c)
        # epilogue: a bias row, then random elementwise steps
        if r.random() < 0.3 and not batch:
            bias = self.input_for_vec(c.shape[-1], "f32" if acc_dt == "f32" else "i32")
            b2 = self.broadcast(self.reshape(bias, (1, c.shape[-1])), c.shape)
            pool.append(self.binf("addf", c, b2) if c.isfloat else self.bini("addi", c, b2))
        saved_max, self.MAXN = self.MAXN, 8192
        self.steps(pool, r.randint(0, 6))
        self.MAXN = saved_max
        out = pool[-1]
        if out.dt == "i1":
            out = c
        if out.isfloat and r.random() < 0.5:
            to = r.choice(["f16", "bf16"])
            if out.bound <= FMAX[to]:
                out = self.convert(out, to)
        self.output_for(out)

    def entry_hints(self):
        r = self.r
        h = []
        if r.random() < 0.25:
            h.append(f"num_cta_in_cga = {r.choice([2, 2, 4])}")
            self.features.add("cga")
        if r.random() < 0.15:
            h.append(f"occupancy = {r.choice([1, 2])}")
            self.features.add("occupancy")
        if h:
            self.hints = f" optimization_hints=<sm_90 = {{{', '.join(h)}}}>"

    def input_for_c(self, shape, dt):
        v = self.input_for(shape, dt, dim_map_ok=False)
        return v

    def input_for_vec(self, n, dt):
        """A length-n vector indexed by the N tile (block y)."""
        gx, gy, _ = self.grid
        cut = self.r.randint(0, n - 1) if self.r.random() < 0.5 else 0
        tv, arr = self.add_array(dt, [gy * n - cut], "in")
        return self.load(tv, arr, (n,), ["%by"])

    def kspace_bound(self, dt, M, K, lay_a, batch, sp):
        a = self.a_array
        tv = self.find_tv(a)
        rank = len(a.shape)
        tile = ([1] if batch else []) + ([M, K] if lay_a == "rm" else [K, M])
        pvt = self.pvtype(dt, rank, tile, True)
        pv = self.fresh("pv")
        self.emit(f"{pv} = make_partition_view {tv} : {pvt}")
        self.emit(f"{sp}:{rank} = get_index_space_shape {pv} : {pvt} -> tile<i32>")
        kdim = rank - 1 if lay_a == "rm" else rank - 2
        return f"{sp}#{kdim}"

    def find_tv(self, arr):
        # tensor views are made in add_array order; search the prologue for this array's pointer assume
        idx = [i for i, ln in enumerate(self.prologue) if ln.strip().endswith(f"%{arr.label} : tile<ptr<{arr.dt}>>")]
        pname = self.prologue[idx[0]].split("=")[0].strip()
        for ln in self.prologue[idx[0]:]:
            if "make_tensor_view " + pname + "," in ln:
                return ln.split("=")[0].strip()
        raise AssertionError("no tensor view")

    def dot_prologue(self, a):
        """An elementwise change of a dot operand inside the loop (exact)."""
        r = self.r
        kind = r.choice(["scale", "neg", "relu"] + (["via_f32"] if a.dt != "f32" else []))
        self.features.add("dot_prologue")
        if kind == "scale":
            return self.binf("mulf", a, self.cval(0.5, a.dt, a.shape))
        if kind == "neg":
            return self.op(f"negf {a.name} : {a.ty}", a.shape, a.dt, a.bound, a.tol, a.q)
        if kind == "relu":
            return self.binf("maxf", a, self.cval(0.0, a.dt, a.shape))
        w = self.convert_f(a, "f32")
        w = self.binf("addf", w, self.cval(0.25, "f32", a.shape))
        return self.convert_f(w, a.dt)

    def dot_chain(self, c, dt, M, N):
        """P = ftof(c) (dt), V (N x D) loaded at the block's N tile, P V (as attention)."""
        r = self.r
        self.features.add("dot_chain")
        p = c
        if c.bound > FMAX[dt] or (c.q is not None and not fits(dt, c.bound, c.q) and r.random() < 0.5):
            p = self.binf("mulf", c, self.cval(0.0625, "f32", c.shape))
            if p.bound > FMAX[dt]:
                p = self.binf("minf", p, self.cval(64.0, "f32", c.shape))
                p = self.binf("maxf", p, self.cval(-64.0, "f32", c.shape))
                p.bound = 64.0
        p = self.convert_f(p, dt)
        D = r.choice([16, 32, 64])
        gx, gy, _ = self.grid
        cut = r.randint(0, D - 1) if r.random() < 0.3 else 0
        # V rows run along the first dot's N (the block's N tile), its columns D
        tv, arr = self.add_array(dt, [gy * N - self.cutN, D - cut], "in")
        v = self.load(tv, arr, (N, D), ["%by", self.const(0)])
        z = self.cval(0.0, "f32", (M, D))
        bound = N * p.bound * v.bound
        q = None if p.q is None else p.q + v.q
        tol = N * p.tol * v.bound
        if not fits("f32", bound, q):
            q = None
            tol += 2 * (math.log2(N) + 1) * EPS["f32"] * bound
        return self.op(f"mmaf {p.name}, {v.name}, {z.name} : {p.ty}, {v.ty}, {z.ty}", (M, D), "f32", bound, tol, q)

    def gen_attn(self):
        """for j over key blocks: S = Q K_j^T; P = ftof(S) (or online softmax); acc = P V_j + acc."""
        r = self.r
        M = r.choice([16, 32, 64])
        Nk = r.choice([16, 32, 64])
        D = r.choice([16, 32, 64])
        Dv = r.choice([16, 32, 64])
        dt = r.choice(["f16", "bf16"])
        trips = r.randint(2, 3)
        softmax = r.random() < 0.5
        self.grid = (r.randint(1, 2), 1, 1)
        gx = self.grid[0]
        self.features.add("attn_softmax" if softmax else "attn")
        self.entry_hints()
        cutM = r.randint(0, M - 1) if r.random() < 0.5 else 0
        cutS = r.randint(0, Nk - 1) if r.random() < 0.5 else 0
        tvq, aq = self.add_array(dt, [gx * M - cutM, D], "in")
        q = self.load(tvq, aq, (M, D), ["%bx", self.const(0)])
        klay = r.choice(["perm", "dim_map"])
        if klay == "perm":
            tvk, ak = self.add_array(dt, [trips * Nk - cutS, D], "in")
        else:
            tvk, ak = self.add_array(dt, [trips * Nk - cutS, D], "in")
        tvv, av = self.add_array(dt, [trips * Nk - cutS, Dv], "in")
        var = self.fresh("j")
        acc, m_, l_ = self.fresh("acc"), self.fresh("m"), self.fresh("l")
        saved, self.body = self.body, []
        self.depth += 1
        l_lo, l_hi, l_st, mk = self.loop_range(trips)
        kidx = mk(var)
        if klay == "perm":
            kt = self.load(tvk, ak, (Nk, D), [kidx, self.const(0)])
            kt = self.permute(kt, [1, 0])
        else:
            kt = self.load(tvk, ak, (D, Nk), [self.const(0), kidx], dim_map=[1, 0])
        zs = self.cval(0.0, "f32", (M, Nk))
        s = self.op(f"mmaf {q.name}, {kt.name}, {zs.name} : {q.ty}, {kt.ty}, {zs.ty}", (M, Nk), "f32",
                    D * 4.0, 0.0, 4)
        if softmax:
            sc = self.binf("mulf", s, self.cval(0.125, "f32", s.shape))
            # mask the padded keys of the last block: key index >= n_keys -> -inf
            kio = self.iota_along((M, Nk), 1)
            base = self.op(f"muli {kidx}, {self.const(Nk)} : tile<i32>", (), "i32", 0, 0.0, 0)
            bb = self.broadcast(self.reshape(base, (1, 1)), (M, Nk))
            kabs = self.bini("addi", kio, bb)
            lim = self.cval(trips * Nk - cutS, "i32", (M, Nk))
            valid = self.op(f"cmpi less_than {kabs.name}, {lim.name}, signed : {kabs.ty} -> {ttype((M, Nk), 'i1')}",
                            (M, Nk), "i1", 1, 0.0, 0)
            neg = self.cval(-1000.0, "f32", (M, Nk))
            sc = self.select(valid, sc, neg)
            rm = self.reduce(sc, 1, "max")
            rm2 = self.reshape(rm, (M, 1))
            mnew = self.op(f"maxf {m_}, {rm2.name} : {rm2.ty}", (M, 1), "f32", 1000, 0, None)
            sub = self.binf("subf", sc, self.broadcast(mnew, (M, Nk)))
            p = self.op(f"exp2 {sub.name} : {sub.ty}", (M, Nk), "f32", 1.0, 1e-6, None)
            alpha_in = self.op(f"subf {m_}, {mnew.name} : {mnew.ty}", (M, 1), "f32", 1000, 0, None)
            alpha = self.op(f"exp2 {alpha_in.name} : {alpha_in.ty}", (M, 1), "f32", 1.0, 1e-6, None)
            rs = self.reduce(p, 1, "sum")
            lnew = self.op(f"fma {l_}, {alpha.name}, {self.reshape(rs, (M, 1)).name} : {alpha.ty}", (M, 1), "f32",
                           1e3, 1e-3, None)
            accs = self.op(f"mulf {acc}, {self.broadcast(alpha, (M, Dv)).name} : {ttype((M, Dv), 'f32')}",
                           (M, Dv), "f32", 1e3, 1e-3, None)
            p16 = self.convert_f(p, dt)
            v = self.load(tvv, av, (Nk, Dv), [kidx, self.const(0)])
            d = self.op(f"mmaf {p16.name}, {v.name}, {accs.name} : {p16.ty}, {v.ty}, {accs.ty}", (M, Dv), "f32",
                        1e3, 1e-3, None)
            news = [d, mnew, lnew]
        else:
            p = self.binf("mulf", s, self.cval(0.25, "f32", s.shape))
            p16 = self.convert_f(p, dt)
            v = self.load(tvv, av, (Nk, Dv), [kidx, self.const(0)])
            bound = trips * Nk * p.bound * 2.0
            qq = p.q + 2
            d = self.op(f"mmaf {p16.name}, {v.name}, {acc} : {p16.ty}, {v.ty}, {ttype((M, Dv), 'f32')}", (M, Dv),
                        "f32", bound, 0.0 if fits("f32", bound, qq) and fits(dt, p.bound, p.q) else
                        2 * (math.log2(Nk) + 1) * EPS["f32"] * bound * trips + trips * Nk * 2 * EPS[dt] * p.bound * 2,
                        qq)
            news = [d]
        self.emit(f"continue {', '.join(n.name for n in news)} : {', '.join(n.ty for n in news)}")
        body, self.body = self.body, saved
        self.depth -= 1
        res = self.fresh("for")
        inits = [f"{acc} = {self.const(0.0, 'f32', (M, Dv))}"]
        if softmax:
            inits += [f"{m_} = {self.const(-1000.0, 'f32', (M, 1))}", f"{l_} = {self.const(0.0, 'f32', (M, 1))}"]
        lhs = res if len(news) == 1 else f"{res}:{len(news)}"
        self.emit(f"{lhs} = for {var} in ({l_lo} to {l_hi}, step {l_st}) : tile<i32> "
                  f"iter_values({', '.join(inits)}) -> ({', '.join(n.ty for n in news)}) {{")
        self.body += body
        self.emit("}")
        if softmax:
            o = self.op(f"divf {res}#0, {self.broadcast(Val(res + '#2', (M, 1), 'f32'), (M, Dv)).name} : "
                        f"{ttype((M, Dv), 'f32')}", (M, Dv), "f32", 2.0, 2e-2, None)
        else:
            o = Val(res, (M, Dv), "f32", news[0].bound, news[0].tol, news[0].q)
        if r.random() < 0.5:
            o = self.convert_f(o, dt)
        tvo, ao = self.add_array(o.dt, [gx * M - cutM, Dv], "out")
        self.store(o, tvo, ao, ["%bx", self.const(0)])
        self.outputs.append(Output(ao.label, o.dt, o.tol, o.bound))


FAMILIES = ("ew", "ew", "ew", "dot", "dot", "attn")


def generate(seed, family=None):
    """The kernel of `seed` (family: one of "ew", "dot", "attn"; default chosen by the seed)."""
    g = Gen(seed)
    fam = family or random.Random(seed * 7919 + 1).choice(FAMILIES)
    g.family = fam
    getattr(g, f"gen_{fam}")()
    k = g.finish()
    k.num_warps = random.Random(seed * 31 + 7).choice([None, None, None, 1, 2, 8])
    return k
