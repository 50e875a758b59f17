"""A018 stop-reason-missing: message_stop with no stop_reason before it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.anthropic.hooks import MESSAGE_STOP
from sseconform.rules.anthropic.invariants import STOP_THEN_MESSAGE_STOP
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.snippets import MESSAGE_END

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "A018",
    "stop-reason-missing",
    Severity.ERROR,
    STOP_THEN_MESSAGE_STOP,
    "message_stop with no stop_reason before it.",
    RuleDoc(
        what=(
            "`message_stop` arrives and no `message_delta` gave a non-null "
            "`delta.stop_reason` (there was none, or its stop_reason was null)."
        ),
        why=(
            "The stop reason tells the client what to do next: run the tools "
            "(tool_use), continue (max_tokens, pause_turn) or show the answer (end_turn)."
        ),
        clients=(
            "anthropic-python, @anthropic-ai/sdk and Claude Code end with stop_reason None; "
            "@ai-sdk/anthropic with finish reason 'other'. Agent loops that wait for tool_use "
            "stall."
        ),
        fix=(MESSAGE_END),
    ),
)


@MESSAGE_STOP.on(RULE)
def check(c: AnthropicChecker, ev: Event) -> None:
    """message_stop with no stop_reason before it."""
    if c.state.stop_reason is None:
        c.report(RULE, "message_stop, but no message_delta gave a stop_reason", ev)
