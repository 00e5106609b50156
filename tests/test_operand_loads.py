"""A load outside any pipeline whose tile only tensor-core dots read goes to a
shared buffer by cp.async and the dots read it there (codegen/ptx/operand_loads.py);
a later load of the same block reuses the buffer once the earlier tile's readers
are done, unless nothing between orders it: then its copies are issued with the
earlier load's, and one wait ends both (decode attention's K and V).

The kernel has the shape of TileGym's naive-absorb MLA decode, whose loop cannot
be pipelined (there, one stage needs 278 KB; here, the loop stores each trip's
result ordered after its K load by the load's token, which keeps it out of the
schedule): S = K_i Q, P = S in f16, O_i = V_i^T P.

Checked: the PTX (cp.async and no global loads into registers; where a store
comes between, the loop's two tiles in one buffer, so the kernel needs a tile's
worth less shared memory than when both are live at once; without it, both
loads in flight at once), and the PTX simulator against the interpreter on
sm_90a and sm_80."""
from __future__ import annotations

import re

import numpy as np
import pytest

from tilec.codegen.ptx import compile_text
from tilec.interp import launch, parse_module

try:
    import ptxsim
except ImportError:
    from tests import ptxsim

TRIPS = 2
T64 = "partition_view<tile=(64x64), tensor_view<128x64xf16, strides=[64,1]>>"
KERNEL = f"""cuda_tile.module @m {{
  entry @k(%k: tile<ptr<f16>>, %v: tile<ptr<f16>>, %q: tile<ptr<f16>>, %y: tile<ptr<f32>>) {{
    %tok = make_token : token
    %k16 = assume div_by<16>, %k : tile<ptr<f16>>
    %v16 = assume div_by<16>, %v : tile<ptr<f16>>
    %q16 = assume div_by<16>, %q : tile<ptr<f16>>
    %vk = make_tensor_view %k16, shape = [128, 64], strides = [64, 1] : tensor_view<128x64xf16, strides=[64,1]>
    %pk = make_partition_view %vk : {T64}
    %vv = make_tensor_view %v16, shape = [128, 64], strides = [64, 1] : tensor_view<128x64xf16, strides=[64,1]>
    %pv = make_partition_view %vv : {T64}
    %vq = make_tensor_view %q16, shape = [64, 16], strides = [16, 1] : tensor_view<64x16xf16, strides=[16,1]>
    %pq = make_partition_view %vq : partition_view<tile=(64x16), tensor_view<64x16xf16, strides=[16,1]>>
    %vy = make_tensor_view %y, shape = [128, 16], strides = [16, 1] : tensor_view<128x16xf32, strides=[16,1]>
    %py = make_partition_view %vy : partition_view<tile=(64x16), tensor_view<128x16xf32, strides=[16,1]>>
    %zero = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %n = constant <i32: {TRIPS}> : tile<i32>
    %tq, %t0 = load_view_tko weak %pq[%zero, %zero] token = %tok : partition_view<tile=(64x16), tensor_view<64x16xf16, strides=[16,1]>>, tile<i32> -> tile<64x16xf16>, token
    %acc0 = constant <f32: 0.000000e+00> : tile<64x16xf32>
    for %i in (%zero to %n, step %one) : tile<i32> {{
      BODY
      %t3 = store_view_tko weak %o, %py[%i, %zero] token = %t1 : tile<64x16xf32>, partition_view<tile=(64x16), tensor_view<128x16xf32, strides=[16,1]>>, tile<i32> -> token
      continue
    }}
    return
  }}
}}
"""
LOAD_K = f"%tk, %t1 = load_view_tko weak %pk[%i, %zero] token = %tok : {T64}, tile<i32> -> tile<64x64xf16>, token"
LOAD_V = f"%tv, %t2 = load_view_tko weak %pv[%i, %zero] token = %tok : {T64}, tile<i32> -> tile<64x64xf16>, token"
DOTS = """%s = mmaf %tk, %tq, %acc0 : tile<64x64xf16>, tile<64x16xf16>, tile<64x16xf32>
      %p = ftof %s : tile<64x16xf32> -> tile<64x16xf16>"""
SECOND = """%vt = permute %tv [1, 0] : tile<64x64xf16> -> tile<64x64xf16>
      %o = mmaf %vt, %p, %acc0 : tile<64x64xf16>, tile<64x16xf16>, tile<64x16xf32>"""
# S stored where O goes later: a write between K's readers and V's load
STORE_S = ("%t4 = store_view_tko weak %s, %py[%i, %zero] token = %t1 : tile<64x16xf32>, "
           "partition_view<tile=(64x16), tensor_view<128x16xf32, strides=[16,1]>>, tile<i32> -> token")
BODIES = {
    "v_after_k": "\n      ".join([LOAD_K, DOTS, LOAD_V, SECOND]),     # V's copies start with K's
    "v_with_k": "\n      ".join([LOAD_K, LOAD_V, DOTS, SECOND]),     # both tiles live at once
    "v_after_write": "\n      ".join([LOAD_K, DOTS, STORE_S, LOAD_V, SECOND]),   # K's readers are done before V loads
}


def kernel(body):
    return KERNEL.replace("BODY", BODIES[body])


def arrays(seed=0):
    rng = np.random.default_rng(seed)
    k, v = (rng.integers(-2, 3, (128, 64)).astype(np.float16) for _ in range(2))
    return k, v, rng.integers(-2, 3, (64, 16)).astype(np.float16), np.zeros((128, 16), np.float32)


def exact(k, v, q):
    out = np.zeros((128, 16), np.float32)
    for i in range(TRIPS):
        s = k[64 * i:64 * i + 64].astype(np.float32) @ q.astype(np.float32)
        out[64 * i:64 * i + 64] = v[64 * i:64 * i + 64].astype(np.float32).T @ s
    return out


def shared_bytes(ptx):
    """The kernel's shared memory: its static block, or the dynamic size tilec notes."""
    got = re.search(r"dynamic_shared_bytes \S+ (\d+)", ptx) or re.search(r"\.b8 k_smem\[(\d+)\]", ptx)
    return int(got.group(1))


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80"])
def test_the_tiles_go_to_shared_memory_by_cp_async(arch):
    ptx = compile_text(kernel("v_after_k"), arch)
    assert "ld.global" not in ptx                         # K, V and Q: none through registers
    assert ptx.count("cp.async.wait_all") == 2           # Q's; K's and V's together
    assert re.search(r"cp\.async\.c[ag]\.shared\.global", ptx)


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80"])
def test_a_later_load_reuses_a_buffer_whose_readers_are_done(arch):
    reused, apart = (shared_bytes(compile_text(kernel(b), arch)) for b in ("v_after_write", "v_with_k"))
    assert apart - reused >= 64 * 64 * 2


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80"])
def test_a_later_load_nothing_orders_is_issued_with_the_first(arch):
    """V's copies start before K's readers run, into a buffer of its own, and one
    wait ends both; a store between (v_after_write) keeps V in its turn."""
    early, late = (compile_text(kernel(b), arch) for b in ("v_after_k", "v_after_write"))
    assert early.count("cp.async.wait_all") == late.count("cp.async.wait_all") - 1 == 2
    loop = early[early.index("$L_for_head"):]
    copies = [m.start() for m in re.finditer(r"cp\.async\.c[ag]\.shared\.global", loop)]
    first_dot = re.search(r"\b(wgmma\.mma_async|mma\.sync)", loop).start()
    assert len(copies) >= 2 and max(copies) < loop.index("cp.async.wait_all") < first_dot
    assert shared_bytes(early) == shared_bytes(compile_text(kernel("v_with_k"), arch))


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80"])
@pytest.mark.parametrize("body", list(BODIES))
def test_simulated_equal_to_the_interpreter(body, arch):
    k, v, q, want = arrays()
    launch(parse_module(kernel(body), "k.mlir"), grid=(1, 1, 1), args=[k, v, q, want])
    np.testing.assert_array_equal(want, exact(k, v, q))
    got = np.zeros_like(want)
    ptxsim.run_ptx(compile_text(kernel(body), arch), "k", (1, 1, 1), [k, v, q, got])
    np.testing.assert_array_equal(got, want)


def test_tensor_maps_are_built_while_an_earlier_load_is_in_flight():
    """cuTile's aligned attention loads Q (a tile only tensor cores read) before the
    K loop whose loads go through tensor maps: the maps' claim and key round trips
    run while Q's copies are in flight, before their one wait (on an H100, TileGym's
    prefill MLA reached its maps 2 us after its entry, Q's load first)."""
    from conftest import ROOT
    import os
    with open(os.path.join(ROOT, "examples", "cutile", "attention_m128_f16_aligned.mlir")) as fh:
        ptx = compile_text(fh.read(), "sm_90a")
    copy = re.search(r"cp\.async\.cg\.shared\.global", ptx).start()
    built = re.search(r"\$L_tmap_built_\d+:", ptx).start()
    # the wait is for Q's copies alone (an mbarrier they complete on): the K and V
    # pipelines' first slots, copied while warp 0 builds the maps, stay in flight
    # (first_fills.py; test_first_fills.py has the details)
    wait = re.search(r"mbarrier\.try_wait\.parity", ptx[built:])
    assert copy < ptx.index("$L_tmap_check") < built and wait


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80"])
def test_a_buffer_written_first_outside_loops_needs_no_barrier_before(arch, monkeypatch):
    """Emitter.guard_write: Q's buffer, written once before the loop, has no
    earlier readers to wait for, so its copies go out without the barrier
    before them; K's and V's, in the loop, keep theirs (the last trip's dots may
    still read the buffer)."""
    from tilec.codegen.ptx.emitter import Emitter
    new = compile_text(kernel("v_after_k"), arch)
    monkeypatch.setattr(Emitter, "guard_write", lambda em, syms: em.sync())
    old = compile_text(kernel("v_after_k"), arch)

    def loop(ptx):
        head = ptx.index("$L_for_head")
        return ptx[head:ptx.index("bra.uni", head)]
    assert old.count("bar.sync") - new.count("bar.sync") == 1
    assert loop(old).count("bar.sync") == loop(new).count("bar.sync")
