"""The ops, type and pointer classification that only bytecode 13.4/13.5 have:
insert, fpowi, gdc_wait_tko, gdc_launch_dependents_tko, memory_fence_alias_tko
(13.4), multimem_load_reduce/reduce/store_view_tko (13.5), the fnv8E5M3FNU
element type (13.4) and `#cuda_tile.ptr_attr` on ptr / tensor_view types.

- text: NVIDIA's printed form round-trips (custom and generic); bad input is a
  located diagnostic;
- verifier: golden/cuda_tile/ops_13_4.mlir, each error checked against NVIDIA's
  tileirdisasm when the reference toolchain is installed;
- bytecode: round trips at 13.4/13.5, the refusals for older versions, and
  interoperation with tileirdisasm (and with NVIDIA's own encoder, cuTile Python);
- interpreter: fpowi bit-exact against binary powering, insert, the token-only
  ops, multimem on a one-member multicast object, fnv8E5M3FNU conversions;
- PTX: griddepcontrol / fence.proxy.alias / fpowi / insert, accepted by ptxas
  and agreeing with the interpreter in the PTX simulator; multimem refused.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess

import numpy as np
import pytest

from tilec.bytecode import read_bytecode, write_bytecode
from tilec.ir.diagnostics import DiagnosticEngine
from tilec.ir.verifier import verify
from tilec.syntax.parser import parse_text
from tilec.syntax.printer import print_ops
from test_bytecode_interop import REF_PYTHON, TILEIRDISASM, disasm, module_body, same_ir
from test_cutile_roundtrip import normalize_ssa

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(ROOT, "golden", "cuda_tile", "ops_13_4.mlir")
needs_disasm = pytest.mark.skipif(not TILEIRDISASM, reason="NVIDIA's tileirdisasm is not installed")
needs_ptxas = pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas is not on PATH")

# 13.4: the new ops, fnv8E5M3FNU and a unicast pointer, printed as tileirdisasm prints them
MODULE_13_4 = """\
cuda_tile.module @kernels {
  entry @k(%arg0: tile<ptr<f32, <none>>>) {
    %cst_f32 = constant <f32: [1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tile<4xf32>
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<8xf32>
    %cst_i32 = constant <i32: [0, 1, -2, 3]> : tile<4xi32>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_f16 = constant <f16: [1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tile<4xf16>
    %cst_fnv8E5M3FNU = constant <fnv8E5M3FNU: [3.906250e-03, 7.812500e-03, 0.000000e+00, 1.146880e+05]> : tile<4xfnv8E5M3FNU>
    %0 = fpowi %cst_f32, %cst_i32 : tile<4xf32>, tile<4xi32>
    %1 = fpowi %cst_f16, %cst_i32 : tile<4xf16>, tile<4xi32>
    %2 = insert %cst_f32, %cst_0_f32[%cst_1_i32] : tile<4xf32>, tile<8xf32>
    %3 = make_token : token
    %4 = gdc_wait_tko -> token
    %5 = gdc_wait_tko token = %3 -> token
    %6 = gdc_launch_dependents_tko -> token
    %7 = gdc_launch_dependents_tko token = %5 -> token
    %8 = memory_fence_alias_tko %7
    %9 = ftof %cst_fnv8E5M3FNU : tile<4xfnv8E5M3FNU> -> tile<4xf32>
    %tview = make_tensor_view %arg0, shape = [8], strides = [1] : tile<ptr<f32, <none>>> -> tensor_view<8xf32, strides=[1], #cuda_tile.ptr_attr<none>>
    return
  }
}
"""

_PV = "partition_view<tile=(2x4), tensor_view<64x64x{t}, strides=[64,1], #cuda_tile.ptr_attr<multicast>>>"
PVH, PVI = _PV.format(t="f16"), _PV.format(t="i32")
# 13.5: the multimem ops over multicast views (reduction kinds, inbounds, tokens)
MODULE_13_5 = f"""\
cuda_tile.module @kernels {{
  entry @k(%arg0: tile<ptr<f16, <multicast>>>, %arg1: tile<ptr<i32, <multicast>>>) {{
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %tview = make_tensor_view %arg0, shape = [64, 64], strides = [64, 1] : tile<ptr<f16, <multicast>>> -> tensor_view<64x64xf16, strides=[64,1], #cuda_tile.ptr_attr<multicast>>
    %tview_0 = make_tensor_view %arg1, shape = [64, 64], strides = [64, 1] : tile<ptr<i32, <multicast>>> -> tensor_view<64x64xi32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>
    %pview = make_partition_view %tview : {PVH}
    %pview_1 = make_partition_view %tview_0 : {PVI}
    %cst_1_f16 = constant <f16: 1.000000e+00> : tile<2x4xf16>
    %cst_1_i32 = constant <i32: 1> : tile<2x4xi32>
    %0 = make_token : token
    %reduced_values, %result_token = multimem_load_reduce_view_tko weak %pview[%cst_0_i32, %cst_0_i32] attributes {{reduction = #cuda_tile.multimem_reduction_kind<min>}} : {PVH}, tile<i32> -> tile<2x4xf16>, token
    %reduced_values_2, %result_token_3 = multimem_load_reduce_view_tko weak %pview[%cst_0_i32, %cst_0_i32] : {PVH}, tile<i32> -> tile<2x4xf16>, token
    %1 = multimem_reduce_view_tko relaxed device %pview, %cst_1_f16[%cst_0_i32, %cst_0_i32] token = %0 inbounds = [false, true] : {PVH}, tile<2x4xf16>, tile<i32>, token -> token
    %reduced_values_4, %result_token_5 = multimem_load_reduce_view_tko acquire sys %pview_1[%cst_0_i32, %cst_0_i32] token = %0 inbounds = [true, false] attributes {{reduction = #cuda_tile.multimem_reduction_kind<umax>}} : {PVI}, tile<i32>, token -> tile<2x4xi32>, token
    %2 = multimem_reduce_view_tko release tl_blk %pview_1, %cst_1_i32[%cst_0_i32, %cst_0_i32] attributes {{reduction = #cuda_tile.multimem_reduction_kind<xor>}} : {PVI}, tile<2x4xi32>, tile<i32> -> token
    %3 = multimem_store_view_tko weak %pview_1, %cst_1_i32[%cst_0_i32, %cst_0_i32] : {PVI}, tile<2x4xi32>, tile<i32> -> token
    %4 = multimem_store_view_tko relaxed device %pview_1, %cst_1_i32[%cst_0_i32, %cst_0_i32] token = %0 : {PVI}, tile<2x4xi32>, tile<i32>, token -> token
    return
  }}
}}
"""

NEW_OPS_13_4 = ("fpowi", "insert", "gdc_wait_tko", "gdc_launch_dependents_tko", "memory_fence_alias_tko")
NEW_OPS_13_5 = ("multimem_load_reduce_view_tko", "multimem_reduce_view_tko", "multimem_store_view_tko")


def parse(text, name="in.mlir"):
    engine = DiagnosticEngine()
    ops = parse_text(text, engine, name)
    assert ops is not None and all(verify(op, engine) for op in ops), engine.render()
    return ops


def write(ops, version):
    engine = DiagnosticEngine()
    data = write_bytecode(ops, engine, version)
    return data, engine


def read(data):
    engine = DiagnosticEngine()
    ops = read_bytecode(data, "t.tilebc", engine)
    assert ops is not None and all(verify(op, engine) for op in ops), engine.render()
    return ops


def squeeze(text):
    return [re.sub(r"\s+", " ", line).strip() for line in text.strip().splitlines()]


# ---- text -------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [MODULE_13_4, MODULE_13_5], ids=["13.4", "13.5"])
def test_nvidia_form_round_trips(text):
    printed = print_ops(parse(text))
    assert squeeze(printed) == squeeze(text)
    generic = print_ops(parse(text), generic=True)
    assert print_ops(parse(generic)) == printed


def test_generic_form_of_the_new_pieces():
    generic = print_ops(parse(MODULE_13_4 + MODULE_13_5.replace("@kernels", "@m2")), generic=True)
    for piece in ('"cuda_tile.fpowi"(', '"cuda_tile.gdc_wait_tko"() : () -> !cuda_tile.token',
                  '"cuda_tile.memory_fence_alias_tko"(%', "!cuda_tile.tile<4xfnv8E5M3FNU>",
                  "!cuda_tile.tile<ptr<f32, <none>>>", "#cuda_tile.ptr_attr<none>>",
                  "reduction = #cuda_tile.multimem_reduction_kind<umax>", "inbounds = array<i1: true, false>"):
        assert piece in generic, piece


def test_custom_form_fills_inbounds():
    """Left out, `inbounds` is all false, one flag per index (as NVIDIA's parser makes it)."""
    ops = parse(MODULE_13_5)
    stores = [op for op in ops[0].walk() if op.name == "cuda_tile.multimem_store_view_tko"]
    assert stores[0].attributes["inbounds"].values == (0, 0)


@pytest.mark.parametrize("text, message", [
    ("%c = cuda_tile.constant <fnv8E5M3FNU: -1.0> : !cuda_tile.tile<fnv8E5M3FNU>",
     "1:25: error: negative value cannot be represented by unsigned float type 'fnv8E5M3FNU'"),
    ("cuda_tile.module @m {\n  entry @k(%p: tile<ptr<f32, <bogus>>>) {\n    return\n  }\n}",
     "error: expected pointer classification to be one of: none, unicast, multicast, got 'bogus'"),
    (MODULE_13_5.replace("inbounds = [false, true]", "inbounds = [maybe, true]"),
     "error: custom op 'cuda_tile.multimem_reduce_view_tko' expected 'true' or 'false', got 'maybe'"),
    (MODULE_13_4.replace("%4 = gdc_wait_tko -> token", "%4 = gdc_wait_tko token = -> token"),
     "error:"),
], ids=["negative fnv8", "ptr_attr", "inbounds", "gdc token"])
def test_bad_syntax_is_a_located_diagnostic(run_cli, tmp_path, text, message):
    path = tmp_path / "bad.mlir"
    path.write_text(text)
    rc, out, err = run_cli("verify", str(path))
    assert rc == 1 and message in err and "Traceback" not in err, err
    assert re.search(r"bad\.mlir:\d+:\d+: error: ", err), err


# ---- verifier ------------------------------------------------------------------------------

def test_golden_diagnostics(run_cli):
    rc, out, err = run_cli("opt", GOLDEN, "--split-input-file", "--verify-diagnostics")
    assert rc == 0, err


def _golden_cases():
    text = open(GOLDEN, encoding="utf-8").read()
    for chunk in text.split("// -----"):
        m = re.search(r"// expected-error @below \{\{(.*)\}\}", chunk)
        if m:
            yield chunk, m.group(1)


@needs_disasm
def test_golden_errors_are_nvidias(tmp_path):
    """Each error of the golden file is the first one tileirdisasm 13.5 reports
    when it reads the same IR (written as bytecode without verifying it)."""
    cases = list(_golden_cases())
    assert len(cases) >= 35
    for chunk, expected in cases:
        engine = DiagnosticEngine()
        ops = parse_text(chunk, engine, "case.mlir")
        data, engine = write(ops, (13, 5))
        assert data is not None, engine.render()
        path = tmp_path / "case.tilebc"
        path.write_bytes(data)
        p = subprocess.run([TILEIRDISASM, str(path)], capture_output=True, text=True, timeout=120)
        first = p.stderr.strip().split("\n")[0]
        assert p.returncode != 0 and first == f"error: {expected}", (expected, p.stderr)


# ---- bytecode ------------------------------------------------------------------------------

@pytest.mark.parametrize("text, versions", [(MODULE_13_4, [(13, 4), (13, 5)]), (MODULE_13_5, [(13, 5)])],
                         ids=["13.4", "13.5"])
def test_bytecode_round_trip(text, versions):
    printed = print_ops(parse(text))
    for v in versions:
        data, engine = write(parse(text), v)
        assert data is not None, engine.render()
        assert print_ops(read(data)) == printed


ONE_OP_13_4 = {
    "fpowi": "%x = constant <f32: 2.0> : tile<4xf32>\n    %n = constant <i32: 3> : tile<4xi32>\n"
             "    %r = fpowi %x, %n : tile<4xf32>, tile<4xi32>",
    "insert": "%x = constant <f32: 2.0> : tile<4xf32>\n    %d = constant <f32: 0.0> : tile<8xf32>\n"
              "    %i = constant <i32: 1> : tile<i32>\n    %r = insert %x, %d[%i] : tile<4xf32>, tile<8xf32>",
    "gdc_wait_tko": "%r = gdc_wait_tko -> token",
    "gdc_launch_dependents_tko": "%t = make_token : token\n    %r = gdc_launch_dependents_tko token = %t -> token",
    "memory_fence_alias_tko": "%t = make_token : token\n    %r = memory_fence_alias_tko %t",
}


@pytest.mark.parametrize("name", NEW_OPS_13_4)
def test_13_4_ops_are_refused_for_13_3(name):
    ops = parse(f"cuda_tile.module @m {{\n  entry @k() {{\n    {ONE_OP_13_4[name]}\n    return\n  }}\n}}")
    data, engine = write(ops, (13, 3))
    assert data is None
    assert f"error: operation 'cuda_tile.{name}' is not available in bytecode version 13.3 (it needs 13.4)" \
        in engine.render()
    data, engine = write(ops, (13, 4))
    assert data is not None and print_ops(read(data)).split("\n")[1:] == print_ops(ops).split("\n")[1:]


@pytest.mark.parametrize("name", NEW_OPS_13_5)
def test_multimem_ops_are_refused_for_13_4(name):
    ops = parse(MODULE_13_5)
    data, engine = write(ops, (13, 4))
    assert data is None
    # the first thing 13.4 cannot say is the multicast pointer of the entry's signature
    assert "error: ptr_attr 'multicast' requires bytecode version 13.5+, targeting 13.4" in engine.render()
    # only `name` left, on a 13.4 pointer: unverifiable (multimem wants multicast), still writable
    text = "\n".join(line for line in MODULE_13_5.replace("multicast", "none").split("\n")
                     if not any(other in line for other in NEW_OPS_13_5 if other != name))
    engine = DiagnosticEngine()
    ops = parse_text(text, engine, "u.mlir")
    assert ops is not None, engine.render()
    data, engine = write(ops, (13, 4))
    assert data is None
    assert f"error: operation 'cuda_tile.{name}' is not available in bytecode version 13.4 (it needs 13.5)" \
        in engine.render()


def test_type_refusals():
    fnv8 = parse("cuda_tile.module @m {\n  entry @k() {\n    %c = constant <fnv8E5M3FNU: 2.0> : "
                 "tile<2xfnv8E5M3FNU>\n    return\n  }\n}")
    data, engine = write(fnv8, (13, 3))
    assert data is None and "error: type 'FloatNV8E5M3FNU' requires bytecode version 13.4+, targeting 13.3" \
        in engine.render()
    ptr = parse("cuda_tile.module @m {\n  entry @k(%p: tile<ptr<f32, <none>>>) {\n    return\n  }\n}")
    data, engine = write(ptr, (13, 3))
    assert data is None and "error: parameter 'ptrAttr' of type 'ptr<f32, <none>>' requires bytecode version " \
                            "13.4+, targeting 13.3" in engine.render()
    data, engine = write(ptr, (13, 4))
    assert data is not None and "ptr<f32, <none>>" in print_ops(read(data))


def test_reading_new_opcodes_in_an_old_file():
    from test_bytecode import _first_op, read_error, write as write_13_1
    from tilec.bytecode.stream import Writer
    data = write_13_1(parse("cuda_tile.module @m {\n  entry @k() {\n    return\n  }\n}"))
    i, _, _ = _first_op(data)
    for opcode, name, since in ((0x79, "fpowi", "13.4"), (0x7D, "multimem_store_view_tko", "13.5")):
        w = Writer()
        w.varint(opcode)
        bad = bytearray(data)
        bad[i:i + len(w.buf)] = w.buf
        assert f"at byte 0x{i:x}: unsupported opcode {opcode} (cuda_tile.{name}) for bytecode version 13.1; " \
               f"it needs {since}" in read_error(bytes(bad))


@needs_disasm
@pytest.mark.parametrize("text, version", [(MODULE_13_4, "13.4"), (MODULE_13_4, "13.5"), (MODULE_13_5, "13.5")],
                         ids=["13.4@13.4", "13.4@13.5", "13.5@13.5"])
def test_tileirdisasm_reads_what_tilec_writes(tmp_path, text, version):
    ops = parse(text)
    data, engine = write(ops, tuple(int(x) for x in version.split(".")))
    assert data is not None, engine.render()
    path = tmp_path / "k.tilebc"
    path.write_bytes(data)
    same_ir(disasm(str(path)), module_body(print_ops(ops)))


_ENCODE = r'''
import struct, sys
from cuda.tile._bytecode import writer as W, encodings as E
from cuda.tile._bytecode.basic import encode_int_list
from cuda.tile._bytecode.type import SimpleType
from cuda.tile._bytecode.type_base import PaddingValue
from cuda.tile._bytecode.version import BytecodeVersion as BV
from cuda.tile._bytecode.debug_info import MISSING_DEBUG_ATTR_ID
K, O, S = E.MultimemReductionKind, E.MemoryOrderingSemantics, E.MemoryScope
buf = bytearray()
with W.write_bytecode(1, buf, BV.V_13_5) as w:
    T = w.type_table
    f32, i32 = T.F32, T.I32
    e5m3 = T.simple(SimpleType.FNV8E5M3FNU)
    ptr = T[bytes([0x0c, 1, f32.type_id, 2])]      # ptr<f32, <multicast>>
    b = bytearray([0x0e, 1, f32.type_id]); encode_int_list([64], 8, b); encode_int_list([1], 8, b); b.append(2)
    tv = T[bytes(b)]
    with w.function("k", [T.tile(ptr, [])], [], True, {}, MISSING_DEBUG_ATTR_ID) as fb:
        cb = fb.code_builder
        (p,) = fb.parameters
        a = E.encode_ConstantOp(cb, T.tile(f32, [4]), struct.pack("<4f", 1, 2, 3, 4))
        d = E.encode_ConstantOp(cb, T.tile(f32, [8]), struct.pack("<f", 0))
        n = E.encode_ConstantOp(cb, T.tile(i32, [4]), struct.pack("<4i", 0, 1, -2, 3))
        z = E.encode_ConstantOp(cb, T.tile(i32, []), struct.pack("<i", 1))
        E.encode_ConstantOp(cb, T.tile(e5m3, [2]), bytes([0x38, 0xfe]))
        E.encode_FPowIOp(cb, T.tile(f32, [4]), a, n)
        E.encode_InsertOp(cb, T.tile(f32, [8]), a, d, [z])
        t0 = E.encode_MakeTokenOp(cb, T.Token)
        g = E.encode_GdcWaitTkoOp(cb, T.Token, None)
        g = E.encode_GdcWaitTkoOp(cb, T.Token, t0)
        g = E.encode_GdcLaunchDependentsTkoOp(cb, T.Token, g)
        f = E.encode_MemoryFenceAliasTkoOp(cb, T.Token, g)
        v = E.encode_MakeTensorViewOp(cb, tv, p, [], [])
        pv = E.encode_MakePartitionViewOp(cb, T.partition_view([4], tv, [0], PaddingValue.Missing), v)
        r, rt = E.encode_MultimemLoadReduceViewTkoOp(cb, T.tile(f32, [4]), T.Token, pv, [z], f, O.RELAXED,
                                                     S.DEVICE, K.ADD, [True])
        rt = E.encode_MultimemReduceViewTkoOp(cb, T.Token, pv, a, [z], rt, O.RELAXED, S.SYS, K.ADD, [False])
        E.encode_MultimemStoreViewTkoOp(cb, T.Token, pv, a, [z], None, O.WEAK, None, [False])
        E.encode_ReturnOp(cb, [])
open(sys.argv[1], "wb").write(buf)
'''


@needs_disasm
def test_tilec_reads_nvidias_encoding(tmp_path):
    """Every new op as NVIDIA's own encoder (cuTile Python) writes it: tilec
    prints what tileirdisasm prints."""
    if not os.path.exists(REF_PYTHON):
        pytest.skip("cuTile Python is not installed")
    script, path = tmp_path / "encode.py", tmp_path / "nv.tilebc"
    script.write_text(_ENCODE)
    p = subprocess.run([REF_PYTHON, str(script), str(path)], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        pytest.skip(f"this cuTile Python cannot encode 13.5 ops: {p.stderr.strip().splitlines()[-1:]}")
    ops = read(path.read_bytes())
    text = print_ops(ops)
    for name in NEW_OPS_13_4 + NEW_OPS_13_5:
        assert name in text, name
    same_ir(disasm(str(path)), module_body(text))


# ---- interpreter ------------------------------------------------------------------------------

def _powi_reference(x, n, work):
    """compiler-rt's __powisf2 / __powidf2, one element at a time."""
    x, r, b = work(x), work(1), abs(int(n))
    if b & 1:
        r = x
    b >>= 1
    while b:
        x = work(x * x)
        if b & 1:
            r = work(x * r)
        b >>= 1
    return work(work(1) / r) if n < 0 else r


def _run(text, *args, grid=(1,)):
    from tilec.interp import launch, parse_module
    launch(parse_module(text), "k", grid=grid, args=list(args))


def _elementwise_kernel(elt, nelt, body, n=16):
    """out[i] = body(a[i], e[i]) for n elements (a: elt, e: nelt, out: elt)."""
    def view(name, t):
        return (f"    %v{name} = make_tensor_view %{name}, shape = [{n}], strides = [1] : "
                f"tensor_view<{n}x{t}, strides=[1]>\n"
                f"    %p{name} = make_partition_view %v{name} : partition_view<tile=({n}), "
                f"tensor_view<{n}x{t}, strides=[1]>>\n")
    pv = "partition_view<tile=({n}), tensor_view<{n}x{t}, strides=[1]>>"
    return (f"cuda_tile.module @m {{\n  entry @k(%a: tile<ptr<{elt}>>, %e: tile<ptr<{nelt}>>, "
            f"%o: tile<ptr<{elt}>>) {{\n" + view("a", elt) + view("e", nelt) + view("o", elt)
            + "    %z = constant <i32: 0> : tile<i32>\n"
            f"    %x, %t0 = load_view_tko weak %pa[%z] : {pv.format(n=n, t=elt)}, tile<i32> -> tile<{n}x{elt}>, token\n"
            f"    %y, %t1 = load_view_tko weak %pe[%z] : {pv.format(n=n, t=nelt)}, tile<i32> -> tile<{n}x{nelt}>, token\n"
            + body.format(n=n, elt=elt, nelt=nelt)
            + f"    %t2 = store_view_tko weak %r, %po[%z] : tile<{n}x{elt}>, {pv.format(n=n, t=elt)}, tile<i32> -> token\n"
            "    return\n  }\n}\n")


FPOWI = "    %r = fpowi %x, %y : tile<{n}x{elt}>, tile<{n}x{nelt}>\n"
_DTYPES = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "i32": np.int32, "i16": np.int16, "i8": np.int8}


def _fpowi_inputs(elt, nelt, n=16):
    rng = np.random.default_rng(7)
    lo, hi = {"i8": (-128, 127), "i16": (-300, 300), "i32": (-60, 60)}[nelt]
    x = rng.uniform(-3, 3, n).astype(_DTYPES[elt])
    e = rng.integers(lo, hi, n, endpoint=True).astype(_DTYPES[nelt])
    x[:6] = [0.0, -0.0, 1.5, -2.0, np.inf, np.nan]
    e[:6] = [0, -1, -7, 5, -1, 3]
    if nelt == "i32":
        e[6:8] = [np.iinfo(np.int32).min, np.iinfo(np.int32).max]
    return x, e


@pytest.mark.parametrize("elt, nelt", [("f32", "i32"), ("f64", "i32"), ("f16", "i16"), ("f32", "i8")])
def test_fpowi_is_binary_powering(elt, nelt):
    x, e = _fpowi_inputs(elt, nelt)
    out = np.zeros_like(x)
    _run(_elementwise_kernel(elt, nelt, FPOWI), x, e, out)
    work = np.float64 if elt == "f64" else np.float32      # f16 is computed in f32, rounded once
    with np.errstate(all="ignore"):
        want = np.array([_powi_reference(a, k, work) for a, k in zip(x, e)]).astype(x.dtype)
    assert np.array_equal(out, want, equal_nan=True), (out, want)
    assert out[0] == 1 and out[1] == -np.inf      # 0 ** 0 and (-0) ** -1


def test_fpowi_i1_exponent_is_signed():
    text = ("cuda_tile.module @m {\n  entry @k(%o: tile<ptr<f32>>) {\n"
            "    %x = constant <f32: [2.0, 4.0]> : tile<2xf32>\n"
            "    %n = constant <i1: [true, false]> : tile<2xi1>\n"
            "    %r = fpowi %x, %n : tile<2xf32>, tile<2xi1>\n"
            "    %v = make_tensor_view %o, shape = [2], strides = [1] : tensor_view<2xf32, strides=[1]>\n"
            "    %p = make_partition_view %v : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>\n"
            "    %z = constant <i32: 0> : tile<i32>\n"
            "    %t = store_view_tko weak %r, %p[%z] : tile<2xf32>, partition_view<tile=(2), tensor_view<2xf32, "
            "strides=[1]>>, tile<i32> -> token\n    return\n  }\n}\n")
    out = np.zeros(2, np.float32)
    _run(text, out)
    assert list(out) == [0.5, 1.0]


INSERT = """\
cuda_tile.module @m {
  entry @k(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %c: tile<ptr<f32>>) {
    %va = make_tensor_view %a, shape = [8, 16], strides = [16, 1] : tensor_view<8x16xf32, strides=[16,1]>
    %vb = make_tensor_view %b, shape = [4, 8], strides = [8, 1] : tensor_view<4x8xf32, strides=[8,1]>
    %vc = make_tensor_view %c, shape = [8, 16], strides = [16, 1] : tensor_view<8x16xf32, strides=[16,1]>
    %pa = make_partition_view %va : partition_view<tile=(8x16), tensor_view<8x16xf32, strides=[16,1]>>
    %pb = make_partition_view %vb : partition_view<tile=(4x8), tensor_view<4x8xf32, strides=[8,1]>>
    %pc = make_partition_view %vc : partition_view<tile=(8x16), tensor_view<8x16xf32, strides=[16,1]>>
    %z = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %g = gdc_wait_tko -> token
    %x, %t0 = load_view_tko weak %pa[%z, %z] token = %g : partition_view<tile=(8x16), tensor_view<8x16xf32, strides=[16,1]>>, tile<i32> -> tile<8x16xf32>, token
    %y, %t1 = load_view_tko weak %pb[%z, %z] token = %g : partition_view<tile=(4x8), tensor_view<4x8xf32, strides=[8,1]>>, tile<i32> -> tile<4x8xf32>, token
    %r = insert %y, %x[%one, %bx] : tile<4x8xf32>, tile<8x16xf32>
    %s = constant <f32: 5.0> : tile<4x8xf32>
    %r2 = insert %s, %r[%z, %z] : tile<4x8xf32>, tile<8x16xf32>
    %f = memory_fence_alias_tko %t1
    %t2 = store_view_tko weak %r2, %pc[%z, %z] token = %f : tile<8x16xf32>, partition_view<tile=(8x16), tensor_view<8x16xf32, strides=[16,1]>>, tile<i32> -> token
    %l = gdc_launch_dependents_tko token = %t2 -> token
    return
  }
}
"""


def _insert_inputs():
    return (np.arange(128, dtype=np.float32).reshape(8, 16), -1 - np.arange(32, dtype=np.float32).reshape(4, 8))


@pytest.mark.parametrize("block", [0, 1])
def test_insert_replaces_one_slice(block):
    a, b = _insert_inputs()
    c = np.zeros((8, 16), np.float32)
    _run(INSERT, a, b, c, grid=(block + 1,))          # the last block's result stays
    want = a.copy()
    want[4:8, 8 * block:8 * block + 8] = b
    want[0:4, 0:8] = 5
    assert np.array_equal(c, want)


def test_insert_index_out_of_bounds_is_reported():
    from tilec.interp import LaunchError
    a, b = _insert_inputs()
    with pytest.raises(LaunchError, match=r"insert.*slice index 2 of dimension 1 is out of bounds"):
        _run(INSERT, a, b, np.zeros((8, 16), np.float32), grid=(3,))


MULTIMEM = """\
cuda_tile.module @m {
  entry @k(%p: tile<ptr<i32, <multicast>>>, %q: tile<ptr<f32, <multicast>>>) {
    %i = constant <i32: 1> : tile<i32>
    %z = constant <i32: 0> : tile<i32>
    %tv = make_tensor_view %p, shape = [8], strides = [1] : tile<ptr<i32, <multicast>>> -> tensor_view<8xi32, strides=[1], #cuda_tile.ptr_attr<multicast>>
    %pv = make_partition_view %tv : partition_view<tile=(4), tensor_view<8xi32, strides=[1], #cuda_tile.ptr_attr<multicast>>>
    %tq = make_tensor_view %q, shape = [8], strides = [1] : tile<ptr<f32, <multicast>>> -> tensor_view<8xf32, strides=[1], #cuda_tile.ptr_attr<multicast>>
    %pq = make_partition_view %tq : partition_view<tile=(4), tensor_view<8xf32, strides=[1], #cuda_tile.ptr_attr<multicast>>>
    %v, %t0 = multimem_load_reduce_view_tko relaxed device %pv[%i] attributes {reduction = #cuda_tile.multimem_reduction_kind<umax>} : partition_view<tile=(4), tensor_view<8xi32, strides=[1], #cuda_tile.ptr_attr<multicast>>>, tile<i32> -> tile<4xi32>, token
    %t1 = multimem_store_view_tko relaxed device %pv, %v[%z] token = %t0 : partition_view<tile=(4), tensor_view<8xi32, strides=[1], #cuda_tile.ptr_attr<multicast>>>, tile<4xi32>, tile<i32>, token -> token
    %m = constant <i32: [-1, 3, 100, 0]> : tile<4xi32>
    %t2 = multimem_reduce_view_tko relaxed device %pv, %m[%i] token = %t1 attributes {reduction = #cuda_tile.multimem_reduction_kind<umin>} : partition_view<tile=(4), tensor_view<8xi32, strides=[1], #cuda_tile.ptr_attr<multicast>>>, tile<4xi32>, tile<i32>, token -> token
    %f = constant <f32: 0.5> : tile<4xf32>
    %t3 = multimem_reduce_view_tko relaxed sys %pq, %f[%z] : partition_view<tile=(4), tensor_view<8xf32, strides=[1], #cuda_tile.ptr_attr<multicast>>>, tile<4xf32>, tile<i32> -> token
    return
  }
}
"""


def test_multimem_on_a_one_member_multicast_object():
    """One device: load-reduce loads, the reduction updates the one member, store stores."""
    p = np.array([0, 1, 2, 3, 10, 11, 12, 13], np.int32)
    q = np.arange(8, dtype=np.float32)
    _run(MULTIMEM, p, q)
    assert list(p) == [10, 11, 12, 13, 10, 3, 12, 0]        # umin with 0xFFFFFFFF, 3, 100, 0
    assert list(q) == [0.5, 1.5, 2.5, 3.5, 4, 5, 6, 7]


def test_fnv8_conversions():
    from tilec.interp.numerics import fnv8_decode, fnv8_encode
    from tilec.ir.floats import round_to, to_bits
    from tilec.ir.types import FloatType
    t = FloatType("fnv8E5M3FNU")
    values = fnv8_decode(np.arange(256)).astype(np.float64)
    assert values[0x01] == 2.0 ** -17 and values[0x08] == 2.0 ** -14 and values[0xFE] == 114688
    assert np.isnan(values[0xFF]) and not np.isnan(values[:0xFF]).any()
    rng = np.random.default_rng(3)
    probe = np.concatenate([values[:0xFF], rng.uniform(0, 1.3e5, 3000), np.exp2(rng.uniform(-19, 18, 3000)),
                            [-0.0, -1.0, np.inf, -np.inf, np.nan, 118784.0, 118784.01, 2.0 ** -18, 3 * 2.0 ** -18]])
    got = fnv8_encode(probe)
    want = [to_bits(round_to(float(v), t), t) for v in probe]
    assert list(got) == want
    # ties go to even: 118784 halves 114688 (0xFE) and nan's slot; 2^-18 halves 0 and 2^-17
    assert list(fnv8_encode([-0.0, -1.0, 118784.0, 118784.01, 2.0 ** -18, 3 * 2.0 ** -18])) == \
        [0, 0xFF, 0xFE, 0xFF, 0, 2]


def test_fnv8_through_the_interpreter():
    text = ("cuda_tile.module @m {\n  entry @k(%o: tile<ptr<fnv8E5M3FNU>>, %f: tile<ptr<f32>>) {\n"
            "    %x = constant <f32: [1.0, 3.3, 200000.0, -2.0]> : tile<4xf32>\n"
            "    %c = ftof %x : tile<4xf32> -> tile<4xfnv8E5M3FNU>\n"
            "    %k = constant <fnv8E5M3FNU: [2.5, 0.0, 1.146880e+05, 6.103515625e-05]> : tile<4xfnv8E5M3FNU>\n"
            "    %w = ftof %k : tile<4xfnv8E5M3FNU> -> tile<4xf32>\n"
            "    %z = constant <i32: 0> : tile<i32>\n"
            "    %v = make_tensor_view %o, shape = [4], strides = [1] : tensor_view<4xfnv8E5M3FNU, strides=[1]>\n"
            "    %p = make_partition_view %v : partition_view<tile=(4), tensor_view<4xfnv8E5M3FNU, strides=[1]>>\n"
            "    %t = store_view_tko weak %c, %p[%z] : tile<4xfnv8E5M3FNU>, partition_view<tile=(4), "
            "tensor_view<4xfnv8E5M3FNU, strides=[1]>>, tile<i32> -> token\n"
            "    %vf = make_tensor_view %f, shape = [4], strides = [1] : tensor_view<4xf32, strides=[1]>\n"
            "    %pf = make_partition_view %vf : partition_view<tile=(4), tensor_view<4xf32, strides=[1]>>\n"
            "    %t2 = store_view_tko weak %w, %pf[%z] : tile<4xf32>, partition_view<tile=(4), "
            "tensor_view<4xf32, strides=[1]>>, tile<i32> -> token\n    return\n  }\n}\n")
    bits, f = np.zeros(4, np.uint8), np.zeros(4, np.float32)
    _run(text, bits, f)
    assert list(bits) == [0x78, 0x85, 0xFF, 0xFF]      # 1.0, 3.25 (nearest), overflow and negative: nan
    assert list(f) == [2.5, 0.0, 114688.0, 2.0 ** -14]


# ---- PTX ---------------------------------------------------------------------------------------

def _compile(text, arch):
    from tilec.codegen.ptx import compile_text
    return compile_text(text, arch=arch)


def _ptxsim():
    try:
        import ptxsim
    except ImportError:                                   # pragma: no cover - importlib mode
        from tests import ptxsim
    return ptxsim


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_ptx_of_the_13_4_ops(arch, tmp_path):
    ptx = _compile(INSERT, arch)
    gdc = ("griddepcontrol.wait;" in ptx, "griddepcontrol.launch_dependents;" in ptx)
    # PDL is sm_90+; below, tileiras compiles it to nothing too
    assert gdc == ((True, True) if arch == "sm_90a" else (False, False))
    assert "fence.proxy.alias;" in ptx
    fp = _compile(_elementwise_kernel("f32", "i32", FPOWI), arch)
    assert "rcp.rn.f32" in fp and "mul.rn.f32" in fp


@needs_ptxas
@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_ptxas_accepts_the_13_4_ops(arch, tmp_path):
    for i, text in enumerate([INSERT, _elementwise_kernel("f32", "i32", FPOWI),
                              _elementwise_kernel("f16", "i16", FPOWI), _elementwise_kernel("f64", "i8", FPOWI)]):
        path = tmp_path / f"k{i}.ptx"
        path.write_text(_compile(text, arch))
        p = subprocess.run(["ptxas", f"-arch={arch}", str(path), "-o", os.devnull], capture_output=True,
                           text=True, timeout=300)
        assert p.returncode == 0, p.stderr


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("elt, nelt", [("f32", "i32"), ("f64", "i32"), ("f16", "i16")])
def test_fpowi_ptx_agrees_with_the_interpreter(arch, elt, nelt):
    text = _elementwise_kernel(elt, nelt, FPOWI)
    x, e = _fpowi_inputs(elt, nelt)
    want, got = np.zeros_like(x), np.zeros_like(x)
    _run(text, x, e, want)
    _ptxsim().run_ptx(_compile(text, arch), "k", (1, 1, 1), [x.copy(), e.copy(), got])
    nan = np.isnan(want)            # NaN payloads are the hardware's (cvt keeps them), NumPy's differ
    assert np.array_equal(np.isnan(got), nan), (got, want)
    assert np.array_equal(got[~nan].view(np.uint8), want[~nan].view(np.uint8)), (got, want)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_insert_ptx_agrees_with_the_interpreter(arch):
    a, b = _insert_inputs()
    ptx = _compile(INSERT, arch)
    for grid in (1, 2):
        want, got = np.zeros((8, 16), np.float32), np.zeros((8, 16), np.float32)
        _run(INSERT, a, b, want, grid=(grid,))
        _ptxsim().run_ptx(ptx, "k", (grid, 1, 1), [a.copy(), b.copy(), got])
        assert np.array_equal(got, want)


def test_multimem_is_refused_by_the_emitter(run_cli, tmp_path):
    path = tmp_path / "mm.mlir"
    path.write_text(MULTIMEM)
    rc, out, err = run_cli("compile", str(path), "-o", str(tmp_path / "mm.ptx"), "--arch", "sm_90a")
    assert rc == 1 and "Traceback" not in err
    assert re.search(r"mm\.mlir:\d+:\d+: error: 'cuda_tile\.multimem_load_reduce_view_tko' op is not supported by "
                     r"the PTX emitter: it needs a multicast object", err), err
