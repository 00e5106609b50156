"""The sm_90a GEMM mainloop's rules (docs/decisions.md, "The Hopper GEMM mainloop"):

- TMA only where the IR proves the alignment a tensor map needs (divisibility.py);
- setmaxnreg only where every slot a producer fills comes by TMA, with a `.maxnreg`
  so ptxas honours it, and the counts covering each other;
- a wgmma group kept in flight only for an accumulator that never leaves its
  registers, with two stages or more; the slots it reads released one
  iteration late;
- ptxas takes all of it without spills and without serializing the wgmma.
Results are checked by the simulator elsewhere (tests/test_ptx_sim.py runs the
examples; tests/test_ptxsim_tma.py the tensor-map model)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest
from conftest import ptxas_stderr

from tilec.codegen.ptx import compile_text
from tilec.dialects.cuda_tile.divisibility import ZERO, known_divisor, tensor_view_parts, tma_aligned

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALIGNED = os.path.join(ROOT, "examples", "cutile", "matmul_f16_aligned.mlir")
UNALIGNED = os.path.join(ROOT, "examples", "cutile", "matmul_f16.mlir")
FP8 = os.path.join(ROOT, "examples", "cutile", "matmul_fp8_bt_aligned.mlir")


def text(path):
    with open(path) as fh:
        return fh.read()


def ptx(path_or_text, **kw):
    src = text(path_or_text) if os.path.exists(path_or_text) else path_or_text
    return compile_text(src, arch="sm_90a", **kw)


def tensor_views(src):
    from tilec.frontend import parse_and_verify
    from tilec.ir.diagnostics import DiagnosticEngine
    ops = parse_and_verify(src, "input", DiagnosticEngine())
    return [op.results[0] for top in ops for op in top.walk() if op.name == "cuda_tile.make_tensor_view"]


def test_divisibility_reads_cutiles_assumptions():
    aligned = tensor_views(text(ALIGNED))
    assert len(aligned) == 3 and all(tma_aligned(tv, 16) for tv in aligned)
    base, shape, strides = tensor_view_parts(aligned[0])
    assert known_divisor(base) == 16 and known_divisor(strides[0]) == 16 and strides[1] == 1
    # the unaligned specialization: base 16-byte aligned, strides unknown
    plain = tensor_views(text(UNALIGNED))
    assert all(known_divisor(tensor_view_parts(tv)[0]) == 16 for tv in plain)
    assert not any(tma_aligned(tv, 16) for tv in plain)


def test_divisibility_through_arithmetic():
    src = """cuda_tile.module @m {
  entry @k(%p: tile<ptr<f16>>, %n: tile<i32>) {
    %a = assume div_by<4>, %n : tile<i32>
    %c8 = constant <i32: 8> : tile<i32>
    %c0 = constant <i32: 0> : tile<i32>
    %m = muli %a, %c8 : tile<i32>
    %s = addi %m, %c8 : tile<i32>
    %q = assume div_by<16>, %p : tile<ptr<f16>>
    %tv = make_tensor_view %q, shape = [%n, %n], strides = [%s, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tw = make_tensor_view %q, shape = [%n, %n], strides = [%m, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    return
  }
}
"""
    tv, tw = tensor_views(src)
    s = tensor_view_parts(tv)[2][0]
    m = tensor_view_parts(tw)[2][0]
    assert known_divisor(m) == 32 and known_divisor(s) == 8          # 4*8, gcd(32, 8)
    assert tma_aligned(tw, 16) and tma_aligned(tv, 16)               # 8 f16 = 16 bytes
    assert not tma_aligned(tv, 8)                                    # 8 u8 = 8 bytes
    from tilec.dialects.cuda_tile.divisibility import _pow2
    assert _pow2(0) == ZERO and _pow2(24) == 8


def test_aligned_matmul_loads_by_tma_and_rebalances_registers():
    out = ptx(ALIGNED)
    assert out.count("cp.async.bulk.tensor.2d.shared::cluster") == 3   # A one box, B two panels
    # cp.async only in the start-up, where the first slots are copied while the maps
    # are built (first_fills.py): none in the agents
    assert out.rindex("cp.async.cg") < out.index("setmaxnreg")
    assert re.search(r"\.maxnreg 144\b", out)
    decs = re.findall(r"setmaxnreg\.dec\.sync\.aligned\.u32 \t(\d+)", out)
    incs = re.findall(r"setmaxnreg\.inc\.sync\.aligned\.u32 \t(\d+)", out)
    assert decs == ["40", "144"] and incs == ["144", "240"]
    # what the producer gives back (4 warps x 104) covers what the consumer takes (4 warps x 96)
    assert 128 * (144 - 40) >= 128 * (240 - 144)
    assert "wgmma.wait_group.sync.aligned \t1" in out


def test_the_producer_takes_its_registers_back_after_the_consumers_give_theirs():
    """setmaxnreg.inc waits until the CTA's pool holds what it asks for. A
    producer that took its registers back as soon as its loop ended (no wait in
    a loop of no more trips than stages) left the consumers' .inc waiting for
    ever: TileGym's gemma attention hung on an H100 that way. The consumers give
    back and arrive at a named barrier; the producer waits there first."""
    out = ptx(ALIGNED)
    give = out.index("setmaxnreg.dec.sync.aligned.u32 \t144")
    assert re.match(r"\s*bar\.arrive \t3, 256;", out[out.index("\n", give):])
    take = out.index("setmaxnreg.inc.sync.aligned.u32 \t144")
    assert out[:take].rstrip().endswith("bar.sync \t3, 256;")


@pytest.mark.parametrize("k", [0, 64])
def test_a_loop_of_no_or_one_trip_runs_to_the_end(k):
    """The simulator runs the producer first, as a fast producer runs on the GPU:
    before the fix both shapes deadlocked in the consumers' setmaxnreg.inc."""
    _simulate_aligned(128, 128, k, (1, 1, 1), 5)


def test_tma_filled_slots_need_no_proxy_fence():
    """wgmma reads through the async proxy: slots that cp.async (generic proxy)
    filled are fenced before each read, slots TMA filled are not. Here the only
    cp.async fills are the first slots copied at the entry (first_fills.py): their
    consumers fence on the branch that waits for those copies, one per consumer
    wait; the one fence after them publishes the epilogue's staging tile to the
    TMA store (test_tma_store.py)."""
    for out in (ptx(ALIGNED), ptx(FP8)):
        before = out[:out.index("stmatrix")]
        branches = re.findall(r"fence\.proxy\.async\.shared::cta;\n\tbra\.uni \t\$L_full_waited_\d+;", before)
        assert len(branches) == before.count("fence.proxy.async") == before.count("$L_full_waited") // 2 >= 2
        assert out.count("fence.proxy.async") == len(branches) + 1
    assert "fence.proxy.async.shared::cta" in ptx(UNALIGNED)


def test_unaligned_matmul_keeps_cp_async_without_setmaxnreg():
    out = ptx(UNALIGNED)
    assert "cp.async.bulk.tensor" not in out and "tensormap" not in out and "__tilec_tmap" not in out
    assert "setmaxnreg" not in out and ".maxnreg" not in out
    assert "cp.async.cg.shared.global" in out
    assert "wgmma.wait_group.sync.aligned \t1" in out     # in flight all the same


def test_one_stage_keeps_the_group_waited_for():
    out = ptx(ALIGNED, num_stages=1)
    assert "wgmma.wait_group.sync.aligned \t1" not in out
    assert "wgmma.wait_group.sync.aligned \t0" in out


def test_rescaled_accumulators_wait_every_iteration():
    """Attention rescales its accumulator each key tile: it leaves the wgmma's
    registers, so the group cannot stay in flight."""
    out = ptx(os.path.join(ROOT, "examples", "cutile", "attention_m128_f16.mlir"))
    assert "wgmma.mma_async" in out and "wgmma.wait_group.sync.aligned \t1" not in out


def test_no_tma_when_a_nested_return_could_skip_the_release():
    src = text(ALIGNED)
    body_end = src.rindex("    return\n")
    # an early exit for blocks past the array: taken before the slot is given back
    early = ("    %early_c0 = constant <i32: 0> : tile<i32>\n"
             "    %early_p = cmpi less_than %blockId_x, %early_c0, signed : tile<i32> -> tile<i1>\n"
             "    if %early_p {\n      return\n    }\n")
    first = src.index("    %pview = make_partition_view")
    out = ptx(src[:first] + early + src[first:body_end] + src[body_end:])
    assert "cp.async.bulk.tensor" not in out and "setmaxnreg" not in out


def test_fp8_runs_on_wgmma_k_major():
    out = ptx(FP8)
    assert out.count("wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3") == 8
    assert re.search(r"e4m3\.e4m3 \t\{[^}]*\}, %rd\d+, %rd\d+, 1, 1, 1;", out)   # no transpose immediates
    assert out.count("cp.async.bulk.tensor.2d.shared::cluster") == 2


@pytest.mark.parametrize("path", [ALIGNED, FP8] + [os.path.join(ROOT, "examples", "cutile", f"{k}.mlir") for k in (
    "bmm_tt_f16_aligned", "persistent_bmm_f16_aligned", "attention_m128_f16_aligned")])
def test_ptxas_takes_the_mainloop_without_spills_or_serialization(path, tmp_path):
    """Also the staged TMA-store epilogue of the aligned, bmm, persistent and
    attention kernels (tests/test_tma_store.py)."""
    text = ptx(path)
    err = ptxas_stderr(text, tmp_path)
    assert " 0 bytes spill stores" in err
    assert "C7508" not in err          # setmaxnreg ignored
    assert "C7514" not in err and "C7511" not in err and "C7520" not in err   # wgmma serialized
    assert "C75" not in err            # nor any other performance advisory
    assert "cp.async.bulk.tensor" in text


def _stage_counts(path, *extra):
    import sys
    r = subprocess.run([sys.executable, "-m", "tilec.cli", "opt", path, "--lower-to-tileas", *extra],
                       capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    return sorted(set(int(n) for n in re.findall(r"numStages = (\d+)", r.stdout)))


def test_tma_stages_fill_the_shared_memory_one_cta_holds():
    """Agents whose register budgets leave one CTA per SM: the shared memory no
    second CTA can use holds more TMA stages (6 of 32 KB here, 197 KB in all, as
    tileiras's cubin of the same kernel); cp.async loops and explicit counts keep theirs."""
    assert _stage_counts(ALIGNED, "--schedule") == [5]          # and the 32 KB epilogue tile (test_tma_store.py)
    assert _stage_counts(ALIGNED, "--schedule=tma-store=false") == [6]
    assert _stage_counts(ALIGNED, "--schedule=num-stages=3") == [3]
    assert _stage_counts(ALIGNED, "--schedule=tma=false") == [3]
    assert _stage_counts(UNALIGNED, "--schedule") == [3]
    out = ptx(ALIGNED)
    smem = int(re.search(r"dynamic_shared_bytes \w+ (\d+)", out).group(1))
    assert 6 * 32768 <= smem <= 227 * 1024 - 16 * 1024 + 1024


BMM_TT = os.path.join(ROOT, "examples", "cutile", "bmm_tt_f16_aligned.mlir")
PERSISTENT = os.path.join(ROOT, "examples", "cutile", "persistent_bmm_f16_aligned.mlir")
ATTENTION = os.path.join(ROOT, "examples", "cutile", "attention_m128_f16_aligned.mlir")


def _with_occupancy(path, n):
    src = text(path)
    hinted = src.replace("optimization_hints=<sm_90 = {}>", f"optimization_hints=<sm_90 = {{occupancy = {n}}}>")
    assert hinted != src
    return hinted


def _budget(out):
    """(.maxnreg, dynamic shared bytes) of a kernel's PTX."""
    return (int(re.search(r"\.maxnreg (\d+)", out).group(1)),
            int(re.search(r"dynamic_shared_bytes \w+ (\d+)", out).group(1)))


def _ctas_per_sm(out, threads):
    regs, smem = _budget(out)
    return min(65536 // (regs * threads), 228 * 1024 // (smem + 1024))


@pytest.mark.parametrize("path,auto", [(ALIGNED, 1), (BMM_TT, 2), (PERSISTENT, 1), (ATTENTION, 1)])
def test_occupancy_sizes_registers_and_stages_for_that_many_ctas(path, auto):
    """cuTile's `occupancy` hint (CTAs per SM) sizes the agents' register budgets
    (`.maxnreg`) and the TMA stages to 1/N of an SM. Without one the schedule takes
    two for an outermost TMA loop whose consumers fit half the registers (a 64x64
    batched tile), one for a persistent kernel, the 128x128 GEMM and attention."""
    threads = int(re.search(r"\.reqntid (\d+)", ptx(path)).group(1))
    assert _ctas_per_sm(ptx(path), threads) == auto
    assert _ctas_per_sm(ptx(_with_occupancy(path, 1)), threads) == 1
    if path != ATTENTION:       # two attention CTAs leave each consumer 108 registers: too few
        hinted = ptx(_with_occupancy(path, 2))
        assert _ctas_per_sm(hinted, threads) == 2
        assert "setmaxnreg.inc.sync.aligned.u32 \t216" in hinted


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not on PATH")
@pytest.mark.parametrize("path", [ALIGNED, BMM_TT])
def test_ptxas_fits_two_ctas_without_spills(path, tmp_path):
    p = tmp_path / "k.ptx"
    p.write_text(ptx(_with_occupancy(path, 2)))
    r = subprocess.run(["ptxas", "-arch=sm_90a", "-v", str(p), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert " 0 bytes spill stores" in r.stderr and "C7508" not in r.stderr


def test_occupancy_option_and_bad_values(run_cli):
    """`schedule{occupancy=N}` overrides the hint; a negative one is refused."""
    assert _stage_counts(ALIGNED, "--schedule=occupancy=2") == [3]
    assert _stage_counts(ALIGNED, "--schedule=occupancy=1") == [5]       # beside the epilogue's tile
    rc, _, err = run_cli("opt", ALIGNED, "--lower-to-tileas", "--schedule=occupancy=-1")
    assert rc != 0 and "invalid schedule options" in err and "occupancy=-1" in err


def _simulate_aligned(m, n, k, grid, seed, edit=lambda out: out, init=None):
    """Run the aligned matmul's PTX (after `edit`, from the globals `init`) in the
    simulator on random operands, check C, and return the simulation's result."""
    import numpy as np
    try:
        import ptxsim
    except ImportError:                     # pragma: no cover
        from tests import ptxsim
    from tilec.runtime import convert_scalars
    src = text(ALIGNED)
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float16)
    args = [a, m, k, k, 1, b, k, n, n, 1, c, m, n, n, 1]
    res = ptxsim.run_ptx(edit(ptx(src)), "matmul_f16_aligned", grid, convert_scalars(src, args),
                         globals_init=init)
    want = a.astype(np.float64) @ b.astype(np.float64)
    assert np.all(np.abs(c - want) <= 2e-3 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))) + 1e-3)
    return res


BUSY = "__tilec_tmap_busy_matmul_f16_aligned"


def _fields(res):
    """Each slot's 16-bit field of the busy words, by slot: bit 0 busy, bits 1-15
    the generation its last writer released it at."""
    import numpy as np
    return res.global_as(BUSY, np.uint16)


def _keys(res, i):
    """Map i's key words by slot, as (values, generation tags)."""
    import numpy as np
    words = res.global_as(f"__tilec_tmapkeys_matmul_f16_aligned_{i}", np.uint64).reshape(-1, 16)
    return words & 0xFFFFFFFF, words >> 32


def test_slots_are_released_and_their_keys_let_later_ctas_skip_the_build():
    """Six CTAs over the simulator's four SMs (%smid = CTA index mod 4): CTAs 0-3
    build their maps in their SMs' first slots and free them at generation 1;
    CTAs 4 and 5 claim the slots CTAs 0 and 1 gave back, find their own tensors'
    keys there at that generation and use the maps without building them (a build
    would have moved the slot to generation 2). The result stays right."""
    import numpy as np
    m, k = 384, 128
    res = _simulate_aligned(m, 256, k, (3, 2, 1), 7)
    fields = _fields(res)
    assert np.nonzero(fields)[0].tolist() == [0, 4, 8, 12] and (fields[[0, 4, 8, 12]] == 2).all()
    for i in range(3):                      # A, B and C (the epilogue's TMA store)
        values, tags = _keys(res, i)
        assert np.nonzero(tags[:, 0])[0].tolist() == [0, 4, 8, 12]
        assert (tags[[0, 4, 8, 12], :6] == 1).all() and not tags[:, 6:].any()
    values, _ = _keys(res, 0)
    assert values[0, 4] == k and values[0, 5] == m          # A's dims, innermost first


def test_taken_slots_and_full_words_send_the_claim_further():
    """The claim ORs in the busy bit of its SM's first slot, and loads that slot's
    keys before its answer. Where that slot is held, it takes the lowest slot the
    atom saw free, and reads the keys there; where the word is full, the next
    word. Busy words preset: slot 0 held, word 1 (slots 4-7) full. CTA 0 (SM 0)
    gets slot 1, CTA 1 (SM 1) slot 8, and the preset slots stay held."""
    import numpy as np
    fields = np.zeros(8192, np.uint16)
    fields[[0, 4, 5, 6, 7]] = 1
    res = _simulate_aligned(128, 256, 128, (1, 2, 1), 3, init={BUSY: fields.tobytes()})
    after = _fields(res)
    assert after[[0, 4, 5, 6, 7]].tolist() == [1] * 5 and after[[1, 8]].tolist() == [2, 2]
    assert np.nonzero(after)[0].tolist() == [0, 1, 4, 5, 6, 7, 8]
    assert np.nonzero(_keys(res, 0)[1][:, 0])[0].tolist() == [1, 8]


def test_a_key_is_trusted_only_at_its_slots_generation():
    """One CTA, one launch after another, each from the globals the one before
    left. At the generation the claim sees, the keys let the CTA reuse the maps;
    a key word stamped with any other generation (a key read while a writer was
    rewriting it, or from before) is not trusted, and that map is built again.
    Then the slot goes to the next generation, and the maps the CTA reused beside
    it are stamped with it too; after 32767 the generation wraps to 1 (0 is a slot
    never written), and the add that frees the slot leaves its neighbours alone."""
    import numpy as np

    def launch(state, **patch):
        init = dict(state.globals)
        for name, edit in patch.items():
            init[name] = edit(np.array(state.globals[name]))
        return _simulate_aligned(128, 128, 128, (1, 1, 1), 5, init=init)

    def fields_at(values):
        def edit(raw):
            f = raw.view(np.uint16)
            for slot, v in values.items():
                f[slot] = v
            return raw
        return edit

    first = _simulate_aligned(128, 128, 128, (1, 1, 1), 5)
    assert _fields(first)[0] == 2 and (_keys(first, 1)[1][0, :6] == 1).all()
    again = launch(first)
    assert _fields(again)[0] == 2                              # reused: no write, same generation
    moved = launch(first, **{BUSY: fields_at({0: 2 * 2})})      # the slot at generation 2, keys at 1
    assert _fields(moved)[0] == 2 * 3 and all((_keys(moved, i)[1][0, :6] == 3).all() for i in range(3))

    def stale_word(raw):
        w = raw.view(np.uint64).reshape(-1, 16)
        w[0, 1] = w[0, 1] & 0xFFFFFFFF | (7 << 32)               # B's base, high half, at generation 7
        return raw
    one = launch(first, __tilec_tmapkeys_matmul_f16_aligned_1=stale_word)
    assert _fields(one)[0] == 2 * 2
    assert all((_keys(one, i)[1][0, :6] == 2).all() for i in range(3))    # A and C restamped beside B
    assert (_keys(one, 1)[0] == _keys(first, 1)[0]).all()

    def at_max(raw):
        w = raw.view(np.uint64).reshape(-1, 16)
        w[0, :6] = w[0, :6] & 0xFFFFFFFF | (32767 << 32)
        return raw
    top = launch(first, **{BUSY: fields_at({0: 2 * 32767, 1: 0x1234, 3: 0xFFFE}),
                           **{f"__tilec_tmapkeys_matmul_f16_aligned_{i}": at_max for i in range(3)}})
    assert _fields(top)[[0, 1, 3]].tolist() == [2 * 32767, 0x1234, 0xFFFE]      # reused at 32767
    wrap = launch(first, **{BUSY: fields_at({0: 2 * 32767, 1: 0x1234, 3: 0xFFFE})})
    assert _fields(wrap)[[0, 1, 3]].tolist() == [2, 0x1234, 0xFFFE]
    assert all((_keys(wrap, i)[1][0, :6] == 1).all() for i in range(3))


# Two pipelined K loops, C = A @ B + sum_j (D_j + Q) @ E_j, where Q (A's first
# 128x64 tile, read by a plain load) stands between them: D and E's maps are a
# second batch, built after the first loop's.
TWO_BATCHES = """\
cuda_tile.module @matmul_two_loops_f16_aligned {
  entry @matmul_two_loops_f16_aligned(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %d: tile<ptr<f16>>, %e: tile<ptr<f16>>, %c: tile<ptr<f16>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>) optimization_hints=<sm_90 = {}> {
    %tok = make_token : token
    %pa = assume div_by<16>, %a : tile<ptr<f16>>
    %pb = assume div_by<16>, %b : tile<ptr<f16>>
    %pd = assume div_by<16>, %d : tile<ptr<f16>>
    %pe = assume div_by<16>, %e : tile<ptr<f16>>
    %pc = assume div_by<16>, %c : tile<ptr<f16>>
    %m0 = assume bounded<0, ?>, %m : tile<i32>
    %m1 = assume div_by<16>, %m0 : tile<i32>
    %n0 = assume bounded<0, ?>, %n : tile<i32>
    %n1 = assume div_by<16>, %n0 : tile<i32>
    %k0 = assume bounded<0, ?>, %k : tile<i32>
    %k1 = assume div_by<16>, %k0 : tile<i32>
    %va = make_tensor_view %pa, shape = [%m1, %k1], strides = [%k1, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %vb = make_tensor_view %pb, shape = [%k1, %n1], strides = [%n1, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %vd = make_tensor_view %pd, shape = [%m1, %k1], strides = [%k1, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %ve = make_tensor_view %pe, shape = [%k1, %n1], strides = [%n1, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %vc = make_tensor_view %pc, shape = [%m1, %n1], strides = [%n1, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %zero = constant <f32: 0.000000e+00> : tile<128x128xf32>
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %pva = make_partition_view %va : partition_view<tile=(128x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pvb = make_partition_view %vb : partition_view<tile=(64x128), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %steps:2 = get_index_space_shape %pva : partition_view<tile=(128x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>> -> tile<i32>
    %acc1 = for %i in (%c0 to %steps#1, step %c1) : tile<i32> iter_values(%x = %zero) -> (tile<128x128xf32>) {
      %ta, %t1 = load_view_tko weak %pva[%bx, %i] token = %tok : partition_view<tile=(128x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<128x64xf16>, token
      %tb, %t2 = load_view_tko weak %pvb[%i, %by] token = %tok : partition_view<tile=(64x128), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x128xf16>, token
      %y = mmaf %ta, %tb, %x : tile<128x64xf16>, tile<64x128xf16>, tile<128x128xf32>
      continue %y : tile<128x128xf32>
    }
    %vq = make_tensor_view %a, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %pvq = make_partition_view %vq : partition_view<tile=(128x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %tq, %tq1 = load_view_tko weak %pvq[%bx, %c0] token = %tok : partition_view<tile=(128x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<128x64xf16>, token
    %pvd = make_partition_view %vd : partition_view<tile=(128x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pve = make_partition_view %ve : partition_view<tile=(64x128), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %acc2 = for %j in (%c0 to %steps#1, step %c1) : tile<i32> iter_values(%x = %acc1) -> (tile<128x128xf32>) {
      %td, %t3 = load_view_tko weak %pvd[%bx, %j] token = %tok : partition_view<tile=(128x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<128x64xf16>, token
      %te, %t4 = load_view_tko weak %pve[%j, %by] token = %tok : partition_view<tile=(64x128), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x128xf16>, token
      %tdq = addf %td, %tq : tile<128x64xf16>
      %y = mmaf %tdq, %te, %x : tile<128x64xf16>, tile<64x128xf16>, tile<128x128xf32>
      continue %y : tile<128x128xf32>
    }
    %out = ftof %acc2 : tile<128x128xf32> -> tile<128x128xf16>
    %pvc = make_partition_view %vc : partition_view<tile=(128x128), tensor_view<?x?xf16, strides=[?,1]>>
    %st = store_view_tko weak %out, %pvc[%bx, %by] token = %tok : tile<128x128xf16>, partition_view<tile=(128x128), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
"""


def test_keys_of_every_batch_move_to_the_generation_a_later_batch_writes_at():
    """The slot's next generation covers every key in it. Where the second batch
    rebuilds a map, the first batch's keys (reused) are read back and stamped with
    it; where the first batch rebuilds one, the second batch's reused keys are
    stamped from their values. Either way the launch after finds every key at the
    slot's generation and builds nothing."""
    import numpy as np
    try:
        import ptxsim
    except ImportError:                     # pragma: no cover
        from tests import ptxsim
    from tilec.runtime import convert_scalars
    name = "matmul_two_loops_f16_aligned"
    code = compile_text(TWO_BATCHES, "sm_90a")
    assert len(re.findall(r"^\$L_tmap_built\w*:", code, re.M)) == 2
    m = n = k = 128
    rng = np.random.default_rng(11)
    a, b, d, e = (rng.standard_normal(s).astype(np.float16) for s in [(m, k), (k, n), (m, k), (k, n)])
    want = (a.astype(np.float64) @ b + (d + np.tile(a[:, :64], (1, k // 64))).astype(np.float64) @ e)

    def launch(init=None):
        c = np.zeros((m, n), np.float16)
        res = ptxsim.run_ptx(code, name, (1, 1, 1), convert_scalars(TWO_BATCHES, [a, b, d, e, c, m, n, k]),
                             globals_init=init)
        assert np.abs(c - want).max() <= 0.05 * np.abs(want).max()
        return res

    def field(res):
        return int(res.global_as(f"__tilec_tmap_busy_{name}", np.uint16)[0])

    def tags(res):
        return [set((res.global_as(f"__tilec_tmapkeys_{name}_{i}", np.uint64).reshape(-1, 16)[0] >> 32)
                    .tolist()) - {0} for i in range(5)]

    def stale(res, i):
        init = dict(res.globals)
        raw = np.array(res.globals[f"__tilec_tmapkeys_{name}_{i}"])
        raw.view(np.uint64)[0] ^= 1 << 40                 # map i's first word, at another generation
        init[f"__tilec_tmapkeys_{name}_{i}"] = raw
        return init

    first = launch()
    assert field(first) == 2 and tags(first) == [{1}] * 5
    for i in (3, 0):                                      # a map of the second batch, of the first
        moved = launch(stale(first, i))
        assert field(moved) == 4 and tags(moved) == [{2}] * 5, i
        after = launch(moved.globals)
        assert field(after) == 4 and tags(after) == [{2}] * 5


def test_maps_start_up_in_one_round_trip_and_release_without_waiting_for_stores():
    """The CTA's tensor maps are one batch: one claim, every key load issued
    before any is compared, one CTA barrier after the builds, and no fence on a
    build's path (the barrier is the maps' gate where first fills go out
    meanwhile: test_first_fills.py). The claim's first atom goes out at the entry, before the
    barrier inits and their CTA barrier (on an H100 the claim came back 1.0-2.0 us
    after the entry when it waited for them, the maps ready 1.5-3 us after), and
    the keys of the slot it asks for are loaded before its answer: where the
    first try wins, the start-up is one round trip. The slot goes back with a
    release add where the CTA wrote a map or key (the next holder sees them, at
    the next generation), else with a relaxed and, so a CTA that reused the maps
    does not wait for the epilogue's stores at its exit."""
    out = ptx(ALIGNED)
    start = out.index("atom.acquire.gpu.global.or.b64")
    assert start < out.index("mbarrier.init") < out.index("fence.mbarrier_init") < out.index("$L_tmap_check")
    loads = [m.start() for m in re.finditer(r"ld\.relaxed\.gpu\.global\.u64 \t%\w+, \[%rd\d+\+\d+\]", out)]
    compares = [m.start() for m in re.finditer(r"setp\.eq\.and\.u64", out)]
    claim = out.index("$L_tmap_try")
    # six key words a map (base, one stride, two dims, by 32-bit halves): A, B and C's (the TMA store)
    speculative = [x for x in loads if x < claim]
    assert len(speculative) == 18 and speculative[0] > out.index("fence.mbarrier_init")
    retry, got = out.index("bra \t$L_tmap_keys"), re.search(r"^\$L_tmap_keys\w*:", out, re.M).start()
    assert claim < retry and len([x for x in loads if retry < x < got]) == 18 and len(compares) == 18
    assert max(loads) < min(compares)
    between = out[speculative[0]:out.index("$L_agent")]
    # first fills go out meanwhile, so the batch ends at the maps' gate, not at a CTA barrier
    # (the other arrivals: the first issuer's on each copied slot's `full`, one per pipeline)
    assert between.count("bar.sync") == 0
    assert between.count("mbarrier.arrive.shared.b64 \t%rd") == 1 and between.count("mbarrier.arrive.shared.b64 \t_") == 2
    assert "fence.acq_rel" not in out
    assert "red.release.gpu.global.add.u64" in out and "red.relaxed.gpu.global.and.b64" in out


def test_proven_alignment_drops_the_run_time_vector_test():
    """The epilogue's vector stores test alignment at run time unless the IR
    proves it: the aligned specialization has no element-wise fallback (with
    two CTAs per SM it has no room for the TMA store's staging tile, so it
    stores from registers), the unaligned one keeps it."""
    two = ptx(_with_occupancy(ALIGNED, 2))
    assert "$L_scalar_access" not in two and "st.global.v2.b16" in two and "bulk_group" not in two
    assert "$L_scalar_access" in ptx(UNALIGNED)


def test_an_occupancy_hint_the_tensor_core_tiles_cannot_keep_is_not_honoured(run_cli, tmp_path):
    """Three attention CTAs per SM leave each consumer thread 64 registers, fewer
    than the 96 that S, P and O hold at once (wgmma operands in flight cannot
    spill: ptxas refused TileGym's gemma attention at two, C7602). The hint is
    advice: the schedule warns and keeps one CTA. The 128x128 GEMM's 128
    accumulator registers fit two CTAs' budget, and it keeps that hint
    (test_occupancy_sizes_registers_and_stages_for_that_many_ctas)."""
    src = tmp_path / "att.mlir"
    src.write_text(_with_occupancy(ATTENTION, 3))
    rc, out, err = run_cli("compile", str(src), "--arch", "sm_90a", "-o", str(tmp_path / "att.ptx"))
    assert rc == 0, err
    assert re.search(r"warning: occupancy 3 leaves each consumer thread 64 registers, fewer than the 96 its "
                     r"tensor-core tiles hold at once; using 1 CTA per SM", err)
    threads = int(re.search(r"\.reqntid (\d+)", (tmp_path / "att.ptx").read_text()).group(1))
    assert _ctas_per_sm((tmp_path / "att.ptx").read_text(), threads) == 1


def test_mbarriers_keep_their_shared_memory_for_the_whole_kernel():
    """The PTX ISA lets an mbarrier's memory serve nothing else until it is
    invalidated, and tilec never invalidates one: a buffer of a later phase (a
    second batch of tensor maps, between two pipelined loops) is never placed
    over a pipeline's barriers, although their last use is an earlier phase."""
    from tilec.codegen.ptx.builder import KernelBuilder
    kb = KernelBuilder("k")
    bars = kb.shared_buffer(64, 8, "full", span=kb.WHOLE_KERNEL)
    kb.mark_phase(0)
    kb.emit(f"mbarrier.init.shared.b64 \t[{bars}], 1")
    kb.mark_phase(2)
    later = kb.shared_buffer(128, 128, "tmap")
    kb.emit(f"st.shared.u32 \t[{later}], 0")
    offsets, _, _ = kb.shared_layout()
    assert offsets[later] >= offsets[bars] + 64 or offsets[later] + 128 <= offsets[bars]


def test_a_hint_not_honoured_does_not_shrink_the_shared_memory_of_the_operands():
    """Where the schedule keeps one CTA per SM against an `occupancy` hint, the
    loop-invariant dot operands (attention's Q) get the room of one CTA too:
    Q is read in place from shared memory as without the hint, not staged into
    registers because three CTAs' share of shared memory would not hold it."""
    from tilec.compiler import lower_and_schedule
    from tilec.frontend import parse_and_verify
    from tilec.ir.diagnostics import DiagnosticEngine
    from tilec.syntax.printer import print_ops

    def shared_operands(text):
        engine = DiagnosticEngine()
        ops = lower_and_schedule(parse_and_verify(text, "att.mlir", engine), engine, "sm_90a", 4, None)
        return print_ops(ops).count("{layout = #nv_tileas<layout shared>")
    plain = shared_operands(text(ATTENTION))
    assert plain >= 1
    assert shared_operands(_with_occupancy(ATTENTION, 3)) == plain
