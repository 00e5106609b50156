"""cuda_tile op declarations, one module per op family (spec chapter 8).

The modules are imported on first use: OPS declares each op by name, and the
module that defines it is imported when the op is looked up (a process
compiling one kernel imports the families it uses). tests/test_op_registry.py
checks these lists against what the modules define."""
from ....ir import registry

# module -> the ops it defines (without the `cuda_tile.` prefix)
MODULES = {
    "arith_float": "absf addf cmpf divf fma maxf minf mulf negf remf subf",
    "arith_int": "absi addi andi cmpi divi maxi mini mulhii muli negi ori remi shli shri subi xori",
    "atomics": "atomic_cas_tko atomic_red_view_tko atomic_rmw_tko",
    "control_flow": "assert break continue for if loop yield",
    "conversion": "bitcast exti ftof ftoi int_to_ptr itof ptr_to_int ptr_to_ptr trunci",
    "core": ("assume broadcast cat constant entry extract get_global get_num_tile_blocks "
             "get_tile_block_id global insert iota join_tokens make_token module offset permute print "
             "print_tko reduce reshape return scan select testing$func"),
    "math": "atan2 ceil cos cosh exp exp2 floor fpowi log log2 pow rsqrt sin sinh sqrt tan tanh",
    "memory": "alloca load_ptr_tko pack store_ptr_tko unpack",
    "mma": "mmaf mmaf_scaled mmai",
    "multimem": "multimem_load_reduce_view_tko multimem_reduce_view_tko multimem_store_view_tko",
    "sync": "gdc_launch_dependents_tko gdc_wait_tko memory_fence_alias_tko",
    "views": ("get_index_space_shape get_tensor_shape load_view_tko make_gather_scatter_view "
              "make_partition_view make_strided_view make_tensor_view store_view_tko"),
}
# module -> the old spellings its ops are also read under
ALIASES = {"math": "fpowf powf"}


def _qualified(table):
    return {f"{__name__}.{module}": [f"cuda_tile.{n}" for n in names.split()] for module, names in table.items()}


registry.declare_ops(_qualified(MODULES), _qualified(ALIASES))
