"""Canonicalizations of cuda_tile.if.

Unlike scf.if, a branch of cuda_tile.if may end in return/continue/break
(an "exit"): the code after the `if` then only runs when the other branch
was taken. Every pattern below accounts for that:

  if-not-condition     if (xori c, true) A else B      -> if c B else A
  if-unused-results    drop results nobody uses
  if-yield-value       a result both branches yield identically -> that
                       value; yields true/false -> the condition (or its not)
  if-static-condition  a constant condition -> the taken branch, inlined;
                       when that branch exits, the rest of the block goes
  if-to-select         results yielded from outside the branches become
                       selects (a branch that exits contributes nothing)
  if-empty-else        a result-less if's else that only yields goes away
  if-combine           two adjacent ifs on c / c (or c / not c) merge
  if-combine-nested    if a { if b { X } } -> if (andi a, b) { X }
  if-both-exit         both branches exit: the else body replaces the rest
                       of the block, the then body stays in a plain if
"""
from __future__ import annotations

from ...rewrite.pattern import RewritePattern
from ._util import op_cls
from .cuda_tile_util import (const_bool, else_block, erase_from, is_exit, is_not_of, is_tile, is_yield,
                             make_not, make_select, new_if, parent_region, set_yield, take_block, then_block)

IF = "cuda_tile.if"


def _terms(op):
    eb = else_block(op)
    return then_block(op).terminator, (eb.terminator if eb is not None else None)


def _inline_branch(rw, op, block) -> bool:
    """Replace `op` by the body of `block` (one of its branches)."""
    term = block.terminator
    if not is_yield(term) and not is_exit(term):
        return False
    values = list(term.operands) if is_yield(term) else []
    if is_yield(term) and len(values) != len(op.results):
        return False
    rw.inline_block_before(block, op)
    if is_yield(term):
        rw.replace_op(op, values)
        rw.erase_op(term)
        return True
    erase_from(rw, op)   # the branch left the enclosing block: the rest is dead
    return True


class IfNotCondition(RewritePattern):
    root, benefit, name = IF, 3, "if-not-condition"

    def match_and_rewrite(self, op, rw):
        if else_block(op) is None:
            return False
        c = is_not_of(op.condition)
        if c is None:
            return False
        tb, eb = then_block(op), else_block(op)
        with rw.modify_in_place(op):
            op.set_operand(0, c)
            r0, r1 = op.regions
            r0.blocks.remove(tb)
            r1.blocks.remove(eb)
            r0.add_block(eb)
            r1.add_block(tb)
        return True


class IfUnusedResults(RewritePattern):
    root, name = IF, "if-unused-results"

    def match_and_rewrite(self, op, rw):
        if not op.results:
            return False
        tt, et = _terms(op)
        if not is_yield(tt) and not is_yield(et):
            return False
        used = [r for r in op.results if r._uses]
        if len(used) == len(op.results):
            return False
        idx = [r.index for r in used]
        new = new_if(op.condition, [r.type for r in used], op.location)
        for term in (tt, et):
            if is_yield(term):
                ops = term.operands
                set_yield(rw, term, [ops[i] for i in idx])
        for src, dst in zip(op.regions, new.regions):
            for b in list(src.blocks):
                take_block(b, dst)
        rw.insert(new)
        rw.replace_op(op, [new.results[idx.index(r.index)] if r._uses else None for r in op.results])
        return True


class IfYieldValue(RewritePattern):
    root, name = IF, "if-yield-value"

    def match_and_rewrite(self, op, rw):
        if not op.results:
            return False
        tt, et = _terms(op)
        if not (is_yield(tt) and is_yield(et)):
            return False
        changed = False
        for t, f, r in zip(tt.operands, et.operands, op.results):
            if not r._uses:
                continue
            if t is f:
                rw.replace_all_uses_with(r, t)
                changed = True
                continue
            bt, bf = const_bool(t), const_bool(f)
            if bt is None or bf is None or bt == bf or r.type != op.condition.type:
                continue
            if bt:
                rw.replace_all_uses_with(r, op.condition)
            else:
                rw.replace_all_uses_with(r, make_not(rw, op.condition, op.location))
            changed = True
        return changed


class IfStaticCondition(RewritePattern):
    root, name = IF, "if-static-condition"

    def match_and_rewrite(self, op, rw):
        c = const_bool(op.condition)
        if c is None:
            return False
        if c:
            return _inline_branch(rw, op, then_block(op))
        eb = else_block(op)
        if eb is not None:
            return _inline_branch(rw, op, eb)
        if op.results:
            return False
        rw.erase_op(op)
        return True


class IfToSelect(RewritePattern):
    root, name = IF, "if-to-select"

    def match_and_rewrite(self, op, rw):
        if not op.results or not all(is_tile(r.type) for r in op.results):
            return False
        tt, et = _terms(op)
        ty, ey = is_yield(tt), is_yield(et)
        if not ty and not ey:
            return False
        tvals = list((tt if ty else et).operands)
        fvals = list((et if ey else tt).operands)
        treg = op.regions[0] if ty else op.regions[1]
        freg = op.regions[1] if ey else op.regions[0]
        if len(tvals) != len(op.results) or len(fvals) != len(op.results):
            return False
        keep = [i for i, (t, f) in enumerate(zip(tvals, fvals))
                if parent_region(t) is treg or parent_region(f) is freg]
        if len(keep) == len(op.results):
            return False
        cond = op.condition
        values = []
        for i, (t, f) in enumerate(zip(tvals, fvals)):
            if i in keep:
                values.append(None)
            elif t is f:
                values.append(t)
            else:
                values.append(make_select(rw, cond, t, f, op.location))
        new = new_if(cond, [op.results[i].type for i in keep], op.location)
        for term in (tt, et):
            if is_yield(term):
                ops = term.operands
                set_yield(rw, term, [ops[i] for i in keep])
        for src, dst in zip(op.regions, new.regions):
            for b in list(src.blocks):
                take_block(b, dst)
        rw.insert(new)
        for k, i in enumerate(keep):
            values[i] = new.results[k]
        rw.replace_op(op, values)
        return True


class IfEmptyElse(RewritePattern):
    root, name = IF, "if-empty-else"

    def match_and_rewrite(self, op, rw):
        eb = else_block(op)
        if op.results or eb is None or len(eb) != 1 or not is_yield(eb.terminator):
            return False
        rw.erase_op(eb.terminator)
        with rw.modify_in_place(op):
            op.regions[1].blocks.remove(eb)
        return True


def _merge_into(rw, dest, src):
    """Append block `src` to block `dest`: dest's yield and src's terminator
    combine (two yields -> one yield of both operand lists; a yield followed
    by an exit -> the exit)."""
    first = dest.terminator
    second = src.terminator
    for o in list(src.ops):
        src.remove(o)
        dest.append(o)
        rw.listener.notify_inserted(o)
    if is_yield(first):
        if is_yield(second):
            set_yield(rw, second, list(first.operands) + list(second.operands))
        rw.erase_op(first)


class IfCombine(RewritePattern):
    root, name = IF, "if-combine"

    def match_and_rewrite(self, nxt, rw):
        prev = nxt.prev_op
        if prev is None or prev.name != IF:
            return False
        n_then, n_else = then_block(nxt), else_block(nxt)
        if nxt.condition is prev.condition:
            logical_then, logical_else = n_then, n_else
        elif is_not_of(nxt.condition) is prev.condition or is_not_of(prev.condition) is nxt.condition:
            logical_then, logical_else = n_else, n_then
        else:
            return False
        p_then, p_else = then_block(prev), else_block(prev)
        if is_exit(p_then.terminator):
            logical_then = None
        if p_else is not None and is_exit(p_else.terminator):
            logical_else = None
        if logical_then is None and logical_else is None:
            return False
        # a branch that keeps yielding needs a yield (not another terminator) to merge with
        for pb, nb in ((p_then, logical_then), (p_else, logical_else)):
            if nb is None or pb is None:
                continue
            if not is_yield(pb.terminator) or nb.terminator is None:
                return False
        if logical_else is not None and p_else is None and prev.results:
            return False
        # inside the merged branches, prev's results are the values it yielded there
        for blk, pb in ((logical_then, p_then), (logical_else, p_else)):
            if blk is None:
                continue
            yielded = list(pb.terminator.operands) if pb is not None else []
            region = blk.parent
            for i, r in enumerate(prev.results):
                for u in list(r._uses):
                    if _inside(u.owner, region):
                        with rw.modify_in_place(u.owner):
                            u.set(yielded[i])
        combined = new_if(prev.condition, [r.type for r in prev.results] + [r.type for r in nxt.results],
                          nxt.location)
        ct, ce = combined.regions
        take_block(p_then, ct)
        if logical_then is not None:
            _merge_into(rw, p_then, logical_then)
        if p_else is not None:
            take_block(p_else, ce)
            if logical_else is not None:
                _merge_into(rw, p_else, logical_else)
        elif logical_else is not None:
            take_block(logical_else, ce)
        rw.set_insertion_point_before(nxt)
        rw.insert(combined)
        np_ = len(prev.results)
        rw.replace_op(nxt, combined.results[np_:])
        rw.replace_op(prev, combined.results[:np_])
        return True


def _inside(op, region) -> bool:
    blk = op.parent
    while blk is not None:
        if blk.parent is region:
            return True
        owner = blk.parent_op
        blk = owner.parent if owner is not None else None
    return False


class IfCombineNested(RewritePattern):
    root, name = IF, "if-combine-nested"

    def match_and_rewrite(self, op, rw):
        tb, eb = then_block(op), else_block(op)
        if len(tb) != 2:
            return False
        inner = tb.first_op
        if inner.name != IF or eb is not None and len(eb) != 1:
            return False
        itb, ieb = then_block(inner), else_block(inner)
        if ieb is not None and len(ieb) != 1:
            return False
        if not is_yield(tb.terminator) or (eb is not None and not is_yield(eb.terminator)) \
                or (ieb is not None and not is_yield(ieb.terminator)):
            return False
        if is_exit(itb.terminator) and (eb is not None or ieb is not None):
            return False
        if not (is_yield(itb.terminator) or is_exit(itb.terminator)):
            return False
        then_vals = list(tb.terminator.operands)
        else_vals = list(eb.terminator.operands) if eb is not None else []
        to_select = []
        for i, v in enumerate(then_vals):
            if getattr(v, "op", None) is inner:
                if ieb is None or ieb.terminator.operands[v.index] is not else_vals[i]:
                    return False
                then_vals[i] = itb.terminator.operands[v.index]
                continue
            if parent_region(v) is op.regions[0] or not is_tile(v.type):
                return False
            to_select.append(i)
        loc = op.location
        cond = rw.create(op_cls("cuda_tile.andi"), lhs=op.condition, rhs=inner.condition,
                         result=op.condition.type, location=loc).result
        results = [None] * len(op.results)
        for i in to_select:
            results[i] = make_select(rw, op.condition, then_vals[i], else_vals[i], loc)
        new = new_if(cond, [r.type for r in op.results], loc)
        take_block(itb, new.regions[0])
        if is_yield(itb.terminator):
            set_yield(rw, itb.terminator, then_vals)
        if else_vals:
            from ...ir.core import Block
            nb = Block()
            new.regions[1].add_block(nb)
            nb.append(op_cls("cuda_tile.yield").create(operands=else_vals, location=loc))
        rw.insert(new)
        for i in range(len(results)):
            if results[i] is None:
                results[i] = new.results[i]
        rw.replace_op(op, results)
        return True


class IfBothExit(RewritePattern):
    root, name = IF, "if-both-exit"

    def match_and_rewrite(self, op, rw):
        eb = else_block(op)
        if eb is None or not is_exit(then_block(op).terminator) or not is_exit(eb.terminator):
            return False
        new = new_if(op.condition, [], op.location)
        take_block(then_block(op), new.regions[0])
        rw.insert(new)
        rw.inline_block_before(eb, op)
        erase_from(rw, op)
        return True


IF_PATTERNS = [IfNotCondition(), IfUnusedResults(), IfYieldValue(), IfStaticCondition(), IfToSelect(),
               IfEmptyElse(), IfCombine(), IfCombineNested(), IfBothExit()]
