"""synthesize-debug-info-scopes: give every function of a cuda_tile.module a
debug info scope, so that a module compiled without debug info still has
line tables.

A function whose location carries no `di_loc` gets a subprogram:
  file      the file of the function's location (basename "in" directory);
            `"<unknown>" in ""` at line 1 when it has none
  line      that location's line, also its scopeLine
  name      the symbol, also the linkage name
  compileUnit  one per module, on the file of the module's location (or
            `"<unknown>"`)
and its location becomes `di_loc<file location in subprogram>`. A function that
already has a scope keeps it. Every op nested in the function without a
di_loc then gets one in the function's subprogram, on its own file location,
or the function's when it has none.

A file location is found through name locations (their child), callsites
(the caller: where the code was called from), fused locations (the first that
has one)."""
from __future__ import annotations

import posixpath

from ..dialects.cuda_tile.debuginfo import (DICompileUnitAttr, DIFileAttr, DILocAttr, DISubprogramAttr,
                                             find_di_loc)
from ..ir.location import CallSiteLoc, FileLineColLoc, FusedLoc, NameLoc
from ..passes.base import Pass

FUNCTIONS = ("cuda_tile.entry", "cuda_tile.testing$func")
UNKNOWN_FILE = "<unknown>"


def file_loc(loc):
    """The FileLineColLoc a location stands for, or None."""
    if isinstance(loc, FileLineColLoc):
        return loc
    if isinstance(loc, DILocAttr):
        return loc.source
    if isinstance(loc, NameLoc):
        return file_loc(loc.child) if loc.child is not None else None
    if isinstance(loc, CallSiteLoc):
        return file_loc(loc.caller)
    if isinstance(loc, FusedLoc):
        for inner in loc.locations:
            got = file_loc(inner)
            if got is not None:
                return got
    return None


def di_file(path: str) -> DIFileAttr:
    return DIFileAttr(posixpath.basename(path), posixpath.dirname(path))


def _subprogram(func, unit) -> tuple:
    """(subprogram, the function's file location) for a function without a scope."""
    where = file_loc(func.location) or FileLineColLoc(UNKNOWN_FILE, 1, 1)
    name = func.attributes["sym_name"].value
    sp = DISubprogramAttr(di_file(where.file), where.line, name, name, unit, where.line)
    return sp, where


def synthesize(module) -> None:
    top = file_loc(module.location)
    unit = DICompileUnitAttr(di_file(top.file if top is not None else UNKNOWN_FILE))
    for func in module.regions[0].blocks[0].ops if module.regions[0].blocks else ():
        if func.name not in FUNCTIONS:
            continue
        have = find_di_loc(func.location)
        if have is not None:
            sp, where = have.subprogram(), have.source
        else:
            sp, where = _subprogram(func, unit)
            func.location = DILocAttr(where, sp)
        for op in func.walk():
            if op is func or find_di_loc(op.location) is not None:
                continue
            op.location = DILocAttr(file_loc(op.location) or where, sp)


class SynthesizeDebugInfoScopes(Pass):
    """give every function without a debug info scope a subprogram, and its ops di_locs"""
    name = "synthesize-debug-info-scopes"
    argument = "SynthesizeDebugInfoScopes"

    def run(self, target) -> bool:
        if target.name == "cuda_tile.module":
            synthesize(target)
        else:
            for op in target.walk():
                if op.name == "cuda_tile.module":
                    synthesize(op)
        return True
