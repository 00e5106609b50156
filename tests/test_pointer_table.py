"""cuTile's list-of-arrays argument (tilec.runtime.PointerTable): the table of
(address, shape, strides) rows each runtime fills with the addresses where it
places the arrays. The interpreter and the PTX simulator run the example
kernel that reads such a table (examples/cutile/scale_list_f32.mlir) to the
NumPy answer; tests/gpu runs it on a GPU through the same table."""
from __future__ import annotations

import os

import numpy as np
import pytest

from tilec.codegen.ptx import compile_text
from tilec.interp import launch, parse_module
from tilec.runtime import PointerTable, convert_scalars

try:
    import ptxsim
except ImportError:                     # pragma: no cover
    from tests import ptxsim

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNEL = os.path.join(ROOT, "examples", "cutile", "scale_list_f32.mlir")


def arrays():
    return [np.arange(n, dtype=np.float32) + 100 * i for i, n in enumerate((48, 40, 64))]


def expected():
    out = arrays()
    for x in out:
        x[:48] *= 2          # three tile blocks of 16 elements each
    return out


def test_the_table_holds_shapes_and_strides_in_elements():
    xs = [np.zeros((4, 6), np.float16), np.zeros((2, 3), np.float16)]
    t = PointerTable(xs)
    assert t.dtype == np.int64 and t.tolist() == [[0, 4, 6, 6, 1], [0, 2, 3, 3, 1]]
    assert t.pointees[0] is xs[0]
    with pytest.raises(ValueError, match="one rank"):
        PointerTable([np.zeros(4), np.zeros((2, 2))])
    with pytest.raises(ValueError, match="C-contiguous"):
        PointerTable([np.zeros((4, 4))[:, ::2]])
    with pytest.raises(ValueError, match="non-empty"):
        PointerTable([])


def test_the_interpreter_fills_the_addresses_and_runs_the_list():
    xs = arrays()
    t = PointerTable(xs)
    launch(parse_module(open(KERNEL).read(), KERNEL), None, (3, 1, 1), [t, len(xs)])
    for got, want in zip(xs, expected()):
        np.testing.assert_array_equal(got, want)
    assert len(set(t[:, 0].tolist())) == 3 and all(a > 0 for a in t[:, 0])


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_the_simulator_fills_the_addresses_and_runs_the_list(arch):
    text = open(KERNEL).read()
    xs = arrays()
    ptxsim.run_ptx(compile_text(text, arch=arch), "scale_list", (3, 1, 1),
                   convert_scalars(text, [PointerTable(xs), len(xs)]))
    for got, want in zip(xs, expected()):
        np.testing.assert_array_equal(got, want)
