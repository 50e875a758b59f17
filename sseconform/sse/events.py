"""What the SSE decoder gives: events with where they sat in the body, and the anomalies of
the wire, each with its kind (the rules layer maps kinds to codes; this layer knows nothing of
rules)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "BOM_SEEN",
    "COMMENT",
    "CR",
    "CRLF",
    "DATA_NO_SPACE",
    "EVENT_TOO_LARGE",
    "ID_FIELD",
    "ID_OR_RETRY_ONLY",
    "INVALID_UTF8",
    "LINE_TOO_LONG",
    "RETRY_FIELD",
    "UNKNOWN_FIELD",
    "UNTERMINATED",
    "Anomaly",
    "Event",
]

# Anomaly kinds.
INVALID_UTF8 = "invalid-utf8"
BOM_SEEN = "bom"
CRLF = "crlf"
CR = "cr"
DATA_NO_SPACE = "data-no-space"
COMMENT = "comment"
UNKNOWN_FIELD = "unknown-field"
ID_FIELD = "id-field"
RETRY_FIELD = "retry-field"
ID_OR_RETRY_ONLY = "id-or-retry-only-block"
UNTERMINATED = "unterminated-event"
LINE_TOO_LONG = "line-too-long"
EVENT_TOO_LARGE = "event-too-large"


@dataclass(frozen=True, slots=True)
class Anomaly:
    """Something legal-but-fragile or broken on the wire, with where it is."""

    kind: str
    line: int
    offset: int
    detail: str = ""
    frame: int | None = None  # the frame the anomaly sits in, when it sits in one


class Event:
    """A dispatched SSE event: its data and where it sat in the body."""

    __slots__ = ("data", "data_lines", "end", "event", "frame", "id", "line", "offset", "retry")
    #: What equality compares: ``end`` follows from the rest and the body.
    _COMPARED = ("data", "event", "id", "retry", "frame", "line", "offset", "data_lines")

    def __init__(
        self,
        data: str,
        event: str | None,
        id: str | None,
        retry: int | None,
        frame: int,
        line: int,
        offset: int,
        data_lines: int,
    ) -> None:
        self.data = data
        self.event = event
        self.id = id
        self.retry = retry
        self.frame = frame
        self.line = line
        self.offset = offset
        self.data_lines = data_lines
        self.end = -1  # byte offset just past the blank line that dispatched it

    def __repr__(self) -> str:
        return (
            f"Event(frame={self.frame}, line={self.line}, offset={self.offset}, "
            f"event={self.event!r}, data={self.data[:60]!r})"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        return all(getattr(self, s) == getattr(other, s) for s in self._COMPARED)
