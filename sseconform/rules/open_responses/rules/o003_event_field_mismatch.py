"""O003 event-field-mismatch: The SSE `event:` field is missing or is not the data's type."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.open_responses.hooks import EVENT_NAME

if TYPE_CHECKING:
    from sseconform.rules.open_responses.checker import OpenResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "O003",
    "event-field-mismatch",
    Severity.ERROR,
    "spec-framing",
    "The SSE `event:` field is missing or is not the data's type.",
    RuleDoc(
        what=(
            "An event without an `event:` line (reported once), or whose `event:` is not its "
            "JSON `type`. The responses grammar's S070/S071 say the same for OpenAI's streams; "
            "here the specification makes it a MUST."
        ),
        why=(
            "Clients of the specification may dispatch on the SSE event name without parsing "
            "the data first."
        ),
        clients=(
            "Not a client's rule: the specification's. openai-python and the AI SDK read the "
            "JSON `type` and ignore the `event:` line."
        ),
        fix=(
            'event: response.output_text.delta\ndata: {"type":"response.output_text.delta",...}\n\n'
        ),
        spec=(
            "Open Responses, § HTTP Responses (Streaming HTTP Responses): the `event` field "
            "MUST match the `type` in the event body."
        ),
    ),
)


@EVENT_NAME.on(RULE)
def check(c: OpenResponsesChecker, ev: Event, kind: str) -> None:
    """No `event:` line (said once), or one that is not the data's type."""
    if ev.event is None:
        if c.first_time("O003"):
            c.report(RULE, f"no `event:` line (data type {kind!r}; first here)", ev)
    elif ev.event != kind:
        c.report(RULE, f"`event: {ev.event}` but data type {kind!r}", ev)
