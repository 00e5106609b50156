"""synthesize-debug-info-scopes: functions without a debug info scope get a
subprogram (file and line from their location, one compile unit per module),
and every op a di_loc in it; existing scopes are kept; the result verifies,
prints, parses back and survives bytecode."""
from tilec.bytecode import read_bytecode, write_bytecode
from tilec.dialects.cuda_tile.debuginfo import DILocAttr
from tilec.ir.diagnostics import DiagnosticEngine
from tilec.ir.verifier import verify
from tilec.passes.manager import PassManager
from tilec.passes.pipeline import Nest, make_pass
from tilec.syntax.parser import parse_text
from tilec.syntax.printer import print_ops

SRC = """cuda_tile.module @m {
  entry @k(%p: tile<ptr<f32>>) {
    %c = constant <f32: 1.0> : tile<f32> loc("/src/kernels/k.py":12:5)
    %t = make_token : token
    %r = for %i in (%z to %z, step %z) : tile<i32> iter_values(%a = %c) -> (tile<f32>) {
      %b = addf %a, %c : tile<f32> loc(callsite("inner" at "/src/kernels/k.py":14:9))
      continue %b : tile<f32>
    } loc(fused["/src/kernels/k.py":13:1, unknown])
    %z = constant <i32: 0> : tile<i32>
    return
  } loc("/src/kernels/k.py":10:1)
} loc("/src/main.py":1:1)
"""


def _run(text):
    engine = DiagnosticEngine()
    ops = parse_text(text, engine, "t.mlir")
    assert ops is not None, engine.render()
    pm = PassManager(Nest("builtin.module", [Nest("cuda_tile.module", [make_pass("synthesize-debug-info-scopes",
                                                                                    {})])]))
    assert pm.run(ops, engine), engine.render()
    return pm.result_ops


def test_every_op_gets_a_scope_from_its_file_location():
    ops = _run(SRC.replace("%z to %z, step %z", "%z0 to %z0, step %z0").replace(
        "    %t = make_token : token\n", "    %z0 = constant <i32: 0> : tile<i32>\n"))
    entry = next(o for o in ops[0].walk() if o.name == "cuda_tile.entry")
    sp = entry.location.subprogram()
    assert (sp.file.name, sp.file.directory, sp.line, sp.scope_line, sp.name) == ("k.py", "/src/kernels", 10, 10, "k")
    assert (sp.compile_unit.file.name, sp.compile_unit.file.directory) == ("main.py", "/src")
    lines = {}
    for op in entry.walk():
        assert isinstance(op.location, DILocAttr) and op.location.subprogram() == sp, op.name
        lines.setdefault(op.name, op.location.source.line)
    # own file locations: a callsite's caller, a fused location's first; none: the function's
    assert lines["cuda_tile.constant"] == 12 and lines["cuda_tile.addf"] == 14 and lines["cuda_tile.for"] == 13
    assert lines["cuda_tile.return"] == 10
    engine = DiagnosticEngine()
    assert all(verify(op, engine) for op in ops), engine.render()
    text = print_ops(ops, debuginfo=True)
    again = parse_text(text, DiagnosticEngine(), "again.mlir")
    assert print_ops(again, debuginfo=True) == text
    engine = DiagnosticEngine()
    back = read_bytecode(write_bytecode(ops, engine), "k.tilebc", engine)
    assert back is not None, engine.render()
    # bytecode keeps every op's location (not the module's, which the format has no place for)
    pairs = list(zip(entry.walk(), next(o for o in back[0].walk() if o.name == "cuda_tile.entry").walk()))
    assert len(pairs) == len(list(entry.walk()))
    assert all(a.location == b.location for a, b in pairs)


def test_an_existing_scope_is_kept_and_used_inside():
    text = """#f = #cuda_tile.di_file<"a.py" in "/x">
#cu = #cuda_tile.di_compile_unit<file = #f>
#sp = #cuda_tile.di_subprogram<file = #f, line = 3, name = "k", linkageName = "k", compileUnit = #cu>
cuda_tile.module @m {
  entry @k() {
    return
  } loc(#cuda_tile.di_loc<loc("a.py":3:1) in #sp>)
}
"""
    ops = _run(text)
    entry = next(o for o in ops[0].walk() if o.name == "cuda_tile.entry")
    sp = entry.location.subprogram()
    assert sp.line == 3 and sp.scope_line == 0
    ret = entry.regions[0].blocks[0].last_op
    # its own location: where the parser read it
    assert ret.location.subprogram() == sp and ret.location.source.file_line_col() == ("t.mlir", 6, 5)
