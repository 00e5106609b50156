"""test-debuginfo-update-symbol-name: rename a function and keep its debug
info consistent, as a front end that mangles names after building the IR
would (cuda-tile-opt's test pass of the same name).

Options: `symbol-to-rename=module::function`, `new-name=...`,
`update-uses=true|false` (rewrite symbol references to it), `scope=path`
(where uses are rewritten; default: the function's module). The renamed
function's subprogram takes the new name as its linkage name (the entry
verifier requires the two to agree), wherever it is referenced: the di_locs
of the function and of its ops, through nested lexical blocks."""
from __future__ import annotations

from ..ir.record import evolve

from ..dialects.cuda_tile.debuginfo import DILexicalBlockAttr, DILocAttr, DISubprogramAttr
from ..ir import attributes as A
from ..ir.diagnostics import current_engine
from ..passes.base import Pass, PassError


def _sym(op):
    a = op.attributes.get("sym_name")
    return getattr(a, "value", None)


def _find(roots, path):
    """The op at `a::b::c` below `roots` (nested symbol tables), or None."""
    ops = roots
    found = None
    for part in path.split("::"):
        found = next((o for o in ops if _sym(o) == part), None)
        if found is None:
            return None
        ops = [o for r in found.regions for b in r.blocks for o in b.ops]
    return found


def _encloses(scope, op) -> bool:
    while op is not None:
        if op is scope:
            return True
        op = op.parent_op
    return False


def _renamed_scope(scope, sp, new):
    if isinstance(scope, DISubprogramAttr):
        return scope.with_linkage_name(new) if scope == sp else scope
    if isinstance(scope, DILexicalBlockAttr):
        return evolve(scope, scope=_renamed_scope(scope.scope, sp, new))
    return scope


def _renamed_refs(value, old, new):
    if isinstance(value, A.SymbolRefAttr):
        if value.root == old and not value.nested:
            return A.SymbolRefAttr(new)
        return value
    if isinstance(value, A.ArrayAttr):
        return A.ArrayAttr(tuple(_renamed_refs(e, old, new) for e in value))
    return value


class UpdateSymbolName(Pass):
    """rename a function, its uses and its debug info linkage name"""
    name = "test-debuginfo-update-symbol-name"
    argument = "TestDebugInfoUpdateSymbolName"
    OPTIONS = {"symbol-to-rename": (str, ""), "new-name": (str, ""), "update-uses": (bool, False),
               "scope": (str, "")}

    def __init__(self, options=None):
        super().__init__(options)
        if not self.options["symbol-to-rename"] or not self.options["new-name"]:   # a pipeline error, up front
            raise PassError(f"{self.name} needs 'symbol-to-rename' and 'new-name'")

    def run(self, target) -> bool:
        engine = current_engine()
        path, new = self.options["symbol-to-rename"], self.options["new-name"]
        roots = list(target.block.ops) if hasattr(target, "block") else [target]
        func = _find(roots, path)
        if func is None:
            engine.error(target.location, f"symbol '{path}' not found")
            return False
        scope = func.parent_op
        if self.options["scope"]:
            scope = _find(roots, self.options["scope"])
            if scope is None:
                engine.error(target.location, f"scope '{self.options['scope']}' not found")
                return False
            if not _encloses(scope, func):
                d = engine.error(func.location, "attempted to update symbol names in a scope that did not "
                                                "enclose the symbol itself")
                d.attach_note("scope defined here", scope.location)
                return False
        old = _sym(func)
        func.attributes["sym_name"] = A.StringAttr(new)
        if self.options["update-uses"] and scope is not None:
            for op in scope.walk():
                for key, value in list(op.attributes.items()):
                    if key != "sym_name":
                        op.attributes[key] = _renamed_refs(value, old, new)
        sp = func.location.subprogram() if isinstance(func.location, DILocAttr) else None
        if sp is not None:
            for op in func.walk():
                loc = op.location
                if isinstance(loc, DILocAttr):
                    op.location = DILocAttr(loc.source, _renamed_scope(loc.scope, sp, new))
        return True
