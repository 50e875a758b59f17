"""A026 error-event-malformed: An error event not shaped {type: error, error: {type, message}}."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.anthropic.hooks import ERROR, HOOKS
from sseconform.rules.anthropic.invariants import ERROR_EVENT
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.schema import SchemaViolation

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "A026",
    "error-event-malformed",
    Severity.ERROR,
    ERROR_EVENT,
    "An error event not shaped {type: error, error: {type, message}}.",
    RuleDoc(
        what=(
            'An event with `type: "error"` whose `error` is missing or lacks a '
            "string `type` or `message`, or an OpenAI-style error frame "
            '(`{"error": {...}}` with no `type`).'
        ),
        why=(
            "Clients raise the error with its type and message; a bare message or "
            "another shape loses them."
        ),
        clients=(
            "No `error` object: anthropic-python and @anthropic-ai/sdk raise with the whole "
            "payload as the message, @ai-sdk/anthropic fails with a type validation error "
            "instead of the error, Claude Code reports it and retries. An OpenAI-style frame "
            "under `event: error`: the SDKs raise it as the payload; Claude Code retries."
        ),
        fix=(
            "event: error\n"
            'data: {"type":"error","error":{"type":"api_error","message":"upstream '
            'timed out"}}\n'
            "\n"
        ),
    ),
)


@ERROR.on(RULE)
def check(c: AnthropicChecker, ev: Event, obj: dict[str, Any]) -> None:
    """An OpenAI-style error object where an Anthropic error event belongs."""
    if obj.get("type") != "error":
        c.report(
            RULE,
            "an OpenAI-style error frame, not "
            '{"type": "error", "error": {"type": ..., "message": ...}}',
            ev,
        )


@HOOKS.claims(RULE)
def claim(kind: str, v: SchemaViolation, obj: dict[str, Any]) -> str | None:
    """Every schema violation of an error event."""
    if kind != "error":
        return None
    return f"the error event is not {{type: error, error: {{type, message}}}} ({v.message})"
