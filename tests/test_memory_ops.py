"""Memory, view and atomic cuda_tile ops: each custom form prints to the
expected canonical text and is a fixed point; the generic form re-parses to
the same custom print; bad input is a located diagnostic with exit code 1."""
import pytest

from tilec.cli import main


def _opt(tmp_path, text, *flags, name="in.mlir"):
    f = tmp_path / name
    f.write_text(text)
    out = tmp_path / (name + ".out")
    rc = main(["opt", *flags, str(f), "-o", str(out)])
    return rc, (out.read_text() if out.exists() else "")


def _module(args, body):
    return f"cuda_tile.module @m {{\n  testing$func @f({args}) {{\n{body}    return\n  }}\n}}\n"


def check(tmp_path, text, expected):
    rc, printed = _opt(tmp_path, text)
    assert rc == 0
    assert printed == expected
    rc, again = _opt(tmp_path, printed, name="again.mlir")
    assert rc == 0 and again == expected  # a fixed point
    rc, generic = _opt(tmp_path, text, "--mlir-print-op-generic", name="generic.mlir")
    assert rc == 0 and generic != expected
    rc, back = _opt(tmp_path, generic, name="back.mlir")
    assert rc == 0 and back == expected


PTR = "%p: !cuda_tile.tile<4x8x!cuda_tile.ptr<f16>>"


def test_pointer_loads_and_stores(tmp_path):
    text = _module(f"{PTR}, %m: tile<4x8xi1>, %v: tile<4x8xf16>, %t: token", (
        "    %a, %at = load_ptr_tko weak %p token = %t : tile<4x8xptr<f16>> -> tile<4x8xf16>, token\n"
        "    %b, %bt = load_ptr_tko relaxed tl_blk %p, %m, %v\n"
        "        : tile<4x8xptr<f16>>, tile<4x8xi1>, tile<4x8xf16> -> tile<4x8xf16>, token\n"
        "    %c, %ct = load_ptr_tko acquire sys %p, %m optimization_hints = <sm_90 = {latency = 2}>\n"
        "        : tile<4x8xptr<f16>>, tile<4x8xi1> -> tile<4x8xf16>, token\n"
        "    %s = store_ptr_tko release device %p, %v, %m token=%at\n"
        "        : tile<4x8xptr<f16>>, tile<4x8xf16>, tile<4x8xi1> -> token\n"))
    expected = _module(
        "%arg0: tile<4x8xptr<f16>>, %arg1: tile<4x8xi1>, %arg2: tile<4x8xf16>, %arg3: token", (
            "    %result, %result_token = load_ptr_tko weak %arg0 token=%arg3"
            " : tile<4x8xptr<f16>> -> tile<4x8xf16>, token\n"
            "    %result_0, %result_token_1 = load_ptr_tko relaxed tl_blk %arg0, %arg1, %arg2"
            " : tile<4x8xptr<f16>>, tile<4x8xi1>, tile<4x8xf16> -> tile<4x8xf16>, token\n"
            "    %result_2, %result_token_3 = load_ptr_tko acquire sys %arg0, %arg1"
            " optimization_hints = <sm_90 = {latency = 2}> : tile<4x8xptr<f16>>, tile<4x8xi1>"
            " -> tile<4x8xf16>, token\n"
            "    %0 = store_ptr_tko release device %arg0, %arg2, %arg1 token=%result_token"
            " : tile<4x8xptr<f16>>, tile<4x8xf16>, tile<4x8xi1> -> token\n"))
    check(tmp_path, text, expected)



def test_load_with_padding_and_no_mask(tmp_path):
    # tileirdisasm prints a padded, unmasked load as `%p, %pad : T_p, T_pad`: the lone
    # trailing value is the padding because its type is not an i1 tile (TileGym's gathers)
    text = _module(f"{PTR}, %v: tile<4x8xf16>", (
        "    %a, %at = load_ptr_tko weak %p, %v : tile<4x8xptr<f16>>, tile<4x8xf16> -> tile<4x8xf16>, token\n"))
    expected = _module("%arg0: tile<4x8xptr<f16>>, %arg1: tile<4x8xf16>", (
        "    %result, %result_token = load_ptr_tko weak %arg0, %arg1"
        " : tile<4x8xptr<f16>>, tile<4x8xf16> -> tile<4x8xf16>, token\n"))
    check(tmp_path, text, expected)
    rc, generic = _opt(tmp_path, text, "--mlir-print-op-generic", name="g.mlir")
    assert rc == 0 and "operandSegmentSizes = array<i32: 1, 0, 1, 0>" in generic

TV = "tensor_view<64x?xf32, strides=[?,1]>"
PV = f"partition_view<tile=(16x8), padding_value = zero, {TV}, dim_map=[1, 0]>"


def test_views_shapes_and_view_loads(tmp_path):
    text = _module("%base: tile<ptr<f32>>, %n: tile<i32>, %i: tile<i32>, %j: tile<i64>", (
        f"    %tv = make_tensor_view %base, shape = [64, %n], strides = [%n, 1] : tile<i32> -> {TV}\n"
        f"    %pv = make_partition_view %tv : {PV}\n"
        f"    %sv = make_strided_view %tv : strided_view<tile=(8x8), traversal_strides=[2,1], {TV}>\n"
        f"    %gv = make_gather_scatter_view %tv : gather_scatter_view<tile=(4x8), {TV}, sparse_dim=0>\n"
        f"    %d:2 = get_tensor_shape %tv : {TV} -> tile<i64>\n"
        f"    %e:2 = get_index_space_shape %pv : {PV} -> tile<i32>\n"
        f"    %x, %xt = load_view_tko weak %pv[%i, %i] : {PV}, tile<i32> -> tile<16x8xf32>, token\n"
        f"    %y = store_view_tko relaxed device %x, %pv[%i, %i] token = %xt attributes {{tag}}"
        f" : tile<16x8xf32>, {PV}, tile<i32> -> token\n"
        "    %rows = iota : tile<4xi32>\n"
        "    %g, %gt = load_view_tko weak %gv[%rows, %j]"
        f" : gather_scatter_view<tile=(4x8), {TV}, sparse_dim=0>, tile<4xi32>, tile<i64>"
        " -> tile<4x8xf32>, token\n"))
    expected = _module("%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i64>", (
        f"    %tview = make_tensor_view %arg0, shape = [64, %arg1], strides = [%arg1, 1] : tile<i32> -> {TV}\n"
        f"    %pview = make_partition_view %tview : {PV}\n"
        f"    %sview = make_strided_view %tview : strided_view<tile=(8x8), traversal_strides=[2,1], {TV}>\n"
        f"    %gsview = make_gather_scatter_view %tview : gather_scatter_view<tile=(4x8), {TV}, sparse_dim=0>\n"
        f"    %0:2 = get_tensor_shape %tview : {TV} -> tile<i64>\n"
        f"    %1:2 = get_index_space_shape %pview : {PV} -> tile<i32>\n"
        f"    %tile, %result_token = load_view_tko weak %pview[%arg2, %arg2] : {PV}, tile<i32>"
        " -> tile<16x8xf32>, token\n"
        f"    %2 = store_view_tko relaxed device %tile, %pview[%arg2, %arg2] token = %result_token"
        f" attributes {{tag}} : tile<16x8xf32>, {PV}, tile<i32> -> token\n"
        "    %3 = iota : tile<4xi32>\n"
        "    %tile_0, %result_token_1 = load_view_tko weak %gsview[%3, %arg3]"
        f" : gather_scatter_view<tile=(4x8), {TV}, sparse_dim=0>, tile<4xi32>, tile<i64>"
        " -> tile<4x8xf32>, token\n"))
    check(tmp_path, text, expected)


def test_atomics_alloca_and_byte_packing(tmp_path):
    pv = "partition_view<tile=(4), tensor_view<16xi64, strides=[1]>>"
    text = _module(f"%p: tile<8xptr<i64>>, %v: tile<8xi64>, %m: tile<8xi1>, %pv: {pv}, %w: tile<4xi64>, "
                   "%i: tile<i16>, %t: token, %h: tile<32xf16>", (
                       "    %0, %1 = atomic_cas_tko acq_rel sys %p, %v, %v, %m token=%t"
                       " : tile<8xptr<i64>>, tile<8xi64>, tile<8xi1> -> tile<8xi64>, token\n"
                       "    %2, %3 = atomic_rmw_tko release tl_blk %p, umax, %v"
                       " : tile<8xptr<i64>>, tile<8xi64> -> tile<8xi64>, token\n"
                       f"    %4 = atomic_red_view_tko relaxed tl_blk %pv[%i], xor, %w token = %3"
                       f" : tile<4xi64>, {pv}, tile<i16> -> token\n"
                       "    %5 = alloca num_elem = 16, alignment = 8 : tile<ptr<i64>>\n"
                       "    %6 = alloca num_elem = 0, alignment = 64 global : tile<ptr<f16>>\n"
                       "    %7 = pack %h : tile<32xf16> -> tile<64xi8>\n"
                       "    %8 = unpack %7 : tile<64xi8> -> tile<16xi32>\n"))
    expected = _module(f"%arg0: tile<8xptr<i64>>, %arg1: tile<8xi64>, %arg2: tile<8xi1>, %arg3: {pv}, "
                       "%arg4: tile<4xi64>, %arg5: tile<i16>, %arg6: token, %arg7: tile<32xf16>", (
                           "    %result, %result_token = atomic_cas_tko acq_rel sys %arg0, %arg1, %arg1, %arg2"
                           " token=%arg6 : tile<8xptr<i64>>, tile<8xi64>, tile<8xi1> -> tile<8xi64>, token\n"
                           "    %result_0, %result_token_1 = atomic_rmw_tko release tl_blk %arg0, umax, %arg1"
                           " : tile<8xptr<i64>>, tile<8xi64> -> tile<8xi64>, token\n"
                           "    %0 = atomic_red_view_tko relaxed tl_blk %arg3[%arg5], xor, %arg4"
                           f" token = %result_token_1 : tile<4xi64>, {pv}, tile<i16> -> token\n"
                           "    %1 = alloca num_elem = 16, alignment = 8 : tile<ptr<i64>>\n"
                           "    %2 = alloca num_elem = 0, alignment = 64 global : tile<ptr<f16>>\n"
                           "    %3 = pack %arg7 : tile<32xf16> -> tile<64xi8>\n"
                           "    %4 = unpack %3 : tile<64xi8> -> tile<16xi32>\n"))
    check(tmp_path, text, expected)


def test_generic_enum_attributes_are_i32(tmp_path):
    text = _module(PTR, "    %r0, %r1 = load_ptr_tko relaxed device %p : tile<4x8xptr<f16>> -> tile<4x8xf16>, token\n")
    rc, generic = _opt(tmp_path, text, "--mlir-print-op-generic")
    assert rc == 0
    assert ("<{memory_ordering_semantics = 1 : i32, memory_scope = 1 : i32, "
            "operandSegmentSizes = array<i32: 1, 0, 0, 0>}>") in generic


# (body, line of the error, text the error points at (None: the op's start), message fragment)
BAD = [
    ("    %r0, %r1 = load_ptr_tko bogus %p : tile<4x8xptr<f16>> -> tile<4x8xf16>, token\n", 3, "bogus",
     "expected string or keyword containing one of the following enum values for attribute "
     "'memory_ordering_semantics'"),
    ("    %r0, %r1 = load_ptr_tko weak device %p : tile<4x8xptr<f16>> -> tile<4x8xf16>, token\n", 3, None,
     "weak load must not have memory scope"),
    ("    %r0, %r1 = load_ptr_tko relaxed %p : tile<4x8xptr<f16>> -> tile<4x8xf16>, token\n", 3, None,
     "memory scope is required for relaxed load"),
    ("    %r0, %r1 = load_ptr_tko weak %p, %p, %p, %p : tile<4x8xptr<f16>> -> tile<4x8xf16>, token\n", 3, "%p :",
     "expected ':'"),
    ("    %r0, %r1 = load_ptr_tko weak %p : tile<4x8xptr<f16>>, tile<4x8xi1> -> tile<4x8xf16>, token\n",
     3, "tile<4x8xi1>",
     "0 operands present, but expected 1"),
    ("    %r0, %r1 = load_ptr_tko weak %p : tile<4x8xptr<f16>> -> tile<4x8xf32>, token\n", 3, None,
     "`source` type is expected a pointer type of `result` type"),
    ("    %s = store_ptr_tko acquire device %p, %p : tile<4x8xptr<f16>>, tile<4x8xptr<f16>> -> token\n",
     3, None,
     "failed to verify that `destination` type is expected a pointer type of `value` type"),
    ("    %s = store_ptr_tko weak %q, %w token=%w : tile<8xptr<i64>>, tile<8xi64> -> token\n", 3, "%w :",
     "use of value '%w' expects different type than prior uses: '!cuda_tile.token' vs '!cuda_tile.tile<8xi64>'"),
    ("    %t = make_tensor_view %b, shape = [4, x], strides = [1] : tensor_view<4x4xf32, strides=[4,1]>\n",
     3, "x]", "custom op 'cuda_tile.make_tensor_view' expected either integer or SSA value"),
    ("    %t = make_tensor_view %b, shape = [4, 8], strides = [8, 1] : tensor_view<4x4xf32, strides=[8,1]>\n",
     3, "8]", "input shape dimension 1 does not match tensor_view type (expected 4, got 8)"),
    ("    %t = make_tensor_view %b, shape = [%n], strides = [1] : tensor_view<?xf32, strides=[1]>\n", 3, "tensor_view<",
     "expected '->'"),
    ("    %t = make_tensor_view %b, shape = [4], strides = [1] : tensor_view<4xf32, strides=[1]>\n"
     "    %v = make_partition_view %t : tensor_view<4xf32, strides=[1]>\n", 4, "tensor_view",
     "expected 'partition_view' type, but got '!cuda_tile.tensor_view<4xf32, strides=[1]>'"),
    ("    %t = make_tensor_view %b, shape = [4], strides = [1] : tensor_view<4xf32, strides=[1]>\n"
     "    %v = make_partition_view %t : partition_view<tile=(3), tensor_view<4xf32, strides=[1]>>\n", 4, "<tile=(3)",
     "tile shape dimensions must have power of two length but got [3]"),
    ("    %t = make_tensor_view %b, shape = [4], strides = [1] : tensor_view<4xf32, strides=[1]>\n"
     "    %v = make_partition_view %t : partition_view<tile=(4), tensor_view<4xf32, strides=[1]>>\n"
     "    %x, %y = load_view_tko weak device %v[%n] : partition_view<tile=(4), tensor_view<4xf32, strides=[1]>>,"
     " tile<i32> -> tile<4xf32>, token\n", 5, "device", "provides \"device\" scope, expected no memory scope."),
    ("    %t = make_tensor_view %b, shape = [4], strides = [1] : tensor_view<4xf32, strides=[1]>\n"
     "    %v = make_partition_view %t : partition_view<tile=(4), tensor_view<4xf32, strides=[1]>>\n"
     "    %x, %y = load_view_tko weak %v[%n] : partition_view<tile=(4), tensor_view<4xf32, strides=[1]>>,"
     " tile<i32> -> tile<8xf32>, token\n", 5, None,
     "expected tile type to be '!cuda_tile.tile<4xf32>' (based on view type), got '!cuda_tile.tile<8xf32>'"),
    ("    %t = make_tensor_view %b, shape = [4], strides = [1] : tensor_view<4xf32, strides=[1]>\n"
     "    %v = make_partition_view %t : partition_view<tile=(4), tensor_view<4xf32, strides=[1]>>\n"
     "    %x, %y = load_view_tko weak %v[%n, %n] : partition_view<tile=(4), tensor_view<4xf32, strides=[1]>>,"
     " tile<i32>, tile<i32>, tile<i32> -> tile<4xf32>, token\n", 5, "tile<i32>, tile<i32>, tile<i32>",
     "expected 2 index types, got 3"),
    ("    %x, %y = atomic_rmw_tko relaxed device %q, addf, %w : tile<8xptr<i64>>, tile<8xi64>"
     " -> tile<8xi64>, token\n", 3, None, "'addf' works only with floats f16, bf16, f32, and f64"),
    ("    %x, %y = atomic_rmw_tko weak device %q, add, %w : tile<8xptr<i64>>, tile<8xi64>"
     " -> tile<8xi64>, token\n", 3, None,
     "memory ordering semantics must be one of: relaxed, acquire, release, acq_rel"),
    ("    %x, %y = atomic_cas_tko relaxed device %q, %w, %w : tile<8xptr<i64>>, tile<8xi64>"
     " -> tile<8xi32>, token\n", 3, None, "failed to verify that all of {cmp, val, result} have same type"),
    ("    %a = alloca num_elem = 4, alignment = 2 : tile<ptr<f32>>\n", 3, None,
     "'alignment' (2) must be at least the natural size (4 bytes) for element type 'f32'"),
    ("    %a = alloca num_elem = -4, alignment = 4 : tile<ptr<f32>>\n", 3, None,
     "attribute 'num_elem' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value "
     "is 0"),
    ("    %a = pack %w : tile<8xi64> -> tile<32xi8>\n", 3, None,
     "expects source and result to have the same size in bytes, but got source tile size 64 bytes and result "
     "tile size 32 bytes"),
]

ARGS = (f"{PTR}, %b: tile<ptr<f32>>, %n: tile<i32>, %q: tile<8xptr<i64>>, %w: tile<8xi64>")


@pytest.mark.parametrize("body,line,col,message", BAD, ids=[f"bad{i}" for i in range(len(BAD))])
def test_bad_input_is_a_located_diagnostic(tmp_path, capsys, body, line, col, message):
    f = tmp_path / "bad.mlir"
    f.write_text(_module(ARGS, body))
    rc = main(["opt", str(f)])
    err = capsys.readouterr().err
    assert rc == 1
    assert "Traceback" not in err and "internal error" not in err
    first = err.splitlines()[0]
    text = f.read_text().splitlines()[line - 1]
    column = text.index(col) + 1 if col is not None else len(text) - len(text.lstrip()) + 1
    prefix = f"{f}:{line}:{column}:"
    assert first.startswith(prefix), first
    assert message in first, first
