"""Helpers for the lowering/scheduling tests (no tests here): run the passes in-process."""
import os

from conftest import ROOT
from tilec.ir.diagnostics import DiagnosticEngine
from tilec.passes.manager import PassManager
from tilec.passes.pipeline import Nest, make_pass
from tilec.syntax.parser import parse_text
from tilec.syntax.printer import print_ops

EXAMPLES = sorted([os.path.join("examples", f) for f in os.listdir(os.path.join(ROOT, "examples"))
                   if f.endswith(".mlir")] +
                  [os.path.join("examples", "cutile", f)
                   for f in os.listdir(os.path.join(ROOT, "examples", "cutile")) if f.endswith(".mlir")])
FLASH = os.path.join("golden", "lowering", "flash_attention_f16.mlir")


def read(rel):
    with open(os.path.join(ROOT, rel)) as fh:
        return fh.read()


def lower(text, arch="sm_90a", schedule=True, filename="<test>", **schedule_opts):
    """(ok, top-level ops, engine) after --lower-to-tileas[ --schedule], verified after each pass."""
    engine = DiagnosticEngine()
    ops = parse_text(text, engine, filename)
    assert ops is not None, [d.message for d in engine.diagnostics]
    items = [make_pass("lower-to-tileas", {"arch": arch})]
    if schedule:
        opts = {"arch": arch, **{k.replace("_", "-"): str(v) for k, v in schedule_opts.items()}}
        items.append(make_pass("schedule", opts))
    pm = PassManager(Nest("builtin.module", items))
    ok = pm.run(ops, engine)
    return ok, pm.result_ops, engine


def text_of(ops):
    return print_ops(ops)


def errors(engine):
    return [d.message for d in engine.diagnostics if d.severity == "error"]
