"""The SSA core: values with use-lists, operations, blocks and regions.

Blocks keep their operations in an intrusive doubly-linked list and values keep
their uses in insertion-ordered dicts, so insert, erase and replace-all-uses are
O(1) per step.
"""
from __future__ import annotations

from typing import Iterator

from .location import UNKNOWN, Location
from .types import Type

_new = object.__new__


class Use:
    __slots__ = ("value", "owner", "index")

    def __init__(self, value: "Value", owner: "Operation", index: int):
        self.value, self.owner, self.index = value, owner, index

    def set(self, value: "Value"):
        del self.value._uses[self]
        self.value = value
        value._uses[self] = None


class Value:
    __slots__ = ("type", "_uses", "name_hint")

    def __init__(self, type: Type):
        self.type = type
        self._uses: dict[Use, None] = {}
        self.name_hint: str | None = None

    @property
    def uses(self) -> list[Use]:
        return list(self._uses)

    @property
    def has_uses(self) -> bool:
        return bool(self._uses)

    @property
    def users(self) -> list["Operation"]:
        return [u.owner for u in self._uses]

    def replace_all_uses_with(self, other: "Value"):
        for use in list(self._uses):
            use.set(other)

    def owner_block(self) -> "Block | None":
        raise NotImplementedError


class OpResult(Value):
    __slots__ = ("op", "index")

    def __init__(self, type: Type, op: "Operation", index: int):
        self.type, self._uses, self.name_hint = type, {}, None  # Value.__init__, inlined
        self.op, self.index = op, index

    def owner_block(self):
        return self.op.parent

    def __repr__(self):
        return f"<result #{self.index} of {self.op.name}>"


class BlockArgument(Value):
    __slots__ = ("block", "index", "location")

    def __init__(self, type: Type, block: "Block", index: int, location: Location = UNKNOWN):
        self.type, self._uses, self.name_hint = type, {}, None  # Value.__init__, inlined
        self.block, self.index, self.location = block, index, location

    def owner_block(self):
        return self.block

    def __repr__(self):
        return f"<block argument #{self.index}: {self.type}>"


class Operation:
    """A generic operation. Registered ops subclass it (see opdef.Op); an
    unregistered op is a plain Operation carrying its name."""

    name = "builtin.unregistered"
    traits: tuple = ()

    def __init__(self, operands=(), result_types=(), attributes=None, regions=0,
                 location: Location = UNKNOWN, successors=(), name: str | None = None):
        if name is not None:
            self.name = name
        self._operands: list[Use] = []
        self.results = [OpResult(t, self, i) for i, t in enumerate(result_types)]
        self.attributes: dict = dict(attributes) if attributes else {}
        self.location = location
        self.parent: Block | None = None
        self.prev_op: Operation | None = None
        self.next_op: Operation | None = None
        self.successors: list[Block] = list(successors)
        if isinstance(regions, int):
            regions = [Region() for _ in range(regions)]
        self.regions: list[Region] = []
        for r in regions:
            self.add_region(r)
        self.set_operands(operands)

    @classmethod
    def from_parts(cls, operands, result_types, attributes: dict, regions: list,
                   location: Location = UNKNOWN) -> "Operation":
        """The op `cls(operands, result_types, attributes, regions, location)`
        builds, made faster for readers that build many ops from checked
        parts: `attributes` and `regions` (Regions in no op) are taken over,
        not copied. Falls back to the constructor when `cls` has its own."""
        if cls.__init__ is not _operation_init:
            return cls(operands, result_types, attributes, regions, location)
        op = _new(cls)
        op._operands = uses = []
        i = 0
        for v in operands:
            u = _new(Use)
            u.value, u.owner, u.index = v, op, i
            v._uses[u] = None
            uses.append(u)
            i += 1
        op.results = results = []
        i = 0
        for t in result_types:
            res = _new(OpResult)
            res.type, res._uses, res.name_hint, res.op, res.index = t, {}, None, op, i
            results.append(res)
            i += 1
        op.attributes = attributes
        op.location = location
        op.parent = op.prev_op = op.next_op = None
        op.successors = []
        op.regions = regions
        for r in regions:
            r.parent = op
        return op

    @classmethod
    def builder(cls, n_operands: int, n_results: int):
        """`from_parts` for ops of this class with exactly `n_operands`
        operands and `n_results` results, its loops unrolled: a function
        (operand..., result type..., attributes, regions, location) -> op."""
        if cls.__init__ is not _operation_init:
            def build(*args):
                return cls(list(args[:n_operands]), list(args[n_operands:-3]), *args[-3:])
            return build
        make = _BUILDERS.get((n_operands, n_results))
        if make is None:
            make = _BUILDERS[n_operands, n_results] = _compile_builder(n_operands, n_results)
        return make(cls)

    # -- operands ---------------------------------------------------------
    @property
    def operands(self) -> list[Value]:
        return [u.value for u in self._operands]

    def operand(self, i: int) -> Value:
        return self._operands[i].value

    def set_operands(self, values):
        for u in self._operands:
            del u.value._uses[u]
        self._operands = []
        for i, v in enumerate(values):
            u = Use(v, self, i)
            v._uses[u] = None
            self._operands.append(u)

    def set_operand(self, i: int, value: Value):
        self._operands[i].set(value)

    def drop_all_references(self):
        for u in self._operands:
            del u.value._uses[u]
        self._operands = []
        for r in self.regions:
            for b in r.blocks:
                for op in b.ops:
                    op.drop_all_references()

    # -- results ----------------------------------------------------------
    @property
    def result(self) -> OpResult:
        assert len(self.results) == 1, f"{self.name} has {len(self.results)} results"
        return self.results[0]

    @property
    def result_types(self) -> list[Type]:
        return [r.type for r in self.results]

    def replace_all_uses_with(self, values):
        for old, new in zip(self.results, values):
            old.replace_all_uses_with(new)

    # -- regions ----------------------------------------------------------
    def add_region(self, region: "Region") -> "Region":
        region.parent = self
        self.regions.append(region)
        return region

    # -- position ---------------------------------------------------------
    @property
    def parent_op(self) -> "Operation | None":
        return self.parent.parent.parent if self.parent and self.parent.parent else None

    def ancestors(self) -> Iterator["Operation"]:
        op = self.parent_op
        while op is not None:
            yield op
            op = op.parent_op

    def erase(self):
        """Unlink and drop operand uses. The caller ensures the results are unused."""
        if self.parent is not None:
            self.parent.remove(self)
        self.drop_all_references()

    def walk(self) -> Iterator["Operation"]:
        """Pre-order walk of this op and everything nested in it."""
        stack = [self]
        while stack:
            op = stack.pop()
            yield op
            for r in reversed(op.regions):
                for b in reversed(r.blocks):
                    stack.extend(b.ops_reversed())

    def has_trait(self, trait) -> bool:
        return trait in type(self).traits_all

    traits_all: frozenset = frozenset()

    @property
    def dialect(self) -> str:
        return self.name.split(".", 1)[0]

    def __repr__(self):
        return f"<{self.name} at {self.location.describe()}>"


_operation_init = Operation.__init__
_BUILDERS: dict = {}  # (operand count, result count) -> make(cls) -> build function


def _compile_builder(n_operands: int, n_results: int):
    """The source of Operation.builder's functions: from_parts, unrolled."""
    os = [f"o{i}" for i in range(n_operands)]
    ts = [f"t{i}" for i in range(n_results)]
    src = ["def make(cls):",
           f"    def build({', '.join(os + ts + ['attributes', 'regions', 'location'])}):",
           "        op = _new(cls)"]
    for i in range(n_operands):
        src += [f"        u{i} = _new(Use)",
                f"        u{i}.value, u{i}.owner, u{i}.index = o{i}, op, {i}",
                f"        o{i}._uses[u{i}] = None"]
    src.append(f"        op._operands = [{', '.join(f'u{i}' for i in range(n_operands))}]")
    for i in range(n_results):
        src += [f"        r{i} = _new(OpResult)",
                f"        r{i}.type, r{i}._uses, r{i}.name_hint, r{i}.op, r{i}.index = t{i}, {{}}, None, op, {i}"]
    src += [f"        op.results = [{', '.join(f'r{i}' for i in range(n_results))}]",
            "        op.attributes = attributes",
            "        op.location = location",
            "        op.parent = op.prev_op = op.next_op = None",
            "        op.successors = []",
            "        op.regions = regions",
            "        for r in regions:",
            "            r.parent = op",
            "        return op",
            "    return build"]
    namespace = {"_new": _new, "Use": Use, "OpResult": OpResult}
    exec(compile("\n".join(src), f"<Operation.builder({n_operands}, {n_results})>", "exec"), namespace)
    return namespace["make"]


class Block:
    __slots__ = ("arguments", "parent", "first_op", "last_op", "_len", "label_hint")

    def __init__(self, arg_types=(), arg_locations=None):
        self.parent: Region | None = None
        self.first_op: Operation | None = None
        self.last_op: Operation | None = None
        self._len = 0
        self.label_hint = None
        locs = arg_locations or [UNKNOWN] * len(arg_types)
        self.arguments = args = []
        for i, (t, loc) in enumerate(zip(arg_types, locs)):  # BlockArgument(t, self, i, loc), inlined
            a = _new(BlockArgument)
            a.type, a._uses, a.name_hint, a.block, a.index, a.location = t, {}, None, self, i, loc
            args.append(a)

    def add_argument(self, type: Type, location: Location = UNKNOWN) -> BlockArgument:
        arg = BlockArgument(type, self, len(self.arguments), location)
        self.arguments.append(arg)
        return arg

    @property
    def ops(self) -> Iterator[Operation]:
        op = self.first_op
        while op is not None:
            nxt = op.next_op
            yield op
            op = nxt

    def ops_reversed(self) -> list[Operation]:
        out, op = [], self.last_op
        while op is not None:
            out.append(op)
            op = op.prev_op
        return out

    def __len__(self):
        return self._len

    @property
    def terminator(self) -> Operation | None:
        return self.last_op

    def append(self, op: Operation) -> Operation:
        return self.insert_before(op, None)

    def insert_before(self, op: Operation, anchor: Operation | None) -> Operation:
        """Insert `op` before `anchor` (at the end when anchor is None)."""
        assert op.parent is None, "operation already in a block"
        op.parent = self
        if anchor is None:
            op.prev_op, op.next_op = self.last_op, None
            if self.last_op is not None:
                self.last_op.next_op = op
            else:
                self.first_op = op
            self.last_op = op
        else:
            op.prev_op, op.next_op = anchor.prev_op, anchor
            if anchor.prev_op is not None:
                anchor.prev_op.next_op = op
            else:
                self.first_op = op
            anchor.prev_op = op
        self._len += 1
        return op

    def append_all(self, ops):
        """Append `ops` (each in no block) in order; `append` for many at once."""
        last = self.last_op
        n = 0
        for op in ops:
            assert op.parent is None, "operation already in a block"
            op.parent, op.prev_op = self, last
            if last is None:
                self.first_op = op
            else:
                last.next_op = op
            last = op
            n += 1
        self.last_op = last
        self._len += n

    def insert_after(self, op: Operation, anchor: Operation) -> Operation:
        return self.insert_before(op, anchor.next_op)

    def remove(self, op: Operation):
        assert op.parent is self
        if op.prev_op is not None:
            op.prev_op.next_op = op.next_op
        else:
            self.first_op = op.next_op
        if op.next_op is not None:
            op.next_op.prev_op = op.prev_op
        else:
            self.last_op = op.prev_op
        op.parent = op.prev_op = op.next_op = None
        self._len -= 1

    @property
    def parent_op(self) -> Operation | None:
        return self.parent.parent if self.parent else None


class Region:
    __slots__ = ("blocks", "parent")

    def __init__(self, blocks=()):
        self.parent: Operation | None = None
        self.blocks: list[Block] = []
        for b in blocks:
            self.add_block(b)

    def add_block(self, block: Block) -> Block:
        block.parent = self
        self.blocks.append(block)
        return block

    @property
    def entry(self) -> Block | None:
        return self.blocks[0] if self.blocks else None

    @property
    def empty(self) -> bool:
        return not self.blocks
