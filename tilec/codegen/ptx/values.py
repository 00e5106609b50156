"""What an SSA value is while emitting: register tiles and the emitter's handles."""
from __future__ import annotations


class CodegenError(Exception):
    """An op the emitter cannot translate; reported as a diagnostic at the op."""

    def __init__(self, op, message: str):
        super().__init__(message)
        self.op, self.message = op, message


class SharedMemoryOverflow(CodegenError):
    """The kernel needs more shared memory than a block may use on the target
    (fewer pipeline stages may fit: compile_ops retries with them)."""

    def __init__(self, op, message: str, needed: int, limit: int):
        super().__init__(op, message)
        self.needed, self.limit = needed, limit


class Tile:
    """A tile held in registers. `layout` None means a splat: one register holds
    every element (scalars, constants, broadcasts of scalars), valid in every
    thread of every group. `home`, when set, is a shared-memory address
    (symbol or register) holding the same elements row-major. `origin`, when
    set, is the tile this one broadcasts (unit dimensions stretched): another
    layout of it is then made from the source (slices.broadcast_into).
    `view`, when set, is (address, coefficients): the tile is a permutation of
    a shared-memory tile, element c at address + esize * sum(c_d * coeff_d)
    (a transpose of a pipeline slot, which wgmma reads in place as the other
    major-ness); such a tile has no row-major `home`. `transpose_of`, when set,
    is the rank-2 register tile this one transposes, not yet moved: a tensor-core
    dot stages that tile as it is and reads it transposed (ldmatrix.trans);
    anything else gets the registers made on demand (Emitter.regs_of)."""
    __slots__ = ("etype", "shape", "layout", "regs", "home", "origin", "view", "transpose_of")

    def __init__(self, etype, shape, layout, regs, home=None, origin=None, view=None, transpose_of=None):
        self.etype, self.shape, self.layout, self.regs, self.home = etype, tuple(shape), layout, regs, home
        self.origin, self.view, self.transpose_of = origin, view, transpose_of

    @property
    def splat(self) -> bool:
        return self.layout is None

    @property
    def backed(self) -> bool:
        """A distributed tile whose elements sit in shared memory (home or view):
        readable in any layout while its value is live."""
        return self.layout is not None and self.transpose_of is None and (
            self.home is not None or self.view is not None)

    def at(self, slot: int) -> str:
        return self.regs[0] if self.layout is None else self.regs[slot]

    @property
    def reg(self) -> str:
        """The one register of a splat (a scalar)."""
        assert self.layout is None, "not a scalar"
        return self.regs[0]


class Group:
    """The threads running a region: the whole CTA, or one agent of an agent_switch.
    `tid` is the thread's index inside the group; barriers are named per group."""

    def __init__(self, tid: str, threads: int, barrier_id: int, prologue):
        self.tid, self.threads, self.barrier_id, self.prologue = tid, threads, barrier_id, prologue
        self.bases: dict = {}
        self.owners: dict = {}
        self.scratch = None       # (symbol, bytes) of this group's shared scratch
        self.first_thread = 0     # the CTA thread index of the group's thread 0
