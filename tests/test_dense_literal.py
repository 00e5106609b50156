"""Dense element literals: the fast structural path (big literals in linear
time and memory) agrees with the token-by-token path, and a mismatched shape
is reported with MLIR's diagnostic however big the literal."""
from __future__ import annotations

import subprocess
import sys
import time

import pytest

from tilec.syntax import dense as D
from tilec.syntax.reader import parse_type

from conftest import diagnostics_of


def _kernel(body, type_text):
    return (f"cuda_tile.module @m {{\n  entry @k() {{\n    %c = constant <f32: {body}> : {type_text}\n"
            f"    return\n  }}\n}}\n")


@pytest.mark.parametrize("body, shape", [
    ("[1.0, 2.0]", (2,)), ("[[1.0, 2.0], [3.0, 4.0], [5.,6.]]", (3, 2)), ("[[[1,2],[3,4]],[[5,6],[7,8]]]", (2, 2, 2)),
    ("[[1],[2]]", (2, 1)), ("[ [ 1e3 ] ]", (1, 1)),
    ("[[1.0], [2.0, 3.0]]", None), ("[]", None), ("1.0", None), ("[1.0 2.0]", None), ("[[1,2],3]", None),
    ("[1,,2]", None), ("[[1,2]]]", None), ("[[1 2,],[3,4]]", None), ("[[1,2]3,[4,]]", None), ("[abc]", None),
])
def test_fast_structure_takes_only_regular_literals(body, shape):
    got = D.fast_structure(body)
    assert (got[0] if got else None) == shape


@pytest.mark.parametrize("body, type_text, message", [
    ("[1.0, 2.0, 3.0]", "tile<4xf32>", "inferred shape of elements literal ([3]) does not match type ([4])"),
    ("[1.0, 2, 3.0]", "tile<4xf32>", "unexpected decimal integer literal for a floating point value"),
    ("[[1.0, 2.0], [3.0]]", "tile<2x2xf32>", "ranks are not consistent"),
    ("[1.0, true]", "tile<2xf32>", "expected floating-point elements, but parsed 'true'"),
])
def test_diagnostics_are_those_of_the_token_path(body, type_text, message):
    engine = diagnostics_of(_kernel(body, type_text))
    assert message in engine.render()


def test_f32_fast_rounding_agrees_with_the_exact_path():
    from tilec.ir.floats import round_to
    elt = parse_type("!cuda_tile.tile<f32>").element_type
    # f32 midpoints (1 + 2^-24 lies halfway between 1 and the next f32), just off them, and the range ends
    for tok in ("1.000000059604644775390625", "1.0000000596046447753906251", "1.0000000596046447753906249",
                "3.4028235677973366e38", "3.4028234663852886e38", "1e-46", "7.006492321624085e-46", "0.1", "-0.0"):
        fast, exact = D.convert_element(tok, 0, elt), round_to(tok, elt)
        assert fast == exact and str(fast) == str(exact), tok


def test_a_million_element_mismatch_is_reported_quickly(tmp_path):
    """Issue 22: 21.8 s and 730 MB to say the shape is wrong; now linear."""
    values = ", ".join(f"{i}.5" for i in range(1_000_000))
    src = tmp_path / "big.mlir"
    src.write_text(_kernel(f"[{values}]", "tile<4xf32>"))
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "tilec.cli", "verify", str(src)], capture_output=True, text=True)
    elapsed = time.perf_counter() - t
    assert r.returncode == 1
    assert r.stderr.strip() == (f"{src}:3:19: error: inferred shape of elements literal ([1000000]) does not "
                                f"match type ([4])")
    assert elapsed < 6      # 1.4 s on the development machine; generous for a loaded CI
