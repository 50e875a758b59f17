"""A033 finish-reason-as-stop-reason: An OpenAI finish_reason sent as stop_reason."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.providers import CHAT_FINISH_KNOWN
from sseconform.rules.anthropic.hooks import STOP_REASON
from sseconform.rules.anthropic.invariants import NO_FOREIGN_SHAPES
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "A033",
    "finish-reason-as-stop-reason",
    Severity.ERROR,
    NO_FOREIGN_SHAPES,
    "An OpenAI finish_reason sent as stop_reason.",
    RuleDoc(
        what=(
            "`delta.stop_reason` is one of OpenAI's finish reasons (stop, length, "
            "tool_calls, content_filter, function_call): a translation left undone."
        ),
        why=(
            "Clients branch on Anthropic's stop reasons: `tool_calls` for "
            "`tool_use` means the tools are never run, `length` for `max_tokens` "
            "means no continuation."
        ),
        clients=(
            "anthropic-python, @anthropic-ai/sdk and Claude Code keep the foreign string; "
            "@ai-sdk/anthropic maps it to 'other'. None of them sees end_turn, tool_use or "
            "max_tokens."
        ),
        fix=(
            'data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usag'
            'e":{"output_tokens":3}}\n'
            "\n"
        ),
    ),
)


@STOP_REASON.on(RULE)
def check(c: AnthropicChecker, ev: Event, reason: str) -> None:
    """An OpenAI finish_reason as the stop_reason: a translation left undone."""
    if reason in CHAT_FINISH_KNOWN:
        c.report(
            RULE, f"stop_reason {reason!r} is an OpenAI finish_reason", ev, "/delta/stop_reason"
        )
