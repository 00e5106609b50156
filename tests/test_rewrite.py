"""The pattern API, rewriter and greedy driver."""
from __future__ import annotations

from tilec.ir import registry
from tilec.ir.attributes import IntegerAttr
from tilec.ir.core import Block, Operation
from tilec.ir.diagnostics import DiagnosticEngine, using_engine
from tilec.ir.types import IndexType
from tilec.rewrite import GreedyDriver, PatternSet, RewritePattern, apply_patterns_greedily, pattern
from tilec.rewrite.clone import clone_op
from tilec.rewrite.effects import is_trivially_dead
from tilec.syntax.parser import parse_text
from tilec.syntax.printer import print_ops

IDX = IndexType()


def parse(text):
    engine = DiagnosticEngine()
    ops = parse_text(text, engine, "t.mlir", allow_unregistered=True)
    assert ops is not None, engine.render()
    return ops[0].parent


def text(block):
    return print_ops(list(block.ops))


def const(b, v):
    return b.append(registry.OPS["arith.constant"].create(value=IntegerAttr(v, IDX), result=IDX)).result


def test_fold_and_dce_reach_fixed_point():
    import tilec.transforms.canonicalize.arith  # noqa: F401  (materializer)
    b = parse("""
%x = "src"() : () -> index
%c0 = arith.constant 0 : index
%c2 = arith.constant 2 : index
%c3 = arith.constant 3 : index
%a = arith.addi %x, %c0 : index
%m = arith.muli %c2, %c3 : index
%dead = arith.muli %x, %c3 : index
"use"(%a, %m) : (index, index) -> ()
""")
    assert apply_patterns_greedily(b, [])
    out = text(b)
    assert "arith.addi" not in out and "arith.muli" not in out
    assert out.splitlines() == ['%0 = arith.constant 6 : index', '%1 = "src"() : () -> index',
                                '"use"(%1, %0) : (index, index) -> ()']


def test_constants_are_uniqued_and_hoisted():
    b = parse("""
"first"() : () -> ()
%c1 = arith.constant 1 : index
%d1 = arith.constant 1 : index
"use"(%c1, %d1) : (index, index) -> ()
""")
    apply_patterns_greedily(b, [])
    out = text(b).splitlines()
    assert out[0] == "%0 = arith.constant 1 : index"
    assert out[-1] == '"use"(%0, %0) : (index, index) -> ()'
    assert sum("arith.constant" in l for l in out) == 1


def test_side_effecting_and_terminators_are_kept():
    b = parse("""
%x = "opaque"() : () -> index
scf.for %i = %x to %x step %x {
  "effect"() : () -> ()
}
""")
    apply_patterns_greedily(b, [])
    assert '"opaque"' in text(b) and "scf.for" in text(b)


def test_dead_loop_with_pure_body_is_erased():
    b = parse("""
%c0 = arith.constant 0 : index
%r = scf.for %i = %c0 to %c0 step %c0 iter_args(%a = %c0) -> (index) {
  %n = arith.addi %a, %i : index
  scf.yield %n : index
}
""")
    apply_patterns_greedily(b, [])
    assert "scf.for" not in text(b)


def test_pattern_benefit_order_and_root_filter():
    calls = []

    class Low(RewritePattern):
        root, benefit = "t.op", 1

        def match_and_rewrite(self, op, rw):
            calls.append("low")
            return False

    class High(RewritePattern):
        root, benefit = "t.op", 5

        def match_and_rewrite(self, op, rw):
            calls.append("high")
            return False

    @pattern(root=None, benefit=3)
    def any_op(op, rw):
        calls.append("any:" + op.name)
        return False

    ps = PatternSet([Low(), High(), any_op])
    assert [p.benefit for p in ps.for_op("t.op")] == [5, 3, 1]
    assert ps.for_op("x.y") == [any_op]
    b = parse('"t.op"() : () -> ()')
    apply_patterns_greedily(b, ps)
    assert calls[:3] == ["high", "any:t.op", "low"]


def test_rewrite_requeues_users():
    """Rewriting a producer re-queues its users, so a chain collapses in one iteration."""
    b = parse("""
%a = "t.wrap"() : () -> index
%b = "t.wrap"(%a) : (index) -> index
%c = "t.wrap"(%b) : (index) -> index
"use"(%c) : (index) -> ()
""")

    @pattern("t.wrap")
    def unwrap(op, rw):
        if op.operands:
            rw.replace_op(op, [op.operands[0]])
            return True
        return False

    driver = GreedyDriver([unwrap])
    assert driver.run([b])
    assert text(b).count("t.wrap") == 1 and driver.num_rewrites == 2


def test_non_convergence_is_a_warning():
    b = parse("""
%x = "src"() : () -> index
%y = "src"() : () -> index
%s = "t.pair"(%x, %y) : (index, index) -> index
"use"(%s) : (index) -> ()
""")

    @pattern("t.pair")
    def swap(op, rw):   # flips forever
        a, c = op.operands
        with rw.modify_in_place(op):
            op.set_operands([c, a])
        return True

    engine = DiagnosticEngine()
    with using_engine(engine):
        assert not GreedyDriver([swap], max_iterations=3).run([b], b.first_op.location)
    assert [d.severity for d in engine.diagnostics] == ["warning"]
    assert "did not converge within 3 iterations" in engine.diagnostics[0].message


def test_rewriter_clone_is_deep():
    b = parse("""
%c0 = arith.constant 0 : index
scf.for %i = %c0 to %c0 step %c0 {
  %n = arith.addi %i, %c0 : index
  "use"(%n) : (index) -> ()
}
""")
    loop = b.first_op.next_op
    mapping = {}
    copy = clone_op(loop, mapping)
    body = copy.regions[0].blocks[0]
    add = body.first_op
    assert add.operands[0] is body.arguments[0]
    assert add.operands[1] is b.first_op.result   # outside values stay
    assert mapping[loop.regions[0].blocks[0].arguments[0]] is body.arguments[0]


def test_trivially_dead():
    b = Block()
    c = const(b, 1)
    assert is_trivially_dead(c.op)
    b.append(Operation([c], [], name="t.use"))
    assert not is_trivially_dead(c.op)
