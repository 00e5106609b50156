"""`--verify-diagnostics`: check emitted diagnostics against `expected-*`
comments, with MLIR's semantics (@above, @below, @+N, @-N, @unknown;
`{{...}}` substring match; `-re` variant with `{{regex}}` parts)."""
from __future__ import annotations

import re
import sys

_EXPECT = re.compile(r"expected-(error|warning|remark|note)(-re)?\s*(@(above|below|unknown|[+-]\d+))?\s*\{\{(.*)\}\}\s*$")
_ANY_EXPECT = re.compile(r"expected-(error|warning|remark|note)")


class Expectation:
    __slots__ = ("severity", "line", "pattern", "text", "src_line", "src_col", "matched", "regex")

    def __init__(self, severity, line, text, is_re, src_line, src_col):
        self.severity, self.line, self.text = severity, line, text
        self.src_line, self.src_col = src_line, src_col
        self.matched = False
        self.regex = _compile(text, is_re)

    def matches(self, message) -> bool:
        return self.regex.search(message) is not None


def _compile(text, is_re):
    """Literal text with `{{regex}}` parts (always honoured for -re; for plain
    expectations MLIR treats the whole text as a literal substring)."""
    if not is_re:
        return re.compile(re.escape(text))
    parts, pos = [], 0
    for m in re.finditer(r"\{\{(.*?)\}\}", text):
        parts.append(re.escape(text[pos:m.start()]))
        parts.append(m.group(1))
        pos = m.end()
    parts.append(re.escape(text[pos:]))
    return re.compile("".join(parts))  # re.error: the caller reports "invalid regex", as MLIR does


def collect_expectations(text, line_offset, filename="<input>", problems=None):
    """Expectations of one chunk; lines are 1-based lines of the original file.
    A `-re` expectation whose regex does not compile is not an expectation: it
    is reported into `problems` at its text (MLIR: "invalid regex: ...")."""
    lines = text.split("\n")
    out, pending_below = [], []
    for i, line in enumerate(lines):
        lineno = i + 1 + line_offset
        m = _EXPECT.search(line)
        if m is None:
            if _ANY_EXPECT.search(line) is None:
                for e in pending_below:
                    e.line = lineno
                pending_below = []
            continue
        sev, is_re, _, where, msg = m.groups()
        try:
            e = Expectation(sev, lineno, msg, bool(is_re), lineno, m.start() + 1)
        except re.error as err:
            if problems is not None:
                problems.append(f"{filename}:{lineno}:{m.start(5) + 1}: error: invalid regex: {err}")
            continue
        if where is None:
            pass
        elif where == "unknown":
            e.line = None
        elif where == "above":
            j = i - 1
            while j >= 0 and _ANY_EXPECT.search(lines[j]):
                j -= 1
            e.line = j + 1 + line_offset
        elif where == "below":
            pending_below.append(e)
        else:
            e.line = lineno + int(where)
        out.append(e)
    return out


def check(diagnostics, expectations, filename):
    """Match; return the list of complaint strings (empty when all is well)."""
    problems = []
    flat = []
    for d in diagnostics:
        flat.append((d, True))
        flat.extend((n, False) for n in d.notes)
    for d, primary in flat:
        flc = d.location.file_line_col()
        line = flc[1] if flc and flc[0] == filename else None
        hit = None
        for e in expectations:
            if not e.matched and e.severity == d.severity and e.line == line and e.matches(d.message):
                hit = e
                break
        if hit is not None:
            hit.matched = True
        elif primary or d.severity != "note":
            where = f"{flc[0]}:{flc[1]}:{flc[2]}" if flc else "loc(unknown)"
            problems.append(f"{where}: error: unexpected {d.severity}: {d.message}")
    for e in expectations:
        if not e.matched:
            problems.append(f"{filename}:{e.src_line}:{e.src_col}: error: expected {e.severity} "
                            f"\"{e.text}\" was not produced")
    return problems


def run_verify_diagnostics(chunks, filename, args, after=None) -> int:
    """Check each chunk's diagnostics against its expected-* comments; `after(ops,
    engine)` runs on a chunk that parsed and verified (e.g. writing bytecode),
    and its diagnostics are checked too."""
    from .frontend import parse_and_verify
    from .ir.diagnostics import DiagnosticEngine
    failed = False
    for text, offset in chunks:
        engine = DiagnosticEngine()
        ops = parse_and_verify(text, filename, engine, args.allow_unregistered_dialect, offset)
        if ops is not None and args.command == "opt":   # a pass's diagnostics are checked too, as in MLIR
            from .passes.cli import run_requested_passes, wants_passes
            if wants_passes(args):
                run_requested_passes(ops, args, engine)
        if ops is not None and after is not None:
            after(ops, engine)
        bad_regexes: list = []
        expectations = collect_expectations(text, offset, filename, bad_regexes)
        problems = bad_regexes + check(engine.diagnostics, expectations, filename)
        if problems:
            failed = True
            sys.stderr.write("\n".join(problems) + "\n")
    return 1 if failed else 0
