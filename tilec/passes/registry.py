"""Pass registry. Names and one-line descriptions live here as plain data so
the CLI can list pass flags without importing any pass (`tilec --help` stays
fast); the pass class is imported when a pipeline is built.

A pass class subclasses passes.base.Pass. Register it by adding a line to
BUILTIN below (or calling register_pass at import time of a plugin module)."""
from __future__ import annotations

import importlib

# name -> (module:Class, description)
BUILTIN = {
    "canonicalize": ("tilec.passes.canonicalize:Canonicalize",
                     "fold, erase dead ops and apply every dialect's canonicalization patterns"),
    "cse": ("tilec.passes.cse:CSE", "eliminate common subexpressions of side-effect-free ops"),
    "fuse-fma": ("tilec.transforms.fuse_fma:FuseFMA", "fuse cuda_tile mulf + addf/subf into fma"),
    "loop-split": ("tilec.transforms.loop_split:LoopSplit",
                   "split cuda_tile.for loops at an induction-variable comparison feeding an if"),
    "lower-to-tileas": ("tilec.conversion.lower_to_tileas:LowerToTileas",
                        "lower cuda_tile to nv_tileas for a target (option arch=sm_80|sm_90a)"),
    "schedule": ("tilec.schedule.schedule_pass:Schedule",
                 "software-pipeline K loops: stages, producer/consumer pipelines, agents"),
    "chunk-dots": ("tilec.transforms.chunk_dots:ChunkDots",
                   "cut dots whose loaded operand is too large for shared memory into K blocks"),
    "split-tile-blocks": ("tilec.transforms.split_tile_blocks:SplitTileBlocks",
                          "run each tile block that asks for a CGA (num_cta_in_cga) on a cluster of CTAs"),
    "synthesize-debug-info-scopes": ("tilec.transforms.debug_scopes:SynthesizeDebugInfoScopes",
                                     "give functions without a debug info scope a subprogram and their ops di_locs"),
    "test-debuginfo-update-symbol-name": ("tilec.transforms.rename_symbol:UpdateSymbolName",
                                          "rename a function, its uses and its debug info linkage name"),
    "layout-conversion-removal": ("tilec.transforms.layout_conversion:LayoutConversionRemoval",
                                  "trim nv_tileas.convert_layout chains that reduce to identity"),
}

_EXTRA: dict = {}


def register_pass(cls, description=""):
    _EXTRA[cls.name] = (cls, description or (cls.__doc__ or "").strip().split("\n")[0])
    return cls


def pass_names():
    return sorted(set(BUILTIN) | set(_EXTRA))


def description(name):
    entry = _EXTRA.get(name) or BUILTIN.get(name)
    return entry[1] if entry else ""


def lookup(name):
    """The pass class registered as `name`, or None."""
    if name in _EXTRA:
        return _EXTRA[name][0]
    entry = BUILTIN.get(name)
    if entry is None:
        return None
    mod, cls = entry[0].split(":")
    return getattr(importlib.import_module(mod), cls)
