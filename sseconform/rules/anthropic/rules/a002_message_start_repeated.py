"""A002 message-start-repeated: A second message_start in one stream."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.anthropic.hooks import START_AGAIN
from sseconform.rules.anthropic.invariants import MESSAGE_START_FIRST
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.snippets import BLOCK_START, MESSAGE_START

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "A002",
    "message-start-repeated",
    Severity.ERROR,
    MESSAGE_START_FIRST,
    "A second message_start in one stream.",
    RuleDoc(
        what=(
            "`message_start` arrives again in the same stream (the same message "
            "twice, or two generations spliced together). Reported at each repeat; "
            "the repeat is otherwise ignored."
        ),
        why=(
            "One stream is one message. A gateway that replays the upstream's "
            "first event, or splices a retry onto a failed attempt, sends it twice."
        ),
        clients=(
            "@anthropic-ai/sdk: MessageStream throws 'Unexpected event order, got "
            'message_start before receiving "message_stop"\'. anthropic-python, '
            "@ai-sdk/anthropic and Claude Code tolerate it and keep the first."
        ),
        fix=("Send message_start once, first:\n" + MESSAGE_START + BLOCK_START + "..."),
    ),
)


@START_AGAIN.on(RULE)
def check(c: AnthropicChecker, ev: Event) -> None:
    """A second message_start."""
    c.report(RULE, "a second message_start", ev)
