"""The nv_tileas dialect (with the nv_tileaa and async types its ops carry):
types, attributes, traits, ops and their verifiers. Builders live in
builders.py. Importing it registers everything with tilec.ir.registry."""
from .. import cuda_tile, arith, scf  # noqa: F401  (tile<...> types; the IR around nv_tileas ops)
from . import types, attributes, directives, traits, layout_attr  # noqa: F401
from . import ops  # noqa: F401


def _iterator_arms(op, then_types, else_types) -> bool:
    """Branch arms that yield a pipeline iterator yield the same iterator type."""
    from .types import PipelineIteratorType
    for a, b in zip(then_types, else_types):
        if (isinstance(a, PipelineIteratorType) or isinstance(b, PipelineIteratorType)) and a != b:
            op.emit_error("branch arms must yield matching pipeline iterator types")
            return False
    return True


def _register_branch_check():
    from ..scf import ops as scf_ops
    if _iterator_arms not in scf_ops.BRANCH_CHECKS:
        scf_ops.BRANCH_CHECKS.append(_iterator_arms)


_register_branch_check()
