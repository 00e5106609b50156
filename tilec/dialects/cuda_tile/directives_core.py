"""Custom syntax pieces (`custom<...>`) of the core and control-flow ops:
symbol visibility, assume predicates, function bodies and optimization hints,
if/for/loop headers and bodies, and the argument region of reduce/scan.

Directives that print a region write straight to the printer (with the one
leading space MLIR puts before a custom directive) and return None."""
from __future__ import annotations

from ...ir import attributes as A
from ...ir.core import Block
from ...syntax.format import BuildError, Directive, directive, value_ref
from . import attributes_core as AC
from .attributes_core import OptimizationHintsAttr
from . import directives as _base  # noqa: F401  (FunctionSignature & co. register there)

IMPLICIT = "cuda_tile.yield"


def _region_of(op, arg):
    return op.regions[arg.field.index]


def _types(types) -> str:
    return ", ".join(t.text(True) for t in types)


def _names(p, values) -> str:
    return ", ".join(p.value_name(v) for v in values)


class _At:
    """A source position for BuildError."""

    def __init__(self, line, column):
        self.line, self.column = line, column


def _elide_implicit(name):
    """MLIR's printControlFlowRegion: the block terminator is left out when it
    is the implicit kind and carries no operands."""
    def omit(term):
        return term.name == name and not term.operands
    return omit


# ---- global ----------------------------------------------------------------

@directive("SymbolVisibility")
class SymbolVisibility(Directive):
    """Optional `public` / `private`; public is the default and is not printed."""

    def grammar(self, args):
        return "[BARE_ID | STRING]"

    def parse(self, children, args, state):
        from .attributes import SymbolVisibilityAttr
        (tok,) = children
        if tok is None:
            return
        if tok.type != "BARE_ID" or str(tok) not in SymbolVisibilityAttr.values:
            # only `public`/`private` are taken here; anything else stands where the name belongs
            raise BuildError("expected valid '@'-identifier for symbol name", tok)
        state.attrs[args[0].name] = SymbolVisibilityAttr(str(tok))

    def print(self, op, args, p):
        v = op.attributes.get(args[0].name)
        if v is None or v.value == "public":
            return ""
        return f"{v.value} "


# ---- assume ----------------------------------------------------------------

@directive("AssumePredicate")
class AssumePredicateDirective(Directive):
    """`div_by<..>`, `same_elements<..>`, `bounded<..>`, or any attribute
    spelling (`#cuda_tile.div_by<..>`); printed without `#cuda_tile.`."""
    rules = (r'CTC_ASSUME_PRED.4: /(div_by|same_elements|bounded)<[^<>]*>/',
             # other attribute spellings parse, to be rejected with cuda-tile-opt's words
             'ctc_not_pred: (INT | FLOAT | STRING | BARE_ID | HASH_ID) [":" type] | "[" | "{"')

    def grammar(self, args):
        return "DIALECT_ATTR | CTC_ASSUME_PRED | ctc_not_pred"

    def parse(self, children, args, state):
        from ...ir import registry
        from ...syntax.reader import BodyError, Reader
        (tok,) = children
        if isinstance(tok, list):  # ctc_not_pred
            first = tok[0] if tok else None
            if getattr(first, "type", None) == "BARE_ID":
                raise BuildError(f"unknown assume predicate attribute: {first} (expected 'div_by', "
                                 f"'same_elements', or 'bounded')", first)
            raise BuildError("expected assume predicate attribute", first)
        text = str(tok)
        skip = 0
        if text.startswith("#"):
            dialect, _, rest = text[1:].partition(".")
            skip = len(dialect) + 2
            text = rest if dialect == AC.DIALECT else ""
        head = text.split("<", 1)[0]
        cls = registry.ATTRS.get((AC.DIALECT, head))
        if cls is None or not issubclass(cls, AC.AssumePredicate):
            raise BuildError("expected assume predicate attribute", tok)
        if "<" not in text:
            raise BuildError(f"expected '<' after '{head}'", tok)
        try:
            r = Reader(text[len(head) + 1:-1], len(head) + 1)
            value = cls.parse_body(r)
            r.done()
        except BodyError as e:
            raise BuildError(e.message, _At(tok.line, tok.column + skip + e.offset))
        state.attrs[args[0].name] = value

    def print(self, op, args, p):
        return op.attributes[args[0].name].text(True)


# ---- functions: entry and testing$func -------------------------------------

@directive("FuncSignature")
class FuncSignature(Directive):
    """`@name(%a: T {attrs}, ..) [-> T | -> (T {attrs}, ..)]`: the name, the
    function type and the body's arguments of entry-like ops. Arguments:
    sym_name, function_type, body. Argument/result attributes are kept (as
    arg_attrs/res_attrs) but, as in cuda-tile-opt, not printed."""
    rules = ('ctc_fn_arg: VALUE_REF ":" type [attr_dict] [LOC]',
             'ctc_fn_results: "->" (TYPE | TYPE_ALIAS | "(" [ctc_fn_result ("," ctc_fn_result)*] ")")',
             'ctc_fn_result: type [attr_dict]')

    def grammar(self, args):
        return '[BARE_ID | STRING] SYMBOL_REF "(" [ctc_fn_arg ("," ctc_fn_arg)*] ")" [ctc_fn_results]'

    def parse(self, children, args, state):
        from ...ir.types import FunctionType
        from ...syntax.format import _sym
        stray, sym, *rest = children
        if stray is not None:
            raise BuildError("expected valid '@'-identifier for symbol name", stray)
        results = rest.pop()
        fn_args = [a for a in rest if a is not None]
        a_name, a_type, a_body = args
        state.attrs[a_name.name] = A.StringAttr(_sym(sym))
        result_types, result_attrs = [], []
        for r in results or ():
            if r is None:
                continue
            if isinstance(r, list):  # ctc_fn_result: [type, attrs]
                result_types.append(r[0])
                result_attrs.append(r[1] or {})
            else:  # a bare TYPE / TYPE_ALIAS token
                result_types.append(_token_type(r))
                result_attrs.append({})
        state.attrs[a_type.name] = A.TypeAttr(FunctionType(tuple(a[1] for a in fn_args), tuple(result_types)))
        state.region_args[a_body.name] = [(a[0], a[1]) for a in fn_args]
        arg_attrs = [a[2] or {} for a in fn_args]
        if any(arg_attrs):
            state.attrs["arg_attrs"] = A.ArrayAttr(tuple(A.DictionaryAttr(tuple(d.items())) for d in arg_attrs))
        if any(result_attrs):
            state.attrs["res_attrs"] = A.ArrayAttr(tuple(A.DictionaryAttr(tuple(d.items()))
                                                         for d in result_attrs))

    def print(self, op, args, p):
        from ...ir.printing import symbol
        name = op.attributes[args[0].name].value
        fn_type = op.attributes[args[1].name].value
        region = _region_of(op, args[2])
        block_args = region.blocks[0].arguments if region.blocks else []
        if block_args:
            parts = [f"{p.value_name(a)}: {a.type.text(True)}" for a in block_args]
        else:
            parts = [t.text(True) for t in fn_type.inputs]
        text = f"{symbol(name)}({', '.join(parts)})"
        outs = fn_type.results
        if len(outs) == 1:
            text += f" -> {outs[0].text(True)}"
        elif outs:
            text += f" -> ({_types(outs)})"
        return text


def _token_type(tok):
    from ...syntax.parser import ParseError
    from ...syntax.reader import BodyError, parse_type
    try:
        return parse_type(str(tok))
    except BodyError as e:
        raise ParseError(e.message, tok.line, tok.column + e.offset)


@directive("OptimizationHints")
class OptimizationHints(Directive):
    """Optional `optimization_hints=<arch = {..}, ..>`; printed only when non-empty."""
    rules = ('ctc_opt_hints: "optimization_hints" "=" "<" [ctc_hint ("," ctc_hint)*] ">"',
             # any key token parses, so a bad one is reported as cuda-tile-opt words it
             'ctc_hint: (BARE_ID | STRING | INT | FLOAT) ["=" attribute]')

    def grammar(self, args):
        return "[ctc_opt_hints]"

    def parse(self, children, args, state):
        (hints,) = children
        if hints is None:
            return
        from ...syntax.reader import unquote
        entries = []
        for h in hints:
            if h is None:
                continue
            key_tok, value = h
            if key_tok.type not in ("BARE_ID", "STRING"):
                raise BuildError("expected valid keyword or string", key_tok)
            if value is None:
                raise BuildError("expected '='", key_tok)
            key = unquote(str(key_tok)) if key_tok.type == "STRING" else str(key_tok)
            entries.append((key, value, key_tok))

        def error(message, where):
            raise BuildError(message, where, custom_op=True)
        state.attrs[args[0].name] = OptimizationHintsAttr.from_entries(entries, error)

    def print(self, op, args, p):
        v = op.attributes.get(args[0].name)
        if not isinstance(v, OptimizationHintsAttr) or not v.entries:
            return None
        return f"optimization_hints=<{v.body()}>"


@directive("FunctionBody")
class FunctionBody(Directive):
    """The body of a function-like op; every terminator is printed."""

    def grammar(self, args):
        return "region"

    def parse(self, children, args, state):
        (region,) = children
        state.regions[args[0].name] = region

    def print(self, op, args, p):
        p.write(" ")
        p.print_region(_region_of(op, args[0]), entry_args=False, terminators=True)
        return None


# ---- if --------------------------------------------------------------------

@directive("IfOpRegion")
class IfOpRegion(Directive):
    """A then/else body; an operand-less `yield` at its end is implicit."""

    def grammar(self, args):
        return "region"

    def parse(self, children, args, state):
        (region,) = children
        if not region.blocks:
            region.add_block(Block())
        state.regions[args[0].name] = region

    def present(self, op, args):
        r = _region_of(op, args[0])
        return r is not None and bool(r.blocks)

    def print(self, op, args, p):
        p.write(" ")
        p.print_region(_region_of(op, args[0]), entry_args=False, terminators=False,
                       omit_terminator=_elide_implicit(IMPLICIT))
        return None


# ---- reduce / scan ---------------------------------------------------------

@directive("ArgumentRegion")
class ArgumentRegion(Directive):
    """`(%a: T, %b: T) { ... }` on a new line: a region with named arguments."""
    rules = ('ctc_region_arg: VALUE_REF ":" type [LOC]',)

    def grammar(self, args):
        return '"(" [ctc_region_arg ("," ctc_region_arg)*] ")" region'

    def parse(self, children, args, state):
        *params, region = children
        name = args[0].name
        state.regions[name] = region
        params = [(tok, t) for tok, t, _loc in (x for x in params if x is not None)]
        if params:  # `() {}` stays an empty region
            state.region_args[name] = params

    def print(self, op, args, p):
        region = _region_of(op, args[0])
        block_args = region.blocks[0].arguments if region.blocks else []
        p.write(" ")
        p.newline()
        p.write("(" + ", ".join(f"{p.value_name(a)}: {a.type.text(True)}" for a in block_args) + ") ")
        p.print_region(region, entry_args=False, terminators=True)
        return None


# ---- for / loop ------------------------------------------------------------

_ASSIGN_RULES = ('ctc_assigns: "(" [ctc_assign ("," ctc_assign)*] ")"',
                 'ctc_assign: VALUE_REF "=" VALUE_REF')


def _assigns(children):
    return [tuple(a) for a in children if a is not None]


def _iter_text(p, inner, outer) -> str:
    return "iter_values(" + ", ".join(f"{p.value_name(i)} = {p.value_name(o)}"
                                      for i, o in zip(inner, outer)) + ")"


@directive("ForLoop")
class ForLoop(Directive):
    """`[unsigned] %iv in (%lb to %ub, step %s) : T [iter_values(%x = %init, ..)
    -> (T, ..)] { body }`. Arguments: unsignedCmp, lowerBound, upperBound, step,
    initValues, resultValues, region."""
    rules = ('ctc_unsigned: "unsigned"',
             'ctc_for_iters: "iter_values" ctc_assigns "->" "(" [type_list] ")"') + _ASSIGN_RULES

    def grammar(self, args):
        return ('[ctc_unsigned] VALUE_REF "in" "(" VALUE_REF "to" VALUE_REF "," "step" VALUE_REF ")" '
                '":" type [ctc_for_iters] region')

    def parse(self, children, args, state):
        unsigned, iv, lb, ub, step, iv_type, iters, region = children
        a_unsigned, a_lb, a_ub, a_step, a_inits, a_results, a_region = args
        if unsigned is not None:
            state.attrs[a_unsigned.name] = A.UnitAttr()
        for a, tok in ((a_lb, lb), (a_ub, ub), (a_step, step)):
            state.operands[a.name] = [value_ref(tok)]
            state.operand_types[a.name] = [iv_type]
        region_args = [(iv, iv_type)]
        inits, types = [], []
        if iters is not None:
            assigns_children, type_list = iters
            pairs = _assigns(assigns_children)
            types = list(type_list or [])
            if len(pairs) != len(types):
                raise BuildError("mismatch in number of loop-carried values and defined values", iv)
            inits = [value_ref(outer) for _, outer in pairs]
            region_args += [(inner, t) for (inner, _), t in zip(pairs, types)]
        state.operands[a_inits.name] = inits
        state.operand_types[a_inits.name] = types
        state.result_types[a_results.name] = types
        state.regions[a_region.name] = region
        state.region_args[a_region.name] = region_args

    def print(self, op, args, p):
        a_unsigned, a_lb, a_ub, a_step, a_inits, a_results, a_region = args
        region = _region_of(op, a_region)
        block_args = region.blocks[0].arguments
        iv = block_args[0]
        text = " unsigned" if a_unsigned.name in op.attributes else ""
        lb, ub, step = (a.field.__get__(op) for a in (a_lb, a_ub, a_step))
        text += (f" {p.value_name(iv)} in ({p.value_name(lb)} to {p.value_name(ub)}, step "
                 f"{p.value_name(step)}) : {iv.type.text(True)} ")
        inits = a_inits.field.__get__(op)
        if inits:
            text += _iter_text(p, block_args[1:], inits) + f" -> ({_types(v.type for v in inits)}) "
        p.write(text)
        p.print_region(region, entry_args=False, terminators=False,
                       omit_terminator=_elide_implicit("cuda_tile.continue"))
        return None


def _iter_pairs(assigns_children, iter_types):
    pairs = _assigns(assigns_children)
    if len(pairs) != len(list(iter_types)):
        raise BuildError("found different number of iter_values and types", pairs[0][0] if pairs else None)
    return pairs


@directive("LoopBody")
class LoopBody(Directive):
    """`[iter_values(%x = %init, ..) : T, .. [-> R, ..]] | [: R, ..]` then the
    body. Arguments: initValues, resultValues, region."""
    rules = ('ctc_loop_iters: "iter_values" ctc_assigns ":" type_list ["->" type_list]',
             'ctc_loop_results: ":" type_list')

    def __init__(self):
        def header(children):
            _iter_pairs(children[0], children[1])    # checked before the body is read, as MLIR does
            return children
        self.callbacks = {"ctc_loop_iters": header}

    def grammar(self, args):
        return "[ctc_loop_iters | ctc_loop_results] region"

    def parse(self, children, args, state):
        head, region = children
        a_inits, a_results, a_region = args
        inits, iter_types, results, region_args = [], [], [], []
        if head is not None and len(head) == 1:
            results = list(head[0])
        elif head is not None:
            assigns_children, iter_types, res = head
            pairs = _iter_pairs(assigns_children, iter_types)
            iter_types = list(iter_types)
            inits = [value_ref(outer) for _, outer in pairs]
            region_args = [(inner, t) for (inner, _), t in zip(pairs, iter_types)]
            results = list(res or [])
        state.operands[a_inits.name] = inits
        state.operand_types[a_inits.name] = iter_types
        state.result_types[a_results.name] = results
        state.regions[a_region.name] = region
        state.region_args[a_region.name] = region_args

    def print(self, op, args, p):
        a_inits, a_results, a_region = args
        region = _region_of(op, a_region)
        inits = a_inits.field.__get__(op)
        results = op.results
        text = " "
        if inits:
            text += _iter_text(p, region.blocks[0].arguments, inits) + " "
        if inits or results:
            text += ": "
        if inits:
            text += _types(v.type for v in inits) + " "
            if results:
                text += "-> "
        if results:
            text += _types(r.type for r in results) + " "
        p.write(text)
        p.print_region(region, entry_args=False, terminators=False,
                       omit_terminator=_elide_implicit("cuda_tile.continue"))
        return None


def ensure_terminator(region, term_name, location, only_if_blocks=False):
    """MLIR's ensureTerminator: give `region` a block ending in a terminator,
    appending an operand-less `term_name` op when it does not end in one."""
    from ...ir import registry
    from ...ir.traits import Terminator
    if not region.blocks:
        if only_if_blocks:
            return
        region.add_block(Block())
    block = region.blocks[-1]
    last = block.last_op
    if last is None or not last.has_trait(Terminator):
        block.append(registry.OPS[term_name].create(location=location))
