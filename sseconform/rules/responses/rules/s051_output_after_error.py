"""S051 output-after-error: Output events after an `error` event."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.events import TERMINAL
from sseconform.rules.responses.hooks import CHECKED

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S051",
    "output-after-error",
    Severity.WARNING,
    "error-event",
    "Output events after an `error` event.",
    RuleDoc(
        what=(
            "After an `error` event, events other than a terminal one (`response.failed`) or "
            "another error follow (reported once)."
        ),
        why=(
            "An error ends the response's output; OpenAI sends `response.failed` after it and "
            "nothing else."
        ),
        clients=(
            "openai-python: raises APIError at the (nested) error event, so nothing after it "
            "is read."
        ),
        fix='data: {"type":"error","error":{...}}\n\ndata: {"type":"response.failed",...}\n\n',
    ),
)


@CHECKED.on(RULE)
def check(c: ResponsesChecker, ev: Event, obj: dict[str, Any], kind: str) -> None:
    """Output after an error event, before any terminal event (said once)."""
    if (
        c.error is not None
        and c.terminal is None
        and kind not in TERMINAL
        and kind != "error"
        and c.first_time(RULE.code)
    ):
        c.report(RULE, f"{kind} after the error event at frame {c.error.frame}", ev)
