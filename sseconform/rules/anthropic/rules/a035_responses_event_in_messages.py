"""A035 responses-event-in-messages: A Responses API event in a Messages stream."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.anthropic.hooks import UNKNOWN_EVENT
from sseconform.rules.anthropic.invariants import NO_FOREIGN_SHAPES
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.snippets import text_delta

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "A035",
    "responses-event-in-messages",
    Severity.ERROR,
    NO_FOREIGN_SHAPES,
    "A Responses API event in a Messages stream.",
    RuleDoc(
        what=(
            "An event whose `type` starts with `response.` (the Responses API's "
            "events): the other grammar leaked through a gateway. Reported once per type."
        ),
        why="Its content is in a shape no Messages client reads.",
        clients=(
            "@ai-sdk/anthropic fails the stream (AI_TypeValidationError); anthropic-python, "
            "@anthropic-ai/sdk and Claude Code skip it and lose its content."
        ),
        fix=(text_delta("Hi")),
    ),
)


@UNKNOWN_EVENT.on(RULE)
def check(c: AnthropicChecker, ev: Event, kind: str) -> None:
    """A Responses API event in a Messages stream (said once per type)."""
    if kind.startswith("response.") and c.first_time(f"{RULE.code}:{kind}"):
        c.report(RULE, f"a Responses API event {kind!r} in a Messages stream", ev)
