"""nv_tileas attributes: atoms (`#nv_tileas<atom NAME[, box = [..]]>`) and the
enums of the memory contract (semantic, scope), atomic RMW modes, TMA swizzle
and out-of-bounds modes, padding values and integer signedness."""
from __future__ import annotations

import re

from ...ir import registry
from ...ir.attributes import DialectAttr
from ..cuda_tile.attributes import EnumAttr

DIALECT = "nv_tileas"
# on a cuda_tile.entry: each tile block runs on a cluster of this many CTAs (split-tile-blocks)
BLOCKS_ARE_CLUSTERS = "nv_tileas.blocks_are_clusters"

_TMA = re.compile(r"tma_(load|store|reduce)_([1-5])d$")
BLOCK_SCALED_ATOMS = ("mxf8f6f4", "mxf4", "mxf4nvf4")


class AtomAttr(DialectAttr):
    """A copy, MMA or TMA atom. The name decides the kind: `tma_load_2d`,
    `tma_store_3d`, `tma_reduce_1d` (TMA, box rank in the name), `mma_*` and the
    block-scaled `mxf8f6f4` / `mxf4` / `mxf4nvf4` (MMA), `copy_*` (copy). A TMA
    atom may list its box: `#nv_tileas<atom tma_load_2d, box = [64, 128]>`."""
    __slots__ = ("name", "box")
    dialect, mnemonic = DIALECT, ""
    description = "atom"

    def __init__(self, name: str, box: tuple | None = None):
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "box", None if box is None else tuple(box))

    def __eq__(self, other):
        return isinstance(other, AtomAttr) and (self.name, self.box) == (other.name, other.box)

    def __hash__(self):
        return hash(("atom", self.name, self.box))

    # -- kinds ------------------------------------------------------------
    @property
    def tma_kind(self):
        m = _TMA.match(self.name)
        return m.group(1) if m else None

    def is_tma(self):
        return self.tma_kind is not None

    def is_tma_load(self):
        return self.tma_kind == "load"

    def is_tma_store(self):
        return self.tma_kind == "store"

    def is_tma_reduce(self):
        return self.tma_kind == "reduce"

    @property
    def box_rank(self):
        m = _TMA.match(self.name)
        return int(m.group(2)) if m else (len(self.box) if self.box else None)

    def is_mma(self):
        return self.name.startswith("mma") or self.name in BLOCK_SCALED_ATOMS

    def is_block_scaled(self):
        return self.name in BLOCK_SCALED_ATOMS

    def is_copy(self):
        return self.name.startswith("copy") or self.is_tma()

    @property
    def kind(self):
        return "tma" if self.is_tma() else "mma" if self.is_mma() else "copy"

    # -- text -------------------------------------------------------------
    def body(self):
        s = f"atom {self.name}"
        if self.box is not None:
            s += ", box = [" + ", ".join(map(str, self.box)) + "]"
        return s

    def text(self, short=False):
        return f"#{DIALECT}<{self.body()}>"

    @classmethod
    def parse_body(cls, r):
        if r is None:
            from ...syntax.reader import BodyError
            raise BodyError("expected '<' after '#nv_tileas'")
        word = r.keyword()
        if word == "layout":
            from .layout_attr import LayoutAttr
            return LayoutAttr.parse_rest(r)
        if word != "atom":
            r.error(f"unknown nv_tileas attribute '{word}'")
        name = r.keyword()
        if not (_TMA.match(name) or name.startswith(("mma", "copy")) or name in BLOCK_SCALED_ATOMS):
            r.error(f"unknown atom '{name}'")
        box = None
        if r.accept(","):
            if r.keyword() != "box":
                r.error("expected 'box'")
            r.expect("=")
            box = r.int_list()
            rank = _TMA.match(name)
            if rank and len(box) != int(rank.group(2)):
                r.error(f"atom '{name}' has box rank {rank.group(2)}, but its box lists {len(box)} dims")
        return cls(name, box)


registry.register_attr(AtomAttr)


class NvEnumAttr(EnumAttr):
    """`#nv_tileas.<mnemonic><value>`."""
    __slots__ = ()
    dialect = DIALECT

    def text(self, short=False):
        return f"#{self.dialect}.{self.mnemonic}<{self.value}>"

    @classmethod
    def parse_body(cls, r):
        if r is None:
            from ..cuda_tile.attributes import raise_missing
            raise_missing(cls)
        word = r.chunk(">")  # raw: swizzle modes start with a digit (`32B`)
        if word not in cls.values:
            r.error(f"expected {cls.description} to be one of: {', '.join(cls.values)}")
        return cls(word)


def _enum(name, mnemonic, values, dialect=DIALECT):
    cls = type(name, (NvEnumAttr,), {"mnemonic": mnemonic, "values": tuple(values), "dialect": dialect,
                                     "description": mnemonic.replace("_", " "), "__slots__": ()})
    return registry.register_attr(cls)


MEMORY_SEMANTICS = ("weak", "relaxed", "acquire", "release", "acquire_release")
MemorySemanticAttr = _enum("MemorySemanticAttr", "mem_semantic", MEMORY_SEMANTICS)
MemoryScopeAttr = _enum("MemoryScopeAttr", "mem_scope", ("tl_blk", "cluster", "gpu", "sys"))
RMW_MODES = ("add", "and", "or", "xor", "xchg", "min", "max", "umin", "umax", "cmpxchg", "addf")
RmwModeAttr = _enum("RmwModeAttr", "rmw_mode", RMW_MODES)
SwizzleModeAttr = _enum("SwizzleModeAttr", "swizzle_mode", ("none", "32B", "64B", "128B"))
OobModeAttr = _enum("OobModeAttr", "oob_mode", ("zero", "nan", "constant"))
PaddingAttr = _enum("PaddingAttr", "padding", ("zero", "neg_zero", "nan", "pos_inf", "neg_inf"))
SignednessAttr = _enum("SignednessAttr", "signedness", ("signed", "unsigned"))
ResidencyAttr = _enum("ResidencyAttr", "residency", ("RMEM", "SMEM", "TMEM", "GMEM"), "nv_tileaa")


def semantic_of(op):
    """The op's memory semantic as a word; weak when absent."""
    a = op.attributes.get("mem_semantic")
    return a.value if isinstance(a, MemorySemanticAttr) else "weak"
