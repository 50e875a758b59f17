"""V022 whole-body-malformed: A non-streaming answer that is not one JSON object."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.gemini.hooks import WHOLE_FRAMING
from sseconform.rules.gemini.invariants import NO_FOREIGN_SHAPES

if TYPE_CHECKING:
    from sseconform.rules.gemini.checker import GeminiChecker

RULE = define(
    "V022",
    "whole-body-malformed",
    Severity.ERROR,
    NO_FOREIGN_SHAPES,
    "A non-streaming answer that is not one JSON object.",
    RuleDoc(
        what=(
            "`generateContent` (no streaming) answers one `GenerateContentResponse`: one JSON "
            "object, the whole body. This body is not: no object at all, an array or SSE "
            "`data:` lines (a streaming answer to a non-streaming call), a second object or "
            "other bytes after the first, or the object cut off. Checked when the body is "
            "known to answer `:generateContent` (a recording's URL, `check --non-streaming`, "
            "`gate --non-streaming`)."
        ),
        why=(
            "A non-streaming client parses the whole body as one JSON value: anything else "
            "fails to parse, or parses into something with no answer in it."
        ),
        clients=(
            "google-genai's `models.generate_content` raises `JSONDecodeError` on a cut "
            "object, bytes after it, two objects and SSE lines; an empty body or an array "
            "gives a response with no candidates, its `.text` None: the answer lost without "
            "an error (measured: tests/grammars/test_gemini_whole.py)."
        ),
        fix=(
            "Answer a non-streaming call with the whole response as one object, once the "
            "upstream has finished:\n"
            '{"candidates":[{"content":{"parts":[{"text":"Hi!"}],"role":"model"},'
            '"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":3,'
            '"candidatesTokenCount":2,"totalTokenCount":5}}'
        ),
    ),
)


@WHOLE_FRAMING.on(RULE)
def check(c: GeminiChecker, message: str, offset: int, line: int) -> None:
    """What a non-streaming body holds that is not its one object."""
    c.report_at(RULE, message, offset, line)
