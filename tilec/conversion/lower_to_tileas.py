"""The lower-to-tileas pass: cuda_tile -> nv_tileas for one target, as
patterns on the greedy rewrite driver, then the legality check."""
from __future__ import annotations

from ..ir import attributes as A
from ..ir.diagnostics import current_engine
from ..passes.base import Pass, target_blocks
from ..rewrite.driver import GreedyDriver
from .broadcasts import ElementwiseBeforeBroadcast
from .control import FoldIndexCastPair, ForToScf, IfToScf, LoopToWhile, SinkEarlyContinue
from .layout import PermuteToShuffle
from .legality import check_legal
from .mma import LowerMma, LowerMmaScaled
from .permuted_views import SinkUnitReshape
from .pointers import LowerLoadPtr, LowerStorePtr
from .reduce import LowerCombining
from .target import ARCHES, target_for
from .views import LowerAtomicRedView, LowerLoadView, LowerStoreView

TARGET_ATTR = "nv_tileas.target"


def lowering_patterns(target):
    return [LowerLoadView(target), LowerStoreView(target), LowerMma(target, "cuda_tile.mmaf"),
            LowerMma(target, "cuda_tile.mmai"), LowerMmaScaled(target), ForToScf(), FoldIndexCastPair(),
            PermuteToShuffle(),
            LowerLoadPtr(), LowerStorePtr(), LowerAtomicRedView(target), LowerCombining("cuda_tile.reduce"),
            LowerCombining("cuda_tile.scan"), SinkEarlyContinue(), IfToScf(), LoopToWhile(), SinkUnitReshape(),
            ElementwiseBeforeBroadcast()]


def entries(blocks):
    for b in blocks:
        for op in b.ops:
            if op.name == "cuda_tile.entry":
                yield op
            elif op.name == "cuda_tile.module":
                yield from entries([blk for r in op.regions for blk in r.blocks])


def lower_blocks(blocks, target, location) -> bool:
    driver = GreedyDriver(lowering_patterns(target), fold=True, max_iterations=10)
    driver.run(blocks, location)
    ok = check_legal([op for b in blocks for op in b.ops], target, current_engine())
    for e in entries(blocks):
        e.attributes[TARGET_ATTR] = A.StringAttr(target.arch)
    return ok


class LowerToTileas(Pass):
    """lower cuda_tile to nv_tileas (views, tiled memops, dot, reduce/scan, scf.for/if/while) for a target"""
    name = "lower-to-tileas"
    argument = "LowerToTileas"
    OPTIONS = {"arch": (str, "sm_90a")}

    def run(self, target) -> bool:
        arch = self.options["arch"]
        t = target_for(arch)
        if t is None:
            current_engine().error(target.location, f"unknown target '{arch}' (known: {', '.join(ARCHES)})")
            return False
        return lower_blocks(target_blocks(target), t, target.location)
