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
from .attrs import EncodeError
from .stream import BytecodeError, Reader, Writer

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
        self.attrs = []  # (name, encoding, flag mask or 0, default attribute or None)
        for a in spec.attrs:
            if a.since > v:
                continue
            self.attrs.append((a.name, a.enc, flag_of.get(a.name, 0) if a.optional else 0,
                               defaults.get(a.name)))
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
            if opcode in T.UNMODELED:
                name, since = T.UNMODELED[opcode]
                raise BytecodeError(at, f"opcode {opcode} (cuda_tile.{name}, bytecode {since}) is not supported by "
                                        f"tilec")
            raise BytecodeError(at, f"unknown opcode {opcode}")
        if spec.since > v:
            raise BytecodeError(at, f"unsupported opcode {opcode} ({spec.name}) for bytecode version "
                                    f"{F.version_text(v)}; it needs {F.version_text(spec.since)}")
        p = self.plans[opcode] = Plan(spec, v)
        return p

    def _decoders(self, p):
        p.decoders = [(name, self.attrs.decoder(enc, default), mask) for name, enc, mask, default in p.attrs]
        return p.decoders

    def read_body(self, r: Reader, block: Block, values: list, cursor):
        while r.pos < r.end:
            block.append(self.read_op(r, values, cursor))
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
        for _ in range(n_ops):
            block.append(self.read_op(r, values, cursor))
        del values[mark:]
        return block

    def read_op(self, r: Reader, values: list, cursor):
        # The hot path: one-byte varints (opcodes, type and value indices
        # below 128) are read inline; anything else goes through r.varint.
        data, end = r.data, r.end
        at = pos = r.pos
        if pos < end and data[pos] < 0x80:
            opcode = data[pos]
            r.pos = pos = pos + 1
        else:
            opcode = r.varint()
        p = self.plans.get(opcode) or self.plan(opcode, at)
        loc = cursor.next(at) if cursor.pos >= 0 else UNKNOWN
        varint = r.varint
        # results
        n = r.count("result") if p.var_results else p.n_results
        if n:
            tcache = self.types.cache
            ntypes = len(tcache)
            rtypes = []
            for _ in range(n):
                pos = r.pos
                if pos < end and data[pos] < 0x80:
                    i = data[pos]
                    r.pos = pos + 1
                else:
                    i = varint()
                t = tcache[i] if i < ntypes else None
                rtypes.append(t if t is not None else self.types.get(i, pos))
            rt0 = rtypes[0]
        else:
            rtypes, rt0 = [], None
        # flags and attributes
        flags = varint() if p.has_flags else 0
        attrs = {}
        if p.flag_units:
            for mask, name in p.flag_units:
                if flags & mask:
                    attrs[name] = A.UnitAttr()
        if p.attrs:
            for name, decode, mask in p.decoders or self._decoders(p):
                if mask and not flags & mask:
                    continue
                val = decode(r, rt0)
                if val is not None:
                    attrs[name] = val
        # operands
        ops_p = p.operands
        try:
            if ops_p == "plain":
                operands = []
                for _ in range(p.n_plain):
                    pos = r.pos
                    if pos < end and data[pos] < 0x80:
                        operands.append(values[data[pos]])
                        r.pos = pos + 1
                    else:
                        operands.append(values[varint()])
            elif ops_p == "counted":
                operands = [values[varint()] for _ in range(r.count("operand"))]
            else:
                operands, sizes = [], []
                for kind, mask in ops_p:
                    if kind == SINGLE:
                        operands.append(values[varint()])
                        sizes.append(1)
                    elif kind == OPTIONAL:
                        if flags & mask:
                            operands.append(values[varint()])
                            sizes.append(1)
                        else:
                            sizes.append(0)
                    else:
                        c = r.count("operand")
                        operands.extend([values[varint()] for _ in range(c)])
                        sizes.append(c)
                if p.segmented:
                    attrs[SEGMENTS] = A.DenseArrayAttr(_I32, tuple(sizes))
        except IndexError:
            raise BytecodeError(at, f"operand index out of range ({len(values)} values are defined) in "
                                    f"'{p.spec.name}'") from None
        # regions
        regions = []
        if p.regions:
            r_at = r.pos
            nr = varint()
            if nr != p.regions:
                raise BytecodeError(r_at, f"'{p.spec.name}' has {p.regions} regions, the bytecode says {nr}")
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise BytecodeError(r_at, "regions nest too deeply")
            for _ in range(nr):
                region = Region()
                for _ in range(r.count("block")):
                    region.add_block(self.read_block(r, values, cursor, loc))
                regions.append(region)
            self.depth -= 1
        if p.token_result_missing:
            op = p.cls(operands, rtypes + [TokenType()], attrs, regions, loc)
            values.extend(op.results[:n])
            return op
        if not p.var_results and n != p.n_results:
            raise BytecodeError(at, f"'{p.spec.name}' expects {p.n_results} results")
        op = p.cls(operands, rtypes, attrs, regions, loc)
        values.extend(op.results)
        return op


# ---------------------------------------------------------------------------
# encoding

class WriteError(Exception):
    """An op the target version or the format cannot express; carries the op."""

    def __init__(self, op, message):
        super().__init__(message)
        self.op, self.message = op, message


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
        from .types import TypeError_
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
        groups = None
        if spec.operands == "segmented" or any(d.kind == OPTIONAL for d in cls.operand_defs):
            groups = op.operand_groups() if hasattr(op, "operand_groups") else None
        opt_names = {a.name for a in spec.attrs if a.optional}
        operand_index = {d.name: i for i, d in enumerate(cls.operand_defs)}
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
        defaults = {d.name: d.default for d in cls.attr_defs}
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
