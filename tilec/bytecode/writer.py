"""IR -> bytecode: one `cuda_tile.module` (or its bare entries and globals)
written for a chosen bytecode version. Sections are emitted in the order
NVIDIA's writer uses: Global, Func, Constant, Debug, Type, Producer, String,
end marker."""
from __future__ import annotations

from ..dialects.cuda_tile.attributes import SymbolVisibilityAttr
from ..dialects.cuda_tile.attributes_core import OptimizationHintsAttr
from ..dialects.cuda_tile.debuginfo import DILocAttr
from ..ir import attributes as A
from ..ir.location import CallSiteLoc, FusedLoc, NameLoc
from . import format as F
from .attrs import AttrWriter, EncodeError
from .debuginfo import DebugWriter
from .opcodec import OpEncoder, WriteError
from .stream import Writer
from .types import TypeError_, TypeWriter, table_section


def _section(out: Writer, sid: int, payload: bytes, alignment: int):
    out.byte(sid | (0x80 if alignment > 1 else 0))
    out.varint(len(payload))
    if alignment > 1:
        out.varint(alignment)
        out.align(alignment)
    out.raw(payload)


def module_body(ops):
    """(body ops, producer) of what is to be written, or a WriteError."""
    if len(ops) == 1 and ops[0].name == "cuda_tile.module":
        m = ops[0]
        block = m.regions[0].blocks[0] if m.regions and m.regions[0].blocks else None
        body = list(block.ops) if block is not None else []
        producer = m.attributes.get("producer")
        return body, (producer.value if isinstance(producer, A.StringAttr) else None), m
    for op in ops:
        if op.name == "cuda_tile.module":
            raise WriteError(op, "bytecode holds exactly one cuda_tile.module")
    return list(ops), None, None


def _has_debug_info(fn) -> bool:
    if isinstance(fn.location, (DILocAttr, CallSiteLoc)):
        return True
    return any(isinstance(op.location, (DILocAttr, CallSiteLoc)) for op in fn.walk())


def _check_self_contained(body, module):
    """Bytecode holds functions and globals of cuda_tile ops only. Reported as
    NVIDIA's writer does: an error at the module, a remark at the op."""
    for op in body:
        if op.name not in ("cuda_tile.entry", "cuda_tile.global"):
            raise WriteError(module or op, "only function and global ops are allowed in the body",
                             [(op, "invalid op")])
    for fn in body:
        for op in fn.walk():
            if not op.name.startswith("cuda_tile."):
                raise WriteError(module or op, "only ops from the 'cuda_tile' dialect are allowed",
                                 [(op, "invalid op")])


def _unrepresentable(loc):
    """The name of the first location kind inside `loc` that bytecode cannot
    hold (NameLoc, FusedLoc), or None."""
    if isinstance(loc, NameLoc):
        return "NameLoc"
    if isinstance(loc, FusedLoc):
        return "FusedLoc"
    if isinstance(loc, CallSiteLoc):
        return _unrepresentable(loc.callee) or _unrepresentable(loc.caller)
    return None


def _check_locations(body):
    """NVIDIA's writer refuses a name or fused location, at its op."""
    for fn in body:
        for op in fn.walk():
            kind = _unrepresentable(op.location)
            if kind is not None:
                raise WriteError(op, f"unsupported location, got {kind}, expected DILocAttr or CallSiteLoc")


def write_module(ops, version, strict_locations=False) -> bytes:
    """Encode; raises WriteError(op, message) when something cannot be written.
    `strict_locations`: refuse name and fused locations, as NVIDIA's writer
    does (else they are written as loc(unknown))."""
    body, producer, module = module_body(ops)
    _check_self_contained(body, module)
    if strict_locations:
        _check_locations(body)
    v = version
    types = TypeWriter(v)
    strings: dict = {}
    constants: dict = {}
    aw = AttrWriter(strings, types, constants)
    debug = DebugWriter(aw, v)
    enc = OpEncoder(v, types, aw, debug)

    # globals
    globals_ = [op for op in body if op.name == "cuda_tile.global"]
    gw = Writer()
    if globals_:
        gw.varint(len(globals_))
        for g in globals_:
            a = g.attributes
            name = a["sym_name"].value
            vis = a.get("symbol_visibility")
            private = vis is not None and vis.value != "public"
            const = "constant" in a
            if v < F.V13_3 and private:
                raise WriteError(g, f"global `{name}` uses non-public symbol visibility, which cannot be encoded "
                                    f"in bytecode version {F.version_text(v)} (requires bytecode 13.3+)")
            if v < F.V13_3 and const:
                raise WriteError(g, f"constant global `{name}` cannot be encoded in bytecode version "
                                    f"{F.version_text(v)} (the `constant` attribute requires bytecode 13.3+)")
            value = a["value"]
            try:
                gw.varint(aw.string_id(name))
                gw.varint(types.id(value.type))
                gw.varint(aw.constant_id(value))
            except (TypeError_, EncodeError) as e:
                raise WriteError(g, str(e)) from None
            align = a.get("alignment")
            gw.varint(align.value if align is not None else 0)
            if v >= F.V13_3:
                gw.varint(SymbolVisibilityAttr.values.index(vis.value) if vis is not None else 0)
                gw.varint(1 if const else 0)

    # functions
    fw = Writer()
    entries = [op for op in body if op.name == "cuda_tile.entry"]
    fw.varint(len(entries))
    for fn in entries:
        a = fn.attributes
        ftype = a["function_type"].value
        hints = a.get("optimization_hints")
        fw.varint(aw.string_id(a["sym_name"].value))
        try:
            fw.varint(types.id(ftype))
        except TypeError_ as e:
            raise WriteError(fn, str(e)) from None
        flags = F.FN_KERNEL
        if hints is not None and v < F.V13_5:
            flags |= F.FN_HAS_HINTS
        fw.byte(flags)
        if _has_debug_info(fn):
            fw.varint(debug.begin_function(fn.location))
            enc.with_debug = True
        else:
            fw.varint(F.DI_UNKNOWN_INDEX)
            enc.with_debug = False
        try:
            if hints is not None or v >= F.V13_5:
                aw.tagged(fw, hints if hints is not None else OptimizationHintsAttr(()))
            if v >= F.V13_5:
                arg_attrs = a.get("arg_attrs")
                aw.tagged(fw, arg_attrs if arg_attrs is not None else A.ArrayAttr(()))
        except EncodeError as e:
            raise WriteError(fn, str(e)) from None
        bw = Writer()
        block = fn.regions[0].blocks[0]
        enc.index, enc.next = {}, 0
        for arg in block.arguments:
            enc.bind(arg)
        enc.write_ops(bw, block.ops)
        fw.varint(len(bw))
        fw.raw(bw.buf)
    fw.align(8)

    out = Writer()
    out.raw(F.MAGIC)
    out.byte(v[0])
    out.byte(v[1])
    out.le(0, 2)
    if globals_:
        _section(out, F.SEC_GLOBAL, gw.getvalue(), 1)
    _section(out, F.SEC_FUNC, fw.getvalue(), 8)
    if constants:
        _section(out, F.SEC_CONSTANT, table_section(list(constants), 8), 8)
    if not debug.empty():
        _section(out, F.SEC_DEBUG, debug.section(), 8)
    _section(out, F.SEC_TYPE, types.section(), 4)
    if producer and v >= F.V13_3:
        w = Writer()
        w.varint(aw.string_id(producer))
        _section(out, F.SEC_PRODUCER, w.getvalue(), 1)
    _section(out, F.SEC_STRING, table_section([s.encode("utf-8", errors="surrogateescape") for s in strings], 4), 4)
    out.byte(F.SEC_END)
    return out.getvalue()
