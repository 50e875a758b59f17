"""S071 event-name-missing: Events without an `event:` line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import EVENT_NAME

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S071",
    "event-name-missing",
    Severity.WARNING,
    "event-names",
    "Events without an `event:` line.",
    RuleDoc(
        what="An event without an `event:` line (reported once per stream).",
        why=(
            "OpenAI sends `event: <type>` before each event's data; EventSource listeners "
            "registered per type get nothing without it (the event arrives as `message`)."
        ),
        clients=(
            "openai-python: ignores `event:` names (the measured case read right); Codex CLI "
            "and the AI SDK dispatch on the data's `type` too (from their source)."
        ),
        fix=(
            'event: response.output_text.delta\ndata: {"type":"response.output_text.delta",...}\n\n'
        ),
    ),
)


@EVENT_NAME.on(RULE)
def check(c: ResponsesChecker, ev: Event, kind: str) -> None:
    """No `event:` line (said once)."""
    if ev.event is None and c.first_time(RULE.code):
        c.report(RULE, f"no `event:` line (data type {kind!r}; first here)", ev)
