"""runtime.time_graph_ms on a real GPU (skipped without one): the launches it
captures into a CUDA graph run, once per launch and replay, and nothing else
runs them (a capture only records)."""
import numpy as np

COUNT = """cuda_tile.module @count {
  entry @count(%c: tile<ptr<i32>>) {
    %one = constant <i32: 1> : tile<i32>
    %old, %t = atomic_rmw_tko relaxed device %c, add, %one : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    return
  }
}
"""


def test_graph_timing_runs_each_captured_launch_once_per_replay():
    from tilec.codegen.ptx import compile_text
    from tilec.runtime import entry_arg_types, load_ptx, time_graph_ms
    kernel = load_ptx(compile_text(COUNT, arch="sm_80")).kernel("count")
    counter = np.zeros(1, np.int32)
    prep = kernel.prepare((3, 1, 1), [counter], arg_dtypes=entry_arg_types(COUNT))
    times = time_graph_ms(prep.run, launches=5, reps=4, warmup=2)
    prep.finish()
    assert len(times) == 4 and all(t > 0 for t in times)
    assert int(counter[0]) == 3 * 5 * (2 + 4)      # blocks x launches x (warm-up + timed replays)


def test_stamps_place_a_ctas_phases_on_the_device():
    """`--stamps` on the GPU: every CTA of cuTile's aligned matmul stamps its entry,
    its tensor maps claimed, keyed and ready, its first pipeline data and its exit,
    in that order, and the result is still the interpreter's."""
    from tilec.codegen.ptx import compile_text
    from tilec.runtime import convert_scalars, entry_arg_types, load_ptx, stamps
    from . import cases
    from .test_examples_gpu import entry_symbol, interpreter_result
    case = cases.BY_NAME["cutile_matmul_f16_aligned"]
    text = case.text()
    launch = case.build(case.rng())
    args, memo = cases.copy_args(launch.args)
    module = load_ptx(compile_text(text, arch="sm_90a", stamps=True))
    name = entry_symbol(case)
    stamps.clear(module, name)
    module.kernel(name).launch(launch.grid, convert_scalars(text, args), arg_dtypes=entry_arg_types(text),
                               timeout=60)
    t = stamps.read(module, name, launch.grid)
    order = ["entry", "claimed", "keys", "maps_ready", "first_data", "exit"]
    for a, b in zip(order, order[1:]):
        assert (t[a] <= t[b]).all(), (a, b, stamps.summary(t))
    assert (t["exit"] > t["entry"]).all()
    cases.compare(case, launch, cases.outputs_of(launch, memo), interpreter_result(case)[0])
