"""Element semantics of the reference interpreter, op by op: each small kernel
loads its inputs through pointer tiles, applies the op under test and stores the
result; the expectation is computed independently (Python integers, Fractions,
NumPy)."""
import io
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from tilec.interp import LaunchError, launch, parse_module

BF16 = ml_dtypes.bfloat16
NP = {"i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "f16": np.float16,
      "bf16": BF16, "f32": np.float32, "f64": np.float64, "f8E4M3FN": ml_dtypes.float8_e4m3fn,
      "tf32": np.float32}


def ew_kernel(ins, out, body, n):
    """A kernel `@k(%p0.., %po)`: %v<k> = the n elements at %p<k>; `body`
    (with {n} for the length) defines %res, stored at %po."""
    params = [f"%p{k}: tile<ptr<{t}>>" for k, t in enumerate(ins)] + [f"%po: tile<ptr<{out}>>"]
    lines = [f"%idx = iota : tile<{n}xi32>"]
    for k, t in enumerate(ins + [out]):
        p = f"%p{k}" if k < len(ins) else "%po"
        lines += [f"%r{k} = reshape {p} : tile<ptr<{t}>> -> tile<1xptr<{t}>>",
                  f"%b{k} = broadcast %r{k} : tile<1xptr<{t}>> -> tile<{n}xptr<{t}>>",
                  f"%q{k} = offset %b{k}, %idx : tile<{n}xptr<{t}>>, tile<{n}xi32> -> tile<{n}xptr<{t}>>"]
        if k < len(ins):
            lines.append(f"%v{k}, %tk{k} = load_ptr_tko weak %q{k} : tile<{n}xptr<{t}>> -> tile<{n}x{t}>, token")
    lines += [line.format(n=n) for line in body]
    lines.append(f"%ts = store_ptr_tko weak %q{len(ins)}, %res : tile<{n}xptr<{out}>>, tile<{n}x{out}> -> token")
    return ("cuda_tile.module @m {\n  entry @k(" + ", ".join(params) + ") {\n    " + "\n    ".join(lines)
            + "\n    return\n  }\n}\n")


def run_ew(ins, out, body, *arrays, out_dtype=None, **kw):
    """Run the element-wise kernel on the arrays (padded to a power-of-two tile by
    repeating their last element); return the first len(arrays[0]) results."""
    m = len(arrays[0])
    n = 1 << (m - 1).bit_length()
    padded = [np.concatenate([a, np.repeat(a[-1:], n - m)]) for a in arrays]
    text = ew_kernel(ins, out, body, n)
    res = np.zeros(n, out_dtype or NP[out])
    launch(parse_module(text, "k.mlir"), "k", (1,), [*padded, res], **kw)
    return res[:m]


def wrap(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


# ---- integers --------------------------------------------------------------------

@pytest.mark.parametrize("t,bits", [("i8", 8), ("i32", 32), ("i64", 64)])
@pytest.mark.parametrize("op,f", [("addi", lambda a, b: a + b), ("subi", lambda a, b: a - b),
                                  ("muli", lambda a, b: a * b)])
def test_integer_wraparound(t, bits, op, f):
    rng = np.random.default_rng(bits)
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1))
    a = rng.integers(lo, hi, 64, dtype=np.int64).astype(NP[t])
    b = rng.integers(lo, hi, 64, dtype=np.int64).astype(NP[t])
    a[0], b[0] = hi - 1, hi - 1
    got = run_ew([t, t], t, [f"%res = {op} %v0, %v1 : tile<{{n}}x{t}>"], a, b)
    assert got.tolist() == [wrap(f(int(x), int(y)), bits) for x, y in zip(a, b)]


def test_i1_arithmetic_is_modulo_2():
    a = np.array([0, 0, 1, 1], bool)
    b = np.array([0, 1, 0, 1], bool)
    assert run_ew(["i1", "i1"], "i1", ["%res = addi %v0, %v1 : tile<{n}xi1>"], a, b).tolist() == \
        [False, True, True, False]
    assert run_ew(["i1", "i1"], "i1", ["%res = muli %v0, %v1 : tile<{n}xi1>"], a, b).tolist() == \
        [False, False, False, True]


def _cdiv(a, b, mode):
    q = Fraction(a, b)
    if mode == "zero":
        return int(q)
    if mode == "negative_inf":
        return q.numerator // q.denominator
    return -((-q.numerator) // q.denominator)


@pytest.mark.parametrize("mode", ["zero", "negative_inf", "positive_inf"])
def test_divi_signed_rounding(mode):
    a = np.array([7, -7, 7, -7, 6, -2147483648, 0, 1], np.int32)
    b = np.array([2, 2, -2, -2, 3, 3, 5, -1], np.int32)
    rounding = "" if mode == "zero" else f" rounding<{mode}>"
    got = run_ew(["i32", "i32"], "i32", [f"%res = divi %v0, %v1 signed{rounding} : tile<{{n}}xi32>"], a, b)
    assert got.tolist() == [wrap(_cdiv(int(x), int(y), mode), 32) for x, y in zip(a, b)]


def test_divi_remi_unsigned_and_signed_remainder():
    a = np.array([-1, 7, -7, 100, -100], np.int32)
    b = np.array([2, -1, 3, -7, 7], np.int32)
    ua, ub_ = [int(x) & 0xFFFFFFFF for x in a], [int(x) & 0xFFFFFFFF for x in b]
    got = run_ew(["i32", "i32"], "i32", ["%res = divi %v0, %v1 unsigned : tile<{n}xi32>"], a, b)
    assert got.tolist() == [wrap(x // y, 32) for x, y in zip(ua, ub_)]
    got = run_ew(["i32", "i32"], "i32", ["%res = remi %v0, %v1 unsigned : tile<{n}xi32>"], a, b)
    assert got.tolist() == [wrap(x % y, 32) for x, y in zip(ua, ub_)]
    got = run_ew(["i32", "i32"], "i32", ["%res = remi %v0, %v1 signed : tile<{n}xi32>"], a, b)
    assert got.tolist() == [int(x) - int(Fraction(int(x), int(y))) * int(y) for x, y in zip(a, b)]


def test_division_by_zero_is_reported_with_index():
    a = np.array([1, 2, 3, 4], np.int32)
    b = np.array([1, 1, 0, 1], np.int32)
    with pytest.raises(LaunchError) as e:
        run_ew(["i32", "i32"], "i32", ["%res = divi %v0, %v1 signed : tile<{n}xi32>"], a, b)
    assert "'cuda_tile.divi' op integer division by zero at index [2]" in str(e.value)
    assert str(e.value).startswith("k.mlir:")


def test_shifts_including_oversized_amounts():
    a = np.array([1, -8, -8, 0x40000000, 5, -1], np.int32)
    s = np.array([3, 1, 31, 1, 32, 40], np.int32)
    shl = run_ew(["i32", "i32"], "i32", ["%res = shli %v0, %v1 : tile<{n}xi32>"], a, s)
    assert shl.tolist() == [wrap(int(x) << int(k), 32) if k < 32 else 0 for x, k in zip(a, s)]
    sra = run_ew(["i32", "i32"], "i32", ["%res = shri %v0, %v1 signed : tile<{n}xi32>"], a, s)
    assert sra.tolist() == [int(x) >> min(int(k), 31) for x, k in zip(a, s)]
    srl = run_ew(["i32", "i32"], "i32", ["%res = shri %v0, %v1 unsigned : tile<{n}xi32>"], a, s)
    assert srl.tolist() == [wrap((int(x) & 0xFFFFFFFF) >> int(k), 32) if k < 32 else 0 for x, k in zip(a, s)]


def test_cmpi_signed_and_unsigned():
    a = np.array([-1, 1, 0, -5], np.int8)
    b = np.array([1, -1, 0, -4], np.int8)
    lt_s = run_ew(["i8", "i8"], "i1", ["%res = cmpi less_than %v0, %v1, signed : tile<{n}xi8> -> tile<{n}xi1>"],
                  a, b)
    lt_u = run_ew(["i8", "i8"], "i1",
                  ["%res = cmpi less_than %v0, %v1, unsigned : tile<{n}xi8> -> tile<{n}xi1>"], a, b)
    assert lt_s.tolist() == [int(x) < int(y) for x, y in zip(a, b)]
    assert lt_u.tolist() == [(int(x) & 255) < (int(y) & 255) for x, y in zip(a, b)]


def test_mulhi_min_max_abs_neg():
    a = np.array([-1, 123456789, -2147483648, 7], np.int32)
    b = np.array([-1, 987654321, 3, -9], np.int32)
    ua, ub_ = [int(x) & 0xFFFFFFFF for x in a], [int(x) & 0xFFFFFFFF for x in b]
    hi = run_ew(["i32", "i32"], "i32", ["%res = mulhii %v0, %v1 : tile<{n}xi32>"], a, b)
    assert hi.tolist() == [wrap((x * y) >> 32, 32) for x, y in zip(ua, ub_)]
    mx = run_ew(["i32", "i32"], "i32", ["%res = maxi %v0, %v1 unsigned : tile<{n}xi32>"], a, b)
    assert mx.tolist() == [wrap(max(x, y), 32) for x, y in zip(ua, ub_)]
    ab = run_ew(["i32"], "i32", ["%res = absi %v0 : tile<{n}xi32>"], a)
    assert ab.tolist() == [wrap(abs(int(x)), 32) for x in a]
    ng = run_ew(["i32"], "i32", ["%res = negi %v0 : tile<{n}xi32>"], a)
    assert ng.tolist() == [wrap(-int(x), 32) for x in a]


def test_mulhi_i64():
    a = np.array([-1, 2**62 + 12345, 3], np.int64)
    b = np.array([-1, 2**61 - 7, -1], np.int64)
    got = run_ew(["i64", "i64"], "i64", ["%res = mulhii %v0, %v1 : tile<{n}xi64>"], a, b)
    ua, ub_ = [int(x) & (2**64 - 1) for x in a], [int(x) & (2**64 - 1) for x in b]
    assert got.tolist() == [wrap((x * y) >> 64, 64) for x, y in zip(ua, ub_)]


def test_overflow_annotation_violation_is_reported():
    a = np.array([1, 2147483647], np.int32)
    with pytest.raises(LaunchError) as e:
        run_ew(["i32", "i32"], "i32", ["%res = addi %v0, %v1 overflow<no_signed_wrap> : tile<{n}xi32>"], a, a)
    assert "'cuda_tile.addi' op signed overflow contradicts overflow<no_signed_wrap> at index [1]" in str(e.value)
    ok = run_ew(["i32", "i32"], "i32", ["%res = addi %v0, %v1 overflow<no_unsigned_wrap> : tile<{n}xi32>"],
                np.array([5, -3], np.int32), np.array([6, 1], np.int32))
    assert ok.tolist() == [11, -2]


# ---- conversions ---------------------------------------------------------------------

def test_exti_trunci():
    a = np.array([-1, 127, -128, 5], np.int8)
    s = run_ew(["i8"], "i32", ["%res = exti %v0 signed : tile<{n}xi8> -> tile<{n}xi32>"], a)
    u = run_ew(["i8"], "i32", ["%res = exti %v0 unsigned : tile<{n}xi8> -> tile<{n}xi32>"], a)
    assert s.tolist() == [-1, 127, -128, 5] and u.tolist() == [255, 127, 128, 5]
    flags = np.array([True, False], bool)
    assert run_ew(["i1"], "i32", ["%res = exti %v0 signed : tile<{n}xi1> -> tile<{n}xi32>"],
                  flags).tolist() == [-1, 0]
    big = np.array([0x12345678, -1, 0x180], np.int32)
    t = run_ew(["i32"], "i8", ["%res = trunci %v0 : tile<{n}xi32> -> tile<{n}xi8>"], big)
    assert t.tolist() == [wrap(int(x), 8) for x in big]


def test_ftoi_saturates_and_zeroes_nan():
    x = np.array([1.9, -1.9, 300.0, -300.0, np.nan, 1e10, -0.5], np.float32)
    s = run_ew(["f32"], "i8", ["%res = ftoi %v0 signed : tile<{n}xf32> -> tile<{n}xi8>"], x)
    assert s.tolist() == [1, -1, 127, -128, 0, 127, 0]
    u = run_ew(["f32"], "i8", ["%res = ftoi %v0 unsigned : tile<{n}xf32> -> tile<{n}xi8>"], x)
    assert [v & 255 for v in u.tolist()] == [1, 0, 255, 0, 0, 255, 0]
    big = np.array([1e30, -1e30, 2.0**62], np.float64)
    r = run_ew(["f64"], "i64", ["%res = ftoi %v0 signed : tile<{n}xf64> -> tile<{n}xi64>"], big)
    assert r.tolist() == [2**63 - 1, -2**63, 2**62]


def test_ftoi_of_infinity_is_undefined_behaviour():
    x = np.array([1.0, np.inf], np.float32)
    with pytest.raises(LaunchError) as e:
        run_ew(["f32"], "i32", ["%res = ftoi %v0 signed : tile<{n}xf32> -> tile<{n}xi32>"], x)
    assert "'cuda_tile.ftoi' op conversion of an infinite value to an integer at index [1]" in str(e.value)


def test_itof_unsigned_and_rounding():
    a = np.array([-1, 16777217, 3], np.int32)
    s = run_ew(["i32"], "f32", ["%res = itof %v0 signed : tile<{n}xi32> -> tile<{n}xf32>"], a)
    u = run_ew(["i32"], "f32", ["%res = itof %v0 unsigned : tile<{n}xi32> -> tile<{n}xf32>"], a)
    assert s.tolist() == [-1.0, 16777216.0, 3.0]
    assert u.tolist() == [float(np.float32(4294967295.0)), 16777216.0, 3.0]
    h = run_ew(["i32"], "f16", ["%res = itof %v0 signed : tile<{n}xi32> -> tile<{n}xf16>"],
               np.array([70000, 2049], np.int32))
    assert np.isinf(h[0]) and h[1] == 2048.0


def test_ftof_rounds_once():
    # 1 + 2**-8 + 2**-30 lies just above a bf16 tie: it must round up, even from f64
    x = np.array([1 + 2**-8 + 2**-30, 1 + 2**-8, 1 + 3 * 2**-8], np.float64)
    got = run_ew(["f64"], "bf16", ["%res = ftof %v0 : tile<{n}xf64> -> tile<{n}xbf16>"], x)
    assert got.astype(np.float64).tolist() == [1 + 2**-7, 1.0, 1 + 2**-6]
    f8 = run_ew(["f32"], "f8E4M3FN", ["%res = ftof %v0 : tile<{n}xf32> -> tile<{n}xf8E4M3FN>"],
                np.array([1.0625, 1.1875, 448.0, 1000.0], np.float32))
    vals = f8.astype(np.float32)
    assert vals[:3].tolist() == [1.0, 1.25, 448.0] and np.isnan(vals[3])


def test_ftof_to_tf32():
    x = np.array([1 + 2**-11, 1 + 3 * 2**-11, 1 + 2**-11 + 2**-20], np.float32)
    got = run_ew(["f32"], "tf32", ["%res = ftof %v0 : tile<{n}xf32> -> tile<{n}xtf32>"], x)
    assert got.tolist() == [1.0, 1 + 2**-9, 1 + 2**-10]


def test_bitcast():
    x = np.array([1.0, -2.5, np.inf], np.float32)
    got = run_ew(["f32"], "i32", ["%res = bitcast %v0 : tile<{n}xf32> -> tile<{n}xi32>"], x)
    assert got.tolist() == x.view(np.int32).tolist()


# ---- floating point --------------------------------------------------------------------

def _directed(exact: Fraction, nearest, mode, dtype=np.float32):
    r = nearest
    if mode == "positive_inf" and Fraction(float(r)) < exact:
        r = np.nextafter(r, dtype(np.inf))
    if mode == "negative_inf" and Fraction(float(r)) > exact:
        r = np.nextafter(r, dtype(-np.inf))
    if mode == "zero" and abs(Fraction(float(r))) > abs(exact):
        r = np.nextafter(r, dtype(0))
    return r


@pytest.mark.parametrize("mode", ["positive_inf", "negative_inf", "zero"])
@pytest.mark.parametrize("op", ["addf", "subf", "mulf", "divf"])
def test_directed_rounding_f32(op, mode):
    rng = np.random.default_rng(7)
    a = rng.standard_normal(48).astype(np.float32)
    b = rng.standard_normal(48).astype(np.float32)
    b[0], a[1], b[1] = np.float32(1e-30), np.float32(1.0), np.float32(3.0)
    got = run_ew(["f32", "f32"], "f32", [f"%res = {op} %v0, %v1 rounding<{mode}> : tile<{{n}}xf32>"], a, b)
    for x, y, g in zip(a, b, got):
        fx, fy = Fraction(float(x)), Fraction(float(y))
        exact = {"addf": fx + fy, "subf": fx - fy, "mulf": fx * fy, "divf": fx / fy}[op]
        nearest = np.float32({"addf": x + y, "subf": x - y, "mulf": x * y, "divf": x / y}[op])
        assert g == _directed(exact, nearest, mode), (x, y)


def test_fma_rounds_once():
    # a*b + c where rounding the product first would lose the answer
    a = np.array([1 + 2**-12, 3.0], np.float32)
    b = np.array([1 - 2**-12, 5.0], np.float32)
    c = np.array([-1.0, 1.0], np.float32)
    got = run_ew(["f32", "f32", "f32"], "f32", ["%res = fma %v0, %v1, %v2 : tile<{n}xf32>"], a, b, c)
    assert got.tolist() == [-(2.0**-24), 16.0]



def test_fma_infinite_operands_follow_ieee():
    # the exact-product error terms are NaN for an infinite product; the result must not be
    # (online softmax computes fma(-inf, scale, -max) for masked scores)
    inf = np.inf
    a = np.array([-inf, inf, 2.0, inf, 0.0], np.float32)
    b = np.array([0.5, 2.0, 3.0, 1.0, inf], np.float32)
    c = np.array([-3.0, 1.0, -inf, -inf, 1.0], np.float32)
    got = run_ew(["f32", "f32", "f32"], "f32", ["%res = fma %v0, %v1, %v2 : tile<{n}xf32>"], a, b, c)
    assert got[:3].tolist() == [-inf, inf, -inf]
    assert np.isnan(got[3]) and np.isnan(got[4])      # inf - inf and 0 * inf

def test_cmpf_ordered_and_unordered_nan():
    a = np.array([1.0, np.nan, 2.0, np.nan], np.float32)
    b = np.array([1.0, 1.0, 3.0, np.nan], np.float32)

    def cmp(pred, order):
        return run_ew(["f32", "f32"], "i1",
                      [f"%res = cmpf {pred} {order} %v0, %v1 : tile<{{n}}xf32> -> tile<{{n}}xi1>"], a, b).tolist()
    assert cmp("equal", "ordered") == [True, False, False, False]
    assert cmp("equal", "unordered") == [True, True, False, True]
    assert cmp("not_equal", "ordered") == [False, False, True, False]
    assert cmp("less_than", "unordered") == [False, True, True, True]


def test_maxf_minf_nan_handling():
    a = np.array([1.0, np.nan, np.nan, -3.0], np.float32)
    b = np.array([2.0, 5.0, np.nan, -4.0], np.float32)
    mx = run_ew(["f32", "f32"], "f32", ["%res = maxf %v0, %v1 : tile<{n}xf32>"], a, b)
    assert mx[0] == 2.0 and mx[1] == 5.0 and np.isnan(mx[2]) and mx[3] == -3.0
    mn = run_ew(["f32", "f32"], "f32", ["%res = minf %v0, %v1 propagate_nan : tile<{n}xf32>"], a, b)
    assert mn[0] == 1.0 and np.isnan(mn[1]) and mn[3] == -4.0


def test_math_functions_f32_and_f16():
    x = np.linspace(0.1, 3.0, 16).astype(np.float32)
    for op, ref in (("exp", np.exp), ("log", np.log), ("sqrt", np.sqrt), ("rsqrt", lambda v: 1 / np.sqrt(v)),
                    ("tanh", np.tanh), ("sin", np.sin), ("exp2", np.exp2), ("floor", np.floor)):
        got = run_ew(["f32"], "f32", [f"%res = {op} %v0 : tile<{{n}}xf32>"], x)
        assert np.allclose(got, ref(x.astype(np.float64)), rtol=2e-7, atol=0), op
    h = x.astype(np.float16)
    got = run_ew(["f16"], "f16", ["%res = exp %v0 : tile<{n}xf16>"], h)
    assert np.array_equal(got, np.exp(h.astype(np.float32)).astype(np.float16))


def test_flush_to_zero():
    tiny = np.float32(1e-40)  # subnormal
    a = np.array([tiny, 1.0], np.float32)
    b = np.array([1.0, 1.0], np.float32)
    got = run_ew(["f32", "f32"], "f32", ["%res = mulf %v0, %v1 flush_to_zero : tile<{n}xf32>"], a, b)
    assert got.tolist() == [0.0, 1.0]


# ---- shapes, reductions, memory -------------------------------------------------------------

def _kernel(body, params="%po: tile<ptr<i32>>"):
    return parse_module("cuda_tile.module @m {\n  entry @k(" + params + ") {\n    " + "\n    ".join(body)
                        + "\n    return\n  }\n}\n", "k.mlir")


def _store_i32(name, n):
    return [f"%i_{name} = iota : tile<{n}xi32>",
            f"%r_{name} = reshape %po : tile<ptr<i32>> -> tile<1xptr<i32>>",
            f"%b_{name} = broadcast %r_{name} : tile<1xptr<i32>> -> tile<{n}xptr<i32>>",
            f"%q_{name} = offset %b_{name}, %i_{name} : tile<{n}xptr<i32>>, tile<{n}xi32> -> tile<{n}xptr<i32>>",
            f"%s_{name} = store_ptr_tko weak %q_{name}, %{name} : tile<{n}xptr<i32>>, tile<{n}xi32> -> token"]


def test_shape_ops_cat_permute_extract_reshape_reduce():
    body = ["%a = iota : tile<32xi32>",
            "%b = reshape %a : tile<32xi32> -> tile<2x4x4xi32>",
            "%c = permute %b [2, 0, 1] : tile<2x4x4xi32> -> tile<4x2x4xi32>",
            "%c1 = constant <i32: 1> : tile<i32>",
            "%c0 = constant <i32: 0> : tile<i32>",
            "%d = extract %c[%c1, %c0, %c0] : tile<4x2x4xi32> -> tile<2x2x4xi32>",
            "%e = cat %d, %d dim = 2 : tile<2x2x4xi32>, tile<2x2x4xi32> -> tile<2x2x8xi32>",
            "%f = reduce %e dim=0 identities=[0 : i32] : tile<2x2x8xi32> -> tile<2x8xi32>\n"
            "    (%x: tile<i32>, %y: tile<i32>) {\n      %s = addi %x, %y : tile<i32>\n      yield %s : tile<i32>\n    }",
            "%g = reshape %f : tile<2x8xi32> -> tile<16xi32>"] + _store_i32("g", 16)
    out = np.zeros(16, np.int32)
    launch(_kernel(body), "k", 1, [out])
    c = np.arange(32).reshape(2, 4, 4).transpose(2, 0, 1)
    d = c[2:4]
    assert out.tolist() == np.concatenate([d, d], axis=2).sum(axis=0).reshape(-1).tolist()


def test_scan_max_reverse_on_rows():
    body = ["%a = iota : tile<8xi32>",
            "%k = constant <i32: [3, 1, 4, 1, 5, 9, 2, 6]> : tile<8xi32>",
            "%m = muli %a, %k : tile<8xi32>",
            "%s = scan %m dim=0 reverse=true identities=[-2147483648 : i32] : tile<8xi32> -> tile<8xi32>\n"
            "    (%x: tile<i32>, %y: tile<i32>) {\n      %z = maxi %x, %y signed : tile<i32>\n"
            "      yield %z : tile<i32>\n    }"] + _store_i32("s", 8)
    out = np.zeros(8, np.int32)
    launch(_kernel(body), "k", 1, [out])
    m = np.arange(8) * np.array([3, 1, 4, 1, 5, 9, 2, 6])
    assert out.tolist() == np.maximum.accumulate(m[::-1])[::-1].tolist()


def test_for_loop_sum_and_if_results():
    body = ["%lo = constant <i32: -3> : tile<i32>", "%hi = constant <i32: 10> : tile<i32>",
            "%st = constant <i32: 4> : tile<i32>", "%z = constant <i32: 0> : tile<i32>",
            "%sum = for %i in (%lo to %hi, step %st) : tile<i32> iter_values(%acc = %z) -> (tile<i32>) {\n"
            "      %n = addi %acc, %i : tile<i32>\n      continue %n : tile<i32>\n    }",
            "%neg = cmpi less_than %sum, %z, signed : tile<i32> -> tile<i1>",
            "%v = if %neg -> (tile<i32>) {\n      yield %z : tile<i32>\n    } else {\n"
            "      yield %sum : tile<i32>\n    }",
            "%w = reshape %v : tile<i32> -> tile<1xi32>"] + _store_i32("w", 1)
    out = np.zeros(1, np.int32)
    launch(_kernel(body), "k", 1, [out])
    assert out.tolist() == [sum(range(-3, 10, 4))]


def test_masked_load_pads_and_oob_access_is_reported():
    src = np.arange(4, dtype=np.int32) + 10
    out = np.zeros(8, np.int32)
    body = ["%i = iota : tile<8xi32>", "%four = constant <i32: 4> : tile<8xi32>",
            "%m = cmpi less_than %i, %four, signed : tile<8xi32> -> tile<8xi1>",
            "%pad = constant <i32: -1> : tile<8xi32>",
            "%r = reshape %src : tile<ptr<i32>> -> tile<1xptr<i32>>",
            "%b = broadcast %r : tile<1xptr<i32>> -> tile<8xptr<i32>>",
            "%p = offset %b, %i : tile<8xptr<i32>>, tile<8xi32> -> tile<8xptr<i32>>",
            "%v, %t = load_ptr_tko weak %p, %m, %pad : tile<8xptr<i32>>, tile<8xi1>, tile<8xi32> -> tile<8xi32>, token"]
    params = "%src: tile<ptr<i32>>, %po: tile<ptr<i32>>"
    launch(_kernel(body + _store_i32("v", 8), params), "k", 1, [src, out])
    assert out.tolist() == [10, 11, 12, 13, -1, -1, -1, -1]
    bad = body[:-1] + ["%v, %t = load_ptr_tko weak %p : tile<8xptr<i32>> -> tile<8xi32>, token"]
    with pytest.raises(LaunchError) as e:
        launch(_kernel(bad + _store_i32("v", 8), params), "k", 1, [src, out])
    msg = str(e.value)
    assert "k.mlir:10:5: error: 'cuda_tile.load_ptr_tko' op out-of-bounds memory read at index [4]" in msg
    assert "Traceback" not in msg


def test_pointer_integer_round_trip():
    src = np.array([5, 6, 7], np.int64)
    out = np.zeros(1, np.int32)
    body = ["%a = ptr_to_int %src : tile<ptr<i64>> -> tile<i64>",
            "%c16 = constant <i64: 16> : tile<i64>",
            "%b = addi %a, %c16 : tile<i64>",
            "%p = int_to_ptr %b : tile<i64> -> tile<ptr<i64>>",
            "%v, %t = load_ptr_tko weak %p : tile<ptr<i64>> -> tile<i64>, token",
            "%w = trunci %v : tile<i64> -> tile<i32>",
            "%x = reshape %w : tile<i32> -> tile<1xi32>"] + _store_i32("x", 1)
    launch(_kernel(body, "%src: tile<ptr<i64>>, %po: tile<ptr<i32>>"), "k", 1, [src, out])
    assert out.tolist() == [7]


@pytest.mark.parametrize("mode,f", [("add", lambda o, v: o + v), ("and", lambda o, v: o & v),
                                    ("or", lambda o, v: o | v), ("xor", lambda o, v: o ^ v),
                                    ("max", max), ("min", min), ("xchg", lambda o, v: v),
                                    ("umax", lambda o, v: wrap(max(o & 0xFFFFFFFF, v & 0xFFFFFFFF), 32)),
                                    ("umin", lambda o, v: wrap(min(o & 0xFFFFFFFF, v & 0xFFFFFFFF), 32))])
def test_atomic_rmw_kinds_with_colliding_lanes(mode, f):
    mem = np.array([5, -6, 7], np.int32)
    slots = np.array([0, 1, 0, 2, 0, 1], np.int32)
    vals = np.array([3, -1, 12, 9, -20, 4], np.int32)
    old = run_ew(["i32", "i32", "i32"], "i32",
                 ["%base = reshape %p0 : tile<ptr<i32>> -> tile<1xptr<i32>>",
                  "%bb = broadcast %base : tile<1xptr<i32>> -> tile<{n}xptr<i32>>",
                  "%ptrs = offset %bb, %v1 : tile<{n}xptr<i32>>, tile<{n}xi32> -> tile<{n}xptr<i32>>",
                  f"%res, %tr = atomic_rmw_tko relaxed device %ptrs, {mode}, %v2 : tile<{{n}}xptr<i32>>, "
                  "tile<{n}xi32> -> tile<{n}xi32>, token"],
                 np.resize(mem, 6).astype(np.int32), slots, vals)
    # the kernel's first input array is only used as memory through %p0: recompute it sequentially
    ref_mem = [int(v) for v in np.resize(mem, 6)]
    ref_old = []
    for s, v in zip(slots, vals):
        ref_old.append(ref_mem[s])
        ref_mem[s] = wrap(f(ref_mem[s], int(v)), 32)
    assert old.tolist() == ref_old


def test_assert_reports_every_failing_index_and_keeps_running():
    out = np.zeros(4, np.int32)
    body = ["%i = iota : tile<4xi32>", "%two = constant <i32: 2> : tile<4xi32>",
            "%ok = cmpi less_than %i, %two, signed : tile<4xi32> -> tile<4xi1>",
            'assert %ok, "i < 2" : tile<4xi1>'] + _store_i32("i", 4)
    with pytest.raises(LaunchError) as e:
        launch(_kernel(body), "k", 1, [out])
    lines = str(e.value).splitlines()
    assert len(lines) == 2
    assert lines[0] == "k.mlir:6:5: error: 'cuda_tile.assert' op assertion failed: i < 2 at index [2] in tile block (0, 0, 0)"
    assert "at index [3]" in lines[1]
    assert out.tolist() == [0, 1, 2, 3]  # the store after the assert still ran


def test_print_formats():
    body = ["%i = iota : tile<4xi32>", "%f = constant <f32: 1.5> : tile<f32>",
            "%m = constant <i32: -1> : tile<i32>",
            'print "v=%d f=%.2f x=%x %%\\n", %i, %f, %m : tile<4xi32>, tile<f32>, tile<i32>']
    buf = io.StringIO()
    launch(_kernel(body), "k", (2,), [np.zeros(1, np.int32)], stdout=buf)
    assert buf.getvalue() == "v=[0, 1, 2, 3] f=1.50 x=ffffffff %\n" * 2


def test_assume_is_checked():
    body = ["%a = assume bounded<0, 10>, %n : tile<i32>"]
    launch(_kernel(body, "%n: tile<i32>"), "k", 1, [10])
    with pytest.raises(LaunchError) as e:
        launch(_kernel(body, "%n: tile<i32>"), "k", 1, [11])
    assert "assumption bounded<0, 10> does not hold: value 11" in str(e.value)


def test_dim_map_view_loads_transposed_tiles():
    x = np.arange(8 * 4, dtype=np.float32).reshape(8, 4)
    out = np.zeros((4, 8), np.float32)
    pv_in = "partition_view<tile=(4x8), tensor_view<8x4xf32, strides=[4,1]>, dim_map=[1, 0]>"
    pv_out = "partition_view<tile=(4x8), tensor_view<4x8xf32, strides=[8,1]>>"
    body = ["%vi = make_tensor_view %src, shape = [8, 4], strides = [4, 1] : tensor_view<8x4xf32, strides=[4,1]>",
            "%vo = make_tensor_view %dst, shape = [4, 8], strides = [8, 1] : tensor_view<4x8xf32, strides=[8,1]>",
            f"%pi = make_partition_view %vi : {pv_in}",
            f"%po2 = make_partition_view %vo : {pv_out}",
            "%c0 = constant <i32: 0> : tile<i32>",
            f"%t, %tk = load_view_tko weak %pi[%c0, %c0] : {pv_in}, tile<i32> -> tile<4x8xf32>, token",
            f"%s = store_view_tko weak %t, %po2[%c0, %c0] : tile<4x8xf32>, {pv_out}, tile<i32> -> token"]
    launch(_kernel(body, "%src: tile<ptr<f32>>, %dst: tile<ptr<f32>>"), "k", 1, [x, out])
    assert np.array_equal(out, x.T)


def test_unsupported_op_is_a_diagnostic():
    body = ["%a = constant <i8: 3> : tile<4xi8>", "%b = unpack %a : tile<4xi8> -> tile<8xi4>"]
    try:
        mod = _kernel(body)
    except LaunchError:
        pytest.skip("unpack does not parse in this form")
    with pytest.raises(LaunchError) as e:
        launch(mod, "k", 1, [np.zeros(1, np.int32)])
    assert "'cuda_tile.unpack' op is not supported by the interpreter" in str(e.value)


def test_atomic_red_view_accumulates_across_blocks():
    acc = np.array([[1, 2], [3, 4], [5, 6]], np.int32)  # 3 rows: the second tile row is partial
    pv = "partition_view<tile=(2x2), tensor_view<3x2xi32, strides=[2,1]>>"
    body = ["%v = make_tensor_view %dst, shape = [3, 2], strides = [2, 1] : tensor_view<3x2xi32, strides=[2,1]>",
            f"%p = make_partition_view %v : {pv}",
            "%x, %y, %z = get_tile_block_id : tile<i32>",
            "%one = constant <i32: 1> : tile<i32>",
            "%w = addi %x, %one : tile<i32>",
            "%r = reshape %w : tile<i32> -> tile<1x1xi32>",
            "%b = broadcast %r : tile<1x1xi32> -> tile<2x2xi32>",
            "%c0 = constant <i32: 0> : tile<i32>",
            f"%t0 = atomic_red_view_tko relaxed device %p[%c0, %c0], add, %b : tile<2x2xi32>, {pv}, tile<i32> -> token",
            f"%t1 = atomic_red_view_tko relaxed device %p[%one, %c0], max, %b : tile<2x2xi32>, {pv}, tile<i32> -> token"]
    launch(_kernel(body, "%dst: tile<ptr<i32>>"), "k", (4,), [acc])
    assert acc.tolist() == [[11, 12], [13, 14], [5, 6]]


@pytest.mark.parametrize("elt,acc", [("f8E4M3FN", "f16"), ("f8E4M3FN", "f32"), ("bf16", "f32"), ("f64", "f64")])
def test_mmaf_input_and_accumulator_types(elt, acc):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((16, 32)).astype(NP[elt])
    b = rng.standard_normal((32, 8)).astype(NP[elt])
    c = rng.standard_normal((16, 8)).astype(NP[acc])
    out = np.zeros((16, 8), NP[acc])

    def view(name, shape, t):
        tv = f"tensor_view<{shape[0]}x{shape[1]}x{t}, strides=[{shape[1]},1]>"
        pv = f"partition_view<tile=({shape[0]}x{shape[1]}), {tv}>"
        return [f"%v{name} = make_tensor_view %{name}, shape = [{shape[0]}, {shape[1]}], strides = [{shape[1]}, 1] "
                f": {tv}", f"%p{name} = make_partition_view %v{name} : {pv}"], pv
    body, loads = ["%c0 = constant <i32: 0> : tile<i32>"], {}
    for name, shape, t in (("a", (16, 32), elt), ("b", (32, 8), elt), ("c", (16, 8), acc), ("o", (16, 8), acc)):
        lines, pv = view(name, shape, t)
        body += lines
        loads[name] = pv
        if name != "o":
            body.append(f"%t{name}, %k{name} = load_view_tko weak %p{name}[%c0, %c0] : {pv}, tile<i32> -> "
                        f"tile<{shape[0]}x{shape[1]}x{t}>, token")
    body += [f"%r = mmaf %ta, %tb, %tc : tile<16x32x{elt}>, tile<32x8x{elt}>, tile<16x8x{acc}>",
             f"%s = store_view_tko weak %r, %po[%c0, %c0] : tile<16x8x{acc}>, {loads['o']}, tile<i32> -> token"]
    params = ", ".join(f"%{n}: tile<ptr<{t}>>" for n, t in (("a", elt), ("b", elt), ("c", acc), ("o", acc)))
    launch(_kernel(body, params), "k", 1, [a, b, c, out])
    exact = a.astype(np.float64) @ b.astype(np.float64) + c.astype(np.float64)
    if acc == "f16":   # f32 accumulation (products of fp8 are exact), one rounding to f16
        assert np.array_equal(out, (a.astype(np.float32) @ b.astype(np.float32) + c.astype(np.float32))
                              .astype(np.float16))
    scale = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)) + np.abs(c.astype(np.float64))
    tol = {"f16": 1e-3, "f32": 1e-6, "f64": 1e-14}[acc]
    assert np.all(np.abs(out.astype(np.float64) - exact) <= tol * scale)
