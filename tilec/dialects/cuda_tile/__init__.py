"""The cuda_tile dialect: types, attributes, custom syntax directives and ops.
Importing it registers everything with tilec.ir.registry (the ops by name:
each op family's module is imported when one of its ops is first looked up)."""
from ...syntax import format as _format
from . import attributes, types, directives  # noqa: F401
# the custom<...> directives: part of the grammar, so registered before any op is
from . import directives_arith, directives_core, directives_memory  # noqa: F401
from . import ops  # noqa: F401
from . import debuginfo  # noqa: F401

# Inside `cuda_tile.module`, ops may be written and are printed without `cuda_tile.`.
_format.SHORT_NAME_DIALECTS["cuda_tile"] = "cuda_tile.module"
