"""W014 event-error: An error sent as `event: error`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import ERROR_THEN_DONE, Severity, define
from sseconform.rules.chat.hooks import EVENT_NAME
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "W014",
    "event-error",
    Severity.WARNING,
    ERROR_THEN_DONE,
    "An error sent as `event: error`.",
    RuleDoc(
        what=(
            "An `event: error` line. The frame's data is still checked as an error frame if it is "
            "one."
        ),
        why=(
            'Chat-completions clients read errors from the data (`{"error": {...}}`), not from '
            "the event name; an error signalled by the name alone is lost. Groq sends this shape, "
            "and without `[DONE]`."
        ),
        clients=(
            "openai-python ignores `event:` names, so `event: error` is lost and the data is "
            "handled as if it were a chunk. The shape every client surfaces is a `data:` "
            "error frame followed by `[DONE]`."
        ),
        example=('event: error\ndata: {"message":"upstream overloaded"}\n\n'),
        fix=(
            'data: {"error":{"message":"upstream overloaded","type":"server_error"}}\n'
            "\n"
            "data: [DONE]\n"
            "\n"
        ),
    ),
)


@EVENT_NAME.on(RULE)
def check(c: StreamChecker, ev: Event, name: str) -> None:
    """An error sent as `event: error`."""
    if name == "error":
        c.report(RULE, "an error sent as `event: error`: openai-python ignores it", ev)
