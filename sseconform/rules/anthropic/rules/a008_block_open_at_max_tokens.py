"""A008 block-open-at-max-tokens: A block cut by max_tokens is never closed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.anthropic.hooks import MESSAGE_STOP
from sseconform.rules.anthropic.invariants import BLOCK_ORDER
from sseconform.rules.anthropic.state import indexes
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.snippets import BLOCK_STOP, event, text_delta

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "A008",
    "block-open-at-max-tokens",
    Severity.WARNING,
    BLOCK_ORDER,
    "A block cut by max_tokens is never closed.",
    RuleDoc(
        what=(
            "`message_stop` arrives while a block is still open and the stop "
            "reason is `max_tokens`: the output was cut and the block was not closed."
        ),
        why=(
            "The answer is incomplete either way; a tool call cut by max_tokens "
            "has unusable input, and only clients that finalise blocks at their "
            "stop notice the difference."
        ),
        clients=(
            "anthropic-python, @anthropic-ai/sdk and @ai-sdk/anthropic read the text as for a "
            "closed block; @ai-sdk/anthropic drops an open tool_use call (its input was cut "
            "anyway); Claude Code continues the turn as after any max_tokens stop."
        ),
        fix=(
            "Close the block before message_delta:\n"
            + text_delta("Hi")
            + BLOCK_STOP
            + event(
                "message_delta",
                '{"type":"message_delta","delta":{"stop_reason":"max_tokens",...},...}',
            )
        ),
    ),
)


@MESSAGE_STOP.on(RULE)
def check(c: AnthropicChecker, ev: Event) -> None:
    """message_stop with blocks open after max_tokens cut them."""
    s = c.state
    if s.open and s.stop_reason == "max_tokens":
        c.report(RULE, f"block {indexes(s.open)} cut by max_tokens is never closed", ev)
