"""Swizzled pipeline slots (tilec/codegen/ptx/swizzle.py).

The mapping itself: a permutation of the tile's bytes that keeps 16-byte chunks
whole and spreads any eight consecutive rows' copies of one logical chunk over
eight different 16-byte bank groups (ldmatrix reads eight rows per phase). The
emitter: tensor-core operand slots are swizzled, and every kernel that reads
them still matches the interpreter (test_ptx_sim.py runs the matmul examples,
whose slots are swizzled, through the PTX simulator; tests/gpu on hardware)."""
import os

import pytest

from tilec.codegen.ptx.swizzle import Swizzle

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize("pitch", [32, 64, 128, 256, 512])
def test_swizzle_is_a_chunk_permutation_without_bank_conflicts(pitch):
    rows = 32
    swz = Swizzle.for_rows(pitch, rows)
    size = rows * pitch
    phys = [swz.apply(x) for x in range(size)]
    assert sorted(phys) == list(range(size))
    for x in range(0, size, 16):              # a chunk stays one contiguous chunk
        assert [swz.apply(x + i) for i in range(16)] == list(range(phys[x], phys[x] + 16))
    for r0 in range(0, rows, 8):
        for c in range(0, pitch, 16):
            groups = {(swz.apply((r0 + r) * pitch + c) // 16) % 8 for r in range(8)}
            assert len(groups) == 8, f"rows {r0}..{r0 + 7}, byte column {c}: bank groups {sorted(groups)}"


def test_wide_rows_are_cut_into_128_byte_panels():
    """Rows of 256 bytes: panel 1 (bytes 128-255 of every row) follows panel 0, and
    each panel is the 128-byte swizzle of a 128-byte-row tile (wgmma's MN-major
    layout with the panels `panel_bytes` apart)."""
    wide, narrow = Swizzle.for_rows(256, 16), Swizzle.for_rows(128, 16)
    assert wide.panels == 2 and wide.panel_bytes == 16 * 128
    for r in range(16):
        for c in range(0, 256, 16):
            want = (c // 128) * 2048 + narrow.apply(r * 128 + c % 128)
            assert wide.apply(r * 256 + c) == want


def test_row_major_conflicts_are_what_the_swizzle_removes():
    """The unswizzled layout is the eight-way conflict the module docstring names."""
    for pitch in (128, 256):
        assert len({(r * pitch // 16) % 8 for r in range(8)}) == 1


def test_short_or_odd_rows_are_not_swizzled():
    assert Swizzle.for_rows(16, 8) is None and Swizzle.for_rows(96, 8) is None
    assert Swizzle.for_rows(128, 12) is None                  # not whole 8-row groups
    assert Swizzle.for_rows(128, 8).apply(128 + 16) == 128    # row 1, chunk 1 -> chunk 0
    assert Swizzle.for_rows(128, 8).period == 1024


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_matmul_slots_are_swizzled(arch):
    """The matmul example's A and B slots feed mma.sync through ldmatrix: the
    producer's copies and the consumer's ldmatrix rows go through the XOR."""
    from tilec.codegen.ptx import compile_text
    with open(os.path.join(ROOT, "examples", "cutile", "matmul_f16.mlir")) as fh:
        ptx = compile_text(fh.read(), arch, wgmma=False)
    body = ptx.splitlines()
    xors = [i for i, line in enumerate(body) if "xor.b32" in line]
    ldm = [i for i, line in enumerate(body) if "ldmatrix" in line]
    cps = [i for i, line in enumerate(body) if "cp.async.ca.shared.global" in line
           or "cp.async.cg.shared.global" in line]
    assert ldm and cps and xors
    assert min(xors) < max(cps)          # the copies' addresses are swizzled
    assert any(x < min(ldm) for x in xors)


@pytest.mark.parametrize("example,swizzled", [
    ("cutile/matmul_f16.mlir", [True, True]),
    ("matmul_f16_tiled.mlir", [True, True]),
    ("cutile/matmul_i8_masked.mlir", [False, False]),      # 8-bit operands: no ldmatrix.b16
    ("cutile/matmul_tf32.mlir", [False, False]),           # 32-bit operands
    ("cutile/flash_attention_f16.mlir", [True, True]),     # rank-3 slots, read through a reshape (and a transpose)
])
def test_which_pipelines_are_swizzled(example, swizzled, monkeypatch):
    from tilec.codegen.ptx import compile_text
    from tilec.codegen.ptx import ops_pipeline
    seen = {}      # per pipeline op (a kernel may be emitted twice: loop-carried layouts, slices.py)
    real = ops_pipeline._slot_swizzle

    def spy(op, view):
        got = real(op, view)
        seen[op] = got is not None
        return got
    monkeypatch.setattr(ops_pipeline, "_slot_swizzle", spy)
    with open(os.path.join(ROOT, "examples", example)) as fh:
        compile_text(fh.read(), "sm_90a")
    assert list(seen.values()) == swizzled
