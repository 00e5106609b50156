"""scf.for, scf.if, scf.while, scf.condition and scf.yield in MLIR's custom spelling:

    %r = scf.for %i = %lb to %ub step %s iter_args(%acc = %init) -> (T) { ... }
    %r = scf.if %cond -> (T) { ... } else { ... }
    %r = scf.while (%a = %init) : (T) -> U { ... scf.condition(%c) %u : U } do {
    ^bb0(%b: U):
      ... scf.yield %t : T
    }

An operand-less scf.yield ending a body is implicit: inserted when the text
leaves it out, not printed. Other dialects add checks of branch agreement
through BRANCH_CHECKS (nv_tileas checks pipeline iterators there)."""
from __future__ import annotations

from ...ir.core import Block
from ...ir.opdef import Constraint, Op, Operand, RegionDef, VarOperand, VarResult
from ...ir.traits import RecursiveMemoryEffects, SingleBlock, Terminator, has_parent
from ...ir.types import IndexType, IntegerType
from ...syntax.format import BuildError, Directive, directive, value_ref

YIELD = "scf.yield"
BRANCH_CHECKS: list = []  # fn(if_op, then_types, else_types) -> bool (emits its own diagnostic)


def _types(types):
    return ", ".join(t.text(True) for t in types)


def _arrow_types(types):
    return types[0].text(True) if len(types) == 1 else "(" + _types(types) + ")"


def _ensure_yield(region):
    from ...ir import registry
    if not region.blocks:
        region.add_block(Block())
    block = region.blocks[-1]
    last = block.last_op
    if last is None or not last.has_trait(Terminator):
        block.append(registry.OPS[YIELD].create())


def _omit_empty_yield(term):
    return term.name == YIELD and not term.operands and not term.attributes


_RESULTS_RULES = ('scf_results: "->" (type | "(" [type_list] ")")',)


def _result_types(c):
    if c is None:
        return []
    (inner,) = c
    if isinstance(inner, list):
        return list(inner)
    return [] if inner is None else [inner]


@directive("ScfFor")
class ScfFor(Directive):
    """Arguments: lowerBound, upperBound, step, initArgs, results, region."""
    rules = _RESULTS_RULES + ('scf_iter_args: "iter_args" "(" [scf_assign ("," scf_assign)*] ")" [scf_results]',
                              'scf_assign: VALUE_REF "=" VALUE_REF')

    def grammar(self, args):
        return 'VALUE_REF "=" VALUE_REF "to" VALUE_REF "step" VALUE_REF [scf_iter_args] [":" type] region'

    def parse(self, children, args, state):
        iv, lb, ub, step, iters, iv_type, region = children
        a_lb, a_ub, a_step, a_inits, a_results, a_region = args
        iv_type = iv_type if iv_type is not None else IndexType()
        for a, tok in ((a_lb, lb), (a_ub, ub), (a_step, step)):
            state.operands[a.name] = [value_ref(tok)]
            state.operand_types[a.name] = [iv_type]
        pairs, types = [], []
        if iters is not None:
            *assigns, res = iters
            pairs = [tuple(x) for x in assigns if x is not None]
            types = _result_types(res)
            if len(types) != len(pairs):
                raise BuildError("mismatch in number of loop-carried values and defined values", iv)
        state.operands[a_inits.name] = [value_ref(outer) for _, outer in pairs]
        state.operand_types[a_inits.name] = types
        state.result_types[a_results.name] = types
        state.regions[a_region.name] = region
        state.region_args[a_region.name] = [(iv, iv_type)] + [(inner, t) for (inner, _), t in zip(pairs, types)]

    def print(self, op, args, p):
        a_lb, a_ub, a_step, a_inits, a_results, a_region = args
        region = op.regions[a_region.field.index]
        block_args = region.blocks[0].arguments
        lb, ub, step = (a.field.__get__(op) for a in (a_lb, a_ub, a_step))
        text = (f" {p.value_name(block_args[0])} = {p.value_name(lb)} to {p.value_name(ub)} "
                f"step {p.value_name(step)}")
        inits = a_inits.field.__get__(op)
        if inits:
            text += " iter_args(" + ", ".join(f"{p.value_name(i)} = {p.value_name(o)}"
                                              for i, o in zip(block_args[1:], inits)) + ")"
            text += " -> (" + _types(v.type for v in inits) + ")"
        if not isinstance(block_args[0].type, IndexType):
            text += " : " + block_args[0].type.text(True)
        p.write(text + " ")
        p.print_region(region, entry_args=False, terminators=False, omit_terminator=_omit_empty_yield)
        return None


@directive("ScfIf")
class ScfIf(Directive):
    """Arguments: condition, results, thenRegion, elseRegion (scf_results comes with ScfFor's rules)."""

    def grammar(self, args):
        return 'VALUE_REF [scf_results] region ["else" region]'

    def parse(self, children, args, state):
        cond, res, then_r, else_r = children
        a_cond, a_results, a_then, a_else = args
        state.operands[a_cond.name] = [value_ref(cond)]
        state.operand_types[a_cond.name] = [IntegerType(1)]
        state.result_types[a_results.name] = _result_types(res)
        state.regions[a_then.name] = then_r
        if else_r is not None:
            state.regions[a_else.name] = else_r

    def print(self, op, args, p):
        a_cond, a_results, a_then, a_else = args
        text = " " + p.value_name(a_cond.field.__get__(op))
        if op.results:
            text += " -> (" + _types(r.type for r in op.results) + ")"
        p.write(text + " ")
        p.print_region(op.regions[0], entry_args=False, terminators=False, omit_terminator=_omit_empty_yield)
        if op.regions[1].blocks:
            p.write(" else ")
            p.print_region(op.regions[1], entry_args=False, terminators=False, omit_terminator=_omit_empty_yield)
        return None


class ForOp(Op):
    name = "scf.for"
    traits = (SingleBlock, RecursiveMemoryEffects)
    lowerBound = Operand()
    upperBound = Operand()
    step = Operand()
    initArgs = VarOperand()
    results = VarResult()
    region = RegionDef()
    assembly_format = "custom<ScfFor>($lowerBound, $upperBound, $step, $initArgs, $results, $region) attr-dict"

    @classmethod
    def after_parse(cls, op, state):
        _ensure_yield(op.regions[0])

    def verify_op(self):
        ivt = self.lowerBound.type
        if not isinstance(ivt, (IndexType, IntegerType)) or self.upperBound.type != ivt or self.step.type != ivt:
            self.emit_error("expects lower bound, upper bound and step of one integer or index type")
            return False
        block = self.region.blocks[0] if self.region.blocks else None
        inits = [v.type for v in self.initArgs]
        if block is None or [a.type for a in block.arguments] != [ivt] + inits:
            self.emit_error("expects the body to take the induction variable and one argument per iter_arg")
            return False
        if [r.type for r in self.results] != inits:
            self.emit_error("expects one result per iter_arg, of its type")
            return False
        term = block.last_op
        if term is None or term.name != YIELD or [v.type for v in term.operands] != inits:
            self.emit_error("expects the body to yield one value per iter_arg, of its type")
            return False
        return True


class IfOp(Op):
    name = "scf.if"
    traits = (RecursiveMemoryEffects,)
    condition = Operand()
    results = VarResult()
    thenRegion = RegionDef()
    elseRegion = RegionDef()
    assembly_format = "custom<ScfIf>($condition, $results, $thenRegion, $elseRegion) attr-dict"

    @classmethod
    def after_parse(cls, op, state):
        _ensure_yield(op.regions[0])
        if op.regions[1].blocks or op.results:
            _ensure_yield(op.regions[1])

    def verify_op(self):
        if self.condition.type != IntegerType(1):
            self.emit_error(f"operand #0 must be 1-bit signless integer, but got '{self.condition.type.text()}'")
            return False
        want = [r.type for r in self.results]
        if want and not self.elseRegion.blocks:
            self.emit_error("must have an else block if defining values")
            return False
        arms = []
        for r in (self.thenRegion, self.elseRegion):
            if not r.blocks:
                continue
            term = r.blocks[-1].last_op
            arms.append([v.type for v in term.operands] if term is not None and term.name == YIELD else None)
        if len(arms) == 2 and arms[0] is not None and arms[1] is not None:
            for check in BRANCH_CHECKS:
                if not check(self, arms[0], arms[1]):
                    return False
        for got in arms:
            if got is None or got != want:
                self.emit_error("expects each region to yield the op's result types")
                return False
        return True


@directive("ScfWhile")
class ScfWhile(Directive):
    """Arguments: inits, results, before, after. `(%a = %x, ...)` names the
    before region's arguments (left out when there are none); the after
    region writes its own `^bb0(...)` header."""
    rules = ('scf_while_inits: "(" scf_assign ("," scf_assign)* ")"',)

    def grammar(self, args):
        return '[scf_while_inits] ":" function_type region "do" region'

    def parse(self, children, args, state):
        inits, fn, before, after = children
        a_inits, a_results, a_before, a_after = args
        pairs = [tuple(x) for x in (inits or []) if x is not None]
        if len(fn.inputs) != len(pairs):
            where = pairs[0][0] if pairs else None
            raise BuildError(f"expected as many input types as operands (expected {len(pairs)} got "
                             f"{len(fn.inputs)})", where)
        state.operands[a_inits.name] = [value_ref(outer) for _, outer in pairs]
        state.operand_types[a_inits.name] = list(fn.inputs)
        state.result_types[a_results.name] = list(fn.results)
        state.regions[a_before.name] = before
        state.regions[a_after.name] = after
        if pairs:
            state.region_args[a_before.name] = [(inner, t) for (inner, _), t in zip(pairs, fn.inputs)]

    def print(self, op, args, p):
        a_inits, a_results, a_before, a_after = args
        before = op.regions[a_before.field.index]
        inits = a_inits.field.__get__(op)
        text = ""
        if before.blocks and before.blocks[0].arguments:
            text += " (" + ", ".join(f"{p.value_name(i)} = {p.value_name(o)}"
                                     for i, o in zip(before.blocks[0].arguments, inits)) + ")"
        outs = [r.type for r in op.results]   # full spellings, as the regions' arguments print
        text += " : (" + ", ".join(v.type.text() for v in inits) + ") -> "
        text += (outs[0].text() if len(outs) == 1 and not _is_function(outs[0]) else
                 "(" + ", ".join(t.text() for t in outs) + ")")
        p.write(text + " ")
        p.print_region(before, entry_args=False)
        p.write(" do ")
        p.print_region(op.regions[a_after.field.index], entry_args=True)
        return None


def _is_function(t) -> bool:
    return type(t).__name__ == "FunctionType"


def _region_edge(op, source, target, got, want) -> bool:
    """MLIR's RegionBranchOpInterface check of one control-flow edge."""
    if len(got) != len(want):
        op.emit_error(f" region control flow edge from {source} to {target}: source has {len(got)} operands, "
                      f"but target successor needs {len(want)}")
        return False
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            op.emit_error(f" along control flow edge from {source} to {target}: source type #{i} "
                          f"'{g.text()}' should match input type #{i} '{w.text()}'")
            return False
    return True


class WhileOp(Op):
    """The before region runs first and ends with scf.condition(%c) %args:
    true runs the after region on %args, whose scf.yield feeds the before
    region again; false ends the loop with %args as the results."""
    name = "scf.while"
    traits = (RecursiveMemoryEffects,)
    inits = VarOperand()
    results = VarResult()
    before = RegionDef()
    after = RegionDef()
    assembly_format = "custom<ScfWhile>($inits, $results, $before, $after) attr-dict-with-keyword"

    def verify_op(self):
        for i, (r, what) in enumerate(((self.before, "before"), (self.after, "after"))):
            if len(r.blocks) != 1:
                self.emit_error(f"region #{i} ('{what}') failed to verify constraint: region with 1 blocks")
                return False
        before, after = self.before.blocks[0], self.after.blocks[0]
        cond = before.last_op
        if not _terminated_by(self, before, CONDITION, "expects the 'before' region to terminate with "
                                                       "'scf.condition'"):
            return False
        if not _terminated_by(self, after, YIELD, "expects the 'after' region to terminate with 'scf.yield'"):
            return False
        passed = [v.type for v in cond.operands[1:]]
        yielded = [v.type for v in after.last_op.operands]
        return (_region_edge(self, "parent operands", "Region #0", [v.type for v in self.inits],
                             [a.type for a in before.arguments])
                and _region_edge(self, "Region #0", "parent results", passed, [r.type for r in self.results])
                and _region_edge(self, "Region #0", "Region #1", passed, [a.type for a in after.arguments])
                and _region_edge(self, "Region #1", "Region #0", yielded, [a.type for a in before.arguments]))


CONDITION = "scf.condition"


def _terminated_by(op, block, name, message) -> bool:
    term = block.last_op
    if term is not None and term.name == name:
        return True
    d = op.emit_error(message)
    if term is not None and term.has_trait(Terminator):
        d.attach_note("terminator here", term.location)
    return False


class ConditionOp(Op):
    """Ends scf.while's before region: continue with (or exit on) %args."""
    name = CONDITION
    traits = (Terminator, has_parent("scf.while"))
    condition = Operand(Constraint("1-bit signless integer", lambda t: t == IntegerType(1), IntegerType(1)))
    args = VarOperand()
    assembly_format = "`` `(` $condition `)` attr-dict ($args^ `:` type($args))?"


class YieldOp(Op):
    name = YIELD
    traits = (Terminator, has_parent("scf.for", "scf.if", "scf.while"))
    results_ = VarOperand()
    assembly_format = "attr-dict ($results_^ `:` type($results_))?"
