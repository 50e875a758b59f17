"""V018 done-in-gemini: A `data: [DONE]` in a Gemini stream."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.gemini.hooks import DONE_SENTINEL
from sseconform.rules.gemini.invariants import NO_FOREIGN_SHAPES

if TYPE_CHECKING:
    from sseconform.rules.gemini.checker import GeminiChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "V018",
    "done-in-gemini",
    Severity.ERROR,
    NO_FOREIGN_SHAPES,
    "A `data: [DONE]` in a Gemini stream.",
    RuleDoc(
        what=(
            "The stream ends with OpenAI's `data: [DONE]` terminator; Gemini sends none (the "
            "stream ends when the body does)."
        ),
        why="A Gemini client parses every `data:` line as JSON.",
        clients=(
            "google-genai raises after the answer (`Failed to parse response as JSON`). "
            "Gemini CLI's SDK throws a syntax error: the turn fails and is taken out of the "
            "history."
        ),
        fix="End the body after the last chunk, with nothing after it.",
    ),
)


@DONE_SENTINEL.on(RULE)
def check(c: GeminiChecker, ev: Event) -> None:
    """A `data: [DONE]` in a Gemini stream."""
    if c.first_time(RULE.code):
        c.report(RULE, "data: [DONE], which no Gemini stream sends", ev)
