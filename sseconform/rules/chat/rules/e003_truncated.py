"""E003 truncated: The stream stops with no finish and no error."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import ERROR_THEN_DONE, Severity, define
from sseconform.rules.chat.hooks import END
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker

RULE = define(
    "E003",
    "truncated",
    Severity.ERROR,
    ERROR_THEN_DONE,
    "The stream stops with no finish and no error.",
    RuleDoc(
        what=(
            "The stream ends with no finish chunk for some choice, no error frame and no "
            "`[DONE]`: a silent close. An empty body (no frames) is E003 too."
        ),
        why=(
            "An upstream failure after HTTP 200 must be sent as an error frame then `[DONE]`, not "
            "as a silent close and not as a made-up finish_reason (Portkey #1797; LiteLLM #40404; "
            "open-webui #29628). A silent close lets a partial answer pass for a whole one."
        ),
        clients=(
            "Clients that tolerate a missing finish reason return the partial answer as if it "
            "were complete."
        ),
        fix=(
            'data: {...,"delta":{"content":"The answer is"}}\n'
            "\n"
            'data: {"error":{"message":"upstream connection lost","type":"server_error"}}\n'
            "\n"
            "data: [DONE]\n"
            "\n"
        ),
    ),
)


@END.on(RULE)
def check(c: StreamChecker) -> None:
    """The stream stops with nothing that ends it: no finish, no error frame, no `[DONE]`."""
    if c.error_frame is not None or c.done:
        return
    unfinished = [ch.index for ch in c.choices.values() if ch.finish is None]
    if not c.choices:
        c.report_at_end(RULE, "the stream ends with no chunk, no finish and no error")
    elif unfinished:
        c.report_at_end(
            RULE,
            f"the stream stops with choice {unfinished} open: no finish, no error frame, no [DONE]",
        )
