"""Declarative op definitions: one class per op declares its operands, results,
attributes, regions, traits and assembly format; building, generic verification
and (in tilec.syntax) parsing and printing are derived from that declaration."""
from __future__ import annotations

from .attributes import Attribute, DenseArrayAttr
from .core import Operation, Region
from .diagnostics import current_engine
from .location import UNKNOWN
from .registry import register_op
from .types import IntegerType, Type

SINGLE, OPTIONAL, VARIADIC = "single", "optional", "variadic"
SEGMENTS = "operandSegmentSizes"
RESULT_SEGMENTS = "resultSegmentSizes"


class Constraint:
    """A type predicate with the description ODS-style diagnostics print.
    `buildable` is the one type it admits, if it admits one (ODS's buildable
    type): a custom form may then leave that operand's type unwritten."""

    def __init__(self, description: str, check, buildable=None):
        self.description, self.check, self.buildable = description, check, buildable

    def __call__(self, t: Type) -> bool:
        return self.check(t)

    def __or__(self, other: "Constraint") -> "Constraint":
        return Constraint(f"{self.description} or {other.description}",
                          lambda t: self.check(t) or other.check(t))


ANY_TYPE = Constraint("any type", lambda t: True)


class _Field:
    def __set_name__(self, owner, name):
        self.name = name


class OperandDef(_Field):
    def __init__(self, constraint: Constraint = ANY_TYPE, kind: str = SINGLE):
        self.constraint, self.kind = constraint, kind

    def __get__(self, op, owner=None):
        if op is None:
            return self
        uses = op._operands
        if op._all_single and len(uses) == len(op.operand_defs):  # operand_groups' common case
            return uses[self.index].value
        return op.operand_groups()[self.index]


class ResultDef(_Field):
    def __init__(self, constraint: Constraint = ANY_TYPE, kind: str = SINGLE):
        self.constraint, self.kind = constraint, kind

    def __get__(self, op, owner=None):
        if op is None:
            return self
        if not op._results_variable and len(op.results) == len(op.result_defs):  # result_groups' common case
            return op.results[self.index]
        return op.result_groups()[self.index]


class AttrDef(_Field):
    """An inherent attribute. `kind` is the Attribute subclass (or a tuple of
    them) the value must be; `default` is used when absent and never printed."""

    def __init__(self, kind=Attribute, optional: bool = False, default=None, unit: bool = False, syntax=None):
        self.kind, self.optional, self.default, self.unit = kind, optional or default is not None or unit, default, unit
        self.syntax = syntax  # how a custom form writes it, when not the kind's own spelling

    def __get__(self, op, owner=None):
        if op is None:
            return self
        return op.attributes.get(self.name, self.default)


class RegionDef(_Field):
    def __init__(self, kind: str = SINGLE):
        self.kind = kind

    def __get__(self, op, owner=None):
        if op is None:
            return self
        if self.kind == VARIADIC:
            return op.regions[self.index:]
        return op.regions[self.index] if self.index < len(op.regions) else None


def Operand(constraint=ANY_TYPE):
    return OperandDef(constraint, SINGLE)


def OptOperand(constraint=ANY_TYPE):
    return OperandDef(constraint, OPTIONAL)


def VarOperand(constraint=ANY_TYPE):
    return OperandDef(constraint, VARIADIC)


def Result(constraint=ANY_TYPE):
    return ResultDef(constraint, SINGLE)


def OptResult(constraint=ANY_TYPE):
    return ResultDef(constraint, OPTIONAL)


def VarResult(constraint=ANY_TYPE):
    return ResultDef(constraint, VARIADIC)


def _summary(d) -> str:
    """A declared operand's/result's constraint as ODS words it (Variadic<T>
    reads "variadic of T")."""
    return ("variadic of " if d.kind == VARIADIC else "") + d.constraint.description


def _segments(groups_defs, sizes_attr, total, what):
    """Split `total` flat entries into per-definition groups."""
    if sizes_attr is not None:
        return list(sizes_attr.values)
    non_single = [d for d in groups_defs if d.kind != SINGLE]
    fixed = len(groups_defs) - len(non_single)
    sizes = []
    rest = total - fixed
    for d in groups_defs:
        if d.kind == SINGLE:
            sizes.append(1)
        else:
            sizes.append(max(rest, 0) if d is non_single[0] else 0)
    return sizes


def _split(flat, sizes):
    out, pos = [], 0
    for s in sizes:
        out.append(flat[pos:pos + s])
        pos += s
    return out


_OWN_FIELDS: dict = {}  # class -> its own (name, _Field) pairs: each base is scanned once, not per subclass


def _own_fields(klass) -> list:
    own = _OWN_FIELDS.get(klass)
    if own is None:
        own = _OWN_FIELDS[klass] = [(k, v) for k, v in vars(klass).items() if isinstance(v, _Field)]
    return own


class Op(Operation):
    """Base of every registered op. Subclasses set `name`, `traits`, field
    declarations and optionally `assembly_format` and `verify_op`."""

    name = ""
    traits: tuple = ()
    assembly_format: str | None = None
    summary = ""
    operand_defs: tuple = ()
    result_defs: tuple = ()
    attr_defs: tuple = ()
    region_defs: tuple = ()

    def __init_subclass__(cls, register: bool = True, **kw):
        super().__init_subclass__(**kw)
        fields = {}
        for klass in reversed(cls.__mro__):
            for k, v in _own_fields(klass):
                fields[k] = v
        cls.operand_defs = tuple(v for v in fields.values() if isinstance(v, OperandDef))
        cls.result_defs = tuple(v for v in fields.values() if isinstance(v, ResultDef))
        cls.attr_defs = tuple(v for v in fields.values() if isinstance(v, AttrDef))
        cls.region_defs = tuple(v for v in fields.values() if isinstance(v, RegionDef))
        for group in (cls.operand_defs, cls.result_defs, cls.region_defs):
            for i, d in enumerate(group):
                d.index = i
        cls.attr_names = frozenset(a.name for a in cls.attr_defs)
        all_traits = set()
        for t in cls.traits:
            all_traits.update(t.__mro__)
        cls.traits_all = frozenset(all_traits)
        cls._segmented = sum(d.kind != SINGLE for d in cls.operand_defs) > 1
        cls._all_single = all(d.kind == SINGLE for d in cls.operand_defs)
        cls._result_segmented = sum(d.kind != SINGLE for d in cls.result_defs) > 1
        # the declaration's counts, once per class: verify_structure runs per op
        ods, rds = cls.operand_defs, cls.result_defs
        cls._n_single_operands = sum(d.kind == SINGLE for d in ods)
        cls._operands_variadic = any(d.kind == VARIADIC for d in ods)
        cls._operands_optional = any(d.kind == OPTIONAL for d in ods)
        cls._n_single_results = sum(d.kind == SINGLE for d in rds)
        cls._results_variable = any(d.kind != SINGLE for d in rds)
        cls._n_fixed_regions = sum(d.kind != VARIADIC for d in cls.region_defs)
        cls._regions_variadic = any(d.kind == VARIADIC for d in cls.region_defs)
        if cls.name and register:
            register_op(cls)

    # -- structured access ------------------------------------------------
    def operand_groups(self) -> list:
        defs = self.operand_defs
        if self._all_single and len(self._operands) == len(defs):
            return [u.value for u in self._operands]
        sizes = _segments(defs, self.attributes.get(SEGMENTS) if self._segmented else None,
                          len(self._operands), "operand")
        groups = _split(self.operands, sizes)
        return [g[0] if d.kind == SINGLE and g else (g[0] if g else None) if d.kind == OPTIONAL
                else g for d, g in zip(defs, groups)]

    def result_groups(self) -> list:
        defs = self.result_defs
        if not self._results_variable and len(self.results) == len(defs):
            return list(self.results)
        sizes = _segments(defs, self.attributes.get(RESULT_SEGMENTS) if self._result_segmented else None,
                          len(self.results), "result")
        groups = _split(self.results, sizes)
        return [g[0] if d.kind == SINGLE and g else (g[0] if g else None) if d.kind == OPTIONAL
                else g for d, g in zip(defs, groups)]

    @classmethod
    def create(cls, *, location=UNKNOWN, result_types=None, regions=None, attributes=None, **fields):
        """Build from named fields: operands by their declared names (a Value, a
        list for variadic, None for an absent optional), attributes by name,
        result types by the result's name or as `result_types`."""
        flat, sizes = [], []
        for d in cls.operand_defs:
            v = fields.pop(d.name, None if d.kind != VARIADIC else [])
            vals = list(v) if d.kind == VARIADIC else ([] if v is None else [v])
            flat.extend(vals)
            sizes.append(len(vals))
        attrs = dict(attributes or {})
        for d in cls.attr_defs:
            if d.name in fields:
                v = fields.pop(d.name)
                if v is not None and v is not False:
                    attrs[d.name] = v
        if cls._segmented:
            attrs[SEGMENTS] = DenseArrayAttr(IntegerType(32), tuple(sizes))
        if result_types is None:
            result_types, rsizes = [], []
            for d in cls.result_defs:
                v = fields.pop(d.name, None if d.kind != VARIADIC else [])
                ts = list(v) if d.kind == VARIADIC else ([] if v is None else [v])
                result_types.extend(ts)
                rsizes.append(len(ts))
            if cls._result_segmented:
                attrs[RESULT_SEGMENTS] = DenseArrayAttr(IntegerType(32), tuple(rsizes))
        if fields:
            raise TypeError(f"{cls.name}: unknown fields {sorted(fields)}")
        if regions is None:
            regions = [Region() for d in cls.region_defs if d.kind != VARIADIC]
        return cls(flat, result_types, attrs, regions, location)

    # -- diagnostics ------------------------------------------------------
    def emit_error(self, message: str):
        return current_engine().error(self.location, f"'{self.name}' op {message}")

    def emit_warning(self, message: str):
        return current_engine().warning(self.location, f"'{self.name}' op {message}")

    def emit_remark(self, message: str):
        return current_engine().remark(self.location, f"'{self.name}' op {message}")

    # -- verification -----------------------------------------------------
    def verify_structure(self) -> bool:
        """ODS-style checks of the declaration: counts, type constraints,
        required attributes, region counts."""
        if self._segmented:
            seg = self.attributes.get(SEGMENTS)
            if not isinstance(seg, DenseArrayAttr) or len(seg.values) != len(self.operand_defs):
                self.emit_error(f"operand count ({len(self._operands)}) does not match with the total "
                                f"size (0) specified in attribute '{SEGMENTS}'" if seg is None else
                                f"'{SEGMENTS}' attribute for specifying operand segments must have "
                                f"{len(self.operand_defs)} elements, but got {len(seg.values)}")
                return False
            if sum(seg.values) != len(self._operands):
                self.emit_error(f"operand count ({len(self._operands)}) does not match with the total "
                                f"size ({sum(seg.values)}) specified in attribute '{SEGMENTS}'")
                return False
        else:
            n_single = self._n_single_operands
            has_var, has_opt = self._operands_variadic, self._operands_optional
            n = len(self._operands)
            if (not has_var and not has_opt and n != n_single) or n < n_single or (
                    has_opt and not has_var and n > n_single + 1):
                word = "operand" if n_single == 1 else "operands"
                self.emit_error(f"expected {n_single} {word}, but found {n}" if not (has_var or has_opt)
                                else f"expected {n_single} or more operands, but found {n}")
                return False
        if not self._check_groups(self.operand_defs, self.operand_groups(), "operand"):
            return False
        n_single = self._n_single_results
        has_var = self._results_variable
        if (not has_var and len(self.results) != n_single) or len(self.results) < n_single:
            word = "result" if n_single == 1 else "results"
            self.emit_error(f"requires {'one' if n_single == 1 else n_single} {word}" if n_single
                            else f"requires zero results")
            return False
        if not self._check_groups(self.result_defs, self.result_groups(), "result"):
            return False
        for d in self.attr_defs:
            v = self.attributes.get(d.name)
            if v is None:
                if not d.optional:
                    self.emit_error(f"requires attribute '{d.name}'")
                    return False
            elif not isinstance(v, d.kind):
                kinds = d.kind if isinstance(d.kind, tuple) else (d.kind,)
                self.emit_error(f"attribute '{d.name}' failed to satisfy constraint: "
                                f"{getattr(kinds[0], 'description', kinds[0].__name__)}")
                return False
        n_fixed = self._n_fixed_regions
        if len(self.regions) != n_fixed and not self._regions_variadic:
            self.emit_error(f"requires {n_fixed} regions" if n_fixed != 1 else "requires one region")
            return False
        return True

    def _check_groups(self, defs, groups, what: str) -> bool:
        """Each value of each operand/result group satisfies its definition's
        constraint; the first that does not is reported by its flat index."""
        idx = 0
        for d, g in zip(defs, groups):
            vals = g if isinstance(g, list) else ([] if g is None else [g])
            for v in vals:
                if not d.constraint.check(v.type):
                    self.emit_error(f"{what} #{idx} must be {_summary(d)}, but got '{v.type.text()}'")
                    return False
                idx += 1
        return True

    def verify_op(self) -> bool:
        """The op's own checks, after the traits; emit errors and return False."""
        return True
