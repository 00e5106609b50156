"""nv_tileas op declarations, one module per family of the roster."""
from . import pipeline, tokens, memops, slices, layout, tma, compute, control  # noqa: F401
from . import casts  # noqa: F401  (arith.index_cast, for tiled-memop coordinates)

FAMILIES = {
    "async pipeline": pipeline, "async tokens": tokens, "tiled memops": memops, "tensor slices": slices,
    "layout": layout, "TMA": tma, "compute": compute, "control and metadata": control,
}
