"""The first error in text order wins, as in MLIR, although tilec's LALR
parser reduces inner pieces first (docs/decisions.md, "MLIR's reading order")."""
import pytest

from tilec.ir.diagnostics import DiagnosticEngine
from tilec.syntax.parser import parse_text

CASES = [
    # a loop header's count mismatch before an error in its body
    ("""%init = cuda_tile.constant <f32: 0.0> : !cuda_tile.tile<f32>
cuda_tile.loop iter_values(%a = %init) : !cuda_tile.tile<f32>, !cuda_tile.tile<f32> {
  cuda_tile.continue %b
}
""", "2:28: error: found different number of iter_values and types"),
    # a ragged literal before its (invalid) type
    ("""cuda_tile.module @m {
  entry @k() {
    %0 = constant <i32: [[1, 2, 3], [4, 5]]> : tile<2x3xi32>
    return
  }
}
""", "3:19: error: tensor literal is invalid; ranks are not consistent between elements"),
    # an operand's type mismatch before naming a result-less op
    ("""%lo = cuda_tile.constant <i32: 0> : !cuda_tile.tile<i32>
%hi = cuda_tile.constant <f32: 1.0> : !cuda_tile.tile<f32>
%r = cuda_tile.for %iv in (%lo to %hi, step %lo) : !cuda_tile.tile<i32> {
}
""", "3:35: error: use of value '%hi' expects different type than prior uses"),
    # ... which is still reported before a later syntax error
    ("""cuda_tile.module @m {
  entry @k() {
    %x = return
    %y = constant <i32: 1> : tile<i32> oops
  }
}
""", "3:5: error: cannot name an operation with no results"),
]


@pytest.mark.parametrize("text,want", CASES)
def test_first_error_in_text_order(text, want):
    engine = DiagnosticEngine()
    assert parse_text(text, engine, "t.mlir") is None
    first = engine.diagnostics[0]
    got = engine.render().splitlines()[0]
    assert want in got, got
