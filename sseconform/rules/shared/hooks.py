"""The moments every grammar shares, which the W, J and H rules' checks subscribe to: what
the SSE decoder found on the wire, what an event's data is when it is not an object, what the
HTTP response and the recording say (read by ``sseconform/api.py``).

A wire anomaly (a CR line ending, an ``id:`` field, bytes that are not UTF-8) is found by the
decoder, which knows only its kind; the rule that reports it says so with :func:`anomaly`
(its kind, its message, a grammar's own wording), and the checker base places it at the
start of the event it sits in. Every other moment is typed, as the grammars' are
(:class:`~sseconform.rules.hooks.Moment`), and fired only when something is wrong: an event
whose data is fine costs nothing here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sseconform.rules.hooks import Hooks, Moment

if TYPE_CHECKING:
    import orjson

    from sseconform.rules.catalog import Rule
    from sseconform.sse.decoder import Event

HOOKS = Hooks("any")


@dataclass(frozen=True, slots=True)
class WireRule:
    """A wire rule: the decoder's anomaly kind it reports, and how it says it (``{}``: the
    anomaly's detail); a grammar may word it its own way."""

    rule: Rule
    message: str
    wording: dict[str, str]

    def message_for(self, grammar: str) -> str:
        return self.wording.get(grammar, self.message)


#: decoder anomaly kind -> the wire rule that reports it
ANOMALIES: dict[str, WireRule] = {}


def anomaly(rule: Rule, kind: str, message: str, **wording: str) -> WireRule:
    """Make ``rule`` the one that reports the decoder's ``kind`` of anomaly."""
    if kind in ANOMALIES:
        raise ValueError(f"{rule.code}: anomaly {kind!r} is {ANOMALIES[kind].rule.code}'s")
    ANOMALIES[kind] = a = WireRule(rule, message, dict(wording))
    return a


# -- an event's data, read the same way by every grammar ----------------------------------

MULTI_LINE_DATA: Moment[Any, [Event]] = HOOKS.moment(
    "multi-line-data", "(ev): an event whose data came on several `data:` lines"
)
EMPTY_DATA: Moment[Any, [Event]] = HOOKS.moment("empty-data", "(ev): an event with empty data")
KEEPALIVE_DATA: Moment[Any, [Event]] = HOOKS.moment(
    "keepalive-data", "(ev): data that starts with a colon: a keep-alive sent as data"
)
NOT_JSON: Moment[Any, [Event, orjson.JSONDecodeError]] = HOOKS.moment(
    "not-json", "(ev, exc): data that does not parse as JSON"
)
NOT_OBJECT: Moment[Any, [Event, object]] = HOOKS.moment(
    "not-object", "(ev, value): data that is JSON but not an object"
)
SCHEMA_VIOLATION: Moment[Any, [Event, str, str]] = HOOKS.moment(
    "schema-violation",
    "(ev, message, pointer): data that breaks its schema where no grammar rule owns the fault",
)
NOT_SSE: Moment[Any, [int, str]] = HOOKS.moment(
    "not-sse", "(size, looks_like): a body of `size` bytes with no SSE event in it"
)

# -- the HTTP response and the recording (sseconform/api.py) -------------------------------

HTTP_ERROR: Moment[Any, [int]] = HOOKS.moment(
    "http-error", "(status): a response whose status is not 2xx"
)
ERROR_BODY: Moment[Any, [int, str]] = HOOKS.moment(
    "error-body", "(status, why): an error response's body in a shape its clients cannot read"
)
CONTENT_TYPE: Moment[Any, [str]] = HOOKS.moment(
    "content-type", "(content_type): a 2xx response that is not text/event-stream"
)
RECORDING_INCOMPLETE: Moment[Any, [str]] = HOOKS.moment(
    "recording-incomplete", "(why): a recording that stops before the response ended"
)
RECORDING_DAMAGED: Moment[Any, [int, str, int, int]] = HOOKS.moment(
    "recording-damaged",
    "(line, why, after, checked): a recording line that cannot be read (the lines after it "
    "are not read; `checked` body bytes before it were)",
)
