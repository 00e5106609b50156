"""Diagnostics as values: collected by an engine, printed by the CLI in MLIR's form."""
from __future__ import annotations

from .location import Location, UNKNOWN


class Diagnostic:
    __slots__ = ("severity", "location", "message", "notes")

    def __init__(self, severity: str, location: Location, message: str):
        self.severity, self.location, self.message = severity, location or UNKNOWN, message
        self.notes: list[Diagnostic] = []

    def attach_note(self, message: str, location: Location | None = None) -> "Diagnostic":
        note = Diagnostic("note", location or self.location, message)
        self.notes.append(note)
        return note

    def render(self) -> str:
        lines = [f"{self.location.describe()}: {self.severity}: {self.message}"]
        lines.extend(n.render() for n in self.notes)
        return "\n".join(lines)

    def __repr__(self):
        return f"Diagnostic({self.render()!r})"


class DiagnosticEngine:
    """Collects diagnostics; handlers (e.g. --verify-diagnostics) may intercept them."""

    def __init__(self):
        self.diagnostics: list[Diagnostic] = []
        self.handler = None

    def emit(self, severity: str, location: Location, message: str) -> Diagnostic:
        diag = Diagnostic(severity, location, message)
        self.diagnostics.append(diag)
        return diag

    def error(self, location, message):
        return self.emit("error", location, message)

    def warning(self, location, message):
        return self.emit("warning", location, message)

    def remark(self, location, message):
        return self.emit("remark", location, message)

    @property
    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.diagnostics)

    def render(self) -> str:
        return "\n".join(d.render() for d in self.diagnostics)

    def clear(self):
        self.diagnostics.clear()


class CompileError(Exception):
    """Raised to abandon a stage after its diagnostics were emitted."""


_engines: list[DiagnosticEngine] = [DiagnosticEngine()]


def current_engine() -> DiagnosticEngine:
    return _engines[-1]


class using_engine:
    """`with using_engine(engine):` routes op.emit_error & co. to `engine`."""

    def __init__(self, engine: DiagnosticEngine):
        self.engine = engine

    def __enter__(self):
        _engines.append(self.engine)
        return self.engine

    def __exit__(self, *exc):
        _engines.pop()
