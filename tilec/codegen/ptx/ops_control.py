"""Structured control flow: cuda_tile for/loop/if with continue/break/yield,
scf.for/if/while with scf.yield/condition, return. Conditions and bounds are
scalars, uniform over the group, so branches never diverge inside a warp and
barriers inside loops are reached by every thread.

Values that flow around a loop or out of an if live in registers created by
the control op; terminators move into them (through temporaries, so swaps are
safe). scf.while's condition hands its values to the after region and to the
results without copies: they are read before anything redefines them."""
from __future__ import annotations

from .emitter import handles
from .ptxtypes import PRED, bits, reg_class
from .values import Tile


class Frame:
    def __init__(self, op, slots, continue_label=None, exit_label=None, results=None):
        self.op, self.slots, self.continue_label, self.exit_label = op, slots, continue_label, exit_label
        self.results = results
        self.after = []       # emitted after the loop ends (ops_for)
        self.preheader = None  # loops: code run once before the head (emitter.hoist_point)
        self.group = None      # loops: the thread group that runs it
        self.hoisted = {}      # key -> register computed in the preheader


def enter_loop(em, frame):
    """Push loop `frame` and open its preheader section at the current point."""
    frame.preheader, frame.group = em.kb.section(), em.group
    em.loops.append(frame)


def carry_slot(em, x, value=None):
    """New registers able to hold values like `x` (None for tokens), in the
    layout the IR gives `value`, the block argument they back (a loop's
    accumulator: its dot's; a row statistic: the slice its body writes)."""
    if x is None:
        return None
    if isinstance(x, Tile):
        from .ir_layouts import layout_of
        layout = layout_of(em, value, x.shape) if value is not None and x.shape else None
        if layout is None:
            layout = x.layout if not x.splat else (em.layout_for(x.shape) if x.shape else None)
        return em.fresh_copy(x, layout)
    return x.fresh(em)


def assign_all(em, slots, values):
    """Move `values` into `slots` as one parallel copy: straight in, unless a
    slot's registers are read by another value, when they go through
    temporaries first (so swaps are safe)."""
    temps, written, read = [], set(), set()
    for s, v in zip(slots, values):
        if s is None or (isinstance(s, Tile) and isinstance(v, Tile) and v.regs is not None
                         and list(v.regs) == list(s.regs) and v.layout == s.layout):
            temps.append(None)      # already there (an accumulator updated in place)
            continue
        temps.append(v)
        sr, vr = _registers(s), _registers(v)
        if sr is None or vr is None:
            written.add(None)       # registers unknown: through temporaries
        else:
            written.update(sr)
            read.update(vr)
    if written & read or None in written:
        temps = [None if t is None else em.fresh_copy(t, s.layout) if isinstance(s, Tile) else t.fresh(em)
                 for s, t in zip(slots, temps)]
    for s, t in zip(slots, temps):
        if s is None or t is None:
            continue
        if isinstance(s, Tile):
            em.copy_into(s, t)
        else:
            s.assign(em, t)


def _registers(x):
    """The registers a carried value occupies (a tile's, an iterator's stage
    and phase), or None when unknown."""
    if isinstance(x, Tile):
        return list(x.regs) if x.regs is not None else []
    if hasattr(x, "registers"):
        return x.registers()
    return None


def _frame_of(em, op, kinds):
    p = op.parent_op
    while p is not None and p.name not in kinds:
        p = p.parent_op
    for f in reversed(em.loops):
        if f.op is p:
            return f
    em.fail("is not inside the construct it terminates")


def _scalar(em, v) -> str:
    return em.tile(v).reg


def _emit_body(em, block, args, values):
    for a, v in zip(args, values):
        em.bind(a, v)
    em.emit_block(block)


@handles("cuda_tile.for", "scf.for")
def _for(em, op):
    kb = em.kb
    lb, ub, step = (em.get(v) for v in op.operands[:3])
    inits = [em.get(v) for v in op.operands[3:]]
    it_t = op.operands[0].type
    it_t = it_t.element_type if hasattr(it_t, "element_type") else it_t
    cls = reg_class(it_t)
    wide = bits(it_t) == 64
    iv = kb.reg(cls)
    em.mov(iv, lb.reg, it_t)
    body = op.regions[0].blocks[0]
    slots = [carry_slot(em, x, a) for x, a in zip(inits, body.arguments[1:])]
    head, latch, done = kb.label("for_head"), kb.label("for_latch"), kb.label("for_end")
    frame = Frame(op, slots, continue_label=latch, exit_label=done)
    enter_loop(em, frame)
    kb.place(head)
    p = kb.reg(PRED)
    sgn = "u" if "unsignedCmp" in op.attributes else "s"
    kb.emit(f"setp.ge.{sgn}{64 if wide else 32} \t{p}, {iv}, {ub.reg}")
    kb.emit(f"@{p} bra \t{done}")
    body = op.regions[0].blocks[0]
    iv_tile = Tile(it_t, (), None, [iv])
    _emit_body(em, body, body.arguments, [iv_tile] + slots)
    kb.place(latch)
    kb.emit(f"add.s{64 if wide else 32} \t{iv}, {iv}, {step.reg}")
    kb.emit(f"bra.uni \t{head}")
    kb.place(done)
    em.loops.pop()
    for after in frame.after:     # e.g. draining a wgmma kept in flight
        after(em)
    for r, s in zip(op.results, slots):
        em.bind(r, s)


@handles("cuda_tile.loop")
def _loop(em, op):
    kb = em.kb
    inits = [em.get(v) for v in op.operands]
    slots = [carry_slot(em, x, a) for x, a in zip(inits, op.regions[0].blocks[0].arguments)]
    results = [_result_slot(em, r) for r in op.results]
    head, done = kb.label("loop_head"), kb.label("loop_end")
    frame = Frame(op, slots, continue_label=head, exit_label=done, results=results)
    enter_loop(em, frame)
    kb.place(head)
    body = op.regions[0].blocks[0]
    _emit_body(em, body, body.arguments, slots)
    kb.place(done)
    em.loops.pop()
    for r, s in zip(op.results, results):
        em.bind(r, s)


def _result_slot(em, r):
    t = r.type
    if not hasattr(t, "shape") or not hasattr(t, "element_type"):
        return None
    from .ir_layouts import layout_of
    layout = layout_of(em, r, t.shape) if t.shape else None
    return em.new_tile(t.element_type, t.shape, layout or (em.layout_for(t.shape) if t.shape else None))


@handles("cuda_tile.continue")
def _continue(em, op):
    f = _frame_of(em, op, ("cuda_tile.for", "cuda_tile.loop"))
    assign_all(em, f.slots, [em.get(v) for v in op.operands])
    em.kb.emit(f"bra.uni \t{f.continue_label}")


@handles("cuda_tile.break")
def _break(em, op):
    f = _frame_of(em, op, ("cuda_tile.loop",))
    assign_all(em, f.results, [em.get(v) for v in op.operands])
    em.kb.emit(f"bra.uni \t{f.exit_label}")


@handles("scf.yield")
def _scf_yield(em, op):
    parent = op.parent_op
    f = _frame_of(em, op, (parent.name,))
    assign_all(em, f.slots, [em.get(v) for v in op.operands])


@handles("cuda_tile.if", "scf.if")
def _if(em, op):
    kb = em.kb
    cond = _scalar(em, op.operands[0])
    results = [_result_slot(em, r) for r in op.results]
    other, done = kb.label("else"), kb.label("endif")
    frame = Frame(op, results, exit_label=done)
    em.loops.append(frame)
    kb.emit(f"@!{cond} bra \t{other}")
    em.emit_block(op.regions[0].blocks[0])
    kb.emit(f"bra.uni \t{done}")
    kb.place(other)
    if len(op.regions) > 1 and op.regions[1].blocks:
        em.emit_block(op.regions[1].blocks[0])
    kb.place(done)
    em.loops.pop()
    for r, s in zip(op.results, results):
        em.bind(r, s)


@handles("cuda_tile.yield")
def _yield(em, op):
    f = _frame_of(em, op, ("cuda_tile.if",))
    assign_all(em, f.slots, [em.get(v) for v in op.operands])
    em.kb.emit(f"bra.uni \t{f.exit_label}")


@handles("scf.while")
def _while(em, op):
    kb = em.kb
    before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
    inits = [em.get(v) for v in op.operands]
    slots = [carry_slot(em, x, a) for x, a in zip(inits, before.arguments)]
    head, done = kb.label("while_head"), kb.label("while_end")
    frame = Frame(op, slots, continue_label=head, exit_label=done)
    enter_loop(em, frame)
    kb.place(head)
    _emit_body(em, before, before.arguments, slots)
    if frame.results is None:
        em.fail("before region does not end with scf.condition")
    _emit_body(em, after, after.arguments, frame.results)
    kb.emit(f"bra.uni \t{head}")
    kb.place(done)
    em.loops.pop()
    for r, x in zip(op.results, frame.results):
        em.bind(r, x)


@handles("scf.condition")
def _condition(em, op):
    f = _frame_of(em, op, ("scf.while",))
    f.results = [em.get(v) for v in op.operands[1:]]
    em.kb.emit(f"@!{_scalar(em, op.operands[0])} bra \t{f.exit_label}")


@handles("cuda_tile.return")
def _return(em, op):
    em.kb.emit(f"bra.uni \t{em.exit_label}")
