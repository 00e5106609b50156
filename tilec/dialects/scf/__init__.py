"""The small `scf` subset the nv_tileas IR uses: for, if, yield."""
from . import ops  # noqa: F401
