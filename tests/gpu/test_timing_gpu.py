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
