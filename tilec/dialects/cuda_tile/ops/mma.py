"""Matrix multiply-accumulate: mmaf, mmai, mmaf_scaled (spec 8.7/8.8)."""
from __future__ import annotations

from ....ir.opdef import AttrDef, Operand, Result
from ....ir.traits import Pure, all_element_types_match, all_ranks_match, all_types_match
from ..attributes import SignednessAttr
from ._elementwise import element_type, tile_of_types
from .base import CudaTileOp

MMAF_OPERAND = tile_of_types("f16", "bf16", "f32", "f64", "tf32", "f8E4M3FN", "f8E5M2",
                             what="mmaf operand tile type")
MMAF_RESULT = tile_of_types("f16", "f32", "f64", what="mmaf acc/result tile type")
MMAI_OPERAND = tile_of_types("i8", what="mmai operand tile type")
MMAI_ACC = tile_of_types("i32", what="mmai acc tile type")
MMAI_RESULT = tile_of_types("i32", what="mmai result tile type")
SCALED_OPERAND = tile_of_types("f8E4M3FN", "f8E5M2", "f4E2M1FN", what="mmaf_scaled operand tile type")
SCALED_SCALE = tile_of_types("f8E4M3FN", "f8E8M0FNU", what="mmaf_scaled scale tile type",
                              unlisted=("fnv8E5M3FNU",))
SCALED_RESULT = tile_of_types("f32", what="mmaf_scaled result tile type")

# mmaf: input element type -> accumulator/result element types
MMAF_COMBINATIONS = {"f8E4M3FN": ("f16", "f32"), "f8E5M2": ("f16", "f32"), "f16": ("f16", "f32"),
                     "bf16": ("f32",), "tf32": ("f32",), "f32": ("f32",), "f64": ("f64",)}


def _types(*names):
    """`custom<CudaTileType>(type($a)) `,` custom<CudaTileType>(type($b)) ...`"""
    return " `,` ".join(f"custom<CudaTileType>(type(${n}))" for n in names)


def verify_mma_shapes(op) -> bool:
    """lhs M x K, rhs K x N, acc M x N, each optionally behind one batch dim B."""
    lhs, rhs, acc = (v.type.shape for v in op.operands[:3])
    rank = len(lhs)
    if rank not in (2, 3):
        op.emit_error(f"expects lhs, rhs and acc to be 2D or 3D tiles, but got rank {rank}")
        return False
    checks = [("lhs", lhs, rank - 1, "rhs", rhs, rank - 2),    # K
              ("lhs", lhs, rank - 2, "acc", acc, rank - 2),    # M
              ("rhs", rhs, rank - 1, "acc", acc, rank - 1)]    # N
    if rank == 3:
        checks += [("lhs", lhs, 0, "rhs", rhs, 0), ("lhs", lhs, 0, "acc", acc, 0)]
    return check_dims(op, checks)


def _shape(s) -> str:
    return "(" + ", ".join(map(str, s)) + ")"


def check_dims(op, checks) -> bool:
    """checks: (name a, shape a, dim a, name b, shape b, dim b) that must be equal."""
    for a, sa, da, b, sb, db in checks:
        if sa[da] != sb[db]:
            op.emit_error(f"shape error: dim {da} of {a} ({sa[da]}) and dim {db} of {b} ({sb[db]}) must match, "
                          f"but got {a} shape {_shape(sa)} and {b} shape {_shape(sb)}")
            return False
    return True


class MmaFOp(CudaTileOp):
    name = "cuda_tile.mmaf"
    traits = (Pure, all_types_match("acc", "result"), all_element_types_match("lhs", "rhs"),
              all_ranks_match("lhs", "rhs", "acc"))
    lhs = Operand(MMAF_OPERAND)
    rhs = Operand(MMAF_OPERAND)
    acc = Operand(MMAF_RESULT)
    fast_acc = AttrDef(unit=True)
    result = Result(MMAF_RESULT)
    assembly_format = ("$lhs `,` $rhs `,` $acc (`fast_acc` $fast_acc^)? attr-dict `:` "
                       + _types("lhs", "rhs", "acc"))

    def verify_op(self):
        elt, out = element_type(self.lhs).text(), element_type(self.acc).text()
        allowed = MMAF_COMBINATIONS.get(elt, ())
        if out not in allowed:
            self.emit_error(f"unsupported combination of element types. Input type '{elt}' expects "
                            f"accumulator/result type to be one of {{{', '.join(repr(a) for a in allowed)}}}, "
                            f"but got '{out}'")
            return False
        return verify_mma_shapes(self)


class MmaIOp(CudaTileOp):
    name = "cuda_tile.mmai"
    traits = (Pure, all_types_match("acc", "result"), all_element_types_match("lhs", "rhs"),
              all_ranks_match("lhs", "rhs", "acc"))
    lhs = Operand(MMAI_OPERAND)
    rhs = Operand(MMAI_OPERAND)
    acc = Operand(MMAI_ACC)
    signedness_lhs = AttrDef(SignednessAttr)
    signedness_rhs = AttrDef(SignednessAttr)
    result = Result(MMAI_RESULT)
    assembly_format = ("$lhs `,` $rhs `,` $acc custom<Signedness>($signedness_lhs) "
                       "custom<Signedness>($signedness_rhs) attr-dict `:` "
                       + _types("lhs", "rhs", "acc"))

    def verify_op(self):
        return verify_mma_shapes(self)


class MmaFScaledOp(CudaTileOp):
    name = "cuda_tile.mmaf_scaled"
    traits = (Pure, all_types_match("acc", "result"), all_element_types_match("lhs", "rhs"),
              all_element_types_match("lhs_scale", "rhs_scale"),
              all_ranks_match("lhs", "rhs", "acc", "lhs_scale", "rhs_scale"))
    lhs = Operand(SCALED_OPERAND)
    rhs = Operand(SCALED_OPERAND)
    acc = Operand(SCALED_RESULT)
    lhs_scale = Operand(SCALED_SCALE)
    rhs_scale = Operand(SCALED_SCALE)
    result = Result(SCALED_RESULT)
    assembly_format = ("$lhs `,` $rhs `,` $acc `,` $lhs_scale `,` $rhs_scale attr-dict `:` "
                       + _types("lhs", "rhs", "acc", "lhs_scale", "rhs_scale"))

    def verify_op(self):
        elt, scale = element_type(self.lhs).text(), element_type(self.lhs_scale).text()
        if scale in ("f8E4M3FN", "fnv8E5M3FNU") and elt != "f4E2M1FN":
            self.emit_error(f"unsupported combination of element types. Scale type '{scale}' expects lhs and rhs "
                            f"element types to be 'f4E2M1FN', but got '{elt}'")
            return False
        if not verify_mma_shapes(self):
            return False
        lhs, rhs = self.lhs.type.shape, self.rhs.type.shape
        lsf, rsf = self.lhs_scale.type.shape, self.rhs_scale.type.shape
        r = len(lhs)
        pairs = [("lhs", lhs, r - 2, "lhs_scale", lsf, r - 2), ("rhs", rhs, r - 1, "rhs_scale", rsf, r - 1)]
        if r == 3:
            pairs += [("lhs", lhs, 0, "lhs_scale", lsf, 0), ("rhs", rhs, 0, "rhs_scale", rsf, 0)]
        pairs.append(("lhs_scale", lsf, r - 1, "rhs_scale", rsf, r - 2))
        if not check_dims(self, pairs):
            return False
        k, blocks = lhs[r - 1], lsf[r - 1]
        block = k // blocks if blocks and k % blocks == 0 else None
        if elt in ("f8E4M3FN", "f8E5M2"):
            allowed, what = (32,), "f8 element type"
        elif scale == "f8E4M3FN":
            allowed, what = (16,), "f4E2M1FN element type with f8E4M3FN scales"
        else:
            allowed, what = (16, 32), f"f4E2M1FN element type with {scale} scales"
        if block not in allowed:
            self.emit_error(f"shape error: {what} requires block scale factor of lhs_scale and rhs_scale to be "
                            f"{' or '.join(map(str, allowed))}, but got {block if block is not None else k / blocks}")
            return False
        return True
