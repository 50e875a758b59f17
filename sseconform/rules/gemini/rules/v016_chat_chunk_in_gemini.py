"""V016 chat-chunk-in-gemini: An OpenAI chat.completion.chunk in a Gemini stream."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.gemini.hooks import CHAT_CHUNK
from sseconform.rules.gemini.invariants import NO_FOREIGN_SHAPES
from sseconform.rules.snippets import gemini_chunk

if TYPE_CHECKING:
    from sseconform.rules.gemini.checker import GeminiChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "V016",
    "chat-chunk-in-gemini",
    Severity.ERROR,
    NO_FOREIGN_SHAPES,
    "An OpenAI chat.completion.chunk in a Gemini stream.",
    RuleDoc(
        what=(
            "A chunk is an OpenAI chat completion chunk (`object: chat.completion.chunk` or "
            "`choices`): the other grammar leaked through a translating gateway."
        ),
        why="Its content is in a shape no Gemini client reads.",
        clients=(
            "google-genai and Gemini CLI read a chunk with no candidates and skip it: its "
            "content is lost."
        ),
        fix=("Translate it:\n" + gemini_chunk('{"text":"Hi"}')),
    ),
)


@CHAT_CHUNK.on(RULE)
def check(c: GeminiChecker, ev: Event, obj: dict[str, Any]) -> None:
    """An OpenAI chat.completion.chunk in a Gemini stream."""
    c.report(RULE, "an OpenAI chat.completion.chunk in a Gemini stream", ev)
