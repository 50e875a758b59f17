"""A034 done-in-messages: `data: [DONE]` in a Messages stream."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.anthropic.hooks import DONE_SENTINEL
from sseconform.rules.anthropic.invariants import NO_FOREIGN_SHAPES
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "A034",
    "done-in-messages",
    Severity.WARNING,
    NO_FOREIGN_SHAPES,
    "`data: [DONE]` in a Messages stream.",
    RuleDoc(
        what=(
            "A `data: [DONE]` event: the chat completions terminator, which the "
            "Messages API does not send (it ends with message_stop)."
        ),
        why=(
            "Clients parse every named event as JSON; `[DONE]` has no name, so "
            "most skip it, but a client that parses all data fails on it."
        ),
        clients=(
            "anthropic-python, @anthropic-ai/sdk, @ai-sdk/anthropic and Claude Code ignore it "
            "after message_stop. Without message_stop before it the stream is also A020."
        ),
        fix=('event: message_stop\ndata: {"type":"message_stop"}\n\n'),
    ),
)


@DONE_SENTINEL.on(RULE)
def check(c: AnthropicChecker, ev: Event) -> None:
    """A chat stream's terminator in a Messages stream."""
    c.report(RULE, "`data: [DONE]` in a Messages stream; it ends with message_stop", ev)
