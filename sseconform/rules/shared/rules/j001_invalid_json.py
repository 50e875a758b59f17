"""J001 invalid-json: An event's data is not valid JSON (and not `[DONE]`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.shared.hooks import NOT_JSON

if TYPE_CHECKING:
    import orjson

    from sseconform.rules.base import Checker
    from sseconform.sse.decoder import Event


RULE = define(
    "J001",
    "invalid-json",
    Severity.ERROR,
    None,
    "An event's data is not valid JSON (and not `[DONE]`).",
    RuleDoc(
        what=(
            "An event's data is not valid JSON, is not `[DONE]` and does not start with `:` (that "
            "is W012)."
        ),
        why=(
            "Every chat frame must be a JSON object; one that does not parse is lost to every "
            "client, or ends the stream with an exception."
        ),
        clients=(
            "Beyond the matrix: openai-python parses each event as JSON, so it raises "
            "JSONDecodeError, as it does for empty events (openai-python #2722); a client that "
            "skips bad frames loses their content."
        ),
        fix=(
            "Send one complete JSON object per event:\n"
            'data: {"id":"c1",...,"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n'
            "\n"
        ),
    ),
)


@NOT_JSON.on(RULE)
def check(c: Checker, ev: Event, exc: orjson.JSONDecodeError) -> None:
    """Data that does not parse as JSON."""
    c.report(RULE, f"data is not JSON: {exc}; data starts {ev.data[:40]!r}", ev)
