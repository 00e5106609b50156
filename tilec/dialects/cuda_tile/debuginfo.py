"""cuda_tile debug info: the DI scope attributes (file, compile unit, subprogram,
lexical block) and the `di_loc` location that ties a source location to a scope.

Spellings follow the dialect's declarations:
  #cuda_tile.di_file<"name" in "directory">
  #cuda_tile.di_compile_unit<file = F>
  #cuda_tile.di_subprogram<file = F, line = N, name = "s", linkageName = "s",
                           compileUnit = CU[, scopeLine = N]>
  #cuda_tile.di_lexical_block<scope = S, file = F, line = N[, column = N]>
  #cuda_tile.di_loc<LOC in SCOPE>          (a location: `loc(#cuda_tile.di_loc<...>)`)
Struct bodies accept their parameters in any order, each once; optional
unsigned parameters equal to 0 are left out when printing.

For the printer's alias machinery (tilec.syntax.aliases) each class tells its
alias name (`asm_alias`), its nested attributes in print order
(`sub_attributes`) and renders its body with a callback for nested attributes
(`render_body`)."""
from __future__ import annotations

from ...ir.record import evolve, frozen

from ...ir import attributes as A
from ...ir import registry
from ...ir.attributes import DialectAttr
from ...ir.location import CallSiteLoc, FileLineColLoc, FusedLoc, Location, NameLoc
from ...ir.printing import quote
from ...syntax.reader import BodyError, parse_location
from .attributes import DIALECT, raise_missing

_UINT_MAX = 2 ** 32 - 1


# ---------------------------------------------------------------------------
# rendering helpers

def plain_text(attr) -> str:
    """A nested attribute spelled in full (no aliases)."""
    if isinstance(attr, Location) and not isinstance(attr, DialectAttr):
        return f"loc({attr.body()})"
    return attr.text()


class _DIAttr(DialectAttr):
    __slots__ = ()
    dialect = DIALECT
    asm_alias = None

    def sub_attributes(self) -> tuple:
        return ()

    def render_body(self, sub) -> str:
        raise NotImplementedError

    def body(self):
        return self.render_body(plain_text)

    def text(self, short=False):
        # always the full spelling: these never print in a stripped form
        return self.render(plain_text)

    def render(self, sub) -> str:
        return f"#{self.dialect}.{self.mnemonic}<{self.render_body(sub)}>"


def _struct_text(pairs, sub) -> str:
    out = []
    for key, value, kind in pairs:
        if kind == "attr":
            out.append(f"{key} = {sub(value)}")
        elif kind == "str":
            out.append(f"{key} = {quote(value)}")
        elif kind == "opt":
            if value:
                out.append(f"{key} = {value}")
        else:
            out.append(f"{key} = {value}")
    return ", ".join(out)


# ---------------------------------------------------------------------------
# parsing helpers

def _aliases(r) -> dict:
    aliases = getattr(r, "aliases", None)
    if aliases is None:
        from ...syntax.parser import current_context
        ctx = current_context()
        aliases = ctx.attr_aliases if ctx is not None else {}
    return aliases


def _alias_value(r):
    """`#name` (no dialect dot): the aliased attribute. Leaves other tokens alone."""
    kind, text, _ = r.peek()
    if kind == "sigil" and text.startswith("#") and "." not in text:
        aliases = _aliases(r)
        if text[1:] not in aliases:
            r.error(f"undefined symbol alias id '{text[1:]}'")
        r.next()
        return aliases[text[1:]]
    return None


def _read_attr(r, expected: tuple, stripped=None):
    """An attribute that must be one of `expected`: an alias, a full spelling,
    or (when `stripped` names a class) its bare `<...>` body."""
    off = r.offset()
    kind, text, _ = r.peek()
    if text == "<" and stripped is not None:
        r.next()
        value = stripped.parse_body(r)
        r.expect(">")
    else:
        value = _alias_value(r)
        if value is None:
            if kind == "eof" or text in (",", ">"):
                r.error("expected attribute value")
            value = r.attribute()
    if isinstance(value, A.LocationAttr):
        value = value.location
    if not isinstance(value, expected):
        raise BodyError("invalid kind of attribute specified", off)
    return value


def _read_uint(r) -> int:
    off = r.offset()
    value = r.integer()
    if value < 0 or value > _UINT_MAX:
        raise BodyError("integer value too large", off)
    return value


def _read_str(r) -> str:
    if r.peek()[0] == "string":
        return r.string()
    return _read_attr(r, (A.StringAttr,)).value


def _expect_keyword(r, word):
    if r.peek()[1] != word or r.peek()[0] != "ident":
        r.error(f"expected '{word}'")
    r.next()


def _read_struct(r, readers: dict, required: tuple) -> dict:
    """`key = value, ...` in any order, each key at most once."""
    values = {}

    def entry():
        kind, key, _ = r.peek()
        off = r.offset()
        if kind != "ident":
            r.error("expected a parameter name in struct")
        r.next()
        r.expect("=")
        if key not in readers or key in values:
            raise BodyError(f"duplicate or unknown struct parameter name: {key}", off)
        values[key] = readers[key](r)

    if r.peek()[0] == "ident" or required:
        entry()
        while r.accept(","):
            entry()
    for key in required:
        if key not in values:
            r.error(f"struct is missing required parameter: {key}")
    return values


def _read_source_loc(r):
    """The `sourceLoc` of a di_loc: `loc(...)` or a `#alias` of a location."""
    off = r.offset()
    kind, text, start = r.peek()
    if kind == "ident" and text == "loc" and r.peek(1)[1] == "(":
        r.next()
        r.next()
        depth = 1
        while depth:
            tok = r.next()
            if tok[1] == "(":
                depth += 1
            elif tok[1] == ")":
                depth -= 1
        end = tok[2] + 1
        loc_aliases = {k: (v.location if isinstance(v, A.LocationAttr) else v)
                       for k, v in _aliases(r).items()
                       if isinstance(v, (A.LocationAttr, Location))}
        try:
            loc = parse_location(r.text[start:end], loc_aliases)
        except BodyError as e:
            raise BodyError(e.message, r.base + start + e.offset)
    else:
        value = _alias_value(r)
        if value is None:
            if kind == "sigil" and "." in text:
                value = _read_attr(r, (Location, A.Attribute))
            else:
                r.error("expected location")
        loc = value.location if isinstance(value, A.LocationAttr) else value
    if not isinstance(loc, FileLineColLoc):
        raise BodyError("invalid kind of attribute specified", off)
    return loc


# ---------------------------------------------------------------------------
# the attributes

@registry.register_attr
@frozen(cache_hash=True, repr=False)
class DIFileAttr(_DIAttr):
    """`#cuda_tile.di_file<"name" in "directory">`: a source file."""
    name: str
    directory: str
    mnemonic = "di_file"
    asm_alias = "di_file"

    def render_body(self, sub):
        return f"{quote(self.name)} in {quote(self.directory)}"

    @classmethod
    def parse_body(cls, r):
        if r is None:
            raise_missing(cls)
        name = _read_str(r)
        _expect_keyword(r, "in")
        return cls(name, _read_str(r))


@registry.register_attr
@frozen(cache_hash=True, repr=False)
class DICompileUnitAttr(_DIAttr):
    """`#cuda_tile.di_compile_unit<file = F>`: the root scope of a compilation."""
    file: DIFileAttr
    mnemonic = "di_compile_unit"
    asm_alias = "di_compile_unit"

    def sub_attributes(self):
        return (self.file,)

    def render_body(self, sub):
        return f"file = {sub(self.file)}"

    @classmethod
    def parse_body(cls, r):
        if r is None:
            raise_missing(cls)
        v = _read_struct(r, {"file": lambda r: _read_attr(r, (DIFileAttr,), DIFileAttr)}, ("file",))
        return cls(v["file"])


@registry.register_attr
@frozen(cache_hash=True, repr=False)
class DISubprogramAttr(_DIAttr):
    """A function: file, line, name, linkage name, compile unit, optional scope line."""
    file: DIFileAttr
    line: int
    name: str
    linkage_name: str
    compile_unit: DICompileUnitAttr
    scope_line: int = 0
    mnemonic = "di_subprogram"
    asm_alias = "di_subprogram"

    def sub_attributes(self):
        return (self.file, self.compile_unit)

    def render_body(self, sub):
        return _struct_text((("file", self.file, "attr"), ("line", self.line, "int"),
                             ("name", self.name, "str"), ("linkageName", self.linkage_name, "str"),
                             ("compileUnit", self.compile_unit, "attr"),
                             ("scopeLine", self.scope_line, "opt")), sub)

    def with_linkage_name(self, name: str) -> "DISubprogramAttr":
        return evolve(self, linkage_name=name)

    @classmethod
    def parse_body(cls, r):
        if r is None:
            raise_missing(cls)
        v = _read_struct(r, {
            "file": lambda r: _read_attr(r, (DIFileAttr,), DIFileAttr),
            "line": _read_uint,
            "name": _read_str,
            "linkageName": _read_str,
            "compileUnit": lambda r: _read_attr(r, (DICompileUnitAttr,), DICompileUnitAttr),
            "scopeLine": _read_uint,
        }, ("file", "line", "name", "linkageName", "compileUnit"))
        return cls(v["file"], v["line"], v["name"], v["linkageName"], v["compileUnit"],
                   v.get("scopeLine", 0))


@registry.register_attr
@frozen(cache_hash=True, repr=False)
class DILexicalBlockAttr(_DIAttr):
    """A nested scope in a subprogram: scope, file, line, optional column."""
    scope: object  # DISubprogramAttr | DILexicalBlockAttr
    file: DIFileAttr
    line: int
    column: int = 0
    mnemonic = "di_lexical_block"
    asm_alias = "di_lexical_block"

    def sub_attributes(self):
        return (self.scope, self.file)

    def render_body(self, sub):
        return _struct_text((("scope", self.scope, "attr"), ("file", self.file, "attr"),
                             ("line", self.line, "int"), ("column", self.column, "opt")), sub)

    def subprogram(self):
        scope = self.scope
        while isinstance(scope, DILexicalBlockAttr):
            scope = scope.scope
        return scope

    @classmethod
    def parse_body(cls, r):
        if r is None:
            raise_missing(cls)
        v = _read_struct(r, {
            "scope": lambda r: _read_attr(r, LOCAL_SCOPES),
            "file": lambda r: _read_attr(r, (DIFileAttr,), DIFileAttr),
            "line": _read_uint,
            "column": _read_uint,
        }, ("scope", "file", "line"))
        return cls(v["scope"], v["file"], v["line"], v.get("column", 0))


LOCAL_SCOPES = (DISubprogramAttr, DILexicalBlockAttr)


@registry.register_attr
@frozen(cache_hash=True, repr=False)
class DILocAttr(_DIAttr, Location):
    """`#cuda_tile.di_loc<LOC in SCOPE>`: a file:line:col location carrying its
    debug info scope. As a location it reports its source file:line:col."""
    source: FileLineColLoc
    scope: object  # DISubprogramAttr | DILexicalBlockAttr
    mnemonic = "di_loc"

    def file_line_col(self):
        return self.source.file_line_col()

    def sub_attributes(self):
        return (self.source, self.scope)

    def render_body(self, sub):
        return f"{sub(self.source)} in {sub(self.scope)}"

    def body(self):
        # as a location, `loc(...)` wraps the whole attribute
        return self.text()

    def subprogram(self):
        scope = self.scope
        return scope.subprogram() if isinstance(scope, DILexicalBlockAttr) else scope

    @classmethod
    def parse_body(cls, r):
        if r is None:
            raise_missing(cls)
        source = _read_source_loc(r)
        _expect_keyword(r, "in")
        return cls(source, _read_attr(r, LOCAL_SCOPES))


# ---------------------------------------------------------------------------
# verification of debug info scopes (the dialect's DebugInfoVerifier rules)

def find_di_loc(loc):
    """The di_loc a location carries: itself, a callsite's caller, the first in
    a fused location, a name location's child."""
    while True:
        if isinstance(loc, DILocAttr):
            return loc
        if isinstance(loc, CallSiteLoc):
            loc = loc.caller
        elif isinstance(loc, NameLoc):
            loc = loc.child
        elif isinstance(loc, FusedLoc):
            return next((d for d in map(find_di_loc, loc.locations) if d is not None), None)
        else:
            return None


def _subprogram_of(scope):
    return scope.subprogram() if isinstance(scope, DILexicalBlockAttr) else scope


def _loc_text(loc) -> str:
    return f"loc({loc.body()})"


def verify_function(op, name: str) -> bool:
    """Rules for a function-like op (entry) named `name`: its location is not a
    callsite; a di_loc on it has a subprogram scope whose linkage name is `name`."""
    if isinstance(op.location, CallSiteLoc):
        op.emit_error(f"invalid function debug info location: {_loc_text(op.location)}. "
                      f"Function location must not be a CallSiteLoc.")
        return False
    di = find_di_loc(op.location)
    if di is None:
        return True
    if not isinstance(di.scope, DISubprogramAttr):
        op.emit_error(f"invalid function debug info scope: {di.scope.text()}. Function location must have "
                      f"cuda_tile.di_subprogram debug info scope.")
        return False
    if di.scope.linkage_name != name:
        op.emit_error(f"invalid function debug info scope: {di.scope.text()}. Function name {quote(name)} "
                      f"does not match subprogram scope linkage name {quote(di.scope.linkage_name)}.")
        return False
    return True


def verify_function_body(op) -> bool:
    """Ops inside a function carry a scope only when the function does, and then
    the same subprogram."""
    from ...ir.diagnostics import current_engine
    di = find_di_loc(op.location)
    fn_sub = _subprogram_of(di.scope) if di is not None else None
    for region in op.regions:
        for inner in _walk(region):
            d = find_di_loc(inner.location)
            sub = _subprogram_of(d.scope) if d is not None else None
            if sub is None:
                continue
            if fn_sub is None:
                _op_error(inner, f"invalid operation debug info scope: {sub.text()}. Operation has debug info "
                                 f"scope, but function debug info scope is undefined.")
                return False
            if sub != fn_sub:
                current_engine().error(inner.location, f"invalid operation debug info scope: {sub.text()}. "
                                       f"Operation debug info scope does not match function debug info scope: "
                                       f"{fn_sub.text()}.")
                return False
    return True


def _is_function(op) -> bool:
    return "function_type" in op.attributes


def verify_module_globals(module, is_function=_is_function) -> bool:
    """Ops directly in a module that are not functions carry no scope."""
    for region in module.regions:
        for block in region.blocks:
            for inner in block.ops:
                if is_function(inner):
                    continue
                d = find_di_loc(inner.location)
                if d is not None:
                    _op_error(inner, f"invalid operation debug info scope: {d.text()}. "
                                     f"Global variables must not have scope.")
                    return False
    return True


def _op_error(op, message):
    from ...ir.diagnostics import current_engine
    emit = getattr(op, "emit_error", None)
    if emit is not None:
        return emit(message)
    return current_engine().error(op.location, f"'{op.name}' op {message}")


def _walk(region):
    """Ops nested in `region`, post-order (nested ops before their parent), as MLIR walks."""
    for block in region.blocks:
        for o in block.ops:
            for r in o.regions:
                yield from _walk(r)
            yield o
