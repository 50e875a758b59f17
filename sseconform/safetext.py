"""Text from the wire, made safe to print: control characters become visible escapes.

Used wherever stream or request content reaches a terminal, a report or a log, so it can
never move the cursor, forge a line or inject a CI workflow command. Standard library only.
"""

from __future__ import annotations

#: C0 and C1 controls (and the JSON-legal line separators) as visible escapes.
_ESCAPES = {c: f"\\x{c:02x}" for c in (*range(0x20), *range(0x7F, 0xA0))}
_ESCAPES.update({0x2028: "\\u2028", 0x2029: "\\u2029"})


def printable(text: str) -> str:
    """``text`` with every control character shown as an escape; unchanged when clean."""
    return text if text.isprintable() else text.translate(_ESCAPES)
