"""O005 done-sentinel-missing: The stream ends without `data: [DONE]` after its terminal event."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.open_responses.hooks import END

if TYPE_CHECKING:
    from sseconform.rules.open_responses.checker import OpenResponsesChecker

RULE = define(
    "O005",
    "done-sentinel-missing",
    Severity.ERROR,
    "spec-framing",
    "The stream ends without `data: [DONE]` after its terminal event.",
    RuleDoc(
        what=(
            "The stream's terminal event (`response.completed`, `.incomplete`, `.failed`) or "
            "its error event came, and the stream ended without `data: [DONE]` after it. "
            "OpenAI's own Responses streams send none: the specification asks more than OpenAI "
            "does. (The responses grammar's S060, a `[DONE]` after the terminal event, does "
            "not apply here.)"
        ),
        why=(
            "A client of the specification reads until `[DONE]`; without it, it cannot tell a "
            "finished stream from a connection that closed early."
        ),
        clients=(
            "Not a client's rule: the specification's (its HTTP compliance suite skips "
            "`[DONE]` and does not check it). openai-python stops at `[DONE]` and at the end "
            "alike."
        ),
        fix=(
            "data: "
            '{"type":"response.completed","sequence_number":12,"response":{...}}\n\ndata: '
            "[DONE]\n\n"
        ),
        spec=(
            "Open Responses, § HTTP Responses (Streaming HTTP Responses): the terminal event "
            "MUST be the literal string `[DONE]`."
        ),
    ),
)


@END.on(RULE)
def check(c: OpenResponsesChecker) -> None:
    """A terminal (or error) event came, and no `data: [DONE]` after it."""
    last = c.terminal or c.error
    if last is not None and not c.done_after_end:
        c.report_at_end(
            RULE,
            f"the stream ends after its terminal event (frame {last.frame}) without `data: [DONE]`",
        )
