"""The dialect-free IR core: use-lists, block lists, RAUW, walk, verifier."""
from tilec.dialects.cuda_tile.ops.arith_float import AddFOp
from tilec.dialects.cuda_tile.ops.core import ConstantOp
from tilec.dialects.cuda_tile.types import TileType
from tilec.ir.attributes import DenseElementsAttr
from tilec.ir.core import Block, Operation, Region
from tilec.ir.diagnostics import DiagnosticEngine
from tilec.ir.types import FloatType
from tilec.ir.verifier import verify

T = TileType((4,), FloatType("f32"))


def const(v):
    return ConstantOp.create(value=DenseElementsAttr(T, (v,), True), result=T)


def test_use_lists_track_operands_and_rauw():
    a, b = const(1.0), const(2.0)
    add = AddFOp.create(lhs=a.result, rhs=a.result, result=T)
    assert [u.owner for u in a.result.uses] == [add, add]
    a.result.replace_all_uses_with(b.result)
    assert not a.result.has_uses
    assert add.operands == [b.result, b.result]
    add.set_operand(1, a.result)
    assert len(b.result.uses) == 1 and len(a.result.uses) == 1


def test_block_insert_erase_is_linked():
    blk = Block()
    ops = [blk.append(const(float(i))) for i in range(5)]
    mid = const(9.0)
    blk.insert_before(mid, ops[2])
    assert list(blk.ops) == ops[:2] + [mid] + ops[2:]
    ops[0].erase()
    ops[4].erase()
    assert list(blk.ops) == [ops[1], mid, ops[2], ops[3]]
    assert len(blk) == 4 and blk.first_op is ops[1] and blk.last_op is ops[3]
    blk.insert_after(ops[0], ops[3])
    assert blk.last_op is ops[0]


def test_erase_drops_uses_and_walk_is_preorder():
    blk = Block()
    a = blk.append(const(1.0))
    add = blk.append(AddFOp.create(lhs=a.result, rhs=a.result, result=T))
    add.erase()
    assert not a.result.has_uses
    outer = Operation(regions=[Region([blk])], name="test.outer")
    assert [op.name for op in outer.walk()] == ["test.outer", "cuda_tile.constant"]


def test_verifier_reports_use_before_def():
    blk = Block()
    a = const(1.0)
    add = AddFOp.create(lhs=a.result, rhs=a.result, result=T)
    blk.append(add)
    blk.append(a)
    outer = Operation(regions=[Region([blk])], name="test.outer")
    eng = DiagnosticEngine()
    assert not verify(outer, eng)
    assert "does not dominate this use" in eng.render()


def test_verifier_checks_operand_constraints():
    i32 = TileType((4,), __import__("tilec.ir.types", fromlist=["IntegerType"]).IntegerType(32))
    from tilec.ir.core import Block
    blk = Block([i32])
    add = blk.append(AddFOp.create(lhs=blk.arguments[0], rhs=blk.arguments[0], result=i32))
    eng = DiagnosticEngine()
    assert not verify(add, eng)
    assert "'cuda_tile.addf' op operand #0 must be tile of f16 or bf16" in eng.render()


def test_types_are_hashable_values():
    assert TileType((4,), FloatType("f32")) == T and hash(TileType((4,), FloatType("f32"))) == hash(T)
    assert len({T, TileType((4,), FloatType("f32"))}) == 1
