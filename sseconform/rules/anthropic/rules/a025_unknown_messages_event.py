"""A025 unknown-messages-event: An event type the Messages API does not have."""

from sseconform.rules.anthropic.invariants import NO_FOREIGN_SHAPES
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "A025",
    "unknown-messages-event",
    Severity.WARNING,
    NO_FOREIGN_SHAPES,
    "An event type the Messages API does not have.",
    RuleDoc(
        what=(
            "An event whose data `type` is not one of message_start, "
            "content_block_start, content_block_delta, content_block_stop, "
            "message_delta, message_stop, ping or error (and not a Responses "
            "event, A035). Reported once per type."
        ),
        why=(
            "Anthropic may add event types, and its SDKs skip unknown ones, but "
            "one a gateway invents carries nothing a client can use. A warning: "
            "the list may lag behind the API."
        ),
        clients=(
            "@ai-sdk/anthropic fails the stream (AI_TypeValidationError). anthropic-python, "
            "@anthropic-ai/sdk and Claude Code skip it."
        ),
        fix="Send only the Messages API's events.",
    ),
)
