"""A small kernel launcher over the CUDA driver API (cuda-python's `cuda.bindings`).

    from tilec.runtime import cuda_available, load_ptx
    mod = load_ptx(ptx_text)                 # JIT-compiles for the current device
    mod.kernel("vector_add").launch((4,), [a, b, c, 1000])

Arguments follow the interpreter's conventions (`tilec.interp.launch`): a NumPy
array for a pointer parameter is copied to a fresh device buffer before the
launch and copied back into the same array after it (the same array object
passed twice shares one buffer); `(array, element offset)` points into such a
buffer; Python numbers (or NumPy scalars) fill scalar parameters at the width
of their `.param`. A plain int for a pointer parameter, a `DeviceBuffer`, or an
object with `data_ptr()` / `__cuda_array_interface__` (torch, CuPy) passes a
device address as is.

The block size is the kernel's `.reqntid` (else `.maxntid`); the grid is the
cuda_tile tile-block grid, (x, y, z), as the interpreter takes it.

`cuda.bindings` is imported lazily, inside functions: importing this module
never needs it, and `cuda_available()` never raises.
"""
from __future__ import annotations

import ctypes
import os
import shutil
import statistics
import subprocess
import tempfile
import time

import numpy as np

from .ptxinfo import LaunchInfoError, Param, cubin_kernels, pack_param, parse_ptx, ptx_target_arch


class CudaError(RuntimeError):
    """A CUDA driver call failed (the message names the call and the error)."""

    def __init__(self, message, code=None, log=""):
        super().__init__(message)
        self.code, self.log = code, log


_UNAVAILABLE: list = []   # [reason] once cuda_available() found no usable device
_STATE: dict = {}


def _driver():
    from cuda.bindings import driver
    return driver


def _error_text(err) -> str:
    drv = _driver()
    try:
        name = drv.cuGetErrorName(err)[1]
        desc = drv.cuGetErrorString(err)[1]
        name = name.decode() if isinstance(name, bytes) else str(name)
        desc = desc.decode() if isinstance(desc, bytes) else str(desc)
        return f"{name}: {desc}"
    except Exception:   # noqa: BLE001 - best effort only
        return str(err)


# errors after which the context is unusable: every later call would fail with them too
_STICKY = {700, 702, 714, 715, 716, 717, 718, 719}
_NOT_READY = 600


def _check(result, what: str):
    """Unwrap a cuda.bindings result tuple `(CUresult, values...)`, raising CudaError.
    After a sticky error (illegal address, launch failure, ...) the primary
    context is reset, so that later launches in this process start afresh."""
    if not isinstance(result, tuple):
        result = (result,)
    err = result[0]
    if int(err) != 0:
        text = _error_text(err)
        note = ""
        if int(err) in _STICKY:
            note = " (the context was reset; device memory and modules loaded before are gone)"
            reset_context()
        raise CudaError(f"{what} failed: {text}{note}", code=int(err))
    rest = result[1:]
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else rest


# ---- device and context -------------------------------------------------------------

def cuda_available() -> bool:
    """True when cuda.bindings imports and a CUDA device can be initialised.
    Never raises; `unavailable_reason()` says why not."""
    if "ctx" in _STATE:
        return True
    if _UNAVAILABLE:
        return False
    try:
        _context()
        return True
    except ImportError as e:
        _UNAVAILABLE.append(f"cuda.bindings (cuda-python) is not installed ({e})")
    except Exception as e:   # noqa: BLE001 - no driver, no device, ... : all mean "no GPU"
        _UNAVAILABLE.append(f"{type(e).__name__}: {e}")
    return False


def unavailable_reason() -> str:
    if cuda_available():
        return ""
    return _UNAVAILABLE[0] if _UNAVAILABLE else "unknown"


def _context(device: int = 0):
    """Initialise the driver, retain the device's primary context (the one
    PyTorch and CuPy use) and make it current. Returns the context handle."""
    if "ctx" in _STATE:
        drv = _driver()
        _check(drv.cuCtxSetCurrent(_STATE["ctx"]), "cuCtxSetCurrent")
        return _STATE["ctx"]
    drv = _driver()
    _check(drv.cuInit(0), "cuInit")
    count = _check(drv.cuDeviceGetCount(), "cuDeviceGetCount")
    if count < 1:
        raise CudaError("no CUDA device")
    dev = _check(drv.cuDeviceGet(device), "cuDeviceGet")
    ctx = _check(drv.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")
    _check(drv.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    _STATE.update(ctx=ctx, dev=dev)
    return ctx


def reset_context():
    """Drop this process's primary context (cuDevicePrimaryCtxReset): every
    allocation and module in it is destroyed, running kernels included; the next
    driver use retains a fresh one. The way out of a sticky error or a hung kernel."""
    if "ctx" not in _STATE:
        return
    drv = _driver()
    try:
        drv.cuDevicePrimaryCtxReset(_STATE["dev"])
    except Exception:   # noqa: BLE001 - best effort
        pass
    _STATE.pop("ctx", None)
    _STATE["generation"] = _STATE.get("generation", 0) + 1


def _generation() -> int:
    return _STATE.get("generation", 0)


def device_info() -> dict:
    """name, compute capability (major, minor), multiprocessors, driver version."""
    _context()
    drv = _driver()
    dev = _STATE["dev"]
    name = _check(drv.cuDeviceGetName(256, dev), "cuDeviceGetName")
    name = name.split(b"\0", 1)[0].decode() if isinstance(name, (bytes, bytearray)) else str(name)
    A = drv.CUdevice_attribute
    get = lambda a: _check(drv.cuDeviceGetAttribute(a, dev), "cuDeviceGetAttribute")  # noqa: E731
    return {
        "name": name,
        "cc": (get(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR), get(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)),
        "sms": get(A.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
        "driver": _check(drv.cuDriverGetVersion(), "cuDriverGetVersion"),
    }


def synchronize():
    _context()
    _check(_driver().cuCtxSynchronize(), "cuCtxSynchronize")


def flush_printf():
    """Flush C's stdout: the driver writes device `printf` output there when the
    context synchronizes, and C stdio buffers it (Python's sys.stdout does not see it)."""
    try:
        ctypes.CDLL(None).fflush(None)
    except Exception:   # noqa: BLE001
        pass


# ---- device memory -------------------------------------------------------------------

class DeviceBuffer:
    """`nbytes` of device memory (cuMemAlloc). `ptr` is its address (int)."""

    def __init__(self, nbytes: int):
        _context()
        self.nbytes = int(nbytes)
        self._ptr = _check(_driver().cuMemAlloc(max(self.nbytes, 1)), "cuMemAlloc")
        self.ptr = int(self._ptr)
        self._generation = _generation()

    @classmethod
    def from_array(cls, arr: np.ndarray) -> "DeviceBuffer":
        buf = cls(arr.nbytes)
        buf.upload(arr)
        return buf

    def upload(self, arr: np.ndarray):
        arr = np.ascontiguousarray(arr)
        if arr.nbytes > self.nbytes:
            raise ValueError(f"{arr.nbytes} bytes do not fit in a {self.nbytes}-byte buffer")
        if arr.nbytes:
            _check(_driver().cuMemcpyHtoD(self.ptr, arr.ctypes.data, arr.nbytes), "cuMemcpyHtoD")

    def download(self, arr: np.ndarray):
        """Copy the buffer's first arr.nbytes bytes into `arr` (C-contiguous)."""
        if not arr.flags.c_contiguous or not arr.flags.writeable:
            raise ValueError("download needs a writeable C-contiguous array")
        if arr.nbytes:
            _check(_driver().cuMemcpyDtoH(arr.ctypes.data, self.ptr, arr.nbytes), "cuMemcpyDtoH")
        return arr

    def fill(self, byte: int = 0):
        _check(_driver().cuMemsetD8(self.ptr, byte & 0xFF, max(self.nbytes, 1)), "cuMemsetD8")

    def free(self):
        if self._ptr is not None:
            try:
                if self._generation == _generation() and "ctx" in _STATE:   # else: gone with its context
                    _check(_driver().cuMemFree(self._ptr), "cuMemFree")
            finally:
                self._ptr = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()

    def __int__(self):
        return self.ptr


# ---- modules and kernels -----------------------------------------------------------------

_LOG_BYTES = 1 << 16


def _c_string(buf) -> str:
    raw = bytes(buf)
    return raw.split(b"\0", 1)[0].decode("utf-8", "replace").strip()


def _ptxas_log(ptx_text: str, arch: str | None) -> str:
    """ptxas's own diagnostics for `ptx_text`, when ptxas is on PATH (a second
    opinion when the driver's JIT log is empty)."""
    exe = shutil.which("ptxas")
    if not exe or not arch:
        return ""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "k.ptx")
        with open(src, "w") as fh:
            fh.write(ptx_text)
        try:
            r = subprocess.run([exe, f"-arch={arch}", src, "-o", os.path.join(tmp, "k.cubin")],
                               capture_output=True, text=True, timeout=300)
        except Exception as e:   # noqa: BLE001
            return f"(ptxas could not run: {e})"
        return (r.stdout + r.stderr).strip()


def load_ptx(ptx_text: str, *, verbose_log: bool = False) -> "Module":
    """JIT-compile PTX for the current device (cuModuleLoadDataEx). On failure the
    CudaError carries the JIT error log (and ptxas's, when the log is empty)."""
    _context()
    drv = _driver()
    info = parse_ptx(ptx_text)
    image = ptx_text.encode() + b"\0"
    J = drv.CUjit_option
    err_buf, info_buf = bytearray(_LOG_BYTES), bytearray(_LOG_BYTES)
    opts = [J.CU_JIT_ERROR_LOG_BUFFER, J.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
            J.CU_JIT_INFO_LOG_BUFFER, J.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES]
    vals = [err_buf, _LOG_BYTES, info_buf, _LOG_BYTES]
    if verbose_log:
        opts.append(J.CU_JIT_LOG_VERBOSE)
        vals.append(1)
    try:
        result = drv.cuModuleLoadDataEx(image, len(opts), opts, vals)
    except TypeError:   # a cuda.bindings that does not take these option values
        result = drv.cuModuleLoadData(image)
    err = result[0]
    if int(err) != 0:
        log = _c_string(err_buf)
        if not log:
            log = _ptxas_log(ptx_text, ptx_target_arch(info))
        dev = ""
        try:
            d = device_info()
            dev = f" on {d['name']} (sm_{d['cc'][0]}{d['cc'][1]})"
        except Exception:   # noqa: BLE001
            pass
        raise CudaError(f"cuModuleLoadDataEx (PTX JIT for {info.target or '?'}){dev} failed: "
                        f"{_error_text(err)}" + (f"\n{log}" if log else ""), code=int(err), log=log)
    return Module(result[1], ptx_info=info, jit_log=_c_string(info_buf))


def load_cubin(path_or_bytes) -> "Module":
    """Load a cubin: a path (cuModuleLoad) or its bytes (cuModuleLoadData).
    Launch facts (block size, parameter sizes) come from its .nv.info sections."""
    _context()
    drv = _driver()
    if isinstance(path_or_bytes, (bytes, bytearray)):
        data = bytes(path_or_bytes)
        handle = _check(drv.cuModuleLoadData(data), "cuModuleLoadData")
    else:
        path = os.fspath(path_or_bytes)
        with open(path, "rb") as fh:
            data = fh.read()
        handle = _check(drv.cuModuleLoad(path.encode()), f"cuModuleLoad({path})")
    try:
        kernels = cubin_kernels(data)
    except (LaunchInfoError, IndexError, ValueError):
        kernels = {}
    return Module(handle, cubin_info=kernels)


class Module:
    def __init__(self, handle, ptx_info=None, cubin_info=None, jit_log=""):
        self.handle = handle
        self.ptx_info = ptx_info
        self.cubin_info = cubin_info or {}
        self.jit_log = jit_log
        self._kernels = {}

    @property
    def kernel_names(self) -> list:
        if self.ptx_info is not None:
            return list(self.ptx_info.entries)
        return list(self.cubin_info)

    def kernel(self, name: str | None = None) -> "Kernel":
        if name is None:
            names = self.kernel_names
            if len(names) != 1:
                raise LaunchInfoError(f"name the kernel (entries: {', '.join(names) or 'none'})")
            name = names[0]
        name = name.lstrip("@")
        if name not in self._kernels:
            fn = _check(_driver().cuModuleGetFunction(self.handle, name.encode()), f"cuModuleGetFunction({name})")
            if self.ptx_info is not None:
                entry = self.ptx_info.entries.get(name)
                if entry is None:
                    raise LaunchInfoError(f"no .entry {name} in the PTX")
                params, block = entry.params, entry.block
                needs_dynamic_shared = self.ptx_info.extern_shared
            else:
                ck = self.cubin_info.get(name)
                params, block = (ck.params, ck.block) if ck else (None, None)
                needs_dynamic_shared = False
            kernel = Kernel(self, name, fn, params, block, needs_dynamic_shared)
            if self.ptx_info is not None and self.ptx_info.dynamic_shared:
                kernel.shared_bytes = self.ptx_info.dynamic_shared.get(name, 0)
            self._kernels[name] = kernel
        return self._kernels[name]

    def global_address(self, name: str) -> tuple:
        """(device address, size in bytes) of a module-scope variable."""
        ptr, size = _check(_driver().cuModuleGetGlobal(self.handle, name.encode()), f"cuModuleGetGlobal({name})")
        return int(ptr), int(size)

    def read_global(self, name: str, dtype) -> np.ndarray:
        ptr, size = self.global_address(name)
        dt = np.dtype(dtype)
        out = np.empty(size // dt.itemsize, dt)
        synchronize()
        if out.nbytes:
            _check(_driver().cuMemcpyDtoH(out.ctypes.data, ptr, out.nbytes), "cuMemcpyDtoH")
        return out

    def unload(self):
        if self.handle is not None:
            _check(_driver().cuModuleUnload(self.handle), "cuModuleUnload")
            self.handle = None


def _grid3(grid) -> tuple:
    if isinstance(grid, (int, np.integer)):
        grid = (int(grid),)
    grid = tuple(int(g) for g in grid)
    if not 1 <= len(grid) <= 3 or any(g < 1 for g in grid):
        raise LaunchInfoError(f"invalid grid {grid}: 1 to 3 positive extents")
    return grid + (1,) * (3 - len(grid))


def _device_address(value):
    """The device address `value` stands for, or None if it is no device object."""
    if isinstance(value, DeviceBuffer):
        return value.ptr
    iface = getattr(value, "__cuda_array_interface__", None)
    if iface is not None:
        return int(iface["data"][0])
    data_ptr = getattr(value, "data_ptr", None)
    if callable(data_ptr) and getattr(value, "is_cuda", True):
        return int(data_ptr())
    return None


class PreparedLaunch:
    """Device buffers and the packed parameters of one launch, ready to be run
    any number of times (`run`), then copied back (`finish`)."""

    def __init__(self, kernel, grid, block, shared_bytes, buffers, copy_back, raw_params):
        self.kernel, self.grid, self.block, self.shared_bytes = kernel, grid, block, shared_bytes
        self._buffers, self._copy_back = buffers, copy_back
        self._storage = [ctypes.create_string_buffer(raw, max(len(raw), 1)) for raw in raw_params]
        self._ptrs = (ctypes.c_void_p * max(len(self._storage), 1))(
            *[ctypes.addressof(s) for s in self._storage])

    def run(self, stream=0):
        g, b = self.grid, self.block
        _check(_driver().cuLaunchKernel(self.kernel.handle, g[0], g[1], g[2], b[0], b[1], b[2],
                                        self.shared_bytes, stream, ctypes.addressof(self._ptrs), 0),
               f"cuLaunchKernel({self.kernel.name}, grid={g}, block={b})")
        self._stream = stream

    def wait(self, timeout: float | None = None):
        """Wait for the last `run`. With `timeout` (seconds), poll instead of
        blocking; past it the context is reset (killing the kernel) and CudaError raised."""
        if timeout is None:
            synchronize()
            return
        done = Event()
        try:
            done.record(getattr(self, "_stream", 0))
            deadline = time.monotonic() + timeout
            pause = 1e-4
            while True:
                err = _driver().cuEventQuery(done.handle)[0]
                if int(err) == 0:
                    break
                if int(err) != _NOT_READY:
                    _check((err,), f"kernel {self.kernel.name}")
                if time.monotonic() > deadline:
                    reset_context()
                    done.handle = None
                    raise CudaError(f"kernel {self.kernel.name} (grid {self.grid}, block {self.block}) did not "
                                    f"finish within {timeout:g} s; the context was reset", code=_NOT_READY)
                time.sleep(pause)
                pause = min(pause * 2, 0.01)
        finally:
            if done.handle is not None and done._generation == _generation():
                done.destroy()
        synchronize()

    def finish(self, timeout: float | None = None):
        """Wait for the device, copy every host array back, free the buffers."""
        try:
            self.wait(timeout)
            for host, buf, original in self._copy_back:
                buf.download(host)
                if original is not host:
                    original[...] = host
        finally:
            self.free()

    def free(self):
        for buf in self._buffers:
            buf.free()
        self._buffers = []


class Kernel:
    def __init__(self, module, name, handle, params, block, needs_dynamic_shared=False):
        self.module, self.name, self.handle = module, name, handle
        self.params = params            # list[Param] or None (unknown: cubin without .nv.info)
        self.block = block              # (x, y, z) from .reqntid/.maxntid, or None
        self.needs_dynamic_shared = needs_dynamic_shared
        self.shared_bytes = 0           # dynamic shared memory per block, if the kernel wants some

    def attribute(self, name: str) -> int:
        """cuFuncGetAttribute, by the attribute's suffix: 'MAX_THREADS_PER_BLOCK', 'NUM_REGS', ..."""
        drv = _driver()
        attr = getattr(drv.CUfunction_attribute, "CU_FUNC_ATTRIBUTE_" + name)
        return _check(drv.cuFuncGetAttribute(attr, self.handle), f"cuFuncGetAttribute({name})")

    def _block(self, block):
        if block is not None:
            return _grid3(block)
        if self.block is not None:
            return tuple(self.block)
        raise LaunchInfoError(f"kernel {self.name} states no block size (.reqntid/.maxntid): pass block=")

    def prepare(self, grid, args, block=None, *, arg_dtypes=None, shared_bytes=None) -> PreparedLaunch:
        grid3, block3 = _grid3(grid), self._block(block)
        args = list(args)
        params = self.params
        if params is None:
            raise LaunchInfoError(f"the parameter list of {self.name} is unknown")
        if len(args) != len(params):
            sig = ", ".join(f".{p.kind}{p.bits} {p.name}" if p.kind != "cubin" else f"{p.size}B"
                            for p in params)
            raise LaunchInfoError(f"kernel {self.name} takes {len(params)} parameters ({sig}), got {len(args)}")
        dtypes = list(arg_dtypes) if arg_dtypes is not None else [None] * len(args)
        if len(dtypes) != len(args):
            raise LaunchInfoError(f"{len(dtypes)} arg_dtypes for {len(args)} arguments")
        buffers, copy_back, by_id, raw = [], [], {}, []
        try:
            for i, (p, a, dt) in enumerate(zip(params, args, dtypes)):
                where = f"argument {i} ({p.name})"
                ptr = None
                if dt is None or (isinstance(dt, str) and dt == "ptr"):
                    ptr = self._pointer(a, by_id, buffers, copy_back, dt is not None)
                    if ptr is None and dt is not None:
                        raise LaunchInfoError(f"{where}: a pointer parameter takes a NumPy array, "
                                              f"(array, element offset), a device buffer or an address")
                if ptr is not None:
                    if p.size != 8:
                        raise LaunchInfoError(f"{where}: a pointer needs an 8-byte .param, this one is {p.size}")
                    raw.append(ptr.to_bytes(8, "little"))
                else:
                    raw.append(pack_param(p, a, dt, where))
        except BaseException:
            for b in buffers:
                b.free()
            raise
        sb = self.shared_bytes if shared_bytes is None else int(shared_bytes)
        if self.needs_dynamic_shared and sb == 0:
            raise LaunchInfoError(f"kernel {self.name}'s PTX declares `.extern .shared` (dynamic shared memory) "
                                  f"but no size was given: pass shared_bytes= (or set kernel.shared_bytes)")
        if sb > 48 * 1024:
            drv = _driver()
            _check(drv.cuFuncSetAttribute(self.handle,
                                          drv.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                          sb), "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)")
        return PreparedLaunch(self, grid3, block3, sb, buffers, copy_back, raw)

    @staticmethod
    def _pointer(a, by_id, buffers, copy_back, is_pointer):
        """The device address for a pointer-like argument (uploading NumPy arrays),
        or None when `a` is a scalar. With `is_pointer` (the kernel says so), a
        0-d array and a plain int are pointers too."""
        offset = 0
        if isinstance(a, tuple) and len(a) == 2 and isinstance(a[0], np.ndarray):
            a, offset = a
            offset = int(offset)
            is_pointer = True
        if is_pointer and isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)):
            return int(a) & (2 ** 64 - 1)
        if isinstance(a, np.ndarray) and (a.ndim > 0 or is_pointer):
            entry = by_id.get(id(a))
            if entry is None:
                from .pointer_table import place_pointees
                place_pointees(a, lambda x, i: Kernel._pointer(x, by_id, buffers, copy_back, True))
                host = a
                if not a.flags.c_contiguous or not a.flags.writeable:
                    host = np.ascontiguousarray(a).copy()
                buf = DeviceBuffer.from_array(host)
                buffers.append(buf)
                if a.flags.writeable:
                    copy_back.append((host, buf, a))
                entry = by_id[id(a)] = buf
            return entry.ptr + offset * a.dtype.itemsize
        dev = _device_address(a)
        if dev is not None:
            return dev + offset
        return None

    def launch(self, grid, args, block=None, *, arg_dtypes=None, shared_bytes=None, stream=0, sync=True,
               timeout=None):
        """Launch once on `grid` (tile blocks, x/y/z) with `args` (see the module
        docstring). `block` overrides the kernel's .reqntid. `arg_dtypes`: one entry
        per argument, "ptr" for a pointer parameter, a NumPy dtype for a scalar, or
        None to go by the value (see `entry_arg_types`). With `sync` (default) wait
        for the kernel (at most `timeout` seconds, if given) and copy the arrays back;
        without it, the returned PreparedLaunch's `finish()` does that."""
        prep = self.prepare(grid, args, block, arg_dtypes=arg_dtypes, shared_bytes=shared_bytes)
        try:
            prep.run(stream)
        except BaseException:
            prep.free()
            raise
        if sync:
            prep.finish(timeout)
        return prep


# ---- timing -------------------------------------------------------------------------------

class Event:
    def __init__(self):
        _context()
        self.handle = _check(_driver().cuEventCreate(0), "cuEventCreate")
        self._generation = _generation()

    def record(self, stream=0):
        _check(_driver().cuEventRecord(self.handle, stream), "cuEventRecord")

    def synchronize(self):
        _check(_driver().cuEventSynchronize(self.handle), "cuEventSynchronize")

    def elapsed_ms(self, later: "Event") -> float:
        drv = _driver()
        fn = getattr(drv, "cuEventElapsedTime", None) or getattr(drv, "cuEventElapsedTime_v2")
        return float(_check(fn(self.handle, later.handle), "cuEventElapsedTime"))

    def destroy(self):
        if self.handle is not None:
            try:
                if self._generation == _generation() and "ctx" in _STATE:
                    _check(_driver().cuEventDestroy(self.handle), "cuEventDestroy")
            finally:
                self.handle = None


def time_ms(fn, *, reps: int = 20, warmup: int = 3, stream=0) -> list:
    """Run `fn()` (which enqueues GPU work on `stream`) `warmup` times, then
    `reps` times, each bracketed by CUDA events; the elapsed milliseconds of
    each timed run."""
    for _ in range(warmup):
        fn()
    synchronize()
    pairs = [(Event(), Event()) for _ in range(reps)]
    try:
        for start, end in pairs:
            start.record(stream)
            fn()
            end.record(stream)
        pairs[-1][1].synchronize()
        return [s.elapsed_ms(e) for s, e in pairs]
    finally:
        for s, e in pairs:
            s.destroy()
            e.destroy()


def time_graph_ms(run, *, launches: int = 20, reps: int = 10, warmup: int = 2) -> list:
    """Device time of one `run(stream)` (which enqueues one kernel launch on
    `stream`): `launches` of them captured into a CUDA graph, the graph replayed
    `reps` times between two events; each replay's elapsed milliseconds over
    `launches`. A launch from Python costs the host several microseconds, more
    than a small kernel runs, so events around single launches time the host;
    a graph's launches follow one another on the device."""
    drv = _driver()
    _context()
    stream = _check(drv.cuStreamCreate(drv.CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate")
    graph = exe = None
    pairs = []
    try:
        _check(drv.cuStreamBeginCapture(stream, drv.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED),
               "cuStreamBeginCapture")
        try:
            for _ in range(launches):
                run(stream)
        finally:
            graph = _check(drv.cuStreamEndCapture(stream), "cuStreamEndCapture")
        exe = _check(drv.cuGraphInstantiate(graph, 0), "cuGraphInstantiate")
        for _ in range(warmup):
            _check(drv.cuGraphLaunch(exe, stream), "cuGraphLaunch")
        pairs = [(Event(), Event()) for _ in range(reps)]
        for start, end in pairs:
            start.record(stream)
            _check(drv.cuGraphLaunch(exe, stream), "cuGraphLaunch")
            end.record(stream)
        pairs[-1][1].synchronize()
        return [s.elapsed_ms(e) / launches for s, e in pairs]
    finally:
        for s, e in pairs:
            s.destroy()
            e.destroy()
        if exe is not None:
            drv.cuGraphExecDestroy(exe)
        if graph is not None:
            drv.cuGraphDestroy(graph)
        drv.cuStreamSynchronize(stream)
        drv.cuStreamDestroy(stream)


def median_ms(times) -> float:
    return statistics.median(times)


def tflops(flops: float, ms: float) -> float:
    return flops / (ms * 1e-3) / 1e12


__all__ = ["CudaError", "DeviceBuffer", "Event", "Kernel", "Module", "Param", "PreparedLaunch",
           "cuda_available", "device_info", "flush_printf", "load_cubin", "load_ptx", "median_ms",
           "reset_context", "synchronize", "tflops", "time_graph_ms", "time_ms", "unavailable_reason"]
