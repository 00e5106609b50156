"""nv_tileas.dot on CUDA cores: C[m, n] += sum_k A[m, k] * B[k, n].

A and B are read from shared memory (their stage-buffer home when they have
one, else a scratch copy); each thread keeps its accumulator slots in
registers and walks K in a loop, loading each distinct row of A and column of
B it needs once per k. Floats accumulate in f32 (f64 for f64), integers in
32/64-bit integers."""
from __future__ import annotations

from .emitter import handles
from ...dialects.nv_tileas.layouts import MmaAcc, WgmmaAcc, linear_offsets
from .numeric import float_name, to_f32
from .ptxtypes import B32, F32, F64, PRED, bits, byte_size, mem_type, reg_class
from .values import Tile


def _operand_home(em, tile):
    if tile.home is not None:
        return tile.home
    return None


def plain_home(em, tile):
    """`tile`'s shared home when it is plainly row-major (not swizzled), else None."""
    if tile.home is None or tile.home in em.swizzle_of:
        return None
    return tile.home


def transposed_home(em, t):
    """The shared address of the row-major tile whose transpose is the rank-2
    `t`, when `t` is such a view (ops_core: a permuted slot or shared tile;
    loaded registers or not, the bytes stay there), else None."""
    if t.view is None or len(t.shape) != 2 or list(t.view[1]) != [1, t.shape[0]]:
        return None
    return t.view[0]


def _stage(em, tiles, swizzled_ok=False):
    """Shared addresses of row-major copies of `tiles` (homes reused; swizzled
    homes only when the caller reads through their swizzle)."""
    home = (lambda t: t.home) if swizzled_ok else (lambda t: plain_home(em, t))
    need = [t for t in tiles if home(t) is None]
    addrs = {}
    if need:
        sizes = []
        for t in need:
            n = 1
            for d in t.shape:
                n *= d
            sizes.append((n * byte_size(t.etype) + 15) // 16 * 16)
        sym = em.scratch(sum(sizes))
        base = em.addr_of(sym)
        em.sync()
        off = 0
        for t, s in zip(need, sizes):
            a = em.kb.reg(B32)
            em.kb.emit(f"add.u32 \t{a}, {base}, {off}")
            em.align_of[a] = 16          # the scratch is 16-aligned, each copy padded to 16 bytes
            em.store_shared(em.regs_of(t), a, linear_offsets(t.shape))
            addrs[id(t)] = a
            off += s
        em.sync()
    return [home(t) if home(t) is not None else addrs[id(t)] for t in tiles]


MMA_TYPES = {"f16": "f16", "bf16": "bf16"}

# tensor-core back ends that claim a dot before wgmma and mma.sync, as
# (layout_of(em, op, a_shape, c_shape) -> layout or None, layout class,
# run(em, op, a, b, c, layout, rt) -> result tile); ops_tcgen05 adds itself
# (registered, not imported here: it builds on this module's helpers)
BACKENDS: list = []


def mma_layout(em, op, a_shape=None, c_shape=None):
    """The MmaAcc layout a tensor-core dot gives its (M, N) result, or None
    (CUDA cores). Shapes default to the op's (rank 2). The layout that
    assign-layouts wrote on the accumulator's convert_layout is used when it
    fits this group; it is the same choice made before the schedule."""
    from ...dialects.cuda_tile.types import TileType
    from ...dialects.nv_tileas.layout_attr import LayoutAttr
    from ...dialects.nv_tileas.layouts import tensor_core_acc
    for layout_of, _, _ in BACKENDS:
        got = layout_of(em, op, a_shape, c_shape)
        if got is not None:
            return got
    if em.wgmma:
        from .ops_wgmma import wgmma_layout
        wg = wgmma_layout(em, op, a_shape, c_shape)
        if wg is not None:
            return wg
    a_t, b_t, rt = op.operands[0].type, op.operands[1].type, op.results[0].type
    a = TileType(tuple(a_shape or a_t.shape), a_t.element_type)
    c = TileType(tuple(c_shape or rt.shape), rt.element_type)
    chosen = tensor_core_acc(a, b_t, c, em.group.threads)
    src = getattr(op.operands[2], "op", None)
    if chosen is not None and src is not None and src.name == "nv_tileas.convert_layout" and \
            isinstance(src.attributes.get("layout"), LayoutAttr) and src.attributes["layout"].kind == "mma" \
            and len(a_t.shape) == 2:
        return src.attributes["layout"].layout_for(c.shape, em.group.threads) or chosen
    return chosen


def named_layout(em, conv, shape):
    """The layout an nv_tileas.convert_layout `conv` moves its tile into in this
    group, or None when its named layout does not fit the group. An accumulator
    layout (mma, wgmma) feeding a dot is the layout that dot computes in here
    (mma_layout: `--no-wgmma` turns a wgmma layout into mma.sync's; layouts
    never change values)."""
    lay = conv.attributes["layout"]
    if lay.kind in ("mma", "wgmma", "tmem"):
        for use in conv.results[0].uses:
            if use.owner.name == "nv_tileas.dot" and use.index == 2:
                got = mma_layout(em, use.owner)
                if got is not None and tuple(got.shape) == tuple(shape):
                    return got
    if (lay.kind == "wgmma" and not em.wgmma) or (lay.kind == "tmem" and not em.target.tcgen05):
        return None
    return lay.layout_for(shape, em.group.threads)


def _moved(em, t):
    """`t` with registers when it is a transpose not yet moved (values.Tile.transpose_of)."""
    return em.regs_of(t) if t.transpose_of is not None else t


@handles("nv_tileas.dot")
def _dot(em, op):
    a, b = em.get(op.operands[0]), em.get(op.operands[1])
    c = em.tile(op.operands[2])
    rt = op.results[0].type.element_type
    if len(a.shape) == 3:
        em.bind(op.results[0], _batched_dot(em, op, _moved(em, a), _moved(em, b), c, rt))
    elif len(a.shape) == 2:
        em.bind(op.results[0], _dot_2d(em, op, a, b, c, rt))
    else:
        em.fail("is only supported on rank-2 and rank-3 (batched) operands by the PTX emitter")


def _batched_dot(em, op, a, b, c, rt):
    """B independent (M, K) x (K, N) products: the operands are staged row-major
    in a buffer of their own (the per-batch dots convert accumulators through
    the group scratch), each batch's accumulator is read from shared memory in
    the 2-D layout, and each result written back to the same place."""
    kb = em.kb
    nb, M, K = a.shape
    N = b.shape[2]
    homes = []
    need = [t for t in (a, b) if plain_home(em, t) is None]
    if need:
        sizes = [(_prod(t.shape) * byte_size(t.etype) + 15) // 16 * 16 for t in need]
        base = em.addr_of(kb.shared_buffer(sum(sizes), 16, "bdot"))
        em.sync()
        off, where = 0, {}
        for t, size in zip(need, sizes):
            r = kb.reg(B32)
            kb.emit(f"add.u32 \t{r}, {base}, {off}")
            em.align_of[r] = 16
            em.store_shared(em.regs_of(t), r, linear_offsets(t.shape))
            where[id(t)] = r
            off += size
    homes = [plain_home(em, t) or where[id(t)] for t in (a, b)]
    es_c = byte_size(rt)
    cbuf = em.addr_of(kb.shared_buffer(nb * M * N * max(es_c, byte_size(c.etype)), 16, "bacc"))
    em.sync()
    em.store_shared(em.regs_of(c), cbuf, linear_offsets(c.shape))
    em.sync()
    two = em.layout_for((M, N))
    for i in range(nb):
        ai, bi, ci = kb.reg(B32), kb.reg(B32), kb.reg(B32)
        kb.emit(f"add.u32 \t{ai}, {homes[0]}, {i * M * K * byte_size(a.etype)}")
        kb.emit(f"add.u32 \t{bi}, {homes[1]}, {i * K * N * byte_size(b.etype)}")
        kb.emit(f"add.u32 \t{ci}, {cbuf}, {i * M * N * byte_size(c.etype)}")
        for r, src, step in ((ai, homes[0], M * K * byte_size(a.etype)), (bi, homes[1], K * N * byte_size(b.etype))):
            em.align_of[r] = _gcd(em.align_of.get(src, 1), step) if i else em.align_of.get(src, 1)
        acc = em.load_shared(c.etype, (M, N), two, ci, linear_offsets((M, N)))
        out = _dot_2d(em, op, em.home_tile(a.etype, (M, K), ai), em.home_tile(b.etype, (K, N), bi), acc, rt)
        em.sync()                    # every thread has read this batch's accumulator
        oi = kb.reg(B32)
        kb.emit(f"add.u32 \t{oi}, {cbuf}, {i * M * N * es_c}")
        em.store_shared(out, oi, linear_offsets((M, N)))
    em.sync()
    return em.load_shared(rt, (nb, M, N), em.layout_for((nb, M, N)), cbuf, linear_offsets((nb, M, N)))


def _k_loop_head(kb, name):
    """A K counter from 0 and the loop's head label, placed."""
    k = kb.reg(B32)
    kb.emit(f"mov.u32 \t{k}, 0")
    head = kb.label(name)
    kb.place(head)
    return k, head


def _k_loop_tail(kb, k, step: int, bound, head):
    """k += step; back to `head` while k < bound."""
    kb.emit(f"add.u32 \t{k}, {k}, {step}")
    more = kb.reg(PRED)
    kb.emit(f"setp.lt.u32 \t{more}, {k}, {bound}")
    kb.emit(f"@{more} bra \t{head}")


def _prod(xs):
    n = 1
    for x in xs:
        n *= x
    return n


def _gcd(a, b):
    from math import gcd
    return gcd(a, b)


def _dot_2d(em, op, a, b, c, rt):
    mma = mma_layout(em, op, a.shape, (a.shape[0], b.shape[1]))
    for _, kind, run in BACKENDS:
        if isinstance(mma, kind):
            return run(em, op, _moved(em, a), _moved(em, b), c, mma, rt)
    if mma is not None and not isinstance(mma, WgmmaAcc) and float_name(a.etype) in MMA_TYPES:
        return _mma_dot(em, op, a, b, c, mma, rt)      # reads an unmoved transpose in place
    a, b = _moved(em, a), _moved(em, b)
    if isinstance(mma, WgmmaAcc):
        from .ops_wgmma import wgmma_dot
        return wgmma_dot(em, op, a, b, c, mma, rt)
    if mma is not None and not (_bytes(a) and not _byte_copies_fit(em, a, b)):
        return _mma_dot(em, op, a, b, c, mma, rt)
    return _cuda_core_dot(em, op, a, b, c, rt)


def _cuda_core_dot(em, op, a, b, c, rt):
    """The dot on CUDA cores: each thread's accumulator elements summed over K
    from row-major shared copies (a K block at a time where shared memory is short)."""
    kb = em.kb
    M, K = a.shape
    N = b.shape[1]
    is_float = bool(float_name(rt))
    wide = float_name(rt) == "f64"
    acc_cls = F64 if wide else F32 if is_float else reg_class(rt)
    ct = "f64" if wide else "f32"
    layout = c.layout or em.layout_for((M, N))
    c = em.in_layout(c, layout)       # before staging: converting uses the same scratch
    chunk = _k_chunk(em, a, b)
    if chunk == K:
        a_addr, b_addr = _stage(em, [a, b])
    # accumulators
    acc = []
    for s in range(layout.nslots):
        r = kb.reg(acc_cls)
        src = c.at(s)
        if is_float and not wide:
            src = to_f32(em, src, c.etype)
        kb.emit(f"mov.b{64 if acc_cls in ('f64', 'b64') else 32} \t{r}, {src}")
        acc.append(r)
    bases = em.bases(layout)
    ea, eb = byte_size(a.etype), byte_size(b.etype)
    offs = [layout.offsets(s) for s in range(layout.nslots)]
    rows = sorted({o[0] for o in offs})
    cols = sorted({o[1] for o in offs})
    sa = _signed(op, "signedness_a")
    sb = _signed(op, "signedness_b")
    for k0 in range(0, K, chunk):
        if chunk < K:
            a_addr, b_addr = _stage_k_block(em, a, b, k0, chunk)
        pa, pb = kb.reg(B32), kb.reg(B32)
        kb.emit(f"mad.lo.u32 \t{pa}, {bases[0]}, {chunk * ea}, {a_addr}")
        kb.emit(f"mad.lo.u32 \t{pb}, {bases[1]}, {eb}, {b_addr}")
        k, head = _k_loop_head(kb, "dot_k")
        av = {m: _load(em, a.etype, f"[{pa}+{m * chunk * ea}]", is_float, wide, sa) for m in rows}
        bv = {n: _load(em, b.etype, f"[{pb}+{n * eb}]", is_float, wide, sb) for n in cols}
        for s, o in enumerate(offs):
            if is_float:
                kb.emit(f"fma.rn.{ct} \t{acc[s]}, {av[o[0]]}, {bv[o[1]]}, {acc[s]}")
            else:
                w = 64 if acc_cls == "b64" else 32
                x, y = av[o[0]], bv[o[1]]
                if w == 64:
                    x, y = _widen(em, x, sa), _widen(em, y, sb)
                kb.emit(f"mad.lo.s{w} \t{acc[s]}, {x}, {y}, {acc[s]}")
        kb.emit(f"add.u32 \t{pa}, {pa}, {ea}")
        kb.emit(f"add.u32 \t{pb}, {pb}, {N * eb}")
        _k_loop_tail(kb, k, 1, chunk, head)
    out = em.new_tile(rt, (M, N), layout)
    for r, s in zip(out.regs, acc):
        if is_float and not wide:
            from .numeric import from_f32
            from_f32(em, r, s, rt)
        else:
            em.mov(r, s, rt)
    return out


def _k_chunk(em, a, b, pad=(0, 0)) -> int:
    """K, or the K block the CUDA-core dot stages at a time when the kernel's
    shared memory is short (em.scratch_limit, compile_ops' fallback) and the
    register operands' copies would not fit it: the largest power of two that
    divides K and whose A columns and B rows fit the limit. `pad`: the elements
    whole copies add to each row of A and of B (the tf32 MMA's)."""
    M, K = a.shape
    N = b.shape[1]
    per_k = M * byte_size(a.etype) + N * byte_size(b.etype)
    whole = M * (K + pad[0]) * byte_size(a.etype) + K * (N + pad[1]) * byte_size(b.etype)
    if not em.scratch_limit or whole <= em.scratch_limit or a.regs is None or b.regs is None \
            or a.splat or b.splat:
        return K
    chunk = K
    while chunk > 1 and (chunk * per_k > em.scratch_limit or K % chunk):
        chunk //= 2
    return chunk


def _byte_copies_fit(em, a, b) -> bool:
    """Whether the padded copies the 8-bit mma.sync makes of the operands it
    cannot read in place (_byte_homes) fit the scratch limit of a kernel short
    of shared memory (none otherwise)."""
    _, _, size_a, size_b = _byte_copies(em, a, b)
    return not em.scratch_limit or size_a + size_b <= em.scratch_limit


def _stage_k_block(em, a, b, k0: int, n: int):
    """Shared addresses of row-major copies of A's columns and B's rows
    [k0, k0 + n), in the group scratch (a barrier before and after)."""
    M = a.shape[0]
    a_bytes = (M * n * byte_size(a.etype) + 15) // 16 * 16
    base = em.addr_of(em.scratch(a_bytes + n * b.shape[1] * byte_size(b.etype)))
    em.sync()
    em.store_block(a, base, 1, k0, n)
    b_addr = em.kb.reg(B32)
    em.kb.emit(f"add.u32 \t{b_addr}, {base}, {a_bytes}")
    em.store_block(b, b_addr, 0, k0, n)
    em.sync()
    return base, b_addr


def _signed(op, name):
    a = op.attributes.get(name)
    return getattr(a, "value", "signed") == "signed"


def _widen(em, r, signed):
    out = em.kb.reg("b64")
    em.kb.emit(f"cvt.{'s' if signed else 'u'}64.{'s' if signed else 'u'}32 \t{out}, {r}")
    return out


def _load(em, etype, where, is_float, wide, signed):
    kb = em.kb
    if is_float:
        raw = kb.reg(reg_class(etype))
        kb.emit(f"ld.shared{mem_type(etype)} \t{raw}, {where}")
        if wide:
            return raw
        return to_f32(em, raw, etype)
    r = kb.reg(B32)
    t = mem_type(etype)
    if not signed and t.startswith(".s"):
        t = ".u" + t[2:]
    kb.emit(f"ld.shared{t} \t{r}, {where}")
    return r


def _mma_dot(em, op, a, b, c, layout, rt):
    """Tensor cores: mma.sync m16n8k16 (f16/bf16 in, f32 accumulate), or
    m16n8k32 for 8-bit operands (_stage_bytes: K-contiguous rows read as
    byte pairs, a K step being 32 bytes either way). Operand
    fragments come straight from the row-major shared copies with ldmatrix:
    .x4 gives a 16x16 A fragment, .x4.trans two 16x8 B fragments (B is stored
    k-major-rows, so the transposing load yields the column-major pairs; a B
    that is the transpose of an N x K tile is read without .trans). An A held
    in registers by warps that split the rows only is used where it is
    (_register_a), and the K loop is then unrolled."""
    if float_name(a.etype) == "tf32":
        return _mma_dot_tf32(em, a, b, c, layout, rt)
    kb = em.kb
    M, K = a.shape
    N = b.shape[1]
    eb = byte_size(a.etype)      # 1: 8-bit rows read as pairs of bytes, m16n8k32 (_stage_bytes)
    shape_types = f"m16n8k32.row.col.{_byte_mma_types(em, op, a, b)}" if eb == 1 else \
        f"m16n8k16.row.col.f32.{MMA_TYPES[float_name(a.etype)]}.{MMA_TYPES[float_name(a.etype)]}.f32"
    c = em.in_layout(c, layout)       # before staging: converting uses the same scratch
    pitch_a = pitch_b = eb * K        # bytes per row of A as read, and of B's N x K rows
    if eb == 1:
        a_km = a_regs = None
        a_at, pitch_a, b_nk, pitch_b = _stage_bytes(em, a, b)
        staged = {id(a): a_at}
    else:
        b_nk = transposed_home(em, b)    # B as the transpose of an (N x K) tile in shared memory
        a_km = transposed_home(em, a)    # A as the transpose of a (K x M) tile in shared memory
        # an operand that transposes a register tile not yet moved: that tile is staged as it
        # is, and read as the transposed operand from there
        a_src, b_src = a.transpose_of, b.transpose_of
        a_regs = None if a_km is not None or a_src is not None else _register_a(em, a, layout)
        need = ([] if a_regs is not None or a_km is not None else [a_src or a]) + \
            ([] if b_nk is not None else [b_src or b])
        staged = dict(zip(map(id, need), _stage(em, need, swizzled_ok=True)))
        if a_src is not None:
            a_km = staged[id(a_src)]
        if b_src is not None:
            b_nk = staged[id(b_src)]
    acc = _mma_acc_regs(em, c, layout)
    row, col = em.bases(layout)           # this lane's first accumulator element
    # the warp's first row and column: the lane parts of the bases are below 8
    wrow, wcol, lane = kb.reg(B32), kb.reg(B32), kb.reg(B32)
    kb.emit(f"and.b32 \t{wrow}, {row}, -8")
    kb.emit(f"and.b32 \t{wcol}, {col}, -8")
    kb.emit(f"and.b32 \t{lane}, {em.group.tid}, 31")
    # ldmatrix row addresses: A lane l -> row (l & 15), k 8 * (l >> 4); B lane l -> k (l & 15),
    # column 8 * (l >> 4)
    lo, hi = kb.reg(B32), kb.reg(B32)
    kb.emit(f"and.b32 \t{lo}, {lane}, 15")
    kb.emit(f"shr.u32 \t{hi}, {lane}, 4")
    kb.emit(f"shl.b32 \t{hi}, {hi}, 3")
    a_rows = None
    if a_km is not None:
        # ldmatrix.trans on the K x M rows: lane l reads row k = (l & 7) + 8 (l >> 4) at
        # m = wrow + 8 ((l >> 3) & 1); transposed, the four matrices are a0 a1 .. a6 a7
        rk, cm = kb.reg(B32), kb.reg(B32)
        kb.emit(f"and.b32 \t{rk}, {lane}, 7")
        kb.emit(f"add.u32 \t{rk}, {rk}, {hi}")
        kb.emit(f"shr.u32 \t{cm}, {lane}, 3")
        kb.emit(f"and.b32 \t{cm}, {cm}, 1")
        kb.emit(f"shl.b32 \t{cm}, {cm}, 3")
        kb.emit(f"add.u32 \t{cm}, {cm}, {wrow}")
        kb.emit(f"shl.b32 \t{cm}, {cm}, 1")
        a_rows = _RowReader(em, a_km, 2 * M, rk, cm)
    elif a_regs is None:
        ca, ra = kb.reg(B32), kb.reg(B32)   # this lane's A row and byte column
        kb.emit(f"add.u32 \t{ra}, {wrow}, {lo}")
        kb.emit(f"shl.b32 \t{ca}, {hi}, 1")
        a_rows = _RowReader(em, staged[id(a)], pitch_a, ra, ca)
    if b_nk is None:
        cb = kb.reg(B32)
        kb.emit(f"add.u32 \t{cb}, {wcol}, {hi}")
        kb.emit(f"shl.b32 \t{cb}, {cb}, 1")
        b_rows = _RowReader(em, staged[id(b)], 2 * N, lo, cb)
    else:
        # ldmatrix without .trans on the N x K rows: lane l reads row n = wcol + (l & 7) + 8 (l >> 4)
        # at k = 8 ((l >> 3) & 1); the four matrices are (b0 b1, b2 b3) of two 8-column tiles
        rn, ck = kb.reg(B32), kb.reg(B32)
        kb.emit(f"and.b32 \t{rn}, {lane}, 7")
        kb.emit(f"add.u32 \t{rn}, {rn}, {hi}")
        kb.emit(f"add.u32 \t{rn}, {rn}, {wcol}")
        kb.emit(f"shr.u32 \t{ck}, {lane}, 3")
        kb.emit(f"and.b32 \t{ck}, {ck}, 1")
        kb.emit(f"shl.b32 \t{ck}, {ck}, 4")
        b_rows = _RowReader(em, b_nk, pitch_b, rn, ck)

    def k_step(step):
        """The MMAs of one 32-byte K step; `step` None: the loop's current one
        (read at the readers' positions), else the unrolled step's number."""
        if a_regs is None:
            afr = []
            for i in range(layout.tiles_m):
                regs = [kb.reg(B32) for _ in range(4)]
                trans, where = (".trans", a_rows.address(32 * i, 0)) if a_km is not None else \
                    ("", a_rows.address(0, i * 16))
                kb.emit(f"ldmatrix.sync.aligned.m8n8.x4{trans}.shared.b16 \t{{{', '.join(regs)}}}, {where}")
                afr.append(regs)
        else:
            afr = [a_regs[i][step] for i in range(layout.tiles_m)]
        s16 = step or 0
        # B fragments two column tiles at a time (all their MMAs issued before the
        # next pair is loaded): 4 live registers instead of 2 * tiles_n
        for j in range(0, layout.tiles_n, 2):
            pair = min(2, layout.tiles_n - j)
            regs = [kb.reg(B32) for _ in range(2 * pair)]
            if b_nk is None:
                kb.emit(f"ldmatrix.sync.aligned.m8n8.x{2 * pair}.trans.shared.b16 \t{{{', '.join(regs)}}}, "
                        f"{b_rows.address(16 * j, 16 * s16)}")
            else:
                kb.emit(f"ldmatrix.sync.aligned.m8n8.x{2 * pair}.shared.b16 \t{{{', '.join(regs)}}}, "
                        f"{b_rows.address(32 * s16, 8 * j)}")
            for jj in range(pair):
                for i in range(layout.tiles_m):
                    t = i * layout.tiles_n + j + jj
                    dl = ", ".join(acc[t * 4:t * 4 + 4])
                    kb.emit(f"mma.sync.aligned.{shape_types} \t{{{dl}}}, "
                            f"{{{', '.join(afr[i])}}}, {{{', '.join(regs[2 * jj:2 * jj + 2])}}}, {{{dl}}}")

    if a_regs is not None:
        for step in range(K // 16):
            k_step(step)
    else:
        k, head = _k_loop_head(kb, "mma_k")
        k_step(None)
        if a_km is not None:
            a_rows.advance_rows(16)
        else:
            a_rows.advance_columns(32)
        if b_nk is None:
            b_rows.advance_rows(16)
        else:
            b_rows.advance_columns(32)
        _k_loop_tail(kb, k, 32 // eb, K, head)
    return _mma_result(em, rt, (M, N), layout, acc)


def _mma_acc_regs(em, c, layout):
    """The MMA's accumulator registers, from `c` (already in `layout`): f32 for
    float accumulators, the 32-bit integers as they are; the registers of the
    loop-carried tile the dot's result becomes, when that is safe (carried)."""
    from .carried import destination
    kb = em.kb
    dest = destination(em, em.op)
    if dest is not None and dest.layout == layout and dest.etype == c.etype \
            and (float_name(c.etype) == "f32" or (not float_name(c.etype) and bits(c.etype) == 32)):
        own = [c.reg] if c.splat else list(c.regs)
        if own == list(dest.regs) or not set(own) & set(dest.regs):
            em.copy_into(dest, c)
            return list(dest.regs)
    out = []
    for s in range(layout.nslots):
        if float_name(c.etype):
            r = kb.reg(F32)
            kb.emit(f"mov.f32 \t{r}, {to_f32(em, c.at(s), c.etype)}")
        else:
            r = kb.reg(B32)
            kb.emit(f"mov.b32 \t{r}, {c.at(s)}")
        out.append(r)
    return out


def _mma_result(em, rt, shape, layout, acc):
    """The dot's result tile of element type `rt` from the MMA's accumulator
    registers (those registers themselves for an f32 or 32-bit integer result)."""
    from .numeric import from_f32
    if float_name(rt) == "f32" or (not float_name(rt) and bits(rt) == 32):
        return Tile(rt, shape, layout, list(acc))
    out = em.new_tile(rt, shape, layout)
    for r, s in zip(out.regs, acc):
        if float_name(rt):
            from_f32(em, r, s, rt)
        else:
            em.kb.emit(f"mov.b32 \t{r}, {s}")
    return out


# row padding (elements) of the tf32 operand copies: A's fragment rows g at pitch K + 4 and
# B's rows tig at pitch N + 8 fall in 32 distinct banks
TF32_PAD_A, TF32_PAD_B = 4, 8


def _mma_dot_tf32(em, a, b, c, layout, rt):
    """Tensor cores for tf32: mma.sync m16n8k8 (f32 accumulate). A and B are
    copied row-major into shared memory with padded rows (TF32_PAD_A/B), and
    each lane loads its fragment elements as 32-bit words: A's rows g, g + 8 at
    columns tig, tig + 4; B's rows tig, tig + 4 at column g (g = lane / 4,
    tig = lane % 4; PTX ISA, "Matrix Fragments for mma.m16n8k8"). tf32 values
    are f32 bit patterns with the low mantissa bits zero (`cvt.rna.tf32.f32`).
    The accumulator is the m16n8k16 one (MmaAcc). Where the kernel's shared
    memory is short (em.scratch_limit), K blocks are copied one at a time,
    unpadded (_k_chunk, as the CUDA-core dot)."""
    kb = em.kb
    M, K = a.shape
    N = b.shape[1]
    c = em.in_layout(c, layout)
    chunk = _k_chunk(em, a, b, pad=(TF32_PAD_A, TF32_PAD_B))
    if chunk % 8:
        chunk = 8
    acc = _mma_acc_regs(em, c, layout)
    row, col = em.bases(layout)           # (warp row + g, warp column + 2 tig)
    g, tig = _lane_parts(em)
    for k0 in range(0, K, chunk):
        if chunk == K:
            pa, pb = K + TF32_PAD_A, N + TF32_PAD_B
            size_a = (M * pa * 4 + 15) // 16 * 16
            a_addr = em.addr_of(em.scratch(size_a + K * pb * 4))
            b_addr = kb.reg(B32)
            kb.emit(f"add.u32 \t{b_addr}, {a_addr}, {size_a}")
            em.align_of[b_addr] = 16
            em.sync()
            em.store_shared(em.regs_of(a), a_addr, (pa, 1))
            em.store_shared(em.regs_of(b), b_addr, (pb, 1))
            em.sync()
        else:
            pa, pb = chunk, N
            a_addr, b_addr = _stage_k_block(em, a, b, k0, chunk)
        _tf32_k_loop(em, layout, acc, row, col, g, tig, a_addr, b_addr, pa, pb, chunk)
    return _mma_result(em, rt, (M, N), layout, acc)


I8_PAD = 16     # bytes of row padding of the int8 copies: fragment words of rows g in 32 banks


def _int8(t) -> bool:
    """An 8-bit integer tile (i8, whichever signedness the op gives it)."""
    return not float_name(t.etype) and getattr(t.etype, "width", None) == 8


FP8_MMA = {"f8E4M3FN": "e4m3", "f8E5M2": "e5m2"}


def _bytes(t) -> bool:
    """An 8-bit tile an m16n8k32 mma.sync takes: integers or fp8."""
    return _int8(t) or float_name(t.etype) in FP8_MMA


def _byte_homes(em, a, b):
    """(A's, B's) shared addresses where an 8-bit dot reads them in place, K
    contiguous, else None: A an M x K tile there, B the transpose of an N x K
    one. Read as rows of byte pairs such tiles are what the 16-bit path's
    ldmatrix reads (A with .x4, B's N x K rows without .trans): a 32-byte K
    step is m16n8k16's 16 halves and m16n8k32's 32 bytes, and the fragments
    match word for word (PTX ISA, the m16n8k16 and m16n8k32 fragment figures:
    A words at rows g, g + 8 and byte columns 4 tig, 16 + 4 tig, the same for
    every 8-bit type; B words at column g)."""
    a_home = a.home if a.home is not None and a.view is None and a.transpose_of is None else None
    b_home = transposed_home(em, b) if b.transpose_of is None else None
    return a_home, b_home


def _byte_copies(em, a, b):
    """(A's home, B's home, bytes of A's copy, bytes of B's copy): _byte_homes,
    and the padded copies (rows of K + I8_PAD bytes) of the operands without one."""
    M, K = a.shape
    a_home, b_home = _byte_homes(em, a, b)
    size_a = 0 if a_home is not None else (M * (K + I8_PAD) + 15) // 16 * 16
    size_b = 0 if b_home is not None else b.shape[1] * (K + I8_PAD)
    return a_home, b_home, size_a, size_b


def _stage_bytes(em, a, b):
    """(A's address, its row pitch, B's N x K address, its row pitch) for an
    8-bit dot: operands read in place where _byte_homes allows (a pipeline
    slot, a load's buffer: no copy, barrier or scratch), the others copied into
    one scratch with rows padded by I8_PAD (the eight rows an ldmatrix phase
    reads fall in distinct banks), A row-major, B transposed (a K x N B has its
    K values a row apart, which ldmatrix cannot pair)."""
    kb = em.kb
    K = a.shape[1]
    a_home, b_home, size_a, size_b = _byte_copies(em, a, b)
    out = [a_home, K, b_home, K]
    p = K + I8_PAD
    if size_a or size_b:
        base = em.addr_of(em.scratch(size_a + size_b))
        em.sync()
        if a_home is None:
            em.store_shared(em.regs_of(a), base, (p, 1))
            out[:2] = base, p
        if b_home is None:
            b_addr = kb.reg(B32)
            kb.emit(f"add.u32 \t{b_addr}, {base}, {size_a}")
            em.align_of[b_addr] = 16
            em.store_shared(em.regs_of(b), b_addr, (1, p))        # B[k, n] at n * p + k
            out[2:] = b_addr, p
        em.sync()
    return tuple(out)


def _byte_mma_types(em, op, a, b) -> str:
    """The type part of an m16n8k32 mma.sync: s32.{s8|u8}.{s8|u8}.s32 from the
    op's signedness, or f32.{e4m3|e5m2}.{..}.f32 (sm_120a: .kind::f8f6f4)."""
    if _int8(a):
        ta = "s8" if _signed(op, "signedness_a") else "u8"
        tb = "s8" if _signed(op, "signedness_b") else "u8"
        return f"s32.{ta}.{tb}.s32"
    kind = "kind::f8f6f4." if em.target.sm >= 120 else ""
    return f"{kind}f32.{FP8_MMA[float_name(a.etype)]}.{FP8_MMA[float_name(b.etype)]}.f32"


def _tf32_k_loop(em, layout, acc, row, col, g, tig, a_addr, b_addr, pa, pb, k_len):
    """The m16n8k8 MMAs over `k_len` columns of A at `a_addr` (row pitch `pa`
    words) and rows of B at `b_addr` (pitch `pb`), into `acc`."""
    kb = em.kb
    # this lane's A word: row (warp row + g) at column tig; B word: row tig at column warp column + g
    pa_r, pb_r, t = kb.reg(B32), kb.reg(B32), kb.reg(B32)
    kb.emit(f"mad.lo.u32 \t{t}, {row}, {pa}, {tig}")
    kb.emit(f"mad.lo.u32 \t{pa_r}, {t}, 4, {a_addr}")
    kb.emit(f"shl.b32 \t{t}, {tig}, 1")
    kb.emit(f"sub.u32 \t{t}, {col}, {t}")
    kb.emit(f"add.u32 \t{t}, {t}, {g}")
    kb.emit(f"mad.lo.u32 \t{t}, {tig}, {pb}, {t}")
    kb.emit(f"mad.lo.u32 \t{pb_r}, {t}, 4, {b_addr}")
    _word_mma_loop(kb, layout, acc, pa_r, pb_r, lambda i, dr, dk: ((16 * i + dr) * pa + 4 * dk) * 4,
                   lambda j, e: (4 * e * pb + 8 * j) * 4, "m16n8k8.row.col.f32.tf32.tf32.f32", 8 * pb * 4, 8, k_len)


def _lane_parts(em):
    """(g, tig) = (lane / 4, lane % 4): the MMA fragments' group and thread in group."""
    kb = em.kb
    lane, g, tig = kb.reg(B32), kb.reg(B32), kb.reg(B32)
    kb.emit(f"and.b32 \t{lane}, {em.group.tid}, 31")
    kb.emit(f"shr.u32 \t{g}, {lane}, 2")
    kb.emit(f"and.b32 \t{tig}, {lane}, 3")
    return g, tig


def _word_mma_loop(kb, layout, acc, pa_r, pb_r, a_off, b_off, shape_types: str, b_step: int, k_step: int,
                   k_len):
    """The K loop of an MMA whose fragments are whole 32-bit words (tf32, 8-bit):
    per step, A words at pa_r + a_off(i, dr, dk) for row tile i, rows + 0/8 and
    the K half dk (0 or 1), B words at pb_r + b_off(j, e); `mma.sync.aligned.
    <shape_types>` per (i, j); A advances 32 bytes and B `b_step` a step."""
    k, head = _k_loop_head(kb, "mma_k")
    afr = []
    for i in range(layout.tiles_m):
        regs = [kb.reg(B32) for _ in range(4)]
        for e, (dr, dk) in enumerate(((0, 0), (8, 0), (0, 1), (8, 1))):
            kb.emit(f"ld.shared.b32 \t{regs[e]}, [{pa_r}+{a_off(i, dr, dk)}]")
        afr.append(regs)
    for j in range(layout.tiles_n):
        bfr = [kb.reg(B32) for _ in range(2)]
        for e in range(2):
            kb.emit(f"ld.shared.b32 \t{bfr[e]}, [{pb_r}+{b_off(j, e)}]")
        for i in range(layout.tiles_m):
            tt = i * layout.tiles_n + j
            dl = ", ".join(acc[tt * 4:tt * 4 + 4])
            kb.emit(f"mma.sync.aligned.{shape_types} \t{{{dl}}}, "
                    f"{{{', '.join(afr[i])}}}, {{{', '.join(bfr)}}}, {{{dl}}}")
    kb.emit(f"add.u32 \t{pa_r}, {pa_r}, 32")
    kb.emit(f"add.u32 \t{pb_r}, {pb_r}, {b_step}")
    _k_loop_tail(kb, k, k_step, k_len, head)


# registers per thread that the accumulator and a register A (f16 pairs) may take
# together; past it A is staged, so that its registers die before the dot
# (a 256x128 f32 accumulator over 8 warps is 128 registers already)
REGISTER_A_BUDGET = 128


def _register_a(em, a, layout):
    """A's mma.sync fragments from registers, [row tile][K step] -> four .b32,
    when A is a register tile and the dot's warps split the rows only, else
    None. The m16n8k16 A fragment of rows 16 i.., columns 16 s.. holds the
    elements the f32 accumulator of an M x K product (same warps) keeps in its
    8-column tiles 2 s and 2 s + 1, in the same order: a tile in that layout
    (attention's P, from the first dot) moves nothing; another is converted.
    Within REGISTER_A_BUDGET only."""
    if not isinstance(layout, MmaAcc) or layout.wn != 1 or a.home is not None or a.view is not None \
            or a.splat or a.layout is None:
        return None
    M, K = a.shape
    if layout.nslots + M * K // layout.threads // 2 > REGISTER_A_BUDGET:
        return None
    frag = MmaAcc((M, K), layout.threads, layout.wm, 1)
    return pack_a_fragments(em, em.in_layout(em.regs_of(a), frag), frag.tiles_m, K)


def pack_a_fragments(em, t, tiles: int, K: int):
    """[row tile][K step] -> four .b32 registers, each two 16-bit elements of `t`,
    a tile in the f32 accumulator layout of an M x K product (MmaAcc with the warps
    along rows, or WgmmaAcc) whose `tiles` row tiles hold K / 2 slots each: the A
    fragment of K step s is slots 8 s .. 8 s + 7 of its row tile, in order, for
    mma.sync's m16n8k16 and wgmma's m64nNk16 alike (PTX ISA, the A fragment
    figures)."""
    kb = em.kb
    out = []
    for i in range(tiles):
        steps = []
        for s in range(K // 16):
            regs = []
            for j in range(4):
                slot = i * (K // 2) + 8 * s + 2 * j
                r = kb.reg(B32)
                kb.emit(f"mov.b32 \t{r}, {{{t.at(slot)}, {t.at(slot + 1)}}}")
                regs.append(r)
            steps.append(regs)
        out.append(steps)
    return out


class _RowReader:
    """ldmatrix addresses into a row-major shared tile of `pitch`-byte rows at
    `base`, plain or swizzled (em.swizzle_of): each lane reads its own row `row`
    from byte column `col` on. Rows move in multiples of 16, which keeps a
    row's swizzle term; columns stay within the row."""

    def __init__(self, em, base, pitch, row, col):
        kb = em.kb
        self.kb = kb
        self.swz = em.swizzle_of.get(base)
        self.pitch = pitch if self.swz is None else self.swz.row_bytes
        self.ptr = kb.reg(B32)
        kb.emit(f"mad.lo.u32 \t{self.ptr}, {row}, {self.pitch}, {base}")
        if self.swz is None:
            kb.emit(f"add.u32 \t{self.ptr}, {self.ptr}, {col}")   # row and column in one pointer
            self.col = None
        else:
            self.term = self.swz.row_term(kb, row)
            self.col = kb.reg(B32)
            kb.emit(f"mov.b32 \t{self.col}, {col}")
        self.made = {}       # col_off -> its address register, until the next move

    def address(self, col_off, rows):
        """[..] of this lane's element `col_off` bytes right and `rows` rows down."""
        imm = rows * self.pitch
        if self.col is None:
            imm += col_off
            return f"[{self.ptr}{f'+{imm}' if imm else ''}]"
        a = self.made.get(col_off)
        if a is None:
            c = self.kb.reg(B32)
            self.kb.emit(f"add.u32 \t{c}, {self.col}, {col_off}")
            a = self.made[col_off] = self.swz.column(self.kb, c, self.term)
            self.kb.emit(f"add.u32 \t{a}, {a}, {self.ptr}")
        return f"[{a}{f'+{imm}' if imm else ''}]"

    def advance_columns(self, nbytes):
        self.made = {}
        target = self.ptr if self.col is None else self.col
        self.kb.emit(f"add.u32 \t{target}, {target}, {nbytes}")

    def advance_rows(self, rows):
        self.made = {}
        self.kb.emit(f"add.u32 \t{self.ptr}, {self.ptr}, {rows * self.pitch}")
