"""Small printing helpers shared by the IR core and the printer."""
import re

_BARE = re.compile(r"^[A-Za-z_][A-Za-z0-9_$.]*$")


def quote(s: str) -> str:
    """An MLIR string literal as llvm::printEscapedString writes it: printable
    ASCII kept except `"`, a backslash doubled, every other byte (`"`, newline,
    tab, UTF-8) as a \\XX hex escape (`"a\\0Ab\\22"`)."""
    out = []
    for ch in s:
        if ch == "\\":
            out.append("\\\\")
        elif " " <= ch <= "~" and ch != '"':
            out.append(ch)
        else:
            out.extend(f"\\{b:02X}" for b in ch.encode("utf-8"))
    return '"' + "".join(out) + '"'


def symbol(name: str) -> str:
    """`@name`, quoted when the name is not a bare identifier."""
    return "@" + (name if _BARE.match(name) else quote(name))


def format_float(value: float) -> str:
    """MLIR's float spelling: scientific with six fraction digits (1.000000e+00)."""
    if value != value:
        return "nan"
    if value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    return f"{value:.6e}"
