"""S042 event-after-terminal: An event after the terminal event."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import EVENT

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S042",
    "event-after-terminal",
    Severity.WARNING,
    "one-terminal-event",
    "An event after the terminal event.",
    RuleDoc(
        what=(
            "An event follows `response.completed`, `response.incomplete` or `response.failed` "
            "(reported once)."
        ),
        why="The terminal event ends the response; clients may stop reading at it.",
        clients=(
            "openai-python: keeps reading to the end of the body (the measured case read "
            "right). A client that stops at the terminal event loses what follows."
        ),
        fix="End the body after the terminal event.",
    ),
)


@EVENT.on(RULE)
def check(c: ResponsesChecker, ev: Event, obj: dict[str, Any], kind: str) -> None:
    """Any event after the terminal event (said once)."""
    if c.terminal is not None and c.first_time(RULE.code):
        c.report(RULE, f"{kind} after the terminal event (frame {c.terminal.frame})", ev)
