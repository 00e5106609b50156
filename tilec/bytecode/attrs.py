"""Attributes in bytecode: dense constants (the constant pool), the
self-contained tagged attributes (array elements, dictionaries, assume
predicates, optimization hints), and the untagged encodings an op's
declaration implies (enums, integers, strings, arrays...).

Tagged attribute layouts:
    Integer  type[idx] value[varint, zero-extended]
    Float    type[idx] bits[1 byte if <= 8 bits, else zigzag varint]
    Bool     byte            Type    type[idx]        String  string[idx]
    Array    count elements  DenseElements  type[idx] constant[idx]
    DivBy    divisor[varint] flags[byte] every?[svarint] along?[svarint]
    SameElements  count i64-LE...
    Dictionary    count (key[string idx] tagged-value)...
    OptimizationHints  an untagged Dictionary of arch -> Dictionary
    Bounded  flags[byte] lb?[svarint] ub?[svarint]
A dense constant in the pool is a varint byte size and the little-endian raw
elements (one element when the value is a splat)."""
from __future__ import annotations

import struct

from ..dialects.cuda_tile import attributes as CA
from ..dialects.cuda_tile.attributes_core import (BoundedAttr, DivByAttr, OptimizationHintsAttr,
                                                  SameElementsAttr)
from ..dialects.cuda_tile.types import TileType
from ..ir import attributes as A
from ..ir.floats import bit_width, storage_bytes
from ..ir.types import FloatType, IntegerType
from . import format as F
from .stream import BytecodeError, Reader, Writer

I1, I32, I64 = IntegerType(1), IntegerType(32), IntegerType(64)

# enum encodings: bytecode value = position in tilec's list of cases
DIALECT_ENUMS = {"rounding": CA.RoundingModeAttr, "overflow": CA.IntegerOverflowAttr,
                 "signedness": CA.SignednessAttr, "cmp_pred": CA.ComparisonPredicateAttr,
                 "cmp_order": CA.ComparisonOrderingAttr, "padding": CA.PaddingValueAttr,
                 "visibility": CA.SymbolVisibilityAttr, "multimem_red": CA.MultimemReductionKindAttr}
I32_ENUMS = {"ordering": CA.MemoryOrderingSemanticsAttr, "scope": CA.MemoryScopeAttr,
             "atomic_mode": CA.AtomicRMWModeAttr}


# the `default` of an attribute the op declares without one: decoded as is, even
# when it equals what an absent attribute would mean (an all-false `inbounds`)
KEEP = object()


def signed(value: int, width: int) -> int:
    if width > 1 and value >= 1 << (width - 1):
        return value - (1 << width)
    return value


# ---------------------------------------------------------------------------
# dense element data

def _float_from_bits(bits: int, elt):
    from ..syntax.dense import float_from_bits
    return float_from_bits(bits, elt)


def element_bytes(elt) -> int:
    """Bytes per element in MLIR's dense storage (sub-byte types use a byte,
    tf32's 19 bits three)."""
    return storage_bytes(elt)


_STRUCT_INT = {1: "b", 2: "h", 4: "i", 8: "q"}


def decode_dense(raw: bytes, type_, at: int):
    """Raw little-endian element data of a tile type -> DenseElementsAttr."""
    if not isinstance(type_, TileType):
        raise BytecodeError(at, f"a dense constant needs a tile type, got '{type_.text()}'")
    elt = type_.element_type
    if not isinstance(elt, (IntegerType, FloatType)):
        raise BytecodeError(at, f"a dense constant needs integer or float elements, got '{elt.text()}'")
    n = 1
    for d in type_.shape:
        n *= d
    size = element_bytes(elt)
    if len(raw) == size:
        count = 1
    elif len(raw) == size * n:
        count = n
    else:
        raise BytecodeError(at, f"constant data of {len(raw)} bytes does not fit '{type_.text()}'")
    if isinstance(elt, IntegerType):
        w = elt.width
        if w in (8, 16, 32, 64):
            vals = struct.unpack_from(f"<{count}{_STRUCT_INT[size]}", raw)
        else:
            mask = (1 << w) - 1
            vals = tuple(signed(b & mask, w) for b in raw)
            if w == 1:
                vals = tuple(b & 1 for b in raw)
    else:
        name = elt.name
        if name in ("f32", "f64", "f16"):
            vals = struct.unpack_from(f"<{count}{ {'f32': 'f', 'f64': 'd', 'f16': 'e'}[name] }", raw)
        elif name == "bf16":
            half = struct.unpack_from(f"<{count}H", raw)
            vals = struct.unpack(f"<{count}f", struct.pack(f"<{count}I", *(h << 16 for h in half)))
        else:
            if name == "tf32":
                bits = [int.from_bytes(raw[i:i + 3], "little") for i in range(0, 3 * count, 3)]
                return A.DenseElementsAttr(type_, tuple(_float_from_bits(b, elt) for b in bits), count == 1)
            bits = struct.unpack_from(f"<{count}{ {1: 'B', 2: 'H', 4: 'I', 8: 'Q'}[size] }", raw)
            vals = tuple(_float_from_bits(b & ((1 << elt.width) - 1), elt) for b in bits)
    return A.DenseElementsAttr(type_, vals, count == 1)


def encode_dense(attr) -> bytes:
    elt = attr.element_type
    size = element_bytes(elt)
    vals = attr.values
    if isinstance(elt, IntegerType):
        if elt.width in (8, 16, 32, 64):
            mask = (1 << elt.width) - 1
            return b"".join((v & mask).to_bytes(size, "little") for v in vals)
        mask = (1 << elt.width) - 1
        return bytes(v & mask for v in vals)
    name = elt.name
    if name in ("f32", "f64", "f16"):
        return struct.pack(f"<{len(vals)}{ {'f32': 'f', 'f64': 'd', 'f16': 'e'}[name] }", *vals)
    if name == "bf16":
        return b"".join((struct.unpack("<I", struct.pack("<f", v))[0] >> 16).to_bytes(2, "little") for v in vals)
    from ..ir.floats import to_bits
    return b"".join(to_bits(v, elt).to_bytes(size, "little") for v in vals)


# ---------------------------------------------------------------------------
# reading

class AttrReader:
    """Decodes attributes against a file's string, type and constant tables."""

    def __init__(self, strings, types, constants):
        self.strings, self.types, self.constants = strings, types, constants
        self.dense_cache: dict = {}
        self.enum_tables: dict = {}
        self.tagged_cache: dict = {}  # encoded bytes -> attribute (see tagged_memo)
        self.tagged_lengths: list = []  # the lengths of its keys

    def string(self, r: Reader) -> str:
        at = r.pos
        i = r.varint()
        if i >= len(self.strings):
            raise BytecodeError(at, f"string index {i} out of range (the string table has {len(self.strings)})")
        return self.strings[i]

    def dense(self, r: Reader, type_):
        at = r.pos
        i = r.varint()
        if i >= len(self.constants):
            raise BytecodeError(at, f"constant index {i} out of range (the constant table has "
                                    f"{len(self.constants)})")
        key = (i, type_)
        attr = self.dense_cache.get(key)
        if attr is None:
            start, end = self.constants[i]
            cr = Reader(r.data, start, end, f"constant {i}")
            size = cr.varint()
            raw = cr.bytes(size)
            attr = self.dense_cache[key] = decode_dense(raw, type_, start)
        return attr

    def scalar(self, r: Reader, type_):
        """An inline integer or float of `type_` (IntegerAttr / FloatAttr)."""
        at = r.pos
        if isinstance(type_, IntegerType):
            if type_.width == 1:
                b = r.byte()
                return A.IntegerAttr(1 if b else 0, type_)
            v = r.varint()
            if v >> type_.width:
                raise BytecodeError(at, f"value {v} does not fit in {type_.width} bits")
            return A.IntegerAttr(signed(v, type_.width), type_)
        if isinstance(type_, FloatType):
            w = bit_width(type_)
            bits = r.byte() if w <= 8 else r.signed_varint() & ((1 << 64) - 1)
            if bits >> w:
                raise BytecodeError(at, f"value {bits} does not fit in {w} bits")
            return A.FloatAttr(_float_from_bits(bits, type_), type_)
        raise BytecodeError(at, f"expected an integer or float type, got '{type_.text()}'")

    def tagged(self, r: Reader, depth: int = 0):
        if depth > 64:
            r.error("attributes nest too deeply")
        at = r.pos
        tag = r.varint()
        if tag == F.A_INTEGER:
            t = self.types.read(r)
            if not isinstance(t, IntegerType):
                raise BytecodeError(at, f"integer attribute of non-integer type '{t.text()}'")
            return self.scalar(r, t)
        if tag == F.A_FLOAT:
            t = self.types.read(r)
            if not isinstance(t, FloatType):
                raise BytecodeError(at, f"float attribute of non-float type '{t.text()}'")
            return self.scalar(r, t)
        if tag == F.A_BOOL:
            return A.BoolAttr(bool(r.byte()))
        if tag == F.A_TYPE:
            return A.TypeAttr(self.types.read(r))
        if tag == F.A_STRING:
            return A.StringAttr(self.string(r))
        if tag == F.A_ARRAY:
            return A.ArrayAttr(tuple(self.tagged(r, depth + 1) for _ in range(r.count("array element"))))
        if tag == F.A_DENSE:
            t = self.types.read(r)
            return self.dense(r, t)
        if tag == F.A_DIV_BY:
            divisor = r.varint()
            flags = r.byte()
            every = r.signed_varint() if flags & 1 else None
            along = r.signed_varint() if flags & 2 else None
            return DivByAttr(divisor, every, along)
        if tag == F.A_SAME_ELEMENTS:
            return SameElementsAttr(r.le_array(8))
        if tag == F.A_DICTIONARY:
            return self.dictionary(r, depth)
        if tag == F.A_OPT_HINTS:
            return self.hints(r, depth)
        if tag == F.A_BOUNDED:
            flags = r.byte()
            lb = r.signed_varint() if flags & 1 else None
            ub = r.signed_varint() if flags & 2 else None
            return BoundedAttr(lb, ub)
        raise BytecodeError(at, f"unknown attribute tag {tag}")

    def tagged_memo(self, r: Reader, result_type=None):
        """self.tagged(r), reusing the attribute decoded before from the same
        bytes (ops repeat their assume predicates, functions their hints): a
        tagged attribute is self-delimiting, immutable and decoded against
        this file's fixed tables, so the same bytes decode to the same
        attribute. At most one remembered encoding can start at r.pos."""
        data, pos, end = r.data, r.pos, r.end
        memo = self.tagged_cache
        if type(data) is not bytes:  # slices as keys need bytes
            return self.tagged(r)
        for n in self.tagged_lengths:
            if pos + n <= end:
                a = memo.get(data[pos:pos + n])
                if a is not None:
                    r.pos = pos + n
                    return a
        a = self.tagged(r)
        n = r.pos - pos
        if n <= 64 and len(memo) < 4096:
            memo[data[pos:pos + n]] = a
            if n not in self.tagged_lengths:
                self.tagged_lengths.append(n)
        return a

    def dictionary(self, r: Reader, depth: int = 0):
        entries, seen = [], set()
        for _ in range(r.count("dictionary entry", 2)):
            at = r.pos
            key = self.string(r)
            if not key:
                raise BytecodeError(at, "empty dictionary key")
            if key in seen:
                raise BytecodeError(at, f"duplicate dictionary key '{key}'")
            seen.add(key)
            entries.append((key, self.tagged(r, depth + 1)))
        return A.DictionaryAttr(tuple(entries))

    def hints(self, r: Reader, depth: int = 0):
        at = r.pos
        d = self.dictionary(r, depth)
        for k, v in d.entries:
            if not isinstance(v, A.DictionaryAttr):
                raise BytecodeError(at, f"optimization hints entry '{k}' is not a dictionary")
        return OptimizationHintsAttr(d.entries)

    def enum_table(self, enc: str, default):
        """For an enum encoding, the attribute each value decodes to (None
        for `default`); None for other encodings. Enum attributes are
        immutable: one instance per case is built and shared."""
        key = (enc, default)
        table = self.enum_tables.get(key)
        if table is None:
            cls = DIALECT_ENUMS.get(enc)
            if cls is not None:
                cases = [cls(v) for v in cls.values]
            elif enc in I32_ENUMS:
                cases = [A.IntegerAttr(i, I32) for i in range(len(I32_ENUMS[enc].values))]
            else:
                return None
            table = self.enum_tables[key] = [None if c == default else c for c in cases]
        return table

    def decoder(self, enc: str, default):
        """A function (reader, result type) -> attribute, or None when the
        value is `default` (or an all-false flag array): what a decoded op
        leaves out."""
        table = self.enum_table(enc, default)
        if table is not None:
            cls = DIALECT_ENUMS.get(enc)
            name = cls.mnemonic if cls is not None else I32_ENUMS[enc].attr_name
            n = len(table)
            n1 = min(n, 0x80)  # values below this are one-byte varints

            def enum(r, rt):
                at = pos = r.pos
                if pos < r.end:
                    v = r.data[pos]
                    if v < n1:
                        r.pos = pos + 1
                        return table[v]
                v = r.varint()
                if v >= n:
                    raise BytecodeError(at, f"invalid {name} enum value {v}")
                return table[v]
            return enum
        if default is None:
            # these never decode to None: no comparison with a default needed
            if enc == "tagged":
                return self.tagged_memo
            if enc == "dense":
                return self.dense
        op_attr = self.op_attr
        if enc == "boolarray" and default is not KEEP:
            def flags(r, rt):
                val = op_attr(r, enc, rt)
                return val if any(val.values) else None
            return flags

        def generic(r, rt):
            val = op_attr(r, enc, rt)
            return None if val == default else val
        return generic

    def op_attr(self, r: Reader, enc: str, result_type):
        """An attribute in the untagged form its declaration implies."""
        at = r.pos
        cls = DIALECT_ENUMS.get(enc)
        if cls is not None:
            v = r.varint()
            if v >= len(cls.values):
                raise BytecodeError(at, f"invalid {cls.mnemonic} enum value {v}")
            return cls(cls.values[v])
        cls = I32_ENUMS.get(enc)
        if cls is not None:
            v = r.varint()
            if v >= len(cls.values):
                raise BytecodeError(at, f"invalid {cls.attr_name} enum value {v}")
            return A.IntegerAttr(v, I32)
        if enc == "i64":
            return A.IntegerAttr(signed(r.varint(), 64), I64)
        if enc == "i32":
            v = r.varint()
            if v >> 32 and v >> 63 == 0:
                raise BytecodeError(at, f"value {v} does not fit in 32 bits")
            return A.IntegerAttr(signed(v & 0xFFFFFFFF, 32), I32)
        if enc == "bool":
            return A.BoolAttr(bool(r.byte()))
        if enc == "str":
            return A.StringAttr(self.string(r))
        if enc == "symref":
            s = self.string(r)
            if not s:
                raise BytecodeError(at, "empty symbol reference")
            return A.SymbolRefAttr(s)
        if enc == "dense":
            return self.dense(r, result_type)
        if enc == "i32array":
            return A.DenseArrayAttr(I32, r.le_array(4))
        if enc == "boolarray":
            return A.DenseArrayAttr(I1, tuple(1 if b else 0 for b in r.le_array(1, signed=False)))
        if enc == "array":
            return A.ArrayAttr(tuple(self.tagged(r, 1) for _ in range(r.count("array element"))))
        if enc == "hints":
            return self.hints(r)
        if enc == "tagged":
            return self.tagged(r)
        raise BytecodeError(at, f"internal: unknown attribute encoding {enc}")


# ---------------------------------------------------------------------------
# writing

class EncodeError(Exception):
    """An attribute the format cannot express."""


class AttrWriter:
    def __init__(self, strings, types, constants):
        self.strings = strings       # dict str -> index
        self.types = types           # TypeWriter
        self.constants = constants   # dict bytes -> index

    def string_id(self, s: str) -> int:
        i = self.strings.get(s)
        if i is None:
            i = self.strings[s] = len(self.strings)
        return i

    def constant_id(self, attr) -> int:
        raw = encode_dense(attr)
        w = Writer()
        w.varint(len(raw))
        w.raw(raw)
        blob = w.getvalue()
        i = self.constants.get(blob)
        if i is None:
            i = self.constants[blob] = len(self.constants)
        return i

    def scalar(self, w: Writer, attr):
        t = attr.type
        if isinstance(attr, A.FloatAttr):
            from ..ir.floats import to_bits
            bits = to_bits(attr.value, t) if t.name not in ("f32", "f64", "f16") else int.from_bytes(
                struct.pack({"f32": "<f", "f64": "<d", "f16": "<e"}[t.name], attr.value), "little")
            if t.width <= 8:
                w.byte(bits)
            else:
                w.signed_varint(bits if bits < 1 << 63 else bits - (1 << 64))
        else:
            v = attr.value & ((1 << t.width) - 1) if t.width < 64 else attr.value & ((1 << 64) - 1)
            if t.width == 1:
                w.byte(v)
            else:
                w.varint(v)

    def tagged(self, w: Writer, attr):
        if isinstance(attr, A.BoolAttr):
            w.varint(F.A_BOOL)
            w.byte(1 if attr.value else 0)
        elif isinstance(attr, A.IntegerAttr):
            w.varint(F.A_INTEGER)
            w.varint(self.types.id(attr.type))
            self.scalar(w, attr)
        elif isinstance(attr, A.FloatAttr):
            w.varint(F.A_FLOAT)
            w.varint(self.types.id(attr.type))
            self.scalar(w, attr)
        elif isinstance(attr, A.TypeAttr):
            w.varint(F.A_TYPE)
            w.varint(self.types.id(attr.value))
        elif isinstance(attr, A.StringAttr):
            w.varint(F.A_STRING)
            w.varint(self.string_id(attr.value))
        elif isinstance(attr, A.ArrayAttr):
            w.varint(F.A_ARRAY)
            w.varint(len(attr.elements))
            for e in attr.elements:
                self.tagged(w, e)
        elif isinstance(attr, A.DenseElementsAttr):
            w.varint(F.A_DENSE)
            w.varint(self.types.id(attr.type))
            w.varint(self.constant_id(attr))
        elif isinstance(attr, DivByAttr):
            w.varint(F.A_DIV_BY)
            w.varint(attr.divisor)
            w.byte((attr.every is not None) | (attr.along is not None) << 1)
            if attr.every is not None:
                w.signed_varint(attr.every)
            if attr.along is not None:
                w.signed_varint(attr.along)
        elif isinstance(attr, SameElementsAttr):
            w.varint(F.A_SAME_ELEMENTS)
            w.le_array(attr.values, 8)
        elif isinstance(attr, A.DictionaryAttr):
            w.varint(F.A_DICTIONARY)
            self.dictionary(w, attr.entries)
        elif isinstance(attr, OptimizationHintsAttr):
            w.varint(F.A_OPT_HINTS)
            self.dictionary(w, attr.entries)
        elif isinstance(attr, BoundedAttr):
            w.varint(F.A_BOUNDED)
            w.byte((attr.lb is not None) | (attr.ub is not None) << 1)
            if attr.lb is not None:
                w.signed_varint(attr.lb)
            if attr.ub is not None:
                w.signed_varint(attr.ub)
        else:
            raise EncodeError(f"attribute '{attr.text()}' has no bytecode encoding")

    def dictionary(self, w: Writer, entries):
        w.varint(len(entries))
        for k, v in entries:
            w.varint(self.string_id(k))
            self.tagged(w, v)

    def op_attr(self, w: Writer, enc: str, attr):
        cls = DIALECT_ENUMS.get(enc)
        if cls is not None:
            if not isinstance(attr, cls):
                raise EncodeError(f"expected a {cls.mnemonic} attribute, got '{attr.text()}'")
            w.varint(cls.values.index(attr.value))
        elif enc in I32_ENUMS or enc in ("i64", "i32"):
            if not isinstance(attr, A.IntegerAttr):
                raise EncodeError(f"expected an integer attribute, got '{attr.text()}'")
            w.varint(attr.value & ((1 << 64) - 1) if enc != "i32" else attr.value & 0xFFFFFFFF)
        elif enc == "bool":
            w.byte(1 if getattr(attr, "value", False) else 0)
        elif enc == "str":
            w.varint(self.string_id(attr.value))
        elif enc == "symref":
            w.varint(self.string_id(attr.root))
        elif enc == "dense":
            w.varint(self.constant_id(attr))
        elif enc == "i32array":
            w.le_array(attr.values, 4)
        elif enc == "boolarray":
            w.le_array([1 if v else 0 for v in attr.values], 1)
        elif enc == "array":
            w.varint(len(attr.elements))
            for e in attr.elements:
                self.tagged(w, e)
        elif enc == "hints":
            if not isinstance(attr, OptimizationHintsAttr):
                raise EncodeError(f"expected optimization hints, got '{attr.text()}'")
            self.dictionary(w, attr.entries)
        elif enc == "tagged":
            self.tagged(w, attr)
        else:
            raise EncodeError(f"internal: unknown attribute encoding {enc}")
