"""A026 error-event-malformed: An error event not shaped {type: error, error: {type, message}}."""

from sseconform.rules.anthropic.invariants import ERROR_EVENT
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

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
