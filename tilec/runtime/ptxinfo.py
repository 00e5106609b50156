"""What a launcher needs to know about a kernel, read from its PTX text or its cubin.

Pure Python (no CUDA): `parse_ptx` reads each `.entry`'s `.param` list and its
performance directives (`.reqntid`, `.maxntid`, `.reqnctapercluster`);
`cubin_kernels` reads the same facts from a cubin's ELF `.nv.info.<kernel>`
sections (EIATTR_REQNTID, EIATTR_MAX_THREADS, EIATTR_KPARAM_INFO), which is
where ptxas and tileiras put them. `pack_param` turns one Python/NumPy value
into the bytes of one `.param`.
"""
from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field

import numpy as np


class LaunchInfoError(ValueError):
    """The PTX/cubin could not be read, or an argument does not fit its parameter."""


# ---- PTX ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Param:
    """One kernel parameter. `kind` is the PTX type letter: u, s, b or f (or 'cubin'
    when only the size is known); `size` is its size in bytes; `align` its alignment."""
    name: str
    kind: str
    size: int
    align: int
    offset: int = -1   # byte offset in the parameter buffer (cubins; -1: natural layout)

    @property
    def bits(self) -> int:
        return self.size * 8


@dataclass
class Entry:
    name: str
    params: list = field(default_factory=list)
    reqntid: tuple | None = None      # (x, y, z) the block size the kernel requires
    maxntid: tuple | None = None      # (x, y, z) an upper bound on the block size
    cluster: tuple | None = None      # .reqnctapercluster (x, y, z)
    minnctapersm: int | None = None

    @property
    def block(self) -> tuple | None:
        """The block size to launch with: .reqntid, else .maxntid (None: not stated)."""
        return self.reqntid or self.maxntid


@dataclass
class PtxInfo:
    version: str | None
    target: str | None
    address_size: int | None
    entries: dict                     # name -> Entry, in file order
    globals: dict                     # name -> (ptx type, element count) of .global variables
    extern_shared: bool               # an `.extern .shared` array: the kernel wants dynamic shared memory
    dynamic_shared: dict = None       # entry name -> bytes, from tilec's `// tilec.dynamic_shared_bytes` lines


_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_ENTRY = re.compile(r"(?:\.(?:visible|weak|extern)\s+)*\.entry\s+([A-Za-z_$%][\w$.]*)\s*\(?")
_TYPE = re.compile(r"^\.([usbf])(8|16|32|64)$")
_DIRECTIVE = re.compile(r"\.(reqntid|maxntid|reqnctapercluster|minnctapersm|maxnreg|maxclusterrank)\s+([\d\s,]+)")
_GLOBAL = re.compile(r"(?:\.(?:visible|weak|extern)\s+)*\.global\s+((?:\.align\s+\d+\s+|\.\w+\s+)*?)"
                     r"\.([usbf])(8|16|32|64)\s+"
                     r"([A-Za-z_$%][\w$.]*)\s*((?:\[\s*\d*\s*\])*)")


def _triple(text):
    vals = [int(v) for v in re.split(r"[\s,]+", text.strip()) if v]
    return tuple(vals + [1] * (3 - len(vals)))[:3]


def _parse_param(decl: str, index: int) -> Param:
    toks = decl.replace(",", " ").split()
    if not toks or toks[0] != ".param":
        raise LaunchInfoError(f"cannot read kernel parameter {index}: {decl.strip()!r}")
    kind = bits = align = None
    name = None
    for i, t in enumerate(toks[1:], 1):
        m = _TYPE.match(t)
        if m and kind is None:
            kind, bits = m.group(1), int(m.group(2))
        elif t == ".align" and i + 1 < len(toks) and kind is None:   # after the type: the pointee's
            align = int(toks[i + 1])
        elif not t.startswith(".") and not t.isdigit():
            name = t
    if kind is None or name is None:
        raise LaunchInfoError(f"cannot read kernel parameter {index}: {decl.strip()!r}")
    size = bits // 8
    m = re.match(r"([^\[]+)\[(\d+)\]$", name)
    if m:   # `.param .align 8 .b8 p[16]`: an aggregate passed as raw bytes
        name, size = m.group(1), size * int(m.group(2))
        kind = "b"
    return Param(name, kind, size, align or bits // 8)


def parse_ptx(text: str) -> PtxInfo:
    """Read the entries, their parameters and launch directives from PTX text."""
    src = _COMMENTS.sub(" ", text)
    version = re.search(r"^\s*\.version\s+(\S+)", src, re.M)
    target = re.search(r"^\s*\.target\s+([^\n]+)", src, re.M)
    asize = re.search(r"^\s*\.address_size\s+(\d+)", src, re.M)
    entries = {}
    for m in _ENTRY.finditer(src):
        name = m.group(1)
        pos = m.end()
        params = []
        if src[m.end() - 1] == "(":
            close = src.find(")", pos)
            if close < 0:
                raise LaunchInfoError(f"unterminated parameter list of .entry {name}")
            body = src[pos:close].strip()
            params = [_parse_param(d, i) for i, d in enumerate(_split_params(body))] if body else []
            pos = close + 1
        brace = src.find("{", pos)
        head = src[pos:brace if brace >= 0 else len(src)]
        e = Entry(name, params)
        for d in _DIRECTIVE.finditer(head):
            key, val = d.group(1), d.group(2)
            if key == "reqntid":
                e.reqntid = _triple(val)
            elif key == "maxntid":
                e.maxntid = _triple(val)
            elif key == "reqnctapercluster":
                e.cluster = _triple(val)
            elif key == "minnctapersm":
                e.minnctapersm = int(val.split(",")[0])
        entries[name] = e
    globals_ = {}
    for g in _GLOBAL.finditer(src):
        dims = [int(d) for d in re.findall(r"\[\s*(\d+)\s*\]", g.group(5))]
        count = int(np.prod(dims)) if dims else 1
        globals_[g.group(4)] = (g.group(2) + g.group(3), count)
    return PtxInfo(version.group(1) if version else None,
                   target.group(1).strip() if target else None,
                   int(asize.group(1)) if asize else None,
                   entries, globals_, bool(re.search(r"\.extern\s+\.shared", src)),
                   {m.group(1): int(m.group(2)) for m in
                    re.finditer(r"//\s*tilec\.dynamic_shared_bytes\s+(\S+)\s+(\d+)", text)})


def _split_params(body: str):
    """Split a parameter list at top-level commas (not the ones inside `[...]`)."""
    out, depth, cur = [], 0, []
    for ch in body:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur))
    return out


def ptx_target_arch(info: PtxInfo) -> str | None:
    """`sm_90a` from `.target sm_90a` (None when absent)."""
    if not info.target:
        return None
    for t in info.target.replace(",", " ").split():
        if t.startswith("sm_") or t.startswith("compute_"):
            return t
    return None


# ---- cubin (ELF) -----------------------------------------------------------------------

# .nv.info attribute formats and the attribute codes read here
_EIFMT_NVAL, _EIFMT_BVAL, _EIFMT_HVAL, _EIFMT_SVAL = 1, 2, 3, 4
_EIATTR_MAX_THREADS = 0x05
_EIATTR_REQNTID = 0x10
_EIATTR_KPARAM_INFO = 0x17
_EIATTR_CBANK_PARAM_SIZE = 0x19
_EIATTR_KPARAM_INFO_V2 = 0x45   # newer ptxas (e.g. kernels with tensor maps): size in the low 16 bits


@dataclass
class CubinKernel:
    name: str
    reqntid: tuple | None = None
    maxntid: tuple | None = None
    params: list = field(default_factory=list)   # Param(kind='cubin'), by ordinal
    param_bytes: int | None = None

    @property
    def block(self) -> tuple | None:
        return self.reqntid or self.maxntid


def cubin_kernels(data: bytes) -> dict:
    """Kernel name -> CubinKernel, read from the `.nv.info.<kernel>` ELF sections."""
    if data[:4] != b"\x7fELF":
        raise LaunchInfoError("not an ELF cubin (a fatbin or PTX?)")
    if data[4] != 2 or data[5] != 1:
        raise LaunchInfoError("only little-endian ELF64 cubins are read")
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    sections = []
    for i in range(shnum):
        name, _type, _flags, _addr, off, size = struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
        sections.append((name, off, size))
    stroff = sections[shstrndx][1]

    def sname(n):
        end = data.index(b"\0", stroff + n)
        return data[stroff + n:end].decode("utf-8", "replace")

    kernels = {}
    for nameoff, off, size in sections:
        sec = sname(nameoff)
        if not sec.startswith(".nv.info."):
            continue
        k = CubinKernel(sec[len(".nv.info."):])
        raw_params = []
        blob, p = data[off:off + size], 0
        while p + 4 <= len(blob):
            fmt, attr, val = struct.unpack_from("<BBH", blob, p)
            p += 4
            payload = b""
            if fmt == _EIFMT_SVAL:
                payload, p = blob[p:p + val], p + val
            elif fmt not in (_EIFMT_NVAL, _EIFMT_BVAL, _EIFMT_HVAL):
                break   # unknown format: stop rather than misread
            if attr == _EIATTR_REQNTID and len(payload) >= 4:
                k.reqntid = _triple(",".join(str(v) for v in struct.unpack_from(f"<{len(payload) // 4}I", payload)))
            elif attr == _EIATTR_MAX_THREADS and len(payload) >= 4:
                k.maxntid = _triple(",".join(str(v) for v in struct.unpack_from(f"<{len(payload) // 4}I", payload)))
            elif attr == _EIATTR_KPARAM_INFO and len(payload) >= 12:
                _index, ordinal, offset, word = struct.unpack_from("<IHHI", payload)
                raw_params.append((ordinal, offset, (word >> 18) & 0x3FFF))
            elif attr == _EIATTR_KPARAM_INFO_V2 and len(payload) >= 12:
                _index, ordinal, offset, word = struct.unpack_from("<IHHI", payload)
                raw_params.append((ordinal, offset, word & 0xFFFF))
            elif attr == _EIATTR_CBANK_PARAM_SIZE:
                k.param_bytes = val
        for ordinal, offset, psize in sorted(raw_params):
            k.params.append(Param(f"param_{ordinal}", "cubin", psize, min(psize, 8) or 1, offset))
        kernels[k.name] = k
    return kernels


# ---- packing one argument -----------------------------------------------------------------

def _int_bytes(value: int, size: int) -> bytes:
    return (int(value) & ((1 << (8 * size)) - 1)).to_bytes(size, "little")


_FLOAT_BY_SIZE = {2: np.float16, 4: np.float32, 8: np.float64}


def pack_param(param: Param, value, dtype=None, where: str = "") -> bytes:
    """The bytes of scalar `value` for `param`.

    `dtype` (optional) is the element type the kernel declares (a NumPy dtype,
    e.g. ml_dtypes.bfloat16): with it the value is converted exactly as the
    interpreter converts it. Without it, NumPy scalars keep their own bytes when
    their size matches, Python ints are wrapped to the parameter's width, and
    Python floats take the float type of the parameter's width (f16 for 16 bits:
    pass a dtype for bf16)."""
    size = param.size
    label = where or f"parameter {param.name}"
    if isinstance(value, (bool, np.bool_)):
        value = int(value)
    if dtype is not None:
        dt = np.dtype(dtype)
        if dt.kind in "iub":
            if isinstance(value, (float, np.floating)) or np.asarray(value).dtype.kind == "f":
                raise LaunchInfoError(f"{label}: expected an integer, got {value!r}")
            return _int_bytes(int(value), size)
        with np.errstate(all="ignore"):
            v = np.asarray(np.float64(value) if not isinstance(value, np.generic) else value).astype(dt)
        raw = v.tobytes()
        if len(raw) != size:
            raise LaunchInfoError(f"{label}: a {dt} value is {len(raw)} bytes, the .param is {size}")
        return raw
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, np.generic):
        if value.dtype.itemsize == size:
            return value.tobytes()
        if value.dtype.kind in "iu":
            return _int_bytes(int(value), size)
        value = float(value)
    if isinstance(value, int):
        if param.kind == "f":
            return np.asarray(value, _FLOAT_BY_SIZE[size]).tobytes()
        return _int_bytes(value, size)
    if isinstance(value, float):
        if param.kind in ("u", "s"):
            raise LaunchInfoError(f"{label}: .{param.kind}{param.bits} takes an integer, got {value!r}")
        if size not in _FLOAT_BY_SIZE:
            raise LaunchInfoError(f"{label}: no float type of {size} bytes")
        with np.errstate(all="ignore"):
            return np.asarray(value, _FLOAT_BY_SIZE[size]).tobytes()
    raise LaunchInfoError(f"{label}: cannot pass {type(value).__name__} {value!r} as a scalar")


def layout(params) -> tuple:
    """(offsets, total bytes) of the parameter buffer with natural alignment
    (cubin params carry their own offsets)."""
    offsets, pos = [], 0
    for p in params:
        if p.offset >= 0:
            pos = p.offset
        else:
            a = max(p.align, 1)
            pos = (pos + a - 1) // a * a
        offsets.append(pos)
        pos += p.size
    return offsets, pos
