"""A025 unknown-messages-event: An event type the Messages API does not have."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.anthropic.hooks import UNKNOWN_EVENT
from sseconform.rules.anthropic.invariants import NO_FOREIGN_SHAPES
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.sse.decoder import Event

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


@UNKNOWN_EVENT.on(RULE)
def check(c: AnthropicChecker, ev: Event, kind: str) -> None:
    """An event type the Messages API does not have (a Responses one is A035's)."""
    if not kind.startswith("response.") and c.first_time(f"{RULE.code}:{kind}"):
        c.report(RULE, f"event type {kind!r} is not a Messages stream event", ev)
