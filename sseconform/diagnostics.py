"""The immutable finding every layer above the decoder speaks in."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from sseconform.rules.catalog import RULES, Rule, Severity
from sseconform.safetext import printable

__all__ = ["Diagnostic", "printable"]


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding: which rule, what happened, and where (frame, line, byte offset, pointer)."""

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
