"""loop-split: split a cuda_tile.for at the iteration where an `if` condition
`iv <pred> x` (x loop-invariant, pred one of <, <=, >, >=, with the loop's
signedness) changes value, so that neither half evaluates the branch.

    for iv in (lb to ub, step s) { c = cmpi pred iv, x; if c {A} else {B} ... }
 ->
    p  = first iteration value where the condition holds (ge/lt) or stops
         holding (gt/le: x + 1), rounded up to lb + k*s when s is not 1
    for iv in (lb to mini(p, ub), step s)        { ... the branch taken before p ... }
    for iv in (maxi(p, lb) to ub, step s) iter(first's results) { ... the other branch ... }

Ifs directly in the loop body that test the comparison are replaced by the
body of the branch each half takes (a `continue` in it ends that body copy);
any other use of the comparison (a nested if, another op) sees a constant
true/false instead, so the comparison op is dropped only when nothing else
uses it.

Which ifs may trigger a split: the `cuda_tile.loop_split` integer hint on the
if, else on the for, else on the function, else the pass option
`split-threshold` (default 1), is a threshold: 0 (or less) disables; 1
splits whenever the rest applies; N > 1 requires some if on the comparison
to have N or more ops in one branch, or an expensive op (loads, stores,
mma, reduce, a nested if or for). Loops are visited innermost first and each
one is split at most once per run."""
from __future__ import annotations

from ..ir.attributes import DenseElementsAttr, IntegerAttr
from ..ir.core import Block
from ..passes.base import Pass, target_blocks
from ..rewrite.clone import clone_op
from ..rewrite.driver import _post_order
from ..rewrite.rewriter import PatternRewriter
from .canonicalize._util import defined_outside, op_cls
from .canonicalize.cuda_tile_util import I1, defining, else_block, is_exit, is_yield, then_block, tile_type, \
    uniform_int

FOR, IF = "cuda_tile.for", "cuda_tile.if"
HINT = "cuda_tile.loop_split"
_FLIP = {"less_than": "greater_than", "less_than_or_equal": "greater_than_or_equal",
         "greater_than": "less_than", "greater_than_or_equal": "less_than_or_equal"}
_HEAVY = {"cuda_tile.load_ptr_tko", "cuda_tile.load_view_tko", "cuda_tile.store_ptr_tko",
          "cuda_tile.store_view_tko", "cuda_tile.mmaf", "cuda_tile.mmai", "cuda_tile.reduce", IF, FOR}


def _hint(op):
    a = op.attributes.get(HINT) if op is not None and hasattr(op, "attributes") else None
    return a.value if isinstance(a, IntegerAttr) else None


def _signedness(forop):
    return "unsigned" if "unsignedCmp" in forop.attributes else "signed"


def _branch_weight(block):
    if block is None:
        return 0, False
    return len(block) - 1, any(o.name in _HEAVY for o in block.ops)


def _profitable(ifop, threshold) -> bool:
    if threshold == 1:
        return True
    n_then, h_then = _branch_weight(then_block(ifop))
    n_else, h_else = _branch_weight(else_block(ifop))
    return n_then >= threshold or n_else >= threshold or h_then or h_else


def _max_of(t, signedness):
    w = t.element_type.width
    return ((1 << w) - 1, -1) if signedness == "unsigned" else ((1 << (w - 1)) - 1,)


class _Plan:
    __slots__ = ("cmp", "pred", "bound", "second_then", "split_ifs", "keep_cmp")


def _plan(forop, ifop, threshold):
    """The split an `if` asks for, or None when it does not qualify."""
    if threshold is None or threshold <= 0:
        return None
    cmp = defining(ifop.condition, "cuda_tile.cmpi")
    body = forop.regions[0].blocks[0]
    if cmp is None or cmp.parent is not body:
        return None
    if cmp.attributes["signedness"].value != _signedness(forop):
        return None
    iv = body.arguments[0]
    pred = cmp.attributes["comparison_predicate"].value
    if cmp.lhs is iv:
        bound = cmp.rhs
    elif cmp.rhs is iv:
        pred, bound = _FLIP.get(pred), cmp.lhs
    else:
        return None
    if pred not in _FLIP or not defined_outside(bound, forop):
        return None
    if pred in ("greater_than", "less_than_or_equal"):
        c = uniform_int(bound)        # x + 1 must not wrap
        if c is not None and c in _max_of(bound.type, _signedness(forop)):
            return None
    p = _Plan()
    p.cmp, p.pred, p.bound = cmp, pred, bound
    p.second_then = pred in ("greater_than", "greater_than_or_equal")
    p.split_ifs, p.keep_cmp = set(), False
    profitable = False
    for use in list(cmp.result._uses):
        user = use.owner
        if user.name == IF:
            profitable = profitable or _profitable(user, threshold)
            if user.parent is body:
                p.split_ifs.add(user)
                continue
        p.keep_cmp = True
    return p if profitable else None


def _create(rw, name, location, **fields):
    return rw.create(op_cls(name), location=location, **fields).result


def _copy_loop(rw, forop, plan, lower, upper, inits, take_then):
    """A copy of `forop` over [lower, upper) in which the split ifs keep only
    the branch `take_then` selects."""
    old = forop.regions[0].blocks[0]
    new = op_cls(FOR).create(lowerBound=lower, upperBound=upper, step=forop.step, initValues=list(inits),
                             unsignedCmp=forop.attributes.get("unsignedCmp"),
                             resultValues=[r.type for r in forop.results], location=forop.location)
    body = Block([a.type for a in old.arguments], [a.location for a in old.arguments])
    new.regions[0].add_block(body)
    mapping = dict(zip(old.arguments, body.arguments))
    for op in list(old.ops):
        if op is plan.cmp:
            if plan.keep_cmp:
                t = tile_type((), I1)
                c = op_cls("cuda_tile.constant").create(value=DenseElementsAttr(t, (1 if take_then else 0,), True),
                                                        result=t, location=op.location)
                body.append(c)
                mapping[op.result] = c.result
            continue
        if op not in plan.split_ifs:
            body.append(clone_op(op, mapping))
            continue
        branch = then_block(op) if take_then else else_block(op)
        left = False
        for sub in (branch.ops if branch is not None else ()):
            if is_yield(sub):
                for r, v in zip(op.results, sub.operands):
                    mapping[r] = mapping.get(v, v)
            elif is_exit(sub):
                body.append(clone_op(sub, mapping))
                left = True
                break
            else:
                body.append(clone_op(sub, mapping))
        if left:          # the branch ends the iteration: the rest of the body is not reached
            break
    return rw.insert(new)


def _split(forop, plan):
    from ..dialects.cuda_tile.attributes import RoundingModeAttr, SignednessAttr
    rw = PatternRewriter()
    rw.set_insertion_point_before(forop)
    loc = forop.location
    lb, ub, step = forop.lowerBound, forop.upperBound, forop.step
    sign = SignednessAttr(_signedness(forop))
    point = plan.bound
    if plan.pred in ("greater_than", "less_than_or_equal"):
        t = step.type
        one = _create(rw, "cuda_tile.constant", loc, value=DenseElementsAttr(t, (1,), True), result=t)
        point = _create(rw, "cuda_tile.addi", loc, lhs=point, rhs=one, result=t)
    if uniform_int(step) != 1:
        # round up to an iteration value: lb + ceil((point - lb) / step) * step
        diff = _create(rw, "cuda_tile.subi", loc, lhs=point, rhs=lb, result=lb.type)
        k = _create(rw, "cuda_tile.divi", loc, lhs=diff, rhs=step, signedness=sign,
                    rounding=RoundingModeAttr("positive_inf"), result=lb.type)
        kstep = _create(rw, "cuda_tile.muli", loc, lhs=k, rhs=step, result=lb.type)
        point = _create(rw, "cuda_tile.addi", loc, lhs=lb, rhs=kstep, result=lb.type)
    first_end = _create(rw, "cuda_tile.mini", loc, lhs=point, rhs=ub, signedness=sign, result=ub.type)
    second_start = _create(rw, "cuda_tile.maxi", loc, lhs=point, rhs=lb, signedness=sign, result=lb.type)
    first = _copy_loop(rw, forop, plan, lb, first_end, forop.initValues, not plan.second_then)
    second = _copy_loop(rw, forop, plan, second_start, ub, first.results, plan.second_then)
    rw.replace_op(forop, second.results)


class LoopSplit(Pass):
    name = "loop-split"
    argument = "LoopSplitPass"
    OPTIONS = {"split-threshold": (int, 1)}

    def run(self, target) -> bool:
        entry_hint = _hint(target)
        default = self.options["split-threshold"]
        loops = [op for op in _post_order(target_blocks(target)) if op.name == FOR]
        for forop in loops:
            if forop.parent is None or not forop.regions[0].blocks:
                continue
            for_hint = _hint(forop)
            for ifop in _post_order(forop.regions[0].blocks):
                if ifop.name != IF:
                    continue
                threshold = next((h for h in (_hint(ifop), for_hint, entry_hint) if h is not None), default)
                plan = _plan(forop, ifop, threshold)
                if plan is not None:
                    _split(forop, plan)
                    break
        return True
