"""Bytecode -> IR: the header, the section directory, the tables, then the
functions and globals of one `cuda_tile.module`.

    file     magic[8] major[u8] minor[u8] tag[u16 LE] section* end[0x00]
    section  id[u8, bit 7 = aligned] length[varint] [alignment[varint] padding]
             payload

Malformed input raises BytecodeError(offset, message) anywhere below; the
public entry point (tilec.bytecode.read_bytecode) reports it as a diagnostic."""
from __future__ import annotations

from ..ir.core import Block, Region
from ..ir.location import UNKNOWN
from ..ir.registry import OPS
from . import format as F
from .attrs import AttrReader
from .debuginfo import DebugInfo, parse_debug_section
from .opcodec import OpDecoder
from .stream import BytecodeError, Reader
from .types import TypeTable, parse_type_section


def parse_header(r: Reader):
    magic = r.data[:8]
    if bytes(magic) != F.MAGIC:
        for i in range(min(len(magic), 8)):
            if magic[i] != F.MAGIC[i]:
                raise BytecodeError(i, f"invalid magic number: byte {i} is 0x{magic[i]:02x}, expected "
                                       f"0x{F.MAGIC[i]:02x} (not a Tile IR bytecode file)")
        raise BytecodeError(len(magic), "truncated header: the file is shorter than the magic number")
    r.pos = 8
    if r.remaining < 4:
        raise BytecodeError(r.pos, "truncated header: expected the version (4 bytes)")
    major, minor, tag = r.byte(), r.byte(), r.le(2)
    version = (major, minor)
    if version not in F.SUPPORTED_VERSIONS or tag & ~1:
        raise BytecodeError(8, f"unsupported bytecode version {major}.{minor}.{tag}; tilec reads versions "
                               f"{F.supported_range()}")
    if tag & 1:
        raise BytecodeError(10, f"bytecode version {major}.{minor} uses preview features, which tilec does not "
                                f"support")
    return version


def parse_sections(r: Reader) -> dict:
    """{section id: Reader over its payload}; stops at the end marker."""
    sections = {}
    while True:
        at = r.pos
        if r.at_end():
            raise BytecodeError(at, "truncated file: missing the end-of-bytecode marker")
        head = r.byte()
        sid, aligned = head & 0x7F, bool(head & 0x80)
        if sid == F.SEC_END:
            if aligned:
                raise BytecodeError(at, "the end-of-bytecode marker must not have the alignment flag")
            if not r.at_end():
                raise BytecodeError(r.pos, f"{r.remaining} bytes of trailing data after the end-of-bytecode marker")
            return sections
        if sid >= F.NUM_SECTIONS:
            raise BytecodeError(at, f"unknown section id {sid}")
        name = F.SECTION_NAMES[sid]
        if sid in sections:
            raise BytecodeError(at, f"duplicate section '{name}'")
        r.what = f"section '{name}' header"
        length = r.varint()
        alignment = 1
        if aligned:
            a_at = r.pos
            alignment = r.varint()
            if alignment == 0 or alignment & (alignment - 1) or alignment > 1 << 16:
                raise BytecodeError(a_at, f"invalid alignment {alignment} of section '{name}'")
            pad = -r.pos % alignment
            if pad > r.remaining:
                raise BytecodeError(r.pos, f"truncated section '{name}': missing alignment padding")
            r.pos += pad
        need = F.SECTION_ALIGNMENT.get(sid)
        if need and alignment % need:
            raise BytecodeError(at, f"section '{name}' must be aligned to a multiple of {need} bytes, but "
                                    f"{'is aligned to ' + str(alignment) if aligned else 'has no alignment'}")
        if length > r.remaining:
            raise BytecodeError(at, f"truncated section '{name}': its length {length} exceeds the "
                                    f"{r.remaining} bytes left in the file")
        r.what = "file"
        sections[sid] = Reader(r.data, r.pos, r.pos + length, f"section '{name}'")
        r.pos += length


def parse_strings(r: Reader) -> list:
    n = r.count("string", 4)
    if n == 0:
        return []
    r.align(4)
    offs = [r.le(4) for _ in range(n)]
    base, size = r.pos, r.remaining
    out = []
    for i, start in enumerate(offs):
        end = offs[i + 1] if i + 1 < n else size
        if not start <= end <= size:
            raise BytecodeError(base, f"string {i} has an invalid offset ({start}..{end} of {size} bytes)")
        out.append(bytes(r.data[base + start:base + end]).decode("utf-8", errors="replace"))
    return out


def parse_constants(r: Reader) -> list:
    """[(start, end)] absolute byte ranges of the constant pool's entries."""
    n = r.count("constant", 8)
    if n == 0:
        return []
    r.align(8)
    offs = [r.le(8) for _ in range(n)]
    base, size = r.pos, r.remaining
    out = []
    for i, start in enumerate(offs):
        end = offs[i + 1] if i + 1 < n else size
        if not start <= end <= size:
            raise BytecodeError(base, f"constant {i} has an invalid offset ({start}..{end} of {size} bytes)")
        out.append((base + start, base + end))
    return out


class ModuleReader:
    def __init__(self, data: bytes):
        self.data = data

    def read(self):
        r = Reader(self.data, 0, len(self.data), "file")
        self.version = v = parse_header(r)
        secs = parse_sections(r)
        if F.SEC_STRING not in secs:
            raise BytecodeError(len(self.data), "the mandatory 'String' section is missing")
        if F.SEC_FUNC not in secs:
            raise BytecodeError(len(self.data), "the mandatory 'Func' section is missing")
        strings = parse_strings(secs[F.SEC_STRING])
        producer = None
        if F.SEC_PRODUCER in secs:
            pr = secs[F.SEC_PRODUCER]
            at = pr.pos
            i = pr.varint()
            if i >= len(strings):
                raise BytecodeError(at, f"producer string index {i} out of range")
            producer = strings[i]
        if F.SEC_TYPE in secs:
            types = parse_type_section(secs[F.SEC_TYPE], v)
        else:
            types = TypeTable(self.data, [], 0, 0, v)
        constants = parse_constants(secs[F.SEC_CONSTANT]) if F.SEC_CONSTANT in secs else []
        attrs = AttrReader(strings, types, constants)
        debug = (parse_debug_section(secs[F.SEC_DEBUG], strings, v) if F.SEC_DEBUG in secs
                 else DebugInfo(strings=strings, version=v))
        body = Block()
        module_cls = OPS["cuda_tile.module"]
        from ..ir.attributes import StringAttr
        mattrs = {"sym_name": StringAttr("kernels")}
        if producer:
            mattrs["producer"] = StringAttr(producer)
        module = module_cls([], [], mattrs, [Region([body])], UNKNOWN)
        if F.SEC_GLOBAL in secs:
            for g in self.globals(secs[F.SEC_GLOBAL], attrs, types):
                body.append(g)
        decoder = OpDecoder(v, types, attrs)
        for fn in self.functions(secs[F.SEC_FUNC], attrs, types, debug, decoder):
            body.append(fn)
        return [module]

    def globals(self, r: Reader, attrs: AttrReader, types):
        from ..dialects.cuda_tile.attributes import SymbolVisibilityAttr
        from ..ir import attributes as A
        from ..ir.types import IntegerType
        cls = OPS["cuda_tile.global"]
        out = []
        for _ in range(r.count("global", 4)):
            at = r.pos
            name = attrs.string(r)
            if not name:
                raise BytecodeError(at, "global has an empty name")
            t = types.read(r)
            value = attrs.dense(r, t)
            alignment = r.varint()
            vis, const = 0, 0
            if self.version >= F.V13_3:
                v_at = r.pos
                vis = r.varint()
                if vis >= len(SymbolVisibilityAttr.values):
                    raise BytecodeError(v_at, f"invalid symbol visibility {vis}")
                const = r.varint()
            a = {"sym_name": A.StringAttr(name), "value": value}
            if alignment:
                a["alignment"] = A.IntegerAttr(alignment, IntegerType(64))
            if const:
                a["constant"] = A.UnitAttr()
            if vis:
                a["symbol_visibility"] = SymbolVisibilityAttr(SymbolVisibilityAttr.values[vis])
            out.append(cls([], [], a, [], UNKNOWN))
        return out

    def functions(self, r: Reader, attrs: AttrReader, types, debug: DebugInfo, decoder):
        from ..ir import attributes as A
        from ..ir.types import FunctionType
        cls = OPS["cuda_tile.entry"]
        v = self.version
        out = []
        for _ in range(r.count("function", 4)):
            at = r.pos
            name = attrs.string(r)
            if not name:
                raise BytecodeError(at, "function has an empty name")
            t_at = r.pos
            ftype = types.read(r)
            if not isinstance(ftype, FunctionType):
                raise BytecodeError(t_at, f"the signature of function '{name}' is not a function type: "
                                          f"'{ftype.text()}'")
            f_at = r.pos
            flags = r.byte()
            if not flags & F.FN_KERNEL:
                raise BytecodeError(f_at, f"function '{name}' is not a kernel entry point; tilec reads only "
                                          f"entry functions")
            if flags & ~(F.FN_KERNEL | F.FN_HAS_HINTS | F.FN_PRIVATE):
                raise BytecodeError(f_at, f"unknown function flags 0x{flags:02x}")
            d_at = r.pos
            loc_index = r.varint()
            a = {"sym_name": A.StringAttr(name), "function_type": A.TypeAttr(ftype)}
            if flags & F.FN_HAS_HINTS or v >= F.V13_5:
                h_at = r.pos
                hints = attrs.tagged_memo(r)
                from ..dialects.cuda_tile.attributes_core import OptimizationHintsAttr
                if not isinstance(hints, OptimizationHintsAttr):
                    raise BytecodeError(h_at, f"function '{name}' has invalid optimization hints")
                a["optimization_hints"] = hints
            if v >= F.V13_5:
                g_at = r.pos
                arg_attrs = attrs.tagged_memo(r)
                if not isinstance(arg_attrs, A.ArrayAttr):
                    raise BytecodeError(g_at, f"function '{name}' has invalid argument attributes")
                if arg_attrs.elements:
                    if len(arg_attrs.elements) != len(ftype.inputs) or not all(
                            isinstance(e, A.DictionaryAttr) for e in arg_attrs.elements):
                        raise BytecodeError(g_at, f"function '{name}' has invalid argument attributes")
                    if any(e.entries for e in arg_attrs.elements):
                        a["arg_attrs"] = arg_attrs
            size = r.varint()
            body_r = r.sub(size, f"body of function '{name}'")
            cursor = debug.cursor(loc_index, d_at)
            loc = cursor.next(d_at)
            block = Block(ftype.inputs, [loc] * len(ftype.inputs))
            decoder.read_body(body_r, block, list(block.arguments), cursor)
            out.append(cls([], [], a, [Region([block])], loc))
        return out


def read_module(data: bytes):
    return ModuleReader(data).read()
