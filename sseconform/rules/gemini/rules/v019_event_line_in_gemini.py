"""V019 event-line-in-gemini: An `event:` line in a Gemini stream."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.gemini.hooks import EVENT_LINE
from sseconform.rules.gemini.invariants import NO_FOREIGN_SHAPES
from sseconform.rules.snippets import gemini_chunk

if TYPE_CHECKING:
    from sseconform.rules.gemini.checker import GeminiChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "V019",
    "event-line-in-gemini",
    Severity.ERROR,
    NO_FOREIGN_SHAPES,
    "An `event:` line in a Gemini stream.",
    RuleDoc(
        what=(
            "A chunk has an `event:` line; Gemini's stream has only `data:` lines. A gateway "
            "that writes every grammar with event names, or passes another API's names through."
        ),
        why=(
            "Gemini's SDKs read the body line by line, each event one `data:` line: another "
            "line breaks them."
        ),
        clients=(
            "google-genai reads no chunk at all and raises (`Failed to parse response as "
            "JSON`). Gemini CLI's SDK throws `Incomplete JSON segment at the end`; Gemini "
            "CLI sends the request again three times, then shows the error."
        ),
        fix=("Drop the `event:` line:\n" + gemini_chunk('{"text":"Hi"}')),
    ),
)


@EVENT_LINE.on(RULE)
def check(c: GeminiChecker, ev: Event, name: str) -> None:
    """An `event:` line in a Gemini stream."""
    if c.first_time(RULE.code):
        c.report(RULE, f"an `event: {name}` line in a Gemini stream", ev)
