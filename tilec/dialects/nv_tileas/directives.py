"""Custom syntax pieces (`custom<...>`) of nv_tileas, arith and scf forms.

- `NvTypes(type($a), type($b), ...)`: one comma-separated type list split over
  the named groups (operand groups by how many values the text gave them;
  results: one per single result, the rest to the variadic one). Types print in
  their short spelling where they have one (`tile<...>`).
- `EntryRegion($body)`: a region whose entry block arguments are written on
  its `^bb0(...)` label, every terminator printed.
- `DynamicIndexList($dynamic, $static)`: `[%a, 0, 64]`, MLIR's mixed
  static/dynamic index list (dynamic entries hold DYNAMIC_INDEX).
- `ScaleOperands($sfa, $sfb)` / `ScaleTypes(type($a), .., type($sfb))`: the two
  optional trailing scale-factor operands of block_scaled_mma and the type list;
  positional unless an explicit operandSegmentSizes in the attribute dictionary
  places them.
- `ScaleAttrDict($sfa, $sfb)`: block_scaled_mma's attribute dictionary, which
  prints operandSegmentSizes when only sfb is present (else it is elided)."""
from __future__ import annotations

from ...ir import attributes as A
from ...ir.opdef import SEGMENTS, SINGLE
from ...ir.types import IndexType, IntegerType
from ...syntax.format import BuildError, Directive, directive, value_ref

DYNAMIC_INDEX = -(2 ** 63)  # MLIR's ShapedType::kDynamic


def _groups(op, args):
    out = []
    for a in args:
        v = a.field.__get__(op)
        out.extend(v if isinstance(v, list) else ([] if v is None else [v]))
    return out


def type_list_text(types) -> str:
    return ", ".join(t.text(True) for t in types)


@directive("NvTypes")
class NvTypes(Directive):
    def grammar(self, args):
        return "type_list"

    def parse(self, children, args, state):
        (types,) = children
        types = list(types or [])
        from ...ir.opdef import ResultDef
        if all(isinstance(a.field, ResultDef) for a in args):
            non_single = [a for a in args if a.field.kind != SINGLE]
            rest = len(types) - (len(args) - len(non_single))
            pos = 0
            for a in args:
                n = 1 if a.field.kind == SINGLE else (rest if a is non_single[0] else 0)
                if n < 0 or pos + n > len(types):
                    raise BuildError(f"expected {len(args) - len(non_single)} or more result types, "
                                     f"but got {len(types)}")
                state.result_types[a.name] = types[pos:pos + n]
                pos += n
            if pos != len(types):
                raise BuildError(f"expected {len(args)} result types, but got {len(types)}")
            return
        want = sum(len(state.operands.get(a.name, [])) for a in args)
        if want != len(types):
            raise BuildError(f"expected {want} operand types, but got {len(types)}", custom_op=True)
        pos = 0
        for a in args:
            n = len(state.operands.get(a.name, []))
            state.operand_types[a.name] = types[pos:pos + n]
            pos += n

    def print(self, op, args, p):
        return type_list_text(v.type for v in _groups(op, args))

    def present(self, op, args):
        return bool(_groups(op, args))


@directive("EntryRegion")
class EntryRegion(Directive):
    def grammar(self, args):
        return "region"

    def parse(self, children, args, state):
        (region,) = children
        state.regions[args[0].name] = region

    def print(self, op, args, p):
        p.write(" ")
        p.print_region(op.regions[args[0].field.index], entry_args=True, terminators=True)
        return None


@directive("DynamicIndexList")
class DynamicIndexList(Directive):
    rules = ('nvt_index: VALUE_REF | INT',)

    def grammar(self, args):
        return '"[" [nvt_index ("," nvt_index)*] "]"'

    def parse(self, children, args, state):
        dyn, static = args
        refs, values = [], []
        for c in children:
            if c is None:
                continue
            (tok,) = c
            if tok.type == "INT":
                values.append(int(str(tok), 0))
            else:
                refs.append(value_ref(tok))
                values.append(DYNAMIC_INDEX)
        state.operands[dyn.name] = refs
        state.operand_types[dyn.name] = [IndexType()] * len(refs)
        state.attrs[static.name] = A.DenseArrayAttr(IntegerType(64), tuple(values))

    def print(self, op, args, p):
        dyn, static = args
        vals = iter(dyn.field.__get__(op))
        attr = op.attributes.get(static.name)
        items = []
        for v in (attr.values if attr is not None else ()):
            if v == DYNAMIC_INDEX:
                nxt = next(vals, None)
                items.append(p.value_name(nxt) if nxt is not None else "?")
            else:
                items.append(str(v))
        p.write("[" + ", ".join(items) + "]")
        return None


@directive("ScaleOperands")
class ScaleOperands(Directive):
    def grammar(self, args):
        return '("," VALUE_REF)*'

    def parse(self, children, args, state):
        refs = [value_ref(t) for t in children if t is not None]
        if len(refs) > 2:
            raise BuildError("expected at most two scale-factor operands", refs[2], custom_op=True)
        state.operands[args[0].name] = refs  # placed by ScaleTypes, once the attributes are known
        state.operands[args[1].name] = []

    def print(self, op, args, p):
        vals = _groups(op, args)
        if vals:
            p.write(", " + ", ".join(p.value_name(v) for v in vals))
        return None


@directive("ScaleTypes")
class ScaleTypes(NvTypes):
    """NvTypes over (a, b, c, sfa, sfb) that then places the scale-factor
    operands: by an explicit operandSegmentSizes when the text gives one,
    else positionally (one means sfa)."""

    def parse(self, children, args, state):
        super().parse(children, args, state)
        sfa, sfb = args[-2], args[-1]
        refs = state.operands.get(sfa.name, []) + state.operands.get(sfb.name, [])
        types = state.operand_types.get(sfa.name, []) + state.operand_types.get(sfb.name, [])
        seg = state.attrs.get(SEGMENTS)
        n_a = min(len(refs), 1) if len(refs) < 2 else 1
        if isinstance(seg, A.DenseArrayAttr) and len(seg.values) == 5 and seg.values[3] + seg.values[4] == len(refs):
            n_a = seg.values[3]
        state.operands[sfa.name], state.operands[sfb.name] = refs[:n_a], refs[n_a:]
        state.operand_types[sfa.name], state.operand_types[sfb.name] = types[:n_a], types[n_a:]


@directive("ScaleAttrDict")
class ScaleAttrDict(Directive):
    """block_scaled_mma's attribute dictionary. Like `attr-dict` it never prints
    operandSegmentSizes, except when sfb is present without sfa: positionally a
    lone scale factor reads as sfa, so the segment sizes are printed to place it."""

    def grammar(self, args):
        return "[attr_dict]"

    def parse(self, children, args, state):
        for c in children or ():  # the optional dictionary, when written
            if c is not None:
                state.attrs.update(c)

    def print(self, op, args, p):
        sfa, sfb = (a.field.__get__(op) for a in args[-2:])
        keep = sfa is None and sfb is not None
        items = [(k, v) for k, v in sorted(op.attributes.items())
                 if k != "resultSegmentSizes" and (k != SEGMENTS or keep)]
        if not items:
            return None
        return "{" + ", ".join(A.entry_text(k, v, True) for k, v in items) + "}"

