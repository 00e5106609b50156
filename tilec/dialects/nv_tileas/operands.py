"""Where a tensor-core dot's operands come from, read off scheduled nv_tileas IR.

The layout assignment (schedule/layouts.py) and the PTX emitter ask the same
questions, and must get the same answers. Is this operand a pipeline slot,
seen through views? Which way does it run? Does the dot fit wgmma?

Views are reshapes of unit dimensions and permutations of a tile that sits
in shared memory. They move no data (the emitter reads through their
coefficients), so a slot read through them is still read in place.
"""
from __future__ import annotations

from .layouts import float_kind, tmem_acc, wgmma_acc

HOME_VIEWS = ("cuda_tile.reshape", "cuda_tile.permute", "nv_tileas.shuffle")
DOT = "nv_tileas.dot"
CREATE_PIPELINE = "nv_tileas.async.pipeline.create_pipeline"
WGMMA_TYPES = ("f16", "bf16", "tf32", "f8E4M3FN", "f8E5M2")
WGMMA_FP8 = ("f8E4M3FN", "f8E5M2")     # K-major operands only, 32-wide K steps
# elements of K per wgmma instruction: 32 bytes of each type
WGMMA_K_STEP = {"f16": 16, "bf16": 16, "tf32": 8, "f8E4M3FN": 32, "f8E5M2": 32}
WGMMA_K_MAJOR_ONLY = WGMMA_FP8 + ("tf32",)      # no transpose immediates: both operands K-major
SWIZZLE_LINE = 128          # bytes: the widest swizzle, one bank line


def slot_readers(value):
    """(op, operand index) of each use of `value`, looking through views."""
    for use in value.uses:
        if use.owner.name in HOME_VIEWS:
            yield from slot_readers(use.owner.results[0])
        else:
            yield use.owner, use.index


def swizzle_fits(pitch: int, rows: int) -> bool:
    """Whether rows of `pitch` bytes, `rows` of them, take the tensor cores' XOR
    swizzle: a power of two of at least 32 bytes, whole groups of eight rows."""
    return pitch >= 32 and not pitch & (pitch - 1) and rows % 8 == 0


def slot_shape(shape):
    """The (rows, cols) of a stage buffer's slot, (stages, [1, ...,] rows, cols), or None."""
    slot = tuple(shape[1:])
    if len(slot) < 2 or any(d != 1 for d in slot[:-2]):
        return None
    return slot[-2], slot[-1]


def slots_swizzled(pipe, shape, etype) -> bool:
    """Whether the slots of pipeline `pipe` (its stage buffer's shape and
    element type) are swizzled: every consumer hands its slot only to rank-2
    dots as A or B (which read it with ldmatrix or wgmma), through views. 8-bit
    slots only when every such dot is an fp8 one reading them K-major (wgmma's
    only fp8 form)."""
    rc = slot_shape(shape)
    width = getattr(etype, "width", None) or 0
    if rc is None or width not in (8, 16):
        return False
    consumers = [u for u in pipe.results[1].users if u.name.endswith("consume_one")]
    if not consumers:
        return False
    for c in consumers:
        for arg in c.regions[0].blocks[0].arguments:
            for user, index in slot_readers(arg):
                if user.name == "nv_tileas.async.pipeline.yield":
                    continue
                if user.name != DOT or len(user.results[0].type.shape) != 2 or index == 2:
                    return False
                if width == 8 and not _k_major_fp8(user, index, arg):
                    return False
    return swizzle_fits(rc[1] * width // 8, rc[0])


def _k_major_fp8(dot, index, arg) -> bool:
    """Whether fp8 `dot` reads slot `arg` as operand `index` K-major: A as
    stored, B through a transpose."""
    if float_kind(dot.operands[index].type) not in WGMMA_FP8:
        return False
    got = _slot_view(dot.operands[index])
    return got is not None and got[0] is arg and got[2] == (index == 1)


def _slot_view(v):
    """(consume_one block argument, create_pipeline op, transposed) when `v` is
    a pipeline slot seen through views (reshapes of unit dimensions,
    permutations), else None. `transposed`: the operand's rows run along the
    slot's columns."""
    chain = []
    while getattr(v, "op", None) is not None and v.op.name in HOME_VIEWS:
        chain.append(v.op)
        v = v.op.operands[0]
    block = getattr(v, "block", None)
    owner = getattr(block, "parent_op", None) if block is not None else None
    if owner is None or not owner.name.endswith("consume_one") or v not in block.arguments:
        return None
    pipe = getattr(owner.operands[0], "op", None)
    if pipe is None or pipe.name != CREATE_PIPELINE:
        return None
    arg = v
    # replay the views: which slot dimension each operand dimension runs along
    cur, dims = list(v.type.shape), list(range(len(v.type.shape)))
    for d in reversed(chain):
        if d.name == "cuda_tile.reshape":
            new = list(d.results[0].type.shape)
            if [n for n in cur if n != 1] != [n for n in new if n != 1]:
                return None
            kept = iter([x for n, x in zip(cur, dims) if n != 1])
            cur, dims = new, [-1 if n == 1 else next(kept) for n in new]
        else:
            perm = list(d.attributes["permutation"].values)
            cur, dims = [cur[p] for p in perm], [dims[p] for p in perm]
    if len(cur) != 2 or 1 in cur:
        return None
    return arg, pipe, dims[0] > dims[1]


def slot_source(v):
    """(consume_one block argument, transposed) when dot operand `v` is a
    swizzled pipeline slot of whole 1024-byte swizzle patterns seen through
    views, else None. `transposed`: the operand's rows run along the slot's
    columns."""
    got = _slot_view(v)
    if got is None:
        return None
    arg, pipe, transposed = got
    buf = pipe.operands[0].type
    shape, etype = tuple(getattr(buf, "shape", ())), getattr(buf, "element_type", None)
    es = (getattr(etype, "width", None) or 16) // 8
    if len(shape) < 3 or (shape[-2] * shape[-1] * es) % 1024 or not slots_swizzled(pipe, shape, etype):
        return None
    return arg, transposed


def wgmma_fits(op, threads: int, first_thread: int = 0, shapes=None) -> bool:
    """Whether dot `op` runs on wgmma in a group of `threads` (starting at CTA
    thread `first_thread`): rank 2, f16 or bf16 A and B of one type, an f32
    accumulator and result, whole warpgroups over which the (M, N) accumulator
    has a WgmmaAcc layout (M a multiple of 64, N a multiple of 8 up to 256,
    the warpgroups splitting M, then N), K a multiple of 16. fp8 (e4m3,
    e5m2) A and B too, K a multiple of 32, both read K-major from swizzled
    slots (fp8_k_major); tf32, K a multiple of 8 (read K-major, so copied).
    `shapes`:
    (A's, the result's) when they differ from the op's types (a batch's)."""
    a_t, b_t, c_t = (o.type for o in op.operands[:3])
    if len(getattr(a_t, "shape", ())) != 2 or len(getattr(b_t, "shape", ())) != 2:
        return False
    ea = float_kind(a_t)
    if ea not in WGMMA_TYPES or ea != float_kind(b_t) or float_kind(c_t) != "f32" \
            or float_kind(op.results[0].type) != "f32":
        return False
    a_shape, r_shape = shapes or (a_t.shape, op.results[0].type.shape)
    m, k = tuple(a_shape)
    n = tuple(r_shape)[1]
    k_step = WGMMA_K_STEP[ea]
    if threads <= 0 or threads % 128 or first_thread % 128 or k % k_step or n % 8 or not 8 <= n <= 256:
        return False
    if ea in WGMMA_FP8 and not fp8_k_major(op):
        return False
    return wgmma_acc((m, n), threads) is not None


# tcgen05.mma (sm_100a) operand element types: one kind for both operands
TCGEN05_KINDS = {"f16": "f16", "bf16": "f16", "f32": "tf32", "tf32": "tf32", "f8E4M3FN": "f8f6f4",
                 "f8E5M2": "f8f6f4"}


def _elem_bytes(t) -> int:
    return (getattr(getattr(t, "element_type", None), "width", 0) or 0) // 8


def tcgen05_fits(op, threads: int, first_thread: int = 0, shapes=None, copies: bool = True) -> bool:
    """Whether dot `op` runs on tcgen05.mma in a group of `threads` (starting
    at CTA thread `first_thread`): rank 2; f16/bf16, tf32 (f32 storage) or fp8
    (either) operands of one kind with an f32 accumulator, or 8-bit integers
    with an i32 one; an accumulator layouts.tmem_acc has for the group;
    K a whole number of 32-byte steps; the copies of the operands not read in
    place from a slot (nor, for A, from tensor memory: tmem_a_columns) within
    WGMMA_STAGE_LIMIT; with `copies` False (a kernel short of shared memory,
    compile_ops' fallback), none at all."""
    a_t, b_t, c_t = (o.type for o in op.operands[:3])
    if len(getattr(a_t, "shape", ())) != 2 or len(getattr(b_t, "shape", ())) != 2:
        return False
    ea, eb = float_kind(a_t), float_kind(b_t)
    if ea or eb:
        if TCGEN05_KINDS.get(ea) is None or TCGEN05_KINDS.get(ea) != TCGEN05_KINDS.get(eb) \
                or float_kind(c_t) != "f32" or float_kind(op.results[0].type) not in ("f32", "f16", "bf16"):
            return False
    elif _int_width(a_t) != 8 or _int_width(b_t) != 8 or _int_width(c_t) != 32:
        return False
    a_shape, r_shape = shapes or (a_t.shape, op.results[0].type.shape)
    m, k = tuple(a_shape)
    n = tuple(r_shape)[1]
    es = _elem_bytes(a_t)
    if first_thread % 128 or not es or (k * es) % 32 or tmem_acc((m, n), threads) is None:
        return False
    # the copies of the operands not read in place from a pipeline slot (nor A from tensor memory)
    a_free = slot_source(op.operands[0]) is not None or (tuple(a_shape) == tuple(a_t.shape) and tmem_a_columns(op, threads))
    need = (0 if a_free else m * k) + (0 if slot_source(op.operands[1]) is not None else n * k)
    return need * es <= (WGMMA_STAGE_LIMIT if copies else 0)


TMEM_COLUMNS = 512
LOADS = ("nv_tileas.tiled_load", "nv_tileas.gather_load")


def _made_in_registers(v) -> bool:
    """Whether tile `v` is computed in registers (an element-wise op's result,
    another dot's), not a tile loaded from memory or a pipeline slot (which
    the tensor core reads where it sits), seen through views and conversions."""
    while getattr(v, "op", None) is not None and (v.op.name in HOME_VIEWS or v.op.name == "nv_tileas.convert_layout"):
        v = v.op.operands[0]
    d = getattr(v, "op", None)
    if d is None:
        owner = getattr(getattr(v, "block", None), "parent_op", None)
        return owner is None or not owner.name.endswith("consume_one")
    if d.name == "nv_tileas.load":      # a view's tile: registers only where the view is (RMEM)
        return getattr(d.operands[0].type, "residency", None) == "RMEM"
    return d.name not in LOADS


def tmem_a_columns(op, threads: int) -> int:
    """The tensor-memory columns tcgen05 dot `op`'s A takes when the tensor
    core reads it from there, else 0: an A computed in registers (attention's
    P, made from the S dot's accumulator), which its threads write by rows
    with tcgen05.st instead of copying it to shared memory. Row block b of A
    (16- or 32-bit elements, M a multiple of 128, held as an M x K accumulator
    of the group) takes K * esize / 4 columns (elements packed into 32-bit
    columns), after D's; D and A must fit tensor memory's 512 columns together."""
    a = op.operands[0]
    shape = tuple(getattr(a.type, "shape", ()))
    if len(shape) != 2 or not _made_in_registers(a):
        return 0
    m, k = shape
    es = _elem_bytes(a.type)
    n = op.results[0].type.shape[-1]
    # 8-bit A keeps its copy: four elements to a column kept more registers live than the
    # shared stores do (TileGym's fp8 FMHA on sm_100a: 1,352 -> 3,080 B of spills)
    if es not in (2, 4) or m % 128 or (k * es) % 32 or tmem_acc((m, k), threads) is None:
        return 0
    cols = (m // 128) * k * es // 4
    return cols if (m // 128) * n + cols <= TMEM_COLUMNS else 0


def _int_width(t) -> int:
    e = getattr(t, "element_type", None)
    return e.width if type(e).__name__ == "IntegerType" else 0


def fp8_k_major(op) -> bool:
    """Whether fp8 dot `op` reads both operands K-major from swizzled slots (A
    as stored, B through a transpose): the only fp8 wgmma, with no copy."""
    a, b = slot_source(op.operands[0]), slot_source(op.operands[1])
    return a is not None and b is not None and not a[1] and b[1]


def wgmma_in_place(op) -> bool:
    """Whether dot `op`'s B is a swizzled pipeline slot read in place (MN-major
    as stored, K-major through a transpose): the default sm_90a rule for
    running a dot on wgmma. A then comes from a slot, a shared-layout tile or
    registers."""
    return slot_source(op.operands[1]) is not None


# shared bytes of one dot's canonical operand copies, when wgmma stages operands
# that are not read in place (the `all` mode)
WGMMA_STAGE_LIMIT = 64 * 1024
WGMMA_MODES = ("auto", "all", "none")


def wgmma_copies_b(op) -> bool:
    """Whether dot `op`'s B is computed in registers (an element-wise result,
    another dot's, a loop-carried tile): it reaches any tensor core through
    shared memory (mma.sync's B fragments are not a layout a computation
    leaves it in), so wgmma copying it costs no more than mma.sync's path."""
    return _made_in_registers(op.operands[1])


def wgmma_copy_bytes(op, threads: int, mode: str = "auto") -> int:
    """Shared bytes wgmma dot `op` will copy its operands into (0 when it runs
    elsewhere or copies nothing), read before the schedule makes pipeline slots:
    a B computed in registers, and an A that is neither loaded (a slot or a
    tile in place) nor taken from registers (16-bit, the warpgroups splitting
    M only)."""
    if not wgmma_chosen(op, threads, mode) or not wgmma_copies_b(op):
        return 0
    m, k = tuple(op.operands[0].type.shape)
    n = tuple(op.results[0].type.shape)[1]
    es = _elem_bytes(op.operands[0].type)
    acc = wgmma_acc((m, n), threads)
    a_free = not _made_in_registers(op.operands[0]) or (
        float_kind(op.operands[0].type) in ("f16", "bf16") and acc is not None and acc.col_groups == 1)
    return (0 if a_free else m * k * es) + n * k * es


def tcgen05_copy_bytes(op, threads: int) -> int:
    """Shared bytes tcgen05 dot `op` will copy its operands into, read before the
    schedule makes pipeline slots (0 when it runs elsewhere): an operand computed
    in registers, except an A that goes to tensor memory (tmem_a_columns)."""
    if not tcgen05_fits(op, threads):
        return 0
    m, k = tuple(op.operands[0].type.shape)
    n = tuple(op.results[0].type.shape)[1]
    es = _elem_bytes(op.operands[0].type)
    a = _made_in_registers(op.operands[0]) and not tmem_a_columns(op, threads)
    return (m * k * es if a else 0) + (n * k * es if _made_in_registers(op.operands[1]) else 0)


def _stage_bytes(op, shapes) -> int:
    m, k = tuple(op.operands[0].type.shape if shapes is None else shapes[0])
    n = tuple(op.results[0].type.shape if shapes is None else shapes[1])[1]
    return (m * k + n * k) * _elem_bytes(op.operands[0].type)


def wgmma_chosen(op, threads: int, mode: str = "auto", first_thread: int = 0, shapes=None,
                 copies: bool = True) -> bool:
    """Whether dot `op` runs on wgmma under `mode` (sm_90a): `auto`, the
    default, where it fits and B is read in place (wgmma_in_place) or, with
    `copies` (a kernel not short of shared memory), computed in registers
    (wgmma_copies_b) within WGMMA_STAGE_LIMIT; `all` every dot that fits whose
    staged operand copies stay within WGMMA_STAGE_LIMIT; `none` never.
    `shapes`: (A shape, C shape) of one batch of a batched dot."""
    if mode == "none" or not wgmma_fits(op, threads, first_thread, shapes):
        return False
    if mode == "auto" and wgmma_in_place(op):
        return True
    if mode == "auto" and not (copies and wgmma_copies_b(op)):
        return False
    return _stage_bytes(op, shapes) <= WGMMA_STAGE_LIMIT
