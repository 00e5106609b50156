"""The seven nv_tileas canonicalization patterns (spec: nv_tileas folds and
memory consistency). Each checks the spec's legality before touching the IR;
none moves, duplicates or erases a MemoryConsistencyOpInterface op, and no
rewrite alters memory semantic, scope, in-bounds, padding or RMW attributes
(the patterns only create slice, view, alloc_tensor, arith and scf ops)."""
from __future__ import annotations

from ...ir.core import Block
from ...ir.traits import Pure
from ...rewrite.effects import is_memory_consistency_op
from ...rewrite.pattern import RewritePattern
from ._util import (SLICE_LISTS, chain_to_sink, const_int, defined_outside, index_constant, is_tile_structure,
                    mixed, move_regions, op_cls, same_lists, slice_fields)

EXTRACT, INSERT, ALLOC, VIEW = ("nv_tileas.extract_slice", "nv_tileas.insert_slice",
                                "nv_tileas.alloc_tensor", "nv_tileas.view")


def _with_shape(t, shape):
    from ...ir.record import evolve
    return evolve(t, shape=tuple(shape))


class SimplifyExtractSlice(RewritePattern):
    """extract_slice with constant offset/size/stride operands -> the static form,
    its result type baking in the sizes."""
    root, name = EXTRACT, "simplify-extract-slice"

    def match_and_rewrite(self, op, rw):
        lists = [mixed(op, k) for k in SLICE_LISTS]
        if not any(getattr(op, k) for k in SLICE_LISTS):
            return False
        static = [[const_int(v) for v in lst] for lst in lists]
        if any(c is None or c < 0 for lst in static for c in lst):
            return False                     # every operand a non-negative constant
        if any(s == 0 for s in static[2]):
            return False
        rt = op.result.type
        new_t = _with_shape(rt, static[1])
        if new_t != rt and any(u.owner.has_trait(_terminator()) for u in op.result.uses):
            return False                     # a terminator's operand types are fixed by its parent
        new = rw.create(type(op), source=op.source, result=new_t, **slice_fields(static))
        rw.replace_op(op, [new.result])
        return True


def _terminator():
    from ...ir.traits import Terminator
    return Terminator


class SimplifyExtractFromInsert(RewritePattern):
    """extract_slice(insert_slice(x, dst, P), P) -> x, for the exact same
    offsets, sizes and strides (the extract reads its slice straight from the insert)."""
    root, name = EXTRACT, "simplify-extract-from-insert"

    def match_and_rewrite(self, op, rw):
        ins = getattr(op.source, "op", None)
        if ins is None or ins.name != INSERT:
            return False
        if not all(same_lists(mixed(op, k), mixed(ins, k)) for k in SLICE_LISTS):
            return False
        if ins.source.type != op.result.type:
            return False
        rw.replace_op(op, [ins.source])
        return True


class SwapViewAndExtractSlice(RewritePattern):
    """extract_slice(view(x)) -> view(extract_slice(x)) when the view commutes
    with slicing: no view indices, no explicit strides, and the view keeps
    the source's shape (a pure residency retag)."""
    root, name = EXTRACT, "swap-view-and-extract-slice"

    def match_and_rewrite(self, op, rw):
        view = getattr(op.source, "op", None)
        if view is None or view.name != VIEW or view.indices:
            return False
        vt, src = view.result.type, view.source
        st = src.type
        if getattr(vt, "strides", None) is not None or not hasattr(st, "shape"):
            return False
        if tuple(st.shape) != tuple(vt.shape) or getattr(st, "element_type", None) != vt.element_type:
            return False
        rt = op.result.type
        if type(rt) is not type(vt) or rt.residency != vt.residency or rt.strides is not None:
            return False
        if None in rt.shape:
            return False
        lists = [mixed(op, k) for k in SLICE_LISTS]
        inner_t = _with_shape(st, rt.shape)
        inner = rw.create(type(op), source=src, result=inner_t, **slice_fields(lists))
        new_view = rw.create(type(view), source=inner.result, indices=[], result=rt,
                             attributes={k: v for k, v in view.attributes.items() if k != "operandSegmentSizes"})
        rw.replace_op(op, [new_view.result])
        return True


def _yield_of(block):
    t = block.last_op
    return t if t is not None and t.name == "scf.yield" else None


class DecomposeLoopIterArgs(RewritePattern):
    """Sink an iter-arg's alloc_tensor (with its init insertion chain) into the
    loop body and drop the iter-arg, when the init and the yielded value reach
    the same allocation through pure insert_slice chains and the loop result
    is unused."""
    root, name = "scf.for", "decompose-loop-iter-args"

    def match_and_rewrite(self, op, rw):
        body = op.region.blocks[0]
        term = _yield_of(body)
        if term is None:
            return False
        inits = op.initArgs
        for i, init in enumerate(inits):
            if op.results[i].has_uses:
                continue                               # legality 4
            carried = body.arguments[i + 1]
            outer = chain_to_sink(init, set())
            if outer is None:
                continue                               # legality 1 (and 3)
            inner = chain_to_sink(term.operands[i], {carried}, stop_block=body)
            if inner is None or inner[1] is not carried:
                continue                               # legality 2 (and 3)
            chain_ops = outer[0]
            if any(is_memory_consistency_op(o) for o in chain_ops + inner[0]):
                continue
            self._rewrite(op, i, chain_ops, rw)
            return True
        return False

    def _rewrite(self, op, i, chain_ops, rw):
        body = op.region.blocks[0]
        carried = body.arguments[i + 1]
        # re-emit alloc + init insertion chain at the start of the body
        rw.set_insertion_point_to_start(body)
        mapping, last = {}, None
        for o in reversed(chain_ops):                  # alloc first
            last = rw.clone(o, mapping)
        rw.replace_all_uses_with(carried, last.result)
        # rebuild the loop without iter-arg i
        term = _yield_of(body)
        keep = [j for j in range(len(op.initArgs)) if j != i]
        new_inits = [op.initArgs[j] for j in keep]
        For = type(op)
        rw.set_insertion_point_before(op)
        new = For.create(lowerBound=op.lowerBound, upperBound=op.upperBound, step=op.step,
                         initArgs=new_inits, results=[v.type for v in new_inits],
                         attributes={k: v for k, v in op.attributes.items() if k != "operandSegmentSizes"},
                         location=op.location)
        move_regions(op, new)
        new_body = new.region.blocks[0]
        new_body.arguments.pop(i + 1)
        for k, a in enumerate(new_body.arguments):
            a.index = k
        term.set_operands([term.operands[j] for j in keep])
        rw.insert(new)
        rw.notify_modified(term)
        rw.replace_op(op, [new.results[keep.index(j)] if j in keep else None for j in range(len(op.results))])


def _in_region(v, region_op) -> bool:
    return not defined_outside(v, region_op)


class DecomposeIfByInsertSlice(RewritePattern):
    """Duplicate an allocation/insertion chain into each branch of an scf.if
    whose branches both insert into it, so no mutable tile is shared."""
    root, name = "scf.if", "decompose-if-by-insert-slice"

    def match_and_rewrite(self, op, rw):
        if not op.results or not op.elseRegion.blocks:
            return False
        then_b, else_b = op.thenRegion.blocks[0], op.elseRegion.blocks[0]
        ty, ey = _yield_of(then_b), _yield_of(else_b)
        if ty is None or ey is None:
            return False
        for j in range(len(op.results)):
            a = chain_to_sink(ty.operands[j], set(), stop_block=None)
            b = chain_to_sink(ey.operands[j], set(), stop_block=None)
            if a is None or b is None or a[1] is not b[1]:
                continue
            alloc = a[1].op
            if _in_region(alloc.result, op):
                continue
            # the part of the chain outside the if: from alloc up to the first value both arms use
            outer = [o for o in a[0] if not _in_region(o.result, op)]
            outer_b = [o for o in b[0] if not _in_region(o.result, op)]
            if [id(o) for o in outer] != [id(o) for o in outer_b]:
                continue
            if any(o.parent is not op.parent for o in outer):
                continue
            top = outer[0].result                  # last outer value (chain lists top-down)
            # no live use outside the if: each outer value feeds only the next chain op / the branches
            ok = True
            for k, o in enumerate(outer):
                users = [u.owner for u in o.result.uses]
                if k == 0:
                    ok = ok and all(not defined_outside_op(u, op) for u in users)
                else:
                    ok = ok and len(users) == 1 and users[0] is outer[k - 1]
            if not ok:
                continue
            if any(is_memory_consistency_op(o) for o in a[0] + b[0]):
                continue
            for block in (then_b, else_b):
                rw.set_insertion_point_to_start(block)
                mapping, last = {}, None
                for o in reversed(outer):
                    last = rw.clone(o, mapping)
                for u in list(top.uses):
                    if u.owner.parent is not None and _op_inside_block(u.owner, block):
                        u.set(last.result)
                        rw.notify_modified(u.owner)
            return True
        return False


def defined_outside_op(user, region_op) -> bool:
    """`user` (an op) is not nested inside `region_op`."""
    o = user
    while o is not None:
        if o is region_op:
            return False
        o = o.parent_op
    return True


def _op_inside_block(op, block) -> bool:
    while op is not None:
        if op.parent is block:
            return True
        op = op.parent_op
    return False


def _pure_chain_ok(value, region_op) -> bool:
    """The safe-rewrite walk from a yielded value: through pure tile-structure
    ops defined inside `region_op` until it leaves it; abort at any
    memory-consistency or other op."""
    v = value
    while True:
        d = getattr(v, "op", None)
        if d is None or defined_outside_op(d, region_op):
            return True
        if is_memory_consistency_op(d) or not d.has_trait(Pure) or not is_tile_structure(d):
            return False
        if d.name == "nv_tileas.alloc_tensor" or not d.operands:
            return True
        v = d.dest if d.name == INSERT else d.source


class DecomposeIfByExtractSlice(RewritePattern):
    """%r = scf.if ... ; %s = extract_slice %r[...]  ->  the extraction sunk into
    each branch, which then yields the slice."""
    root, name = "scf.if", "decompose-if-by-extract-slice"

    def match_and_rewrite(self, op, rw):
        if not op.results or not op.elseRegion.blocks:
            return False
        then_b, else_b = op.thenRegion.blocks[0], op.elseRegion.blocks[0]
        ty, ey = _yield_of(then_b), _yield_of(else_b)
        if ty is None or ey is None:
            return False
        for j, r in enumerate(op.results):
            uses = r.uses
            if len(uses) != 1 or uses[0].owner.name != EXTRACT or uses[0].index != 0:
                continue
            ext = uses[0].owner
            if ext.parent is not op.parent:
                continue
            dyn = [v for k in SLICE_LISTS for v in getattr(ext, k)]
            if any(not _dominates_op(v, op) for v in dyn):
                continue
            if not (_pure_chain_ok(ty.operands[j], op) and _pure_chain_ok(ey.operands[j], op)):
                continue
            lists = [mixed(ext, k) for k in SLICE_LISTS]
            new_vals = []
            for term in (ty, ey):
                rw.set_insertion_point_before(term)
                e = rw.create(type(ext), source=term.operands[j], result=ext.result.type, **slice_fields(lists))
                new_vals.append(e.result)
            types = [x.type for x in op.results]
            types[j] = ext.result.type
            rw.set_insertion_point_before(op)
            new = type(op).create(condition=op.condition, results=types, attributes=dict(op.attributes),
                                  location=op.location)
            move_regions(op, new)
            for term, v in zip((ty, ey), new_vals):
                term.set_operand(j, v)
                rw.notify_modified(term)
            rw.insert(new)
            rw.replace_op(ext, [new.results[j]])
            rw.replace_op(op, [None if k == j else new.results[k] for k in range(len(types))])
            return True
        return False


def _dominates_op(v, op) -> bool:
    """`v` is defined outside `op`, before it when in the same block."""
    if not defined_outside(v, op):
        return False
    d = getattr(v, "op", None)
    if d is None or d.parent is not op.parent:
        return True
    x = d.next_op
    while x is not None:
        if x is op:
            return True
        x = x.next_op
    return False


class CoalescePerfectlyNestedLoops(RewritePattern):
    """scf.for { scf.for {body} } with nothing else in the outer body, no
    iter-args and constant inner bounds -> one loop over the product of the
    trip counts; the original induction variables are re-derived with
    arith.divsi / arith.remsi."""
    root, name = "scf.for", "coalesce-perfectly-nested-loops"

    def match_and_rewrite(self, op, rw):
        body = op.region.blocks[0]
        inner = body.first_op
        if inner is None or inner.name != "scf.for" or inner.next_op is not body.last_op:
            return False
        if body.last_op.name != "scf.yield" or body.last_op.operands:
            return False
        if op.initArgs or inner.initArgs:
            return False
        lb_i, ub_i, st_i = (const_int(v) for v in (inner.lowerBound, inner.upperBound, inner.step))
        if None in (lb_i, ub_i, st_i) or st_i <= 0:
            return False
        n_i = max(0, -(-(ub_i - lb_i) // st_i))
        if n_i == 0:
            return False
        ivt = op.lowerBound.type
        if inner.lowerBound.type != ivt:
            return False
        if any(not defined_outside(v, op) for v in (inner.lowerBound, inner.upperBound, inner.step)):
            return False
        A = {n: op_cls(f"arith.{n}") for n in ("addi", "subi", "muli", "divsi", "remsi")}

        def bin(n, a, b):
            return rw.create(A[n], lhs=a, rhs=b, result=ivt).result

        rw.set_insertion_point_before(op)
        lb_o, ub_o, st_o = (const_int(v) for v in (op.lowerBound, op.upperBound, op.step))
        if None not in (lb_o, ub_o, st_o):
            if st_o <= 0:
                return False
            total = index_constant(rw, max(0, -(-(ub_o - lb_o) // st_o)) * n_i, ivt)
        else:
            one = index_constant(rw, 1, ivt)
            span = bin("subi", op.upperBound, op.lowerBound)
            trips = bin("divsi", bin("subi", bin("addi", span, op.step), one), op.step)
            total = bin("muli", trips, index_constant(rw, n_i, ivt))
        zero = index_constant(rw, 0, ivt)
        one = index_constant(rw, 1, ivt)
        For = type(op)
        new = For.create(lowerBound=zero, upperBound=total, step=one, initArgs=[], results=[],
                         attributes={k: v for k, v in op.attributes.items() if k != "operandSegmentSizes"},
                         location=op.location)
        nb = Block([ivt])
        new.region.add_block(nb)
        rw.insert(new)
        k = nb.arguments[0]
        rw.set_insertion_point_to_start(nb)
        n_const = index_constant(rw, n_i, ivt)
        q = bin("divsi", k, n_const)
        r = bin("remsi", k, n_const)
        iv_o = bin("addi", op.lowerBound, bin("muli", q, op.step))
        iv_i = bin("addi", inner.lowerBound, bin("muli", r, inner.step))
        inner_body = inner.region.blocks[0]
        inner_term = inner_body.last_op
        rw.inline_block_at_end(inner_body, nb, [iv_i])
        body.arguments[0].replace_all_uses_with(iv_o)
        for o in nb.ops:
            rw.notify_modified(o)
        del inner_term
        rw.erase_op(op)
        return True


PATTERNS = [SimplifyExtractSlice(), SimplifyExtractFromInsert(benefit=2), SwapViewAndExtractSlice(),
            DecomposeLoopIterArgs(), DecomposeIfByInsertSlice(), DecomposeIfByExtractSlice(),
            CoalescePerfectlyNestedLoops()]
