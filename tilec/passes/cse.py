"""Common-subexpression elimination of side-effect-free ops without regions,
scoped by block nesting (a value defined in an outer block is visible inside)."""
from __future__ import annotations

from ..ir.traits import IsolatedFromAbove
from ..rewrite.effects import is_side_effect_free
from .base import Pass, target_blocks


def _key(op):
    try:
        attrs = tuple(sorted(op.attributes.items(), key=lambda kv: kv[0]))
        hash(attrs)
    except TypeError:
        return None
    return (op.name, tuple(id(v) for v in op.operands), tuple(op.result_types), attrs)


class CSE(Pass):
    name = "cse"
    argument = "CSE"

    def run(self, target) -> bool:
        scopes: list[dict] = []
        # iterative walk with explicit scope push/pop per block
        stack = [("block", (b, True)) for b in reversed(target_blocks(target))]
        while stack:
            kind, item = stack.pop()
            if kind == "pop":
                scopes.pop()
                continue
            item, isolated = item
            scopes.append(({}, isolated))
            stack.append(("pop", None))
            nested = []
            for op in list(item.ops):
                if not op.regions and op.results and is_side_effect_free(op):
                    k = _key(op)
                    if k is not None:
                        found = None
                        for s, barrier in reversed(scopes):
                            found = s.get(k)
                            if found is not None or barrier:
                                break
                        if found is not None:
                            op.replace_all_uses_with(found.results)
                            op.erase()
                            continue
                        scopes[-1][0][k] = op
                iso = op.has_trait(IsolatedFromAbove)
                for r in op.regions:
                    for b in r.blocks:
                        nested.append((b, iso))
            for b in reversed(nested):
                stack.append(("block", b))
        return True
