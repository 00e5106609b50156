"""tilec's Tile IR bytecode reader and writer, on their own (no NVIDIA tools):
round trips of every example through every version, debug info, version
rules, the CLI, and diagnostics for malformed files. test_bytecode_interop.py
checks the same files against NVIDIA's tools."""
from __future__ import annotations

import glob
import os
import re

import pytest

from tilec.bytecode import read_bytecode, write_bytecode
from tilec.bytecode.format import MAGIC, SUPPORTED_VERSIONS
from tilec.bytecode.stream import BytecodeError, Reader, Writer
from tilec.ir.diagnostics import DiagnosticEngine
from tilec.ir.verifier import verify
from tilec.syntax.parser import parse_text
from tilec.syntax.printer import print_ops

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "examples", "cutile", "*.mlir"))
                  + glob.glob(os.path.join(ROOT, "examples", "*.mlir")))
VERSIONS = list(SUPPORTED_VERSIONS)

DEBUG_MODULE = """\
cuda_tile.module @dbg {
  global @g <f32: [1.0, 2.0]> : tile<2xf32>
  entry @k(%arg0: tile<ptr<f32>>, %arg1: tile<i32>) {
    %0 = constant <f32: 2.5> : tile<4xf32> loc(#loc3)
    %1 = addf %0, %0 rounding<nearest_even> : tile<4xf32> loc(#loc4)
    %2 = get_global @g : tile<ptr<f32>> loc(#loc6)
    return loc(#loc5)
  } loc(#loc2)
}
#di_file = #cuda_tile.di_file<"k.py" in "/src">
#loc = loc("/src/k.py":3:0)
#loc1 = loc("/src/k.py":4:8)
#di_compile_unit = #cuda_tile.di_compile_unit<file = #di_file>
#di_subprogram = #cuda_tile.di_subprogram<file = #di_file, line = 3, name = "k", linkageName = "k", compileUnit = #di_compile_unit, scopeLine = 3>
#di_lexical_block = #cuda_tile.di_lexical_block<scope = #di_subprogram, file = #di_file, line = 4, column = 2>
#loc2 = #cuda_tile.di_loc<#loc in #di_subprogram>
#loc3 = #cuda_tile.di_loc<#loc1 in #di_subprogram>
#loc4 = #cuda_tile.di_loc<#loc1 in #di_lexical_block>
#loc5 = loc(unknown)
#loc6 = loc(callsite(#loc3 at #loc2))
"""


def parse(text, name="<test>"):
    engine = DiagnosticEngine()
    ops = parse_text(text, engine, name)
    assert ops is not None and all(verify(op, engine) for op in ops), engine.render()
    return ops


def write(ops, version=(13, 1)):
    engine = DiagnosticEngine()
    data = write_bytecode(ops, engine, version)
    assert data is not None, engine.render()
    return data


def read(data, verify_it=True):
    engine = DiagnosticEngine()
    ops = read_bytecode(data, "t.tilebc", engine)
    assert ops is not None, engine.render()
    if verify_it:
        assert all(verify(op, engine) for op in ops), engine.render()
    return ops


def read_error(data) -> str:
    engine = DiagnosticEngine()
    assert read_bytecode(data, "t.tilebc", engine) is None
    (diag,) = engine.diagnostics
    return diag.render()


def body(text):
    """A module's print without its first line (the module name differs:
    bytecode does not store it, the reader calls it @kernels)."""
    return text.split("\n", 1)[1]


# ---------------------------------------------------------------------------
# round trips

@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: "%d.%d" % v)
def test_examples_round_trip_through_bytecode(version):
    for path in EXAMPLES:
        ops = parse(open(path).read(), path)
        data = write(ops, version)
        assert data.startswith(MAGIC) and data[8:10] == bytes(version)
        back = read(data)
        assert back[0].attributes["sym_name"].value == "kernels"
        assert body(print_ops(back)) == body(print_ops(ops)), path
        # writing what was read gives the same bytes: the format is canonical for tilec
        assert write(back, version) == data


def _wide_module() -> str:
    """A kernel with over 128 distinct types, over 300 live values and
    operands reaching both ends of the value table: indices past one varint
    byte take the readers' slow paths."""
    shapes = [f"{1 << a}x{1 << b}" for a in range(6) for b in range(6)]
    types = [f"tile<{s}x{t}>" for s in shapes for t in ("i16", "i32", "f32", "f16")]
    lines = ["cuda_tile.module @wide {", "  entry @k() {"]
    for i, ty in enumerate(types):
        elt = ty.rsplit("x", 1)[1][:-1]
        lit = f"{i}.0" if elt.startswith("f") else str(i % 1000)
        lines.append(f"    %c{i} = constant <{elt}: {lit}> : {ty}")
    last = len(types) - 1
    for i in (0, 1, 130, last):
        op = "addf" if types[i].endswith("f32>") or types[i].endswith("f16>") else "addi"
        rnd = " rounding<nearest_even>" if op == "addf" else ""
        lines.append(f"    %s{i} = {op} %c{i}, %c{last - i if types[last - i] == types[i] else i}{rnd} : {types[i]}")
    lines += ["    return", "  }", "}"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("version", [(13, 1), (13, 5)], ids=lambda v: "%d.%d" % v)
def test_wide_functions_round_trip(version):
    ops = parse(_wide_module())
    assert len({str(op.results[0].type) for op in ops[0].walk() if op.results}) > 128
    data = write(ops, version)
    back = read(data)
    assert body(print_ops(back)) == body(print_ops(ops))
    assert write(back, version) == data


@pytest.mark.parametrize("version", [(13, 1), (13, 3), (13, 5)], ids=lambda v: "%d.%d" % v)
def test_debug_info_round_trips(version):
    ops = parse(DEBUG_MODULE)
    back = read(write(ops, version))
    text = print_ops(back, debuginfo=True)
    ref = print_ops(ops, debuginfo=True)
    # text-file locations (file:line:col of the .mlir) are not debug info: they read back unknown
    for needle in ('#cuda_tile.di_lexical_block<scope = #di_subprogram, file = #di_file, line = 4, column = 2>',
                   'scopeLine = 3>', 'callsite(', 'loc("/src/k.py":4:8)'):
        assert needle in ref and needle in text, needle
    entry = back[0].regions[0].blocks[0].last_op
    locs = [op.location for op in entry.regions[0].blocks[0].ops]
    assert [type(l).__name__ for l in locs] == ["DILocAttr", "DILocAttr", "CallSiteLoc", "UnknownLoc"]
    assert locs[1].scope.line == 4 and locs[1].source.col == 8
    assert type(entry.location).__name__ == "DILocAttr"


def test_functions_without_debug_info_have_no_debug_section():
    data = write(parse(open(EXAMPLES[0]).read()))
    assert b"\x83" not in data[12:14]  # the first section is not Debug
    back = read(data)
    assert all(type(op.location).__name__ == "UnknownLoc" for op in back[0].walk())


def test_bare_entries_are_written_as_a_module():
    text = "cuda_tile.entry @k() {\n  cuda_tile.return\n}\n"
    back = read(write(parse(text)))
    assert "entry @k()" in print_ops(back)


# ---------------------------------------------------------------------------
# versions

PRINT_TKO = """cuda_tile.module @m {
  entry @k() {
    %c = constant <i32: 1> : tile<i32>
    %t = print_tko "%d", %c : tile<i32> -> token
    %u = print_tko "again %d", %c token = %t : tile<i32> -> token
    return
  }
}"""


def test_print_token_needs_13_2():
    ops = parse(PRINT_TKO)
    engine = DiagnosticEngine()
    assert write_bytecode(ops, engine, (13, 1)) is None
    assert "requires bytecode version 13.2" in engine.render() or "needs 13.2" in engine.render()
    assert "print_tko" in print_ops(read(write(ops, (13, 2))))


def test_13_1_print_reads_as_print_tko_with_a_token():
    text = PRINT_TKO.replace(" token = %t", "")
    data = write(parse(text), (13, 1))  # tokens unused: representable in 13.1
    out = print_ops(read(data))
    assert out.count('print_tko') == 2 and "-> token" in out


def test_global_attributes_need_13_3():
    text = ('cuda_tile.module @m {\n  global constant @g <i32: 1> : tile<1xi32>\n'
            '  entry @k() {\n    return\n  }\n}')
    ops = parse(text)
    engine = DiagnosticEngine()
    assert write_bytecode(ops, engine, (13, 2)) is None
    assert "requires bytecode 13.3+" in engine.render()
    assert "constant" in print_ops(read(write(ops, (13, 3))))


def test_newer_ops_are_refused_for_older_versions():
    text = ('cuda_tile.module @m {\n  entry @k() {\n    %a = constant <f32: 1.0> : tile<4xf32>\n'
            '    %0 = atan2 %a, %a : tile<4xf32>\n    return\n  }\n}')
    ops = parse(text)
    engine = DiagnosticEngine()
    assert write_bytecode(ops, engine, (13, 1)) is None
    assert "not available in bytecode version 13.1" in engine.render()
    assert "atan2" in print_ops(read(write(ops, (13, 2))))


def test_defaulted_attributes_introduced_later():
    """negi's overflow exists from 13.2; a 13.1 file means overflow<none>."""
    text = ('cuda_tile.module @m {\n  entry @k() {\n    %a = constant <i32: 3> : tile<4xi32>\n'
            '    %0 = negi %a overflow<no_signed_wrap> : tile<4xi32>\n    return\n  }\n}')
    ops = parse(text)
    engine = DiagnosticEngine()
    assert write_bytecode(ops, engine, (13, 1)) is None
    assert "attribute 'overflow' requires bytecode version 13.2+" in engine.render()
    assert "overflow<no_signed_wrap>" in print_ops(read(write(ops, (13, 2))))
    plain = parse(text.replace(" overflow<no_signed_wrap>", ""))
    assert "overflow" not in print_ops(read(write(plain, (13, 1))))


def test_type_needs_its_version():
    text = ('cuda_tile.module @m {\n  entry @k(%a: tile<ptr<f4E2M1FN>>) {\n    return\n  }\n}')
    ops = parse(text)
    engine = DiagnosticEngine()
    assert write_bytecode(ops, engine, (13, 2)) is None
    assert "type 'Float4E2M1FN' requires bytecode version 13.3+" in engine.render()
    data = bytearray(write(ops, (13, 3)))
    assert "f4E2M1FN" in print_ops(read(bytes(data)))
    data[9] = 1  # claim 13.1
    assert "type 'Float4E2M1FN' requires bytecode version 13.3+, file version is 13.1" in read_error(bytes(data))


# ---------------------------------------------------------------------------
# the command line

def test_cli_reads_and_writes_bytecode(run_cli, tmp_path):
    src = EXAMPLES[0]
    out = tmp_path / "k.tilebc"
    rc, stdout, err = run_cli("opt", src, "--emit-bytecode", "--bytecode-version", "13.3", "-o", str(out))
    assert rc == 0, err
    assert out.read_bytes()[:10] == MAGIC + bytes([13, 3])
    rc, text, err = run_cli("opt", str(out))
    assert rc == 0, err
    rc, ref, _ = run_cli("opt", src)
    assert body(text) == body(ref)
    rc, _, err = run_cli("verify", str(out))
    assert rc == 0 and not err
    rc, generic, err = run_cli("opt", str(out), "--mlir-print-op-generic")
    assert rc == 0 and '"cuda_tile.module"' in generic


def test_cli_default_version_is_the_oldest_that_holds_the_module(run_cli, tmp_path):
    """13.1 for what 13.1 can say; the version a newer feature needs when the
    module has one (a private global: 13.3; a producer string is kept from
    13.3 on); an explicit version older than that is still an error."""
    out = tmp_path / "k.tilebc"
    assert run_cli("opt", EXAMPLES[0], "--emit-bytecode", "-o", str(out))[0] == 0
    assert out.read_bytes()[8:12] == bytes([13, 1, 0, 0])
    src = tmp_path / "g.mlir"
    src.write_text('cuda_tile.module @m {\n  global private @g <i32: [1]> : tile<1xi32>\n}\n')
    rc, _, err = run_cli("opt", str(src), "--emit-bytecode", "-o", str(out))
    assert rc == 0, err
    assert out.read_bytes()[8:10] == bytes([13, 3])
    assert "global private  @g" in run_cli("opt", str(out))[1]   # two spaces, as NVIDIA prints it
    rc, _, err = run_cli("opt", str(src), "--emit-bytecode", "--bytecode-version", "13.2", "-o", str(out) + "2")
    assert rc == 1 and "requires bytecode 13.3+" in err and not os.path.exists(str(out) + "2")
    src.write_text('cuda_tile.module @m attributes {producer = "tilec test"} {\n}\n')
    assert run_cli("opt", str(src), "--emit-bytecode", "-o", str(out))[0] == 0
    assert out.read_bytes()[8:10] == bytes([13, 3])
    assert 'producer = "tilec test"' in run_cli("opt", str(out))[1]


def test_tf32_constants_are_19_bit_patterns_in_3_bytes():
    """MLIR stores tf32 (19 bits: sign, 8 exponent, 10 mantissa) in 3 bytes, as
    NVIDIA's tileirdisasm reads it; hex literals are the same 19 bits."""
    text = ('cuda_tile.module @m {\n  entry @k() {\n    %0 = constant <tf32: 3.14> : tile<tf32>\n'
            '    %1 = constant <tf32: [9.0, -10.0]> : tile<2xtf32>\n'
            '    %2 = constant <tf32: 0x3FE00> : tile<tf32>\n    return\n  }\n}')
    data = write(parse(text))
    assert bytes.fromhex("480202") in data                # 3.140625 = f32 0x40490000 >> 13
    assert bytes.fromhex("800802" "000906") in data       # 9.0, -10.0
    out = print_ops(read(data))
    assert "<tf32: 3.140630e+00>" in out and "<tf32: [9.000000e+00, -1.000000e+01]>" in out
    assert "<tf32: 0x3FE00>" in out                       # NaN keeps its 19-bit spelling
    engine = DiagnosticEngine()
    assert parse_text(text.replace("0x3FE00", "0x7FC00000"), engine, "t.mlir") is None
    assert "hexadecimal float constant out of range for type" in engine.render()


def test_cli_rejects_unknown_versions(run_cli, tmp_path):
    rc, _, err = run_cli("opt", EXAMPLES[0], "--emit-bytecode", "--bytecode-version", "12.0",
                         "-o", str(tmp_path / "k.tilebc"))
    assert rc == 1 and "unsupported bytecode version '12.0'" in err
    assert not (tmp_path / "k.tilebc").exists()


def test_cli_reports_malformed_bytecode(run_cli, tmp_path):
    bad = tmp_path / "bad.tilebc"
    bad.write_bytes(write(parse(open(EXAMPLES[0]).read()))[:40])
    rc, out, err = run_cli("opt", str(bad))
    assert rc == 1 and out == ""
    assert re.match(rf"{re.escape(str(bad))}: error: at byte 0x[0-9a-f]+: truncated section '\w+'", err), err
    assert "Traceback" not in err and "internal error" not in err


def test_read_input_recognizes_the_magic_number(tmp_path):
    from tilec.driver import read_input
    p = tmp_path / "k.bin"
    p.write_bytes(MAGIC + b"\x0d\x01\x00\x00")
    content, name = read_input(str(p))
    assert isinstance(content, bytes) and name == str(p)
    p.write_text("cuda_tile.module @m {}")
    content, _ = read_input(str(p))
    assert isinstance(content, str)


# ---------------------------------------------------------------------------
# malformed input: a diagnostic with the byte offset, never an exception

def _good():
    return write(parse(open(os.path.join(ROOT, "examples", "cutile", "matmul_f16.mlir")).read()))


def _sections(data):
    """[(id, header offset, payload start, payload end)] of a well-formed file."""
    r = Reader(data, 12)
    out = []
    while True:
        at = r.pos
        head = r.byte()
        if head == 0:
            return out
        length = r.varint()
        if head & 0x80:
            a = r.varint()
            r.pos += -r.pos % a
        out.append((head & 0x7F, at, r.pos, r.pos + length))
        r.pos += length


def test_bad_magic():
    data = bytearray(_good())
    data[3] = ord("X")
    assert read_error(bytes(data)) == ("t.tilebc: error: at byte 0x3: invalid magic number: byte 3 is 0x58, "
                                       "expected 0x6c (not a Tile IR bytecode file)")


def test_unsupported_versions():
    data = bytearray(_good())
    data[8:10] = bytes([12, 0])
    assert "at byte 0x8: unsupported bytecode version 12.0.0; tilec reads versions [13.1 - 13.5]" in read_error(
        bytes(data))
    data[8:10] = bytes([13, 9])
    assert "unsupported bytecode version 13.9.0" in read_error(bytes(data))


def test_truncated_files_and_sections():
    data = _good()
    assert "truncated header" in read_error(data[:10])
    for sid, at, start, end in _sections(data):
        msg = read_error(data[:start + (end - start) // 2])
        assert f"at byte 0x{at:x}: truncated section" in msg, msg
    assert "missing the end-of-bytecode marker" in read_error(data[:-1])
    assert "trailing data" in read_error(data + b"\x00")


def test_bad_section_lengths_and_ids():
    data = _good()
    sid, at, start, end = _sections(data)[-1]  # the string section, just before the end marker
    bad = bytearray(data)
    bad[at + 1] = 0x7F  # a length past the end of the file
    assert f"at byte 0x{at:x}: truncated section 'String': its length 127 exceeds" in read_error(bytes(bad))
    bad = bytearray(data)
    bad[at] = 0x09
    assert f"at byte 0x{at:x}: unknown section id 9" in read_error(bytes(bad))
    bad = bytearray(data)
    bad[at] = 0x01  # no alignment flag
    assert "section 'String' must be aligned" in read_error(bytes(bad))


def _first_op(data):
    """Offset of the first instruction of the first function (13.1, no hints)."""
    (sec,) = [x for x in _sections(data) if x[0] == 2]  # the Func section
    r = Reader(data, sec[2], sec[3])
    r.varint(), r.varint(), r.varint()  # count, name, signature
    assert r.byte() == 0x02  # a kernel without hints
    r.varint()  # debug info index
    size = r.varint()
    return r.pos, r.pos - 1, size


def test_unknown_opcode():
    ops = parse("cuda_tile.module @m {\n  entry @k() {\n    return\n  }\n}")
    data = write(ops)
    i, _, _ = _first_op(data)
    assert data[i:i + 3] == bytes([0x5C, 0x00, 0x00])  # return: opcode, 0 results, 0 operands
    for opcode, words in ((0x3F0, "unknown opcode 1008"), (0x7E, "unknown opcode 126"),
                          (0x76, "unsupported opcode 118 (cuda_tile.insert) for bytecode version 13.1; it needs 13.4"),
                          (0x16, "entry")):
        w = Writer()
        w.varint(opcode)
        bad = bytearray(data)
        bad[i:i + len(w.buf)] = w.buf  # overwrite: lengths stay right
        msg = read_error(bytes(bad))
        assert f"at byte 0x{i:x}: " in msg and words in msg, msg
    bad = bytearray(data)
    bad[i] = 0x6E  # atan2 in a 13.1 file
    assert "unsupported opcode 110 (cuda_tile.atan2) for bytecode version 13.1" in read_error(bytes(bad))


def test_bad_operand_index():
    ops = parse("cuda_tile.module @m {\n  entry @k(%a: tile<i32>) {\n"
                "    %0 = absi %a : tile<i32>\n    return\n  }\n}")
    data = bytearray(write(ops))
    i, _, _ = _first_op(bytes(data))
    assert data[i] == 0x01 and data[i + 2] == 0  # absi: opcode, result type, operand 0
    data[i + 2] = 5
    assert f"at byte 0x{i:x}: operand index out of range (1 values are defined) in 'cuda_tile.absi'" in \
        read_error(bytes(data))


def test_varints():
    w = Writer()
    for v in (0, 1, 127, 128, 300, 2 ** 63 - 1, 2 ** 64 - 1):
        w.varint(v)
    w.signed_varint(-5)
    r = Reader(w.getvalue())
    assert [r.varint() for _ in range(7)] == [0, 1, 127, 128, 300, 2 ** 63 - 1, 2 ** 64 - 1]
    assert r.signed_varint() == -5 and r.at_end()
    # cuTile Python writes 65-bit zigzag varints for negative f64 values; like
    # NVIDIA's reader, keep the low 64 bits
    assert Reader(bytes([0x80] * 9 + [0x03])).varint() == 1 << 63
    with pytest.raises(BytecodeError, match="longer than 10 bytes"):
        Reader(bytes([0x80] * 10 + [0x01])).varint()
    with pytest.raises(BytecodeError, match="truncated"):
        Reader(bytes([0x80, 0x80])).varint()


def test_pow_spellings():
    """One op, one name: `pow` (cuda-tile-opt's print, NVIDIA's current reader's
    name for opcode 0x54). The specification's `powf` and the 13.x tileirdisasm
    spelling `fpowf` parse too, generic form included, and print as `pow`;
    bytecode reads back as `pow`."""
    text = ("cuda_tile.module @m {\n  entry @k() {\n    %a = constant <f32: 2.0> : tile<4xf32>\n"
            "    %0 = pow %a, %a : tile<4xf32>\n    %1 = powf %a, %a : tile<4xf32>\n"
            "    %2 = fpowf %a, %a : tile<4xf32>\n"
            '    %3 = "cuda_tile.fpowf"(%a, %a) : (tile<4xf32>, tile<4xf32>) -> tile<4xf32>\n'
            "    return\n  }\n}\n")
    ops = parse(text)
    printed = print_ops(ops)
    assert printed.count("= pow %") == 4 and "powf" not in printed
    back = print_ops(read(write(ops)))
    assert back.count("= pow %") == 4 and "powf" not in back


def test_cli_split_input_writes_each_chunk_or_reports(run_cli, tmp_path):
    """--split-input-file with --emit-bytecode: every chunk is written or
    reported (so --verify-diagnostics checks the writer's errors per chunk); a
    file holds one module, so two good chunks are refused, writing nothing."""
    good = 'cuda_tile.module @m {\n  entry @k() {\n    return\n  }\n}\n'
    bad = ('// expected-error @below {{only function and global ops are allowed in the body}}\n'
           'cuda_tile.module @m {\n  // expected-remark @below {{invalid op}}\n'
           '  cuda_tile.constant <f32: 5.0> : !cuda_tile.tile<f32>\n}\n')
    src = tmp_path / "k.mlir"
    src.write_text(good + "// -----\n" + bad)
    out = tmp_path / "k.tilebc"
    rc, _, err = run_cli("opt", str(src), "--split-input-file", "--verify-diagnostics", "--emit-bytecode",
                         "-o", str(out))
    assert rc == 0, err
    rc, _, err = run_cli("opt", str(src), "--split-input-file", "--emit-bytecode", "-o", str(out))
    assert rc == 1 and "k.mlir:8:1: error: only function and global ops are allowed in the body" in err
    assert "k.mlir:10:3: remark: invalid op" in err and not out.exists()
    src.write_text(good + "// -----\n" + good)
    rc, _, err = run_cli("opt", str(src), "--split-input-file", "--emit-bytecode", "-o", str(out))
    assert rc == 1 and "--emit-bytecode writes one module per file, and the split input holds 2" in err
    assert not out.exists()
