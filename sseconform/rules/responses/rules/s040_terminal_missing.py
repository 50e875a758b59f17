"""S040 terminal-missing: The stream ends without a terminal event."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import END

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker

RULE = define(
    "S040",
    "terminal-missing",
    Severity.ERROR,
    "one-terminal-event",
    "The stream ends without a terminal event.",
    RuleDoc(
        what=(
            "The body ends with no `response.completed`, `response.incomplete` or "
            "`response.failed`, and no `error` event: the stream was cut."
        ),
        why=(
            "The terminal event is the only way a client knows the response is whole; without it, "
            "a cut connection looks like a short answer."
        ),
        clients=(
            "openai-python: `get_final_response()` raises RuntimeError (\"Didn't receive a "
            '`response.completed` event.") after the streamed text. Codex CLI treats a stream '
            "closed before `response.completed` as an error and retries the turn (its own "
            "tests cover this; not measured here)."
        ),
        fix='data: {"type":"response.completed","response":{"status":"completed",...}}\n\n',
    ),
)


@END.on(RULE)
def check(c: ResponsesChecker) -> None:
    """The stream ended with no terminal event, no error and no `[DONE]`."""
    if c.terminal is None and c.error is None and not c.done_sentinel:
        c.report_at_end(
            RULE,
            "the stream ends without response.completed, .incomplete or .failed, "
            "and no error event: truncated",
        )
