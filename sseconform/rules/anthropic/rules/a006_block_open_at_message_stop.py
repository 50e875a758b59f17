"""A006 block-open-at-message-stop: message_stop while a block is still open."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.anthropic.hooks import MESSAGE_STOP
from sseconform.rules.anthropic.invariants import BLOCK_ORDER
from sseconform.rules.anthropic.state import indexes
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.snippets import MESSAGE_END, TEXT_BLOCK

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "A006",
    "block-open-at-message-stop",
    Severity.WARNING,
    BLOCK_ORDER,
    "message_stop while a block is still open.",
    RuleDoc(
        what=(
            "`message_stop` arrives while a block has had no `content_block_stop`, "
            "and the stop reason is not `max_tokens` (that is A008)."
        ),
        why=(
            "A client finalises a block at its stop (the AI SDK emits a finished "
            "tool call only there); a block left open is an incomplete answer."
        ),
        clients=(
            "Claude Code treats the stream as broken and sends the request again. "
            "anthropic-python, @anthropic-ai/sdk and @ai-sdk/anthropic read the text of an "
            "open text block; @ai-sdk/anthropic drops an open tool_use block's call."
        ),
        fix=("Close every block before message_delta:\n" + TEXT_BLOCK + MESSAGE_END),
    ),
)


@MESSAGE_STOP.on(RULE)
def check(c: AnthropicChecker, ev: Event) -> None:
    """message_stop with blocks open (and no max_tokens to explain them: A008's)."""
    s = c.state
    if s.open and s.stop_reason != "max_tokens":
        c.report(RULE, f"message_stop with block {indexes(s.open)} still open", ev)
