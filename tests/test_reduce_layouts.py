"""Linear layouts (tilec/dialects/nv_tileas/linear_layout.py) and the reductions
derived from them (tilec/codegen/ptx/ops_reduce.py).

- to_linear agrees with the emitter's layouts: for every (slot, thread), the
  XOR of the bases gives offsets(slot) + the thread's base, with the bases
  computed from the emitter's formulas and, for a few layouts, read back from
  the emitted prologue run in the PTX simulator.
- A reduce of an MMA / wgmma accumulator runs in registers and shfl.sync.bfly:
  its shared buffer is (warps along the reduced dimension) x (result
  elements), not the tile, and the simulated PTX agrees with the interpreter
  at several warp counts.
- Every element type's shuffle (16-bit, 64-bit, predicates, the multi-operand
  argmax) gives the interpreter's result.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

from tilec.dialects.nv_tileas.layouts import MmaAcc, WgmmaAcc, blocked, mma_acc, wgmma_acc
from tilec.dialects.nv_tileas.linear_layout import LinearLayout, to_linear

try:
    import ptxsim
except ImportError:                    # pragma: no cover - importlib mode from the repository root
    from tests import ptxsim


# ---- the layouts' own formulas (as Emitter.bases emits them) ---------------------------------

def _base(layout, tid):
    if isinstance(layout, MmaAcc):
        lane, warp = tid & 31, tid >> 5
        return ((warp // layout.wn) * layout.tiles_m * 16 + (lane >> 2),
                (warp % layout.wn) * layout.tiles_n * 8 + 2 * (lane & 3))
    if isinstance(layout, WgmmaAcc):
        # warpgroups split M in whole 64-row chunks first, the rest split N
        lane, wg = tid & 31, tid >> 7
        bands = min(layout.warpgroups, layout.shape[0] // 64)
        cols = layout.warpgroups // bands
        return ((wg // cols) * (layout.shape[0] // bands) + ((tid >> 5) & 3) * 16 + (lane >> 2),
                (wg % cols) * (layout.shape[1] // cols) + 2 * (lane & 3))
    rest, out = tid, []
    for d in reversed(range(layout.rank)):
        t = layout.tpd[d]
        out.append((rest & (t - 1)) * (layout.vec if d == layout.rank - 1 else 1))
        rest >>= t.bit_length() - 1
    return tuple(reversed(out))


def _layouts():
    out = []
    for shape in [(8,), (16,), (1024,), (2, 2), (1, 32), (64, 1), (4, 64), (16, 128), (32, 32), (256, 128),
                  (8, 8, 16), (2, 4, 8, 16)]:
        for threads in (32, 64, 128, 256, 384, 512):
            out.append(blocked(shape, threads))
    for shape in [(16, 8), (32, 32), (64, 64), (128, 64), (128, 128), (256, 128)]:
        for threads in (32, 64, 128, 256, 512):
            for make in (mma_acc, wgmma_acc):
                lay = make(shape, threads)
                if lay is not None:
                    out.append(lay)
    return out


LAYOUTS = _layouts()


def _name(lay):
    return f"{type(lay).__name__}{'x'.join(map(str, lay.shape))}-t{lay.threads}"


@pytest.mark.parametrize("layout", LAYOUTS, ids=[_name(x) for x in LAYOUTS])
def test_linear_layout_gives_every_slot_and_thread_its_coordinates(layout):
    lin = to_linear(layout, layout.shape, layout.threads)
    assert lin is not None and lin.nslots == layout.nslots and lin.axis_aligned()
    for tid in range(layout.threads):
        base = _base(layout, tid)
        for slot in range(layout.nslots):
            want = tuple(b + o for b, o in zip(base, layout.offsets(slot)))
            assert lin.thread_coords(slot, tid) == want, (tid, slot)
    # copies (threads past the used ones) have zero bases; otherwise every element is held once
    if layout.replicas == 1 and layout.threads & (layout.threads - 1) == 0:
        assert lin.is_surjective() and not lin.free_bits("lane") and not lin.free_bits("warp")


def test_linear_layout_bases_read_as_the_isa_figures():
    """The mma.sync m16n8 accumulator: slot bits are column 1 and row 8, lane bits
    columns 2, 4 and rows 1, 2, 4; warps of a 2 x 2 grid walk 16 columns, then 16 rows."""
    lin = to_linear(MmaAcc((32, 32), 128, 2, 2))
    assert lin.reg == ((0, 1), (8, 0), (0, 8))
    assert lin.lane == ((0, 2), (0, 4), (1, 0), (2, 0), (4, 0))
    assert lin.warp == ((0, 16), (16, 0))
    assert lin.bits_into("lane", 1) == [0, 1] and lin.bits_into("warp", 0) == [1]
    wg = to_linear(WgmmaAcc((128, 64), 256))
    assert wg.warp == ((16, 0), (32, 0), (64, 0)) and wg.reg[2:] == ((0, 8), (0, 16), (0, 32))
    rep = to_linear(blocked((16,), 128))            # 16 threads hold it, the rest copy
    assert rep.lane[:4] == ((1,), (2,), (4,), (8,)) and rep.free_bits("lane") == [4]
    assert rep.free_bits("warp") == [0, 1]


def test_layouts_that_are_not_linear():
    assert to_linear(blocked((6, 32), 128)) is None                 # extents not powers of two
    assert to_linear(WgmmaAcc((64, 24), 128)) is None               # 12 registers per row block
    assert to_linear(MmaAcc((48, 32), 96, 1, 3)) is None            # three warps
    assert to_linear(blocked((32,), 16)) is None                    # less than a warp
    lay = blocked((32, 32), 128)
    assert to_linear(lay, (32, 32), 256) is None                    # not this group's layout
    assert isinstance(to_linear(lay, (32, 32), 128), LinearLayout)


def _bases_kernel(layout):
    """PTX whose threads write the coordinates Emitter.bases computes for them."""
    from tilec.codegen.ptx.builder import KernelBuilder
    from tilec.codegen.ptx.emitter import Emitter
    from tilec.codegen.ptx.ptxtypes import B32, B64
    from tilec.codegen.ptx.target import Target
    kb = KernelBuilder("k")
    em = Emitter(kb, Target.parse("sm_80"), layout.threads)
    out, tid = kb.reg(B64), kb.reg(B32)
    kb.emit(f"ld.param.u64 \t{out}, [p0]")
    kb.emit(f"mov.u32 \t{tid}, %tid.x")
    em.enter_group(tid, layout.threads, 0)
    bases = em.bases(layout)
    off = kb.reg(B64)
    kb.emit(f"mul.wide.u32 \t{off}, {tid}, {4 * len(bases)}")
    kb.emit(f"add.s64 \t{off}, {out}, {off}")
    for d, b in enumerate(bases):
        kb.emit(f"st.global.b32 \t[{off}+{4 * d}], {b}")
    kb.emit("ret")
    return "\n".join([".version 8.0", ".target sm_80", ".address_size 64",
                      ".visible .entry k(.param .u64 p0)", f".reqntid {layout.threads}, 1, 1", "{"]
                     + kb.declarations() + kb.body_lines() + ["}"]) + "\n"


@pytest.mark.parametrize("layout", [blocked((16, 128), 128), blocked((8, 8, 16), 256), blocked((16,), 128),
                                    mma_acc((64, 64), 128), mma_acc((128, 128), 256), wgmma_acc((128, 64), 256)],
                         ids=_name)
def test_linear_layout_matches_the_emitted_prologue(layout):
    check_emitted_bases(layout)


def check_emitted_bases(layout):
    """Every thread's first coordinates, as the emitter's prologue computes them in
    ptxsim, are the linear layout's."""
    got = np.zeros((layout.threads, layout.rank), np.int32)
    ptxsim.run_ptx(_bases_kernel(layout), "k", 1, [got])
    lin = to_linear(layout)
    assert [tuple(r) for r in got.tolist()] == [lin.thread_coords(0, t) for t in range(layout.threads)]


# ---- reductions of an MMA accumulator ----------------------------------------------------------

# a 64x64 f32 MMA accumulator %acc of %a (64x32 f16) times %b (32x64 f16), and its row
# maximum %rmax; %t is the token and %c0 the zero index (test_slice_layouts builds on it too)
MMA_ACC_ROWMAX = """    %t = make_token : token
    %va = make_tensor_view %a, shape = [64, 32], strides = [32, 1] : tensor_view<64x32xf16, strides=[32,1]>
    %vb = make_tensor_view %b, shape = [32, 64], strides = [64, 1] : tensor_view<32x64xf16, strides=[64,1]>
    %c0 = constant <i32: 0> : tile<i32>
    %pa = make_partition_view %va : partition_view<tile=(64x32), tensor_view<64x32xf16, strides=[32,1]>>
    %ta, %t1 = load_view_tko weak %pa[%c0, %c0] token = %t : partition_view<tile=(64x32), tensor_view<64x32xf16, strides=[32,1]>>, tile<i32> -> tile<64x32xf16>, token
    %pb = make_partition_view %vb : partition_view<tile=(32x64), tensor_view<32x64xf16, strides=[64,1]>>
    %tb, %t2 = load_view_tko weak %pb[%c0, %c0] token = %t : partition_view<tile=(32x64), tensor_view<32x64xf16, strides=[64,1]>>, tile<i32> -> tile<32x64xf16>, token
    %z = constant <f32: 0.000000e+00> : tile<64x64xf32>
    %acc = mmaf %ta, %tb, %z : tile<64x32xf16>, tile<32x64xf16>, tile<64x64xf32>
    %rmax = reduce %acc dim=1 identities=[0xFF800000 : f32] : tile<64x64xf32> -> tile<64xf32>
    (%l: tile<f32>, %r: tile<f32>) {
      %m = maxf %l, %r : tile<f32>
      yield %m : tile<f32>
    }
"""

MMA_STATS = """cuda_tile.module @mma_stats {
  entry @mma_stats(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %mx: tile<ptr<f32>>, %cs: tile<ptr<f32>>) {
""" + MMA_ACC_ROWMAX + """    %vm = make_tensor_view %mx, shape = [64], strides = [1] : tensor_view<64xf32, strides=[1]>
    %vc = make_tensor_view %cs, shape = [64], strides = [1] : tensor_view<64xf32, strides=[1]>
    %csum = reduce %acc dim=0 identities=[0.000000e+00 : f32] : tile<64x64xf32> -> tile<64xf32>
    (%l: tile<f32>, %r: tile<f32>) {
      %s = addf %l, %r : tile<f32>
      yield %s : tile<f32>
    }
    %pm = make_partition_view %vm : partition_view<tile=(64), tensor_view<64xf32, strides=[1]>>
    %s1 = store_view_tko weak %rmax, %pm[%c0] token = %t : tile<64xf32>, partition_view<tile=(64), tensor_view<64xf32, strides=[1]>>, tile<i32> -> token
    %pc = make_partition_view %vc : partition_view<tile=(64), tensor_view<64xf32, strides=[1]>>
    %s2 = store_view_tko weak %csum, %pc[%c0] token = %t : tile<64xf32>, partition_view<tile=(64), tensor_view<64xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
"""

TILE_BYTES = 64 * 64 * 4


def shared_bytes(ptx) -> int:
    m = re.search(r"tilec.dynamic_shared_bytes \S+ (\d+)", ptx)
    if m:
        return int(m.group(1))
    m = re.search(r"^\.shared .*\[(\d+)\];", ptx, re.M)
    return int(m.group(1)) if m else 0


def _compile(text, arch, **kw):
    from tilec.codegen.ptx import compile_text
    return compile_text(text, arch=arch, **kw)


@pytest.mark.parametrize("arch,wgmma", [("sm_80", None), ("sm_90a", True)])
def test_accumulator_reduce_runs_in_registers_and_shuffles(arch, wgmma, monkeypatch):
    """The row max and column sum of a 64x64 accumulator: butterflies over the lanes
    of the row (xor 1, 2) and of the column (xor 4, 8, 16), and a buffer of a few
    values per row; the shared-memory tree it replaces stores the whole tile."""
    ptx = _compile(MMA_STATS, arch, wgmma=wgmma)
    assert ("wgmma.mma_async" in ptx) == bool(wgmma)
    shfl = re.findall(r"shfl\.sync\.bfly\.b32 \t%f\d+, %f\d+, (\d+), 31, -1;", ptx)
    assert set(shfl) == {"1", "2", "4", "8", "16"}
    assert shared_bytes(ptx) < TILE_BYTES
    from tilec.codegen.ptx import ops_reduce
    monkeypatch.setattr(ops_reduce, "_reduce_distributed", lambda *a: False)
    tree = _compile(MMA_STATS, arch, wgmma=wgmma)
    assert "shfl" not in tree and shared_bytes(tree) >= TILE_BYTES
    assert shared_bytes(ptx) < shared_bytes(tree)


def _run_both(text, args, grid=(1,), **compile_kw):
    """(interpreter outputs, simulated outputs): copies of `args` after each ran."""
    from tilec.interp import launch as interp_launch, parse_module
    want = [a.copy() for a in args]
    got = [a.copy() for a in args]
    interp_launch(parse_module(text, "k.mlir"), None, grid, want)
    ptx = _compile(text, compile_kw.pop("arch", "sm_80"), **compile_kw)
    name = re.search(r"\.entry (\w+)\(", ptx).group(1)
    ptxsim.run_ptx(ptx, name, grid, got)
    return want, got, ptx


@pytest.mark.parametrize("arch,warps,wgmma", [("sm_80", 1, None), ("sm_80", 4, None), ("sm_80", 8, None),
                                              ("sm_90a", 4, True), ("sm_90a", 8, True)])
def test_accumulator_reduce_matches_the_interpreter(arch, warps, wgmma):
    rng = np.random.default_rng(warps)
    a = rng.standard_normal((64, 32)).astype(np.float16)
    b = rng.standard_normal((32, 64)).astype(np.float16)
    mx, cs = np.zeros(64, np.float32), np.zeros(64, np.float32)
    want, got, ptx = _run_both(MMA_STATS, [a, b, mx, cs], arch=arch, num_warps=warps, wgmma=wgmma)
    assert "shfl.sync.bfly" in ptx
    # the MMA rounds per k-step of 16, the interpreter once: the accumulators differ in the last bits
    np.testing.assert_allclose(got[2], want[2], rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(got[3], want[3], rtol=1e-5, atol=1e-4)


# ---- element types and operand counts -------------------------------------------------------

REDUCE_2D = """cuda_tile.module @m {
  entry @k(%x: tile<ptr<ET>>, %o: tile<ptr<ET>>) {
    %i = iota : tile<NTxi32>
    %rx = reshape %x : tile<ptr<ET>> -> tile<1xptr<ET>>
    %px = broadcast %rx : tile<1xptr<ET>> -> tile<NTxptr<ET>>
    %ax = offset %px, %i : tile<NTxptr<ET>>, tile<NTxi32> -> tile<NTxptr<ET>>
    %a, %t0 = load_ptr_tko weak %ax : tile<NTxptr<ET>> -> tile<NTxET>, token
    %m = reshape %a : tile<NTxET> -> tile<RxCxET>
    %r = reduce %m dim=DIM identities=[ID : ET] : tile<RxCxET> -> tile<NRxET>
    (%l: tile<ET>, %rr: tile<ET>) {
      %s = COMBINE : tile<ET>
      yield %s : tile<ET>
    }
    %j = iota : tile<NRxi32>
    %ro = reshape %o : tile<ptr<ET>> -> tile<1xptr<ET>>
    %po = broadcast %ro : tile<1xptr<ET>> -> tile<NRxptr<ET>>
    %ao = offset %po, %j : tile<NRxptr<ET>>, tile<NRxi32> -> tile<NRxptr<ET>>
    %t1 = store_ptr_tko weak %ao, %r : tile<NRxptr<ET>>, tile<NRxET> -> token
    return
  }
}
"""

TYPED = [("f16", np.float16, "maxf %l, %rr", "0xFC00", True),
         ("f64", np.float64, "addf %l, %rr", "0.000000e+00", False),
         ("i64", np.int64, "addi %l, %rr", "0", True),
         ("i16", np.int16, "mini %l, %rr signed", "32767", True),
         ("i32", np.int32, "xori %l, %rr", "0", True)]


@pytest.mark.parametrize("rows,cols", [(8, 64), (64, 8), (2, 512)])
@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("elt,dt,combine,ident,exact", TYPED, ids=[t[0] for t in TYPED])
def test_reduce_of_every_register_class_matches_the_interpreter(elt, dt, combine, ident, exact, dim, rows, cols):
    nr = cols if dim == 0 else rows
    text = (REDUCE_2D.replace("NTx", f"{rows * cols}x").replace("NRx", f"{nr}x").replace("RxCx", f"{rows}x{cols}x")
            .replace("DIM", str(dim)).replace("COMBINE", combine).replace("ID", ident).replace("ET", elt))
    rng = np.random.default_rng(rows + dim)
    if np.issubdtype(dt, np.integer):
        x = rng.integers(np.iinfo(dt).min, np.iinfo(dt).max, rows * cols, dtype=np.int64).astype(dt)
    else:
        x = (rng.standard_normal(rows * cols) * 100).astype(dt)
    want, got, ptx = _run_both(text, [x, np.zeros(nr, dt)])
    across_lanes = to_linear(blocked((rows, cols), 128)).bits_into("lane", dim)    # (2, 512), dim 0: none
    assert ("shfl.sync.bfly" in ptx) == bool(across_lanes)
    if exact:
        np.testing.assert_array_equal(got[1], want[1])
    else:
        np.testing.assert_allclose(got[1], want[1], rtol=1e-12, atol=1e-9)


REDUCE_I1 = """cuda_tile.module @m {
  entry @k(%x: tile<ptr<i32>>, %o: tile<ptr<i32>>) {
    %i = iota : tile<512xi32>
    %rx = reshape %x : tile<ptr<i32>> -> tile<1xptr<i32>>
    %px = broadcast %rx : tile<1xptr<i32>> -> tile<512xptr<i32>>
    %ax = offset %px, %i : tile<512xptr<i32>>, tile<512xi32> -> tile<512xptr<i32>>
    %a, %t0 = load_ptr_tko weak %ax : tile<512xptr<i32>> -> tile<512xi32>, token
    %m = reshape %a : tile<512xi32> -> tile<16x32xi32>
    %z = constant <i32: 0> : tile<16x32xi32>
    %p = cmpi greater_than %m, %z, signed : tile<16x32xi32> -> tile<16x32xi1>
    %r = reduce %p dim=1 identities=[1 : i1] : tile<16x32xi1> -> tile<16xi1>
    (%l: tile<i1>, %rr: tile<i1>) {
      %s = andi %l, %rr : tile<i1>
      yield %s : tile<i1>
    }
    %one = constant <i32: 1> : tile<16xi32>
    %zero = constant <i32: 0> : tile<16xi32>
    %v = select %r, %one, %zero : tile<16xi1>, tile<16xi32>
    %j = iota : tile<16xi32>
    %ro = reshape %o : tile<ptr<i32>> -> tile<1xptr<i32>>
    %po = broadcast %ro : tile<1xptr<i32>> -> tile<16xptr<i32>>
    %ao = offset %po, %j : tile<16xptr<i32>>, tile<16xi32> -> tile<16xptr<i32>>
    %t1 = store_ptr_tko weak %ao, %v : tile<16xptr<i32>>, tile<16xi32> -> token
    return
  }
}
"""


def test_predicate_reduce_matches_the_interpreter():
    rng = np.random.default_rng(5)
    x = rng.integers(1, 100, 512).astype(np.int32)
    x[rng.integers(0, 512, 12)] = -1          # some rows hold a non-positive value
    want, got, ptx = _run_both(REDUCE_I1, [x, np.zeros(16, np.int32)])
    assert "shfl.sync.bfly" in ptx and "selp.u32" in ptx
    assert 0 < want[1].sum() < 16
    np.testing.assert_array_equal(got[1], want[1])


# ---- scans over linear layouts ----------------------------------------------------------------

# REDUCE_2D with a scan in place of the reduce (NR = NT: the result has the tile's elements)
SCAN_2D = (REDUCE_2D
           .replace("%r = reduce %m dim=DIM identities=[ID : ET] : tile<RxCxET> -> tile<NRxET>",
                    "%r = scan %m dim=DIM reverse=REV identities=[ID : ET] : tile<RxCxET> -> tile<RxCxET>")
           .replace("%s = COMBINE : tile<ET>", "COMBINE")
           .replace("%j = iota : tile<NRxi32>", "%f = reshape %r : tile<RxCxET> -> tile<NRxET>")
           .replace("offset %po, %j :", "offset %po, %i :")
           .replace("weak %ao, %r :", "weak %ao, %f :"))

# (element, dtype, combiner, identity, exact): the projections are associative and not
# commutative, so they check the order in which the parts are combined
SCANNED = [("f32", np.float32, "%s = addf %l, %rr : tile<f32>", "0.000000e+00", False),
           ("i64", np.int64, "%s = maxi %l, %rr signed : tile<i64>", "-9223372036854775808", True),
           ("i32", np.int32, "%c = constant <i1: true> : tile<i1>\n      %s = select %c, %l, %rr : tile<i1>, tile<i32>",
            "0", True),
           ("f16", np.float16, "%s = maxf %l, %rr : tile<f16>", "0xFC00", True)]


@pytest.mark.parametrize("rows,cols", [(8, 64), (64, 8), (2, 512), (16, 1)])
@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("elt,dt,combine,ident,exact", SCANNED, ids=[t[0] for t in SCANNED])
def test_scan_over_a_linear_layout_matches_the_interpreter(elt, dt, combine, ident, exact, reverse, dim, rows, cols):
    """Scans along either dimension run in registers, butterflies and one exchange per
    warp bit (no shared-memory doubling tree), forward and reverse; the left-projection
    combiner (select on a constant true) pins the order of the combined parts."""
    n = f"{rows * cols}x"
    text = (SCAN_2D.replace("NTx", n).replace("NRx", n).replace("RxCx", f"{rows}x{cols}x")
            .replace("DIM", str(dim)).replace("REV", str(reverse).lower()).replace("COMBINE", combine)
            .replace("ID", ident).replace("ET", elt))
    rng = np.random.default_rng(rows + 3 * dim + int(reverse))
    if np.issubdtype(dt, np.integer):
        x = rng.integers(-1000, 1000, rows * cols).astype(dt)
    else:
        x = (rng.standard_normal(rows * cols) * 10).astype(dt)
    want, got, ptx = _run_both(text, [x, np.zeros(rows * cols, dt)])
    lin = to_linear(blocked((rows, cols), 128))
    if lin.bits_into("lane", dim):
        assert "shfl.sync.bfly" in ptx
    if exact:
        np.testing.assert_array_equal(got[1], want[1])
    else:
        np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-4)
