"""Small printing helpers shared by the IR core and the printer."""
import re

_BARE = re.compile(r"^[A-Za-z_][A-Za-z0-9_$.]*$")
_ESC = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t"}


def quote(s: str) -> str:
    """An MLIR string literal: printable ASCII kept, the rest as \\XX hex escapes."""
    out = []
    for ch in s:
        if ch in _ESC:
            out.append(_ESC[ch])
        elif " " <= ch <= "~":
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
