"""The one cp.async emitter: tiled fills (ops_memory) and gathered fills
(vector_gather) both copy through it."""
from __future__ import annotations

from .ptxtypes import B32


def cp_async(em, dst, src, nbytes: int, pred=None, guard=None):
    """One cp.async of `nbytes` (4, 8 or 16) from global `src` to shared `dst`
    (PTX operands); under `pred` False it reads nothing and zero-fills. Only
    threads where `guard` holds issue it (em.owner: one replica of a replicated
    layout copies; the others' copies would be unordered writes of the same bytes)."""
    kb = em.kb
    size = str(nbytes)
    if pred is not None:
        size = kb.reg(B32)
        kb.emit(f"selp.u32 \t{size}, {nbytes}, 0, {pred}")
    cache = "cg" if nbytes == 16 else "ca"     # .cg (L2 only) takes 16-byte copies alone
    at = f"@{guard} " if guard else ""
    kb.emit(f"{at}cp.async.{cache}.shared.global \t{dst}, {src}, {nbytes}, {size}")
