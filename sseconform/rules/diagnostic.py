"""The immutable finding every layer above the decoder speaks in: a rule's, so it lives
beside the catalog (``sseconform.diagnostics`` names it for the layers above)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from sseconform.rules.catalog import RULES, Rule, Severity
from sseconform.safetext import printable

__all__ = ["Diagnostic", "printable"]


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding: which rule, what happened, and where (frame, line, byte offset, pointer).

    One rule for where: a location is where an event starts, so ``check``, ``gate`` and an
    editor jump all land on the same line. ``frame`` (1-based), ``line`` (1-based) and
    ``offset`` (bytes into the body) are those of the first line of the event the finding is
    about; ``pointer`` then says where inside its JSON. A wire finding (W) about a line inside
    an event points at that event too, and its message gives the line and byte when they
    differ. A finding about the end of the stream (no ``[DONE]``, no finish, a silent close,
    an error frame not followed by ``[DONE]``, no event at all) points at the last event of
    the stream, or at line 1, offset 0, no frame when there is no event. A line that belongs
    to no event (a comment between events, an ``id:``-only block, the unterminated tail, the
    byte-order mark) is located at itself, with no frame: it starts a block of its own.
    Findings about the HTTP response or the recording file (H) have no place in the body:
    line 0 (H004's offset is how many body bytes were read before the damage).
    """

    code: str
    message: str
    frame: int | None
    line: int
    offset: int
    pointer: str = ""

    @property
    def rule(self) -> Rule:
        return RULES[self.code]

    @property
    def name(self) -> str:
        return RULES[self.code].name

    @property
    def severity(self) -> Severity:
        return RULES[self.code].severity

    @property
    def invariant(self) -> str | None:
        return RULES[self.code].invariant

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract of one diagnostic (see README, "JSON output")."""
        d = asdict(self)
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity.value,
            "invariant": self.invariant,
            "message": d["message"],
            "frame": d["frame"],
            "line": d["line"],
            "offset": d["offset"],
            "pointer": d["pointer"],
        }
