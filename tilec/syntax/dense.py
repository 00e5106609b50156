"""Dense element literals: MLIR's `dense<...>` body and cuda_tile's `<f32: [...]>`."""
from __future__ import annotations

import math
import re
import struct

from ..ir.attributes import DenseElementsAttr
from ..ir.floats import bit_width, storage_bytes
from ..ir.types import FloatType, IntegerType
from .reader import BodyError

_TOK = re.compile(r'\s*(\[|\]|,|"[^"]*"|[-+]?(?:0x[0-9A-Fa-f]+|\d+\.?\d*(?:[eE][-+]?\d+)?|inf|nan)|true|false)')


def _tokens(text):
    pos, out = 0, []
    text = text.rstrip()
    while pos < len(text):
        m = _TOK.match(text, pos)
        if not m:
            raise BodyError(f"unexpected '{text[pos:].strip()[:10]}' in dense literal", pos)
        out.append((m.group(1), m.start(1)))
        pos = m.end()
    return out


_LEAF = re.compile(r"[^\[\],\s]+")
_ELEMENT = re.compile(r'[-+]?(?:0x[0-9A-Fa-f]+|\d+\.?\d*(?:[eE][-+]?\d+)?|inf|nan)|true|false')
# what a signed float type always accepts: a decimal with a dot or an exponent, inf, nan
_PLAIN_FLOAT = re.compile(r"[-+]?(?:\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|inf|nan)")
_NO_SPACE = str.maketrans("", "", " \t\r\n\f\v")
_FAST: list = [None, None]   # the last body and its fast_structure


def _skeleton(shape) -> str:
    if not shape:
        return "x"
    return "[" + ",".join([_skeleton(shape[1:])] * shape[0]) + "]"


def fast_structure(body):
    """(shape, leaf token strings in row-major order) of a well-formed,
    regularly nested list literal, found with C-speed string operations (a few
    linear passes: every leaf becomes `x`, and the result must be exactly the
    skeleton of its shape); None for anything else (a scalar, an empty list,
    any syntax or nesting problem), which the token-by-token path then parses
    and reports at its offset."""
    if _FAST[0] is body or _FAST[0] == body:
        return _FAST[1]
    result = None
    if body[:1] == "[":
        marked = _LEAF.sub("x", body).translate(_NO_SPACE)
        depth = len(marked) - len(marked.lstrip("["))
        dims, inner = [], 1
        for m in range(1, depth + 1):   # the first run of m closing brackets ends the first list m levels up
            end = marked.find("]" * m)
            n = marked.count("x", 0, end) if end > 0 else 0
            if n == 0 or n % inner:
                dims = None
                break
            dims.insert(0, n // inner)
            inner = n
        if dims and marked == _skeleton(tuple(dims)):
            leaves = _LEAF.findall(body)
            if all(map(_ELEMENT.fullmatch, leaves)):
                result = tuple(dims), leaves
    _FAST[0], _FAST[1] = body, result
    return result


def _nested(toks):
    """Nested python lists of token strings; returns (value, shape)."""
    pos = 0

    def item():
        nonlocal pos
        if pos >= len(toks):
            raise BodyError("unexpected end of dense literal", 0)
        t, off = toks[pos]
        if t == "[":
            pos += 1
            elems = []
            if toks[pos][0] == "]":
                pos += 1
                return elems
            while True:
                elems.append(item())
                t2, off2 = toks[pos] if pos < len(toks) else ("", 0)
                pos += 1
                if t2 == "]":
                    return elems
                if t2 != ",":
                    raise BodyError("expected ',' or ']' in dense literal", off2)
        if t in ("]", ","):
            raise BodyError(f"unexpected '{t}' in dense literal", off)
        pos += 1
        return (t, off)

    v = item()
    if pos != len(toks):
        raise BodyError("unexpected trailing characters in dense literal", toks[pos][1])
    return v


def _shape_of(v):
    """The shape of a nested literal; every element of a list must have the same."""
    if not isinstance(v, list):
        return ()
    if not v:
        return (0,)
    shapes = [_shape_of(x) for x in v]
    if any(sh != shapes[0] for sh in shapes[1:]):
        raise BodyError("tensor literal is invalid; ranks are not consistent between elements", 0)
    return (len(v),) + shapes[0]


def _flatten(v, shape, out, depth=0):
    if depth == len(shape):
        if isinstance(v, list):
            raise BodyError("dense literal has inconsistent nesting", 0)
        out.append(v)
        return
    if not isinstance(v, list) or len(v) != shape[depth]:
        raise BodyError("dense literal has inconsistent shape", v[1] if isinstance(v, tuple) else 0)
    for x in v:
        _flatten(x, shape, out, depth + 1)


def convert_element(tok, off, elt):
    """A token string as a Python value of element type `elt`."""
    if isinstance(elt, IntegerType):
        w = elt.width
        if tok in ("true", "false"):
            if w != 1:
                raise BodyError("expected integer value", off)
            return 1 if tok == "true" else 0
        try:
            v = int(tok, 16) if tok.lower().lstrip("+-").startswith("0x") else int(tok)
        except ValueError:
            raise BodyError("expected integer elements, but parsed floating-point", off)
        if w == 1:
            if v not in (0, 1):
                raise BodyError("integer constant out of range for type", off)
            return v
        lo, hi = -(1 << (w - 1)), (1 << w) - 1
        if v < lo or v > hi:
            raise BodyError("integer constant out of range for type", off)
        if v >= 1 << (w - 1):
            v -= 1 << w  # stored as signed
        return v
    if isinstance(elt, FloatType):
        if tok in ("true", "false"):
            raise BodyError(f"expected floating-point elements, but parsed '{tok}'", off)
        if tok.lower().startswith("0x"):
            return float_from_bits(int(tok, 16), elt, off)
        if re.fullmatch(r"[-+]?\d+", tok):
            err = BodyError("unexpected decimal integer literal for a floating point value", off)
            err.notes = ("add a trailing dot to make the literal a float",)
            raise err
        name = elt.name
        if name == "f64" and "n" not in tok:     # inf and nan (its sign) take the exact path
            return float(tok)     # Python's float() rounds a decimal correctly (ties to even)
        if name == "f32":
            v = _to_f32(tok)
            if v is not None:
                return v
        from ..ir.floats import FORMATS, round_to
        if tok.startswith("-") and FORMATS.get(elt.name, ("",) * 4)[3] == "unsigned" and \
                not re.fullmatch(r"-0*\.?0*(?:[eE][-+]?\d+)?", tok):
            raise BodyError(f"negative value cannot be represented by unsigned float type '{elt.name}'", off)
        try:
            return round_to(tok, elt)  # the literal's nearest value of the element type
        except (ValueError, ZeroDivisionError):
            raise BodyError(f"expected floating-point elements, but parsed '{tok}'", off)
    raise BodyError(f"unsupported element type '{elt.text()}'", off)


_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")


def _to_f32(tok):
    """The f32 nearest decimal `tok`, through the correctly rounded f64 `d`, or
    None where that could round twice (`d` exactly halfway between two f32
    values, or out of f32's range): then the exact path decides. Elsewhere it
    is exact: every f32 midpoint is an f64 value, so the decimal and `d` lie on
    the same side of each."""
    d = float(tok)
    try:
        r = _F32.unpack(_F32.pack(d))[0]
    except OverflowError:
        return None
    if r == d:
        return r
    if r != r or r in (math.inf, -math.inf):
        return None
    bits = _U32.unpack(_F32.pack(r))[0]
    step = 1 if abs(d) > abs(r) else -1
    if bits & 0x7FFFFFFF == 0 and step < 0:
        return r
    other = _F32.unpack(_U32.pack(bits + step))[0]
    return None if (r + other) / 2 == d else r


def float_from_bits(bits, elt, off=0):
    """The value of bit pattern `bits` of float type `elt`. tf32's pattern is
    its 19 bits (sign, 8 exponent, 10 mantissa), as MLIR's APFloat has it, not
    the f32 container it computes in."""
    w = bit_width(elt)
    if bits >> w:
        raise BodyError("hexadecimal float constant out of range for type", off)
    if elt.name == "tf32":
        return struct.unpack("<f", struct.pack("<I", bits << 13))[0]
    if elt.name == "f32":
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    if elt.name == "f64":
        return struct.unpack("<d", struct.pack("<Q", bits))[0]
    if elt.name == "f16":
        return struct.unpack("<e", struct.pack("<H", bits))[0]
    if elt.name == "bf16":
        return struct.unpack("<f", struct.pack("<I", bits << 16))[0]
    return _minifloat(bits, elt)


_MINI = {"f8E4M3FN": (4, 3, 7, True), "f8E5M2": (5, 2, 15, False), "f4E2M1FN": (2, 1, 1, True),
         "f8E8M0FNU": (8, 0, 127, False), "fnv8E5M3FNU": (5, 3, 15, True)}


def _minifloat(bits, elt):
    e_bits, m_bits, bias, finite = _MINI[elt.name]
    if elt.name == "f8E8M0FNU":
        return math.nan if bits == 0xFF else 2.0 ** (bits - bias)
    unsigned = elt.name == "fnv8E5M3FNU"   # no sign bit; all ones is nan
    sign = -1.0 if bits >> (e_bits + m_bits) & 1 and not unsigned else 1.0
    e = (bits >> m_bits) & ((1 << e_bits) - 1)
    m = bits & ((1 << m_bits) - 1)
    if not finite and e == (1 << e_bits) - 1:
        return sign * math.inf if m == 0 else math.nan
    if (elt.name == "f8E4M3FN" or unsigned) and e == (1 << e_bits) - 1 and m == 7:
        return math.nan
    if e == 0:
        return sign * m * 2.0 ** (1 - bias - m_bits)
    return sign * (1 + m / (1 << m_bits)) * 2.0 ** (e - bias)


def parse_elements(body: str, type_):
    """Parse an element list for a shaped `type_` -> DenseElementsAttr."""
    elt = getattr(type_, "element_type", type_)
    shape = tuple(getattr(type_, "shape", ()))
    body = body.strip()
    if body.startswith('"'):
        return _from_hex(body, type_, elt, shape)
    fast = fast_structure(body)
    if fast is not None:
        lit_shape, leaves = fast
        try:
            if lit_shape == shape:
                return _maybe_splat(type_, tuple([convert_element(t, 0, elt) for t in leaves]))
            # element errors come first, as in MLIR; checked without rounding, as no value is kept
            if not (isinstance(elt, FloatType) and _signed_float(elt) and all(map(_PLAIN_FLOAT.fullmatch, leaves))):
                for t in leaves:
                    convert_element(t, 0, elt)
        except BodyError:
            pass    # the token-by-token path below reports it at its offset
        else:
            raise BodyError(f"inferred shape of elements literal ([{', '.join(map(str, lit_shape))}]) does not "
                            f"match type ([{', '.join(map(str, shape))}])", 0)
    try:
        toks = _tokens(body)
    except BodyError as e:
        if isinstance(elt, IntegerType) and "unexpected" in e.message:
            raise BodyError("expected integer value", e.offset)
        raise
    if not toks:
        raise BodyError("expected dense literal", 0)
    v = _nested(toks)
    if not isinstance(v, list):
        return DenseElementsAttr(type_, (convert_element(v[0], v[1], elt),), True)
    leaves = []
    _leaves(v, leaves)
    lit_shape = _shape_of(v)
    if lit_shape != shape:
        for t, o in leaves:     # element errors come first, as in MLIR
            convert_element(t, o, elt)
        raise BodyError(f"inferred shape of elements literal ([{', '.join(map(str, lit_shape))}]) does not "
                        f"match type ([{', '.join(map(str, shape))}])", 0)
    converted = [convert_element(t, o, elt) for t, o in leaves]
    flat = []
    _flatten(v, shape, flat)  # checks the nesting; the row-major order is that of `leaves`
    return _maybe_splat(type_, tuple(converted))


def _signed_float(elt) -> bool:
    from ..ir.floats import FORMATS
    return FORMATS.get(elt.name, ("",) * 4)[3] != "unsigned"


def _leaves(v, out):
    if isinstance(v, list):
        for x in v:
            _leaves(x, out)
    else:
        out.append(v)


def _same_key(v):
    if isinstance(v, float):
        return "nan" if v != v else (v, math.copysign(1.0, v))
    return v


def _maybe_splat(type_, values):
    """MLIR stores (and prints) a dense literal whose elements are all the same
    bits as a splat."""
    if values and all(_same_key(x) == _same_key(values[0]) for x in values[1:]):
        return DenseElementsAttr(type_, values[:1], True)
    return DenseElementsAttr(type_, values, False)


def _from_hex(body, type_, elt, shape):
    hexs = body[1:-1]
    if not hexs.lower().startswith("0x"):
        raise BodyError("expected hex string", 0)
    raw = bytes.fromhex(hexs[2:])
    n = 1
    for d in shape:
        n *= d
    nbytes = storage_bytes(elt)
    if len(raw) == nbytes and n != 1:
        count, splat = 1, True
    elif len(raw) == nbytes * n:
        count, splat = n, False
    else:
        raise BodyError("elements hex data size is invalid for provided type", 0)
    vals = []
    for i in range(count):
        bits = int.from_bytes(raw[i * nbytes:(i + 1) * nbytes], "little")
        if isinstance(elt, FloatType):
            vals.append(float_from_bits(bits, elt))
        else:
            w = elt.width
            vals.append(bits - (1 << w) if w > 1 and bits >= 1 << (w - 1) else bits)
    return DenseElementsAttr(type_, tuple(vals), True) if splat else _maybe_splat(type_, tuple(vals))


def parse_dense(body: str, type_):
    return parse_elements(body, type_)
