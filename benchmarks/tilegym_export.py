#!/usr/bin/env python3
"""Export TileGym's cuTile kernels to Tile IR bytecode without a GPU.

    $TILEIR_REF/bin/python benchmarks/tilegym_export.py TILEGYM_DIR OUTDIR [--tests PAT ...]

Run with the reference toolchain's python (cuda.tile, tileiras; see
shared/tools/reference-toolchain.sh) plus a CPU torch, pytest and numpy.

How it works
  * Each TileGym test file matched by --test-glob (tests/ops/test_*.py by
    default; tests/ops/*/test_*.py and tests/suites/*/test_*.py reach the
    activation, experimental, Liger, FlashInfer and Unsloth tests) is run by pytest in its own worker process (``--worker``), restricted to
    the cutile backend and to the correctness tests (test_perf* are
    deselected), so the kernels are driven at exactly the parameterizations
    the tests use.
  * No GPU is touched: a TorchFunctionMode turns every ``device='cuda'`` into
    the CPU (``empty`` becomes ``zeros`` so that host-side logic reading
    kernel outputs sees defined values), and torch.cuda's queries are answered
    as an H100 would (capability 9.0 by default, ``--capability``; 132 SMs).
  * ``cuda.tile.launch`` is replaced by a recorder. It turns the launch
    arguments into cuTile parameter constraints the way cuTile's launcher
    does (cext/tile_kernel.cpp: compute_array_specialization_bits and
    parse_array_constraint): per array dtype, ndim, index dtype from the
    parameter's annotation (int32 unless IndexedWithInt64), stride_constant 1
    where the stride is 1, stride_divisible_by 16 bytes / shape_divisible_by
    16 where true (ndim <= 5), base_addr_divisible_by 16 when the data
    pointer is, may_alias_internally when the elements are not disjoint,
    shape_constant 1 for size-1 axes (which selects calling convention
    cutile_python_v2, as the launcher does), no alias groups; Python ints are
    int32 scalars (int64 with ScalarInt64), floats float32, bools bool;
    ct.Constant parameters become constants. It then calls
    ``cuda.tile.compilation.export_kernel`` (gpu_code sm_90 or
    sm_<capability>, the bytecode version tileiras supports) and writes
    OUTDIR/<kernel>__<n>.tilebc. Launches with the same kernel, hints and
    signature are exported once; identical bytecode is kept once.
  * ``cuda.tile.tune.exhaustive_search`` is replaced by a function that
    "launches" every config of the search space (so each autotune candidate is
    exported) when there are at most --max-configs (30) of them, otherwise an
    evenly spaced sample of --max-configs, and reports the first as best.
  * The tests' reference computation is skipped: common.PyTestCase's
    assertCorrectness only calls the op (and its backward when the output
    requires grad). Assertions elsewhere fail harmlessly (outputs are zeros).
  * Distinct bytecode is then capped at --max-files-per-kernel (16) per
    kernel, an evenly spaced sample in launch order (the static-persistent bmm
    alone gives ~1150 distinct files across the bmm tests' shapes and configs).
    The kept files are renamed <kernel>__<n>.tilebc with gaps in n.
  * Each export has a timeout (--export-timeout), each test one too
    (--test-timeout), each worker one (--file-timeout).
  * Finally tileiras (--gpu-name sm_90 and sm_80) compiles every file and
    OUTDIR/manifest.json records, per file: kernel, module, symbol, the tests
    that launched it, capability, grid, hints, calling convention, the
    arguments (shape/dtype/strides/offset for arrays, values for scalars and
    constants), the constraints, and tileiras's result per arch.
"""
import argparse
import contextlib
import glob
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import types
from concurrent.futures import ThreadPoolExecutor

import pytest

ARCHES = ("sm_90", "sm_80")


# --------------------------------------------------------------------------- timeouts

class Timeout(Exception):
    pass


@contextlib.contextmanager
def deadline(seconds, what):
    """Raise Timeout in the main thread after `seconds`; restores an outer deadline."""
    def fire(signum, frame):
        raise Timeout(f"{what} timed out after {seconds}s")
    old_handler = signal.signal(signal.SIGALRM, fire)
    outer_left, _ = signal.getitimer(signal.ITIMER_REAL)
    start = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, seconds if not outer_left else min(seconds, outer_left))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old_handler)
        if outer_left:
            signal.setitimer(signal.ITIMER_REAL, max(0.01, outer_left - (time.monotonic() - start)))


# --------------------------------------------------------------------------- worker: patches

def patch_torch(capability):
    """Answer torch.cuda's queries as a GPU of `capability` would; keep tensors on the CPU."""
    import torch
    from torch.overrides import TorchFunctionMode

    props = types.SimpleNamespace(
        name="NVIDIA H100 80GB HBM3" if capability[0] == 9 else "NVIDIA A100-SXM4-80GB",
        major=capability[0], minor=capability[1], multi_processor_count=132 if capability[0] == 9 else 108,
        total_memory=80 * 2**30, shared_memory_per_block_optin=227 * 1024 if capability[0] == 9 else 163 * 1024,
        shared_memory_per_multiprocessor=228 * 1024, max_threads_per_multi_processor=2048,
        L2_cache_size=50 * 2**20, warp_size=32, regs_per_multiprocessor=65536)

    class FakeStream:
        # A class, not a factory: libraries annotate with `torch.cuda.Stream | None`.
        cuda_stream = 0

        def __init__(self, *a, **k):
            pass

        def synchronize(self):
            pass

        def wait_stream(self, other):
            pass

    class FakeEvent:
        def __init__(self, *a, **k):
            pass

        def record(self, *a, **k):
            pass

        def synchronize(self):
            pass

        def elapsed_time(self, other):
            return 1.0

    cuda = torch.cuda
    cuda.is_available = lambda: True
    cuda.device_count = lambda: 1
    cuda.current_device = lambda: 0
    cuda.set_device = lambda *a, **k: None
    cuda.get_device_capability = lambda *a, **k: tuple(capability)
    cuda.get_device_properties = lambda *a, **k: props
    cuda.get_device_name = lambda *a, **k: props.name
    cuda.current_stream = lambda *a, **k: FakeStream()
    cuda.default_stream = lambda *a, **k: FakeStream()
    cuda.Stream = FakeStream
    cuda.Event = FakeEvent
    for name in ("synchronize", "empty_cache", "manual_seed", "manual_seed_all", "reset_peak_memory_stats",
                 "_sleep", "init"):
        setattr(cuda, name, lambda *a, **k: None)
    cuda.memory_stats = lambda *a, **k: {}
    cuda.max_memory_allocated = lambda *a, **k: 0
    cuda.memory_allocated = lambda *a, **k: 0
    cuda.mem_get_info = lambda *a, **k: (80 * 2**30, 80 * 2**30)

    def is_cuda(d):
        return (isinstance(d, str) and d.startswith("cuda")) or (isinstance(d, torch.device) and d.type == "cuda")

    cpu = torch.device("cpu")
    redirects = {torch.empty: torch.zeros, torch.empty_like: torch.zeros_like}

    # The tests' references (a 8192^3 f16 bmm, say) would take minutes on the CPU, and only the
    # kernels' launches matter here: products are zeros of the shape meta tensors give.
    costly = {torch.matmul, torch.mm, torch.bmm, torch.Tensor.matmul, torch.Tensor.__matmul__,
              torch.einsum, torch.baddbmm, torch.addmm, torch.nn.functional.linear,
              torch.nn.functional.scaled_dot_product_attention, torch.nn.functional.conv2d,
              torch.nn.functional.conv3d}

    def needs_grad(args, kwargs):
        # A product autograd must differentiate (a backward test's reference) is computed.
        flat = list(args) + list(kwargs.values())
        flat += [x for a in flat if isinstance(a, (list, tuple)) for x in a]
        return torch.is_grad_enabled() and any(isinstance(a, torch.Tensor) and a.requires_grad for a in flat)

    def shaped_zeros(func, args, kwargs):
        def meta(a):
            return a.to("meta") if isinstance(a, torch.Tensor) else a
        with torch._C.DisableTorchFunction():
            out = func(*[meta(a) if not isinstance(a, (list, tuple)) else type(a)(meta(x) for x in a)
                         for a in args], **{k: meta(v) for k, v in kwargs.items()})
            return torch.zeros(out.shape, dtype=out.dtype, device=cpu)

    class CudaToCpu(TorchFunctionMode):
        """Every device='cuda' becomes the CPU; Tensor.cuda() is the identity."""

        def __torch_function__(self, func, types_, args=(), kwargs=None):
            kwargs = dict(kwargs or {})
            if is_cuda(kwargs.get("device")):
                kwargs["device"] = cpu
            if func in (torch.Tensor.cuda,):
                return args[0]
            if func in (torch.Tensor.to,):
                args = tuple(cpu if is_cuda(a) else a for a in args)
            if func in (torch.Tensor.pin_memory,):
                return args[0]
            func = redirects.get(func, func)
            if func in costly and not needs_grad(args, kwargs):
                return shaped_zeros(func, args, kwargs)
            return func(*args, **kwargs)

    mode = CudaToCpu()
    mode.__enter__()
    return mode


def torch_to_ct_dtype(dt):
    import torch
    import cuda.tile as ct
    table = {torch.bool: ct.bool_, torch.uint8: ct.uint8, torch.int8: ct.int8, torch.int16: ct.int16,
             torch.int32: ct.int32, torch.int64: ct.int64, torch.float16: ct.float16,
             torch.bfloat16: ct.bfloat16, torch.float32: ct.float32, torch.float64: ct.float64,
             torch.float8_e4m3fn: ct.float8_e4m3fn, torch.float8_e5m2: ct.float8_e5m2,
             torch.uint16: ct.uint16, torch.uint32: ct.uint32, torch.uint64: ct.uint64}
    if hasattr(torch, "float8_e8m0fnu"):
        table[torch.float8_e8m0fnu] = ct.float8_e8m0fnu
    return table[dt]


class Constraints:
    """Launch arguments -> cuTile parameter constraints, as cuTile's launcher derives them."""

    MAX_SPECIALIZED_NDIM = 5  # TMA_MAX_NDIM in cuTile's launcher

    def __init__(self):
        self.needs_v2 = False

    def array_bits(self, t):
        """The launcher's specialization bits of one tensor (a dict of per-axis flags)."""
        ndim, bits = t.dim(), t.element_size() * 8
        shape, strides = list(t.shape), list(t.stride())
        b = dict(shape_one=[False] * ndim, stride16=[False] * ndim, stride_one=[False] * ndim,
                 shape16=[False] * ndim)
        if ndim <= self.MAX_SPECIALIZED_NDIM:
            for i in range(ndim):
                sb, hb = strides[i] * bits, shape[i] * bits
                b["shape_one"][i] = shape[i] == 1
                b["stride16"][i] = sb % 8 == 0 and int(sb / 8) % 16 == 0
                b["stride_one"][i] = strides[i] == 1
                b["shape16"][i] = hb % 8 == 0 and shape[i] % 16 == 0
        b["base16"] = t.data_ptr() % 16 == 0
        pairs = sorted(zip(strides, shape))
        disjoint = ndim == 0 or pairs[0][0] > 0
        for (ps, pn), (cs, _) in zip(pairs, pairs[1:]):
            disjoint = disjoint and cs > 0 and cs >= ps * pn
        b["disjoint"] = disjoint
        return b

    @staticmethod
    def and_bits(a, b):
        return {k: ([x and y for x, y in zip(a[k], b[k])] if isinstance(a[k], list) else a[k] and b[k]) for k in a}

    def array(self, tensors, ann):
        import cuda.tile as ct
        from cuda.tile.compilation import ArrayConstraint
        t = tensors[0]
        bits = self.array_bits(t)
        for other in tensors[1:]:
            bits = self.and_bits(bits, self.array_bits(other))
        ndim, ebits = t.dim(), t.element_size() * 8
        static_shape = list(getattr(ann, "static_shape_dims", None) or ())
        static_stride = list(getattr(ann, "static_stride_dims", None) or ())
        index_dtype = getattr(ann, "index_dtype", None) or ct.int32
        stride_div = 128 // ebits if 128 % ebits == 0 else 1
        shape_const = [None] * ndim
        stride_const = [1 if (bits["stride_one"][i] and not static_stride) else None for i in range(ndim)]
        for d in static_shape:
            shape_const[d % ndim] = int(t.shape[d])
        for d in static_stride:
            stride_const[d % ndim] = int(t.stride(d))
        for i in range(ndim):
            if bits["shape_one"][i] and not static_shape and shape_const[i] is None:
                shape_const[i] = 1
        if any(s is not None for s in shape_const):
            self.needs_v2 = True
        return ArrayConstraint(
            dtype=torch_to_ct_dtype(t.dtype), ndim=ndim, index_dtype=index_dtype,
            stride_lower_bound_incl=0, alias_groups=(), may_alias_internally=not bits["disjoint"],
            stride_constant=stride_const, shape_constant=shape_const,
            stride_divisible_by=tuple(stride_div if x else 1 for x in bits["stride16"]),
            shape_divisible_by=tuple(16 if x else 1 for x in bits["shape16"]),
            base_addr_divisible_by=16 if bits["base16"] else 1)

    def param(self, value, node):
        """One kernel argument and its annotation node -> a constraint (or constant value)."""
        import torch
        import cuda.tile as ct
        from cuda.tile.compilation import ScalarConstraint, ListConstraint
        kind = getattr(node, "KIND", "leaf")
        if isinstance(value, tuple):
            if kind == "homogeneous_tuple":
                items = [self.param(v, node.each) for v in value]
            elif kind == "heterogeneous_tuple":
                items = [self.param(v, n) for v, n in zip(value, node.items)]
            else:
                items = [self.param(v, node) for v in value]
            return tuple(items)
        if isinstance(value, torch.dtype):
            return torch_to_ct_dtype(value)
        if getattr(node, "constant", False):
            return value
        if isinstance(value, torch.Tensor):
            return self.array([value], getattr(node, "array", None))
        if isinstance(value, list):
            lst = getattr(node, "list", None)
            element = self.array(value, getattr(lst, "element", None) if lst else None)
            return ListConstraint(element, alias_groups=(), elements_may_alias=True)
        if isinstance(value, bool):
            return ScalarConstraint(ct.bool_)
        if isinstance(value, int):
            scalar = getattr(node, "scalar", None)
            return ScalarConstraint(scalar.dtype if scalar else ct.int32)
        if isinstance(value, float):
            return ScalarConstraint(ct.float32)
        return value  # None, strings, enums, cuTile dtypes: constants


def describe_arg(value):
    """A JSON description of a launch argument (enough to rebuild it at small shapes)."""
    import torch
    if isinstance(value, torch.Tensor):
        return {"kind": "array", "shape": list(value.shape), "strides": list(value.stride()),
                "dtype": str(value.dtype).replace("torch.", ""), "storage_offset": value.storage_offset(),
                "base_align16": value.data_ptr() % 16 == 0}
    if isinstance(value, list):
        return {"kind": "list", "items": [describe_arg(v) for v in value]}
    if isinstance(value, tuple):
        return {"kind": "tuple", "items": [describe_arg(v) for v in value]}
    if isinstance(value, (bool, int, float)) or value is None:
        return {"kind": "value", "value": value}
    return {"kind": "other", "repr": repr(value)}


class Recorder:
    """Replaces ct.launch: exports each new (kernel, hints, signature) launch to bytecode."""

    def __init__(self, outdir, capability, export_timeout, bytecode_version):
        self.outdir = outdir
        self.gpu_code = "sm_%d%d" % tuple(capability)
        self.capability = capability
        self.export_timeout = export_timeout
        self.bytecode_version = bytecode_version
        self.seen = {}
        self.test = None
        self.entries = []
        self.log = open(os.path.join(outdir, "entries.jsonl"), "a")

    def launch(self, stream, grid, kernel, kernel_args, **kwargs):
        from cuda.tile.compilation import KernelSignature, CallingConvention, export_kernel
        from cuda.tile._annotated_function import get_annotated_function
        import dataclasses
        pyfunc = kernel._pyfunc
        name = pyfunc.__name__
        grid = tuple(int(g) for g in grid)
        entry = {"kernel": name, "module": pyfunc.__module__, "test": self.test, "grid": grid,
                 "capability": list(self.capability), "gpu_code": self.gpu_code,
                 "hints": {k: repr(v) for k, v in dataclasses.asdict(kernel._compiler_options).items()
                           if v is not None},
                 "args": [describe_arg(a) for a in kernel_args]}
        try:
            c = Constraints()
            nodes = get_annotated_function(pyfunc).parameter_annotations
            params = [c.param(v, n) for v, n in zip(kernel_args, nodes)]
            cconv = CallingConvention.cutile_python_v2() if c.needs_v2 else CallingConvention.cutile_python_v1()
            sig = KernelSignature(params, calling_convention=cconv)
            entry["calling_convention"] = cconv.name
            entry["constraints"] = repr(sig.parameters)
            key = (pyfunc.__module__, pyfunc.__qualname__, repr(kernel._compiler_options), repr(sig))
            if key in self.seen:
                entry["duplicate_of"] = self.seen[key]
            else:
                tmp = os.path.join(self.outdir, ".tmp", "%s_%d_%d.tilebc" % (name, os.getpid(), len(self.seen)))
                os.makedirs(os.path.dirname(tmp), exist_ok=True)
                t0 = time.monotonic()
                with deadline(self.export_timeout, "export of " + name):
                    export_kernel(kernel, [sig], tmp, output_format="tileir_bytecode",
                                  gpu_code=self.gpu_code, bytecode_version=self.bytecode_version)
                entry["export_s"] = round(time.monotonic() - t0, 2)
                entry["tmpfile"] = tmp
                self.seen[key] = tmp
        except Exception as e:  # noqa: BLE001 -- recorded in the manifest
            entry["export_error"] = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else "")
        self.log.write(json.dumps(entry) + "\n")
        self.log.flush()


def fake_exhaustive_search(recorder, max_configs):
    """Replaces cuda.tile.tune.exhaustive_search: launch every (or a sample of) config."""
    from cuda.tile.tune import TuningResult, Measurement

    def search(search_space, stream, grid_fn, kernel, args_fn, hints_fn=None, **_):
        space = list(search_space)
        if len(space) > max_configs:
            step = len(space) / max_configs
            space = [space[int(i * step)] for i in range(max_configs)]
        for cfg in space:
            k = kernel(cfg) if not hasattr(kernel, "_pyfunc") else kernel
            if hints_fn is not None:
                k = k.replace_hints(**hints_fn(cfg))
            recorder.launch(stream, grid_fn(cfg), k, tuple(args_fn(cfg)))
        best = Measurement(config=space[0], mean_us=1.0, num_samples=1, error_margin_us=0.0)
        return TuningResult(best=best, successes=[best], failures=[])
    return search


class PytestPlugin:
    """Keeps the cutile correctness tests, tags launches with the test, bounds each test's time."""

    def __init__(self, recorder, test_timeout):
        self.recorder = recorder
        self.test_timeout = test_timeout

    def pytest_collection_modifyitems(self, config, items):
        keep, drop = [], []
        for item in items:
            params = getattr(getattr(item, "callspec", None), "params", {})
            backend = params.get("backend", params.get("framework", "cutile"))
            perf = item.name.startswith("test_perf") or "benchmark" in item.name
            (keep if backend == "cutile" and not perf else drop).append(item)
        items[:] = keep
        config.hook.pytest_deselected(items=drop)

    def pytest_runtest_call(self, item):
        self.recorder.test = item.nodeid

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        with deadline(self.test_timeout, item.nodeid):
            yield


def patch_test_common():
    """assertCorrectness: run the op (and backward), skip the CPU reference and comparison."""
    import torch
    from tests import common

    def assert_correctness(self, test_fn, ref_fn, kwargs, extra_test_kwargs=None, extra_ref_kwargs=None,
                           gradient=None, multiple_outputs=False, **_):
        fn_kwargs = {k: v.tensor if isinstance(v, common.TestParam) else v for k, v in kwargs.items()}
        out = test_fn(**fn_kwargs, **(extra_test_kwargs or {}))
        if not multiple_outputs and isinstance(out, torch.Tensor) and out.requires_grad:
            grad = torch.ones_like(out) if gradient is None else gradient(out) if callable(gradient) else gradient
            out.backward(grad)

    common.PyTestCase.assertCorrectness = assert_correctness


def worker(args):
    """Run one test file under pytest with the patches; append entries to OUTDIR/entries.jsonl."""
    capability = tuple(int(x) for x in args.capability.split("."))
    patch_torch(capability)
    import cuda.tile as ct
    import cuda.tile.tune as tune
    recorder = Recorder(args.outdir, capability, args.export_timeout, args.bytecode_version)
    ct.launch = recorder.launch
    tune.exhaustive_search = fake_exhaustive_search(recorder, args.max_configs)
    sys.path[:0] = [os.path.join(args.tilegym_dir, "src"), args.tilegym_dir]
    os.environ.setdefault("TILEGYM_DISABLE_AUTOTUNE", "0")
    patch_test_common()
    rc = pytest.main([args.worker, "-q", "-p", "no:cacheprovider", "--rootdir", args.tilegym_dir,
                      "-W", "ignore", "--tb=line", "-o", "addopts="], plugins=[PytestPlugin(recorder, args.test_timeout)])
    return 0 if rc in (0, 1) else rc


# --------------------------------------------------------------------------- parent

def run_tileiras(path, arch, timeout):
    try:
        r = subprocess.run([shutil.which("tileiras"), "--gpu-name", arch, path, "-o", os.devnull],
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": "timeout after %ds" % timeout}
    if r.returncode == 0:
        return {"ok": True}
    lines = [l for l in (r.stderr + r.stdout).splitlines() if l.strip()]
    err = next((l for l in lines if "error" in l), lines[0] if lines else "rc=%d" % r.returncode)
    return {"ok": False, "error": err.strip()[:300]}


def default_bytecode_version():
    """The newest bytecode version tileiras accepts, as cuTile's launch would pick."""
    from cuda.tile._compile import _get_max_supported_bytecode_version
    import tempfile
    v = _get_max_supported_bytecode_version(tempfile.gettempdir())
    return v.as_string()


def test_name(args, path):
    """A test file's name in logs: its path under tests/ops (or tests/), folders joined by '_'."""
    rel = os.path.relpath(path, os.path.join(args.tilegym_dir, "tests"))
    return (rel[len("ops/"):] if rel.startswith("ops/") else rel).replace("/", "_")


def parent(args):
    os.makedirs(args.outdir, exist_ok=True)
    for stale in glob.glob(os.path.join(args.outdir, "*.tilebc")) + glob.glob(os.path.join(args.outdir, "entries.jsonl")):
        os.remove(stale)
    shutil.rmtree(os.path.join(args.outdir, ".tmp"), ignore_errors=True)
    if not shutil.which("tileiras"):
        sys.exit("tileiras is not on PATH: source shared/tools/reference-toolchain.sh")
    bcv = args.bytecode_version or default_bytecode_version()
    files = sorted({f for pattern in args.test_glob for f in glob.glob(os.path.join(args.tilegym_dir, pattern))})
    if args.tests:
        files = [f for f in files if any(re.search(p, os.path.relpath(f, args.tilegym_dir)) for p in args.tests)]
    worker_log = {}
    for cap in args.capability.split(","):
        for f in files:
            t0 = time.monotonic()
            cmd = [sys.executable, os.path.abspath(__file__), args.tilegym_dir, args.outdir, "--worker", f,
                   "--capability", cap, "--bytecode-version", bcv, "--export-timeout", str(args.export_timeout),
                   "--test-timeout", str(args.test_timeout), "--max-configs", str(args.max_configs)]
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=args.file_timeout,
                                   cwd=args.tilegym_dir)
                os.makedirs(os.path.join(args.outdir, "logs"), exist_ok=True)
                with open(os.path.join(args.outdir, "logs", "%s.%s.log" % (test_name(args, f), cap)), "w") as lf:
                    lf.write(r.stdout + r.stderr)
                tail = (r.stdout + r.stderr).strip().splitlines()[-1:] or [""]
                status = "rc=%d %s" % (r.returncode, tail[0][:200])
            except subprocess.TimeoutExpired:
                status = "timeout after %ds" % args.file_timeout
            worker_log["%s@%s" % (test_name(args, f), cap)] = status
            print("[%6.1fs] %s (capability %s): %s" % (time.monotonic() - t0, test_name(args, f), cap, status),
                  flush=True)
    entries = []
    log = os.path.join(args.outdir, "entries.jsonl")
    if os.path.exists(log):
        entries = [json.loads(l) for l in open(log) if l.strip()]

    # Deduplicate identical bytecode; name files <kernel>__<n>.tilebc.
    by_hash, counters, records = {}, {}, []
    tmp_to_record = {}
    for e in entries:
        tmp = e.pop("tmpfile", None) or e.get("duplicate_of")
        if tmp is None:
            records.append(dict(e, file=None))
            continue
        if tmp in tmp_to_record:
            rec = tmp_to_record[tmp]
        else:
            data = open(tmp, "rb").read()
            digest = hashlib.sha256(data).hexdigest()
            rec = by_hash.get(digest)
            if rec is None:
                n = counters.get(e["kernel"], 0)
                counters[e["kernel"]] = n + 1
                name = "%s__%d.tilebc" % (e["kernel"], n)
                with open(os.path.join(args.outdir, name), "wb") as out:
                    out.write(data)
                rec = dict(e, file=name, sha256=digest, bytes=len(data), launches=[])
                rec.pop("duplicate_of", None)
                rec.pop("test", None)
                by_hash[digest] = rec
                records.append(rec)
            tmp_to_record[tmp] = rec
        rec["launches"].append({"test": e["test"], "grid": e["grid"], "args": e["args"]})
    shutil.rmtree(os.path.join(args.outdir, ".tmp"), ignore_errors=True)

    # Cap the files per kernel (an evenly spaced sample; tileiras takes up to ~30 s on one file).
    files_out, by_kernel = [], {}
    for r in records:
        if r.get("file"):
            by_kernel.setdefault(r["kernel"], []).append(r)
    for kernel, rs in by_kernel.items():
        step = max(1.0, len(rs) / args.max_files_per_kernel)
        keep = {id(rs[int(i * step)]) for i in range(min(len(rs), args.max_files_per_kernel))}
        for r in rs:
            if id(r) in keep:
                files_out.append(r)
            else:
                os.remove(os.path.join(args.outdir, r["file"]))
        if len(rs) > len(keep):
            print("%s: kept %d of %d distinct files" % (kernel, len(keep), len(rs)))
    if not args.no_tileiras:
        jobs = [(r, a) for r in files_out for a in ARCHES]
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            results = pool.map(lambda ra: run_tileiras(os.path.join(args.outdir, ra[0]["file"]), ra[1],
                                                       args.tileiras_timeout), jobs)
            for (r, a), res in zip(jobs, results):
                r.setdefault("tileiras", {})[a] = res
    manifest = {"tilegym_dir": os.path.abspath(args.tilegym_dir), "bytecode_version": bcv,
                "capabilities": args.capability, "max_configs": args.max_configs, "workers": worker_log,
                "files": files_out,
                "export_failures": [r for r in records if not r.get("file")]}
    with open(os.path.join(args.outdir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    ok = {a: sum(1 for r in files_out if r.get("tileiras", {}).get(a, {}).get("ok")) for a in ARCHES}
    print("%d launches -> %d files (%d export failures); tileiras ok: %s" % (
        len(entries), len(files_out), len(manifest["export_failures"]),
        ", ".join("%s %d/%d" % (a, ok[a], len(files_out)) for a in ARCHES)))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("tilegym_dir")
    p.add_argument("outdir")
    p.add_argument("--test-glob", nargs="*", default=["tests/ops/test_*.py"],
                   help="globs of test files under TILEGYM_DIR (default tests/ops/test_*.py; the activation, "
                        "experimental and suites/* tests are further globs)")
    p.add_argument("--tests", nargs="*", help="regexes selecting among those files (by path under TILEGYM_DIR)")
    p.add_argument("--capability", default="9.0", help="device capability to pretend, e.g. 9.0 or 9.0,8.0")
    p.add_argument("--max-configs", type=int, default=30)
    p.add_argument("--max-files-per-kernel", type=int, default=16)
    p.add_argument("--export-timeout", type=int, default=120)
    p.add_argument("--test-timeout", type=int, default=300)
    p.add_argument("--file-timeout", type=int, default=1800)
    p.add_argument("--tileiras-timeout", type=int, default=300)
    p.add_argument("--bytecode-version", default=None)
    p.add_argument("--no-tileiras", action="store_true")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args()
    args.outdir = os.path.abspath(args.outdir)
    args.tilegym_dir = os.path.abspath(args.tilegym_dir)
    sys.exit(worker(args) if args.worker else parent(args))


if __name__ == "__main__":
    main()
