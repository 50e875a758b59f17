"""V017 foreign-event-in-gemini: An Anthropic Messages or Responses API event in a Gemini stream."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.gemini.hooks import FOREIGN_EVENT
from sseconform.rules.gemini.invariants import NO_FOREIGN_SHAPES
from sseconform.rules.snippets import gemini_chunk

if TYPE_CHECKING:
    from sseconform.rules.gemini.checker import GeminiChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "V017",
    "foreign-event-in-gemini",
    Severity.ERROR,
    NO_FOREIGN_SHAPES,
    "An Anthropic Messages or Responses API event in a Gemini stream.",
    RuleDoc(
        what=(
            "A chunk has a `type` of Anthropic's Messages events (`content_block_delta`, "
            "...) or the Responses API's (`response.output_text.delta`, ...): a native event "
            "leaked through a gateway."
        ),
        why="Its content is in a shape no Gemini client reads.",
        clients=(
            "google-genai and Gemini CLI read a chunk with no candidates and skip it: its "
            "content is lost."
        ),
        fix=("Translate it:\n" + gemini_chunk('{"text":"Hi"}')),
    ),
)


@FOREIGN_EVENT.on(RULE)
def check(c: GeminiChecker, ev: Event, kind: str) -> None:
    """An Anthropic Messages or Responses API event in a Gemini stream."""
    if c.first_time(f"{RULE.code}:{kind}"):
        c.report(RULE, f"a {kind!r} event in a Gemini stream", ev, "/type")
