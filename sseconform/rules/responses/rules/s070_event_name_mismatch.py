"""S070 event-name-mismatch: The `event:` name differs from the data's `type`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import EVENT_NAME

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S070",
    "event-name-mismatch",
    Severity.WARNING,
    "event-names",
    "The `event:` name differs from the data's `type`.",
    RuleDoc(
        what="An event whose `event:` line names another type than its data's `type`.",
        why=(
            "OpenAI sends `event: <type>` with every event. Clients that dispatch on the SSE event "
            "name (a browser EventSource with per-type listeners) route the event by the name, "
            "others by the data."
        ),
        clients=(
            "openai-python: ignores `event:` names and reads the data (the measured case read "
            "right); Codex CLI and the AI SDK also dispatch on the data's `type` (from their "
            "source)."
        ),
        fix=(
            'event: response.output_text.delta\ndata: {"type":"response.output_text.delta",...}\n\n'
        ),
    ),
)


@EVENT_NAME.on(RULE)
def check(c: ResponsesChecker, ev: Event, kind: str) -> None:
    """An `event:` line that names another type than the data's."""
    if ev.event is not None and ev.event != kind:
        c.report(RULE, f"`event: {ev.event}` but data type {kind!r}", ev)
