"""What a report groups findings under — a checked file, a gate scenario — so one writer per
format (text, JSON, JUnit, GitHub, SARIF) serves every command that reports findings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sseconform.findings import Finding

__all__ = ["Subject", "where"]


@dataclass(frozen=True)
class Subject:
    """One file, scenario or level and its findings, with what a writer needs to place them."""

    name: str
    findings: Sequence[Finding]
    #: the file the findings are in (SARIF's artifact, GitHub's ``file=``), if any
    artifact: str | None = None
    #: a finding's ``line`` is a line of the artifact (a raw stream), not of a recorded body
    lines: bool = True
    #: body offset -> the artifact's line holding that read (a recording; SARIF regions)
    record_lines: Mapping[int, int] = field(default_factory=dict)
    #: why it could not be checked at all
    error: str | None = None
    #: baseline entries it no longer has
    fixed: Sequence[str] = ()
    #: what a message or a title starts with (a scenario's name: findings share a recording)
    label: str = ""
    #: what a SARIF result's properties add (a scenario's suite, endpoint and verdict)
    properties: Mapping[str, Any] = field(default_factory=dict)
    #: the lines a command's text report adds after the findings (``check``: what
    #: ``--max-per-code`` and the baseline held back)
    notes: Sequence[str] = ()
    #: the line a text report heads the findings with (a scenario's verdict), indenting
    #: them; none: each finding at its file's line
    heading: str = ""
    #: what a finding's ``frame`` counts: SSE events, or a WebSocket session's messages
    unit: str = "frame"

    def place(self, f: Finding) -> str:
        """Where a finding is, in words: frame, byte, pointer, and a recorded body's line."""
        place = where(f, self.unit)
        if not self.lines and f.line:
            place = f"body line {f.line}, {place}"
        return place


def where(f: Finding, unit: str = "frame") -> str:
    """Frame (``unit``: a WebSocket session's findings count messages), byte offset and
    pointer: the rest of a precise location. A finding with neither a frame nor a line (about
    the HTTP response or the file) has no byte."""
    parts = []
    if f.frame is not None:
        parts.append(f"{unit} {f.frame}")
    if f.offset is not None and (f.line or f.frame is not None):
        parts.append(f"byte {f.offset}")
    if f.pointer:
        parts.append(f"at {f.pointer}")
    return ", ".join(parts)
