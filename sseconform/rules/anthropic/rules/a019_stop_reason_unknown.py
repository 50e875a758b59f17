"""A019 stop-reason-unknown: A stop_reason the Messages API does not have."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.providers import CHAT_FINISH_KNOWN
from sseconform.rules.anthropic.hooks import STOP_REASON
from sseconform.rules.anthropic.invariants import STOP_THEN_MESSAGE_STOP
from sseconform.rules.anthropic.state import STOP_REASONS
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "A019",
    "stop-reason-unknown",
    Severity.ERROR,
    STOP_THEN_MESSAGE_STOP,
    "A stop_reason the Messages API does not have.",
    RuleDoc(
        what=(
            "`delta.stop_reason` is a string other than end_turn, max_tokens, "
            "stop_sequence, tool_use, pause_turn, refusal or "
            "model_context_window_exceeded (OpenAI's finish reasons are A033)."
        ),
        why=(
            "Clients branch on the stop reason; an unknown one is handled as "
            "'other'. An error: every measured client hands its caller a reason it cannot act "
            "on (when the API adds a stop reason, this list follows)."
        ),
        clients=(
            "anthropic-python, @anthropic-ai/sdk and Claude Code keep the string; "
            "@ai-sdk/anthropic maps it to 'other'."
        ),
        fix=(
            "event: message_delta\n"
            'data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_'
            'sequence":null},"usage":{"output_tokens":3}}\n'
            "\n"
        ),
    ),
)


@STOP_REASON.on(RULE)
def check(c: AnthropicChecker, ev: Event, reason: str) -> None:
    """A stop_reason the Messages API does not have (an OpenAI one is A033's)."""
    if reason not in STOP_REASONS and reason not in CHAT_FINISH_KNOWN:
        c.report(
            RULE, f"stop_reason {reason!r} is none of the Messages API's", ev, "/delta/stop_reason"
        )
