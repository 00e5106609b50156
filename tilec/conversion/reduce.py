"""cuda_tile.reduce / cuda_tile.scan -> nv_tileas.reduce / nv_tileas.scan.

The cuda_tile combiner works on 0-d tiles; the nv_tileas one on scalars of the
element type, written with the arith dialect. A reduce or scan is lowered when
every op of its body has an exact scalar arith counterpart (the table below)
and reads only the body's arguments and earlier body results; otherwise it
stays cuda_tile, which the emitter consumes directly.

Argument order: cuda_tile interleaves the pairs, (lhs_0, rhs_0, lhs_1, rhs_1,
...); nv_tileas groups them, (lhs_0 .. lhs_n-1, rhs_0 .. rhs_n-1). `lhs` is
the element being combined (the lower half in a reduce round, the current
element in a scan step), `rhs` the accumulated one. The identities move to the
nv_tileas op's `identities` attribute; `dim` becomes an i64.

Counterparts (the cuda_tile op must not ask for more than arith expresses):
addf/subf/mulf/divf with rounding nearest_even and no flush_to_zero;
maxf/minf without flush_to_zero (maxnumf/minnumf, or maximumf/minimumf with
propagate_nan); negf; addi/subi/muli (overflow<...> as overflowFlags);
andi/ori/xori; maxi/mini (maxsi/maxui/minsi/minui); divi rounding toward zero
and remi (divsi/divui/remsi/remui); cmpf (predicate x ordering -> o*/u*); cmpi
(predicate x signedness -> eq/ne/s*/u*); select; 0-d constant."""
from __future__ import annotations

from ..dialects.arith import ops as arith
from ..dialects.nv_tileas.ops.compute import ReduceOp, ScanOp
from ..dialects.nv_tileas.ops.control import YieldOp as NvYieldOp
from ..ir import attributes as A
from ..ir.core import Block, Region
from ..ir.types import FloatType, IntegerType
from ..rewrite.pattern import RewritePattern


def _word(op, name, default=None):
    a = op.attributes.get(name)
    v = getattr(a, "value", None) if a is not None else None
    return v if isinstance(v, str) else default


def scalar_type(t):
    """The element type of a 0-d tile, or None."""
    if tuple(getattr(t, "shape", (1,))) != ():
        return None
    e = getattr(t, "element_type", None)
    return e if isinstance(e, (FloatType, IntegerType)) else None


_FLOAT_BINARY = {"cuda_tile.addf": arith.AddFOp, "cuda_tile.subf": arith.SubFOp,
                 "cuda_tile.mulf": arith.MulFOp, "cuda_tile.divf": arith.DivFOp}
_INT_OVERFLOW = {"cuda_tile.addi": arith.AddIOp, "cuda_tile.subi": arith.SubIOp, "cuda_tile.muli": arith.MulIOp}
_INT_BITWISE = {"cuda_tile.andi": arith.AndIOp, "cuda_tile.ori": arith.OrIOp, "cuda_tile.xori": arith.XOrIOp}
_INT_SIGNED = {("cuda_tile.maxi", True): arith.MaxSIOp, ("cuda_tile.maxi", False): arith.MaxUIOp,
               ("cuda_tile.mini", True): arith.MinSIOp, ("cuda_tile.mini", False): arith.MinUIOp,
               ("cuda_tile.divi", True): arith.DivSIOp, ("cuda_tile.divi", False): arith.DivUIOp,
               ("cuda_tile.remi", True): arith.RemSIOp, ("cuda_tile.remi", False): arith.RemUIOp}
_OVERFLOW_FLAGS = {"none": (), "no_signed_wrap": ("nsw",), "no_unsigned_wrap": ("nuw",),
                   "no_wrap": ("nsw", "nuw")}
_CMP_WORDS = {"equal": "eq", "not_equal": "ne", "less_than": "lt", "less_than_or_equal": "le",
              "greater_than": "gt", "greater_than_or_equal": "ge"}


def _cmpf_predicate(op):
    c = _CMP_WORDS.get(_word(op, "comparison_predicate"))
    order = _word(op, "comparison_ordering")
    if c is None or order not in ("ordered", "unordered"):
        return None
    name = ("o" if order == "ordered" else "u") + c
    return arith.CMPF_PREDICATES.index(name) if name in arith.CMPF_PREDICATES else None


def _cmpi_predicate(op):
    c = _CMP_WORDS.get(_word(op, "comparison_predicate"))
    if c is None:
        return None
    if c in ("eq", "ne"):
        return arith.CMPI_PREDICATES.index(c)
    sign = _word(op, "signedness")
    if sign not in ("signed", "unsigned"):
        return None
    return arith.CMPI_PREDICATES.index(sign[0] + c)


def _constant_attr(op, t):
    """A 0-d cuda_tile.constant's value as arith.constant's typed attribute."""
    v = op.attributes.get("value")
    values = getattr(v, "values", None)
    if not values or len(values) != 1:
        return None
    x = values[0]
    if isinstance(t, FloatType):
        return A.FloatAttr(float(x), t)
    if t == IntegerType(1):
        return A.BoolAttr(bool(x))
    return A.IntegerAttr(int(x), t)


def scalar_counterpart(op):
    """(arith op class, extra create fields) that computes `op` on scalars
    exactly as cuda_tile does on 0-d tiles, or None."""
    n = op.name
    if n in _FLOAT_BINARY:
        if _word(op, "rounding_mode", "nearest_even") != "nearest_even" or "flush_to_zero" in op.attributes:
            return None
        return _FLOAT_BINARY[n], {}
    if n in ("cuda_tile.maxf", "cuda_tile.minf"):
        if "flush_to_zero" in op.attributes:
            return None
        nan = "propagate_nan" in op.attributes
        if n == "cuda_tile.maxf":
            return (arith.MaximumFOp if nan else arith.MaxNumFOp), {}
        return (arith.MinimumFOp if nan else arith.MinNumFOp), {}
    if n == "cuda_tile.negf":
        return arith.NegFOp, {}
    if n in _INT_OVERFLOW:
        flags = _OVERFLOW_FLAGS.get(_word(op, "overflow", "none"))
        if flags is None:
            return None
        return _INT_OVERFLOW[n], ({"overflowFlags": arith.IntegerOverflowFlagsAttr(flags)} if flags else {})
    if n in _INT_BITWISE:
        return _INT_BITWISE[n], {}
    if n in ("cuda_tile.maxi", "cuda_tile.mini", "cuda_tile.divi", "cuda_tile.remi"):
        sign = _word(op, "signedness")
        if sign not in ("signed", "unsigned") or (n == "cuda_tile.divi" and _word(op, "rounding", "zero") != "zero"):
            return None
        return _INT_SIGNED[(n, sign == "signed")], {}
    if n == "cuda_tile.cmpf":
        p = _cmpf_predicate(op)
        return None if p is None else (arith.CmpFOp, {"predicate": A.IntegerAttr(p, IntegerType(64))})
    if n == "cuda_tile.cmpi":
        p = _cmpi_predicate(op)
        return None if p is None else (arith.CmpIOp, {"predicate": A.IntegerAttr(p, IntegerType(64))})
    if n == "cuda_tile.select":
        return arith.SelectOp, {}
    if n == "cuda_tile.constant":
        t = scalar_type(op.results[0].type)
        a = None if t is None else _constant_attr(op, t)
        return None if a is None else (arith.ConstantOp, {"value": a})
    return None


def _plan(op):
    """[(body op, (arith class, fields))] for a convertible combiner body, or None."""
    region = op.regions[0]
    if len(region.blocks) != 1:
        return None
    block = region.blocks[0]
    known = set(block.arguments)
    if any(scalar_type(a.type) is None for a in block.arguments):
        return None
    plan = []
    for inner in block.ops:
        if inner.regions or any(v not in known for v in inner.operands):
            return None
        if inner is block.last_op:
            return plan if inner.name == "cuda_tile.yield" else None
        if len(inner.results) != 1 or scalar_type(inner.results[0].type) is None:
            return None
        how = scalar_counterpart(inner)
        if how is None:
            return None
        plan.append((inner, how))
        known.add(inner.results[0])
    return None


def _operand_fields(cls, values):
    names = [d.name for d in cls.operand_defs]
    return dict(zip(names, values))


class LowerCombining(RewritePattern):
    """cuda_tile.reduce / scan -> nv_tileas.reduce / scan (see the module doc)."""

    def __init__(self, root):
        super().__init__(root=root)

    def match_and_rewrite(self, op, rw) -> bool:
        plan = _plan(op)
        if plan is None:
            return False
        old = op.regions[0].blocks[0]
        n = len(op.operands)
        elts = [v.type.element_type for v in op.operands]
        block = Block(elts + elts)
        vmap = {}
        for k in range(n):
            vmap[old.arguments[2 * k]] = block.arguments[k]
            vmap[old.arguments[2 * k + 1]] = block.arguments[n + k]
            block.arguments[k].name_hint = old.arguments[2 * k].name_hint
            block.arguments[n + k].name_hint = old.arguments[2 * k + 1].name_hint
        attrs = {"dim": A.IntegerAttr(op.attributes["dim"].value, IntegerType(64)),
                 "identities": op.attributes["identities"]}
        cls = ReduceOp if op.name == "cuda_tile.reduce" else ScanOp
        if cls is ScanOp and getattr(op.attributes.get("reverse"), "value", False):
            attrs["reverse"] = A.BoolAttr(True)
        new = rw.create(cls, location=op.location, operands_=list(op.operands),
                        results=[r.type for r in op.results], attributes=attrs, regions=[Region([block])])
        with rw.insertion_point():
            rw.set_insertion_point_to_end(block)
            for inner, (acls, fields) in plan:
                t = scalar_type(inner.results[0].type)
                made = rw.create(acls, location=inner.location, result=t,
                                 **_operand_fields(acls, [vmap[v] for v in inner.operands]), **fields)
                vmap[inner.results[0]] = made.results[0]
            term = old.last_op
            rw.create(NvYieldOp, location=term.location, values=[vmap[v] for v in term.operands])
        rw.replace_op(op, list(new.results))
        return True
