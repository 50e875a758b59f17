"""A032 chat-chunk-in-messages: An OpenAI chat.completion.chunk in a Messages stream."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.anthropic.hooks import UNTYPED
from sseconform.rules.anthropic.invariants import NO_FOREIGN_SHAPES
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.snippets import text_delta

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "A032",
    "chat-chunk-in-messages",
    Severity.ERROR,
    NO_FOREIGN_SHAPES,
    "An OpenAI chat.completion.chunk in a Messages stream.",
    RuleDoc(
        what=(
            "An event whose data is an OpenAI chat completion chunk (`object: "
            "chat.completion.chunk` or `choices`): a chunk of the other grammar "
            "leaked through a translating gateway."
        ),
        why="Its content is in a shape no Messages client reads.",
        clients=(
            "@ai-sdk/anthropic fails the stream (AI_TypeValidationError); anthropic-python, "
            "@anthropic-ai/sdk and Claude Code skip it and lose its content."
        ),
        fix=(text_delta("!")),
    ),
)


@UNTYPED.on(RULE)
def check(c: AnthropicChecker, ev: Event, obj: dict[str, Any]) -> None:
    """An OpenAI chat chunk in a Messages stream."""
    c.report(RULE, "an OpenAI chat.completion.chunk in a Messages stream", ev)
