"""Canonicalizations of cuda_tile.select and cuda_tile.assume.

select:
  select-fold        select c, x, x -> x;  select true/false, x, y -> x/y;
                     select c, true, false -> c (i1);
                     select (cmpi eq a, b), a, b -> b   (ne: -> a);
                     select (not p), a, b -> select p, b, a;
                     select p, (select p, a, _), c -> select p, a, c (and
                     the mirrored false arm)
  select-i1-not      select p, false, true -> xori p, true
  select-consts      constant condition and arms -> one constant
  select-to-exti     select p, 1, 0 -> exti p unsigned;
                     select p, 0, 1 -> exti (not p) unsigned
assume:
  assume-dedup       assume P, (assume P, x) -> assume P, x
"""
from __future__ import annotations

from ...dialects.cuda_tile.attributes import SignednessAttr
from ...ir.attributes import DenseElementsAttr
from ...ir.types import FloatType, IntegerType
from ...rewrite.pattern import RewritePattern
from ._util import op_cls
from .cuda_tile_util import I1, const_bool, defining, dense_of, is_not_of, make_not, uniform_int

SELECT = "cuda_tile.select"


class SelectFold(RewritePattern):
    root, benefit, name = SELECT, 3, "select-fold"

    def match_and_rewrite(self, op, rw):
        c, t, f = op.cond, op.val_if_true, op.val_if_false
        if t is f:
            rw.replace_op(op, [t])
            return True
        b = const_bool(c)
        if b is not None:
            rw.replace_op(op, [t if b else f])
            return True
        if op.result.type.element_type == I1 and const_bool(t) is True and const_bool(f) is False \
                and c.type == op.result.type:
            rw.replace_op(op, [c])
            return True
        cmp = defining(c, "cuda_tile.cmpi")
        if cmp is not None:
            pred = cmp.attributes["comparison_predicate"].value
            if pred in ("equal", "not_equal") and ((cmp.lhs is t and cmp.rhs is f) or
                                                  (cmp.lhs is f and cmp.rhs is t)):
                rw.replace_op(op, [t if pred == "not_equal" else f])
                return True
        p = is_not_of(c)
        if p is not None:
            with rw.modify_in_place(op):
                op.set_operand(0, p)
                op.set_operand(1, f)
                op.set_operand(2, t)
            return True
        inner = defining(t, SELECT)
        if inner is not None and inner.cond is c:
            with rw.modify_in_place(op):
                op.set_operand(1, inner.val_if_true)
            return True
        inner = defining(f, SELECT)
        if inner is not None and inner.cond is c:
            with rw.modify_in_place(op):
                op.set_operand(2, inner.val_if_false)
            return True
        return False


class SelectI1ToNot(RewritePattern):
    root, name = SELECT, "select-i1-not"

    def match_and_rewrite(self, op, rw):
        if const_bool(op.val_if_true) is not False or const_bool(op.val_if_false) is not True:
            return False
        if op.cond.type != op.result.type:
            return False
        rw.replace_op(op, [make_not(rw, op.cond, op.location, op.val_if_false)])
        return True


class SelectConsts(RewritePattern):
    root, name = SELECT, "select-consts"

    def match_and_rewrite(self, op, rw):
        c, t, f = (dense_of(v) for v in (op.cond, op.val_if_true, op.val_if_false))
        if c is None or t is None or f is None:
            return False
        rt = op.result.type
        if not isinstance(rt.element_type, (IntegerType, FloatType)):
            return False
        n = rt.num_elements

        def flat(a):
            return list(a.values) * n if a.splat or len(a.values) == 1 else list(a.values)
        cv, tv, fv = flat(c), flat(t), flat(f)
        if not (len(cv) == len(tv) == len(fv) == n):
            return False
        out = tuple(x if k else y for k, x, y in zip(cv, tv, fv))
        new = rw.create(op_cls("cuda_tile.constant"), value=DenseElementsAttr(rt, out, n == 1), result=rt,
                        location=op.location)
        rw.replace_op(op, [new.result])
        return True


class SelectToExtI(RewritePattern):
    root, name = SELECT, "select-to-exti"

    def match_and_rewrite(self, op, rw):
        rt = op.result.type
        if not isinstance(rt.element_type, IntegerType) or rt.element_type == I1:
            return False
        a, b = uniform_int(op.val_if_true), uniform_int(op.val_if_false)
        if (a, b) == (1, 0):
            src = op.cond
        elif (a, b) == (0, 1):
            src = make_not(rw, op.cond, op.location)
        else:
            return False
        ext = rw.create(op_cls("cuda_tile.exti"), from_=src, signedness=SignednessAttr("unsigned"), to=rt,
                        location=op.location)
        rw.replace_op(op, [ext.result])
        return True


class AssumeDedup(RewritePattern):
    root, name = "cuda_tile.assume", "assume-dedup"

    def match_and_rewrite(self, op, rw):
        prev = defining(op.value, "cuda_tile.assume")
        if prev is None or prev.attributes.get("predicate") != op.attributes.get("predicate"):
            return False
        rw.replace_op(op, [prev.result])
        return True


SELECT_PATTERNS = [SelectFold(), SelectI1ToNot(), SelectConsts(), SelectToExtI(), AssumeDedup()]
