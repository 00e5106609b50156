"""Parsing PTX text into modules, entries, registers and instructions."""
from __future__ import annotations

import re

from .base import PTXSimError, UnsupportedPTX
from .numerics import _u2d, _u2f


# ============================================================================ parsing

TYPES = {"b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
         "f16", "f16x2", "bf16", "bf16x2", "f32", "f64", "pred", "e4m3x2", "e5m2x2", "tf32"}


class T:
    """An instruction type: kind i (integer/bits), f (f32), d (f64), h (f16 bits),
    bf (bf16 bits), p (pred), x (packed small floats)."""

    def __init__(self, name):
        self.name = name
        if name == "pred":
            self.kind, self.width, self.signed = "p", 1, False
        elif name == "f32":
            self.kind, self.width, self.signed = "f", 32, True
        elif name == "f64":
            self.kind, self.width, self.signed = "d", 64, True
        elif name == "f16":
            self.kind, self.width, self.signed = "h", 16, True
        elif name == "bf16":
            self.kind, self.width, self.signed = "bf", 16, True
        elif name in ("f16x2", "bf16x2"):
            self.kind, self.width, self.signed = "x", 32, False
        elif name in ("e4m3x2", "e5m2x2"):
            self.kind, self.width, self.signed = "x", 16, False
        elif name == "tf32":
            self.kind, self.width, self.signed = "x", 32, False
        else:
            self.kind, self.width, self.signed = "i", int(name[1:]), name[0] == "s"
        self.bytes = max(1, self.width // 8)
        self.mask = (1 << self.width) - 1

    @property
    def is_float(self):
        return self.kind in ("f", "d", "h", "bf")


class Reg:
    def __init__(self, name, decl, slot):
        self.name, self.decl, self.slot = name, decl, slot
        if decl == "pred":
            self.kind, self.width = "p", 1
        elif decl == "f32":
            self.kind, self.width = "f", 32
        elif decl == "f64":
            self.kind, self.width = "d", 64
        else:
            self.kind, self.width = "i", T(decl).width
        self.var = f"v{slot}"

    def __repr__(self):
        return self.name


class Imm:
    """An immediate: `ival` (an int: integer literal or the bits of 0f/0d), `fval`
    (its float value when it is a float literal), `fbits` (32 or 64 for 0f/0d)."""

    def __init__(self, text, ival=None, fval=None, fbits=None):
        self.text, self.ival, self.fval, self.fbits = text, ival, fval, fbits


class Sym:
    def __init__(self, name, off=0):
        self.name, self.off = name, off


class Addr:
    def __init__(self, base, off):
        self.base, self.off = base, off      # base: Reg, Sym, or None (absolute)


class Vec:
    def __init__(self, items):
        self.items = items


class TensorRef:
    """`[tensor-map address, {c0, c1, ..}]` of cp.async.bulk.tensor: `base` an Addr,
    `coords` a Vec (innermost dimension first)."""

    def __init__(self, base, coords):
        self.base, self.coords = base, coords


class Pair:
    """`d|p` (elect.sync): two destinations, either of which may be the sink `_` (None)."""

    def __init__(self, first, second):
        self.first, self.second = first, second


class Label:
    def __init__(self, name):
        self.name = name


class ParamList:
    def __init__(self, names):
        self.names = names


class Special:
    def __init__(self, name):
        self.name = name


SPECIAL_PER_THREAD = ("%tid.x", "%tid.y", "%tid.z", "%laneid", "%warpid")
SPECIAL_PER_CTA = {"%ctaid.x": "CTAID_X", "%ctaid.y": "CTAID_Y", "%ctaid.z": "CTAID_Z",
                   "%nctaid.x": "NCTAID_X", "%nctaid.y": "NCTAID_Y", "%nctaid.z": "NCTAID_Z",
                   "%ntid.x": "NTID_X", "%ntid.y": "NTID_Y", "%ntid.z": "NTID_Z", "%nwarpid": "NWARPID",
                   "%smid": "SMID", "%nsmid": "NSMID",
                   # thread-block clusters (a kernel without .reqnctapercluster: clusters of one CTA)
                   "%cluster_ctarank": "CL_RANK", "%cluster_nctarank": "CL_NRANK",
                   "%clusterid.x": "CLID_X", "%clusterid.y": "CLID_Y", "%clusterid.z": "CLID_Z",
                   "%nclusterid.x": "NCLID_X", "%nclusterid.y": "NCLID_Y", "%nclusterid.z": "NCLID_Z",
                   "%cluster_ctaid.x": "CL_CTAID_X", "%cluster_ctaid.y": "CL_CTAID_Y",
                   "%cluster_ctaid.z": "CL_CTAID_Z", "%cluster_nctaid.x": "CL_NCTAID_X",
                   "%cluster_nctaid.y": "CL_NCTAID_Y", "%cluster_nctaid.z": "CL_NCTAID_Z",
                   "%is_explicit_cluster": "CL_EXPLICIT"}


class Instr:
    def __init__(self, lineno, text, guard, opcode, operands):
        self.lineno, self.text, self.guard, self.opcode, self.operands = lineno, text, guard, opcode, operands
        parts = opcode.split(".")
        self.op, self.mods = parts[0], parts[1:]

    def where(self):
        return f"line {self.lineno}: {self.text.strip()}"


class VarDecl:
    def __init__(self, space, name, size, align, init, extern, lineno):
        self.space, self.name, self.size, self.align, self.init, self.extern, self.lineno = \
            space, name, size, align, init, extern, lineno


class Entry:
    def __init__(self, name):
        self.name = name
        self.params = []          # (name, T, offset)
        self.reqntid = None
        self.cluster = None       # .reqnctapercluster (x, y, z)
        self.blocks_are_clusters = False   # .blocksareclusters: a launch's grid counts clusters
        self.maxnreg = None       # .maxnreg: the registers each thread starts with (setmaxnreg moves them)
        self.regs = {}            # name -> Reg
        self.shared = []          # kernel-scope VarDecl
        self.local = []           # kernel-scope .local VarDecl
        self.call_params = {}     # call-scope `.param` name -> Reg (a pseudo register per thread)
        self.body = []            # Instr or ("label", name, lineno)
        self.param_bytes = 0
        self.lineno = 0


class Module:
    def __init__(self):
        self.version = self.target = None
        self.globals = []         # VarDecl (.global)
        self.shared = []          # module-scope VarDecl (.shared)
        self.entries = {}
        self.dynamic_shared = {}  # entry -> bytes (tilec's `// tilec.dynamic_shared_bytes` lines)
        self.extern_funcs = set()  # `.extern .func` declarations (vprintf, __assertfail)


def _unsupported(what, lineno=None, text=None):
    where = f" (line {lineno})" if lineno is not None else ""
    raise UnsupportedPTX(f"unsupported PTX instruction: {text.strip() if text else what}{where}"
                         + (f" [{what}]" if text and what else ""))


def _strip_comments(text):
    """Comments blanked out (line numbers kept); tilec's dynamic-shared notes collected."""
    notes = {}
    for m in re.finditer(r"//\s*tilec\.dynamic_shared_bytes\s+(\S+)\s+(\d+)", text):
        notes[m.group(1)] = int(m.group(2))
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return text, notes


_INT_RE = re.compile(r"^-?(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]+|[0-9]+)[uU]?$")


def _parse_int(s):
    s = s.rstrip("uU")
    neg = s.startswith("-")
    if neg:
        s = s[1:]
    if s[:2] in ("0x", "0X"):
        v = int(s[2:], 16)
    elif s[:2] in ("0b", "0B"):
        v = int(s[2:], 2)
    elif len(s) > 1 and s[0] == "0":
        v = int(s, 8)
    else:
        v = int(s)
    return -v if neg else v


def _split_top(s, sep=","):
    out, depth, cur = [], 0, []
    for ch in s:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == sep and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def parse_module(text):
    src, notes = _strip_comments(text)
    mod = Module()
    mod.dynamic_shared = notes
    pos, n = 0, len(src)

    def lineno_at(p):
        return src.count("\n", 0, p) + 1

    ws = re.compile(r"\s*")
    while True:
        pos = ws.match(src, pos).end()
        if pos >= n:
            break
        ln = lineno_at(pos)
        m = re.compile(r"\.(version|target|address_size)\s+([^\n]*)").match(src, pos)
        if m:
            if m.group(1) == "version":
                mod.version = m.group(2).strip()
            elif m.group(1) == "target":
                mod.target = m.group(2).strip()
            pos = m.end()
            continue
        m = re.compile(r"((?:\.(?:visible|weak|extern)\s+)*)\.entry\s+([A-Za-z_$%][\w$.]*)\s*\(").match(src, pos)
        if m:
            pos = _parse_entry(mod, src, m, lineno_at)
            continue
        m = re.compile(r"\.extern\s+\.func\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)\s*\([^)]*\)\s*;").match(src, pos)
        if m:
            mod.extern_funcs.add(m.group(1))
            pos = m.end()
            continue
        m = re.compile(r"((?:\.(?:visible|weak|extern)\s+)*)\.(global|shared|const)\b([^;]*);").match(src, pos)
        if m:
            if m.group(2) == "const":
                _unsupported(".const variables", ln, m.group(0))
            decl = _parse_var(m.group(2), m.group(3), "extern" in m.group(1), ln, m.group(0))
            (mod.globals if decl.space == "global" else mod.shared).append(decl)
            pos = m.end()
            continue
        end = src.find("\n", pos)
        _unsupported("module-scope directive", ln, src[pos:end if end >= 0 else n])
    return mod


_VAR_RE = re.compile(r"^\s*((?:\.align\s+\d+\s+)?)((?:\.\w+\s+)*?)\.(b8|u8|s8|b16|u16|s16|b32|u32|s32|b64|u64|"
                     r"s64|f16|f32|f64)\s+([A-Za-z_$][\w$]*)\s*(\[\s*(\d*)\s*\])?\s*(=\s*\{([^}]*)\})?\s*$", re.S)


def _parse_var(space, rest, extern, ln, text):
    m = _VAR_RE.match(rest)
    if not m:
        _unsupported(f".{space} declaration", ln, text)
    align = int(re.findall(r"\d+", m.group(1))[0]) if m.group(1) else None
    t = T(m.group(3))
    count = 1
    if m.group(5) is not None:
        count = int(m.group(6)) if m.group(6) else 0
    size = count * t.bytes
    init = None
    if m.group(7):
        vals = [_parse_int(v.strip()) for v in m.group(8).split(",") if v.strip()]
        init = b"".join((v & t.mask).to_bytes(t.bytes, "little") for v in vals)
        if len(init) < size:
            init += bytes(size - len(init))
    return VarDecl(space, m.group(4), size, align or t.bytes, init, extern and m.group(5) is not None and
                   not m.group(6), ln)


def _parse_entry(mod, src, m, lineno_at):
    e = Entry(m.group(2))
    e.lineno = lineno_at(m.start())
    close = src.index(")", m.end())
    off = 0
    for p in _split_top(src[m.end():close]):
        pm = re.match(r"^\.param\s+(?:\.align\s+\d+\s+)?\.(\w+)\s+([A-Za-z_$][\w$]*)(\[\d+\])?$", p.strip())
        if not pm or pm.group(3) or pm.group(1) not in TYPES:
            _unsupported(".param declaration", lineno_at(m.end()), p)
        t = T(pm.group(1))
        off = (off + t.bytes - 1) // t.bytes * t.bytes
        e.params.append((pm.group(2), t, off))
        off += t.bytes
    e.param_bytes = off
    pos = close + 1
    brace = src.index("{", pos)
    for d in re.finditer(r"\.(\w+)\s+([^.{]*)", src[pos:brace]):
        if d.group(1) in ("reqntid", "maxntid"):
            dims = [int(x) for x in re.findall(r"\d+", d.group(2))]
            dims += [1] * (3 - len(dims))
            if d.group(1) == "reqntid":
                e.reqntid = tuple(dims)
            elif e.reqntid is None:
                e.reqntid = None
        elif d.group(1) == "reqnctapercluster":
            dims = [int(x) for x in re.findall(r"\d+", d.group(2))]
            e.cluster = tuple(dims + [1] * (3 - len(dims)))
        elif d.group(1) == "blocksareclusters":
            e.blocks_are_clusters = True
        elif d.group(1) == "maxnreg":
            e.maxnreg = int(re.findall(r"\d+", d.group(2))[0])
        elif d.group(1) in ("minnctapersm", "maxnctapersm", "noreturn", "pragma"):
            pass
        else:
            _unsupported(f"entry directive .{d.group(1)}", lineno_at(pos))
    depth, i = 0, brace
    while True:
        ch = src[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                break
        i += 1
    _parse_body(e, src, brace + 1, i, lineno_at)
    mod.entries[e.name] = e
    return i + 1


def _parse_body(e, src, start, end, lineno_at):
    body = src[start:end]
    base_line = lineno_at(start)
    # statements: split at ';' (outside braces/brackets), labels "name:" and scope braces
    stmts, cur, depth, line, cur_line = [], [], 0, base_line, None
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        if ch == "\n":
            line += 1
        if not cur and ch in " \t\r\n":
            i += 1
            continue
        if cur_line is None:
            cur_line = line
        if not cur and ch in "{}":        # scope braces at statement start
            i += 1
            cur_line = None
            continue
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == ";" and depth == 0:
            stmts.append((cur_line, "".join(cur).strip()))
            cur, cur_line = [], None
            i += 1
            continue
        if ch == ":" and depth == 0 and re.fullmatch(r"[A-Za-z_$][\w$]*", "".join(cur).strip()):
            stmts.append((cur_line, "".join(cur).strip() + ":"))
            cur, cur_line = [], None
            i += 1
            continue
        cur.append(ch)
        i += 1
    if "".join(cur).strip():
        _unsupported("statement without ';'", cur_line, "".join(cur))
    slot = [0]

    def add_reg(name, decl):
        if name in e.regs:
            if name.startswith("%param:") and e.regs[name].decl == decl:
                return               # the same call parameter declared again in another call scope
            raise PTXSimError(f"register {name} declared twice")
        e.regs[name] = Reg(name, decl, slot[0])
        slot[0] += 1

    for name in SPECIAL_PER_THREAD:
        add_reg(name, "u32")
    add_reg("%%local", "b64")        # the thread's local memory (a LocalMem object)
    add_reg("%%epkey", "b64")        # the thread id (tid in the CTA): race check, proxy and copy tracking
    for ln, s in stmts:
        if s.endswith(":") and not s.startswith("."):
            e.body.append(("label", s[:-1], ln))
            continue
        if s.startswith(".reg"):
            m = re.match(r"^\.reg\s+\.(\w+)\s+(.*)$", s, re.S)
            if not m or m.group(1) not in TYPES or m.group(1) in ("b128",):
                _unsupported(".reg declaration", ln, s)
            decl = m.group(1)
            for item in _split_top(m.group(2)):
                rm = re.fullmatch(r"(%[A-Za-z_$][\w$]*)<(\d+)>", item)
                if rm:
                    for k in range(int(rm.group(2))):
                        add_reg(f"{rm.group(1)}{k}", decl)
                elif re.fullmatch(r"%[A-Za-z_$][\w$]*", item):
                    add_reg(item, decl)
                else:
                    _unsupported(".reg declaration", ln, s)
            continue
        if s.startswith(".shared"):
            e.shared.append(_parse_var("shared", s[len(".shared"):], False, ln, s))
            continue
        if s.startswith(".local"):
            e.local.append(_parse_var("local", s[len(".local"):], False, ln, s))
            continue
        if s.startswith(".param"):
            m = re.match(r"^\.param\s+\.(b8|b16|b32|b64|u8|u16|u32|u64|s8|s16|s32|s64|f32|f64)\s+([A-Za-z_$][\w$]*)$",
                         s)
            if not m:
                _unsupported("call-scope .param declaration", ln, s)
            add_reg("%param:" + m.group(2), m.group(1))
            e.call_params[m.group(2)] = e.regs["%param:" + m.group(2)]
            continue
        if s.startswith((".loc", ".pragma", ".file")):
            continue
        if s.startswith("."):
            _unsupported("directive in a kernel body", ln, s)
        m = re.match(r"^(@!?%[\w$]+)?\s*([a-z][\w.]*(?:::[\w.]+)*)\s*(.*)$", s, re.S)
        if not m:
            _unsupported("statement", ln, s)
        guard = None
        if m.group(1):
            g = m.group(1)
            neg = g.startswith("@!")
            name = g[2:] if neg else g[1:]
            if name not in e.regs or e.regs[name].kind != "p":
                raise UnsupportedPTX(f"guard {g} is not a declared .pred register (line {ln}): {s}")
            guard = (e.regs[name], not neg)
        ops = [_parse_operand(e, o, ln, s) for o in _split_top(m.group(3))] if m.group(3).strip() else []
        e.body.append(Instr(ln, s, guard, m.group(2), ops))


_FLOAT_RE = re.compile(r"^-?\d+\.\d*([eE][-+]?\d+)?$|^-?\d+[eE][-+]?\d+$")


def _parse_operand(e, o, ln, s):
    o = o.strip()
    if o.startswith("[") and o.endswith("]"):
        parts = _split_top(o[1:-1])
        if len(parts) == 2 and parts[1].startswith("{"):      # [tensor map, {coordinates}]
            base = _parse_operand(e, "[" + parts[0] + "]", ln, s)
            coords = _parse_operand(e, parts[1], ln, s)
            if not isinstance(coords, Vec):
                _unsupported(f"tensor coordinates {parts[1]}", ln, s)
            return TensorRef(base, coords)
        if len(parts) != 1:
            _unsupported(f"address operand {o}", ln, s)
        inner = o[1:-1].replace(" ", "").replace("\t", "")
        terms = re.findall(r"[+-]?[^+-]+", inner)
        base, off = None, 0
        for t in terms:
            sign = -1 if t.startswith("-") else 1
            t = t.lstrip("+-")
            if _INT_RE.match(t):
                off += sign * _parse_int(t)
            elif t in e.regs and base is None and sign == 1:
                base = e.regs[t]
            elif re.fullmatch(r"[A-Za-z_$][\w$]*", t) and base is None and sign == 1:
                base = Sym(t)
            else:
                _unsupported(f"address operand {o}", ln, s)
        return Addr(base, off)
    if o.startswith("{") and o.endswith("}"):
        return Vec([_parse_operand(e, x, ln, s) for x in _split_top(o[1:-1])])
    if o.startswith("(") and o.endswith(")"):
        return ParamList([x.strip() for x in _split_top(o[1:-1])])
    if o in e.regs:
        return e.regs[o]
    if "|" in o:                                               # d|p
        halves = [x.strip() for x in o.split("|")]
        if len(halves) != 2:
            _unsupported(f"operand {o}", ln, s)
        first, second = (None if x == "_" else _parse_operand(e, x, ln, s) for x in halves)
        return Pair(first, second)
    if o in SPECIAL_PER_CTA or o == "%globaltimer":
        return Special(o)
    if o.startswith("%"):
        _unsupported(f"register or special register {o}", ln, s)
    m = re.fullmatch(r"0[fF]([0-9a-fA-F]{8})", o)
    if m:
        bits = int(m.group(1), 16)
        return Imm(o, bits, _u2f(bits), 32)
    m = re.fullmatch(r"0[dD]([0-9a-fA-F]{16})", o)
    if m:
        bits = int(m.group(1), 16)
        return Imm(o, bits, _u2d(bits), 64)
    if _INT_RE.match(o):
        return Imm(o, _parse_int(o))
    if _FLOAT_RE.match(o):
        return Imm(o, None, float(o))
    m = re.fullmatch(r"([A-Za-z_$][\w$]*)\s*(?:\+\s*(\d+))?", o)
    if m:
        if m.group(1).startswith("$") or m.group(2) is None:
            return Sym(m.group(1), int(m.group(2) or 0)) if not m.group(1).startswith("$L") else Label(o)
        return Sym(m.group(1), int(m.group(2)))
    _unsupported(f"operand {o}", ln, s)
