"""Dialects tilec knows. Importing this package registers their loaders."""
from ..ir import registry


def _load_cuda_tile():
    from . import cuda_tile  # noqa: F401


registry.add_loader(_load_cuda_tile)
