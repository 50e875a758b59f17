"""A021 event-after-message-stop: An event after message_stop."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.anthropic.hooks import AFTER_END
from sseconform.rules.anthropic.invariants import STOP_THEN_MESSAGE_STOP
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "A021",
    "event-after-message-stop",
    Severity.ERROR,
    STOP_THEN_MESSAGE_STOP,
    "An event after message_stop.",
    RuleDoc(
        what=(
            "Any event other than `ping` after `message_stop` (reported once; "
            "`data: [DONE]` is A034). The events after it are not checked further."
        ),
        why="message_stop ends the message; clients stop reading or finalise there.",
        clients=(
            "A delta after message_stop: @anthropic-ai/sdk and Claude Code lose it, "
            "@ai-sdk/anthropic fails ('text part 0 not found'), anthropic-python appends it. A "
            "repeated message_stop is harmless to all four."
        ),
        fix="Send message_stop last.",
    ),
)


@AFTER_END.on(RULE)
def check(c: AnthropicChecker, ev: Event) -> None:
    """An event after message_stop."""
    end = c.state.ended
    if end is not None and c.state.ended_by != "error":
        c.report(RULE, f"an event after message_stop (frame {end.frame})", ev)
