"""Dialects tilec knows. Importing this package registers their loaders."""
from ..ir import registry


def _load_cuda_tile():
    from . import builtin, cuda_tile  # noqa: F401


registry.add_loader(_load_cuda_tile)


def _load_nv_tileas():
    from . import arith, scf, nv_tileas  # noqa: F401


registry.add_loader(_load_nv_tileas)
