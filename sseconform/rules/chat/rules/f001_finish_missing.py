"""F001 finish-missing: A choice never gets a finish_reason."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import FINAL_EMPTY_DELTA, Severity, define
from sseconform.rules.chat.hooks import END
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker

RULE = define(
    "F001",
    "finish-missing",
    Severity.ERROR,
    FINAL_EMPTY_DELTA,
    "A choice never gets a finish_reason.",
    RuleDoc(
        what=(
            "A choice that had deltas never gets a non-null finish_reason, although the stream "
            "ended with `[DONE]` and no error frame. A stream that just stops (no finish, no "
            "error, no `[DONE]`) is E003 instead."
        ),
        why=(
            "The finish reason tells the client why the answer ended; without it the client "
            "cannot tell whether to run tools or whether the text was cut. Snowflake sends no "
            "finish_reason."
        ),
        clients=(
            'ERR in ai 7 `@ai-sdk/openai-compatible` ("Response stream ended without a finish '
            'reason."); the other measured clients did not fail on it.'
        ),
        fix=(
            'data: {...,"delta":{"content":"Hi"}}\n'
            "\n"
            'data: {...,"delta":{},"finish_reason":"stop"}\n'
            "\n"
            "data: [DONE]\n"
            "\n"
        ),
    ),
)


@END.on(RULE)
def check(c: StreamChecker) -> None:
    """`[DONE]` with no chunk, or with a choice that never got its finish_reason."""
    if c.error_frame is not None or not c.done:
        return
    if not c.choices:
        c.report_at_end(RULE, "no chunk with choices before [DONE]")
    for ch in c.choices.values():
        if ch.finish is None:
            c.report_at_end(RULE, f"choice {ch.index} never gets a finish_reason")
