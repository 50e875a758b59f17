"""A020 message-stop-missing: The stream ends without message_stop and without an error event."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.anthropic.hooks import END
from sseconform.rules.anthropic.invariants import STOP_THEN_MESSAGE_STOP
from sseconform.rules.anthropic.state import indexes
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.snippets import BLOCK_STOP, MESSAGE_END

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker

RULE = define(
    "A020",
    "message-stop-missing",
    Severity.ERROR,
    STOP_THEN_MESSAGE_STOP,
    "The stream ends without message_stop and without an error event.",
    RuleDoc(
        what=(
            "The body ends and neither `message_stop` nor an `error` event came: "
            "the stream was cut (a dropped connection, a gateway timeout)."
        ),
        why=(
            "message_stop is how a client knows the answer is whole; a stream that "
            "just stops is an answer of unknown completeness."
        ),
        clients=(
            "Cut after message_delta: @anthropic-ai/sdk fails ('stream ended without producing "
            "a Message'), @ai-sdk/anthropic finishes with 'interrupted'; anthropic-python and "
            "Claude Code accept it. Cut mid-block: @anthropic-ai/sdk fails, anthropic-python "
            "ends with stop_reason None, Claude Code retries the request."
        ),
        fix=(
            "End every stream with message_stop, or with an error event when it fails:\n"
            + BLOCK_STOP
            + MESSAGE_END
        ),
    ),
)


@END.on(RULE)
def check(c: AnthropicChecker) -> None:
    """The stream ends with neither message_stop nor an error event."""
    s = c.state
    if s.ended is not None:
        return
    if not s.began:
        c.report_at_end(RULE, "the stream ends with no message event, no error event")
    elif s.open:
        c.report_at_end(
            RULE,
            f"the stream ends with block {indexes(s.open)} open: no message_stop, no error event",
        )
    else:
        c.report_at_end(RULE, "the stream ends without message_stop or an error event")
