"""V006 finish-reason-missing: The stream ended without a finishReason."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.gemini.hooks import END
from sseconform.rules.gemini.invariants import FINISH_LAST
from sseconform.rules.snippets import gemini_chunk

if TYPE_CHECKING:
    from sseconform.rules.gemini.checker import GeminiChecker

RULE = define(
    "V006",
    "finish-reason-missing",
    Severity.ERROR,
    FINISH_LAST,
    "The stream ended without a finishReason.",
    RuleDoc(
        what=(
            "No candidate ever had a `finishReason`, the prompt was not blocked "
            "(`promptFeedback.blockReason`) and no error chunk came: the stream was cut, or "
            "the gateway never passed the upstream's end on."
        ),
        why="Without it, a client cannot tell a whole answer from a cut one.",
        clients=(
            "Gemini CLI: an invalid stream (no finish reason) unless the answer called a "
            "tool; it sends the request again three times, then shows the error. "
            "google-genai yields the chunks with `finish_reason` None, and its chat session "
            "leaves the turn out of the history."
        ),
        fix=("End the candidate with its finishReason:\n" + gemini_chunk('{"text":"."}', "STOP")),
    ),
)


@END.on(RULE)
def check(c: GeminiChecker) -> None:
    """The stream ended without a finishReason."""
    s = c.state
    if s.finish is None and not s.blocked and s.ended is None:
        said = (
            "no chunk at all"
            if not s.chunks
            else f"{s.chunks} chunk{'s' if s.chunks > 1 else ''}, none with one"
        )
        c.report_at_end(RULE, f"the stream ended without a finishReason ({said})")
