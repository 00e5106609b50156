"""TMA multicast among the CTAs of a cluster (tilec/codegen/ptx/multicast.py).

A tile block that asks for a CGA runs on a cluster of CTAs (split-tile-blocks);
the operand tile every CTA of the cluster loads alike is loaded once: each CTA
copies a slice of the slot's rows into every CTA's slot. Checked in the PTX
(which slots, the slices, the barrier counts, the remote releases, the cluster
barriers), by ptxas, and in the simulator against the interpreter, where the
CTAs of a cluster run together."""
from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import ptxas_stderr

from tilec.codegen.ptx import compile_text
from tilec.interp.launch import launch
from tilec.frontend import parse_and_verify
from tilec.ir.diagnostics import DiagnosticEngine

try:
    import ptxsim
except ImportError:
    from tests import ptxsim

# C = A @ B over 16-aligned f16 arrays, BMxBN tiles of K step 64; PERSISTENT
# wraps the tile in a loop over tiles (tile t = bx, bx + grid, ...)
MATMUL = """cuda_tile.module @m {
  entry @mm(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>) optimization_hints=<sm_90 = {num_cta_in_cga = CTAS}> {
    %tok = make_token : token
    %one = constant <i32: 1> : tile<i32>
    %zero = constant <i32: 0> : tile<i32>
    %a16 = assume div_by<16>, %a : tile<ptr<f16>>
    %b16 = assume div_by<16>, %b : tile<ptr<f16>>
    %c16 = assume div_by<16>, %c : tile<ptr<f32>>
    %k16 = assume div_by<16>, %k : tile<i32>
    %n16 = assume div_by<16>, %n : tile<i32>
    %va = make_tensor_view %a16, shape = [%m, %k16], strides = [%k16, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %vb = make_tensor_view %b16, shape = [%k16, %n16], strides = [%n16, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %vc = make_tensor_view %c16, shape = [%m, %n16], strides = [%n16, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pa = make_partition_view %va : partition_view<tile=(BMx64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pb = make_partition_view %vb : partition_view<tile=(64xBN), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pc = make_partition_view %vc : partition_view<tile=(BMxBN), tensor_view<?x?xf32, strides=[?,1]>>
    %nk:2 = get_index_space_shape %pa : partition_view<tile=(BMx64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>> -> tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    TILES
    %acc0 = constant <f32: 0.000000e+00> : tile<BMxBNxf32>
    %acc = for %i in (%zero to %nk#1, step %one) : tile<i32> iter_values(%x = %acc0) -> (tile<BMxBNxf32>) {
      %ta, %t1 = load_view_tko weak %pa[%tm, %i] token = %tok : partition_view<tile=(BMx64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<BMx64xf16>, token
      %tb, %t2 = load_view_tko weak %pb[%i, %tn] token = %tok : partition_view<tile=(64xBN), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64xBNxf16>, token
      %y = mmaf %ta, %tb, %x : tile<BMx64xf16>, tile<64xBNxf16>, tile<BMxBNxf32>
      continue %y : tile<BMxBNxf32>
    }
    %t4 = store_view_tko weak %acc, %pc[%tm, %tn] token = %tok : tile<BMxBNxf32>, partition_view<tile=(BMxBN), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    END
    return
  }
}
"""
ONE_TILE = "%tm = addi %bx, %zero : tile<i32>\n    %tn = addi %by, %zero : tile<i32>"
# persistent: the grid's x blocks walk the tiles of a grid of `%tiles_m` rows of one column
LOOP = """%nbx, %nby, %nbz = get_num_tile_blocks : tile<i32>
    %mt:2 = get_index_space_shape %pc : partition_view<tile=(BMxBN), tensor_view<?x?xf32, strides=[?,1]>> -> tile<i32>
    for %tm in (%bx to %mt#0, step %nbx) : tile<i32> {
    %tn = addi %by, %zero : tile<i32>"""


def kernel(bm=128, bn=128, ctas=2, persistent=False):
    text = MATMUL.replace("TILES", LOOP if persistent else ONE_TILE).replace("END", "}" if persistent else "")
    return text.replace("BM", str(bm)).replace("BN", str(bn)).replace("CTAS", str(ctas))


def inputs(m, n, k, seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(-3, 4, (m, k)).astype(np.float16), rng.integers(-3, 4, (k, n)).astype(np.float16)


def module(text):
    ops = parse_and_verify(text, "k.mlir", DiagnosticEngine())
    assert ops is not None
    return ops


def pipelines(ptx):
    """{full barrier symbol offset: (full count, empty count)} of the mbarrier inits, in order
    (without the `landed` barriers of first fills, which the other threads' start-up
    copies between `$L_tmap_others` and `$L_tmap_built` arrive on: first_fills.py)."""
    start = ptx.find("\n$L_tmap_others")
    landed = set(re.findall(r"smem\+(\d+);\n\tmad\.lo\.u32 [^\n]*\n\tcp\.async\.mbarrier\.arrive\.noinc",
                            ptx[start:ptx.find("\n$L_tmap_built", start)])) if start >= 0 else set()
    inits = [i for i in re.findall(r"mbarrier\.init\.shared\.b64 \t\[\w+\+(\d+)\+0\], (\d+);", ptx)
             if i[0] not in landed]
    return [(int(inits[i][1]), int(inits[i + 1][1])) for i in range(0, len(inits), 2)]


def test_the_shared_operand_is_multicast_in_slices(tmp_path):
    """128x128 on 2 CTAs cuts M: B's 64x128 slot (two 128-byte panels) is the
    same in both CTAs, so each copies 32 of its 64 rows, both panels, into both."""
    ptx = compile_text(kernel(), arch="sm_90a")
    copies = re.findall(r"cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.mbarrier::complete_tx::bytes"
                        r"(\.multicast::cluster)? \t\[(%r\d+)\], \[%rd\d+, \{(%r\d+), (%r\d+)\}\], \[%r\d+\](, 3)?;", ptx)
    assert len(copies) == 3 and [bool(c[0]) for c in copies] == [False, True, True]
    assert all(c[4] == ", 3" for c in copies[1:])            # into CTAs 0 and 1
    # the slice: this CTA's rows start 32 rows (4096 bytes) x rank into the slot and the box
    rank = re.search(r"mov\.u32 \t(%r\d+), %cluster_ctarank;", ptx).group(1)
    at = re.search(rf"mad\.lo\.u32 \t(%r\d+), {rank}, 4096, %r\d+;", ptx)
    row = re.search(rf"mad\.lo\.u32 \t(%r\d+), {rank}, 32, %r\d+;", ptx)
    assert at and row and copies[1][1] == at.group(1) and copies[1][3] == row.group(1)
    # B's map copies 64 columns by 32 rows; A's, 64 by 64
    boxes = re.findall(r"box_dim\.shared::cta\.b1024\.b32 \t\[%r\d+\], (\d), (\d+);", ptx)
    assert [int(n) for d, n in boxes][:4] == [64, 64, 64, 32]
    # each CTA still expects the whole slot: 64 x 128 x 2 bytes
    assert re.search(r"expect_tx\.shared::cta\.b64 \t_, \[%r\d+\], 16384;", ptx)
    # A's slots are released by this CTA's 4 consumer warps, B's by both CTAs' 8
    assert pipelines(ptx) == [(1, 4), (1, 8)]
    assert ptx.count("mapa.shared::cluster.u32") == 4                 # 2 releases x 2 CTAs
    # default semantics (release at CTA scope): ptxas makes .release.cluster a
    # MEMBAR.ALL.GPU before each arrive, in the consumer's loop
    assert re.search(r"mbarrier\.arrive\.shared::cluster\.b64 \t_, \[%r\d+\];", ptx)
    assert "arrive.release.cluster" not in ptx
    # the CTAs meet after the inits (the fence releases them: the arrive is relaxed, where
    # a release arrive costs a MEMBAR.ALL.GPU) and before the exit (a release: the remote
    # arrivals on the peers' barriers land before those leave)
    assert re.search(r"fence\.mbarrier_init\.release\.cluster;\n\tbarrier\.cluster\.arrive\.relaxed;\n"
                     r"\tbarrier\.cluster\.wait\.acquire;", ptx)
    # the exit needs no cluster barrier: the producer drains the multicast pipeline (a
    # wait on each of its empty barriers after its loop), so no peer's remote arrival is
    # still on its way to a CTA that leaves
    assert ptx.count("barrier.cluster.arrive") == 1
    drained, stages = _drain(ptx)
    empty = re.findall(r"mbarrier\.init\.shared\.b64 \t\[(\w+\+\d+)\+\d+\], 8;", ptx)
    assert drained.count("mbarrier.try_wait.parity") == stages > 1
    assert set(re.findall(r"mov\.u32 \t%r\d+, (\w+\+\d+);", drained)) == set(empty)
    assert " 0 bytes spill stores" in ptxas_stderr(ptx, tmp_path)


def test_an_n_cut_multicasts_a(tmp_path):
    """64x256 on 2 CTAs cannot cut M below 64: it cuts N, and A's 64x64 slot (one
    panel) is the shared one."""
    ptx = compile_text(kernel(64, 256), arch="sm_90a")
    assert pipelines(ptx) == [(1, 8), (1, 4)]
    assert len(re.findall(r"\.multicast::cluster", ptx)) == 1
    assert ptxas_stderr(ptx, tmp_path)


def test_four_ctas_copy_a_quarter_each(tmp_path):
    ptx = compile_text(kernel(256, 128, ctas=4), arch="sm_90a")
    rank = re.search(r"mov\.u32 \t(%r\d+), %cluster_ctarank;", ptx).group(1)
    assert re.search(rf"mad\.lo\.u32 \t%r\d+, {rank}, 16, %r\d+;", ptx)       # 64 rows / 4
    assert re.findall(r"\.multicast::cluster \t.*, 15;", ptx)
    assert ptx.count("mapa.shared::cluster.u32") == 8
    assert ptxas_stderr(ptx, tmp_path)


def _drain(ptx):
    """(the producer agent's PTX after its last loop: the drain, the stages of the
    multicast pipeline: the inits of `empty` barriers that count 8 warps)."""
    producer = ptx[:re.search(r"\$L_agent0_idle_\d+:", ptx).start()]
    return producer[producer.rindex("$L_for_end"):], \
        len(re.findall(r"mbarrier\.init\.shared\.b64 \t\[\w+\+\d+\+\d+\], 8;", ptx))


@pytest.mark.parametrize("once", [True, False], ids=["fork_once", "fork_per_tile"])
def test_a_persistent_kernel_drains_before_it_initializes_again(once, tmp_path, monkeypatch):
    """By default the agents fork once (schedule/fork_once.py): the barriers are
    initialized once, before the fork, the rings run on from tile to tile, and
    the producer drains its multicast pipeline once, after its tile loop.
    Where the fork stays per tile (here forced), the pipelines are created per
    tile: the other CTAs' last remote releases of one tile must land before
    the barriers are initialized for the next, so the producer drains at the
    end of each tile. Either way no release cluster barrier (a MEMBAR.ALL.GPU in
    SASS) comes before the inits: only the relaxed one that follows their
    fence."""
    if not once:
        from tilec.schedule import fork_once
        monkeypatch.setattr(fork_once, "fork_once", lambda blocks: 0)
    ptx = compile_text(kernel(persistent=True), arch="sm_90a")
    assert ".multicast::cluster" in ptx
    inits = re.search(r"mbarrier\.init\.shared\.b64 \t\[[^\]]+\], 8;", ptx).start()   # B's `empty`
    tile_loop = ptx.rfind("$L_for_head", 0, inits)
    assert (tile_loop < 0) == once
    assert "barrier.cluster" not in ptx[max(tile_loop, 0):inits]
    assert "barrier.cluster.arrive.release" not in ptx
    assert ptx.count("barrier.cluster.arrive.relaxed") == 1
    assert len(re.findall(r"\n\$L_agents_join_\d+:", ptx)) == 1
    drain, stages = _drain(ptx)
    assert drain.count("mbarrier.try_wait.parity") == stages > 1
    assert ptxas_stderr(ptx, tmp_path)


@pytest.mark.parametrize("name", ["m_cut", "persistent"])
def test_an_undrained_pipeline_is_caught(name):
    """Mutation: without the drain a CTA leaves (or initializes its barriers
    again) while the other CTA's last remote releases are on their way to it."""
    kw, m, n, k, grid = CASES[name]
    ptx = compile_text(kernel(**kw), arch="sm_90a")
    drain, stages = _drain(ptx)
    bad = ptx.replace(drain, drain[:drain.index("\n") + 1])
    assert bad.count("mbarrier.try_wait.parity") == ptx.count("mbarrier.try_wait.parity") - stages
    with pytest.raises(Exception, match="whose threads have all exited"):
        simulate(bad, m, n, k, grid)


def test_without_a_cluster_nothing_changes():
    ptx = compile_text(kernel(ctas=1), arch="sm_90a")
    assert "multicast" not in ptx and "barrier.cluster" not in ptx and "mapa" not in ptx


def simulate(ptx, m, n, k, grid, **kw):
    a, b = inputs(m, n, k)
    c = np.zeros((m, n), np.float32)
    ptxsim.run_ptx(ptx, "mm", grid, [a, b, c, m, n, k], **kw)
    return c


def want(m, n, k):
    a, b = inputs(m, n, k)
    return a.astype(np.float32) @ b.astype(np.float32)


def interpreted(text, m, n, k, grid):
    """C from the interpreter over the cut grid, which must be A @ B exactly."""
    a, b = inputs(m, n, k)
    c = np.zeros((m, n), np.float32)
    launch(module(text), grid=grid, args=[a, b, c, m, n, k])
    np.testing.assert_array_equal(c, want(m, n, k))
    return c


CASES = {   # name: (kernel arguments, m, n, k, grid)
    "m_cut": (dict(), 256, 256, 384, (2, 2, 1)),
    "n_cut": (dict(bm=64, bn=256), 128, 512, 320, (2, 2, 1)),
    "four": (dict(bm=256, bn=128, ctas=4), 256, 128, 256, (1, 1, 1)),
    "persistent": (dict(persistent=True), 384, 128, 256, (2, 1, 1)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_simulated_clusters_match_the_interpreter(name):
    kw, m, n, k, grid = CASES[name]
    text = kernel(**kw)
    c = interpreted(text, m, n, k, grid)
    ptx = compile_text(text, arch="sm_90a")
    for order in ("forward", "reverse"):
        np.testing.assert_array_equal(simulate(ptx, m, n, k, grid, thread_order=order, check_races=True), c)
    np.testing.assert_array_equal(simulate(ptx, m, n, k, grid, copy_timing="eager", check_races=True), c)


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_cta_copies_its_first_slots_whole(name):
    """First fills (first_fills.py) of a multicast slot: each CTA's other warps copy the
    whole slot into their own CTA's slot with cp.async (no CTA can write another's), both
    pipelines of each kernel. The values are checked in the simulations above."""
    kw = CASES[name][0]
    ptx = compile_text(kernel(**kw), arch="sm_90a")
    sec = ptx[ptx.index("\n$L_tmap_others"):ptx.index("\n$L_tmap_built")]
    assert sec.count("cp.async.cg.shared.global") == 2 and "multicast" not in sec


def _early_remote_release(ptx):
    """Mutation: the consumers release a multicast slot to the peer CTA before the
    wgmma.wait_group that retires their reads of it (to their own CTA still after)."""
    pat = re.compile(r"(\twgmma\.wait_group\.sync\.aligned \t1;\n)(\tand\.pred \t(%p\d+), (%p\d+), (%p\d+);\n"
                     r"\t@%p\d+ mbarrier\.arrive\.shared\.b64 \t%rd\d+, \[%r\d+\];\n)\tand\.pred \t(%p\d+), (%p\d+), \5;\n"
                     r"\tmapa\.shared::cluster\.u32 \t(%r\d+), (%r\d+), 0;\n\t@\6 mbarrier\.arrive\.shared::cluster\.b64 "
                     r"\t_, \[\8\];\n\tmapa\.shared::cluster\.u32 \t(%r\d+), \9, 1;\n\t@\6 mbarrier\.arrive"
                     r"\.shared::cluster\.b64 \t_, \[\10\];\n")

    def early(m):
        p, q, ok, bar = m.group(6), m.group(7), m.group(5), m.group(9)
        return (f"\tand.pred \t{p}, {q}, {ok};\n\tmov.u32 \t%mx0, %cluster_ctarank;\n\txor.b32 \t%mx0, %mx0, 1;\n"
                f"\tmapa.shared::cluster.u32 \t%mx1, {bar}, %mx0;\n\t@{p} mbarrier.arrive.shared::cluster.b64 \t_, [%mx1];\n"
                f"{m.group(1)}{m.group(2)}\t@{p} mbarrier.arrive.shared.b64 \t_, [{bar}];\n")
    bad, n = pat.subn(early, ptx)
    assert n == 1
    return bad.replace("\t.reg .b32 \t%r<", "\t.reg .b32 \t%mx<2>;\n\t.reg .b32 \t%r<", 1)


@pytest.mark.parametrize("timing", ["late", "eager"])
def test_an_early_release_to_the_peer_is_caught(timing):
    """The race check follows the cluster (hb.py): a peer's multicast copy into this
    CTA's slot is ordered after this CTA's wgmma reads only through this CTA's remote
    release and the peer producer's wait. Released early, the copy races with the
    reads, whichever the simulated order, and the report names the CTA."""
    kw, m, n, k, grid = CASES["m_cut"]
    bad = _early_remote_release(compile_text(kernel(**kw), arch="sm_90a"))
    with pytest.raises(ptxsim.DataRace, match=r"a copy completing on the mbarrier at shared offset \d+ "
                                              r"\(of the CTA of rank (\d)\) writes it \(.*multicast.*after a "
                                              r"wgmma\.mma_async of warpgroup \d \(of the CTA of rank \1\) reads it"):
        simulate(bad, m, n, k, grid, copy_timing=timing, check_races=True)


def _random_configs(n, seed=2026):
    """(kernel arguments, m, n, k, grid): tiles and clusters the cut takes, arrays that
    are 16-aligned but rarely whole tiles, K rings that wrap."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        bm, bn = int(rng.choice([64, 128, 256])), int(rng.choice([64, 128, 256]))
        ctas = int(rng.choice([2, 4]))
        if bm * bn > 256 * 128 or max(bm, bn) // ctas < 64:
            continue
        persistent = bool(rng.random() < 0.3)
        m = 16 * int(rng.integers(1, 2 * bm // 16 + 1))
        n_ = 16 * int(rng.integers(1, 2 * bn // 16 + 1))
        k = 16 * int(rng.integers(1, 40))
        gx = -(-m // bm)
        grid = (1 if persistent else gx, -(-n_ // bn), 1)
        out.append((dict(bm=bm, bn=bn, ctas=ctas, persistent=persistent), m, n_, k, grid))
    return out


@pytest.mark.parametrize("case", _random_configs(12), ids=lambda c: "{bm}x{bn}x{ctas}{p}".format(
    p="p" if c[0]["persistent"] else "", **{k: v for k, v in c[0].items() if k != "persistent"}))
def test_random_cluster_shapes_match_the_interpreter(case):
    kw, m, n, k, grid = case
    text = kernel(**kw)
    c = interpreted(text, m, n, k, grid)
    ptx = compile_text(text, arch="sm_90a")
    assert ".multicast::cluster" in ptx
    np.testing.assert_array_equal(simulate(ptx, m, n, k, grid, thread_order="reverse", check_races=True), c)
