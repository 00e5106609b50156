"""Ops declared by name and defined on first lookup (issue 22): the declared
lists match what the op modules define, a lookup imports only its module,
and walking the table sees every op."""
from __future__ import annotations

import importlib
import os
import subprocess
import sys

from tilec.dialects.cuda_tile import ops as cuda_tile_ops
from tilec.ir import registry


def _defined_in(table, module):
    return {name for name, cls in table.items() if cls.__module__ == module}


def test_declared_ops_are_what_the_modules_define():
    registry.load_all()
    for declared, table in ((cuda_tile_ops.MODULES, registry.OPS), (cuda_tile_ops.ALIASES, registry.OP_ALIASES)):
        for module in cuda_tile_ops.MODULES:
            importlib.import_module(f"{cuda_tile_ops.__name__}.{module}")
            names = {f"cuda_tile.{n}" for n in declared.get(module, "").split()}
            assert _defined_in(table, f"{cuda_tile_ops.__name__}.{module}") == names, module


def test_every_op_module_is_declared():
    package = cuda_tile_ops.__path__[0]
    modules = {f[:-3] for f in os.listdir(package) if f.endswith(".py") and not f.startswith("_")} - {"base"}
    assert modules == set(cuda_tile_ops.MODULES)


def _run(code):
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_a_lookup_imports_only_its_module():
    got = _run("import sys, tilec.dialects\n"
               "from tilec.ir import registry\n"
               "registry.load_all()\n"
               "before = sorted(m for m in sys.modules if m.startswith('tilec.dialects.cuda_tile.ops.'))\n"
               "print(len(before), registry.OPS['cuda_tile.sqrt'].__name__, "
               "registry.OP_ALIASES['cuda_tile.fpowf'].name, 'cuda_tile.atomic_rmw_tko' in registry.OPS, "
               "'cuda_tile.nope' in registry.OPS, registry.OPS.get('cuda_tile.nope'))\n"
               "print('tilec.dialects.cuda_tile.ops.atomics' in sys.modules, "
               "'tilec.dialects.cuda_tile.ops.mma' in sys.modules)\n"
               "print(len(registry.OPS) > 200, 'tilec.dialects.cuda_tile.ops.mma' in sys.modules)\n")
    assert got == ["0", "SqrtOp", "cuda_tile.pow", "True", "False", "None", "True", "False", "True", "True"]


def test_op_modules_register_no_grammar():
    """Directives (custom<...> pieces, with grammar rules and callbacks of their
    own) are registered with the dialect, not by the op modules that use them:
    a parse reduces a directive's rule before it looks its op up."""
    got = _run("import tilec.dialects\n"
               "from tilec.ir import registry\n"
               "from tilec.syntax import format as F\n"
               "registry.load_all()\n"
               "before = sorted(F.DIRECTIVES)\n"
               "len(registry.OPS)\n"
               "print(before == sorted(F.DIRECTIVES), len(before) > 10)\n")
    assert got == ["True", "True"]


def test_parsing_text_imports_the_op_modules_it_uses(tmp_path):
    """The parser snapshot's key is made from the grammar's sources, not its
    text, so parsing a kernel needs only the op families it uses."""
    kernel = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "vector_add.mlir")
    code = ("import sys\n"
            "from tilec.cli import main\n"
            f"main(['opt', {kernel!r}, '-o', {str(tmp_path / 'out.mlir')!r}])\n"
            "print(*(m.rsplit('.', 1)[1] for m in sys.modules if m.startswith('tilec.dialects.cuda_tile.ops.')))\n")
    env = dict(os.environ, TILEC_CACHE_DIR=str(tmp_path / "cache"))
    for _ in range(2):  # the first run builds the snapshot, the second loads it
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    loaded = set(out.stdout.split())
    assert {"core", "arith_float"} <= loaded and not loaded & {"atomics", "mma", "multimem", "math"}, loaded
