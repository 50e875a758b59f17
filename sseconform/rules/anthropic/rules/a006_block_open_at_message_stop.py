"""A006 block-open-at-message-stop: message_stop while a block is still open."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.anthropic.hooks import HOOKS
from sseconform.rules.anthropic.invariants import BLOCK_ORDER
from sseconform.rules.anthropic.state import indexes
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

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
        fix=(
            "Close every block before message_delta:\n"
            "event: content_block_start\n"
            'data: {"type":"content_block_start","index":0,"content_block":{"type":'
            '"text","text":""}}\n'
            "\n"
            "event: content_block_delta\n"
            'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_de'
            'lta","text":"Hi"}}\n'
            "\n"
            "event: content_block_stop\n"
            'data: {"type":"content_block_stop","index":0}\n'
            "\n"
            "event: message_delta\n"
            'data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_'
            'sequence":null},"usage":{"output_tokens":3}}\n'
            "\n"
            "event: message_stop\n"
            'data: {"type":"message_stop"}\n'
            "\n"
        ),
    ),
)


@HOOKS.on(RULE, "message-stop")
def check(c: AnthropicChecker, ev: Event) -> None:
    """message_stop with blocks open (and no max_tokens to explain them: A008's)."""
    s = c.state
    if s.open and s.stop_reason != "max_tokens":
        c.report(RULE, f"message_stop with block {indexes(s.open)} still open", ev)
