"""Layout-conversion removal: trims convert_layout(convert_layout(x)) chains
(spec: nv_tileas folds and memory consistency, "Layout Conversion Folding").

A chain x:A -> B -> C is trimmed only when
  1. A and C lie in compatible storage classes: the same class, and, when the
     round trip passes through another class (register -> shared -> register),
     A and C are the same layout (lane assignment and vector width agree);
  2. the target's atom catalog has a direct atom from A's class to C's class.
Then the outer result is replaced by x (A == C) or by one convert_layout
x: A -> C. A tile (no encoding) names its layout in the op's `layout`
attribute: the outer one's is kept on the single conversion. The inner conversion, once unused, is erased here: convert_layout
is a data movement with no memory-ordering role, but it is not marked Pure,
so generic dead-code removal would keep it."""
from __future__ import annotations

from ..passes.base import Pass, target_blocks
from ..rewrite.driver import GreedyDriver
from ..rewrite.pattern import RewritePattern

CONVERT = "nv_tileas.convert_layout"

# direct conversion atoms per target family, by (source class, destination class)
ATOM_CATALOG = {
    "sm_80": {("RMEM", "RMEM"), ("RMEM", "SMEM"), ("SMEM", "RMEM"), ("SMEM", "SMEM")},
    "sm_90": {("RMEM", "RMEM"), ("RMEM", "SMEM"), ("SMEM", "RMEM"), ("SMEM", "SMEM")},
    "sm_100": {("RMEM", "RMEM"), ("RMEM", "SMEM"), ("SMEM", "RMEM"), ("SMEM", "SMEM"),
               ("RMEM", "TMEM"), ("TMEM", "RMEM"), ("SMEM", "TMEM"), ("TMEM", "TMEM")},
}


def target_family(arch: str) -> str | None:
    arch = arch.rstrip("af")
    for fam in ("sm_100", "sm_90", "sm_80"):
        if arch == fam or (arch.startswith("sm_") and arch[3:].isdigit() and int(arch[3:]) >= int(fam[3:])):
            return fam
    return None


def storage_class(t) -> str:
    """Where a layout lives: a tiled_view's residency, else read from the
    tensor's encoding (tmem -> TMEM; smem/shared/swizzled -> SMEM; else registers)."""
    res = getattr(t, "residency", None)
    if res:
        return res
    enc = getattr(t, "encoding", None)
    name = (getattr(enc, "name", None) or str(enc or "")).lower()
    if "tmem" in name:
        return "TMEM"
    if "smem" in name or "shared" in name or "swizzle" in name:
        return "SMEM"
    return "RMEM"


class TrimConvertLayoutChain(RewritePattern):
    root, name = CONVERT, "trim-convert-layout-chain"

    def __init__(self, catalog):
        super().__init__()
        self.catalog = catalog

    def match_and_rewrite(self, op, rw):
        inner = getattr(op.source, "op", None)
        if inner is None or inner.name != CONVERT:
            return False
        x = inner.source
        a, b, c = x.type, inner.result.type, op.result.type
        ca, cb, cc = storage_class(a), storage_class(b), storage_class(c)
        if ca != cc:
            return False                                  # condition 1: storage classes
        if cb != ca and a != c:
            return False                                  # round trip: layouts must agree
        if (ca, cc) not in self.catalog:
            return False                                  # condition 2: a direct atom
        named = op.attributes.get("layout")   # a tile's layout lives here, not in its type
        if a == c and named is None:
            rw.replace_op(op, [x])
        else:
            new = rw.create(type(op), source=x, result=c, layout=named, location=op.location)
            rw.replace_op(op, [new.result])
        if not inner.result.has_uses:
            rw.erase_op(inner)
        return True


class LayoutConversionRemoval(Pass):
    name = "layout-conversion-removal"
    argument = "LayoutConversionRemoval"
    OPTIONS = {"target": (str, "sm_90a")}

    def run(self, target) -> bool:
        from ..ir.diagnostics import current_engine
        fam = target_family(self.options["target"])
        if fam is None:
            current_engine().error(target.location, f"layout-conversion-removal: unknown target "
                                                    f"'{self.options['target']}' (expected sm_80, sm_90a or sm_100a)")
            return False
        driver = GreedyDriver([TrimConvertLayoutChain(ATOM_CATALOG[fam])], fold=False)
        driver.run(target_blocks(target), None)
        return True
