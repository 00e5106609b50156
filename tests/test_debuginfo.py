"""cuda_tile debug info attributes, di_loc locations, and MLIR-style location
printing under --mlir-print-debuginfo (aliases, #loc definitions, fixed point)."""
import re

import pytest

from tilec.dialects.cuda_tile.debuginfo import (DICompileUnitAttr, DIFileAttr, DILexicalBlockAttr, DILocAttr,
                                                DISubprogramAttr, find_di_loc, verify_function,
                                                verify_function_body, verify_module_globals)
from tilec.ir.diagnostics import DiagnosticEngine, using_engine
from tilec.ir.location import CallSiteLoc, FileLineColLoc, NameLoc, UNKNOWN
from tilec.syntax.parser import parse_text
from tilec.syntax.printer import print_ops

SCOPES = """\
#src = #cuda_tile.di_file<"kern.py" in "/work/proj">
#unit = #cuda_tile.di_compile_unit<file = #src>
#saxpy = #cuda_tile.di_subprogram<
  linkageName = "saxpy", name = "saxpy", file = #src, line = 10,
  compileUnit = #unit, scopeLine = 11
>
#scale = #cuda_tile.di_subprogram<file = #src, line = 30, name = "scale", linkageName = "scale",
                                  compileUnit = #unit>
#body = #cuda_tile.di_lexical_block<scope = #saxpy, file = #src, line = 12, column = 0>
#inner = #cuda_tile.di_lexical_block<file = #src, scope = #body, line = 13, column = 5>
"""

KERNELS = SCOPES + """\
#at12 = loc("/work/proj/kern.py":12:3)
#l_saxpy = #cuda_tile.di_loc<loc("/work/proj/kern.py":10:1) in #saxpy>
cuda_tile.module @kernels {
  entry @saxpy() {
    %a = constant <i32: 4> : !cuda_tile.tile<i32> loc(#cuda_tile.di_loc<#at12 in #body>)
    %b = constant <i32: 5> : !cuda_tile.tile<i32> loc(#l_inner)
    %c = constant <i16: 6> : !cuda_tile.tile<i16> loc(unknown)
    return loc(#l_saxpy)
  } loc(#l_saxpy)
  entry @scale() {
    %x = constant <i32: 1> : !cuda_tile.tile<i32> loc(#l_scale)
    return
  } loc(#l_scale)
}
#l_inner = #cuda_tile.di_loc<loc("/work/proj/kern.py":13:9) in #inner>
#l_scale = #cuda_tile.di_loc<loc("/work/proj/kern.py":31:2) in #scale>
"""


def parse(text, name="k.mlir"):
    engine = DiagnosticEngine()
    ops = parse_text(text, engine, name)
    assert ops is not None, engine.render()
    return ops


def ops_in(top):
    return [op for op in top.walk() if op is not top]


# ---------------------------------------------------------------------------
# the attributes

def test_attributes_parse_to_values():
    ops = parse(KERNELS)
    entry = ops_in(ops[0])[0]
    loc = entry.location
    assert isinstance(loc, DILocAttr)
    sp = loc.scope
    assert isinstance(sp, DISubprogramAttr)
    assert (sp.name, sp.linkage_name, sp.line, sp.scope_line) == ("saxpy", "saxpy", 10, 11)
    assert sp.file == DIFileAttr("kern.py", "/work/proj")
    assert sp.compile_unit == DICompileUnitAttr(DIFileAttr("kern.py", "/work/proj"))
    assert loc.source == FileLineColLoc("/work/proj/kern.py", 10, 1)


def test_di_loc_reports_its_source_location():
    sp = DISubprogramAttr(DIFileAttr("a.py", "/d"), 1, "f", "f", DICompileUnitAttr(DIFileAttr("a.py", "/d")))
    block = DILexicalBlockAttr(sp, DIFileAttr("a.py", "/d"), 4)
    loc = DILocAttr(FileLineColLoc("a.py", 5, 6), block)
    assert loc.file_line_col() == ("a.py", 5, 6)
    assert loc.describe() == "a.py:5:6"
    assert loc.subprogram() == sp
    assert find_di_loc(CallSiteLoc(UNKNOWN, NameLoc("n", loc))) == loc


def test_struct_order_and_optional_defaults_print_canonically():
    ops = parse(KERNELS)
    out = print_ops(ops, debuginfo=True)
    # declaration order, optional `column = 0` / absent `scopeLine` left out
    assert ('= #cuda_tile.di_subprogram<file = #di_file, line = 10, name = "saxpy", linkageName = "saxpy", '
            'compileUnit = #di_compile_unit, scopeLine = 11>') in out
    assert ('#cuda_tile.di_subprogram<file = #di_file, line = 30, name = "scale", linkageName = "scale", '
            'compileUnit = #di_compile_unit>') in out
    assert "#cuda_tile.di_lexical_block<scope = #di_subprogram, file = #di_file, line = 12>" in out
    assert "#cuda_tile.di_lexical_block<scope = #di_lexical_block, file = #di_file, line = 13, column = 5>" in out


def test_inline_forms_and_stripped_bodies():
    text = """\
#sp = #cuda_tile.di_subprogram<file = <"x.py" in "">, line = 2, name = "k", linkageName = "k",
  compileUnit = #cuda_tile.di_compile_unit<file = #cuda_tile.di_file<"x.py" in "">>>
cuda_tile.module @m {
  entry @k() {
    return
  } loc(#cuda_tile.di_loc<loc("x.py":2:1) in #sp>)
}
"""
    ops = parse(text)
    entry = ops_in(ops[0])[0]
    assert entry.location == DILocAttr(FileLineColLoc("x.py", 2, 1),
                                       DISubprogramAttr(DIFileAttr("x.py", ""), 2, "k", "k",
                                                        DICompileUnitAttr(DIFileAttr("x.py", ""))))


# ---------------------------------------------------------------------------
# printing

def test_alias_printing():
    out = print_ops(parse(KERNELS), debuginfo=True)
    lines = out.splitlines()
    defs = [l for l in lines if re.match(r"#\w+ = ", l)]
    body_end = next(i for i, l in enumerate(lines) if l.startswith("} loc("))
    # everything here is reached only from op locations: defined after the ops
    assert all(lines.index(d) > body_end for d in defs)
    names = [d.split(" = ")[0] for d in defs]
    assert names.count("#di_file") == 1 and names.count("#di_compile_unit") == 1
    assert {"#di_subprogram", "#di_subprogram1", "#di_lexical_block", "#di_lexical_block1"} <= set(names)
    # a definition comes before any definition that refers to it
    for i, d in enumerate(defs):
        for ref in re.findall(r"#[a-z_]+\d*(?![\w.])", d.split(" = ", 1)[1]):
            assert ref in names[:i], (ref, d)
    # nested references are aliases, never spelled inline
    assert "#cuda_tile.di_compile_unit<file = #di_file>" in out
    assert out.count("#cuda_tile.di_file<") == 1
    # every op (block ends included) ends with loc(#locN); unknown has an alias too
    op_lines = [l for l in lines[:body_end + 1] if not l.endswith("{")]
    assert op_lines and all(re.search(r" loc\(#loc\d*\)$", l) for l in op_lines), op_lines
    assert any(re.fullmatch(r"#loc\d* = loc\(unknown\)", d) for d in defs)
    assert any(re.fullmatch(r'#loc\d* = loc\("/work/proj/kern.py":12:3\)', d) for d in defs)
    assert any(re.fullmatch(r"#loc\d* = #cuda_tile.di_loc<#loc\d* in #di_lexical_block1>", d) for d in defs)


def test_alias_numbering_follows_depth_then_name():
    out = print_ops(parse(KERNELS), debuginfo=True)
    defs = [l.split(" = ")[0] for l in out.splitlines() if re.match(r"#\w+ = ", l)]
    # depth 1 (files, plain locations) first, alphabetically by alias name
    assert defs[0] == "#di_file" and defs[1] == "#loc"
    locs = [d for d in defs if d.startswith("#loc")]
    assert locs == ["#loc"] + [f"#loc{i}" for i in range(1, len(locs))]


def test_without_flag_nothing_about_locations():
    ops = parse(KERNELS)
    plain = print_ops(ops)
    assert "loc(" not in plain and "#loc" not in plain and "di_" not in plain
    assert plain == print_ops(parse(plain))


@pytest.mark.parametrize("generic", [False, True])
def test_debuginfo_fixed_point(generic):
    first = print_ops(parse(KERNELS), generic=generic, debuginfo=True)
    again = print_ops(parse(first, "printed.mlir"), generic=generic, debuginfo=True)
    assert again == first
    # the locations survive: same IR when printed without debug info too
    assert print_ops(parse(first)) == print_ops(parse(KERNELS))


def test_block_argument_locations_print_inline_and_are_defined_first():
    text = """\
"cuda_tile.module"() <{sym_name = "m"}> ({
  "cuda_tile.entry"() <{sym_name = "k", function_type = (!cuda_tile.tile<i32>) -> ()}> ({
  ^bb0(%arg0: !cuda_tile.tile<i32> loc("args.py":3:4)):
    "cuda_tile.return"() : () -> () loc("args.py":3:4)
  }) : () -> () loc(unknown)
}) : () -> () loc(unknown)
"""
    out = print_ops(parse(text), generic=True, debuginfo=True)
    lines = out.splitlines()
    # MLIR: argument locations are not aliased where printed, but their alias
    # is defined above the ops (it cannot be deferred)
    m = re.fullmatch(r'(#loc\d*) = loc\("args.py":3:4\)', lines[0])
    assert m, out
    assert '^bb0(%arg0: !cuda_tile.tile<i32> loc("args.py":3:4)):' in out
    assert f'"cuda_tile.return"() : () -> () loc({m.group(1)})' in out
    assert re.fullmatch(r"#loc\d* = loc\(unknown\)", lines[-1])  # deferred: after the ops
    assert print_ops(parse(out), generic=True, debuginfo=True) == out


def test_nested_locations_use_aliases():
    text = SCOPES + """\
cuda_tile.module @m {
  entry @saxpy() {
    %a = constant <i32: 4> : !cuda_tile.tile<i32> loc(callsite("f"("a.py":1:1) at fused["b.py":2:2, #cuda_tile.di_loc<loc("c.py":3:3) in #saxpy>]))
    return
  }
}
"""
    out = print_ops(parse(text), debuginfo=True)
    assert re.search(r'#loc\d* = loc\("f"\(#loc\d*\)\)', out)
    assert re.search(r"#loc\d* = loc\(fused\[#loc\d*, #loc\d*\]\)", out)
    assert re.search(r"#loc\d* = loc\(callsite\(#loc\d* at #loc\d*\)\)", out)
    assert print_ops(parse(out), debuginfo=True) == out


# ---------------------------------------------------------------------------
# diagnostics

def test_verifier_diagnostic_at_di_loc_source(run_cli, tmp_path):
    f = tmp_path / "v.mlir"
    f.write_text(SCOPES + """\
cuda_tile.module @m {
  entry @saxpy() {
    %0 = "cuda_tile.constant"() : () -> !cuda_tile.tile<i32> loc(#here)
    return
  }
}
#here = #cuda_tile.di_loc<loc("/work/proj/kern.py":42:7) in #inner>
""")
    rc, out, err = run_cli("opt", "--mlir-print-debuginfo", str(f))
    assert rc == 1
    assert err.startswith("/work/proj/kern.py:42:7: error: 'cuda_tile.constant' op"), err
    assert "Traceback" not in err and "internal error" not in err


def test_scope_rules():
    ops = parse(KERNELS)
    saxpy, scale = [op for op in ops_in(ops[0]) if op.name == "cuda_tile.entry"]
    engine = DiagnosticEngine()
    with using_engine(engine):
        assert verify_function(saxpy, "saxpy") and verify_function_body(saxpy)
        assert verify_module_globals(ops[0])
        assert not verify_function(saxpy, "other")
    assert engine.render().startswith("/work/proj/kern.py:10:1: error: 'cuda_tile.entry' op invalid function "
                                      "debug info scope: #cuda_tile.di_subprogram<")
    assert 'Function name "other" does not match subprogram scope linkage name "saxpy".' in engine.render()
    # an op of `scale` moved under `saxpy`'s scope
    const = next(op for op in ops_in(scale) if op.name == "cuda_tile.constant")
    const.location = next(op for op in ops_in(saxpy) if op.name == "cuda_tile.constant").location
    engine = DiagnosticEngine()
    with using_engine(engine):
        assert not verify_function_body(scale)
    assert "Operation debug info scope does not match function debug info scope" in engine.render()


BAD_BODIES = [
    ('#f = #cuda_tile.di_file<"a.py" at "/d">', 1, 32, "expected 'in'"),
    ('#f = #cuda_tile.di_file<"a.py" in 7>', 1, 35, "invalid kind of attribute specified"),
    ('#u = #cuda_tile.di_compile_unit<>', 1, 33, "expected a parameter name in struct"),
    ('#u = #cuda_tile.di_compile_unit<file = #cuda_tile.di_file<"a" in "b">, file = #nope>', 1, 72,
     "duplicate or unknown struct parameter name: file"),
    ('#f = #cuda_tile.di_file<"a" in "b">\n#u = #cuda_tile.di_compile_unit<file = #f>\n'
     '#s = #cuda_tile.di_subprogram<file = #f,\n  line = 1, name = "k",\n  compileUnit = #u>', 5, 19,
     "struct is missing required parameter: linkageName"),
    ('#f = #cuda_tile.di_file<"a" in "b">\n#b = #cuda_tile.di_lexical_block<scope = #f, file = #f, line = 1>', 2, 42,
     "invalid kind of attribute specified"),
    ('#f = #cuda_tile.di_file<"a" in "b">\n#b = #cuda_tile.di_lexical_block<scope = #s, file = #f, line = 1>', 2, 42,
     "undefined symbol alias id 's'"),
    ('#f = #cuda_tile.di_file<"a" in "b">\n#u = #cuda_tile.di_compile_unit<file = #f>\n'
     '#s = #cuda_tile.di_subprogram<file = #f, line = -3, name = "k", linkageName = "k", compileUnit = #u>',
     3, 49, "integer value too large"),
    ('#f = #cuda_tile.di_file<"a" in "b">\n#l = #cuda_tile.di_loc<loc(unknown) in #f>', 2, 24,
     "invalid kind of attribute specified"),
    ('"x.y"() : () -> () loc(#cuda_tile.di_file<"a" in "b">)', 1, 24, "expected location attribute"),
]


@pytest.mark.parametrize("text,line,col,message", BAD_BODIES)
def test_bad_bodies_are_located_diagnostics(run_cli, tmp_path, text, line, col, message):
    f = tmp_path / "bad.mlir"
    f.write_text(text + "\n")
    rc, out, err = run_cli("opt", "--allow-unregistered-dialect", "--mlir-print-debuginfo", str(f))
    assert rc == 1
    assert err.strip() == f"{f}:{line}:{col}: error: {message}"
