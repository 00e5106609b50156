"""Instructions: decoding and encoding one op by its row in optable.

Each (op, file version) pair gets a plan, computed once: how many result
types, which flag bit means what, which attributes are present and how they
are encoded, how operands are grouped. Decoding an op then walks its plan."""
from __future__ import annotations

from ..dialects.cuda_tile.types import TokenType
from ..ir import attributes as A
from ..ir.core import Block, Region
from ..ir.location import UNKNOWN
from ..ir.opdef import OPTIONAL, SEGMENTS, SINGLE, VARIADIC
from ..ir.registry import OPS
from ..ir.types import IntegerType
from . import format as F
from . import optable as T
from .attrs import DIALECT_ENUMS, I32_ENUMS, KEEP, EncodeError
from .stream import BytecodeError, Reader, Writer
from .types import TypeError_

UNIT, ATTR, OPERAND = "unit", "attr", "operand"
MAX_DEPTH = 200  # region nesting; deeper input is rejected rather than overflowing the stack
_I32 = IntegerType(32)


class Plan:
    __slots__ = ("spec", "cls", "n_results", "var_results", "has_flags", "flag_units", "attrs", "operands",
                 "n_plain", "regions", "segmented", "token_result_missing", "decoders")

    def __init__(self, spec, v):
        self.spec = spec
        self.cls = cls = OPS[spec.name]
        self.var_results = spec.results == "var"
        self.n_results = len(cls.result_defs)
        # print_tko before 13.2 had no result: the reader adds the token unindexed
        self.token_result_missing = spec.name == "cuda_tile.print_tko" and v < F.V13_2
        self.has_flags = spec.flags_since is not None and v >= spec.flags_since
        attr_names = {a.name for a in spec.attrs}
        operand_names = {d.name for d in cls.operand_defs}
        self.flag_units = []  # (bit mask, unit attribute name)
        flag_of = {}
        for bit, (name, _since) in enumerate(spec.flags):
            flag_of[name] = 1 << bit
            if name not in attr_names and name not in operand_names:
                self.flag_units.append((1 << bit, name))
        defaults = {d.name: d.default for d in cls.attr_defs}
        self.attrs = []  # (name, encoding, flag mask or 0, default attribute or None or KEEP)
        for a in spec.attrs:
            if a.since > v:
                continue
            default = defaults.get(a.name)
            if a.enc == "boolarray" and a.name in defaults and default is None:
                default = KEEP
            self.attrs.append((a.name, a.enc, flag_of.get(a.name, 0) if a.optional else 0, default))
        self.segmented = cls._segmented
        if spec.operands == "segmented":
            self.operands = [(d.kind, flag_of.get(d.name, 0)) for d in cls.operand_defs]
        else:
            self.operands = spec.operands
        self.n_plain = len(cls.operand_defs)
        self.regions = spec.regions
        self.decoders = None  # built by the decoder, which owns the tables they read


class OpDecoder:
    def __init__(self, version, types, attrs):
        self.version, self.types, self.attrs = version, types, attrs
        self.plans: dict = {}
        self.readers: dict = {}  # opcode -> its read function (see _make_reader)
        self.depth = 0

    def plan(self, opcode: int, at: int) -> Plan:
        p = self.plans.get(opcode)
        if p is not None:
            return p
        spec = T.BY_OPCODE.get(opcode)
        v = self.version
        if spec is None:
            if opcode in T.RESERVED:
                raise BytecodeError(at, f"opcode {opcode} ({T.RESERVED[opcode]}) cannot appear inside a function")
            raise BytecodeError(at, f"unknown opcode {opcode}")
        if spec.since > v:
            raise BytecodeError(at, f"unsupported opcode {opcode} ({spec.name}) for bytecode version "
                                    f"{F.version_text(v)}; it needs {F.version_text(spec.since)}")
        p = self.plans[opcode] = Plan(spec, v)
        return p

    def _decoders(self, p):
        p.decoders = [(name, self.attrs.decoder(enc, default), mask) for name, enc, mask, default in p.attrs]
        return p.decoders

    def reader(self, opcode: int, at: int):
        """The read function of `opcode`, built on first use (see _make_reader)."""
        fn = self.readers.get(opcode)
        if fn is None:
            p = self.plan(opcode, at)
            fn = self.readers[opcode] = self._make_reader(p)
        return fn

    def read_body(self, r: Reader, block: Block, values: list, cursor):
        self._read_ops(r, block, values, cursor, None)
        if block.first_op is None:
            r.error("invalid block structure: a function body must end with a terminator, but it is empty")

    def read_block(self, r: Reader, values: list, cursor, loc) -> Block:
        mark = len(values)
        types = self.types
        n_args = r.count("block argument")
        arg_types = [types.read(r) for _ in range(n_args)]
        block = Block(arg_types, [loc] * n_args)
        values.extend(block.arguments)
        n_ops = r.count("operation")
        if n_ops == 0:
            r.error("invalid block structure: a block must end with a terminator, but it is empty")
        self._read_ops(r, block, values, cursor, n_ops)
        del values[mark:]
        return block

    def _read_ops(self, r: Reader, block: Block, values: list, cursor, n_ops):
        """Decode `n_ops` ops (None: up to the end of the reader) into `block`."""
        data, end = r.data, r.end
        readers = self.readers
        ops = []
        append = ops.append
        left = -1 if n_ops is None else n_ops
        while left and r.pos < end:
            left -= 1
            at = pos = r.pos
            if data[pos] < 0x80:
                opcode = data[pos]
                r.pos = pos + 1
            else:
                opcode = r.varint()
            append((readers.get(opcode) or self.reader(opcode, at))(r, values, cursor, at))
        if left > 0:
            r.varint()           # past the end: the reader reports the truncation
        block.append_all(ops)

    def _make_reader(self, p: Plan):
        """A function (reader, values, cursor, at) -> op that decodes the rest
        of one `p` op (its opcode, at `at`, already read), appends its results
        to `values` and returns it. Its code is generated once per (opcode,
        version, op class) from the plan: each choice the plan makes is made then, fixed
        counts are unrolled and one-byte varints (type and value indices below
        128) are read inline; the checks, their order and their messages are
        those of the format."""
        key = (p.spec.opcode, self.version, p.cls)
        factory = _READER_FACTORIES.get(key)
        if factory is None:
            factory = _READER_FACTORIES[key] = _compile_reader(p)
        enum_tables = [self.attrs.enum_table(enc, default) for _, enc, _, default in p.attrs]
        build = p.cls.builder(p.n_plain, p.n_results) if _fixed_shape(p) else p.cls.from_parts
        return factory(self, self.types, self._decoders(p), enum_tables, build, p.spec.name)


# ---------------------------------------------------------------------------
# generated readers

# (opcode, version, op class) -> factory(decoder, types, attr decoders, enum tables, build, name)
# -> read function
_READER_FACTORIES: dict = {}


def _read_varint(out: list, ind: int, target: str, expr: str = "{}"):
    """Code reading a varint at `pos` into `target` (as `expr` of it), inline
    when it is one byte; `pos` is the local cursor, r.pos is left stale."""
    pad = "    " * ind
    out += [f"{pad}if pos < end and data[pos] < 128:",
            f"{pad}    {target} = {expr.format('data[pos]')}",
            f"{pad}    pos += 1",
            f"{pad}else:",
            f"{pad}    r.pos = pos",
            f"{pad}    {target} = {expr.format('r.varint()')}",
            f"{pad}    pos = r.pos"]


def _read_type(out: list, ind: int, target: str):
    pad = "    " * ind
    out += [f"{pad}if pos < end and data[pos] < 128:",
            f"{pad}    i = data[pos]",
            f"{pad}    {target} = tcache[i] if i < ntypes else None",
            f"{pad}    if {target} is None:",
            f"{pad}        {target} = tget(i, pos)",
            f"{pad}    pos += 1",
            f"{pad}else:",
            f"{pad}    r.pos = pos",
            f"{pad}    {target} = tread(r)",
            f"{pad}    pos = r.pos"]


def _count(out: list, ind: int, target: str, what: str):
    """Code reading an element count (Reader.count: at most one element per
    byte left), inline when it is one byte."""
    pad = "    " * ind
    out += [f"{pad}if pos < end and data[pos] < 128 and data[pos] < end - pos:",
            f"{pad}    {target} = data[pos]",
            f"{pad}    pos += 1",
            f"{pad}else:",
            f"{pad}    r.pos = pos",
            f"{pad}    {target} = r.count({what!r})",
            f"{pad}    pos = r.pos"]


def _fixed_shape(p: Plan) -> bool:
    """Whether every op of plan `p` has the same operand and result counts
    (then it is built by an unrolled Operation.builder)."""
    return p.operands == "plain" and not p.var_results and not p.token_result_missing


def _compile_reader(p: Plan):
    """Generate and compile the reader factory of plan `p` (see _make_reader)."""
    src = ["def factory(dec, types, decoders, enum_tables, build, name):",
           "    tcache, tget, tread = types.cache, types.get, types.read",
           "    ntypes = len(tcache)",
           "    segments = {}  # operand group sizes -> the shared operandSegmentSizes attribute"]
    n_dec = len(p.attrs)
    if n_dec:
        src.append("    " + ", ".join(f"d{k}" for k in range(n_dec)) + ", = [d for _, d, _ in decoders]")
        src.append("    " + ", ".join(f"e{k}" for k in range(n_dec)) + ", = enum_tables")
    src += ["",
            "    def read(r, values, cursor, at):",
            "        loc = cursor.next(at) if cursor.pos >= 0 else UNKNOWN",
            "        data, end = r.data, r.end",
            "        pos = r.pos"]
    body = []
    # results
    if p.var_results:
        _count(body, 2, "n", "result")
        body.append("        rtypes = []")
        body.append("        for _ in range(n):")
        _read_type(body, 3, "t")
        body.append("            rtypes.append(t)")
        body.append("        rt0 = rtypes[0] if rtypes else None")
        rtypes = "rtypes"
    else:
        for k in range(p.n_results):
            _read_type(body, 2, f"t{k}")
        body.append(f"        rt0 = {'t0' if p.n_results else 'None'}")
        rtypes = "[" + ", ".join(f"t{k}" for k in range(p.n_results)) + "]"
    # flags and attributes
    if p.has_flags:
        _read_varint(body, 2, "flags")
    else:
        body.append("        flags = 0  # no flags field in this version: every optional field is absent")
    body.append("        attrs = {}")
    for mask, uname in p.flag_units:
        body += [f"        if flags & {mask}:", f"            attrs[{uname!r}] = UnitAttr()"]
    for k, (aname, enc, mask, _default) in enumerate(p.attrs):
        ind = "        "
        if mask:
            body.append(f"{ind}if flags & {mask}:")
            ind += "    "
        enum = DIALECT_ENUMS.get(enc) or I32_ENUMS.get(enc)
        if enum is not None:  # an enum: a table lookup when its value is one byte
            body += [f"{ind}if pos < end and data[pos] < {min(len(enum.values), 128)}:",
                     f"{ind}    v = e{k}[data[pos]]",
                     f"{ind}    pos += 1",
                     f"{ind}else:"]
            ind += "    "
        body += [f"{ind}r.pos = pos", f"{ind}v = d{k}(r, rt0)", f"{ind}pos = r.pos"]
        if enum is not None:
            ind = ind[:-4]
        body += [f"{ind}if v is not None:", f"{ind}    attrs[{aname!r}] = v"]
    # operands
    body.append("        try:")
    try_at = len(body)
    if p.operands == "plain":
        for k in range(p.n_plain):
            _read_varint(body, 3, f"o{k}", "values[{}]")
        operands = "[" + ", ".join(f"o{k}" for k in range(p.n_plain)) + "]"
    elif p.operands == "counted":
        _count(body, 3, "c", "operand")
        body += ["            operands = []", "            for _ in range(c):"]
        _read_varint(body, 4, "o", "values[{}]")
        body.append("                operands.append(o)")
        operands = "operands"
    else:
        body.append("            operands = []")
        sizes = []
        for g, (kind, mask) in enumerate(p.operands):
            if kind == SINGLE:
                _read_varint(body, 3, "o", "values[{}]")
                body.append("            operands.append(o)")
                sizes.append("1")
            elif kind == OPTIONAL:
                body.append(f"            if flags & {mask}:")
                _read_varint(body, 4, "o", "values[{}]")
                body += ["                operands.append(o)", f"                s{g} = 1",
                         "            else:", f"                s{g} = 0"]
                sizes.append(f"s{g}")
            else:
                _count(body, 3, f"s{g}", "operand")
                body.append(f"            for _ in range(s{g}):")
                _read_varint(body, 4, "o", "values[{}]")
                body.append("                operands.append(o)")
                sizes.append(f"s{g}")
        if p.segmented:
            body += [f"            sizes = ({', '.join(sizes)},)",
                     "            seg = segments.get(sizes)",
                     "            if seg is None:",
                     "                seg = segments[sizes] = DenseArrayAttr(I32, sizes)",
                     "            attrs[SEGMENTS] = seg"]
        operands = "operands"
    if len(body) > try_at:
        body += ["        except IndexError:",
                 "            raise BytecodeError(at, f\"operand index out of range ({len(values)} values are \"",
                 "                                    f\"defined) in '{name}'\") from None"]
    else:
        body.pop()  # no operands: no try
    body.append("        r.pos = pos")
    # regions
    if p.regions:
        body.append("        r_at = pos")
        _read_varint(body, 2, "nr")
        body += [f"        if nr != {p.regions}:",
                 f"            raise BytecodeError(r_at, f\"'{{name}}' has {p.regions} regions, \"",
                 "                                      f\"the bytecode says {nr}\")",
                 "        r.pos = pos",
                 "        dec.depth += 1",
                 "        if dec.depth > MAX_DEPTH:",
                 "            raise BytecodeError(r_at, 'regions nest too deeply')",
                 "        regions = []",
                 "        for _ in range(nr):",
                 "            region = Region()",
                 "            for _ in range(r.count('block')):",
                 "                region.add_block(dec.read_block(r, values, cursor, loc))",
                 "            regions.append(region)",
                 "        dec.depth -= 1"]
        regions = "regions"
    else:
        regions = "[]"
    # the op
    if p.token_result_missing:  # print_tko before 13.2: the token result is added, unindexed
        body += [f"        rtypes = {rtypes}",
                 f"        op = build({operands}, rtypes + [TokenType()], attrs, {regions}, loc)",
                 "        values.extend(op.results[:len(rtypes)])"]
    elif _fixed_shape(p):
        args = [f"o{k}" for k in range(p.n_plain)] + [f"t{k}" for k in range(p.n_results)]
        body.append(f"        op = build({', '.join(args + ['attrs', regions, 'loc'])})")
    else:
        body.append(f"        op = build({operands}, {rtypes}, attrs, {regions}, loc)")
    if not p.token_result_missing:
        if p.var_results or p.n_results > 1:
            body.append("        values.extend(op.results)")
        elif p.n_results == 1:
            body.append("        values.append(op.results[0])")
    body.append("        return op")
    src += body + ["", "    return read", ""]
    namespace = {"UNKNOWN": UNKNOWN, "BytecodeError": BytecodeError, "Region": Region, "TokenType": TokenType,
                 "UnitAttr": A.UnitAttr, "DenseArrayAttr": A.DenseArrayAttr, "I32": _I32, "SEGMENTS": SEGMENTS,
                 "MAX_DEPTH": MAX_DEPTH}
    exec(compile("\n".join(src), f"<tilec bytecode reader: {p.spec.name}>", "exec"), namespace)
    return namespace["factory"]


# ---------------------------------------------------------------------------
# encoding

class WriteError(Exception):
    """An op the target version or the format cannot express; carries the op,
    and (op, message) remarks pointing at what is wrong inside it."""

    def __init__(self, op, message, remarks=()):
        super().__init__(message)
        self.op, self.message, self.remarks = op, message, tuple(remarks)


_FACTS: dict = {}  # (op spec, op class) -> what _class_facts returns


def _class_facts(spec, cls):
    """What writing any op of `cls` under `spec` needs from the declarations,
    worked out once: whether operands go by groups, the optional attributes'
    names, each operand definition's index, the attributes' defaults."""
    key = (spec.name, cls)
    facts = _FACTS.get(key)
    if facts is None:
        facts = _FACTS[key] = (
            spec.operands == "segmented" or any(d.kind == OPTIONAL for d in cls.operand_defs),
            frozenset(a.name for a in spec.attrs if a.optional),
            {d.name: i for i, d in enumerate(cls.operand_defs)},
            {d.name: d.default for d in cls.attr_defs})
    return facts


class OpEncoder:
    def __init__(self, version, types, attrs, debug):
        self.version, self.types, self.attrs, self.debug = version, types, attrs, debug
        self.index: dict = {}
        self.next = 0
        self.with_debug = False

    def bind(self, value):
        self.index[value] = self.next
        self.next += 1

    def write_ops(self, w: Writer, ops):
        for op in ops:
            self.write_op(w, op)

    def write_block(self, w: Writer, block: Block):
        mark, added = self.next, []
        w.varint(len(block.arguments))
        for a in block.arguments:
            w.varint(self.types.id(a.type))
            self.bind(a)
            added.append(a)
        w.varint(len(block))
        for op in block.ops:
            added.extend(self.write_op(w, op))
        for v in added:
            self.index.pop(v, None)
        self.next = mark

    def write_op(self, w: Writer, op):
        """Encode `op`; returns the values it bound (its results)."""
        try:
            return self._write_op(w, op)
        except TypeError_ as e:
            raise WriteError(op, str(e)) from None

    def _write_op(self, w: Writer, op):
        v = self.version
        name = T.ALIASES.get(op.name, op.name)
        spec = T.BY_NAME.get(name)
        if spec is None:
            raise WriteError(op, f"operation '{op.name}' has no bytecode encoding")
        if spec.since > v:
            raise WriteError(op, f"operation '{op.name}' is not available in bytecode version "
                                 f"{F.version_text(v)} (it needs {F.version_text(spec.since)})")
        cls = OPS[spec.name]
        w.varint(spec.opcode)
        if self.with_debug:
            self.debug.add(op.location)
        # results
        results = list(op.results)
        rtypes = [r.type for r in results]
        dummy = 0
        if spec.name == "cuda_tile.print_tko":
            if v < F.V13_2:
                for res in results:
                    if res.has_uses:
                        raise WriteError(op, f"the token result of '{op.name}' is used, but bytecode version "
                                             f"{F.version_text(v)} has no print token (it needs 13.2)")
                results, rtypes = [], []
            elif not results:  # tilec's `print`: serialize print_tko's token anyway
                rtypes, dummy = [TokenType()], 1
        if spec.results == "var":
            w.varint(len(rtypes))
        elif len(rtypes) != len(cls.result_defs):
            raise WriteError(op, f"'{op.name}' must have {len(cls.result_defs)} results to be written")
        for t in rtypes:
            w.varint(self.types.id(t))
        # flags
        attrs = op.attributes
        grouped, opt_names, operand_index, defaults = _class_facts(spec, cls)
        groups = op.operand_groups() if grouped and hasattr(op, "operand_groups") else None
        flags = 0
        for bit, (fname, since) in enumerate(spec.flags):
            if fname in operand_index:
                present = groups is not None and groups[operand_index[fname]] is not None
                what = "operand"
            else:
                present = fname in attrs
                what = "attribute"
            if present:
                if since > v:
                    raise WriteError(op, f"optional {what} '{fname}' is provided but requires bytecode version "
                                         f"{F.version_text(since)}, targeting {F.version_text(v)}")
                flags |= 1 << bit
        if spec.flags_since is not None and v >= spec.flags_since:
            w.varint(flags)
        # attributes
        for a in spec.attrs:
            val = attrs.get(a.name)
            if a.since > v:
                if val is not None and val != defaults.get(a.name) and not (
                        a.enc == "boolarray" and not any(val.values)):
                    raise WriteError(op, f"attribute '{a.name}' requires bytecode version "
                                         f"{F.version_text(a.since)}+, but targeting {F.version_text(v)}")
                continue
            if a.name in opt_names:
                if val is None:
                    continue
            elif val is None:
                val = defaults.get(a.name)
                if val is None and a.enc == "boolarray":
                    # `inbounds`: one flag per index operand, all false by default
                    n_index = len(groups[operand_index["index"]]) if "index" in operand_index else 0
                    val = A.DenseArrayAttr(IntegerType(1), (0,) * n_index)
                if val is None:
                    raise WriteError(op, f"'{op.name}' needs attribute '{a.name}' to be written to bytecode")
            try:
                self.attrs.op_attr(w, a.enc, val)
            except EncodeError as e:
                raise WriteError(op, f"attribute '{a.name}': {e}") from None
        # operands
        index = self.index
        try:
            if spec.operands == "plain":
                for x in op.operands:
                    w.varint(index[x])
            elif spec.operands == "counted":
                w.varint(len(op.operands))
                for x in op.operands:
                    w.varint(index[x])
            else:
                for d, g in zip(cls.operand_defs, groups):
                    if d.kind == VARIADIC:
                        w.varint(len(g))
                        for x in g:
                            w.varint(index[x])
                    elif g is not None:
                        w.varint(index[g])
        except KeyError:
            raise WriteError(op, f"'{op.name}' uses a value defined outside the function being written") from None
        # regions
        if spec.regions:
            w.varint(len(op.regions))
            for region in op.regions:
                w.varint(len(region.blocks))
                for b in region.blocks:
                    self.write_block(w, b)
        for res in results:
            self.bind(res)
        for _ in range(dummy):
            self.next += 1
        return results
