"""The epilogue's TMA store (tilec/schedule/tma_store.py, ops_tma._tma_store,
Emitter._stmatrix): a warp-specialized TMA loop's result goes out through a
swizzled staging tile, written with stmatrix, and one bulk tensor copy per
128-byte panel that clips at the tensor's edge. The simulator runs these
kernels against the interpreter (test_ptxsim_tma.py, test_ptxsim_eager.py,
test_ptx_sim.py run the aligned examples); here the IR, the budget and the
PTX's shape are pinned."""
from __future__ import annotations

import os
import random
import re
import subprocess
import sys

import pytest

from tilec.codegen.ptx import compile_text
from tilec.codegen.ptx.swizzle import Swizzle

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CUTILE = os.path.join(ROOT, "examples", "cutile")
ALIGNED = os.path.join(CUTILE, "matmul_f16_aligned.mlir")
UNALIGNED = os.path.join(CUTILE, "matmul_f16.mlir")
BMM_TT = os.path.join(CUTILE, "bmm_tt_f16_aligned.mlir")
PERSISTENT = os.path.join(CUTILE, "persistent_bmm_f16_aligned.mlir")
ATTENTION = os.path.join(CUTILE, "attention_m128_f16_aligned.mlir")


def opt(path, *extra):
    r = subprocess.run([sys.executable, "-m", "tilec.cli", "opt", path, "--lower-to-tileas", *extra],
                       capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    return r.stdout


def ptx(path, arch="sm_90a"):
    with open(path) as f:
        return compile_text(f.read(), arch=arch)


def stages(ir):
    return sorted(set(int(n) for n in re.findall(r"numStages = (\d+)", ir)))


def test_the_aligned_epilogue_is_staged_and_stored_by_tma():
    """The store of the converted accumulator becomes staging + TMA store; the
    staging tile (32 KB) takes the room of one of the six stages, as in
    tileiras's cubin of the same kernel (five stages and a 32 KB epilogue tile)."""
    ir = opt(ALIGNED, "--schedule")
    assert "nv_tileas.tiled_store" not in ir
    assert re.search(r"nv_tileas.alloc_tensor \{nv_tileas.staging_buffer = 0 : i32\} : tensor<128x128xf16>", ir)
    assert re.search(r"make_tiled_tma_desc .*atom tma_store_2d>.*swizzle_mode<128B>", ir)
    assert re.search(r'"nv_tileas.store"\(%\w+, %\w+\) : \(!nv_tileaa.tiled_view<128x128xf16, SMEM>', ir)
    assert "nv_tileas.async.tiled_tma_store" in ir
    assert stages(ir) == [5]
    off = opt(ALIGNED, "--schedule=tma-store=false")
    assert "nv_tileas.tiled_store" in off and "tiled_tma_store" not in off and stages(off) == [6]


@pytest.mark.parametrize("path,args", [(UNALIGNED, ["--schedule"]), (ALIGNED, ["--schedule=tma=false"]),
                                       (ALIGNED, ["--schedule=occupancy=2"]),
                                       (ALIGNED, ["--schedule=num-stages=7"]),
                                       (ALIGNED, ["--schedule", "--arch", "sm_80"])])
def test_stores_stay_where_tma_or_the_room_is_missing(path, args):
    """No tensor map for the view (unaligned), no TMA loads to batch with, stages
    the staging tile would take (two CTAs' halves; seven requested stages fit
    alone, not beside it), or no TMA on the target: the store stays a register
    store."""
    ir = opt(path, *args)
    assert "tiled_tma_store" not in ir and "nv_tileas.tiled_store" in ir


def test_the_ptx_writes_the_tile_with_stmatrix_and_copies_each_panel():
    out = ptx(ALIGNED)
    assert out.count("stmatrix.sync.aligned.m8n8.x4.shared.b16") == 16     # 128x128 f16 in one warpgroup
    assert "st.shared.v2.b16" not in out
    stores = re.findall(r"cp\.async\.bulk\.tensor\.2d\.global\.shared::cta\.bulk_group \t\[(%rd\d+), "
                        r"\{(%r\d+), (%r\d+)\}\], \[(%r\d+)\]", out)
    assert len(stores) == 2 and stores[0][0] == stores[1][0] and stores[0][2] == stores[1][2]
    tail = out[out.index("stmatrix"):]
    order = [tail.index(s) for s in ("fence.proxy.async.shared::cta", "bar.sync", "bulk_group",
                                     "cp.async.bulk.commit_group", "cp.async.bulk.wait_group \t0")]
    assert order == sorted(order)
    # the second panel: columns + 64, 16 KB further in the staging tile
    assert re.search(rf"add.s32 \t{re.escape(stores[1][1])}, {re.escape(stores[0][1])}, 64", out)
    assert re.search(rf"add.u32 \t{re.escape(stores[1][3])}, {re.escape(stores[0][3])}, 16384", out)


def test_a_unit_batch_dimension_and_a_loop_over_tiles():
    """A rank-3 (1, M, N) tile still takes stmatrix (its layout only adds a unit
    dimension); in a persistent kernel the leader waits until the copy has read
    the tile, and the group waits for it, before the next tile is written."""
    bmm = ptx(BMM_TT)
    assert "cp.async.bulk.tensor.3d.global.shared::cta.bulk_group" in bmm and "stmatrix" in bmm
    loop = ptx(PERSISTENT)
    assert re.search(r"cp\.async\.bulk\.wait_group\.read \t0;\n\tbar\.sync", loop)
    att = ptx(ATTENTION)
    assert att.count("bulk_group \t") == 1 and att.count("stmatrix") == 4


class _Recorder:
    """A KernelBuilder stand-in: names registers and keeps the instructions."""

    def __init__(self):
        self.lines, self.n = [], 0

    def reg(self, _cls):
        self.n += 1
        return f"%r{self.n}"

    def emit(self, line):
        self.lines.append(line)


def _run(lines, env):
    """Evaluate the integer instructions Swizzle.addresses emits."""
    ops = {"add.u32": lambda a, b: a + b, "shr.u32": lambda a, b: a >> b, "and.b32": lambda a, b: a & b,
           "xor.b32": lambda a, b: a ^ b, "shl.b32": lambda a, b: a << b, "mul.lo.u32": lambda a, b: a * b}
    for line in lines:
        op, args = line.split(" \t")
        d, *src = [x.strip() for x in args.split(",")]
        vals = [env[x] if x.startswith("%") else int(x) for x in src]
        env[d] = (vals[0] * vals[1] + vals[2]) if op == "mad.lo.u32" else ops[op](*vals)
    return env


@pytest.mark.parametrize("pitch,rows", [(128, 64), (256, 128), (64, 32), (512, 16)])
def test_column_offsets_xor_into_the_row_address(pitch, rows):
    """With `col_bits` (the bits the thread's in-row offset may set), a column
    offset of none of those bits costs one XOR; every address still equals the
    swizzle's own mapping."""
    swz = Swizzle.for_rows(pitch, rows)
    rnd = random.Random(pitch)
    for _ in range(40):
        kb = _Recorder()
        row, lane_col = rnd.randrange(rows), rnd.choice((0, 16))
        where = swz.addresses(kb, "%base", "%xb", col_bits=16)
        offs = [8 * k * pitch + c for k in range((rows - row) // 8) for c in range(0, pitch, 32)]
        got = [where(o) for o in offs]
        env = _run(kb.lines, {"%base": 4096, "%xb": row * pitch + lane_col})
        for o, g in zip(offs, got):
            reg, imm = g[1:-1].split("+")
            assert env[reg] + int(imm) == 4096 + swz.apply(row * pitch + lane_col + o), (row, lane_col, o)
        # one XOR per column within a 128-byte line, shared by the row offsets and panels
        want = len({(8 * k * pitch) % swz.period for k in range((rows - row) // 8)}) * (min(pitch, 128) // 32 - 1)
        assert sum(bool(re.match(r"xor\.b32 \t%r\d+, %r\d+, \d+$", line)) for line in kb.lines) == want
