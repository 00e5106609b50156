"""Arithmetic, math, conversion and MMA ops: custom form round trips to a fixed
point, the generic form re-parses to the same custom text, and bad input gets a
located diagnostic (exit code 1), never a traceback."""
import pytest

from tilec.cli import main
from tilec.ir.diagnostics import DiagnosticEngine
from tilec.ir.verifier import verify
from tilec.syntax.parser import parse_text
from tilec.syntax.printer import print_ops

CANONICAL = """\
cuda_tile.module @arith {
  testing$func @float_ops(%arg0: tile<4xf32>, %arg1: tile<4xf16>, %arg2: tile<2x2xf64>) {
    %0 = absf %arg0 : tile<4xf32>
    %1 = negf %arg1 : tile<4xf16>
    %2 = addf %arg0, %arg0 : tile<4xf32>
    %3 = subf %arg0, %arg0 rounding<zero> : tile<4xf32>
    %4 = mulf %arg0, %arg0 rounding<positive_inf> flush_to_zero : tile<4xf32>
    %5 = divf %arg0, %arg0 rounding<full> : tile<4xf32>
    %6 = divf %arg2, %arg2 rounding<negative_inf> : tile<2x2xf64>
    %7 = remf %arg1, %arg1 : tile<4xf16>
    %8 = maxf %arg0, %arg0 flush_to_zero propagate_nan : tile<4xf32>
    %9 = minf %arg1, %arg1 propagate_nan : tile<4xf16>
    %10 = fma %arg0, %arg0, %arg0 rounding<zero> flush_to_zero : tile<4xf32>
    %11 = cmpf greater_than unordered %arg1, %arg1 : tile<4xf16> -> tile<4xi1>
    %12 = ceil %arg0 : tile<4xf32>
    %13 = floor %arg2 : tile<2x2xf64>
    %14 = exp %arg0 rounding<approx> : tile<4xf32>
    %15 = exp %arg2 : tile<2x2xf64>
    %16 = exp2 %arg0 flush_to_zero : tile<4xf32>
    %17 = log %arg1 : tile<4xf16>
    %18 = log2 %arg1 : tile<4xf16>
    %19 = sqrt %arg0 rounding<approx> flush_to_zero : tile<4xf32>
    %20 = rsqrt %arg0 flush_to_zero : tile<4xf32>
    %21 = pow %arg0, %arg0 : tile<4xf32>
    %22 = sin %arg0 : tile<4xf32>
    %23 = sinh %arg0 : tile<4xf32>
    %24 = cos %arg0 : tile<4xf32>
    %25 = cosh %arg0 : tile<4xf32>
    %26 = tan %arg0 : tile<4xf32>
    %27 = tanh %arg0 rounding<approx> : tile<4xf32>
    %28 = atan2 %arg0, %arg0 : tile<4xf32>
  }
  testing$func @int_ops(%arg0: tile<8xi32>, %arg1: tile<i16>) {
    %0 = absi %arg0 : tile<8xi32>
    %1 = negi %arg1 overflow<no_signed_wrap> : tile<i16>
    %2 = addi %arg0, %arg0 overflow<no_wrap> : tile<8xi32>
    %3 = subi %arg0, %arg0 : tile<8xi32>
    %4 = muli %arg0, %arg0 overflow<no_unsigned_wrap> : tile<8xi32>
    %5 = mulhii %arg0, %arg0 : tile<8xi32>
    %6 = divi %arg0, %arg0 signed rounding<negative_inf> : tile<8xi32>
    %7 = divi %arg0, %arg0 unsigned : tile<8xi32>
    %8 = remi %arg1, %arg1 unsigned : tile<i16>
    %9 = maxi %arg0, %arg0 signed : tile<8xi32>
    %10 = mini %arg0, %arg0 unsigned : tile<8xi32>
    %11 = andi %arg0, %arg0 : tile<8xi32>
    %12 = ori %arg0, %arg0 : tile<8xi32>
    %13 = xori %arg0, %arg0 : tile<8xi32>
    %14 = shli %arg0, %arg0 overflow<no_signed_wrap> : tile<8xi32>
    %15 = shri %arg0, %arg0 unsigned : tile<8xi32>
    %16 = cmpi not_equal %arg1, %arg1, signed : tile<i16> -> tile<i1>
  }
  testing$func @conversions(%arg0: tile<4xi32>, %arg1: tile<4xf32>, %arg2: tile<4xi64>, %arg3: tile<4xptr<f32>>) {
    %0 = bitcast %arg0 : tile<4xi32> -> tile<4xf32>
    %1 = exti %arg0 signed : tile<4xi32> -> tile<4xi64>
    %2 = trunci %arg0 overflow<no_wrap> : tile<4xi32> -> tile<4xi4>
    %3 = ftof %arg1 : tile<4xf32> -> tile<4xbf16>
    %4 = ftof %arg1 rounding<positive_inf> : tile<4xf32> -> tile<4xf8E8M0FNU>
    %5 = ftoi %arg1 unsigned : tile<4xf32> -> tile<4xi16>
    %6 = itof %arg0 signed : tile<4xi32> -> tile<4xf16>
    %7 = int_to_ptr %arg2 : tile<4xi64> -> tile<4xptr<i8>>
    %8 = ptr_to_int %arg3 : tile<4xptr<f32>> -> tile<4xi64>
    %9 = ptr_to_ptr %arg3 : tile<4xptr<f32>> -> tile<4xptr<f16>>
  }
  testing$func @mma(%arg0: tile<4x8xf16>, %arg1: tile<8x2xf16>, %arg2: tile<4x2xf32>, %arg3: tile<2x4x8xi8>, %arg4: tile<2x8x2xi8>, %arg5: tile<2x4x2xi32>, %arg6: tile<128x128xf4E2M1FN>, %arg7: tile<128x128xf32>, %arg8: tile<128x8xf8E4M3FN>, %arg9: tile<8x128xf8E4M3FN>) {
    %0 = mmaf %arg0, %arg1, %arg2 : tile<4x8xf16>, tile<8x2xf16>, tile<4x2xf32>
    %1 = mmaf %arg0, %arg1, %arg2 fast_acc : tile<4x8xf16>, tile<8x2xf16>, tile<4x2xf32>
    %2 = mmai %arg3, %arg4, %arg5 signed unsigned : tile<2x4x8xi8>, tile<2x8x2xi8>, tile<2x4x2xi32>
    %3 = mmaf_scaled %arg6, %arg6, %arg7, %arg8, %arg9 : tile<128x128xf4E2M1FN>, tile<128x128xf4E2M1FN>, tile<128x128xf32>, tile<128x8xf8E4M3FN>, tile<8x128xf8E4M3FN>
  }
}
"""

# The same ops written loosely: full op names, `!cuda_tile.` types, defaults
# spelled out, flags in another order, extra spaces.
LOOSE = (CANONICAL
         .replace("%2 = addf %arg0, %arg0 : tile<4xf32>",
                  "%2 = cuda_tile.addf %arg0, %arg0 rounding<nearest_even> : !cuda_tile.tile<4xf32>")
         .replace("flush_to_zero propagate_nan", "propagate_nan  flush_to_zero")
         .replace("%3 = subi %arg0, %arg0 : tile<8xi32>", "%3 = subi %arg0, %arg0 overflow <none> : tile<8xi32>")
         .replace("%15 = exp %arg2 : tile<2x2xf64>", "%15 = exp %arg2 rounding<full> : tile<2x2xf64>")
         .replace("%7 = divi %arg0, %arg0 unsigned : tile<8xi32>",
                  "%7 = cuda_tile.divi %arg0, %arg0 unsigned rounding<zero> : !cuda_tile.tile<8xi32>")
         .replace("%5 = ftoi %arg1 unsigned : tile<4xf32> -> tile<4xi16>",
                  "%5 = ftoi %arg1 unsigned rounding<nearest_int_to_zero> : tile<4xf32> -> tile<4xi16>"))


def _ops_text(text):
    """Printed IR without the (implicit) function terminators."""
    return "\n".join(line for line in text.splitlines() if line.strip() != "return")


def roundtrip(text, generic=False):
    engine = DiagnosticEngine()
    ops = parse_text(text, engine, "t.mlir")
    assert ops is not None, engine.render()
    for op in ops:
        assert verify(op, engine), engine.render()
    return print_ops(ops, generic=generic)


def test_canonical_text_is_a_fixed_point():
    assert _ops_text(roundtrip(CANONICAL)) == _ops_text(CANONICAL)


def test_loose_spelling_prints_canonically():
    assert LOOSE != CANONICAL
    assert _ops_text(roundtrip(LOOSE)) == _ops_text(CANONICAL)


def test_generic_form_reparses_to_the_same_custom_form():
    generic = roundtrip(CANONICAL, generic=True)
    assert '"cuda_tile.cmpf"' in generic and "#cuda_tile.comparison_ordering<unordered>" in generic
    assert _ops_text(roundtrip(generic)) == _ops_text(CANONICAL)
    assert roundtrip(generic, generic=True) == generic


def test_required_rounding_mode_is_stored_and_defaults_are_not():
    generic = roundtrip(CANONICAL, generic=True)
    addf = next(line for line in generic.splitlines() if '"cuda_tile.addf"' in line)
    assert "rounding_mode = #cuda_tile.rounding<nearest_even>" in addf
    subi = next(line for line in generic.splitlines() if '"cuda_tile.subi"' in line)
    assert "overflow" not in subi


HEADER = """cuda_tile.module @m {
  testing$func @f(%a: tile<4xi32>, %l: tile<4xi64>, %x: tile<4xf32>, %h: tile<4xf16>) {
"""


@pytest.mark.parametrize("body, where, message", [
    ("%0 = divi %a, %a : tile<4xi32>", "3:15",
     "custom op 'cuda_tile.divi' expected signedness to be one of: {'signed', 'unsigned'}"),
    ("%0 = addf %x, %x rounding<approx> : tile<4xf32>", "3:31",
     "expected rounding mode to be one of: 'nearest_even', 'zero', 'negative_inf', 'positive_inf', got: 'approx'"),
    ("%0 = cmpf equal signed %x, %x : tile<4xf32> -> tile<4xi1>", "3:21",
     "expected 'comparison_ordering' to be one of: {'ordered', 'unordered'}"),
    ("%0 = ftoi %x signed rounding<zero> : tile<4xf32> -> tile<4xi32>", "3:34",
     "expected rounding mode to be one of: 'nearest_int_to_zero', got: 'zero'"),
    ("%0 = maxf %x, %x propagate_nan propagate_nan : tile<4xf32>", "3:36",
     "'propagate_nan' may appear only once"),
    ("%0 = addi %a, %l : tile<4xi32>", "3:19",
     "use of value '%l' expects different type than prior uses"),
    ("%0 = addf %h, %h flush_to_zero : tile<4xf16>", "3:5",
     "'cuda_tile.addf' op flush_to_zero modifier only supported for f32 data type, but got: 'f16'"),
    ("%0 = divf %h, %h rounding<approx> : tile<4xf16>", "3:5",
     "approx modifier only supported for f32 data type, but got: 'f16'"),
    ("%0 = exti %l signed : tile<4xi64> -> tile<4xi32>", "3:5", "extending to smaller or identical integer"),
    ("%0 = trunci %a : tile<4xi32> -> tile<2xi8>", "3:5",
     "failed to verify that all of {from, to} have same shape"),
    ("%0 = bitcast %a : tile<4xi32> -> tile<4xf16>", "3:5", "types must be equal width"),
    ("%0 = negi %a overflow<no_unsigned_wrap> : tile<4xi32>", "3:5",
     "'no_unsigned_wrap' overflow flag is not supported"),
    ("%0 = divi %a, %a unsigned rounding<negative_inf> : tile<4xi32>", "3:5",
     "rounding mode 'negative_inf' is not allowed with 'unsigned' flag"),
    ("%0 = absf %a : tile<4xi32>", "3:5",
     "'cuda_tile.absf' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got"),
    ('%0 = "cuda_tile.mulf"(%x, %x) <{rounding_mode = #cuda_tile.rounding<full>}> : '
     "(tile<4xf32>, tile<4xf32>) -> tile<4xf32>", "3:5",
     "invalid rounding mode specified, expect one of [nearest_even, zero, negative_inf, positive_inf]"),
    ("%0 = cmpi less_than %a, %a, signed : tile<4xi32> -> tile<2xi1>", "3:5",
     "failed to verify that Result type has i1 element type and same shape as operands"),
])
def test_bad_input_is_a_located_diagnostic(tmp_path, capsys, body, where, message):
    f = tmp_path / "bad.mlir"
    f.write_text(HEADER + "    " + body + "\n  }\n}\n")
    assert main(["opt", str(f)]) == 1
    err = capsys.readouterr().err
    assert f"{f}:{where}: error: " in err, err
    assert message in err, err
    assert "Traceback" not in err


def test_mma_verifier_checks_types_and_shapes(tmp_path, capsys):
    f = tmp_path / "mma.mlir"
    f.write_text(HEADER.replace("%a: tile<4xi32>", "%a: tile<4x8xbf16>, %b: tile<8x2xbf16>, %c: tile<4x2xf16>")
                 + "    %0 = mmaf %a, %b, %c : tile<4x8xbf16>, tile<8x2xbf16>, tile<4x2xf16>\n  }\n}\n")
    assert main(["verify", str(f)]) == 1
    err = capsys.readouterr().err
    assert ("unsupported combination of element types. Input type 'bf16' expects accumulator/result type "
            "to be one of {'f32'}, but got 'f16'") in err
    f.write_text(HEADER.replace("%a: tile<4xi32>", "%a: tile<4x8xf16>, %b: tile<4x2xf16>, %c: tile<4x2xf32>")
                 + "    %0 = mmaf %a, %b, %c : tile<4x8xf16>, tile<4x2xf16>, tile<4x2xf32>\n  }\n}\n")
    assert main(["verify", str(f)]) == 1
    assert "shape error: dim 1 of lhs (8) and dim 0 of rhs (4) must match" in capsys.readouterr().err
