"""V020 json-array-malformed: A JSON-array body that is not one array of chunks."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.gemini.hooks import ARRAY_FRAMING
from sseconform.rules.gemini.invariants import NO_FOREIGN_SHAPES

if TYPE_CHECKING:
    from sseconform.rules.gemini.checker import GeminiChecker

RULE = define(
    "V020",
    "json-array-malformed",
    Severity.WARNING,
    NO_FOREIGN_SHAPES,
    "A JSON-array body that is not one array of chunks.",
    RuleDoc(
        what=(
            "Without `alt=sse`, `streamGenerateContent` answers one JSON array, streamed an "
            "element at a time: `[{...}`, `,{...}`, ..., `]`. This body opens as one but is "
            "not: a byte between two elements that is no comma or white space (an SSE "
            "`data:` line, a second array), an element cut off, or no closing `]` (the "
            "stream was cut)."
        ),
        why=(
            "A client of this framing parses the body as JSON, whole or element by element: "
            "a body that is not one array fails to parse, and a cut one loses its end."
        ),
        clients=(
            "google-genai and Gemini CLI ask for `alt=sse` and cannot read this framing at "
            "all, so no measured client tells a malformed array from a good one (a warning "
            "until one does); REST callers and libraries that parse the array fail on a "
            "malformed one (a JSON parse error) or lose a cut one's end."
        ),
        fix=(
            "One array, elements separated by commas, closed at the end:\n"
            '[{"candidates":[{"content":{"parts":[{"text":"Hi"}],"role":"model"},'
            '"index":0}]}\n'
            ",\n"
            '{"candidates":[{"content":{"parts":[{"text":"!"}],"role":"model"},'
            '"finishReason":"STOP","index":0}]}\n]'
        ),
    ),
)


@ARRAY_FRAMING.on(RULE)
def check(c: GeminiChecker, message: str, offset: int, line: int) -> None:
    """What a JSON-array body holds that is not the framing."""
    c.report_at(RULE, message, offset, line)
