"""The builtin dialect's `module`: the container mlir-opt style tools wrap IR in
(`module attributes {gpu.container_module} { ... }`)."""
from ...syntax import format as _format
from . import ops  # noqa: F401  (registers the ops)

# builtin ops are written without their prefix anywhere
_format.SHORT_NAME_DIALECTS["builtin"] = None
