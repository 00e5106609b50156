"""The small `arith` subset the nv_tileas IR uses: constant, addi, subi,
muli, divsi, remsi, maxsi, select. Importing it registers the ops."""
from . import ops  # noqa: F401
